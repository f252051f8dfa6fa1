//! The Windows edition under Wine: holoterrain.exe (scripts/build-windows.sh)
//! run in the Wine 10 chroot of scripts/wine-chroot.sh must write the same
//! bytes as the Linux build, end an OpenXR attempt without a runtime in one
//! line, and ship in a zip that holds what its README lists.
//!
//! Needs root, the Debian mirror the first time (the chroot is cached) and
//! the Windows build; without them the tests print why they are skipped,
//! unless env CI is set, when they fail instead.

mod support {
    pub mod ci;
    pub mod generate_cases;
    pub mod wine;
}

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::ci::skip;
use support::generate_cases::generate_cases;
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

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts that a run failed with nothing on stdout and exactly one line on
/// stderr, and returns that line.
fn one_error_line(output: &Output, what: &str) -> String {
    assert!(!output.status.success(), "{what} succeeded");
    assert_eq!(text(&output.stdout), "", "{what}: stdout");
    let stderr = text(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one line on stderr, got:\n{stderr}");
    lines[0].to_owned()
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

/// An RGB PNG the simulator wrote: width, height, pixels.
fn rgb_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).expect("PNG written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("PNG pixels");
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// How far two images of one frame are apart.
#[derive(Debug)]
struct ImageDifference {
    /// Mean absolute difference over every channel of every pixel, in 1/255.
    mean: f64,
    /// Share of pixels whose channels all differ by at most 8/255.
    within_8: f64,
    /// Share of pixels that are not black (the terrain) in the first image.
    terrain: f64,
}

fn image_difference(first: &[u8], second: &[u8]) -> ImageDifference {
    assert_eq!(first.len(), second.len(), "image sizes");
    let pixels = first.len() / 3;
    let total: u64 = first
        .iter()
        .zip(second)
        .map(|(a, b)| u64::from(a.abs_diff(*b)))
        .sum();
    let close = first
        .chunks_exact(3)
        .zip(second.chunks_exact(3))
        .filter(|(a, b)| a.iter().zip(*b).all(|(x, y)| x.abs_diff(*y) <= 8))
        .count();
    let terrain = first
        .chunks_exact(3)
        .filter(|pixel| pixel.iter().any(|&channel| channel > 0))
        .count();
    ImageDifference {
        mean: total as f64 / first.len() as f64,
        within_8: close as f64 / pixels as f64,
        terrain: terrain as f64 / pixels as f64,
    }
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
