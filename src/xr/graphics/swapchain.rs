//! The stereo swapchains: one colour and one depth swapchain, each with one
//! array layer per eye, in a format the caller chose from the runtime's
//! list (`graphics::create_swapchain` chooses in the binding's order of
//! preference: sRGB colour, D16 depth).

use openxr as xr;

use crate::render::scene::VIEW_COUNT;
use crate::xr::error::{XrError, xr_call};

/// Which kind of swapchain to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapchainKind {
    /// Colour attachment.
    Color,
    /// Depth attachment (submitted with XR_KHR_composition_layer_depth).
    Depth,
}

impl SwapchainKind {
    /// "colour" or "depth", for messages.
    pub fn name(self) -> &'static str {
        match self {
            SwapchainKind::Color => "colour",
            SwapchainKind::Depth => "depth",
        }
    }
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
    /// Creates a swapchain of `kind` in `format`, sized `width` × `height`
    /// with a layer per eye.
    pub fn create(
        session: &xr::Session<G>,
        kind: SwapchainKind,
        format: G::Format,
        width: u32,
        height: u32,
    ) -> Result<Self, XrError> {
        let usage = match kind {
            SwapchainKind::Color => xr::SwapchainUsageFlags::COLOR_ATTACHMENT,
            SwapchainKind::Depth => xr::SwapchainUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        };
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
