//! `sim --replay`: a command log written by a scripted run drives a second run to the same reseeds, seeds, placements, iterations and images; a corrupt or truncated log is one line naming its line, and nothing written.
use std::path::{Path, PathBuf};
use std::process::Command;

use holoterrain::app::driver::WorldArgs;
use holoterrain::sim::{self, SimArgs};
use holoterrain::size::Size;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/scripts")
        .join(name)
}

/// A small run of `script`, a snapshot every 10 frames.
fn scripted(out: &Path, script_name: &str, frames: u64) -> SimArgs {
    SimArgs {
        frames,
        world: WorldArgs {
            seed: 5,
            size: Size {
                width: 33,
                height: 33,
            },
            ..WorldArgs::default()
        },
        resolution: Size {
            width: 48,
            height: 32,
        },
        script: Some(script(script_name)),
        out: out.to_path_buf(),
        every: 10,
        // The world alone: a replay has no wearer, so no controls, cursors
        // or hand coach to draw.
        hide_controls: true,
        ..SimArgs::default()
    }
}

/// The same run driven by `log` instead of the script.
fn replayed(scripted: &SimArgs, log: PathBuf, out: &Path) -> SimArgs {
    SimArgs {
        script: None,
        replay: Some(log),
        world: WorldArgs::default(),
        out: out.to_path_buf(),
        ..scripted.clone()
    }
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// The snapshot files of a run, sorted.
fn snapshots(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("frame-"))
        .collect();
    names.sort();
    names
}

/// Runs `script_name`, then its log; the same world in both reports, and
/// the same pixels on every snapshot outside `moving` (frames on which a
/// hand is moving the hologram: a preview, not a command).
fn replay_matches(script_name: &str, frames: u64, moving: std::ops::Range<u64>) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let first = scripted(&a, script_name, frames);
    sim::run(&first).unwrap();
    sim::run(&replayed(&first, a.join("commands.jsonl"), &b)).unwrap();

    let (first_report, second_report) = (report(&a), report(&b));
    for field in [
        "seeds",
        "reseeds",
        "edits",
        "undos",
        "placements",
        "iterations",
        "hologram_pose",
        "hologram_scale",
        "frames",
    ] {
        assert_eq!(
            first_report[field], second_report[field],
            "{script_name}: {field}"
        );
    }
    let names = snapshots(&a);
    assert_eq!(names, snapshots(&b));
    let mut compared = 0;
    for name in &names {
        let frame: u64 = name[6..11].parse().unwrap();
        if moving.contains(&frame) {
            continue;
        }
        let same = std::fs::read(a.join(name)).unwrap() == std::fs::read(b.join(name)).unwrap();
        assert!(same, "{script_name}: {name} differs");
        compared += 1;
    }
    assert!(
        compared >= 5,
        "{script_name}: only {compared} images compared"
    );
    // The replay's own log holds the same commands, now from the log.
    let again = std::fs::read_to_string(b.join("commands.jsonl")).unwrap();
    let original = std::fs::read_to_string(a.join("commands.jsonl")).unwrap();
    assert_eq!(again, original.replace("\"local\"", "\"replay\""));
}

#[test]
fn a_replayed_log_grows_the_same_world_with_reseeds_and_a_stall() {
    // Reseeds by select and tap; a stall the log's start line carries.
    replay_matches("select-and-tap.txt", 240, 0..0);
    replay_matches("stall.txt", 120, 0..0);
}

#[test]
fn a_replayed_log_sculpts_as_the_hands_did() {
    // A trace (1.5–2.1 s) and a lift (2.4–2.8 s): while a hand holds them,
    // the scripted run draws the stroke and the lift's preview, which a
    // replay, made of commands, does not; the previewed hill stays up on
    // release where the replay's eases in over half a second (to frame
    // 198), and the colour bands, eased towards the heights shown, take a
    // few frames more to agree.
    replay_matches("hololens-wearer.txt", 240, 90..210);
}

#[test]
fn a_replayed_log_places_as_the_hands_and_voice_did() {
    // Two hands turn and scale it from 1 s to 2 s (frames 60–120).
    replay_matches("twohand.txt", 180, 60..121);
    // Air-taps and a tap; the hologram never moves.
    replay_matches("two-airtaps-one-tap.txt", 200, 0..0);
}

#[test]
fn the_log_records_what_started_the_world_and_every_command() {
    let dir = tempfile::tempdir().unwrap();
    sim::run(&scripted(dir.path(), "twohand.txt", 180)).unwrap();
    let log = std::fs::read_to_string(dir.path().join("commands.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["start"]["seed"], 5);
    assert_eq!(lines[0]["start"]["width"], 33);
    assert_eq!(lines[1]["command"]["place"]["cause"], "gaze");
    assert_eq!(lines[1]["frame"], 0);
    let settled = &lines[2];
    assert_eq!(settled["command"]["place"]["cause"], "twohand");
    assert!(settled["frame"].as_u64().unwrap() >= 120, "{settled}");
    assert_eq!(settled["seq"], 1);
    assert_eq!(lines.last().unwrap()["end"]["frame"], 179);
}

#[test]
fn a_corrupt_or_truncated_log_is_one_line_naming_it_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    sim::run(&scripted(&good, "select-and-tap.txt", 240)).unwrap();
    let text = std::fs::read_to_string(good.join("commands.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cases = [
        // The end line is missing: the error names the line it should be on.
        (
            "truncated",
            lines[..lines.len() - 1].join("\n"),
            lines.len(),
            "end line",
        ),
        (
            "cut",
            format!("{}\n{}", lines[0], &lines[1][..40]),
            2,
            "corrupt",
        ),
    ];
    for (name, text, line, says) in cases {
        let log = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&log, text).unwrap();
        let out = dir.path().join(format!("out-{name}"));
        let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
            .args(["sim", "--frames", "240", "--replay"])
            .arg(&log)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(
            stderr.contains(&format!(", line {line}: ")) && stderr.contains(says),
            "{name}: {stderr}"
        );
        assert!(!out.exists(), "{name}: nothing written");
    }
}

#[test]
fn a_replay_takes_no_script_seed_or_size_and_enough_frames() {
    let dir = tempfile::tempdir().unwrap();
    sim::run(&scripted(dir.path(), "select-and-tap.txt", 240)).unwrap();
    let log = dir.path().join("commands.jsonl");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_holoterrain"))
            .args(["sim", "--replay"])
            .arg(&log)
            .args(extra)
            .arg("--out")
            .arg(dir.path().join("never"))
            .output()
            .unwrap()
    };
    for flag in [["--seed", "3"], ["--size", "33x33"]] {
        let output = run(&flag);
        assert_eq!(output.status.code(), Some(2), "{flag:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("cannot be used with"));
    }
    let short = run(&["--frames", "100"]);
    assert_eq!(short.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&short.stderr);
    assert!(
        stderr.starts_with("error: --frames: the command log runs 240 frames"),
        "{stderr}"
    );
    assert!(!dir.path().join("never").exists());
}
