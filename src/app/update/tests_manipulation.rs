//! Unit tests of where the app puts the hologram: surfaces, kept
//! placements, one hand's drag, two hands' turn and scale, a controller's
//! grab, and the commands (scale, reset) other platforms' inputs call.
use std::sync::Arc;

use glam::{Quat, Vec3};

use super::*;
use crate::app::frame::{EyeView, Fov, HandInput, Kept};
use crate::app::intent::VOICE_SCALE_STEP;
use crate::app::intent::manipulation;
use crate::app::voice::VoiceCommand;
use crate::app::world::placement::{MAX_SCALE, MIN_SCALE};
use crate::app::world::surfaces;
use crate::app::world::surfaces::Surface;
use crate::input::Hand;
use crate::input::hand::synthetic::hand_with_gap;

const SIDE: usize = 17;
const EYE: Vec3 = Vec3::new(0.0, 1.6, 0.0);
/// Where the hologram lands ahead of a level head at [`EYE`] looking down -Z.
const AHEAD: Vec3 = Vec3::new(0.0, 1.3, -1.0);
/// Where the right hand pinches from.
const HAND: Vec3 = Vec3::new(0.2, 1.2, -0.4);

fn app() -> App {
    App::new(AppConfig::hololens_demo(SIDE, SIDE, 7)).unwrap()
}

/// Frame `frame` at 60 Hz: a level head at [`EYE`] looking up and away (so
/// only the hands aim), no hands, no surfaces.
fn frame(frame: i64) -> FrameInput {
    let still = EyeView {
        pose: Pose::IDENTITY,
        fov: Fov {
            angle_left: -0.8,
            angle_right: 0.8,
            angle_up: 0.8,
            angle_down: -0.8,
        },
    };
    FrameInput {
        display_time_ns: (frame * 1_000_000_000 + 59) / 60,
        head: Some(Pose::new(EYE, Quat::IDENTITY)),
        hands: [HandInput::default(); 2],
        views: [still; 2],
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

/// `hand` with its fingers `gap` apart, index tip at `tip`, aiming at `target`.
fn hand_at(input: &mut FrameInput, hand: Hand, tip: Vec3, gap: f32, target: Vec3) {
    input.hands[hand.index()] = HandInput {
        joints: Some(hand_with_gap(tip, gap)),
        aim: Pose::looking_at(tip, target),
        grip: None,
        select: Some(false),
        squeeze: Some(false),
        select_is_air_tap: false,
        menu: None,
    };
}

/// Looking up and away, so the gaze hits nothing.
fn look_away(input: &mut FrameInput) {
    input.head = Some(Pose::looking_at(EYE, Vec3::new(0.0, 3.0, -1.0)).unwrap());
}

/// Runs frames 0.. , letting `shape` edit each input; the outputs.
fn run(
    app: &mut App,
    frames: i64,
    mut shape: impl FnMut(i64, &mut FrameInput),
) -> Vec<FrameOutput> {
    (0..frames)
        .map(|n| {
            let mut input = frame(n);
            shape(n, &mut input);
            app.update(&input)
        })
        .collect()
}

/// Every settled placement, with the frame it settled on.
fn placements(outputs: &[FrameOutput]) -> Vec<(usize, PlacementCause, Placement)> {
    outputs
        .iter()
        .enumerate()
        .flat_map(|(frame, output)| {
            output.events.iter().filter_map(move |event| match event {
                AppEvent::Placed { placement, cause } => Some((frame, *cause, *placement)),
                _ => None,
            })
        })
        .collect()
}

fn reseed_count(outputs: &[FrameOutput]) -> usize {
    outputs
        .iter()
        .flat_map(|output| &output.events)
        .filter(|event| matches!(event, AppEvent::Reseeded { .. }))
        .count()
}

/// A level surface `width` × `depth` centred at `centre`.
fn table(centre: Vec3, width: f32, depth: f32) -> Surface {
    Surface::from_scene_plane(Pose::new(centre, surfaces::Z_ONTO_Y), width, depth)
}

/// How far `after` is turned from `before` about the vertical, degrees
/// counter-clockwise seen from above.
fn turn_degrees(before: Quat, after: Quat) -> f32 {
    let heading = |q: Quat| manipulation::heading(q * Vec3::NEG_Z).unwrap().to_degrees();
    let turn = heading(after) - heading(before);
    -((180.0 - turn).rem_euclid(360.0) - 180.0)
}

#[test]
fn the_gaze_places_the_hologram_on_the_table_it_hits_first() {
    let mut app = app();
    // The gaze from 1.6 m, looking 0.3 m down per metre ahead, meets a
    // table top 0.75 m high 2.83 m ahead; the floor it would meet at 5.3 m.
    let surfaces: Arc<[Surface]> = Arc::from([
        table(Vec3::new(0.0, 0.0, -3.0), 10.0, 10.0),
        table(Vec3::new(0.0, 0.75, -2.6), 1.6, 1.0),
    ]);
    let outputs = run(&mut app, 3, |_, input| {
        input.head = Some(Pose::looking_at(EYE, AHEAD).unwrap());
        input.surfaces = Some(surfaces.clone());
    });
    let placed = placements(&outputs);
    assert_eq!(placed.len(), 1, "{placed:?}");
    let (frame, cause, placement) = placed[0];
    assert_eq!((frame, cause), (0, PlacementCause::Surface));
    let expected_z = -0.85 / 0.3;
    assert!((placement.pose.position.y - 0.75).abs() < 1e-3);
    assert!((placement.pose.position.z - expected_z).abs() < 1e-2);
    assert!((placement.pose.up() - Vec3::Y).length() < 1e-6, "level");
}

#[test]
fn without_a_surface_hit_the_hologram_goes_ahead_of_the_gaze() {
    let mut app = app();
    let far_table: Arc<[Surface]> = Arc::from([table(Vec3::new(3.0, 0.75, -2.6), 1.0, 1.0)]);
    let outputs = run(&mut app, 2, |_, input| {
        input.surfaces = Some(far_table.clone())
    });
    let placed = placements(&outputs);
    assert_eq!(placed.len(), 1);
    assert_eq!(placed[0].1, PlacementCause::Gaze);
    assert!(placed[0].2.pose.position.abs_diff_eq(AHEAD, 1e-6));
}

#[test]
fn surfaces_known_later_move_a_fresh_placement_once() {
    let mut app = app();
    let surfaces: Arc<[Surface]> = Arc::from([table(Vec3::new(0.0, 0.75, -2.6), 1.6, 1.0)]);
    let outputs = run(&mut app, 10, |frame, input| {
        input.head = Some(Pose::looking_at(EYE, AHEAD).unwrap());
        if frame >= 5 {
            input.surfaces = Some(surfaces.clone());
        }
    });
    let causes: Vec<(usize, PlacementCause)> = placements(&outputs)
        .iter()
        .map(|(frame, cause, _)| (*frame, *cause))
        .collect();
    assert_eq!(
        causes,
        [(0, PlacementCause::Gaze), (5, PlacementCause::Surface)]
    );
}

#[test]
fn a_kept_placement_is_used_before_anything_else() {
    let mut app = app();
    let kept = Placement::at(Pose::new(
        Vec3::new(0.5, 0.9, -2.0),
        Quat::from_rotation_y(1.0),
    ))
    .scaled(2.0);
    let outputs = run(&mut app, 3, |_, input| {
        input.head = None;
        input.kept = Kept::Located(kept);
    });
    assert_eq!(placements(&outputs), [(0, PlacementCause::Kept, kept)]);
    assert_eq!(outputs[0].model, Some(kept.model_matrix(1.0)));
}

#[test]
fn a_kept_placement_still_being_located_is_waited_for_two_seconds() {
    let mut app = app();
    let outputs = run(&mut app, 150, |_, input| input.kept = Kept::Pending);
    let placed = placements(&outputs);
    assert_eq!(placed.len(), 1);
    assert_eq!((placed[0].0, placed[0].1), (120, PlacementCause::Gaze));
}

#[test]
fn a_held_pinch_drags_the_hologram_one_to_one_and_never_reseeds() {
    let mut app = app();
    let delta = Vec3::new(0.3, 0.05, -0.1);
    // Pinched on frames 10..70 (1 s), the hand moving by `delta` meanwhile.
    let outputs = run(&mut app, 80, |frame, input| {
        look_away(input);
        let progress = ((frame - 10) as f32 / 60.0).clamp(0.0, 1.0);
        let gap = if (10..70).contains(&frame) { 0.0 } else { 0.05 };
        hand_at(input, Hand::Right, HAND + delta * progress, gap, AHEAD);
    });
    assert_eq!(reseed_count(&outputs), 0);
    let placed = placements(&outputs);
    assert_eq!(placed.len(), 2, "{placed:?}");
    let (frame, cause, moved) = placed[1];
    assert_eq!((frame, cause), (70, PlacementCause::Move));
    assert!(
        moved.pose.position.abs_diff_eq(AHEAD + delta, 1e-5),
        "{moved:?}"
    );
    assert_eq!(app.hologram_pose(), Some(moved.pose));
    // While dragged, it is drawn where the hand has it, not where it was.
    let midway = outputs[40].model.unwrap().w_axis.truncate();
    assert!((midway.x - 0.15).abs() < 0.01, "{midway}");
}

#[test]
fn a_drag_released_just_above_a_table_settles_onto_it() {
    let mut app = app();
    let surfaces: Arc<[Surface]> = Arc::from([table(Vec3::new(0.0, 1.2, -1.0), 1.0, 1.0)]);
    // Down 4 cm: the base ends 6 cm above the 1.2 m table top.
    let outputs = run(&mut app, 60, |frame, input| {
        look_away(input);
        input.surfaces = Some(surfaces.clone());
        let progress = ((frame - 5) as f32 / 40.0).clamp(0.0, 1.0);
        let gap = if (5..45).contains(&frame) { 0.0 } else { 0.05 };
        hand_at(
            input,
            Hand::Right,
            HAND - Vec3::Y * 0.04 * progress,
            gap,
            AHEAD,
        );
    });
    let (_, cause, settled) = *placements(&outputs).last().unwrap();
    assert_eq!(cause, PlacementCause::Move);
    assert!((settled.pose.position.y - 1.2).abs() < 1e-5, "{settled:?}");
}

#[test]
fn two_hands_pinching_on_it_turn_it_and_scale_it() {
    let mut app = app();
    let centre = AHEAD + Vec3::Y * 0.15;
    // Both pinch on frames 10..70; their line turns 90° counter-clockwise
    // seen from above and grows 1.5 times.
    let outputs = run(&mut app, 80, |frame, input| {
        look_away(input);
        let progress = ((frame - 10) as f32 / 60.0).clamp(0.0, 1.0);
        let turn = Quat::from_rotation_y((90.0 * progress).to_radians());
        let half = turn * Vec3::X * (0.15 * (1.0 + 0.5 * progress));
        let gap = if (10..70).contains(&frame) { 0.0 } else { 0.05 };
        // hand_with_gap puts the palm 5 cm below and 8 cm behind the tip.
        let tip = |palm: Vec3| palm - Vec3::new(0.0, -0.05, 0.08);
        hand_at(input, Hand::Left, tip(centre - half), gap, AHEAD);
        hand_at(input, Hand::Right, tip(centre + half), gap, AHEAD);
    });
    assert_eq!(reseed_count(&outputs), 0);
    let placed = placements(&outputs);
    assert_eq!(placed.len(), 2, "{placed:?}");
    let (frame, cause, turned) = placed[1];
    assert_eq!((frame, cause), (70, PlacementCause::TwoHand));
    let start = placed[0].2;
    let turn = turn_degrees(start.pose.orientation, turned.pose.orientation);
    assert!((turn - 90.0).abs() < 0.01, "{turn}");
    assert!((turned.scale - 1.5).abs() < 1e-4, "{}", turned.scale);
    assert!(turned.pose.position.abs_diff_eq(start.pose.position, 1e-6));
}

#[test]
fn a_squeezed_controller_carries_the_hologram_rigidly() {
    let mut app = app();
    let grip_at = |frame: i64| {
        let progress = ((frame - 10) as f32 / 30.0).clamp(0.0, 1.0);
        Pose::new(
            HAND + Vec3::new(0.0, 0.2, 0.0) * progress,
            Quat::from_rotation_y(0.5 * progress),
        )
    };
    let outputs = run(&mut app, 50, |frame, input| {
        look_away(input);
        let grip = grip_at(frame);
        input.hands[Hand::Left.index()] = HandInput {
            aim: Pose::looking_at(grip.position, AHEAD),
            grip: Some(grip),
            squeeze: Some((10..40).contains(&frame)),
            ..HandInput::default()
        };
    });
    let placed = placements(&outputs);
    assert_eq!(placed.len(), 2, "{placed:?}");
    let (frame, cause, carried) = placed[1];
    assert_eq!((frame, cause), (40, PlacementCause::Grab));
    let start = placed[0].2.pose;
    let expected = grip_at(40).compose(&grip_at(10).inverse().compose(&start));
    assert!(carried.pose.position.abs_diff_eq(expected.position, 1e-5));
    assert!(
        carried
            .pose
            .orientation
            .abs_diff_eq(expected.orientation, 1e-5)
    );
}

#[test]
fn a_squeeze_aimed_away_grabs_nothing() {
    let mut app = app();
    let outputs = run(&mut app, 30, |frame, input| {
        look_away(input);
        let grip = Pose::new(HAND + Vec3::X * frame as f32 * 0.01, Quat::IDENTITY);
        input.hands[Hand::Left.index()] = HandInput {
            aim: Pose::looking_at(grip.position, grip.position + Vec3::Y),
            grip: Some(grip),
            squeeze: Some(frame >= 5),
            ..HandInput::default()
        };
    });
    assert_eq!(placements(&outputs).len(), 1);
}

#[test]
fn the_located_pose_is_ignored_while_the_hands_move_the_hologram() {
    let mut app = app();
    // The platform locates the hologram 5 cm right of where it was placed
    // (a drifting anchor), and keeps doing so.
    let located = Pose::new(AHEAD + Vec3::X * 0.05, Quat::IDENTITY);
    let outputs = run(&mut app, 60, |frame, input| {
        look_away(input);
        input.hologram_located = Some(located);
        let gap = if (10..50).contains(&frame) { 0.0 } else { 0.05 };
        let tip = HAND + Vec3::X * 0.002 * frame as f32;
        hand_at(input, Hand::Right, tip, gap, located.position);
    });
    let drawn_x = |frame: usize| outputs[frame].model.unwrap().w_axis.x;
    // Before: drawn where the platform locates it.
    assert!((drawn_x(5) - 0.05).abs() < 1e-6);
    // Dragged from there, 2 mm a frame since frame 10.
    assert!((drawn_x(40) - 0.11).abs() < 1e-4, "{}", drawn_x(40));
    // The frame it settles: where it settled (the platform pins it after).
    assert!((drawn_x(50) - 0.13).abs() < 1e-4, "{}", drawn_x(50));
    // Then where the platform locates it again.
    assert!((drawn_x(55) - 0.05).abs() < 1e-6);
}

#[test]
fn a_scale_command_scales_within_the_limits_on_the_next_update() {
    let mut app = app();
    let scale = |factor| Command::Scale {
        cause: PlacementCause::TwoHand,
        factor,
    };
    app.submit(scale(1.25));
    let first = app.update(&frame(0));
    let placed = app.placement().unwrap();
    assert_eq!(
        placements(std::slice::from_ref(&first)),
        [(0, PlacementCause::Gaze, placed)],
        "nothing to scale before the first placement"
    );
    app.submit(scale(1.25));
    let output = app.update(&frame(1));
    let bigger = placed.scaled(1.25);
    assert_eq!(bigger.scale, 1.25);
    assert_eq!(
        placements(std::slice::from_ref(&output)),
        [(0, PlacementCause::TwoHand, bigger)]
    );
    for _ in 0..20 {
        app.submit(scale(1.25));
    }
    app.update(&frame(2));
    assert_eq!(app.placement().unwrap().scale, MAX_SCALE);
}

#[test]
fn reset_places_afresh_at_the_default_size_never_where_it_was_kept() {
    let mut app = app();
    let kept = Placement::at(Pose::new(Vec3::new(0.5, 0.9, -2.0), Quat::IDENTITY)).scaled(2.0);
    run(&mut app, 2, |_, input| input.kept = Kept::Located(kept));
    app.submit(Command::ResetPlacement);
    let mut input = frame(2);
    input.kept = Kept::Located(kept);
    let output = app.update(&input);
    let placed = placements(std::slice::from_ref(&output));
    assert_eq!(placed.len(), 1);
    assert_eq!(placed[0].1, PlacementCause::Gaze);
    assert_eq!(
        placed[0].2,
        Placement::at(placement::place_hologram(&Pose::new(EYE, Quat::IDENTITY)))
    );
}

#[test]
fn bigger_and_smaller_said_scale_by_the_step_within_the_limits() {
    let mut app = app();
    let say = |app: &mut App, n: i64, command: VoiceCommand| {
        let mut input = frame(n);
        input.voice = Some(command);
        placements(std::slice::from_ref(&app.update(&input)))
    };
    app.update(&frame(0));
    let ahead = app.placement().unwrap();
    let bigger = say(&mut app, 1, VoiceCommand::Bigger);
    assert_eq!(
        bigger,
        [(0, PlacementCause::Voice, ahead.scaled(VOICE_SCALE_STEP))]
    );
    let smaller = say(&mut app, 2, VoiceCommand::Smaller);
    assert_eq!(smaller.len(), 1);
    assert_eq!(smaller[0].1, PlacementCause::Voice);
    assert!((smaller[0].2.scale - 1.0).abs() < 1e-6, "{smaller:?}");
    assert_eq!(
        smaller[0].2.pose, ahead.pose,
        "scaling leaves it where it is"
    );
    for n in 3..20 {
        say(&mut app, n, VoiceCommand::Bigger);
    }
    assert_eq!(app.placement().unwrap().scale, MAX_SCALE);
    for n in 20..40 {
        say(&mut app, n, VoiceCommand::Smaller);
    }
    assert_eq!(app.placement().unwrap().scale, MIN_SCALE);
    assert!(
        PlacementCause::Voice.is_manipulation(),
        "kept for the next run"
    );
}

#[test]
fn reset_said_puts_a_moved_and_scaled_hologram_back_as_a_first_run_would() {
    let mut app = app();
    let kept = Placement::at(Pose::new(Vec3::new(0.5, 0.9, -2.0), Quat::IDENTITY)).scaled(2.0);
    run(&mut app, 2, |_, input| input.kept = Kept::Located(kept));
    assert_eq!(app.placement(), Some(kept));
    let mut input = frame(2);
    input.voice = Some(VoiceCommand::Reset);
    input.kept = Kept::Located(kept);
    let output = app.update(&input);
    assert_eq!(
        placements(std::slice::from_ref(&output)),
        [(
            0,
            PlacementCause::Voice,
            Placement::at(placement::place_hologram(&Pose::new(EYE, Quat::IDENTITY)))
        )]
    );
    assert_eq!(reseed_count(std::slice::from_ref(&output)), 0);
    let later = app.update(&frame(3));
    assert!(later.events.is_empty(), "placed once: {:?}", later.events);
}

#[test]
fn a_tap_on_a_scaled_hologram_presses_a_real_centimetre() {
    let mut app = app();
    run(&mut app, 1, |_, _| {});
    app.submit(Command::Scale {
        cause: PlacementCause::TwoHand,
        factor: 2.0,
    });
    // On the doubled hologram, 0.2 m right of centre is its x = 0.1 at 1×,
    // and the land's zero twice the base's depth above the pose.
    let over = AHEAD + Vec3::new(0.2, 2.0 * placement::BASE_DEPTH_M, 0.05);
    let outputs = run(&mut app, 12, |frame, input| {
        let height = match frame {
            0..4 => 0.05,
            4 => 0.0,
            _ => -0.015,
        };
        hand_at(
            input,
            Hand::Right,
            over + Vec3::Y * height,
            0.05,
            Vec3::new(3.0, 1.2, 0.0),
        );
    });
    assert_eq!(reseed_count(&outputs), 1);
}

#[test]
fn taller_draws_the_land_taller_and_undo_takes_it_back_leaving_the_heights_alone() {
    let mut app = app();
    for index in 0..60 {
        app.update(&frame(index));
    }
    let placed = app.placement().unwrap();
    let heights = app.heightmap().clone();
    let (_, high) = heights.min_max();
    app.submit(Command::Exaggerate { exaggeration: 2.0 });
    let output = app.update(&frame(60));
    assert_eq!(output.exaggeration, 2.0);
    assert!(
        output
            .events
            .contains(&AppEvent::Exaggerated { exaggeration: 2.0 })
    );
    assert_eq!(output.model, Some(placed.model_matrix(2.0)));
    // The bounds reach the land as drawn; the heights are as they were
    // (growth goes on, so compare the frame's own heights).
    let (_, now_high) = app.heightmap().min_max();
    assert!(now_high >= high);
    let top = placement::land_y_m(now_high * 2.0);
    assert!(
        (app.bounds().max.y - top).abs() < 1e-6,
        "{:?}",
        app.bounds()
    );
    app.submit(Command::Undo);
    let output = app.update(&frame(61));
    assert_eq!(output.exaggeration, 1.0);
    assert_eq!(output.model, Some(placed.model_matrix(1.0)));
    assert!(output.events.contains(&AppEvent::Undid {
        undone: Some(crate::app::world::undo::Undone::Exaggeration)
    }));
}
