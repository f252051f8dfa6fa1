//! Running holoterrain on the project's HoloLens 2-like test runtime
//! (tests/testrt, docs/testrt.md): where scripts/build-test-runtime.sh puts
//! it, the environment that configures it, and what it writes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::ci::skip;
use super::images::{ImageDifference, image_difference, rgb_png};

/// The target directory the tests were built in (the script builds into it too).
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR lies in the target directory")
        .to_path_buf()
}

/// The manifest of the runtime for `platform` ("linux" or "windows"), or
/// `None` (skipped; in CI a failure) when the script has not built it.
pub fn manifest(platform: &str) -> Option<PathBuf> {
    let manifest = target_dir().join(format!("testrt/{platform}/holoterrain_testrt.json"));
    if manifest.is_file() {
        Some(manifest)
    } else {
        skip(&format!(
            "{} is missing: run scripts/build-test-runtime.sh {platform}",
            manifest.display()
        ));
        None
    }
}

/// Frames, heightmap and first seed of the runs held to the simulator's.
pub const FRAMES: &str = "240";
/// The heightmap of those runs: neither square nor 2^n+1.
pub const MAP: &str = "65x49";
/// Their first seed.
pub const SEED: u64 = 5;

/// The simulator's run a test runtime run is held to: `holoterrain sim`
/// (the Linux build) with [`FRAMES`], [`MAP`], [`SEED`], `resolution` per
/// eye and a PNG every 30 frames, playing `script` into `out`; its report.
pub fn simulate(script: &Path, resolution: &str, out: &Path) -> Value {
    let sim = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--frames", FRAMES, "--size", MAP, "--seed"])
        .arg(SEED.to_string())
        .args(["--resolution", resolution, "--every", "30", "--script"])
        .arg(script)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run holoterrain sim");
    assert!(
        sim.status.success(),
        "holoterrain sim: {}",
        String::from_utf8_lossy(&sim.stderr)
    );
    json(&out.join("report.json"))
}

/// The causes of a report's reseeds, in order.
pub fn causes(report: &Value) -> Vec<&str> {
    report["reseeds"]
        .as_array()
        .expect("reseeds")
        .iter()
        .filter_map(|reseed| reseed["cause"].as_str())
        .collect()
}

/// A gesture script of tests/data/scripts.
pub fn script(name: &str) -> PathBuf {
    data(&format!("scripts/{name}"))
}

/// A file of tests/data.
pub fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// The runtime's settings for a run: `(variable, value)` pairs.
pub fn environment(
    script: &Path,
    map: &str,
    seed: u64,
    resolution: &str,
    out: &Path,
) -> Vec<(&'static str, String)> {
    vec![
        ("HOLOTERRAIN_TESTRT_SCRIPT", script.display().to_string()),
        ("HOLOTERRAIN_TESTRT_SIZE", map.to_owned()),
        ("HOLOTERRAIN_TESTRT_SEED", seed.to_string()),
        ("HOLOTERRAIN_TESTRT_RESOLUTION", resolution.to_owned()),
        ("HOLOTERRAIN_TESTRT_OUT", out.display().to_string()),
    ]
}

/// The runtime's settings for a short run (65×49 heightmap, seed 1, 64×48
/// per eye, no script: the wearer only looks around) whose xrWaitFrame
/// never returns at frame `hang_at` (`HOLOTERRAIN_TESTRT_HANG`): a runtime
/// that stops answering.
pub fn hanging_environment(hang_at: u64, out: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("HOLOTERRAIN_TESTRT_SIZE", "65x49".into()),
        ("HOLOTERRAIN_TESTRT_SEED", "1".into()),
        ("HOLOTERRAIN_TESTRT_RESOLUTION", "64x48".into()),
        ("HOLOTERRAIN_TESTRT_OUT", out.display().to_string()),
        ("HOLOTERRAIN_TESTRT_HANG", hang_at.to_string()),
    ]
}

/// A JSON file written by a run.
pub fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("{} written: {error}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

/// Where the emulated Remoting Player listens in the tests.
pub const PLAYER: &str = "127.0.0.1:8265";

/// `settings` with a Remoting Player emulated at [`PLAYER`] (which also
/// offers the speech extension).
pub fn with_player(mut settings: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
    settings.push(("HOLOTERRAIN_TESTRT_REMOTING", PLAYER.into()));
    settings
}

/// [`environment`] for a short run with a Remoting Player emulated at
/// [`PLAYER`] (65×49 heightmap, seed 1, 64×48 per eye).
pub fn remoting_environment(script: &Path, out: &Path) -> Vec<(&'static str, String)> {
    with_player(environment(script, "65x49", 1, "64x48", out))
}

/// The runtime's library beside `manifest` (the file its `library_path` names).
pub fn runtime_library(manifest: &Path) -> PathBuf {
    let text = std::fs::read_to_string(manifest).expect("the runtime's manifest");
    let value: Value = serde_json::from_str(&text).expect("a JSON manifest");
    let library = value["runtime"]["library_path"]
        .as_str()
        .expect("runtime.library_path");
    let name = library.rsplit(['/', '\\']).next().expect("a file name");
    manifest.with_file_name(name)
}

/// The fields of `holoterrain xr --report` that must equal the
/// simulator's report.json for the same script, seed, size and frames.
pub const SHARED_FIELDS: [&str; 6] = [
    "frames",
    "seeds",
    "iterations",
    "placements",
    "hologram_pose",
    "hologram_scale",
];

/// Asserts the xr run reported what the simulator did: the shared fields,
/// and every reseed's frame, cause and seed (their times are computed with
/// different float operations, so they may differ in the last bit).
pub fn assert_same_run(xr: &Value, sim: &Value) {
    for field in SHARED_FIELDS {
        assert_eq!(xr[field], sim[field], "report field {field}");
    }
    let reseeds = |report: &Value| -> Vec<(Value, Value, Value)> {
        report["reseeds"]
            .as_array()
            .expect("reseeds")
            .iter()
            .map(|reseed| {
                (
                    reseed["frame"].clone(),
                    reseed["cause"].clone(),
                    reseed["seed"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(reseeds(xr), reseeds(sim), "reseeds (frame, cause, seed)");
    let edits = |report: &Value| -> Vec<Value> {
        report["edits"]
            .as_array()
            .expect("edits")
            .iter()
            .map(|edit| {
                let mut edit = edit.clone();
                edit.as_object_mut().expect("an edit").remove("time");
                edit
            })
            .collect()
    };
    assert_eq!(edits(xr), edits(sim), "edits (frame, kind, hand, applied)");
}

/// The frame numbers of the PNGs in `dir` named `prefix`NNNNN.png.
fn frames(dir: &Path, prefix: &str) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("an output folder")
        .filter_map(|entry| {
            let name = entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned();
            name.strip_prefix(prefix)?
                .strip_suffix(".png")
                .map(str::to_owned)
        })
        .collect()
}

/// Each frame the runtime read back (`submitted-NNNNN.png` in
/// `runtime_out`) against the simulator's image of it (`frame-NNNNN.png`
/// in `sim_out`); asserts both wrote the same frames.
fn compare_images(runtime_out: &Path, sim_out: &Path) -> Vec<(String, ImageDifference)> {
    let submitted = frames(runtime_out, "submitted-");
    assert_eq!(
        submitted,
        frames(sim_out, "frame-"),
        "the frames read back are the simulator's"
    );
    assert!(!submitted.is_empty(), "no frames read back");
    submitted
        .into_iter()
        .map(|frame| {
            let (width, height, runtime) =
                rgb_png(&runtime_out.join(format!("submitted-{frame}.png")));
            let (sim_width, sim_height, sim) = rgb_png(&sim_out.join(format!("frame-{frame}.png")));
            assert_eq!(
                (width, height),
                (sim_width, sim_height),
                "frame {frame}'s size"
            );
            let difference = image_difference(&sim, &runtime);
            (frame, difference)
        })
        .collect()
}

/// Asserts every frame the runtime read back is the simulator's image
/// within `mean` (mean absolute difference, in 1/255) with at least
/// `within_8` of its pixels within 8/255, and that the frames show the
/// terrain (all but one: hololens-wearer.txt looks away once). Prints each
/// frame's difference.
pub fn assert_images_match(runtime_out: &Path, sim_out: &Path, mean: f64, within_8: f64) {
    let compared = compare_images(runtime_out, sim_out);
    let with_terrain = compared
        .iter()
        .filter(|(_, difference)| difference.terrain > 0.05)
        .count();
    assert!(with_terrain + 1 >= compared.len(), "{compared:?}");
    for (frame, difference) in compared {
        eprintln!("frame {frame}: {difference:?}");
        assert!(
            difference.mean <= mean && difference.within_8 >= within_8,
            "frame {frame}: the image read back differs from the simulator's: {difference:?}"
        );
    }
}

/// `holoterrain sim` as [`simulate`] runs it, with `--capture` at
/// [`OBSERVER_SIZE`] beside the eye images.
pub fn simulate_with_capture(script: &Path, resolution: &str, out: &Path) {
    let sim = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--frames", FRAMES, "--size", MAP, "--seed"])
        .arg(SEED.to_string())
        .args(["--resolution", resolution, "--every", "30", "--script"])
        .arg(script)
        .args(["--capture", "--capture-size", OBSERVER_SIZE, "--out"])
        .arg(out)
        .output()
        .expect("run holoterrain sim");
    assert!(
        sim.status.success(),
        "holoterrain sim --capture: {}",
        String::from_utf8_lossy(&sim.stderr)
    );
}

/// The observer view's size in the runs that hold it against the capture,
/// as the runtime recommends it from the view's activation on.
pub const OBSERVER_SIZE: &str = "160x90";
/// The observer view's recommended size at session start in those runs,
/// another, so that an app that sized its swapchains then submits images of
/// the wrong size.
pub const OBSERVER_START_SIZE: &str = "96x54";
/// The frames the observer view is active for in those runs.
pub const OBSERVER_FRAMES: &str = "60-90";

/// The runtime's settings that make the observer view active for
/// [`OBSERVER_FRAMES`] at [`OBSERVER_SIZE`] (recommended at
/// [`OBSERVER_START_SIZE`] before).
pub fn observer_settings() -> [(&'static str, String); 3] {
    [
        ("HOLOTERRAIN_TESTRT_OBSERVER", OBSERVER_FRAMES.to_owned()),
        ("HOLOTERRAIN_TESTRT_OBSERVER_SIZE", OBSERVER_SIZE.to_owned()),
        (
            "HOLOTERRAIN_TESTRT_OBSERVER_START_SIZE",
            OBSERVER_START_SIZE.to_owned(),
        ),
    ]
}

/// An RGBA PNG's size and pixels.
fn rgba_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file =
        std::fs::File::open(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("PNG pixels");
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// The runtime drew the observer view for exactly [`OBSERVER_FRAMES`]
/// (the app's report and the runtime's agree), and its images of frames 60
/// and 90 are the simulator's captures within `mean` (colour and alpha):
/// transparent where there is no hologram, opaque on it.
pub fn assert_observer_is_the_capture(
    xr_report: &Value,
    runtime_out: &Path,
    sim_out: &Path,
    mean: f64,
) {
    assert_eq!(xr_report["observer_frames"], 31, "frames 60 to 90");
    let runtime = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(runtime["observer_frames"], 31);
    let images = runtime["observer_images"]
        .as_array()
        .expect("observer images");
    assert_eq!(images.len(), 31);
    assert_eq!(images[0], "observer-00060.png");
    assert_eq!(images[30], "observer-00090.png");
    assert_eq!(
        runtime["observer_swapchains"],
        serde_json::json!([
            format!("{OBSERVER_SIZE} colour"),
            format!("{OBSERVER_SIZE} depth")
        ]),
        "colour and depth made for the observer view at its activation size, once"
    );
    for frame in [60, 90] {
        let (width, height, observer) =
            rgba_png(&runtime_out.join(format!("observer-{frame:05}.png")));
        let (sim_width, sim_height, capture) =
            rgba_png(&sim_out.join(format!("capture-{frame:05}.png")));
        assert_eq!(
            format!("{width}x{height}"),
            OBSERVER_SIZE,
            "the size the runtime gave"
        );
        assert_eq!((sim_width, sim_height), (width, height));
        // Alpha as a fourth colour: three channels at a time.
        let as_rgb = |pixels: &[u8], from: usize| -> Vec<u8> {
            pixels
                .chunks_exact(4)
                .flat_map(|pixel| [pixel[from], pixel[from + 1], pixel[3]])
                .collect()
        };
        for from in [0, 1] {
            let difference = image_difference(&as_rgb(&capture, from), &as_rgb(&observer, from));
            eprintln!("observer frame {frame}, from channel {from}: {difference:?}");
            assert!(
                difference.terrain > 0.05,
                "frame {frame}: little hologram: {difference:?}"
            );
            assert!(
                difference.mean <= mean && difference.within_8 >= 0.99,
                "frame {frame}: the observer view is not the capture: {difference:?}"
            );
        }
        assert!(observer.chunks_exact(4).any(|pixel| pixel == [0, 0, 0, 0]));
        assert!(observer.chunks_exact(4).any(|pixel| pixel[3] == 255));
    }
}

/// The code of the shared sessions the tests host.
pub const SHARE_CODE: &str = "7-guitar-orbit";

/// A shared session's host script (the simulator's clock): an air-tap, a
/// landscape, a traced fault and an undo (the landscape and the undo said
/// with the hand menu up: in a session speech acts only then; the trace
/// after the menu has gone, so that its ray meets the land, not a button);
/// then the host looks at the
/// session's card on its table (tests/data/rooms/shared-host.txt). Each
/// test adds the waits its session needs (`wait`, docs/simulator.md).
pub const SHARED_HOST_SCRIPT: &str = "\
0.5 airtap right
1.1 palm left 0.5
1.5 say next landscape
2.7 trace right 0.5 0.1 0.45 0.5 0.3 0.9 0.45
3.5 palm left 0.5
3.7 say undo
4.0 head 0.3 1.6 -1.2 0.5 0.75 -2.3
";

/// The joining wearer's script: an air-tap at the hologram where the
/// headset placed it alone, a look at the card on its own table
/// (tests/data/rooms/shared-joiner.txt), then an air-tap at the hologram
/// where the card has put it, which the wearer finds only because its copy
/// of the app core follows the session (`HOLOTERRAIN_TESTRT_JOIN`).
pub const SHARED_WEARER_SCRIPT: &str =
    "1.0 airtap right\n1.5 head 1.6 1.55 0.1 1.2 0.72 -1.0\n7.0 airtap right\n";

/// `holoterrain sim` hosting [`SHARE_CODE`] on `port` at 30 Hz for
/// `frames`, tiny images, a 65×65 map, in `room`, playing `script` into `out`.
pub fn shared_host_args(
    script: &Path,
    out: &Path,
    port: u16,
    frames: u32,
    room: &Path,
) -> Vec<String> {
    let mut args: Vec<String> = [
        "sim",
        "--resolution",
        "32x24",
        "--rate",
        "30",
        "--every",
        "100000",
        "--size",
        "65x65",
        "--share",
        SHARE_CODE,
        // Loopback only: no advertisement on the machine's network.
        "--unlisted",
    ]
    .map(String::from)
    .into();
    args.extend([
        "--share-port".into(),
        port.to_string(),
        "--frames".into(),
        frames.to_string(),
        "--script".into(),
        script.display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "--room".into(),
        room.display().to_string(),
    ]);
    args
}

/// The rooms of a shared session's host and joiner: each a table with the
/// session's card on it, at other room coordinates and turned another way.
pub fn shared_rooms() -> (PathBuf, PathBuf) {
    (
        data("rooms/shared-host.txt"),
        data("rooms/shared-joiner.txt"),
    )
}

/// The test runtime's settings for a wearer joining that host: its map and
/// first seed (for the wearer's copy of the app core), small images, and
/// frames paced to the wall clock at 30 Hz, as a headset's are.
pub fn shared_wearer_settings(
    script: &Path,
    out: &Path,
    room: &Path,
) -> Vec<(&'static str, String)> {
    let mut settings = environment(script, "65x65", 1, "32x24", out);
    settings.push(("HOLOTERRAIN_TESTRT_RATE", "30".into()));
    settings.push(("HOLOTERRAIN_TESTRT_REALTIME", "1".into()));
    settings.push(("HOLOTERRAIN_TESTRT_ROOM", room.display().to_string()));
    settings
}

/// A pose from a report's `position` and `orientation`.
fn pose_of(record: &Value) -> holoterrain::input::Pose {
    let numbers = |key: &str| -> Vec<f32> {
        record[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {record}"))
            .iter()
            .map(|number| number.as_f64().expect("a number") as f32)
            .collect()
    };
    holoterrain::input::Pose::new(
        glam::Vec3::from_slice(&numbers("position")),
        glam::Quat::from_slice(&numbers("orientation")),
    )
}

/// The hologram where a run's report leaves it, relative to the first
/// card it saw (flat on a table, so its pose is its level frame).
fn hologram_on_card(report: &Value) -> holoterrain::input::Pose {
    let card = report["markers_seen"]
        .as_array()
        .and_then(|seen| seen.first())
        .unwrap_or_else(|| panic!("no card seen: {}", report["markers_seen"]));
    pose_of(card)
        .inverse()
        .compose(&pose_of(&report["hologram_pose"]))
}

/// A joiner (`xr --join`, its report and command log) followed the host
/// whose outputs are in `host_out`: its own air-tap reached the host's log
/// as peer 1's, all five shared commands (the host's four and that air-tap)
/// arrived with checksums matching the host's, it grew the host's seeds
/// and recipe, and its log replays into the host's terrain bit for bit;
/// and, each seeing the session's card on its own table, both left the
/// hologram on the same spot of the card (the joiner placing it there).
pub fn assert_joined(xr_report: &Value, peer_log: &Path, host_out: &Path, commands: u64) {
    let share = &xr_report["share"];
    assert_eq!(share["role"], "peer", "{xr_report}");
    assert_eq!(share["code"], SHARE_CODE);
    assert_eq!(share["commands_ordered"], commands, "{share}");
    assert_eq!(share["checksums_matched"], commands, "{share}");
    assert_eq!(share["checksum_mismatches"], serde_json::json!([]));
    assert_eq!(xr_report["peers"][0]["left"], "it ended the session");
    let host_report = json(&host_out.join("report.json"));
    assert_eq!(host_report["share"]["checksums_matched"], commands);
    assert_eq!(xr_report["seeds"], host_report["seeds"]);
    assert_eq!(xr_report["recipe"], host_report["recipe"]);
    let host_log = std::fs::read_to_string(host_out.join("commands.jsonl")).expect("host log");
    let origin = format!(r#""origin":{{"peer":{}}}"#, share["peer"]);
    let taps = host_log
        .lines()
        .filter(|line| line.contains(&origin) && line.contains("reseed"))
        .count();
    assert_eq!(
        taps as u64,
        commands - 4,
        "the joiner's air-taps (after the host's four commands) in the host's log:\n{host_log}"
    );
    let replayed = peer_log.with_file_name("replayed.f32");
    let replay = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["generate", "--format", "f32", "--replay"])
        .arg(peer_log)
        .arg("--out")
        .arg(&replayed)
        .output()
        .expect("replay the joiner's log");
    assert!(
        replay.status.success(),
        "generate --replay of the joiner's log: {}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert_eq!(
        std::fs::read(&replayed).expect("the replayed terrain"),
        std::fs::read(host_out.join("terrain.f32")).expect("the host's terrain"),
        "the joiner's log does not grow the host's terrain"
    );
    let (ours, theirs) = (hologram_on_card(&host_report), hologram_on_card(xr_report));
    assert!(
        ours.position.distance(theirs.position) < 1e-3
            && ours.orientation.angle_between(theirs.orientation) < 1e-3,
        "the host's hologram on its card {ours:?}, the joiner's {theirs:?}"
    );
    let placed_by_card = xr_report["placements"]
        .as_array()
        .expect("placements")
        .iter()
        .any(|placement| placement["cause"] == "card");
    assert!(placed_by_card, "{}", xr_report["placements"]);
}
