//! What the host's frame loop and its listening threads share: the events the threads send ([`HostEvent`]), the order so far and each peer's outbox under one lock ([`Shared`]), and the budget that keeps refusals from flooding the log.
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::gate::{Gate, lock};
use super::wire::{Json, Outbox, json};
use crate::app::log::LogStart;
use crate::net::code::ShareCode;
use crate::net::protocol::HostMessage;

/// Most refusal lines a second; the rest are counted in one line.
pub const REFUSAL_LINES_PER_SECOND: u32 = 5;

/// What the host's threads tell its frame loop.
pub(super) enum HostEvent {
    /// A peer is in (its catch-up is queued already).
    Joined { peer: u32, address: SocketAddr },
    /// A peer's message, within its bounds.
    Message {
        peer: u32,
        message: crate::net::protocol::PeerMessage,
    },
    /// A peer's link ended: it said bye, closed, went silent, or took in
    /// nothing.
    Left { peer: u32, why: String },
    /// A peer sent what it must not: the frame loop closes it, saying why.
    Misbehaved { peer: u32, why: String },
    /// A line about a connection that did not become a peer.
    Refused(String),
}

/// The order so far and the peers' outboxes: the frame loop's broadcasts
/// and a joiner's catch-up are queued under this one lock, so a joiner
/// gets every ordered command once, in order.
pub(super) struct Shared {
    /// The world the session starts from.
    pub(super) start: LogStart,
    /// Every ordered command so far (`ordered` messages), for joiners.
    pub(super) history: Vec<Json>,
    /// The iteration last announced.
    pub(super) grew: usize,
    /// The hologram's placement relative to the card as last passed on.
    pub(super) placement: Option<Json>,
    /// The peers in the session, each with its outbox.
    pub(super) peers: Vec<(u32, Outbox)>,
    /// The next joiner's number.
    pub(super) next_peer: u32,
}

impl Shared {
    /// What the joiner numbered `peer` gets first: its welcome, the order
    /// so far, how far the host has grown, and the placement.
    pub(super) fn catch_up(&self, peer: u32) -> Vec<Json> {
        let welcome = json(&HostMessage::Welcome {
            peer,
            start: Box::new(self.start.clone()),
        });
        std::iter::once(welcome)
            .chain(self.history.iter().cloned())
            .chain(std::iter::once(json(&HostMessage::Grew {
                iteration: self.grew,
            })))
            .chain(self.placement.clone())
            .collect()
    }

    /// Takes `peer` out of the session: its outbox, if it was in.
    pub(super) fn take(&mut self, peer: u32) -> Option<Outbox> {
        let index = self.peers.iter().position(|(id, _)| *id == peer)?;
        Some(self.peers.remove(index).1)
    }
}

/// Refusal lines said and held back in the current second.
struct LineBudget {
    since: Instant,
    said: u32,
    held_back: u32,
}

/// The host's state that its threads share.
pub(super) struct Hosting {
    pub(super) code: ShareCode,
    pub(super) shared: Mutex<Shared>,
    /// Terrain commands ordered so far: a peer's checksum must be for one.
    pub(super) ordered: Arc<AtomicU64>,
    pub(super) events: Sender<HostEvent>,
    pub(super) stop: AtomicBool,
    /// The back-off after wrong codes.
    pub(super) gate: Gate,
    lines: Mutex<LineBudget>,
}

impl Hosting {
    pub(super) fn new(code: ShareCode, shared: Shared, events: Sender<HostEvent>) -> Self {
        Hosting {
            code,
            ordered: Arc::new(AtomicU64::new(shared.history.len() as u64)),
            shared: Mutex::new(shared),
            events,
            stop: AtomicBool::new(false),
            gate: Gate::default(),
            lines: Mutex::new(LineBudget {
                since: Instant::now(),
                said: 0,
                held_back: 0,
            }),
        }
    }

    /// Says `line` about a connection refused, within
    /// [`REFUSAL_LINES_PER_SECOND`]: hundreds of connections held open
    /// cost the log a few lines a second, not one each.
    pub(super) fn refuse(&self, line: String) {
        let mut lines = lock(&self.lines);
        self.roll(&mut lines);
        if lines.said < REFUSAL_LINES_PER_SECOND {
            lines.said += 1;
            let _ = self.events.send(HostEvent::Refused(line));
        } else {
            lines.held_back += 1;
        }
    }

    /// Says how many refusal lines were held back, once their second is over.
    pub(super) fn say_held_back(&self) {
        let mut lines = lock(&self.lines);
        self.roll(&mut lines);
    }

    fn roll(&self, lines: &mut LineBudget) {
        if lines.since.elapsed() < Duration::from_secs(1) {
            return;
        }
        if lines.held_back > 0 {
            let _ = self.events.send(HostEvent::Refused(format!(
                "left out {} more lines about connections refused or closed in the last {:.1} s",
                lines.held_back,
                lines.since.elapsed().as_secs_f64()
            )));
        }
        *lines = LineBudget {
            since: Instant::now(),
            said: 0,
            held_back: 0,
        };
    }
}
