//! The sounds a frame's holds make: a grab and a let-go as a manipulation of the hologram begins and ends, and the soft loop's grains while a fault is traced.
use glam::Vec3;

use crate::sound::{Sound, TRACE_GRAIN_PERIOD_SECONDS};

/// What the sounds of holds remember between frames.
#[derive(Debug, Default, Clone, Copy)]
pub struct HoldSounds {
    /// Whether a manipulation held the hologram on the last frame.
    held: bool,
    /// When the tracing loop's last grain started, while a fault is traced.
    grain_at_ns: Option<i64>,
}

/// The grain period on the display clock, nanoseconds; a frame a little
/// early still counts, so 60 Hz frames start one grain every fourth frame.
const GRAIN_PERIOD_NS: i64 = (TRACE_GRAIN_PERIOD_SECONDS * 1e9) as i64 - 1_000_000;

impl HoldSounds {
    /// The sounds of the frame shown at `now_ns`, each from `at` (where the
    /// hologram is drawn): a grab when `holding` begins, a let-go when it
    /// ends, and a grain of the tracing loop every grain period while `tracing`.
    pub fn sounds(
        &mut self,
        now_ns: i64,
        holding: bool,
        tracing: bool,
        at: Vec3,
    ) -> Vec<(Sound, Vec3)> {
        let mut sounds = Vec::new();
        match (self.held, holding) {
            (false, true) => sounds.push((Sound::Grab, at)),
            (true, false) => sounds.push((Sound::LetGo, at)),
            _ => {}
        }
        self.held = holding;
        if !tracing {
            self.grain_at_ns = None;
        } else if self
            .grain_at_ns
            .is_none_or(|last| now_ns.saturating_sub(last) >= GRAIN_PERIOD_NS)
        {
            self.grain_at_ns = Some(now_ns);
            sounds.push((Sound::Tracing, at));
        }
        sounds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME_NS: i64 = 16_666_667;

    #[test]
    fn a_hold_sounds_a_grab_as_it_begins_and_a_let_go_as_it_ends_and_nothing_between() {
        let mut holds = HoldSounds::default();
        let at = Vec3::new(0.0, 1.0, -1.0);
        assert!(holds.sounds(0, false, false, at).is_empty());
        assert_eq!(holds.sounds(FRAME_NS, true, false, at), [(Sound::Grab, at)]);
        for frame in 2..10 {
            assert!(holds.sounds(frame * FRAME_NS, true, false, at).is_empty());
        }
        assert_eq!(
            holds.sounds(10 * FRAME_NS, false, false, at),
            [(Sound::LetGo, at)]
        );
        assert!(holds.sounds(11 * FRAME_NS, false, false, at).is_empty());
    }

    #[test]
    fn tracing_starts_a_grain_every_fourth_frame_at_60_hz_and_stops_with_the_stroke() {
        let mut holds = HoldSounds::default();
        let grains: Vec<i64> = (0..24)
            .filter(|&frame| {
                let tracing = frame < 20;
                !holds
                    .sounds(frame * FRAME_NS, false, tracing, Vec3::ZERO)
                    .is_empty()
            })
            .collect();
        assert_eq!(grains, [0, 4, 8, 12, 16]);
        // A new stroke starts its loop at once.
        assert_eq!(
            holds.sounds(30 * FRAME_NS, false, true, Vec3::ZERO).len(),
            1
        );
    }
}
