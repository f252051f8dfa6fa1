//! The two ends of a shared session on the frame loop: the [`Host`], which listens, orders the terrain commands and tells its peers; the [`Peer`], which joins and follows.
//!
//! Each connection has a thread that reads, opens and checks its frames
//! and hands what it read to the frame loop over a channel; the frame loop
//! writes (small frames, the kernel's buffer takes them at once, a write
//! that blocks past [`super::handshake::WRITE_TIMEOUT`] counts as the other
//! end gone). Anything wrong on a connection — garbage, a frame too big or
//! out of order, a message out of turn, a flood — closes that connection
//! with one line in [`Host::take_notes`] / [`Peer::take_notes`] and changes
//! nothing else. A peer whose link merely drops (closed or reset without
//! the host's goodbye) tries to reach the host again with back-off
//! ([`reconnect_delay`], for up to [`RECONNECT_PATIENCE`]) before it goes on
//! alone. The host's accepting thread runs the handshakes one after
//! another and, after a failed one, waits longer before the next (0.25 s,
//! doubling to 4 s), so codes cannot be guessed quickly.
use std::collections::{BTreeMap, HashMap};
use std::io::{self, ErrorKind};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;
use thiserror::Error;

use super::code::ShareCode;
use super::frame::{FrameError, Opener, Sealer};
use super::handshake::{self, Channel, HandshakeError};
use super::protocol::{HeadAt, HostMessage, PeerMessage, RateLimit, head_pose};
use crate::app::log::{CommandLog, LogStart};
use crate::app::{Command, FrameOutput, Ordered, Origin, SessionIn, Step};
use crate::input::Pose;

/// Most peers one host takes (eight headsets with the host's).
pub const MAX_PEERS: usize = 7;
/// How long a joiner keeps trying to reach a host that is not listening yet.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(10);
/// How often heads are sent (each peer's to the host, everyone's from it).
pub const HEADS_EVERY: Duration = Duration::from_millis(100);
/// The longest a host waits before a handshake after failed ones.
pub const MAX_FAILURE_DELAY: Duration = Duration::from_secs(4);

/// What a shared session did, for the run's report.
#[derive(Debug, Clone, Serialize)]
pub struct ShareReport {
    /// `host` or `peer`.
    pub role: &'static str,
    /// The session's code.
    pub code: String,
    /// The host's port (the host's own, or the one joined).
    pub port: u16,
    /// A peer's number, given by the host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<u32>,
    /// Terrain commands in the shared order (a peer: those it received).
    pub commands_ordered: u64,
    /// Peers' checksums that matched the host's (a peer: checksums sent).
    pub checksums_matched: u64,
    /// Peers' checksums that did not.
    pub checksum_mismatches: Vec<Mismatch>,
    /// When each shared command was ordered (the host) or handed to this
    /// peer's app, which applies it in the same frame: how fast commands
    /// travel (docs/performance.md).
    pub timings: Vec<Timing>,
    /// A peer's wearer's terrain commands, when each was sent to the host
    /// (milliseconds of the Unix epoch), in order.
    pub sent_unix_ms: Vec<u64>,
    /// A peer: how long after its first frame in the session it had grown
    /// as far as the host had when it joined, milliseconds (the late
    /// joiner's catching up).
    pub level_after_ms: Option<u64>,
}

/// When a shared command reached a headset.
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    /// Its number in the shared order.
    pub seq: u64,
    /// Milliseconds of the Unix epoch.
    pub unix_ms: u64,
}

/// Now, in milliseconds of the Unix epoch (0 on a clock set before 1970).
fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

/// A peer's heights that differed from the host's at a command.
#[derive(Debug, Clone, Serialize)]
pub struct Mismatch {
    /// The peer.
    pub peer: u32,
    /// The ordered command's number.
    pub seq: u64,
    /// The host's checksum and the peer's.
    pub host: u64,
    pub theirs: u64,
}

/// Who took part, as the report lists them (a peer lists the host as 0).
#[derive(Debug, Clone, Serialize)]
pub struct PeerRecord {
    /// Its number.
    pub peer: u32,
    /// Where it connected from (or, for the host, where it was).
    pub address: String,
    /// Why it is gone, if it is.
    pub left: Option<String>,
}

/// Sealed JSON messages out, on one connection.
struct Writer {
    stream: TcpStream,
    sealer: Sealer,
}

impl Writer {
    fn send<T: Serialize>(&mut self, message: &T) -> Result<(), FrameError> {
        // Messages are plain data: serialising cannot fail.
        let json = serde_json::to_vec(message).expect("a message serialises");
        self.sealer.write(&mut self.stream, &json)
    }
}

/// What the host's threads tell its frame loop.
enum HostEvent {
    Joined {
        peer: u32,
        address: SocketAddr,
        writer: Writer,
    },
    Message {
        peer: u32,
        message: PeerMessage,
    },
    Left {
        peer: u32,
        why: String,
    },
    Refused(String),
}

/// The hosting end.
pub struct Host {
    code: ShareCode,
    port: u16,
    start: LogStart,
    events: Receiver<HostEvent>,
    peers: Vec<(u32, Writer)>,
    connected: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    /// Every ordered command so far, for late joiners.
    history: Vec<HostMessage>,
    /// Everyone's heads relative to the card, by number (the host's is 0).
    heads: BTreeMap<u32, Pose>,
    /// When the heads were last sent.
    heads_sent: Option<Instant>,
    /// Everyone's heads as last sent, for the host's own app's next frame.
    heads_in: Option<Vec<(u32, Pose)>>,
    /// Its DNS-SD advertisement, withdrawn when it stops hosting.
    #[cfg(not(target_vendor = "uwp"))]
    advertisement: Option<super::discovery::Advertisement>,
    /// The hologram's placement relative to the card as last passed on,
    /// for late joiners.
    placement: Option<HostMessage>,
    /// The host's checksum before each ordered command, by its number.
    checksums: HashMap<u64, u64>,
    /// The iteration last announced.
    grew: usize,
    report: ShareReport,
    records: Vec<PeerRecord>,
    notes: Vec<String>,
}

impl Host {
    /// Listens on `port` (every interface, IPv4) for peers with `code`,
    /// whose world starts from `start`.
    pub fn start(code: ShareCode, port: u16, start: LogStart) -> io::Result<Host> {
        Host::start_from(code, port, &CommandLog::new(start), 0, Vec::new())
    }

    /// [`Host::start`] for a world that has already changed (the hand
    /// menu's "Share session"): the terrain commands of `so_far` are the
    /// shared order's first, every joiner grows them and up to `grew`
    /// iterations, and `checksums` (the grown heights' before each, by its
    /// local sequence number) check the peers that do.
    pub fn start_from(
        code: ShareCode,
        port: u16,
        so_far: &CommandLog,
        grew: usize,
        checksums: Vec<(u64, u64)>,
    ) -> io::Result<Host> {
        let start = so_far.start.clone();
        let listener = TcpListener::bind(("0.0.0.0", port))?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let (sender, events) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let connected = Arc::new(AtomicUsize::new(0));
        {
            let (code, stop, connected) = (code.clone(), stop.clone(), connected.clone());
            thread::Builder::new()
                .name("share-accept".into())
                .spawn(move || accept_loop(listener, code, sender, stop, connected))?;
        }
        let mut host = Host {
            report: ShareReport {
                role: "host",
                code: code.to_string(),
                port,
                peer: None,
                commands_ordered: 0,
                checksums_matched: 0,
                checksum_mismatches: Vec::new(),
                timings: Vec::new(),
                sent_unix_ms: Vec::new(),
                level_after_ms: None,
            },
            code,
            port,
            start,
            events,
            peers: Vec::new(),
            connected,
            stop,
            history: Vec::new(),
            heads: BTreeMap::new(),
            heads_sent: None,
            heads_in: None,
            #[cfg(not(target_vendor = "uwp"))]
            advertisement: None,
            placement: None,
            checksums: HashMap::new(),
            grew,
            records: Vec::new(),
            notes: Vec::new(),
        };
        let checksums: HashMap<u64, u64> = checksums.into_iter().collect();
        for entry in so_far.entries.iter().filter(|e| e.command.is_terrain()) {
            host.order(
                entry.seq,
                entry.origin,
                entry.iteration,
                &entry.command,
                &checksums,
            );
        }
        Ok(host)
    }

    /// Adds the terrain command with the local sequence number `local_seq`
    /// to the shared order, with its checksum from `checksums` (by local
    /// sequence number); the message that tells the peers.
    fn order(
        &mut self,
        local_seq: u64,
        origin: Origin,
        iteration: usize,
        command: &Command,
        checksums: &HashMap<u64, u64>,
    ) -> HostMessage {
        let seq = self.report.commands_ordered;
        self.report.commands_ordered += 1;
        if let Some(&checksum) = checksums.get(&local_seq) {
            self.checksums.insert(seq, checksum);
        }
        let message = HostMessage::Ordered {
            seq,
            origin: match origin {
                Origin::Local => Origin::Host,
                other => other,
            },
            iteration,
            command: command.clone(),
        };
        self.history.push(message.clone());
        message
    }

    /// Advertises the session's nameplate on the local network (DNS-SD)
    /// for as long as it hosts; why not, where it cannot.
    pub fn advertise(&mut self) -> Result<(), String> {
        #[cfg(not(target_vendor = "uwp"))]
        {
            let advertisement =
                super::discovery::Advertisement::start(self.code.nameplate(), self.port)
                    .map_err(|error| error.to_string())?;
            self.advertisement = Some(advertisement);
            Ok(())
        }
        #[cfg(target_vendor = "uwp")]
        Err("this build has no DNS-SD".into())
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The session's code.
    pub fn code(&self) -> &ShareCode {
        &self.code
    }

    /// The peers connected now (joined, and not left).
    pub fn peers_connected(&self) -> usize {
        self.peers.len()
    }

    /// Terrain commands in the shared order so far.
    pub fn commands_ordered(&self) -> u64 {
        self.report.commands_ordered
    }

    /// Before the app's update: peers that joined get the world and the
    /// order so far; peers' commands go `into` the frame; checksums are checked.
    pub fn before_frame(&mut self, into: &mut Vec<SessionIn>) {
        // The host's own head among everyone's, as its last frame left them.
        into.extend(self.heads_in.take().map(SessionIn::Heads));
        while let Ok(event) = self.events.try_recv() {
            match event {
                HostEvent::Joined {
                    peer,
                    address,
                    mut writer,
                } => {
                    let welcome = HostMessage::Welcome {
                        peer,
                        start: Box::new(self.start.clone()),
                    };
                    let sent = std::iter::once(&welcome)
                        .chain(&self.history)
                        .chain(std::iter::once(&HostMessage::Grew {
                            iteration: self.grew,
                        }))
                        .chain(self.placement.as_ref())
                        .try_for_each(|message| writer.send(message));
                    self.records.push(PeerRecord {
                        peer,
                        address: address.to_string(),
                        left: None,
                    });
                    self.peers.push((peer, writer));
                    match sent {
                        Ok(()) => self
                            .notes
                            .push(format!("peer {peer} joined from {address}")),
                        Err(error) => {
                            self.gone(peer, format!("could not be sent the log: {error}"))
                        }
                    }
                }
                HostEvent::Message { peer, message } => self.heard(into, peer, message),
                HostEvent::Left { peer, why } => self.gone(peer, why),
                HostEvent::Refused(line) => self.notes.push(line),
            }
        }
    }

    fn heard(&mut self, into: &mut Vec<SessionIn>, peer: u32, message: PeerMessage) {
        match message {
            PeerMessage::Command { command } if command.is_terrain() => {
                // Refused before ordering: nothing of it reaches the order,
                // the history or any other headset.
                match command.check() {
                    Ok(()) => into.push(SessionIn::Command(command, Origin::Peer(peer))),
                    Err(problem) => self.close(
                        peer,
                        &format!(
                            "sent a {} command that cannot apply: {problem}",
                            command.kind()
                        ),
                    ),
                }
            }
            PeerMessage::Command { .. } => {
                self.close(peer, "sent a placement command, which is not shared");
            }
            PeerMessage::Placement { relative } => {
                if head_pose(
                    relative.pose.position.to_array(),
                    relative.pose.orientation.to_array(),
                )
                .is_some()
                {
                    into.push(SessionIn::Placement(relative, Origin::Peer(peer)));
                } else {
                    self.close(peer, "sent a placement that is not a pose");
                }
            }
            PeerMessage::Head {
                position,
                orientation,
            } => match head_pose(position, orientation) {
                Some(head) => {
                    self.heads.insert(peer, head);
                }
                None => self.close(peer, "sent a head that is not a pose"),
            },
            PeerMessage::Checksum { seq, checksum } => match self.checksums.get(&seq) {
                Some(&ours) if ours == checksum => self.report.checksums_matched += 1,
                Some(&ours) => {
                    self.notes.push(format!(
                        "peer {peer}'s terrain differs from the host's at shared command {seq} (checksum {checksum:016x}, the host's {ours:016x}): this platform is not bit-identical"
                    ));
                    self.report.checksum_mismatches.push(Mismatch {
                        peer,
                        seq,
                        host: ours,
                        theirs: checksum,
                    });
                }
                None => self.close(peer, "sent a checksum for a command not ordered yet"),
            },
            PeerMessage::Bye => self.gone(peer, "left".into()),
        }
    }

    /// Closes `peer`'s connection for `why` (a protocol error).
    fn close(&mut self, peer: u32, why: &str) {
        if let Some((_, writer)) = self.peers.iter().find(|(id, _)| *id == peer) {
            let _ = writer.stream.shutdown(Shutdown::Both);
        }
        self.gone(peer, format!("{why}; closed its connection"));
    }

    /// Forgets `peer`, with one line, once.
    fn gone(&mut self, peer: u32, why: String) {
        let Some(index) = self.peers.iter().position(|(id, _)| *id == peer) else {
            return;
        };
        let (_, writer) = self.peers.remove(index);
        let _ = writer.stream.shutdown(Shutdown::Both);
        self.connected.fetch_sub(1, Ordering::SeqCst);
        self.heads.remove(&peer);
        self.notes.push(format!("peer {peer} left ({why})"));
        if let Some(record) = self.records.iter_mut().find(|record| record.peer == peer) {
            record.left = Some(why);
        }
    }

    /// After the app's update: the terrain commands it applied join the
    /// shared order and go to every peer, with how far it has grown.
    pub fn after_frame(&mut self, output: &FrameOutput) {
        let shared = output.shared.clone().unwrap_or_default();
        let checksums: HashMap<u64, u64> = shared.checksums.into_iter().collect();
        let mut messages = Vec::new();
        for applied in output.commands.iter().filter(|a| a.command.is_terrain()) {
            self.report.timings.push(Timing {
                seq: self.report.commands_ordered,
                unix_ms: unix_ms(),
            });
            messages.push(self.order(
                applied.seq,
                applied.origin,
                applied.iteration,
                &applied.command,
                &checksums,
            ));
        }
        if !messages.is_empty() || output.iterations_done != self.grew {
            self.grew = output.iterations_done;
            messages.push(HostMessage::Grew {
                iteration: self.grew,
            });
        }
        if let Some(relative) = shared.placement {
            let message = HostMessage::Placement { relative };
            self.placement = Some(message.clone());
            messages.push(message);
        }
        if self
            .heads_sent
            .is_none_or(|sent| sent.elapsed() >= HEADS_EVERY)
        {
            self.heads_sent = Some(Instant::now());
            match shared.head {
                Some(own) => self.heads.insert(0, own),
                None => self.heads.remove(&0),
            };
            let heads: Vec<(u32, Pose)> = self.heads.iter().map(|(n, p)| (*n, *p)).collect();
            if !heads.is_empty() {
                messages.push(HostMessage::Heads {
                    heads: heads
                        .iter()
                        .map(|(peer, head)| HeadAt {
                            peer: *peer,
                            position: head.position.to_array(),
                            orientation: head.orientation.to_array(),
                        })
                        .collect(),
                });
            }
            self.heads_in = Some(heads);
        }
        if !messages.is_empty() {
            self.broadcast(&messages);
        }
    }

    fn broadcast(&mut self, messages: &[HostMessage]) {
        let mut failed = Vec::new();
        for (peer, writer) in &mut self.peers {
            if let Err(error) = messages.iter().try_for_each(|m| writer.send(m)) {
                failed.push((*peer, error.to_string()));
            }
        }
        for (peer, error) in failed {
            self.gone(peer, format!("the connection failed: {error}"));
        }
    }

    /// Lines for the log since the last call: peers joining and leaving,
    /// refused connections, checksum mismatches.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Says goodbye to every peer and stops listening; the report.
    pub fn finish(mut self) -> (ShareReport, Vec<PeerRecord>) {
        self.broadcast(&[HostMessage::Bye]);
        self.stop.store(true, Ordering::SeqCst);
        for (_, writer) in &self.peers {
            let _ = writer.stream.shutdown(Shutdown::Write);
        }
        (self.report, self.records)
    }
}

/// The host's listening thread: handshakes one at a time, slower after
/// each failure, then a reading thread per peer.
fn accept_loop(
    listener: TcpListener,
    code: ShareCode,
    events: Sender<HostEvent>,
    stop: Arc<AtomicBool>,
    connected: Arc<AtomicUsize>,
) {
    let mut failures: u32 = 0;
    let mut next_peer = 1;
    while !stop.load(Ordering::SeqCst) {
        let (stream, address) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(error) => {
                let _ = events.send(HostEvent::Refused(format!(
                    "could not accept a connection: {error}"
                )));
                thread::sleep(Duration::from_millis(200));
                continue;
            }
        };
        if connected.load(Ordering::SeqCst) >= MAX_PEERS {
            let _ = stream.shutdown(Shutdown::Both);
            let _ = events.send(HostEvent::Refused(format!(
                "refused {address}: the session has its {MAX_PEERS} peers"
            )));
            continue;
        }
        if failures > 0 {
            thread::sleep(failure_delay(failures));
        }
        let result = stream
            .set_nonblocking(false)
            .map_err(HandshakeError::Io)
            .and_then(|()| handshake::accept(stream, &code));
        match result {
            Ok(channel) => {
                failures = 0;
                let peer = next_peer;
                next_peer += 1;
                match start_peer_reader(peer, channel, events.clone()) {
                    Ok(writer) => {
                        connected.fetch_add(1, Ordering::SeqCst);
                        let _ = events.send(HostEvent::Joined {
                            peer,
                            address,
                            writer,
                        });
                    }
                    Err(error) => {
                        let _ = events.send(HostEvent::Refused(format!(
                            "could not serve {address}: {error}"
                        )));
                    }
                }
            }
            Err(error) => {
                failures = failures.saturating_add(1);
                let _ = events.send(HostEvent::Refused(format!("refused {address}: {error}")));
            }
        }
    }
}

/// How long the host waits before the next handshake after `failures`
/// failed ones in a row: 0.25 s, doubling, at most [`MAX_FAILURE_DELAY`].
pub fn failure_delay(failures: u32) -> Duration {
    let doubled =
        Duration::from_millis(250).saturating_mul(1 << failures.clamp(1, 8).saturating_sub(1));
    doubled.min(MAX_FAILURE_DELAY)
}

/// Starts the thread that reads `peer`'s messages; the writer for the frame loop.
fn start_peer_reader(peer: u32, channel: Channel, events: Sender<HostEvent>) -> io::Result<Writer> {
    let Channel {
        stream,
        sealer,
        mut opener,
    } = channel;
    let mut reading = stream.try_clone()?;
    thread::Builder::new()
        .name(format!("share-peer-{peer}"))
        .spawn(move || {
            let mut limit = RateLimit::for_peer();
            let why = loop {
                match read_message::<PeerMessage>(&mut opener, &mut reading) {
                    Ok(PeerMessage::Bye) => break "left".to_owned(),
                    Ok(message) => {
                        if !limit.allow(Instant::now()) {
                            break "sent messages faster than the bound; closed its connection"
                                .to_owned();
                        }
                        if events.send(HostEvent::Message { peer, message }).is_err() {
                            return;
                        }
                    }
                    Err(failure) => break failure.why,
                }
            };
            let _ = reading.shutdown(Shutdown::Both);
            let _ = events.send(HostEvent::Left { peer, why });
        })?;
    Ok(Writer { stream, sealer })
}

/// Why a message could not be read.
#[derive(Debug)]
struct ReadFailure {
    /// As the log says it.
    why: String,
    /// The link itself failed (closed, reset, timed out), rather than
    /// carrying something wrong: worth connecting again.
    dropped: bool,
}

/// Reads, opens and decodes one message; why not.
fn read_message<T: serde::de::DeserializeOwned>(
    opener: &mut Opener,
    stream: &mut TcpStream,
) -> Result<T, ReadFailure> {
    let plain = opener.read(stream).map_err(|error| match error {
        FrameError::Io(error)
            if matches!(
                error.kind(),
                ErrorKind::UnexpectedEof
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
            ) =>
        {
            ReadFailure {
                why: "the connection closed".to_owned(),
                dropped: true,
            }
        }
        FrameError::Io(error) => ReadFailure {
            why: format!("{error}; closed its connection"),
            dropped: true,
        },
        other => ReadFailure {
            why: format!("{other}; closed its connection"),
            dropped: false,
        },
    })?;
    serde_json::from_slice(&plain).map_err(|error| ReadFailure {
        why: format!("sent a message that is not one ({error}); closed its connection"),
        dropped: false,
    })
}

/// Connects to `target` (trying again while it refuses, for up to
/// `patience`), proves the code, reads the host's welcome and starts the
/// thread that reads what the host says next.
fn open_link(target: &JoinTarget, patience: Duration) -> Result<Link, JoinError> {
    let place = format!("{}:{}", target.host, target.port);
    let unreachable = |error| JoinError::Unreachable {
        target: place.clone(),
        error,
    };
    let started = Instant::now();
    let mut wait = Duration::from_millis(50);
    let stream = loop {
        let attempt = (target.host.as_str(), target.port)
            .to_socket_addrs()
            .and_then(|mut addresses| {
                addresses
                    .next()
                    .ok_or_else(|| io::Error::new(ErrorKind::NotFound, "the name has no address"))
            })
            .and_then(|address| TcpStream::connect_timeout(&address, Duration::from_secs(3)));
        match attempt {
            Ok(stream) => break stream,
            Err(error)
                if error.kind() == ErrorKind::ConnectionRefused && started.elapsed() < patience =>
            {
                thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(1));
            }
            Err(error) => return Err(unreachable(error)),
        }
    };
    let Channel {
        stream,
        sealer,
        mut opener,
    } = handshake::connect(stream, &target.code).map_err(|error| JoinError::Handshake {
        target: place.clone(),
        error,
    })?;
    let mut reading = stream.try_clone().map_err(unreachable)?;
    let welcome = read_message::<HostMessage>(&mut opener, &mut reading);
    let (id, start) = match welcome {
        Ok(HostMessage::Welcome { peer, start }) => (peer, *start),
        Ok(_) => {
            return Err(JoinError::Protocol {
                target: place,
                problem: "the host's first message is not its welcome".into(),
            });
        }
        Err(failure) => {
            return Err(JoinError::Protocol {
                target: place,
                problem: format!("the host's welcome: {}", failure.why),
            });
        }
    };
    if let Err(error) = start.values.validate() {
        return Err(JoinError::Protocol {
            target: place,
            problem: format!("the host's recipe: {error}"),
        });
    }
    let (sender, events) = mpsc::channel();
    thread::Builder::new()
        .name("share-host".into())
        .spawn(move || {
            loop {
                match read_message::<HostMessage>(&mut opener, &mut reading) {
                    Ok(HostMessage::Bye) => {
                        let _ = sender.send(PeerEvent::Closed("it ended the session".into()));
                        break;
                    }
                    Ok(message) => {
                        if sender.send(PeerEvent::Message(message)).is_err() {
                            break;
                        }
                    }
                    Err(ReadFailure { why, dropped }) => {
                        let _ = sender.send(if dropped {
                            PeerEvent::Dropped(why)
                        } else {
                            PeerEvent::Closed(why)
                        });
                        break;
                    }
                }
            }
            let _ = reading.shutdown(Shutdown::Both);
        })
        .map_err(unreachable)?;
    Ok(Link {
        id,
        start,
        events,
        writer: Writer { stream, sealer },
    })
}

/// Tries to reach `target` again with back-off ([`reconnect_delay`]) for up
/// to [`RECONNECT_PATIENCE`], on a thread of its own.
fn reconnect(target: JoinTarget, why: String) -> Reconnecting {
    let (sender, result) = mpsc::channel();
    let since = Instant::now();
    let place = format!("{}:{}", target.host, target.port);
    let spawned = thread::Builder::new()
        .name("share-reconnect".into())
        .spawn(move || {
            let mut attempt = 1;
            let mut last = String::from("none was made");
            let outcome = loop {
                let delay = reconnect_delay(attempt);
                if since.elapsed() + delay > RECONNECT_PATIENCE {
                    break Err(JoinError::GaveUp {
                        attempts: attempt - 1,
                        last,
                    });
                }
                thread::sleep(delay);
                match open_link(&target, Duration::ZERO) {
                    Ok(link) => break Ok(link),
                    Err(error) => last = error.to_string(),
                }
                attempt += 1;
            };
            let _ = sender.send(outcome);
        });
    if let Err(error) = spawned {
        let (sender, failed) = mpsc::channel();
        let _ = sender.send(Err(JoinError::Unreachable {
            target: place,
            error,
        }));
        return Reconnecting {
            why,
            since,
            result: failed,
        };
    }
    Reconnecting { why, since, result }
}

/// Where to join: `CODE@HOST[:PORT]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinTarget {
    /// The session's code.
    pub code: ShareCode,
    /// The host's name or address.
    pub host: String,
    /// Its port.
    pub port: u16,
}

/// Why a `--join` value is not one.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum JoinTargetError {
    /// The code part.
    #[error("{0}")]
    Code(#[from] super::code::CodeError),
    /// The rest.
    #[error("`{text}` is not CODE@HOST[:PORT] (like 7-guitar-orbit@192.0.2.5:{port}): {problem}")]
    Form {
        text: String,
        port: u16,
        problem: String,
    },
}

impl JoinTarget {
    /// Reads `CODE@HOST[:PORT]`, the port `default_port` when left out; an
    /// IPv6 address goes in brackets (`[::1]:4000`).
    pub fn parse(text: &str, default_port: u16) -> Result<Self, JoinTargetError> {
        let fail = |problem: &str| JoinTargetError::Form {
            text: text.to_owned(),
            port: default_port,
            problem: problem.to_owned(),
        };
        let Some((code, place)) = text.trim().rsplit_once('@') else {
            return Err(fail("no @HOST"));
        };
        let code = ShareCode::parse(code)?;
        let bracketed = place.starts_with('[');
        let (host, port) = if let Some(rest) = place.strip_prefix('[') {
            let Some((host, after)) = rest.split_once(']') else {
                return Err(fail("an IPv6 address without its closing ]"));
            };
            match after.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None if after.is_empty() => (host, None),
                None => return Err(fail("text after the ]")),
            }
        } else {
            match place.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (place, None),
            }
        };
        if host.is_empty() || (!bracketed && host.contains(':')) {
            return Err(fail("the host is empty or an IPv6 address outside [ ]"));
        }
        let port = match port {
            None => default_port,
            Some(port) => port
                .parse::<u16>()
                .ok()
                .filter(|&port| port > 0)
                .ok_or_else(|| fail("the port must be 1 to 65535"))?,
        };
        Ok(JoinTarget {
            code,
            host: host.to_owned(),
            port,
        })
    }
}

/// Why joining failed.
#[derive(Debug, Error)]
pub enum JoinError {
    /// No host answered.
    #[error("cannot reach the host at {target}: {error}")]
    Unreachable { target: String, error: io::Error },
    /// The handshake failed.
    #[error("joining {target} failed: {error}")]
    Handshake {
        target: String,
        error: HandshakeError,
    },
    /// The host sent something else than its welcome.
    #[error("joining {target} failed: {problem}")]
    Protocol { target: String, problem: String },
    /// Reaching the host again failed every time.
    #[error("{attempts} attempts in {} s failed, the last: {last}", RECONNECT_PATIENCE.as_secs())]
    GaveUp { attempts: u32, last: String },
}

/// What a peer's reading thread tells its frame loop.
enum PeerEvent {
    Message(HostMessage),
    /// The host said something wrong, or ended the session.
    Closed(String),
    /// The link failed: the peer tries to reach the host again.
    Dropped(String),
}

/// How long a peer whose link to the host dropped keeps trying to reach it
/// again before it goes on alone.
pub const RECONNECT_PATIENCE: Duration = Duration::from_secs(30);

/// How long a peer waits before its `attempt`th (from 1) try to reach the
/// host again: 0.5 s, doubling to 8 s.
pub fn reconnect_delay(attempt: u32) -> Duration {
    Duration::from_millis(500)
        .saturating_mul(1 << attempt.saturating_sub(1).min(4))
        .min(Duration::from_secs(8))
}

/// One connection to the host, its code proven and its welcome read.
struct Link {
    /// The peer's number on it.
    id: u32,
    /// The world the host's session starts from.
    start: LogStart,
    /// What its reading thread hears.
    events: Receiver<PeerEvent>,
    writer: Writer,
}

/// Reaching the host again after the link dropped, on its own thread.
struct Reconnecting {
    /// Why the link dropped.
    why: String,
    /// When it dropped.
    since: Instant,
    /// The new link, or why there is none, once the thread is done.
    result: Receiver<Result<Link, JoinError>>,
}

/// The joining end.
pub struct Peer {
    id: u32,
    address: String,
    /// Where the host was reached, to reach it again.
    target: JoinTarget,
    /// The world the session starts from: a host that answers a
    /// reconnect with another one is another session.
    start: LogStart,
    events: Receiver<PeerEvent>,
    writer: Writer,
    next_seq: u64,
    /// After a reconnect the host sends its whole log again: the commands
    /// below this number are already applied.
    skip_below: Option<u64>,
    gone: Option<String>,
    /// Reaching the host again, while the link is down.
    reconnecting: Option<Reconnecting>,
    /// The wearer's terrain commands made while the link was down, sent
    /// once it is back.
    held_back: Vec<PeerMessage>,
    /// It follows the session and says nothing ([`Peer::listen_only`]).
    listening_only: bool,
    report: ShareReport,
    notes: Vec<String>,
    /// When its frame loop first looked at the session (after the joining
    /// headset's own start-up, which is not catching up).
    following_since: Option<Instant>,
    /// How far the host had grown when it joined, once told.
    level_with: Option<usize>,
    /// When the wearer's head was last sent.
    head_sent: Option<Instant>,
}

impl Peer {
    /// Connects to `target` (waiting up to [`CONNECT_PATIENCE`] for it to
    /// listen), proves the code and takes the host's welcome: the peer,
    /// and the world it starts from.
    pub fn join(target: &JoinTarget) -> Result<(Peer, LogStart), JoinError> {
        let link = open_link(target, CONNECT_PATIENCE)?;
        let place = format!("{}:{}", target.host, target.port);
        let joined = format!("joined the session at {place} as peer {}", link.id);
        let start = link.start.clone();
        let peer = Peer {
            id: link.id,
            address: place,
            target: target.clone(),
            start: link.start,
            events: link.events,
            writer: link.writer,
            next_seq: 0,
            skip_below: None,
            gone: None,
            reconnecting: None,
            held_back: Vec::new(),
            listening_only: false,
            report: ShareReport {
                role: "peer",
                code: target.code.to_string(),
                port: target.port,
                peer: Some(link.id),
                commands_ordered: 0,
                checksums_matched: 0,
                checksum_mismatches: Vec::new(),
                timings: Vec::new(),
                sent_unix_ms: Vec::new(),
                level_after_ms: None,
            },
            notes: vec![joined],
            following_since: None,
            level_with: None,
            head_sent: None,
        };
        Ok((peer, start))
    }

    /// This end follows the session without taking part: the app it feeds
    /// gets the host's order, growth, placement and heads, and nothing it
    /// makes (commands, placements, its head, checksums) is sent. For a copy
    /// of another headset's app core that must hold what that headset
    /// holds (the test runtime's wearer) without its commands arriving twice.
    pub fn listen_only(mut self) -> Self {
        self.listening_only = true;
        self
    }

    /// The session's code.
    pub fn code(&self) -> &str {
        &self.report.code
    }

    /// Its number in the session.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Why the host is gone, once it is (it ended the session, or the link
    /// could not be had back): this end then follows nothing.
    pub fn host_left(&self) -> Option<&str> {
        self.gone.as_deref()
    }

    /// Terrain commands of the shared order received and handed to the
    /// app (which applies them in the same frame).
    pub fn commands_ordered(&self) -> u64 {
        self.report.commands_ordered
    }

    /// Before the app's update: the host's order goes `into` the frame as steps.
    pub fn before_frame(&mut self, into: &mut Vec<SessionIn>) {
        if self.following_since.is_none() {
            self.following_since = Some(Instant::now());
            into.push(SessionIn::Number(self.id));
        }
        self.check_reconnect(into);
        while self.gone.is_none()
            && self.reconnecting.is_none()
            && let Ok(event) = self.events.try_recv()
        {
            match event {
                PeerEvent::Message(HostMessage::Ordered { seq, .. })
                    if self.skip_below.is_some_and(|below| seq < below) => {}
                PeerEvent::Message(HostMessage::Ordered {
                    seq,
                    origin,
                    iteration,
                    command,
                }) => {
                    self.skip_below = None;
                    if seq != self.next_seq {
                        self.leave(
                            into,
                            format!(
                                "it sent shared command {seq} where {} comes next; closed the connection",
                                self.next_seq
                            ),
                        );
                    } else if !command.is_terrain() {
                        self.leave(
                            into,
                            "it sent a placement command, which is not shared; closed the connection".into(),
                        );
                    } else {
                        self.next_seq += 1;
                        self.report.commands_ordered += 1;
                        self.report.timings.push(Timing {
                            seq,
                            unix_ms: unix_ms(),
                        });
                        into.push(SessionIn::Step(Step::Apply(Ordered {
                            seq,
                            origin,
                            iteration,
                            command,
                        })));
                    }
                }
                PeerEvent::Message(HostMessage::Grew { iteration }) => {
                    // The first is how far the host had grown when it
                    // joined (it follows the log the welcome brought).
                    self.level_with.get_or_insert(iteration);
                    into.push(SessionIn::Step(Step::GrowTo(iteration)));
                }
                PeerEvent::Message(HostMessage::Placement { relative }) => {
                    into.push(SessionIn::Placement(relative, Origin::Host));
                }
                PeerEvent::Message(HostMessage::Heads { heads }) => {
                    let poses: Option<Vec<(u32, Pose)>> = heads
                        .iter()
                        .take(MAX_PEERS + 1)
                        .map(|at| head_pose(at.position, at.orientation).map(|p| (at.peer, p)))
                        .collect();
                    match poses {
                        Some(poses) => into.push(SessionIn::Heads(poses)),
                        None => self.leave(
                            into,
                            "it sent a head that is not a pose; closed the connection".into(),
                        ),
                    }
                }
                PeerEvent::Message(HostMessage::Welcome { .. }) => {
                    self.leave(
                        into,
                        "it sent a second welcome; closed the connection".into(),
                    );
                }
                PeerEvent::Message(HostMessage::Bye) => {
                    self.leave(into, "it ended the session".into());
                }
                PeerEvent::Closed(why) => self.leave(into, why),
                PeerEvent::Dropped(why) => self.link_dropped(why),
            }
        }
    }

    /// The link failed (not the host's word): one line, and the peer tries
    /// to reach the host again while its terrain waits where it is.
    fn link_dropped(&mut self, why: String) {
        if self.gone.is_some() || self.reconnecting.is_some() {
            return;
        }
        let _ = self.writer.stream.shutdown(Shutdown::Both);
        self.notes.push(format!(
            "lost the link to the host ({why}); trying to reach it again for up to {} s",
            RECONNECT_PATIENCE.as_secs()
        ));
        self.reconnecting = Some(reconnect(self.target.clone(), why));
    }

    /// Takes the new link once the reconnecting thread has one: the same
    /// session goes on from where this peer was; another session, or none
    /// after every attempt, and the peer goes on alone.
    fn check_reconnect(&mut self, into: &mut Vec<SessionIn>) {
        let Some(reconnecting) = &self.reconnecting else {
            return;
        };
        let outcome = match reconnecting.result.try_recv() {
            Ok(outcome) => outcome,
            Err(mpsc::TryRecvError::Empty) => return,
            Err(mpsc::TryRecvError::Disconnected) => Err(JoinError::GaveUp {
                attempts: 0,
                last: "the reconnecting thread ended".into(),
            }),
        };
        let Reconnecting { why, since, .. } = self.reconnecting.take().expect("checked above");
        match outcome {
            Ok(link) if link.start != self.start => {
                let _ = link.writer.stream.shutdown(Shutdown::Both);
                self.leave(
                    into,
                    format!(
                        "the link dropped ({why}), and what answered at {} is another session",
                        self.address
                    ),
                );
            }
            Ok(link) => {
                self.id = link.id;
                self.events = link.events;
                self.writer = link.writer;
                // The host sends its whole log again; what came before is applied.
                self.skip_below = Some(self.next_seq);
                self.report.peer = Some(link.id);
                into.push(SessionIn::Number(link.id));
                self.notes.push(format!(
                    "reached the host again after {:.1} s; peer {} now",
                    since.elapsed().as_secs_f64(),
                    link.id
                ));
            }
            Err(error) => self.leave(
                into,
                format!("the link dropped ({why}) and reaching it again failed: {error}"),
            ),
        }
    }

    /// The host is gone (or was cut off): one line, and the app keeps its
    /// terrain and goes on alone.
    fn leave(&mut self, into: &mut Vec<SessionIn>, why: String) {
        if self.gone.is_some() {
            return;
        }
        let _ = self.writer.stream.shutdown(Shutdown::Both);
        self.notes.push(format!(
            "the host left ({why}); keeping the terrain as it left it"
        ));
        self.gone = Some(why);
        into.push(SessionIn::Step(Step::HostLeft));
    }

    /// After the app's update: the wearer's terrain commands and the
    /// checksums go to the host.
    pub fn after_frame(&mut self, output: &FrameOutput) {
        if self.listening_only {
            return;
        }
        let shared = output.shared.clone().unwrap_or_default();
        let mut messages: Vec<PeerMessage> = shared
            .outbox
            .into_iter()
            .map(|command| PeerMessage::Command { command })
            .collect();
        if !messages.is_empty() {
            let now = unix_ms();
            self.report
                .sent_unix_ms
                .extend(messages.iter().map(|_| now));
        }
        if self.report.level_after_ms.is_none()
            && self
                .level_with
                .is_some_and(|iteration| output.iterations_done >= iteration)
        {
            self.report.level_after_ms = self
                .following_since
                .map(|since| since.elapsed().as_millis() as u64);
        }
        messages.extend(
            shared
                .placement
                .map(|relative| PeerMessage::Placement { relative }),
        );
        if self
            .head_sent
            .is_none_or(|sent| sent.elapsed() >= HEADS_EVERY)
            && let Some(head) = shared.head
        {
            self.head_sent = Some(Instant::now());
            messages.push(PeerMessage::Head {
                position: head.position.to_array(),
                orientation: head.orientation.to_array(),
            });
        }
        let checksums = shared.checksums;
        self.report.checksums_matched += checksums.len() as u64;
        messages.extend(
            checksums
                .into_iter()
                .map(|(seq, checksum)| PeerMessage::Checksum { seq, checksum }),
        );
        if self.gone.is_some() {
            return;
        }
        if self.reconnecting.is_some() {
            // Heads and checksums are of the moment; the wearer's commands
            // wait for the link.
            self.held_back.extend(
                messages
                    .into_iter()
                    .filter(|message| matches!(message, PeerMessage::Command { .. })),
            );
            return;
        }
        if !self.held_back.is_empty() {
            messages.splice(0..0, std::mem::take(&mut self.held_back));
        }
        if messages.is_empty() {
            return;
        }
        if let Err(error) = messages.iter().try_for_each(|m| self.writer.send(m)) {
            self.link_dropped(format!("the connection failed: {error}"));
        }
    }

    /// Lines for the log since the last call.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Says goodbye to the host; the report, with the host as peer 0.
    pub fn finish(mut self) -> (ShareReport, Vec<PeerRecord>) {
        if let Some(reconnecting) = self.reconnecting.take() {
            self.gone = Some(format!(
                "the link dropped ({}) and the run ended before the host was reached again",
                reconnecting.why
            ));
        }
        if self.gone.is_none() {
            let _ = self.writer.send(&PeerMessage::Bye);
            let _ = self.writer.stream.shutdown(Shutdown::Write);
        }
        let host = PeerRecord {
            peer: 0,
            address: self.address,
            left: self.gone,
        };
        (self.report, vec![host])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_targets_read_with_and_without_a_port() {
        let target = JoinTarget::parse("7-guitar-orbit@127.0.0.1:4000", 47180).unwrap();
        assert_eq!((target.host.as_str(), target.port), ("127.0.0.1", 4000));
        let target = JoinTarget::parse("7-guitar-orbit@localhost", 47180).unwrap();
        assert_eq!((target.host.as_str(), target.port), ("localhost", 47180));
        let target = JoinTarget::parse("7-guitar-orbit@[::1]:9", 47180).unwrap();
        assert_eq!((target.host.as_str(), target.port), ("::1", 9));
        for (text, problem) in [
            ("7-guitar-orbit", "no @HOST"),
            ("7-guitar-orbit@", "the host is empty"),
            ("7-guitar-orbit@host:0", "the port"),
            ("7-guitar-orbit@host:http", "the port"),
            ("7-guitar-orbit@::1", "IPv6"),
            ("7-guitar@host", "not NUMBER-word-word"),
        ] {
            let error = JoinTarget::parse(text, 47180).unwrap_err().to_string();
            assert!(error.contains(problem), "{text}: {error}");
        }
    }

    #[test]
    fn reconnecting_waits_half_a_second_then_doubles_up_to_eight() {
        let delays: Vec<u64> = (1..=7)
            .map(|attempt| reconnect_delay(attempt).as_millis() as u64)
            .collect();
        assert_eq!(delays, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
    }

    #[test]
    fn failures_wait_longer_up_to_a_bound() {
        assert_eq!(failure_delay(1), Duration::from_millis(250));
        assert_eq!(failure_delay(2), Duration::from_millis(500));
        assert_eq!(failure_delay(5), MAX_FAILURE_DELAY);
        assert_eq!(failure_delay(u32::MAX), MAX_FAILURE_DELAY);
    }
}
