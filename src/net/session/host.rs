//! The hosting end on the frame loop: [`Host`] orders the terrain commands, queues them for its peers, checks their checksums and closes any that misbehave, saying why.
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::net::{Shutdown, TcpListener};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use super::accept::accept_loop;
use super::gate::lock;
use super::hosting::{HostEvent, Hosting, Shared};
use super::limits::{FINISH_PATIENCE, HEADS_EVERY, MAX_HISTORY};
use super::report::{Mismatch, PeerRecord, ShareReport, Timing, unix_ms};
use super::wire::{Json, Refused, json};
use crate::app::log::{CommandLog, LogStart};
use crate::app::{Command, FrameOutput, Origin, SessionIn};
use crate::input::Pose;
use crate::net::code::ShareCode;
use crate::net::protocol::{HeadAt, HostMessage, PeerMessage, head_pose};

/// How long a checksum mismatch waits before its line: a peer closed for
/// misbehaving meanwhile sent it, and its word says nothing of a platform.
const MISMATCH_GRACE: Duration = Duration::from_secs(1);

/// A checksum mismatch not said yet.
struct HeldMismatch {
    since: Instant,
    mismatch: Mismatch,
}

/// The hosting end.
pub struct Host {
    code: ShareCode,
    port: u16,
    hosting: Arc<Hosting>,
    events: Receiver<HostEvent>,
    /// The peers the frame loop has taken in and not let go.
    present: BTreeSet<u32>,
    /// Everyone's heads relative to the card, by number (the host's is 0).
    heads: BTreeMap<u32, Pose>,
    /// When the heads were last sent.
    heads_sent: Option<Instant>,
    /// Everyone's heads as last sent, for the host's own app's next frame.
    heads_in: Option<Vec<(u32, Pose)>>,
    /// Its DNS-SD advertisement, withdrawn when it stops hosting.
    #[cfg(not(target_vendor = "uwp"))]
    advertisement: Option<crate::net::discovery::Advertisement>,
    /// The host's checksum before each ordered command, by its number.
    checksums: HashMap<u64, u64>,
    /// The iteration last announced.
    grew: usize,
    /// Peers' terrain commands handed to the app and not ordered yet.
    submitted: u64,
    /// Peers told that the history is full (one line each).
    refused_commands: BTreeSet<u32>,
    /// Peers told their scrubs are refused (each told once).
    refused_scrubs: BTreeSet<u32>,
    /// Peers whose first checksum mismatch was said (later ones go to the
    /// report only).
    mismatched: BTreeSet<u32>,
    held_mismatches: Vec<HeldMismatch>,
    /// Peers closed for misbehaving.
    kicked: BTreeSet<u32>,
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
        let listener = TcpListener::bind(("0.0.0.0", port))?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let (sender, events) = mpsc::channel();
        let shared = Shared {
            start: so_far.start.clone(),
            history: Vec::new(),
            grew,
            placement: None,
            peers: Vec::new(),
            next_peer: 1,
        };
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
            hosting: Arc::new(Hosting::new(code.clone(), shared, sender)),
            code,
            port,
            events,
            present: BTreeSet::new(),
            heads: BTreeMap::new(),
            heads_sent: None,
            heads_in: None,
            #[cfg(not(target_vendor = "uwp"))]
            advertisement: None,
            checksums: HashMap::new(),
            grew,
            submitted: 0,
            refused_commands: BTreeSet::new(),
            refused_scrubs: BTreeSet::new(),
            mismatched: BTreeSet::new(),
            held_mismatches: Vec::new(),
            kicked: BTreeSet::new(),
            records: Vec::new(),
            notes: Vec::new(),
        };
        let checksums: HashMap<u64, u64> = checksums.into_iter().collect();
        let history: Vec<Json> = so_far
            .entries
            .iter()
            .filter(|e| e.command.is_terrain())
            .map(|entry| {
                json(&host.order(
                    entry.seq,
                    entry.origin,
                    entry.iteration,
                    &entry.command,
                    &checksums,
                ))
            })
            .collect();
        host.hosting
            .ordered
            .store(host.report.commands_ordered, Ordering::SeqCst);
        lock(&host.hosting.shared).history = history;
        // Only now: a joiner gets the whole order so far.
        let hosting = host.hosting.clone();
        thread::Builder::new()
            .name("share-accept".into())
            .spawn(move || accept_loop(listener, hosting))?;
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
        HostMessage::Ordered {
            seq,
            origin: match origin {
                Origin::Local => Origin::Host,
                other => other,
            },
            iteration,
            command: command.clone(),
        }
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
        self.present.len()
    }

    /// Terrain commands in the shared order so far.
    pub fn commands_ordered(&self) -> u64 {
        self.report.commands_ordered
    }

    /// Wrong codes the host has judged so far: the guesses at its code that
    /// got an answer.
    pub fn wrong_codes(&self) -> u64 {
        self.hosting.gate.wrong_codes()
    }

    /// Bytes the shared order's history holds now (the `ordered` messages
    /// kept for joiners, as sent).
    pub fn history_bytes(&self) -> usize {
        lock(&self.hosting.shared)
            .history
            .iter()
            .map(|message| message.len())
            .sum()
    }

    /// Before the app's update: peers' commands go to the app, checksums
    /// are checked, and peers that joined, left or misbehaved are said.
    pub fn before_frame(&mut self, into: &mut Vec<SessionIn>) {
        // The host's own head among everyone's, as its last frame left them.
        into.extend(self.heads_in.take().map(SessionIn::Heads));
        while let Ok(event) = self.events.try_recv() {
            match event {
                HostEvent::Joined { peer, address } => {
                    self.present.insert(peer);
                    self.records.push(PeerRecord {
                        peer,
                        address: address.to_string(),
                        left: None,
                    });
                    self.notes
                        .push(format!("peer {peer} joined from {address}"));
                }
                HostEvent::Message { peer, message } if self.present.contains(&peer) => {
                    self.heard(into, peer, message)
                }
                HostEvent::Message { .. } => {}
                HostEvent::Left { peer, why } => self.gone(peer, why),
                HostEvent::Misbehaved { peer, why } => self.kick(peer, why),
                HostEvent::Refused(line) => self.notes.push(line),
            }
        }
        self.say_mismatches(Some(MISMATCH_GRACE));
    }

    fn heard(&mut self, into: &mut Vec<SessionIn>, peer: u32, message: PeerMessage) {
        match message {
            // Rebuilding a moment costs every headset up to a tenth of a
            // second: a peer sending scrubs at its command rate could stall
            // them all, so only the host moves the session through time.
            PeerMessage::Command {
                command: Command::Scrub { .. },
            } => {
                if self.refused_scrubs.insert(peer) {
                    self.notes.push(format!(
                        "refused peer {peer}'s scrub, and its scrubs from now on: only the host moves the session through its history"
                    ));
                }
            }
            PeerMessage::Command { command } if command.is_terrain() => {
                // Refused before ordering: nothing of it reaches the order,
                // the history or any other headset.
                if let Err(problem) = command.check() {
                    self.kick(
                        peer,
                        format!(
                            "sent a {} command that cannot apply: {problem}",
                            command.kind()
                        ),
                    );
                } else if self.report.commands_ordered + self.submitted >= MAX_HISTORY {
                    if self.refused_commands.insert(peer) {
                        self.notes.push(format!(
                            "refused peer {peer}'s {} command, and refuses its terrain commands from now on: the session has ordered {MAX_HISTORY}, the most a joiner is given to replay (the host's own are still ordered)",
                            command.kind()
                        ));
                    }
                } else {
                    self.submitted += 1;
                    into.push(SessionIn::Command(command, Origin::Peer(peer)));
                }
            }
            PeerMessage::Command { .. } => {
                self.kick(peer, "sent a placement command, which is not shared".into());
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
                    self.kick(peer, "sent a placement that is not a pose".into());
                }
            }
            PeerMessage::Head {
                position,
                orientation,
            } => match head_pose(position, orientation) {
                Some(head) => {
                    self.heads.insert(peer, head);
                }
                None => self.kick(peer, "sent a head that is not a pose".into()),
            },
            // Its reading thread let through only checksums of ordered
            // commands, in order; one the host kept none for (made before
            // "Share session" without one) checks nothing.
            PeerMessage::Checksum { seq, checksum } => match self.checksums.get(&seq) {
                Some(&ours) if ours == checksum => self.report.checksums_matched += 1,
                Some(&ours) => self.held_mismatches.push(HeldMismatch {
                    since: Instant::now(),
                    mismatch: Mismatch {
                        peer,
                        seq,
                        host: ours,
                        theirs: checksum,
                    },
                }),
                None => {}
            },
            PeerMessage::Bye => self.gone(peer, "left".into()),
            PeerMessage::Alive => {}
        }
    }

    /// Says the checksum mismatches held for `grace` (all of them with
    /// `None`) of peers still in the session; a peer closed for
    /// misbehaving meanwhile is not taken at its word.
    fn say_mismatches(&mut self, grace: Option<Duration>) {
        let (due, held): (Vec<HeldMismatch>, Vec<HeldMismatch>) =
            std::mem::take(&mut self.held_mismatches)
                .into_iter()
                .partition(|held| grace.is_none_or(|grace| held.since.elapsed() >= grace));
        self.held_mismatches = held;
        for HeldMismatch { mismatch, .. } in due {
            let peer = mismatch.peer;
            if self.kicked.contains(&peer) {
                continue;
            }
            if self.mismatched.insert(peer) {
                self.notes.push(format!(
                    "peer {peer}'s terrain differs from the host's at shared command {} (checksum {:016x}, the host's {:016x}): that headset does not grow bit-identical terrain, or sent a wrong checksum; later differences of its go to the report only",
                    mismatch.seq, mismatch.theirs, mismatch.host
                ));
            }
            self.report.checksum_mismatches.push(mismatch);
        }
    }

    /// Closes `peer` for `why` (it sent what it must not), telling it why
    /// first.
    fn kick(&mut self, peer: u32, why: String) {
        let outbox = lock(&self.hosting.shared).take(peer);
        let Some(outbox) = outbox else {
            return;
        };
        outbox.close_with(json(&HostMessage::Closing { why: why.clone() }));
        // It is heard no more; its writing thread sends the reason, then ends.
        let _ = outbox.stream.shutdown(Shutdown::Read);
        self.kicked.insert(peer);
        self.ended(peer, "kicked", why);
    }

    /// Forgets `peer`, whose link ended, with one line, once.
    fn gone(&mut self, peer: u32, why: String) {
        let outbox = lock(&self.hosting.shared).take(peer);
        if let Some(outbox) = outbox {
            outbox.cut();
        }
        self.ended(peer, "left", why);
    }

    fn ended(&mut self, peer: u32, how: &str, why: String) {
        if !self.present.remove(&peer) {
            return;
        }
        self.heads.remove(&peer);
        let line = if how == "kicked" {
            format!("{why}; closed its connection")
        } else {
            why
        };
        self.notes.push(format!("peer {peer} {how} ({line})"));
        if let Some(record) = self.records.iter_mut().find(|record| record.peer == peer) {
            record.left = Some(if how == "kicked" {
                format!("kicked: {line}")
            } else {
                line
            });
        }
    }

    /// After the app's update: the terrain commands it applied join the
    /// shared order and go to every peer, with how far it has grown.
    pub fn after_frame(&mut self, output: &FrameOutput) {
        self.submitted = 0;
        let sent = output.shared.as_ref();
        let checksums: HashMap<u64, u64> = sent
            .map(|sent| sent.checksums.iter().copied().collect())
            .unwrap_or_default();
        let mut ordered = Vec::new();
        for applied in output.commands.iter().filter(|a| a.command.is_terrain()) {
            self.report.timings.push(Timing {
                seq: self.report.commands_ordered,
                unix_ms: unix_ms(),
            });
            let message = self.order(
                applied.seq,
                applied.origin,
                applied.iteration,
                &applied.command,
                &checksums,
            );
            ordered.push(json(&message));
        }
        let mut messages = ordered.clone();
        let grew = (!ordered.is_empty() || output.iterations_done != self.grew).then(|| {
            self.grew = output.iterations_done;
            messages.push(json(&HostMessage::Grew {
                iteration: self.grew,
            }));
            self.grew
        });
        let placement = sent.and_then(|sent| sent.placement).map(|relative| {
            let message = json(&HostMessage::Placement { relative });
            messages.push(message.clone());
            message
        });
        if let Some(heads) = self.heads_due(sent.and_then(|sent| sent.head)) {
            messages.push(heads);
        }
        let mut shared = lock(&self.hosting.shared);
        shared.history.extend(ordered);
        self.hosting
            .ordered
            .store(self.report.commands_ordered, Ordering::SeqCst);
        if let Some(grew) = grew {
            shared.grew = grew;
        }
        if placement.is_some() {
            shared.placement = placement;
        }
        if messages.is_empty() {
            return;
        }
        let mut full = Vec::new();
        for (peer, outbox) in &shared.peers {
            if let Err(Refused::Full(capacity)) = outbox.send(messages.clone()) {
                full.push((*peer, capacity));
            }
        }
        drop(shared);
        for (peer, capacity) in full {
            self.gone(
                peer,
                format!(
                    "it took in nothing of what the host sent while {capacity} frames' messages waited; closed its connection"
                ),
            );
        }
    }

    /// Everyone's heads (the host's `own`), when they are due
    /// ([`HEADS_EVERY`]); the app sees them too, from its next frame.
    fn heads_due(&mut self, own: Option<Pose>) -> Option<Json> {
        if self
            .heads_sent
            .is_some_and(|sent| sent.elapsed() < HEADS_EVERY)
        {
            return None;
        }
        self.heads_sent = Some(Instant::now());
        match own {
            Some(own) => self.heads.insert(0, own),
            None => self.heads.remove(&0),
        };
        let heads: Vec<(u32, Pose)> = self.heads.iter().map(|(n, p)| (*n, *p)).collect();
        let message = (!heads.is_empty()).then(|| {
            json(&HostMessage::Heads {
                heads: heads
                    .iter()
                    .map(|(peer, head)| HeadAt {
                        peer: *peer,
                        position: head.position.to_array(),
                        orientation: head.orientation.to_array(),
                    })
                    .collect(),
            })
        });
        self.heads_in = Some(heads);
        message
    }

    /// Lines for the log since the last call: peers joining and leaving,
    /// refused connections, checksum mismatches.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Says goodbye to every peer (waiting up to [`FINISH_PATIENCE`] for
    /// the goodbyes to go out) and stops listening; the report.
    pub fn finish(mut self) -> (ShareReport, Vec<PeerRecord>) {
        self.leave();
        self.say_mismatches(None);
        (self.report, self.records)
    }

    /// Says goodbye to every peer (waiting up to [`FINISH_PATIENCE`] for
    /// the goodbyes to go out) and stops listening.
    pub fn leave(&mut self) {
        self.hosting.stop.store(true, Ordering::SeqCst);
        let outboxes: Vec<_> = lock(&self.hosting.shared).peers.drain(..).collect();
        let bye = json(&HostMessage::Bye);
        for (_, outbox) in &outboxes {
            outbox.close_with(bye.clone());
        }
        let deadline = Instant::now() + FINISH_PATIENCE;
        for (_, mut outbox) in outboxes {
            if !outbox.wait_until(deadline) {
                outbox.cut();
            }
        }
    }
}
