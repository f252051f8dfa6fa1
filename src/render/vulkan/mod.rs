//! The Vulkan backend: device bootstrap, the multiview terrain pass, frames
//! in flight and offscreen read-back. Never calls OpenXR: the `xr` layer hands
//! it a device and swapchain images; the simulator uses [`OffscreenRenderer`]
//! through the [`crate::render::StereoRenderer`] seam.
//!
//! Layering, low to high (each file uses only those before it):
//! `context` (loader, instance, device, adopting a runtime's device) →
//! `formats` (which colour and depth formats) → `memory` (buffers, images) →
//! `upload` (host writes, setup copies) → `frames` (command buffers, fences) →
//! `shader` (SPIR-V modules) → `pipeline` (render pass, pipeline state) →
//! `terrain` (the pass: grid, heights, uniforms, recording) → `target`
//! (framebuffers on 2-layer images) → `offscreen` (images of its own, read-back).
//!
//! On an OpenXR runtime the frame goes:
//! 1. once: create the Vulkan instance and device through the runtime with
//!    [`GpuContext::instance_requirements`] and [`GpuContext::device_requirements`],
//!    adopt them with [`GpuContext::from_external`] and a [`DropGuard`]
//!    that destroys them after the last user, pick formats with
//!    [`formats::choose_color_format`] / [`formats::choose_depth_format`] from the
//!    swapchain's list, make a [`TerrainRenderer`], a [`FrameRing`] and one
//!    [`RenderTarget`] per pair of swapchain images (2 array layers each);
//! 2. each frame: `xrWaitFrame`, `xrBeginFrame`, [`FrameRing::begin`] (waits
//!    only for this slot's previous frame), acquire and wait the swapchain
//!    images, [`TerrainRenderer::record`] into their target, [`FrameRing::submit`],
//!    release the images, `xrEndFrame`;
//! 3. at exit: drop the OpenXR session first, then targets, ring and renderer;
//!    the context, dropped last, runs the guard that destroys the device and
//!    instance.
pub mod context;
pub mod formats;
pub mod frames;
pub(crate) mod memory;
pub mod offscreen;
pub mod pipeline;
pub(crate) mod shader;
pub mod target;
pub mod terrain;
pub(crate) mod upload;

pub use context::{
    DeviceRequirements, DropGuard, ExternalDevice, GpuContext, InstanceRequirements, Ownership,
};
pub use frames::{FRAMES_IN_FLIGHT, Frame, FrameRing};
pub use offscreen::{OffscreenOptions, OffscreenRenderer, StereoImage, TargetFormats};
pub use target::{RenderTarget, VIEW_COUNT};
pub use terrain::TerrainRenderer;
