//! Opening an offscreen renderer by [`Backend`] name: the one place above
//! the backends that knows them all.
use super::backend::{Backend, OffscreenOptions, StereoRenderer};
use super::error::RenderError;

/// Opens an offscreen renderer of `backend` on a device of its own.
/// A backend this build does not have fails with
/// [`RenderError::BackendUnavailable`].
pub fn open(
    backend: Backend,
    options: OffscreenOptions,
) -> Result<Box<dyn StereoRenderer>, RenderError> {
    match backend {
        Backend::Vulkan => Ok(Box::new(super::vulkan::OffscreenRenderer::new(options)?)),
        #[cfg(windows)]
        Backend::D3d11 => Ok(Box::new(
            super::d3d11::D3d11OffscreenRenderer::new(options)?,
        )),
        #[cfg(not(windows))]
        Backend::D3d11 => Err(RenderError::BackendUnavailable {
            backend: backend.name(),
            reason: "Direct3D 11 exists only in the Windows build (holoterrain.exe); use --renderer vulkan".into(),
        }),
    }
}
