//! Shared sessions on loopback and on a local network the test makes (two network namespaces): simulators hosting and joining by code (the `holoterrain` binary, as a person runs it), a peer whose link drops reaching its host again, a joiner finding its host by DNS-SD; and, through `holoterrain::net` with apps run frame by frame here, a host and honest peers against hostile ends that speak the real protocol (tests/support/hostile.rs): wrong codes, garbage, oversized frames, another protocol version, floods, connections held open, bytes dripped, silence, a peer that never reads, lying checksums, a welcome too big or never sent — each case ending with the host and the honest peers level bit for bit, the host's log replaying, and nothing non-finite.
mod support {
    pub mod ci;
    pub mod hostile;
    pub mod lan;
}

use std::fs;
use std::io::Write;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use holoterrain::app::log::{CommandLog, LogEnd, LogEntry, LogStart};
use holoterrain::app::{
    App, AppConfig, Command as AppCommand, EyeView, Fov, FrameInput, FrameOutput, HandInput, Kept,
    Role, SessionIn,
};
use holoterrain::input::Pose;
use holoterrain::net::frame::{MAX_FRAME_BYTES, write_frame};
use holoterrain::net::handshake::{self, HandshakeError, MAGIC};
use holoterrain::net::protocol::{HostMessage, PROTOCOL_VERSION, PeerMessage};
use holoterrain::net::{Host, JoinTarget, Peer, ShareCode};
use serde_json::Value;
use support::hostile::Hostile;
use support::lan::Lan;

/// The simulator runs are paced by the wall clock: one at a time, so that
/// two machines' worth of them never share the 2 cores at once.
static SERIAL: Mutex<()> = Mutex::new(());

const CODE: &str = "7-guitar-orbit";

/// A port nobody listens on now (the kernel's pick, let go again).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `holoterrain sim` with tiny images at 30 Hz for `seconds` of its script
/// (and as long as the script's waits take: docs/simulator.md), writing
/// into `out` and its stderr into `out`.log, which also tells when a wait
/// begins to hold (`waiting for 'CONDITION'`).
fn sim(dir: &Path, name: &str, seconds: u32, script: &str, extra: &[&str]) -> (Child, PathBuf) {
    sim_in(None, dir, name, seconds, script, extra)
}

/// [`sim`] in the network namespace `namespace`, if given.
fn sim_in(
    namespace: Option<&str>,
    dir: &Path,
    name: &str,
    seconds: u32,
    script: &str,
    extra: &[&str],
) -> (Child, PathBuf) {
    let out = dir.join(name);
    let script_path = dir.join(format!("{name}.txt"));
    fs::write(&script_path, script).unwrap();
    let log = fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    let child = support::lan::command_in(namespace, env!("CARGO_BIN_EXE_holoterrain"))
        .args([
            "sim",
            "--resolution",
            "32x24",
            "--rate",
            "30",
            "--every",
            "100000",
        ])
        .args(["--frames", &(seconds * 30).to_string()])
        .arg("--script")
        .arg(&script_path)
        .arg("--out")
        .arg(&out)
        .args(extra)
        .env("RUST_LOG", "warn,holoterrain::sim::wait=info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    (child, out)
}

/// How long a test waits for a line that says a run got where it needed
/// (a run's own waits give up after 60 s).
const PATIENCE: Duration = Duration::from_secs(90);

fn stderr_of(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(format!("{name}.log"))).unwrap()
}

fn finished(mut child: Child, dir: &Path, name: &str) {
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "{name} failed ({status}): {}",
        stderr_of(dir, name)
    );
}

fn report(out: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// The terrain commands of a run's log, in order: (origin, iteration, command).
fn shared_commands(out: &Path) -> Vec<(Value, Value, Value)> {
    fs::read_to_string(out.join("commands.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|entry| entry.get("seq").is_some())
        .filter(|entry| {
            let command = &entry["command"];
            !(command.get("place").is_some()
                || command.get("scale").is_some()
                || command == "reset_placement")
        })
        .map(|entry| {
            (
                entry["origin"].clone(),
                entry["iteration"].clone(),
                entry["command"].clone(),
            )
        })
        .collect()
}

/// Asserts that the peer writing `peer_out` ended level with the host
/// writing `host_out`: the same `commands` terrain commands at the same
/// iterations in the same order, the same heights bit for bit, and no
/// checksum that differed.
fn assert_level(host_out: &Path, peer_out: &Path, commands: usize) {
    let strip = |out: &Path| -> Vec<(Value, Value)> {
        shared_commands(out)
            .into_iter()
            .map(|(_, iteration, command)| (iteration, command))
            .collect()
    };
    let host_commands = strip(host_out);
    assert_eq!(host_commands.len(), commands, "{host_commands:?}");
    assert_eq!(host_commands, strip(peer_out));
    assert_eq!(
        fs::read(host_out.join("terrain.f32")).unwrap(),
        fs::read(peer_out.join("terrain.f32")).unwrap(),
        "{} ended with another terrain than the host",
        peer_out.display()
    );
    assert_eq!(
        report(host_out)["share"]["checksum_mismatches"],
        serde_json::json!([])
    );
}

/// Waits up to `patience` for `name`'s stderr to hold `text`.
fn wait_for_line(dir: &Path, name: &str, text: &str, patience: Duration) {
    let started = Instant::now();
    while !stderr_of(dir, name).contains(text) {
        assert!(
            started.elapsed() < patience,
            "{name} never said `{text}`: {}",
            stderr_of(dir, name)
        );
        thread::sleep(Duration::from_millis(50));
    }
}

// In a session speech acts only while the speaker's menu is open: each
// `say` comes with the palm up (the hand menu open from 0.3 s before the
// palm's time). Each "undo" takes back its speaker's own change: the
// peer's its lift (said before the host's trace comes), the host's its trace.
const HOST_SCRIPT: &str = "\
0.5 airtap right
1.3 palm left 0.6
1.5 say next landscape
3.0 trace right 0.5 0.1 0.45 0.5 0.3 0.9 0.45
3.8 palm left 0.6
4.0 say undo
";

const PEER_SCRIPT: &str = "\
0.9 airtap left
1.9 lift left 0.5 0.5 0.5 0.05
2.75 palm right 0.5
2.95 say undo
";

#[test]
fn a_host_and_a_peer_end_with_the_same_terrain_and_the_same_order() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    // The host makes its commands once the peer is in, and ends once it
    // has ordered all seven (2.5 s later, for the peer's last checksums).
    let (host, host_out) = sim(
        dir.path(),
        "host",
        7,
        &format!("0 wait peers 1\n{HOST_SCRIPT}4.1 wait ordered 7\n"),
        &[
            "--size",
            "65x65",
            "--share",
            CODE,
            "--share-port",
            &port,
            "--unlisted",
        ],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    // The peer outlasts the host, so it has everything the host did: it
    // ends only once it has all seven and the host has left.
    let (peer, peer_out) = sim(
        dir.path(),
        "peer",
        5,
        &format!("{PEER_SCRIPT}3.0 wait ordered 7\n3.0 wait alone\n"),
        &["--join", &format!("{CODE}@127.0.0.1:{port}")],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");

    let (host_report, peer_report) = (report(&host_out), report(&peer_out));
    let host_commands = shared_commands(&host_out);
    let peer_commands = shared_commands(&peer_out);
    // The host's air-tap, landscape, trace and undo, the peer's air-tap,
    // lift and undo: seven, in one order, at the same iterations.
    assert_eq!(host_commands.len(), 7, "{host_commands:?}");
    assert_eq!(host_commands.len(), peer_commands.len());
    for (ours, theirs) in host_commands.iter().zip(&peer_commands) {
        assert_eq!((&ours.1, &ours.2), (&theirs.1, &theirs.2));
        let expected_origin = match ours.0.as_str() {
            Some("local") => serde_json::json!("host"),
            _ => ours.0.clone(),
        };
        assert_eq!(theirs.0, expected_origin);
    }
    let origins: Vec<&Value> = peer_commands.iter().map(|c| &c.0).collect();
    assert_eq!(
        origins.iter().filter(|o| **o == "host").count(),
        4,
        "{origins:?}"
    );
    assert_eq!(
        origins
            .iter()
            .filter(|o| **o == &serde_json::json!({"peer": 1}))
            .count(),
        3
    );
    let kinds: Vec<String> = peer_commands
        .iter()
        .map(|c| match &c.2 {
            Value::Object(map) => map.keys().next().unwrap().clone(),
            other => other.as_str().unwrap().to_owned(),
        })
        .collect();
    for kind in ["reseed", "landscape", "trace", "lift", "undo"] {
        assert!(kinds.iter().any(|k| k == kind), "no {kind}: {kinds:?}");
    }
    // Each undo took back its speaker's own change: the peer's lift, the host's trace.
    let undone: Vec<Value> = host_report["undos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|undo| undo["undone"].clone())
        .collect();
    assert_eq!(undone, ["lift", "trace"]);

    assert_eq!(
        fs::read(host_out.join("terrain.png")).unwrap(),
        fs::read(peer_out.join("terrain.png")).unwrap(),
        "the two headsets ended with different terrains"
    );
    assert_eq!(
        fs::read(host_out.join("terrain.f32")).unwrap(),
        fs::read(peer_out.join("terrain.f32")).unwrap()
    );
    // Either log replays offline into the session's terrain.
    for out in [&host_out, &peer_out] {
        let replayed = dir.path().join("replayed.f32");
        let status = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
            .args(["generate", "--format", "f32", "--replay"])
            .arg(out.join("commands.jsonl"))
            .arg("--out")
            .arg(&replayed)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            fs::read(&replayed).unwrap(),
            fs::read(out.join("terrain.f32")).unwrap(),
            "{} does not replay into its terrain",
            out.display()
        );
    }
    assert_eq!(host_report["seeds"], peer_report["seeds"]);
    assert_eq!(host_report["recipe"], peer_report["recipe"]);

    assert_eq!(host_report["share"]["code"], CODE);
    assert_eq!(host_report["share"]["role"], "host");
    assert_eq!(host_report["share"]["commands_ordered"], 7);
    assert_eq!(host_report["share"]["checksums_matched"], 7);
    assert_eq!(
        host_report["share"]["checksum_mismatches"],
        serde_json::json!([])
    );
    assert_eq!(host_report["peers"][0]["peer"], 1);
    assert_eq!(peer_report["share"]["role"], "peer");
    assert_eq!(peer_report["share"]["peer"], 1);
    assert_eq!(peer_report["peers"][0]["left"], "it ended the session");

    let peer_log = stderr_of(dir.path(), "peer");
    assert_eq!(peer_log.matches("the host left").count(), 1, "{peer_log}");
    assert!(
        stderr_of(dir.path(), "host").contains(&format!("hosting session {CODE} on port {port}"))
    );
}

#[test]
fn speech_in_a_session_with_the_menu_closed_does_nothing_on_any_headset() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    // Both say what would reseed, undo and scale alone, with no menu open;
    // then the host, its palm up, says "new terrain" once: only that and
    // the first air-tap are ordered.
    let (host, host_out) = sim(
        dir.path(),
        "host",
        5,
        "0 wait peers 1\n0.5 airtap right\n1.1 say new terrain\n1.4 say undo\n1.7 say bigger\n2.0 say next landscape\n2.6 palm left 0.6\n2.9 say new terrain\n3.0 wait ordered 2\n",
        &[
            "--size",
            "33x33",
            "--share",
            CODE,
            "--share-port",
            &port,
            "--unlisted",
        ],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    let (peer, peer_out) = sim(
        dir.path(),
        "peer",
        4,
        "1.0 say next landscape\n1.3 say undo\n1.6 say smaller\n1.9 say new terrain\n2.5 wait ordered 2\n2.5 wait alone\n",
        &["--join", &format!("{CODE}@127.0.0.1:{port}")],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");

    assert_level(&host_out, &peer_out, 2);
    let kinds: Vec<Value> = shared_commands(&host_out)
        .into_iter()
        .map(|(origin, _, command)| serde_json::json!([origin, command["reseed"]["cause"]]))
        .collect();
    assert_eq!(
        kinds,
        [
            serde_json::json!(["local", "airtap"]),
            serde_json::json!(["local", "menu"])
        ],
        "the air-tap, then the one new terrain said with the menu open (its button's label)"
    );
    for out in [&host_out, &peer_out] {
        let report = report(out);
        assert_eq!(report["undos"], serde_json::json!([]), "{}", out.display());
        assert_eq!(report["hologram_scale"], 1.0, "{}", out.display());
        assert_eq!(report["reseeds"].as_array().unwrap().len(), 2);
    }
    // Only the words heard with the menu open show a toast.
    let toasts: Vec<Value> = report(&host_out)["toasts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|toast| toast["text"].clone())
        .collect();
    assert_eq!(toasts, [serde_json::json!("Heard: new terrain")]);
    assert_eq!(report(&peer_out)["toasts"], serde_json::json!([]));
}

#[test]
fn an_undo_takes_back_only_the_speakers_own_change_and_every_headset_ends_level() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    // The host reseeds, waits for the peer's lift, then says "undo": the
    // change on top is the peer's, so nothing is ordered. The peer's own
    // "undo" later takes its lift back.
    let (host, host_out) = sim(
        dir.path(),
        "host",
        4,
        "0 wait peers 1\n0.2 airtap right\n0.5 wait ordered 2\n1.0 palm left 0.6\n1.2 say undo\n1.8 wait ordered 3\n",
        &[
            "--size",
            "33x33",
            "--share",
            CODE,
            "--share-port",
            &port,
            "--unlisted",
        ],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    let (peer, peer_out) = sim(
        dir.path(),
        "peer",
        5,
        "1.0 lift left 0.4 0.5 0.5 0.05\n2.8 palm right 0.5\n3.0 say undo\n3.1 wait ordered 3\n3.1 wait alone\n",
        &["--join", &format!("{CODE}@127.0.0.1:{port}")],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");

    assert_level(&host_out, &peer_out, 3);
    let ordered: Vec<(Value, Value)> = shared_commands(&host_out)
        .into_iter()
        .map(|(origin, _, command)| (origin, command))
        .collect();
    assert_eq!(
        ordered[2],
        (serde_json::json!({"peer": 1}), serde_json::json!("undo"))
    );
    for out in [&host_out, &peer_out] {
        let undone: Vec<Value> = report(out)["undos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|undo| undo["undone"].clone())
            .collect();
        assert_eq!(undone, ["lift"], "{}", out.display());
    }
    let host_toasts: Vec<Value> = report(&host_out)["toasts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|toast| toast["text"].clone())
        .collect();
    assert!(
        host_toasts.contains(&serde_json::json!(
            "Not undone: someone else changed it last"
        )),
        "{host_toasts:?}"
    );
}

#[test]
fn the_hosts_scrub_moves_every_headset_to_the_same_moment_and_back() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    let (host, host_out) = sim(
        dir.path(),
        "host",
        6,
        "0 wait peers 1\n0.5 airtap right\n1.5 lift right 0.5 0.5 0.5 0.05\n2.3 palm left 1.3\n2.5 say back\n3.0 say forward\n3.4 say forward\n3.6 wait ordered 5\n",
        &[
            "--size",
            "65x65",
            "--share",
            CODE,
            "--share-port",
            &port,
            "--unlisted",
        ],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    let (peer, peer_out) = sim(
        dir.path(),
        "peer",
        5,
        "3.0 wait ordered 5\n3.0 wait alone\n",
        &["--join", &format!("{CODE}@127.0.0.1:{port}")],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");
    // The air-tap, the lift and the three scrubs (back before the lift,
    // forward to just after it, forward to now), in one order: the same
    // terrain.
    assert_level(&host_out, &peer_out, 5);
    let moments = |out: &Path| -> Vec<(Value, Value)> {
        report(out)["scrubs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|scrub| (scrub["moment"].clone(), scrub["length"].clone()))
            .collect()
    };
    let host_moments = moments(&host_out);
    assert_eq!(host_moments.len(), 3, "{host_moments:?}");
    assert_eq!(
        host_moments,
        moments(&peer_out),
        "the same moments of the same history"
    );
    assert_ne!(host_moments[1].0, host_moments[1].1, "just after the lift");
    assert_eq!(
        host_moments[2].0, host_moments[2].1,
        "forward again came back to now"
    );
}

#[test]
fn a_late_joiner_catches_up_and_ends_level_with_the_host() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    // All the host's commands but its undo are made before the joiner
    // comes: the host then waits for it, and undoes once it is in.
    let (host_script, undo) = HOST_SCRIPT.split_at(HOST_SCRIPT.find("3.8").unwrap());
    let (host, host_out) = sim(
        dir.path(),
        "host",
        6,
        &format!("{host_script}3.6 wait peers 1\n{undo}"),
        &[
            "--size",
            "65x65",
            "--share",
            CODE,
            "--share-port",
            &port,
            "--unlisted",
        ],
    );
    wait_for_line(dir.path(), "host", "waiting for 'peers 1'", PATIENCE);
    // The joiner ends once it has all four and the host has left.
    let (peer, peer_out) = sim(
        dir.path(),
        "late",
        2,
        "0.5 wait ordered 4\n0.5 wait alone\n",
        &["--join", &format!("{CODE}@127.0.0.1:{port}")],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "late");
    assert_level(&host_out, &peer_out, 4);
}

#[test]
fn a_wrong_code_is_refused_with_one_line_and_changes_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    let (host, host_out) = sim(
        dir.path(),
        "host",
        3,
        "0.5 airtap right\n",
        &[
            "--size",
            "33x33",
            "--share",
            CODE,
            "--share-port",
            &port,
            "--unlisted",
        ],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    let wrong_out = dir.path().join("wrong");
    let wrong = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--resolution", "32x24", "--frames", "30", "--join"])
        .arg(format!("7-guitar-orbits@127.0.0.1:{port}"))
        .arg("--out")
        .arg(&wrong_out)
        .output()
        .unwrap();
    finished(host, dir.path(), "host");

    assert_eq!(wrong.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: joining 127.0.0.1:") && stderr.contains("does not match"),
        "{stderr}"
    );
    assert!(!wrong_out.exists(), "the refused joiner wrote its output");

    let host_log = stderr_of(dir.path(), "host");
    let refusals: Vec<&str> = host_log.lines().filter(|l| l.contains("refused")).collect();
    assert_eq!(refusals.len(), 1, "{host_log}");
    assert!(refusals[0].contains("does not match"), "{host_log}");
    let host_report = report(&host_out);
    assert_eq!(host_report["peers"], serde_json::json!([]));
    assert_eq!(shared_commands(&host_out).len(), 1);
}

#[test]
fn a_killed_peer_costs_the_host_one_line_and_the_host_runs_on() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    // The host's air-tap comes once the peer has come and gone.
    let (host, host_out) = sim(
        dir.path(),
        "host",
        4,
        "0 wait peers 1\n0.1 wait alone\n2.5 airtap right\n",
        &[
            "--size",
            "33x33",
            "--share",
            CODE,
            "--share-port",
            &port,
            "--unlisted",
        ],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    let (mut peer, _) = sim(
        dir.path(),
        "peer",
        20,
        "",
        &["--join", &format!("{CODE}@127.0.0.1:{port}")],
    );
    wait_for_line(dir.path(), "peer", "as peer 1", PATIENCE);
    // Killed once the host has it among its peers.
    wait_for_line(dir.path(), "host", "share: peer 1 joined", PATIENCE);
    peer.kill().unwrap();
    peer.wait().unwrap();
    finished(host, dir.path(), "host");

    let host_log = stderr_of(dir.path(), "host");
    let left: Vec<&str> = host_log.lines().filter(|l| l.contains("left")).collect();
    assert_eq!(left.len(), 1, "{host_log}");
    assert!(left[0].starts_with("share: peer 1 left"), "{host_log}");
    let host_report = report(&host_out);
    assert!(host_report["peers"][0]["left"].is_string(), "{host_report}");
    // The host went on: its air-tap after the peer was gone still reseeded.
    assert_eq!(host_report["reseeds"].as_array().unwrap().len(), 1);
}

#[test]
fn share_session_on_the_hand_menu_hosts_from_where_the_world_stands() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    // Alone first: an air-tap and a lifted hill, then the menu's button
    // hosts; the peer's air-tap and its undo of it come after the join
    // (the host waits for both), and the host ends 2 s after, having
    // heard the peer's checksums.
    let (host, host_out) = sim(
        dir.path(),
        "host",
        6,
        "0.5 airtap right\n1.0 lift right 0.5 0.5 0.5 0.05\n1.6 palm left 1.5\n2.2 press share session poke\n3.3 wait peers 1\n3.3 wait ordered 4\n",
        &["--size", "33x33", "--share-port", &port, "--unlisted"],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    let line = stderr_of(dir.path(), "host");
    let code = line
        .split("hosting session ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the code on the hosting line")
        .to_owned();
    assert!(ShareCode::parse(&code).is_ok(), "{line}");
    // The peer ends once it has all four and the host has left.
    let (peer, peer_out) = sim(
        dir.path(),
        "peer",
        3,
        "1.0 airtap left\n1.4 palm right 0.4\n1.6 say undo\n1.7 wait ordered 4\n1.7 wait alone\n",
        &["--join", &format!("{code}@127.0.0.1:{port}")],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");

    let host_report = report(&host_out);
    let presses: Vec<&Value> = host_report["ui"]
        .as_array()
        .unwrap()
        .iter()
        .map(|press| &press["label"])
        .collect();
    assert_eq!(presses, ["Share session"]);
    assert_eq!(host_report["share"]["code"], code.as_str());
    // The two commands made alone are the shared order's first; all four
    // reach the peer in the host's order, and both end on the same land.
    assert_level(&host_out, &peer_out, 4);
    assert_eq!(host_report["share"]["commands_ordered"], 4);
    // The peer's checksums of the commands made before the session was
    // hosted are checked too.
    assert_eq!(host_report["share"]["checksums_matched"], 4);
}

/// A TCP relay on loopback in front of a host: it carries every connection
/// both ways until cut, and while closed it hangs up on newcomers, as a
/// network that drops out for a while does.
struct Relay {
    port: u16,
    /// Both ends of every connection it carries.
    carried: Arc<Mutex<Vec<TcpStream>>>,
    closed: Arc<AtomicBool>,
}

impl Relay {
    fn start(upstream_port: u16) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let carried = Arc::new(Mutex::new(Vec::new()));
        let closed = Arc::new(AtomicBool::new(false));
        let (carried_by_thread, closed_by_thread) = (carried.clone(), closed.clone());
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                if closed_by_thread.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(upstream) = TcpStream::connect(("127.0.0.1", upstream_port)) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), upstream.try_clone().unwrap()),
                    (upstream.try_clone().unwrap(), client.try_clone().unwrap()),
                ] {
                    thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
                carried_by_thread.lock().unwrap().extend([client, upstream]);
            }
        });
        Relay {
            port,
            carried,
            closed,
        }
    }

    /// Cuts every connection and hangs up on new ones until [`Self::open`].
    fn cut(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for stream in self.carried.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    fn open(&self) {
        self.closed.store(false, Ordering::SeqCst);
    }
}

#[test]
fn a_peer_whose_link_drops_reaches_the_host_again_and_ends_level_with_it() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    // The host makes a new terrain once it has the peer's two commands (the
    // second made while the link is down), and ends 2 s later.
    let (host, host_out) = sim(
        dir.path(),
        "host",
        5,
        "0 wait peers 1\n0.5 airtap right\n1.8 palm left 0.5\n2.0 say next landscape\n2.5 wait ordered 4\n2.8 palm left 0.5\n3.0 say new terrain\n",
        &[
            "--size",
            "33x33",
            "--share",
            CODE,
            "--share-port",
            &port.to_string(),
            "--unlisted",
        ],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    let relay = Relay::start(port);
    // The peer outlasts the host (it ends once it has all five and the host
    // has left); its air-tap falls while the link is down.
    let (peer, peer_out) = sim(
        dir.path(),
        "peer",
        5,
        "1.0 lift left 0.5 0.5 0.5 0.05\n3.0 airtap left\n3.5 wait ordered 5\n3.5 wait alone\n",
        &["--join", &format!("{CODE}@127.0.0.1:{}", relay.port)],
    );
    wait_for_line(dir.path(), "peer", "as peer 1", PATIENCE);
    thread::sleep(Duration::from_millis(1500));
    relay.cut();
    wait_for_line(dir.path(), "peer", "lost the link to the host", PATIENCE);
    // Down long enough for the first attempts (0.5 s, then 1 s later) to fail.
    thread::sleep(Duration::from_millis(2500));
    relay.open();
    wait_for_line(dir.path(), "peer", "reached the host again", PATIENCE);
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");

    let peer_log = stderr_of(dir.path(), "peer");
    assert_eq!(peer_log.matches("lost the link").count(), 1, "{peer_log}");
    assert_eq!(
        peer_log.matches("reached the host again").count(),
        1,
        "{peer_log}"
    );
    assert!(peer_log.contains("; peer 2 now"), "{peer_log}");
    assert_eq!(peer_log.matches("the host left").count(), 1, "{peer_log}");
    let host_log = stderr_of(dir.path(), "host");
    assert!(host_log.contains("share: peer 1 left"), "{host_log}");
    assert!(host_log.contains("share: peer 2 joined"), "{host_log}");

    // Nothing lost, nothing twice: the host's three commands and the
    // peer's two, the same on both, and the same land.
    assert_level(&host_out, &peer_out, 5);
    assert_eq!(report(&peer_out)["share"]["peer"], 2);
}

/// Two rooms, each with the session's card on its table, at other room
/// coordinates and turned another way.
const ROOM_A: &str = "\
surface 0 0.75 -2.6 1.6 1.0
surface 0 0 -2.5 8 8
marker 0.5 0.75 -2.3 30 0.1 holoterrain:7-guitar-orbit
";
const ROOM_B: &str = "\
surface 1.5 0.72 -1.2 1.2 1.0
surface 0 0 -2.5 8 8
marker 1.2 0.72 -1.0 -65 0.1 holoterrain:7-guitar-orbit
";

/// A pose from a report's `position` and `orientation`.
fn pose_of(record: &Value) -> Pose {
    let numbers = |key: &str| -> Vec<f32> {
        record[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {record}"))
            .iter()
            .map(|number| number.as_f64().unwrap() as f32)
            .collect()
    };
    let (position, orientation) = (numbers("position"), numbers("orientation"));
    Pose::new(
        glam::Vec3::from_slice(&position),
        glam::Quat::from_slice(&orientation),
    )
}

/// The hologram where a run's report leaves it, relative to the card it
/// saw (flat on a table, so its pose is its level frame).
fn hologram_on_card(report: &Value) -> (Pose, f64) {
    let card = report["markers_seen"]
        .as_array()
        .and_then(|seen| seen.first())
        .unwrap_or_else(|| panic!("no card seen: {}", report["markers_seen"]));
    let hologram = pose_of(&report["hologram_pose"]);
    (
        pose_of(card).inverse().compose(&hologram),
        report["hologram_scale"].as_f64().unwrap(),
    )
}

#[test]
fn headsets_in_two_rooms_put_the_hologram_on_the_same_spot_of_the_card() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    for (name, room) in [("a.room", ROOM_A), ("b.room", ROOM_B)] {
        fs::write(dir.path().join(name), room).unwrap();
    }
    let room = |name: &str| dir.path().join(name).display().to_string();
    // Each looks at the card on its table from 1 s on; the peer's wearer
    // then makes the hologram bigger, which reaches the host too. The host
    // runs 7 s from the peer's coming; the peer ends after the host.
    let (host, host_out) = sim(
        dir.path(),
        "host",
        7,
        "0 wait peers 1\n1.0 head 0.3 1.6 -1.2 0.5 0.75 -2.3\n",
        &[
            "--size",
            "33x33",
            "--share",
            CODE,
            "--share-port",
            &port,
            "--unlisted",
            "--room",
            &room("a.room"),
        ],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    let (peer, peer_out) = sim(
        dir.path(),
        "peer",
        5,
        "1.0 head 1.6 1.55 0.1 1.2 0.72 -1.0\n3.3 palm left 0.4\n3.5 say bigger\n3.6 wait alone\n",
        &[
            "--join",
            &format!("{CODE}@127.0.0.1:{port}"),
            "--room",
            &room("b.room"),
        ],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");
    let (host_report, peer_report) = (report(&host_out), report(&peer_out));
    let (ours, our_scale) = hologram_on_card(&host_report);
    let (theirs, their_scale) = hologram_on_card(&peer_report);
    assert!(
        ours.position.distance(theirs.position) < 1e-3,
        "{ours:?} against {theirs:?}"
    );
    assert!(ours.orientation.angle_between(theirs.orientation) < 1e-3);
    assert!((our_scale - 1.25).abs() < 1e-6, "{our_scale}");
    assert_eq!(our_scale, their_scale);
    let causes = |report: &Value| -> Vec<String> {
        report["placements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|placement| placement["cause"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(
        causes(&peer_report).contains(&"card".to_owned()),
        "{:?}",
        causes(&peer_report)
    );
    assert!(
        causes(&host_report).contains(&"card".to_owned()),
        "{:?}",
        causes(&host_report)
    );
    // And one terrain.
    assert_eq!(
        fs::read(host_out.join("terrain.f32")).unwrap(),
        fs::read(peer_out.join("terrain.f32")).unwrap()
    );
}

#[test]
fn a_peer_finds_the_host_by_its_code_alone_on_the_local_network() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lan) = Lan::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The host makes its commands once the peer is in.
    let (host, host_out) = sim_in(
        Some(&lan.names[0]),
        dir.path(),
        "host",
        6,
        &format!("0 wait peers 1\n{HOST_SCRIPT}"),
        &["--size", "65x65", "--share", CODE],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    // No address: only the code, found by DNS-SD from the other machine.
    // It ends once it has the host's four commands and the host has left.
    let (peer, peer_out) = sim_in(
        Some(&lan.names[1]),
        dir.path(),
        "peer",
        2,
        "0.5 wait ordered 4\n0.5 wait alone\n",
        &["--join", CODE],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");
    let peer_log = stderr_of(dir.path(), "peer");
    assert!(
        peer_log.contains("joined the session at 10.77.0.1:47180 as peer 1"),
        "{peer_log}"
    );
    let host_log = stderr_of(dir.path(), "host");
    assert!(!host_log.contains("not advertised"), "{host_log}");
    assert!(
        host_log.contains("peer 1 joined from 10.77.0.2:"),
        "{host_log}"
    );
    assert_eq!(
        fs::read(host_out.join("terrain.f32")).unwrap(),
        fs::read(peer_out.join("terrain.f32")).unwrap(),
        "the two machines ended with different terrains"
    );
}

#[test]
fn a_headset_in_no_session_joins_the_one_whose_card_it_sees() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lan) = Lan::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (name, room) in [("a.room", ROOM_A), ("b.room", ROOM_B)] {
        fs::write(dir.path().join(name), room).unwrap();
    }
    let room = |name: &str| dir.path().join(name).display().to_string();
    // The host ends 2.5 s after it has ordered the peer's air-tap.
    let (host, host_out) = sim_in(
        Some(&lan.names[0]),
        dir.path(),
        "host",
        4,
        "0.5 airtap right\n1.0 head 0.3 1.6 -1.2 0.5 0.75 -2.3\n1.5 wait peers 1\n1.5 wait ordered 2\n",
        &["--share", CODE, "--room", &room("a.room")],
    );
    wait_for_line(dir.path(), "host", "hosting session", PATIENCE);
    // The other headset runs alone, with no --join, reseeds its own land,
    // then looks at the card on its table; once in, its air-tap is shared.
    // It ends once it has both commands and the host has left.
    let (peer, peer_out) = sim_in(
        Some(&lan.names[1]),
        dir.path(),
        "peer",
        5,
        "0.5 airtap left\n1.5 head 1.6 1.55 0.1 1.2 0.72 -1.0\n2.0 wait joined\n2.5 airtap left\n3.0 wait ordered 2\n3.0 wait alone\n",
        &["--room", &room("b.room")],
    );
    finished(host, dir.path(), "host");
    finished(peer, dir.path(), "peer");

    let peer_log = stderr_of(dir.path(), "peer");
    assert!(
        peer_log.contains(&format!("share: saw the card of session {CODE}")),
        "{peer_log}"
    );
    assert!(
        peer_log.contains("joined the session at 10.77.0.1:47180 as peer 1"),
        "{peer_log}"
    );
    let (host_report, peer_report) = (report(&host_out), report(&peer_out));
    assert_eq!(peer_report["share"]["role"], "peer");
    // The host's air-tap and the peer's after it joined, in one order; its
    // own air-tap before, alone, is not the session's.
    assert_level(&host_out, &peer_out, 2);
    // And the hologram on the same spot of the card.
    let (ours, _) = hologram_on_card(&host_report);
    let (theirs, _) = hologram_on_card(&peer_report);
    assert!(
        ours.position.distance(theirs.position) < 1e-3,
        "{ours:?} against {theirs:?}"
    );
    // Its seeds: its own first world's and its own reseed's, then the
    // session's, as the host has them.
    let seeds = peer_report["seeds"].as_array().unwrap();
    assert_eq!(
        &seeds[2..],
        host_report["seeds"].as_array().unwrap().as_slice(),
        "{seeds:?}"
    );
}

#[test]
fn a_code_nobody_hosts_is_one_line_after_looking() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lan) = Lan::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (peer, _) = sim_in(
        Some(&lan.names[1]),
        dir.path(),
        "peer",
        2,
        "",
        &["--join", CODE],
    );
    let status = peer.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(1));
    let log = stderr_of(dir.path(), "peer");
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(
        log.starts_with("error: no host of session 7 answered on the local network"),
        "{log}"
    );
}

/// A frame with nobody in it: whatever it applies came from elsewhere.
fn empty_frame() -> FrameInput {
    FrameInput {
        head: None,
        ..frame_at(0)
    }
}

/// Frame number `frame` of a 60 Hz display, a wearer standing still
/// (whose gaze places the hologram, which starts its growth) and doing
/// nothing.
fn frame_at(frame: u64) -> FrameInput {
    let view = EyeView {
        pose: Pose::IDENTITY,
        fov: Fov {
            angle_left: -0.8,
            angle_right: 0.8,
            angle_up: 0.8,
            angle_down: -0.8,
        },
    };
    FrameInput {
        display_time_ns: frame as i64 * 16_666_667,
        head: Some(Pose::new(
            glam::Vec3::new(0.0, 1.6, 0.0),
            glam::Quat::IDENTITY,
        )),
        hands: [HandInput::default(); 2],
        views: [view; 2],
        hologram_located: None,
        visible: true,
        surfaces: None,
        markers: None,
        kept: Kept::None,
        voice: None,
        shared: Vec::new(),
        saves: None,
        saved: None,
    }
}

/// The host's app, with what its session brought for its next frame.
struct Headset {
    app: App,
    incoming: Vec<SessionIn>,
}

impl Headset {
    /// An app growing `start`, taking part in this file's session as `role`
    /// from its first frame.
    fn in_session(start: &LogStart, role: Role) -> Headset {
        Headset {
            app: App::new(start.app_config()).unwrap(),
            incoming: vec![SessionIn::Began {
                role,
                code: CODE.into(),
            }],
        }
    }

    /// One frame of `input`, with what the session brought.
    fn update(&mut self, input: &FrameInput) -> FrameOutput {
        let mut input = input.clone();
        input.shared.append(&mut self.incoming);
        self.app.update(&input)
    }
}

impl std::ops::Deref for Headset {
    type Target = App;

    fn deref(&self) -> &App {
        &self.app
    }
}

impl std::ops::DerefMut for Headset {
    fn deref_mut(&mut self) -> &mut App {
        &mut self.app
    }
}

/// A host on loopback (no simulator) and an app for its frames.
fn host() -> (Host, Headset) {
    let start = LogStart::demo(1, 9, 9);
    let host = Host::start(ShareCode::parse(CODE).unwrap(), 0, start).unwrap();
    let app = App::new(AppConfig::hololens_demo(9, 9, 1)).unwrap();
    let incoming = Vec::new();
    (host, Headset { app, incoming })
}

/// Runs the host's frame loop until it has logged a line (up to 10 s),
/// then once more for any that came with it: the lines.
fn settle(host: &mut Host, app: &mut Headset) -> Vec<String> {
    let started = Instant::now();
    let mut notes = Vec::new();
    while notes.is_empty() && started.elapsed() < Duration::from_secs(10) {
        thread::sleep(Duration::from_millis(20));
        host.before_frame(&mut app.incoming);
        notes.extend(host.take_notes());
    }
    thread::sleep(Duration::from_millis(50));
    host.before_frame(&mut app.incoming);
    notes.extend(host.take_notes());
    notes
}

/// A joiner that proved the code and read the welcome (which the host's
/// handshake thread sends); the host's lines.
fn joined(host: &mut Host, app: &mut Headset) -> (handshake::Channel, Vec<String>) {
    let joiner = Hostile::join(host.port(), CODE);
    assert_eq!(joiner.peer, 1);
    let notes = settle(host, app);
    (joiner.channel, notes)
}

fn send(channel: &mut handshake::Channel, message: &PeerMessage) {
    let json = serde_json::to_vec(message).unwrap();
    channel.sealer.write(&mut channel.stream, &json).unwrap();
}

#[test]
fn seven_peers_join_and_an_eighth_is_refused_with_one_line() {
    let (mut host, mut app) = host();
    let code = ShareCode::parse(CODE).unwrap();
    let mut peers = Vec::new();
    for _ in 0..holoterrain::net::session::MAX_PEERS {
        let stream = TcpStream::connect(("127.0.0.1", host.port())).unwrap();
        peers.push(handshake::connect(stream, &code).unwrap());
    }
    // Wait for all seven to be taken in.
    let started = Instant::now();
    let mut notes = Vec::new();
    while notes.len() < 7 && started.elapsed() < Duration::from_secs(20) {
        notes.extend(settle(&mut host, &mut app));
    }
    let joined = notes.iter().filter(|note| note.contains("joined")).count();
    assert_eq!(joined, 7, "{notes:?}");
    // The eighth reaches the port and is closed before any handshake.
    let eighth = TcpStream::connect(("127.0.0.1", host.port())).unwrap();
    assert!(handshake::connect(eighth, &code).is_err());
    let notes = settle(&mut host, &mut app);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].ends_with("the session has its 7 peers"),
        "{notes:?}"
    );
    // Peers 1 to 7 each got their own number.
    let mut numbers: Vec<u32> = peers
        .iter_mut()
        .map(|channel| {
            channel
                .stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let welcome = channel.opener.read(&mut channel.stream).unwrap();
            match serde_json::from_slice(&welcome).unwrap() {
                HostMessage::Welcome { peer, .. } => peer,
                other => panic!("not a welcome: {other:?}"),
            }
        })
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=7).collect::<Vec<u32>>());
}

#[test]
fn garbage_before_the_handshake_and_another_version_are_refused_with_one_line() {
    let (mut host, mut app) = host();
    let mut http = TcpStream::connect(("127.0.0.1", host.port())).unwrap();
    http.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let notes = settle(&mut host, &mut app);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("refused") && notes[0].contains("not a holoterrain"),
        "{notes:?}"
    );

    // Not a wrong code: nothing for the next connection to wait out.
    let mut other = TcpStream::connect(("127.0.0.1", host.port())).unwrap();
    let mut hello = MAGIC.to_vec();
    hello.extend_from_slice(&(PROTOCOL_VERSION + 1).to_be_bytes());
    hello.extend_from_slice(&7u32.to_be_bytes());
    hello.extend_from_slice(&[0u8; 33]);
    write_frame(&mut other, &hello).unwrap();
    let notes = settle(&mut host, &mut app);
    assert_eq!(notes.len(), 1, "{notes:?}");
    let theirs = format!("protocol version {}", PROTOCOL_VERSION + 1);
    assert!(notes[0].contains(&theirs), "{notes:?}");
    // Nothing reached the app.
    let output = app.update(&empty_frame());
    assert!(output.commands.is_empty());
}

#[test]
fn repeated_wrong_codes_are_slowed_down() {
    let (host, _app) = host();
    let wrong = ShareCode::parse("7-guitar-orbits").unwrap();
    let attempt = || {
        let started = Instant::now();
        let stream = TcpStream::connect(("127.0.0.1", host.port())).unwrap();
        let result = handshake::connect(stream, &wrong);
        assert!(matches!(result, Err(HandshakeError::WrongCode)));
        started.elapsed()
    };
    let first = attempt();
    let _second = attempt();
    let third = attempt();
    assert!(first < Duration::from_millis(250), "{first:?}");
    // Two failures before it: 0.5 s of waiting.
    assert!(third >= Duration::from_millis(500), "{third:?}");
}

#[test]
fn an_oversized_frame_garbage_or_a_frame_out_of_order_closes_the_connection_and_changes_nothing() {
    for case in ["oversized", "garbage", "out of order", "placement"] {
        let (mut host, mut app) = host();
        let (mut channel, notes) = joined(&mut host, &mut app);
        assert!(notes[0].contains("peer 1 joined"), "{notes:?}");
        match case {
            "oversized" => {
                let header = ((MAX_FRAME_BYTES + 1) as u32).to_be_bytes();
                channel.stream.write_all(&header).unwrap();
            }
            "garbage" => channel
                .sealer
                .write(&mut channel.stream, b"{\"shout\": 1}")
                .unwrap(),
            "out of order" => {
                // Frame 1 sent where frame 0 is due.
                let _skipped = channel.sealer.seal(b"{\"bye\":null}");
                send(
                    &mut channel,
                    &PeerMessage::Command {
                        command: AppCommand::Undo,
                    },
                );
            }
            _ => send(
                &mut channel,
                &PeerMessage::Command {
                    command: AppCommand::ResetPlacement,
                },
            ),
        }
        let notes = settle(&mut host, &mut app);
        assert_eq!(notes.len(), 1, "{case}: {notes:?}");
        assert!(notes[0].starts_with("peer 1 kicked ("), "{case}: {notes:?}");
        assert!(
            notes[0].contains("closed its connection"),
            "{case}: {notes:?}"
        );
        assert_eq!(host.peers_connected(), 0);
        let output = app.update(&empty_frame());
        assert!(output.commands.is_empty(), "{case}: a command got through");
    }
}

#[test]
fn a_non_finite_or_unbounded_command_closes_that_peer_and_nothing_is_ordered() {
    let zero_turn = holoterrain::app::Placement {
        pose: Pose {
            position: glam::Vec3::new(0.0, 0.0, 0.3),
            orientation: glam::Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        },
        scale: 1.0,
    };
    let cases = [
        (
            PeerMessage::Command {
                command: AppCommand::Lift {
                    hand: None,
                    at: [0.5, 0.5],
                    height: 3.4e38,
                },
            },
            "sent a lift command that cannot apply: the lift's height",
        ),
        (
            PeerMessage::Command {
                command: AppCommand::Trace {
                    hand: None,
                    points: vec![[0.5, 0.5]; 4000],
                },
            },
            "sent a trace command that cannot apply: the trace has 4000 points, more than 64",
        ),
        (
            PeerMessage::Placement {
                relative: zero_turn,
            },
            "sent a placement that is not a pose",
        ),
    ];
    for (message, why) in cases {
        let (mut host, mut app) = host();
        let (mut channel, notes) = joined(&mut host, &mut app);
        assert!(notes[0].contains("peer 1 joined"), "{notes:?}");
        send(&mut channel, &message);
        let notes = settle(&mut host, &mut app);
        assert_eq!(notes.len(), 1, "{why}: {notes:?}");
        assert!(notes[0].starts_with("peer 1 kicked ("), "{notes:?}");
        assert!(notes[0].contains(why), "{notes:?}");
        assert!(notes[0].contains("closed its connection"), "{notes:?}");
        let output = app.update(&empty_frame());
        assert!(output.commands.is_empty(), "{why}: a command got through");
        assert!(app.heightmap().cells().iter().all(|h| h.is_finite()));
        assert_eq!(host.commands_ordered(), 0);
    }
}

#[test]
fn a_peers_scrubs_are_refused_once_with_a_line_and_move_nothing() {
    let mut table = Table::new(19);
    let mut hostile = Hostile::join(table.port(), CODE);
    for to in [0, 5, u64::MAX] {
        hostile
            .send(&PeerMessage::Command {
                command: AppCommand::Scrub { to },
            })
            .unwrap();
    }
    table.run_until("refused them", Duration::from_secs(10), |table| {
        !table.said("scrub").is_empty()
    });
    for _ in 0..10 {
        table.frame();
    }
    let said = table.said("scrub");
    assert_eq!(said.len(), 1, "{:#?}", table.notes);
    assert!(
        said[0].contains("refused peer 1's scrub, and its scrubs from now on"),
        "{said:?}"
    );
    assert_eq!(table.host.commands_ordered(), 0, "a scrub got through");
    // Still in the session: its lift is ordered.
    hostile
        .send(&PeerMessage::Command { command: lift(1) })
        .unwrap();
    table.run_until("ordered the lift", Duration::from_secs(10), |table| {
        table.host.commands_ordered() == 1
    });
    assert!(table.said("kicked").is_empty(), "{:#?}", table.notes);
    drop(hostile);
}

#[test]
fn a_flood_closes_the_connection_and_the_flooder_is_told_why() {
    for (message, count, why) in [
        (
            PeerMessage::Command {
                command: AppCommand::Undo,
            },
            20,
            "sent terrain commands faster than the bound of 10 at once and 3 a second",
        ),
        (
            PeerMessage::Head {
                position: [0.0, 1.6, 0.5],
                orientation: [0.0, 0.0, 0.0, 1.0],
            },
            200,
            "sent messages faster than the bound of 60 at once and 30 a second (checksums apart)",
        ),
    ] {
        let (mut host, mut app) = host();
        let port = host.port();
        let mut flooder = Hostile::join(port, CODE);
        for _ in 0..count {
            // The host may close the connection before the last is written.
            if flooder.send(&message).is_err() {
                break;
            }
        }
        let notes = settle(&mut host, &mut app);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("joined"), "{notes:?}");
        assert_eq!(
            notes[1],
            format!("peer 1 kicked ({why}; closed its connection)")
        );
        // The flooder hears it was closed, and why.
        let told = flooder.closing_reason(Duration::from_secs(10));
        assert_eq!(told.as_deref(), Some(why));
    }
}

#[test]
fn a_share_card_reads_back_as_the_code_at_its_stated_printed_size() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("card.png");
    let out = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["share-card", CODE, "--out"])
        .arg(&card)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("mm square when printed at 300 dpi"),
        "{stderr}"
    );

    let decoder = png::Decoder::new(std::io::BufReader::new(fs::File::open(&card).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let info = reader.info().clone();
    let dims = info.pixel_dims.expect("the card says its print size");
    assert_eq!((dims.xppu, dims.unit), (11_811, png::Unit::Meter));
    let mut pixels = vec![0u8; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut pixels).unwrap();
    let (width, height) = (info.width as usize, info.height as usize);
    let millimetres = width as f64 / 11_811.0 * 1000.0;
    assert!(
        stderr.contains(&format!("{} mm square", millimetres.round())),
        "{stderr}: {millimetres} mm"
    );
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(width, height, |x, y| pixels[y * width + x]);
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1);
    let (_, text) = grids[0].decode().unwrap();
    assert_eq!(text, format!("holoterrain:{CODE}"));

    // A code that is not one: one line, no file.
    let bad = dir.path().join("bad.png");
    let out = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["share-card", "7-guitar", "--out"])
        .arg(&bad)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: the share code `7-guitar`"),
        "{stderr}"
    );
    assert!(!bad.exists());
}

/// A host and its honest peers, each with its own app, run frame by frame
/// on this thread as platforms run them (60 Hz display times, as fast as
/// the machine goes); the host's command log kept as a run writes it.
struct Table {
    host: Host,
    app: Headset,
    start: LogStart,
    log: Vec<LogEntry>,
    frame: u64,
    peers: Vec<(Peer, Headset)>,
    /// The host's lines so far.
    notes: Vec<String>,
    /// How long each of the host's frames took (its session's part and its
    /// app's update).
    host_frames: Vec<Duration>,
    /// The slowest of them.
    slowest: Duration,
}

impl Table {
    /// A host of the demo terrain on a `size`² map.
    fn new(size: usize) -> Table {
        let start = LogStart::demo(1, size, size);
        let host = Host::start(ShareCode::parse(CODE).unwrap(), 0, start.clone()).unwrap();
        let app = Headset::in_session(&start, Role::Host);
        Table {
            host,
            app,
            start,
            log: Vec::new(),
            frame: 0,
            peers: Vec::new(),
            notes: Vec::new(),
            host_frames: Vec::new(),
            slowest: Duration::ZERO,
        }
    }

    fn port(&self) -> u16 {
        self.host.port()
    }

    /// An honest peer joins (the real `Peer`, as `--join` makes it); how
    /// long joining took.
    fn join(&mut self) -> Duration {
        let target = JoinTarget::parse(&format!("{CODE}@127.0.0.1:{}", self.port()), 0).unwrap();
        let started = Instant::now();
        let (peer, start) = Peer::join(&target).unwrap();
        let took = started.elapsed();
        assert_eq!(start, self.start);
        self.peers
            .push((peer, Headset::in_session(&start, Role::Peer)));
        took
    }

    /// One frame of every headset at the table.
    fn frame(&mut self) {
        let began = Instant::now();
        self.host.before_frame(&mut self.app.incoming);
        let input = frame_at(self.frame);
        let output = self.app.update(&input);
        self.host.after_frame(&output);
        self.host_frames.push(began.elapsed());
        self.slowest = self.slowest.max(began.elapsed());
        self.log.extend(
            output
                .commands
                .iter()
                .map(|applied| LogEntry::new(applied, self.frame, input.display_time_ns)),
        );
        self.notes.extend(self.host.take_notes());
        for (peer, app) in &mut self.peers {
            peer.before_frame(&mut app.incoming);
            let output = app.update(&input);
            peer.after_frame(&output);
        }
        self.frame += 1;
    }

    /// Runs frames (a few milliseconds apart, for the network's threads)
    /// until `done` holds, or fails after `patience` naming `what`.
    fn run_until(&mut self, what: &str, patience: Duration, done: impl Fn(&Table) -> bool) {
        let started = Instant::now();
        while !done(self) {
            assert!(
                started.elapsed() < patience,
                "never {what} within {patience:?}: host at {} of {} iterations, {} ordered; peers at {:?}; {:#?}",
                self.app.iterations_done(),
                self.app.iterations_total(),
                self.host.commands_ordered(),
                self.peers
                    .iter()
                    .map(|(peer, app)| (
                        peer.commands_ordered(),
                        app.iterations_done(),
                        peer.host_left()
                    ))
                    .collect::<Vec<_>>(),
                self.notes
            );
            self.frame();
            thread::sleep(Duration::from_millis(2));
        }
    }

    /// Lines of the host's holding `text`.
    fn said(&self, text: &str) -> Vec<&String> {
        self.notes
            .iter()
            .filter(|note| note.contains(text))
            .collect()
    }

    /// Runs until the host has grown its seed to the end and every honest
    /// peer has all its commands and growth, then checks that they are
    /// level: the same heights bit for bit, every one finite, every
    /// checksum matched, and the host's log replaying into its terrain.
    fn assert_level(&mut self) {
        self.run_until("level", Duration::from_secs(60), |table| {
            let app = &table.app;
            app.iterations_done() == app.iterations_total()
                && table.peers.iter().all(|(peer, peer_app)| {
                    peer.commands_ordered() == table.host.commands_ordered()
                        && peer_app.iterations_done() == app.iterations_done()
                })
        });
        self.app.settle_edits();
        let ours = self.app.heightmap().cells().to_vec();
        assert!(ours.iter().all(|height| height.is_finite()));
        for (peer, app) in &mut self.peers {
            let left = peer.host_left().map(str::to_owned);
            assert_eq!(left, None, "{:?}", peer.take_notes());
            app.settle_edits();
            let theirs = app.heightmap().cells();
            assert!(
                ours.iter()
                    .zip(theirs)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "peer {} ended with other heights than the host",
                peer.id()
            );
        }
        let log = CommandLog {
            start: self.start.clone(),
            entries: self.log.clone(),
            end: Some(LogEnd {
                frame: self.frame,
                iteration: self.app.iterations_done(),
            }),
        };
        // Through its text, as `generate --replay` reads it.
        let replayed = CommandLog::parse(&log.to_jsonl())
            .unwrap()
            .replay_offline()
            .unwrap();
        assert!(
            replayed
                .heightmap()
                .cells()
                .iter()
                .zip(&ours)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "the host's log does not replay into its terrain"
        );
        assert!(self.said("differs").is_empty(), "{:#?}", self.notes);
    }

    /// The host's report, once it has said goodbye.
    fn finish(self) -> (holoterrain::net::ShareReport, Vec<String>) {
        let Table {
            host, peers, notes, ..
        } = self;
        for (peer, _) in peers {
            peer.finish();
        }
        (host.finish().0, notes)
    }
}

/// A lift of the host's wearer's, at a place that moves with `n`.
fn lift(n: u64) -> AppCommand {
    AppCommand::Lift {
        hand: None,
        at: [0.2 + (n % 7) as f32 * 0.1, 0.3 + (n % 5) as f32 * 0.1],
        height: if n.is_multiple_of(2) { 0.05 } else { -0.03 },
    }
}

#[test]
fn a_joiner_joins_while_200_connections_are_held_open_and_one_drips_bytes() {
    let mut table = Table::new(33);
    let port = table.port();
    let held = support::hostile::hold(port, 200);
    let stop = Arc::new(AtomicBool::new(false));
    let drip = support::hostile::drip_hello(port, Duration::from_millis(200), stop.clone());
    // The host's frames go on while the joiner joins from another thread.
    let joining = thread::spawn(move || {
        let target = JoinTarget::parse(&format!("{CODE}@127.0.0.1:{port}"), 0).unwrap();
        let started = Instant::now();
        let joined = Peer::join(&target).map(|(peer, start)| (peer, start, started.elapsed()));
        joined.map_err(|error| error.to_string())
    });
    table.run_until("joined", Duration::from_secs(30), |table| {
        table.host.peers_connected() == 1
    });
    let (peer, start, took) = joining.join().unwrap().unwrap();
    eprintln!(
        "joined in {} ms with 200 connections held open and one dripping bytes",
        took.as_millis()
    );
    // The goal is 2 s; a busy 2-core machine is allowed more.
    assert!(took < Duration::from_secs(10), "{took:?}");
    table
        .peers
        .push((peer, Headset::in_session(&start, Role::Peer)));

    // The dripping connection is cut at the handshake's deadline, not held
    // for ever, and says so.
    table.run_until(
        "cut the dripping connection",
        Duration::from_secs(30),
        |_| drip.is_finished(),
    );
    let cut_after = drip.join().unwrap().expect("the host closed it");
    assert!(cut_after < Duration::from_secs(20), "{cut_after:?}");
    table.run_until("said the timeout", Duration::from_secs(10), |table| {
        !table
            .said("did not finish within 10 s (timed out)")
            .is_empty()
    });
    assert!(
        !table.said("to make room for").is_empty(),
        "{:#?}",
        table.notes
    );
    // Hundreds of connections cost the log a few lines a second, not one each.
    assert!(table.notes.len() < 100, "{} lines", table.notes.len());
    drop(held);
    // Once they are gone, nothing of them is charged to the next joiner.
    let again = table.join();
    assert!(again < Duration::from_secs(10), "{again:?}");

    for n in 0..3 {
        table.app.submit(lift(n));
        table.frame();
    }
    table.assert_level();
    stop.store(true, Ordering::SeqCst);
}

#[test]
fn a_silent_peer_and_a_dripping_one_are_gone_after_the_idle_timeout_and_their_slots_freed() {
    let mut table = Table::new(17);
    table.join();
    let silent = Hostile::join(table.port(), CODE);
    let mut dripping = Hostile::join(table.port(), CODE);
    table.run_until("three peers", Duration::from_secs(10), |table| {
        table.host.peers_connected() == 3
    });
    // One says nothing at all; the other sends a message a byte at a time,
    // quickly enough for any timeout of a single read.
    let drip = thread::spawn(move || {
        let cut = dripping.drip(
            &PeerMessage::Head {
                position: [0.0, 1.6, 0.5],
                orientation: [0.0, 0.0, 0.0, 1.0],
            },
            Duration::from_millis(300),
        );
        (cut, dripping)
    });
    table.run_until("dropped both", Duration::from_secs(30), |table| {
        table.host.peers_connected() == 1
    });
    assert_eq!(
        table.said("left (nothing came for 5 s (timed out))").len(),
        1,
        "{:#?}",
        table.notes
    );
    assert_eq!(
        table
            .said("left (a message took longer than 5 s to come (timed out))")
            .len(),
        1,
        "{:#?}",
        table.notes
    );
    assert!(
        table.said("Resource temporarily").is_empty(),
        "{:#?}",
        table.notes
    );
    let (cut, _dripping) = drip.join().unwrap();
    assert!(cut, "the host let the dripping peer finish its message");
    // The honest peer, silent too while its wearer does nothing, stays:
    // its heartbeats keep it in.
    table.app.submit(lift(1));
    table.frame();
    table.assert_level();
    // A slot freed is a slot taken again.
    table.join();
    table.assert_level();
    drop(silent);
}

#[test]
fn a_peer_that_never_reads_is_dropped_and_no_frame_waits_for_it() {
    let mut table = Table::new(33);
    table.join();
    let mut deaf = Hostile::join(table.port(), CODE);
    let deaf_peer = deaf.peer;
    // The host's wearer traces a long stroke every frame: ordered commands
    // of a couple of kilobytes each fill what the deaf peer never reads.
    let stroke: Vec<[f32; 2]> = (0..64)
        .map(|i| {
            [
                0.1 + i as f32 * 0.012_345_678,
                0.5 - i as f32 * 0.003_456_789,
            ]
        })
        .collect();
    let started = Instant::now();
    let left = format!("peer {deaf_peer} left");
    while table.said(&left).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "never dropped: {:#?}",
            table.notes
        );
        table.app.submit(AppCommand::Trace {
            hand: None,
            points: stroke.clone(),
        });
        table.frame();
        // It says it is there, so only its not reading can drop it.
        deaf.keep_alive();
    }
    eprintln!(
        "the peer that never reads was dropped after {:.1} s; the host's slowest frame took {} ms",
        started.elapsed().as_secs_f64(),
        table.slowest.as_millis()
    );
    let line = &table.said(&left)[0];
    assert!(line.contains("took in nothing"), "{line}");
    // Generous: what matters is that no frame waited for its writes (5 s).
    assert!(
        table.slowest < Duration::from_secs(1),
        "{:?}",
        table.slowest
    );
    table.assert_level();
}

#[test]
fn a_late_joiner_of_a_session_at_its_history_bound_catches_up_unkicked_and_peers_commands_are_refused()
 {
    let mut table = Table::new(17);
    // The host's wearer orders the most the history keeps for peers, a
    // hundred a frame: lifts and their undos, so that no edit piles up.
    let bound = holoterrain::net::session::MAX_HISTORY;
    let mut made = 0;
    while made < bound {
        for _ in 0..100 {
            table.app.submit(if made % 2 == 0 {
                lift(made)
            } else {
                AppCommand::Undo
            });
            made += 1;
        }
        table.frame();
    }
    table.run_until("ordered them all", Duration::from_secs(60), |table| {
        table.host.commands_ordered() == bound
    });
    // A peer's command now is refused, with one line, and changes nothing;
    // the peer stays.
    let mut hostile = Hostile::join(table.port(), CODE);
    for _ in 0..3 {
        hostile
            .send(&PeerMessage::Command { command: lift(1) })
            .unwrap();
    }
    table.run_until("refused it", Duration::from_secs(10), |table| {
        !table.said("refuses its terrain commands").is_empty()
    });
    for _ in 0..10 {
        table.frame();
    }
    assert_eq!(table.host.commands_ordered(), bound);
    assert_eq!(table.said("refuse").len(), 1, "{:#?}", table.notes);
    assert_eq!(table.host.peers_connected(), 1);
    // A joiner late by all of them gets them, answers each with its
    // checksum far faster than any peer may send its own messages, and is
    // not taken for a flood.
    table.join();
    table.assert_level();
    assert!(table.said("kicked").is_empty(), "{:#?}", table.notes);
    eprintln!(
        "the history of {bound} commands holds {} bytes",
        table.host.history_bytes()
    );
    let (report, _) = table.finish();
    assert_eq!(report.checksums_matched, bound);
    drop(hostile);
}

#[test]
fn two_peers_whose_wearers_work_fast_stay_and_every_command_is_ordered() {
    let mut table = Table::new(17);
    table.join();
    table.join();
    // Each wearer makes twenty commands at once: more than the host takes
    // at once from a peer, so each peer holds its own back to the pace the
    // host allows, while the other's checksums of them come too.
    for (_, app) in &mut table.peers {
        for n in 0..20 {
            app.submit(lift(n));
        }
    }
    table.run_until("ordered all forty", Duration::from_secs(60), |table| {
        table.host.commands_ordered() == 40
    });
    assert!(table.said("kicked").is_empty(), "{:#?}", table.notes);
    assert!(table.said("left").is_empty(), "{:#?}", table.notes);
    table.assert_level();
}

#[test]
fn a_flooders_wrong_checksums_are_not_taken_for_a_platforms_and_bad_checksums_close_a_peer() {
    let mut table = Table::new(17);
    table.join();
    for n in 0..3 {
        table.app.submit(lift(n));
        table.frame();
    }
    // Wrong checksums, then a flood: closed for the flood, and its
    // checksums are not a headset that grows other terrain.
    let mut flooder = Hostile::join(table.port(), CODE);
    for seq in 0..3 {
        flooder
            .send(&PeerMessage::Checksum { seq, checksum: 7 })
            .unwrap();
    }
    for _ in 0..20 {
        if flooder
            .send(&PeerMessage::Command { command: lift(9) })
            .is_err()
        {
            break;
        }
    }
    let flooder_number = flooder.peer;
    table.run_until("kicked the flooder", Duration::from_secs(10), |table| {
        !table
            .said(&format!("peer {flooder_number} kicked"))
            .is_empty()
    });
    // A checksum for a command not ordered, and one out of order.
    let mut early = Hostile::join(table.port(), CODE);
    early
        .send(&PeerMessage::Checksum {
            seq: 99,
            checksum: 7,
        })
        .unwrap();
    let mut twice = Hostile::join(table.port(), CODE);
    for seq in [1, 0] {
        twice
            .send(&PeerMessage::Checksum { seq, checksum: 7 })
            .unwrap();
    }
    let (early_number, twice_number) = (early.peer, twice.peer);
    table.run_until("kicked both", Duration::from_secs(10), |table| {
        table.said("kicked").len() == 3
    });
    assert_eq!(
        table
            .said(&format!(
                "peer {early_number} kicked (sent a checksum for shared command 99, not ordered yet"
            ))
            .len(),
        1
    );
    assert_eq!(
        table
            .said(&format!(
                "peer {twice_number} kicked (sent a checksum for shared command 0 after one for 1"
            ))
            .len(),
        1
    );
    // Wait out the grace a mismatch's line is held for.
    let waited = Instant::now();
    table.run_until("a second", Duration::from_secs(10), |_| {
        waited.elapsed() > Duration::from_millis(1500)
    });
    assert!(table.said("bit-identical").is_empty(), "{:#?}", table.notes);
    table.assert_level();
    // What peers closed for misbehaving claimed is not counted either.
    let (report, _) = table.finish();
    assert_eq!(report.checksum_mismatches.len(), 0, "{report:?}");
}

#[test]
fn a_peer_that_lies_in_its_checksums_is_said_once_without_blaming_a_platform() {
    let mut table = Table::new(17);
    for n in 0..3 {
        table.app.submit(lift(n));
        table.frame();
    }
    let mut liar = Hostile::join(table.port(), CODE);
    for seq in 0..3 {
        liar.send(&PeerMessage::Checksum { seq, checksum: 7 })
            .unwrap();
    }
    table.run_until("said it", Duration::from_secs(10), |table| {
        !table.said("differs").is_empty()
    });
    let lines = table.said("differs");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("does not grow bit-identical terrain, or sent a wrong checksum"),
        "{lines:?}"
    );
    let (report, _) = table.finish();
    assert_eq!(report.checksum_mismatches.len(), 3);
}

#[test]
fn a_hostile_hosts_welcome_too_big_or_never_sent_and_its_kick_are_one_line_each() {
    let target = |port: u16| JoinTarget::parse(&format!("{CODE}@127.0.0.1:{port}"), 0).unwrap();
    // A map no headset can hold: refused before anything is made for it.
    let port = support::hostile::fake_host(CODE, |mut channel| {
        let huge = LogStart::demo(1, 16384, 16384);
        support::hostile::host_says(
            &mut channel,
            &HostMessage::Welcome {
                peer: 1,
                start: Box::new(huge),
            },
        );
        support::hostile::linger(channel, Duration::from_secs(5));
    });
    let error = Peer::join(&target(port)).err().unwrap().to_string();
    assert_eq!(
        error,
        format!(
            "joining 127.0.0.1:{port} failed: the host's welcome: the map is 16384x16384 samples; each side must be 2 to 8193"
        )
    );
    // A host that finishes the handshake and says nothing.
    let port = support::hostile::fake_host(CODE, |channel| {
        support::hostile::linger(channel, Duration::from_secs(20));
    });
    let started = Instant::now();
    let error = Peer::join(&target(port)).err().unwrap().to_string();
    assert_eq!(
        error,
        format!(
            "joining 127.0.0.1:{port} failed: the host finished the handshake but sent no welcome within 10 s (timed out)"
        )
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    // A kick says kicked and why, and the peer does not come back.
    let port = support::hostile::fake_host(CODE, |mut channel| {
        let start = LogStart::demo(1, 9, 9);
        for message in [
            HostMessage::Welcome {
                peer: 1,
                start: Box::new(start),
            },
            HostMessage::Closing {
                why: "sent messages faster than the bound".into(),
            },
        ] {
            support::hostile::host_says(&mut channel, &message);
        }
        support::hostile::linger(channel, Duration::from_secs(5));
    });
    let (mut peer, start) = Peer::join(&target(port)).unwrap();
    let mut app = Headset::in_session(&start, Role::Peer);
    let waited = Instant::now();
    while peer.host_left().is_none() && waited.elapsed() < Duration::from_secs(10) {
        peer.before_frame(&mut app.incoming);
        thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        peer.host_left(),
        Some("kicked: this peer sent messages faster than the bound")
    );
    let notes = peer.take_notes();
    assert_eq!(
        notes.last().unwrap(),
        "the host closed this peer's connection (kicked: this peer sent messages faster than the bound); keeping the terrain as it left it"
    );
    assert!(
        !notes
            .iter()
            .any(|note| note.contains("trying to reach it again"))
    );
}

/// The process's resident memory, kilobytes (Linux).
fn resident_kb() -> Option<u64> {
    fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// The guesses one address gets at a host's code: wrong codes sent as
/// fast as the host takes them, eight connections at a time, counted as
/// the host judges them (a connection refused before its verdict learns
/// nothing, though its end cannot tell) (docs/shared.md, "What an attacker
/// on the network can and cannot do"). Minutes long:
/// `GUESS_SECONDS=180 cargo test --test shared -- --ignored --nocapture measure_code_guesses`.
#[test]
#[ignore]
fn measure_code_guesses_one_address_gets() {
    let (mut host, mut app) = host();
    let port = host.port();
    let wrong = ShareCode::parse("7-guitar-orbits").unwrap();
    let seconds: u64 = std::env::var("GUESS_SECONDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(180);
    let started = Instant::now();
    let guessers: Vec<_> = (0..8)
        .map(|_| {
            let wrong = wrong.clone();
            thread::spawn(move || {
                let mut attempts = 0u64;
                while started.elapsed() < Duration::from_secs(seconds) {
                    attempts += 1;
                    if let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) {
                        let _ = handshake::connect(stream, &wrong);
                    }
                }
                attempts
            })
        })
        .collect();
    let mut judged = Vec::new();
    while !guessers.iter().all(|guesser| guesser.is_finished()) {
        host.before_frame(&mut app.incoming);
        host.take_notes();
        while (judged.len() as u64) < host.wrong_codes() {
            judged.push(started.elapsed());
        }
        thread::sleep(Duration::from_millis(10));
    }
    let attempts: u64 = guessers.into_iter().map(|g| g.join().unwrap()).sum();
    let gaps: Vec<f64> = judged
        .windows(2)
        .map(|pair| ((pair[1] - pair[0]).as_secs_f64() * 100.0).round() / 100.0)
        .collect();
    let last_gap = gaps.last().copied().unwrap_or(f64::NAN);
    eprintln!(
        "{} wrong codes judged in {seconds} s from one address ({attempts} connections tried, eight at a time); gaps between them {gaps:?} s; at the last gap, {:.0} guesses an hour",
        judged.len(),
        3600.0 / last_gap
    );
    assert!(judged.len() >= 2);
}

/// What an hour of a session costs the host's memory when all seven
/// peers send the longest strokes as fast as they may, and the host's
/// frame meanwhile (docs/shared.md, "What an attacker on the network can
/// and cannot do"). A minute long by default:
/// `cargo test --test shared -- --ignored --nocapture measure_memory`.
#[test]
#[ignore]
fn measure_memory_an_hour_of_session_costs_the_host() {
    let seconds: u64 = std::env::var("MEMORY_SECONDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(60);
    let mut table = Table::new(65);
    table.join();
    let mut peers: Vec<Hostile> = (0..6).map(|_| Hostile::join(table.port(), CODE)).collect();
    peers.iter().for_each(Hostile::drain_in_background);
    table.run_until("seven peers", Duration::from_secs(10), |table| {
        table.host.peers_connected() == 7
    });
    let longest = -0.000_123_456_79_f32;
    let stroke = AppCommand::Trace {
        hand: Some(holoterrain::input::Hand::Right),
        points: vec![[longest, longest]; holoterrain::app::command::MAX_TRACE_POINTS],
    };
    let every = Duration::from_secs_f64(1.0 / holoterrain::net::protocol::PEER_COMMANDS_PER_SECOND);
    let (memory_before, started) = (resident_kb(), Instant::now());
    let frames_before = table.host_frames.len();
    let mut sent = vec![Instant::now() - every; peers.len()];
    let mut honest_sent = Instant::now() - every;
    let mut frame_due = Instant::now();
    // (seconds, history bytes, resident memory grown in kB), each minute.
    let mut series = Vec::new();
    let mut next_minute = started + Duration::from_secs(60);
    while started.elapsed() < Duration::from_secs(seconds) {
        if Instant::now() >= next_minute {
            next_minute += Duration::from_secs(60);
            series.push((
                started.elapsed().as_secs(),
                table.host.history_bytes(),
                resident_kb()
                    .zip(memory_before)
                    .map(|(now, before)| now as i64 - before as i64),
            ));
        }
        for (peer, last) in peers.iter_mut().zip(&mut sent) {
            if last.elapsed() >= every {
                *last = Instant::now();
                peer.send(&PeerMessage::Command {
                    command: stroke.clone(),
                })
                .unwrap();
            }
            if table.frame.is_multiple_of(6) {
                peer.send(&PeerMessage::Head {
                    position: [0.0, 1.6, 0.5],
                    orientation: [0.0, 0.0, 0.0, 1.0],
                })
                .unwrap();
            }
        }
        if honest_sent.elapsed() >= every {
            honest_sent = Instant::now();
            table.peers[0].1.submit(stroke.clone());
        }
        table.frame();
        // A 60 Hz frame loop; the hostile peers read nothing.
        frame_due += Duration::from_micros(16_667);
        thread::sleep(frame_due.saturating_duration_since(Instant::now()));
    }
    let elapsed = started.elapsed().as_secs_f64();
    let grown_kb = resident_kb()
        .zip(memory_before)
        .map(|(after, before)| after as i64 - before as i64);
    let mut frame_times = table.host_frames[frames_before..].to_vec();
    frame_times.sort();
    let p95 = frame_times[frame_times.len() * 95 / 100];
    let ordered = table.host.commands_ordered();
    let history = table.host.history_bytes();
    eprintln!(
        "{ordered} commands ordered in {elapsed:.0} s from 7 peers at the bound; history {history} bytes ({} a command); resident memory grew {grown_kb:?} kB; per hour at this pace {:.0} MB of history until the bound of {} commands ({:.0} s); host frame (session and update) p95 {:.2} ms, slowest {:.2} ms, at 65x65; kicked: {}",
        history / ordered.max(1) as usize,
        history as f64 / elapsed * 3600.0 / 1e6,
        holoterrain::net::session::MAX_HISTORY,
        holoterrain::net::session::MAX_HISTORY as f64 / (ordered as f64 / elapsed),
        p95.as_secs_f64() * 1e3,
        table.slowest.as_secs_f64() * 1e3,
        table.said("kicked").len()
    );
    eprintln!("each minute (seconds, history bytes, resident kB grown): {series:?}");
    assert!(table.said("kicked").is_empty(), "{:#?}", table.notes);
}
