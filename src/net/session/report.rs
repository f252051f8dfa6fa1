//! What a shared session tells the run's report: [`ShareReport`], each command's [`Timing`], checksum [`Mismatch`]es and who took part ([`PeerRecord`]).
use serde::Serialize;

/// What a shared session did, for the run's report.
#[derive(Debug, Clone, Serialize)]
pub struct ShareReport {
    /// `host` or `peer`.
    pub role: &'static str,
    /// The session's code.
    pub code: String,
    /// The host's port (the host's own, or the one joined).
    pub port: u16,
    /// A peer's number, given by the host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<u32>,
    /// Terrain commands in the shared order (a peer: those it received).
    pub commands_ordered: u64,
    /// Peers' checksums that matched the host's (a peer: checksums sent).
    pub checksums_matched: u64,
    /// Peers' checksums that did not.
    pub checksum_mismatches: Vec<Mismatch>,
    /// When each shared command was ordered (the host) or handed to this
    /// peer's app, which applies it in the same frame: how fast commands
    /// travel (docs/performance.md).
    pub timings: Vec<Timing>,
    /// A peer's wearer's terrain commands, when each was sent to the host
    /// (milliseconds of the Unix epoch), in order.
    pub sent_unix_ms: Vec<u64>,
    /// A peer: how long after its first frame in the session it had grown
    /// as far as the host had when it joined, milliseconds (the late
    /// joiner's catching up).
    pub level_after_ms: Option<u64>,
}

/// When a shared command reached a headset.
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    /// Its number in the shared order.
    pub seq: u64,
    /// Milliseconds of the Unix epoch.
    pub unix_ms: u64,
}

/// Now, in milliseconds of the Unix epoch (0 on a clock set before 1970).
pub(super) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

/// A peer's heights that differed from the host's at a command.
#[derive(Debug, Clone, Serialize)]
pub struct Mismatch {
    /// The peer.
    pub peer: u32,
    /// The ordered command's number.
    pub seq: u64,
    /// The host's checksum and the peer's.
    pub host: u64,
    pub theirs: u64,
}

/// Who took part, as the report lists them (a peer lists the host as 0).
#[derive(Debug, Clone, Serialize)]
pub struct PeerRecord {
    /// Its number.
    pub peer: u32,
    /// Where it connected from (or, for the host, where it was).
    pub address: String,
    /// Why it is gone, if it is.
    pub left: Option<String>,
}
