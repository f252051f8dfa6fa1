//! Drawing the terrain: the backend-neutral seam ([`backend`]: the
//! [`StereoRenderer`] trait; [`scene`]: what one frame draws), plain data and
//! math every backend shares ([`camera`], [`grid`]), and the backends —
//! [`vulkan`] (Linux, Windows, Android) and, on Windows, Direct3D 11.
//!
//! A platform never builds a [`FrameScene`] itself: `app::scene::SceneBuilder`
//! does, once per frame, for the simulator and the OpenXR session alike. The
//! layers, the frame path and where each platform plugs in:
//! docs/architecture.md.
#[cfg(test)]
pub(crate) mod alloc_count;
pub mod backend;
pub mod camera;
#[cfg(windows)]
pub mod d3d11;
pub mod error;
pub mod grid;
pub mod scene;
pub mod vulkan;

pub use backend::{Backend, StereoRenderer, ValidationCounter};
pub use error::RenderError;
pub use scene::{ColourBands, EyeView, FrameScene};
pub use vulkan::{
    DeviceRequirements, DropGuard, ExternalDevice, FRAMES_IN_FLIGHT, Frame, FrameRing, GpuContext,
    InstanceRequirements, OffscreenOptions, OffscreenRenderer, Ownership, RenderTarget,
    StereoImage, TargetFormats, TerrainRenderer,
};
