//! A shared session: several headsets, one terrain — session codes, the SPAKE2 handshake, sealed length-prefixed frames, and the host and peer ends that carry the shared order of terrain commands (docs/shared.md).
//!
//! Only commands travel, never heights: the terrain is bit-identical
//! wherever the same recipe, seed and ordered commands grow it. What the
//! order does to the world is the app core's (`crate::app::shared`); this
//! module carries it: [`code`] (the `NUMBER-word-word` codes),
//! [`handshake`] (SPAKE2 over the code, keys through HKDF), [`frame`]
//! (length-prefixed frames sealed with ChaCha20-Poly1305), [`protocol`]
//! (the messages, the version, the rate bound) and [`session`] (the host
//! and the peer on a platform's frame loop). The run loop
//! (`crate::app::run`) drives a [`Session`] through
//! [`SharedSession`]: what comes in becomes values in the frame's input,
//! what the frame made goes out; this module never reaches into the app.
pub mod card;
pub mod card_join;
pub mod code;
#[cfg(target_vendor = "uwp")]
pub mod device_discovery;
#[cfg(not(target_vendor = "uwp"))]
pub mod discovery;
pub mod frame;
pub mod handshake;
pub mod open;
pub mod protocol;
pub mod session;

pub use code::ShareCode;
pub use session::{Host, JoinTarget, Peer, PeerRecord, ShareReport};

use crate::app::log::{CommandLog, LogStart};
use crate::app::run::{Network, SharedSession};
use crate::app::{FrameOutput, Marker, Role, SessionIn};

/// The port a host listens on unless told otherwise (`--share-port`), and
/// the one `--join CODE@HOST` connects to without a port.
pub const DEFAULT_SHARE_PORT: u16 = 47180;

/// This headset's end of a shared session.
pub enum Session {
    /// It hosts.
    Host(Box<Host>),
    /// It joined.
    Peer(Box<Peer>),
}

impl SharedSession for Session {
    fn role(&self) -> Role {
        match self {
            Session::Host(_) => Role::Host,
            Session::Peer(_) => Role::Peer,
        }
    }

    fn code(&self) -> String {
        match self {
            Session::Host(host) => host.code().to_string(),
            Session::Peer(peer) => peer.code().to_owned(),
        }
    }

    fn before_frame(&mut self, into: &mut Vec<SessionIn>) {
        match self {
            Session::Host(host) => host.before_frame(into),
            Session::Peer(peer) => peer.before_frame(into),
        }
    }

    fn after_frame(&mut self, output: &FrameOutput) {
        match self {
            Session::Host(host) => host.after_frame(output),
            Session::Peer(peer) => peer.after_frame(output),
        }
    }

    fn take_notes(&mut self) -> Vec<String> {
        match self {
            Session::Host(host) => host.take_notes(),
            Session::Peer(peer) => peer.take_notes(),
        }
    }
}

impl Session {
    /// Leaves the session; what it did, and who took part.
    pub fn finish(self) -> (ShareReport, Vec<PeerRecord>) {
        match self {
            Session::Host(host) => host.finish(),
            Session::Peer(peer) => peer.finish(),
        }
    }
}

/// The local network as a headset in no session reaches it: hosting from
/// where the world stands ("Share session") on `port`, advertised by
/// DNS-SD when `listed`, and joining the session whose card is seen.
pub struct LocalNetwork {
    port: u16,
    listed: bool,
    card_join: card_join::CardJoin,
}

impl LocalNetwork {
    /// Hosts on `port` (advertised when `listed`) when asked.
    pub fn new(port: u16, listed: bool) -> Self {
        LocalNetwork {
            port,
            listed,
            card_join: card_join::CardJoin::default(),
        }
    }
}

impl Network for LocalNetwork {
    type Session = Session;

    fn host_from_here(
        &mut self,
        so_far: &CommandLog,
        grew: usize,
        checksums: Vec<(u64, u64)>,
    ) -> Result<(Session, String), String> {
        let code = ShareCode::generate().map_err(|error| error.to_string())?;
        open::host_from(code, self.port, self.listed, so_far, grew, checksums)
            .map_err(|error| error.to_string())
    }

    fn look_for_cards(&mut self, markers: &[Marker]) -> Option<String> {
        self.card_join.look(markers)
    }

    fn joined_by_card(&mut self) -> Option<Result<(Session, LogStart), String>> {
        self.card_join
            .finished()
            .map(|joined| joined.map(|joined| (joined.session, joined.start)))
    }
}
