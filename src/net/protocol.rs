//! The messages of a shared session (JSON inside sealed frames), the protocol version, and the bound on how fast a peer may send.
//!
//! Host to peer: `welcome` (the world to start from and the peer's number),
//! then the shared order: `ordered` commands (numbered from 0, one after
//! another, each with the growth iteration it applied at) and `grew` (how
//! far the host has grown the current seed), `placement` (the hologram's
//! placement relative to the session's card), `heads` (where everyone is,
//! relative to the card), then `bye`. Peer to host: `command` (a terrain
//! command for the host to order), `checksum` (of its grown heights at an
//! ordered command's iteration), `placement` (its wearer moved the
//! hologram, relative to the card), `head` (where its wearer is), `bye`.
//! Both ways `alive`, when an end has said nothing for
//! [`HEARTBEAT_EVERY`], so that silence past [`IDLE_TIMEOUT`] means the
//! other end is gone; and host to peer `closing` (the host closes this
//! connection, and why). Anything else, a field unknown, a number out of
//! order, is a protocol error that closes the connection.
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::app::log::LogStart;
use glam::{Quat, Vec3};

use crate::app::placement::Placement;
use crate::app::{Command, Origin};
use crate::input::Pose;

/// A head relative to the session's card, when the numbers are one
/// (finite, a unit quaternion): position in metres in the card's level
/// frame, orientation (x, y, z, w).
pub fn head_pose(position: [f32; 3], orientation: [f32; 4]) -> Option<Pose> {
    let pose = Pose::new(Vec3::from_array(position), Quat::from_array(orientation));
    (pose.is_finite() && pose.orientation.is_normalized()).then_some(pose)
}

/// One person's head in [`HostMessage::Heads`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadAt {
    /// Whose (the host is 0).
    pub peer: u32,
    /// Metres from the card's centre, in its level frame.
    pub position: [f32; 3],
    /// The head's orientation in that frame.
    pub orientation: [f32; 4],
}

/// The protocol's version: both ends must speak the same (the handshake's
/// first frame carries it, and it is part of the SPAKE2 identity).
pub const PROTOCOL_VERSION: u16 = 3;

/// What the host sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum HostMessage {
    /// The peer's number and the world it starts from; the order follows.
    Welcome {
        /// The peer's number (1 for the first to join).
        peer: u32,
        /// The host's recipe, first seed and map size.
        start: Box<LogStart>,
    },
    /// The next terrain command in the shared order.
    Ordered {
        /// Its number in the order.
        seq: u64,
        /// Who made it.
        origin: Origin,
        /// The iteration of the current seed it applied at.
        iteration: usize,
        /// The command.
        command: Command,
    },
    /// The host has grown the current seed to this iteration.
    Grew {
        /// Iterations done.
        iteration: usize,
    },
    /// Where everyone's head is relative to the card (the host's is
    /// number 0), about ten times a second.
    Heads {
        /// Each head seen with the card, by number.
        heads: Vec<HeadAt>,
    },
    /// The hologram's placement relative to the session's card (whoever
    /// settled it last), for peers that co-locate by the card.
    Placement {
        /// Position, orientation and scale relative to the card's frame.
        #[serde(with = "crate::app::command::placement_fields")]
        relative: Placement,
    },
    /// Nothing new: the host is there ([`HEARTBEAT_EVERY`]).
    Alive,
    /// The host closes this connection, for this reason (the peer sent
    /// something it must not): the peer does not come back.
    Closing {
        /// Why, as the host's log says it.
        why: String,
    },
    /// The host is leaving.
    Bye,
}

/// What a peer sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PeerMessage {
    /// A terrain command of the peer's wearer, for the host to order.
    Command {
        /// The command.
        command: Command,
    },
    /// The checksum of the peer's grown heights just before it applied
    /// ordered command `seq`.
    Checksum {
        /// The ordered command's number.
        seq: u64,
        /// [`crate::app::World::grown_checksum`].
        checksum: u64,
    },
    /// Where the wearer's head is relative to the card, about ten times a
    /// second while it is known.
    Head {
        /// Metres from the card's centre, in its level frame.
        position: [f32; 3],
        /// The head's orientation in that frame.
        orientation: [f32; 4],
    },
    /// The wearer moved the hologram: its placement relative to the card,
    /// for the host to apply and pass on.
    Placement {
        /// Position, orientation and scale relative to the card's frame.
        #[serde(with = "crate::app::command::placement_fields")]
        relative: Placement,
    },
    /// Nothing new: the peer is there ([`HEARTBEAT_EVERY`]).
    Alive,
    /// The peer is leaving.
    Bye,
}

/// How long an end that has nothing to say waits before it says `alive`.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);
/// How long an end waits for the other's next whole message (a heartbeat
/// at least) before it counts the other as gone: a few heartbeats missed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// Most messages a peer may send in a burst (checksums apart: they answer
/// the host's order, and [`PeerMessage::Checksum`]'s numbers bound them).
pub const PEER_BURST: f64 = 60.0;
/// Messages a second a peer may keep sending: heads ten times a second,
/// a heartbeat, placements and commands while its wearer works.
pub const PEER_MESSAGES_PER_SECOND: f64 = 30.0;
/// Most terrain commands a peer may send at once: a wearer's burst (a few
/// taps and words), or what it made while its link was down.
pub const PEER_COMMAND_BURST: f64 = 10.0;
/// Terrain commands a second a peer may keep sending: a hand or a voice
/// makes one every half second at most, and each costs every headset
/// its application and the host's history a line.
pub const PEER_COMMANDS_PER_SECOND: f64 = 3.0;

/// A token bucket: `burst` messages at once, refilled at `per_second`.
#[derive(Debug, Clone)]
pub struct RateLimit {
    tokens: f64,
    burst: f64,
    per_second: f64,
    last: Instant,
}

impl RateLimit {
    /// A full bucket for what a peer originates ([`PEER_BURST`],
    /// [`PEER_MESSAGES_PER_SECOND`]).
    pub fn for_peer() -> Self {
        Self::new(PEER_BURST, PEER_MESSAGES_PER_SECOND)
    }

    /// A full bucket for a peer's terrain commands ([`PEER_COMMAND_BURST`],
    /// [`PEER_COMMANDS_PER_SECOND`]).
    pub fn for_commands() -> Self {
        Self::new(PEER_COMMAND_BURST, PEER_COMMANDS_PER_SECOND)
    }

    /// What a peer holds its own commands to before it sends them: below
    /// [`RateLimit::for_commands`] by a margin, so that the network bunching
    /// them up on the way never makes an honest peer look like a flood.
    pub fn for_sending_commands() -> Self {
        Self::new(PEER_COMMAND_BURST - 3.0, PEER_COMMANDS_PER_SECOND * 0.8)
    }

    /// A full bucket of `burst` tokens refilled at `per_second`.
    pub fn new(burst: f64, per_second: f64) -> Self {
        RateLimit {
            tokens: burst,
            burst,
            per_second,
            last: Instant::now(),
        }
    }

    /// Whether one more message at `now` is within the bound (and takes
    /// its token if so).
    pub fn allow(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_flood_is_cut_off_and_a_steady_pace_is_not() {
        let start = Instant::now();
        let mut limit = RateLimit::new(5.0, 10.0);
        assert!((0..5).all(|_| limit.allow(start)));
        assert!(!limit.allow(start));
        // 10 a second: one every 0.1 s is fine for ever.
        let mut limit = RateLimit::new(5.0, 10.0);
        assert!((1..100).all(|i| limit.allow(start + Duration::from_millis(100 * i))));
    }

    #[test]
    fn the_largest_command_a_peer_may_send_still_fits_a_frame_once_ordered() {
        // Every coordinate as long as JSON writes an f32, every point the
        // check allows, the widest origin and numbers the host can give.
        let longest = -0.000_123_456_79_f32;
        let command = Command::Trace {
            hand: Some(crate::input::Hand::Right),
            points: vec![[longest, longest]; crate::app::command::MAX_TRACE_POINTS],
        };
        assert_eq!(command.check(), Ok(()));
        let ordered = HostMessage::Ordered {
            seq: u64::MAX,
            origin: Origin::Peer(u32::MAX),
            iteration: usize::MAX,
            command,
        };
        let text = serde_json::to_string(&ordered).unwrap();
        // The sealed frame adds a 16-byte tag.
        assert!(
            text.len() + 16 < crate::net::frame::MAX_FRAME_BYTES / 8,
            "{} bytes",
            text.len()
        );
    }

    #[test]
    fn messages_read_back_and_unknown_ones_do_not() {
        let message = PeerMessage::Checksum {
            seq: 3,
            checksum: u64::MAX,
        };
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(
            text,
            r#"{"checksum":{"seq":3,"checksum":18446744073709551615}}"#
        );
        assert_eq!(serde_json::from_str::<PeerMessage>(&text).unwrap(), message);
        let ordered = HostMessage::Ordered {
            seq: 0,
            origin: Origin::Peer(2),
            iteration: 40,
            command: Command::Undo,
        };
        let text = serde_json::to_string(&ordered).unwrap();
        assert!(text.contains(r#""origin":{"peer":2}"#), "{text}");
        assert_eq!(serde_json::from_str::<HostMessage>(&text).unwrap(), ordered);
        for garbage in [
            r#"{"checksum":{"seq":3}}"#,
            r#"{"checksum":{"seq":3,"checksum":1,"extra":0}}"#,
            r#"{"shout":{}}"#,
            "\u{0}\u{1}",
        ] {
            assert!(
                serde_json::from_str::<PeerMessage>(garbage).is_err(),
                "{garbage}"
            );
        }
    }
}
