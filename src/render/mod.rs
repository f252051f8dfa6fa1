//! The Vulkan renderer: device bootstrap, the multiview terrain pass, frames
//! in flight and offscreen read-back. Never calls OpenXR: the `xr` layer hands
//! it a device and swapchain images, the simulator uses `OffscreenRenderer`.
//!
//! Layering, low to high: `context` (loader, instance, device) → `memory`
//! (buffers, images) → `frames` (command buffers, fences) → `terrain` (the
//! pass) → `offscreen` (images of its own, read-back). `camera`, `grid`,
//! `formats` and `scene` are plain data and math.
pub mod camera;
pub mod context;
pub mod error;
pub mod formats;
pub mod frames;
pub mod grid;
mod memory;
pub mod offscreen;
pub mod scene;
pub mod terrain;

pub use context::{
    DeviceRequirements, GpuContext, InstanceRequirements, Ownership, ValidationCounter,
};
pub use error::RenderError;
pub use frames::{FRAMES_IN_FLIGHT, Frame, FrameRing};
pub use offscreen::{OffscreenOptions, OffscreenRenderer, StereoImage, TargetFormats};
pub use scene::{ColourBands, EyeView, FrameScene};
pub use terrain::{RenderTarget, TerrainRenderer};
