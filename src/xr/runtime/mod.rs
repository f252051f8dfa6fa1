//! The OpenXR runtime: finding and loading it (manifests), the instance
//! with its extensions and graphics API, the validation layer's messages,
//! the calls into it as the watchdog sees them, its event queue, and the
//! functions of extensions the openxr crate does not know.

pub mod calls;
pub mod events;
pub mod extension_fns;
pub mod graphics_api;
pub mod instance;
pub mod manifest;
pub mod validation;
