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

/// References the runtime holds on each Direct3D 11 swapchain texture: one
/// it uses, and one more so that an application releasing a texture it
/// does not own leaves it alive, and the shortfall shows at
/// xrDestroySwapchain instead of as a crash somewhere later.
#[cfg_attr(not(windows), allow(dead_code))] // used by the Windows build and the tests
pub const OWN_REFERENCES: u32 = 2;

/// What is wrong when swapchain image `index` has `count` references left
/// as the runtime gives up its own: fewer than the runtime holds means the
/// application released one it did not own. More are the application's
/// (views, bindings) to release and no fault.
#[cfg_attr(not(windows), allow(dead_code))] // used by the Windows build and the tests
pub fn over_released(index: usize, count: u32) -> Option<String> {
    (count < OWN_REFERENCES).then(|| {
        format!(
            "swapchain image {index} has {count} reference left of the runtime's {OWN_REFERENCES}: the application released a reference it did not own"
        )
    })
}

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
    fn a_reference_short_of_the_runtimes_is_an_over_release() {
        assert_eq!(over_released(0, OWN_REFERENCES), None);
        assert_eq!(
            over_released(0, OWN_REFERENCES + 3),
            None,
            "views the app still holds"
        );
        let problem = over_released(2, OWN_REFERENCES - 1).unwrap();
        assert!(
            problem.starts_with("swapchain image 2 has 1 reference left"),
            "{problem}"
        );
    }

    #[test]
    fn blue_and_red_trade_places() {
        let mut pixels = [1, 2, 3, 4, 5, 6, 7, 8];
        bgra_to_rgba(&mut pixels);
        assert_eq!(pixels, [3, 2, 1, 4, 7, 6, 5, 8]);
    }
}
