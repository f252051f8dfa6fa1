//! The OpenXR platform (`holoterrain xr`): runs the app inside an OpenXR
//! session on a runtime with Vulkan (XR_KHR_vulkan_enable2) or, in the
//! Windows build, Direct3D 11 (XR_KHR_D3D11_enable: HoloLens 2, Windows
//! Mixed Reality, Holographic Remoting, which reconnects and starts a new
//! session when the connection to the player drops); and the packaged
//! HoloLens 2 app's entry (`run_packaged`) with its state folder.
//!
//! The rooms, from the top down: `run/` (what outlives a session: the
//! entry points, the frame loop, the watchdog, the report), `session/` (one
//! session and its frames), `remoting/` (the link to a Holographic Remoting
//! player), `room/` (the room's surfaces, the anchor and the kept
//! placement), `input/` (hands, controllers and voice), `graphics/` (Vulkan
//! and Direct3D 11 devices and swapchains), `runtime/` (the instance, the
//! calls into it, its events), `sys/` (the C declarations the openxr crate
//! lacks); and beneath them the errors, how a session ended, what the run
//! tells as it goes, and the pose conversions.

pub mod convert;
mod error;
mod graphics;
mod input;
mod progress;
mod remoting;
mod room;
mod run;
mod runtime;
mod session;
mod session_end;
pub mod sys;

pub use error::{EXIT_RUNTIME_STOPPED, EXIT_RUNTIME_UNRESPONSIVE, EXIT_STATUS_HELP, XrError};
pub use progress::Progress;
pub use remoting::address::{ListenAddress, RemoteAddress, VideoCodec};
pub use room::anchor::KEPT_ANCHOR_NAME;
pub use run::args::XrArgs;
pub use run::entry::run;
pub use run::packaged::{LOG_FILE, REPORT_FILE, run_packaged};
pub use run::report::XrReport;
pub use run::state_folder::{StateFolder, StateFolderError, StateFolderKind, state_folder};
pub use runtime::manifest::REMOTING_MANIFEST_NAME;
pub use session_end::SessionEnd;
