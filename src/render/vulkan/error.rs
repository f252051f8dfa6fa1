//! The Vulkan backend's errors, and the mapping from raw Vulkan results to them.
use ash::vk;

use crate::render::error::RenderError;

/// What only the Vulkan backend can fail with; each message is one line that
/// says what is wrong and, where the user can fix it, what to do.
#[derive(Debug, thiserror::Error)]
pub enum VulkanError {
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
    NoDriver {
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
    /// Validation was requested on an adopted instance created without VK_EXT_debug_utils.
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
    /// GPU memory could not be allocated.
    #[error("GPU memory allocation failed: {0}")]
    Allocation(#[from] gpu_allocator::AllocationError),
    /// The GPU was lost (driver reset, hang); the renderer cannot continue.
    #[error("the Vulkan device was lost")]
    DeviceLost,
    /// Memory asked for as host-visible came without a CPU mapping.
    #[error("a host-visible Vulkan buffer has no CPU mapping, so the renderer cannot write to it")]
    NotMapped,
    /// Host or device memory ran out.
    #[error("out of {0} memory in a Vulkan call")]
    OutOfMemory(&'static str),
    /// Any other failed Vulkan call, with the call that returned it.
    #[error("{call} failed: {result}")]
    Call {
        /// The Vulkan function that failed.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
}

impl From<VulkanError> for RenderError {
    fn from(error: VulkanError) -> Self {
        RenderError::Backend(Box::new(error))
    }
}

impl From<gpu_allocator::AllocationError> for RenderError {
    fn from(error: gpu_allocator::AllocationError) -> Self {
        VulkanError::Allocation(error).into()
    }
}

/// Turns a failed Vulkan call into a `RenderError`: `ERROR_DEVICE_LOST` →
/// `DeviceLost`, `ERROR_OUT_OF_HOST_MEMORY`/`ERROR_OUT_OF_DEVICE_MEMORY` →
/// `OutOfMemory`, everything else → `Call { call, result }`.
pub(crate) fn vk_error(call: &'static str) -> impl FnOnce(vk::Result) -> RenderError {
    move |result| {
        match result {
            vk::Result::ERROR_DEVICE_LOST => VulkanError::DeviceLost,
            vk::Result::ERROR_OUT_OF_HOST_MEMORY => VulkanError::OutOfMemory("host"),
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => VulkanError::OutOfMemory("device"),
            result => VulkanError::Call { call, result },
        }
        .into()
    }
}
