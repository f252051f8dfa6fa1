//! Unit tests of sculpting, undo and redo: traces and lifts made by a pinch on the surface, applied as commands, eased in, ignored with a reason, taken back and done again exactly.
use glam::{Quat, Vec3};

use super::tests::{CENTRE, EYE, app, frame_at, right_hand, run};
use super::*;
use crate::app::frame::HandInput;
use crate::app::world::command::ReseedCause;
use crate::app::world::placement::HOLOGRAM_SIZE_M;
use crate::app::world::undo::{UNDO_DEPTH, Undone};
use crate::input::Hand;
use crate::terrain::sculpt::{EDIT_RADIUS, Ignored, TRACE_STEP};

/// Frames of a 60 Hz run in which an edit submitted on frame 1 has
/// certainly eased in (half a second, after a few frames of raster).
const EASED: i64 = 60;

fn grown_app(frames: i64) -> App {
    let mut app = app();
    run(&mut app, frames, |_, _| {});
    app
}

fn cells(app: &App) -> Vec<u32> {
    app.heightmap()
        .cells()
        .iter()
        .map(|c| c.to_bits())
        .collect()
}

fn edited(outputs: &[FrameOutput]) -> Vec<(Undone, Option<Ignored>)> {
    outputs
        .iter()
        .flat_map(|out| &out.events)
        .filter_map(|event| match event {
            AppEvent::Edited { kind, ignored, .. } => Some((*kind, *ignored)),
            _ => None,
        })
        .collect()
}

/// Runs `app` on from frame `from` for `frames` frames with no hands.
fn run_on(app: &mut App, from: i64, frames: i64) -> Vec<FrameOutput> {
    (from..from + frames)
        .map(|frame| app.update(&frame_at(frame, 60)))
        .collect()
}

#[test]
fn a_traced_fault_raises_one_side_lowers_the_other_and_nothing_beyond_its_reach() {
    // Grown to the end, so later frames change only the edit.
    let mut app = grown_app(700);
    let mut twin = grown_app(700);
    app.submit(Command::Trace {
        hand: Some(Hand::Right),
        points: vec![[0.1, 0.5], [0.9, 0.5]],
    });
    let outputs = run_on(&mut app, 700, EASED);
    run_on(&mut twin, 700, EASED);
    assert_eq!(edited(&outputs), vec![(Undone::Trace, None)]);
    let (edited, plain) = (app.heightmap(), twin.heightmap());
    let side = edited.width();
    let row = |v: f32| (v * (side - 1) as f32).round() as usize;
    let half = TRACE_STEP / 2.0;
    let far = edited.get(8, row(0.5) - 1) - plain.get(8, row(0.5) - 1);
    let near = edited.get(8, row(0.5) + 1) - plain.get(8, row(0.5) + 1);
    // One row from the line on a 17-sample map: s(1/2) = 11/16 of the way
    // up the fault's edge (two rows to either side), faded by
    // g(1/16) = (1 − (0.0625/0.1)²)².
    let expected = 0.6875 * half * (1.0 - 0.625f32.powi(2)).powi(2);
    assert!(
        (far - expected).abs() < 1e-6 && (near + expected).abs() < 1e-6,
        "{far} {near}, not ±{expected}"
    );
    for y in 0..side {
        let v = y as f32 / (side - 1) as f32;
        if (v - 0.5).abs() >= EDIT_RADIUS + 1e-6 {
            for x in 0..side {
                assert_eq!(
                    edited.get(x, y).to_bits(),
                    plain.get(x, y).to_bits(),
                    "({x}, {y})"
                );
            }
        }
    }
}

#[test]
fn undo_takes_an_edit_back_exactly() {
    let mut app = grown_app(700);
    let before = cells(&app);
    app.submit(Command::Lift {
        hand: None,
        at: [0.5, 0.5],
        height: 0.1,
    });
    run_on(&mut app, 700, EASED);
    let centre = app.heightmap().get(8, 8);
    assert_ne!(cells(&app), before);
    app.submit(Command::Undo);
    let outputs = run_on(&mut app, 700 + EASED, 1);
    assert!(outputs[0].heights_changed);
    assert_eq!(cells(&app), before);
    // The lift raised the peak by its height.
    let mut twin = grown_app(700);
    run_on(&mut twin, 700, EASED + 1);
    assert!((centre - twin.heightmap().get(8, 8) - 0.1).abs() < 1e-6);
}

#[test]
fn undo_takes_a_reseed_back_to_the_terrain_it_replaced_which_grows_on() {
    let mut app = grown_app(200);
    let (seed, iterations, heights) = (app.seed(), app.iterations_done(), cells(&app));
    app.submit(Command::Reseed {
        cause: ReseedCause::Voice,
        hand: None,
    });
    run_on(&mut app, 200, 30);
    assert_ne!(app.seed(), seed);
    app.submit(Command::Undo);
    let outputs = run_on(&mut app, 230, 1);
    assert_eq!(app.seed(), seed);
    assert!(app.iterations_done() >= iterations);
    // Grown on from where it stood, it ends as if never replaced.
    run_on(&mut app, 231, 700);
    let mut twin = grown_app(900);
    assert_eq!(app.iterations_done(), twin.iterations_done());
    assert_eq!(cells(&app), cells(&twin));
    run_on(&mut twin, 900, 1);
    assert_ne!(heights, cells(&app), "it kept growing after the undo");
    assert!(outputs[0].events.contains(&AppEvent::Undid {
        undone: Some(Undone::Reseed)
    }));
}

#[test]
fn undo_goes_back_at_least_sixteen_steps_and_then_says_nothing_is_left() {
    let mut app = grown_app(700);
    let before = cells(&app);
    for i in 0..UNDO_DEPTH {
        app.submit(Command::Lift {
            hand: None,
            at: [0.1 + 0.05 * i as f32, 0.5],
            height: 0.01,
        });
        run_on(&mut app, 700 + i as i64, 1);
    }
    let mut undone = Vec::new();
    for i in 0..=UNDO_DEPTH {
        app.submit(Command::Undo);
        let outputs = run_on(&mut app, 800 + i as i64, 1);
        undone.extend(outputs[0].events.iter().filter_map(|event| match event {
            AppEvent::Undid { undone } => Some(*undone),
            _ => None,
        }));
    }
    assert_eq!(cells(&app), before);
    assert_eq!(undone.len(), UNDO_DEPTH + 1);
    assert!(
        undone[..UNDO_DEPTH]
            .iter()
            .all(|u| *u == Some(Undone::Lift))
    );
    assert_eq!(undone[UNDO_DEPTH], None);
}

fn redone(outputs: &[FrameOutput]) -> Vec<Option<Undone>> {
    outputs
        .iter()
        .flat_map(|out| &out.events)
        .filter_map(|event| match event {
            AppEvent::Redid { redone } => Some(*redone),
            _ => None,
        })
        .collect()
}

#[test]
fn redo_gives_back_an_undone_edit_bit_for_bit_until_a_new_change() {
    let mut app = grown_app(700);
    let before = cells(&app);
    app.submit(Command::Lift {
        hand: None,
        at: [0.5, 0.5],
        height: 0.1,
    });
    run_on(&mut app, 700, EASED);
    let lifted = cells(&app);
    app.submit(Command::Undo);
    run_on(&mut app, 700 + EASED, 1);
    assert_eq!(cells(&app), before);
    app.submit(Command::Redo);
    let outputs = run_on(&mut app, 701 + EASED, 1);
    assert_eq!(cells(&app), lifted);
    assert_eq!(redone(&outputs), [Some(Undone::Lift)]);
    // Undo and redo again and again: the same two worlds.
    for round in 0..3 {
        app.submit(Command::Undo);
        run_on(&mut app, 800 + 2 * round, 1);
        assert_eq!(cells(&app), before);
        app.submit(Command::Redo);
        run_on(&mut app, 801 + 2 * round, 1);
        assert_eq!(cells(&app), lifted);
    }
    // A new change after an undo leaves nothing to redo.
    app.submit(Command::Undo);
    run_on(&mut app, 900, 1);
    app.submit(Command::Exaggerate { exaggeration: 2.0 });
    run_on(&mut app, 901, 1);
    app.submit(Command::Redo);
    let outputs = run_on(&mut app, 902, 1);
    assert_eq!(redone(&outputs), [None]);
    assert_eq!(cells(&app), before);
}

#[test]
fn redo_gives_back_an_undone_reseed_which_grows_on_as_if_never_undone() {
    let mut app = grown_app(200);
    app.submit(Command::Reseed {
        cause: ReseedCause::Voice,
        hand: None,
    });
    run_on(&mut app, 200, 30);
    let (seed, iterations) = (app.seed(), app.iterations_done());
    let mut twin = grown_app(200);
    twin.submit(Command::Reseed {
        cause: ReseedCause::Voice,
        hand: None,
    });
    run_on(&mut twin, 200, 30);
    app.submit(Command::Undo);
    run_on(&mut app, 230, 1);
    assert_ne!(app.seed(), seed);
    app.submit(Command::Redo);
    let outputs = run_on(&mut app, 231, 1);
    assert_eq!(redone(&outputs), [Some(Undone::Reseed)]);
    assert_eq!(app.seed(), seed);
    assert!(app.iterations_done() >= iterations);
    // Both grow to the end: the same terrain.
    run_on(&mut app, 232, 900);
    run_on(&mut twin, 230, 900);
    assert_eq!(app.iterations_done(), twin.iterations_done());
    assert_eq!(cells(&app), cells(&twin));
}

#[test]
fn redo_gives_back_weathering_and_exaggeration() {
    let mut app = grown_app(700);
    app.submit(Command::Weather);
    run_on(&mut app, 700, 120);
    app.submit(Command::Exaggerate { exaggeration: 3.0 });
    run_on(&mut app, 820, 1);
    let weathered = cells(&app);
    let iterations = app.iterations_done();
    for (frame, undone) in [(821, Undone::Exaggeration), (822, Undone::Weather)] {
        app.submit(Command::Undo);
        let outputs = run_on(&mut app, frame, 1);
        assert!(outputs[0].events.contains(&AppEvent::Undid {
            undone: Some(undone)
        }));
    }
    assert_eq!(app.world().exaggeration(), 1.0);
    app.submit(Command::Redo);
    let outputs = run_on(&mut app, 823, 1);
    assert_eq!(redone(&outputs), [Some(Undone::Weather)]);
    app.submit(Command::Redo);
    let outputs = run_on(&mut app, 824, 1);
    assert_eq!(redone(&outputs), [Some(Undone::Exaggeration)]);
    assert_eq!(app.world().exaggeration(), 3.0);
    // The weathering grew again to where it stood, then on.
    let mut twin = grown_app(700);
    twin.submit(Command::Weather);
    run_on(&mut twin, 700, 120);
    assert_eq!(twin.iterations_done(), iterations);
    assert_eq!(cells(&twin), weathered);
    assert!(app.iterations_done() >= iterations);
    let mut app_done = app;
    run_on(&mut app_done, 825, 3000);
    run_on(&mut twin, 820, 3000);
    assert_eq!(cells(&app_done), cells(&twin));
}

#[test]
fn an_edit_that_changes_nothing_is_ignored_with_its_reason() {
    let mut app = grown_app(700);
    let before = cells(&app);
    app.submit(Command::Trace {
        hand: Some(Hand::Left),
        points: vec![[0.5, 0.5], [1.5, 0.5]],
    });
    app.submit(Command::Trace {
        hand: Some(Hand::Left),
        points: vec![[0.5, 0.5], [0.5, 0.5]],
    });
    let outputs = run_on(&mut app, 700, EASED);
    assert_eq!(
        edited(&outputs),
        vec![
            (Undone::Trace, Some(Ignored::TooFewPoints)),
            (Undone::Trace, Some(Ignored::ZeroLength))
        ]
    );
    assert_eq!(cells(&app), before);
}

#[test]
fn edits_stay_on_top_of_later_growth_and_go_with_a_reseed() {
    // An edit made while the terrain still grows is not smoothed away: the
    // edited map minus the plain one is exactly the edit, at the end.
    let mut app = grown_app(50);
    let mut twin = grown_app(50);
    app.submit(Command::Lift {
        hand: None,
        at: [0.25, 0.75],
        height: 0.05,
    });
    run_on(&mut app, 50, 700);
    run_on(&mut twin, 50, 700);
    let change = crate::terrain::sculpt::edit_change(
        &crate::terrain::sculpt::Edit::Lift {
            at: [0.25, 0.75],
            height: 0.05,
        },
        app.heightmap().width(),
        app.heightmap().height(),
    );
    for ((edited, plain), change) in app
        .heightmap()
        .cells()
        .iter()
        .zip(twin.heightmap().cells())
        .zip(change.cells())
    {
        assert_eq!(edited.to_bits(), (plain + change).to_bits());
    }
    app.submit(Command::Reseed {
        cause: ReseedCause::Voice,
        hand: None,
    });
    run_on(&mut app, 750, 1);
    assert!(app.heightmap().cells().iter().all(|&h| h == 0.0) || app.iterations_done() > 0);
    assert!(
        app.heightmap().get(4, 12) < 0.05,
        "the lift went with the old terrain"
    );
}

/// Where on the hologram (placed at [`CENTRE`], level, facing -Z) the map's (u, v) is.
fn on_map(u: f32, v: f32) -> Vec3 {
    CENTRE
        + Vec3::new(
            (u - 0.5) * HOLOGRAM_SIZE_M,
            0.0,
            (v - 0.5) * HOLOGRAM_SIZE_M,
        )
}

#[test]
fn a_pinch_dragged_across_the_surface_traces_and_one_raised_lifts() {
    // Reaching over the table, so the aim comes down steeply onto the land.
    const HAND_AT: Vec3 = Vec3::new(0.0, 1.7, -0.85);
    // Trace: pinch on frame 5 aimed at (0.2, 0.5), drag the hand and the
    // aim across to (0.8, 0.5) by frame 35, let go on frame 40.
    let mut app = app();
    let outputs = run(&mut app, 60, |frame, input| {
        let t = ((frame - 5) as f32 / 30.0).clamp(0.0, 1.0);
        let gap = if (5..40).contains(&frame) { 0.0 } else { 0.05 };
        let hand = HAND_AT + Vec3::X * (0.2 * t);
        right_hand(input, hand, gap, on_map(0.2 + 0.6 * t, 0.5));
    });
    let traced: Vec<&Command> = outputs
        .iter()
        .flat_map(|out| &out.commands)
        .map(|applied| &applied.command)
        .filter(|command| matches!(command, Command::Trace { .. }))
        .collect();
    let [Command::Trace { points, hand }] = traced.as_slice() else {
        panic!("one trace, not {traced:?}");
    };
    assert_eq!(*hand, Some(Hand::Right));
    // The aim meets the growing relief, so the points wander a little in v.
    assert!(
        points.len() >= 2 && points.iter().all(|p| (p[1] - 0.5).abs() < 0.1),
        "{points:?}"
    );
    // Relief in front of a point moves the hit a little towards the hand.
    assert!(
        (points[0][0] - 0.2).abs() < 0.04 && (points[points.len() - 1][0] - 0.8).abs() < 0.04,
        "{points:?}"
    );
    assert!(outputs.iter().all(|out| reseeds_in(out) == 0));
    let marked = outputs[20].marks.clone();
    assert!(
        marked.stroke.len() >= 2 && marked.cursor.is_some(),
        "{marked:?}"
    );

    // Lift: pinch aimed at (0.5, 0.5), raise the hand 10 cm.
    let mut app = app_placed();
    let outputs = run(&mut app, 60, |frame, input| {
        let t = ((frame - 5) as f32 / 30.0).clamp(0.0, 1.0);
        let gap = if (5..40).contains(&frame) { 0.0 } else { 0.05 };
        right_hand(input, HAND_AT + Vec3::Y * (0.1 * t), gap, on_map(0.5, 0.5));
    });
    let lifted: Vec<&Command> = outputs
        .iter()
        .flat_map(|out| &out.commands)
        .map(|applied| &applied.command)
        .filter(|command| matches!(command, Command::Lift { .. }))
        .collect();
    let [Command::Lift { at, height, .. }] = lifted.as_slice() else {
        panic!("one lift, not {lifted:?}");
    };
    assert!(
        (at[0] - 0.5).abs() < 0.05 && (at[1] - 0.5).abs() < 0.05,
        "{at:?}"
    );
    assert!((height - 0.1 / HOLOGRAM_SIZE_M).abs() < 1e-4, "{height}");
    assert!(
        outputs[30].heights_changed,
        "the hill shows while the hand holds it"
    );
}

fn app_placed() -> App {
    let mut app = app();
    let mut input = frame_at(0, 60);
    input.head = Some(Pose::new(EYE, Quat::IDENTITY));
    app.update(&input);
    app
}

fn reseeds_in(output: &FrameOutput) -> usize {
    output
        .events
        .iter()
        .filter(|event| matches!(event, AppEvent::Reseeded { .. }))
        .count()
}

#[test]
fn a_controllers_select_held_and_swept_across_the_surface_traces() {
    const CONTROLLER_AT: Vec3 = Vec3::new(0.0, 1.45, -0.55);
    let mut app = app();
    let outputs = run(&mut app, 60, |frame, input| {
        let t = ((frame - 5) as f32 / 30.0).clamp(0.0, 1.0);
        let at = CONTROLLER_AT + Vec3::X * (0.2 * t);
        let aim = Pose::looking_at(at, on_map(0.2 + 0.6 * t, 0.5));
        input.hands[Hand::Left.index()] = HandInput {
            joints: None,
            aim,
            grip: aim,
            select: Some((5..40).contains(&frame)),
            squeeze: Some(false),
            select_is_air_tap: false,
            menu: None,
        };
    });
    let traced = outputs
        .iter()
        .flat_map(|out| &out.commands)
        .filter(|applied| matches!(applied.command, Command::Trace { .. }))
        .count();
    assert_eq!(traced, 1);
    assert!(outputs.iter().all(|out| reseeds_in(out) == 0));
}
