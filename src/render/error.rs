//! The renderer's one error type, and the mapping from raw Vulkan results to it.
use ash::vk;

/// Everything the renderer can fail with; each message is one line that says
/// what is wrong and, where the user can fix it, what to do.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The Vulkan loader could not be opened, or it found no driver or device.
    #[cfg_attr(
        not(windows),
        error(
            "no Vulkan driver: {detail}; install a Vulkan driver, e.g. `apt-get install mesa-vulkan-drivers` on Debian/Ubuntu"
        )
    )]
    #[cfg_attr(
        windows,
        error(
            "no Vulkan driver: {detail}; install or update your graphics card's driver from its maker (AMD, Intel, NVIDIA), which brings Vulkan"
        )
    )]
    NoVulkanDriver {
        /// What exactly was missing (libvulkan, an ICD, a physical device).
        detail: String,
    },
    /// Validation was requested but the Khronos validation layer is not installed.
    #[cfg_attr(
        not(windows),
        error(
            "Vulkan validation was requested but VK_LAYER_KHRONOS_validation is not installed; install `vulkan-validationlayers` (Debian/Ubuntu) or run without validation"
        )
    )]
    #[cfg_attr(
        windows,
        error(
            "Vulkan validation was requested but VK_LAYER_KHRONOS_validation is not installed; install the Vulkan SDK (vulkan.lunarg.com) or run without validation"
        )
    )]
    ValidationLayerMissing,
    /// Validation was requested on an external instance created without VK_EXT_debug_utils.
    #[error(
        "the Vulkan instance was created without VK_EXT_debug_utils, so validation messages cannot be counted"
    )]
    DebugUtilsMissing,
    /// A device exists but lacks something the renderer needs.
    #[error("the Vulkan device `{device}` cannot run the renderer: {missing}")]
    UnsuitableDevice {
        /// The device's name as the driver reports it.
        device: String,
        /// The missing feature, format or queue.
        missing: String,
    },
    /// The heights handed to the renderer do not match its grid.
    #[error("expected {expected} heights for the terrain grid, got {actual}")]
    HeightCountMismatch {
        /// Grid width × height.
        expected: usize,
        /// Length of the slice that was passed.
        actual: usize,
    },
    /// The options describe something that cannot be rendered.
    #[error("invalid render options: {0}")]
    InvalidOptions(String),
    /// `read_back` was called before any frame was rendered.
    #[error("read_back was called before any frame was rendered")]
    NothingRendered,
    /// GPU memory could not be allocated.
    #[error("GPU memory allocation failed: {0}")]
    Allocation(#[from] gpu_allocator::AllocationError),
    /// The GPU was lost (driver reset, hang); the renderer cannot continue.
    #[error("the Vulkan device was lost")]
    DeviceLost,
    /// Host or device memory ran out.
    #[error("out of {0} memory in a Vulkan call")]
    OutOfMemory(&'static str),
    /// The backend asked for is not part of this build or this platform.
    #[error("the {backend} renderer is not available here: {reason}")]
    BackendUnavailable {
        /// The backend's command-line name.
        backend: &'static str,
        /// Why, and what to use instead.
        reason: String,
    },
    /// The Direct3D 11 backend failed; its message says what to do.
    #[cfg(windows)]
    #[error(transparent)]
    D3d11(#[from] super::d3d11::D3d11Error),
    /// Any other Vulkan error, with the call that returned it.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The Vulkan function that failed.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
}

/// Turns a failed Vulkan call into a `RenderError`: `ERROR_DEVICE_LOST` →
/// `DeviceLost`, `ERROR_OUT_OF_HOST_MEMORY`/`ERROR_OUT_OF_DEVICE_MEMORY` →
/// `OutOfMemory`, everything else → `Vulkan { call, result }`.
pub(crate) fn vk_error(call: &'static str) -> impl FnOnce(vk::Result) -> RenderError {
    move |result| match result {
        vk::Result::ERROR_DEVICE_LOST => RenderError::DeviceLost,
        vk::Result::ERROR_OUT_OF_HOST_MEMORY => RenderError::OutOfMemory("host"),
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => RenderError::OutOfMemory("device"),
        result => RenderError::Vulkan { call, result },
    }
}
