//! Choosing colour and depth formats from what a target offers.
use ash::vk;

/// Colour formats in order of preference: sRGB first, so the hardware encodes
/// the shader's linear colours; the UNORM variants make the shader encode.
pub const COLOR_FORMAT_PREFERENCE: [vk::Format; 4] = [
    vk::Format::R8G8B8A8_SRGB,
    vk::Format::B8G8R8A8_SRGB,
    vk::Format::R8G8B8A8_UNORM,
    vk::Format::B8G8R8A8_UNORM,
];

/// Depth formats in order of preference: D16 (what HoloLens wants for depth
/// submission, and enough for a table-top scene), then D32.
pub const DEPTH_FORMAT_PREFERENCE: [vk::Format; 2] =
    [vk::Format::D16_UNORM, vk::Format::D32_SFLOAT];

/// The most preferred colour format among `offered` (e.g. an OpenXR
/// swapchain's formats, in the runtime's order), or `None`.
pub fn choose_color_format(offered: &[vk::Format]) -> Option<vk::Format> {
    COLOR_FORMAT_PREFERENCE
        .into_iter()
        .find(|format| offered.contains(format))
}

/// The most preferred depth format among `offered`, or `None`.
pub fn choose_depth_format(offered: &[vk::Format]) -> Option<vk::Format> {
    DEPTH_FORMAT_PREFERENCE
        .into_iter()
        .find(|format| offered.contains(format))
}

/// Whether stores to `format` encode linear colour to sRGB in hardware.
pub fn is_srgb(format: vk::Format) -> bool {
    matches!(
        format,
        vk::Format::R8G8B8A8_SRGB | vk::Format::B8G8R8A8_SRGB
    )
}

/// Whether `format` stores blue in its first byte.
pub fn is_bgra(format: vk::Format) -> bool {
    matches!(
        format,
        vk::Format::B8G8R8A8_SRGB | vk::Format::B8G8R8A8_UNORM
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_wins_over_unorm_whatever_the_offer_order() {
        let offered = [vk::Format::B8G8R8A8_UNORM, vk::Format::B8G8R8A8_SRGB];
        assert_eq!(
            choose_color_format(&offered),
            Some(vk::Format::B8G8R8A8_SRGB)
        );
    }

    #[test]
    fn unorm_is_taken_when_no_srgb_is_offered() {
        let offered = [vk::Format::R16G16B16A16_SFLOAT, vk::Format::R8G8B8A8_UNORM];
        assert_eq!(
            choose_color_format(&offered),
            Some(vk::Format::R8G8B8A8_UNORM)
        );
    }

    #[test]
    fn no_known_color_format_gives_none() {
        assert_eq!(
            choose_color_format(&[vk::Format::R16G16B16A16_SFLOAT]),
            None
        );
    }

    #[test]
    fn d16_is_preferred_and_d32_is_the_fallback() {
        let both = [vk::Format::D32_SFLOAT, vk::Format::D16_UNORM];
        assert_eq!(choose_depth_format(&both), Some(vk::Format::D16_UNORM));
        assert_eq!(
            choose_depth_format(&[vk::Format::D32_SFLOAT, vk::Format::D24_UNORM_S8_UINT]),
            Some(vk::Format::D32_SFLOAT)
        );
    }
}
