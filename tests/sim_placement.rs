//! Where the simulator's user puts the hologram, end to end through
//! `sim::run` and the binary: onto the table the gaze hits, dragged by a
//! held pinch, turned and scaled by two hands, and kept between runs in
//! `--state`'s folder.
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Quat, Vec3};
use holoterrain::app::PlacementCause;
use holoterrain::app::driver::WorldArgs;
use holoterrain::app::report::PlacementRecord;
use holoterrain::sim::{self, SimArgs, SimReport};
use holoterrain::size::Size;

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// A small run of `frames` frames at 60 Hz with `script` (and `room`), tiny images.
fn run_args(out: &Path, frames: u64, script: &str, room: Option<&str>) -> SimArgs {
    SimArgs {
        frames,
        world: WorldArgs {
            size: Size {
                width: 33,
                height: 33,
            },
            ..WorldArgs::default()
        },
        resolution: Size {
            width: 32,
            height: 24,
        },
        script: Some(data(&format!("scripts/{script}"))),
        room: room.map(data),
        out: out.to_path_buf(),
        every: 1000,
        ..SimArgs::default()
    }
}

fn position(record: &PlacementRecord) -> Vec3 {
    Vec3::from_array(record.position)
}

/// How far `after` is turned from `before` about the vertical, degrees
/// counter-clockwise seen from above, in (-180, 180].
fn turn_degrees(before: &PlacementRecord, after: &PlacementRecord) -> f32 {
    let heading = |record: &PlacementRecord| {
        let forward = Quat::from_array(record.orientation) * Vec3::NEG_Z;
        (-forward.z).atan2(forward.x).to_degrees()
    };
    let turn = heading(after) - heading(before);
    -((180.0 - turn).rem_euclid(360.0) - 180.0)
}

fn causes(report: &SimReport) -> Vec<(u64, PlacementCause)> {
    report
        .placements
        .iter()
        .map(|record| (record.frame, record.cause))
        .collect()
}

#[test]
fn the_hologram_rests_on_the_table_the_starting_gaze_hits() {
    let out = tempfile::tempdir().unwrap();
    let report = sim::run(&run_args(
        out.path(),
        30,
        "airtap-away.txt",
        Some("rooms/table.txt"),
    ))
    .unwrap();
    assert_eq!(causes(&report), [(0, PlacementCause::Surface)]);
    // The starting gaze: from (0, 1.6, 0) towards (0, 1.3, -1).
    let eye = Vec3::new(0.0, 1.6, 0.0);
    let gaze = Vec3::new(0.0, -0.3, -1.0).normalize();
    let hit = eye + gaze * ((1.6 - 0.75) / 0.3 * (1.0f32 + 0.09).sqrt());
    let base = position(&report.placements[0]);
    assert!(
        (base.y - 0.75).abs() < 0.001,
        "base at {base}, table top 0.75 m"
    );
    assert!(base.distance(hit) < 0.01, "base at {base}, gaze hit {hit}");
    assert_eq!(report.hologram_scale, Some(1.0));
}

#[test]
fn a_hold_drags_by_its_delta_and_reseeds_nothing_while_an_airtap_reseeds_on_release() {
    let out = tempfile::tempdir().unwrap();
    let report = sim::run(&run_args(out.path(), 240, "hold.txt", None)).unwrap();
    // The pinch closes at 1.0 s (frame 60) and opens at 2.0 s (frame 120);
    // the air-tap's closes at 3.0 s and opens 0.15 s later, on frame 189.
    assert_eq!(
        causes(&report),
        [(0, PlacementCause::Gaze), (120, PlacementCause::Move)]
    );
    let moved = position(&report.placements[1]) - position(&report.placements[0]);
    assert!(
        moved.distance(Vec3::new(0.3, 0.0, 0.0)) < 0.01,
        "moved by {moved}"
    );
    let reseeds: Vec<(u64, &str)> = report
        .reseeds
        .iter()
        .map(|reseed| (reseed.frame, reseed.cause.name()))
        .collect();
    assert_eq!(reseeds, [(189, "airtap")]);
    let hologram = report.hologram_pose.unwrap();
    assert_eq!(hologram.position, report.placements[1].position);
}

#[test]
fn two_hands_turn_it_ninety_degrees_and_scale_it_one_and_a_half_times() {
    let out = tempfile::tempdir().unwrap();
    let report = sim::run(&run_args(out.path(), 150, "twohand.txt", None)).unwrap();
    assert_eq!(
        causes(&report),
        [(0, PlacementCause::Gaze), (120, PlacementCause::TwoHand)]
    );
    let [placed, turned] = [&report.placements[0], &report.placements[1]];
    let turn = turn_degrees(placed, turned);
    assert!((turn - 90.0).abs() <= 2.0, "turned {turn}°");
    assert!(
        (turned.scale / 1.5 - 1.0).abs() <= 0.02,
        "scale {}",
        turned.scale
    );
    assert_eq!(report.hologram_scale, Some(turned.scale));
    assert!(report.reseeds.is_empty());
}

#[test]
fn a_second_run_with_the_same_state_starts_where_the_first_ended() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let first = sim::run(&SimArgs {
        state: Some(state.clone()),
        ..run_args(&dir.path().join("first"), 150, "hold.txt", None)
    })
    .unwrap();
    let ended = first.placements.last().unwrap();
    assert_eq!(ended.cause, PlacementCause::Move);
    assert!(state.join("placement.json").is_file());

    let second = sim::run(&SimArgs {
        state: Some(state.clone()),
        ..run_args(&dir.path().join("second"), 10, "airtap-away.txt", None)
    })
    .unwrap();
    assert_eq!(causes(&second), [(0, PlacementCause::Kept)]);
    assert_eq!(second.placements[0].position, ended.position);
    assert_eq!(second.placements[0].orientation, ended.orientation);
    assert_eq!(second.placements[0].scale, ended.scale);

    let third = run_args(&dir.path().join("third"), 10, "airtap-away.txt", None);
    let forgotten = sim::run(&SimArgs {
        state: Some(state.clone()),
        world: WorldArgs {
            forget_placement: true,
            ..third.world.clone()
        },
        ..third
    })
    .unwrap();
    assert_eq!(causes(&forgotten), [(0, PlacementCause::Gaze)]);
    assert!(!state.join("placement.json").exists(), "forgotten");
}

#[test]
fn a_scale_kept_by_two_hands_comes_back_too() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let first = sim::run(&SimArgs {
        state: Some(state.clone()),
        ..run_args(&dir.path().join("first"), 150, "twohand.txt", None)
    })
    .unwrap();
    let second = sim::run(&SimArgs {
        state: Some(state),
        ..run_args(&dir.path().join("second"), 5, "airtap-away.txt", None)
    })
    .unwrap();
    assert_eq!(second.hologram_scale, first.hologram_scale);
    assert_eq!(second.hologram_pose, first.hologram_pose);
}

#[test]
fn a_corrupt_state_file_is_one_warning_and_a_fresh_placement() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(
        state.join("placement.json"),
        "{\"format\": \"holoterrain placement 1\", \"space\":",
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args([
            "sim",
            "--frames",
            "5",
            "--size",
            "17x17",
            "--resolution",
            "32x24",
            "--state",
        ])
        .arg(&state)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr:\n{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("WARN"))
        .collect();
    assert_eq!(warnings.len(), 1, "stderr:\n{stderr}");
    assert!(
        warnings[0].contains("placement.json is not a holoterrain placement")
            && warnings[0].contains("starting with a fresh placement"),
        "{}",
        warnings[0]
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["placements"][0]["cause"], "gaze");
}

#[test]
fn a_bad_room_line_is_one_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let room = dir.path().join("room.txt");
    std::fs::write(&room, "surface 0 0.75 -2 1 1\nsurface 0 0.75 -2 1\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--frames", "5", "--room"])
        .arg(&room)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr:\n{stderr}");
    assert!(
        lines[0].starts_with("error: room ")
            && lines[0].contains("room.txt, line 2: a surface takes 5 numbers, got 4"),
        "{}",
        lines[0]
    );
    assert!(!dir.path().join("out").exists(), "nothing written");
}

#[test]
fn a_bad_marker_line_is_one_error_naming_file_and_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let room = dir.path().join("room.txt");
    std::fs::write(
        &room,
        "surface 0 0.75 -2 1 1\nmarker 0 0.75 -2 0 0.1 holoterrain:1-a-b\nmarker 0 0.75 -2 0 -0.1 x\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--frames", "5", "--room"])
        .arg(&room)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr:\n{stderr}");
    assert!(
        lines[0].starts_with("error: room ")
            && lines[0].contains("room.txt, line 3: `-0.1` is not a size in metres above 0; expected `marker X Y Z YAW SIZE TEXT`"),
        "{}",
        lines[0]
    );
    assert!(!dir.path().join("out").exists(), "nothing written");
}

#[test]
fn a_card_on_the_table_is_handed_over_once_the_head_looks_at_it_and_a_stale_one_never() {
    let out = tempfile::tempdir().unwrap();
    let report = sim::run(&run_args(
        out.path(),
        90,
        "look-at-card.txt",
        Some("rooms/table-with-cards.txt"),
    ))
    .unwrap();
    let seen: Vec<(u64, &str)> = report
        .markers_seen
        .iter()
        .map(|marker| (marker.frame, marker.text.as_str()))
        .collect();
    // The head looks at it from 1.0 s (frame 60); the orbit before never
    // brings it within 2 m in view, and the old card is behind, 3 m off.
    assert_eq!(seen, [(60, "holoterrain:7-guitar-orbit")]);
    let card = &report.markers_seen[0];
    assert_eq!(card.position, [0.5, 0.75, -2.3]);
    let turn = Quat::from_array(card.orientation);
    assert!((turn * Vec3::Y).abs_diff_eq(Vec3::Y, 1e-6), "face up");
    let top = turn * Vec3::NEG_Z;
    assert!(
        (top - Vec3::new(
            -(30f32.to_radians().sin()),
            0.0,
            -(30f32.to_radians().cos())
        ))
        .length()
            < 1e-6,
        "top edge turned 30° counter-clockwise from -z: {top}"
    );
    assert_eq!(card.size_m, 0.1);
}

#[test]
fn forget_placement_needs_a_state_folder() {
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--forget-placement"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: --forget-placement: needs --state DIR"),
        "{stderr}"
    );
}

#[test]
fn bigger_smaller_and_reset_said_scale_by_a_quarter_and_put_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let report = sim::run(&run_args(dir.path(), 240, "voice-placement.txt", None)).unwrap();
    let voice = PlacementCause::Voice;
    assert_eq!(
        causes(&report),
        [
            (0, PlacementCause::Gaze),
            (30, voice),
            (60, voice),
            (90, voice),
            (156, PlacementCause::Move),
            (180, voice),
        ],
        "said at 0.5, 1.0, 1.5 and 3.0 s; the drag let go at 2.6 s"
    );
    let scales: Vec<f32> = report.placements.iter().map(|p| p.scale).collect();
    assert_eq!(&scales[..3], [1.0, 1.25, 1.5625], "bigger: × 1.25, twice");
    assert!(
        (scales[3] - 1.25).abs() < 1e-6,
        "smaller: ÷ 1.25: {scales:?}"
    );
    let first = &report.placements[0];
    let reset = &report.placements[5];
    assert!((position(&report.placements[4]) - position(first)).length() > 0.19);
    assert_eq!(
        (reset.position, reset.orientation, reset.scale),
        (first.position, first.orientation, 1.0),
        "reset: where and how big the first frame put it"
    );
    assert_eq!(report.hologram_scale, Some(1.0));
    assert!(report.reseeds.is_empty(), "{:?}", report.reseeds);
}
