//! The Direct3D 11 renderer (Windows builds only): the same terrain, shading
//! and stereo layout as the Vulkan renderer, for runtimes and devices that
//! offer no Vulkan (HoloLens 2, Windows Mixed Reality, Holographic Remoting).
//!
//! Layering, low to high: `device` (device, context, debug layer, what the
//! device can do) → `shaders` (HLSL compiled at start-up) → `terrain` (the
//! pass, into any 2-layer colour + depth texture array, with `ui`, the
//! controls layer drawn after the land) → `offscreen`
//! (textures of its own, read-back), which takes the same options and frames
//! as the Vulkan [`OffscreenRenderer`](super::vulkan::OffscreenRenderer).
//!
//! Both eyes go into one 2-layer texture array, as with Vulkan multiview.
//! Where the device lets the vertex shader choose the render-target array
//! layer (`VPAndRTArrayIndexFromAnyShaderFeedingRasterizer`, which HoloLens 2
//! has), one instanced draw writes both layers; elsewhere (Wine's Direct3D)
//! each eye is one pass into a view of its own layer. The two differ only in
//! the render-target views and a shader define.
mod buffers;
pub mod device;
pub mod error;
pub mod offscreen;
pub mod shaders;
pub mod terrain;
mod ui;

pub use device::D3d11Device;
pub use error::D3d11Error;
pub use offscreen::D3d11OffscreenRenderer;
pub use terrain::{D3d11RenderTarget, D3d11TerrainRenderer};
