//! The Direct3D 11 renderer's error type.

use crate::render::error::RenderError;

/// Everything the Direct3D 11 renderer can fail with; each message is one
/// line that says what is wrong and, where the user can fix it, what to do.
#[derive(Debug, thiserror::Error)]
pub enum D3d11Error {
    /// No Direct3D 11 device (feature level 11_0) could be created.
    #[error(
        "no Direct3D 11 device: {detail}; install or update your graphics card's driver from its maker (AMD, Intel, NVIDIA)"
    )]
    NoDevice {
        /// What D3D11CreateDevice said.
        detail: String,
    },
    /// Validation was requested but this system has no Direct3D 11 debug layer.
    #[error(
        "Direct3D 11 validation was requested but this system has no Direct3D 11 debug layer ({detail}); on Windows add the optional feature \"Graphics Tools\", or run without --validation"
    )]
    DebugLayerMissing {
        /// How its absence showed.
        detail: String,
    },
    /// d3dcompiler_47 rejected a shader (only a broken or foreign compiler can).
    #[error("compiling the Direct3D 11 {entry_point} shader failed: {message}")]
    ShaderCompile {
        /// The HLSL entry point.
        entry_point: &'static str,
        /// The compiler's messages, joined into one line.
        message: String,
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
    /// Any other failed Direct3D call, with the call that failed.
    #[error("{call} failed: {message} (HRESULT {code:#010x})")]
    Call {
        /// The Direct3D method or function that failed.
        call: &'static str,
        /// The system's text for the result, on one line.
        message: String,
        /// The HRESULT, as unsigned hex.
        code: u32,
    },
}

impl From<D3d11Error> for RenderError {
    fn from(error: D3d11Error) -> Self {
        RenderError::Backend(Box::new(error))
    }
}

/// Turns a failed Direct3D call into a [`D3d11Error::Call`].
pub(crate) fn call_error(call: &'static str) -> impl FnOnce(windows::core::Error) -> D3d11Error {
    move |error| D3d11Error::Call {
        call,
        message: one_line(&error.message()),
        code: error.code().0 as u32,
    }
}

/// `text` with its lines joined by "; " (system and compiler messages span lines).
pub(crate) fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}
