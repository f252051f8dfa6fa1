//! The simulator in a shared session (`--share`, `--join`): opening the session from the flags, and the report a shared run writes.
//!
//! The session itself is `crate::net`'s and the run loop drives it
//! (`crate::app::run`); here are only the simulator's choices. A shared
//! run's display time follows the wall clock ([`super::clock::WallClock`]).
use serde::Serialize;

use super::args::SimArgs;
use super::error::SimError;
use super::output::SimReport;
use crate::app::log::LogStart;
use crate::net::open::{self, OpenError};
use crate::net::{PeerRecord, Session, ShareCode, ShareReport};

/// What `--join` found: the session, and the host's world to start from.
pub fn join(args: &SimArgs) -> Result<Option<(Session, LogStart)>, SimError> {
    open::join(args.shared.join.as_deref()).map_err(sim_error)
}

/// The code `--share` asks for: the one given, or a new one.
pub fn share_code(args: &SimArgs) -> Result<Option<ShareCode>, SimError> {
    open::share_code(args.shared.share.as_deref()).map_err(sim_error)
}

/// Hosts a session with `code` for the world `start`, on `--share-port`.
pub fn host(args: &SimArgs, code: ShareCode, start: &LogStart) -> Result<Session, SimError> {
    let (session, line) = open::host(code, args.shared.share_port, !args.shared.unlisted, start)
        .map_err(sim_error)?;
    eprintln!("share: {line}");
    Ok(session)
}

/// The simulator's error for a session the flags could not open.
fn sim_error(error: OpenError) -> SimError {
    match error {
        OpenError::Invalid { flag, problem } => SimError::invalid(flag, problem),
        OpenError::Failed(problem) => SimError::Share(problem),
    }
}

/// report.json of a shared run: the run's report, the session and who took part.
#[derive(Serialize)]
pub struct SharedSimReport<'a> {
    #[serde(flatten)]
    pub run: &'a SimReport,
    /// The session.
    pub share: ShareReport,
    /// Who took part (a peer lists the host, as peer 0).
    pub peers: Vec<PeerRecord>,
}
