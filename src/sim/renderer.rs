//! The renderer `sim` draws with, chosen by `--renderer`: Vulkan everywhere,
//! Direct3D 11 in the Windows build.
use crate::render::{OffscreenOptions, OffscreenRenderer, StereoImage, scene::FrameScene};

#[cfg(windows)]
use crate::render::d3d11::D3d11OffscreenRenderer;

use super::SimError;

/// The graphics API of `--renderer`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphicsApi {
    /// Vulkan (every platform).
    #[default]
    Vulkan,
    /// Direct3D 11 (Windows only).
    D3d11,
}

/// An offscreen renderer of either API.
pub enum SimRenderer {
    /// The Vulkan renderer.
    Vulkan(OffscreenRenderer),
    /// The Direct3D 11 renderer.
    #[cfg(windows)]
    D3d11(D3d11OffscreenRenderer),
}

impl SimRenderer {
    /// A renderer of `api`; Direct3D 11 outside Windows is an
    /// [`SimError::InvalidArgument`] naming `--renderer`.
    pub fn new(api: GraphicsApi, options: OffscreenOptions) -> Result<Self, SimError> {
        match api {
            GraphicsApi::Vulkan => Ok(SimRenderer::Vulkan(OffscreenRenderer::new(options)?)),
            #[cfg(windows)]
            GraphicsApi::D3d11 => Ok(SimRenderer::D3d11(D3d11OffscreenRenderer::new(options)?)),
            #[cfg(not(windows))]
            GraphicsApi::D3d11 => Err(d3d11_unavailable()),
        }
    }

    /// Draws one frame.
    pub fn render(&mut self, scene: &FrameScene) -> Result<(), SimError> {
        match self {
            SimRenderer::Vulkan(renderer) => Ok(renderer.render(scene)?),
            #[cfg(windows)]
            SimRenderer::D3d11(renderer) => Ok(renderer.render(scene)?),
        }
    }

    /// The last frame's pixels.
    pub fn read_back(&mut self) -> Result<StereoImage, SimError> {
        match self {
            SimRenderer::Vulkan(renderer) => Ok(renderer.read_back()?),
            #[cfg(windows)]
            SimRenderer::D3d11(renderer) => Ok(renderer.read_back()?),
        }
    }

    /// Tears the renderer down and returns the validation messages counted,
    /// including (Vulkan) those of the teardown; `None` without validation.
    pub fn finish(self) -> Option<u64> {
        match self {
            SimRenderer::Vulkan(renderer) => {
                let counter = renderer.validation_counter();
                drop(renderer);
                counter.map(|counter| counter.count())
            }
            #[cfg(windows)]
            SimRenderer::D3d11(renderer) => renderer.validation_messages(),
        }
    }
}

/// The error for `--renderer d3d11` in a build without Direct3D 11.
pub fn d3d11_unavailable() -> SimError {
    SimError::InvalidArgument {
        flag: "renderer",
        problem: "d3d11 exists only in the Windows build (holoterrain.exe); use --renderer vulkan"
            .into(),
    }
}
