//! Pinch detection with hysteresis: when thumb and index close, and when they part again.
//!
//! Whether a pinch is an air-tap or the start of a manipulation is decided
//! from how long it lasts and how far the hand moves ([`super::hold`]).
use super::hand::{HandJoints, joints_are_finite, pinch_distance};
use super::hold::Press;

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

    /// Feeds one frame like [`Self::update`] and says what the pinch did:
    /// began, held, released, or lost with the tracking.
    pub fn press(&mut self, joints: Option<&HandJoints>) -> Press {
        let was_pinched = self.is_pinched();
        let tracked = joints.is_some_and(joints_are_finite);
        let began = self.update(joints);
        match (tracked, began, self.is_pinched()) {
            (false, _, _) => Press::Lost,
            (true, true, _) => Press::Began,
            (true, false, true) => Press::Held,
            (true, false, false) if was_pinched => Press::Released,
            (true, false, false) => Press::Up,
        }
    }

    /// Whether the fingers are held pinched now: from the frame a pinch
    /// starts until the hand opens again (what a runtime reports as its
    /// own air-tap's select state).
    pub fn is_pinched(&self) -> bool {
        self.phase == PinchPhase::Pinched
    }
}

#[cfg(test)]
mod tests {
    use super::super::hand::synthetic::hand_with_gap;
    use super::*;
    use glam::Vec3;

    /// Runs a stream of gaps (`None` = tracking lost) and returns the frames a pinch started.
    fn started_frames(gaps: &[Option<f32>]) -> Vec<usize> {
        let mut tracker = PinchTracker::new();
        gaps.iter()
            .enumerate()
            .filter_map(|(frame, gap)| {
                let joints = gap.map(|gap| hand_with_gap(Vec3::new(0.1, 1.3, -0.3), gap));
                tracker.update(joints.as_ref()).then_some(frame)
            })
            .collect()
    }

    #[test]
    fn one_pinch_starts_once() {
        let gaps = [0.05, 0.03, 0.005, 0.0, 0.0, 0.004, 0.03, 0.05].map(Some);
        assert_eq!(started_frames(&gaps), vec![2]);
    }

    #[test]
    fn jitter_around_the_start_threshold_does_not_start_twice() {
        let gaps = [
            0.05, 0.009, 0.011, 0.0095, 0.0105, 0.012, 0.009, 0.019, 0.008,
        ]
        .map(Some);
        assert_eq!(started_frames(&gaps), vec![1]);
    }

    #[test]
    fn a_pinch_after_a_full_release_starts_again() {
        let gaps = [0.05, 0.009, 0.015, 0.021, 0.009].map(Some);
        assert_eq!(started_frames(&gaps), vec![1, 4]);
    }

    #[test]
    fn lost_tracking_mid_pinch_does_not_start_a_second_time() {
        let gaps = [Some(0.05), Some(0.005), None, Some(0.005), Some(0.004)];
        assert_eq!(started_frames(&gaps), vec![1]);
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
        assert_eq!(started_frames(&gaps), vec![1, 5]);
    }

    #[test]
    fn a_hand_first_seen_pinched_does_not_start() {
        let gaps = [Some(0.005), Some(0.005), Some(0.05), Some(0.005)];
        assert_eq!(started_frames(&gaps), vec![3]);
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
    fn a_pinch_presses_begins_holds_releases_and_is_lost_with_tracking() {
        let mut tracker = PinchTracker::new();
        let presses: Vec<Press> = [
            Some(0.05),
            Some(0.0),
            Some(0.015),
            Some(0.05),
            Some(0.0),
            None,
        ]
        .into_iter()
        .map(|gap| {
            let joints = gap.map(|gap| hand_with_gap(Vec3::ZERO, gap));
            tracker.press(joints.as_ref())
        })
        .collect();
        assert_eq!(
            presses,
            [
                Press::Up,
                Press::Began,
                Press::Held,
                Press::Released,
                Press::Began,
                Press::Lost
            ]
        );
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
