//! The OpenXR platform (`holoterrain xr`): runs the app inside an OpenXR
//! session on a runtime with Vulkan (XR_KHR_vulkan_enable2) or, in the
//! Windows build, Direct3D 11 (XR_KHR_D3D11_enable: HoloLens 2, Windows
//! Mixed Reality, Holographic Remoting); and the packaged HoloLens 2 app's
//! entry (`run_packaged`) with its state folder.

mod anchor;
#[cfg(windows)]
mod console_close;
mod convert;
mod error;
mod graphics;
mod input;
mod packaged;
mod remoting;
mod report;
mod runtime;
mod session;
mod state_folder;
mod swapchain;
mod validation;

use std::path::PathBuf;

use crate::render::Backend;
use crate::size::Size;

pub use error::XrError;
pub use packaged::{LOG_FILE, REPORT_FILE, run_packaged};
pub use remoting::RemoteAddress;
pub use report::{SessionEnd, XrReport};
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
}

/// Runs the OpenXR session until the runtime, Ctrl-C or `--frames` ends it;
/// writes the report when asked and returns it. When the runtime stopped
/// under the session the report is written all the same and the result is
/// [`XrError::RuntimeStopped`].
pub fn run(args: &XrArgs) -> Result<XrReport, XrError> {
    // Said before looking for a runtime: no runtime would make it any better.
    if args.graphics == Some(Backend::D3d11) && !graphics::choice::D3D11_BUILT {
        return Err(XrError::GraphicsNotBuilt);
    }
    let outcome = session::run_session(args).and_then(|report| {
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
