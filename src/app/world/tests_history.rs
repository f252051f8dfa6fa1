//! Unit tests of the world's history: a scrub shows the terrain exactly as it stood, coming back to now gives now back, a change in the past goes on from there and undo gives the cut-off history back.
use std::time::Duration;

use super::command::{Command, ReseedCause};
use super::history::MAX_CHECKPOINTS;
use super::{AppConfig, World};
use crate::terrain::recipe::BuiltInName;

fn world() -> World {
    World::new(&AppConfig::hololens_demo(33, 33, 3)).unwrap()
}

fn bits(world: &World) -> Vec<u32> {
    world
        .heightmap()
        .cells()
        .iter()
        .map(|h| h.to_bits())
        .collect()
}

fn lift(u: f32, height: f32) -> Command {
    Command::Lift {
        hand: None,
        at: [u, 0.5],
        height,
    }
}

/// A session: growth, edits, a reseed, a landscape, an undo, a weather, an
/// exaggeration, growth between them; the heights at every command's moment
/// and every few growth steps, by moment.
fn session(world: &mut World) -> Vec<(u64, Vec<u32>)> {
    let commands = [
        lift(0.3, 0.05),
        Command::Reseed {
            cause: ReseedCause::AirTap,
            hand: None,
        },
        lift(0.6, -0.04),
        Command::Undo,
        Command::Landscape {
            cause: ReseedCause::Voice,
            name: BuiltInName::new("mesas").unwrap(),
        },
        Command::Weather,
        lift(0.5, 0.03),
        Command::Exaggerate { exaggeration: 2.0 },
        Command::Redo,
        Command::Undo,
    ];
    let mut seen = vec![(world.history().shown(), bits(world))];
    for (index, command) in commands.iter().enumerate() {
        for _ in 0..3 {
            let done = world.iterations_done();
            world.grow_to(done + 7 + index);
            seen.push((world.history().shown(), bits(world)));
        }
        world.apply(command, index as i64);
        world.settle_edits();
        seen.push((world.history().shown(), bits(world)));
    }
    seen
}

fn scrub(world: &mut World, to: u64) {
    world.apply(&Command::Scrub { to }, 0);
}

#[test]
fn every_moment_scrubbed_to_is_the_terrain_as_it_stood() {
    for spacing in [Duration::ZERO, Duration::from_secs(3600)] {
        let mut world = world();
        world.history.set_spacing(spacing);
        let seen = session(&mut world);
        let now = bits(&world);
        let length = world.history().length();
        assert_eq!(seen.last().unwrap().0, length);
        // Backwards, forwards and back again: each rebuilt from a checkpoint.
        let order = seen
            .iter()
            .rev()
            .chain(&seen)
            .chain(seen.iter().rev().step_by(3));
        for (moment, heights) in order {
            scrub(&mut world, *moment);
            assert_eq!(world.history().shown(), *moment);
            assert!(
                &bits(&world) == heights,
                "moment {moment} of {length} (spacing {spacing:?})"
            );
        }
        scrub(&mut world, length);
        assert!(!world.history().is_scrubbed());
        assert_eq!(bits(&world), now, "back to now");
    }
}

#[test]
fn the_past_does_not_grow_and_now_grows_on() {
    let mut world = world();
    world.grow_to(40);
    scrub(&mut world, 10);
    assert_eq!(world.iterations_done(), 10);
    world.grow_to(60);
    assert_eq!(world.iterations_done(), 10, "the past stays as it was");
    scrub(&mut world, u64::MAX);
    assert_eq!(world.iterations_done(), 40);
    world.grow_to(60);
    assert_eq!(world.iterations_done(), 60);
    assert_eq!(world.history().length(), 60);
}

#[test]
fn a_change_in_the_past_goes_on_from_there_and_undo_gives_the_future_back() {
    let mut world = world();
    session(&mut world);
    let now = bits(&world);
    let length = world.history().length();
    let at = length / 3;
    scrub(&mut world, at);
    let then = bits(&world);
    world.apply(&lift(0.4, 0.06), 0);
    world.settle_edits();
    assert!(!world.history().is_scrubbed(), "the change is now");
    assert_eq!(
        world.history().length(),
        at + 1,
        "the history after it is cut"
    );
    assert_ne!(bits(&world), then);
    let done = world.iterations_done();
    world.grow_to(done + 5);
    // Undo: back to the moment, with the history that came after it.
    world.apply(&Command::Undo, 0);
    assert_eq!(world.history().shown(), at);
    assert_eq!(world.history().length(), length);
    assert_eq!(bits(&world), then);
    scrub(&mut world, length);
    assert_eq!(bits(&world), now);
}

#[test]
fn an_undo_in_the_past_comes_back_to_now_and_an_edit_off_the_land_cuts_nothing() {
    let mut world = world();
    session(&mut world);
    let now = bits(&world);
    let length = world.history().length();
    scrub(&mut world, length / 2);
    world.apply(&lift(7.0, 0.06), 0);
    assert_eq!(
        world.history().shown(),
        length / 2,
        "ignored: still in the past"
    );
    assert_eq!(world.history().length(), length);
    world.apply(&Command::Undo, 0);
    assert!(!world.history().is_scrubbed());
    assert_eq!(bits(&world), now);
}

#[test]
fn checkpoints_stay_bounded_and_exact() {
    let mut world = world();
    world.history.set_spacing(Duration::ZERO);
    let mut seen = Vec::new();
    for round in 0..90 {
        world.apply(&lift(0.1 + 0.02 * round as f32, 0.01), 0);
        let done = world.iterations_done();
        world.grow_to(done + 3);
        world.settle_edits();
        seen.push((world.history().shown(), bits(&world)));
        if round % 13 == 0 {
            world.apply(
                &Command::Reseed {
                    cause: ReseedCause::AirTap,
                    hand: None,
                },
                0,
            );
        }
    }
    // Every step asked for one: past the most, every other one went.
    assert!(world.history().checkpoints() <= MAX_CHECKPOINTS + 1);
    assert!(world.history().checkpoints() > MAX_CHECKPOINTS / 2);
    assert!(world.history().steps().len() > MAX_CHECKPOINTS + 1);
    for (moment, heights) in seen.iter().rev() {
        scrub(&mut world, *moment);
        assert!(&bits(&world) == heights, "moment {moment}");
    }
}

#[test]
fn back_and_forward_step_by_commands() {
    let mut world = world();
    world.grow_to(20);
    world.apply(&lift(0.3, 0.05), 0);
    world.grow_to(30);
    assert_eq!(world.history().back(), 20, "before the lift");
    scrub(&mut world, 20);
    assert_eq!(world.history().back(), 0, "the start: no command before");
    assert_eq!(world.history().forward(), 21, "just after the lift");
    scrub(&mut world, 21);
    assert_eq!(world.history().forward(), world.history().length(), "now");
}
