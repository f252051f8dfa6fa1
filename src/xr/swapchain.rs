//! The stereo swapchains: one colour and one depth swapchain, each with 2
//! array layers (one per eye), formats negotiated with the runtime in the
//! renderer's order of preference (sRGB colour, D16 depth).

use ash::vk::{self, Handle};
use openxr as xr;

use super::error::{XrError, xr_call};
use crate::render::vulkan::formats::{choose_color_format, choose_depth_format};

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
pub struct StereoSwapchain {
    /// The OpenXR swapchain.
    pub handle: xr::Swapchain<xr::Vulkan>,
    /// Its format.
    pub format: vk::Format,
    /// The runtime-owned images, by swapchain index.
    pub images: Vec<vk::Image>,
    /// Width and height of each eye's layer.
    pub extent: vk::Extent2D,
}

/// The runtime's formats (raw Vulkan values) as Vulkan formats.
fn as_vulkan_formats(offered: &[u32]) -> Vec<vk::Format> {
    offered
        .iter()
        .map(|&raw| vk::Format::from_raw(raw as i32))
        .collect()
}

impl StereoSwapchain {
    /// Creates a swapchain of `kind` sized `extent`, in the best offered format.
    pub fn create(
        session: &xr::Session<xr::Vulkan>,
        kind: SwapchainKind,
        extent: vk::Extent2D,
    ) -> Result<Self, XrError> {
        let offered = as_vulkan_formats(
            &session
                .enumerate_swapchain_formats()
                .map_err(xr_call("xrEnumerateSwapchainFormats"))?,
        );
        let (format, usage, kind_name) = match kind {
            SwapchainKind::Colour => (
                choose_color_format(&offered),
                xr::SwapchainUsageFlags::COLOR_ATTACHMENT,
                "colour",
            ),
            SwapchainKind::Depth => (
                choose_depth_format(&offered),
                xr::SwapchainUsageFlags::DEPTH_STENCIL_ATTACHMENT,
                "depth",
            ),
        };
        let format = format.ok_or(XrError::NoSwapchainFormat { kind: kind_name })?;
        log::info!(
            "{kind_name} swapchain: {format:?}, {}x{} x2 layers",
            extent.width,
            extent.height
        );
        let handle = session
            .create_swapchain(&xr::SwapchainCreateInfo {
                create_flags: xr::SwapchainCreateFlags::EMPTY,
                usage_flags: usage,
                format: format.as_raw() as u32,
                sample_count: 1,
                width: extent.width,
                height: extent.height,
                face_count: 1,
                array_size: VIEW_COUNT,
                mip_count: 1,
            })
            .map_err(xr_call("xrCreateSwapchain"))?;
        let images = handle
            .enumerate_images()
            .map_err(xr_call("xrEnumerateSwapchainImages"))?
            .into_iter()
            .map(vk::Image::from_raw)
            .collect();
        Ok(Self {
            handle,
            format,
            images,
            extent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_formats_are_read_as_vulkan_formats() {
        let offered = [
            vk::Format::D16_UNORM.as_raw() as u32,
            vk::Format::R8G8B8A8_SRGB.as_raw() as u32,
        ];
        assert_eq!(
            as_vulkan_formats(&offered),
            [vk::Format::D16_UNORM, vk::Format::R8G8B8A8_SRGB]
        );
    }
}
