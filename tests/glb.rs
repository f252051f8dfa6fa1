//! `holoterrain generate --format glb` end to end: the Khronos glTF validator
//! finds no error and no warning in the mesh of the demo's terrain, a flat
//! map, a non-square map, the smallest map and a tile, and the mesh is the
//! heights `--format f32` writes, on the hologram's footprint and scaled as
//! the app scales them, with the base under them down to where the app
//! draws its underside.
//!
//! The validator is the npm package gltf-validator at the version
//! scripts/gltf-validator.sh pins, installed by that script on first use
//! into a cache every run shares, and run by tests/data/gltf/validate.mjs
//! with node. Where node is missing, or the validator cannot be installed
//! (no npm, no registry), the test prints why it is skipped, unless env CI
//! is set, when it fails instead.

mod support {
    pub mod ci;
    pub mod generate;
}

use std::path::{Path, PathBuf};
use std::process::Command;

use holoterrain::app::placement::{self, HOLOGRAM_SIZE_M};
use serde_json::Value;
use support::ci::skip;
use support::generate::generate;

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The folder holding the installed validator (scripts/gltf-validator.sh
/// installs it unless it is there); `None` after skipping when it cannot
/// run here.
fn validator() -> Option<PathBuf> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|output| output.status.success()) {
        skip("node is missing (Debian: nodejs and npm, from scripts/install-deps.sh test)");
        return None;
    }
    let output = Command::new(repo().join("scripts/gltf-validator.sh"))
        .output()
        .expect("run scripts/gltf-validator.sh");
    if !output.status.success() {
        skip(&format!(
            "the glTF validator cannot be installed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
        return None;
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    Some(PathBuf::from(
        stdout.lines().last().expect("the script prints its folder"),
    ))
}

/// The validator's report on each of `files`, one JSON object per file.
fn validate(validator: &Path, files: &[PathBuf]) -> Vec<Value> {
    let output = Command::new("node")
        .arg(repo().join("tests/data/gltf/validate.mjs"))
        .arg(validator)
        .args(files)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "validate.mjs failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON report per line"))
        .collect()
}

/// A glb's JSON and BIN chunks (the unit tests in src/render/glb.rs check
/// the container itself).
fn chunks(bytes: &[u8]) -> (Value, &[u8]) {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&bytes[..4], b"glTF");
    let json_length = u32_at(12);
    let json = serde_json::from_slice(&bytes[20..20 + json_length]).expect("the JSON chunk");
    (json, &bytes[20 + json_length + 8..])
}

/// The positions of a glb: its POSITION accessor's floats.
fn positions(json: &Value, bin: &[u8]) -> Vec<[f32; 3]> {
    let accessor = &json["accessors"][json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let at = view["byteOffset"].as_u64().unwrap() as usize;
    let count = accessor["count"].as_u64().unwrap() as usize;
    bin[at..at + 12 * count]
        .chunks_exact(12)
        .map(|v| [0, 1, 2].map(|i| f32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap())))
        .collect()
}

#[test]
fn every_map_passes_the_khronos_validator_without_errors_or_warnings() {
    let Some(validator) = validator() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let maps: [(&str, &[&str]); 5] = [
        // The demo's terrain at its size: 257×257, past 16-bit indices.
        ("demo.glb", &[]),
        // All heights zero: one flat colour band, every normal straight up.
        (
            "flat.glb",
            &[
                "--algorithm",
                "fault",
                "--iterations",
                "1",
                "--amplitude",
                "0",
                "--shaping",
                "none",
                "--size",
                "17x17",
            ],
        ),
        ("non-square.glb", &["--size", "65x33"]),
        ("tiny.glb", &["--size", "2x2"]),
        // Negative heights, bands over the tile world's fixed range.
        ("tile.glb", &["--tile", "0,-1", "--size", "33x33"]),
    ];
    let mut files = Vec::new();
    for (name, args) in maps {
        generate(
            dir.path(),
            &[args, &["--format", "glb", "--out", name]].concat(),
        );
        files.push(dir.path().join(name));
    }
    let reports = validate(&validator, &files);
    assert_eq!(reports.len(), files.len());
    for ((name, _), report) in maps.iter().zip(&reports) {
        eprintln!(
            "{name}: gltf-validator {}: {} errors, {} warnings, {} infos, {} hints",
            report["validatorVersion"],
            report["numErrors"],
            report["numWarnings"],
            report["numInfos"],
            report["numHints"]
        );
        assert!(
            report["numErrors"] == 0 && report["numWarnings"] == 0,
            "{name}: the glTF validator reports {} errors and {} warnings:\n{}",
            report["numErrors"],
            report["numWarnings"],
            serde_json::to_string_pretty(&report["messages"]).unwrap()
        );
    }
}

#[test]
fn the_mesh_is_the_f32_heights_on_the_hologram_footprint() {
    let dir = tempfile::tempdir().unwrap();
    let (width, height) = (65, 33);
    let args = ["--size", "65x33", "--seed", "7"];
    generate(dir.path(), &[&args[..], &["--format", "f32"]].concat());
    generate(dir.path(), &[&args[..], &["--format", "glb"]].concat());
    // Without --out the name follows the format.
    let heights: Vec<f32> = std::fs::read(dir.path().join("heightmap.f32"))
        .unwrap()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(heights.len(), width * height);
    let glb = std::fs::read(dir.path().join("heightmap.glb")).unwrap();
    let (json, bin) = chunks(&glb);
    let positions = positions(&json, bin);
    // The land's samples first, then the base's vertices: a top and a
    // bottom per edge sample on each side, the underside's rim and centre.
    let rim = 2 * (width - 1) + 2 * (height - 1);
    assert_eq!(
        positions.len(),
        width * height + 2 * (2 * width + 2 * height) + rim + 1
    );
    let half = HOLOGRAM_SIZE_M / 2.0;
    for row in 0..height {
        for column in 0..width {
            let index = row * width + column;
            let u = column as f32 / (width - 1) as f32;
            let v = row as f32 / (height - 1) as f32;
            let want = [
                (u - 0.5) * HOLOGRAM_SIZE_M,
                heights[index] * HOLOGRAM_SIZE_M,
                (v - 0.5) * HOLOGRAM_SIZE_M,
            ];
            assert_eq!(positions[index], want, "sample ({column}, {row})");
        }
    }
    let accessor = &json["accessors"][0];
    assert_eq!(accessor["min"][0], -half);
    assert_eq!(accessor["max"][2], half);
    // The base goes down to the app's underside, the land's height zero at
    // the base's depth above it (or lower, under land that dips).
    let lowest = heights.iter().copied().fold(f32::INFINITY, f32::min);
    let underside = placement::base_bottom_m(lowest) - placement::BASE_DEPTH_M;
    let bottom = positions.iter().map(|p| p[1]).fold(f32::INFINITY, f32::min);
    assert!((bottom - underside).abs() < 1e-6, "{bottom} {underside}");
    assert_eq!(accessor["min"][1].as_f64().unwrap() as f32, bottom);

    // The same map, the same bytes.
    generate(
        dir.path(),
        &[&args[..], &["--format", "glb", "--out", "again.glb"]].concat(),
    );
    assert_eq!(std::fs::read(dir.path().join("again.glb")).unwrap(), glb);
}
