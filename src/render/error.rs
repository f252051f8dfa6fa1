//! The renderer's one error type at the seam: what any backend can fail
//! with, and each backend's own errors inside it.

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
    /// The Vulkan backend failed; its message says what to do.
    #[error(transparent)]
    Vulkan(#[from] super::vulkan::VulkanError),
    /// The Direct3D 11 backend failed; its message says what to do.
    #[cfg(windows)]
    #[error(transparent)]
    D3d11(#[from] super::d3d11::D3d11Error),
}
