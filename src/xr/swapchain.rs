//! The stereo swapchains: one colour and one depth swapchain, each with 2
//! array layers (one per eye), formats negotiated with the runtime in the
//! graphics binding's order of preference (sRGB colour, D16 depth).

use openxr as xr;

use super::error::{XrError, xr_call};
use super::graphics::{FormatOf, GraphicsBinding};

/// Eyes per frame: layer 0 is the left eye, layer 1 the right.
pub const VIEW_COUNT: u32 = 2;

/// Which kind of swapchain to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapchainKind {
    /// Colour attachment.
    Colour,
    /// Depth attachment (submitted with XR_KHR_composition_layer_depth).
    Depth,
}

/// One swapchain and its images.
pub struct StereoSwapchain<G: xr::Graphics> {
    /// The OpenXR swapchain.
    pub handle: xr::Swapchain<G>,
    /// Its format.
    pub format: G::Format,
    /// The runtime-owned images, by swapchain index.
    pub images: Vec<G::SwapchainImage>,
    /// Width of each eye's layer, in pixels.
    pub width: u32,
    /// Height of each eye's layer, in pixels.
    pub height: u32,
}

impl<G: xr::Graphics> StereoSwapchain<G> {
    /// Creates a swapchain of `kind` sized `width` × `height`, in the best
    /// format binding `B` can draw into among those offered.
    pub fn create<B: GraphicsBinding<Api = G>>(
        session: &xr::Session<G>,
        kind: SwapchainKind,
        width: u32,
        height: u32,
    ) -> Result<Self, XrError> {
        let offered: Vec<FormatOf<B>> = session
            .enumerate_swapchain_formats()
            .map_err(xr_call("xrEnumerateSwapchainFormats"))?;
        let (usage, kind_name) = match kind {
            SwapchainKind::Colour => (xr::SwapchainUsageFlags::COLOR_ATTACHMENT, "colour"),
            SwapchainKind::Depth => (xr::SwapchainUsageFlags::DEPTH_STENCIL_ATTACHMENT, "depth"),
        };
        let format = B::choose_format(kind, &offered)
            .ok_or(XrError::NoSwapchainFormat { kind: kind_name })?;
        log::info!(
            "{kind_name} swapchain: {}, {width}x{height} x2 layers",
            B::format_name(format)
        );
        let handle = session
            .create_swapchain(&xr::SwapchainCreateInfo {
                create_flags: xr::SwapchainCreateFlags::EMPTY,
                usage_flags: usage,
                format,
                sample_count: 1,
                width,
                height,
                face_count: 1,
                array_size: VIEW_COUNT,
                mip_count: 1,
            })
            .map_err(xr_call("xrCreateSwapchain"))?;
        let images = handle
            .enumerate_images()
            .map_err(xr_call("xrEnumerateSwapchainImages"))?;
        Ok(Self {
            handle,
            format,
            images,
            width,
            height,
        })
    }
}
