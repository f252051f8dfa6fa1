//! The renderer's one error type at the seam: what any backend can fail
//! with, and a backend's own error inside it, which the backend converts
//! (`From<VulkanError>` lives in render/vulkan/error.rs, `From<D3d11Error>`
//! in render/d3d11/error.rs), so the seam names no backend.

/// Everything the renderer can fail with; each message is one line that says
/// what is wrong and, where the user can fix it, what to do.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
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
    /// The backend asked for is not part of this build or this platform.
    #[error("the {backend} renderer is not available here: {reason}")]
    BackendUnavailable {
        /// The backend's command-line name.
        backend: &'static str,
        /// Why, and what to use instead.
        reason: String,
    },
    /// A backend failed in a way of its own; its message says what to do.
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

impl RenderError {
    /// The backend's own error of type `E` inside, if this is one.
    pub fn backend_error<E: std::error::Error + 'static>(&self) -> Option<&E> {
        match self {
            RenderError::Backend(error) => error.downcast_ref(),
            _ => None,
        }
    }
}
