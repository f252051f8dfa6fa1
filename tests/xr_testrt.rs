//! `holoterrain xr` on the project's HoloLens 2-like test runtime, Linux
//! build (Vulkan; scripts/build-test-runtime.sh): the run the runtime's
//! scripted wearer makes is the simulator's run, frame for frame and pixel
//! for pixel, with zero violations and zero validation messages. Emulated
//! Holographic Remoting: the app finds the remoting runtime itself (flag,
//! RemotingXR.json beside the program, XR_RUNTIME_JSON), connects or
//! listens, refuses another address in one line, reconnects after a
//! scripted disconnect and carries on as the simulator does, gives up after
//! `--remote-retries` with exit 3, and hears "new terrain" through the
//! emulated speech extension. A script the runtime cannot play stops it at
//! xrCreateInstance in one line; a runtime that stops answering
//! (HOLOTERRAIN_TESTRT_HANG) ends the run within `--runtime-timeout`, or at
//! Ctrl-C, with the report. The menu's clicks play on the default ALSA
//! device (alsa-lib's file plugin, read back); with no sound card the run
//! says once that it is silent and alsa-lib prints nothing.
//!
//! Without the built runtime the tests print why they are skipped, unless
//! env CI is set, when they fail instead.

mod support {
    pub mod ci;
    pub mod images;
    pub mod lan;
    pub mod loader_output;
    pub mod output;
    pub mod process;
    pub mod testrt;
    pub mod unresponsive;
}

use std::io::{BufRead, BufReader};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::loader_output::loader_lines_then_one_error;
use support::output::{assert_success, one_error_line, text};
use support::process::{signal, wait_at_most};
use support::testrt::{
    FRAMES, MAP, PLAYER, SEED, SHARE_CODE, SHARED_HOST_SCRIPT, SHARED_WEARER_SCRIPT,
    assert_images_match, assert_joined, assert_observer_is_the_capture, assert_same_run, causes,
    data, environment, hanging_environment, json, manifest, observer_settings,
    remoting_environment, runtime_library, script, shared_host_args, shared_rooms,
    shared_wearer_settings, simulate, simulate_with_capture, with_player,
};
use support::unresponsive::assert_ended_by_watchdog;

/// Per-eye resolution of the runs compared with the simulator's.
const RESOLUTION: &str = "128x96";

/// Where Debian's openxr-layer-corevalidation puts the layer's manifest.
const CORE_VALIDATION_LAYER_PATH: &str = "/usr/share/openxr/1/api_layers/explicit.d";

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch directory")
}

/// `holoterrain ARGS` with the test runtime as the OpenXR runtime, set up
/// by `settings`.
fn run_on_runtime(manifest: &Path, settings: &[(&str, String)], args: &[&str]) -> Output {
    run_on_runtime_in(None, manifest, settings, args)
}

/// [`run_on_runtime`] in the network namespace `namespace`, if given.
fn run_on_runtime_in(
    namespace: Option<&str>,
    manifest: &Path,
    settings: &[(&str, String)],
    args: &[&str],
) -> Output {
    // A run without --state keeps its placement and the landscape last grown
    // in a state folder of its own, not the user's, and not one shared with
    // the runs of other tests, which run at the same time: a landscape the
    // menu test picks would otherwise be where another test's run starts.
    let state_home = scratch();
    support::lan::command_in(namespace, env!("CARGO_BIN_EXE_holoterrain"))
        .args(args)
        .env("XR_RUNTIME_JSON", manifest)
        .env("XDG_STATE_HOME", state_home.path())
        .env("XR_API_LAYER_PATH", CORE_VALIDATION_LAYER_PATH)
        .envs(settings.iter().map(|(name, value)| (*name, value.as_str())))
        .output()
        .expect("run holoterrain")
}

/// `holoterrain xr --remote PLAYER` on the test runtime playing `script`
/// with the compared runs' settings, the Vulkan validation layer on, the
/// report in `report`, plus `more` arguments.
fn remote_run(manifest: &Path, script: &Path, out: &Path, report: &Path, more: &[&str]) -> Output {
    let settings = with_player(environment(script, MAP, SEED, RESOLUTION, out));
    let seed = SEED.to_string();
    let mut args = vec![
        "xr",
        "--remote",
        PLAYER,
        "--frames",
        FRAMES,
        "--size",
        MAP,
        "--seed",
        &seed,
        "--validation",
        "--report",
        report.to_str().expect("a UTF-8 path"),
    ];
    args.extend_from_slice(more);
    run_on_runtime(manifest, &settings, &args)
}

#[test]
fn xr_on_the_test_runtime_is_the_simulators_run_frame_for_frame() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("hololens-wearer.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    let sim_report = simulate(&wearer, RESOLUTION, &sim_out);
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
    assert_same_run(&xr_report, &sim_report);
    assert_eq!(
        causes(&sim_report),
        ["airtap", "tap", "airtap"],
        "the script's three reseeds"
    );
    let edits: Vec<(&str, bool)> = sim_report["edits"]
        .as_array()
        .expect("edits")
        .iter()
        .map(|edit| (edit["kind"].as_str().unwrap(), edit["applied"] == true))
        .collect();
    assert_eq!(
        edits,
        [("trace", true), ("lift", true)],
        "the script's two edits"
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
    // A table-top scene: planar reprojection from the submitted depth, one
    // of the modes listed, and depth over 0.1 to 10 m.
    assert_eq!(
        runtime["reprojection_modes_listed"],
        serde_json::json!([
            "DEPTH",
            "PLANAR_FROM_DEPTH",
            "PLANAR_MANUAL",
            "ORIENTATION_ONLY"
        ])
    );
    assert_eq!(
        runtime["reprojection_modes"],
        serde_json::json!(["PLANAR_FROM_DEPTH"])
    );
    assert_eq!(xr_report["reprojection_mode"], "PLANAR_FROM_DEPTH");
    assert_eq!(runtime["depth_ranges"], serde_json::json!([[0.3, 10.0]]));
    assert_images_match(&runtime_out, &sim_out, 1.0, 0.99);
}

/// Mixed Reality Capture: while the runtime says the first-person observer
/// view is active (frames 60 to 90), the app draws it at the eyes' display
/// time into its own swapchain, and what the runtime reads back is the
/// simulator's capture of those frames; before and after, nothing.
#[test]
fn the_observer_view_is_drawn_while_active_and_is_the_simulators_capture() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("hololens-wearer.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    simulate_with_capture(&wearer, RESOLUTION, &sim_out);
    let report = dir.path().join("xr.json");
    let mut settings = environment(&wearer, MAP, SEED, RESOLUTION, &runtime_out);
    settings.extend(observer_settings());
    let xr = run_on_runtime(
        &manifest,
        &settings,
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
    assert_success(&xr, "holoterrain xr with the observer view active");
    let xr_report = json(&report);
    assert_eq!(xr_report["validation_messages"], 0);
    let runtime = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
    assert_eq!(runtime["problems"], Value::Array(Vec::new()));
    assert_observer_is_the_capture(&xr_report, &runtime_out, &sim_out, 1.0);
}

/// Mixed Reality Capture's observer view when the runtime changes its
/// recommended size on activation: 64×36 at session start, 160×90 from the
/// first activation (frame 10), 96×54 from the second (frame 20) and the
/// third (frame 30), each active for three frames. The app asks for the
/// size whenever the view becomes active and submits images of that size,
/// from swapchains created for the observer's view configuration
/// (XrSecondaryViewConfigurationSwapchainCreateInfoMSFT): colour and depth
/// at 160×90, made again at 96×54, and not again at the third activation,
/// whose size is the second's. Zero violations (the runtime records a
/// swapchain without the chained structure, or of another size) and zero
/// validation messages, so the swapchains replaced were let go of cleanly.
#[test]
fn the_observer_view_takes_the_size_the_runtime_gives_on_each_activation() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("hololens-wearer.txt");
    let runtime_out = dir.path().join("runtime");
    let report = dir.path().join("xr.json");
    let mut settings = environment(&wearer, MAP, SEED, RESOLUTION, &runtime_out);
    settings.extend([
        (
            "HOLOTERRAIN_TESTRT_OBSERVER",
            "10-12,20-22,30-32".to_owned(),
        ),
        ("HOLOTERRAIN_TESTRT_OBSERVER_START_SIZE", "64x36".to_owned()),
        (
            "HOLOTERRAIN_TESTRT_OBSERVER_SIZE",
            "160x90,96x54".to_owned(),
        ),
    ]);
    let xr = run_on_runtime(
        &manifest,
        &settings,
        &[
            "xr",
            "--frames",
            "40",
            "--size",
            MAP,
            "--seed",
            &SEED.to_string(),
            "--validation",
            "--report",
            report.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_success(
        &xr,
        "holoterrain xr with the observer view resized on activation",
    );
    let xr_report = json(&report);
    assert_eq!(xr_report["validation_messages"], 0);
    assert_eq!(xr_report["openxr_validation_messages"], 0);
    assert_eq!(
        xr_report["observer_frames"], 9,
        "frames 10-12, 20-22, 30-32"
    );
    let runtime = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
    assert_eq!(runtime["problems"], Value::Array(Vec::new()));
    assert_eq!(
        runtime["observer_swapchains"],
        serde_json::json!([
            "160x90 colour",
            "160x90 depth",
            "96x54 colour",
            "96x54 depth"
        ])
    );
    let images: Vec<&str> = runtime["observer_images"]
        .as_array()
        .expect("observer images")
        .iter()
        .map(|image| image.as_str().expect("a name"))
        .collect();
    let frames = [10, 11, 12, 20, 21, 22, 30, 31, 32];
    assert_eq!(
        images,
        frames.map(|frame| format!("observer-{frame:05}.png"))
    );
    for (image, frame) in images.iter().zip(frames) {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(runtime_out.join(image)).expect("the observer image"),
        ));
        let info = decoder.read_info().expect("a PNG");
        let expected = if frame < 20 { (160, 90) } else { (96, 54) };
        assert_eq!(
            info.info().size(),
            expected,
            "{image}: the size given when the view became active"
        );
    }
}

/// A runtime that lists no planar reprojection gets no reprojection
/// request at all: the app asks only for a listed mode.
#[test]
fn xr_asks_for_no_reprojection_mode_the_runtime_does_not_list() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("hololens-wearer.txt");
    let runtime_out = dir.path().join("runtime");
    let report = dir.path().join("xr.json");
    let mut settings = environment(&wearer, MAP, SEED, RESOLUTION, &runtime_out);
    settings.push((
        "HOLOTERRAIN_TESTRT_REPROJECTION",
        "DEPTH,ORIENTATION_ONLY".to_owned(),
    ));
    let xr = run_on_runtime(
        &manifest,
        &settings,
        &[
            "xr",
            "--frames",
            "30",
            "--size",
            MAP,
            "--seed",
            &SEED.to_string(),
            "--report",
            report.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_success(
        &xr,
        "holoterrain xr on a runtime without planar reprojection",
    );
    let runtime = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
    assert_eq!(
        runtime["reprojection_modes_listed"],
        serde_json::json!(["DEPTH", "ORIENTATION_ONLY"])
    );
    assert_eq!(runtime["reprojection_modes"], serde_json::json!(["none"]));
    assert_eq!(json(&report)["reprojection_mode"], Value::Null);
}

/// `holoterrain sim` with the test runtime's settings for `script` in the
/// table room, keeping its placement in `state`; its report.
fn sim_in_the_table_room(script: &Path, frames: &str, state: &Path, out: &Path) -> Value {
    sim_in_room("rooms/table.txt", script, frames, state, out)
}

/// [`sim_in_the_table_room`] in the room `room` (under tests/data).
fn sim_in_room(room: &str, script: &Path, frames: &str, state: &Path, out: &Path) -> Value {
    let sim = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--frames", frames, "--size", MAP, "--seed"])
        .arg(SEED.to_string())
        .args(["--resolution", RESOLUTION, "--every", "30", "--script"])
        .arg(script)
        .arg("--room")
        .arg(data(room))
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
    let extra: Vec<&str> = ["--validation"].iter().chain(extra).copied().collect();
    let (report, _) = xr_in_room(
        "rooms/table.txt",
        planes,
        manifest,
        script,
        frames,
        state,
        runtime_out,
        &extra,
    );
    report
}

/// [`xr_in_the_table_room_with`] in the room `room` (under tests/data),
/// without the validation layers unless `extra` asks: its report and its
/// output.
#[allow(clippy::too_many_arguments)]
fn xr_in_room(
    room: &str,
    planes: Planes,
    manifest: &Path,
    script: &Path,
    frames: &str,
    state: &Path,
    runtime_out: &Path,
    extra: &[&str],
) -> (Value, Output) {
    let report = runtime_out.with_extension("json");
    let mut settings = environment(script, MAP, SEED, RESOLUTION, runtime_out);
    settings.push(("HOLOTERRAIN_TESTRT_ROOM", data(room).display().to_string()));
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
        "--state",
        state.to_str().expect("a UTF-8 path"),
        "--report",
        report.to_str().expect("a UTF-8 path"),
    ];
    args.extend(extra);
    let xr = run_on_runtime(manifest, &settings, &args);
    assert_success(&xr, "holoterrain xr on the test runtime in the table room");
    (json(&report), xr)
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
fn a_qr_code_in_the_room_reaches_the_app_as_the_simulator_hands_it_over_and_a_stale_one_does_not() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let path = |name: &str| dir.path().join(name);
    let room = "rooms/table-with-cards.txt";
    let wearer = script("look-at-card.txt");
    let sim = sim_in_room(room, &wearer, "120", &path("sim-state"), &path("sim"));
    let (xr, output) = xr_in_room(
        room,
        Planes::SceneUnderstanding,
        &manifest,
        &wearer,
        "120",
        &path("xr-state"),
        &path("runtime"),
        &["--progress"],
    );
    // The simulator: the session's card, on the frame the head looks at it
    // (1.0 s), as the room has it; never the stale card.
    let card = "holoterrain:7-guitar-orbit";
    let seen = sim["markers_seen"].as_array().expect("markers_seen");
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["text"], card);
    assert_eq!(seen[0]["frame"], 60);
    assert_eq!(seen[0]["size_m"], 0.1);
    // The app on the test runtime: the same card at the same pose, from the
    // runtime's QR code convention, converted back.
    let xr_seen = xr["markers_seen"].as_array().expect("markers_seen");
    assert_eq!(xr_seen.len(), 1, "the stale card is left out: {xr_seen:?}");
    assert_eq!(xr_seen[0]["text"], card);
    let numbers = |value: &Value| -> Vec<f64> {
        value
            .as_array()
            .expect("an array")
            .iter()
            .map(|number| number.as_f64().expect("a number"))
            .collect()
    };
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-5);
    assert!(
        close(
            &numbers(&xr_seen[0]["position"]),
            &numbers(&seen[0]["position"])
        ),
        "{} vs {}",
        xr_seen[0]["position"],
        seen[0]["position"]
    );
    let (xr_turn, sim_turn) = (
        numbers(&xr_seen[0]["orientation"]),
        numbers(&seen[0]["orientation"]),
    );
    let negated: Vec<f64> = sim_turn.iter().map(|value| -value).collect();
    assert!(
        close(&xr_turn, &sim_turn) || close(&xr_turn, &negated),
        "{xr_turn:?} vs {sim_turn:?}"
    );
    assert!((xr_seen[0]["size_m"].as_f64().expect("size") - 0.1).abs() < 1e-6);
    assert!(
        xr_seen[0]["frame"]
            .as_u64()
            .is_some_and(|frame| frame >= 60),
        "not before the head looks at it: {}",
        xr_seen[0]["frame"]
    );
    let lines = text(&output.stdout);
    assert!(
        lines
            .lines()
            .any(|line| line == format!("marker {card} 0.500 0.750 -2.300")),
        "--progress:\n{lines}"
    );
    assert!(!lines.contains("holoterrain:3-old-card"), "{lines}");
    assert!(
        xr["extensions_enabled"]
            .as_array()
            .is_some_and(|enabled| enabled.contains(&Value::from("XR_MSFT_scene_marker"))),
        "{}",
        xr["extensions_enabled"]
    );
    // The runtime listed both cards (the stale one with its old
    // lastSeenTime) and the app fetched both texts: it dropped the stale
    // one by its time, not for want of it.
    let runtime = json(&path("runtime").join("runtime-report.json"));
    assert_eq!(
        runtime["violations"],
        Value::Array(Vec::new()),
        "no violations"
    );
    let markers = &runtime["scene_markers"];
    assert_eq!(
        markers["listed"],
        serde_json::json!(["holoterrain:3-old-card", card]),
        "{markers}"
    );
    assert_eq!(
        markers["strings_fetched"],
        serde_json::json!(["holoterrain:3-old-card", card]),
        "{markers}"
    );
    assert!(
        markers["computes"]
            .as_u64()
            .is_some_and(|computes| computes >= 2),
        "recomputed as the run goes on: {markers}"
    );
    assert_eq!(runtime["scene_computes"], 1, "the planes once");
    // Both runs placed the hologram alike: the cards change nothing else.
    assert_eq!(xr["placements"], sim["placements"]);

    // With the validation layers: no message. Debian's OpenXR core
    // validation layer (1.0.20) predates XR_MSFT_scene_marker and would
    // fail its calls, so the app leaves it off then and reads no codes; a
    // layer that knows it is validated with the codes read.
    let (validated, _) = xr_in_room(
        room,
        Planes::SceneUnderstanding,
        &manifest,
        &wearer,
        "120",
        &path("xr-state-validated"),
        &path("runtime-validated"),
        &["--validation"],
    );
    assert_eq!(validated["openxr_validation_messages"], 0);
    assert_eq!(validated["vulkan_validation_messages"], 0);
    assert_eq!(validated["placements"], sim["placements"]);
    let enabled = validated["extensions_enabled"]
        .as_array()
        .expect("extensions_enabled")
        .contains(&Value::from("XR_MSFT_scene_marker"));
    let runtime = json(&path("runtime-validated").join("runtime-report.json"));
    assert_eq!(
        runtime["violations"],
        Value::Array(Vec::new()),
        "no violations"
    );
    eprintln!("XR_MSFT_scene_marker enabled under the core validation layer: {enabled}");
    if enabled {
        assert_eq!(validated["markers_seen"], xr["markers_seen"]);
    } else {
        assert_eq!(validated["markers_seen"], Value::Array(Vec::new()));
        assert_eq!(runtime["scene_markers"]["computes"], 0);
    }
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
    assert_eq!(runtime["remoting"]["codec"], "any", "the default codec");
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
}

/// `xr --remote 127.0.0.1 --codec CODEC` for 30 frames from a computer
/// that encodes `pc_codecs` to a player that decodes `player_codecs`: its
/// output, the runtime's report and the app's (null when not written).
fn remote_with_codec(
    manifest: &Path,
    codec: &str,
    pc_codecs: &str,
    player_codecs: &str,
) -> (Output, Value, Value) {
    let dir = scratch();
    let out = dir.path().join("runtime");
    let report = dir.path().join("xr.json");
    let mut settings = remoting_environment(&script("airtap-away.txt"), &out);
    settings.push(("HOLOTERRAIN_TESTRT_PC_CODECS", pc_codecs.into()));
    settings.push(("HOLOTERRAIN_TESTRT_PLAYER_CODECS", player_codecs.into()));
    let output = run_on_runtime(
        manifest,
        &settings,
        &[
            "xr",
            "--remote",
            "127.0.0.1",
            "--codec",
            codec,
            "--frames",
            "30",
            "--size",
            "65x49",
            "--report",
            report.to_str().expect("UTF-8"),
        ],
    );
    let xr_report = if report.exists() {
        json(&report)
    } else {
        Value::Null
    };
    (output, json(&out.join("runtime-report.json")), xr_report)
}

#[test]
fn the_codec_asked_for_is_the_one_the_player_is_given() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let (output, runtime, xr_report) = remote_with_codec(&manifest, "h264", "h264,h265", "h264");
    assert_success(&output, "xr --remote --codec h264 to a player with H.264");
    assert_eq!(runtime["remoting"]["codec"], "h264");
    assert_eq!(runtime["remoting"]["connected"], true);
    assert_eq!(xr_report["remoting"]["codec"], "h264");
    assert_eq!(xr_report["frames"], 30);
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
}

/// [`remote_with_codec`] for a run that must fail: its one error line and
/// the runtime's report.
fn codec_failure(
    manifest: &Path,
    codec: &str,
    pc_codecs: &str,
    player_codecs: &str,
) -> (String, Value) {
    let (output, runtime, _) = remote_with_codec(manifest, codec, pc_codecs, player_codecs);
    let what = format!(
        "--codec {codec} from a computer with {pc_codecs} to a player with {player_codecs}"
    );
    (one_error_line(&output, &what), runtime)
}

#[test]
fn a_codec_the_player_or_the_computer_lacks_ends_in_one_line_that_says_what_to_try() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    // The player lacks H.265: its handshake says so.
    let (line, runtime) = codec_failure(&manifest, "h265", "h264,h265", "h264");
    assert_eq!(
        line,
        "error: Holographic Remoting with 127.0.0.1:8265: the player cannot decode the video codec of --codec h265 (video codec not available (XR_REMOTING_DISCONNECT_REASON_VIDEO_CODEC_NOT_AVAILABLE_MSFT)); try --codec h264"
    );
    assert_eq!(runtime["remoting"]["codec"], "h265");
    assert_eq!(
        runtime["remoting"]["disconnects"],
        serde_json::json!(["video codec not available"])
    );
    assert_eq!(runtime["frames_submitted"], 0);
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));

    // This computer lacks H.265: connecting fails before any attempt.
    let (line, runtime) = codec_failure(&manifest, "h265", "h264", "h264,h265");
    assert_eq!(
        line,
        "error: Holographic Remoting: this computer cannot encode the video codec of --codec h265 (xrRemotingConnectMSFT: XR_ERROR_REMOTING_CODEC_NOT_FOUND_MSFT); try --codec h264, or install Microsoft's HEVC Video Extensions on this computer"
    );
    assert_eq!(
        runtime["remoting"]["connects"],
        serde_json::json!([]),
        "no attempt was made"
    );
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));

    // Asked for H.264 where only H.265 is encoded, the advice is not h264.
    let (line, _) = codec_failure(&manifest, "h264", "h265", "h264,h265");
    assert!(
        line.ends_with("(xrRemotingConnectMSFT: XR_ERROR_REMOTING_CODEC_NOT_FOUND_MSFT); try --codec any, and update the graphics driver (the card needs H.264 hardware encoding)"),
        "{line}"
    );

    // With any, a codec both sides have is taken; with none in common the
    // handshake fails, not the connect call.
    let (output, runtime, _) = remote_with_codec(&manifest, "any", "h264", "h264,h265");
    assert_success(
        &output,
        "xr --remote --codec any from a computer with H.264 only",
    );
    assert_eq!(runtime["remoting"]["connected"], true);
    let (line, runtime) = codec_failure(&manifest, "any", "h264", "h265");
    assert!(
        line.starts_with("error: Holographic Remoting with 127.0.0.1:8265: the player cannot decode the video codec of --codec any"),
        "{line}"
    );
    assert_eq!(
        runtime["remoting"]["connects"],
        serde_json::json!(["127.0.0.1:8265"])
    );
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
            "error: cannot reach the Holographic Remoting Player at 127.0.0.2:8265: handshake unreachable (XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT);"
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
fn a_scripted_disconnect_mid_run_reconnects_and_ends_as_the_simulators_run() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("remote-disconnect.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    let sim_report = simulate(&wearer, RESOLUTION, &sim_out);
    let report = dir.path().join("xr.json");
    let output = remote_run(&manifest, &wearer, &runtime_out, &report, &[]);
    assert_success(&output, "xr --remote with a scripted disconnect");
    let stderr = text(&output.stderr);
    for line in [
        "holographic remoting: CONNECTED to 127.0.0.1:8265",
        "holographic remoting: DISCONNECTED (XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT: connection lost)",
        "holographic remoting: reconnecting to 127.0.0.1:8265 in 1 s, attempt 1 after XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT; Ctrl-C to stop",
    ] {
        assert!(
            stderr.lines().any(|l| l == line),
            "{line:?} missing:\n{stderr}"
        );
    }
    assert_eq!(
        stderr.matches("holographic remoting: CONNECTED").count(),
        2,
        "connected twice:\n{stderr}"
    );
    assert!(!stderr.contains("monado"), "{stderr}");

    let xr_report = json(&report);
    assert_eq!(causes(&sim_report), ["airtap", "airtap"]);
    assert_same_run(&xr_report, &sim_report);
    assert_eq!(xr_report["ended"], "frame_limit");
    assert_eq!(
        xr_report["anchored"], true,
        "pinned again in the new session"
    );
    assert_eq!(xr_report["vulkan_validation_messages"], 0);
    let remoting = &xr_report["remoting"];
    assert_eq!(remoting["mode"], "connect");
    assert_eq!(remoting["reconnect_attempts"], 1);
    let connections = remoting["connections"].as_array().expect("connections");
    assert_eq!(connections.len(), 2, "{remoting}");
    assert_eq!(
        connections[0]["ended"],
        "XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT"
    );
    assert_eq!(connections[1]["ended"], Value::Null, "connected at the end");
    let first = connections[0]["frames"].as_u64().expect("frames");
    assert!(
        (89..=91).contains(&first),
        "the drop at 1.5 s: {first} frames"
    );
    assert_eq!(connections[1]["first_frame"], first);
    assert_eq!(
        first + connections[1]["frames"].as_u64().expect("frames"),
        240
    );
    let states: Vec<&str> = xr_report["session_states"]
        .as_array()
        .expect("states")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let lost = states
        .iter()
        .position(|&state| state == "LOSS_PENDING")
        .expect("the first session was lost");
    assert_eq!(
        &states[lost + 1..lost + 3],
        ["IDLE", "READY"],
        "a new session"
    );

    let runtime = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
    assert_eq!(runtime["problems"], Value::Array(Vec::new()));
    assert_eq!(runtime["remoting"]["connections"], 2);
    assert_eq!(
        runtime["remoting"]["disconnects"],
        serde_json::json!(["connection lost"])
    );
    assert_eq!(runtime["frames_submitted"], 240);
    assert_eq!(
        runtime["wearer"]["hologram_pose"],
        sim_report["hologram_pose"]
    );
    assert_images_match(&runtime_out, &sim_out, 1.0, 0.99);
}

#[test]
fn reconnecting_gives_up_after_the_retries_asked_for_with_exit_3_and_the_report() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let out = dir.path().join("runtime");
    let report = dir.path().join("xr.json");
    let refusing = dir.path().join("refusing.txt");
    std::fs::write(&refusing, "1.0 disconnect 17 5\n").expect("a script");
    let output = remote_run(
        &manifest,
        &refusing,
        &out,
        &report,
        &["--remote-retries", "2"],
    );
    assert_eq!(
        output.status.code(),
        Some(3),
        "the connection is lost for good; stderr:\n{}",
        text(&output.stderr)
    );
    let stderr = text(&output.stderr);
    let attempts: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("holographic remoting: reconnecting"))
        .collect();
    assert_eq!(
        attempts,
        [
            "holographic remoting: reconnecting to 127.0.0.1:8265 in 1 s, attempt 1 of 2 after XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT; Ctrl-C to stop",
            "holographic remoting: reconnecting to 127.0.0.1:8265 in 2 s, attempt 2 of 2 after XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_CONNECTION_REFUSED_MSFT; Ctrl-C to stop",
        ]
    );
    let last = stderr.lines().last().expect("an error line");
    assert!(
        last.starts_with("error: the Holographic Remoting connection to 127.0.0.1:8265 ended (connection lost (XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT)) after 6")
            && last.contains("and 2 attempts to reconnect failed (the last: handshake connection refused (XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_CONNECTION_REFUSED_MSFT))")
            && last.contains(&format!("report written to {}", report.display())),
        "{last}"
    );
    assert!(!stderr.contains("monado"), "{stderr}");
    let xr_report = json(&report);
    assert_eq!(xr_report["ended"], "remoting_lost");
    assert_eq!(xr_report["remoting"]["reconnect_attempts"], 2);
    assert_eq!(
        xr_report["remoting"]["connections"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let runtime = json(&out.join("runtime-report.json"));
    assert_eq!(runtime["remoting"]["refused"], 2);
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
}

#[test]
fn with_no_retries_the_first_drop_ends_the_run_with_exit_3() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let report = dir.path().join("xr.json");
    let output = remote_run(
        &manifest,
        &script("remote-disconnect.txt"),
        &dir.path().join("runtime"),
        &report,
        &["--remote-retries", "0"],
    );
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(!stderr.contains("reconnecting to"), "{stderr}");
    assert!(
        stderr
            .lines()
            .last()
            .is_some_and(|line| line.contains("reconnecting is off (--remote-retries 0)")),
        "{stderr}"
    );
    assert_eq!(json(&report)["ended"], "remoting_lost");
}

#[test]
fn remoting_xr_json_beside_the_program_is_found_and_plain_xr_does_not_use_it() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let program_dir = dir.path().join("program");
    std::fs::create_dir(&program_dir).expect("a program folder");
    // A hard link: the program's own path is then this folder.
    let program = program_dir.join("holoterrain");
    std::fs::hard_link(env!("CARGO_BIN_EXE_holoterrain"), &program).expect("link the program");
    let library = runtime_library(&manifest);
    std::fs::copy(
        &library,
        program_dir.join(library.file_name().expect("a name")),
    )
    .expect("copy the runtime");
    std::fs::copy(&manifest, program_dir.join("RemotingXR.json")).expect("copy the manifest");
    // No runtime for the loader to find anywhere else.
    let empty = dir.path().join("no-config");
    std::fs::create_dir(&empty).expect("an empty folder");
    let run = |out: &Path, args: &[&str]| {
        Command::new(&program)
            .args(args)
            .env_remove("XR_RUNTIME_JSON")
            .env("XDG_CONFIG_HOME", &empty)
            .env("XDG_CONFIG_DIRS", &empty)
            .envs(with_player(environment(
                &script("airtap-away.txt"),
                "65x49",
                1,
                "64x48",
                out,
            )))
            .output()
            .expect("run the linked program")
    };
    let report = dir.path().join("xr.json");
    let remote_out = dir.path().join("remote");
    let remote = run(
        &remote_out,
        &[
            "xr",
            "--remote",
            PLAYER,
            "--frames",
            "10",
            "--size",
            "65x49",
            "--report",
            report.to_str().expect("UTF-8"),
        ],
    );
    assert_success(
        &remote,
        "xr --remote with RemotingXR.json beside the program",
    );
    let remoting = &json(&report)["remoting"];
    assert_eq!(remoting["runtime_found_by"], "beside the program");
    assert_eq!(
        remoting["runtime_manifest"],
        program_dir.join("RemotingXR.json").display().to_string()
    );
    assert_eq!(
        json(&remote_out.join("runtime-report.json"))["frames_submitted"],
        10
    );

    let plain_out = dir.path().join("plain");
    let plain = run(&plain_out, &["xr", "--frames", "10"]);
    assert_eq!(plain.status.code(), Some(1), "{}", text(&plain.stderr));
    let line = loader_lines_then_one_error(&plain, "plain xr with RemotingXR.json beside it");
    assert!(
        line.starts_with("error: no OpenXR runtime is active"),
        "{line}"
    );
    assert!(
        !plain_out.join("runtime-report.json").exists(),
        "plain xr used the remoting runtime"
    );
}

#[test]
fn listening_takes_the_player_that_connects_and_renders() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let out = dir.path().join("runtime");
    let report = dir.path().join("xr.json");
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args([
            "xr", "--listen", "--frames", "30", "--size", "65x49", "--report",
        ])
        .arg(&report)
        .arg("--remote-runtime")
        .arg(&manifest)
        .env_remove("XR_RUNTIME_JSON")
        .envs(remoting_environment(&script("airtap-away.txt"), &out))
        .output()
        .expect("run holoterrain");
    assert_success(&output, "xr --listen");
    let stderr = text(&output.stderr);
    for line in [
        "holographic remoting: LISTENING on port 8265 (and 8266 for the stream) for a player to connect; Ctrl-C to stop",
        "holographic remoting: CONNECTED (a player connected to 0.0.0.0:8265)",
    ] {
        assert!(
            stderr.lines().any(|l| l == line),
            "{line:?} missing:\n{stderr}"
        );
    }
    let xr_report = json(&report);
    assert_eq!(xr_report["frames"], 30);
    assert_eq!(xr_report["remoting"]["mode"], "listen");
    assert_eq!(xr_report["remoting"]["address"], "0.0.0.0:8265");
    assert_eq!(
        xr_report["remoting"]["runtime_found_by"],
        "--remote-runtime"
    );
    let runtime = json(&out.join("runtime-report.json"));
    assert_eq!(
        runtime["remoting"]["listens"],
        serde_json::json!(["0.0.0.0:8265"])
    );
    assert_eq!(runtime["remoting"]["connects"], serde_json::json!([]));
    assert_eq!(runtime["violations"], Value::Array(Vec::new()));
}

#[test]
fn saying_new_terrain_over_remoting_reseeds_with_cause_voice_as_in_the_simulator() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("remote-voice.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    let sim_report = simulate(&wearer, RESOLUTION, &sim_out);
    assert_eq!(causes(&sim_report), ["voice", "airtap"]);
    let report = dir.path().join("xr.json");
    let output = remote_run(&manifest, &wearer, &runtime_out, &report, &["--progress"]);
    assert_success(&output, "xr --remote with words said");
    let xr_report = json(&report);
    assert_same_run(&xr_report, &sim_report);
    assert_eq!(xr_report["remoting"]["speech"], true);
    assert!(
        xr_report["extensions_enabled"]
            .as_array()
            .expect("extensions")
            .contains(&Value::from("XR_MSFT_holographic_remoting_speech"))
    );
    let voice_reseed = format!("reseed voice {}", sim_report["seeds"][1]);
    assert!(
        text(&output.stdout)
            .lines()
            .any(|line| line == voice_reseed),
        "{voice_reseed:?} on stdout:\n{}",
        text(&output.stdout)
    );
    let speech = &json(&runtime_out.join("runtime-report.json"))["speech"];
    assert_eq!(speech["languages"], serde_json::json!(["en-US"]));
    assert_eq!(speech["recognized"], serde_json::json!(["new terrain"]));
    assert_eq!(speech["fetched"], serde_json::json!(["new terrain"]));
    assert_eq!(
        speech["not_recognized"],
        serde_json::json!(["something else (not in the dictionary)"])
    );
    assert_images_match(&runtime_out, &sim_out, 1.0, 0.99);
}

/// `holoterrain generate --replay LOG --format f32` into `out`, read back.
fn replayed_heights(log: &Path, out: &Path) -> Vec<u8> {
    let replay = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["generate", "--format", "f32", "--replay"])
        .arg(log)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run generate --replay");
    assert_success(&replay, "generate --replay");
    std::fs::read(out).expect("the replayed terrain")
}

/// A report's (moment, length) of each scrub.
fn scrubs(report: &Value) -> Vec<(Value, Value)> {
    report["scrubs"]
        .as_array()
        .expect("scrubs")
        .iter()
        .map(|scrub| (scrub["moment"].clone(), scrub["length"].clone()))
        .collect()
}

#[test]
fn undo_redo_back_forward_and_a_save_opened_on_the_test_runtime_are_the_simulators() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("remote-history.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    let sim_report = simulate(&wearer, RESOLUTION, &sim_out);
    assert_eq!(sim_report["undos"].as_array().map(Vec::len), Some(1));
    assert_eq!(sim_report["redos"].as_array().map(Vec::len), Some(1));
    let sim_scrubs = scrubs(&sim_report);
    assert_eq!(sim_scrubs.len(), 3, "{sim_scrubs:?}");
    assert_eq!(
        sim_scrubs[2].0, sim_scrubs[2].1,
        "the second forward is now"
    );
    let report = dir.path().join("xr.json");
    let output = remote_run(&manifest, &wearer, &runtime_out, &report, &[]);
    assert_success(&output, "xr --remote saying undo, redo, back and forward");
    let xr_report = json(&report);
    assert_same_run(&xr_report, &sim_report);
    assert_eq!(scrubs(&xr_report), sim_scrubs);
    assert_eq!(xr_report["redos"], sim_report["redos"]);
    let sim_heights = std::fs::read(sim_out.join("terrain.f32")).expect("the terrain");
    assert_eq!(
        replayed_heights(
            &report.with_file_name("commands.jsonl"),
            &dir.path().join("xr.f32")
        ),
        sim_heights,
        "xr's log grows the simulator's terrain"
    );

    // That run's log, opened by xr and by the simulator: the same world.
    let save = dir.path().join("save-001");
    std::fs::create_dir(&save).expect("a save folder");
    std::fs::copy(sim_out.join("commands.jsonl"), save.join("commands.jsonl"))
        .expect("the saved log");
    let looking = dir.path().join("looking.txt");
    std::fs::write(&looking, "# the wearer only looks\n").expect("a script");
    let (opened_sim, opened_runtime) = (dir.path().join("opened-sim"), dir.path().join("opened"));
    let sim = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args([
            "sim",
            "--frames",
            "60",
            "--size",
            MAP,
            "--resolution",
            RESOLUTION,
        ])
        .arg("--open")
        .arg(&save)
        .arg("--script")
        .arg(&looking)
        .arg("--out")
        .arg(&opened_sim)
        .output()
        .expect("run holoterrain sim --open");
    assert_success(&sim, "sim --open");
    let opened_report = dir.path().join("opened.json");
    let xr = run_on_runtime(
        &manifest,
        &environment(&looking, MAP, SEED, RESOLUTION, &opened_runtime),
        &[
            "xr",
            "--frames",
            "60",
            "--size",
            MAP,
            "--open",
            save.to_str().expect("a UTF-8 path"),
            "--validation",
            "--report",
            opened_report.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_success(&xr, "xr --open on the test runtime");
    let xr_opened = json(&opened_report);
    let sim_opened = json(&opened_sim.join("report.json"));
    // The air-tap, the lift, undo, redo and three scrubs.
    assert_eq!(
        xr_opened["opened"][0]["commands"], 7,
        "{}",
        xr_opened["opened"]
    );
    assert_eq!(
        xr_opened["opened"][0]["commands"],
        sim_opened["opened"][0]["commands"]
    );
    assert_eq!(xr_opened["iterations"], sim_opened["iterations"]);
    assert_eq!(
        replayed_heights(
            &opened_report.with_file_name("commands.jsonl"),
            &dir.path().join("xr-opened.f32")
        ),
        std::fs::read(opened_sim.join("terrain.f32")).expect("the terrain"),
        "xr goes on from the save as the simulator does"
    );
}

/// The report's `ui` presses as (frame, label, how, did).
fn ui_presses(report: &Value) -> Vec<(Value, Value, Value, Value)> {
    report["ui"]
        .as_array()
        .expect("ui")
        .iter()
        .map(|press| {
            (
                press["frame"].clone(),
                press["label"].clone(),
                press["how"].clone(),
                press["did"].clone(),
            )
        })
        .collect()
}

#[test]
fn the_menu_and_panel_over_remoting_press_as_in_the_simulator_and_a_label_said_presses_it() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("remote-menu.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    let sim_report = simulate(&wearer, RESOLUTION, &sim_out);
    let sim_presses = ui_presses(&sim_report);
    let hows: Vec<&Value> = sim_presses.iter().map(|press| &press.2).collect();
    assert_eq!(hows, ["poke", "ray", "poke", "voice"], "{sim_presses:?}");
    assert_eq!(causes(&sim_report), ["menu"]);
    let report = dir.path().join("xr.json");
    let output = remote_run(&manifest, &wearer, &runtime_out, &report, &[]);
    assert_success(&output, "xr --remote pressing the menu");
    let xr_report = json(&report);
    assert_same_run(&xr_report, &sim_report);
    assert_eq!(ui_presses(&xr_report), sim_presses);
    assert_eq!(xr_report["undos"], sim_report["undos"]);
    let speech = &json(&runtime_out.join("runtime-report.json"))["speech"];
    assert_eq!(speech["fetched"], serde_json::json!(["pause growth"]));
    assert_images_match(&runtime_out, &sim_out, 1.0, 0.99);
}

#[test]
fn next_landscape_said_over_remoting_grows_as_in_the_simulator_and_the_next_run_starts_with_it() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("remote-landscape.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    let sim_report = simulate(&wearer, RESOLUTION, &sim_out);
    assert_eq!(sim_report["recipe"], "ridges");
    assert_eq!(causes(&sim_report), ["voice", "airtap"]);
    let report = dir.path().join("xr.json");
    let state = dir.path().join("state");
    let state_arg = state.to_str().expect("a UTF-8 path");
    let output = remote_run(
        &manifest,
        &wearer,
        &runtime_out,
        &report,
        &["--state", state_arg],
    );
    assert_success(&output, "xr --remote with next landscape said");
    let xr_report = json(&report);
    assert_same_run(&xr_report, &sim_report);
    assert_eq!(xr_report["recipe"], "ridges");
    assert_eq!(xr_report["recipe_values"], sim_report["recipe_values"]);
    assert_images_match(&runtime_out, &sim_out, 1.0, 0.99);
    assert_eq!(
        std::fs::read_to_string(state.join("landscape.txt")).unwrap(),
        "ridges\n"
    );
    // The next run without --recipe (as the packaged app always runs)
    // starts with the landscape the last one ended with.
    let next_report = dir.path().join("next.json");
    let quiet = dir.path().join("quiet.txt");
    std::fs::write(&quiet, "").unwrap();
    let settings = environment(&quiet, MAP, SEED, RESOLUTION, &dir.path().join("next"));
    let next = run_on_runtime(
        &manifest,
        &settings,
        &[
            "xr",
            "--frames",
            "10",
            "--size",
            MAP,
            "--state",
            state_arg,
            "--report",
            next_report.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_success(&next, "xr without --recipe after a landscape was chosen");
    assert_eq!(json(&next_report)["recipe"], "ridges");
}

#[test]
fn bigger_smaller_and_reset_said_over_remoting_place_as_in_the_simulator() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let wearer = script("voice-placement.txt");
    let (sim_out, runtime_out) = (dir.path().join("sim"), dir.path().join("runtime"));
    let sim_report = simulate(&wearer, RESOLUTION, &sim_out);
    let report = dir.path().join("xr.json");
    let state = dir.path().join("state");
    let output = remote_run(
        &manifest,
        &wearer,
        &runtime_out,
        &report,
        &["--state", state.to_str().expect("a UTF-8 path")],
    );
    assert_success(&output, "xr --remote with bigger, smaller and reset said");
    let xr_report = json(&report);
    assert_same_run(&xr_report, &sim_report);
    let causes: Vec<&str> = xr_report["placements"]
        .as_array()
        .expect("placements")
        .iter()
        .filter_map(|placement| placement["cause"].as_str())
        .collect();
    assert_eq!(
        causes,
        ["gaze", "voice", "voice", "voice", "move", "voice"],
        "{xr_report}"
    );
    assert_eq!(xr_report["hologram_scale"], 1.0);
    let speech = &json(&runtime_out.join("runtime-report.json"))["speech"];
    assert_eq!(
        speech["recognized"],
        serde_json::json!(["bigger", "bigger", "smaller", "reset"])
    );
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

/// `holoterrain xr --join` on the test runtime (paced to the wall clock at
/// 30 Hz, as a headset is) in a simulator's shared session, each in its own
/// room with the session's card on its table, as [`assert_joined`] says:
/// the same terrain, and the hologram on the same spot of the card.
#[test]
fn xr_joins_a_simulators_shared_session_and_ends_with_its_terrain() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    // The host makes its commands once both the wearer's copy of the app
    // core and the app are in, and ends 2 s after it has ordered the
    // wearer's second air-tap (for its checksum).
    let host_script = dir.path().join("host.txt");
    std::fs::write(
        &host_script,
        format!("0 wait peers 2\n{SHARED_HOST_SCRIPT}4.5 wait ordered 6\n"),
    )
    .expect("the host's script");
    let host_out = dir.path().join("host");
    let host = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(shared_host_args(
            &host_script,
            &host_out,
            port,
            200,
            &shared_rooms().0,
        ))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the hosting simulator");
    let wearer = dir.path().join("wearer.txt");
    std::fs::write(&wearer, SHARED_WEARER_SCRIPT).expect("the wearer's script");
    let join = format!("{SHARE_CODE}@127.0.0.1:{port}");
    let mut settings =
        shared_wearer_settings(&wearer, &dir.path().join("runtime"), &shared_rooms().1);
    // The wearer's copy of the app core follows the session too (listening
    // only), so it aims where the card has put the hologram.
    settings.push(("HOLOTERRAIN_TESTRT_JOIN", join.clone()));
    let report = dir.path().join("xr").join("xr.json");
    // The joiner (20 s, its air-tap at 7 s) outlasts the host, so it has
    // all the host did.
    let xr = run_on_runtime(
        &manifest,
        &settings,
        &[
            "xr",
            "--frames",
            "600",
            "--join",
            &join,
            // Not --validation: Debian's core validation layer predates
            // XR_MSFT_scene_marker, so the app leaves the markers off under it.
            "--progress",
            "--report",
            report.to_str().expect("a UTF-8 path"),
        ],
    );
    let host = host.wait_with_output().expect("the host ends");
    assert_success(&host, "the hosting simulator");
    assert_success(&xr, "holoterrain xr --join");
    let xr_report = json(&report);
    // Peer 2: the test runtime's wearer, following, joined when the app
    // opened the runtime, just before the app itself joined.
    assert!(
        text(&xr.stdout).contains(&format!(
            "share joined the session at 127.0.0.1:{port} as peer 2"
        )),
        "{}",
        text(&xr.stdout)
    );
    // The host's four, and the wearer's two air-taps: the second, at
    // the hologram where the card put it, only hits because the wearer's
    // copy follows the session.
    assert_joined(
        &xr_report,
        &report.with_file_name("commands.jsonl"),
        &host_out,
        6,
    );
}

#[test]
fn xr_alone_joins_the_session_whose_card_it_sees_and_ends_with_its_terrain() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let Some(lan) = support::lan::Lan::new() else {
        return;
    };
    let dir = scratch();
    // The host runs on 2 s after the wearer has joined by its card (20 s).
    let host_script = dir.path().join("host.txt");
    std::fs::write(
        &host_script,
        format!("{SHARED_HOST_SCRIPT}4.5 wait peers 1\n"),
    )
    .expect("the host's script");
    let host_out = dir.path().join("host");
    // On the local network the test makes: advertised, on the default port.
    let host_args: Vec<String> =
        shared_host_args(&host_script, &host_out, 47180, 200, &shared_rooms().0)
            .into_iter()
            .filter(|arg| arg != "--unlisted")
            .collect();
    let host = support::lan::command_in(Some(&lan.names[0]), env!("CARGO_BIN_EXE_holoterrain"))
        .args(&host_args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the hosting simulator");
    // The wearer only looks at the card on its own table: no --join.
    let wearer = dir.path().join("wearer.txt");
    std::fs::write(&wearer, "1.5 head 1.6 1.55 0.1 1.2 0.72 -1.0\n").expect("the wearer's script");
    let settings = shared_wearer_settings(&wearer, &dir.path().join("runtime"), &shared_rooms().1);
    let report = dir.path().join("xr").join("xr.json");
    let xr = run_on_runtime_in(
        Some(&lan.names[1]),
        &manifest,
        &settings,
        &[
            "xr",
            "--frames",
            "600",
            "--size",
            "65x65",
            "--progress",
            "--report",
            report.to_str().expect("a UTF-8 path"),
        ],
    );
    let host = host.wait_with_output().expect("the host ends");
    assert_success(&host, "the hosting simulator");
    assert_success(&xr, "holoterrain xr alone, seeing the card");
    let said = text(&xr.stdout);
    assert!(
        said.contains(&format!("share saw the card of session {SHARE_CODE}")),
        "{said}"
    );
    assert!(
        said.contains("share joined the session at 10.77.0.1:47180 as peer 1"),
        "{said}"
    );
    let xr_report = json(&report);
    let share = &xr_report["share"];
    assert_eq!(share["role"], "peer", "{xr_report}");
    assert_eq!(share["code"], SHARE_CODE);
    assert_eq!(share["checksum_mismatches"], serde_json::json!([]));
    let host_report = json(&host_out.join("report.json"));
    assert_eq!(
        share["checksums_matched"],
        host_report["share"]["commands_ordered"]
    );
    // Its own first world's seed, then the session's.
    let seeds = xr_report["seeds"].as_array().expect("seeds");
    assert_eq!(
        &seeds[1..],
        host_report["seeds"].as_array().expect("seeds").as_slice()
    );
    // Its log from the join on replays into the host's terrain.
    let replayed = dir.path().join("replayed.f32");
    let replay = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["generate", "--format", "f32", "--replay"])
        .arg(report.with_file_name("commands.jsonl"))
        .arg("--out")
        .arg(&replayed)
        .output()
        .expect("replay the joiner's log");
    assert_success(&replay, "generate --replay of the joiner's log");
    assert_eq!(
        std::fs::read(&replayed).expect("the replayed terrain"),
        std::fs::read(host_out.join("terrain.f32")).expect("the host's terrain"),
        "the headset that joined by its card ended with another terrain"
    );
}

#[test]
fn share_session_on_xrs_hand_menu_hosts_and_a_simulator_joins_with_its_code() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
        .to_string();
    // The wearer air-taps alone, then presses "Share session" on the menu.
    let wearer = dir.path().join("wearer.txt");
    std::fs::write(
        &wearer,
        "0.5 airtap right\n1.0 palm left 1.0\n1.4 press share session poke\n",
    )
    .expect("the wearer's script");
    let mut settings = environment(&wearer, "65x65", 1, "32x24", &dir.path().join("runtime"));
    settings.push(("HOLOTERRAIN_TESTRT_RATE", "30".into()));
    settings.push(("HOLOTERRAIN_TESTRT_REALTIME", "1".into()));
    let report = dir.path().join("xr").join("xr.json");
    let mut xr = support::lan::command_in(None, env!("CARGO_BIN_EXE_holoterrain"))
        .args([
            "xr",
            "--frames",
            "300",
            "--size",
            "65x65",
            "--share-port",
            &port,
            "--unlisted",
            "--progress",
            "--report",
            report.to_str().expect("a UTF-8 path"),
        ])
        .env("XR_RUNTIME_JSON", &manifest)
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .envs(settings.iter().map(|(name, value)| (*name, value.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start holoterrain xr");
    // Its progress line gives the code; a simulator joins with it.
    let mut said = BufReader::new(xr.stdout.take().expect("piped stdout"));
    let mut line = String::new();
    let code = loop {
        line.clear();
        let read = said.read_line(&mut line).expect("read xr's output");
        assert!(read > 0, "xr ended without hosting");
        if let Some(rest) = line.strip_prefix("share hosting session ") {
            break rest.split_whitespace().next().expect("a code").to_owned();
        }
    };
    let sim_out = dir.path().join("sim");
    // The joiner stands still and ends once the headset has left.
    let still = dir.path().join("still.txt");
    std::fs::write(&still, "0.5 wait alone\n").expect("the joiner's script");
    let sim = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args([
            "sim",
            "--resolution",
            "32x24",
            "--rate",
            "30",
            "--every",
            "100000",
        ])
        .args([
            "--frames",
            "30",
            "--join",
            &format!("{code}@127.0.0.1:{port}"),
        ])
        .arg("--script")
        .arg(&still)
        .arg("--out")
        .arg(&sim_out)
        .output()
        .expect("run the joining simulator");
    // Drain the rest, so xr never blocks on a full pipe.
    std::io::copy(&mut said, &mut std::io::sink()).expect("read xr's output");
    let status = xr.wait().expect("xr ends");
    assert!(status.success(), "holoterrain xr: {status}");
    assert_success(&sim, "the joining simulator");
    let xr_report = json(&report);
    assert_eq!(xr_report["share"]["role"], "host", "{xr_report}");
    assert_eq!(xr_report["share"]["code"], code.as_str());
    let presses: Vec<&Value> = xr_report["ui"]
        .as_array()
        .expect("ui")
        .iter()
        .map(|press| &press["label"])
        .collect();
    assert_eq!(presses, ["Share session"]);
    // The air-tap made alone is the session's first command: the joiner
    // grows it, its checksum matching the one the headset took alone.
    assert_eq!(xr_report["share"]["checksums_matched"], 1, "{xr_report}");
    let sim_report = json(&sim_out.join("report.json"));
    assert_eq!(sim_report["seeds"], xr_report["seeds"]);
}

/// `holoterrain xr --remote` on the test runtime pressing the menu
/// (remote-menu.txt) with `home` as HOME (where alsa-lib reads
/// `.asoundrc`) and the log at info; its output and the report.
fn menu_run_with_home(manifest: &Path, dir: &Path, home: &Path) -> (Output, Value) {
    let mut settings = with_player(environment(
        &script("remote-menu.txt"),
        "65x49",
        1,
        "64x48",
        &dir.join("runtime"),
    ));
    settings.push(("HOME", home.display().to_string()));
    settings.push(("RUST_LOG", "info".into()));
    let report = dir.join("xr.json");
    let output = run_on_runtime(
        manifest,
        &settings,
        &[
            "xr",
            "--remote",
            PLAYER,
            "--frames",
            "240",
            "--size",
            "65x49",
            "--seed",
            "1",
            "--report",
            report.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_success(&output, "xr --remote pressing the menu");
    let report = json(&report);
    (output, report)
}

#[test]
fn the_menus_clicks_play_on_the_default_sound_device_and_with_none_the_run_is_silent() {
    let Some(manifest) = manifest("linux") else {
        return;
    };
    let dir = scratch();
    // No device: the default is a sound card that is not there, so
    // alsa-lib fails to open it, and by itself would print "ALSA lib
    // confmisc.c:...(snd_config_get_card) Cannot get card index for 31" on
    // stderr (as it prints several lines on a machine with no card at all).
    let silent_home = dir.path().join("silent-home");
    std::fs::create_dir_all(&silent_home).unwrap();
    std::fs::write(
        silent_home.join(".asoundrc"),
        "pcm.!default { type plug slave.pcm \"hw:31\" }\n",
    )
    .unwrap();
    let silent_dir = dir.path().join("silent");
    let (output, report) = menu_run_with_home(&manifest, &silent_dir, &silent_home);
    let stderr = text(&output.stderr);
    // Three presses by hand (one is said), each clicking as it begins and ends.
    assert_eq!(report["clicks"], 6);
    assert!(!stderr.contains("ALSA lib"), "{stderr}");
    assert_eq!(
        stderr.matches("the app runs silently").count(),
        1,
        "{stderr}"
    );

    // A device: alsa-lib's file plugin over the null device writes what the
    // app plays, as WAV, into a FIFO this test reads. The null device takes
    // samples as fast as they come, so the reader takes them no faster than
    // the stream's rate: that paces the app's audio thread as a sound card
    // would (and keeps gigabytes of silence off the disk).
    let fifo = dir.path().join("played.wav");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || read_in_real_time(&fifo))
    };
    let device_home = dir.path().join("device-home");
    std::fs::create_dir_all(&device_home).unwrap();
    std::fs::write(
        device_home.join(".asoundrc"),
        format!(
            "pcm.!default {{ type file slave.pcm \"null\" file \"{}\" format \"wav\" }}\n",
            fifo.display()
        ),
    )
    .unwrap();
    let device_dir = dir.path().join("device");
    let (output, report) = menu_run_with_home(&manifest, &device_dir, &device_home);
    let stderr = text(&output.stderr);
    assert_eq!(report["clicks"], 6);
    assert!(!stderr.contains("runs silently"), "{stderr}");
    assert!(!stderr.contains("ALSA lib"), "{stderr}");
    assert!(stderr.contains("clicks play on default"), "{stderr}");
    // Had the app never opened the device, the reader would wait for a
    // writer for ever: opening the FIFO here (without waiting for a reader,
    // so not when it has finished) and closing it ends its wait.
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo);
    let played = reader
        .join()
        .expect("the app played into the FIFO: a WAV header, then samples");
    // The three presses are 0.6 s and more apart and each is heard; a
    // press's two clicks are 0.2 s of display time apart, but the test
    // runtime runs faster than real time, so both may fall into one block
    // of the device's samples and sound as one.
    let sounds = sounds_in_wav(&played);
    assert!((3..=6).contains(&sounds), "{sounds} sounds");
}

/// What is written into the FIFO at `path` until its writer closes it,
/// read no faster than the byte rate its WAV header names.
fn read_in_real_time(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut fifo = std::fs::File::open(path).expect("open the FIFO");
    let mut bytes = vec![0; 44];
    fifo.read_exact(&mut bytes).expect("a WAV header");
    let byte_rate = u32::from_le_bytes(bytes[28..32].try_into().unwrap()) as f64;
    let started = Instant::now();
    let mut block = vec![0; 4096];
    loop {
        let due = (bytes.len() - 44) as f64 / byte_rate;
        let elapsed = started.elapsed().as_secs_f64();
        if due > elapsed {
            std::thread::sleep(Duration::from_secs_f64(due - elapsed));
        }
        match fifo.read(&mut block).expect("read the FIFO") {
            0 => return bytes,
            read => bytes.extend_from_slice(&block[..read]),
        }
    }
}

/// How many sounds (runs of samples apart by more than 10 ms of silence)
/// a WAV file alsa-lib's file plugin wrote holds, after checking it is
/// PCM of a format the app plays (16 or 32-bit integers, 32-bit floats).
fn sounds_in_wav(bytes: &[u8]) -> usize {
    assert_eq!(&bytes[..4], b"RIFF");
    let format = u16::from_le_bytes([bytes[20], bytes[21]]);
    let channels = usize::from(u16::from_le_bytes([bytes[22], bytes[23]]));
    let rate = u32::from_le_bytes(bytes[24..28].try_into().unwrap()) as usize;
    let bits = usize::from(u16::from_le_bytes([bytes[34], bytes[35]]));
    let data = &bytes[44..];
    let frame_bytes = channels * bits / 8;
    let loud = |sample: &[u8]| -> bool {
        match (format, bits) {
            (1, 16) => i16::from_le_bytes([sample[0], sample[1]]) != 0,
            (1, 32) => i32::from_le_bytes(sample.try_into().unwrap()) != 0,
            (3, 32) => f32::from_le_bytes(sample.try_into().unwrap()) != 0.0,
            other => panic!("unexpected WAV format {other:?}"),
        }
    };
    let mut sounds = 0;
    let mut last_loud: Option<usize> = None;
    for (index, frame) in data.chunks_exact(frame_bytes).enumerate() {
        if frame.chunks_exact(bits / 8).any(loud) {
            if last_loud.is_none_or(|last| index - last > rate / 100) {
                sounds += 1;
            }
            last_loud = Some(index);
        }
    }
    sounds
}
