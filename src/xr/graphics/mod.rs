//! How the OpenXR session reaches a graphics API: the [`GraphicsBinding`]
//! trait the session loop is generic over (Vulkan through
//! XR_KHR_vulkan_enable2 in [`vulkan`], Direct3D 11 through
//! XR_KHR_D3D11_enable in `d3d11`, Windows builds only), and the pure
//! choices made before any device exists ([`choice`]).
//!
//! A binding owns the device (kept until the session is gone) and makes the
//! [`StereoFrames`] that draw into the runtime's swapchain images; the
//! session state machine, input, anchors and the air-tap rules in
//! `session/mod.rs` are the same for every binding.

pub mod choice;
#[cfg(windows)]
pub mod d3d11;
pub mod swapchain;
pub mod vulkan;

use openxr as xr;

use crate::render::backend::ValidationCounter;
use crate::render::scene::FrameScene;
use crate::xr::error::{XrError, xr_call};
use crate::xr::graphics::swapchain::{StereoSwapchain, SwapchainKind};
use crate::xr::runtime::instance::Runtime;

/// The format type of binding `B`'s swapchains.
pub type FormatOf<B> = <<B as GraphicsBinding>::Api as xr::Graphics>::Format;

/// A new session on graphics `G`, with its frame waiter and frame stream.
pub type NewSession<G> = (xr::Session<G>, xr::FrameWaiter, xr::FrameStream<G>);

/// A graphics API as the OpenXR session uses it: the device, the session on
/// it, swapchain formats, and the frames drawn into swapchain images.
pub trait GraphicsBinding: Sized {
    /// The openxr crate's graphics type (xr::Vulkan, xr::D3D11); its
    /// formats are the API's numbers, which xrCreateSwapchain takes as int64.
    type Api: xr::Graphics<Format: Into<i64>>;
    /// Renderer and render targets on the swapchain images.
    type Frames: StereoFrames;

    /// Creates the device the runtime asks for (its adapter, its API
    /// version or feature level), with the API's validation when asked.
    fn open(runtime: &Runtime, validation: bool) -> Result<Self, XrError>;

    /// Creates the OpenXR session on this device.
    ///
    /// # Safety
    /// The session and everything made from it must be dropped before `self`.
    unsafe fn create_session(&self, runtime: &Runtime) -> Result<NewSession<Self::Api>, XrError>;

    /// The best of the runtime's `offered` formats for `kind`, or `None`.
    fn choose_format(kind: SwapchainKind, offered: &[FormatOf<Self>]) -> Option<FormatOf<Self>>;

    /// The format's name, for logs and the report.
    fn format_name(format: FormatOf<Self>) -> String;

    /// The renderer for a `grid_width` × `grid_height` heightmap drawing in
    /// `color_format` and `depth_format`, with no render target yet
    /// ([`Self::retarget`] gives it some).
    fn renderer(
        &self,
        color_format: FormatOf<Self>,
        depth_format: FormatOf<Self>,
        grid_width: u32,
        grid_height: u32,
    ) -> Result<Self::Frames, XrError>;

    /// Puts `frames`' render targets on `color` and `depth` (one per pair
    /// of images, in the formats its renderer draws, of any size), dropping
    /// the targets it had: a swapchain remade at a new size keeps the
    /// renderer (its pipelines, its mesh) and only its targets are rebuilt.
    ///
    /// # Safety
    /// The GPU no longer uses the old targets (`wait_idle`); the frames must
    /// be dropped, or retargeted, before `color` and `depth`.
    unsafe fn retarget(
        frames: &mut Self::Frames,
        color: &StereoSwapchain<Self::Api>,
        depth: &StereoSwapchain<Self::Api>,
    ) -> Result<(), XrError>;

    /// The renderer for a `grid_width` × `grid_height` heightmap and a
    /// render target per (colour image, depth image) pair.
    ///
    /// # Safety
    /// The frames must be dropped before the swapchains.
    unsafe fn frames(
        &self,
        color: &StereoSwapchain<Self::Api>,
        depth: &StereoSwapchain<Self::Api>,
        grid_width: u32,
        grid_height: u32,
    ) -> Result<Self::Frames, XrError> {
        let mut frames = self.renderer(color.format, depth.format, grid_width, grid_height)?;
        // SAFETY: new frames have no old targets; the caller's promise.
        unsafe { Self::retarget(&mut frames, color, depth) }?;
        Ok(frames)
    }

    /// The API's validation / debug-layer message count; `None` when off.
    fn validation_counter(&self) -> Option<ValidationCounter>;
}

/// The best format binding `B` can draw `kind` in among those the runtime
/// offers.
pub fn swapchain_format<B: GraphicsBinding>(
    session: &xr::Session<B::Api>,
    kind: SwapchainKind,
) -> Result<FormatOf<B>, XrError> {
    let offered: Vec<FormatOf<B>> = session
        .enumerate_swapchain_formats()
        .map_err(xr_call("xrEnumerateSwapchainFormats"))?;
    B::choose_format(kind, &offered).ok_or(XrError::NoSwapchainFormat { kind: kind.name() })
}

/// Creates a swapchain of `kind` sized `width` × `height` for the primary
/// (stereo) view, in the best format binding `B` can draw into among those
/// the runtime offers.
pub fn create_swapchain<B: GraphicsBinding>(
    session: &xr::Session<B::Api>,
    kind: SwapchainKind,
    width: u32,
    height: u32,
) -> Result<StereoSwapchain<B::Api>, XrError> {
    let format = swapchain_format::<B>(session, kind)?;
    log::info!(
        "{} swapchain: {}, {width}x{height} x2 layers",
        kind.name(),
        B::format_name(format)
    );
    StereoSwapchain::create(session, kind, format, width, height, None)
}

/// Draws frames into the runtime's swapchain images.
pub trait StereoFrames {
    /// Draws `scene` into colour image `colour_index` and depth image
    /// `depth_index`, both acquired and waited for.
    fn render(
        &mut self,
        color_index: usize,
        depth_index: usize,
        scene: &FrameScene<'_>,
    ) -> Result<(), XrError>;

    /// Waits until the GPU no longer uses any swapchain image.
    fn wait_idle(&mut self) -> Result<(), XrError>;
}
