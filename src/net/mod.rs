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
//! [`crate::app::run::SharedSession`]: what comes in becomes values in the frame's input,
//! what the frame made goes out; this module never reaches into the app.
pub mod card;
pub mod card_join;
pub mod code;
#[cfg(target_vendor = "uwp")]
pub mod device_discovery;
#[cfg(not(target_vendor = "uwp"))]
pub mod discovery;
mod end;
pub mod frame;
pub mod handshake;
mod local;
pub mod open;
pub mod protocol;
pub mod session;

pub use code::ShareCode;
pub use end::Session;
pub use local::LocalNetwork;
pub use open::DEFAULT_SHARE_PORT;
pub use session::{Host, JoinTarget, Peer, PeerRecord, ShareReport};
