//! Direct3D 11 through the runtime (XR_KHR_D3D11_enable, Windows builds
//! only): the device on the adapter xrGetD3D11GraphicsRequirementsKHR
//! names, at least its feature level, and [`D3d11Graphics`], the session's
//! [`GraphicsBinding`] for it, drawing with the Direct3D 11 terrain renderer
//! into the runtime's texture arrays.

use std::sync::Arc;

use openxr as xr;
use windows::Win32::Graphics::Direct3D::D3D_FEATURE_LEVEL;
use windows::Win32::Graphics::Direct3D11::ID3D11Texture2D;
use windows::Win32::Graphics::Dxgi::Common::DXGI_FORMAT;
use windows::Win32::Graphics::Dxgi::{
    CreateDXGIFactory1, DXGI_ERROR_NOT_FOUND, IDXGIAdapter, IDXGIAdapter1, IDXGIFactory1,
};
use windows::core::Interface;

use super::choice::{Luid, adapter_with_luid, choose_dxgi_format, feature_levels_at_least};
use super::{FormatOf, GraphicsBinding, NewSession, StereoFrames};
use crate::render::backend::ValidationCounter;
use crate::render::d3d11::{D3d11Device, D3d11Error, D3d11RenderTarget, D3d11TerrainRenderer};
use crate::render::dxgi;
use crate::render::scene::FrameScene;
use crate::xr::error::{XrError, xr_call};
use crate::xr::graphics::swapchain::{StereoSwapchain, SwapchainKind};
use crate::xr::runtime::calls::{CallKind, runtime_call};
use crate::xr::runtime::instance::Runtime;

/// Direct3D 11 as the session's graphics: the device on the runtime's adapter.
pub struct D3d11Graphics {
    /// The device the session and renderer share.
    device: Arc<D3d11Device>,
}

/// The Direct3D 11 renderer and its targets on the swapchain textures.
/// The targets drop first: their views hold the runtime's textures.
pub struct D3d11Frames {
    /// One render target per (colour texture, depth texture) pair, indexed
    /// `colour_index * depth_image_count + depth_index`.
    targets: Vec<D3d11RenderTarget>,
    /// Draws the terrain into a target.
    renderer: D3d11TerrainRenderer,
    /// Textures in the depth swapchain.
    depth_image_count: usize,
}

/// A Direct3D 11 failure as the session's error.
fn render_error(error: D3d11Error) -> XrError {
    XrError::Render(error.into())
}

/// The DXGI adapters, in enumeration order, with their LUIDs.
fn adapters() -> Result<Vec<(IDXGIAdapter1, Luid)>, D3d11Error> {
    let call_error = crate::render::d3d11::error::call_error;
    // SAFETY: plain factory creation.
    let factory: IDXGIFactory1 =
        unsafe { CreateDXGIFactory1() }.map_err(call_error("CreateDXGIFactory1"))?;
    let mut found = Vec::new();
    for index in 0.. {
        // SAFETY: a plain query on a live factory; past the last adapter it
        // returns DXGI_ERROR_NOT_FOUND.
        let adapter = match unsafe { factory.EnumAdapters1(index) } {
            Ok(adapter) => adapter,
            Err(error) if error.code() == DXGI_ERROR_NOT_FOUND => break,
            Err(error) => return Err(call_error("IDXGIFactory1::EnumAdapters1")(error)),
        };
        // SAFETY: a plain query on a live adapter.
        let description =
            unsafe { adapter.GetDesc1() }.map_err(call_error("IDXGIAdapter1::GetDesc1"))?;
        let luid = Luid {
            low: description.AdapterLuid.LowPart,
            high: description.AdapterLuid.HighPart,
        };
        found.push((adapter, luid));
    }
    Ok(found)
}

impl GraphicsBinding for D3d11Graphics {
    type Api = xr::D3D11;
    type Frames = D3d11Frames;

    fn open(runtime: &Runtime, validation: bool) -> Result<Self, XrError> {
        let requirements =
            runtime_call(CallKind::SetUp, "xrGetD3D11GraphicsRequirementsKHR", || {
                runtime
                    .instance
                    .graphics_requirements::<xr::D3D11>(runtime.system)
            })
            .map_err(xr_call("xrGetD3D11GraphicsRequirementsKHR"))?;
        let wanted = Luid {
            low: requirements.adapter_luid.LowPart,
            high: requirements.adapter_luid.HighPart,
        };
        let adapters = adapters().map_err(render_error)?;
        let luids: Vec<Luid> = adapters.iter().map(|(_, luid)| *luid).collect();
        let index = adapter_with_luid(&luids, wanted).ok_or(XrError::NoRuntimeAdapter {
            low: wanted.low,
            high: wanted.high,
        })?;
        let adapter: IDXGIAdapter = adapters[index]
            .0
            .cast()
            .map_err(crate::render::d3d11::error::call_error(
                "IDXGIAdapter1 as IDXGIAdapter",
            ))
            .map_err(render_error)?;
        let levels: Vec<D3D_FEATURE_LEVEL> =
            feature_levels_at_least(requirements.min_feature_level)
                .into_iter()
                .map(D3D_FEATURE_LEVEL)
                .collect();
        let device =
            D3d11Device::on_adapter(Some(&adapter), &levels, validation).map_err(render_error)?;
        log::info!("Direct3D 11 adapter: {}", device.adapter_name());
        Ok(Self {
            device: Arc::new(device),
        })
    }

    unsafe fn create_session(&self, runtime: &Runtime) -> Result<NewSession<xr::D3D11>, XrError> {
        let info = xr::d3d::SessionCreateInfoD3D11 {
            device: self.device.device().as_raw(),
        };
        // SAFETY: the device lives on the runtime's adapter at its feature
        // level; the caller drops the session before `self`, which holds
        // the device.
        unsafe {
            runtime
                .instance
                .create_session::<xr::D3D11>(runtime.system, &info)
        }
        .map_err(xr_call("xrCreateSession"))
    }

    fn choose_format(kind: SwapchainKind, offered: &[FormatOf<Self>]) -> Option<FormatOf<Self>> {
        choose_dxgi_format(kind, offered)
    }

    fn format_name(format: FormatOf<Self>) -> String {
        dxgi::format_name(format)
    }

    fn renderer(
        &self,
        color_format: u32,
        depth_format: u32,
        grid_width: u32,
        grid_height: u32,
    ) -> Result<D3d11Frames, XrError> {
        let renderer = D3d11TerrainRenderer::with_formats(
            Arc::clone(&self.device),
            grid_width,
            grid_height,
            DXGI_FORMAT(color_format as i32),
            DXGI_FORMAT(depth_format as i32),
        )
        .map_err(render_error)?;
        Ok(D3d11Frames {
            targets: Vec::new(),
            renderer,
            depth_image_count: 0,
        })
    }

    unsafe fn retarget(
        frames: &mut D3d11Frames,
        color: &StereoSwapchain<xr::D3D11>,
        depth: &StereoSwapchain<xr::D3D11>,
    ) -> Result<(), XrError> {
        let missing_texture = || D3d11Error::Call {
            call: "xrEnumerateSwapchainImages",
            message: "returned a null texture".into(),
            code: 0,
        };
        let mut targets = Vec::with_capacity(color.images.len() * depth.images.len());
        for color_texture in &color.images {
            // SAFETY: the runtime's texture pointers are live ID3D11Texture2D
            // objects while the swapchain lives, which outlives this borrow.
            let color_texture = unsafe { ID3D11Texture2D::from_raw_borrowed(color_texture) }
                .ok_or_else(missing_texture)
                .map_err(render_error)?;
            for depth_texture in &depth.images {
                // SAFETY: as for the colour texture.
                let depth_texture = unsafe { ID3D11Texture2D::from_raw_borrowed(depth_texture) }
                    .ok_or_else(missing_texture)
                    .map_err(render_error)?;
                targets.push(
                    D3d11RenderTarget::new(
                        &frames.renderer,
                        color_texture,
                        depth_texture,
                        color.width,
                        color.height,
                    )
                    .map_err(render_error)?,
                );
            }
        }
        // The old targets' views, which hold the old textures, drop here.
        frames.targets = targets;
        frames.depth_image_count = depth.images.len();
        Ok(())
    }

    fn validation_counter(&self) -> Option<ValidationCounter> {
        self.device.validation_counter()
    }
}

impl StereoFrames for D3d11Frames {
    fn render(
        &mut self,
        color_index: usize,
        depth_index: usize,
        scene: &FrameScene<'_>,
    ) -> Result<(), XrError> {
        let target = &self.targets[color_index * self.depth_image_count + depth_index];
        self.renderer.record(target, scene).map_err(render_error)?;
        self.renderer.device().drain_validation();
        Ok(())
    }

    fn wait_idle(&mut self) -> Result<(), XrError> {
        // The immediate context has no fence to wait on: flushing hands the
        // runtime every queued draw; it keeps its textures alive itself.
        // SAFETY: a plain call on the live immediate context.
        unsafe { self.renderer.device().context().Flush() };
        self.renderer.device().drain_validation();
        Ok(())
    }
}
