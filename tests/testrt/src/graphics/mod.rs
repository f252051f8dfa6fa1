//! The graphics API of the build: Vulkan through XR_KHR_vulkan_enable2 in
//! the Linux build ([`vulkan`]; a HoloLens 2 has no Vulkan, see
//! docs/testrt.md), Direct3D 11 through XR_KHR_D3D11_enable in the Windows
//! build (`d3d11`). Each module offers the same items: the session's
//! binding type, the requirements call that must come first, the device a
//! session draws with (swapchain formats, images and read-back) and the
//! extension's functions.

#[cfg(windows)]
mod d3d11;
#[cfg(not(windows))]
mod vulkan;

#[cfg(windows)]
pub use d3d11::{
    API_NAME, BINDING_TYPE, GraphicsSetup, REQUIREMENTS_CALL, SessionDevice, SwapchainImages,
    function,
};
#[cfg(not(windows))]
pub use vulkan::{
    API_NAME, BINDING_TYPE, GraphicsSetup, REQUIREMENTS_CALL, SessionDevice, SwapchainImages,
    function,
};

/// Images a swapchain holds (HoloLens 2, like most runtimes, triple-buffers).
pub const IMAGE_COUNT: u32 = 3;

/// 8-bit BGRA rows turned into RGBA, in place.
pub fn bgra_to_rgba(pixels: &mut [u8]) {
    for pixel in pixels.chunks_exact_mut(4) {
        pixel.swap(0, 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blue_and_red_trade_places() {
        let mut pixels = [1, 2, 3, 4, 5, 6, 7, 8];
        bgra_to_rgba(&mut pixels);
        assert_eq!(pixels, [3, 2, 1, 4, 7, 6, 5, 8]);
    }
}
