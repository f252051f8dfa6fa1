//! The OpenXR platform (`holoterrain xr`): runs the app inside an OpenXR
//! session on a runtime with Vulkan (XR_KHR_vulkan_enable2) or, in the
//! Windows build, Direct3D 11 (XR_KHR_D3D11_enable: HoloLens 2, Windows
//! Mixed Reality, Holographic Remoting).

mod anchor;
#[cfg(windows)]
mod console_close;
pub mod convert;
mod error;
mod events;
mod frame_loop;
mod graphics;
mod input;
mod keeping;
mod layer;
mod plane_detection;
mod progress;
pub mod remoting;
mod report;
mod runtime;
pub mod scene_understanding;
mod session;
mod session_end;
mod state_folder;
mod surfaces;
mod swapchain;
mod validation;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use events::EventQueue;
use frame_loop::FrameLoop;
use graphics::GraphicsBinding;
use graphics::choice::choose_blend_mode;
use graphics::vulkan::VulkanGraphics;
use keeping::KeepingOptions;
use runtime::Runtime;
use session::{Session, VIEW_TYPE};

use crate::app::report::RunReport;
use crate::app::{App, AppConfig};
use crate::render::backend::Backend;
use crate::size::Size;

pub use anchor::PERSISTED_NAME as PERSISTED_ANCHOR_NAME;
pub use error::XrError;
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

/// The exit statuses, for `holoterrain xr --help`.
pub const EXIT_STATUS_HELP: &str = "Exit status: 0 when the session ended properly (--frames, Ctrl-C or the runtime's request); 3 when the OpenXR runtime stopped under the session (instance or session lost, runtime failure; the report is still written, with \"ended\" saying which); 2 for bad arguments; 1 for any other failure.";

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
    /// `reseed CAUSE SEED` for each reseed, `placed CAUSE X Y Z SCALE`
    /// for each settled placement.
    #[arg(long)]
    pub progress: bool,
    /// The folder holding the kept placement (placement.json); default:
    /// $XDG_STATE_HOME/holoterrain (Windows: %LOCALAPPDATA%\holoterrain).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Forget where the hologram was left (the kept file and, on HoloLens,
    /// the persisted anchor) and place it afresh.
    #[arg(long)]
    pub forget_placement: bool,
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
        forget: args.forget_placement,
    }
}

/// Runs the OpenXR session until the runtime, Ctrl-C or `--frames` ends it,
/// telling `progress` what happens; writes the report when asked and
/// returns it. When the runtime stopped under the session the report is
/// written all the same and the result is [`XrError::RuntimeStopped`].
pub fn run(args: &XrArgs, progress: &mut dyn FnMut(Progress)) -> Result<XrReport, XrError> {
    // Said before looking for a runtime: no runtime would make it any better.
    if args.graphics == Some(Backend::D3d11) && !graphics::choice::D3D11_BUILT {
        return Err(XrError::GraphicsNotBuilt);
    }
    let outcome = open_and_run(args, progress).and_then(|report| {
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
fn open_and_run(args: &XrArgs, progress: &mut dyn FnMut(Progress)) -> Result<XrReport, XrError> {
    let runtime = Runtime::open(args.validation, args.remote.is_some(), args.graphics)?;
    match runtime.graphics {
        Backend::Vulkan => run_with::<VulkanGraphics>(args, runtime, progress),
        #[cfg(windows)]
        Backend::D3d11 => run_with::<graphics::d3d11::D3d11Graphics>(args, runtime, progress),
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
/// instance), then the OpenXR instance.
fn run_with<B: GraphicsBinding>(
    args: &XrArgs,
    runtime: Runtime,
    progress: &mut dyn FnMut(Progress),
) -> Result<XrReport, XrError> {
    if let Some(address) = &args.remote {
        remoting::connect(&runtime.instance, runtime.system, address)?;
        progress(Progress::RemotingConnected);
    }
    let interrupted = interrupt_flag();
    #[cfg(windows)]
    console_close::install(&interrupted);
    let blend_mode = choose_blend_mode(
        &runtime
            .instance
            .enumerate_environment_blend_modes(runtime.system, VIEW_TYPE)
            .map_err(error::xr_call("xrEnumerateEnvironmentBlendModes"))?,
    )
    .ok_or(XrError::Xr {
        call: "xrEnumerateEnvironmentBlendModes",
        result: openxr::sys::Result::ERROR_ENVIRONMENT_BLEND_MODE_UNSUPPORTED,
    })?;
    let graphics = B::open(&runtime, args.validation)?;
    let graphics_validation = graphics.validation_counter();
    let app = App::new(AppConfig::hololens_demo(
        args.size.width as usize,
        args.size.height as usize,
        args.seed,
    ))?;
    let mut frame_loop = FrameLoop::new(app, args.frames, interrupted, blend_mode, progress);
    let mut events = EventQueue::new(&runtime.instance, args.remote.is_some());
    let (grid_width, grid_height) = frame_loop.grid_size();
    let keeping = keeping_options(args);
    // SAFETY: the session is dropped at the end of this block, before `graphics`.
    let looped =
        unsafe { Session::<B>::create(&runtime, &graphics, grid_width, grid_height, &keeping) }
            .and_then(|mut session| {
                let ended = frame_loop.run(&mut session, &mut events);
                let waited = session.wait_idle();
                let facts = session.facts().clone();
                drop(session);
                Ok((ended.and_then(|ended| waited.map(|()| ended))?, facts))
            });
    drop(graphics);
    let (ended, facts) = looped?;
    let record = frame_loop.finish();
    let openxr_validation_messages = runtime.validation_messages();
    let vulkan_validation_messages = graphics_validation.map(|counter| counter.count());
    let validation_messages = match (openxr_validation_messages, vulkan_validation_messages) {
        (None, None) => None,
        (openxr, graphics) => Some(openxr.unwrap_or(0) + graphics.unwrap_or(0)),
    };
    Ok(XrReport {
        run: RunReport {
            validation_messages,
            ..record.run
        },
        openxr_validation_messages,
        vulkan_validation_messages,
        core_validation_layer: runtime.core_validation,
        session_states: record.session_states,
        ended,
        runtime: runtime.runtime_name.clone(),
        system: runtime.system_name.clone(),
        extensions_enabled: runtime.enabled_names.clone(),
        extensions_missing: runtime.missing_names.clone(),
        hand_tracking: facts.hand_tracking,
        anchored: record.anchored,
        blend_mode: format!("{blend_mode:?}"),
        reference_space: facts.reference_space.into(),
        swapchain_formats: facts.swapchain_formats,
        surfaces: facts.surfaces.into(),
        placement_kept: facts.placement_kept,
    })
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
