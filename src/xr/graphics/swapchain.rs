//! The stereo swapchains: one colour and one depth swapchain, each with one
//! array layer per eye, in a format the caller chose from the runtime's
//! list (`graphics::create_swapchain` chooses in the binding's order of
//! preference: sRGB colour, D16 depth), created by a raw xrCreateSwapchain
//! so that a secondary view's (Mixed Reality Capture's observer) can chain
//! XrSecondaryViewConfigurationSwapchainCreateInfoMSFT, which the openxr
//! crate's `create_swapchain` cannot.

use openxr as xr;
use xr::sys::Handle as _;

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
    /// with a layer per eye, for the session's primary view configuration,
    /// or with `secondary` for that secondary view configuration
    /// (XrSecondaryViewConfigurationSwapchainCreateInfoMSFT chained, so the
    /// runtime can make the images for where they are shown: the
    /// specification's hint for XR_MSFT_secondary_view_configuration).
    pub fn create(
        session: &xr::Session<G>,
        kind: SwapchainKind,
        format: G::Format,
        width: u32,
        height: u32,
        secondary: Option<xr::ViewConfigurationType>,
    ) -> Result<Self, XrError>
    where
        // Vulkan's and DXGI's format numbers are u32s, and the C call takes
        // an int64 (the crate's own conversion is not public API).
        G::Format: Into<i64>,
    {
        let usage = match kind {
            SwapchainKind::Color => xr::SwapchainUsageFlags::COLOR_ATTACHMENT,
            SwapchainKind::Depth => xr::SwapchainUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        };
        let secondary_info =
            secondary.map(
                |view| xr::sys::SecondaryViewConfigurationSwapchainCreateInfoMSFT {
                    ty: xr::sys::SecondaryViewConfigurationSwapchainCreateInfoMSFT::TYPE,
                    next: std::ptr::null(),
                    view_configuration_type: view,
                },
            );
        let info = xr::sys::SwapchainCreateInfo {
            ty: xr::sys::SwapchainCreateInfo::TYPE,
            next: match &secondary_info {
                Some(info) => info as *const _ as *const _,
                None => std::ptr::null(),
            },
            create_flags: xr::SwapchainCreateFlags::EMPTY,
            usage_flags: usage,
            format: format.into(),
            sample_count: 1,
            width,
            height,
            face_count: 1,
            array_size: VIEW_COUNT,
            mip_count: 1,
        };
        let mut raw = xr::sys::Swapchain::NULL;
        // SAFETY: the session is live; `info` and the structure it chains
        // live until the call returns.
        let result = unsafe {
            (session.instance().fp().create_swapchain)(session.as_raw(), &info, &mut raw)
        };
        if result.into_raw() < 0 {
            return Err(XrError::Xr {
                call: "xrCreateSwapchain",
                result,
            });
        }
        // SAFETY: `raw` is the swapchain just created on `session`, with no
        // create flags; the wrapper destroys it when dropped.
        let handle = unsafe { xr::Swapchain::from_raw(session.clone(), raw) };
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
