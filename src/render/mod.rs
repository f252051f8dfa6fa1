//! Drawing the terrain: the backend-neutral seam ([`backend`]: the
//! [`StereoRenderer`] trait and what it takes and gives; [`scene`]: what one
//! frame draws; [`error`]), plain data and math every backend shares
//! ([`camera`], [`grid`], the diorama's mesh [`diorama`]), the drawn terrain without a GPU (the shaders'
//! colours, [`palette`]; the mesh as a glTF file, [`glb`]; the diorama as a
//! solid to print, [`solid`], and its STL and 3MF files, [`print`]), the controls
//! layer's font, glyph atlas and layout ([`ui`], which the app may call to
//! measure a label), the backends — [`vulkan`] (Linux, Windows,
//! Android) and, on Windows, Direct3D 11, whose formats ([`dxgi`]) and
//! shader interfaces ([`shader_interface`]) are plain data every platform
//! can read — and [`offscreen`], which opens one by name. Nothing here names a type of a backend: callers name
//! `render::vulkan::…` themselves.
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
pub mod diorama;
pub mod dxgi;
pub mod error;
pub mod glb;
pub mod grid;
pub mod offscreen;
pub mod palette;
pub mod print;
pub mod relief;
pub mod scene;
pub mod shader_interface;
pub mod solid;
pub mod ui;
pub mod vulkan;

pub use backend::{
    Backend, OffscreenOptions, StereoDepth, StereoImage, StereoRenderer, ValidationCounter,
};
pub use error::RenderError;
pub use scene::{
    Display, EyeView, FrameScene, MAX_STROKE_POINTS, NearFade, SurfaceMarks, UiFill, UiLabel,
    UiLayer, UiQuad, UiRect, VIEW_COUNT,
};
