//! The OpenXR platform (`holoterrain xr`): runs the app inside an OpenXR
//! session on a runtime with Vulkan (XR_KHR_vulkan_enable2) or, in the
//! Windows build, Direct3D 11 (XR_KHR_D3D11_enable: HoloLens 2, Windows
//! Mixed Reality, Holographic Remoting, which reconnects and starts a new
//! session when the connection to the player drops); and the packaged
//! HoloLens 2 app's entry (`run_packaged`) with its state folder.

mod anchor;
#[cfg(test)]
mod c_layout;
#[cfg(windows)]
mod console_close;
pub mod convert;
mod error;
mod events;
mod extension_fns;
mod frame_loop;
mod graphics;
mod input;
mod keeping;
mod layer;
mod packaged;
mod plane_detection;
mod progress;
pub mod remoting;
mod remoting_link;
mod report;
mod runtime;
mod runtime_calls;
mod runtime_manifest;
pub mod scene_understanding;
mod session;
mod session_end;
pub mod speech;
mod state_folder;
mod surface_search;
mod surfaces;
mod swapchain;
mod validation;
mod watchdog;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use events::EventQueue;
use frame_loop::FrameLoop;
use graphics::GraphicsBinding;
use graphics::vulkan::VulkanGraphics;
use keeping::KeepingOptions;
use remoting_link::{Failure, Link, Peer, Reconnected};
use report::ReportSoFar;
use runtime::{Runtime, RuntimeOptions};
use runtime_calls::{CallKind, runtime_call};
use runtime_manifest::{RUNTIME_JSON_VARIABLE, find_remoting_runtime, program_dir};
use session::Session;
use watchdog::{Watchdog, WatchdogSettings};

use crate::app::driver::{self, FrameDriver, WorldArgs};
use crate::render::backend::Backend;

pub use anchor::PERSISTED_NAME as PERSISTED_ANCHOR_NAME;
pub use error::XrError;
pub use packaged::{LOG_FILE, REPORT_FILE, run_packaged};
pub use progress::Progress;
pub use remoting::{ListenAddress, RemoteAddress, VideoCodec};
pub use report::XrReport;
pub use runtime::OPTIONAL_EXTENSIONS;
pub use runtime_manifest::REMOTING_MANIFEST_NAME;
pub use session_end::SessionEnd;
pub use state_folder::{StateFolder, StateFolderError, StateFolderKind, state_folder};

/// Exit status of `holoterrain xr` when the OpenXR runtime stopped under a
/// running session (instance or session lost, runtime failure): distinct
/// from 1 (any other failure) and 2 (bad arguments).
pub const EXIT_RUNTIME_STOPPED: u8 = 3;

/// Exit status of `holoterrain xr` when the OpenXR runtime stopped
/// answering: a call did not return within `--runtime-timeout`, or Ctrl-C
/// came while one had been blocked for 2 s; the watchdog wrote the report
/// and ended the app without tearing down the session.
pub const EXIT_RUNTIME_UNRESPONSIVE: u8 = 4;

/// The exit statuses, for `holoterrain xr --help`.
pub const EXIT_STATUS_HELP: &str = "Exit status: 0 when the session ended properly (--frames, Ctrl-C or the runtime's request); 3 when the OpenXR runtime stopped under the session (instance or session lost, runtime failure, or a Holographic Remoting connection lost for good; the report is still written, with \"ended\" saying which); 4 when the runtime stopped answering (a call did not return within --runtime-timeout, \"ended\": \"runtime_unresponsive\", or Ctrl-C, SIGTERM or closing the console came while one had been blocked for 2 s, \"ended\": \"interrupted\"; the report is still written, the session is not torn down); 2 for bad arguments; 1 for any other failure.";

/// Options of `holoterrain xr`.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("remoting").args(["remote", "listen"])))]
pub struct XrArgs {
    /// Stop after this many rendered frames (at least 1), ending the session properly.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub frames: Option<u64>,
    /// Write the run report (JSON) to this file when the session ends.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Turn on the OpenXR core validation layer and the Khronos Vulkan
    /// validation layer (with d3d11: the Direct3D 11 debug layer), and count
    /// their messages into the report.
    #[arg(long)]
    pub validation: bool,
    /// The world the run starts from.
    #[command(flatten)]
    pub world: WorldArgs,
    /// Stream to a HoloLens through Holographic Remoting: connect to the
    /// Remoting Player at HOST (port 8265 unless given) before the session
    /// begins, and again whenever the connection drops. Needs Microsoft's
    /// remoting OpenXR runtime (Windows only): see --remote-runtime.
    #[arg(long, value_name = "HOST[:PORT]")]
    pub remote: Option<RemoteAddress>,
    /// Holographic Remoting the other way round: wait for a player that
    /// connects to this computer, on ADDR (every interface unless given),
    /// port PORT (8265 unless given; the stream takes the next port). For
    /// players made to connect; the Store's Remoting Player listens, so use
    /// --remote with it.
    #[arg(
        long,
        value_name = "[ADDR][:PORT]",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with = "remote"
    )]
    pub listen: Option<ListenAddress>,
    /// Attempts to connect again after the connection to the player drops
    /// (waiting 1 s, then 2, 4, ... up to 30 s between them); 0 ends the run
    /// at the first drop. Without it: until the player is back or Ctrl-C.
    #[arg(long, value_name = "N", requires = "remoting")]
    pub remote_retries: Option<u32>,
    /// The remoting runtime's manifest: RemotingXR.json from the
    /// Microsoft.Holographic.Remoting.OpenXr package, with its DLLs beside
    /// it. Without it: RemotingXR.json beside the program, else the file
    /// XR_RUNTIME_JSON names. The app loads it itself, so this works in an
    /// Administrator prompt too, where the OpenXR loader ignores
    /// XR_RUNTIME_JSON.
    #[arg(long, value_name = "PATH", requires = "remoting")]
    pub remote_runtime: Option<PathBuf>,
    /// The video codec of the remoting stream: any (H.265 when both sides
    /// have it, else H.264), h264 or h265. Connected, but no hologram in
    /// the HoloLens: try h264.
    #[arg(long, value_enum, value_name = "CODEC", default_value_t = VideoCodec::Any, requires = "remoting")]
    pub codec: VideoCodec,
    /// The graphics API to draw with; without it, Vulkan when the runtime
    /// offers XR_KHR_vulkan_enable2, else Direct3D 11 (d3d11: Windows build
    /// only).
    #[arg(long, value_enum, value_name = "API")]
    pub graphics: Option<Backend>,
    /// Print a line on stdout as things happen, for scripts to follow:
    /// `state NAME` for each session state, `frame N` for each frame drawn,
    /// `reseed CAUSE SEED` for each reseed, `placed CAUSE X Y Z SCALE`
    /// for each settled placement.
    #[arg(long)]
    pub progress: bool,
    /// The folder holding the kept placement (placement.json); default:
    /// $XDG_STATE_HOME/holoterrain (Windows: %LOCALAPPDATA%\holoterrain).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// End the run when a call of the frame loop into the OpenXR runtime
    /// has not returned for this many seconds (the report is written, one
    /// line names the call, exit status 4); 0 turns the limit off. Either
    /// way, Ctrl-C ends a run whose runtime call has been blocked for 2 s.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10,
        allow_negative_numbers = true,
        value_parser = clap::value_parser!(u64).range(0..=MAX_RUNTIME_TIMEOUT_S)
    )]
    pub runtime_timeout: u64,
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

/// The longest `--runtime-timeout`, seconds: a day.
const MAX_RUNTIME_TIMEOUT_S: u64 = 86_400;

impl XrArgs {
    /// `--runtime-timeout` as the watchdog's limit; `None` when off.
    fn runtime_limit(&self) -> Option<Duration> {
        (self.runtime_timeout > 0).then(|| Duration::from_secs(self.runtime_timeout))
    }

    /// Whom to stream to with Holographic Remoting, if anyone.
    fn peer(&self) -> Option<Peer> {
        match (&self.remote, &self.listen) {
            (Some(address), _) => Some(Peer::Player(address.clone())),
            (None, Some(address)) => Some(Peer::Listen(address.clone())),
            (None, None) => None,
        }
    }

    /// The remoting flag given, for messages.
    fn remoting_flag(&self) -> &'static str {
        if self.listen.is_some() {
            "--listen"
        } else {
            "--remote"
        }
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
/// process with [`EXIT_RUNTIME_UNRESPONSIVE`].
pub fn run(
    args: &XrArgs,
    progress: &mut dyn FnMut(Progress),
    tell_abandon: fn(&XrError),
) -> Result<XrReport, XrError> {
    // Said before looking for a runtime: no runtime would make it any better.
    if args.graphics == Some(Backend::D3d11) && !graphics::choice::D3D11_BUILT {
        return Err(XrError::GraphicsNotBuilt);
    }
    let outcome = open_and_run(args, progress, tell_abandon).and_then(|(report, gave_up)| {
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
    match runtime.graphics {
        Backend::Vulkan => run_with::<VulkanGraphics>(args, runtime, progress, tell_abandon),
        #[cfg(windows)]
        Backend::D3d11 => {
            run_with::<graphics::d3d11::D3d11Graphics>(args, runtime, progress, tell_abandon)
        }
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
    let start = args.world.log_start();
    let driver = FrameDriver::new(driver::app_for(&start)?);
    let mut frame_loop = FrameLoop::new(
        driver,
        start,
        args.frames,
        Arc::clone(&interrupted),
        progress,
    );
    report.set_recorder(frame_loop.shared_recorder());
    let (grid_width, grid_height) = frame_loop.grid_size();
    let keeping = keeping_options(args);
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
                    runtime_call(
                        CallKind::Watched,
                        "xrDestroySwapchain/xrDestroySpace/xrDestroyHandTrackerEXT/xrDestroyActionSet/xrDestroySession",
                        || drop(session),
                    );
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
    if let Some(link) = link {
        report.set_remoting(link.finish(frame_loop.frames_drawn()));
    }
    drop(events);
    runtime_call(
        CallKind::Watched,
        "xrDestroyDebugUtilsMessengerEXT/xrDestroyInstance",
        || drop(runtime),
    );
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
