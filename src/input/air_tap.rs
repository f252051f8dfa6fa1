//! Pinch detection with hysteresis, and the air-tap: a pinch that starts while the hand aims at the target.
use super::hand::{HandJoints, joints_are_finite, pinch_distance};

/// A pinch starts when the thumb–index gap (skin to skin) drops below this (StereoKit's value).
pub const PINCH_START_M: f32 = 0.01;
/// A pinch ends when the gap grows past this; the band in between is hysteresis.
pub const PINCH_END_M: f32 = 0.02;

/// Where a hand is in the pinch cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PinchPhase {
    /// Tracked and open: the next close pinch starts a gesture.
    Open,
    /// Pinched; waiting for the fingers to part past [`PINCH_END_M`].
    Pinched,
    /// Not known to be open (start-up, or tracking was lost): a gesture may
    /// start only after a tracked frame shows the hand open again.
    AwaitingOpen,
}

/// Turns per-frame hand joints into pinch starts, one per pinch.
#[derive(Debug, Clone)]
pub struct PinchTracker {
    /// The current phase.
    phase: PinchPhase,
}

impl Default for PinchTracker {
    fn default() -> Self {
        PinchTracker::new()
    }
}

impl PinchTracker {
    /// A tracker that has not yet seen the hand open, so a hand that appears
    /// already pinched does not count as a new pinch.
    pub fn new() -> Self {
        PinchTracker {
            phase: PinchPhase::AwaitingOpen,
        }
    }

    /// Feeds one frame (`None` when the joints are not tracked); true on the
    /// frame a pinch starts.
    pub fn update(&mut self, joints: Option<&HandJoints>) -> bool {
        let Some(joints) = joints.filter(|joints| joints_are_finite(joints)) else {
            self.phase = PinchPhase::AwaitingOpen;
            return false;
        };
        let gap = pinch_distance(joints);
        match self.phase {
            PinchPhase::Open if gap < PINCH_START_M => {
                self.phase = PinchPhase::Pinched;
                true
            }
            PinchPhase::Pinched | PinchPhase::AwaitingOpen if gap > PINCH_END_M => {
                self.phase = PinchPhase::Open;
                false
            }
            _ => false,
        }
    }

    /// Whether the fingers are held pinched now: from the frame a pinch
    /// starts until the hand opens again (what a runtime reports as its
    /// own air-tap's select state).
    pub fn is_pinched(&self) -> bool {
        self.phase == PinchPhase::Pinched
    }
}

/// An air-tap: a pinch that starts while the hand aims at the target.
///
/// Whether the aim hits is asked only on the frame the pinch starts; a pinch
/// that starts aimed elsewhere is spent and does not fire later, even if the
/// hand then swings onto the target while still pinched.
#[derive(Debug, Clone, Default)]
pub struct AirTapRecognizer {
    /// The pinch state of the hand.
    pinch: PinchTracker,
}

impl AirTapRecognizer {
    pub fn new() -> Self {
        AirTapRecognizer::default()
    }

    /// Feeds one frame; true when an air-tap happens on this frame.
    /// `aimed_at_target` is the caller's hit test (aim ray or gaze against the
    /// target's bounds).
    pub fn update(
        &mut self,
        joints: Option<&HandJoints>,
        aimed_at_target: impl FnOnce() -> bool,
    ) -> bool {
        self.pinch.update(joints) && aimed_at_target()
    }
}

#[cfg(test)]
mod tests {
    use super::super::hand::synthetic::hand_with_gap;
    use super::*;
    use glam::Vec3;

    /// Runs a stream of gaps (`None` = tracking lost) and returns the frames that fired.
    fn fired_frames(gaps: &[Option<f32>], aimed: bool) -> Vec<usize> {
        let mut recognizer = AirTapRecognizer::new();
        gaps.iter()
            .enumerate()
            .filter_map(|(frame, gap)| {
                let joints = gap.map(|gap| hand_with_gap(Vec3::new(0.1, 1.3, -0.3), gap));
                recognizer
                    .update(joints.as_ref(), || aimed)
                    .then_some(frame)
            })
            .collect()
    }

    #[test]
    fn one_pinch_fires_once() {
        let gaps = [0.05, 0.03, 0.005, 0.0, 0.0, 0.004, 0.03, 0.05].map(Some);
        assert_eq!(fired_frames(&gaps, true), vec![2]);
    }

    #[test]
    fn jitter_around_the_start_threshold_does_not_double_fire() {
        let gaps = [
            0.05, 0.009, 0.011, 0.0095, 0.0105, 0.012, 0.009, 0.019, 0.008,
        ]
        .map(Some);
        assert_eq!(fired_frames(&gaps, true), vec![1]);
    }

    #[test]
    fn a_pinch_after_a_full_release_fires_again() {
        let gaps = [0.05, 0.009, 0.015, 0.021, 0.009].map(Some);
        assert_eq!(fired_frames(&gaps, true), vec![1, 4]);
    }

    #[test]
    fn a_pinch_aimed_away_does_nothing() {
        let gaps = [0.05, 0.005, 0.005, 0.05].map(Some);
        assert_eq!(fired_frames(&gaps, false), Vec::<usize>::new());
    }

    #[test]
    fn swinging_onto_the_target_while_pinched_does_not_fire() {
        let mut recognizer = AirTapRecognizer::new();
        let open = hand_with_gap(Vec3::ZERO, 0.05);
        let closed = hand_with_gap(Vec3::ZERO, 0.0);
        assert!(!recognizer.update(Some(&open), || true));
        assert!(!recognizer.update(Some(&closed), || false));
        assert!(!recognizer.update(Some(&closed), || true));
    }

    #[test]
    fn lost_tracking_mid_pinch_does_not_fire_a_second_time() {
        let gaps = [Some(0.05), Some(0.005), None, Some(0.005), Some(0.004)];
        assert_eq!(fired_frames(&gaps, true), vec![1]);
    }

    #[test]
    fn lost_tracking_mid_pinch_does_not_get_stuck() {
        let gaps = [
            Some(0.05),
            Some(0.005),
            None,
            Some(0.005),
            Some(0.05),
            Some(0.005),
        ];
        assert_eq!(fired_frames(&gaps, true), vec![1, 5]);
    }

    #[test]
    fn a_hand_first_seen_pinched_does_not_fire() {
        let gaps = [Some(0.005), Some(0.005), Some(0.05), Some(0.005)];
        assert_eq!(fired_frames(&gaps, true), vec![3]);
    }

    #[test]
    fn a_pinch_is_held_from_its_start_until_the_hand_opens() {
        let mut tracker = PinchTracker::new();
        let held: Vec<bool> = [0.05, 0.005, 0.015, 0.025, 0.005]
            .into_iter()
            .map(|gap| {
                tracker.update(Some(&hand_with_gap(Vec3::ZERO, gap)));
                tracker.is_pinched()
            })
            .collect();
        assert_eq!(held, [false, true, true, false, true]);
        assert!(!PinchTracker::new().is_pinched());
    }

    #[test]
    fn non_finite_joints_count_as_lost_tracking() {
        let mut tracker = PinchTracker::new();
        assert!(!tracker.update(Some(&hand_with_gap(Vec3::ZERO, 0.05))));
        let mut broken = hand_with_gap(Vec3::ZERO, 0.0);
        broken[0].radius = f32::NAN;
        assert!(!tracker.update(Some(&broken)));
        assert!(!tracker.update(Some(&hand_with_gap(Vec3::ZERO, 0.0))));
    }
}
