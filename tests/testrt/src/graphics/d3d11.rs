//! XR_KHR_D3D11_enable, the Windows build's graphics, as HoloLens 2 and the
//! Windows Mixed Reality runtimes do it: the adapter is the first DXGI
//! adapter, swapchain textures are made with plain CreateTexture2D on the
//! application's own ID3D11Device — typeless, as Windows runtimes create
//! them, so the application's views must name the swapchain's format —
//! as arrays, and read back through a staging texture on the device's
//! immediate context. No shared handles, keyed mutexes or interop are
//! involved, so Wine's Direct3D 11 can run it.

use std::ffi::c_void;

use openxr_sys as xr;
use windows::Win32::Graphics::Direct3D::{D3D_FEATURE_LEVEL, D3D_FEATURE_LEVEL_11_0};
use windows::Win32::Graphics::Direct3D11::{
    D3D11_BIND_DEPTH_STENCIL, D3D11_BIND_RENDER_TARGET, D3D11_BIND_SHADER_RESOURCE,
    D3D11_BIND_UNORDERED_ACCESS, D3D11_BOX, D3D11_CPU_ACCESS_READ,
    D3D11_FORMAT_SUPPORT_DEPTH_STENCIL, D3D11_FORMAT_SUPPORT_RENDER_TARGET,
    D3D11_FORMAT_SUPPORT_TEXTURE2D, D3D11_MAP_READ, D3D11_MAPPED_SUBRESOURCE, D3D11_TEXTURE2D_DESC,
    D3D11_USAGE_DEFAULT, D3D11_USAGE_STAGING, ID3D11Device, ID3D11DeviceContext, ID3D11Texture2D,
};
use windows::Win32::Graphics::Dxgi::Common::{DXGI_FORMAT, DXGI_SAMPLE_DESC};
use windows::Win32::Graphics::Dxgi::{CreateDXGIFactory1, IDXGIDevice, IDXGIFactory1};
use windows::core::{IUnknown, Interface};

use crate::instance::check_system;
use crate::state::{Failure, XrResult, with_runtime};
use crate::structs::{find_in_chain, output, two_call_typed};
use crate::swapchain::SwapchainInfo;

use super::IMAGE_COUNT;

/// The structure that binds a session to Direct3D 11.
pub const BINDING_TYPE: xr::StructureType = xr::StructureType::GRAPHICS_BINDING_D3D11_KHR;
/// The call that must come before xrCreateSession.
pub const REQUIREMENTS_CALL: &str = "xrGetD3D11GraphicsRequirementsKHR";
/// The API's name in the report.
pub const API_NAME: &str = "d3d11";

/// The swapchain formats, in the order a HoloLens 2 lists them:
/// B8G8R8A8_UNORM, B8G8R8A8_UNORM_SRGB, R8G8B8A8_UNORM,
/// R8G8B8A8_UNORM_SRGB, D16_UNORM, D24_UNORM_S8_UINT, D32_FLOAT,
/// D32_FLOAT_S8X24_UINT.
const FORMATS: [i64; 8] = [87, 91, 28, 29, 55, 45, 40, 20];

/// Whether `format` is one of the depth formats above.
fn is_depth(format: i64) -> bool {
    matches!(format, 55 | 45 | 40 | 20)
}

/// The typeless format a texture of `format` is created with.
fn typeless(format: i64) -> DXGI_FORMAT {
    DXGI_FORMAT(match format {
        87 | 91 => 90, // B8G8R8A8_TYPELESS
        28 | 29 => 27, // R8G8B8A8_TYPELESS
        55 => 53,      // R16_TYPELESS
        45 => 44,      // R24G8_TYPELESS
        40 => 39,      // R32_TYPELESS
        20 => 19,      // R32G8X24_TYPELESS
        other => other as i32,
    })
}

/// A Direct3D call that failed on the runtime's side.
fn d3d_failure(call: &str, error: &windows::core::Error) -> Failure {
    Failure::violation(
        xr::Result::ERROR_RUNTIME_FAILURE,
        format!(
            "{call} on the application's device failed: {}",
            error.message()
        ),
    )
}

/// The adapter xrGetD3D11GraphicsRequirementsKHR names.
#[derive(Default)]
pub struct GraphicsSetup {
    /// xrGetD3D11GraphicsRequirementsKHR was called.
    pub requirements_queried: bool,
    /// The LUID handed out (low, high).
    adapter: Option<(u32, i32)>,
}

/// The application's device as a session uses it.
pub struct SessionDevice {
    /// The device (the runtime holds a reference while the session lives).
    device: ID3D11Device,
    /// Its immediate context, for read-back.
    context: ID3D11DeviceContext,
}

/// A COM object's reference count (AddRef, then Release, which returns it).
fn reference_count(texture: &ID3D11Texture2D) -> u32 {
    let unknown: &IUnknown = texture.into();
    // SAFETY: the object is live (the runtime holds references to it);
    // AddRef followed by Release leaves its count as it was.
    unsafe {
        (unknown.vtable().AddRef)(unknown.as_raw());
        (unknown.vtable().Release)(unknown.as_raw())
    }
}

/// A swapchain's textures on the application's device.
pub struct SwapchainImages {
    /// The textures; the runtime owns one reference to each.
    textures: Vec<ID3D11Texture2D>,
    /// A second reference to each (see [`super::OWN_REFERENCES`]).
    guards: Vec<ID3D11Texture2D>,
    /// The swapchain's format.
    format: i64,
    /// Mip levels per texture.
    mip_levels: u32,
}

impl SwapchainImages {
    /// How many images there are.
    pub fn count(&self) -> u32 {
        self.textures.len() as u32
    }

    /// Gives up the runtime's references; returns what the application did
    /// wrong with them: released a reference it did not own (the count is
    /// short of the runtime's own). References the application still holds
    /// (views, bindings) are its to release and not counted against it.
    pub fn release(self) -> Vec<String> {
        let mut problems = Vec::new();
        for (index, (texture, guard)) in self.textures.into_iter().zip(self.guards).enumerate() {
            if let Some(problem) = super::over_released(index, reference_count(&texture)) {
                problems.push(problem);
                // The application's extra Release already gave this one up.
                std::mem::forget(guard);
            }
        }
        problems
    }

    /// xrEnumerateSwapchainImages' answer: XrSwapchainImageD3D11KHR each,
    /// pointing at the runtime's texture (the application borrows it).
    ///
    /// # Safety
    /// The arguments are the application's, as the OpenXR API defines them.
    pub unsafe fn enumerate(
        &self,
        capacity: u32,
        count_output: *mut u32,
        images: *mut xr::SwapchainImageBaseHeader,
    ) -> XrResult<xr::Result> {
        // SAFETY: the application passes XrSwapchainImageD3D11KHR elements
        // for a Direct3D 11 session; each is checked for that type.
        unsafe {
            two_call_typed(
                capacity,
                count_output,
                images.cast::<xr::SwapchainImageD3D11KHR>(),
                &self.textures,
                "images",
                |slot, texture| slot.texture = texture.as_raw(),
            )
        }
    }
}

impl SessionDevice {
    /// The device of the session whose create info chains `next`, checked
    /// to be on the adapter the requirements named.
    ///
    /// # Safety
    /// `next` is the application's chain; its device pointer is a live ID3D11Device.
    pub unsafe fn from_chain(setup: &GraphicsSetup, next: *const c_void) -> XrResult<Self> {
        let device_invalid =
            |what: String| Failure::violation(xr::Result::ERROR_GRAPHICS_DEVICE_INVALID, what);
        // SAFETY: the caller's promise; the binding is only read.
        let binding = unsafe { find_in_chain::<xr::GraphicsBindingD3D11KHR>(next.cast_mut()) }
            .ok_or_else(|| {
                device_invalid("createInfo chains no XrGraphicsBindingD3D11KHR".into())
            })?;
        let raw = binding.device;
        // SAFETY: the application's live device; cloning takes a reference
        // of the runtime's own, released when the session goes.
        let device = unsafe { ID3D11Device::from_raw_borrowed(&raw) }
            .ok_or_else(|| device_invalid("the binding's device is NULL".into()))?
            .clone();
        // SAFETY: plain queries on the live device.
        let luid = unsafe {
            device
                .cast::<IDXGIDevice>()
                .and_then(|dxgi| dxgi.GetAdapter())
                .and_then(|adapter| adapter.GetDesc())
        }
        .map_err(|error| d3d_failure("finding the device's adapter", &error))?
        .AdapterLuid;
        if setup.adapter != Some((luid.LowPart, luid.HighPart)) {
            return Err(device_invalid(format!(
                "the device is on adapter {:#x}:{:#x}, not the one xrGetD3D11GraphicsRequirementsKHR named",
                luid.HighPart, luid.LowPart
            )));
        }
        // SAFETY: as above.
        let level = unsafe { device.GetFeatureLevel() };
        if level.0 < D3D_FEATURE_LEVEL_11_0.0 {
            return Err(device_invalid(format!(
                "feature level {:#x} is below the required 11_0",
                level.0
            )));
        }
        // SAFETY: as above.
        let context = unsafe { device.GetImmediateContext() }
            .map_err(|error| d3d_failure("ID3D11Device::GetImmediateContext", &error))?;
        Ok(Self { device, context })
    }

    /// The formats offered on this device, HoloLens 2's order, those it
    /// can draw into as 2D textures.
    pub fn formats(&self) -> Vec<i64> {
        FORMATS
            .into_iter()
            .filter(|&format| {
                let needed = D3D11_FORMAT_SUPPORT_TEXTURE2D.0 as u32
                    | if is_depth(format) {
                        D3D11_FORMAT_SUPPORT_DEPTH_STENCIL.0 as u32
                    } else {
                        D3D11_FORMAT_SUPPORT_RENDER_TARGET.0 as u32
                    };
                // SAFETY: a plain query on the live device.
                unsafe { self.device.CheckFormatSupport(DXGI_FORMAT(format as i32)) }
                    .is_ok_and(|support| support & needed == needed)
            })
            .collect()
    }

    /// Whether `format` holds depth.
    pub fn is_depth_format(format: i64) -> bool {
        is_depth(format)
    }

    /// Makes the typeless texture arrays of a swapchain (`IMAGE_COUNT`, one if static).
    pub fn create_images(&mut self, info: &SwapchainInfo) -> XrResult<SwapchainImages> {
        let mut bind = D3D11_BIND_SHADER_RESOURCE.0 as u32;
        bind |= if is_depth(info.format) {
            D3D11_BIND_DEPTH_STENCIL.0 as u32
        } else {
            D3D11_BIND_RENDER_TARGET.0 as u32
        };
        if info
            .usage
            .contains(xr::SwapchainUsageFlags::UNORDERED_ACCESS)
        {
            bind |= D3D11_BIND_UNORDERED_ACCESS.0 as u32;
        }
        let desc = D3D11_TEXTURE2D_DESC {
            Width: info.width,
            Height: info.height,
            MipLevels: info.mip_count,
            ArraySize: info.array_size,
            Format: typeless(info.format),
            SampleDesc: DXGI_SAMPLE_DESC {
                Count: 1,
                Quality: 0,
            },
            Usage: D3D11_USAGE_DEFAULT,
            BindFlags: bind,
            CPUAccessFlags: 0,
            MiscFlags: 0,
        };
        let count = if info.static_image { 1 } else { IMAGE_COUNT };
        let mut textures = Vec::with_capacity(count as usize);
        for _ in 0..count {
            textures.push(self.texture(&desc)?);
        }
        Ok(SwapchainImages {
            guards: textures.clone(),
            textures,
            format: info.format,
            mip_levels: info.mip_count,
        })
    }

    /// One texture of `desc`.
    fn texture(&self, desc: &D3D11_TEXTURE2D_DESC) -> XrResult<ID3D11Texture2D> {
        let mut texture = None;
        // SAFETY: the description outlives the call; the out pointer points at a live local.
        unsafe { self.device.CreateTexture2D(desc, None, Some(&mut texture)) }
            .map_err(|error| d3d_failure("ID3D11Device::CreateTexture2D", &error))?;
        texture.ok_or_else(|| {
            Failure::violation(
                xr::Result::ERROR_RUNTIME_FAILURE,
                "ID3D11Device::CreateTexture2D returned no texture",
            )
        })
    }

    /// Copies `rect` of layer `array_index` of colour texture `index` into a
    /// staging texture and reads it as RGBA8 rows, top to bottom.
    pub fn read_back(
        &mut self,
        images: &SwapchainImages,
        index: u32,
        array_index: u32,
        rect: xr::Rect2Di,
    ) -> Result<Vec<u8>, String> {
        let source = images
            .textures
            .get(index as usize)
            .ok_or_else(|| format!("no texture {index}"))?;
        if is_depth(images.format) {
            return Err("only colour images are read back".into());
        }
        let (width, height) = (rect.extent.width as u32, rect.extent.height as u32);
        let staging = self
            .texture(&D3D11_TEXTURE2D_DESC {
                Width: width,
                Height: height,
                MipLevels: 1,
                ArraySize: 1,
                Format: typeless(images.format),
                SampleDesc: DXGI_SAMPLE_DESC {
                    Count: 1,
                    Quality: 0,
                },
                Usage: D3D11_USAGE_STAGING,
                BindFlags: 0,
                CPUAccessFlags: D3D11_CPU_ACCESS_READ.0 as u32,
                MiscFlags: 0,
            })
            .map_err(|failure| failure.violation.unwrap_or_default())?;
        let region = D3D11_BOX {
            left: rect.offset.x as u32,
            top: rect.offset.y as u32,
            front: 0,
            right: rect.offset.x as u32 + width,
            bottom: rect.offset.y as u32 + height,
            back: 1,
        };
        let row_bytes = width as usize * 4;
        let mut pixels = Vec::with_capacity(row_bytes * height as usize);
        // SAFETY: both textures are live on this device; the region lies in
        // the source (the layer checks saw to that); the staging texture is
        // mapped for reading (Map waits for the copy), read within its row
        // pitch and height, and unmapped. The immediate context is used on
        // the application's thread, inside its OpenXR call.
        unsafe {
            self.context.CopySubresourceRegion(
                &staging,
                0,
                0,
                0,
                0,
                source,
                array_index * images.mip_levels,
                Some(&region),
            );
            let mut mapped = D3D11_MAPPED_SUBRESOURCE::default();
            self.context
                .Map(&staging, 0, D3D11_MAP_READ, 0, Some(&mut mapped))
                .map_err(|error| format!("ID3D11DeviceContext::Map: {}", error.message()))?;
            for row in 0..height as usize {
                let start = mapped
                    .pData
                    .cast::<u8>()
                    .add(row * mapped.RowPitch as usize);
                pixels.extend_from_slice(std::slice::from_raw_parts(start, row_bytes));
            }
            self.context.Unmap(&staging, 0);
        }
        if matches!(images.format, 87 | 91) {
            super::bgra_to_rgba(&mut pixels);
        }
        Ok(pixels)
    }
}

/// The first DXGI adapter's LUID (low, high).
fn first_adapter() -> windows::core::Result<(u32, i32)> {
    // SAFETY: plain factory creation and queries.
    unsafe {
        let factory: IDXGIFactory1 = CreateDXGIFactory1()?;
        let description = factory.EnumAdapters1(0)?.GetDesc1()?;
        Ok((
            description.AdapterLuid.LowPart,
            description.AdapterLuid.HighPart,
        ))
    }
}

/// xrGetD3D11GraphicsRequirementsKHR: the first adapter, feature level 11_0.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_d3d11_graphics_requirements(
    instance: xr::Instance,
    system_id: xr::SystemId,
    requirements: *mut xr::GraphicsRequirementsD3D11KHR,
) -> xr::Result {
    with_runtime("xrGetD3D11GraphicsRequirementsKHR", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        // SAFETY: the application's output pointer.
        let requirements = unsafe { output(requirements, "graphicsRequirements") }?;
        let (low, high) =
            first_adapter().map_err(|error| d3d_failure("finding a DXGI adapter", &error))?;
        requirements.adapter_luid = xr::platform::LUID {
            LowPart: low,
            HighPart: high,
        };
        requirements.min_feature_level = D3D_FEATURE_LEVEL(D3D_FEATURE_LEVEL_11_0.0).0;
        runtime.graphics.adapter = Some((low, high));
        runtime.graphics.requirements_queried = true;
        Ok(xr::Result::SUCCESS)
    })
}

/// The extension's functions by name, for xrGetInstanceProcAddr.
pub fn function(name: &str) -> Option<xr::pfn::VoidFunction> {
    crate::dispatch::table!(name,
        "xrGetD3D11GraphicsRequirementsKHR" => get_d3d11_graphics_requirements as xr::pfn::GetD3D11GraphicsRequirementsKHR,
    )
}
