//! The two ends of a shared session on the frame loop: the [`Host`], which listens, orders the terrain commands and tells its peers; the [`Peer`], which joins and follows.
//!
//! Each connection has a thread that reads, opens and checks its frames
//! and hands what it read to the frame loop over a channel; the frame loop
//! writes (small frames, the kernel's buffer takes them at once, a write
//! that blocks past [`crate::net::handshake::WRITE_TIMEOUT`] counts as the other
//! end gone). Anything wrong on a connection — garbage, a frame too big or
//! out of order, a message out of turn, a flood — closes that connection
//! with one line in [`Host::take_notes`] / [`Peer::take_notes`] and changes
//! nothing else. A peer whose link merely drops (closed or reset without
//! the host's goodbye) tries to reach the host again with back-off
//! ([`reconnect_delay`], for up to [`RECONNECT_PATIENCE`]) before it goes on
//! alone. The host's accepting thread runs the handshakes one after
//! another and, after a failed one, waits longer before the next (0.25 s,
//! doubling to 4 s), so codes cannot be guessed quickly.
//!
//! Its files, by job: `report` (what the run's report gains), `wire`
//! (sealed messages on a connection), `host` and `accept` (the hosting
//! end and its listening side), `link`, `peer` and `reconnect` (the
//! joining end), `target` (where to join).
use std::time::Duration;

mod accept;
mod host;
mod link;
mod peer;
mod reconnect;
mod report;
mod target;
mod wire;

pub use accept::failure_delay;
pub use host::Host;
pub use peer::Peer;
pub use reconnect::{RECONNECT_PATIENCE, reconnect_delay};
pub use report::{Mismatch, PeerRecord, ShareReport, Timing};
pub use target::{JoinError, JoinTarget, JoinTargetError};

/// Most peers one host takes (eight headsets with the host's).
pub const MAX_PEERS: usize = 7;
/// How long a joiner keeps trying to reach a host that is not listening yet.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(10);
/// How often heads are sent (each peer's to the host, everyone's from it).
pub const HEADS_EVERY: Duration = Duration::from_millis(100);
/// The longest a host waits before a handshake after failed ones.
pub const MAX_FAILURE_DELAY: Duration = Duration::from_secs(4);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_targets_read_with_and_without_a_port() {
        let target = JoinTarget::parse("7-guitar-orbit@127.0.0.1:4000", 47180).unwrap();
        assert_eq!((target.host.as_str(), target.port), ("127.0.0.1", 4000));
        let target = JoinTarget::parse("7-guitar-orbit@localhost", 47180).unwrap();
        assert_eq!((target.host.as_str(), target.port), ("localhost", 47180));
        let target = JoinTarget::parse("7-guitar-orbit@[::1]:9", 47180).unwrap();
        assert_eq!((target.host.as_str(), target.port), ("::1", 9));
        for (text, problem) in [
            ("7-guitar-orbit", "no @HOST"),
            ("7-guitar-orbit@", "the host is empty"),
            ("7-guitar-orbit@host:0", "the port"),
            ("7-guitar-orbit@host:http", "the port"),
            ("7-guitar-orbit@::1", "IPv6"),
            ("7-guitar@host", "not NUMBER-word-word"),
        ] {
            let error = JoinTarget::parse(text, 47180).unwrap_err().to_string();
            assert!(error.contains(problem), "{text}: {error}");
        }
    }

    #[test]
    fn reconnecting_waits_half_a_second_then_doubles_up_to_eight() {
        let delays: Vec<u64> = (1..=7)
            .map(|attempt| reconnect_delay(attempt).as_millis() as u64)
            .collect();
        assert_eq!(delays, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
    }

    #[test]
    fn failures_wait_longer_up_to_a_bound() {
        assert_eq!(failure_delay(1), Duration::from_millis(250));
        assert_eq!(failure_delay(2), Duration::from_millis(500));
        assert_eq!(failure_delay(5), MAX_FAILURE_DELAY);
        assert_eq!(failure_delay(u32::MAX), MAX_FAILURE_DELAY);
    }
}
