//! Offscreen stereo rendering with Direct3D 11 for the simulator and tests:
//! the same options, frames, images and depth as the Vulkan
//! [`OffscreenRenderer`](crate::render::vulkan::OffscreenRenderer).
use std::sync::Arc;

use windows::Win32::Graphics::Direct3D11::{
    D3D11_BIND_DEPTH_STENCIL, D3D11_BIND_RENDER_TARGET, D3D11_CPU_ACCESS_READ, D3D11_MAP_READ,
    D3D11_MAPPED_SUBRESOURCE, D3D11_TEXTURE2D_DESC, D3D11_USAGE, D3D11_USAGE_DEFAULT,
    D3D11_USAGE_STAGING, ID3D11Texture2D,
};
use windows::Win32::Graphics::Dxgi::Common::{
    DXGI_FORMAT, DXGI_FORMAT_D16_UNORM, DXGI_SAMPLE_DESC,
};

use super::device::D3d11Device;
use super::error::{D3d11Error, call_error};
use super::terrain::{D3d11RenderTarget, D3d11TerrainRenderer};
use crate::render::backend::{
    Backend, OffscreenOptions, StereoDepth, StereoImage, StereoRenderer, ValidationCounter,
};
use crate::render::error::RenderError;
use crate::render::scene::{FrameScene, VIEW_COUNT};

/// Bytes per RGBA8 pixel.
const BYTES_PER_PIXEL: usize = 4;

/// Renders stereo frames into textures of its own and reads them back.
pub struct D3d11OffscreenRenderer {
    /// Views of `color` and `depth`.
    target: D3d11RenderTarget,
    /// Colour, 2 layers.
    color: ID3D11Texture2D,
    /// CPU-readable copy of `color`.
    staging: ID3D11Texture2D,
    /// Depth, 2 layers.
    depth: ID3D11Texture2D,
    /// CPU-readable copy of `depth` (the same format).
    depth_staging: ID3D11Texture2D,
    /// The terrain pass.
    terrain: D3d11TerrainRenderer,
    /// Pixels per eye row.
    eye_width: u32,
    /// Eye rows.
    eye_height: u32,
    /// Whether a frame was drawn (read-back needs one).
    rendered: bool,
}

impl D3d11OffscreenRenderer {
    /// A renderer on a device of its own; `options.validation` turns on the
    /// Direct3D 11 debug layer. Colour is sRGB RGBA8, depth D16 where
    /// supported (else D32).
    pub fn new(options: OffscreenOptions) -> Result<Self, D3d11Error> {
        if options.eye_width == 0 || options.eye_height == 0 {
            return Err(D3d11Error::InvalidOptions(format!(
                "eye images must not be empty, got {}×{}",
                options.eye_width, options.eye_height
            )));
        }
        let device = Arc::new(D3d11Device::new(options.validation)?);
        let terrain =
            D3d11TerrainRenderer::new(device.clone(), options.grid_width, options.grid_height)?;
        let texture = |format: DXGI_FORMAT, usage: D3D11_USAGE, bind: u32, cpu: u32| {
            create_texture(
                &device,
                &D3D11_TEXTURE2D_DESC {
                    Width: options.eye_width,
                    Height: options.eye_height,
                    MipLevels: 1,
                    ArraySize: VIEW_COUNT,
                    Format: format,
                    SampleDesc: DXGI_SAMPLE_DESC {
                        Count: 1,
                        Quality: 0,
                    },
                    Usage: usage,
                    BindFlags: bind,
                    CPUAccessFlags: cpu,
                    MiscFlags: 0,
                },
            )
        };
        let color = texture(
            terrain.color_format(),
            D3D11_USAGE_DEFAULT,
            D3D11_BIND_RENDER_TARGET.0 as u32,
            0,
        )?;
        let depth = texture(
            terrain.depth_format(),
            D3D11_USAGE_DEFAULT,
            D3D11_BIND_DEPTH_STENCIL.0 as u32,
            0,
        )?;
        let staging = texture(
            terrain.color_format(),
            D3D11_USAGE_STAGING,
            0,
            D3D11_CPU_ACCESS_READ.0 as u32,
        )?;
        let depth_staging = texture(
            terrain.depth_format(),
            D3D11_USAGE_STAGING,
            0,
            D3D11_CPU_ACCESS_READ.0 as u32,
        )?;
        let target = D3d11RenderTarget::new(
            &terrain,
            &color,
            &depth,
            options.eye_width,
            options.eye_height,
        )?;
        Ok(D3d11OffscreenRenderer {
            target,
            color,
            staging,
            depth,
            depth_staging,
            terrain,
            eye_width: options.eye_width,
            eye_height: options.eye_height,
            rendered: false,
        })
    }

    /// Draws one frame; never waits for the GPU.
    pub fn render(&mut self, scene: &FrameScene) -> Result<(), D3d11Error> {
        self.terrain.record(&self.target, scene)?;
        self.terrain.device().drain_validation();
        self.rendered = true;
        Ok(())
    }

    /// Waits for the most recent frame and returns its pixels.
    pub fn read_back(&mut self) -> Result<StereoImage, D3d11Error> {
        if !self.rendered {
            return Err(D3d11Error::NothingRendered);
        }
        let [left, right] = self.copy_layers(
            &self.staging,
            &self.color,
            self.eye_width as usize * BYTES_PER_PIXEL,
        )?;
        Ok(StereoImage {
            width: self.eye_width,
            height: self.eye_height,
            left,
            right,
        })
    }

    /// Waits for the most recent frame and returns its depth.
    pub fn read_back_depth(&mut self) -> Result<StereoDepth, D3d11Error> {
        if !self.rendered {
            return Err(D3d11Error::NothingRendered);
        }
        let d16 = self.terrain.depth_format() == DXGI_FORMAT_D16_UNORM;
        let texel_bytes = if d16 { 2 } else { 4 };
        let eyes = self.copy_layers(
            &self.depth_staging,
            &self.depth,
            self.eye_width as usize * texel_bytes,
        )?;
        let [left, right] = eyes.map(|bytes| -> Vec<f32> {
            if d16 {
                bytes
                    .chunks_exact(2)
                    .map(|texel| f32::from(u16::from_ne_bytes([texel[0], texel[1]])) / 65535.0)
                    .collect()
            } else {
                bytes
                    .chunks_exact(4)
                    .map(|texel| f32::from_ne_bytes([texel[0], texel[1], texel[2], texel[3]]))
                    .collect()
            }
        });
        Ok(StereoDepth {
            width: self.eye_width,
            height: self.eye_height,
            left,
            right,
        })
    }

    /// Copies `texture` into `staging` (alike) and returns each of its two
    /// layers' rows of `row_bytes`, top to bottom.
    fn copy_layers(
        &self,
        staging: &ID3D11Texture2D,
        texture: &ID3D11Texture2D,
        row_bytes: usize,
    ) -> Result<[Vec<u8>; 2], D3d11Error> {
        let context = self.terrain.device().context();
        let mut eyes = [Vec::new(), Vec::new()];
        // SAFETY: both textures are live and alike; each layer is mapped for
        // reading (Map waits for the copy), read within its row pitch and
        // height, and unmapped before the next.
        unsafe {
            context.CopyResource(staging, texture);
            for (layer, pixels) in eyes.iter_mut().enumerate() {
                let mut mapped = D3D11_MAPPED_SUBRESOURCE::default();
                context
                    .Map(staging, layer as u32, D3D11_MAP_READ, 0, Some(&mut mapped))
                    .map_err(call_error("ID3D11DeviceContext::Map"))?;
                pixels.reserve_exact(row_bytes * self.eye_height as usize);
                for row in 0..self.eye_height as usize {
                    let start = mapped
                        .pData
                        .cast::<u8>()
                        .add(row * mapped.RowPitch as usize);
                    pixels.extend_from_slice(std::slice::from_raw_parts(start, row_bytes));
                }
                context.Unmap(staging, layer as u32);
            }
        }
        Ok(eyes)
    }

    /// The adapter's name as its driver reports it.
    pub fn device_name(&self) -> &str {
        self.terrain.device().adapter_name()
    }
}

impl StereoRenderer for D3d11OffscreenRenderer {
    fn render(&mut self, scene: &FrameScene<'_>) -> Result<(), RenderError> {
        Ok(D3d11OffscreenRenderer::render(self, scene)?)
    }

    fn read_back(&mut self) -> Result<StereoImage, RenderError> {
        let image = D3d11OffscreenRenderer::read_back(self)?;
        self.terrain.device().drain_validation();
        Ok(image)
    }

    fn read_back_depth(&mut self) -> Result<StereoDepth, RenderError> {
        let depth = D3d11OffscreenRenderer::read_back_depth(self)?;
        self.terrain.device().drain_validation();
        Ok(depth)
    }

    fn validation_counter(&self) -> Option<ValidationCounter> {
        self.terrain.device().validation_counter()
    }

    fn device_name(&self) -> &str {
        D3d11OffscreenRenderer::device_name(self)
    }

    fn backend(&self) -> Backend {
        Backend::D3d11
    }
}

impl Drop for D3d11OffscreenRenderer {
    /// Messages the last frames raised still reach the counter a caller holds.
    fn drop(&mut self) {
        self.terrain.device().drain_validation();
    }
}

fn create_texture(
    device: &D3d11Device,
    desc: &D3D11_TEXTURE2D_DESC,
) -> Result<ID3D11Texture2D, D3d11Error> {
    let mut texture = None;
    // SAFETY: the description outlives the call; the out pointer points at a live local.
    unsafe {
        device
            .device()
            .CreateTexture2D(desc, None, Some(&mut texture))
    }
    .map_err(call_error("ID3D11Device::CreateTexture2D"))?;
    texture.ok_or_else(|| D3d11Error::Call {
        call: "ID3D11Device::CreateTexture2D",
        message: "returned no texture".into(),
        code: 0,
    })
}
