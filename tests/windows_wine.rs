//! The Windows edition under Wine: holoterrain.exe (scripts/build-windows.sh)
//! run in the Wine 10 chroot of scripts/wine-chroot.sh must write the same
//! bytes as the Linux build, end an OpenXR attempt without a runtime in one
//! line of its own, run its Direct3D 11 session and Holographic Remoting on
//! the test runtime (scripts/build-test-runtime.sh) as the Linux simulator
//! runs (BGRA swapchains, a dropped connection reconnected, "new terrain"
//! heard, the remoting runtime found beside the exe), end with its report
//! when that runtime stops answering (the limit, Ctrl-C), compile the
//! one-pass shader variant to the per-eye variant's interface, draw the
//! controls layer as the Vulkan renderer does (their depth too), and ship in
//! a zip that holds what its README lists.
//!
//! Needs root, the Debian mirror the first time (the chroot is cached) and
//! the Windows build; without them the tests print why they are skipped,
//! unless env CI is set, when they fail instead.

mod support {
    pub mod ci;
    pub mod generate_cases;
    pub mod images;
    pub mod loader_output;
    pub mod output;
    pub mod testrt;
    // Its pixel helpers serve tests/render.rs.
    #[allow(dead_code)]
    pub mod ui_scene;
    pub mod unresponsive;
    pub mod wine;
}

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use support::ci::skip;
use support::generate_cases::generate_cases;
use support::images::{image_difference, rgb_png};
use support::loader_output::loader_lines_then_one_error;
use support::output::{assert_success, one_error_line, text};
use support::testrt::{
    FRAMES, MAP, PLAYER, SEED, SHARE_CODE, SHARED_HOST_SCRIPT, SHARED_WEARER_SCRIPT,
    assert_images_match, assert_joined, assert_observer_is_the_capture, assert_same_run, causes,
    data, environment, hanging_environment, json, manifest, observer_settings,
    remoting_environment, runtime_library, script, shared_host_args, shared_rooms,
    shared_wearer_settings, simulate, simulate_with_capture, with_player,
};
use support::unresponsive::assert_ended_by_watchdog;
use support::wine;

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
fn xr_without_an_openxr_runtime_fails_in_one_line_after_the_loaders() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let output = wine::run_shell(scratch.path(), "wine64 \"$EXE\" xr --frames 1");
    let line = loader_lines_then_one_error(&output, "xr with no runtime");
    assert!(
        line.starts_with("error: no OpenXR runtime is active (") && line.contains("SteamVR"),
        "the Windows no-runtime error, got: {}",
        line
    );
}

/// `xr --graphics d3d11` in the Windows build, which has Direct3D 11, gets
/// past the flag to the runtime (Wine has none): after the loader's own
/// lines, the one-line no-runtime error, which points HoloLens users at
/// docs/hololens.md.
#[test]
fn xr_graphics_d3d11_without_an_openxr_runtime_fails_in_one_line_after_the_loaders() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let output = wine::run_shell(
        scratch.path(),
        "wine64 \"$EXE\" xr --graphics d3d11 --frames 1",
    );
    let line = loader_lines_then_one_error(&output, "xr --graphics d3d11 with no runtime");
    assert!(
        line.starts_with("error: no OpenXR runtime is active (")
            && line.contains("docs/hololens.md"),
        "the Windows no-runtime error, got: {}",
        line
    );
}

/// `xr --remote` in the Windows build with no remoting runtime beside the
/// exe, none named, and no XR_RUNTIME_JSON: the Windows wording of the
/// one-line remoting error, saying where the package's files go.
#[test]
fn xr_remote_without_the_remoting_runtime_fails_in_one_line() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let output = wine::run_shell(scratch.path(), "wine64 \"$EXE\" xr --remote 127.0.0.1");
    let line = one_error_line(&output, "xr --remote with no runtime");
    assert!(
        line.starts_with("error: --remote: no Holographic Remoting runtime")
            && line.contains("RemotingXR.json")
            && line.contains("beside holoterrain.exe")
            && line.contains("--remote-runtime")
            && !line.contains("onado"),
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
    // The snapshots; terrain.png beside them is the heights, not an image.
    let is_frame = |name: &String| name.starts_with("frame-") && name.ends_with(".png");
    let frames: BTreeSet<String> = files_below(&vulkan_dir)
        .into_iter()
        .filter(is_frame)
        .collect();
    assert_eq!(frames.len(), 5, "frames 0, 60, 120, 180, 239: {frames:?}");
    assert_eq!(
        frames,
        files_below(&d3d11_dir)
            .into_iter()
            .filter(is_frame)
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

/// An RGBA PNG's size and pixels.
fn rgba_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).expect("PNG written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("PNG pixels");
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// A 16-bit greyscale PNG's size and samples (the simulator's depth-NNNNN.png).
fn grey16_png(path: &Path) -> (u32, u32, Vec<u16>) {
    let file = std::fs::File::open(path).expect("PNG written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut bytes = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut bytes).expect("PNG pixels");
    assert_eq!(
        (info.color_type, info.bit_depth),
        (png::ColorType::Grayscale, png::BitDepth::Sixteen),
        "{}",
        path.display()
    );
    bytes.truncate(info.buffer_size());
    let samples = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
        .collect();
    (info.width, info.height, samples)
}

/// How far two depth images of one view are apart, as depth-NNNNN.png's
/// samples (0 where nothing was drawn, else 65535 × (1 − depth)).
#[derive(Debug)]
struct DepthDifference {
    /// Pixels drawn in the first.
    drawn: usize,
    /// Pixels drawn in one and not the other (edges may rasterise apart).
    in_one_only: usize,
    /// Of the pixels drawn in both, the share within 16/65535.
    within_16: f64,
    /// The mean absolute difference where both drew, in 1/65535.
    mean: f64,
}

/// How far `second` is from `first`, both depth samples of one image size.
fn depth_difference(first: &[u16], second: &[u16]) -> DepthDifference {
    assert_eq!(first.len(), second.len(), "depth image sizes");
    let both: Vec<u32> = first
        .iter()
        .zip(second)
        .filter(|&(&a, &b)| a > 0 && b > 0)
        .map(|(&a, &b)| u32::from(a.abs_diff(b)))
        .collect();
    let shared = both.len().max(1) as f64;
    DepthDifference {
        drawn: first.iter().filter(|&&sample| sample > 0).count(),
        in_one_only: first
            .iter()
            .zip(second)
            .filter(|&(&a, &b)| (a > 0) != (b > 0))
            .count(),
        within_16: both.iter().filter(|&&difference| difference <= 16).count() as f64 / shared,
        mean: both
            .iter()
            .map(|&difference| f64::from(difference))
            .sum::<f64>()
            / shared,
    }
}

/// Whether two renderers' depth of one view agree all but exactly: the
/// same pixels drawn but for an edge pixel here and there (at most 0.1 %
/// of those drawn), and where both drew the same depth within 16/65535
/// (99.9 % of them), 1/65535 on average. Measured under Wine on lavapipe:
/// no pixel drawn by one alone, at most 1/65535 apart.
fn assert_depths_match(what: &str, difference: &DepthDifference) {
    eprintln!("{what}: {difference:?}");
    assert!(
        difference.drawn > 1000,
        "{what}: little drawn: {difference:?}"
    );
    assert!(
        difference.in_one_only * 1000 <= difference.drawn
            && difference.within_16 >= 0.999
            && difference.mean <= 1.0,
        "{what}: Direct3D 11's depth and Vulkan's differ: {difference:?}"
    );
}

/// The islands (a recipe with a sea) drawn by both renderers, eyes and
/// capture: the water, the base and the capture camera's RGBA picture agree
/// within the same tolerance as the demo's eyes, and the capture's depth
/// (depth-NNNNN.png) all but exactly.
#[test]
fn sim_with_d3d11_draws_water_base_and_capture_as_vulkan() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let vulkan_dir = scratch.path().join("vulkan");
    let d3d11_dir = scratch.path().join("d3d11");
    let command = |out: &Path, renderer: &str| {
        let args = [
            "sim",
            "--frames",
            "121",
            "--every",
            "60",
            "--size",
            "65x65",
            "--recipe",
            "islands",
            "--resolution",
            "256x192",
            "--capture",
            "--capture-size",
            "320x180",
            "--renderer",
            renderer,
            "--out",
        ]
        .map(str::to_owned)
        .into_iter()
        .chain([out.display().to_string()]);
        let quoted: Vec<String> = args.map(|arg| shell_quote(&arg)).collect();
        format!("wine64 \"$EXE\" {}\n", quoted.join(" "))
    };
    let output = wine::run_shell_with_direct3d(
        scratch.path(),
        &(command(&vulkan_dir, "vulkan") + &command(&d3d11_dir, "d3d11")),
    );
    assert_success(
        &output,
        "holoterrain.exe sim --recipe islands --capture, vulkan then d3d11",
    );
    for frame in [0, 60, 120] {
        let (_, _, vulkan_eyes) = rgb_png(&vulkan_dir.join(format!("frame-{frame:05}.png")));
        let (_, _, d3d11_eyes) = rgb_png(&d3d11_dir.join(format!("frame-{frame:05}.png")));
        let eyes = image_difference(&vulkan_eyes, &d3d11_eyes);
        eprintln!("frame {frame}, eyes: {eyes:?}");
        assert!(
            eyes.mean <= 2.0 && eyes.within_8 >= 0.99,
            "frame {frame}: the eyes differ too much: {eyes:?}"
        );
        let name = format!("capture-{frame:05}.png");
        let (width, height, vulkan) = rgba_png(&vulkan_dir.join(&name));
        let (d3d11_width, d3d11_height, d3d11) = rgba_png(&d3d11_dir.join(&name));
        assert_eq!((width, height), (320, 180));
        assert_eq!((d3d11_width, d3d11_height), (320, 180));
        // Alpha as a fourth colour: three channels at a time.
        let as_rgb = |pixels: &[u8], from: usize| -> Vec<u8> {
            pixels
                .chunks_exact(4)
                .flat_map(|pixel| [pixel[from], pixel[from + 1], pixel[3]])
                .collect()
        };
        for from in [0, 1] {
            let capture = image_difference(&as_rgb(&vulkan, from), &as_rgb(&d3d11, from));
            eprintln!("{name} from channel {from}: {capture:?}");
            assert!(
                capture.terrain > 0.05,
                "{name}: little hologram: {capture:?}"
            );
            assert!(
                capture.mean <= 2.0 && capture.within_8 >= 0.99,
                "{name}: the captures differ too much: {capture:?}"
            );
        }
        // Water on the islands: blue pixels in both.
        let blue = |pixels: &[u8]| {
            pixels
                .chunks_exact(4)
                .filter(|p| p[3] > 0 && u16::from(p[2]) > u16::from(p[0]) + 30)
                .count()
        };
        if frame == 120 {
            assert!(blue(&vulkan) > 100, "{name}: no water seen");
            assert!(blue(&d3d11) > 100, "{name}: no water seen with d3d11");
        }
        let name = format!("depth-{frame:05}.png");
        let (width, height, vulkan) = grey16_png(&vulkan_dir.join(&name));
        let (d3d11_width, d3d11_height, d3d11) = grey16_png(&d3d11_dir.join(&name));
        assert_eq!((width, height), (320, 180));
        assert_eq!((d3d11_width, d3d11_height), (320, 180));
        assert_depths_match(&name, &depth_difference(&vulkan, &d3d11));
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

/// Per-eye resolution of the runs compared with the simulator's (larger
/// images than on Linux, so edges are a small share of the pixels).
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

/// A folder in `scratch` holding a copy of holoterrain.exe with the Windows
/// test runtime beside it as `RemotingXR.json` (its DLL too), as a user
/// lays out Microsoft's remoting runtime; the copied exe, or `None` when
/// the runtime is not built.
fn exe_beside_remoting_runtime(scratch: &Path) -> Option<PathBuf> {
    let manifest = manifest("windows")?;
    let folder = scratch.join("remoting");
    std::fs::create_dir_all(&folder).expect("a folder");
    let library = runtime_library(&manifest);
    std::fs::copy(&library, folder.join(library.file_name().expect("a name")))
        .expect("copy the runtime's DLL");
    std::fs::copy(&manifest, folder.join("RemotingXR.json")).expect("copy the manifest");
    let exe = folder.join("holoterrain.exe");
    std::fs::copy(wine::exe(), &exe).expect("copy the exe");
    Some(exe)
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
    program_run("\"$EXE\"", scratch, name, settings, args)
}

/// [`exe_run`] of the exe at `program` instead of the build's.
fn copy_run(
    program: &Path,
    scratch: &Path,
    name: &str,
    settings: &[(&str, String)],
    args: &[&str],
) -> String {
    let quoted = shell_quote(&program.display().to_string());
    program_run(&quoted, scratch, name, settings, args)
}

/// `wine64 PROGRAM ARGS` (PROGRAM already quoted for sh), as [`exe_run`] says.
fn program_run(
    program: &str,
    scratch: &Path,
    name: &str,
    settings: &[(&str, String)],
    args: &[&str],
) -> String {
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
        "status=0; env {} wine64 {program} {} >{} 2>{} || status=$?; echo $status >{}\n",
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
    let sim_report = simulate(&wearer, TESTRT_RESOLUTION, &sim_out);
    // The same run with captures, for Mixed Reality Capture's observer view.
    let capture_out = scratch.path().join("sim-capture");
    simulate_with_capture(&wearer, TESTRT_RESOLUTION, &capture_out);
    let runtime_out = scratch.path().join("runtime-out");
    let report = scratch.path().join("xr.json");
    let mut settings = environment(&wearer, MAP, SEED, TESTRT_RESOLUTION, &runtime_out);
    settings.extend(observer_settings());
    let commands = activate(&runtime)
        + &exe_run(
            scratch.path(),
            "xr",
            &settings,
            &[
                "xr",
                "--graphics",
                "d3d11",
                "--frames",
                FRAMES,
                "--size",
                MAP,
                "--seed",
                &SEED.to_string(),
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
    // With no remoting player the app listens with Windows' own speech
    // recognition, which cannot start in the chroot (Wine's opens the
    // default microphone, and there is none): one line says so, and the
    // run below goes on to its end as the simulator's.
    let speech: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("voice commands on this device are off: "))
        .collect();
    assert_eq!(speech.len(), 1, "one line about speech; stderr:\n{stderr}");

    let xr_report = json(&report);
    assert_eq!(xr_report["ended"], "frame_limit");
    assert_eq!(xr_report["graphics_api"], "d3d11");
    assert_eq!(
        xr_report["swapchain_formats"],
        serde_json::json!(["DXGI_FORMAT_B8G8R8A8_UNORM_SRGB", "DXGI_FORMAT_D16_UNORM"]),
        "HoloLens 2's first colour format, BGRA"
    );
    assert_same_run(&xr_report, &sim_report);
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
        runtime_report["color_format"], 91,
        "DXGI_FORMAT_B8G8R8A8_UNORM_SRGB, created typeless"
    );
    assert_eq!(runtime_report["depth_format"], 55, "DXGI_FORMAT_D16_UNORM");
    assert_eq!(runtime_report["blend_mode"], "ADDITIVE");
    assert_eq!(runtime_report["frames_submitted"], 240);
    assert_images_match(&runtime_out, &sim_out, 2.0, 0.99);
    assert_observer_is_the_capture(&xr_report, &runtime_out, &capture_out, 2.0);
}

/// The Linux simulator's run of `script` in `room`, keeping its placement
/// in `state`; its report.
fn linux_sim_in_room(script: &Path, room: &Path, frames: &str, state: &Path, out: &Path) -> Value {
    let sim = Command::new(wine::linux_binary())
        .args(["sim", "--frames", frames, "--size", MAP, "--seed"])
        .arg(SEED.to_string())
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
    let sim_first = linux_sim_in_room(&wearer, &room, FRAMES, &path("sim-state"), &path("sim-1"));
    let sim_second = linux_sim_in_room(&short, &room, "30", &path("sim-state"), &path("sim-2"));

    let runtime_out = path("runtime-out");
    let run = |name: &str, script: &Path, frames: &str| {
        let mut settings = environment(script, MAP, SEED, TESTRT_RESOLUTION, &runtime_out);
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
                MAP,
                "--seed",
                &SEED.to_string(),
                "--state",
                &path("xr-state").display().to_string(),
                "--report",
                &path(&format!("{name}.json")).display().to_string(),
            ],
        )
    };
    let commands = activate(&runtime)
        + &run("first", &wearer, FRAMES)
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
fn xr_remote_finds_remoting_xr_json_beside_the_exe_plain_xr_does_not_and_elsewhere_is_one_line() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let Some(exe) = exe_beside_remoting_runtime(scratch.path()) else {
        return;
    };
    // RemotingXR.json copied without the DLL it names, as a user who
    // copies only the manifest has it; and with a DLL that does not load,
    // as one whose dependencies (the Visual C++ runtime) are missing.
    let manifest_beside_exe = exe.with_file_name("RemotingXR.json");
    let library_name = runtime_library(&manifest_beside_exe)
        .file_name()
        .expect("a DLL name")
        .to_owned();
    let without_dlls = scratch.path().join("manifest-only");
    let unloadable = scratch.path().join("unloadable-dll");
    for folder in [&without_dlls, &unloadable] {
        std::fs::create_dir_all(folder).expect("a folder");
        std::fs::copy(&manifest_beside_exe, folder.join("RemotingXR.json"))
            .expect("copy the manifest");
    }
    std::fs::write(unloadable.join(&library_name), b"not a DLL").expect("a broken DLL");
    let script = scratch.path().join("away.txt");
    std::fs::write(&script, "1.0 airtap right away\n").expect("a script");
    let out = scratch.path().join("out");
    let settings = remoting_environment(&script, &out);
    let report = scratch.path().join("xr.json");
    // No XR_RUNTIME_JSON, no registry runtime: only RemotingXR.json beside the exe.
    let commands = copy_run(
        &exe,
        scratch.path(),
        "player",
        &settings,
        &[
            "xr",
            "--remote",
            PLAYER,
            "--frames",
            "20",
            "--size",
            "65x49",
            "--report",
            &report.display().to_string(),
        ],
    ) + &copy_run(
        &exe,
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
    ) + &copy_run(
        &exe,
        scratch.path(),
        "plain",
        &settings,
        &["xr", "--frames", "20"],
    ) + &copy_run(
        &exe,
        scratch.path(),
        "no-dlls",
        &settings,
        &[
            "xr",
            "--remote",
            PLAYER,
            "--remote-runtime",
            &without_dlls.join("RemotingXR.json").display().to_string(),
        ],
    ) + &copy_run(
        &exe,
        scratch.path(),
        "unloadable",
        &settings,
        &[
            "xr",
            "--remote",
            PLAYER,
            "--remote-runtime",
            &unloadable.join("RemotingXR.json").display().to_string(),
        ],
    );
    let chroot = wine::run_shell_with_direct3d(scratch.path(), &commands);
    assert!(
        chroot.status.success(),
        "the chroot run: {}",
        text(&chroot.stderr)
    );

    let (status, _, stderr) = captured(scratch.path(), "player");
    assert_eq!(status, 0, "xr --remote {PLAYER}; stderr:\n{stderr}");
    assert!(
        stderr.contains("holographic remoting: CONNECTED to 127.0.0.1:8265")
            && stderr.contains("xr: 20 frames rendered"),
        "stderr:\n{stderr}"
    );
    let remoting = &json(&report)["remoting"];
    assert_eq!(remoting["runtime_found_by"], "beside the program");
    assert!(
        remoting["runtime_manifest"]
            .as_str()
            .is_some_and(|path| path.ends_with("remoting\\RemotingXR.json")),
        "{remoting}"
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
        lines[0].starts_with("error: cannot reach the Holographic Remoting Player at 127.0.0.2:8265: handshake unreachable (XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT);"),
        "{}",
        lines[0]
    );

    let (status, _, stderr) = captured(scratch.path(), "plain");
    assert_eq!(status, 1, "plain xr; stderr:\n{stderr}");
    assert!(
        stderr
            .lines()
            .last()
            .is_some_and(|line| line.starts_with("error: no OpenXR runtime is active")),
        "plain xr must not use RemotingXR.json:\n{stderr}"
    );

    for (name, says) in [
        (
            "no-dlls",
            "is missing: copy every file of the runtime's folder, not the manifest alone",
        ),
        (
            "unloadable",
            "install Microsoft's Visual C++ Redistributable (vc_redist.x64.exe)",
        ),
    ] {
        let (status, _, stderr) = captured(scratch.path(), name);
        assert_eq!(status, 1, "{name}; stderr:\n{stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{name}: one line, got:\n{stderr}");
        assert!(
            lines[0].starts_with("error: the OpenXR runtime manifest ") && lines[0].contains(says),
            "{name}: {}",
            lines[0]
        );
    }
}

/// `holoterrain.exe xr --remote` (the test runtime's player) with Direct3D
/// 11 under Wine, for [`FRAMES`] frames of the [`MAP`] world from [`SEED`],
/// worn by `wearer`'s script, the runtime writing into `runtime_out` and the
/// app its report to `report`; asserts it ended cleanly and gives its stderr.
fn remote_xr_on_direct3d_11(
    exe: &Path,
    scratch: &Path,
    wearer: &Path,
    runtime_out: &Path,
    report: &Path,
) -> String {
    let commands = copy_run(
        exe,
        scratch,
        "xr",
        &[
            with_player(environment(
                wearer,
                MAP,
                SEED,
                TESTRT_RESOLUTION,
                runtime_out,
            )),
            vec![
                // The sound module's one line about the audio device, the
                // only info line this adds.
                ("RUST_LOG", "warn,holoterrain::sound=info".to_owned()),
                // Wine's own ALSA driver (winealsa.drv, alsa-lib inside the
                // Wine process, which no Windows PC has) would print alsa-lib's
                // "ALSA lib ..." lines for the chroot's missing sound card;
                // without it Wine offers no audio device, as a PC without one.
                ("WINEDLLOVERRIDES", "winealsa.drv=d".to_owned()),
            ],
        ]
        .concat(),
        &[
            "xr",
            "--remote",
            PLAYER,
            "--frames",
            FRAMES,
            "--size",
            MAP,
            "--seed",
            &SEED.to_string(),
            "--report",
            &report.display().to_string(),
            // Not the prefix's %LOCALAPPDATA%, which outlives the test: the
            // menu test grows another landscape for a while.
            "--state",
            &scratch.join("state").display().to_string(),
        ],
    );
    let chroot = wine::run_shell_with_direct3d(scratch, &commands);
    assert!(
        chroot.status.success(),
        "the chroot run: {}",
        text(&chroot.stderr)
    );
    let (status, _, stderr) = captured(scratch, "xr");
    assert_eq!(status, 0, "holoterrain.exe xr --remote; stderr:\n{stderr}");
    stderr
}

#[test]
fn xr_remote_on_direct3d_11_reconnects_hears_new_terrain_and_is_the_linux_simulators_run() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let Some(exe) = exe_beside_remoting_runtime(scratch.path()) else {
        return;
    };
    let wearer = scratch.path().join("wearer.txt");
    std::fs::write(
        &wearer,
        "1.0 airtap right\n1.5 disconnect 17\n2.0 say new terrain\n2.5 airtap left\n",
    )
    .expect("a script");
    let sim_out = scratch.path().join("sim");
    let sim_report = simulate(&wearer, TESTRT_RESOLUTION, &sim_out);
    assert_eq!(causes(&sim_report), ["airtap", "voice", "airtap"]);
    let runtime_out = scratch.path().join("runtime-out");
    let report = scratch.path().join("xr.json");
    let stderr = remote_xr_on_direct3d_11(&exe, scratch.path(), &wearer, &runtime_out, &report);
    assert!(
        stderr.contains("holographic remoting: reconnecting to 127.0.0.1:8265 in 1 s, attempt 1 after XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT"),
        "stderr:\n{stderr}"
    );
    assert!(
        !stderr.contains("onado"),
        "no Monado advice on Windows:\n{stderr}"
    );
    // Over remoting the player hears the wearer; the computer does not listen.
    assert!(
        !stderr.contains("voice commands on this device"),
        "no local speech over remoting:\n{stderr}"
    );

    let xr_report = json(&report);
    assert_same_run(&xr_report, &sim_report);
    assert_eq!(xr_report["graphics_api"], "d3d11");
    assert_eq!(xr_report["anchored"], true);
    let connections = xr_report["remoting"]["connections"]
        .as_array()
        .expect("connections");
    assert_eq!(connections.len(), 2, "{}", xr_report["remoting"]);
    assert_eq!(
        connections[0]["ended"],
        "XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT"
    );
    assert_eq!(
        xr_report["swapchain_formats"][0],
        "DXGI_FORMAT_B8G8R8A8_UNORM_SRGB"
    );
    let runtime_report = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(runtime_report["violations"], Value::Array(Vec::new()));
    assert_eq!(runtime_report["problems"], Value::Array(Vec::new()));
    assert_eq!(runtime_report["remoting"]["connections"], 2);
    assert_eq!(
        runtime_report["speech"]["fetched"],
        serde_json::json!(["new terrain"])
    );
    assert_eq!(runtime_report["color_format"], 91);
    assert_images_match(&runtime_out, &sim_out, 2.0, 0.99);
}

#[test]
fn xr_remote_on_direct3d_11_presses_the_menu_and_panel_as_the_linux_simulator() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let Some(exe) = exe_beside_remoting_runtime(scratch.path()) else {
        return;
    };
    let wearer = scratch.path().join("wearer.txt");
    std::fs::copy(script("remote-menu.txt"), &wearer).expect("copy the script");
    let sim_out = scratch.path().join("sim");
    let sim_report = simulate(&wearer, TESTRT_RESOLUTION, &sim_out);
    assert_eq!(causes(&sim_report), ["menu"]);
    let runtime_out = scratch.path().join("runtime-out");
    let report = scratch.path().join("xr.json");
    let stderr = remote_xr_on_direct3d_11(&exe, scratch.path(), &wearer, &runtime_out, &report);
    // Wine in the chroot has no sound card: the clicks are silent, said in
    // one line, and nothing from an audio library reaches stderr.
    assert_eq!(
        stderr.matches("the app runs silently").count(),
        1,
        "stderr:\n{stderr}"
    );
    assert!(!stderr.contains("ALSA"), "stderr:\n{stderr}");
    let xr_report = json(&report);
    assert_same_run(&xr_report, &sim_report);
    assert_eq!(xr_report["graphics_api"], "d3d11");
    // Three presses by hand, each clicking as it begins and ends.
    assert_eq!(xr_report["clicks"], 6);
    assert_eq!(xr_report["ui"].as_array().map(Vec::len), Some(4));
    for (xr, sim) in xr_report["ui"]
        .as_array()
        .unwrap()
        .iter()
        .zip(sim_report["ui"].as_array().unwrap())
    {
        for key in ["frame", "label", "how", "did"] {
            assert_eq!(xr[key], sim[key], "{key}: {xr} against {sim}");
        }
    }
    let runtime_report = json(&runtime_out.join("runtime-report.json"));
    assert_eq!(runtime_report["violations"], Value::Array(Vec::new()));
    assert_eq!(
        runtime_report["speech"]["fetched"],
        serde_json::json!(["pause growth"])
    );
    // The menu and panel drawn by Direct3D 11 are the simulator's Vulkan
    // images within the Direct3D 11 tolerance.
    assert_images_match(&runtime_out, &sim_out, 2.0, 0.99);
}

/// `holoterrain.exe xr --graphics d3d11 --join` under Wine, on the Windows
/// test runtime paced to the wall clock, in a shared session the Linux
/// simulator hosts in the same chroot run (started there, so the Wine
/// runs queued before it cannot outlast it): the Windows build follows the
/// Linux host as [`assert_joined`] says, bit for bit.
#[test]
fn xr_on_direct3d_11_joins_the_linux_simulators_shared_session() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let Some(runtime) = runtime_in(scratch.path()) else {
        return;
    };
    // The chroot binds `scratch`: the Linux build runs from there (it needs
    // only the C library and, to draw, the chroot's lavapipe).
    let linux = scratch.path().join("holoterrain-linux");
    std::fs::copy(wine::linux_binary(), &linux).expect("copy the Linux build");
    let host_script = scratch.path().join("host.txt");
    std::fs::write(&host_script, SHARED_HOST_SCRIPT).expect("the host's script");
    let wearer = scratch.path().join("wearer.txt");
    std::fs::write(&wearer, SHARED_WEARER_SCRIPT).expect("the wearer's script");
    let host_out = scratch.path().join("host");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    // The host runs 20 s: Wine starts slowly, and the joiner's air-tap
    // must reach it.
    // The rooms too: the chroot sees only `scratch` and the exe's folder.
    let (host_room, joiner_room) = (
        scratch.path().join("host.room"),
        scratch.path().join("joiner.room"),
    );
    for (from, to) in [
        (shared_rooms().0, &host_room),
        (shared_rooms().1, &joiner_room),
    ] {
        std::fs::copy(from, to).expect("copy a room");
    }
    let host: Vec<String> = shared_host_args(&host_script, &host_out, port, 600, &host_room)
        .iter()
        .map(|arg| shell_quote(arg))
        .collect();
    let report = scratch.path().join("xr").join("xr.json");
    let join = format!("{SHARE_CODE}@127.0.0.1:{port}");
    let commands = format!(
        "{} {} 2>{} &\nhost=$!\n",
        shell_quote(&linux.display().to_string()),
        host.join(" "),
        shell_quote(&scratch.path().join("host.err").display().to_string())
    ) + &activate(&runtime)
        + &exe_run(
            scratch.path(),
            "xr",
            &[
                shared_wearer_settings(&wearer, &scratch.path().join("runtime-out"), &joiner_room),
                // The wearer's copy of the app core follows the session
                // too, so its second air-tap finds the hologram on the card.
                vec![("HOLOTERRAIN_TESTRT_JOIN", join.clone())],
            ]
            .concat(),
            &[
                "xr",
                "--graphics",
                "d3d11",
                "--frames",
                "900",
                "--join",
                &join,
                "--state",
                &scratch.path().join("state").display().to_string(),
                "--report",
                &report.display().to_string(),
            ],
        )
        + "wait $host\n";
    let chroot = wine::run_shell_with_direct3d(scratch.path(), &commands);
    assert!(
        chroot.status.success(),
        "the chroot run (the host's stderr: {}): {}",
        std::fs::read_to_string(scratch.path().join("host.err")).unwrap_or_default(),
        text(&chroot.stderr)
    );
    let (status, _, stderr) = captured(scratch.path(), "xr");
    assert_eq!(status, 0, "holoterrain.exe xr --join; stderr:\n{stderr}");
    let xr_report = json(&report);
    assert_eq!(xr_report["graphics_api"], "d3d11");
    assert_joined(
        &xr_report,
        &report.with_file_name("commands.jsonl"),
        &host_out,
        6,
    );
}

/// The one-pass shader variants of the terrain and the controls (the vertex
/// shader picks the layer), which
/// Wine's Direct3D cannot run: compiled by `D3DCompile` all the same, with
/// the per-eye variant's interface plus the layer index, and each variant's
/// pixel shader reading what its vertex shader writes
/// (tests/hlsl-interface).
#[test]
fn the_one_pass_shader_variant_compiles_to_the_per_eye_variants_interface() {
    if !wine::ready() {
        return;
    }
    let tool = wine::exe().with_file_name("holoterrain-hlsl-interface.exe");
    if !wine::built(&tool) {
        return;
    }
    let scratch = wine::scratch_dir();
    let output = wine::run_shell(
        scratch.path(),
        &format!("wine64 {}", shell_quote(&tool.display().to_string())),
    );
    assert_success(&output, "holoterrain-hlsl-interface.exe under Wine");
    let interfaces: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let layer_outputs = |variant: &str| {
        interfaces[variant]["vertex"]["outputs"]
            .as_array()
            .expect("vertex outputs")
            .iter()
            .filter(|element| element["semantic"] == "SV_RenderTargetArrayIndex")
            .count()
    };
    assert_eq!(layer_outputs("per_eye"), 0);
    assert_eq!(layer_outputs("one_pass"), 1);
    assert_eq!(
        interfaces["per_eye"]["vertex"]["constant_buffers"],
        interfaces["one_pass"]["vertex"]["constant_buffers"]
    );
    assert!(
        interfaces["one_pass"]["vertex"]["constant_buffers"]
            .as_array()
            .is_some_and(|buffers| buffers.len() == 2),
        "the Frame and Eye constant buffers: {}",
        interfaces["one_pass"]["vertex"]
    );
    // The controls' shaders likewise.
    let ui_layer_outputs = |variant: &str| {
        interfaces[variant]["vertex"]["outputs"]
            .as_array()
            .expect("controls vertex outputs")
            .iter()
            .filter(|element| element["semantic"] == "SV_RenderTargetArrayIndex")
            .count()
    };
    assert_eq!(ui_layer_outputs("ui_per_eye"), 0);
    assert_eq!(ui_layer_outputs("ui_one_pass"), 1);
}

/// The controls layer's test scene (tests/support/ui_scene.rs: a plate, a
/// ring, labels, one hidden by the land) drawn by the Direct3D 11 renderer
/// under Wine (tests/hlsl-interface) agrees with the Vulkan renderer's image
/// of it, drawn here on lavapipe, within the simulator comparisons'
/// tolerance (mean at most 2/255, at least 99 % of pixels within 8/255);
/// and where the controls change Vulkan's image, Direct3D 11's changed
/// alike (so an image without them fails); and the depth of both agrees
/// all but exactly (the plate, the ring and the labels write theirs).
#[test]
fn controls_drawn_with_direct3d_11_match_vulkans() {
    use holoterrain::render::vulkan::OffscreenRenderer;
    use holoterrain::render::{OffscreenOptions, UiLayer};
    use support::ui_scene::{
        UI_EYE_HEIGHT, UI_EYE_WIDTH, UI_GRID, ui_heights, ui_labels, ui_quads, ui_scene,
    };

    if !wine::ready() {
        return;
    }
    let tool = wine::exe().with_file_name("holoterrain-hlsl-interface.exe");
    if !wine::built(&tool) {
        return;
    }
    let scratch = wine::scratch_dir();
    let out = scratch.path().join("controls.rgba");
    let output = wine::run_shell_with_direct3d(
        scratch.path(),
        &format!(
            "wine64 {} controls {}",
            shell_quote(&tool.display().to_string()),
            shell_quote(&out.display().to_string())
        ),
    );
    assert_success(
        &output,
        "holoterrain-hlsl-interface.exe controls under Wine",
    );
    let d3d11 = std::fs::read(&out).expect("the Direct3D 11 image");
    let d3d11_depth: Vec<f32> = std::fs::read(out.with_extension("rgba.depth"))
        .expect("the Direct3D 11 depth")
        .chunks_exact(4)
        .map(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
        .collect();

    let heights = ui_heights();
    let (quads, labels) = (ui_quads(), ui_labels());
    let layer = UiLayer {
        quads: &quads,
        labels: &labels,
    };
    let mut renderer = OffscreenRenderer::new(OffscreenOptions {
        eye_width: UI_EYE_WIDTH,
        eye_height: UI_EYE_HEIGHT,
        grid_width: UI_GRID,
        grid_height: UI_GRID,
        validation: true,
    })
    .expect("a Vulkan renderer");
    let counter = renderer.validation_counter().expect("validation");
    let mut vulkan_image = |layer| {
        renderer.render(&ui_scene(&heights, layer)).unwrap();
        let image = renderer.read_back().unwrap();
        let depth = renderer.read_back_depth().unwrap();
        ([image.left, image.right].concat(), depth)
    };
    let (vulkan, vulkan_depth) = vulkan_image(layer);
    let (bare, _) = vulkan_image(UiLayer::default());
    drop(renderer);
    assert_eq!(counter.count(), 0, "Vulkan validation messages");
    assert_eq!(d3d11.len(), vulkan.len(), "image size");

    let rgb = |rgba: &[u8]| -> Vec<u8> {
        rgba.chunks(4)
            .flat_map(|pixel| pixel[..3].to_vec())
            .collect()
    };
    let difference = image_difference(&rgb(&vulkan), &rgb(&d3d11));
    eprintln!("controls, Direct3D 11 against Vulkan: {difference:?}");
    assert!(
        difference.mean <= 2.0 && difference.within_8 >= 0.99,
        "Direct3D 11 differs from Vulkan: {difference:?}"
    );
    let close = |a: &[u8], b: &[u8]| a.iter().zip(b).all(|(a, b)| a.abs_diff(*b) <= 8);
    let controls: Vec<usize> = (0..vulkan.len() / 4)
        .filter(|&i| !close(&vulkan[4 * i..4 * i + 3], &bare[4 * i..4 * i + 3]))
        .collect();
    let alike = controls
        .iter()
        .filter(|&&i| close(&vulkan[4 * i..4 * i + 3], &d3d11[4 * i..4 * i + 3]))
        .count();
    eprintln!("{alike} of the {} pixels of controls alike", controls.len());
    assert!(
        controls.len() > 2000,
        "{} pixels of controls",
        controls.len()
    );
    assert!(
        alike as f64 >= 0.95 * controls.len() as f64,
        "{alike} of the {} pixels the controls change are alike",
        controls.len()
    );
    // As depth-NNNNN.png's samples.
    let vulkan_depth: Vec<u16> = vulkan_depth
        .left
        .iter()
        .chain(&vulkan_depth.right)
        .map(|&depth| holoterrain::sim::capture::depth_sample(depth))
        .collect();
    let d3d11_depth: Vec<u16> = d3d11_depth
        .into_iter()
        .map(holoterrain::sim::capture::depth_sample)
        .collect();
    assert_depths_match(
        "controls' depth",
        &depth_difference(&vulkan_depth, &d3d11_depth),
    );
}

/// The words of `args`.
fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// What a run on a runtime that stops answering gets from the test.
#[derive(Clone, Copy)]
enum WhenHung {
    /// Nothing: the app's limit must end it.
    Wait,
    /// SIGINT 3 s after the runtime stopped answering (Wine turns it into
    /// the console's Ctrl-C); `NAME.alive` says whether the app still ran
    /// before it.
    Interrupt,
}

/// Like [`exe_run`], for a run whose runtime stops answering: in the
/// background; once the runtime says so, `when` decides what the test
/// does; the exit status goes to `NAME.status` and the milliseconds from
/// the runtime's hang (`Wait`) or from SIGINT (`Interrupt`) to the app's
/// exit to `NAME.ms`. A run still going 20 s later is killed (exit status
/// 137), so a broken watchdog fails the test instead of hanging it.
fn exe_run_when_hung(
    scratch: &Path,
    name: &str,
    settings: &[(&str, String)],
    args: &[&str],
    when: WhenHung,
) -> String {
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
    let act = match when {
        WhenHung::Wait => String::new(),
        WhenHung::Interrupt => format!(
            "sleep 3\n\
             if kill -0 $app 2>/dev/null; then echo yes >{alive}; else echo no >{alive}; fi\n\
             kill -INT $app 2>/dev/null || true\n",
            alive = file("alive")
        ),
    };
    format!(
        "env {assignments} wine64 \"$EXE\" {arguments} >{out} 2>{err} &\n\
         app=$!\n\
         waited=0\n\
         until grep -q 'never returns' {err} || [ $waited -ge 600 ]; do sleep 0.1; waited=$((waited + 1)); done\n\
         {act}\
         since=$(date +%s%N)\n\
         (sleep 20; kill -KILL $app 2>/dev/null) &\n\
         killer=$!\n\
         status=0; wait $app || status=$?\n\
         echo $(( ($(date +%s%N) - since) / 1000000 )) >{ms}\n\
         kill $killer 2>/dev/null || true\n\
         echo $status >{status}\n",
        assignments = assignments.join(" "),
        arguments = arguments.join(" "),
        out = file("out"),
        err = file("err"),
        ms = file("ms"),
        status = file("status"),
    )
}

#[test]
fn xr_on_a_runtime_that_stops_answering_ends_with_its_report_at_the_limit_and_at_ctrl_c() {
    if !wine::ready() {
        return;
    }
    let scratch = wine::scratch_dir();
    let Some(runtime) = runtime_in(scratch.path()) else {
        return;
    };
    let settings = hanging_environment(20, &scratch.path().join("runtime-out"));
    let report = |name: &str| scratch.path().join(format!("{name}.json"));
    let run_args = |name: &str, limit: &str| {
        [
            "xr",
            "--graphics",
            "d3d11",
            "--size",
            "65x49",
            "--runtime-timeout",
            limit,
            "--report",
        ]
        .map(str::to_owned)
        .into_iter()
        .chain([report(name).display().to_string()])
        .collect::<Vec<String>>()
    };
    let limit_args = run_args("limit", "1");
    let interrupt_args = run_args("interrupt", "0");
    let commands = activate(&runtime)
        + &exe_run_when_hung(
            scratch.path(),
            "limit",
            &settings,
            &as_strs(&limit_args),
            WhenHung::Wait,
        )
        + &exe_run_when_hung(
            scratch.path(),
            "interrupt",
            &settings,
            &as_strs(&interrupt_args),
            WhenHung::Interrupt,
        );
    let chroot = wine::run_shell_with_direct3d(scratch.path(), &commands);
    assert!(
        chroot.status.success(),
        "the chroot run: {}",
        text(&chroot.stderr)
    );

    let milliseconds = |name: &str| -> u64 {
        let path = scratch.path().join(format!("{name}.ms"));
        std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
            .trim()
            .parse()
            .expect("milliseconds")
    };
    let (status, _, stderr) = captured(scratch.path(), "limit");
    let took = milliseconds("limit");
    assert!(
        took <= (1 + 5) * 1000,
        "ended {took} ms after the runtime stopped answering, with a 1 s limit; stderr:\n{stderr}"
    );
    let limit_report = json(&report("limit"));
    let line = assert_ended_by_watchdog(
        Some(status),
        &stderr,
        "error: the OpenXR runtime stopped answering: no answer to xrWaitFrame for ",
        &report("limit"),
        &limit_report,
        "runtime_unresponsive",
    );
    assert!(
        line.contains(" s (--runtime-timeout 1) after 20 rendered frames;"),
        "{line}"
    );
    assert_eq!(limit_report["frames"], 20);

    let alive =
        std::fs::read_to_string(scratch.path().join("interrupt.alive")).expect("interrupt.alive");
    assert_eq!(alive.trim(), "yes", "--runtime-timeout 0 ended the run");
    let (status, _, stderr) = captured(scratch.path(), "interrupt");
    let took = milliseconds("interrupt");
    assert!(
        took <= 5000,
        "ended {took} ms after SIGINT; stderr:\n{stderr}"
    );
    let interrupt_report = json(&report("interrupt"));
    assert_ended_by_watchdog(
        Some(status),
        &stderr,
        "error: interrupted while the OpenXR runtime was not answering: no answer to xrWaitFrame for ",
        &report("interrupt"),
        &interrupt_report,
        "interrupted",
    );
    assert_eq!(interrupt_report["frames"], 20);
}
