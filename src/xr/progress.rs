//! What a running session tells its caller as it happens: the remoting
//! connection, session states, frames drawn, reseeds and placements. The library only
//! hands these over; `main.rs` decides what to print (the remoting lines
//! always, the rest with `--progress`).

use std::fmt;

use crate::app::{PlacementCause, ReseedCause};

/// One thing that just happened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// Holographic Remoting reached the player.
    RemotingConnected,
    /// The Holographic Remoting connection ended, for this reason (the
    /// runtime's words, from `remoting::disconnect_reason`).
    RemotingDisconnected(&'static str),
    /// The runtime moved the session to this state (e.g. "FOCUSED").
    SessionState(&'static str),
    /// A frame was submitted with the terrain; this many so far.
    FrameDrawn(u64),
    /// The terrain started over from `seed`.
    Reseeded {
        /// What asked for it.
        cause: ReseedCause,
        /// The new seed.
        seed: u64,
    },
    /// The hologram's placement settled.
    Placed {
        /// What placed it.
        cause: PlacementCause,
        /// Centre of its base, metres.
        position: [f32; 3],
        /// Its scale.
        scale: f32,
    },
}

/// The `--progress` line: `state FOCUSED`, `frame 12`, `reseed select 1234`,
/// `placed grab 0.200 1.300 -1.000 1.000` (position, scale),
/// `remoting connected`, `remoting disconnected (connection lost)`.
impl fmt::Display for Progress {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::RemotingConnected => formatter.write_str("remoting connected"),
            Progress::RemotingDisconnected(reason) => {
                write!(formatter, "remoting disconnected ({reason})")
            }
            Progress::SessionState(state) => write!(formatter, "state {state}"),
            Progress::FrameDrawn(frames) => write!(formatter, "frame {frames}"),
            Progress::Reseeded { cause, seed } => {
                write!(formatter, "reseed {} {seed}", cause.name())
            }
            Progress::Placed {
                cause,
                position: [x, y, z],
                scale,
            } => write!(
                formatter,
                "placed {} {x:.3} {y:.3} {z:.3} {scale:.3}",
                cause.name()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_progress_line_names_its_kind_first() {
        assert_eq!(
            Progress::SessionState("FOCUSED").to_string(),
            "state FOCUSED"
        );
        assert_eq!(Progress::FrameDrawn(12).to_string(), "frame 12");
        assert_eq!(
            Progress::Reseeded {
                cause: ReseedCause::AirTap,
                seed: 99
            }
            .to_string(),
            "reseed airtap 99"
        );
        assert_eq!(
            Progress::Placed {
                cause: PlacementCause::Grab,
                position: [0.2, 1.3, -1.0],
                scale: 1.0
            }
            .to_string(),
            "placed grab 0.200 1.300 -1.000 1.000"
        );
        assert_eq!(
            Progress::RemotingDisconnected("connection lost").to_string(),
            "remoting disconnected (connection lost)"
        );
    }
}
