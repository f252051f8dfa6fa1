//! The simulator in a shared session (`--share`, `--join`): opening the session from the flags, and the wall clock that paces a shared run.
//!
//! The session itself is `crate::net`'s; here are only the simulator's
//! choices: a shared run's display time follows the wall clock (other
//! headsets live in real time, so a slow machine shows fewer frames, never
//! slower time), and its report gains the session.
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{SimArgs, SimError, SimReport};
use crate::app::driver::FrameDriver;
use crate::app::log::LogStart;
use crate::app::recorder::RunRecorder;
use crate::net::card_join::JoinedByCard;
use crate::net::open::{self, OpenError};
use crate::net::{PeerRecord, Session, ShareCode, ShareReport};

/// What `--join` found: the session, and the host's world to start from.
pub fn join(args: &SimArgs) -> Result<Option<(Session, LogStart)>, SimError> {
    open::join(args.join.as_deref()).map_err(sim_error)
}

/// The code `--share` asks for: the one given, or a new one.
pub fn share_code(args: &SimArgs) -> Result<Option<ShareCode>, SimError> {
    open::share_code(args.share.as_deref()).map_err(sim_error)
}

/// Hosts a session with `code` for the world `start`, on `--share-port`.
pub fn host(args: &SimArgs, code: ShareCode, start: &LogStart) -> Result<Session, SimError> {
    let (session, line) =
        open::host(code, args.share_port, !args.unlisted, start).map_err(sim_error)?;
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

/// Hosts a session with a new code from where `app`'s world stands (its
/// "Share session" button was pressed), on `--share-port`; why not, in one
/// line, and the run goes on alone.
pub fn host_from_here(
    args: &SimArgs,
    app: &mut crate::app::App,
    so_far: &crate::app::log::CommandLog,
) -> Option<Session> {
    match open::host_from_here(app, so_far, args.share_port, !args.unlisted) {
        Ok((session, line)) => {
            eprintln!("share: {line}");
            Some(session)
        }
        Err(why) => {
            eprintln!("share: cannot host a session: {why}");
            None
        }
    }
}

/// Takes a join by card that finished: the host's world grows in place of
/// this run's, in the session; or one line saying why not (a failed join,
/// or a host growing a map of another size than the renderer's `grid`),
/// and the run goes on alone.
pub fn join_by_card(
    args: &SimArgs,
    joined: Result<JoinedByCard, String>,
    grid: (usize, usize),
    driver: &mut FrameDriver,
    recorder: &mut RunRecorder,
) -> Option<Session> {
    let joined = joined.and_then(|joined| joined.app(grid).map(|app| (joined, app)));
    match joined {
        Ok((joined, app)) => {
            *driver = FrameDriver::new(app);
            driver.set_display(args.blend);
            recorder.grow_from(joined.start);
            let mut session = joined.session;
            print_notes(&mut session);
            Some(session)
        }
        Err(line) => {
            eprintln!("share: {line}");
            None
        }
    }
}

/// Prints the session's new lines.
pub fn print_notes(session: &mut Session) {
    for line in session.take_notes() {
        eprintln!("share: {line}");
    }
}

/// The display clock of a shared run: wall time since its start.
pub struct WallClock {
    started: Instant,
    rate: f64,
    /// The frame due at the start, and its display time.
    first_frame: u64,
    first_ns: i64,
}

impl WallClock {
    /// Starts now, for frames at `rate` Hz.
    pub fn start(rate: f64) -> Self {
        WallClock {
            started: Instant::now(),
            rate,
            first_frame: 0,
            first_ns: 0,
        }
    }

    /// Starts now for the frames after `frame`, shown at `time_ns` (a run
    /// that begins sharing part way through): the next is due at once, a
    /// frame's time after it, and the rest follow the wall from there.
    pub fn after(rate: f64, frame: u64, time_ns: i64) -> Self {
        WallClock {
            first_frame: frame + 1,
            first_ns: time_ns.saturating_add((1e9 / rate) as i64),
            ..WallClock::start(rate)
        }
    }

    /// Waits for `frame`'s time ((frame - the first) / rate after the
    /// start) if it has not come yet; its display time (the first frame's
    /// plus the wall clock's nanoseconds since the start), or `None` when
    /// the frame after it is due already, so a late frame is dropped rather
    /// than shown late (`last` is never dropped).
    pub fn frame_time_ns(&self, frame: u64, last: bool) -> Option<i64> {
        let frame = frame.saturating_sub(self.first_frame);
        let due = Duration::from_secs_f64(frame as f64 / self.rate);
        let elapsed = self.started.elapsed();
        if elapsed < due {
            std::thread::sleep(due - elapsed);
        } else if !last && elapsed > Duration::from_secs_f64((frame + 1) as f64 / self.rate) {
            return None;
        }
        let since = self.started.elapsed().as_nanos().min(i64::MAX as u128) as i64;
        Some(self.first_ns.saturating_add(since))
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
