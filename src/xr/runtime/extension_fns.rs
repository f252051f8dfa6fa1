//! Functions of OpenXR extensions the openxr crate does not know
//! (Holographic Remoting and its speech, scene understanding), looked up
//! for the modules that call them; their types are `sys/`'s.

use openxr as xr;

use crate::xr::error::XrError;

/// Looks up one of an extension's functions.
///
/// # Safety
/// `F` must be the function pointer type the extension declares for `name`,
/// and the instance must have that extension enabled.
pub unsafe fn load<F: Copy>(instance: &xr::Instance, name: &std::ffi::CStr) -> Result<F, XrError> {
    let mut function = None;
    // SAFETY: the instance is live; `name` is NUL-terminated.
    let result = unsafe {
        (instance.entry().fp().get_instance_proc_addr)(
            instance.as_raw(),
            name.as_ptr(),
            &mut function,
        )
    };
    match function {
        Some(function) if result.into_raw() >= 0 => {
            // SAFETY: per this function's contract, `F` is this entry point's
            // type; every function pointer has the same size.
            Ok(unsafe { std::mem::transmute_copy::<xr::sys::pfn::VoidFunction, F>(&function) })
        }
        _ => Err(XrError::Xr {
            call: "xrGetInstanceProcAddr",
            result: if result.into_raw() < 0 {
                result
            } else {
                xr::sys::Result::ERROR_FUNCTION_UNSUPPORTED
            },
        }),
    }
}
