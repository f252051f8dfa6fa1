//! Sculpting end to end in the simulator: a traced fault raises the side its perp-dot names and lowers the other along the curve as drawn, changes nothing beyond its reach, a lift raises a hill of the asked height, undo gives back the exact heights, `generate --replay` writes the same terrain byte for byte, and bad trace lines are script errors.
use std::path::{Path, PathBuf};
use std::process::Command;

use holoterrain::app::driver::WorldArgs;
use holoterrain::sim::{self, SimArgs};
use holoterrain::size::Size;
use holoterrain::terrain::sculpt::EDIT_RADIUS;

const SIDE: usize = 33;
/// Frames past the demo's 500 iterations (8.3 s), with edits from 9 s.
const FRAMES: u64 = 840;
/// The head stays put, so the scripted hands reach the same way every run.
const HEAD: &str = "0.0 head 0.0 1.6 0.0 0.0 1.3 -1.0\n";

fn run(dir: &Path, name: &str, events: &str) -> PathBuf {
    let out = dir.join(name);
    let script = dir.join(format!("{name}.txt"));
    std::fs::write(&script, format!("{HEAD}{events}")).unwrap();
    let args = SimArgs {
        frames: FRAMES,
        world: WorldArgs {
            seed: 3,
            size: Size {
                width: SIDE as u32,
                height: SIDE as u32,
            },
            ..WorldArgs::default()
        },
        resolution: Size {
            width: 48,
            height: 32,
        },
        script: Some(script),
        out: out.clone(),
        every: 1000,
        ..SimArgs::default()
    };
    sim::run(&args).unwrap();
    out
}

fn heights(out: &Path) -> Vec<f32> {
    std::fs::read(out.join("terrain.f32"))
        .unwrap()
        .chunks_exact(4)
        .map(|bytes| f32::from_le_bytes(bytes.try_into().unwrap()))
        .collect()
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// Distance from `p` to the polyline, and the seeds' perp-dot with the
/// nearest segment (positive: the raised side).
fn nearest(points: &[[f32; 2]], p: [f32; 2]) -> (f32, f32) {
    let mut best = (f32::MAX, 0.0);
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let t = (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
        let (ex, ey) = (p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
        let distance = (ex * ex + ey * ey).sqrt();
        if distance < best.0 {
            best = (distance, (p[0] - a[0]) * dy - dx * (p[1] - a[1]));
        }
    }
    best
}

#[test]
fn a_traced_curve_faults_the_land_along_it_and_nowhere_else() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run(dir.path(), "plain", "");
    // A bow up through v = 0.35 between ends at v = 0.5, drawn left to right.
    let bow = [[0.1, 0.5], [0.5, 0.35], [0.9, 0.5]];
    let traced = run(
        dir.path(),
        "traced",
        "9.0 trace right 1.0 0.1 0.5 0.5 0.35 0.9 0.5\n",
    );
    let (before, after) = (heights(&plain), heights(&traced));
    let cell = |x: usize, y: usize| y * SIDE + x;
    let uv = |x: usize, y: usize| [x as f32 / (SIDE - 1) as f32, y as f32 / (SIDE - 1) as f32];
    let (mut raised, mut lowered) = (0, 0);
    for y in 0..SIDE {
        for x in 0..SIDE {
            let (distance, side) = nearest(&bow, uv(x, y));
            let change = after[cell(x, y)] - before[cell(x, y)];
            if distance > EDIT_RADIUS + 0.01 {
                assert_eq!(
                    after[cell(x, y)].to_bits(),
                    before[cell(x, y)].to_bits(),
                    "({x}, {y})"
                );
            } else if distance < 0.05 && side.abs() > 1e-3 {
                if side > 0.0 {
                    assert!(change > 0.0, "({x}, {y}) should rise");
                    raised += 1;
                } else {
                    assert!(change < 0.0, "({x}, {y}) should sink");
                    lowered += 1;
                }
            }
        }
    }
    assert!(
        raised > 20 && lowered > 20,
        "{raised} raised, {lowered} lowered"
    );
    // Under the bow's middle, above the straight chord from end to end:
    // the curve puts it on the sinking side.
    assert!(after[cell(16, 14)] < before[cell(16, 14)]);
    let edits = &report(&traced)["edits"];
    assert_eq!(edits[0]["kind"], "trace");
    assert_eq!(edits[0]["applied"], true);

    // The log replays offline to the same bytes.
    let replayed = dir.path().join("replayed.png");
    let status = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["generate", "--replay"])
        .arg(traced.join("commands.jsonl"))
        .arg("--out")
        .arg(&replayed)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read(&replayed).unwrap(),
        std::fs::read(traced.join("terrain.png")).unwrap()
    );
}

#[test]
fn a_lift_raises_a_hill_of_the_asked_height_and_undo_takes_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run(dir.path(), "plain", "");
    let lifted = run(dir.path(), "lifted", "9.0 lift left 1.0 0.5 0.5 0.04\n");
    let (before, after) = (heights(&plain), heights(&lifted));
    let centre = (SIDE / 2) * SIDE + SIDE / 2;
    // 4 cm of hand at scale 1 is 0.04 / 0.5 = 0.08 height units.
    let rise = after[centre] - before[centre];
    assert!((rise - 0.08).abs() < 2e-3, "the peak rose {rise}");
    assert_eq!(report(&lifted)["edits"][0]["kind"], "lift");

    let undone = run(
        dir.path(),
        "undone",
        "9.0 lift left 1.0 0.5 0.5 0.04\n11.0 say undo\n",
    );
    let undone_heights = heights(&undone);
    assert!(
        undone_heights
            .iter()
            .zip(&before)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    assert_eq!(report(&undone)["undos"][0]["undone"], "lift");

    // Said "redo", the hill is back, bit for bit the lifted run's.
    let redone = run(
        dir.path(),
        "redone",
        "9.0 lift left 1.0 0.5 0.5 0.04\n11.0 say undo\n11.5 say redo\n",
    );
    assert!(
        heights(&redone)
            .iter()
            .zip(&after)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    assert_eq!(report(&redone)["redos"][0]["redone"], "lift");
}

#[test]
fn a_pinch_held_still_on_the_surface_is_a_trace_ignored_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run(dir.path(), "plain", "");
    let still = run(dir.path(), "still", "9.0 trace right 1.0 0.4 0.4 0.4 0.4\n");
    assert_eq!(heights(&still), heights(&plain));
    let edit = &report(&still)["edits"][0];
    assert_eq!(edit["applied"], false);
    assert_eq!(edit["ignored"], "fewer than two points on the surface");
    assert_eq!(report(&still)["reseeds"].as_array().unwrap().len(), 0);
}

#[test]
fn a_trace_off_the_surface_is_a_script_error_on_its_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.txt");
    std::fs::write(
        &script,
        "1.0 airtap right\n2.0 trace right 1 0.1 0.5 1.2 0.5\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--frames", "5", "--script"])
        .arg(&script)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("line 2") && stderr.contains("1.2"),
        "{stderr}"
    );
    assert!(!out.exists());
}
