//! What the world's history costs over a session's length: the time to rebuild a moment and the memory its checkpoints take (docs/performance.md):
//!
//!     cargo run --release --example history_cost -- COMMANDS [SIDE] [none]
//!
//! Makes a session of COMMANDS terrain commands on a SIDE² map (257): lifts
//! and traces at spread points, a new landscape every 250 commands (going
//! through all twelve), an undo every 37, a redo every 111, a weather every
//! 500 and a change of exaggeration every 300, with 10 growth steps before
//! each; then scrubs to 200 moments spread over the history, in a shuffled
//! order, and prints the rebuild times (median, 95th percentile, most), the
//! checkpoints kept and the process's resident memory. `none` keeps no
//! checkpoint but the start: the memory floor of the same session (and a
//! rebuild is then a replay from the start).
use std::process::ExitCode;
use std::time::{Duration, Instant};

use holoterrain::app::Command;
use holoterrain::app::ReseedCause;
use holoterrain::app::world::{AppConfig, World, WorldEvent};
use holoterrain::terrain::recipe::{BuiltInName, Recipe};
use holoterrain::terrain::rng::mix;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let commands: Option<usize> = args.first().and_then(|arg| arg.parse().ok());
    let side: usize = args.get(1).and_then(|arg| arg.parse().ok()).unwrap_or(257);
    let none = args.iter().any(|arg| arg == "none");
    let Some(commands) = commands.filter(|&count| count > 0) else {
        eprintln!("usage: history_cost COMMANDS [SIDE] [none], e.g. history_cost 10000 257");
        return ExitCode::from(2);
    };
    let before = resident_mib();
    let mut world = World::new(&AppConfig::hololens_demo(side, side, 1)).expect("the demo grows");
    if none {
        world.set_checkpoint_spacing(Duration::MAX);
    }
    let started = Instant::now();
    let landscapes: Vec<BuiltInName> = Recipe::built_in_names()
        .filter_map(BuiltInName::new)
        .collect();
    for index in 0..commands {
        let done = world.iterations_done();
        world.grow_to(done + 10);
        world.apply(&command(index, &landscapes), index as i64);
    }
    world.settle_edits();
    let made_s = started.elapsed().as_secs_f64();
    let made_mib = resident_mib();
    let length = world.history().length();
    let mut times = Vec::new();
    for index in 0..200u64 {
        // A shuffled order: each rebuild comes from wherever the last left.
        let spread = (mix(7, index) % 200) as f64 / 199.0;
        let to = (spread * length as f64).round() as u64;
        if let Some(WorldEvent::Scrubbed { ms, .. }) = world.apply(&Command::Scrub { to }, 0) {
            times.push(ms);
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |fraction: f64| times[((times.len() - 1) as f64 * fraction).round() as usize];
    println!(
        "{commands} commands on {side}x{side}: {length} moments, made in {made_s:.1} s; \
         rebuild median {:.1} ms, p95 {:.1} ms, most {:.1} ms; {} checkpoints; \
         resident {made_mib:.0} MiB once made, {:.0} MiB after the scrubs \
         (from {:.0} MiB before the world)",
        at(0.5),
        at(0.95),
        at(1.0),
        world.history().checkpoints(),
        resident_mib(),
        before
    );
    ExitCode::SUCCESS
}

/// The session's `index`th command.
fn command(index: usize, landscapes: &[BuiltInName]) -> Command {
    let spot = |salt: u64| (mix(index as u64, salt) % 1000) as f32 / 1000.0 * 0.8 + 0.1;
    if index % 250 == 249 {
        return Command::Landscape {
            cause: ReseedCause::Menu,
            name: landscapes[(index / 250) % landscapes.len()],
        };
    }
    if index % 500 == 120 {
        return Command::Weather;
    }
    if index % 300 == 150 {
        return Command::Exaggerate {
            exaggeration: if index % 600 == 150 { 2.0 } else { 1.0 },
        };
    }
    if index % 111 == 110 {
        return Command::Redo;
    }
    if index % 37 == 36 {
        return Command::Undo;
    }
    if index.is_multiple_of(2) {
        Command::Lift {
            hand: None,
            at: [spot(1), spot(2)],
            height: (spot(3) - 0.5) * 0.06,
        }
    } else {
        let (u, v) = (spot(4), spot(5));
        Command::Trace {
            hand: None,
            points: vec![[u - 0.1, v], [u, v + 0.05], [u + 0.1, v]],
        }
    }
}

/// The process's resident memory, MiB (0 where /proc is not there).
fn resident_mib() -> f64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|statm| statm.split_whitespace().nth(1)?.parse::<f64>().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}
