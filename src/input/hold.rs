//! Tap versus hold: a press aimed at the target (a pinch, or a hand's
//! select) that ends within 0.35 s having moved less than 2 cm is a tap;
//! one held longer or moved further is a manipulation, which never taps.
//!
//! HoloLens's own gestures draw the same line between an air-tap and the
//! "tap and hold" that starts a manipulation; the thresholds are the
//! issue's (0.35 s, 2 cm), measured between the frame the press began and
//! the frame it ends, on the hand's position (the caller's choice of point:
//! the palm, which does not move when the fingers close).
use glam::Vec3;

/// Longest press that still counts as a tap, nanoseconds.
pub const TAP_MAX_DURATION_NS: i64 = 350_000_000;
/// A press whose hand travels this far (metres) from where it began is a manipulation.
pub const TAP_MAX_TRAVEL_M: f32 = 0.02;

/// A press's state on one frame, as a pinch tracker or a button reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Press {
    /// Not pressed.
    Up,
    /// Pressed on this frame, not on the one before.
    Began,
    /// Still pressed.
    Held,
    /// Released on this frame.
    Released,
    /// No valid data this frame (tracking lost, action inactive): a press
    /// in progress ends without a tap.
    Lost,
}

/// What a press aimed at the target did on one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldEvent {
    /// Nothing to act on (no press, a press aimed elsewhere, or a press
    /// still short enough to become a tap).
    None,
    /// A press aimed at the target began.
    Pressed,
    /// The press ended within the tap limits: an air-tap.
    Tap,
    /// A frame of a manipulation (held past 0.35 s or moved 2 cm);
    /// `first` on the frame it became one.
    Manipulating {
        /// Whether the press became a manipulation on this frame.
        first: bool,
    },
    /// A manipulation ended: released, or its tracking lost.
    ManipulationEnded,
}

/// A press in progress.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ActivePress {
    /// When it began, nanoseconds.
    began_ns: i64,
    /// Where the hand was when it began (if known then).
    origin: Option<Vec3>,
    /// Whether it has become a manipulation.
    manipulating: bool,
}

/// Turns one hand's presses into taps and manipulations; a press aimed
/// elsewhere when it began is ignored until it ends, even if the hand then
/// swings onto the target.
#[derive(Debug, Clone, Default)]
pub struct HoldRecognizer {
    /// The press aimed at the target, while it lasts.
    active: Option<ActivePress>,
}

impl HoldRecognizer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one frame: the press's state, the frame's time, where the
    /// hand is (`None` when unknown), and the caller's hit test, asked only
    /// on the frame a press begins.
    pub fn update(
        &mut self,
        press: Press,
        time_ns: i64,
        position: Option<Vec3>,
        aimed_at_target: impl FnOnce() -> bool,
    ) -> HoldEvent {
        match press {
            Press::Began => {
                self.active = aimed_at_target().then_some(ActivePress {
                    began_ns: time_ns,
                    origin: position,
                    manipulating: false,
                });
                match self.active {
                    Some(_) => HoldEvent::Pressed,
                    None => HoldEvent::None,
                }
            }
            Press::Held => {
                let Some(active) = self.active.as_mut() else {
                    return HoldEvent::None;
                };
                if active.manipulating {
                    return HoldEvent::Manipulating { first: false };
                }
                if outgrew_a_tap(active, time_ns, position) {
                    active.manipulating = true;
                    return HoldEvent::Manipulating { first: true };
                }
                HoldEvent::None
            }
            Press::Released | Press::Lost => {
                let Some(active) = self.active.take() else {
                    return HoldEvent::None;
                };
                if active.manipulating {
                    HoldEvent::ManipulationEnded
                } else if press == Press::Released && !outgrew_a_tap(&active, time_ns, position) {
                    HoldEvent::Tap
                } else {
                    // Too long or too far only on its last frame: it moved
                    // nothing yet, and it is no tap.
                    HoldEvent::None
                }
            }
            Press::Up => {
                self.active = None;
                HoldEvent::None
            }
        }
    }

    /// Where the hand was when the press in progress began, if it is aimed
    /// at the target and the position was known then.
    pub fn origin(&self) -> Option<Vec3> {
        self.active.and_then(|active| active.origin)
    }

    /// Whether a press aimed at the target is in progress.
    pub fn is_pressed(&self) -> bool {
        self.active.is_some()
    }

    /// Makes the press in progress a manipulation now (a second hand joined
    /// it), so it can no longer end as a tap.
    pub fn claim(&mut self) {
        if let Some(active) = self.active.as_mut() {
            active.manipulating = true;
        }
    }
}

/// Whether `active` has lasted too long, or its hand travelled too far, to be a tap by `time_ns`.
fn outgrew_a_tap(active: &ActivePress, time_ns: i64, position: Option<Vec3>) -> bool {
    let too_long = time_ns.saturating_sub(active.began_ns) > TAP_MAX_DURATION_NS;
    let too_far = active
        .origin
        .zip(position)
        .is_some_and(|(origin, now)| origin.distance(now) >= TAP_MAX_TRAVEL_M);
    too_long || too_far
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME_NS: i64 = 16_666_667;

    /// Display time of `frame` at 60 Hz, rounded up as the simulator's clock does.
    fn time_of(frame: usize) -> i64 {
        (frame as i64 * 1_000_000_000 + 59) / 60
    }

    /// Feeds `presses` at 60 Hz with the hand at `positions` (x metres,
    /// the last repeated) aimed as `aimed`; the events.
    fn events(presses: &[Press], positions: &[f32], aimed: bool) -> Vec<HoldEvent> {
        let mut recognizer = HoldRecognizer::new();
        presses
            .iter()
            .enumerate()
            .map(|(frame, press)| {
                let x = positions[frame.min(positions.len() - 1)];
                recognizer.update(*press, time_of(frame), Some(Vec3::X * x), || aimed)
            })
            .collect()
    }

    /// A press of `held` frames after its first, then a release.
    fn press_of(held: usize) -> Vec<Press> {
        let mut presses = vec![Press::Up, Press::Began];
        presses.extend(std::iter::repeat_n(Press::Held, held));
        presses.push(Press::Released);
        presses
    }

    #[test]
    fn a_short_still_press_is_a_tap_on_its_release() {
        let found = events(&press_of(8), &[0.0], true);
        assert_eq!(found[1], HoldEvent::Pressed);
        assert_eq!(found.last(), Some(&HoldEvent::Tap));
        assert_eq!(found.iter().filter(|e| **e == HoldEvent::Tap).count(), 1);
    }

    #[test]
    fn a_press_held_past_the_limit_becomes_a_manipulation_and_never_taps() {
        // 0.35 s is 21 frames at 60 Hz; the 22nd held frame is past it.
        let found = events(&press_of(30), &[0.0], true);
        let first = found
            .iter()
            .position(|e| *e == HoldEvent::Manipulating { first: true });
        assert_eq!(first, Some(1 + 22));
        assert_eq!(found.last(), Some(&HoldEvent::ManipulationEnded));
        assert!(!found.contains(&HoldEvent::Tap));
    }

    #[test]
    fn a_press_released_right_at_the_limit_is_still_a_tap() {
        // Released 21 frames (0.35 s) after it began.
        let found = events(&press_of(20), &[0.0], true);
        assert_eq!(found.last(), Some(&HoldEvent::Tap));
    }

    #[test]
    fn moving_two_centimetres_makes_a_manipulation_at_once() {
        let positions = [0.0, 0.0, 0.005, 0.012, 0.02, 0.03];
        let found = events(&press_of(6), &positions, true);
        assert_eq!(found[4], HoldEvent::Manipulating { first: true });
        assert_eq!(found[5], HoldEvent::Manipulating { first: false });
        assert_eq!(found.last(), Some(&HoldEvent::ManipulationEnded));
    }

    #[test]
    fn a_quick_press_that_moved_too_far_on_its_release_is_no_tap() {
        let found = events(&press_of(3), &[0.0, 0.0, 0.0, 0.0, 0.0, 0.05], true);
        assert_eq!(found.last(), Some(&HoldEvent::None));
    }

    #[test]
    fn a_press_aimed_elsewhere_does_nothing_at_all() {
        let found = events(&press_of(30), &[0.0, 0.0, 0.1], false);
        assert!(found.iter().all(|e| *e == HoldEvent::None), "{found:?}");
    }

    #[test]
    fn lost_tracking_ends_a_manipulation_and_cancels_a_tap() {
        let mut long = press_of(30);
        *long.last_mut().unwrap() = Press::Lost;
        assert_eq!(
            events(&long, &[0.0], true).last(),
            Some(&HoldEvent::ManipulationEnded)
        );
        let mut short = press_of(3);
        *short.last_mut().unwrap() = Press::Lost;
        assert_eq!(events(&short, &[0.0], true).last(), Some(&HoldEvent::None));
    }

    #[test]
    fn a_claimed_press_ends_as_a_manipulation() {
        let mut recognizer = HoldRecognizer::new();
        recognizer.update(Press::Began, 0, Some(Vec3::ZERO), || true);
        assert!(recognizer.is_pressed());
        recognizer.claim();
        assert_eq!(
            recognizer.update(Press::Released, FRAME_NS, Some(Vec3::ZERO), || true),
            HoldEvent::ManipulationEnded
        );
        assert!(!recognizer.is_pressed());
    }

    #[test]
    fn the_origin_is_where_the_press_began() {
        let mut recognizer = HoldRecognizer::new();
        recognizer.update(Press::Began, 0, Some(Vec3::X), || true);
        recognizer.update(Press::Held, FRAME_NS, Some(Vec3::Y), || true);
        assert_eq!(recognizer.origin(), Some(Vec3::X));
    }
}
