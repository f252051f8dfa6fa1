//! The hosting end on the frame loop: [`Host`] orders the terrain commands, tells its peers, checks their checksums and closes any that misbehave.
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Instant;

use super::HEADS_EVERY;
use super::accept::accept_loop;
use super::report::{Mismatch, PeerRecord, ShareReport, Timing, unix_ms};
use super::wire::Writer;
use crate::app::log::{CommandLog, LogStart};
use crate::app::{App, Command, FrameOutput, Origin};
use crate::input::Pose;
use crate::net::code::ShareCode;
use crate::net::protocol::{HeadAt, HostMessage, PeerMessage, head_pose};

/// What the host's threads tell its frame loop.
pub(super) enum HostEvent {
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
    /// Its DNS-SD advertisement, withdrawn when it stops hosting.
    #[cfg(not(target_vendor = "uwp"))]
    advertisement: Option<crate::net::discovery::Advertisement>,
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
                crate::net::discovery::Advertisement::start(self.code.nameplate(), self.port)
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
    /// order so far; peers' commands go to the app; checksums are checked.
    pub fn before_frame(&mut self, app: &mut App) {
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
                HostEvent::Message { peer, message } => self.heard(app, peer, message),
                HostEvent::Left { peer, why } => self.gone(peer, why),
                HostEvent::Refused(line) => self.notes.push(line),
            }
        }
    }

    fn heard(&mut self, app: &mut App, peer: u32, message: PeerMessage) {
        match message {
            PeerMessage::Command { command } if command.is_terrain() => {
                // Refused before ordering: nothing of it reaches the order,
                // the history or any other headset.
                match command.check() {
                    Ok(()) => app.submit_from(command, Origin::Peer(peer)),
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
                    app.follow_placement(relative, Origin::Peer(peer));
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
    pub fn after_frame(&mut self, app: &mut App, output: &FrameOutput) {
        let checksums: HashMap<u64, u64> = app.take_checksums().into_iter().collect();
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
        if let Some(relative) = app.take_placement_out() {
            let message = HostMessage::Placement { relative };
            self.placement = Some(message.clone());
            messages.push(message);
        }
        if self
            .heads_sent
            .is_none_or(|sent| sent.elapsed() >= HEADS_EVERY)
        {
            self.heads_sent = Some(Instant::now());
            match app.head_relative() {
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
            app.see_heads(heads);
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
