//! The events a script holds: what the simulated user does and when, what a `wait` waits for, how a `press` is made.
use std::fmt;

use glam::Vec3;

use crate::input::Hand;

/// What the simulated user does.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Pinch thumb and index of `hand`.
    AirTap {
        /// Which hand pinches.
        hand: Hand,
        /// True when hand and head point away from the hologram.
        away: bool,
    },
    /// Push the index tip of `hand` into the terrain at (u, v).
    Tap {
        /// Which hand taps.
        hand: Hand,
        /// Across the terrain, 0..1 left to right.
        u: f32,
        /// Along the terrain, 0..1 far to near.
        v: f32,
    },
    /// Press the select button of the controller in `hand`.
    Select {
        /// Which controller.
        hand: Hand,
    },
    /// Pinch aiming at the land's surface at the first point and keep
    /// pinching while the aim sweeps through the others at constant speed,
    /// the hand moving across with it, then release: a traced fault.
    Trace {
        /// Which hand.
        hand: Hand,
        /// How long the pinch lasts, seconds.
        seconds: f64,
        /// The (u, v) points, at least two, each in 0..1.
        points: Vec<[f32; 2]>,
    },
    /// Pinch aiming at the land's surface at (u, v) and raise the hand `dh`
    /// metres (negative: lower it) over `seconds`, then release: a lifted hill.
    Lift {
        /// Which hand.
        hand: Hand,
        /// How long the pinch lasts, seconds.
        seconds: f64,
        /// Across the terrain, 0..1 left to right.
        u: f32,
        /// Along the terrain, 0..1 far to near.
        v: f32,
        /// How far the hand rises, metres.
        dh: f32,
    },
    /// Pinch aiming at the hologram's base (below the land's edge, on the
    /// side facing the head) and keep pinching while the hand moves by
    /// `delta` at constant speed, then release.
    Hold {
        /// Which hand.
        hand: Hand,
        /// How long the pinch lasts, seconds.
        seconds: f64,
        /// How far the hand moves meanwhile, metres.
        delta: Vec3,
    },
    /// Both hands pinch on the hologram; over `seconds` the line between
    /// them turns `degrees` about the vertical (counter-clockwise seen from
    /// above) and their distance changes by `scale`; then both release.
    TwoHand {
        /// How long both pinch, seconds.
        seconds: f64,
        /// How far their line turns, degrees.
        degrees: f32,
        /// The factor their distance changes by.
        scale: f32,
    },
    /// Squeeze the controller in `hand` for `seconds` while it moves by `delta`.
    Grab {
        /// Which controller.
        hand: Hand,
        /// How long the squeeze lasts, seconds.
        seconds: f64,
        /// How far the controller moves meanwhile, metres.
        delta: Vec3,
    },
    /// Move the head to `position`, looking at `look_at`, and stop orbiting.
    Head {
        /// Where the head goes (metres).
        position: Vec3,
        /// The point it looks at.
        look_at: Vec3,
    },
    /// The runtime stops asking for frames: the display clock jumps this far
    /// ahead with no frame shown in between.
    Stall {
        /// How far the clock jumps, in seconds.
        seconds: f64,
    },
    /// Holographic Remoting loses its connection with this
    /// `XrRemotingDisconnectReasonMSFT` (played by the test runtime only).
    Disconnect {
        /// The reason code the runtime reports.
        reason: u32,
        /// How many attempts to reconnect the player refuses afterwards.
        refusals: u32,
    },
    /// The wearer says these words (lower case, single spaces).
    Say {
        /// What is said.
        words: String,
    },
    /// The wearer holds `hand` up, flat and open, palm to the face, and
    /// looks at it for `seconds` (the hand menu shows beside it).
    Palm {
        /// Which hand.
        hand: Hand,
        /// How long, seconds.
        seconds: f64,
    },
    /// The wearer presses the button labelled `label` if it is on show
    /// then: with the index tip (`poke`) or the hand's ray and a pinch
    /// (`ray`), by `hand` (by default the hand not showing its palm, else
    /// the right).
    Press {
        /// The label, as the button spells it.
        label: &'static str,
        /// How.
        with: PressWith,
        /// Which hand, when the script says.
        hand: Option<Hand>,
        /// Where across the button, 0 its left edge to 1 its right (the
        /// middle, but for `scrub`, which presses the time slider).
        along: f32,
    },
    /// The script's clock holds here until `until` holds (the simulator's
    /// frame loop plays it; every later event comes that much later).
    Wait {
        /// What it waits for.
        until: Condition,
    },
}

/// What a scripted `wait` waits for: the run's standing in a shared session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// The run is a peer of a session (by `--join` or by a card) whose host
    /// has not left it.
    Joined,
    /// The run hosts a session and at least this many peers are connected.
    Peers(usize),
    /// Nobody else is in the run's session now: it hosts and no peer is
    /// connected, or it joined and the host has left.
    Alone,
    /// The session's shared order, as this run has taken it in, holds at
    /// least this many terrain commands (the host: those it ordered,
    /// including a session's first made alone before "Share session"; a
    /// peer: those it received and applied).
    Ordered(u64),
}

impl fmt::Display for Condition {
    /// As the script spells it: `joined`, `peers 2`, `alone`, `ordered 7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Joined => write!(f, "joined"),
            Condition::Peers(n) => write!(f, "peers {n}"),
            Condition::Alone => write!(f, "alone"),
            Condition::Ordered(n) => write!(f, "ordered {n}"),
        }
    }
}

/// How a scripted `press` is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PressWith {
    /// The index tip pushes the button in and comes back out.
    Poke,
    /// The hand's ray on the button, with a pinch.
    Ray,
}

/// One line of the script.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptEvent {
    /// When it happens, in seconds from the first frame.
    pub time_s: f64,
    /// What happens.
    pub action: Action,
    /// The line it came from (1-based), for messages.
    pub line: usize,
}
