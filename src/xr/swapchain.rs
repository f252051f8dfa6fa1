//! The stereo swapchains: one colour and (with XR_KHR_composition_layer_depth)
//! one depth swapchain, each with 2 array layers (one per eye), formats
//! negotiated with the runtime.

use ash::vk::{self, Handle};
use openxr as xr;

use super::error::{XrError, vk_call, xr_call};

/// Eyes per frame: layer 0 is the left eye, layer 1 the right.
pub const VIEW_COUNT: u32 = 2;

/// Colour formats in order of preference: sRGB first so that shading in
/// linear space is encoded for display by the hardware.
const COLOUR_FORMATS: [vk::Format; 4] = [
    vk::Format::R8G8B8A8_SRGB,
    vk::Format::B8G8R8A8_SRGB,
    vk::Format::R8G8B8A8_UNORM,
    vk::Format::B8G8R8A8_UNORM,
];

/// Depth formats in order of preference: HoloLens 2 wants D16 for depth submission.
const DEPTH_FORMATS: [vk::Format; 3] = [
    vk::Format::D16_UNORM,
    vk::Format::D32_SFLOAT,
    vk::Format::D24_UNORM_S8_UINT,
];

/// One swapchain with its images and a 2-layer array view of each.
pub struct StereoSwapchain {
    /// The OpenXR swapchain.
    pub handle: xr::Swapchain<xr::Vulkan>,
    /// Its format.
    pub format: vk::Format,
    /// The runtime-owned images, by swapchain index.
    pub images: Vec<vk::Image>,
    /// A 2D-array view of both layers of each image, by swapchain index.
    pub views: Vec<vk::ImageView>,
    /// Width and height of each eye's layer.
    pub extent: vk::Extent2D,
}

/// Picks the first preferred format the runtime offers.
pub fn choose_format(offered: &[u32], preferred: &[vk::Format]) -> Option<vk::Format> {
    preferred
        .iter()
        .copied()
        .find(|format| offered.contains(&(format.as_raw() as u32)))
}

/// Which kind of swapchain to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapchainKind {
    /// Colour attachment.
    Colour,
    /// Depth attachment for XR_KHR_composition_layer_depth.
    Depth,
}

impl StereoSwapchain {
    /// Creates a swapchain of `kind` sized `extent`, in the best offered format.
    pub fn create(
        session: &xr::Session<xr::Vulkan>,
        device: &ash::Device,
        kind: SwapchainKind,
        extent: vk::Extent2D,
    ) -> Result<Self, XrError> {
        let offered = session
            .enumerate_swapchain_formats()
            .map_err(xr_call("xrEnumerateSwapchainFormats"))?;
        let (preferred, usage, aspect, kind_name): (&[vk::Format], _, _, _) = match kind {
            SwapchainKind::Colour => (
                &COLOUR_FORMATS,
                xr::SwapchainUsageFlags::COLOR_ATTACHMENT | xr::SwapchainUsageFlags::TRANSFER_DST,
                vk::ImageAspectFlags::COLOR,
                "colour",
            ),
            SwapchainKind::Depth => (
                &DEPTH_FORMATS,
                xr::SwapchainUsageFlags::DEPTH_STENCIL_ATTACHMENT
                    | xr::SwapchainUsageFlags::TRANSFER_DST,
                vk::ImageAspectFlags::DEPTH,
                "depth",
            ),
        };
        let format = choose_format(&offered, preferred)
            .ok_or(XrError::NoSwapchainFormat { kind: kind_name })?;
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
        let images: Vec<vk::Image> = handle
            .enumerate_images()
            .map_err(xr_call("xrEnumerateSwapchainImages"))?
            .into_iter()
            .map(vk::Image::from_raw)
            .collect();
        let mut swapchain = Self {
            handle,
            format,
            images,
            views: Vec::new(),
            extent,
        };
        for index in 0..swapchain.images.len() {
            let view_info = vk::ImageViewCreateInfo::default()
                .image(swapchain.images[index])
                .view_type(vk::ImageViewType::TYPE_2D_ARRAY)
                .format(format)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: aspect,
                    base_mip_level: 0,
                    level_count: 1,
                    base_array_layer: 0,
                    layer_count: VIEW_COUNT,
                });
            // SAFETY: the image belongs to the swapchain, which lives as long as
            // the view (views are destroyed in destroy_views before the swapchain drops).
            match unsafe { device.create_image_view(&view_info, None) } {
                Ok(view) => swapchain.views.push(view),
                Err(result) => {
                    swapchain.destroy_views(device);
                    return Err(vk_call("vkCreateImageView")(result));
                }
            }
        }
        Ok(swapchain)
    }

    /// Destroys the image views; call once no submitted work uses them.
    pub fn destroy_views(&mut self, device: &ash::Device) {
        for view in self.views.drain(..) {
            // SAFETY: the caller guarantees no pending GPU work uses the view.
            unsafe { device.destroy_image_view(view, None) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_colour_format_is_preferred_over_unorm() {
        let offered = [
            vk::Format::B8G8R8A8_UNORM.as_raw() as u32,
            vk::Format::R8G8B8A8_SRGB.as_raw() as u32,
        ];
        assert_eq!(
            choose_format(&offered, &COLOUR_FORMATS),
            Some(vk::Format::R8G8B8A8_SRGB)
        );
    }

    #[test]
    fn d16_depth_format_is_preferred_over_d32() {
        let offered = [
            vk::Format::D32_SFLOAT.as_raw() as u32,
            vk::Format::D16_UNORM.as_raw() as u32,
        ];
        assert_eq!(
            choose_format(&offered, &DEPTH_FORMATS),
            Some(vk::Format::D16_UNORM)
        );
    }

    #[test]
    fn no_format_is_chosen_when_none_is_offered() {
        let offered = [vk::Format::R16G16B16A16_SFLOAT.as_raw() as u32];
        assert_eq!(choose_format(&offered, &COLOUR_FORMATS), None);
    }
}
