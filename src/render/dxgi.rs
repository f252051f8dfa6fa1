//! The DXGI formats the Direct3D 11 renderer draws into, in the order it
//! prefers them, as plain numbers: one table that the OpenXR session's
//! swapchain choice (`xr/graphics/choice.rs`, a pure function tested on
//! every platform) and the renderer (`render/d3d11`, Windows builds) both
//! read, so the session never picks a format the renderer cannot draw.

/// DXGI_FORMAT_R8G8B8A8_UNORM.
pub const R8G8B8A8_UNORM: u32 = 28;
/// DXGI_FORMAT_R8G8B8A8_UNORM_SRGB.
pub const R8G8B8A8_UNORM_SRGB: u32 = 29;
/// DXGI_FORMAT_B8G8R8A8_UNORM.
pub const B8G8R8A8_UNORM: u32 = 87;
/// DXGI_FORMAT_B8G8R8A8_UNORM_SRGB.
pub const B8G8R8A8_UNORM_SRGB: u32 = 91;
/// DXGI_FORMAT_D16_UNORM.
pub const D16_UNORM: u32 = 55;
/// DXGI_FORMAT_D24_UNORM_S8_UINT.
pub const D24_UNORM_S8_UINT: u32 = 45;
/// DXGI_FORMAT_D32_FLOAT.
pub const D32_FLOAT: u32 = 40;

/// Colour formats the renderer draws into, best first: only sRGB ones, as
/// the shader leaves the encoding to the hardware. BGRA first, HoloLens 2's
/// order: Microsoft's OpenXR best practices name `B8G8R8A8_UNORM_SRGB` as
/// HoloLens 2's preferred colour format, which its compositor takes without
/// a conversion pass; RGBA is drawn just as well where a runtime lacks it.
pub const COLOR_FORMATS: [u32; 2] = [B8G8R8A8_UNORM_SRGB, R8G8B8A8_UNORM_SRGB];

/// Depth formats the renderer draws into, best first: D16 (what HoloLens 2
/// wants for its depth-based reprojection, and half the bandwidth), then D32.
pub const DEPTH_FORMATS: [u32; 2] = [D16_UNORM, D32_FLOAT];

/// The colour format of the renderer's own offscreen images: RGBA, so that
/// their read-back is the RGBA8 a `StereoImage` holds.
pub const OFFSCREEN_COLOR_FORMAT: u32 = R8G8B8A8_UNORM_SRGB;

/// A DXGI format's name as Microsoft's headers spell it, for logs and reports.
pub fn format_name(format: u32) -> String {
    let name = match format {
        R8G8B8A8_UNORM => "R8G8B8A8_UNORM",
        R8G8B8A8_UNORM_SRGB => "R8G8B8A8_UNORM_SRGB",
        B8G8R8A8_UNORM => "B8G8R8A8_UNORM",
        B8G8R8A8_UNORM_SRGB => "B8G8R8A8_UNORM_SRGB",
        D16_UNORM => "D16_UNORM",
        D24_UNORM_S8_UINT => "D24_UNORM_S8_UINT",
        D32_FLOAT => "D32_FLOAT",
        other => return format!("DXGI_FORMAT({other})"),
    };
    format!("DXGI_FORMAT_{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_the_renderer_draws_has_a_name() {
        for format in COLOR_FORMATS.into_iter().chain(DEPTH_FORMATS) {
            assert!(!format_name(format).contains('('), "{format} has no name");
        }
        assert_eq!(format_name(91), "DXGI_FORMAT_B8G8R8A8_UNORM_SRGB");
        assert_eq!(format_name(20), "DXGI_FORMAT(20)");
    }

    #[test]
    fn the_offscreen_format_is_one_the_renderer_draws() {
        assert!(COLOR_FORMATS.contains(&OFFSCREEN_COLOR_FORMAT));
    }
}
