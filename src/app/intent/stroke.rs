//! A sculpt in progress: one hand's pinch held on the land's surface, which its first 2 cm of movement make a traced fault (across the land) or a lifted hill (up or down).
//!
//! Deciding by direction needs no mode: a pinch held still and then raised
//! lifts, a pinch dragged across traces, and a short pinch is still an
//! air-tap (the hold recogniser never hands a tap over as a manipulation).
use glam::{Vec2, Vec3};

use crate::app::world::command::Command;
use crate::app::world::placement::{HOLOGRAM_SIZE_M, Placement};
use crate::input::{Hand, TAP_MAX_TRAVEL_M};
use crate::terrain::sculpt::{Edit, MAX_LIFT_HEIGHT, THIN_TOLERANCE, thin_path};

/// Closer than this (in u, v) to the last point drawn, a new point adds nothing.
const MIN_POINT_SPACING: f32 = 0.001;

/// What the hand's first move made of the pinch.
#[derive(Debug, Clone, PartialEq)]
enum Mode {
    /// Held, not yet moved far enough to tell.
    Undecided,
    /// Dragged across: the points its aim met on the surface, as drawn.
    Trace { drawn: Vec<[f32; 2]> },
    /// Moved up or down: the peak's height, terrain units.
    Lift { height: f32 },
}

/// One hand sculpting.
#[derive(Debug, Clone, PartialEq)]
pub struct Stroke {
    /// The hand.
    pub hand: Hand,
    /// Where on the surface the pinch began.
    start: Vec2,
    /// Where the hand was when it began.
    origin: Vec3,
    /// The hologram then: its up axis and scale turn hand travel into height.
    placement: Placement,
    /// How many times taller than it is the land was drawn then.
    exaggeration: f32,
    mode: Mode,
    /// Where the hand's aim meets the surface now.
    cursor: Vec2,
}

impl Stroke {
    /// A sculpt by `hand`, pinched at `start` on the surface with the hand
    /// at `origin`, on the hologram at `placement` with its land drawn
    /// `exaggeration` times taller than it is (a lift follows the hand as drawn).
    pub fn new(
        hand: Hand,
        start: Vec2,
        origin: Vec3,
        placement: Placement,
        exaggeration: f32,
    ) -> Self {
        Stroke {
            hand,
            start,
            origin,
            placement,
            exaggeration,
            mode: Mode::Undecided,
            cursor: start,
        }
    }

    /// Follows one frame: the hand at `position`, its aim meeting the
    /// surface at `on_surface` (if it does).
    pub fn follow(&mut self, position: Option<Vec3>, on_surface: Option<Vec2>) {
        if let Some(point) = on_surface {
            self.cursor = point;
        }
        let Some(position) = position else {
            return;
        };
        let travel = position - self.origin;
        let up = self.placement.pose.up();
        let rise = travel.dot(up);
        if self.mode == Mode::Undecided && travel.length() >= TAP_MAX_TRAVEL_M {
            let across = (travel - up * rise).length();
            self.mode = if rise.abs() > across {
                Mode::Lift { height: 0.0 }
            } else {
                Mode::Trace {
                    drawn: vec![self.start.to_array()],
                }
            };
        }
        match &mut self.mode {
            Mode::Undecided => {}
            Mode::Lift { height } => {
                *height = rise / (HOLOGRAM_SIZE_M * self.placement.scale * self.exaggeration);
            }
            Mode::Trace { drawn } => {
                if let Some(point) = on_surface {
                    let last =
                        Vec2::from_array(*drawn.last().expect("a trace starts with a point"));
                    if last.distance(point) >= MIN_POINT_SPACING {
                        drawn.push(point.to_array());
                    }
                }
            }
        }
    }

    /// The command the stroke makes when the pinch lets go. A pinch held
    /// still is a trace of one point, which the world ignores and the
    /// report says why.
    pub fn finish(self) -> Command {
        let hand = Some(self.hand);
        match self.mode {
            Mode::Undecided => Command::Trace {
                hand,
                points: vec![self.start.to_array()],
            },
            Mode::Trace { drawn } => Command::Trace {
                hand,
                points: thin_path(&drawn, THIN_TOLERANCE),
            },
            Mode::Lift { height } => Command::Lift {
                hand,
                at: self.start.to_array(),
                height: height.clamp(-MAX_LIFT_HEIGHT, MAX_LIFT_HEIGHT),
            },
        }
    }

    /// The hill a lift would raise now, shown while the hand holds it.
    pub fn lift_preview(&self) -> Option<Edit> {
        match self.mode {
            Mode::Lift { height } if height != 0.0 && height.is_finite() => Some(Edit::Lift {
                at: self.start.to_array(),
                height: height.clamp(-MAX_LIFT_HEIGHT, MAX_LIFT_HEIGHT),
            }),
            _ => None,
        }
    }

    /// Whether it is tracing a fault (not a lift, not yet undecided).
    pub fn is_tracing(&self) -> bool {
        matches!(self.mode, Mode::Trace { .. })
    }

    /// The path drawn so far, thinned as it will apply.
    pub fn path(&self) -> Vec<Vec2> {
        match &self.mode {
            Mode::Trace { drawn } => thin_path(drawn, THIN_TOLERANCE)
                .into_iter()
                .map(Vec2::from_array)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Where the stroke's next point goes (a lift's peak).
    pub fn cursor(&self) -> Vec2 {
        match self.mode {
            Mode::Lift { .. } => self.start,
            _ => self.cursor,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Pose;
    use glam::Quat;

    fn stroke() -> Stroke {
        let placement = Placement {
            pose: Pose::new(Vec3::new(0.0, 1.0, -1.0), Quat::IDENTITY),
            scale: 2.0,
        };
        Stroke::new(
            Hand::Right,
            Vec2::new(0.3, 0.4),
            Vec3::new(0.1, 1.2, -0.6),
            placement,
            1.0,
        )
    }

    #[test]
    fn moving_up_first_lifts_by_the_hand_over_half_a_metre_times_the_scale() {
        let mut stroke = stroke();
        stroke.follow(Some(Vec3::new(0.1, 1.21, -0.6)), Some(Vec2::new(0.3, 0.41)));
        assert_eq!(
            stroke.clone().finish(),
            Command::Trace {
                hand: Some(Hand::Right),
                points: vec![[0.3, 0.4]]
            },
            "1 cm says nothing yet"
        );
        stroke.follow(Some(Vec3::new(0.105, 1.3, -0.6)), Some(Vec2::new(0.5, 0.5)));
        let Command::Lift { at, height, .. } = stroke.finish() else {
            panic!("a lift");
        };
        assert_eq!(at, [0.3, 0.4]);
        assert!((height - 0.1 / (0.5 * 2.0)).abs() < 1e-5, "{height}");
    }

    #[test]
    fn moving_across_first_traces_the_points_the_aim_met() {
        let mut stroke = stroke();
        for i in 1..=10 {
            let x = 0.1 + 0.01 * i as f32;
            stroke.follow(
                Some(Vec3::new(x, 1.2, -0.6)),
                Some(Vec2::new(0.3 + 0.05 * i as f32, 0.4)),
            );
        }
        assert_eq!(stroke.lift_preview(), None);
        let Command::Trace { points, hand } = stroke.finish() else {
            panic!("a trace");
        };
        assert_eq!(hand, Some(Hand::Right));
        // A straight trace thins to its two ends.
        assert_eq!(points, vec![[0.3, 0.4], [0.8, 0.4]]);
    }
}
