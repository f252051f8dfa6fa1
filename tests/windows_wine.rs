//! The Windows edition under Wine: holoterrain.exe (scripts/build-windows.sh)
//! run in the Wine 10 chroot of scripts/wine-chroot.sh must write the same
//! bytes as the Linux build, end an OpenXR attempt without a runtime in one
//! line, run its Direct3D 11 session and Holographic Remoting on the test
//! runtime (scripts/build-test-runtime.sh) as the Linux simulator runs, and
//! ship in a zip that holds what its README lists.
//!
//! Needs root, the Debian mirror the first time (the chroot is cached) and
//! the Windows build; without them the tests print why they are skipped,
//! unless env CI is set, when they fail instead.

mod support {
    pub mod ci;
    pub mod images;
    pub mod output;
    pub mod testrt;
    pub mod wine;
}

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use support::ci::skip;
use support::images::{image_difference, rgb_png};
use support::output::{assert_success, one_error_line, text};
use support::testrt::{
    assert_images_match, assert_same_run, data, environment, json, manifest, remoting_environment,
    script,
};
use support::wine;

/// A size that is neither square nor 2^n+1, to catch row-stride mistakes.
const NON_SQUARE: &str = "97x61";

/// The `generate` argument lists to compare: every algorithm in every
/// format, several seeds, and the post-processing that uses transcendental
/// maths (Gaussian weights, distance falloff) or long float chains (erosion, tiles).
fn generate_cases() -> Vec<Vec<String>> {
    let mut cases = Vec::new();
    for algorithm in ["fault", "bsp", "bsp-structured", "diamond-square"] {
        for format in ["png16", "png8", "raw16", "pgm"] {
            cases.push(vec![
                "--algorithm",
                algorithm,
                "--format",
                format,
                "--size",
                NON_SQUARE,
                "--seed",
                "3",
            ]);
        }
        for seed in ["1", "42", "18446744073709551615"] {
            cases.push(vec![
                "--algorithm",
                algorithm,
                "--size",
                NON_SQUARE,
                "--seed",
                seed,
            ]);
        }
    }
    cases.push(vec![
        "--algorithm",
        "fault",
        "--line",
        "two-points",
        "--fault-radius",
        "20",
        "--gaussian",
        "1.5",
        "--size",
        NON_SQUARE,
    ]);
    cases.push(vec![
        "--algorithm",
        "bsp",
        "--filter",
        "0.3",
        "--fir",
        "--thermal",
        "30",
        "--hydraulic",
        "30",
        "--size",
        NON_SQUARE,
    ]);
    cases.push(vec!["--tile", "1,2", "--size", "65x65", "--seed", "9"]);
    cases
        .into_iter()
        .map(|case| case.into_iter().map(str::to_owned).collect())
        .collect()
}

/// Quotes `word` for sh.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Every regular file below `dir`, as paths relative to it.
fn files_below(dir: &Path) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("readable directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("below dir");
                files.insert(relative.to_string_lossy().into_owned());
            }
        }
    }
    files
}

/// Asserts both directories hold the same files with the same bytes.
fn assert_same_files(linux: &Path, windows: &Path, what: &str) {
    let linux_files = files_below(linux);
    assert_eq!(
        linux_files,
        files_below(windows),
        "{what}: the Windows build wrote other files than the Linux build"
    );
    assert!(!linux_files.is_empty(), "{what}: no files written");
    for name in &linux_files {
        let linux_bytes = std::fs::read(linux.join(name)).expect("Linux output");
        let windows_bytes = std::fs::read(windows.join(name)).expect("Windows output");
        assert!(
            linux_bytes == windows_bytes,
            "{what}: {name} differs between the Linux and Windows builds"
        );
    }
}

fn run_linux(args: &[String]) -> Output {
    Command::new(wine::linux_binary())
        .args(args)
        .output()
        .expect("run the Linux build")
}

#[test]
fn generate_writes_the_linux_builds_bytes_for_every_algorithm_format_and_seed() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let linux_dir = scratch.path().join("linux");
    let windows_dir = scratch.path().join("windows");
    std::fs::create_dir_all(&linux_dir).unwrap();
    std::fs::create_dir_all(&windows_dir).unwrap();
    let mut commands = String::new();
    for (index, case) in generate_cases().iter().enumerate() {
        let with_outputs = |dir: &Path| {
            let mut args = vec!["generate".to_owned()];
            args.extend(case.iter().cloned());
            args.push("--out".into());
            args.push(dir.join(format!("case{index}")).display().to_string());
            args.push("--stats-json".into());
            args.push(dir.join(format!("case{index}.json")).display().to_string());
            args
        };
        assert_success(&run_linux(&with_outputs(&linux_dir)), "Linux generate");
        let quoted: Vec<String> = with_outputs(&windows_dir)
            .iter()
            .map(|arg| shell_quote(arg))
            .collect();
        commands.push_str(&format!("wine64 \"$EXE\" {}\n", quoted.join(" ")));
    }
    let output = wine::run_shell(scratch.path(), &commands);
    assert_success(&output, "holoterrain.exe generate under Wine");
    assert_same_files(&linux_dir, &windows_dir, "generate");
}

/// Arguments of the simulator runs compared: a gesture script with one
/// reseed by each gesture, a non-square heightmap, a PNG every 60 frames.
fn sim_args(out: &Path) -> Vec<String> {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scripts/airtap-tap-select.txt");
    [
        "sim",
        "--frames",
        "240",
        "--size",
        "65x49",
        "--resolution",
        "64x48",
        "--every",
        "60",
        "--seed",
        "5",
        "--script",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .chain([
        script.display().to_string(),
        "--out".to_owned(),
        out.display().to_string(),
    ])
    .collect()
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json written");
    serde_json::from_str(&text).expect("report is JSON")
}

#[test]
fn sim_reseeds_by_airtap_tap_and_select_as_on_linux_with_the_same_images() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let linux_dir = scratch.path().join("linux");
    let windows_dir = scratch.path().join("windows");
    assert_success(&run_linux(&sim_args(&linux_dir)), "Linux sim");
    // The script lives in the repository: copy it into the bound scratch dir.
    let script = scratch.path().join("airtap-tap-select.txt");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scripts/airtap-tap-select.txt"),
        &script,
    )
    .unwrap();
    let mut windows_args = sim_args(&windows_dir);
    let script_index = windows_args
        .iter()
        .position(|arg| arg == "--script")
        .unwrap()
        + 1;
    windows_args[script_index] = script.display().to_string();
    let quoted: Vec<String> = windows_args.iter().map(|arg| shell_quote(arg)).collect();
    let output = wine::run_shell(
        scratch.path(),
        &format!("wine64 \"$EXE\" {}", quoted.join(" ")),
    );
    assert_success(&output, "holoterrain.exe sim under Wine");

    let linux = report(&linux_dir);
    let windows = report(&windows_dir);
    let causes: Vec<&str> = linux["reseeds"]
        .as_array()
        .expect("reseeds")
        .iter()
        .map(|reseed| reseed["cause"].as_str().expect("cause"))
        .collect();
    assert_eq!(
        causes,
        ["airtap", "tap", "select"],
        "the script's three reseeds"
    );
    for field in ["frames", "seeds", "reseeds", "iterations", "hologram_pose"] {
        assert_eq!(
            linux[field], windows[field],
            "report field {field} differs between the Linux and Windows builds"
        );
    }
    std::fs::remove_file(linux_dir.join("report.json")).unwrap();
    std::fs::remove_file(windows_dir.join("report.json")).unwrap();
    assert_same_files(&linux_dir, &windows_dir, "sim images");
}

/// The zero-validation-message check cannot run under Wine: no package
/// registry this project uses ships the Windows build of the Khronos
/// validation layer (Debian's vulkan-validationlayers is a Linux library,
/// which Wine's vulkan-1.dll does not offer to Windows programs). What is
/// checked instead: asking for it fails in the one line that tells a Windows
/// user where to get it, before any output is written.
#[test]
fn sim_validation_without_the_windows_layer_fails_in_one_line() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let out = scratch.path().join("out");
    let output = wine::run_shell(
        scratch.path(),
        &format!(
            "wine64 \"$EXE\" sim --validation --frames 2 --out {}",
            shell_quote(&out.display().to_string())
        ),
    );
    assert!(
        !output.status.success(),
        "sim --validation succeeded without the layer"
    );
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "error: Vulkan validation was requested but VK_LAYER_KHRONOS_validation is not installed; install the Vulkan SDK (vulkan.lunarg.com) or run without validation"
        ],
        "stderr"
    );
    assert!(!out.join("report.json").exists(), "a report was written");
}

#[test]
fn xr_without_an_openxr_runtime_fails_in_one_line() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let output = wine::run_shell(scratch.path(), "wine64 \"$EXE\" xr --frames 1");
    let line = one_error_line(&output, "xr with no runtime");
    assert!(
        line.starts_with("error: no OpenXR runtime is active (") && line.contains("SteamVR"),
        "the Windows no-runtime error, got: {}",
        line
    );
}

/// `xr --graphics d3d11` in the Windows build, which has Direct3D 11, gets
/// past the flag to the runtime (Wine has none): the one-line no-runtime
/// error, which points HoloLens users at docs/hololens.md.
#[test]
fn xr_graphics_d3d11_without_an_openxr_runtime_fails_in_one_line() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let output = wine::run_shell(
        scratch.path(),
        "wine64 \"$EXE\" xr --graphics d3d11 --frames 1",
    );
    let line = one_error_line(&output, "xr --graphics d3d11 with no runtime");
    assert!(
        line.starts_with("error: no OpenXR runtime is active (")
            && line.contains("docs/hololens.md"),
        "the Windows no-runtime error, got: {}",
        line
    );
}

/// `xr --remote` in the Windows build with no OpenXR runtime (Wine has none):
/// the Windows wording of the one-line remoting error.
#[test]
fn xr_remote_without_the_remoting_runtime_fails_in_one_line() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let output = wine::run_shell(scratch.path(), "wine64 \"$EXE\" xr --remote 127.0.0.1");
    let line = one_error_line(&output, "xr --remote with no runtime");
    assert!(
        line.starts_with("error: --remote: no OpenXR runtime is active")
            && line.contains("RemotingXR.json")
            && line.contains("XR_RUNTIME_JSON"),
        "the Windows remoting error, got: {}",
        line
    );
}

/// Wine's Direct3D needs an X server; the runner's --xvfb starts one for the
/// command and stops it afterwards.
#[test]
fn runner_gives_the_command_a_running_x_server_when_asked() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let socket_check = r#"test -n "$DISPLAY" && test -S "/tmp/.X11-unix/X${DISPLAY#:}""#;
    let with_x = wine::run_shell_with_x_server(scratch.path(), socket_check);
    assert_success(&with_x, "a command under --xvfb looking for its X server");
    let without_x = wine::run_shell(scratch.path(), socket_check);
    assert!(
        !without_x.status.success(),
        "without --xvfb the command found an X server"
    );
}

/// The file list under "Contents of this zip" in README-windows.txt.
fn readme_contents() -> BTreeSet<String> {
    let readme = std::fs::read_to_string(wine::readme_source()).expect("README-windows.txt");
    let section = readme
        .split_once("Contents of this zip\n--------------------\n")
        .expect("a 'Contents of this zip' section")
        .1;
    section
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(|path| path.replace('\\', "/"))
        .collect()
}

#[test]
fn zip_holds_exactly_what_its_readme_lists() {
    let zip = wine::zip();
    if !wine::built(&zip) {
        return;
    }
    let listing = match Command::new("zip").arg("-sf").arg(&zip).output() {
        Ok(output) if output.status.success() => text(&output.stdout),
        Ok(output) => panic!("zip -sf failed: {}", text(&output.stderr)),
        Err(error) => {
            skip(&format!(
                "cannot run zip (scripts/build-windows.sh installs it): {error}"
            ));
            return;
        }
    };
    let folder = zip.file_stem().unwrap().to_string_lossy().into_owned();
    let files: BTreeSet<String> = listing
        .lines()
        .map(str::trim)
        .filter_map(|entry| entry.strip_prefix(&format!("{folder}/")))
        .filter(|path| !path.is_empty() && !path.ends_with('/'))
        .map(str::to_owned)
        .collect();
    let listed = readme_contents();
    assert!(
        listed.contains("holoterrain.exe"),
        "README lists the exe: {listed:?}"
    );
    assert_eq!(
        files,
        listed,
        "files in {} versus README-windows.txt",
        zip.display()
    );
    let entries = listing
        .lines()
        .filter(|line| line.starts_with("  "))
        .count();
    let folders = listing
        .lines()
        .filter(|line| line.trim_end().ends_with('/'))
        .count();
    assert_eq!(
        entries - folders,
        files.len(),
        "every file lies in {folder}/:\n{listing}"
    );
}

/// The Direct3D 11 renderer against the Vulkan one, both in the exe under
/// Wine (Wine's Direct3D on its Vulkan renderer, on lavapipe): the same
/// report, and per frame a mean absolute difference of at most 2/255 with
/// at least 99 % of pixels within 8/255 (rasterisation may differ at edges).
#[test]
fn sim_with_d3d11_reports_as_vulkan_and_draws_matching_images() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let vulkan_dir = scratch.path().join("vulkan");
    let d3d11_dir = scratch.path().join("d3d11");
    let script = scratch.path().join("airtap-tap-select.txt");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scripts/airtap-tap-select.txt"),
        &script,
    )
    .unwrap();
    let command = |out: &Path, renderer: &str| {
        let mut args = sim_args(out);
        let script_index = args.iter().position(|arg| arg == "--script").unwrap() + 1;
        args[script_index] = script.display().to_string();
        let resolution_index = args.iter().position(|arg| arg == "--resolution").unwrap() + 1;
        // Larger than sim_args' images, so edges are a small share of the pixels.
        args[resolution_index] = "256x192".into();
        args.extend(["--renderer".into(), renderer.into()]);
        let quoted: Vec<String> = args.iter().map(|arg| shell_quote(arg)).collect();
        format!("wine64 \"$EXE\" {}\n", quoted.join(" "))
    };
    let output = wine::run_shell_with_direct3d(
        scratch.path(),
        &(command(&vulkan_dir, "vulkan") + &command(&d3d11_dir, "d3d11")),
    );
    assert_success(
        &output,
        "holoterrain.exe sim with vulkan, then d3d11, under Wine",
    );

    let vulkan = report(&vulkan_dir);
    let d3d11 = report(&d3d11_dir);
    assert_eq!(
        vulkan["reseeds"].as_array().map(Vec::len),
        Some(3),
        "reseeds"
    );
    for field in ["frames", "seeds", "reseeds", "iterations", "hologram_pose"] {
        assert_eq!(
            vulkan[field], d3d11[field],
            "report field {field} differs between the Vulkan and Direct3D 11 runs"
        );
    }
    let frames: BTreeSet<String> = files_below(&vulkan_dir)
        .into_iter()
        .filter(|name| name.ends_with(".png"))
        .collect();
    assert_eq!(frames.len(), 5, "frames 0, 60, 120, 180, 239: {frames:?}");
    assert_eq!(
        frames,
        files_below(&d3d11_dir)
            .into_iter()
            .filter(|name| name.ends_with(".png"))
            .collect(),
        "the same frames written"
    );
    for frame in &frames {
        let (width, height, vulkan_pixels) = rgb_png(&vulkan_dir.join(frame));
        let (d3d11_width, d3d11_height, d3d11_pixels) = rgb_png(&d3d11_dir.join(frame));
        assert_eq!((width, height), (d3d11_width, d3d11_height), "{frame} size");
        let difference = image_difference(&vulkan_pixels, &d3d11_pixels);
        eprintln!("{frame}: {difference:?}");
        assert!(
            difference.terrain > 0.05,
            "{frame}: the Vulkan image shows little terrain: {difference:?}"
        );
        assert!(
            difference.mean <= 2.0 && difference.within_8 >= 0.99,
            "{frame}: Direct3D 11 and Vulkan images differ too much: {difference:?}"
        );
    }
}

/// Wine's Direct3D 11 has no debug layer (its device offers no
/// ID3D11InfoQueue), so `--validation` with d3d11 says so in one line
/// and writes nothing.
#[test]
fn sim_d3d11_validation_without_a_debug_layer_fails_in_one_line() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let out = scratch.path().join("out");
    let output = wine::run_shell_with_direct3d(
        scratch.path(),
        &format!(
            "wine64 \"$EXE\" sim --renderer d3d11 --validation --frames 2 --out {}",
            shell_quote(&out.display().to_string())
        ),
    );
    let line = one_error_line(
        &output,
        "sim --renderer d3d11 --validation without a debug layer",
    );
    assert!(
        line.starts_with(
            "error: Direct3D 11 validation was requested but this system has no Direct3D 11 debug layer"
        ) && line.ends_with("or run without --validation"),
        "the missing-debug-layer error, got: {line}"
    );
    assert!(!out.exists(), "output was written");
}

// The test runtime's runs below: the Windows build of tests/testrt
// (docs/testrt.md), Direct3D 11. Wine runs programs elevated, so the OpenXR
// loader ignores XR_RUNTIME_JSON: each run makes the runtime active in the
// registry (HKLM\SOFTWARE\Khronos\OpenXR\1, ActiveRuntime) and removes it
// again before the chroot run ends (runs are serialised, so no other run
// sees it).

/// Frames, heightmap, seed and per-eye resolution of the compared runs
/// (larger images than on Linux, so edges are a small share of the pixels).
const TESTRT_FRAMES: &str = "240";
const TESTRT_MAP: &str = "65x49";
const TESTRT_SEED: u64 = 5;
const TESTRT_RESOLUTION: &str = "256x192";

/// Copies the Windows runtime (its manifest and DLL) into `scratch`, which
/// the chroot run binds; the manifest's relative path still finds the DLL.
fn runtime_in(scratch: &Path) -> Option<PathBuf> {
    let manifest = manifest("windows")?;
    let folder = scratch.join("runtime");
    std::fs::create_dir_all(&folder).expect("a runtime folder");
    for entry in
        std::fs::read_dir(manifest.parent().expect("a folder")).expect("the runtime's folder")
    {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, folder.join(path.file_name().expect("a name")))
            .expect("copy the runtime");
    }
    Some(folder.join("holoterrain_testrt.json"))
}

/// Shell commands that make `manifest` the active OpenXR runtime until the
/// shell exits.
fn activate(manifest: &Path) -> String {
    let key = r"HKLM\SOFTWARE\Khronos\OpenXR\1";
    format!(
        "trap {} EXIT\nwine reg add {} /v ActiveRuntime /t REG_SZ /d {} /f >/dev/null\n",
        shell_quote(&format!(
            "wine reg delete {} /v ActiveRuntime /f >/dev/null 2>&1",
            shell_quote(key)
        )),
        shell_quote(key),
        shell_quote(&format!("Z:{}", manifest.display()))
    )
}

/// `wine64 "$EXE" ARGS` with the runtime's `settings`, its output and exit
/// status going to `NAME.out`, `NAME.err` and `NAME.status` in `scratch`.
fn exe_run(scratch: &Path, name: &str, settings: &[(&str, String)], args: &[&str]) -> String {
    let assignments: Vec<String> = settings
        .iter()
        .map(|(variable, value)| format!("{variable}={}", shell_quote(value)))
        .collect();
    let arguments: Vec<String> = args.iter().map(|arg| shell_quote(arg)).collect();
    let file = |suffix: &str| {
        shell_quote(
            &scratch
                .join(format!("{name}.{suffix}"))
                .display()
                .to_string(),
        )
    };
    format!(
        "status=0; env {} wine64 \"$EXE\" {} >{} 2>{} || status=$?; echo $status >{}\n",
        assignments.join(" "),
        arguments.join(" "),
        file("out"),
        file("err"),
        file("status")
    )
}

/// What `exe_run` captured: exit status, stdout, stderr.
fn captured(scratch: &Path, name: &str) -> (i32, String, String) {
    let read = |suffix: &str| {
        std::fs::read_to_string(scratch.join(format!("{name}.{suffix}")))
            .unwrap_or_else(|error| panic!("{name}.{suffix}: {error}"))
    };
    let status = read("status").trim().parse().expect("an exit status");
    (status, read("out"), read("err"))
}

#[test]
fn xr_on_direct3d_11_ends_cleanly_and_is_the_linux_simulators_run() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let Some(runtime) = runtime_in(scratch.path()) else {
        return;
    };
    let wearer = scratch.path().join("wearer.txt");
    std::fs::copy(script("hololens-wearer.txt"), &wearer).expect("copy the script");
    let sim_out = scratch.path().join("sim");
    let sim = Command::new(wine::linux_binary())
        .args([
            "sim",
            "--frames",
            TESTRT_FRAMES,
            "--size",
            TESTRT_MAP,
            "--seed",
            &TESTRT_SEED.to_string(),
        ])
        .args([
            "--resolution",
            TESTRT_RESOLUTION,
            "--every",
            "30",
            "--script",
        ])
        .arg(&wearer)
        .arg("--out")
        .arg(&sim_out)
        .output()
        .expect("run the Linux simulator");
    assert!(sim.status.success(), "Linux sim: {}", text(&sim.stderr));
    let runtime_out = scratch.path().join("runtime-out");
    let report = scratch.path().join("xr.json");
    let commands = activate(&runtime)
        + &exe_run(
            scratch.path(),
            "xr",
            &environment(
                &wearer,
                TESTRT_MAP,
                TESTRT_SEED,
                TESTRT_RESOLUTION,
                &runtime_out,
            ),
            &[
                "xr",
                "--graphics",
                "d3d11",
                "--frames",
                TESTRT_FRAMES,
                "--size",
                TESTRT_MAP,
                "--seed",
                &TESTRT_SEED.to_string(),
                "--report",
                &report.display().to_string(),
            ],
        );
    let chroot = wine::run_shell_with_direct3d(scratch.path(), &commands);
    assert!(
        chroot.status.success(),
        "the chroot run: {}",
        text(&chroot.stderr)
    );
    let (status, _, stderr) = captured(scratch.path(), "xr");
    assert_eq!(
        status, 0,
        "holoterrain.exe xr --graphics d3d11 ended cleanly; stderr:\n{stderr}"
    );
    assert!(!stderr.contains("double free"), "stderr:\n{stderr}");

    let xr_report = json(&report);
    assert_eq!(xr_report["ended"], "frame_limit");
    assert_eq!(
        xr_report["swapchain_formats"],
        serde_json::json!(["DXGI_FORMAT_R8G8B8A8_UNORM_SRGB", "DXGI_FORMAT_D16_UNORM"])
    );
    assert_same_run(&xr_report, &json(&sim_out.join("report.json")));
    let runtime_report = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(
        runtime_report["violations"],
        Value::Array(Vec::new()),
        "no violations"
    );
    assert_eq!(
        runtime_report["problems"],
        Value::Array(Vec::new()),
        "the runtime read every frame back"
    );
    assert_eq!(runtime_report["graphics_api"], "d3d11");
    assert_eq!(
        runtime_report["color_format"], 29,
        "DXGI_FORMAT_R8G8B8A8_UNORM_SRGB, created typeless"
    );
    assert_eq!(runtime_report["depth_format"], 55, "DXGI_FORMAT_D16_UNORM");
    assert_eq!(runtime_report["blend_mode"], "ADDITIVE");
    assert_eq!(runtime_report["frames_submitted"], 240);
    assert_images_match(&runtime_out, &sim_out, 2.0, 0.99);
}

/// The Linux simulator's run of `script` in `room`, keeping its placement
/// in `state`; its report.
fn linux_sim_in_room(script: &Path, room: &Path, frames: &str, state: &Path, out: &Path) -> Value {
    let sim = Command::new(wine::linux_binary())
        .args(["sim", "--frames", frames, "--size", TESTRT_MAP, "--seed"])
        .arg(TESTRT_SEED.to_string())
        .args([
            "--resolution",
            TESTRT_RESOLUTION,
            "--every",
            "30",
            "--script",
        ])
        .arg(script)
        .arg("--room")
        .arg(room)
        .arg("--state")
        .arg(state)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run the Linux simulator");
    assert_success(&sim, "the Linux simulator in the table room");
    json(&out.join("report.json"))
}

#[test]
fn xr_on_direct3d_11_places_as_the_linux_simulator_and_its_anchor_survives_a_second_run() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let Some(runtime) = runtime_in(scratch.path()) else {
        return;
    };
    let path = |name: &str| scratch.path().join(name);
    let (wearer, short, room) = (path("wearer.txt"), path("short.txt"), path("room.txt"));
    std::fs::copy(script("placement-wearer.txt"), &wearer).expect("copy the script");
    std::fs::copy(script("airtap-away.txt"), &short).expect("copy the script");
    std::fs::copy(data("rooms/table.txt"), &room).expect("copy the room");
    let sim_first = linux_sim_in_room(
        &wearer,
        &room,
        TESTRT_FRAMES,
        &path("sim-state"),
        &path("sim-1"),
    );
    let sim_second = linux_sim_in_room(&short, &room, "30", &path("sim-state"), &path("sim-2"));

    let runtime_out = path("runtime-out");
    let run = |name: &str, script: &Path, frames: &str| {
        let mut settings = environment(
            script,
            TESTRT_MAP,
            TESTRT_SEED,
            TESTRT_RESOLUTION,
            &runtime_out,
        );
        settings.push(("HOLOTERRAIN_TESTRT_ROOM", room.display().to_string()));
        exe_run(
            scratch.path(),
            name,
            &settings,
            &[
                "xr",
                "--graphics",
                "d3d11",
                "--frames",
                frames,
                "--size",
                TESTRT_MAP,
                "--seed",
                &TESTRT_SEED.to_string(),
                "--state",
                &path("xr-state").display().to_string(),
                "--report",
                &path(&format!("{name}.json")).display().to_string(),
            ],
        )
    };
    let commands = activate(&runtime)
        + &run("first", &wearer, TESTRT_FRAMES)
        + "cp -r \"$RUNTIME_OUT\" \"$RUNTIME_OUT-first\"\n"
        + &run("second", &short, "30");
    let commands = commands.replace("$RUNTIME_OUT", &runtime_out.display().to_string());
    let chroot = wine::run_shell_with_direct3d(scratch.path(), &commands);
    assert!(
        chroot.status.success(),
        "the chroot run: {}",
        text(&chroot.stderr)
    );
    for name in ["first", "second"] {
        let (status, _, stderr) = captured(scratch.path(), name);
        assert_eq!(
            status, 0,
            "holoterrain.exe xr ({name} run); stderr:\n{stderr}"
        );
    }

    let first = json(&path("first.json"));
    assert_same_run(&first, &sim_first);
    assert_eq!(first["surfaces"], "XR_MSFT_scene_understanding");
    let first_runtime_out = PathBuf::from(format!("{}-first", runtime_out.display()));
    let runtime_report = json(&first_runtime_out.join("runtime-report.json"));
    assert_eq!(
        runtime_report["violations"],
        Value::Array(Vec::new()),
        "no violations"
    );
    assert_eq!(
        runtime_report["anchor_store"],
        serde_json::json!(["holoterrain.placement"])
    );
    assert_images_match(&first_runtime_out, &path("sim-1"), 2.0, 0.99);

    let second = json(&path("second.json"));
    assert_eq!(second["placements"], sim_second["placements"]);
    assert_eq!(second["placements"][0]["cause"], "persisted");
    assert_eq!(
        json(&runtime_out.join("runtime-report.json"))["violations"],
        Value::Array(Vec::new())
    );
}

#[test]
fn xr_remote_connects_to_the_emulated_player_and_ends_in_one_line_elsewhere() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let Some(runtime) = runtime_in(scratch.path()) else {
        return;
    };
    let script = scratch.path().join("away.txt");
    std::fs::write(&script, "1.0 airtap right away\n").expect("a script");
    let settings = remoting_environment(&script, &scratch.path().join("out"));
    let commands = activate(&runtime)
        + &exe_run(
            scratch.path(),
            "player",
            &settings,
            &[
                "xr",
                "--remote",
                "127.0.0.1",
                "--frames",
                "20",
                "--size",
                "65x49",
            ],
        )
        + &exe_run(
            scratch.path(),
            "nobody",
            &settings,
            &[
                "xr",
                "--remote",
                "127.0.0.2",
                "--frames",
                "20",
                "--size",
                "65x49",
            ],
        );
    let chroot = wine::run_shell_with_direct3d(scratch.path(), &commands);
    assert!(
        chroot.status.success(),
        "the chroot run: {}",
        text(&chroot.stderr)
    );

    let (status, _, stderr) = captured(scratch.path(), "player");
    assert_eq!(status, 0, "xr --remote 127.0.0.1; stderr:\n{stderr}");
    assert!(
        stderr.contains("holographic remoting: CONNECTED to 127.0.0.1:8265")
            && stderr.contains("xr: 20 frames rendered"),
        "stderr:\n{stderr}"
    );

    let (status, stdout, stderr) = captured(scratch.path(), "nobody");
    assert_ne!(
        status, 0,
        "xr --remote to an address no player listens on succeeded"
    );
    assert_eq!(stdout, "");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line, got:\n{stderr}");
    assert!(
        lines[0].starts_with("error: cannot reach the Holographic Remoting Player at 127.0.0.2:8265: handshake unreachable;"),
        "{}",
        lines[0]
    );
}
