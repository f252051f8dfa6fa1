//! The Vulkan renderer: device bootstrap, the multiview terrain pass, frames
//! in flight and offscreen read-back. Never calls OpenXR: the `xr` layer hands
//! it a device and swapchain images, the simulator uses `OffscreenRenderer`.
//!
//! Layering, low to high: `context` (loader, instance, device) → `memory`
//! (buffers, images) → `frames` (command buffers, fences) → `terrain` (the
//! pass) → `offscreen` (images of its own, read-back). `camera`, `grid`,
//! `formats` and `scene` are plain data and math.
//!
//! On an OpenXR runtime the frame goes:
//! 1. once: create the Vulkan instance and device through the runtime with
//!    [`GpuContext::instance_requirements`] and [`GpuContext::device_requirements`],
//!    wrap them with [`GpuContext::from_external`], pick formats with
//!    [`formats::choose_color_format`] / [`formats::choose_depth_format`] from the
//!    swapchain's list, make a [`TerrainRenderer`], a [`FrameRing`] and one
//!    [`RenderTarget`] per pair of swapchain images (2 array layers each);
//! 2. each frame: `xrWaitFrame`, `xrBeginFrame`, [`FrameRing::begin`] (waits
//!    only for this slot's previous frame), acquire and wait the swapchain
//!    images, [`TerrainRenderer::record`] into their target, [`FrameRing::submit`],
//!    release the images, `xrEndFrame`;
//! 3. at exit: drop the OpenXR session first, then targets, ring and renderer,
//!    then the context, then destroy the device and instance (the context does
//!    not own them).
#[cfg(test)]
pub(crate) mod alloc_count;
pub mod camera;
pub mod context;
#[cfg(windows)]
pub mod d3d11;
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
