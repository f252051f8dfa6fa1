//! The OpenXR platform (`holoterrain xr`): runs the app inside an OpenXR
//! session on a runtime with Vulkan (XR_KHR_vulkan_enable2) or, in the
//! Windows build, Direct3D 11 (XR_KHR_D3D11_enable: HoloLens 2, Windows
//! Mixed Reality, Holographic Remoting, which reconnects and starts a new
//! session when the connection to the player drops); and the packaged
//! HoloLens 2 app's entry (`run_packaged`) with its state folder.

mod anchor;
#[cfg(windows)]
mod console_close;
pub mod convert;
mod error;
mod events;
mod frame_loop;
mod graphics;
mod input;
mod layer;
mod packaged;
mod progress;
pub mod remoting;
mod remoting_link;
mod report;
mod runtime;
mod runtime_manifest;
mod session;
mod session_end;
pub mod speech;
mod state_folder;
mod swapchain;
mod validation;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use events::EventQueue;
use frame_loop::FrameLoop;
use graphics::GraphicsBinding;
use graphics::vulkan::VulkanGraphics;
use remoting_link::{Failure, Link, Peer, Reconnected};
use runtime::{Runtime, RuntimeOptions};
use runtime_manifest::{RUNTIME_JSON_VARIABLE, find_remoting_runtime, program_dir};
use session::Session;

use crate::app::report::RunReport;
use crate::app::{App, AppConfig};
use crate::render::backend::Backend;
use crate::size::Size;

pub use error::XrError;
pub use packaged::{LOG_FILE, REPORT_FILE, run_packaged};
pub use progress::Progress;
pub use remoting::{ListenAddress, RemoteAddress};
pub use report::XrReport;
pub use runtime::OPTIONAL_EXTENSIONS;
pub use runtime_manifest::REMOTING_MANIFEST_NAME;
pub use session_end::SessionEnd;
pub use state_folder::{StateFolder, StateFolderError, StateFolderKind, state_folder};

/// Exit status of `holoterrain xr` when the OpenXR runtime stopped under a
/// running session (instance or session lost, runtime failure): distinct
/// from 1 (any other failure) and 2 (bad arguments).
pub const EXIT_RUNTIME_STOPPED: u8 = 3;

/// The exit statuses, for `holoterrain xr --help`.
pub const EXIT_STATUS_HELP: &str = "Exit status: 0 when the session ended properly (--frames, Ctrl-C or the runtime's request); 3 when the OpenXR runtime stopped under the session (instance or session lost, runtime failure, or a Holographic Remoting connection lost for good; the report is still written, with \"ended\" saying which); 2 for bad arguments; 1 for any other failure.";

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
    /// The first terrain seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Heightmap size, width x height samples.
    #[arg(long, value_name = "WxH", default_value = "257x257")]
    pub size: Size,
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
    /// The graphics API to draw with; without it, Vulkan when the runtime
    /// offers XR_KHR_vulkan_enable2, else Direct3D 11 (d3d11: Windows build
    /// only).
    #[arg(long, value_enum, value_name = "API")]
    pub graphics: Option<Backend>,
    /// Print a line on stdout as things happen, for scripts to follow:
    /// `state NAME` for each session state, `frame N` for each frame drawn,
    /// `reseed CAUSE SEED` for each reseed.
    #[arg(long)]
    pub progress: bool,
}

impl XrArgs {
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
pub fn run(args: &XrArgs, progress: &mut dyn FnMut(Progress)) -> Result<XrReport, XrError> {
    // Said before looking for a runtime: no runtime would make it any better.
    if args.graphics == Some(Backend::D3d11) && !graphics::choice::D3D11_BUILT {
        return Err(XrError::GraphicsNotBuilt);
    }
    let outcome = open_and_run(args, progress).and_then(|(report, gave_up)| {
        if let Some(path) = &args.report {
            report.write(path)?;
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
        Backend::Vulkan => run_with::<VulkanGraphics>(args, runtime, progress),
        #[cfg(windows)]
        Backend::D3d11 => run_with::<graphics::d3d11::D3d11Graphics>(args, runtime, progress),
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
/// loaded itself last).
fn run_with<B: GraphicsBinding>(
    args: &XrArgs,
    runtime: Runtime,
    progress: &mut dyn FnMut(Progress),
) -> Result<(XrReport, Option<GaveUp>), XrError> {
    let interrupted = interrupt_flag();
    #[cfg(windows)]
    console_close::install(&interrupted);
    let mut events = EventQueue::new(&runtime.instance, args.peer().is_some());
    let mut link = match args.peer() {
        Some(peer) => Some(Link::open(&runtime, peer, args.remote_retries)?),
        None => None,
    };
    let connected = match link.as_mut() {
        Some(link) => link.establish(&mut events, &interrupted, progress)?,
        None => true,
    };
    let graphics = B::open(&runtime, args.validation)?;
    let graphics_validation = graphics.validation_counter();
    let app = App::new(AppConfig::hololens_demo(
        args.size.width as usize,
        args.size.height as usize,
        args.seed,
    ))?;
    let mut frame_loop = FrameLoop::new(app, args.frames, Arc::clone(&interrupted), progress);
    let (grid_width, grid_height) = frame_loop.grid_size();
    let mut facts = None;
    let mut gave_up = None;
    let ended = if !connected {
        SessionEnd::Interrupted
    } else {
        loop {
            // SAFETY: the session is dropped at the end of this block, before `graphics`.
            let ended =
                match unsafe { Session::<B>::create(&runtime, &graphics, grid_width, grid_height) }
                {
                    Ok(mut session) => {
                        let ended = frame_loop.run(&mut session, &mut events);
                        let waited = session.wait_idle();
                        facts = Some(session.facts().clone());
                        drop(session);
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
    let frames = frame_loop.frames_drawn();
    let record = frame_loop.finish();
    let remoting = link.map(|link| link.finish(frames));
    let openxr_validation_messages = runtime.validation_messages();
    let graphics_messages = graphics_validation.map(|counter| counter.count());
    let validation_messages = match (openxr_validation_messages, graphics_messages) {
        (None, None) => None,
        (openxr, graphics) => Some(openxr.unwrap_or(0) + graphics.unwrap_or(0)),
    };
    let (vulkan_validation_messages, d3d11_debug_messages) = match runtime.graphics {
        Backend::Vulkan => (graphics_messages, None),
        Backend::D3d11 => (None, graphics_messages),
    };
    let report = XrReport {
        run: RunReport {
            validation_messages,
            ..record.run
        },
        openxr_validation_messages,
        vulkan_validation_messages,
        d3d11_debug_messages,
        graphics_api: runtime.graphics.name().to_owned(),
        remoting,
        core_validation_layer: runtime.core_validation,
        session_states: record.session_states,
        ended,
        runtime: runtime.runtime_name.clone(),
        system: facts
            .as_ref()
            .map(|facts| facts.system_name.clone())
            .unwrap_or_default(),
        extensions_enabled: runtime.enabled_names.clone(),
        extensions_missing: runtime.missing_names.clone(),
        hand_tracking: facts.as_ref().is_some_and(|facts| facts.hand_tracking),
        anchored: record.anchored,
        blend_mode: facts
            .as_ref()
            .map(|facts| format!("{:?}", facts.blend_mode))
            .unwrap_or_default(),
        reference_space: facts
            .as_ref()
            .map(|facts| facts.reference_space.to_owned())
            .unwrap_or_default(),
        swapchain_formats: facts
            .map(|facts| facts.swapchain_formats)
            .unwrap_or_default(),
    };
    Ok((report, gave_up))
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
