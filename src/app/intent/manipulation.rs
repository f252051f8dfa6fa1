//! Manipulations in progress and how each turns the hands into the
//! hologram's placement: one hand's drag (1:1 with the hand), two hands'
//! turn about the vertical and scale, a controller's rigid grab.
//!
//! Angles come from `libm`, so a manipulation ends at the same bits on
//! every platform (the test runtime under Wine is compared with the Linux
//! simulator).
use glam::{Quat, Vec3};

use crate::app::world::placement::{Placement, PlacementCause};
use crate::input::{Hand, Pose};

/// Two hands closer than this (metres) give no direction or scale to follow.
const MIN_HAND_SPAN_M: f32 = 0.01;

/// What is moving the hologram now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Manipulation {
    /// One hand's pinch drags it: it moves as the hand moves from `origin`.
    Drag {
        /// The dragging hand.
        hand: Hand,
        /// Where that hand was when its pinch began.
        origin: Vec3,
        /// The placement when the drag began.
        start: Placement,
    },
    /// Both hands pinch on it: it turns about the vertical through its
    /// base's centre as the line between the hands turns, and scales with
    /// their distance.
    TwoHand {
        /// Where the left and right hands were when both pinched.
        origins: [Vec3; 2],
        /// The placement then.
        start: Placement,
    },
    /// A controller's squeeze carries it rigidly.
    Grab {
        /// The squeezing hand.
        hand: Hand,
        /// The hologram's pose relative to the controller's grip.
        offset: Pose,
        /// Its scale, which a grab keeps.
        scale: f32,
    },
}

impl Manipulation {
    /// A grab by `hand`'s controller at `grip` of the hologram at `placement`.
    pub fn grab(hand: Hand, grip: &Pose, placement: Placement) -> Self {
        Manipulation::Grab {
            hand,
            offset: grip.inverse().compose(&placement.pose),
            scale: placement.scale,
        }
    }

    /// The placement cause it is reported as when it ends.
    pub fn cause(&self) -> PlacementCause {
        match self {
            Manipulation::Drag { .. } => PlacementCause::Move,
            Manipulation::TwoHand { .. } => PlacementCause::TwoHand,
            Manipulation::Grab { .. } => PlacementCause::Grab,
        }
    }

    /// Where the hologram goes for the hands as they are now (`positions`
    /// and `grips` per hand, left then right); `None` when a hand it
    /// follows is not tracked this frame (it then stays where it was).
    pub fn follow(
        &self,
        positions: [Option<Vec3>; 2],
        grips: [Option<Pose>; 2],
    ) -> Option<Placement> {
        match *self {
            Manipulation::Drag {
                hand,
                origin,
                start,
            } => {
                let now = positions[hand.index()]?;
                Some(Placement {
                    pose: Pose::new(start.pose.position + (now - origin), start.pose.orientation),
                    ..start
                })
            }
            Manipulation::TwoHand { origins, start } => {
                let [left, right] = positions;
                let (span_then, span_now) = (origins[1] - origins[0], right? - left?);
                let turn = match (heading(span_then), heading(span_now)) {
                    (Some(then), Some(now)) => now - then,
                    _ => 0.0,
                };
                let ratio = if span_then.length() >= MIN_HAND_SPAN_M {
                    span_now.length() / span_then.length()
                } else {
                    1.0
                };
                Some(
                    Placement {
                        pose: Pose::new(
                            start.pose.position,
                            (turn_about_vertical(turn) * start.pose.orientation).normalize(),
                        ),
                        ..start
                    }
                    .scaled(start.scale * ratio),
                )
            }
            Manipulation::Grab {
                hand,
                offset,
                scale,
            } => {
                let grip = grips[hand.index()]?;
                Some(Placement {
                    pose: grip.compose(&offset),
                    scale,
                })
            }
        }
    }
}

/// The direction of `span` seen from above, radians counter-clockwise from
/// +X (so turning it counter-clockwise seen from above adds to it); `None`
/// for a span (nearly) vertical, which has no direction there.
pub fn heading(span: Vec3) -> Option<f32> {
    let flat = Vec3::new(span.x, 0.0, span.z);
    (flat.length() >= MIN_HAND_SPAN_M).then(|| libm::atan2f(-flat.z, flat.x))
}

/// A turn of `angle` radians about +Y: counter-clockwise seen from above.
pub fn turn_about_vertical(angle: f32) -> Quat {
    let half = angle / 2.0;
    Quat::from_xyzw(0.0, libm::sinf(half), 0.0, libm::cosf(half))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Placement {
        Placement::at(Pose::new(
            Vec3::new(0.0, 0.75, -1.5),
            Quat::from_rotation_y(0.3),
        ))
    }

    /// How far `after` is turned from `before` about the vertical, degrees
    /// counter-clockwise seen from above, in (-180, 180].
    fn turn_degrees(before: Quat, after: Quat) -> f32 {
        let forward = |q: Quat| heading(q * Vec3::NEG_Z).unwrap().to_degrees();
        let turn = forward(after) - forward(before);
        -((180.0 - turn).rem_euclid(360.0) - 180.0)
    }

    #[test]
    fn a_drag_moves_the_hologram_as_the_hand_moves() {
        let drag = Manipulation::Drag {
            hand: Hand::Right,
            origin: Vec3::new(0.2, 1.2, -0.5),
            start: start(),
        };
        let moved = drag
            .follow([None, Some(Vec3::new(0.5, 1.1, -0.5))], [None; 2])
            .unwrap();
        assert!(
            moved
                .pose
                .position
                .abs_diff_eq(Vec3::new(0.3, 0.65, -1.5), 1e-6)
        );
        assert_eq!(moved.pose.orientation, start().pose.orientation);
        assert_eq!(drag.follow([Some(Vec3::ZERO), None], [None; 2]), None);
    }

    #[test]
    fn two_hands_turn_counter_clockwise_seen_from_above_and_scale_by_their_spread() {
        let two = Manipulation::TwoHand {
            origins: [Vec3::new(-0.2, 1.2, -1.5), Vec3::new(0.2, 1.2, -1.5)],
            start: start(),
        };
        // The line from left to right turned 90° counter-clockwise (seen
        // from above, +X towards -Z) and 1.5 times as long.
        let left = Vec3::new(0.0, 1.2, -1.2);
        let right = Vec3::new(0.0, 1.2, -1.8);
        let turned = two.follow([Some(left), Some(right)], [None; 2]).unwrap();
        let turn = turn_degrees(start().pose.orientation, turned.pose.orientation);
        assert!((turn - 90.0).abs() < 1e-3, "{turn}");
        assert!((turned.scale - 1.5).abs() < 1e-6);
        assert_eq!(turned.pose.position, start().pose.position);
        assert!((turned.pose.up() - Vec3::Y).length() < 1e-6, "stays level");
    }

    #[test]
    fn two_hands_cannot_scale_past_the_limits() {
        let two = Manipulation::TwoHand {
            origins: [Vec3::new(-0.1, 1.2, -1.5), Vec3::new(0.1, 1.2, -1.5)],
            start: start(),
        };
        let far = two
            .follow(
                [
                    Some(Vec3::new(-2.0, 1.2, -1.5)),
                    Some(Vec3::new(2.0, 1.2, -1.5)),
                ],
                [None; 2],
            )
            .unwrap();
        assert_eq!(far.scale, 4.0);
        let near = two
            .follow(
                [
                    Some(Vec3::new(-0.01, 1.2, -1.5)),
                    Some(Vec3::new(0.01, 1.2, -1.5)),
                ],
                [None; 2],
            )
            .unwrap();
        assert_eq!(near.scale, 0.25);
    }

    #[test]
    fn a_grab_carries_the_hologram_rigidly_with_the_grip() {
        let grip = Pose::new(Vec3::new(0.2, 1.3, -0.5), Quat::from_rotation_x(-0.2));
        let placement = start().scaled(2.0);
        let grab = Manipulation::grab(Hand::Left, &grip, placement);
        let still = grab.follow([None; 2], [Some(grip), None]).unwrap();
        assert!(
            still
                .pose
                .position
                .abs_diff_eq(placement.pose.position, 1e-5)
        );
        let turned = Pose::new(
            grip.position + Vec3::new(0.1, 0.0, 0.0),
            Quat::from_rotation_y(0.5) * grip.orientation,
        );
        let carried = grab.follow([None; 2], [Some(turned), None]).unwrap();
        let expected =
            turned.transform_point(grip.inverse().transform_point(placement.pose.position));
        assert!(carried.pose.position.abs_diff_eq(expected, 1e-5));
        assert_eq!(carried.scale, 2.0);
        assert_eq!(grab.cause(), PlacementCause::Grab);
    }
}
