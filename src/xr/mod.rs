//! The OpenXR platform (`holoterrain xr`): runs the app inside an OpenXR
//! session on a runtime with Vulkan (XR_KHR_vulkan_enable2) or, in the
//! Windows build, Direct3D 11 (XR_KHR_D3D11_enable: HoloLens 2, Windows
//! Mixed Reality, Holographic Remoting); and the packaged HoloLens 2 app's
//! entry (`run_packaged`) with its state folder.

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
mod report;
mod runtime;
mod runtime_calls;
mod session;
mod session_end;
mod state_folder;
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
use graphics::choice::choose_blend_mode;
use graphics::vulkan::VulkanGraphics;
use report::ReportSoFar;
use runtime::Runtime;
use runtime_calls::{CallKind, runtime_call};
use session::{Session, VIEW_TYPE};
use watchdog::{Watchdog, WatchdogSettings};

use crate::app::{App, AppConfig};
use crate::render::backend::Backend;
use crate::size::Size;

pub use error::XrError;
pub use packaged::{LOG_FILE, REPORT_FILE, run_packaged};
pub use progress::Progress;
pub use remoting::RemoteAddress;
pub use report::XrReport;
pub use runtime::{OPTIONAL_EXTENSIONS, silence_loader_diagnostics};
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
pub const EXIT_STATUS_HELP: &str = "Exit status: 0 when the session ended properly (--frames, Ctrl-C or the runtime's request); 3 when the OpenXR runtime stopped under the session (instance or session lost, runtime failure; the report is still written, with \"ended\" saying which); 4 when the runtime stopped answering (a call did not return within --runtime-timeout, \"ended\": \"runtime_unresponsive\", or Ctrl-C, SIGTERM or closing the console came while one had been blocked for 2 s, \"ended\": \"interrupted\"; the report is still written, the session is not torn down); 2 for bad arguments; 1 for any other failure.";

/// Options of `holoterrain xr`.
#[derive(Debug, Clone, clap::Args)]
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
    /// begins. Needs Microsoft's remoting OpenXR runtime (XR_RUNTIME_JSON
    /// pointing at its RemotingXR.json; Windows only).
    #[arg(long, value_name = "HOST[:PORT]")]
    pub remote: Option<RemoteAddress>,
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

/// The longest `--runtime-timeout`, seconds: a day.
const MAX_RUNTIME_TIMEOUT_S: u64 = 86_400;

impl XrArgs {
    /// `--runtime-timeout` as the watchdog's limit; `None` when off.
    fn runtime_limit(&self) -> Option<Duration> {
        (self.runtime_timeout > 0).then(|| Duration::from_secs(self.runtime_timeout))
    }
}

/// Runs the OpenXR session until the runtime, Ctrl-C or `--frames` ends it,
/// telling `progress` what happens; writes the report when asked and
/// returns it. When the runtime stopped under the session the report is
/// written all the same and the result is [`XrError::RuntimeStopped`].
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
    let outcome = open_and_run(args, progress, tell_abandon).and_then(|report| {
        if let Some(path) = &args.report {
            report.write(path)?;
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

/// Opens the runtime, which settles the graphics API (`--graphics` or what
/// the runtime offers), and runs the session with that API's binding.
fn open_and_run(
    args: &XrArgs,
    progress: &mut dyn FnMut(Progress),
    tell_abandon: fn(&XrError),
) -> Result<XrReport, XrError> {
    let runtime = Runtime::open(args.validation, args.remote.is_some(), args.graphics)?;
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

/// Connects to the remoting player (with `--remote`), creates the device
/// and the session with binding `B`, runs the frame loop, and tears down in
/// order: the session (renderer objects on swapchain images first, then
/// its spaces, the session itself), then the device (Vulkan: the
/// renderer's context destroys the device, its messenger and the
/// instance), then the OpenXR instance. From the interrupt handler on, the
/// watchdog watches every runtime call (set-up, loop, teardown).
fn run_with<B: GraphicsBinding>(
    args: &XrArgs,
    runtime: Runtime,
    progress: &mut dyn FnMut(Progress),
    tell_abandon: fn(&XrError),
) -> Result<XrReport, XrError> {
    if let Some(address) = &args.remote {
        remoting::connect(&runtime.instance, runtime.system, address)?;
        progress(Progress::RemotingConnected);
    }
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
    let blend_modes = runtime_call(CallKind::SetUp, "xrEnumerateEnvironmentBlendModes", || {
        runtime
            .instance
            .enumerate_environment_blend_modes(runtime.system, VIEW_TYPE)
    })
    .map_err(error::xr_call("xrEnumerateEnvironmentBlendModes"))?;
    let blend_mode = choose_blend_mode(&blend_modes).ok_or(XrError::Xr {
        call: "xrEnumerateEnvironmentBlendModes",
        result: openxr::sys::Result::ERROR_ENVIRONMENT_BLEND_MODE_UNSUPPORTED,
    })?;
    report.set_blend_mode(blend_mode);
    let graphics = B::open(&runtime, args.validation)?;
    report.set_graphics_validation(graphics.validation_counter());
    let app = App::new(AppConfig::hololens_demo(
        args.size.width as usize,
        args.size.height as usize,
        args.seed,
    ))?;
    let mut frame_loop = FrameLoop::new(app, args.frames, interrupted, blend_mode, progress);
    report.set_recorder(frame_loop.shared_recorder());
    let mut events = EventQueue::new(&runtime.instance, args.remote.is_some());
    let (grid_width, grid_height) = frame_loop.grid_size();
    // SAFETY: the session is dropped at the end of this block, before `graphics`.
    let ended = unsafe { Session::<B>::create(&runtime, &graphics, grid_width, grid_height) }
        .and_then(|mut session| {
            report.set_session(session.facts());
            let ended = frame_loop.run(&mut session, &mut events);
            let waited = session.wait_idle();
            runtime_call(
                CallKind::Watched,
                "xrDestroySwapchain/xrDestroySpace/xrDestroyHandTrackerEXT/xrDestroyActionSet/xrDestroySession",
                || drop(session),
            );
            ended.and_then(|ended| waited.map(|()| ended))
        });
    drop(graphics);
    drop(events);
    runtime_call(
        CallKind::Watched,
        "xrDestroyDebugUtilsMessengerEXT/xrDestroyInstance",
        || drop(runtime),
    );
    Ok(report.report(ended?))
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
