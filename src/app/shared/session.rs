//! What a shared session and the app hand each other: the host's order of terrain commands and the steps a peer follows, and the values that cross in each frame's input and output.
//!
//! The network translates bytes into these values and back
//! (`crate::net`); what they do to the world is [`super`]'s.
use crate::app::world::command::{Command, Origin};
use crate::app::world::placement::Placement;
use crate::input::Pose;

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

/// What a shared session brings into a frame ([`crate::app::FrameInput::shared`]),
/// as values: the network translates bytes into these and never reaches
/// into the app; the app applies them before the frame's own commands.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionIn {
    /// This headset now takes part in a session as `role`, co-located by
    /// the card of `code`.
    Began {
        /// Host or peer.
        role: Role,
        /// The session's code (its card reads `holoterrain:CODE`).
        code: String,
    },
    /// This headset's number in the session, as the host gave it (its own
    /// head is not marked).
    Number(u32),
    /// A terrain command a peer made, for the host to order.
    Command(Command, Origin),
    /// What the host ordered, for a peer to follow.
    Step(Step),
    /// A placement relative to the card that another headset settled.
    Placement(Placement, Origin),
    /// Everyone's heads relative to the card, by number.
    Heads(Vec<(u32, Pose)>),
    /// This headset has left the session: the terrain stays as it is and
    /// the wearer's commands apply here alone.
    Left,
}

/// What the app hands a shared session after a frame
/// ([`crate::app::FrameOutput::shared`]), as values the network sends on.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionOut {
    /// The wearer's terrain commands a peer holds back for the host.
    pub outbox: Vec<Command>,
    /// The hologram's placement relative to the card, when it settled here.
    pub placement: Option<Placement>,
    /// The wearer's head relative to the card, once the card is known.
    pub head: Option<Pose>,
    /// (key, checksum of the grown heights just before a terrain command
    /// applied) this frame: the key is the command's local `seq`, on a
    /// peer its shared [`Ordered::seq`].
    pub checksums: Vec<(u64, u64)>,
}
