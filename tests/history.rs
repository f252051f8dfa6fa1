//! The world's history end to end in the simulator: "back" shows the land as it stood before the last change and "forward" brings it back, bit for bit; a save opened with `--open` goes on from its terrain exactly, its report says so, and `generate --replay` of the new run's log agrees; a folder that is not a save is one line and the run goes on.
use std::path::{Path, PathBuf};

use holoterrain::app::driver::WorldArgs;
use holoterrain::sim::{self, SimArgs};
use holoterrain::size::Size;

mod support {
    pub mod generate;
}

const SIDE: u32 = 33;
/// Frames past the demo's 500 iterations (8.3 s), with changes from 9 s.
const FRAMES: u64 = 840;
const HEAD: &str = "0.0 head 0.0 1.6 0.0 0.0 1.3 -1.0\n";
const LIFT: &str = "9.0 lift left 1 0.4 0.6 0.05\n";

fn args(dir: &Path, name: &str, events: &str) -> SimArgs {
    let script = dir.join(format!("{name}.txt"));
    std::fs::write(&script, format!("{HEAD}{events}")).unwrap();
    SimArgs {
        frames: FRAMES,
        world: WorldArgs {
            seed: 3,
            size: Size {
                width: SIDE,
                height: SIDE,
            },
            ..WorldArgs::default()
        },
        resolution: Size {
            width: 48,
            height: 32,
        },
        script: Some(script),
        out: dir.join(name),
        every: 1000,
        ..SimArgs::default()
    }
}

fn run(args: SimArgs) -> PathBuf {
    sim::run(&args).unwrap();
    args.out
}

fn heights(out: &Path) -> Vec<u8> {
    std::fs::read(out.join("terrain.f32")).unwrap()
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

#[test]
fn back_shows_the_land_before_the_change_and_forward_brings_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run(args(dir.path(), "plain", ""));
    let lifted = run(args(dir.path(), "lifted", LIFT));
    assert_ne!(heights(&plain), heights(&lifted));
    let back = run(args(dir.path(), "back", &format!("{LIFT}11.0 say back\n")));
    assert_eq!(heights(&back), heights(&plain), "before the lift");
    let scrubs = &report(&back)["scrubs"];
    assert_eq!(scrubs.as_array().unwrap().len(), 1, "{scrubs}");
    let to = scrubs[0]["to"].as_f64().unwrap();
    assert!(to > 0.5 && to < 1.0, "{scrubs}");
    let forward = run(args(
        dir.path(),
        "forward",
        &format!("{LIFT}11.0 say back\n12.0 say forward\n"),
    ));
    assert_eq!(heights(&forward), heights(&lifted), "back to now");
    assert_eq!(report(&forward)["scrubs"][1]["to"], 1.0);
    // The log replays the scrubs too: frame by frame, and offline.
    let mut replaying = args(dir.path(), "replayed-run", "");
    replaying.script = None;
    replaying.replay = Some(back.join("commands.jsonl"));
    let replayed_run = run(replaying);
    assert_eq!(heights(&replayed_run), heights(&back));
    assert_eq!(report(&replayed_run)["scrubs"].as_array().unwrap().len(), 1);
    support::generate::generate(
        dir.path(),
        &[
            "--replay",
            back.join("commands.jsonl").to_str().unwrap(),
            "--format",
            "f32",
            "--out",
            dir.path().join("replayed.f32").to_str().unwrap(),
        ],
    );
    assert_eq!(
        std::fs::read(dir.path().join("replayed.f32")).unwrap(),
        heights(&back)
    );
}

#[test]
fn a_save_opened_goes_on_from_its_terrain_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let lifted = run(args(dir.path(), "lifted", LIFT));
    // What "Save terrain" keeps of the run that counts for opening it.
    let save = dir.path().join("save-001");
    std::fs::create_dir(&save).unwrap();
    std::fs::copy(lifted.join("commands.jsonl"), save.join("commands.jsonl")).unwrap();

    let mut opening = args(dir.path(), "opened", "");
    opening.frames = 30;
    opening.world = WorldArgs {
        open: Some(save.clone()),
        ..opening.world
    };
    let opened = run(opening);
    assert_eq!(heights(&opened), heights(&lifted));
    let record = &report(&opened)["opened"];
    assert_eq!(record[0]["folder"], save.display().to_string());
    assert_eq!(record[0]["commands"], 1, "{record}");
    // Undo in the opened world takes back the saved lift.
    let mut undoing = args(dir.path(), "undone", "0.2 say undo\n");
    undoing.frames = 30;
    undoing.world.open = Some(save.clone());
    let undone = run(undoing);
    let plain = run(args(dir.path(), "plain", ""));
    assert_eq!(heights(&undone), heights(&plain));
    // The new run's log holds the saved history: a replay agrees.
    let replayed = dir.path().join("replayed.f32");
    support::generate::generate(
        dir.path(),
        &[
            "--replay",
            undone.join("commands.jsonl").to_str().unwrap(),
            "--format",
            "f32",
            "--out",
            replayed.to_str().unwrap(),
        ],
    );
    assert_eq!(std::fs::read(replayed).unwrap(), heights(&undone));
}

#[test]
fn a_folder_that_is_not_a_save_is_one_line_and_the_run_grows_its_own_world() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run(args(dir.path(), "plain", ""));
    let mut opening = args(dir.path(), "foreign", "");
    opening.world.open = Some(dir.path().to_path_buf());
    let foreign = run(opening);
    assert_eq!(heights(&foreign), heights(&plain));
    assert_eq!(report(&foreign)["opened"], serde_json::json!([]));
}

/// The hand menu, then the panel turned to its history page.
const HISTORY_PAGE: &str =
    "10.0 palm left 1.5\n10.6 press landscapes poke\n11.4 press history poke\n";

#[test]
fn the_time_slider_goes_back_to_the_start_and_forward_to_now() {
    let dir = tempfile::tempdir().unwrap();
    let lifted = run(args(dir.path(), "lifted", LIFT));
    let start = run(args(
        dir.path(),
        "start",
        &format!("{LIFT}{HISTORY_PAGE}12.0 scrub 0\n"),
    ));
    let flat = heights(&start);
    assert!(
        flat.chunks_exact(4).all(|h| h == [0; 4]),
        "the start is flat"
    );
    let scrubs = &report(&start)["scrubs"];
    assert_eq!(scrubs[0]["to"], 0.0, "{scrubs}");
    let back = run(args(
        dir.path(),
        "back",
        &format!("{LIFT}{HISTORY_PAGE}12.0 scrub 0.25\n12.8 scrub 1 ray\n"),
    ));
    let scrubs = report(&back)["scrubs"].clone();
    let to = scrubs[0]["to"].as_f64().unwrap();
    assert!((to - 0.25).abs() < 0.01, "{scrubs}");
    assert_eq!(scrubs[1]["to"], 1.0, "{scrubs}");
    assert_eq!(heights(&back), heights(&lifted), "now again");
}

#[test]
fn a_save_opened_from_the_history_page_grows_its_world_where_the_hologram_stands() {
    let dir = tempfile::tempdir().unwrap();
    let saving = args(
        dir.path(),
        "kept",
        &format!("{LIFT}10.0 palm left 1.5\n10.6 press landscapes poke\n11.4 press save poke\n"),
    );
    let kept = run(saving);
    let saved_heights = heights(&kept);
    assert!(kept.join("save-001").join("picture.png").is_file());
    let mut opening = args(
        dir.path(),
        "kept",
        "1.0 palm left 1.5\n1.6 press landscapes poke\n2.4 press history poke\n3.0 press open 1 poke\n",
    );
    opening.frames = 240;
    let opened = run(opening);
    assert_eq!(heights(&opened), saved_heights);
    let record = report(&opened);
    let entry = &record["opened"][0];
    assert!(
        entry["folder"].as_str().unwrap().ends_with("save-001"),
        "{entry}"
    );
    assert_eq!(entry["commands"], 1, "{entry}");
    // The hologram stayed where it stood: placed once by gaze, then kept.
    let causes: Vec<&str> = record["placements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|placement| placement["cause"].as_str().unwrap())
        .collect();
    assert_eq!(causes.last(), Some(&"persisted"), "{causes:?}");
    let positions: Vec<&serde_json::Value> = record["placements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|placement| &placement["position"])
        .collect();
    assert_eq!(positions.first(), positions.last());
}
