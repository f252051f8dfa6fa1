//! Direct tap: the index fingertip pushes into the terrain surface from above, with press/release hysteresis.
//!
//! MRTK2's pressable buttons press at 0.02 m depth and release after pulling
//! back 0.01 m, but a button has a front plate to aim at; a terrain has
//! relief, and a hologram offers no resistance, so a shallower press makes
//! touching a peak feel immediate while the release band above the surface
//! keeps a hovering, trembling fingertip from tapping twice.
//! Heights are of the index tip joint's centre.

/// The fingertip must go this far below the surface to press.
pub const TAP_PRESS_DEPTH_M: f32 = 0.01;
/// After a press the fingertip must rise this far above the surface to release.
/// It must also be seen this far above the surface before the first press, so
/// a finger that slides in sideways below the surface does not tap.
pub const TAP_RELEASE_HEIGHT_M: f32 = 0.01;

/// Where the index tip is relative to the surface on one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurfaceProbe {
    /// Position across the surface, 0..1 from its left edge to its right.
    pub u: f32,
    /// Position along the surface, 0..1 from its far edge to its near edge.
    pub v: f32,
    /// Fingertip height minus surface height there, in metres (negative below).
    pub height_above_surface: f32,
}

/// One tap on the surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tap {
    /// Where it landed across the surface, 0..1.
    pub u: f32,
    /// Where it landed along the surface, 0..1.
    pub v: f32,
}

/// Where the fingertip is in the tap cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TapPhase {
    /// Not known to be above the surface (start-up, off the surface, or lost).
    Disarmed,
    /// Seen above the surface: pushing in now is a tap.
    Armed,
    /// Pushed in; waiting for it to rise past the release height.
    Pressed,
}

/// Turns per-frame fingertip probes into taps, one per push.
#[derive(Debug, Clone)]
pub struct TapRecognizer {
    /// The current phase.
    phase: TapPhase,
}

impl Default for TapRecognizer {
    fn default() -> Self {
        TapRecognizer::new()
    }
}

impl TapRecognizer {
    pub fn new() -> Self {
        TapRecognizer {
            phase: TapPhase::Disarmed,
        }
    }

    /// Feeds one frame: `None` when the fingertip is untracked or not over
    /// the surface (which cancels a press in progress). Returns the tap that
    /// happens on this frame, if any.
    pub fn update(&mut self, probe: Option<SurfaceProbe>) -> Option<Tap> {
        let Some(probe) = probe.filter(|probe| probe.height_above_surface.is_finite()) else {
            self.phase = TapPhase::Disarmed;
            return None;
        };
        let height = probe.height_above_surface;
        match self.phase {
            TapPhase::Armed if height < -TAP_PRESS_DEPTH_M => {
                self.phase = TapPhase::Pressed;
                Some(Tap {
                    u: probe.u,
                    v: probe.v,
                })
            }
            TapPhase::Disarmed | TapPhase::Pressed if height > TAP_RELEASE_HEIGHT_M => {
                self.phase = TapPhase::Armed;
                None
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(height_above_surface: f32) -> Option<SurfaceProbe> {
        Some(SurfaceProbe {
            u: 0.25,
            v: 0.75,
            height_above_surface,
        })
    }

    fn fired_frames(stream: &[Option<SurfaceProbe>]) -> Vec<usize> {
        let mut recognizer = TapRecognizer::new();
        stream
            .iter()
            .enumerate()
            .filter_map(|(frame, probe)| recognizer.update(*probe).map(|_| frame))
            .collect()
    }

    #[test]
    fn pushing_in_from_above_taps_once_where_it_lands() {
        let mut recognizer = TapRecognizer::new();
        assert_eq!(recognizer.update(probe(0.05)), None);
        assert_eq!(recognizer.update(probe(-0.002)), None);
        assert_eq!(
            recognizer.update(probe(-0.02)),
            Some(Tap { u: 0.25, v: 0.75 })
        );
        assert_eq!(recognizer.update(probe(-0.03)), None);
    }

    #[test]
    fn jitter_around_the_press_depth_does_not_double_fire() {
        let stream = [0.05, -0.011, -0.009, -0.012, 0.0, -0.011, 0.009, -0.02].map(probe);
        assert_eq!(fired_frames(&stream), vec![1]);
    }

    #[test]
    fn rising_past_the_release_height_rearms() {
        let stream = [0.05, -0.02, 0.011, -0.02].map(probe);
        assert_eq!(fired_frames(&stream), vec![1, 3]);
    }

    #[test]
    fn entering_below_the_surface_from_the_side_does_not_tap() {
        let stream = [None, probe(-0.02), probe(-0.03)];
        assert_eq!(fired_frames(&stream), Vec::<usize>::new());
    }

    #[test]
    fn lost_tracking_mid_press_does_not_fire_again_on_return() {
        let stream = [probe(0.05), probe(-0.02), None, probe(-0.02), probe(-0.03)];
        assert_eq!(fired_frames(&stream), vec![1]);
    }

    #[test]
    fn lost_tracking_mid_press_does_not_get_stuck() {
        let stream = [probe(0.05), probe(-0.02), None, probe(0.02), probe(-0.02)];
        assert_eq!(fired_frames(&stream), vec![1, 4]);
    }
}
