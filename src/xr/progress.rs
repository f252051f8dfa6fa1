//! What a running session tells its caller as it happens: the remoting
//! connection (listening, connected, disconnected, reconnecting), the
//! shared session, session states, frames drawn, reseeds and placements. The library only hands
//! these over; `main.rs` decides what to print: [`Progress::console_line`]
//! always (for the person at the PC), the `--progress` line ([`Progress`]'s
//! `Display`) for scripts.

use std::fmt;
use std::time::Duration;

use crate::app::{PlacementCause, ReseedCause};
use crate::input::Hand;
use crate::xr::sys::remoting::{disconnect_reason, disconnect_reason_name};

/// One thing that just happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// The app listens for a player on this handshake port (`--listen`).
    RemotingListening {
        /// The port.
        port: u16,
    },
    /// Holographic Remoting is connected.
    RemotingConnected {
        /// The player's address, or the address listened on.
        peer: String,
        /// Whether the player connected to the app (`--listen`).
        listening: bool,
    },
    /// The Holographic Remoting connection ended, with the runtime's
    /// XrRemotingDisconnectReasonMSFT.
    RemotingDisconnected {
        /// The reason.
        reason: u32,
    },
    /// The app waits, then tries to connect again.
    RemotingReconnecting {
        /// The player's address, or the address listened on.
        peer: String,
        /// Which attempt (1 for the first).
        attempt: u32,
        /// `--remote-retries`, if it limits the attempts.
        limit: Option<u32>,
        /// How long it waits before this attempt.
        delay: Duration,
        /// Why the connection (or the attempt before) ended, by name.
        after: String,
    },
    /// The shared session says something (hosting with its code, a peer
    /// joined or left, a checksum that differed).
    Shared(String),
    /// The runtime moved the session to this state (e.g. "FOCUSED").
    SessionState(&'static str),
    /// A frame was submitted with the terrain; this many so far.
    FrameDrawn(u64),
    /// A hand's select action went down this frame (seen by the app, so a
    /// script driving the runtime knows it may let go).
    SelectPressed(Hand),
    /// A controller's menu button went down this frame.
    MenuPressed(Hand),
    /// A hand's ray came onto a button (its label) or left the buttons
    /// (`None`), so a script aiming a controller knows when it is on one.
    RayOn {
        /// Whose ray.
        hand: Hand,
        /// The button's label.
        label: Option<&'static str>,
    },
    /// A button was pressed and did what it says.
    Pressed {
        /// Its label.
        label: &'static str,
        /// "poke", "ray" or "voice".
        how: &'static str,
    },
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
    /// A printed QR code was handed to the app for the first time.
    MarkerSeen {
        /// The text it holds.
        text: String,
        /// Its centre, metres.
        position: [f32; 3],
    },
}

impl Progress {
    /// The line for the person at the PC, for the remoting events and the
    /// shared session's; `None` for the others. Disconnect reasons appear by Microsoft's name, as
    /// its documentation (and the zip's README) lists them.
    pub fn console_line(&self) -> Option<String> {
        const PREFIX: &str = "holographic remoting:";
        match self {
            Progress::RemotingListening { port } => Some(format!(
                "{PREFIX} LISTENING on port {port} (and {} for the stream) for a player to connect; Ctrl-C to stop",
                port.saturating_add(1)
            )),
            Progress::RemotingConnected {
                peer,
                listening: false,
            } => Some(format!("{PREFIX} CONNECTED to {peer}")),
            Progress::RemotingConnected {
                peer,
                listening: true,
            } => Some(format!("{PREFIX} CONNECTED (a player connected to {peer})")),
            Progress::RemotingDisconnected { reason } => Some(format!(
                "{PREFIX} DISCONNECTED ({}: {})",
                disconnect_reason_name(*reason),
                disconnect_reason(*reason)
            )),
            Progress::RemotingReconnecting {
                peer,
                attempt,
                limit,
                delay,
                after,
            } => Some(format!(
                "{PREFIX} reconnecting to {peer} in {} s, attempt {attempt}{} after {after}; Ctrl-C to stop",
                delay.as_secs(),
                limit
                    .map(|limit| format!(" of {limit}"))
                    .unwrap_or_default()
            )),
            Progress::Shared(line) => Some(format!("share: {line}")),
            _ => None,
        }
    }
}

/// The `--progress` line: `state FOCUSED`, `frame 12`, `select down right`,
/// `menu down right`, `ray right on Landscapes`, `ray right off`,
/// `pressed ray Landscapes`,
/// `reseed select 1234`,
/// `placed grab 0.200 1.300 -1.000 1.000` (position, scale),
/// `marker holoterrain:7-guitar-orbit 0.300 0.750 -2.400` (text, centre),
/// `remoting connected`, `remoting disconnected 17`, `remoting reconnecting 2`.
impl fmt::Display for Progress {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::RemotingListening { port } => write!(formatter, "remoting listening {port}"),
            Progress::RemotingConnected { .. } => formatter.write_str("remoting connected"),
            Progress::RemotingDisconnected { reason } => {
                write!(formatter, "remoting disconnected {reason}")
            }
            Progress::RemotingReconnecting { attempt, .. } => {
                write!(formatter, "remoting reconnecting {attempt}")
            }
            Progress::Shared(line) => write!(formatter, "share {line}"),
            Progress::SessionState(state) => write!(formatter, "state {state}"),
            Progress::FrameDrawn(frames) => write!(formatter, "frame {frames}"),
            Progress::SelectPressed(hand) => write!(formatter, "select down {}", hand_name(*hand)),
            Progress::MenuPressed(hand) => write!(formatter, "menu down {}", hand_name(*hand)),
            Progress::RayOn {
                hand,
                label: Some(label),
            } => write!(formatter, "ray {} on {label}", hand_name(*hand)),
            Progress::RayOn { hand, label: None } => {
                write!(formatter, "ray {} off", hand_name(*hand))
            }
            Progress::Pressed { label, how } => write!(formatter, "pressed {how} {label}"),
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
            Progress::MarkerSeen {
                text,
                position: [x, y, z],
            } => write!(formatter, "marker {text} {x:.3} {y:.3} {z:.3}"),
        }
    }
}

/// The hand as a progress line names it.
fn hand_name(hand: Hand) -> &'static str {
    match hand {
        Hand::Left => "left",
        Hand::Right => "right",
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
            Progress::SelectPressed(Hand::Left).to_string(),
            "select down left"
        );
        assert_eq!(
            Progress::MenuPressed(Hand::Right).to_string(),
            "menu down right"
        );
        assert_eq!(
            Progress::RayOn {
                hand: Hand::Right,
                label: Some("New terrain")
            }
            .to_string(),
            "ray right on New terrain"
        );
        assert_eq!(
            Progress::RayOn {
                hand: Hand::Left,
                label: None
            }
            .to_string(),
            "ray left off"
        );
        assert_eq!(
            Progress::Pressed {
                label: "Landscapes",
                how: "ray"
            }
            .to_string(),
            "pressed ray Landscapes"
        );
        assert_eq!(
            Progress::Reseeded {
                cause: ReseedCause::Voice,
                seed: 99
            }
            .to_string(),
            "reseed voice 99"
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
            Progress::MarkerSeen {
                text: "holoterrain:7-guitar-orbit".into(),
                position: [0.3, 0.75, -2.4],
            }
            .to_string(),
            "marker holoterrain:7-guitar-orbit 0.300 0.750 -2.400"
        );
        assert_eq!(
            Progress::RemotingDisconnected { reason: 17 }.to_string(),
            "remoting disconnected 17"
        );
    }

    #[test]
    fn console_lines_name_the_reason_as_microsoft_does() {
        assert_eq!(
            Progress::RemotingDisconnected { reason: 17 }
                .console_line()
                .as_deref(),
            Some(
                "holographic remoting: DISCONNECTED (XR_REMOTING_DISCONNECT_REASON_CONNECTION_LOST_MSFT: connection lost)"
            )
        );
        let reconnecting = Progress::RemotingReconnecting {
            peer: "192.168.1.20:8265".into(),
            attempt: 2,
            limit: Some(5),
            delay: Duration::from_secs(2),
            after: disconnect_reason_name(4),
        };
        assert_eq!(
            reconnecting.console_line().as_deref(),
            Some(
                "holographic remoting: reconnecting to 192.168.1.20:8265 in 2 s, attempt 2 of 5 after XR_REMOTING_DISCONNECT_REASON_HANDSHAKE_UNREACHABLE_MSFT; Ctrl-C to stop"
            )
        );
        assert_eq!(Progress::FrameDrawn(1).console_line(), None);
    }
}
