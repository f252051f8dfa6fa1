//! The shared session's limits and patience: how many peers, how long each side waits, how much is queued and kept.
use std::time::Duration;

/// Most peers one host takes (eight headsets with the host's).
pub const MAX_PEERS: usize = 7;
/// How long a joiner keeps trying to reach a host that is not listening yet.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(10);
/// How often heads are sent (each peer's to the host, everyone's from it).
pub const HEADS_EVERY: Duration = Duration::from_millis(100);
/// The longest the host holds back a verdict on a code after wrong ones
/// from the same address: at most one guess an address each this long.
pub const MAX_FAILURE_DELAY: Duration = Duration::from_secs(30);
/// How long a joiner waits for the host's welcome after the handshake
/// (the host's handshake thread queues it at once).
pub const WELCOME_TIMEOUT: Duration = Duration::from_secs(10);
/// Most frames' worth of messages waiting for one connection's writing
/// thread (the host queues one batch a frame at most, about four seconds
/// at 60 Hz; the operating system's buffers hold more before that).
pub const PEER_QUEUE: usize = 256;
/// Most terrain commands the shared order keeps for joiners from peers:
/// past it, peers' terrain commands are refused with one line (the
/// host's own are still ordered), so that no peer can make the host's
/// memory, or a joiner's catching up, grow without bound.
pub const MAX_HISTORY: u64 = 10_000;
/// How long leaving waits for the goodbyes to go out.
pub const FINISH_PATIENCE: Duration = Duration::from_secs(2);
/// How long a peer whose link to the host dropped keeps trying to reach it
/// again before it goes on alone.
pub const RECONNECT_PATIENCE: Duration = Duration::from_secs(30);
