//! The two ends of a shared session: the [`Host`], which listens, orders the terrain commands and tells its peers; the [`Peer`], which joins and follows.
//!
//! Nothing here makes a frame wait on the network. Each connection has a
//! thread that reads, opens and checks its frames, each whole message
//! within [`IDLE_TIMEOUT`] (the other end says `alive` every
//! [`HEARTBEAT_EVERY`] when it has nothing else to say, so silence means
//! gone), and hands what it read to the frame loop over a channel; and a
//! thread that writes what the frame loop queues for it, at most
//! [`PEER_QUEUE`] frames' worth (an end that takes in nothing is dropped
//! when its queue fills, or when a write blocks past
//! [`crate::net::handshake::WRITE_TIMEOUT`]). Anything wrong on a
//! connection — garbage, a frame too big or out of order, a message out
//! of turn, a flood — closes that connection with one line in
//! [`Host::take_notes`] / [`Peer::take_notes`] (a peer the host closes is
//! told why) and changes nothing else. A peer whose link merely drops
//! (closed, reset or silent without the host's goodbye) tries to reach the
//! host again with back-off ([`reconnect_delay`], for up to
//! [`RECONNECT_PATIENCE`]) before it goes on alone.
//!
//! Joining cannot be blocked from outside: every connection's handshake
//! runs on a thread of its own, all of it within
//! [`crate::net::handshake::HANDSHAKE_TIMEOUT`] however its bytes trickle
//! in; at most [`MAX_HANDSHAKES`] run at once ([`MAX_HANDSHAKES_PER_ADDRESS`]
//! from one address), the oldest unfinished one closed to make room for a
//! newcomer; and after a wrong code the next verdict for that address
//! waits ([`failure_delay`], up to [`MAX_FAILURE_DELAY`]), its count of
//! wrong codes halving every [`FAILURE_HALF_LIFE`], so codes cannot be
//! guessed quickly and other addresses are not slowed at all.
//!
//! Its files, by job: `report` (what the run's report gains), `wire`
//! (sealed messages on a connection, the outbox), `host` (the hosting end
//! on the frame loop), `hosting` (what it shares with its threads),
//! `accept` (the listening side and each peer's reading thread), `gate`
//! (the caps on handshakes and the back-off), `link`, `peer` and
//! `reconnect` (the joining end), `target` (where to join).

mod accept;
mod gate;
mod host;
mod hosting;
mod limits;
mod link;
mod peer;
mod reconnect;
mod report;
mod target;
mod wire;

pub use gate::{
    FAILURE_HALF_LIFE, MAX_ADDRESSES, MAX_HANDSHAKES, MAX_HANDSHAKES_PER_ADDRESS, failure_delay,
};
pub use host::Host;
pub use hosting::REFUSAL_LINES_PER_SECOND;
pub use limits::{
    CONNECT_PATIENCE, FINISH_PATIENCE, HEADS_EVERY, MAX_FAILURE_DELAY, MAX_HISTORY, MAX_PEERS,
    PEER_QUEUE, RECONNECT_PATIENCE, WELCOME_TIMEOUT,
};
pub use peer::{MAX_WAITING_COMMANDS, Peer};
pub use reconnect::reconnect_delay;
pub use report::{Mismatch, PeerRecord, ShareReport, Timing};
pub use target::{JoinError, JoinTarget, JoinTargetError};

#[cfg(doc)]
use crate::net::protocol::{HEARTBEAT_EVERY, IDLE_TIMEOUT};

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
}
