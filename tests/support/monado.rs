//! Running holoterrain inside the Monado chroot (scripts/monado-chroot.sh):
//! preparing it once, deciding whether these tests can run here, finding
//! the app's process to interrupt it or see it end, and killing the
//! service to play a runtime crash or stopping it to play a runtime that
//! stops answering.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::process::signal;

/// The chroot script, from the repository root.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/monado-chroot.sh")
}

/// The holoterrain binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_holoterrain"))
}

pub use super::ci::skip;

/// Asserts that a run with `--validation` had both validation layers on and
/// silent: zero messages counted in the report and none in the output (the
/// OpenXR core validation layer also writes its findings to stdout).
pub fn assert_validation_silent(report: &serde_json::Value, output: &str) {
    assert_eq!(
        report["core_validation_layer"], true,
        "the OpenXR core validation layer ran"
    );
    assert_eq!(report["openxr_validation_messages"], 0, "output:\n{output}");
    assert_eq!(report["vulkan_validation_messages"], 0, "output:\n{output}");
    for marker in ["Validation Error", "VALID_ERROR", "VALID_WARNING"] {
        assert!(!output.contains(marker), "{marker} in output:\n{output}");
    }
}

/// Prepares the chroot (once; later calls return at once). False, after
/// printing why, when it cannot be made here (not root, no mirror).
pub fn chroot_ready() -> bool {
    let output = Command::new(script()).arg("prepare").output();
    match output {
        Ok(output) if output.status.success() => true,
        Ok(output) => skip(&format!(
            "the Monado chroot cannot be prepared: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Err(error) => skip(&format!("cannot run {}: {error}", script().display())),
    }
}

/// Which Monado configuration the service runs.
#[derive(Debug, Clone, Copy)]
pub enum Mode {
    /// SIMULATED_ENABLE=1: a simulated HMD, no controllers.
    Simulated,
    /// P_OVERRIDE_ACTIVE_CONFIG=remote: remote HMD and controllers on TCP 4242.
    Remote,
}

/// Starts `holoterrain xr ARGS` inside the chroot with the service in `mode`,
/// binding the binary's directory and `scratch` (same paths inside). Output is piped.
pub fn spawn_xr(mode: Mode, scratch: &Path, args: &[&str]) -> Child {
    xr_command(mode, scratch, args)
        .spawn()
        .expect("start scripts/monado-chroot.sh")
}

/// The command [`spawn_xr`] runs, for a caller that adds to it first.
pub fn xr_command(mode: Mode, scratch: &Path, args: &[&str]) -> Command {
    let binary = binary();
    let binary_dir = binary.parent().expect("binary has a directory");
    let mode_name = match mode {
        Mode::Simulated => "simulated",
        Mode::Remote => "remote",
    };
    let mut command = Command::new(script());
    command
        .args(["run", "--mode", mode_name, "--bind"])
        .arg(binary_dir)
        .arg("--bind")
        .arg(scratch)
        .args(["--", "env", "RUST_LOG=info"])
        .arg(&binary)
        .arg("xr")
        // Each run keeps its placement in its own scratch folder: one run's
        // moves must not place the next run's hologram.
        .arg("--state")
        .arg(scratch.join("state"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// The variable naming the file where scripts/monado/inside.sh writes
/// monado-service's process id (the chroot shares the host's pid space).
pub const SERVICE_PID_FILE_VAR: &str = "HOLOTERRAIN_MONADO_PID_FILE";

/// The id of the monado-service named in `pid_file`, checked to still
/// name a monado-service process.
fn service_pid(pid_file: &Path) -> u32 {
    let text = std::fs::read_to_string(pid_file)
        .unwrap_or_else(|error| panic!("no pid file {}: {error}", pid_file.display()));
    let pid: u32 = text.trim().parse().expect("a process id in the pid file");
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    assert_eq!(
        name.trim(),
        "monado-service",
        "process {pid} is not the service"
    );
    pid
}

/// Kills the monado-service whose id is in `pid_file` with SIGKILL, as a
/// crash would end it. Returns its id.
pub fn kill_service(pid_file: &Path) -> u32 {
    let pid = service_pid(pid_file);
    signal(pid, "KILL");
    pid
}

/// The monado-service stopped with SIGSTOP: alive, but answering nothing,
/// as a frozen runtime. Dropping it resumes the service (SIGCONT), also
/// when the test fails, so the chroot run can stop it and end.
pub struct StoppedService(u32);

impl StoppedService {
    /// Stops the monado-service whose id is in `pid_file`.
    pub fn stop(pid_file: &Path) -> Self {
        let pid = service_pid(pid_file);
        signal(pid, "STOP");
        StoppedService(pid)
    }
}

impl Drop for StoppedService {
    fn drop(&mut self) {
        // No assertion: a failing test may drop it while unwinding.
        let _ = Command::new("kill")
            .args(["-CONT", &self.0.to_string()])
            .status();
    }
}

/// Waits until process `pid` (not a child of the test's: its parent reaps
/// it) is gone, at most `bound`; how long that took, `None` if it still
/// runs then.
pub fn gone_within(pid: u32, bound: Duration) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < bound {
        if !Path::new(&format!("/proc/{pid}")).exists() {
            return Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// A scratch directory under the target dir (bindable into the chroot).
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch directory")
}

/// The id of the holoterrain process descended from `ancestor`, if running.
pub fn find_app_process(ancestor: u32) -> Option<u32> {
    let parent_of = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name is in parentheses and may hold spaces: skip past it.
        let after_name = &stat[stat.rfind(')')? + 2..];
        after_name.split_whitespace().nth(1)?.parse().ok()
    };
    let descends = |mut pid: u32| {
        while pid > 1 {
            if pid == ancestor {
                return true;
            }
            match parent_of(pid) {
                Some(parent) => pid = parent,
                None => return false,
            }
        }
        false
    };
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
            (exe.file_name()? == "holoterrain" && descends(pid)).then_some(pid)
        })
}

/// Sends SIGINT (what Ctrl-C sends) to `pid`.
pub fn interrupt(pid: u32) {
    let status = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -INT {pid} failed");
}

/// A `holoterrain xr` run in the chroot that is interrupted (and waited
/// for) if the test panics before it ends, so no session outlives its test.
pub struct XrRun {
    /// The chroot script's process.
    pub child: Child,
}

impl XrRun {
    /// Interrupts the app as Ctrl-C would and waits for the run to end.
    pub fn interrupt_and_wait(&mut self) -> std::process::ExitStatus {
        let app = find_app_process(self.child.id()).expect("holoterrain is running in the chroot");
        interrupt(app);
        self.child.wait().expect("wait for the chroot run")
    }
}

impl Drop for XrRun {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            if let Some(app) = find_app_process(self.child.id()) {
                interrupt(app);
            }
            let _ = self.child.wait();
        }
    }
}
