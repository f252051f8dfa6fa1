//! The choices made from what the runtime offers, before any device exists:
//! which blend mode, and (for Direct3D 11) which adapter, feature levels
//! and DXGI swapchain formats (which graphics API is
//! `runtime/graphics_api.rs`'s). Pure functions, so they are tested on
//! every platform although only Windows builds use the Direct3D ones.

use openxr as xr;

use super::swapchain::SwapchainKind;
use crate::render::dxgi;

/// ADDITIVE when offered (a see-through display such as HoloLens 2: black
/// is transparent, the hologram sits in the room), else the runtime's first.
pub fn choose_blend_mode(offered: &[xr::EnvironmentBlendMode]) -> Option<xr::EnvironmentBlendMode> {
    offered
        .iter()
        .copied()
        .find(|&mode| mode == xr::EnvironmentBlendMode::ADDITIVE)
        .or_else(|| offered.first().copied())
}

/// The reprojection mode to ask for among those the runtime `listed`
/// (XR_MSFT_composition_layer_reprojection): planar from the submitted
/// depth, which suits a table-top scene (one stable plane through the
/// hologram), when it is listed and depth is submitted; else none, leaving
/// the runtime's default (HoloLens 2: depth reprojection).
pub fn choose_reprojection_mode(
    listed: &[xr::ReprojectionModeMSFT],
    depth_submitted: bool,
) -> Option<xr::ReprojectionModeMSFT> {
    let planar = xr::ReprojectionModeMSFT::PLANAR_FROM_DEPTH;
    (depth_submitted && listed.contains(&planar)).then_some(planar)
}

/// A locally unique adapter id, as DXGI and xrGetD3D11GraphicsRequirementsKHR give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Luid {
    /// The low 32 bits.
    pub low: u32,
    /// The high 32 bits.
    pub high: i32,
}

/// The index of the adapter whose LUID is `wanted` among `adapters` (in
/// DXGI's enumeration order), or `None` when the runtime's adapter is gone.
#[cfg_attr(not(windows), allow(dead_code))] // used by the Windows build and the tests
pub fn adapter_with_luid(adapters: &[Luid], wanted: Luid) -> Option<usize> {
    adapters.iter().position(|&luid| luid == wanted)
}

/// The Direct3D feature levels holoterrain's shaders can use (shader model
/// 5.0 needs 11_0), best first, as `D3D_FEATURE_LEVEL` values.
const FEATURE_LEVELS: [i32; 4] = [
    0xc100, // 12_1
    0xc000, // 12_0
    0xb100, // 11_1
    0xb000, // 11_0
];

/// The feature levels to ask D3D11CreateDevice for, best first: those at
/// least `runtime_minimum` (the runtime's requirement); empty when the
/// runtime wants more than any level listed.
#[cfg_attr(not(windows), allow(dead_code))] // used by the Windows build and the tests
pub fn feature_levels_at_least(runtime_minimum: i32) -> Vec<i32> {
    FEATURE_LEVELS
        .into_iter()
        .filter(|&level| level >= runtime_minimum)
        .collect()
}

/// The most preferred DXGI format for `kind` among the runtime's
/// `offered`: the Direct3D 11 renderer's own table
/// ([`dxgi::COLOR_FORMATS`], HoloLens 2's order, BGRA first;
/// [`dxgi::DEPTH_FORMATS`]), so the choice is always one it can draw.
#[cfg_attr(not(windows), allow(dead_code))] // used by the Windows build and the tests
pub fn choose_dxgi_format(kind: SwapchainKind, offered: &[u32]) -> Option<u32> {
    let preference: &[u32] = match kind {
        SwapchainKind::Color => &dxgi::COLOR_FORMATS,
        SwapchainKind::Depth => &dxgi::DEPTH_FORMATS,
    };
    preference
        .iter()
        .copied()
        .find(|format| offered.contains(format))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planar_from_depth_is_asked_for_only_when_listed_with_depth() {
        use xr::ReprojectionModeMSFT as Mode;
        let hololens = [
            Mode::DEPTH,
            Mode::PLANAR_FROM_DEPTH,
            Mode::PLANAR_MANUAL,
            Mode::ORIENTATION_ONLY,
        ];
        assert_eq!(
            choose_reprojection_mode(&hololens, true),
            Some(Mode::PLANAR_FROM_DEPTH)
        );
        assert_eq!(choose_reprojection_mode(&hololens, false), None);
        assert_eq!(
            choose_reprojection_mode(&[Mode::DEPTH, Mode::ORIENTATION_ONLY], true),
            None
        );
        assert_eq!(choose_reprojection_mode(&[], true), None);
    }

    #[test]
    fn additive_is_preferred_else_the_runtimes_first() {
        use xr::EnvironmentBlendMode as Mode;
        assert_eq!(
            choose_blend_mode(&[Mode::OPAQUE, Mode::ADDITIVE]),
            Some(Mode::ADDITIVE)
        );
        assert_eq!(
            choose_blend_mode(&[Mode::ALPHA_BLEND, Mode::OPAQUE]),
            Some(Mode::ALPHA_BLEND)
        );
        assert_eq!(choose_blend_mode(&[]), None);
    }

    #[test]
    fn the_adapter_is_found_by_its_whole_luid() {
        let adapters = [
            Luid { low: 7, high: 0 },
            Luid { low: 7, high: 1 },
            Luid { low: 9, high: 1 },
        ];
        assert_eq!(
            adapter_with_luid(&adapters, Luid { low: 7, high: 1 }),
            Some(1)
        );
        assert_eq!(
            adapter_with_luid(&adapters, Luid { low: 9, high: 1 }),
            Some(2)
        );
        assert_eq!(adapter_with_luid(&adapters, Luid { low: 9, high: 0 }), None);
    }

    #[test]
    fn feature_levels_respect_the_runtimes_minimum() {
        assert_eq!(
            feature_levels_at_least(0xb000),
            [0xc100, 0xc000, 0xb100, 0xb000]
        );
        assert_eq!(feature_levels_at_least(0xb100), [0xc100, 0xc000, 0xb100]);
        assert_eq!(feature_levels_at_least(0xc000), [0xc100, 0xc000]);
        // 10_0: below what the shaders need, so still 11_0 at the least.
        assert_eq!(feature_levels_at_least(0xa000).last(), Some(&0xb000));
        assert!(feature_levels_at_least(0xc200).is_empty());
    }

    /// A HoloLens 2's list as devices report it: B8G8R8A8, B8G8R8A8 sRGB,
    /// R8G8B8A8, R8G8B8A8 sRGB, D16, D24S8, D32, D32S8X24 (DXGI values).
    const HOLOLENS_2_FORMATS: [u32; 8] = [87, 91, 28, 29, 55, 45, 40, 20];

    #[test]
    fn hololens_formats_give_bgra_srgb_color_and_d16_depth() {
        assert_eq!(
            choose_dxgi_format(SwapchainKind::Color, &HOLOLENS_2_FORMATS),
            Some(dxgi::B8G8R8A8_UNORM_SRGB)
        );
        assert_eq!(
            choose_dxgi_format(SwapchainKind::Depth, &HOLOLENS_2_FORMATS),
            Some(dxgi::D16_UNORM)
        );
    }

    #[test]
    fn bgra_srgb_wins_in_either_order_and_rgba_srgb_is_taken_without_it() {
        assert_eq!(
            choose_dxgi_format(SwapchainKind::Color, &[29, 91]),
            Some(dxgi::B8G8R8A8_UNORM_SRGB)
        );
        assert_eq!(
            choose_dxgi_format(SwapchainKind::Color, &[87, 28, 29]),
            Some(dxgi::R8G8B8A8_UNORM_SRGB)
        );
    }

    #[test]
    fn depth_falls_back_to_d32_and_linear_color_is_refused() {
        assert_eq!(
            choose_dxgi_format(SwapchainKind::Depth, &[45, 40, 29]),
            Some(dxgi::D32_FLOAT)
        );
        assert_eq!(choose_dxgi_format(SwapchainKind::Depth, &[45]), None);
        assert_eq!(choose_dxgi_format(SwapchainKind::Color, &[28, 87]), None);
    }
}
