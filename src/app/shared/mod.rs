//! A shared session as the app core sees it: the host's order of terrain commands, each tied to the growth iteration at which it applies, and the iteration a peer may grow to.
//!
//! The network (`crate::net`) carries the messages; this is what they do to
//! the world, so that every headset holds the host's heights bit for bit:
//! - The host applies commands as a lone app does (its wearer's, and the
//!   peers' handed in as [`SessionIn::Command`]); every terrain
//!   command it applied, with its iteration, is the shared order. An
//!   "undo" is ordered only when the change on top is the speaker's own
//!   ([`authors`]): one that is not is dropped there, so no peer, log or
//!   replay ever sees it.
//! - A peer never applies its wearer's terrain commands: they wait in the
//!   outbox ([`SessionOut::outbox`]) for the network to send them to
//!   the host, and come back in the host's order as [`Step::Apply`]. It
//!   grows by the host's clock, not its own: [`Step::GrowTo`] holds growth
//!   to the iteration the host announced ([`super::World::set_growth_limit`]),
//!   so a peer is never ahead of an order it has not seen, and no command
//!   ever finds it past the iteration it belongs to: nothing is rewound.
//!   A command at iteration K makes it grow straight to K first
//!   ([`super::World::catch_up_to`]), which is also how a late joiner
//!   catches up from the host's log.
//!
//! This is the command log's replay ([`crate::app::run::log::CommandLog::replay_offline`]:
//! grow to the entry's iteration, apply) done live, one step at a time.
//! Placement commands stay each headset's own, unless the headsets see
//! the session's printed card ([`super::colocation`]): then the hologram's
//! placement relative to the card passes between them, the host's to every
//! peer and a peer's wearer's through the host, so that everyone's
//! hologram stands on the same spot of the table.
pub mod authors;
pub mod colocation;
pub mod session;
use std::collections::VecDeque;

use self::authors::Authors;
use self::colocation::Card;
pub use self::session::{Ordered, Role, SessionIn, SessionOut, Step};
use crate::app::world::command::{Command, Origin};
use crate::app::world::placement::Placement;
use crate::input::Pose;

/// What the app keeps for a shared session between frames.
#[derive(Debug)]
pub(super) struct Sharing {
    pub role: Role,
    /// The host's steps not applied yet (a peer's).
    pub steps: VecDeque<Step>,
    /// The wearer's terrain commands for the host (a peer's).
    pub outbox: Vec<Command>,
    /// The session's card, when headsets co-locate by it ([`colocation`]).
    pub card: Option<Card>,
    /// A placement relative to the card that another headset settled
    /// (with who), to apply once the card is seen.
    pub placement_in: Option<(Placement, Origin)>,
    /// The placement relative to the card for the network to pass on: the
    /// host's to every peer, a peer's wearer's to the host.
    pub placement_out: Option<Placement>,
    /// This headset's number in the session (the host's is 0), once known.
    pub me: Option<u32>,
    /// The wearer's head relative to the card, as of the last frame.
    pub head: Option<Pose>,
    /// Everyone's heads relative to the card, as the host last told.
    pub heads: Vec<(u32, Pose)>,
    /// Who made the changes undo can take back (kept by the host, which
    /// alone decides whether an undo is ordered).
    pub authors: Authors,
}

impl Sharing {
    pub fn new(role: Role) -> Self {
        Sharing {
            role,
            steps: VecDeque::new(),
            outbox: Vec::new(),
            card: None,
            placement_in: None,
            placement_out: None,
            me: (role == Role::Host).then_some(0),
            head: None,
            heads: Vec::new(),
            authors: Authors::default(),
        }
    }
}
