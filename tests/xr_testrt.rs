//! `holoterrain xr` on the project's HoloLens 2-like test runtime, Linux
//! build (Vulkan; scripts/build-test-runtime.sh): the run the runtime's
//! scripted wearer makes is the simulator's run, frame for frame and pixel
//! for pixel, with zero violations and zero validation messages; emulated
//! Holographic Remoting connects, refuses another address in one line, and
//! a scripted disconnect loses the session; a script the runtime cannot
//! play stops it at xrCreateInstance in one line; a runtime that stops
//! answering (HOLOTERRAIN_TESTRT_HANG) ends the run within
//! `--runtime-timeout`, or at Ctrl-C, with the report.
//!
//! Without the built runtime the tests print why they are skipped, unless
//! env CI is set, when they fail instead.

mod support {
    pub mod ci;
    pub mod images;
    pub mod output;
    pub mod process;
    pub mod testrt;
    pub mod unresponsive;
}

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::output::{assert_success, one_error_line, text};
use support::process::{signal, wait_at_most};
use support::testrt::{
    assert_images_match, assert_same_run, environment, hanging_environment, json, manifest,
    remoting_environment, script,
};
use support::unresponsive::assert_ended_by_watchdog;

/// Frames, heightmap, seed and per-eye resolution of the compared runs.
const FRAMES: &str = "240";
const MAP: &str = "65x49";
const SEED: u64 = 5;
const RESOLUTION: &str = "128x96";

/// Where Debian's openxr-layer-corevalidation puts the layer's manifest.
const CORE_VALIDATION_LAYER_PATH: &str = "/usr/share/openxr/1/api_layers/explicit.d";

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch directory")
}

/// `holoterrain ARGS` with the test runtime as the OpenXR runtime, set up
/// by `settings`.
fn run_on_runtime(manifest: &Path, settings: &[(&str, String)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(args)
        .env("XR_RUNTIME_JSON", manifest)
        .env("XR_API_LAYER_PATH", CORE_VALIDATION_LAYER_PATH)
        .envs(settings.iter().map(|(name, value)| (*name, value.as_str())))
        .output()
        .expect("run holoterrain")
}

#[test]
fn xr_on_the_test_runtime_is_the_simulators_run_frame_for_frame() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("hololens-wearer.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    let sim = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args([
            "sim",
            "--frames",
            FRAMES,
            "--size",
            MAP,
            "--seed",
            &SEED.to_string(),
        ])
        .args(["--resolution", RESOLUTION, "--every", "30", "--script"])
        .arg(&wearer)
        .arg("--out")
        .arg(&sim_out)
        .output()
        .expect("run holoterrain sim");
    assert_success(&sim, "holoterrain sim");
    let report = dir.path().join("xr.json");
    let xr = run_on_runtime(
        &manifest,
        &environment(&wearer, MAP, SEED, RESOLUTION, &runtime_out),
        &[
            "xr",
            "--frames",
            FRAMES,
            "--size",
            MAP,
            "--seed",
            &SEED.to_string(),
            "--validation",
            "--report",
            report.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_success(&xr, "holoterrain xr on the test runtime");

    let xr_report = json(&report);
    let sim_report = json(&sim_out.join("report.json"));
    assert_same_run(&xr_report, &sim_report);
    let causes: Vec<&str> = sim_report["reseeds"]
        .as_array()
        .expect("reseeds")
        .iter()
        .filter_map(|reseed| reseed["cause"].as_str())
        .collect();
    assert_eq!(
        causes,
        ["airtap", "tap", "airtap"],
        "the script's three reseeds"
    );
    assert_eq!(
        xr_report["core_validation_layer"], true,
        "the OpenXR core validation layer ran"
    );
    assert_eq!(xr_report["openxr_validation_messages"], 0);
    assert_eq!(xr_report["vulkan_validation_messages"], 0);
    assert_eq!(xr_report["blend_mode"], "ADDITIVE");
    assert_eq!(xr_report["reference_space"], "UNBOUNDED_MSFT");
    assert_eq!(xr_report["anchored"], true);
    assert_eq!(xr_report["hand_tracking"], true);

    let runtime = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(
        runtime["violations"],
        Value::Array(Vec::new()),
        "no violations"
    );
    assert_eq!(
        runtime["problems"],
        Value::Array(Vec::new()),
        "the runtime read every frame back"
    );
    assert_eq!(runtime["graphics_api"], "vulkan");
    assert_eq!(runtime["frames_submitted"], 240);
    assert_eq!(runtime["color_format"], 43, "VK_FORMAT_R8G8B8A8_SRGB");
    assert_eq!(runtime["depth_format"], 124, "VK_FORMAT_D16_UNORM");
    assert_eq!(runtime["blend_mode"], "ADDITIVE");
    assert_eq!(
        runtime["haptics"].as_array().map(Vec::len),
        Some(3),
        "a pulse per reseed, recorded"
    );
    assert_eq!(
        runtime["wearer"]["hologram_pose"],
        sim_report["hologram_pose"]
    );
    assert_images_match(&runtime_out, &sim_out, 1.0, 0.99);
}

#[test]
fn xr_remote_connects_to_the_emulated_player_and_renders() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let out = dir.path().join("runtime");
    let report = dir.path().join("xr.json");
    let settings = remoting_environment(&script("airtap-away.txt"), &out);
    let output = run_on_runtime(
        &manifest,
        &settings,
        &[
            "xr",
            "--remote",
            "127.0.0.1",
            "--frames",
            "30",
            "--size",
            "65x49",
            "--report",
            report.to_str().expect("UTF-8"),
        ],
    );
    assert_success(&output, "xr --remote 127.0.0.1");
    assert!(
        text(&output.stderr).contains("holographic remoting: CONNECTED to 127.0.0.1:8265"),
        "stderr:\n{}",
        text(&output.stderr)
    );
    assert_eq!(json(&report)["frames"], 30);
    let runtime = json(&out.join("runtime-report.json"));
    assert_eq!(runtime["remoting"]["connected"], true);
    assert_eq!(
        runtime["remoting"]["connects"],
        serde_json::json!(["127.0.0.1:8265"])
    );
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
}

#[test]
fn xr_remote_to_an_address_no_player_listens_on_ends_in_one_line() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let out = dir.path().join("runtime");
    let settings = remoting_environment(&script("airtap-away.txt"), &out);
    let output = run_on_runtime(
        &manifest,
        &settings,
        &["xr", "--remote", "127.0.0.2", "--frames", "30"],
    );
    let line = one_error_line(&output, "xr --remote to an address no player listens on");
    assert!(
        line.starts_with(
            "error: cannot reach the Holographic Remoting Player at 127.0.0.2:8265: handshake unreachable;"
        ),
        "the runtime's reason, not the app's timeout: {line}"
    );
    let runtime = json(&out.join("runtime-report.json"));
    assert_eq!(
        runtime["remoting"]["disconnects"],
        serde_json::json!(["handshake unreachable"])
    );
    assert_eq!(runtime["frames_submitted"], 0);
}

#[test]
fn a_scripted_disconnect_loses_the_session_and_the_app_says_so() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let out = dir.path().join("runtime");
    let report = dir.path().join("xr.json");
    let disconnect = dir.path().join("disconnect.txt");
    std::fs::write(&disconnect, "1.0 disconnect 17\n").expect("a script");
    let settings = remoting_environment(&disconnect, &out);
    let output = run_on_runtime(
        &manifest,
        &settings,
        &[
            "xr",
            "--remote",
            "127.0.0.1",
            "--frames",
            "240",
            "--size",
            "65x49",
            "--report",
            report.to_str().expect("UTF-8"),
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(3),
        "the runtime stopped under the session; stderr:\n{}",
        text(&output.stderr)
    );
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("holographic remoting: DISCONNECTED (connection lost)"),
        "stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("error: the OpenXR runtime stopped (session lost) after 6"),
        "stderr:\n{stderr}"
    );
    let xr_report = json(&report);
    assert_eq!(xr_report["ended"], "session_lost");
    let states = xr_report["session_states"].as_array().expect("states");
    assert_eq!(states.last(), Some(&Value::from("LOSS_PENDING")));
    let frames = xr_report["frames"].as_u64().expect("frames");
    assert!(
        (60..=62).contains(&frames),
        "the session ran until 1.0 s: {frames} frames"
    );
    let runtime = json(&out.join("runtime-report.json"));
    assert_eq!(
        runtime["remoting"]["disconnects"],
        serde_json::json!(["connection lost"])
    );
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
}

#[test]
fn a_script_event_the_runtime_cannot_play_stops_instance_creation_in_one_line() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let out = dir.path().join("runtime");
    let output = run_on_runtime(
        &manifest,
        &environment(&script("select-and-tap.txt"), "65x49", 1, "64x48", &out),
        &["xr", "--frames", "10"],
    );
    assert!(
        !output.status.success(),
        "xr with an unplayable script succeeded"
    );
    let stderr = text(&output.stderr);
    let runtime_lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("holoterrain-testrt:"))
        .collect();
    assert_eq!(
        runtime_lines.len(),
        1,
        "one line from the runtime:\n{stderr}"
    );
    assert!(
        runtime_lines[0].contains(
            "line 2: `select` presses a controller's button, and a HoloLens 2 has no controllers"
        ) && runtime_lines[0].ends_with("xrCreateInstance fails"),
        "{}",
        runtime_lines[0]
    );
    assert!(
        stderr
            .lines()
            .any(|line| line.starts_with("error: ") && line.contains("xrCreateInstance")),
        "the app names the failed call:\n{stderr}"
    );
    assert!(
        !out.join("runtime-report.json").exists(),
        "no instance, no report"
    );
}

/// A child process that is killed and reaped if the test ends (or fails)
/// while it still runs.
struct KilledOnDrop(std::process::Child);

impl Drop for KilledOnDrop {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Starts `holoterrain xr ARGS` on the test runtime set up by `settings`,
/// its stderr piped.
fn spawn_on_runtime(manifest: &Path, settings: &[(&str, String)], args: &[&str]) -> KilledOnDrop {
    let child = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .arg("xr")
        .args(args)
        .env("XR_RUNTIME_JSON", manifest)
        .envs(settings.iter().map(|(name, value)| (*name, value.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start holoterrain xr");
    KilledOnDrop(child)
}

/// What is left of `child`'s stderr.
fn rest_of_stderr(child: &mut std::process::Child) -> String {
    let mut rest = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        std::io::Read::read_to_string(&mut stderr, &mut rest).expect("read stderr");
    }
    rest
}

#[test]
fn a_runtime_that_stops_answering_ends_the_run_within_the_limit_with_its_report() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let report = dir.path().join("xr.json");
    let started = Instant::now();
    let mut run = spawn_on_runtime(
        &manifest,
        &hanging_environment(30, &dir.path().join("runtime")),
        &[
            "--frames",
            "240",
            "--size",
            "65x49",
            "--runtime-timeout",
            "1",
            "--report",
            report.to_str().expect("UTF-8"),
        ],
    );
    let status = wait_at_most(&mut run.0, Duration::from_secs(1 + 5));
    let took = started.elapsed();
    if status.is_none() {
        let _ = run.0.kill();
    }
    let stderr = rest_of_stderr(&mut run.0);
    let Some(status) = status else {
        panic!("still running {took:?} after it started, with a 1 s limit; stderr:\n{stderr}");
    };
    let xr_report = json(&report);
    let line = assert_ended_by_watchdog(
        status.code(),
        &stderr,
        "error: the OpenXR runtime stopped answering: no answer to xrWaitFrame for ",
        &report,
        &xr_report,
        "runtime_unresponsive",
    );
    assert!(
        line.contains(" s (--runtime-timeout 1) after 30 rendered frames;"),
        "{line}"
    );
    assert_eq!(
        xr_report["frames"], 30,
        "the report has every frame before the runtime stopped answering"
    );
}

#[test]
fn ctrl_c_while_the_runtime_is_not_answering_ends_the_run_at_once_with_its_report() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let report = dir.path().join("xr.json");
    let mut run = spawn_on_runtime(
        &manifest,
        &hanging_environment(10, &dir.path().join("runtime")),
        &[
            "--size",
            "65x49",
            "--runtime-timeout",
            "0",
            "--report",
            report.to_str().expect("UTF-8"),
        ],
    );
    let child = &mut run.0;
    let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
    let mut text_so_far = String::new();
    while !text_so_far.contains("xrWaitFrame of frame 10 never returns") {
        let read = stderr
            .read_line(&mut text_so_far)
            .expect("read holoterrain's stderr");
        assert!(read > 0, "the runtime never hung; stderr:\n{text_so_far}");
    }
    // Without a limit nothing but an interrupt ends the wait, however long
    // the call has been blocked.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        matches!(child.try_wait(), Ok(None)),
        "--runtime-timeout 0 ended the run"
    );
    signal(child.id(), "INT");
    let status = wait_at_most(child, Duration::from_secs(5));
    if status.is_none() {
        let _ = child.kill();
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("read the rest");
    let stderr = text_so_far + &rest;
    let Some(status) = status else {
        panic!("still running 5 s after SIGINT; stderr:\n{stderr}");
    };
    let xr_report = json(&report);
    let line = assert_ended_by_watchdog(
        status.code(),
        &stderr,
        "error: interrupted while the OpenXR runtime was not answering: no answer to xrWaitFrame for ",
        &report,
        &xr_report,
        "interrupted",
    );
    assert!(line.contains(" s after 10 rendered frames;"), "{line}");
    assert_eq!(xr_report["frames"], 10);
}
