//! The ARM64 build (scripts/build-aarch64.sh) run under qemu-aarch64: the
//! engine's unit tests pass there, and `holoterrain generate` writes the x86-64
//! Linux build's bytes for every case the Windows build is held to (every
//! algorithm and format, several seeds, post-processing, the app's growth).
//! ARM64 is the HoloLens 2's architecture, where NEON replaces SSE.
//!
//! Needs the ARM64 build and qemu-aarch64 (both from scripts/build-aarch64.sh);
//! without them the tests print why they are skipped, unless env CI is set,
//! when they fail instead.

mod support {
    pub mod ci;
    pub mod generate_cases;
}

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::ci::skip;
use support::generate_cases::generate_cases;

/// Where scripts/build-aarch64.sh leaves the ARM64 build, in the target
/// directory these tests were built in.
fn arm64_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR lies in the target directory")
        .join("aarch64-unknown-linux-gnu/release")
}

/// True when the ARM64 build and qemu-aarch64 are there; otherwise skips
/// (or fails in CI) saying what makes them.
fn ready() -> bool {
    for file in ["holoterrain", "engine-tests"] {
        let path = arm64_dir().join(file);
        if !path.is_file() {
            return skip(&format!(
                "{} is missing: run scripts/build-aarch64.sh",
                path.display()
            ));
        }
    }
    match Command::new("qemu-aarch64").arg("--version").output() {
        Ok(output) if output.status.success() => true,
        _ => {
            skip("qemu-aarch64 is missing: run scripts/build-aarch64.sh (Debian package qemu-user)")
        }
    }
}

/// Runs an ARM64 program under qemu with the ARM64 C library.
fn run_arm64(program: &str, args: &[String]) -> Output {
    Command::new("qemu-aarch64")
        .args(["-L", "/usr/aarch64-linux-gnu"])
        .arg(arm64_dir().join(program))
        .args(args)
        .output()
        .expect("start qemu-aarch64")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_success(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
}

#[test]
fn the_engine_and_app_unit_tests_pass_on_arm64() {
    if !ready() {
        return;
    }
    // The terrain engine's tests (fast paths against the per-pixel
    // references, pinned fingerprints) and the app core's (growth, stalls).
    let filters = ["terrain::".to_owned(), "app::".to_owned()];
    let output = run_arm64("engine-tests", &filters);
    assert_success(&output, "the ARM64 unit tests");
    let stdout = text(&output.stdout);
    let passed: usize = stdout
        .lines()
        .find_map(|line| line.strip_prefix("test result: ok. "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|count| count.parse().ok())
        .expect("a test result line");
    assert!(passed >= 100, "only {passed} tests ran:\n{stdout}");
}

#[test]
fn generate_writes_the_x86_64_builds_bytes_on_arm64() {
    if !ready() {
        return;
    }
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch directory");
    for (index, case) in generate_cases().iter().enumerate() {
        let outputs = |platform: &str| {
            let dir = scratch.path().join(platform);
            std::fs::create_dir_all(&dir).expect("output directory");
            (
                dir.join(format!("case{index}")),
                dir.join(format!("case{index}.json")),
            )
        };
        let args = |(map, stats): &(PathBuf, PathBuf)| {
            let mut args = vec!["generate".to_owned()];
            args.extend(case.iter().cloned());
            args.extend([
                "--out".to_owned(),
                map.display().to_string(),
                "--stats-json".to_owned(),
                stats.display().to_string(),
            ]);
            args
        };
        let (x86, arm64) = (outputs("x86_64"), outputs("aarch64"));
        let linux = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
            .args(args(&x86))
            .output()
            .expect("run the x86-64 build");
        assert_success(&linux, "x86-64 generate");
        assert_success(&run_arm64("holoterrain", &args(&arm64)), "ARM64 generate");
        for (x86_file, arm64_file) in [(&x86.0, &arm64.0), (&x86.1, &arm64.1)] {
            let x86_bytes = std::fs::read(x86_file).expect("x86-64 output");
            let arm64_bytes = std::fs::read(arm64_file).expect("ARM64 output");
            assert!(
                x86_bytes == arm64_bytes,
                "generate {}: {} differs between x86-64 and ARM64",
                case.join(" "),
                x86_file.file_name().unwrap_or_default().to_string_lossy()
            );
        }
    }
}
