//! Running holoterrain.exe (scripts/build-windows.sh) under Wine 10 in the
//! Debian trixie chroot of scripts/wine-chroot.sh: preparing it once,
//! deciding whether these tests can run here, and one chroot run per call.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::ci::skip;

/// The repository root.
fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The target directory this test was built in (scripts/build-windows.sh
/// builds into the same one).
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR lies in the target directory")
        .to_path_buf()
}

/// The Windows build of holoterrain.
pub fn exe() -> PathBuf {
    target_dir().join("x86_64-pc-windows-gnu/release/holoterrain.exe")
}

/// The distribution zip scripts/build-windows.sh assembles.
pub fn zip() -> PathBuf {
    let manifest = std::fs::read_to_string(repository().join("Cargo.toml")).expect("Cargo.toml");
    let version = manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("a version in Cargo.toml");
    target_dir().join(format!("dist/holoterrain-{version}-windows-x86_64.zip"))
}

/// The README that goes into the zip, from its source.
pub fn readme_source() -> PathBuf {
    repository().join("packaging/windows/README-windows.txt")
}

/// The Linux build of holoterrain under test.
pub fn linux_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_holoterrain"))
}

/// The chroot script, from the repository root.
fn script() -> PathBuf {
    repository().join("scripts/wine-chroot.sh")
}

/// True when `path` exists; otherwise skips (or fails in CI) saying that
/// scripts/build-windows.sh makes it.
pub fn built(path: &Path) -> bool {
    path.is_file()
        || skip(&format!(
            "{} is missing: run scripts/build-windows.sh",
            path.display()
        ))
}

/// Prepares the chroot (once; later calls return at once) and checks the exe
/// is built. False, after printing why, when the tests cannot run here.
pub fn ready() -> bool {
    if !built(&exe()) {
        return false;
    }
    match Command::new(script()).arg("prepare").output() {
        Ok(output) if output.status.success() => true,
        Ok(output) => skip(&format!(
            "the Wine chroot cannot be prepared: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(error) => skip(&format!("cannot run {}: {error}", script().display())),
    }
}

/// A scratch directory under the target dir (bindable into the chroot).
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch directory")
}

/// Runs the shell `commands` in the chroot, where `$EXE` is holoterrain.exe
/// and `wine64 "$EXE" ARGS` runs it; `scratch` is bound at the same path.
/// Returns the run's output.
pub fn run_shell(scratch: &Path, commands: &str) -> Output {
    run(scratch, &[], commands)
}

/// [`run_shell`] with `DISPLAY` on a virtual X server started for the run.
pub fn run_shell_with_x_server(scratch: &Path, commands: &str) -> Output {
    run(scratch, &["--xvfb"], commands)
}

/// [`run_shell_with_x_server`] with Wine's Direct3D on its Vulkan renderer
/// (`WINE_D3D_CONFIG=renderer=vulkan`, so on the chroot's lavapipe): its
/// default OpenGL renderer would need libGL, which the chroot lacks.
pub fn run_shell_with_direct3d(scratch: &Path, commands: &str) -> Output {
    run(
        scratch,
        &["--xvfb"],
        &format!("export WINE_D3D_CONFIG=renderer=vulkan\n{commands}"),
    )
}

fn run(scratch: &Path, options: &[&str], commands: &str) -> Output {
    let exe = exe();
    let exe_dir = exe.parent().expect("exe has a directory");
    Command::new(script())
        .arg("run")
        .args(options)
        .arg("--bind")
        .arg(exe_dir)
        .arg("--bind")
        .arg(scratch)
        .args(["--", "env"])
        .arg(format!("EXE={}", exe.display()))
        .args(["sh", "-ec", commands])
        .stdin(Stdio::null())
        .output()
        .expect("start scripts/wine-chroot.sh")
}
