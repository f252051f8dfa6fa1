//! `holoterrain xr` on the project's HoloLens 2-like test runtime, Linux
//! build (Vulkan; scripts/build-test-runtime.sh): the run the runtime's
//! scripted wearer makes is the simulator's run, frame for frame and pixel
//! for pixel, with zero violations and zero validation messages; emulated
//! Holographic Remoting connects, refuses another address in one line, and
//! a scripted disconnect loses the session; a script the runtime cannot
//! play stops it at xrCreateInstance in one line.
//!
//! Without the built runtime the tests print why they are skipped, unless
//! env CI is set, when they fail instead.

mod support {
    pub mod ci;
    pub mod images;
    pub mod output;
    pub mod testrt;
}

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::output::{assert_success, one_error_line, text};
use support::testrt::{
    assert_images_match, assert_same_run, data, environment, json, manifest, remoting_environment,
    script,
};

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
        // A run without --state keeps its placement here, not in the user's folder.
        .env(
            "XDG_STATE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-state"),
        )
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
        xr_report["placements"], sim_report["placements"],
        "placed ahead of the gaze at frame 0 on both"
    );
    assert_eq!(xr_report["surfaces"], "XR_MSFT_scene_understanding");
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

/// `holoterrain sim` with the test runtime's settings for `script` in the
/// table room, keeping its placement in `state`; its report.
fn sim_in_the_table_room(script: &Path, frames: &str, state: &Path, out: &Path) -> Value {
    let sim = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--frames", frames, "--size", MAP, "--seed"])
        .arg(SEED.to_string())
        .args(["--resolution", RESOLUTION, "--every", "30", "--script"])
        .arg(script)
        .arg("--room")
        .arg(data("rooms/table.txt"))
        .arg("--state")
        .arg(state)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run holoterrain sim");
    assert_success(&sim, "holoterrain sim");
    json(&out.join("report.json"))
}

/// How the test runtime offers the room's planes.
#[derive(Clone, Copy)]
enum Planes {
    /// XR_MSFT_scene_understanding, as HoloLens 2.
    SceneUnderstanding,
    /// XR_EXT_plane_detection, as other headsets.
    PlaneDetection,
}

/// `holoterrain xr` on the test runtime with `script` in the table room,
/// keeping its placement in `state` (and the runtime its anchor store in
/// `runtime_out`), with `extra` arguments; its report.
fn xr_in_the_table_room(
    manifest: &Path,
    script: &Path,
    frames: &str,
    state: &Path,
    runtime_out: &Path,
    extra: &[&str],
) -> Value {
    xr_in_the_table_room_with(
        Planes::SceneUnderstanding,
        manifest,
        script,
        frames,
        state,
        runtime_out,
        extra,
    )
}

/// [`xr_in_the_table_room`] with the planes offered as `planes` says.
fn xr_in_the_table_room_with(
    planes: Planes,
    manifest: &Path,
    script: &Path,
    frames: &str,
    state: &Path,
    runtime_out: &Path,
    extra: &[&str],
) -> Value {
    let report = runtime_out.with_extension("json");
    let mut settings = environment(script, MAP, SEED, RESOLUTION, runtime_out);
    settings.push((
        "HOLOTERRAIN_TESTRT_ROOM",
        data("rooms/table.txt").display().to_string(),
    ));
    let planes = match planes {
        Planes::SceneUnderstanding => "msft",
        Planes::PlaneDetection => "ext",
    };
    settings.push(("HOLOTERRAIN_TESTRT_PLANES", planes.to_owned()));
    let mut args = vec![
        "xr",
        "--frames",
        frames,
        "--size",
        MAP,
        "--seed",
        "5",
        "--validation",
        "--state",
        state.to_str().expect("a UTF-8 path"),
        "--report",
        report.to_str().expect("a UTF-8 path"),
    ];
    args.extend(extra);
    let xr = run_on_runtime(manifest, &settings, &args);
    assert_success(&xr, "holoterrain xr on the test runtime in the table room");
    json(&report)
}

#[test]
fn placements_on_the_test_runtime_are_the_simulators_and_the_anchor_survives_a_second_run() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let path = |name: &str| dir.path().join(name);
    let wearer = script("placement-wearer.txt");
    let sim_first = sim_in_the_table_room(&wearer, FRAMES, &path("sim-state"), &path("sim-1"));
    let xr_first = xr_in_the_table_room(
        &manifest,
        &wearer,
        FRAMES,
        &path("xr-state"),
        &path("runtime"),
        &[],
    );
    assert_same_run(&xr_first, &sim_first);
    assert_eq!(xr_first["placements"], sim_first["placements"]);
    let causes: Vec<&str> = sim_first["placements"]
        .as_array()
        .expect("placements")
        .iter()
        .filter_map(|placement| placement["cause"].as_str())
        .collect();
    assert_eq!(causes, ["surface", "move", "move", "twohand"]);
    assert_eq!(xr_first["hologram_scale"], sim_first["hologram_scale"]);
    assert_eq!(xr_first["surfaces"], "XR_MSFT_scene_understanding");
    assert!(
        xr_first["placement_kept"]
            .as_str()
            .is_some_and(|kept| kept.starts_with("spatial anchor holoterrain.placement")),
        "{}",
        xr_first["placement_kept"]
    );
    assert_eq!(xr_first["openxr_validation_messages"], 0);
    assert_eq!(xr_first["vulkan_validation_messages"], 0);
    let runtime = json(&path("runtime").join("runtime-report.json"));
    assert_eq!(
        runtime["violations"],
        Value::Array(Vec::new()),
        "no violations"
    );
    assert_eq!(runtime["problems"], Value::Array(Vec::new()));
    assert_eq!(runtime["scene_computes"], 1);
    assert_eq!(
        runtime["anchor_store"],
        serde_json::json!(["holoterrain.placement"])
    );
    assert_eq!(
        runtime["wearer"]["hologram_pose"],
        sim_first["hologram_pose"]
    );
    assert_images_match(&path("runtime"), &path("sim-1"), 1.0, 0.99);

    // The next run starts where this one ended: from the persisted anchor.
    let short = script("airtap-away.txt");
    let sim_second = sim_in_the_table_room(&short, "30", &path("sim-state"), &path("sim-2"));
    let xr_second = xr_in_the_table_room(
        &manifest,
        &short,
        "30",
        &path("xr-state"),
        &path("runtime"),
        &[],
    );
    assert_eq!(xr_second["placements"], sim_second["placements"]);
    assert_eq!(xr_second["placements"][0]["cause"], "persisted");
    let ended = &xr_first["placements"][3];
    for field in ["position", "orientation", "scale"] {
        assert_eq!(xr_second["placements"][0][field], ended[field], "{field}");
    }
    let runtime = json(&path("runtime").join("runtime-report.json"));
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
    assert_eq!(
        runtime["wearer"]["hologram_pose"],
        xr_second["hologram_pose"]
    );

    // Forgotten: placed afresh, on the table, and the store is empty.
    let forgotten = xr_in_the_table_room(
        &manifest,
        &short,
        "30",
        &path("xr-state"),
        &path("runtime"),
        &["--forget-placement"],
    );
    assert_eq!(forgotten["placements"][0]["cause"], "surface");
    let runtime = json(&path("runtime").join("runtime-report.json"));
    assert_eq!(runtime["anchor_store"], Value::Array(Vec::new()));
    assert_eq!(
        runtime["wearer"]["hologram_pose"],
        forgotten["hologram_pose"]
    );
}

#[test]
fn planes_from_xr_ext_plane_detection_place_as_the_simulator_does() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let path = |name: &str| dir.path().join(name);
    let wearer = script("placement-wearer.txt");
    let sim = sim_in_the_table_room(&wearer, FRAMES, &path("sim-state"), &path("sim"));
    let xr = xr_in_the_table_room_with(
        Planes::PlaneDetection,
        &manifest,
        &wearer,
        FRAMES,
        &path("xr-state"),
        &path("runtime"),
        &[],
    );
    assert_eq!(xr["surfaces"], "XR_EXT_plane_detection");
    assert!(
        xr["extensions_missing"]
            .as_array()
            .is_some_and(|missing| missing.contains(&Value::from("XR_MSFT_scene_understanding"))),
        "{}",
        xr["extensions_missing"]
    );
    assert_same_run(&xr, &sim);
    assert_eq!(xr["placements"][0]["cause"], "surface");
    let runtime = json(&path("runtime").join("runtime-report.json"));
    assert_eq!(
        runtime["violations"],
        Value::Array(Vec::new()),
        "no violations"
    );
    assert_eq!(runtime["scene_computes"], 1, "one detection");
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
