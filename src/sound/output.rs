//! The audio device the clicks play on: cpal's default output (ALSA on Linux, WASAPI on Windows desktop), opened once; with none, the app runs silently and says so once.
//!
//! The frame loop hands clicks to the device's callback through a channel:
//! sending never blocks, and the callback only takes what is waiting, so
//! audio can neither hold up nor fail a frame. A click sounds as soon as
//! the device plays the next block of samples (a few to a few tens of
//! milliseconds later, the device's own latency).

use glam::Vec3;

use crate::input::geometry::Pose;

/// Where clicks play: the device, or nowhere.
pub struct Speaker {
    #[cfg(any(
        all(target_os = "linux", target_arch = "x86_64"),
        all(windows, not(target_vendor = "uwp"))
    ))]
    device: Option<device::Device>,
}

impl Speaker {
    /// The platform's default audio output, opened now; without one, a
    /// speaker that stays silent (said once in the log).
    pub fn open() -> Speaker {
        #[cfg(any(
            all(target_os = "linux", target_arch = "x86_64"),
            all(windows, not(target_vendor = "uwp"))
        ))]
        {
            let device = match device::Device::open() {
                Ok(device) => {
                    log::info!("clicks play on {}", device.describe());
                    Some(device)
                }
                Err(why) => {
                    log::info!("no audio output ({why}): the app runs silently");
                    None
                }
            };
            Speaker { device }
        }
        #[cfg(not(any(
            all(target_os = "linux", target_arch = "x86_64"),
            all(windows, not(target_vendor = "uwp"))
        )))]
        {
            log::info!("this build plays no sound (docs/xr.md): the app runs silently");
            Speaker {}
        }
    }

    /// Plays a click from `at` (the reference space, metres) as heard by
    /// the head at `head`; nothing without a device.
    pub fn click(&self, at: Vec3, head: Option<Pose>) {
        #[cfg(any(
            all(target_os = "linux", target_arch = "x86_64"),
            all(windows, not(target_vendor = "uwp"))
        ))]
        if let Some(device) = &self.device {
            device.click(at, head);
        }
        #[cfg(not(any(
            all(target_os = "linux", target_arch = "x86_64"),
            all(windows, not(target_vendor = "uwp"))
        )))]
        let _ = (at, head);
    }
}

#[cfg(any(
    all(target_os = "linux", target_arch = "x86_64"),
    all(windows, not(target_vendor = "uwp"))
))]
mod device {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc::{Receiver, Sender, channel};

    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
    use cpal::{FromSample, SampleFormat, SizedSample, Stream, StreamConfig};
    use glam::Vec3;

    use crate::input::geometry::Pose;
    use crate::sound::{Mixer, Placement};

    /// An open output stream and the way to its callback.
    pub struct Device {
        /// Kept so the stream keeps playing; dropping it stops it.
        _stream: Stream,
        /// To the callback: each click's placement.
        clicks: Sender<Placement>,
        /// The stream's rate, samples a second (each click's delays are in samples).
        rate: u32,
        /// The device's name, for the log.
        name: String,
    }

    impl Device {
        /// Opens the default output device and starts its stream (silent
        /// until a click); the reason, in one line, when there is none.
        pub fn open() -> Result<Device, String> {
            #[cfg(target_os = "linux")]
            quiet_alsa();
            let host = cpal::default_host();
            let device = host
                .default_output_device()
                .ok_or_else(|| "no default output device".to_string())?;
            let name = device.name().unwrap_or_else(|_| "an unnamed device".into());
            let supported = device
                .default_output_config()
                .map_err(|error| format!("{name}: {error}"))?;
            let config: StreamConfig = supported.config();
            let (clicks, received) = channel();
            let stream = match supported.sample_format() {
                SampleFormat::F32 => build::<f32>(&device, &config, received),
                SampleFormat::I16 => build::<i16>(&device, &config, received),
                SampleFormat::I32 => build::<i32>(&device, &config, received),
                SampleFormat::U16 => build::<u16>(&device, &config, received),
                other => return Err(format!("{name}: unsupported sample format {other}")),
            }
            .map_err(|error| format!("{name}: {error}"))?;
            stream.play().map_err(|error| format!("{name}: {error}"))?;
            Ok(Device {
                _stream: stream,
                clicks,
                rate: config.sample_rate.0,
                name,
            })
        }

        /// The device's name and stream, for the log.
        pub fn describe(&self) -> String {
            format!("{} at {} Hz", self.name, self.rate)
        }

        /// Hands a click to the callback; never blocks.
        pub fn click(&self, at: Vec3, head: Option<Pose>) {
            // A send fails only once the stream's callback is gone, when
            // there is nothing left to play on.
            let _ = self.clicks.send(Placement::of(at, head, self.rate));
        }
    }

    /// An output stream of samples of type `T` that mixes the clicks it
    /// receives into the first two channels (a mono device gets their mean).
    fn build<T>(
        device: &cpal::Device,
        config: &StreamConfig,
        received: Receiver<Placement>,
    ) -> Result<Stream, cpal::BuildStreamError>
    where
        T: SizedSample + FromSample<f32>,
    {
        let channels = usize::from(config.channels.max(1));
        let mut mixer = Mixer::new(config.sample_rate.0);
        let mut time = 0u64;
        let mut stereo = Vec::new();
        let warned = Arc::new(AtomicBool::new(false));
        device.build_output_stream(
            config,
            move |data: &mut [T], _| {
                while let Ok(placement) = received.try_recv() {
                    mixer.schedule(time, placement);
                }
                let frames = data.len() / channels;
                // Grows to the device's block size once, then is reused.
                stereo.resize(frames * 2, 0.0);
                mixer.fill(time, &mut stereo);
                for (frame, pair) in data.chunks_mut(channels).zip(stereo.chunks(2)) {
                    if channels == 1 {
                        frame[0] = T::from_sample(0.5 * (pair[0] + pair[1]));
                    } else {
                        for (channel, sample) in frame.iter_mut().enumerate() {
                            *sample = T::from_sample(pair.get(channel).copied().unwrap_or(0.0));
                        }
                    }
                }
                time += frames as u64;
            },
            move |error| {
                // A device that fails mid-run (unplugged, say) is told once;
                // the app goes on silently.
                if !warned.swap(true, Ordering::Relaxed) {
                    log::warn!("the audio output failed ({error}): clicks are silent from now");
                }
            },
            None,
        )
    }

    /// Routes alsa-lib's own error messages to the log (debug) instead of
    /// stderr: with no sound card, opening the default device makes
    /// alsa-lib print several "ALSA lib ..." lines by itself, and the app's
    /// errors are one line.
    #[cfg(target_os = "linux")]
    fn quiet_alsa() {
        use std::ffi::{CStr, c_char, c_int};
        use std::sync::Once;

        /// alsa-lib's error handler without its variadic tail: the message's
        /// arguments cannot be read in stable Rust, so the log gets where the
        /// error arose and its code.
        unsafe extern "C" fn handler(
            file: *const c_char,
            line: c_int,
            function: *const c_char,
            err: c_int,
            _format: *const c_char,
        ) {
            let text = |pointer: *const c_char| {
                if pointer.is_null() {
                    String::new()
                } else {
                    // SAFETY: alsa-lib passes its own NUL-terminated
                    // __FILE__ and __func__ strings, alive for the call.
                    unsafe { CStr::from_ptr(pointer) }
                        .to_string_lossy()
                        .into_owned()
                }
            };
            log::debug!(
                "alsa-lib: {}:{line} {} (error {err})",
                text(file),
                text(function)
            );
        }

        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: alsa-lib calls the handler as a variadic C function.
            // On x86_64 System V (the only Linux target cpal is built for,
            // Cargo.toml) a variadic call passes its fixed arguments exactly
            // as a non-variadic one does, and a callee that reads only those
            // is sound; the variadic tail is never touched.
            let handler: alsa_sys::snd_lib_error_handler_t = Some(unsafe {
                std::mem::transmute::<
                    unsafe extern "C" fn(*const c_char, c_int, *const c_char, c_int, *const c_char),
                    unsafe extern "C" fn(
                        *const c_char,
                        c_int,
                        *const c_char,
                        c_int,
                        *const c_char,
                        ...
                    ),
                >(handler)
            });
            // SAFETY: setting the process-wide handler before this process
            // opens any ALSA device (Once: only here), with a handler that
            // lives for the whole program.
            unsafe { alsa_sys::snd_lib_error_set_handler(handler) };
        });
    }
}
