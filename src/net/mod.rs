//! A shared session: several headsets, one terrain — session codes, the SPAKE2 handshake, sealed length-prefixed frames, and the host and peer ends that carry the shared order of terrain commands (docs/shared.md).
//!
//! Only commands travel, never heights: the terrain is bit-identical
//! wherever the same recipe, seed and ordered commands grow it. What the
//! order does to the world is the app core's (`crate::app::shared`); this
//! module carries it: [`code`] (the `NUMBER-word-word` codes),
//! [`handshake`] (SPAKE2 over the code, keys through HKDF), [`frame`]
//! (length-prefixed frames sealed with ChaCha20-Poly1305), [`protocol`]
//! (the messages, the version, the rate bound) and [`session`] (the host
//! and the peer on a platform's frame loop). The platform calls
//! [`Session::before_frame`] before `App::update` and
//! [`Session::after_frame`] after it.
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

use crate::app::{App, FrameOutput, Role};

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

impl Session {
    /// The app's part in it.
    pub fn role(&self) -> Role {
        match self {
            Session::Host(_) => Role::Host,
            Session::Peer(_) => Role::Peer,
        }
    }

    /// The session's code.
    pub fn code(&self) -> String {
        match self {
            Session::Host(host) => host.code().to_string(),
            Session::Peer(peer) => peer.code().to_owned(),
        }
    }

    /// Before the app's update: what came in goes to the app.
    pub fn before_frame(&mut self, app: &mut App) {
        match self {
            Session::Host(host) => host.before_frame(app),
            Session::Peer(peer) => peer.before_frame(app),
        }
    }

    /// After the app's update: what it made goes out.
    pub fn after_frame(&mut self, app: &mut App, output: &FrameOutput) {
        match self {
            Session::Host(host) => host.after_frame(app, output),
            Session::Peer(peer) => peer.after_frame(app),
        }
    }

    /// Lines for the log since the last call.
    pub fn take_notes(&mut self) -> Vec<String> {
        match self {
            Session::Host(host) => host.take_notes(),
            Session::Peer(peer) => peer.take_notes(),
        }
    }

    /// Leaves the session; what it did, and who took part.
    pub fn finish(self) -> (ShareReport, Vec<PeerRecord>) {
        match self {
            Session::Host(host) => host.finish(),
            Session::Peer(peer) => peer.finish(),
        }
    }
}
