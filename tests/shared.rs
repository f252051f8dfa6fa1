//! Shared sessions on loopback and on a local network the test makes (two network namespaces): simulators hosting and joining by code (the `holoterrain` binary, as a person runs it), a peer whose link drops reaching its host again, a joiner finding its host by DNS-SD, and the host's handling of wrong codes, garbage, oversized frames, another protocol version and floods (through `holoterrain::net`).
mod support {
    pub mod ci;
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

use holoterrain::app::log::LogStart;
use holoterrain::app::{
    App, AppConfig, Command as AppCommand, EyeView, Fov, FrameInput, FrameOutput, HandInput, Kept,
    SessionIn,
};
use holoterrain::input::Pose;
use holoterrain::net::frame::{MAX_FRAME_BYTES, write_frame};
use holoterrain::net::handshake::{self, HandshakeError, MAGIC};
use holoterrain::net::protocol::{HostMessage, PROTOCOL_VERSION, PeerMessage};
use holoterrain::net::{Host, ShareCode};
use serde_json::Value;
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

const HOST_SCRIPT: &str = "\
0.5 airtap right
1.5 say next landscape
2.2 trace right 0.5 0.1 0.45 0.5 0.3 0.9 0.45
3.4 say undo
";

const PEER_SCRIPT: &str = "\
0.9 airtap left
1.9 lift left 0.5 0.5 0.5 0.05
2.9 say undo
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
        6,
        &format!("0 wait peers 1\n{HOST_SCRIPT}3.5 wait ordered 7\n"),
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
fn a_late_joiner_catches_up_and_ends_level_with_the_host() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    // All the host's commands but its undo are made before the joiner
    // comes: the host then waits for it, and undoes once it is in.
    let (host_script, undo) = HOST_SCRIPT.split_at(HOST_SCRIPT.find("3.4").unwrap());
    let (host, host_out) = sim(
        dir.path(),
        "host",
        6,
        &format!("{host_script}3.0 wait peers 1\n{undo}"),
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
    // hosts; the peer's air-tap and the host's undo come after the join
    // (the host waits for the air-tap), and the host ends 2 s after its
    // undo, having heard the peer's checksums.
    let (host, host_out) = sim(
        dir.path(),
        "host",
        6,
        "0.5 airtap right\n1.0 lift right 0.5 0.5 0.5 0.05\n1.6 palm left 1.5\n2.2 press share session poke\n3.3 wait peers 1\n3.3 wait ordered 3\n3.8 say undo\n",
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
        "1.0 airtap left\n1.5 wait ordered 4\n1.5 wait alone\n",
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
    // The host undoes once it has the peer's two commands (the second made
    // while the link is down), and ends 2 s later.
    let (host, host_out) = sim(
        dir.path(),
        "host",
        5,
        "0 wait peers 1\n0.5 airtap right\n2.0 say next landscape\n2.5 wait ordered 4\n3.0 say undo\n",
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
        "1.0 head 1.6 1.55 0.1 1.2 0.72 -1.0\n3.5 say bigger\n3.6 wait alone\n",
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
        display_time_ns: 0,
        head: None,
        hands: [HandInput::default(); 2],
        views: [view; 2],
        hologram_located: None,
        visible: true,
        surfaces: None,
        markers: None,
        kept: Kept::None,
        voice: None,
        shared: Vec::new(),
    }
}

/// The host's app, with what its session brought for its next frame.
struct Headset {
    app: App,
    incoming: Vec<SessionIn>,
}

impl Headset {
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

/// A host on loopback (no simulator) and an app for its frames.
fn host() -> (Host, Headset) {
    let start = LogStart::demo(1, 9, 9);
    let host = Host::start(ShareCode::parse(CODE).unwrap(), 0, start).unwrap();
    let app = App::new(AppConfig::hololens_demo(9, 9, 1)).unwrap();
    let incoming = Vec::new();
    (host, Headset { app, incoming })
}

/// Lets the host's threads work, then its frame loop take what they found;
/// the lines it logged.
fn settle(host: &mut Host, app: &mut Headset) -> Vec<String> {
    thread::sleep(Duration::from_millis(300));
    host.before_frame(&mut app.incoming);
    host.take_notes()
}

/// A joiner that proved the code and read the welcome (which the host's
/// frame loop sends); the host's lines.
fn joined(host: &mut Host, app: &mut Headset) -> (handshake::Channel, Vec<String>) {
    let stream = TcpStream::connect(("127.0.0.1", host.port())).unwrap();
    let mut channel = handshake::connect(stream, &ShareCode::parse(CODE).unwrap()).unwrap();
    let notes = settle(host, app);
    channel
        .stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let welcome = channel.opener.read(&mut channel.stream).unwrap();
    let welcome: HostMessage = serde_json::from_slice(&welcome).unwrap();
    assert!(matches!(welcome, HostMessage::Welcome { peer: 1, .. }));
    (channel, notes)
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
    // The handshakes run one after another: wait for all seven.
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

    // After one failure the host waits 0.25 s before the next handshake.
    let mut other = TcpStream::connect(("127.0.0.1", host.port())).unwrap();
    let mut hello = MAGIC.to_vec();
    hello.extend_from_slice(&(PROTOCOL_VERSION + 1).to_be_bytes());
    hello.extend_from_slice(&7u32.to_be_bytes());
    hello.extend_from_slice(&[0u8; 33]);
    write_frame(&mut other, &hello).unwrap();
    thread::sleep(Duration::from_millis(300));
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
        assert!(notes[0].starts_with("peer 1 left ("), "{case}: {notes:?}");
        assert!(
            notes[0].contains("closed its connection"),
            "{case}: {notes:?}"
        );
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
        assert!(notes[0].starts_with("peer 1 left ("), "{notes:?}");
        assert!(notes[0].contains(why), "{notes:?}");
        assert!(notes[0].contains("closed its connection"), "{notes:?}");
        let output = app.update(&empty_frame());
        assert!(output.commands.is_empty(), "{why}: a command got through");
        assert!(app.heightmap().cells().iter().all(|h| h.is_finite()));
        assert_eq!(host.commands_ordered(), 0);
    }
}

#[test]
fn a_flood_closes_the_connection() {
    let (mut host, mut app) = host();
    let (mut channel, _) = joined(&mut host, &mut app);
    let undo = serde_json::to_vec(&PeerMessage::Command {
        command: AppCommand::Undo,
    })
    .unwrap();
    for sent in 0..100 {
        // The host may close the connection before the last is written.
        if let Err(error) = channel.sealer.write(&mut channel.stream, &undo) {
            assert!(sent > 60, "cut off after only {sent} messages: {error}");
            break;
        }
    }
    let notes = settle(&mut host, &mut app);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("faster than the bound"), "{notes:?}");
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
