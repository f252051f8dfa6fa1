//! `holoterrain xr` against Monado, a real OpenXR runtime, headless in a
//! Debian trixie chroot (scripts/monado-chroot.sh): the session lifecycle
//! with the simulated HMD, input injected through Monado's remote driver,
//! the service killed mid-session, the service stopped mid-session (a
//! runtime that stops answering: the watchdog's limit, Ctrl-C), a one
//! second limit on a loaded machine, and the error when there is no
//! runtime at all.
//!
//! Needs root and the Debian mirror the first time (the chroot is cached);
//! without them the tests print why they are skipped, unless env CI is set,
//! when they fail instead.

mod support {
    pub mod ci;
    pub mod loader_output;
    pub mod monado;
    pub mod monado_remote;
    pub mod process;
    pub mod unresponsive;
}

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::loader_output::loader_lines_then_one_error;
use support::monado::{self, Mode, StoppedService, XrRun};
use support::monado_remote::{
    self, ControllerState, PACKET_SIZE, RemoteClient, RemotePose, RemoteState,
};
use support::process::{signal, wait_at_most};
use support::unresponsive::assert_ended_by_watchdog;

/// Frames the simulated-HMD runs render.
const SIMULATED_FRAMES: u64 = 60;
/// The remote driver's port.
const REMOTE_PORT: u16 = 4242;
/// The heightmap of the remote-driver runs: small, so that on lavapipe the
/// app draws a frame in well under Monado's 50 ms and sees a quick pinch
/// (an air-tap must end within 0.35 s) on several frames.
const REMOTE_MAP: &str = "65x65";
/// How long to wait for the service and the session (the chroot run lock may
/// first wait for another test's run).
const PATIENCE: Duration = Duration::from_secs(300);

/// How long the app may take to end after its runtime was killed: a few
/// seconds of teardown, far from a hang.
const END_AFTER_RUNTIME_DEATH: Duration = Duration::from_secs(20);
/// The exit status `holoterrain xr` documents for a runtime that stopped.
const EXIT_RUNTIME_STOPPED: i32 = 3;

/// One chroot run at a time within this test binary: the remote tests'
/// clients must reach their own run's service, not another test's.
static CHROOT_RUNS: Mutex<()> = Mutex::new(());

fn one_run_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    CHROOT_RUNS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The combined output lines of a child, kept and streamed.
struct Output {
    /// Every line so far, stdout and stderr interleaved as read.
    lines: Arc<Mutex<Vec<String>>>,
    /// Each line as it arrives.
    arrivals: Receiver<String>,
}

impl Output {
    fn collect(child: &mut std::process::Child) -> Self {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (sender, arrivals) = mpsc::channel();
        let readers: Vec<Box<dyn std::io::Read + Send>> = vec![
            Box::new(child.stdout.take().expect("piped stdout")),
            Box::new(child.stderr.take().expect("piped stderr")),
        ];
        for reader in readers {
            let lines = Arc::clone(&lines);
            let sender = sender.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(reader).lines().map_while(Result::ok) {
                    lines.lock().unwrap().push(line.clone());
                    let _ = sender.send(line);
                }
            });
        }
        Self { lines, arrivals }
    }

    /// Waits until a line starting with `start` arrives (`--progress`
    /// lines: "state FOCUSED", "reseed select 1234").
    fn wait_for(&self, start: &str) {
        loop {
            match self.arrivals.recv_timeout(PATIENCE) {
                Ok(line) if line.starts_with(start) => return,
                Ok(_) => {}
                Err(error) => panic!(
                    "no line starting {start:?} ({error}); output:\n{}",
                    self.text()
                ),
            }
        }
    }

    fn text(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

fn read_report(path: &std::path::Path, output: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| {
        panic!(
            "no report at {} ({error}); output:\n{output}",
            path.display()
        )
    });
    serde_json::from_str(&text).expect("report is JSON")
}

/// Runs `holoterrain xr --frames N --validation` on the simulated HMD.
fn run_simulated() -> Option<(ExitStatus, Value, String)> {
    if !monado::chroot_ready() {
        return None;
    }
    let _turn = one_run_at_a_time();
    let scratch = monado::scratch_dir();
    let report_path = scratch.path().join("report.json");
    let frames = SIMULATED_FRAMES.to_string();
    let mut child = monado::spawn_xr(
        Mode::Simulated,
        scratch.path(),
        &[
            "--frames",
            &frames,
            "--validation",
            "--report",
            report_path.to_str().unwrap(),
        ],
    );
    let output = Output::collect(&mut child);
    let status = child.wait().expect("wait for the chroot run");
    let (report, text) = drain_and_read_report(&output, &report_path);
    Some((status, report, text))
}

/// Lets the reader threads drain the pipes, then reads the run's report.
fn drain_and_read_report(output: &Output, report_path: &Path) -> (Value, String) {
    while output
        .arrivals
        .recv_timeout(Duration::from_millis(200))
        .is_ok()
    {}
    let text = output.text();
    (read_report(report_path, &text), text)
}

fn states(report: &Value) -> Vec<&str> {
    report["session_states"]
        .as_array()
        .expect("session_states")
        .iter()
        .map(|state| state.as_str().unwrap())
        .collect()
}

#[test]
fn simulated_hmd_session_reaches_focused_renders_grows_and_exits() {
    let Some((status, report, output)) = run_simulated() else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    let states = states(&report);
    for expected in ["READY", "SYNCHRONIZED", "VISIBLE", "FOCUSED", "STOPPING"] {
        assert!(
            states.contains(&expected),
            "{expected} missing from {states:?}"
        );
    }
    assert_eq!(
        states.last(),
        Some(&"EXITING"),
        "the session must end by EXITING"
    );
    assert_eq!(report["ended"], "frame_limit", "report: {report}");
    assert_eq!(report["frames"], SIMULATED_FRAMES, "frames rendered");
    assert!(
        report["iterations"].as_u64().unwrap() > 0,
        "the terrain grew: {report}"
    );
    assert!(
        report["hologram_pose"].is_object(),
        "hologram placed: {report}"
    );
    assert!(
        report["reseeds"].as_array().unwrap().is_empty(),
        "nobody asked for a reseed"
    );
}

#[test]
fn simulated_hmd_session_leaves_both_validation_layers_silent() {
    let Some((status, report, output)) = run_simulated() else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    monado::assert_validation_silent(&report, &output);
}

/// Head looking 60 degrees up, so the gaze ray cannot hit the hologram.
fn head_looking_up() -> RemotePose {
    let half = 30.0_f32.to_radians();
    RemotePose {
        position: [0.0, 1.6, 0.0],
        orientation: [half.sin(), 0.0, 0.0, half.cos()],
    }
}

/// Where the right hand pinches from: ahead of the body, above the hologram.
const PINCH_HAND_POSITION: [f32; 3] = [0.15, 1.45, -0.55];
/// The hologram's centre in Monado's tracking space: 1 m ahead of the
/// starting head (0, 1.6, 0) and 0.3 m below it.
const HOLOGRAM_CENTRE: [f32; 3] = [0.0, 1.3, -1.0];

fn pause(seconds: f32) {
    std::thread::sleep(Duration::from_secs_f32(seconds));
}

/// Runs `holoterrain xr` on the remote driver, plays `gestures` once the
/// session is focused, then ends it with Ctrl-C (SIGINT). Returns the exit
/// status and the report.
fn run_remote(gestures: impl FnOnce(&RemoteClient)) -> Option<(ExitStatus, Value, String)> {
    if !monado::chroot_ready() {
        return None;
    }
    run_remote_in(monado::scratch_dir().path(), gestures)
}

/// [`run_remote`] with `scratch` for its files (the report, the kept
/// placement in `scratch/state`), so a second run can start from the first's.
fn run_remote_in(
    scratch: &Path,
    gestures: impl FnOnce(&RemoteClient),
) -> Option<(ExitStatus, Value, String)> {
    let _turn = one_run_at_a_time();
    let report_path = scratch.join("report.json");
    let mut run = XrRun {
        child: monado::spawn_xr(
            Mode::Remote,
            scratch,
            &[
                "--progress",
                "--size",
                REMOTE_MAP,
                "--report",
                report_path.to_str().unwrap(),
            ],
        ),
    };
    let output = Output::collect(&mut run.child);
    let address = SocketAddr::from(([127, 0, 0, 1], REMOTE_PORT));
    let client =
        RemoteClient::connect(address, PATIENCE).expect("connect to Monado's remote driver");
    output.wait_for("state FOCUSED");
    // Let the first frames place the hologram and the hands be tracked.
    pause(1.0);
    gestures(&client);
    pause(0.5);
    let sent = client.finish().expect("the remote client sent its packets");
    assert!(sent > 0, "packets sent");
    let status = run.interrupt_and_wait();
    let (report, text) = drain_and_read_report(&output, &report_path);
    Some((status, report, text))
}

fn reseed_causes(report: &Value) -> Vec<&str> {
    report["reseeds"]
        .as_array()
        .expect("reseeds")
        .iter()
        .map(|reseed| reseed["cause"].as_str().unwrap())
        .collect()
}

/// An air-tap: index and thumb curl closed for 0.15 s, well within the
/// 0.35 s a pinch may last to count as one (it reseeds on its release).
fn pinch(client: &RemoteClient, direction: [f32; 3]) {
    client.update(|state| {
        state.head = head_looking_up();
        state.right.pose = RemotePose::aiming(PINCH_HAND_POSITION, direction);
    });
    pause(1.0);
    client.update(|state| state.right.hand_curl = [0.0, 0.0, 0.0, 1.0, 1.0]);
    pause(0.15);
    client.update(|state| state.right.hand_curl = [0.0; 5]);
    pause(1.0);
}

#[test]
fn right_trigger_clicks_reseed_once_each_and_a_long_press_does_not() {
    let Some((status, report, output)) = run_remote(|client| {
        // Two clicks (0.15 s, within the 0.35 s of an air-tap), then a
        // press held 0.8 s aimed at nothing: no reseed.
        for held in [0.15, 0.15, 0.8] {
            client.update(|state| state.right.trigger = true);
            pause(held);
            client.update(|state| state.right.trigger = false);
            pause(0.8);
        }
    }) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    assert_eq!(
        reseed_causes(&report),
        ["select", "select"],
        "report: {report}"
    );
}

#[test]
fn pinch_aimed_at_the_hologram_is_an_air_tap_reseed() {
    let towards = std::array::from_fn(|axis| HOLOGRAM_CENTRE[axis] - PINCH_HAND_POSITION[axis]);
    let Some((status, report, output)) = run_remote(|client| pinch(client, towards)) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    assert_eq!(
        report["hand_tracking"], true,
        "the remote driver tracks hands"
    );
    assert_eq!(reseed_causes(&report), ["airtap"], "report: {report}");
}

/// The middle of the hologram's base on its side facing the starting head
/// (the pose is the base's underside; the land's zero is 3 cm above it).
const BASE_FRONT: [f32; 3] = [0.0, 1.315, -0.75];

#[test]
fn a_pinch_held_on_the_hologram_base_drags_it_and_does_not_reseed() {
    let towards = std::array::from_fn(|axis| BASE_FRONT[axis] - PINCH_HAND_POSITION[axis]);
    let Some((status, report, output)) = run_remote(|client| {
        client.update(|state| {
            state.head = head_looking_up();
            state.right.pose = RemotePose::aiming(PINCH_HAND_POSITION, towards);
        });
        pause(1.0);
        client.update(|state| state.right.hand_curl = [0.0, 0.0, 0.0, 1.0, 1.0]);
        pause(0.8);
        client.update(|state| state.right.hand_curl = [0.0; 5]);
        pause(1.0);
    }) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    assert!(reseed_causes(&report).is_empty(), "report: {report}");
    assert_eq!(
        placement_causes(&report),
        ["gaze", "move"],
        "report: {report}"
    );
}

#[test]
fn the_trigger_held_and_swept_across_the_surface_traces_a_fault() {
    // From above the hologram's front, the controller's ray sweeps the
    // land from left to right across its middle.
    let over = [0.0, 1.7, -0.7];
    let aim_at = |u: f32| {
        let target = [
            HOLOGRAM_CENTRE[0] + (u - 0.5) * 0.5,
            HOLOGRAM_CENTRE[1],
            HOLOGRAM_CENTRE[2],
        ];
        RemotePose::aiming(over, std::array::from_fn(|axis| target[axis] - over[axis]))
    };
    let Some((status, report, output)) = run_remote(|client| {
        client.update(|state| {
            state.head = head_looking_up();
            state.right.pose = aim_at(0.2);
        });
        pause(1.0);
        client.update(|state| state.right.trigger = true);
        for step in 0..=20 {
            client.update(|state| {
                state.right.pose = aim_at(0.2 + 0.03 * step as f32);
                // The controller moves across with its ray, level.
                state.right.pose.position[0] = over[0] + 0.01 * step as f32;
            });
            pause(0.05);
        }
        client.update(|state| state.right.trigger = false);
        pause(1.0);
    }) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    let edits = report["edits"].as_array().expect("edits");
    assert_eq!(edits.len(), 1, "report: {report}");
    assert_eq!(edits[0]["kind"], "trace");
    assert_eq!(edits[0]["applied"], true, "report: {report}");
    assert!(reseed_causes(&report).is_empty(), "report: {report}");
    assert_eq!(placement_causes(&report), ["gaze"], "report: {report}");
}

/// The causes of the report's placements, in order.
fn placement_causes(report: &Value) -> Vec<&str> {
    report["placements"]
        .as_array()
        .expect("placements")
        .iter()
        .map(|placement| placement["cause"].as_str().unwrap())
        .collect()
}

/// A placement's position.
fn placement_position(placement: &Value) -> [f32; 3] {
    std::array::from_fn(|axis| placement["position"][axis].as_f64().unwrap() as f32)
}

#[test]
fn squeezing_the_controller_aimed_at_the_hologram_carries_it_along_and_it_stays_there() {
    if !monado::chroot_ready() {
        return;
    }
    let scratch = monado::scratch_dir();
    let towards = std::array::from_fn(|axis| HOLOGRAM_CENTRE[axis] - PINCH_HAND_POSITION[axis]);
    let Some((status, report, output)) = run_remote_in(scratch.path(), |client| {
        client.update(|state| {
            state.head = head_looking_up();
            state.right.pose = RemotePose::aiming(PINCH_HAND_POSITION, towards);
        });
        pause(1.0);
        client.update(|state| state.right.squeeze = true);
        pause(0.5);
        // 20 cm to the right over a second, in 1 cm steps.
        for step in 1..=20 {
            client.update(|state| {
                state.right.pose.position[0] = PINCH_HAND_POSITION[0] + 0.01 * step as f32;
            });
            pause(0.05);
        }
        pause(0.5);
        client.update(|state| state.right.squeeze = false);
        pause(1.0);
    }) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    assert_eq!(
        placement_causes(&report),
        ["gaze", "grab"],
        "report: {report}"
    );
    let placements = report["placements"].as_array().expect("placements");
    let [start, end] = [&placements[0], &placements[1]].map(placement_position);
    let moved: [f32; 3] = std::array::from_fn(|axis| end[axis] - start[axis]);
    assert!(
        (moved[0] - 0.2).abs() < 0.01 && moved[1].abs() < 0.01 && moved[2].abs() < 0.01,
        "the hologram followed the controller by {moved:?}; report: {report}"
    );
    assert_eq!(
        report["hologram_pose"]["position"],
        placements[1]["position"]
    );
    assert!(
        output.contains("placed grab "),
        "a progress line for the grab; output:\n{output}"
    );
    assert!(reseed_causes(&report).is_empty(), "report: {report}");
    // Monado offers STAGE: the placement is kept in it, and the next run
    // (the same tracking origin) starts where this one left the hologram.
    assert!(
        report["placement_kept"]
            .as_str()
            .is_some_and(|kept| kept.ends_with("placement.json (STAGE)")),
        "report: {report}"
    );
    let Some((status, next, output)) = run_remote_in(scratch.path(), |_| {}) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    assert_eq!(placement_causes(&next), ["persisted"], "report: {next}");
    let kept = placement_position(&next["placements"][0]);
    let left = placement_position(&placements[1]);
    assert!(
        (0..3).all(|axis| (kept[axis] - left[axis]).abs() < 1e-4),
        "kept at {kept:?}, left at {left:?}"
    );
}

#[test]
fn pinch_aimed_away_from_the_hologram_does_not_reseed() {
    let Some((status, report, output)) = run_remote(|client| pinch(client, [0.3, 1.0, 0.0])) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    assert_eq!(
        report["hand_tracking"], true,
        "the remote driver tracks hands"
    );
    assert!(reseed_causes(&report).is_empty(), "report: {report}");
}

#[test]
fn hand_interaction_ext_is_enabled_and_monado_accepts_its_pinch_binding() {
    let Some((status, report, output)) = run_remote(|_| {}) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    let enabled: Vec<&str> = report["extensions_enabled"]
        .as_array()
        .expect("extensions_enabled")
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    assert!(
        enabled.contains(&"XR_EXT_hand_interaction"),
        "Monado 25 offers it: {enabled:?}"
    );
    // Monado checks every suggested path against the profile's own list, so
    // a wrong pinch path would be refused here.
    assert!(
        !output
            .contains("bindings for /interaction_profiles/ext/hand_interaction_ext not accepted"),
        "output:\n{output}"
    );
}

#[test]
fn ctrl_c_ends_the_session_through_stopping_and_exiting() {
    let Some((status, report, output)) = run_remote(|_| {}) else {
        return;
    };
    assert!(status.success(), "exit {status}; output:\n{output}");
    let states = states(&report);
    let focused = states
        .iter()
        .position(|state| *state == "FOCUSED")
        .expect("FOCUSED");
    let stopping = states
        .iter()
        .position(|state| *state == "STOPPING")
        .expect("STOPPING");
    assert!(focused < stopping, "{states:?}");
    assert_eq!(states.last(), Some(&"EXITING"), "{states:?}");
    assert_eq!(report["ended"], "interrupted", "report: {report}");
}

#[test]
fn killing_the_runtime_mid_session_ends_with_one_line_a_report_and_exit_3() {
    if !monado::chroot_ready() {
        return;
    }
    let _turn = one_run_at_a_time();
    let scratch = monado::scratch_dir();
    let report_path = scratch.path().join("report.json");
    let pid_path = scratch.path().join("monado-service.pid");
    let mut command = monado::xr_command(
        Mode::Remote,
        scratch.path(),
        &[
            "--validation",
            "--progress",
            "--report",
            report_path.to_str().unwrap(),
        ],
    );
    command.env(monado::SERVICE_PID_FILE_VAR, &pid_path);
    let mut run = XrRun {
        child: command.spawn().expect("start scripts/monado-chroot.sh"),
    };
    let output = Output::collect(&mut run.child);
    let address = SocketAddr::from(([127, 0, 0, 1], REMOTE_PORT));
    let client =
        RemoteClient::connect(address, PATIENCE).expect("connect to Monado's remote driver");
    output.wait_for("state FOCUSED");
    pause(1.0);
    // A click: the reseed comes on its release.
    client.update(|state| state.right.trigger = true);
    pause(0.15);
    client.update(|state| state.right.trigger = false);
    output.wait_for("reseed select ");
    pause(1.0);

    monado::kill_service(&pid_path);
    let killed = Instant::now();
    let status = wait_at_most(&mut run.child, END_AFTER_RUNTIME_DEATH);
    let took = killed.elapsed();
    // The service is gone, so the client's sends fail from now on.
    drop(client);
    let Some(status) = status else {
        panic!(
            "holoterrain still runs {took:?} after its runtime was killed; output:\n{}",
            output.text()
        );
    };
    let (report, text) = drain_and_read_report(&output, &report_path);

    assert_eq!(
        status.code(),
        Some(EXIT_RUNTIME_STOPPED),
        "exit {status} after {took:?}; output:\n{text}"
    );
    let ours: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("error: ") || line.starts_with("xr: "))
        .collect();
    assert_eq!(ours.len(), 1, "one line from holoterrain, got {ours:?}");
    assert!(
        ours[0].starts_with("error: the OpenXR runtime stopped (instance lost) after "),
        "{}",
        ours[0]
    );
    assert!(
        ours[0].contains(report_path.to_str().unwrap()),
        "names the report: {}",
        ours[0]
    );
    assert_eq!(report["ended"], "instance_lost", "report: {report}");
    assert!(report["frames"].as_u64().unwrap() > 0, "report: {report}");
    let states = states(&report);
    assert!(states.contains(&"FOCUSED"), "{states:?}");
    assert!(
        !states.contains(&"EXITING"),
        "no proper end happened: {states:?}"
    );
    assert_eq!(reseed_causes(&report), ["select"], "report: {report}");
    assert!(
        report["iterations"].as_u64().unwrap() > 0,
        "report: {report}"
    );
    // Teardown after the loss is as clean as a normal one.
    monado::assert_validation_silent(&report, &text);
}

#[test]
fn without_a_runtime_one_line_names_what_to_install_and_the_exit_fails() {
    let output = Command::new(monado::binary())
        .arg("xr")
        .env(
            "XR_RUNTIME_JSON",
            "/nonexistent/holoterrain-no-runtime.json",
        )
        .env_remove("XR_LOADER_DEBUG")
        .env_remove("RUST_LOG")
        .output()
        .expect("run holoterrain xr");
    // The loader's own diagnostics stay visible, then our one line.
    let line = loader_lines_then_one_error(&output, "xr without a runtime");
    assert!(
        line.contains("holoterrain sim"),
        "points to the simulator: {line}"
    );
    assert!(
        line.contains("XR_RUNTIME_JSON") || line.contains("libopenxr-loader1"),
        "says what to install or start: {line}"
    );
}

/// Monado's manifest in the chroot (Debian's libopenxr1-monado).
const MONADO_MANIFEST: &str = "/usr/share/openxr/1/openxr_monado.json";

/// `--remote` with Monado's manifest as the remoting runtime: the app loads
/// a real runtime itself, as the OpenXR loader would (its manifest names
/// the library by a bare name, left to the system's library search), and
/// Monado lacks XR_MSFT_holographic_remoting: one error line naming the
/// manifest, the extension and Microsoft's package, no session, and a
/// failing exit.
#[test]
fn remote_on_a_runtime_without_holographic_remoting_fails_in_one_line() {
    if !monado::chroot_ready() {
        return;
    }
    let _turn = one_run_at_a_time();
    let scratch = monado::scratch_dir();
    let output = monado::xr_command(
        Mode::Simulated,
        scratch.path(),
        &["--remote", "127.0.0.1", "--remote-runtime", MONADO_MANIFEST],
    )
    .output()
    .expect("run scripts/monado-chroot.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "--remote succeeded on Monado; stderr:\n{stderr}"
    );
    let errors: Vec<&str> = stderr
        .lines()
        .chain(stdout.lines())
        .filter(|line| line.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "one error line, got:\n{stderr}");
    let line = errors[0];
    let expected = format!(
        "error: --remote: the OpenXR runtime of {MONADO_MANIFEST} (--remote-runtime) does not offer XR_MSFT_holographic_remoting"
    );
    for needed in [
        expected.as_str(),
        "RemotingXR.json",
        "Microsoft.Holographic.Remoting.OpenXr",
    ] {
        assert!(line.contains(needed), "{needed:?} missing from: {line}");
    }
    assert!(
        !stderr.contains("session state"),
        "a session was created:\n{stderr}"
    );
}

#[test]
fn remote_packet_offsets_match_the_c_layout() {
    let scratch = monado::scratch_dir();
    let program = scratch.path().join("remote_layout");
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/remote_layout.c");
    match Command::new("cc")
        .arg(source)
        .arg("-o")
        .arg(&program)
        .status()
    {
        Ok(status) if status.success() => {}
        _ => {
            monado::skip("no working C compiler (cc) to check the packet layout");
            return;
        }
    }
    let printed = Command::new(&program)
        .output()
        .expect("run the layout program");
    let layout: std::collections::HashMap<String, usize> = String::from_utf8(printed.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (name, value) = line.split_once(' ').unwrap();
            (name.to_owned(), value.parse().unwrap())
        })
        .collect();
    let expected = [
        ("packet", PACKET_SIZE),
        ("controller", monado_remote::CONTROLLER_SIZE),
        ("head", monado_remote::HEAD_OFFSET),
        ("head_center", monado_remote::HEAD_CENTER_OFFSET),
        ("left", monado_remote::LEFT_OFFSET),
        ("right", monado_remote::RIGHT_OFFSET),
        ("hand_curl", monado_remote::HAND_CURL),
        ("trigger_value", monado_remote::TRIGGER_VALUE),
        ("hand_tracking_active", monado_remote::HAND_TRACKING_ACTIVE),
        ("active", monado_remote::ACTIVE),
        ("trigger_click", monado_remote::TRIGGER_CLICK),
        ("trigger_touch", monado_remote::TRIGGER_TOUCH),
        ("squeeze_value", monado_remote::SQUEEZE_VALUE),
        ("squeeze_force", monado_remote::SQUEEZE_FORCE),
    ];
    for (name, offset) in expected {
        assert_eq!(layout[name], offset, "{name}");
    }
}

#[test]
fn remote_packet_carries_the_right_trigger_squeeze_and_curls_at_their_offsets() {
    let mut state = RemoteState::default();
    state.right = ControllerState {
        trigger: true,
        squeeze: true,
        hand_curl: [0.0, 0.0, 0.0, 0.5, 0.25],
        ..state.right
    };
    let packet = state.encode();
    let float_at =
        |offset: usize| f32::from_le_bytes(packet[offset..offset + 4].try_into().unwrap());
    let right = monado_remote::RIGHT_OFFSET;
    assert_eq!(&packet[..8], b"mndrmt3\0");
    assert_eq!(packet[right + monado_remote::TRIGGER_CLICK], 1);
    assert_eq!(
        packet[monado_remote::LEFT_OFFSET + monado_remote::TRIGGER_CLICK],
        0
    );
    assert_eq!(float_at(right + monado_remote::TRIGGER_VALUE), 1.0);
    assert_eq!(float_at(right + monado_remote::SQUEEZE_VALUE), 1.0);
    assert_eq!(
        float_at(monado_remote::LEFT_OFFSET + monado_remote::SQUEEZE_VALUE),
        0.0
    );
    assert_eq!(
        float_at(right + monado_remote::HAND_CURL + 3 * 4),
        0.5,
        "index curl"
    );
    assert_eq!(
        float_at(right + monado_remote::HAND_CURL + 4 * 4),
        0.25,
        "thumb curl"
    );
    assert_eq!(float_at(right + 16), 0.2, "right controller x position");
}

#[test]
fn aiming_pose_turns_forward_onto_the_direction() {
    let pose = RemotePose::aiming([0.0; 3], [1.0, 0.0, 0.0]);
    let [x, y, z, w] = pose.orientation;
    // Rotate -Z by the quaternion: v' = v + 2w(q x v) + 2 q x (q x v).
    let v = [0.0_f32, 0.0, -1.0];
    let cross = |a: [f32; 3], b: [f32; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let q = [x, y, z];
    let t = cross(q, v).map(|c| 2.0 * c);
    let u = cross(q, t);
    let rotated: Vec<f32> = (0..3).map(|i| v[i] + w * t[i] + u[i]).collect();
    assert!(
        (rotated[0] - 1.0).abs() < 1e-5 && rotated[1].abs() < 1e-5 && rotated[2].abs() < 1e-5,
        "{rotated:?}"
    );
}

/// `--runtime-timeout` of the stopped-runtime test: short, so the test is.
const SHORT_LIMIT_S: u64 = 3;
/// How much longer than its limit (or than the interrupt) the app may take
/// to end once the runtime stopped answering.
const END_WITHIN: Duration = Duration::from_secs(5);

/// A `holoterrain xr --progress --report REPORT ARGS` run on the simulated
/// HMD whose service writes its process id to PID_FILE, once it draws
/// frames: the run, its output, the app's process id, and the paths.
struct DrawingRun {
    run: XrRun,
    output: Output,
    app: u32,
    report_path: std::path::PathBuf,
    pid_path: std::path::PathBuf,
    _scratch: tempfile::TempDir,
}

fn drawing_run(args: &[&str]) -> DrawingRun {
    let scratch = monado::scratch_dir();
    let report_path = scratch.path().join("report.json");
    let pid_path = scratch.path().join("monado-service.pid");
    let mut all_args = vec!["--progress", "--report", report_path.to_str().unwrap()];
    all_args.extend_from_slice(args);
    let mut command = monado::xr_command(Mode::Simulated, scratch.path(), &all_args);
    command.env(monado::SERVICE_PID_FILE_VAR, &pid_path);
    let mut run = XrRun {
        child: command.spawn().expect("start scripts/monado-chroot.sh"),
    };
    let output = Output::collect(&mut run.child);
    output.wait_for("state FOCUSED");
    output.wait_for("frame 5");
    let app = monado::find_app_process(run.child.id()).expect("holoterrain runs in the chroot");
    DrawingRun {
        run,
        output,
        app,
        report_path,
        pid_path,
        _scratch: scratch,
    }
}

impl DrawingRun {
    /// Stops the service, lets `act` do its part (given the app's id),
    /// waits at most `bound` for the app to end, reads the report it left,
    /// resumes the service and waits for the chroot run to end. Returns how
    /// long the app took from the stop (`None`: it did not end), the run's
    /// exit status, the report as the app left it and after the resume, and
    /// the output.
    fn stop_the_runtime(
        &mut self,
        act: impl FnOnce(u32),
        bound: Duration,
    ) -> (Option<Duration>, ExitStatus, String, Value, String) {
        let service = StoppedService::stop(&self.pid_path);
        let stopped = Instant::now();
        act(self.app);
        let took = monado::gone_within(self.app, bound).map(|_| stopped.elapsed());
        let left = std::fs::read_to_string(&self.report_path).unwrap_or_default();
        drop(service);
        if took.is_none() {
            // Still running: end it the proper way now that the runtime
            // answers again, so the test fails at once rather than wait.
            monado::interrupt(self.app);
        }
        let status = wait_at_most(&mut self.run.child, PATIENCE).expect("the chroot run ends");
        let (report, text) = drain_and_read_report(&self.output, &self.report_path);
        (took, status, left, report, text)
    }
}

#[test]
fn stopping_the_runtime_ends_the_run_within_the_limit_with_one_line_and_its_report() {
    if !monado::chroot_ready() {
        return;
    }
    let _turn = one_run_at_a_time();
    let limit = SHORT_LIMIT_S.to_string();
    let mut drawing = drawing_run(&["--runtime-timeout", &limit]);
    let bound = Duration::from_secs(SHORT_LIMIT_S) + END_WITHIN;
    let (took, status, left, report, text) = drawing.stop_the_runtime(|_| {}, bound);
    let Some(took) = took else {
        panic!("holoterrain still ran {bound:?} after its runtime stopped; output:\n{text}");
    };
    assert!(
        took >= Duration::from_secs(SHORT_LIMIT_S),
        "ended after {took:?}, before its limit: output:\n{text}"
    );
    let line = assert_ended_by_watchdog(
        status.code(),
        &text,
        "error: the OpenXR runtime stopped answering: no answer to xr",
        &drawing.report_path,
        &report,
        "runtime_unresponsive",
    );
    assert!(
        line.contains(&format!(" s (--runtime-timeout {SHORT_LIMIT_S}) after ")),
        "{line}"
    );
    assert_eq!(
        std::fs::read_to_string(&drawing.report_path).unwrap(),
        left,
        "resuming the runtime changed the report"
    );
}

#[test]
fn ctrl_c_while_the_runtime_is_stopped_ends_the_run_within_5_s_with_its_report() {
    if !monado::chroot_ready() {
        return;
    }
    let _turn = one_run_at_a_time();
    // A limit far beyond the test's bound: only the interrupt can end it.
    let mut drawing = drawing_run(&["--runtime-timeout", "600"]);
    let (took, status, left, report, text) = drawing.stop_the_runtime(
        |app| {
            pause(1.0);
            signal(app, "INT");
        },
        END_WITHIN,
    );
    let Some(took) = took else {
        panic!("holoterrain still ran 5 s after Ctrl-C with its runtime stopped; output:\n{text}");
    };
    eprintln!("ended {took:?} after the runtime stopped (SIGINT 1 s after it)");
    assert_ended_by_watchdog(
        status.code(),
        &text,
        "error: interrupted while the OpenXR runtime was not answering: no answer to xr",
        &drawing.report_path,
        &report,
        "interrupted",
    );
    assert_eq!(
        std::fs::read_to_string(&drawing.report_path).unwrap(),
        left,
        "resuming the runtime changed the report"
    );
}

/// Busy threads, one per core, keeping every core of the machine busy
/// until dropped.
struct CpuLoad {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl CpuLoad {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let threads = (0..cores)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut spin = 0_u64;
                    while !stop.load(Ordering::Relaxed) {
                        spin = std::hint::black_box(spin.wrapping_mul(31).wrapping_add(7));
                    }
                })
            })
            .collect();
        CpuLoad { stop, threads }
    }
}

impl Drop for CpuLoad {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

#[test]
fn a_one_second_limit_does_not_trip_on_a_loaded_machine() {
    if !monado::chroot_ready() {
        return;
    }
    let _turn = one_run_at_a_time();
    let scratch = monado::scratch_dir();
    let report_path = scratch.path().join("report.json");
    let load = CpuLoad::start();
    let mut child = monado::spawn_xr(
        Mode::Simulated,
        scratch.path(),
        &[
            "--frames",
            &SIMULATED_FRAMES.to_string(),
            "--runtime-timeout",
            "1",
            "--report",
            report_path.to_str().unwrap(),
        ],
    );
    let output = Output::collect(&mut child);
    let status = child.wait().expect("wait for the chroot run");
    drop(load);
    let (report, text) = drain_and_read_report(&output, &report_path);
    assert!(status.success(), "exit {status}; output:\n{text}");
    assert_eq!(report["ended"], "frame_limit", "report: {report}");
    assert_eq!(report["frames"], SIMULATED_FRAMES);
    let longest = &report["longest_runtime_call"];
    assert!(
        longest["call"]
            .as_str()
            .is_some_and(|call| call.starts_with("xr")),
        "the report names the longest call: {report}"
    );
    eprintln!(
        "under load the longest runtime call was {} ({} s); render CPU times {}",
        longest["call"], longest["seconds"], report["cpu_ms"]["render"]
    );
}
