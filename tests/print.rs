//! `holoterrain generate --format stl` and `--format 3mf` end to end, held to an independent reader: trimesh reads both files of real recipes and finds one watertight solid, wound one way, facing out, print-size across, holding the volume the heights imply.
//!
//! The reader is trimesh from PyPI at the versions scripts/mesh-checker.sh
//! pins, installed by that script on first use into a venv every run
//! shares, and run by tests/data/print/check_mesh.py, which prints what it
//! reads as JSON. The volume it is held to comes from here: the heights
//! `--format f32` writes, integrated over the footprint by the trapezoid
//! rule. Where the checker cannot be installed (no python3-venv, no PyPI),
//! the test prints why it is skipped, unless env CI is set, when it fails.

mod support {
    pub mod ci;
    pub mod generate;
}

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use support::ci::skip;
use support::generate::generate;

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The checker's python (scripts/mesh-checker.sh installs it unless it is
/// there); `None` after skipping when it cannot be installed here.
fn checker() -> Option<PathBuf> {
    let output = Command::new(repo().join("scripts/mesh-checker.sh"))
        .output()
        .expect("run scripts/mesh-checker.sh");
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        skip(&format!(
            "the mesh checker cannot be installed ({}): install it with scripts/install-deps.sh test, then scripts/mesh-checker.sh (needs PyPI once)",
            why.trim().lines().last().unwrap_or("no reason given")
        ));
        return None;
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    Some(PathBuf::from(
        stdout.lines().last().expect("the script prints its python"),
    ))
}

/// What the checker reads of `file`.
fn check(python: &Path, file: &Path) -> Value {
    let output = Command::new(python)
        .arg(repo().join("tests/data/print/check_mesh.py"))
        .arg(file)
        .output()
        .expect("run the mesh checker");
    assert!(
        output.status.success(),
        "check_mesh.py {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON report")
}

/// A print: the recipe and size it is grown at, and its print flags.
struct Print {
    recipe: &'static str,
    samples: usize,
    size_mm: f64,
    exaggeration: f64,
    base_mm: f64,
}

impl Print {
    fn args(&self) -> Vec<String> {
        let n = self.samples;
        [
            "--recipe",
            self.recipe,
            "--size",
            &format!("{n}x{n}"),
            "--seed",
            "3",
        ]
        .map(String::from)
        .to_vec()
    }

    fn print_args(&self) -> Vec<String> {
        [
            "--print-size".to_string(),
            self.size_mm.to_string(),
            "--exaggeration".to_string(),
            self.exaggeration.to_string(),
            "--base-mm".to_string(),
            self.base_mm.to_string(),
        ]
        .to_vec()
    }

    /// The solid's height at each sample, mm above the bottom.
    fn heights_mm(&self, heights: &[f32]) -> Vec<f64> {
        let lowest = heights.iter().copied().fold(f32::INFINITY, f32::min);
        heights
            .iter()
            .map(|&h| f64::from(h - lowest) * self.exaggeration * self.size_mm + self.base_mm)
            .collect()
    }

    /// The volume the heights imply, mm³: the trapezoid rule over the
    /// grid, each cell its area times the mean of its four corners.
    fn volume_mm3(&self, heights: &[f32]) -> f64 {
        let n = self.samples;
        let z = self.heights_mm(heights);
        let cell = (self.size_mm / (n - 1) as f64).powi(2);
        let mut volume = 0.0;
        for row in 0..n - 1 {
            for column in 0..n - 1 {
                let at = row * n + column;
                volume += cell * (z[at] + z[at + 1] + z[at + n] + z[at + n + 1]) / 4.0;
            }
        }
        volume
    }
}

fn number(report: &Value, key: &str) -> f64 {
    report[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {report}"))
}

#[test]
fn stl_and_3mf_of_real_recipes_are_watertight_outward_solids_of_the_heights_volume() {
    let Some(python) = checker() else {
        return;
    };
    let prints = [
        Print {
            recipe: "mesas",
            samples: 33,
            size_mm: 100.0,
            exaggeration: 1.0,
            base_mm: 5.0,
        },
        Print {
            recipe: "cordillera",
            samples: 65,
            size_mm: 80.0,
            exaggeration: 2.5,
            base_mm: 3.0,
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    for print in &prints {
        let name = format!("{}-{}", print.recipe, print.samples);
        let args = print.args();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let print_args = print.print_args();
        let print_args: Vec<&str> = print_args.iter().map(String::as_str).collect();
        let f32_file = format!("{name}.f32");
        generate(
            dir.path(),
            &[&args[..], &["--format", "f32", "--out", &f32_file]].concat(),
        );
        let heights: Vec<f32> = std::fs::read(dir.path().join(&f32_file))
            .unwrap()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let want_volume = print.volume_mm3(&heights);
        let tallest = print.heights_mm(&heights).into_iter().fold(0.0, f64::max);
        let mut volumes = Vec::new();
        for format in ["stl", "3mf"] {
            let file = format!("{name}.{format}");
            generate(
                dir.path(),
                &[
                    &args[..],
                    &print_args[..],
                    &["--format", format, "--out", &file],
                ]
                .concat(),
            );
            let report = check(&python, &dir.path().join(&file));
            eprintln!("{report}");
            for key in ["watertight", "winding_consistent", "is_volume"] {
                assert_eq!(report[key], true, "{file}: {key}: {report}");
            }
            assert_eq!(report["bodies"], 1, "{file}: {report}");
            assert_eq!(report["euler_number"], 2, "{file}: {report}");
            assert_eq!(report["degenerate_triangles"], 0, "{file}: {report}");
            let volume = number(&report, "volume");
            // Positive: the triangles face out.
            assert!(volume > 0.0, "{file}: {report}");
            let error = (volume - want_volume).abs() / want_volume;
            eprintln!(
                "{file}: volume {volume:.3} mm³, the heights imply {want_volume:.3} mm³ (relative difference {error:.2e})"
            );
            assert!(error < 1e-4, "{file}: volume {volume}, want {want_volume}");
            let (lower, upper) = (&report["bounds_min"], &report["bounds_max"]);
            let corner = |bound: &Value, axis: usize| bound[axis].as_f64().unwrap();
            for axis in 0..2 {
                assert!(corner(lower, axis).abs() < 1e-4, "{file}: {report}");
                assert!(
                    (corner(upper, axis) - print.size_mm).abs() < 1e-4,
                    "{file}: {report}"
                );
            }
            assert_eq!(corner(lower, 2), 0.0, "{file}: the bottom on the bed");
            assert!(
                (corner(upper, 2) - tallest).abs() < 1e-3,
                "{file}: top {tallest}: {report}"
            );
            if format == "3mf" {
                assert_eq!(report["units"], "millimeter", "{file}: {report}");
            }
            volumes.push(volume);
        }
        // The two files are the same solid.
        assert!(
            (volumes[0] - volumes[1]).abs() < 1e-6 * volumes[0],
            "{volumes:?}"
        );
    }
}
