//! Counting OpenXR validation messages (the core validation layer reports
//! through XR_EXT_debug_utils); the renderer counts Vulkan's.

use std::ffi::{CStr, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

use openxr as xr;

/// Messages counted by one debug messenger; lives in a `Box` whose address
/// the messenger holds as user data.
#[derive(Debug, Default)]
pub struct MessageCounter {
    /// Warnings and errors reported so far.
    count: AtomicU64,
}

impl MessageCounter {
    /// Messages counted so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    fn record(&self, source: &str, text: &str) {
        self.count.fetch_add(1, Ordering::Relaxed);
        log::warn!("{source} validation: {text}");
    }
}

/// Reads a C string the messenger handed us, tolerating null.
///
/// # Safety
/// `text` is null or points at a NUL-terminated string valid for this call.
unsafe fn message_text(text: *const std::ffi::c_char) -> String {
    if text.is_null() {
        return String::from("(no message)");
    }
    // SAFETY: the caller guarantees a valid NUL-terminated string.
    unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

/// The XR_EXT_debug_utils callback: counts warnings and errors.
///
/// # Safety
/// Called by the OpenXR loader with valid callback data and the
/// `MessageCounter` pointer given at messenger creation.
pub unsafe extern "system" fn xr_debug_callback(
    _severity: xr::sys::DebugUtilsMessageSeverityFlagsEXT,
    _types: xr::sys::DebugUtilsMessageTypeFlagsEXT,
    data: *const xr::sys::DebugUtilsMessengerCallbackDataEXT,
    user_data: *mut c_void,
) -> xr::sys::Bool32 {
    // SAFETY: user_data is the boxed MessageCounter that outlives the messenger,
    // and data is valid for the duration of the callback (XR_EXT_debug_utils).
    unsafe {
        let counter = &*(user_data as *const MessageCounter);
        let text = if data.is_null() {
            String::from("(no data)")
        } else {
            message_text((*data).message)
        };
        counter.record("OpenXR", &text);
    }
    xr::sys::FALSE
}
