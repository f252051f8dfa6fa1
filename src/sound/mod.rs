//! The app's sounds: the synthesized press and release clicks, grab and let-go, the soft loop of a fault being traced; where the wearer hears each from (its place relative to the head), the mixer that lays them into stereo samples, and (`output`) the audio device they play on.
//!
//! Everything here but `output` is pure and deterministic: the same clicks
//! at the same sample times give the same samples on every run. Where the
//! platform has no spatial (HRTF) audio, a click is placed by the two cues
//! a pair of speakers or headphones can carry: the ear nearer the button
//! hears it louder (interaural level difference) and earlier (interaural
//! time difference); both grow with the button's angle to the side.

pub mod output;

use glam::Vec3;

use crate::input::geometry::Pose;

/// How long a click lasts, seconds: short enough to read as a tick.
const CLICK_SECONDS: f64 = 0.004;
/// How fast a tick dies away (its envelope's time constant), seconds.
const CLICK_DECAY_SECONDS: f64 = 0.0008;
/// A click's peak before placement: loud enough to hear, with headroom
/// for several sounds at once.
const CLICK_PEAK: f32 = 0.5;
/// How long grab and let-go last, seconds: a soft knock, not a tick.
const KNOCK_SECONDS: f64 = 0.05;
/// How fast a knock dies away, seconds.
const KNOCK_DECAY_SECONDS: f64 = 0.012;
/// A knock's peak: below a click's, as it comes with every grab.
const KNOCK_PEAK: f32 = 0.35;
/// How often the app starts a grain of the tracing loop while a fault is
/// drawn, seconds: four frames at 60 Hz.
pub const TRACE_GRAIN_PERIOD_SECONDS: f64 = 1.0 / 15.0;
/// The tracing loop's pitch, hertz: a whole number of cycles per grain
/// period (16), so overlapping grains add in phase into one steady hum.
const TRACE_HZ: f64 = 240.0;
/// The tracing loop's peak: soft, under everything else (it plays for as
/// long as the stroke lasts).
const TRACE_PEAK: f32 = 0.08;
/// The largest interaural time difference, seconds: a sound straight to
/// one side reaches the far ear about this much later (a head about 17 cm
/// across, by Woodworth's formula).
const MAX_ITD_SECONDS: f64 = 0.00066;
/// The far ear's gain for a sound straight to one side: about 6 dB down,
/// the head's shadow at the click's pitch.
const FAR_EAR_GAIN_AT_SIDE: f32 = 0.5;
/// Within this distance, metres, a sound is at full loudness; beyond it,
/// it falls off as 1/distance.
const FULL_LOUDNESS_M: f32 = 0.6;

/// Which sound plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sound {
    /// A button's press began.
    Press,
    /// A button's press ended: higher than the press, so the two are told
    /// apart by ear.
    Release,
    /// A hand took hold of the hologram.
    Grab,
    /// The hand let it go: higher than the grab.
    LetGo,
    /// One grain of the soft loop heard while a fault is traced; the app
    /// starts one every [`TRACE_GRAIN_PERIOD_SECONDS`] and they overlap.
    Tracing,
}

impl Sound {
    /// Every sound, in the order the mixer keeps their samples.
    pub const ALL: [Sound; 5] = [
        Sound::Press,
        Sound::Release,
        Sound::Grab,
        Sound::LetGo,
        Sound::Tracing,
    ];

    /// The lower-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Sound::Press => "press",
            Sound::Release => "release",
            Sound::Grab => "grab",
            Sound::LetGo => "let_go",
            Sound::Tracing => "tracing",
        }
    }

    /// Its samples, mono, at `rate` samples a second, starting and ending
    /// at zero so that none pops.
    pub fn samples(self, rate: u32) -> Vec<f32> {
        match self {
            Sound::Press => decaying(
                rate,
                2_000.0,
                CLICK_SECONDS,
                CLICK_DECAY_SECONDS,
                CLICK_PEAK,
            ),
            Sound::Release => decaying(
                rate,
                3_000.0,
                CLICK_SECONDS,
                CLICK_DECAY_SECONDS,
                CLICK_PEAK,
            ),
            Sound::Grab => decaying(rate, 420.0, KNOCK_SECONDS, KNOCK_DECAY_SECONDS, KNOCK_PEAK),
            Sound::LetGo => decaying(rate, 630.0, KNOCK_SECONDS, KNOCK_DECAY_SECONDS, KNOCK_PEAK),
            Sound::Tracing => grain(rate),
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A sine at `hz` under a fast exponential decay, `seconds` long, its last
/// samples faded to zero.
fn decaying(rate: u32, hz: f64, seconds: f64, decay_seconds: f64, peak: f32) -> Vec<f32> {
    let rate = f64::from(rate);
    let length = (seconds * rate).round() as usize;
    (0..length)
        .map(|index| {
            let t = index as f64 / rate;
            let envelope = libm::exp(-t / decay_seconds);
            // The last sample's fade keeps the end at zero.
            let fade = (length - 1 - index) as f64 / (length.max(2) - 1) as f64;
            let phase = 2.0 * std::f64::consts::PI * hz * t;
            (libm::sin(phase) * envelope * fade) as f32 * peak
        })
        .collect()
}

/// One grain of the tracing loop: two grain periods of a low sine under a
/// raised cosine, so grains started one period apart overlap by half and
/// add up to a steady level.
fn grain(rate: u32) -> Vec<f32> {
    let rate = f64::from(rate);
    let length = (2.0 * TRACE_GRAIN_PERIOD_SECONDS * rate).round() as usize;
    (0..length)
        .map(|index| {
            let t = index as f64 / rate;
            let window =
                0.5 - 0.5 * libm::cos(2.0 * std::f64::consts::PI * index as f64 / length as f64);
            let phase = 2.0 * std::f64::consts::PI * TRACE_HZ * t;
            (libm::sin(phase) * window) as f32 * TRACE_PEAK
        })
        .collect()
}

/// Where a click is heard from: each ear's gain and delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Left and right gain.
    pub gain: [f32; 2],
    /// Left and right delay, samples, after the click's time.
    pub delay: [u32; 2],
}

impl Placement {
    /// A click straight ahead at full loudness: both ears alike.
    pub const CENTRE: Placement = Placement {
        gain: [1.0, 1.0],
        delay: [0, 0],
    };

    /// A click from `at` (the reference space, metres) heard by a head at
    /// `head`, at `rate` samples a second. A head not yet located hears it
    /// from straight ahead.
    pub fn of(at: Vec3, head: Option<Pose>, rate: u32) -> Placement {
        let Some(head) = head else {
            return Placement::CENTRE;
        };
        // In the head's own axes: +X to the wearer's right.
        let local = head.orientation.inverse() * (at - head.position);
        let distance = local.length();
        if !distance.is_finite() {
            return Placement::CENTRE;
        }
        // Sine of the angle to the side: -1 full left, +1 full right;
        // a click at the head itself is heard from the middle.
        let side = if distance > 1e-4 {
            (local.x / distance).clamp(-1.0, 1.0)
        } else {
            0.0
        };
        let loudness = (FULL_LOUDNESS_M / distance.max(FULL_LOUDNESS_M)).min(1.0);
        let far = loudness * (1.0 - (1.0 - FAR_EAR_GAIN_AT_SIDE) * side.abs());
        let lag = (MAX_ITD_SECONDS * f64::from(side.abs()) * f64::from(rate)).round() as u32;
        if side < 0.0 {
            Placement {
                gain: [loudness, far],
                delay: [0, lag],
            }
        } else {
            Placement {
                gain: [far, loudness],
                delay: [lag, 0],
            }
        }
    }
}

/// Sounds laid into interleaved stereo samples as they come due: a sound
/// scheduled at a sample time plays from then on, in whichever blocks of
/// samples cover it.
#[derive(Debug, Clone)]
pub struct Mixer {
    /// Each sound's samples at the mixer's rate, in [`Sound::ALL`]'s order.
    samples: [Vec<f32>; Sound::ALL.len()],
    /// Sounds still (partly) to be written: when each starts (the sample
    /// time, each ear's delay still to add), where from, and which.
    voices: Vec<(u64, Placement, Sound)>,
}

impl Mixer {
    /// A mixer at `rate` samples a second, no sounds due.
    pub fn new(rate: u32) -> Mixer {
        Mixer {
            samples: Sound::ALL.map(|sound| sound.samples(rate)),
            voices: Vec::new(),
        }
    }

    /// `sound` from `placement` starting at sample time `at`.
    pub fn schedule(&mut self, at: u64, placement: Placement, sound: Sound) {
        self.voices.push((at, placement, sound));
    }

    /// How many samples `sound` lasts at the mixer's rate.
    pub fn length(&self, sound: Sound) -> u64 {
        self.samples[sound.index()].len() as u64
    }

    /// Whether no click is still to be (fully) written.
    pub fn is_idle(&self) -> bool {
        self.voices.is_empty()
    }

    /// Writes the stereo frames from sample time `start` into `out`
    /// (interleaved left, right; its length even), silence where no click
    /// sounds, and forgets the clicks that have finished.
    pub fn fill(&mut self, start: u64, out: &mut [f32]) {
        out.fill(0.0);
        let frames = (out.len() / 2) as u64;
        let end = start + frames;
        for &(at, placement, sound) in &self.voices {
            let samples = &self.samples[sound.index()];
            let length = samples.len() as u64;
            for ear in 0..2 {
                let begin = at + u64::from(placement.delay[ear]);
                let from = begin.max(start);
                let to = (begin + length).min(end);
                for time in from..to {
                    let sample = samples[(time - begin) as usize] * placement.gain[ear];
                    out[(time - start) as usize * 2 + ear] += sample;
                }
            }
        }
        let samples = &self.samples;
        self.voices.retain(|&(at, placement, sound)| {
            let length = samples[sound.index()].len() as u64;
            at + u64::from(placement.delay[0].max(placement.delay[1])) + length > end
        });
    }
}

/// The rate of a recording (`sim --sound`), samples a second.
pub const RECORDING_RATE: u32 = 48_000;

/// A run's clicks mixed offline into one stereo track on the display clock
/// (`sim --sound`): the same run gives the same samples, bit for bit.
#[derive(Debug, Clone)]
pub struct Recording {
    mixer: Mixer,
}

impl Default for Recording {
    fn default() -> Self {
        Recording {
            mixer: Mixer::new(RECORDING_RATE),
        }
    }
}

impl Recording {
    /// `sound` from `at` as heard from `head`, in the frame shown at
    /// `display_ns` (nanoseconds from the run's first frame).
    pub fn play(&mut self, sound: Sound, display_ns: i64, at: Vec3, head: Option<Pose>) {
        let sample = (i128::from(display_ns.max(0)) * i128::from(RECORDING_RATE) + 500_000_000)
            / 1_000_000_000;
        self.mixer.schedule(
            u64::try_from(sample).unwrap_or(u64::MAX),
            Placement::of(at, head, RECORDING_RATE),
            sound,
        );
    }

    /// The track, `seconds` long (the run's display time), as a WAV file:
    /// 16-bit stereo PCM at [`RECORDING_RATE`].
    pub fn finish(mut self, seconds: f64) -> Vec<u8> {
        let frames = (seconds.max(0.0) * f64::from(RECORDING_RATE)).ceil() as usize;
        let mut samples = vec![0.0; frames * 2];
        self.mixer.fill(0, &mut samples);
        wav(&samples, RECORDING_RATE)
    }
}

/// Interleaved stereo samples (-1 to 1) as a 16-bit PCM WAV file.
pub fn wav(samples: &[f32], rate: u32) -> Vec<u8> {
    let data_bytes = u32::try_from(samples.len() * 2).unwrap_or(u32::MAX);
    let mut bytes = Vec::with_capacity(44 + samples.len() * 2);
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36u32.saturating_add(data_bytes)).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes()); // the format chunk's size
    bytes.extend_from_slice(&1u16.to_le_bytes()); // PCM
    bytes.extend_from_slice(&2u16.to_le_bytes()); // channels
    bytes.extend_from_slice(&rate.to_le_bytes());
    bytes.extend_from_slice(&(rate * 4).to_le_bytes()); // bytes a second
    bytes.extend_from_slice(&4u16.to_le_bytes()); // bytes a frame
    bytes.extend_from_slice(&16u16.to_le_bytes()); // bits a sample
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&data_bytes.to_le_bytes());
    for sample in samples {
        let value = (sample.clamp(-1.0, 1.0) * f32::from(i16::MAX)).round() as i16;
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    const RATE: u32 = 48_000;

    /// The stereo frames from 0 of `clicks` (start time, placement), `frames` long.
    fn mixed(clicks: &[(u64, Placement)], frames: usize) -> Vec<f32> {
        let mut mixer = Mixer::new(RATE);
        for &(at, placement) in clicks {
            mixer.schedule(at, placement, Sound::Press);
        }
        let mut out = vec![0.0; frames * 2];
        mixer.fill(0, &mut out);
        out
    }

    /// The first frame where `ear` is not silent, and its loudest sample.
    fn onset_and_peak(out: &[f32], ear: usize) -> (usize, f32) {
        let samples: Vec<f32> = out.iter().skip(ear).step_by(2).copied().collect();
        let onset = samples.iter().position(|s| *s != 0.0).expect("a click");
        let peak = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
        (onset, peak)
    }

    #[test]
    fn the_click_is_short_starts_and_ends_quiet_and_is_the_same_each_time() {
        let samples = Sound::Press.samples(RATE);
        assert_eq!(samples.len(), 192); // 4 ms at 48 kHz
        assert_eq!(samples[0], 0.0);
        assert_eq!(*samples.last().unwrap(), 0.0);
        let peak = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
        assert!(peak > 0.2 && peak <= CLICK_PEAK, "peak {peak}");
        assert_eq!(samples, Sound::Press.samples(RATE));
    }

    #[test]
    fn a_click_to_the_left_is_louder_and_earlier_in_the_left_ear() {
        // The head at eye height facing -Z; the button half a metre to its left.
        let head = Pose::new(Vec3::new(0.0, 1.6, 0.0), Quat::IDENTITY);
        let placement = Placement::of(Vec3::new(-0.5, 1.6, 0.0), Some(head), RATE);
        let out = mixed(&[(100, placement)], 1000);
        let (left_onset, left_peak) = onset_and_peak(&out, 0);
        let (right_onset, right_peak) = onset_and_peak(&out, 1);
        assert!(left_peak > 1.5 * right_peak, "{left_peak} vs {right_peak}");
        // The click's first sample is zero, so it is heard from the next one.
        assert_eq!(left_onset, 101);
        // About 0.66 ms later in the far ear: 32 samples at 48 kHz.
        assert_eq!(right_onset, 101 + 32);
    }

    #[test]
    fn turning_the_head_moves_the_click_to_the_other_ear() {
        let at = Vec3::new(-0.5, 1.6, 0.0);
        // The head turned to face +Z: the button, still at -X, is now on its right.
        let turned = Pose::new(
            Vec3::new(0.0, 1.6, 0.0),
            Quat::from_rotation_y(std::f32::consts::PI),
        );
        let placement = Placement::of(at, Some(turned), RATE);
        assert!(placement.gain[1] > placement.gain[0]);
        assert!(placement.delay[0] > placement.delay[1]);
    }

    #[test]
    fn a_click_ahead_or_before_the_head_is_known_is_the_same_in_both_ears() {
        let head = Pose::new(Vec3::new(0.0, 1.6, 0.0), Quat::IDENTITY);
        let ahead = Placement::of(Vec3::new(0.0, 1.4, -0.4), Some(head), RATE);
        assert_eq!(ahead.gain[0], ahead.gain[1]);
        assert_eq!(ahead.delay, [0, 0]);
        assert_eq!(Placement::of(Vec3::ONE, None, RATE), Placement::CENTRE);
    }

    #[test]
    fn a_farther_click_is_quieter() {
        let head = Pose::new(Vec3::ZERO, Quat::IDENTITY);
        let near = Placement::of(Vec3::new(0.0, 0.0, -0.5), Some(head), RATE);
        let far = Placement::of(Vec3::new(0.0, 0.0, -2.4), Some(head), RATE);
        assert_eq!(near.gain, [1.0, 1.0]);
        assert!((far.gain[0] - 0.25).abs() < 1e-6, "{:?}", far.gain);
    }

    #[test]
    fn two_clicks_mix_and_none_is_silence() {
        let one = mixed(&[(10, Placement::CENTRE)], 600);
        let two = mixed(&[(10, Placement::CENTRE), (10, Placement::CENTRE)], 600);
        for (a, b) in one.iter().zip(&two) {
            assert_eq!(2.0 * a, *b);
        }
        // Apart in time, each is heard at its own time.
        let apart = mixed(&[(10, Placement::CENTRE), (400, Placement::CENTRE)], 600);
        assert_eq!(apart[..600], one[..600]);
        assert_eq!(apart[2 * 401], one[2 * 11]);
        assert!(mixed(&[], 600).iter().all(|s| *s == 0.0));
    }

    #[test]
    fn a_recording_holds_each_click_at_its_display_time() {
        let head = Pose::new(Vec3::new(0.0, 1.6, 0.0), Quat::IDENTITY);
        let mut recording = Recording::default();
        // Half a second in, from the right.
        recording.play(
            Sound::Press,
            500_000_000,
            Vec3::new(0.4, 1.6, -0.1),
            Some(head),
        );
        let bytes = recording.finish(1.0);
        assert_eq!(&bytes[..4], b"RIFF");
        assert_eq!(bytes.len(), 44 + 48_000 * 4);
        let frames: Vec<[i16; 2]> = bytes[44..]
            .chunks(4)
            .map(|f| {
                [
                    i16::from_le_bytes([f[0], f[1]]),
                    i16::from_le_bytes([f[2], f[3]]),
                ]
            })
            .collect();
        let heard = |ear: usize| frames.iter().position(|f| f[ear] != 0).unwrap();
        // The right ear first, at 0.5 s (its zero first sample aside).
        assert_eq!(heard(1), 24_001);
        assert!(heard(0) > heard(1));
        let silent = Recording::default().finish(1.0);
        assert!(silent[44..].iter().all(|b| *b == 0));
    }

    #[test]
    fn a_click_across_blocks_is_the_same_as_in_one_and_then_forgotten() {
        let whole = mixed(
            &[(90, Placement::of(Vec3::X, Some(Pose::IDENTITY), RATE))],
            512,
        );
        let mut mixer = Mixer::new(RATE);
        mixer.schedule(
            90,
            Placement::of(Vec3::X, Some(Pose::IDENTITY), RATE),
            Sound::Press,
        );
        let mut pieces = Vec::new();
        for block in 0..8 {
            let mut out = vec![0.0; 128];
            mixer.fill(block * 64, &mut out);
            pieces.extend(out);
        }
        assert_eq!(pieces, whole);
        assert!(mixer.is_idle());
    }

    /// How many times `samples` change sign: twice the cycles they hold.
    fn sign_changes(samples: &[f32]) -> usize {
        samples
            .windows(2)
            .filter(|pair| (pair[0] < 0.0) != (pair[1] < 0.0) && pair[0] != 0.0)
            .count()
    }

    #[test]
    fn a_release_is_higher_than_a_press_and_a_let_go_than_a_grab() {
        let press = Sound::Press.samples(RATE);
        let release = Sound::Release.samples(RATE);
        assert_eq!(press.len(), release.len(), "the same length, another pitch");
        assert!(
            sign_changes(&release) * 4 >= sign_changes(&press) * 5,
            "release {} against press {}",
            sign_changes(&release),
            sign_changes(&press)
        );
        let grab = Sound::Grab.samples(RATE);
        let let_go = Sound::LetGo.samples(RATE);
        assert!(sign_changes(&let_go) * 4 >= sign_changes(&grab) * 5);
        // A knock is lower and longer than any click.
        assert!(sign_changes(&grab) * press.len() < sign_changes(&press) * grab.len());
        for sound in Sound::ALL {
            let samples = sound.samples(RATE);
            assert_eq!(samples[0], 0.0, "{sound:?} starts quiet");
            assert!(samples.last().unwrap().abs() < 1e-3, "{sound:?} ends quiet");
        }
    }

    #[test]
    fn tracing_grains_one_period_apart_hum_steadily_and_softly() {
        let period = (TRACE_GRAIN_PERIOD_SECONDS * f64::from(RATE)).round() as u64;
        let mut mixer = Mixer::new(RATE);
        for grain in 0..8 {
            mixer.schedule(grain * period, Placement::CENTRE, Sound::Tracing);
        }
        let mut out = vec![0.0; 2 * 9 * period as usize];
        mixer.fill(0, &mut out);
        let left: Vec<f32> = out.iter().step_by(2).copied().collect();
        // Between the first grain's end and the last's, in slices of one period.
        let levels: Vec<f32> = (2..8)
            .map(|slice| {
                let part = &left[slice * period as usize..(slice + 1) * period as usize];
                (part.iter().map(|s| s * s).sum::<f32>() / part.len() as f32).sqrt()
            })
            .collect();
        let (low, high) = levels
            .iter()
            .fold((f32::MAX, 0.0f32), |(l, h), x| (l.min(*x), h.max(*x)));
        assert!(low > 0.0 && high / low < 1.05, "{levels:?}");
        let peak = left.iter().fold(0.0f32, |m, s| m.max(s.abs()));
        assert!(peak < CLICK_PEAK / 3.0, "soft: {peak}");
        assert!(mixer.is_idle());
    }
}
