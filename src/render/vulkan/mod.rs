//! The Vulkan backend: device bootstrap, the multiview terrain pass, frames
//! in flight and offscreen read-back. Never calls OpenXR: the `xr` layer hands
//! it a device and swapchain images; the simulator uses [`OffscreenRenderer`]
//! through the [`crate::render::StereoRenderer`] seam.
//!
//! Layering, low to high (each file uses only those before it):
//! `error` (the backend's errors) → `context` (loader, instance, device,
//! adopting a runtime's device) → `formats` (which colour and depth formats)
//! → `memory` (buffers, images) → `upload` (host writes, setup copies) →
//! `frames` (command buffers, fences) → `shader` (SPIR-V modules) →
//! `pipeline` (the multiview render pass, pipeline state) → `target`
//! (framebuffers of the pass on 2-layer images) → `ui` (the controls layer's
//! atlas, vertices and pipeline) → `terrain` (grid, heights, uniforms,
//! recording the terrain and then the controls into a target) → `offscreen` (images of its own,
//! read-back).
//!
//! On an OpenXR runtime the frame goes:
//! 1. once: create the Vulkan instance and device through the runtime with
//!    [`GpuContext::instance_requirements`] and [`GpuContext::device_requirements`]
//!    (with validation, [`GpuContext::counting_messenger_info`] chained into
//!    the instance's creation), adopt them with [`GpuContext::from_external`],
//!    which destroys them after the last user, pick formats with
//!    [`formats::choose_color_format`] / [`formats::choose_depth_format`] from the
//!    swapchain's list, make a [`TerrainRenderer`], a [`FrameRing`] and one
//!    [`RenderTarget`] of the renderer's [`MultiviewPass`] per pair of
//!    swapchain images (2 array layers each);
//! 2. each frame: `xrWaitFrame`, `xrBeginFrame`, [`FrameRing::begin`] (waits
//!    only for this slot's previous frame), acquire and wait the swapchain
//!    images, [`TerrainRenderer::record`] into their target, [`FrameRing::submit`],
//!    release the images, `xrEndFrame`;
//! 3. at exit: drop the OpenXR session first, then targets, ring and renderer;
//!    the context, dropped last, destroys the device, its validation
//!    messenger and the instance, in that order.
pub mod context;
pub mod error;
pub mod formats;
pub mod frames;
pub(crate) mod memory;
pub mod offscreen;
pub mod pipeline;
pub(crate) mod shader;
pub mod target;
pub mod terrain;
mod ui;
pub(crate) mod upload;

pub use context::{DeviceRequirements, ExternalDevice, GpuContext, InstanceRequirements};
pub use error::VulkanError;
pub use frames::{FRAMES_IN_FLIGHT, Frame, FrameRing};
pub use offscreen::{OffscreenRenderer, TargetFormats};
pub use pipeline::MultiviewPass;
pub use target::RenderTarget;
pub use terrain::TerrainRenderer;
