//! The C declarations of the OpenXR extensions the openxr crate lacks
//! (Holographic Remoting, its speech, scene understanding), held to the C
//! compiler's layout by their tests, and the extensions the app asks for
//! by name. It imports nothing else of `xr`, so the test runtime
//! (`tests/testrt`) answers with the very same declarations.

#[cfg(test)]
mod c_layout;
pub mod extensions;
pub mod remoting;
pub mod scene_understanding;
pub mod speech;

use openxr as xr;

/// An `XrStructureType` from its raw value.
pub fn ty(raw: i32) -> xr::sys::StructureType {
    xr::sys::StructureType::from_raw(raw)
}
