//! The joining end on the frame loop: [`Peer`] hands the host's order to its app, sends its wearer's commands and checksums, and reconnects when the link drops.
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver};
use std::time::Instant;

use super::limits::RECONNECT_PATIENCE;
use super::limits::{CONNECT_PATIENCE, FINISH_PATIENCE, HEADS_EVERY, MAX_PEERS};
use super::link::{PeerEvent, open_link};
use super::reconnect::{Reconnecting, reconnect};
use super::report::{PeerRecord, ShareReport, Timing, unix_ms};
use super::target::{JoinError, JoinTarget};
use super::wire::{Outbox, Refused, json};
use crate::app::log::LogStart;
use crate::app::{Command, FrameOutput, Ordered, Origin, SessionIn, Step};
use crate::input::Pose;
use crate::net::protocol::{HostMessage, PeerMessage, RateLimit, head_pose};

/// Most of the wearer's terrain commands that wait to be sent (while the
/// link is down, or paced to the host's bound); the wearer's hands and
/// voice never come near it.
pub const MAX_WAITING_COMMANDS: usize = 64;

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
    outbox: Outbox,
    next_seq: u64,
    /// After a reconnect the host sends its whole log again: the commands
    /// below this number are already applied.
    skip_below: Option<u64>,
    gone: Option<String>,
    /// Reaching the host again, while the link is down.
    reconnecting: Option<Reconnecting>,
    /// The wearer's terrain commands not sent yet: made while the link was
    /// down, or held to the host's bound ([`RateLimit::for_sending_commands`]).
    waiting: VecDeque<Command>,
    /// The pace the wearer's commands go at.
    pace: RateLimit,
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
            outbox: link.outbox,
            next_seq: 0,
            skip_below: None,
            gone: None,
            reconnecting: None,
            waiting: VecDeque::new(),
            pace: RateLimit::for_sending_commands(),
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

    /// Before the app's update: the host's order goes to the app as steps.
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
                    } else if let Err(problem) = command.check() {
                        self.leave(
                            into,
                            format!(
                                "it sent a {} command that cannot apply: {problem}; closed the connection",
                                command.kind()
                            ),
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
                // Its reading thread keeps these.
                PeerEvent::Message(HostMessage::Alive | HostMessage::Closing { .. }) => {}
                PeerEvent::Closed(why) => self.leave(into, why),
                PeerEvent::Kicked(why) => {
                    let line = format!(
                        "the host closed this peer's connection (kicked: this peer {why}); keeping the terrain as it left it"
                    );
                    self.leave_saying(into, format!("kicked: this peer {why}"), line);
                }
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
        self.outbox.cut();
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
                link.outbox.cut();
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
                self.outbox.cut();
                self.outbox = link.outbox;
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
        let line = format!("the host left ({why}); keeping the terrain as it left it");
        self.leave_saying(into, why, line);
    }

    /// [`Peer::leave`] for `why`, with `line` for the log.
    fn leave_saying(&mut self, into: &mut Vec<SessionIn>, why: String, line: String) {
        if self.gone.is_some() {
            return;
        }
        self.outbox.cut();
        self.notes.push(line);
        self.gone = Some(why);
        into.push(SessionIn::Step(Step::HostLeft));
    }

    /// After the app's update: the wearer's terrain commands (at the pace
    /// the host allows), its placement, head and checksums go to the
    /// host's queue; its writing thread sends them.
    pub fn after_frame(&mut self, output: &FrameOutput) {
        if self.listening_only {
            return;
        }
        let sent = output.shared.as_ref();
        for command in sent.iter().flat_map(|sent| sent.outbox.iter().cloned()) {
            if self.waiting.len() >= MAX_WAITING_COMMANDS {
                self.notes.push(format!(
                    "dropped the wearer's {} command: {MAX_WAITING_COMMANDS} wait for the host already",
                    command.kind()
                ));
            } else {
                self.waiting.push_back(command);
            }
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
        let mut messages = Vec::new();
        messages.extend(
            sent.and_then(|sent| sent.placement)
                .map(|relative| PeerMessage::Placement { relative }),
        );
        if self
            .head_sent
            .is_none_or(|sent| sent.elapsed() >= HEADS_EVERY)
            && let Some(head) = sent.and_then(|sent| sent.head)
        {
            self.head_sent = Some(Instant::now());
            messages.push(PeerMessage::Head {
                position: head.position.to_array(),
                orientation: head.orientation.to_array(),
            });
        }
        let checksums = sent.map_or(&[][..], |sent| &sent.checksums[..]);
        self.report.checksums_matched += checksums.len() as u64;
        messages.extend(
            checksums
                .iter()
                .map(|&(seq, checksum)| PeerMessage::Checksum { seq, checksum }),
        );
        // Heads and checksums are of the moment; the wearer's commands
        // wait for the link.
        if self.gone.is_some() || self.reconnecting.is_some() {
            return;
        }
        let now = Instant::now();
        let mut batch = Vec::new();
        while !self.waiting.is_empty() && self.pace.allow(now) {
            let command = self.waiting.pop_front().expect("not empty");
            self.report.sent_unix_ms.push(unix_ms());
            batch.push(json(&PeerMessage::Command { command }));
        }
        batch.extend(messages.iter().map(json));
        if batch.is_empty() {
            return;
        }
        if let Err(Refused::Full(capacity)) = self.outbox.send(batch) {
            self.link_dropped(format!(
                "the host took in nothing of what this peer sent while {capacity} frames' messages waited"
            ));
        }
    }

    /// Lines for the log since the last call.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Says goodbye to the host now; the link is gone from then on.
    pub fn say_goodbye(&mut self) {
        self.reconnecting = None;
        if self.gone.is_none() {
            self.outbox.close_with(json(&PeerMessage::Bye));
            if !self.outbox.wait_until(Instant::now() + FINISH_PATIENCE) {
                self.outbox.cut();
            }
            self.gone = Some("this headset left the session".into());
        }
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
            self.outbox.close_with(json(&PeerMessage::Bye));
            if !self.outbox.wait_until(Instant::now() + FINISH_PATIENCE) {
                self.outbox.cut();
            }
        }
        let host = PeerRecord {
            peer: 0,
            address: self.address,
            left: self.gone,
        };
        (self.report, vec![host])
    }
}
