//! The seam between the frame glue and a graphics API: the [`StereoRenderer`]
//! trait every backend implements, the [`Backend`] names, what an offscreen
//! renderer is opened with ([`OffscreenOptions`]) and gives back
//! ([`StereoImage`], [`StereoDepth`]) and the backend-neutral
//! [`ValidationCounter`].
//! `render::offscreen::open`, above the backends, opens one by name.
//!
//! What crosses the seam is plain data: a [`FrameScene`] in (both eyes'
//! matrices, the model matrix, new heights only when they changed, the light,
//! the palette and contours, the base, the water, the display and the marks; built
//! once per frame by `app::scene::SceneBuilder`)
//! and a [`StereoImage`] (and its [`StereoDepth`]) out. Nothing of Vulkan or
//! Direct3D crosses it.
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::RenderError;
use super::scene::FrameScene;

/// The graphics APIs the terrain can be drawn with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Backend {
    /// Vulkan 1.1 with multiview (Linux, Windows, Android).
    #[default]
    Vulkan,
    /// Direct3D 11 (Windows only; the API HoloLens 2 offers).
    D3d11,
}

impl Backend {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Vulkan => "vulkan",
            Backend::D3d11 => "d3d11",
        }
    }
}

/// How to set up an offscreen renderer, whatever its API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffscreenOptions {
    /// Width of each eye's image, in pixels.
    pub eye_width: u32,
    /// Height of each eye's image, in pixels.
    pub eye_height: u32,
    /// Heightmap samples per row.
    pub grid_width: u32,
    /// Heightmap rows.
    pub grid_height: u32,
    /// Turn on the API's validation (Vulkan: VK_LAYER_KHRONOS_validation;
    /// Direct3D 11: the debug layer) and count its messages.
    pub validation: bool,
}

impl Default for OffscreenOptions {
    fn default() -> Self {
        OffscreenOptions {
            eye_width: 320,
            eye_height: 240,
            grid_width: 257,
            grid_height: 257,
            validation: false,
        }
    }
}

/// Both eyes' pixels, RGBA8, rows top to bottom, sRGB-encoded as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StereoImage {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The left eye, width × height × 4 bytes.
    pub left: Vec<u8>,
    /// The right eye, width × height × 4 bytes.
    pub right: Vec<u8>,
}

/// Both eyes' depth as drawn, rows top to bottom: what the renderer's depth
/// buffer holds, the depth an OpenXR depth layer submits. Depth is not
/// reversed ([`crate::render::camera`]): 0 at the near plane, rising to 1
/// at the far plane; 1 also where nothing was drawn (the clear value). A
/// D16 buffer's values are k / 65535 exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct StereoDepth {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The left eye, width × height values.
    pub left: Vec<f32>,
    /// The right eye, width × height values.
    pub right: Vec<f32>,
}

/// Draws stereo frames into images of its own and reads them back: the
/// simulator's and the image tests' view of a renderer, whatever API is
/// behind it.
///
/// Contract every backend keeps, so that their images can be compared:
/// - `render` clears both eyes to transparent black (0, 0, 0, 0), draws the
///   diorama ([`crate::render::diorama`]) of the heights last received
///   (flat, all 0, before any), the left eye with `scene.views[0]` into the
///   left image and the right eye with `scene.views[1]`, depth-tested
///   (nearer wins), back faces culled: first the solid (land, sides carried
///   down to `scene.base_bottom`, underside), opaque, coloured by height and
///   slope with `scene.palette` (contour lines when `scene.contours`), lit from `scene.light_dir` with
///   `scene.display`'s ambient and floor, `scene.marks` on the land; then,
///   when `scene.sea_level` is `Some`, the water blended over it (source
///   alpha; alpha over land stays 1); then `scene.ui`, blended; stored
///   sRGB-encoded; every pixel drawn, blended or not, gets its nearest
///   surface's depth (the water's and the controls' written after all
///   colour, so it changes none), and no other pixel does;
/// - `scene.heights`, when `Some`, replaces the heights before this frame is
///   drawn and must hold grid width × height values, else
///   [`RenderError::HeightCountMismatch`];
/// - `render` may return before the GPU has finished; it waits only for the
///   resources of a frame submitted earlier that it reuses;
/// - `read_back` waits for the most recent `render` and returns its pixels,
///   RGBA8 rows top to bottom ([`RenderError::NothingRendered`] before any);
///   `read_back_depth` likewise its depth.
pub trait StereoRenderer {
    /// Draws one frame of `scene` into both eyes.
    fn render(&mut self, scene: &FrameScene<'_>) -> Result<(), RenderError>;

    /// Waits for the most recent frame and returns both eyes' pixels.
    fn read_back(&mut self) -> Result<StereoImage, RenderError>;

    /// Waits for the most recent frame and returns both eyes' depth.
    fn read_back_depth(&mut self) -> Result<StereoDepth, RenderError>;

    /// A count of the API's validation / debug-layer warnings and errors,
    /// readable after the renderer is dropped (teardown leaks count too);
    /// `None` when validation is off.
    fn validation_counter(&self) -> Option<ValidationCounter>;

    /// The GPU or adapter the frames are drawn on, for messages and reports.
    fn device_name(&self) -> &str;

    /// Which API draws.
    fn backend(&self) -> Backend;
}

/// A shared count of the warnings and errors a validation layer reported
/// (Vulkan's Khronos layer, or a backend's debug layer).
#[derive(Debug, Clone, Default)]
pub struct ValidationCounter(Arc<AtomicU64>);

impl ValidationCounter {
    /// Messages counted so far, including those reported while tearing down.
    pub fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    /// Counts one message.
    pub fn record(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// The counter itself, for a C callback's user-data pointer; it lives as
    /// long as any clone of this counter.
    pub(crate) fn as_atomic_ptr(&self) -> *const AtomicU64 {
        Arc::as_ptr(&self.0)
    }
}
