//! The simulated user: a head that slowly orbits the hologram and two hands whose 26 joints act out the gesture script.
//!
//! Nothing here reports a gesture directly: the hands are posed so that the
//! app's own recognisers see a pinch, a poke or a button press, exactly as
//! they would see tracking data from a runtime.
use glam::{Quat, Vec3};

use super::script::{Action, PressWith, Script, ScriptEvent};
use crate::app::controls::ShownButton;
use crate::app::manipulation::turn_about_vertical;
use crate::app::placement::{self, HOLOGRAM_SIZE_M, Land};
use crate::app::{EyeView, Fov, FrameInput, HandInput, Kept, Placement, VoiceCommand};
use crate::input::hand::{PALM, WRIST};
use crate::input::{Hand, HandJoints, JOINT_COUNT, Joint, Pose};

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
/// A two-hand gesture's hands pinch this far above the hologram's centre...
const TWO_HAND_HEIGHT_M: f32 = 0.15;
/// ...this far to each side of it, before they spread.
const TWO_HAND_HALF_SPAN_M: f32 = 0.15;
/// A hand pointing down at the land for a trace or a lift is this far
/// above the point...
const REACH_ABOVE_M: f32 = 0.3;
/// ...and this far from it towards the head.
const REACH_TOWARDS_M: f32 = 0.12;
/// How long a fingertip's press of a button takes, in and out.
const POKE_PRESS_NS: i64 = 500_000_000;
/// How far in front of a button a poking fingertip starts and ends...
const POKE_FRONT_M: f32 = 0.03;
/// ...and how far in it pushes.
const POKE_IN_M: f32 = 0.016;
/// A palm held up to be looked at is this far ahead of the eyes...
const PALM_AHEAD_M: f32 = 0.3;
/// ...this far below them...
const PALM_BELOW_M: f32 = 0.12;
/// ...and this far to its own side.
const PALM_ASIDE_M: f32 = 0.08;
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

impl TimedEvent {
    /// How long the gesture's pinch, press or squeeze lasts from its time.
    fn duration_ns(&self) -> i64 {
        match self.action {
            Action::Hold { seconds, .. }
            | Action::Trace { seconds, .. }
            | Action::Lift { seconds, .. }
            | Action::TwoHand { seconds, .. }
            | Action::Grab { seconds, .. }
            | Action::Palm { seconds, .. } => seconds_to_ns(seconds),
            Action::Press {
                with: PressWith::Poke,
                ..
            } => POKE_PRESS_NS,
            _ => HOLD_NS,
        }
    }

    /// Whether `time_ns` is within the gesture's raised-hand window: from
    /// [`LEAD_NS`] before its time to [`TAIL_NS`] after it let go.
    fn in_window(&self, time_ns: i64) -> bool {
        (self.time_ns - LEAD_NS..self.time_ns + self.duration_ns() + TAIL_NS).contains(&time_ns)
    }

    /// Whether `hand` takes part.
    fn involves(&self, hand: Hand) -> bool {
        match self.action {
            Action::AirTap { hand: used, .. }
            | Action::Tap { hand: used, .. }
            | Action::Select { hand: used }
            | Action::Hold { hand: used, .. }
            | Action::Trace { hand: used, .. }
            | Action::Lift { hand: used, .. }
            | Action::Grab { hand: used, .. }
            | Action::Palm { hand: used, .. } => used == hand,
            // Resolved when the user is made ([`SimulatedUser::new`]).
            Action::Press { hand: used, .. } => used == Some(hand),
            Action::TwoHand { .. } => true,
            Action::Head { .. }
            | Action::Stall { .. }
            | Action::Disconnect { .. }
            | Action::Say { .. }
            | Action::Wait { .. } => false,
        }
    }

    /// How far through its press the gesture is at `time_ns`, 0 to 1.
    fn progress(&self, time_ns: i64) -> f32 {
        let since = (time_ns - self.time_ns).clamp(0, self.duration_ns());
        since as f32 / self.duration_ns().max(1) as f32
    }
}

/// Where a gesture starts, taken when its window opens and fixed from then
/// on, so its hands move in the room as the script says and not with the
/// orbiting head or the hologram they move.
#[derive(Debug, Clone, Copy, PartialEq)]
struct GestureStart {
    /// The head when the window opened.
    head: Pose,
    /// The hologram's centre then.
    centre: Vec3,
}

/// The simulated person wearing the headset.
#[derive(Debug, Clone)]
pub struct SimulatedUser {
    /// The script's events in time order.
    events: Vec<TimedEvent>,
    /// Where each event's gesture started, once its window opened.
    starts: Vec<Option<GestureStart>>,
    /// Each eye's field of view.
    eye_fov: Fov,
    /// The buttons the app shows, as it last said ([`Self::see_buttons`]).
    buttons: Vec<ShownButton>,
}

impl SimulatedUser {
    /// The user acting out `script`, each eye seeing [`HORIZONTAL_FOV_DEG`]
    /// across and the rest of a picture `eye_width` × `eye_height`
    /// ([`Self::with_eye_fov`] gives the eyes another field).
    pub fn new(script: &Script, eye_width: u32, eye_height: u32) -> Self {
        let mut events: Vec<TimedEvent> = script
            .events
            .iter()
            .map(|ScriptEvent { time_s, action, .. }| TimedEvent {
                time_ns: seconds_to_ns(*time_s),
                action: action.clone(),
            })
            .collect();
        // A press by no hand in particular is the hand not showing its
        // palm then, else the right.
        let palms: Vec<(Hand, TimedEvent)> = events
            .iter()
            .filter_map(|event| match event.action {
                Action::Palm { hand, .. } => Some((hand, event.clone())),
                _ => None,
            })
            .collect();
        for event in &mut events {
            if let Action::Press {
                hand: hand @ None, ..
            } = &mut event.action
            {
                let showing = palms
                    .iter()
                    .find(|(_, palm)| palm.in_window(event.time_ns))
                    .map(|(showing, _)| *showing);
                *hand = Some(match showing {
                    Some(Hand::Right) => Hand::Left,
                    _ => Hand::Right,
                });
            }
        }
        SimulatedUser {
            starts: vec![None; events.len()],
            events,
            eye_fov: eye_fov(HORIZONTAL_FOV_DEG, eye_width, eye_height),
            buttons: Vec::new(),
        }
    }

    /// The same user, each eye seeing `fov` (a headset's own field).
    pub fn with_eye_fov(self, fov: Fov) -> Self {
        SimulatedUser {
            eye_fov: fov,
            ..self
        }
    }

    /// Notes the buttons the app shows now, for the next frame's presses.
    pub fn see_buttons(&mut self, buttons: &[ShownButton]) {
        self.buttons.clear();
        self.buttons.extend_from_slice(buttons);
    }

    /// Where the hologram will be (or is) for the default head start, so the
    /// orbit has a centre before the app has placed anything.
    fn expected_hologram() -> Pose {
        placement::place_hologram(&Pose::new(Vec3::Y * EYE_HEIGHT_M, Quat::IDENTITY))
    }

    /// Everything the headset reports for the next frame, shown at
    /// `time_ns` (frames in time order): the user notes where each gesture
    /// whose window opens now starts, then acts as [`Self::predict`] says.
    /// The platform adds what it knows of the room and of earlier runs
    /// (`surfaces`, `persisted`).
    pub fn frame_input(
        &mut self,
        time_ns: i64,
        hologram: Option<Placement>,
        land: Land<'_>,
    ) -> FrameInput {
        let centre = Self::centre(hologram);
        let head = self.head_pose(time_ns, centre);
        for (event, start) in self.events.iter().zip(&mut self.starts) {
            if start.is_none() && event.in_window(time_ns) {
                *start = Some(GestureStart { head, centre });
            }
        }
        self.predict(time_ns, hologram, land)
    }

    /// What the user does at `time_ns` with the hologram at `hologram`,
    /// without noting anything (as a runtime predicts poses at any time); a
    /// gesture whose start is not noted yet starts from now.
    pub fn predict(&self, time_ns: i64, hologram: Option<Placement>, land: Land<'_>) -> FrameInput {
        let centre = Self::centre(hologram);
        let head = self.head_pose(time_ns, centre);
        let hands =
            Hand::BOTH.map(|hand| self.hand_input(hand, time_ns, &head, hologram, centre, land));
        FrameInput {
            display_time_ns: time_ns,
            head: Some(head),
            hands,
            views: self.eye_views(&head),
            hologram_located: None,
            visible: true,
            surfaces: None,
            markers: None,
            kept: Kept::None,
            voice: None,
            shared: Vec::new(),
            saves: None,
            saved: None,
        }
    }

    /// The hologram's centre, or where it will be before it is placed.
    fn centre(hologram: Option<Placement>) -> Vec3 {
        hologram
            .map_or_else(Self::expected_hologram, |placement| placement.pose)
            .position
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
            let eye = Vec3::new(centre.x, EYE_HEIGHT_M, centre.z) + offset;
            (eye, centre)
        });
        let glancing = self.events.iter().any(|event| {
            matches!(event.action, Action::AirTap { away: true, .. }) && event.in_window(time_ns)
        });
        if glancing {
            // Gaze counts as aiming, so an aimed-away pinch needs the eyes elsewhere too.
            look_at = position + (look_at - position).normalize_or(Vec3::NEG_Z) + Vec3::Y * 1.5;
        }
        if let Some(hand) = self.palm_shown(time_ns) {
            look_at = palm_point(hand, position, look_at);
        }
        Pose::looking_at(position, look_at).unwrap_or(Pose::new(position, Quat::IDENTITY))
    }

    /// The hand held up palm to the face at `time_ns`, if one is.
    fn palm_shown(&self, time_ns: i64) -> Option<Hand> {
        self.events.iter().find_map(|event| match event.action {
            Action::Palm { hand, .. } if event.in_window(time_ns) => Some(hand),
            _ => None,
        })
    }

    /// Both eyes, `IPD_M` apart along the head's right axis.
    fn eye_views(&self, head: &Pose) -> [EyeView; 2] {
        [-0.5f32, 0.5].map(|side| EyeView {
            pose: Pose::new(
                head.transform_point(Vec3::X * IPD_M * side),
                head.orientation,
            ),
            fov: self.eye_fov,
        })
    }

    /// The hand's scripted gesture in progress at `time_ns`, if any, with
    /// where it started (from now when not noted yet). When windows
    /// overlap, the earlier gesture goes on to its end (its let-go and
    /// tail) before the hand is raised for the next.
    fn gesture(
        &self,
        hand: Hand,
        time_ns: i64,
        head: &Pose,
        centre: Vec3,
    ) -> Option<(TimedEvent, GestureStart)> {
        self.events
            .iter()
            .zip(&self.starts)
            .find(|(event, _)| event.in_window(time_ns) && event.involves(hand))
            .map(|(event, start)| {
                (
                    event.clone(),
                    start.unwrap_or(GestureStart {
                        head: *head,
                        centre,
                    }),
                )
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

    /// One hand's tracking at `time_ns`: resting low in front of the head,
    /// or acting out its scripted gesture.
    fn hand_input(
        &self,
        hand: Hand,
        time_ns: i64,
        head: &Pose,
        hologram: Option<Placement>,
        centre: Vec3,
        land: Land<'_>,
    ) -> HandInput {
        let side = side_sign(hand);
        let yaw_only = placement::place_hologram(head).orientation;
        let rest_tip = head.transform_point(Vec3::new(0.2 * side, -0.45, -0.25));
        let rest_joints = hand_joints(hand, rest_tip, yaw_only, OPEN_GAP_M);
        let rest = HandInput {
            joints: Some(rest_joints),
            aim: Pose::looking_at(rest_tip, rest_tip + yaw_only * Vec3::new(0.0, -0.5, -1.0)),
            grip: Some(rest_joints[PALM].pose),
            select: Some(false),
            squeeze: Some(false),
            select_is_air_tap: false,
            menu: Some(false),
        };
        let Some((gesture, start)) = self.gesture(hand, time_ns, head, centre) else {
            return rest;
        };
        let since_ns = time_ns - gesture.time_ns;
        let held = (0..gesture.duration_ns()).contains(&since_ns);
        // The gestures' hands are raised in front of the head as it was
        // when the gesture started, turned as the hologram would be.
        let posing = GesturePose {
            hand,
            side,
            head,
            hologram,
            land,
            rest,
            yaw_only,
            start,
            start_yaw: placement::place_hologram(&start.head).orientation,
            raised_tip: start
                .head
                .transform_point(Vec3::new(0.15 * side, -0.2, -0.35)),
            raised_aim: start
                .head
                .transform_point(Vec3::new(0.12 * side, -0.15, -0.25)),
            since_ns,
            held,
            gap: if held { PINCH_GAP_M } else { OPEN_GAP_M },
            progress: gesture.progress(time_ns),
        };
        posing.act(&gesture.action, &self.buttons)
    }
}

/// -1 for the left hand, 1 for the right: the side of the head it is held to.
fn side_sign(hand: Hand) -> f32 {
    match hand {
        Hand::Left => -1.0,
        Hand::Right => 1.0,
    }
}

/// Everything one hand's pose in one frame of its gesture is made from.
struct GesturePose<'a> {
    hand: Hand,
    /// [`side_sign`] of the hand.
    side: f32,
    head: &'a Pose,
    hologram: Option<Placement>,
    land: Land<'a>,
    /// The resting hand: what a gesture that cannot be made now shows, and
    /// what every gesture's pose leaves as it is.
    rest: HandInput,
    /// The head's turn about the vertical now.
    yaw_only: Quat,
    start: GestureStart,
    /// The head's turn about the vertical when the gesture started.
    start_yaw: Quat,
    /// The raised hand's index tip and aim origin.
    raised_tip: Vec3,
    raised_aim: Vec3,
    /// Time since the gesture's key moment (negative before it).
    since_ns: i64,
    /// Whether its pinch, press or squeeze is held now.
    held: bool,
    /// The thumb–index gap: pinching while held, else open.
    gap: f32,
    /// How far through its press it is, 0 to 1.
    progress: f32,
}

impl GesturePose<'_> {
    /// The hand acting out `action`; `buttons` are those the app shows.
    fn act(&self, action: &Action, buttons: &[ShownButton]) -> HandInput {
        match *action {
            Action::AirTap { away, .. } => {
                let target = if away {
                    self.raised_tip + self.start_yaw * Vec3::new(self.side, 1.0, 0.0)
                } else {
                    self.start.centre
                };
                self.pinching(self.raised_tip, self.raised_aim, target)
            }
            Action::Hold { delta, .. } => {
                let moved = delta * self.progress;
                let base = self.hologram.map_or(self.start.centre, |hologram| {
                    base_facing(&hologram, self.start.head.position, self.land)
                });
                self.pinching(
                    self.raised_tip + moved,
                    self.raised_aim + moved,
                    base + moved,
                )
            }
            Action::Trace { ref points, .. } => self.trace(points),
            Action::Lift { u, v, dh, .. } => self.lift(u, v, dh),
            Action::TwoHand { degrees, scale, .. } => self.two_hand(degrees, scale),
            Action::Grab { delta, .. } => {
                let grip = Pose::new(self.raised_tip + delta * self.progress, self.start_yaw);
                HandInput {
                    joints: Some(hand_joints(
                        self.hand,
                        grip.position,
                        self.start_yaw,
                        OPEN_GAP_M,
                    )),
                    aim: Pose::looking_at(grip.position, self.start.centre),
                    grip: Some(grip),
                    squeeze: Some(self.held),
                    ..self.rest
                }
            }
            Action::Tap { u, v, .. } => self.tap(u, v),
            Action::Select { .. } => HandInput {
                select: Some(self.held),
                ..self.rest
            },
            Action::Palm { .. } => self.palm(),
            Action::Press {
                label, with, along, ..
            } => {
                let Some(button) = buttons.iter().find(|button| button.action.label() == label)
                else {
                    return self.rest;
                };
                // Kept off the very edge, where a finger would slip off.
                let at = button.rect.centre + button.rect.right * (2.0 * along - 1.0) * 0.98;
                match with {
                    PressWith::Poke => self.poke(button, at),
                    PressWith::Ray => self.pinching(self.raised_tip, self.raised_aim, at),
                }
            }
            Action::Head { .. }
            | Action::Stall { .. }
            | Action::Disconnect { .. }
            | Action::Say { .. }
            | Action::Wait { .. } => self.rest,
        }
    }

    /// The hand with its index tip at `tip`, aiming from `aim_from` at
    /// `target`, pinching while held.
    fn pinching(&self, tip: Vec3, aim_from: Vec3, target: Vec3) -> HandInput {
        let joints = hand_joints(self.hand, tip, self.start_yaw, self.gap);
        HandInput {
            joints: Some(joints),
            aim: Pose::looking_at(aim_from, target),
            grip: Some(joints[PALM].pose),
            ..self.rest
        }
    }

    /// Reaching over the land, aiming along the polyline `points` (u, v).
    fn trace(&self, points: &[[f32; 2]]) -> HandInput {
        let Some(hologram) = self.hologram else {
            return self.rest;
        };
        let on_land =
            |uv: [f32; 2]| hologram.to_room(placement::surface_point(self.land, uv[0], uv[1]));
        let first = on_land(points[0]);
        let target = on_land(point_along(points, self.progress));
        // The hand follows the aim across, half as far, level with
        // the hologram, so its first move says "trace", not "lift".
        let up = hologram.pose.up();
        let across = target - first;
        let moved = (across - up * across.dot(up)) * 0.5;
        let first_below = hologram.to_room(on_plane(points[0]));
        let over = reaching_over(&hologram, first_below, self.start.head.position) + moved;
        self.pinching(over, over, target)
    }

    /// Reaching over the land at (u, v), aiming at it, raised by up to `dh`.
    fn lift(&self, u: f32, v: f32, dh: f32) -> HandInput {
        let Some(hologram) = self.hologram else {
            return self.rest;
        };
        let target = hologram.to_room(placement::surface_point(self.land, u, v));
        let raised = hologram.pose.up() * (dh * self.progress);
        // Above the point's place on the base plane, not on the
        // land, which rises under the hand as the hill shows.
        let below = hologram.to_room(on_plane([u, v]));
        let over = reaching_over(&hologram, below, self.start.head.position) + raised;
        self.pinching(over, over, target)
    }

    /// One of two hands pinching above the hologram, turning about it by
    /// up to `degrees` and spreading apart by up to `scale`.
    fn two_hand(&self, degrees: f32, scale: f32) -> HandInput {
        let turn = turn_about_vertical((degrees * self.progress).to_radians());
        let spread = 1.0 + (scale - 1.0) * self.progress;
        let midpoint = self.start.centre + Vec3::Y * TWO_HAND_HEIGHT_M;
        let half_span = turn * (self.start_yaw * Vec3::X) * (TWO_HAND_HALF_SPAN_M * spread);
        let palm = midpoint + half_span * self.side;
        let joints = hand_joints_with_palm_at(self.hand, palm, self.start_yaw, self.gap);
        HandInput {
            joints: Some(joints),
            aim: Pose::looking_at(palm, self.start.centre),
            grip: Some(joints[PALM].pose),
            ..self.rest
        }
    }

    /// A fingertip hovering above the land at (u, v), coming down and
    /// poking into it at the tap's time.
    fn tap(&self, u: f32, v: f32) -> HandInput {
        let Some(hologram) = self.hologram else {
            return self.rest;
        };
        let surface = self.land.y_m(u, v);
        let since_ns = self.since_ns;
        let above = if self.held {
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
        // Heights above the surface are the fingertip's own, at any scale.
        let on_surface = hologram.to_room(Vec3::new(
            (u - 0.5) * HOLOGRAM_SIZE_M,
            surface,
            (v - 0.5) * HOLOGRAM_SIZE_M,
        ));
        let tip = on_surface + hologram.pose.up() * above;
        let pointing_down = self.yaw_only * Quat::from_rotation_x(-1.2);
        HandInput {
            joints: Some(hand_joints(self.hand, tip, pointing_down, OPEN_GAP_M)),
            ..self.rest
        }
    }

    /// The palm held up to the eyes, fingers up.
    fn palm(&self) -> HandInput {
        let eye = self.head.position;
        let palm = palm_point(self.hand, eye, eye + self.head.forward());
        let to_eye = (eye - palm).normalize_or(Vec3::Z);
        // Palm (-Y) to the eyes, fingers (-Z) up.
        let fingers_up = (Vec3::Y - to_eye * Vec3::Y.dot(to_eye)).normalize_or(Vec3::Y);
        let y_axis = -to_eye;
        let z_axis = -fingers_up;
        let orientation =
            Quat::from_mat3(&glam::Mat3::from_cols(y_axis.cross(z_axis), y_axis, z_axis));
        let joints = hand_joints_with_palm_at(self.hand, palm, orientation, OPEN_GAP_M);
        HandInput {
            joints: Some(joints),
            aim: Pose::looking_at(palm, palm + fingers_up),
            grip: Some(joints[PALM].pose),
            ..self.rest
        }
    }

    /// A fingertip pushing into `button` and back out.
    fn poke(&self, button: &ShownButton, at: Vec3) -> HandInput {
        let normal = button.normal();
        // In and back out: a half sine over the press.
        let depth = if self.held {
            -POKE_FRONT_M
                + (POKE_FRONT_M + POKE_IN_M) * (std::f32::consts::PI * self.progress).sin()
        } else {
            -POKE_FRONT_M
        };
        let tip = at - normal * depth;
        let into_button =
            Pose::looking_at(tip, tip - normal).map_or(self.yaw_only, |pose| pose.orientation);
        HandInput {
            joints: Some(hand_joints(self.hand, tip, into_button, OPEN_GAP_M)),
            ..self.rest
        }
    }
}

/// Where `hand`'s palm is held up to be looked at by eyes at `eye` that
/// were looking at `look_at`: ahead of them, below, to the hand's side.
fn palm_point(hand: Hand, eye: Vec3, look_at: Vec3) -> Vec3 {
    let ahead = Vec3::new(look_at.x - eye.x, 0.0, look_at.z - eye.z).normalize_or(Vec3::NEG_Z);
    let right = ahead.cross(Vec3::Y);
    eye + ahead * PALM_AHEAD_M - Vec3::Y * PALM_BELOW_M + right * (side_sign(hand) * PALM_ASIDE_M)
}

/// The point `progress` (0..1) of the way along the polyline `points` by length.
fn point_along(points: &[[f32; 2]], progress: f32) -> [f32; 2] {
    let lengths: Vec<f32> = points
        .windows(2)
        .map(|pair| glam::Vec2::from(pair[0]).distance(pair[1].into()))
        .collect();
    let mut remaining = lengths.iter().sum::<f32>() * progress.clamp(0.0, 1.0);
    for (pair, length) in points.windows(2).zip(&lengths) {
        if remaining <= *length && *length > 0.0 {
            let (a, b) = (glam::Vec2::from(pair[0]), glam::Vec2::from(pair[1]));
            return a.lerp(b, remaining / length).to_array();
        }
        remaining -= length;
    }
    *points.last().expect("a trace has points")
}

/// The point at (u, v) on the land's zero plane, in hologram space.
fn on_plane(uv: [f32; 2]) -> Vec3 {
    Vec3::new(
        (uv[0] - 0.5) * HOLOGRAM_SIZE_M,
        placement::land_y_m(0.0),
        (uv[1] - 0.5) * HOLOGRAM_SIZE_M,
    )
}

/// Where a hand reaching over the table to point down at `point` (on the
/// land) is: above it and a little towards `viewer`, so its aim comes
/// down steeply and no ridge in front hides the point.
fn reaching_over(hologram: &Placement, point: Vec3, viewer: Vec3) -> Vec3 {
    let up = hologram.pose.up();
    let towards = viewer - point;
    let level = (towards - up * towards.dot(up)).normalize_or(Vec3::Z);
    point + up * REACH_ABOVE_M + level * REACH_TOWARDS_M
}

/// The middle of the base's side that faces `viewer`, in the room: where
/// a hand takes the hologram to move it.
fn base_facing(hologram: &Placement, viewer: Vec3, land: Land<'_>) -> Vec3 {
    let local_viewer = hologram.to_local(viewer);
    let towards = Vec3::new(local_viewer.x, 0.0, local_viewer.z).normalize_or(Vec3::Z);
    // Onto the side of the square footprint, just inside its edge.
    let edge = HOLOGRAM_SIZE_M / 2.0 * 0.98 / towards.x.abs().max(towards.z.abs());
    let bottom = land.bounds().min.y;
    hologram.to_room(towards * edge + Vec3::Y * (bottom + placement::BASE_DEPTH_M * 0.5))
}

/// An eye's field `across_deg` degrees across, centred, its vertical
/// field what a picture `width` × `height` shows at that width.
pub fn eye_fov(across_deg: f32, width: u32, height: u32) -> Fov {
    let half_width = (across_deg / 2.0).to_radians();
    let half_height = (half_width.tan() / (width as f32 / height as f32)).atan();
    Fov {
        angle_left: -half_width,
        angle_right: half_width,
        angle_up: half_height,
        angle_down: -half_height,
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

/// [`hand_joints`] placed so that the palm joint is at `palm`.
pub fn hand_joints_with_palm_at(hand: Hand, palm: Vec3, orientation: Quat, gap: f32) -> HandJoints {
    let at_origin = hand_joints(hand, Vec3::ZERO, orientation, gap);
    hand_joints(hand, palm - at_origin[PALM].pose.position, orientation, gap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::placement::{hologram_bounds, probe_surface};
    use crate::input::hand::{INDEX_TIP, pinch_distance};
    use crate::input::{PINCH_END_M, PINCH_START_M, TAP_PRESS_DEPTH_M, TAP_RELEASE_HEIGHT_M};
    use crate::terrain::Heightmap;

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

    fn placed() -> Option<Placement> {
        Some(Placement::at(hologram()))
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
        let at = |time_ns| user.predict(time_ns, placed(), Land::new(&flat(), 1.0));
        assert!(right_gap(&at(SECOND_NS - 1)) > PINCH_END_M);
        assert!(right_gap(&at(SECOND_NS)) < PINCH_START_M);
        assert!(right_gap(&at(SECOND_NS + HOLD_NS)) > PINCH_END_M);
    }

    #[test]
    fn an_air_tap_aims_at_the_hologram() {
        let user = user("1.0 airtap right");
        let input = user.predict(SECOND_NS, placed(), Land::new(&flat(), 1.0));
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
        let input = user.predict(SECOND_NS, placed(), Land::new(&flat(), 1.0));
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
        let input = user.predict(7 * SECOND_NS, placed(), Land::new(&flat(), 1.0));
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
            let input = user.predict(time_ns, placed(), Land::new(&map, 1.0));
            let tip = input.hands[Hand::Left.index()].joints.unwrap()[INDEX_TIP]
                .pose
                .position;
            probe_surface(
                hologram().inverse().transform_point(tip),
                Land::new(&map, 1.0),
            )
            .unwrap()
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
        let input = user("").predict(0, None, Land::new(&flat(), 1.0));
        let [left, right] = input.views;
        assert!((left.pose.position.distance(right.pose.position) - IPD_M).abs() < 1e-6);
    }

    #[test]
    fn a_head_event_pins_the_head() {
        let user = user("1.0 head 0.5 1.5 0.2 0.0 1.3 -1.0");
        let input = user.predict(3 * SECOND_NS, placed(), Land::new(&flat(), 1.0));
        assert!(
            input
                .head
                .unwrap()
                .position
                .abs_diff_eq(Vec3::new(0.5, 1.5, 0.2), 1e-6)
        );
    }
}
