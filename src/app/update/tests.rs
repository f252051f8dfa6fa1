//! Unit tests of the app's frame loop rules: placement, reseed causes, hit rule, growth; manipulations are in `tests_manipulation.rs`.
use glam::{Quat, Vec3};

use super::*;
use crate::app::frame::{EyeView, Fov, HandInput, Kept};
use crate::app::voice::VoiceCommand;
use crate::app::world::command::ReseedCause;
use crate::app::world::growth::MAX_ITERATIONS_PER_FRAME;
use crate::app::world::placement::HOLOGRAM_SIZE_M;
use crate::input::Hand;
use crate::input::hand::synthetic::hand_with_gap;
use crate::terrain::rng::mix;
use crate::terrain::{Generator, GeneratorConfig};

const SIDE: usize = 17;
const SEED: u64 = 7;
pub(crate) const EYE: Vec3 = Vec3::new(0.0, 1.6, 0.0);
/// Where the hologram lands for a level head at [`EYE`] looking down -Z.
pub(crate) const CENTRE: Vec3 = Vec3::new(0.0, 1.3, -1.0);

pub(crate) fn app() -> App {
    App::new(AppConfig::hololens_demo(SIDE, SIDE, SEED)).unwrap()
}

fn still_view() -> EyeView {
    EyeView {
        pose: Pose::IDENTITY,
        fov: Fov {
            angle_left: -0.8,
            angle_right: 0.8,
            angle_up: 0.8,
            angle_down: -0.8,
        },
    }
}

/// A frame at `frame / rate` seconds with a level head at [`EYE`] looking down -Z
/// and both hands open, untracked controllers.
pub(crate) fn frame_at(frame: i64, rate: i64) -> FrameInput {
    FrameInput {
        display_time_ns: (frame * 1_000_000_000 + rate - 1) / rate,
        head: Some(Pose::new(EYE, Quat::IDENTITY)),
        hands: [HandInput::default(); 2],
        views: [still_view(); 2],
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

/// A right hand at `tip` with the given thumb–index gap, aiming at `aim_target`.
pub(crate) fn right_hand(input: &mut FrameInput, tip: Vec3, gap: f32, aim_target: Vec3) {
    tracked_hand(input, Hand::Right, tip, gap, aim_target);
}

/// `hand` at `tip` with the given thumb–index gap, aiming at `aim_target`.
fn tracked_hand(input: &mut FrameInput, hand: Hand, tip: Vec3, gap: f32, aim_target: Vec3) {
    input.hands[hand.index()] = HandInput {
        joints: Some(hand_with_gap(tip, gap)),
        aim: Pose::looking_at(tip, aim_target),
        grip: None,
        select: Some(false),
        squeeze: Some(false),
        select_is_air_tap: false,
        menu: None,
    };
}

fn reseeds(output: &FrameOutput) -> Vec<ReseedCause> {
    output
        .events
        .iter()
        .filter_map(|event| match event {
            AppEvent::Reseeded { cause, .. } => Some(*cause),
            _ => None,
        })
        .collect()
}

/// The hands named by the reseeds of `output` (`None` for a voice command).
fn reseed_hands(output: &FrameOutput) -> Vec<Option<Hand>> {
    output
        .events
        .iter()
        .filter_map(|event| match event {
            AppEvent::Reseeded { hand, .. } => Some(*hand),
            _ => None,
        })
        .collect()
}

/// Runs frames 0.. at 60 Hz, letting `shape` edit each input; the outputs.
pub(crate) fn run(
    app: &mut App,
    frames: i64,
    mut shape: impl FnMut(i64, &mut FrameInput),
) -> Vec<FrameOutput> {
    (0..frames)
        .map(|frame| {
            let mut input = frame_at(frame, 60);
            shape(frame, &mut input);
            app.update(&input)
        })
        .collect()
}

/// The frame an air-tap's pinch closes on...
const PINCH: usize = 5;
/// ...and the frame it opens on again, 4 frames (67 ms) later: a tap, which
/// reseeds on its release.
const RELEASE: usize = 9;

/// An air-tap's pinch: open, closed for frames [`PINCH`]..[`RELEASE`], open.
fn pinch_gap(frame: i64) -> f32 {
    if (PINCH as i64..RELEASE as i64).contains(&frame) {
        0.0
    } else {
        0.05
    }
}

const HAND: Vec3 = Vec3::new(0.2, 1.2, -0.4);
const AWAY: Vec3 = Vec3::new(3.0, 1.2, -0.4);

#[test]
fn nothing_is_placed_or_grown_until_the_head_is_located() {
    let mut app = app();
    let outputs = run(&mut app, 10, |_, input| input.head = None);
    assert!(
        outputs
            .iter()
            .all(|out| out.model.is_none() && out.events.is_empty())
    );
    assert_eq!(app.iterations_done(), 0);
}

#[test]
fn the_first_located_head_places_the_hologram_once_and_it_stays_pinned() {
    let mut app = app();
    let outputs = run(&mut app, 6, |frame, input| {
        if frame < 2 {
            input.head = None;
        } else {
            let moved = EYE + Vec3::X * frame as f32;
            input.head = Some(Pose::new(moved, Quat::from_rotation_y(frame as f32)));
        }
    });
    let placed: Vec<Pose> = outputs
        .iter()
        .flat_map(|out| &out.events)
        .filter_map(|event| match event {
            AppEvent::Placed { placement, .. } => Some(placement.pose),
            _ => None,
        })
        .collect();
    assert_eq!(placed.len(), 1);
    let expected =
        placement::place_hologram(&Pose::new(EYE + Vec3::X * 2.0, Quat::from_rotation_y(2.0)));
    assert_eq!(app.hologram_pose(), Some(expected));
    assert_eq!(
        outputs[5].model,
        Some(Placement::at(expected).model_matrix(1.0))
    );
}

#[test]
fn an_air_tap_aimed_at_the_hologram_reseeds_on_its_release() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        input.head = Some(Pose::looking_at(EYE, Vec3::new(0.0, 3.0, -1.0)).unwrap());
        right_hand(input, HAND, pinch_gap(frame), CENTRE);
    });
    assert_eq!(reseeds(&outputs[RELEASE]), vec![ReseedCause::AirTap]);
    assert_eq!(
        outputs.iter().map(|out| reseeds(out).len()).sum::<usize>(),
        1
    );
}

#[test]
fn an_air_tap_aimed_away_while_looking_away_does_nothing() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        input.head = Some(Pose::looking_at(EYE, Vec3::new(0.0, 3.0, -1.0)).unwrap());
        right_hand(input, HAND, pinch_gap(frame), AWAY);
    });
    assert!(outputs.iter().all(|out| reseeds(out).is_empty()));
    assert_eq!(app.seed(), SEED);
}

#[test]
fn an_air_tap_aimed_away_counts_when_the_gaze_hits_the_hologram() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        input.head = Some(Pose::looking_at(EYE, CENTRE).unwrap());
        right_hand(input, HAND, pinch_gap(frame), AWAY);
    });
    assert_eq!(reseeds(&outputs[RELEASE]), vec![ReseedCause::AirTap]);
}

#[test]
fn an_air_tap_with_a_nan_aim_does_nothing() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        input.head = Some(Pose::looking_at(EYE, Vec3::new(0.0, 3.0, -1.0)).unwrap());
        right_hand(input, HAND, pinch_gap(frame), CENTRE);
        if let Some(aim) = input.hands[Hand::Right.index()].aim.as_mut() {
            aim.orientation.x = f32::NAN;
        }
    });
    assert!(outputs.iter().all(|out| reseeds(out).is_empty()));
}

#[test]
fn a_fingertip_pushed_into_the_surface_taps() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        // Hover 5 cm above the (barely grown) surface, touch it, push 3 cm
        // in; the land's zero is the base's depth above the hologram's pose.
        let height = match frame {
            0..4 => 0.05,
            4 => 0.0,
            _ => -0.03,
        } + placement::BASE_DEPTH_M;
        right_hand(input, CENTRE + Vec3::new(0.1, height, 0.05), 0.05, AWAY);
    });
    let fired: Vec<usize> = (0..outputs.len())
        .filter(|&i| !reseeds(&outputs[i]).is_empty())
        .collect();
    assert_eq!(fired, vec![5]);
    assert_eq!(reseeds(&outputs[5]), vec![ReseedCause::Tap]);
}

/// A hand_interaction hand (HoloLens 2): the runtime's select is the
/// air-tap, pressed for frames [`PINCH`]..[`RELEASE`] while the joints pinch too.
fn runtime_air_tap(frame: i64, input: &mut FrameInput, aim_target: Vec3) {
    input.head = Some(Pose::looking_at(EYE, Vec3::new(0.0, 3.0, -1.0)).unwrap());
    right_hand(input, HAND, pinch_gap(frame), aim_target);
    let hand = &mut input.hands[Hand::Right.index()];
    hand.select = Some((PINCH as i64..RELEASE as i64).contains(&frame));
    hand.select_is_air_tap = true;
}

#[test]
fn a_runtime_air_tap_aimed_at_the_hologram_reseeds_once_as_an_air_tap() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        runtime_air_tap(frame, input, CENTRE)
    });
    let all: Vec<ReseedCause> = outputs.iter().flat_map(reseeds).collect();
    assert_eq!(
        all,
        vec![ReseedCause::AirTap],
        "the joints' pinch must not count again"
    );
    assert_eq!(reseeds(&outputs[RELEASE]), vec![ReseedCause::AirTap]);
}

#[test]
fn a_pinch_held_past_the_tap_limit_never_reseeds() {
    let mut app = app();
    let outputs = run(&mut app, 60, |frame, input| {
        input.head = Some(Pose::looking_at(EYE, Vec3::new(0.0, 3.0, -1.0)).unwrap());
        // Closed from frame 5 to 40: 0.58 s, past 0.35 s.
        let gap = if (5..40).contains(&frame) { 0.0 } else { 0.05 };
        right_hand(input, HAND, gap, CENTRE);
    });
    assert!(outputs.iter().all(|out| reseeds(out).is_empty()));
}

#[test]
fn a_runtime_air_tap_aimed_away_does_nothing() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        runtime_air_tap(frame, input, AWAY)
    });
    assert!(outputs.iter().all(|out| reseeds(out).is_empty()));
}

#[test]
fn a_select_click_reseeds_once_on_its_release() {
    let mut app = app();
    let outputs = run(&mut app, 10, |frame, input| {
        input.hands[Hand::Left.index()].select = Some((3..6).contains(&frame));
    });
    assert_eq!(reseeds(&outputs[6]), vec![ReseedCause::Select]);
    assert_eq!(
        outputs.iter().map(|out| reseeds(out).len()).sum::<usize>(),
        1
    );
}

/// The events that pressed a button in `outputs`: (label, how).
fn ui_presses(outputs: &[FrameOutput]) -> Vec<(&'static str, controls::PressedBy)> {
    outputs
        .iter()
        .flat_map(|out| &out.events)
        .filter_map(|event| match event {
            AppEvent::Pressed(press) => Some((press.label, press.how)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_controller_with_no_hand_joints_opens_the_menu_and_presses_on_its_ray_without_reseeding() {
    let mut app = app();
    let aim = Pose::looking_at(Vec3::new(0.2, 1.3, -0.3), Vec3::new(0.2, 1.2, -1.0));
    let controller = |frame: i64, input: &mut FrameInput| {
        input.hands[Hand::Right.index()] = HandInput {
            aim,
            select: Some((20..23).contains(&frame)),
            menu: Some((5..8).contains(&frame)),
            ..HandInput::default()
        };
    };
    let outputs = run(&mut app, 30, controller);
    assert_eq!(
        ui_presses(&outputs),
        vec![("New terrain", controls::PressedBy::Ray)],
        "the menu opens with its top button on the ray, and select presses it"
    );
    let reseeds: Vec<_> = outputs.iter().flat_map(reseeds).collect();
    assert_eq!(
        reseeds,
        vec![ReseedCause::Menu],
        "one reseed, the button's, not the select's own"
    );
}

#[test]
fn a_select_held_past_the_tap_limit_never_reseeds() {
    let mut app = app();
    let outputs = run(&mut app, 60, |frame, input| {
        input.hands[Hand::Left.index()].select = Some((3..40).contains(&frame));
    });
    assert!(outputs.iter().all(|out| reseeds(out).is_empty()));
}

#[test]
fn a_select_reseed_names_the_hand_that_pressed() {
    let mut app = app();
    let outputs = run(&mut app, 8, |frame, input| {
        input.hands[Hand::Left.index()].select = Some((3..5).contains(&frame));
    });
    assert_eq!(reseed_hands(&outputs[5]), vec![Some(Hand::Left)]);
}

#[test]
fn a_gaze_aimed_air_tap_names_the_pinching_hand() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        input.head = Some(Pose::looking_at(EYE, CENTRE).unwrap());
        tracked_hand(input, Hand::Left, HAND, pinch_gap(frame), AWAY);
    });
    assert_eq!(reseeds(&outputs[RELEASE]), vec![ReseedCause::AirTap]);
    assert_eq!(reseed_hands(&outputs[RELEASE]), vec![Some(Hand::Left)]);
}

#[test]
fn a_tap_names_the_tapping_hand() {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        let height = if frame < 4 { 0.05 } else { -0.03 };
        tracked_hand(
            input,
            Hand::Left,
            CENTRE + Vec3::new(-0.1, height, 0.05),
            0.05,
            AWAY,
        );
    });
    let hands: Vec<Option<Hand>> = outputs.iter().flat_map(reseed_hands).collect();
    assert_eq!(hands, vec![Some(Hand::Left)]);
    assert_eq!(
        outputs.iter().flat_map(reseeds).collect::<Vec<_>>(),
        vec![ReseedCause::Tap]
    );
}

#[test]
fn when_both_hands_select_on_one_frame_the_left_one_is_named() {
    let mut app = app();
    let outputs = run(&mut app, 6, |frame, input| {
        for hand in Hand::BOTH {
            input.hands[hand.index()].select = Some(frame == 3);
        }
    });
    assert_eq!(reseed_hands(&outputs[4]), vec![Some(Hand::Left)]);
}

#[test]
fn select_before_placement_does_not_reseed() {
    let mut app = app();
    let outputs = run(&mut app, 4, |frame, input| {
        input.head = None;
        input.hands[Hand::Left.index()].select = Some(frame >= 2);
    });
    assert!(outputs.iter().all(|out| reseeds(out).is_empty()));
}

#[test]
fn a_reseed_flattens_the_map_and_restarts_growth() {
    let mut app = app();
    run(&mut app, 30, |_, _| {});
    assert_eq!(app.iterations_done(), 29);
    // A click: up on frame 29, pressed on frame 30, released on frame 31.
    for (frame, pressed) in [(29, false), (30, true)] {
        let mut input = frame_at(frame, 60);
        input.hands[0].select = Some(pressed);
        app.update(&input);
    }
    let mut release = frame_at(31, 60);
    release.hands[0].select = Some(false);
    let output = app.update(&release);
    assert!(output.heights_changed);
    assert_eq!(output.iterations_done, 0);
    assert_eq!(app.heightmap().min_max(), (0.0, 0.0));
    app.update(&frame_at(34, 60));
    assert_eq!(app.iterations_done(), 3);
}

#[test]
fn reseeds_follow_a_reproducible_seed_sequence() {
    let press_every_ten = |frame: i64, input: &mut FrameInput| {
        input.hands[1].select = Some(frame % 10 == 5);
    };
    let seeds = |app: &mut App| -> Vec<u64> {
        run(app, 40, press_every_ten)
            .iter()
            .flat_map(|out| out.events.clone())
            .filter_map(|event| match event {
                AppEvent::Reseeded { seed, .. } => Some(seed),
                _ => None,
            })
            .collect()
    };
    let first = seeds(&mut app());
    assert_eq!(first.len(), 4);
    assert_eq!(first[0], mix(SEED, 1));
    assert_eq!(first[1], mix(first[0], 2));
    assert_eq!(first, seeds(&mut app()));
}

#[test]
fn growth_at_60_and_90_hz_matches_at_the_same_times() {
    let mut at_60 = app();
    let mut at_90 = app();
    for third_of_a_second in 0..12 {
        for frame in 20 * third_of_a_second..20 * (third_of_a_second + 1) {
            at_60.update(&frame_at(frame, 60));
        }
        for frame in 30 * third_of_a_second..30 * (third_of_a_second + 1) {
            at_90.update(&frame_at(frame, 90));
        }
        assert_eq!(at_60.iterations_done(), at_90.iterations_done());
        assert_eq!(at_60.heightmap(), at_90.heightmap());
    }
    // The last 90 Hz frame, 359, shows at 3.988 s: 239 iterations due.
    assert_eq!(at_90.iterations_done(), 239);
}

#[test]
fn bounds_grow_with_the_relief() {
    let mut app = app();
    run(&mut app, 120, |_, _| {});
    let (_, high) = app.heightmap().min_max();
    assert!(high > 0.0);
    assert!((app.bounds().max.y - (high * HOLOGRAM_SIZE_M + placement::BASE_DEPTH_M)).abs() < 1e-6);
}

#[test]
fn a_growing_frame_allocates_nothing() {
    let mut app = app();
    // Warm up: placement (an event) and the first growth fill the buffers.
    for frame in 0..3 {
        app.update(&frame_at(frame, 60));
    }
    let mut grew = false;
    let allocations = crate::render::alloc_count::allocations_during(|| {
        for frame in 3..30 {
            grew |= app.update(&frame_at(frame, 60)).heights_changed;
        }
    });
    assert!(grew, "the frames must do growth work");
    assert_eq!(allocations, 0);
}

/// A frame `frame_at(frame, 60)` shown `stall_s` seconds late, as after the
/// runtime stopped asking for frames for that long.
fn frame_after_stall(frame: i64, stall_s: i64) -> FrameInput {
    let mut input = frame_at(frame, 60);
    input.display_time_ns += stall_s * 1_000_000_000;
    input
}

#[test]
fn after_a_stall_growth_catches_up_a_budget_at_a_time_to_the_same_terrain() {
    let mut app = app();
    run(&mut app, 60, |_, _| {});
    assert_eq!(app.iterations_done(), 59);
    // 10 s without frames: all 500 iterations are due at once.
    let applied: Vec<usize> = (60..300)
        .map(|frame| app.update(&frame_after_stall(frame, 10)).iterations_applied)
        .collect();
    assert!(applied.iter().all(|&n| n <= MAX_ITERATIONS_PER_FRAME));
    assert_eq!(applied[0], MAX_ITERATIONS_PER_FRAME);
    assert_eq!(app.iterations_done(), app.iterations_total());
    // 441 iterations behind, four a frame: 110 full frames and one more.
    let catching_up = applied.iter().take_while(|&&n| n > 0).count();
    assert_eq!(catching_up, 111);
    let mut straight = Generator::new(GeneratorConfig::hololens_demo(SIDE, SIDE), SEED).unwrap();
    straight.step(straight.iterations_total());
    assert_eq!(app.heightmap(), straight.heightmap());
}

#[test]
fn an_unbudgeted_app_catches_up_in_one_frame() {
    let mut app = App::new(AppConfig {
        max_iterations_per_frame: usize::MAX,
        ..AppConfig::hololens_demo(SIDE, SIDE, SEED)
    })
    .unwrap();
    run(&mut app, 60, |_, _| {});
    let output = app.update(&frame_after_stall(60, 10));
    assert_eq!(output.iterations_applied, 500 - 59);
}

#[test]
fn a_zero_frame_budget_is_refused() {
    let config = AppConfig {
        max_iterations_per_frame: 0,
        ..AppConfig::hololens_demo(SIDE, SIDE, SEED)
    };
    assert!(matches!(App::new(config), Err(AppError::ZeroFrameBudget)));
}

#[test]
fn time_up_to_hidden_frames_does_not_grow_the_terrain() {
    let mut app = app();
    run(&mut app, 60, |_, _| {});
    assert_eq!(app.iterations_done(), 59);
    // The headset comes off at 1 s; 10 s later the session has frames again
    // but is not yet visible for half a second.
    for frame in 60..90 {
        let mut hidden = frame_after_stall(frame, 10);
        hidden.visible = false;
        assert_eq!(app.update(&hidden).iterations_applied, 0);
    }
    // Visible again: growth goes on from where the user left it, one a frame.
    let applied: Vec<usize> = (90..96)
        .map(|frame| app.update(&frame_after_stall(frame, 10)).iterations_applied)
        .collect();
    assert_eq!(applied, vec![1; 6]);
    assert_eq!(app.iterations_done(), 65);
}

/// The pinned hologram moved as a drifting anchor would be: 5 cm to the
/// right and turned 10° about the vertical.
fn drifted(pinned: Pose) -> Pose {
    Pose::new(
        pinned.position + Vec3::new(0.05, 0.0, 0.0),
        Quat::from_rotation_y(10f32.to_radians()) * pinned.orientation,
    )
}

/// Reseeds from a right-hand air-tap aimed at `target` while the gaze is
/// elsewhere, with the hologram located at `located` from frame 1.
fn air_tap_reseeds(target: Vec3, located: Option<Pose>) -> usize {
    let mut app = app();
    let outputs = run(&mut app, 12, |frame, input| {
        input.head = Some(Pose::looking_at(EYE, Vec3::new(0.0, 3.0, -1.0)).unwrap());
        // Aimed from above so the ray meets the thin terrain near the target.
        let tip = target + Vec3::new(0.0, 0.3, 0.2);
        right_hand(input, tip, pinch_gap(frame), target);
        input.hologram_located = located.filter(|_| frame > 0);
    });
    outputs.iter().map(|out| reseeds(out).len()).sum()
}

/// The world point at (x, 0, z) of the hologram at `pose`.
fn on_hologram(pose: Pose, x: f32, z: f32) -> Vec3 {
    pose.transform_point(Vec3::new(x, 0.0, z))
}

#[test]
fn an_air_tap_hits_the_hologram_where_the_anchor_draws_it() {
    let pinned = placement::place_hologram(&Pose::new(EYE, Quat::IDENTITY));
    let drawn = drifted(pinned);
    // Near the right edge as drawn: off the pinned footprint.
    let seen = on_hologram(drawn, 0.24, 0.0);
    // Near the left edge as pinned: off the drawn footprint.
    let remembered = on_hologram(pinned, -0.24, 0.0);
    assert_eq!(air_tap_reseeds(seen, Some(drawn)), 1);
    assert_eq!(air_tap_reseeds(remembered, Some(drawn)), 0);
    // Without a located pose the pinned one counts, so the same aims swap.
    assert_eq!(air_tap_reseeds(seen, None), 0);
    assert_eq!(air_tap_reseeds(remembered, None), 1);
}

#[test]
fn a_tap_hits_the_surface_where_the_anchor_draws_it() {
    let pinned = placement::place_hologram(&Pose::new(EYE, Quat::IDENTITY));
    let drawn = drifted(pinned);
    let taps = |point: Vec3, located: Option<Pose>| -> usize {
        let mut app = app();
        let outputs = run(&mut app, 12, |frame, input| {
            // Hover 5 cm above the (barely grown) surface, touch it, push 3 cm in.
            let height = match frame {
                0..4 => 0.05,
                4 => 0.0,
                _ => -0.03,
            };
            right_hand(input, point + Vec3::Y * height, 0.05, AWAY);
            input.hologram_located = located;
        });
        outputs.iter().map(|out| reseeds(out).len()).sum()
    };
    let seen = on_hologram(drawn, 0.24, 0.0);
    let remembered = on_hologram(pinned, -0.24, 0.0);
    assert_eq!(taps(seen, Some(drawn)), 1);
    assert_eq!(taps(remembered, Some(drawn)), 0);
    assert_eq!(taps(seen, None), 0);
    assert_eq!(taps(remembered, None), 1);
}

#[test]
fn the_model_matrix_follows_the_located_pose() {
    let mut app = app();
    let pinned = placement::place_hologram(&Pose::new(EYE, Quat::IDENTITY));
    let drawn = drifted(pinned);
    app.update(&frame_at(0, 60));
    let mut input = frame_at(1, 60);
    input.hologram_located = Some(drawn);
    assert_eq!(
        app.update(&input).model,
        Some(Placement::at(drawn).model_matrix(1.0))
    );
    // A located pose with NaNs in it is ignored.
    input.hologram_located = Some(Pose::new(Vec3::NAN, Quat::IDENTITY));
    assert_eq!(
        app.update(&input).model,
        Some(Placement::at(pinned).model_matrix(1.0))
    );
}

#[test]
fn saying_new_terrain_reseeds_with_cause_voice_and_no_hand() {
    let mut app = app();
    let first = app.seed();
    let outputs = run(&mut app, 4, |frame, input| {
        if frame == 2 {
            input.voice = Some(VoiceCommand::NewTerrain);
        }
    });
    assert_eq!(reseeds(&outputs[2]), vec![ReseedCause::Voice]);
    assert_eq!(reseed_hands(&outputs[2]), vec![None]);
    assert!(outputs[2].heights_changed);
    assert_ne!(app.seed(), first);
    assert!(
        [0, 1, 3]
            .iter()
            .all(|&frame| reseeds(&outputs[frame]).is_empty()),
        "only the frame that heard it reseeds"
    );
}

#[test]
fn a_voice_command_before_placement_does_not_reseed() {
    let mut app = app();
    let outputs = run(&mut app, 3, |frame, input| {
        input.head = None;
        if frame == 1 {
            input.voice = Some(VoiceCommand::NewTerrain);
        }
    });
    // Heard (and so toasted), but nothing else happens.
    let events: Vec<&AppEvent> = outputs.iter().flat_map(|out| &out.events).collect();
    assert_eq!(events, [&AppEvent::Heard(VoiceCommand::NewTerrain)]);
    assert!(outputs[1].commands.is_empty());
}

#[test]
fn a_gesture_and_a_voice_command_on_one_frame_reseed_once_by_the_gesture() {
    let mut app = app();
    let outputs = run(&mut app, 6, |frame, input| {
        // A click released on frame 4, when the voice command is heard too.
        input.hands[Hand::Right.index()].select = Some(frame == 3);
        if frame == 4 {
            input.voice = Some(VoiceCommand::NewTerrain);
        }
    });
    assert_eq!(reseeds(&outputs[4]), vec![ReseedCause::Select]);
}

/// The rings of `output`'s controls layer, with the normal each lies across.
fn rings(output: &FrameOutput) -> Vec<(crate::render::scene::UiQuad, Vec3)> {
    output
        .ui
        .quads
        .iter()
        .filter(|quad| quad.fill == crate::render::scene::UiFill::Ring)
        .map(|quad| (*quad, quad.rect.right.cross(quad.rect.up).normalize()))
        .collect()
}

#[test]
fn a_ray_on_the_land_draws_a_cursor_lying_on_it_targeted_and_the_idle_gaze_one_differs() {
    let mut app = app();
    run(&mut app, 3, |_, _| {});
    let placement = app.placement().unwrap();
    // Nothing points at the hologram yet: the level gaze passes over it.
    assert!(rings(&app.update(&frame_at(3, 60))).is_empty());
    let (heights, exaggeration) = (app.heightmap().clone(), app.world().exaggeration());
    let land = crate::app::world::placement::Land::new(&heights, exaggeration);
    let target = placement.to_room(crate::app::world::placement::surface_point(land, 0.6, 0.5));
    let above = Vec3::new(0.2, 1.5, -0.5);
    let mut input = frame_at(4, 60);
    right_hand(&mut input, above, 0.05, target);
    let output = app.update(&input);
    let [(ring, normal)] = rings(&output)[..] else {
        panic!("one cursor: {:?}", output.ui.quads);
    };
    // On the land (2 mm off it), lying across its normal: still flat
    // this early, so straight up, not turned to face the hand.
    let local = placement.to_local(ring.rect.centre);
    let probe = crate::app::world::placement::probe_surface(local, land).unwrap();
    assert!(
        (probe.height_above_surface - 0.002).abs() < 1e-3,
        "{probe:?}"
    );
    assert!(normal.abs().abs_diff_eq(Vec3::Y, 1e-3), "{normal}");
    // Targeted: a dot inside it, and a ray from the hand.
    let dots = output
        .ui
        .quads
        .iter()
        .filter(|quad| (quad.rect.centre - ring.rect.centre).length() < 0.002)
        .count();
    assert_eq!(dots, 2, "the ring and its dot");
    // The head looking down at the land with no hand: the gaze cursor,
    // idle: smaller, dimmer, no dot.
    let mut input = frame_at(5, 60);
    input.head = Pose::looking_at(EYE, target);
    let output = app.update(&input);
    let [(idle, idle_normal)] = rings(&output)[..] else {
        panic!("one gaze cursor: {:?}", output.ui.quads);
    };
    // Across the land's normal (the land has begun to grow: near, not
    // exactly, up), not turned to the eyes 17° above the land.
    assert!(idle_normal.y.abs() > 0.999, "{idle_normal}");
    assert!((ring.rect.centre - target).length() < 0.005);
    assert_eq!(output.ui.quads.len(), 1, "no dot, no ray");
    let across = |quad: &crate::render::scene::UiQuad| quad.rect.right.length();
    let seen = |quad: &crate::render::scene::UiQuad, from: Vec3| {
        across(quad) / (quad.rect.centre - from).length()
    };
    assert!(seen(&idle, EYE) < seen(&ring, EYE) * 0.8);
    assert!(idle.color[0] < ring.color[0] && idle.color[3] < ring.color[3]);
    // A hand raised with its ray off the hologram: its pinch would go
    // where the gaze is, so the gaze cursor is targeted.
    let mut input = frame_at(6, 60);
    input.head = Pose::looking_at(EYE, target);
    right_hand(&mut input, HAND, 0.05, AWAY);
    let output = app.update(&input);
    let [(gaze, _)] = rings(&output)[..] else {
        panic!("one gaze cursor: {:?}", output.ui.quads);
    };
    assert_eq!(gaze.color, ring.color);
    assert!((gaze.rect.centre - idle.rect.centre).length() < 0.01);
}
