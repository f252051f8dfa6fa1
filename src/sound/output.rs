//! The audio device the clicks play on: cpal's default output (ALSA on Linux, WASAPI on Windows desktop), opened once; with none, the app runs silently and says so once.
//!
//! The frame loop hands clicks to the device's callback through a channel:
//! sending never blocks, and the callback only takes what is waiting, so
//! audio can neither hold up nor fail a frame. A click sounds as soon as
//! the device plays the next block of samples (a few to a few tens of
//! milliseconds later, the device's own latency), and no nearer the last
//! click than their frames' display times were, so two presses are two
//! clicks even where frames come faster than real time; the end of a run
//! waits for the clicks already made to be played.

use glam::Vec3;

use crate::input::geometry::Pose;
use crate::sound::Sound;

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

    /// Plays `sound` from `at` (the reference space, metres) as heard by
    /// the head at `head`, for the frame shown at `display_ns`; nothing
    /// without a device.
    pub fn play(&self, sound: Sound, at: Vec3, head: Option<Pose>, display_ns: i64) {
        #[cfg(any(
            all(target_os = "linux", target_arch = "x86_64"),
            all(windows, not(target_vendor = "uwp"))
        ))]
        if let Some(device) = &self.device {
            device.play(sound, at, head, display_ns);
        }
        #[cfg(not(any(
            all(target_os = "linux", target_arch = "x86_64"),
            all(windows, not(target_vendor = "uwp"))
        )))]
        let _ = (sound, at, head, display_ns);
    }
}

#[cfg(any(
    all(target_os = "linux", target_arch = "x86_64"),
    all(windows, not(target_vendor = "uwp"))
))]
impl Drop for Speaker {
    /// The clicks already made are heard before the device closes: a run
    /// that ends (or a session lost) just after a press still sounds it.
    fn drop(&mut self) {
        if let Some(device) = &self.device {
            device.wait_until_played();
        }
    }
}

#[cfg(any(
    all(target_os = "linux", target_arch = "x86_64"),
    all(windows, not(target_vendor = "uwp"))
))]
mod device {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::mpsc::{Receiver, Sender, channel};
    use std::time::{Duration, Instant};

    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
    use cpal::{FromSample, SampleFormat, SizedSample, Stream, StreamConfig};
    use glam::Vec3;

    use crate::input::geometry::Pose;
    use crate::sound::{Mixer, Placement, Sound};

    /// An open output stream and the way to its callback.
    pub struct Device {
        /// Kept so the stream keeps playing; dropping it stops it.
        _stream: Stream,
        /// To the callback: each click's placement and its frame's display time.
        clicks: Sender<(Placement, i64, Sound)>,
        /// The clicks handed over, and those the callback has finished playing.
        sent: AtomicU64,
        played: Arc<AtomicU64>,
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
            let played = Arc::new(AtomicU64::new(0));
            let heard = Arc::clone(&played);
            let stream = match supported.sample_format() {
                SampleFormat::F32 => build::<f32>(&device, &config, received, heard),
                SampleFormat::I16 => build::<i16>(&device, &config, received, heard),
                SampleFormat::I32 => build::<i32>(&device, &config, received, heard),
                SampleFormat::U16 => build::<u16>(&device, &config, received, heard),
                other => return Err(format!("{name}: unsupported sample format {other}")),
            }
            .map_err(|error| format!("{name}: {error}"))?;
            stream.play().map_err(|error| format!("{name}: {error}"))?;
            Ok(Device {
                _stream: stream,
                clicks,
                sent: AtomicU64::new(0),
                played,
                rate: config.sample_rate.0,
                name,
            })
        }

        /// The device's name and stream, for the log.
        pub fn describe(&self) -> String {
            format!("{} at {} Hz", self.name, self.rate)
        }

        /// Hands a sound to the callback; never blocks.
        pub fn play(&self, sound: Sound, at: Vec3, head: Option<Pose>, display_ns: i64) {
            // A send fails only once the stream's callback is gone, when
            // there is nothing left to play on.
            if self
                .clicks
                .send((Placement::of(at, head, self.rate), display_ns, sound))
                .is_ok()
            {
                self.sent.fetch_add(1, Ordering::Relaxed);
            }
        }

        /// Waits until every click handed over has been played, at most
        /// [`DRAIN_PATIENCE`] (a device that stopped taking samples).
        pub fn wait_until_played(&self) {
            let started = Instant::now();
            while self.played.load(Ordering::Relaxed) < self.sent.load(Ordering::Relaxed)
                && started.elapsed() < DRAIN_PATIENCE
            {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    /// Longest the end of a run waits for its last clicks to be played.
    const DRAIN_PATIENCE: Duration = Duration::from_secs(3);

    /// Farthest ahead of the device's time a click is put to keep its
    /// frames' spacing (a runtime that shows frames faster than real time).
    const MAX_LEAD_SECONDS: f64 = 2.0;

    /// An output stream of samples of type `T` that mixes the clicks it
    /// receives into the first two channels (a mono device gets their mean).
    fn build<T>(
        device: &cpal::Device,
        config: &StreamConfig,
        received: Receiver<(Placement, i64, Sound)>,
        played: Arc<AtomicU64>,
    ) -> Result<Stream, cpal::BuildStreamError>
    where
        T: SizedSample + FromSample<f32>,
    {
        let channels = usize::from(config.channels.max(1));
        let rate = config.sample_rate.0;
        let mut mixer = Mixer::new(rate);
        let mut time = 0u64;
        // The last click's sample time and its frame's display time: the
        // next keeps the frames' spacing, so two presses made between two
        // blocks of samples are two clicks, not one.
        let mut last: Option<(u64, i64)> = None;
        // Each click's last sample time, until it has been played.
        let mut playing: Vec<u64> = Vec::new();
        let mut stereo = Vec::new();
        let warned = Arc::new(AtomicBool::new(false));
        device.build_output_stream(
            config,
            move |data: &mut [T], _| {
                while let Ok((placement, display_ns, sound)) = received.try_recv() {
                    let lead = (MAX_LEAD_SECONDS * f64::from(rate)) as u64;
                    let at = match last {
                        Some((last_at, last_ns)) => {
                            let gap_ns = display_ns.saturating_sub(last_ns).max(0);
                            let spaced = last_at + (gap_ns as f64 * 1e-9 * f64::from(rate)) as u64;
                            spaced.clamp(time, time + lead)
                        }
                        None => time,
                    };
                    last = Some((at, display_ns));
                    mixer.schedule(at, placement, sound);
                    let delay = placement.delay[0].max(placement.delay[1]);
                    playing.push(at + u64::from(delay) + mixer.length(sound));
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
                let before = playing.len();
                playing.retain(|&ends| ends > time);
                played.fetch_add((before - playing.len()) as u64, Ordering::Relaxed);
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
