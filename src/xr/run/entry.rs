//! Running `holoterrain xr`: opens the runtime, connects to the remoting
//! player when asked, and runs sessions on the chosen graphics API under
//! the watchdog until the runtime, Ctrl-C or `--frames` ends them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::args::XrArgs;
#[cfg(windows)]
use super::console_close;
use super::frame_loop::FrameLoop;
use super::report::{ReportSoFar, XrReport};
use super::state_folder::state_folder;
use super::watchdog::{Watchdog, WatchdogSettings};
use crate::app::driver::{self, FrameDriver};
use crate::app::log::LogStart;
use crate::app::run::RunLoop;
use crate::net::{self, LocalNetwork, ShareCode, open};
use crate::render::backend::Backend;
use crate::terrain::recipe::Recipe;
use crate::xr::error::XrError;
use crate::xr::graphics::GraphicsBinding;
use crate::xr::graphics::vulkan::VulkanGraphics;
use crate::xr::progress::Progress;
use crate::xr::remoting::link::{Failure, Link, Peer, Reconnected};
use crate::xr::room::keeping::KeepingOptions;
use crate::xr::runtime::calls::{CallKind, runtime_calls};
use crate::xr::runtime::events::EventQueue;
use crate::xr::runtime::graphics_api::D3D11_BUILT;
use crate::xr::runtime::instance::{Runtime, RuntimeOptions};
use crate::xr::runtime::manifest::{RUNTIME_JSON_VARIABLE, find_remoting_runtime, program_dir};
use crate::xr::session::Session;
use crate::xr::session_end::SessionEnd;

/// The file in the state folder that names the landscape last grown, so
/// that a run without `--recipe` (the packaged app always) starts with it.
pub const LANDSCAPE_FILE: &str = "landscape.txt";

/// Where the world starts: `--recipe`, else the landscape last grown (kept
/// in `landscape_file`), else the demo. A kept landscape that can no longer
/// be grown is one warning and the demo.
fn start_of(args: &XrArgs, landscape_file: Option<&Path>) -> Result<LogStart, XrError> {
    if args.world.recipe.is_none()
        && let Some(kept) = landscape_file.and_then(|file| std::fs::read_to_string(file).ok())
        && !kept.trim().is_empty()
    {
        match args.world.log_start(kept.trim()) {
            Ok(start) => return Ok(start),
            Err(error) => log::warn!(
                "the landscape last grown cannot be grown again ({error}); growing the demo"
            ),
        }
    }
    Ok(args.world.log_start("demo")?)
}

/// What a run starts from, settled once the runtime is open (the state
/// folder is made then, not for a run that finds no runtime).
struct OpenedWorld {
    /// The world.
    start: LogStart,
    /// The shared session it grows in, if any.
    share: Option<net::Session>,
    /// Where the placement is kept.
    keeping: KeepingOptions,
    /// Where the landscape last grown is kept.
    landscape_file: Option<PathBuf>,
}

/// Where the world starts, and the shared session it grows in: the host's
/// world with `--join`, else [`start_of`]'s, hosted with `--share` under
/// `code`; with the state folder it keeps things in.
fn open_world(
    args: &XrArgs,
    code: Option<ShareCode>,
    progress: &mut dyn FnMut(Progress),
) -> Result<OpenedWorld, XrError> {
    let keeping = keeping_options(args);
    let landscape_file = keeping
        .folder
        .as_ref()
        .map(|folder| folder.join(LANDSCAPE_FILE));
    // The peer says it joined among its first notes, on the first frame.
    let (start, share) = match open::join(args.shared.join.as_deref())? {
        Some((session, start)) => (start, Some(session)),
        None => {
            let start = start_of(args, landscape_file.as_deref())?;
            let share = match code {
                Some(code) => {
                    let (session, line) =
                        open::host(code, args.shared.share_port, !args.shared.unlisted, &start)?;
                    progress(Progress::Shared(line));
                    Some(session)
                }
                None => None,
            };
            (start, share)
        }
    };
    Ok(OpenedWorld {
        start,
        share,
        keeping,
        landscape_file,
    })
}

/// Where `args` keep the placement: `--state`, else the user's state folder
/// (without one, nowhere, with a warning).
fn keeping_options(args: &XrArgs) -> KeepingOptions {
    let folder = match &args.state {
        Some(folder) => Some(folder.clone()),
        None => match state_folder() {
            Ok(folder) => Some(folder.path),
            Err(error) => {
                log::warn!("the hologram's placement is not kept: {error}");
                None
            }
        },
    };
    KeepingOptions {
        folder,
        forget: args.world.forget_placement,
    }
}

/// How a remoting run gave up: the connection dropped and reconnecting
/// failed (or was off).
#[derive(Debug, Clone)]
struct GaveUp {
    /// Whom the app streamed to.
    peer: Peer,
    /// Why the connection ended.
    ended: Failure,
    /// Attempts made to reconnect.
    attempts: u32,
    /// Why the last attempt failed.
    last: Failure,
}

/// Runs the OpenXR session until the runtime, Ctrl-C or `--frames` ends it,
/// telling `progress` what happens; writes the report when asked and
/// returns it. When the runtime stopped under the session, or a remoting
/// connection was lost for good, the report is written all the same and the
/// result is [`XrError::RuntimeStopped`] or [`XrError::RemotingLost`].
///
/// When the runtime stops answering (`--runtime-timeout`, or Ctrl-C while
/// a call has been blocked for 2 s), this never returns: the watchdog
/// writes the report, hands its [`XrError::RuntimeUnresponsive`] to
/// `tell_abandon` (which must tell the user, in one line) and ends the
/// process with [`crate::xr::EXIT_RUNTIME_UNRESPONSIVE`].
pub fn run(
    args: &XrArgs,
    progress: &mut dyn FnMut(Progress),
    tell_abandon: fn(&XrError),
) -> Result<XrReport, XrError> {
    // Said before looking for a runtime: no runtime would make it any better.
    if args.graphics == Some(Backend::D3d11) && !D3D11_BUILT {
        return Err(XrError::GraphicsNotBuilt);
    }
    // A recipe that cannot be grown is said before the runtime is touched.
    if let Some(recipe) = &args.world.recipe {
        Recipe::load(recipe)?;
    }
    // So are a share code or a join target that is not one.
    let code = open::share_code(args.shared.share.as_deref())?;
    open::check_join(args.shared.join.as_deref())?;
    let outcome = open_and_run(args, code, progress, tell_abandon).and_then(|(report, gave_up)| {
        match &args.report {
            Some(path) => report.write(path)?,
            // Without --report the command log goes to the state folder;
            // the run does not fail for want of it.
            None => {
                if let Some(folder) = keeping_options(args).folder
                    && let Err(error) = report.write_command_log(&folder)
                {
                    log::warn!("{error}");
                }
            }
        }
        if let Some(gave_up) = gave_up {
            return Err(XrError::RemotingLost {
                address: gave_up.peer.to_string(),
                ended: gave_up.ended.describe(),
                attempts: gave_up.attempts,
                last: (gave_up.attempts > 0).then(|| gave_up.last.describe()),
                frames: report.run.frames,
                report: args.report.clone(),
            });
        }
        if report.ended.runtime_stopped() {
            return Err(XrError::RuntimeStopped {
                ended: report.ended,
                frames: report.run.frames,
                report: args.report.clone(),
            });
        }
        Ok(report)
    });
    #[cfg(windows)]
    console_close::session_over();
    outcome
}

/// Opens the runtime (with remoting: the remoting runtime, found and
/// loaded by the app itself), which settles the graphics API (`--graphics`
/// or what the runtime offers), and runs the session with that API's binding.
fn open_and_run(
    args: &XrArgs,
    code: Option<ShareCode>,
    progress: &mut dyn FnMut(Progress),
    tell_abandon: fn(&XrError),
) -> Result<(XrReport, Option<GaveUp>), XrError> {
    let remoting = match args.peer() {
        Some(_) => {
            let flag = args.remoting_flag();
            let manifest = find_remoting_runtime(
                args.remote_runtime.as_deref(),
                program_dir().as_deref(),
                std::env::var_os(RUNTIME_JSON_VARIABLE),
            )
            .ok_or(XrError::RemotingRuntimeNotFound { flag })?;
            log::info!(
                "remoting runtime: {} ({})",
                manifest.path.display(),
                manifest.origin.name()
            );
            Some((flag, manifest))
        }
        None => None,
    };
    let runtime = Runtime::open(RuntimeOptions {
        validation: args.validation,
        remoting,
        graphics: args.graphics,
    })?;
    let opened = open_world(args, code, progress)?;
    match runtime.graphics {
        Backend::Vulkan => {
            run_with::<VulkanGraphics>(args, opened, runtime, progress, tell_abandon)
        }
        #[cfg(windows)]
        Backend::D3d11 => run_with::<crate::xr::graphics::d3d11::D3d11Graphics>(
            args,
            opened,
            runtime,
            progress,
            tell_abandon,
        ),
        // Runtime::open chooses Direct3D 11 only in a build that has it.
        #[cfg(not(windows))]
        Backend::D3d11 => Err(XrError::GraphicsNotBuilt),
    }
}

/// Connects to the remoting player (with `--remote` or `--listen`),
/// creates the device, then runs sessions with binding `B`: one, or with
/// remoting one per connection, connecting again after a drop. Tears down
/// in order: each session (renderer objects on swapchain images first,
/// then its spaces, the session itself), then the device (Vulkan: the
/// renderer's context destroys the device, its messenger and the
/// instance), then the OpenXR instance (with the runtime library the app
/// loaded itself last). From the interrupt handler on, the watchdog
/// watches every runtime call of the sessions (set-up, loop, teardown).
fn run_with<B: GraphicsBinding>(
    args: &XrArgs,
    opened: OpenedWorld,
    runtime: Runtime,
    progress: &mut dyn FnMut(Progress),
    tell_abandon: fn(&XrError),
) -> Result<(XrReport, Option<GaveUp>), XrError> {
    let interrupted = interrupt_flag();
    #[cfg(windows)]
    console_close::install(&interrupted);
    let report = Arc::new(ReportSoFar::new(&runtime));
    let _watchdog = Watchdog::start(
        WatchdogSettings {
            limit: args.runtime_limit(),
            interrupted: Arc::clone(&interrupted),
            report: args.report.clone(),
            tell: tell_abandon,
        },
        Arc::clone(&report),
    );
    let mut events = EventQueue::new(&runtime.instance, args.peer().is_some());
    let mut link = match args.peer() {
        Some(peer) => Some(Link::open(&runtime, peer, args.codec, args.remote_retries)?),
        None => None,
    };
    let connected = match link.as_mut() {
        Some(link) => link.establish(&mut events, &interrupted, progress)?,
        None => true,
    };
    let graphics = B::open(&runtime, args.validation)?;
    report.set_graphics_validation(graphics.validation_counter());
    let OpenedWorld {
        start,
        share,
        keeping,
        landscape_file,
    } = opened;
    // "Save terrain" writes beside the kept landscape: the state folder
    // (the package's LocalState on a HoloLens).
    let saves = landscape_file
        .as_deref()
        .and_then(std::path::Path::parent)
        .map(std::path::Path::to_path_buf);
    let run = RunLoop::new(FrameDriver::new(driver::app_for(&start)?), start, 0)
        .opened_from(args.world.open.as_deref())
        .in_session(share)
        .offering(LocalNetwork::new(
            args.shared.share_port,
            !args.shared.unlisted,
        ))
        .saving_into(saves)
        .keeping_landscape_in(landscape_file);
    let mut frame_loop = FrameLoop::new(run, args.frames, Arc::clone(&interrupted), progress);
    // Over remoting the wearer speaks to the player, far from this
    // computer's microphone; without it the app listens itself.
    #[cfg(windows)]
    if link.is_none() {
        frame_loop.listen_on_device();
    }
    report.set_recorder(frame_loop.shared_recorder());
    let (grid_width, grid_height) = frame_loop.grid_size();
    let mut gave_up = None;
    let ended = if !connected {
        SessionEnd::Interrupted
    } else {
        loop {
            // SAFETY: the session is dropped at the end of this block, before `graphics`.
            let ended = match unsafe {
                Session::<B>::create(&runtime, &graphics, grid_width, grid_height, &keeping)
            } {
                Ok(mut session) => {
                    report.set_session(session.facts());
                    let ended = frame_loop.run(&mut session, &mut events);
                    let waited = session.wait_idle();
                    session.destroy();
                    let ended = ended?;
                    waited?;
                    ended
                }
                // A connection that drops between CONNECTED and the new
                // session loses the session as it is made.
                Err(error) => error.into_session_end()?,
            };
            let Some(link) = link.as_mut().filter(|_| ended == SessionEnd::SessionLost) else {
                break ended;
            };
            let frames = frame_loop.frames_drawn();
            let dropped = link.lost(&mut events, frame_loop.take_disconnect(), frames);
            let attempts_before = link.reconnect_attempts();
            let reconnected =
                link.reconnect(&mut events, &interrupted, dropped, frames, &mut |update| {
                    frame_loop.tell(update)
                });
            match reconnected {
                // The runtime itself went away while reconnecting: the
                // report is written as for any runtime stop.
                Err(error) => break error.into_session_end()?,
                Ok(Reconnected::Connected) => {}
                Ok(Reconnected::Interrupted) => break SessionEnd::Interrupted,
                Ok(Reconnected::GaveUp(last)) => {
                    gave_up = Some(GaveUp {
                        peer: link.peer().clone(),
                        ended: dropped,
                        attempts: link.reconnect_attempts() - attempts_before,
                        last,
                    });
                    break SessionEnd::RemotingLost;
                }
            }
        }
    };
    drop(graphics);
    if let Some((share, peers)) = frame_loop.leave_share() {
        report.set_share(share, peers);
    }
    if let Some(link) = link {
        report.set_remoting(link.finish(frame_loop.frames_drawn()));
    }
    drop(events);
    runtime_calls(CallKind::Watched, || drop(runtime));
    Ok((report.report(ended), gave_up))
}

/// Installs a handler for Ctrl-C (SIGINT) and, as scripts and desktops stop
/// apps with it, SIGTERM (and SIGHUP), that asks the loop to end the session.
fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let handler_flag = Arc::clone(&flag);
    if let Err(error) = ctrlc::set_handler(move || handler_flag.store(true, Ordering::Relaxed)) {
        log::warn!("Ctrl-C and SIGTERM will not end the session cleanly: {error}");
    }
    flag
}
