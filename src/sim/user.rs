//! The simulated user: a head that slowly orbits the hologram and two hands whose 26 joints act out the gesture script.
//!
//! Nothing here reports a gesture directly: the hands are posed so that the
//! app's own recognisers see a pinch, a poke or a button press, exactly as
//! they would see tracking data from a runtime.
use glam::{Quat, Vec3};

use super::script::{Action, Script, ScriptEvent};
use crate::app::placement::{self, HOLOGRAM_SIZE_M};
use crate::app::{EyeView, Fov, FrameInput, HandInput, VoiceCommand};
use crate::input::hand::{PALM, WRIST};
use crate::input::{Hand, HandJoints, JOINT_COUNT, Joint, Pose};
use crate::terrain::Heightmap;

/// Distance between the eyes (a typical adult IPD), metres.
pub const IPD_M: f32 = 0.063;
/// Horizontal field of view of each eye, close to HoloLens 2 (43°); the vertical one follows the image aspect.
pub const HORIZONTAL_FOV_DEG: f32 = 45.0;
/// Eye height of the standing user, metres.
pub const EYE_HEIGHT_M: f32 = 1.6;
/// How fast the head walks around the hologram.
pub const ORBIT_DEG_PER_S: f32 = 6.0;

/// Thumb–index gap of a relaxed hand (well past the pinch end threshold).
const OPEN_GAP_M: f32 = 0.05;
/// Thumb–index gap while pinching (fingertips touching).
const PINCH_GAP_M: f32 = 0.0;
/// How long a hand is raised into position before its gesture's time.
const LEAD_NS: i64 = 300_000_000;
/// How long a pinch, press or select is held.
const HOLD_NS: i64 = 150_000_000;
/// How long the hand stays raised after letting go.
const TAIL_NS: i64 = 150_000_000;
/// The fingertip hovers this far above the surface before a tap...
const HOVER_M: f32 = 0.05;
/// ...comes down to this height just before the tap's time...
const TOUCH_M: f32 = 0.005;
/// ...and pokes this far into the surface at the tap's time.
const POKE_DEPTH_M: f32 = 0.03;
/// Radius of a synthetic fingertip joint.
const TIP_RADIUS_M: f32 = 0.008;
/// Radius of every other synthetic joint.
const JOINT_RADIUS_M: f32 = 0.01;

/// Scripted events with their times in nanoseconds.
#[derive(Debug, Clone)]
struct TimedEvent {
    /// When the gesture's key moment happens.
    time_ns: i64,
    /// What happens.
    action: Action,
}

/// The simulated person wearing the headset.
#[derive(Debug, Clone)]
pub struct SimulatedUser {
    /// The script's events in time order.
    events: Vec<TimedEvent>,
    /// Per-eye image width over height, for the field of view.
    aspect: f32,
}

impl SimulatedUser {
    pub fn new(script: &Script, eye_width: u32, eye_height: u32) -> Self {
        let events = script
            .events
            .iter()
            .map(|ScriptEvent { time_s, action, .. }| TimedEvent {
                time_ns: seconds_to_ns(*time_s),
                action: action.clone(),
            })
            .collect();
        SimulatedUser {
            events,
            aspect: eye_width as f32 / eye_height as f32,
        }
    }

    /// Where the hologram will be (or is) for the default head start, so the
    /// orbit has a centre before the app has placed anything.
    fn expected_hologram() -> Pose {
        placement::place_hologram(&Pose::new(Vec3::Y * EYE_HEIGHT_M, Quat::IDENTITY))
    }

    /// Everything the headset reports for the frame shown at `time_ns`.
    pub fn frame_input(
        &self,
        time_ns: i64,
        hologram: Option<Pose>,
        heights: &Heightmap,
    ) -> FrameInput {
        let centre = hologram.unwrap_or_else(Self::expected_hologram).position;
        let head = self.head_pose(time_ns, centre);
        let hands =
            Hand::BOTH.map(|hand| self.hand_input(hand, time_ns, &head, hologram, centre, heights));
        FrameInput {
            display_time_ns: time_ns,
            head: Some(head),
            hands,
            views: self.eye_views(&head),
            hologram_located: None,
            visible: true,
            voice: None,
        }
    }

    /// The head: orbiting around the hologram, looking at it, until a `head`
    /// event pins it; glancing away around an `away` air-tap.
    fn head_pose(&self, time_ns: i64, centre: Vec3) -> Pose {
        let pinned = self
            .events
            .iter()
            .rev()
            .filter(|event| event.time_ns <= time_ns)
            .find_map(|event| match event.action {
                Action::Head { position, look_at } => Some((position, look_at)),
                _ => None,
            });
        let (position, mut look_at) = pinned.unwrap_or_else(|| {
            let angle = (ORBIT_DEG_PER_S * time_ns as f32 * 1e-9).to_radians();
            let offset = Vec3::new(angle.sin(), 0.0, angle.cos()) * placement::PLACEMENT_DISTANCE_M;
            let eye =
                Vec3::new(centre.x, centre.y + placement::PLACEMENT_DROP_M, centre.z) + offset;
            (eye, centre)
        });
        let glancing = self.events.iter().any(|event| {
            matches!(event.action, Action::AirTap { away: true, .. })
                && in_window(time_ns, event.time_ns)
        });
        if glancing {
            // Gaze counts as aiming, so an aimed-away pinch needs the eyes elsewhere too.
            look_at = position + (look_at - position).normalize_or(Vec3::NEG_Z) + Vec3::Y * 1.5;
        }
        Pose::looking_at(position, look_at).unwrap_or(Pose::new(position, Quat::IDENTITY))
    }

    /// Both eyes, `IPD_M` apart along the head's right axis.
    fn eye_views(&self, head: &Pose) -> [EyeView; 2] {
        let half_width = (HORIZONTAL_FOV_DEG / 2.0).to_radians();
        let half_height = (half_width.tan() / self.aspect).atan();
        let fov = Fov {
            angle_left: -half_width,
            angle_right: half_width,
            angle_up: half_height,
            angle_down: -half_height,
        };
        [-0.5f32, 0.5].map(|side| EyeView {
            pose: Pose::new(
                head.transform_point(Vec3::X * IPD_M * side),
                head.orientation,
            ),
            fov,
        })
    }

    /// The hand's scripted gesture in progress at `time_ns`, if any.
    fn gesture(&self, hand: Hand, time_ns: i64) -> Option<&TimedEvent> {
        self.events.iter().rev().find(|event| {
            in_window(time_ns, event.time_ns) && action_hand(&event.action) == Some(hand)
        })
    }

    /// The command the user said after `after_ns` (the previous frame's
    /// time; `None` before the first frame) and up to `up_to_ns`: what the
    /// frame shown at `up_to_ns` hears. The first of several; words that are
    /// no command of the app's are heard as nothing.
    pub fn heard(&self, after_ns: Option<i64>, up_to_ns: i64) -> Option<VoiceCommand> {
        self.events
            .iter()
            .filter(|event| after_ns.is_none_or(|after| event.time_ns > after))
            .take_while(|event| event.time_ns <= up_to_ns)
            .find_map(|event| match &event.action {
                Action::Say { words } => VoiceCommand::recognize(words),
                _ => None,
            })
    }

    fn hand_input(
        &self,
        hand: Hand,
        time_ns: i64,
        head: &Pose,
        hologram: Option<Pose>,
        centre: Vec3,
        heights: &Heightmap,
    ) -> HandInput {
        let side = match hand {
            Hand::Left => -1.0,
            Hand::Right => 1.0,
        };
        let yaw_only = placement::place_hologram(head).orientation;
        let rest_tip = head.transform_point(Vec3::new(0.2 * side, -0.45, -0.25));
        let rest = HandInput {
            joints: Some(hand_joints(hand, rest_tip, yaw_only, OPEN_GAP_M)),
            aim: Pose::looking_at(rest_tip, rest_tip + yaw_only * Vec3::new(0.0, -0.5, -1.0)),
            select: Some(false),
            select_is_air_tap: false,
        };
        let Some(gesture) = self.gesture(hand, time_ns) else {
            return rest;
        };
        let since_ns = time_ns - gesture.time_ns;
        let held = (0..HOLD_NS).contains(&since_ns);
        match gesture.action {
            Action::AirTap { away, .. } => {
                let tip = head.transform_point(Vec3::new(0.15 * side, -0.2, -0.35));
                let target = if away {
                    tip + yaw_only * Vec3::new(side, 1.0, 0.0)
                } else {
                    centre
                };
                let gap = if held { PINCH_GAP_M } else { OPEN_GAP_M };
                HandInput {
                    joints: Some(hand_joints(hand, tip, yaw_only, gap)),
                    aim: Pose::looking_at(
                        head.transform_point(Vec3::new(0.12 * side, -0.15, -0.25)),
                        target,
                    ),
                    select: Some(false),
                    select_is_air_tap: false,
                }
            }
            Action::Tap { u, v, .. } => {
                let Some(hologram) = hologram else {
                    return rest;
                };
                let surface = placement::sample_bilinear(heights, u, v) * HOLOGRAM_SIZE_M;
                let above = if held {
                    -POKE_DEPTH_M
                } else if since_ns < -HOLD_NS {
                    HOVER_M
                } else if since_ns < 0 {
                    // Descend from the hover height to just above the surface.
                    let progress = (since_ns + HOLD_NS) as f32 / HOLD_NS as f32;
                    HOVER_M + (TOUCH_M - HOVER_M) * progress
                } else {
                    HOVER_M
                };
                let local = Vec3::new(
                    (u - 0.5) * HOLOGRAM_SIZE_M,
                    surface + above,
                    (v - 0.5) * HOLOGRAM_SIZE_M,
                );
                let tip = hologram.transform_point(local);
                let pointing_down = yaw_only * Quat::from_rotation_x(-1.2);
                HandInput {
                    joints: Some(hand_joints(hand, tip, pointing_down, OPEN_GAP_M)),
                    ..rest
                }
            }
            Action::Select { .. } => HandInput {
                select: Some(held),
                ..rest
            },
            Action::Head { .. }
            | Action::Stall { .. }
            | Action::Disconnect { .. }
            | Action::Say { .. } => rest,
        }
    }
}

/// Whether `time_ns` is within a gesture's raised-hand window around `event_ns`.
fn in_window(time_ns: i64, event_ns: i64) -> bool {
    (event_ns - LEAD_NS..event_ns + HOLD_NS + TAIL_NS).contains(&time_ns)
}

/// The hand an action uses, if it uses one.
fn action_hand(action: &Action) -> Option<Hand> {
    match action {
        Action::AirTap { hand, .. } | Action::Tap { hand, .. } | Action::Select { hand } => {
            Some(*hand)
        }
        Action::Head { .. }
        | Action::Stall { .. }
        | Action::Disconnect { .. }
        | Action::Say { .. } => None,
    }
}

/// Seconds to whole nanoseconds, rounded to nearest.
pub fn seconds_to_ns(seconds: f64) -> i64 {
    (seconds * 1e9).round() as i64
}

/// A plausible 26-joint hand with its index tip at `index_tip`, the finger
/// pointing along `orientation`'s -Z with the back of the hand along its +Y,
/// and the thumb tip's skin `gap` metres from the index tip's.
pub fn hand_joints(hand: Hand, index_tip: Vec3, orientation: Quat, gap: f32) -> HandJoints {
    // Towards the thumb: -X on a right hand seen from above, +X on a left.
    let thumb_side = match hand {
        Hand::Left => 1.0,
        Hand::Right => -1.0,
    };
    let place = |local: Vec3, radius: f32| Joint {
        pose: Pose::new(index_tip + orientation * local, orientation),
        radius,
    };
    let mut joints = [place(Vec3::ZERO, JOINT_RADIUS_M); JOINT_COUNT];
    // Finger columns across the hand: index, middle, ring, little.
    for (finger, first_joint) in [6usize, 11, 16, 21].into_iter().enumerate() {
        let across = Vec3::X * (-thumb_side * 0.02 * finger as f32);
        let lengths = [0.13, 0.07, 0.045, 0.022, 0.0];
        for (joint, along) in lengths.into_iter().enumerate() {
            let radius = if joint == 4 {
                TIP_RADIUS_M
            } else {
                JOINT_RADIUS_M
            };
            joints[first_joint + joint] = place(across + Vec3::Z * along, radius);
        }
    }
    joints[PALM] = place(Vec3::new(-thumb_side * 0.03, 0.0, 0.11), JOINT_RADIUS_M);
    joints[WRIST] = place(Vec3::new(-thumb_side * 0.03, 0.0, 0.18), JOINT_RADIUS_M);
    let thumb_tip = Vec3::new(thumb_side, -0.4, 0.3).normalize() * (gap + 2.0 * TIP_RADIUS_M);
    let thumb_base = Vec3::new(thumb_side * 0.03, -0.02, 0.15);
    for (joint, fraction) in [0.0f32, 0.35, 0.7, 1.0].into_iter().enumerate() {
        let radius = if joint == 3 {
            TIP_RADIUS_M
        } else {
            JOINT_RADIUS_M
        };
        joints[2 + joint] = place(thumb_base.lerp(thumb_tip, fraction), radius);
    }
    joints
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::placement::{hologram_bounds, probe_surface};
    use crate::input::hand::{INDEX_TIP, pinch_distance};
    use crate::input::{PINCH_END_M, PINCH_START_M, TAP_PRESS_DEPTH_M, TAP_RELEASE_HEIGHT_M};

    const SECOND_NS: i64 = 1_000_000_000;

    fn user(script: &str) -> SimulatedUser {
        SimulatedUser::new(&Script::parse(script).unwrap(), 320, 240)
    }

    fn flat() -> Heightmap {
        Heightmap::flat(9, 9).unwrap()
    }

    fn hologram() -> Pose {
        SimulatedUser::expected_hologram()
    }

    fn right_gap(input: &FrameInput) -> f32 {
        pinch_distance(&input.hands[Hand::Right.index()].joints.unwrap())
    }

    #[test]
    fn synthetic_joints_have_the_requested_pinch_gap() {
        let joints = hand_joints(
            Hand::Left,
            Vec3::new(0.1, 1.2, -0.3),
            Quat::from_rotation_y(0.5),
            0.013,
        );
        assert!((pinch_distance(&joints) - 0.013).abs() < 1e-5);
        assert!(joints.iter().all(|joint| joint.radius > 0.0));
    }

    #[test]
    fn an_air_tap_pinches_exactly_from_its_time() {
        let user = user("1.0 airtap right");
        let at = |time_ns| user.frame_input(time_ns, Some(hologram()), &flat());
        assert!(right_gap(&at(SECOND_NS - 1)) > PINCH_END_M);
        assert!(right_gap(&at(SECOND_NS)) < PINCH_START_M);
        assert!(right_gap(&at(SECOND_NS + HOLD_NS)) > PINCH_END_M);
    }

    #[test]
    fn an_air_tap_aims_at_the_hologram() {
        let user = user("1.0 airtap right");
        let input = user.frame_input(SECOND_NS, Some(hologram()), &flat());
        let aim = input.hands[Hand::Right.index()].aim.unwrap();
        let bounds = hologram_bounds(0.0, 0.0);
        assert!(
            bounds
                .hit(&hologram().ray_to_local(&aim.forward_ray()))
                .is_some()
        );
    }

    #[test]
    fn an_away_air_tap_turns_aim_and_gaze_off_the_hologram() {
        let user = user("1.0 airtap right away");
        let input = user.frame_input(SECOND_NS, Some(hologram()), &flat());
        let bounds = hologram_bounds(0.0, 0.2);
        let misses = |pose: Pose| {
            bounds
                .hit(&hologram().ray_to_local(&pose.forward_ray()))
                .is_none()
        };
        assert!(misses(input.hands[Hand::Right.index()].aim.unwrap()));
        assert!(misses(input.head.unwrap()));
        assert!(right_gap(&input) < PINCH_START_M);
    }

    #[test]
    fn the_orbiting_head_looks_at_the_hologram() {
        let user = user("");
        let input = user.frame_input(7 * SECOND_NS, Some(hologram()), &flat());
        let head = input.head.unwrap();
        let to_centre = (hologram().position - head.position).normalize();
        assert!(head.forward().abs_diff_eq(to_centre, 1e-5));
        assert!(head.position.distance(Vec3::new(0.0, EYE_HEIGHT_M, 0.0)) > 0.1);
    }

    #[test]
    fn a_tap_hovers_above_then_pokes_in_at_its_time() {
        let user = user("2.0 tap left 0.25 0.75");
        let map = flat();
        let probe_at = |time_ns| {
            let input = user.frame_input(time_ns, Some(hologram()), &map);
            let tip = input.hands[Hand::Left.index()].joints.unwrap()[INDEX_TIP]
                .pose
                .position;
            probe_surface(hologram().inverse().transform_point(tip), &map).unwrap()
        };
        let hovering = probe_at(2 * SECOND_NS - LEAD_NS);
        assert!(hovering.height_above_surface > TAP_RELEASE_HEIGHT_M);
        assert!(probe_at(2 * SECOND_NS - 1).height_above_surface > -TAP_PRESS_DEPTH_M);
        let poked = probe_at(2 * SECOND_NS);
        assert!(poked.height_above_surface < -TAP_PRESS_DEPTH_M);
        assert!((poked.u - 0.25).abs() < 1e-4 && (poked.v - 0.75).abs() < 1e-4);
    }

    #[test]
    fn eyes_are_an_ipd_apart() {
        let input = user("").frame_input(0, None, &flat());
        let [left, right] = input.views;
        assert!((left.pose.position.distance(right.pose.position) - IPD_M).abs() < 1e-6);
    }

    #[test]
    fn a_head_event_pins_the_head() {
        let user = user("1.0 head 0.5 1.5 0.2 0.0 1.3 -1.0");
        let input = user.frame_input(3 * SECOND_NS, Some(hologram()), &flat());
        assert!(
            input
                .head
                .unwrap()
                .position
                .abs_diff_eq(Vec3::new(0.5, 1.5, 0.2), 1e-6)
        );
    }
}
