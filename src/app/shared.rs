//! A shared session as the app core sees it: the host's order of terrain commands, each tied to the growth iteration at which it applies, and the iteration a peer may grow to.
//!
//! The network (`crate::net`) carries the messages; this is what they do to
//! the world, so that every headset holds the host's heights bit for bit:
//! - The host applies commands as a lone app does (its wearer's, and the
//!   peers' handed in with [`super::App::submit_from`]); every terrain
//!   command it applied, with its iteration, is the shared order.
//! - A peer never applies its wearer's terrain commands: they wait in the
//!   outbox ([`super::App::take_outbox`]) for the network to send them to
//!   the host, and come back in the host's order as [`Step::Apply`]. It
//!   grows by the host's clock, not its own: [`Step::GrowTo`] holds growth
//!   to the iteration the host announced ([`super::World::set_growth_limit`]),
//!   so a peer is never ahead of an order it has not seen, and no command
//!   ever finds it past the iteration it belongs to: nothing is rewound.
//!   A command at iteration K makes it grow straight to K first
//!   ([`super::World::catch_up_to`]), which is also how a late joiner
//!   catches up from the host's log.
//!
//! This is the command log's replay ([`super::log::CommandLog::replay_offline`]:
//! grow to the entry's iteration, apply) done live, one step at a time.
//! Placement commands stay each headset's own.
use std::collections::VecDeque;

use super::command::{Command, Origin};

/// One terrain command in the shared order.
#[derive(Debug, Clone, PartialEq)]
pub struct Ordered {
    /// Its place in the shared order: 0 for the session's first, then one
    /// more each (not the local log's `seq`, which counts placements too).
    pub seq: u64,
    /// Who made it, as the host tells.
    pub origin: Origin,
    /// The iteration of the current seed at which the host applied it.
    pub iteration: usize,
    /// The command.
    pub command: Command,
}

/// What the host tells a peer to do, in the host's order.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Grow to the command's iteration, then apply it.
    Apply(Ordered),
    /// The host has grown the current seed to this iteration: grow to it,
    /// never past it.
    GrowTo(usize),
    /// The host has gone: the terrain stays as the host last had it
    /// (growth held at its last iteration), the wearer's commands apply
    /// here again, and the next new terrain grows by this headset's clock.
    HostLeft,
}

/// This app's part in a shared session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// It decides the order.
    Host,
    /// It follows the host's.
    Peer,
}

/// What the app keeps for a shared session between frames.
#[derive(Debug)]
pub(super) struct Sharing {
    pub role: Role,
    /// The host's steps not applied yet (a peer's).
    pub steps: VecDeque<Step>,
    /// The wearer's terrain commands for the host (a peer's).
    pub outbox: Vec<Command>,
    /// (key, checksum of the grown heights just before the command
    /// applied): on the host the key is the command's local `seq`, on a
    /// peer its shared [`Ordered::seq`].
    pub checksums: Vec<(u64, u64)>,
}

impl Sharing {
    pub fn new(role: Role) -> Self {
        Sharing {
            role,
            steps: VecDeque::new(),
            outbox: Vec::new(),
            checksums: Vec::new(),
        }
    }
}
