//! Which graphics API to draw with, chosen from what the runtime offers
//! and `--graphics` as the instance is created, before any device exists.
//! A pure function, so it is tested on every platform.

use crate::render::Backend;
use crate::xr::error::XrError;

/// The graphics extensions the runtime offers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OfferedGraphics {
    /// XR_KHR_vulkan_enable2.
    pub vulkan: bool,
    /// XR_KHR_D3D11_enable.
    pub d3d11: bool,
}

/// Whether this build can draw with Direct3D 11 (Windows builds only).
pub const D3D11_BUILT: bool = cfg!(windows);

/// The API to draw with: `requested` (`--graphics`) when the runtime offers
/// it, else Vulkan when offered, else Direct3D 11 when offered and
/// `d3d11_built`; otherwise the error that says what is missing.
pub fn choose_graphics(
    requested: Option<Backend>,
    offered: OfferedGraphics,
    d3d11_built: bool,
) -> Result<Backend, XrError> {
    match requested {
        Some(Backend::D3d11) if !d3d11_built => Err(XrError::GraphicsNotBuilt),
        Some(Backend::D3d11) if offered.d3d11 => Ok(Backend::D3d11),
        Some(Backend::D3d11) => Err(XrError::NoD3d11Support),
        Some(Backend::Vulkan) if offered.vulkan => Ok(Backend::Vulkan),
        Some(Backend::Vulkan) => Err(XrError::NoVulkanSupport),
        None if offered.vulkan => Ok(Backend::Vulkan),
        None if offered.d3d11 && d3d11_built => Ok(Backend::D3d11),
        None if d3d11_built => Err(XrError::NoGraphicsSupport),
        None => Err(XrError::NoVulkanSupport),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: OfferedGraphics = OfferedGraphics {
        vulkan: true,
        d3d11: true,
    };
    const D3D11_ONLY: OfferedGraphics = OfferedGraphics {
        vulkan: false,
        d3d11: true,
    };
    const VULKAN_ONLY: OfferedGraphics = OfferedGraphics {
        vulkan: true,
        d3d11: false,
    };
    const NEITHER: OfferedGraphics = OfferedGraphics {
        vulkan: false,
        d3d11: false,
    };

    #[test]
    fn vulkan_is_taken_whenever_offered_without_a_flag() {
        assert_eq!(
            choose_graphics(None, BOTH, true).ok(),
            Some(Backend::Vulkan)
        );
        assert_eq!(
            choose_graphics(None, VULKAN_ONLY, false).ok(),
            Some(Backend::Vulkan)
        );
    }

    #[test]
    fn a_d3d11_only_runtime_gets_d3d11_in_a_windows_build_only() {
        assert_eq!(
            choose_graphics(None, D3D11_ONLY, true).ok(),
            Some(Backend::D3d11)
        );
        assert!(matches!(
            choose_graphics(None, D3D11_ONLY, false),
            Err(XrError::NoVulkanSupport)
        ));
        assert!(matches!(
            choose_graphics(None, NEITHER, true),
            Err(XrError::NoGraphicsSupport)
        ));
    }

    #[test]
    fn the_flag_wins_when_offered_and_fails_when_not() {
        assert_eq!(
            choose_graphics(Some(Backend::D3d11), BOTH, true).ok(),
            Some(Backend::D3d11)
        );
        assert!(matches!(
            choose_graphics(Some(Backend::D3d11), VULKAN_ONLY, true),
            Err(XrError::NoD3d11Support)
        ));
        assert!(matches!(
            choose_graphics(Some(Backend::D3d11), BOTH, false),
            Err(XrError::GraphicsNotBuilt)
        ));
        assert!(matches!(
            choose_graphics(Some(Backend::Vulkan), D3D11_ONLY, true),
            Err(XrError::NoVulkanSupport)
        ));
    }
}
