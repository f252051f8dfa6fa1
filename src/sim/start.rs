//! What a simulator run starts from: its script, the command log it replays, its room, the placement kept in `--state`, and the world and shared session it begins in.
use std::path::PathBuf;

use super::args::{SimArgs, map_size_problem};
use super::clock::stalls;
use super::error::SimError;
use super::room::Room;
use super::script::Script;
use super::share;
use crate::app::Kept;
use crate::app::driver::{self, FrameDriver};
use crate::app::kept::{self, KeptIn};
use crate::app::log::{CommandLog, LogError, LogStart};
use crate::app::run::RunLoop;
use crate::net::LocalNetwork;
use crate::size::Size;

/// Loads the script named by `--script`, or the demo's single air-tap at
/// half time. With `--apng`, a script that waits is refused: the APNG
/// says how many frames it has before the first, and a wait lengthens the
/// run by as many frames as it takes.
pub(super) fn load_script(args: &SimArgs) -> Result<Script, SimError> {
    let Some(path) = &args.script else {
        return Ok(Script::single_air_tap(args.frames as f64 / args.rate / 2.0));
    };
    let text = std::fs::read_to_string(path).map_err(|source| SimError::ReadScript {
        path: path.clone(),
        source,
    })?;
    let script = Script::parse(&text).map_err(|source| SimError::Script {
        path: path.clone(),
        source,
    })?;
    if args.apng
        && let Some(wait) = script.first_wait()
    {
        return Err(SimError::invalid(
            "apng",
            format!(
                "{} waits (line {}), so the run's frames are counted only at its end; leave out --apng",
                path.display(),
                wait.line
            ),
        ));
    }
    Ok(script)
}

/// Reads the command log named by `--replay`, when it is given.
pub(super) fn load_replay(args: &SimArgs) -> Result<Option<CommandLog>, SimError> {
    let Some(path) = &args.replay else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).map_err(|source| SimError::ReadLog {
        path: path.clone(),
        source,
    })?;
    let bad_line = |problem: String| SimError::Log {
        path: path.clone(),
        source: LogError { line: 1, problem },
    };
    let log = CommandLog::parse(&text).map_err(|source| SimError::Log {
        path: path.clone(),
        source,
    })?;
    let size = Size {
        width: u32::try_from(log.start.width).unwrap_or(u32::MAX),
        height: u32::try_from(log.start.height).unwrap_or(u32::MAX),
    };
    if let Some(problem) = map_size_problem(size) {
        return Err(bad_line(format!("the map size: {problem}")));
    }
    if let Some(end) = log.end
        && end.frame >= args.frames
    {
        return Err(SimError::invalid(
            "frames",
            format!(
                "the command log runs {} frames; replay it with --frames {} (as its run had) or more",
                end.frame + 1,
                end.frame + 1
            ),
        ));
    }
    Ok(Some(log))
}

/// Loads the room named by `--room`, or an empty one.
pub(super) fn load_room(args: &SimArgs) -> Result<Room, SimError> {
    let Some(path) = &args.room else {
        return Ok(Room::default());
    };
    let text = std::fs::read_to_string(path).map_err(|source| SimError::ReadRoom {
        path: path.clone(),
        source,
    })?;
    Room::parse(&text).map_err(|source| SimError::Room {
        path: path.clone(),
        source,
    })
}

/// The placement kept in `--state`'s folder, as the app takes it: forgotten
/// first with `--forget-placement`; a file that cannot be used is one
/// warning and a fresh start.
pub(super) fn kept_placement(args: &SimArgs) -> Result<Kept, SimError> {
    let Some(path) = placement_file(args) else {
        return Ok(Kept::None);
    };
    if args.world.forget_placement {
        kept::forget(&path).map_err(SimError::State)?;
        return Ok(Kept::None);
    }
    kept::load_kept(&path, KeptIn::SimulatorRoom).or_else(|warning| {
        log::warn!("{warning}");
        Ok(Kept::None)
    })
}

/// `--state`'s placement.json, when `--state` is given.
pub(super) fn placement_file(args: &SimArgs) -> Option<PathBuf> {
    args.state
        .as_ref()
        .map(|dir| dir.join(kept::PLACEMENT_FILE))
}

/// The run loop and the world the run starts from, in the shared
/// session it starts in: the host's world (`--join`), the command log's
/// (`--replay`, which never joins or hosts), or the flags' (hosted with
/// `--share`). "Save terrain" saves into `--state`'s folder, else `--out`'s.
pub(super) fn start_run(
    args: &SimArgs,
    replay: Option<&CommandLog>,
    script: &Script,
) -> Result<(RunLoop<LocalNetwork>, LogStart), SimError> {
    let share_code = share::share_code(args)?;
    let saves = Some(args.state.clone().unwrap_or_else(|| args.out.clone()));
    let network = LocalNetwork::new(args.shared.share_port, !args.shared.unlisted);
    let frames = args.frames as usize;
    // A joiner grows the host's world: it must be there before anything else.
    if let Some((session, start)) = share::join(args)? {
        let driver = FrameDriver::new(driver::app_for(&start)?);
        let run = RunLoop::new(driver, start.clone(), frames)
            .in_session(Some(session))
            .offering(network)
            .saving_into(saves);
        return Ok((run, start));
    }
    if let Some(log) = replay {
        let run = RunLoop::new(FrameDriver::replaying(log)?, log.start.clone(), frames)
            .saving_into(saves);
        return Ok((run, log.start.clone()));
    }
    let start = LogStart {
        // A shared run's clock is the wall's: no scripted stalls.
        stalls: match share_code {
            Some(_) => Vec::new(),
            None => stalls(script),
        },
        ..args.world.log_start("demo")?
    };
    let session = match share_code {
        Some(code) => Some(share::host(args, code, &start)?),
        None => None,
    };
    let driver = FrameDriver::new(driver::app_for(&start)?);
    let run = RunLoop::new(driver, start.clone(), frames)
        .opened_from(args.world.open.as_deref())
        .in_session(session)
        .offering(network)
        .saving_into(saves);
    Ok((run, start))
}
