//! The Direct3D 11 device and its immediate context, the debug layer when
//! validation is asked for, and what the device can do.
use windows::Win32::Foundation::HMODULE;
use windows::Win32::Graphics::Direct3D::{
    D3D_DRIVER_TYPE_HARDWARE, D3D_DRIVER_TYPE_UNKNOWN, D3D_FEATURE_LEVEL, D3D_FEATURE_LEVEL_11_0,
    D3D_FEATURE_LEVEL_11_1,
};
use windows::Win32::Graphics::Direct3D11::{
    D3D11_CREATE_DEVICE_BGRA_SUPPORT, D3D11_CREATE_DEVICE_DEBUG, D3D11_CREATE_DEVICE_FLAG,
    D3D11_FEATURE_D3D11_OPTIONS3, D3D11_FEATURE_DATA_D3D11_OPTIONS3, D3D11_MESSAGE,
    D3D11_MESSAGE_SEVERITY_WARNING, D3D11_SDK_VERSION, D3D11CreateDevice, ID3D11Device,
    ID3D11DeviceContext, ID3D11InfoQueue,
};
use windows::Win32::Graphics::Dxgi::{DXGI_ERROR_SDK_COMPONENT_MISSING, IDXGIAdapter, IDXGIDevice};
use windows::core::Interface;

use super::error::D3d11Error;
use crate::render::backend::ValidationCounter;

/// Feature levels asked for, best first: the shaders need shader model 5.0.
const FEATURE_LEVELS: [D3D_FEATURE_LEVEL; 2] = [D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_11_0];

/// A device with its immediate context.
pub struct D3d11Device {
    /// The device.
    device: ID3D11Device,
    /// Its immediate context, on which everything is drawn.
    context: ID3D11DeviceContext,
    /// The debug layer's message queue, when validation is on.
    info_queue: Option<ID3D11InfoQueue>,
    /// Warnings and errors drained from `info_queue` so far.
    validation: ValidationCounter,
    /// Whether a vertex shader may write SV_RenderTargetArrayIndex.
    layer_from_vertex_shader: bool,
    /// The adapter's name, for messages.
    adapter_name: String,
}

impl D3d11Device {
    /// A device on the default adapter, at feature level 11_0 or better. With
    /// `validation`, the debug layer is on and its warnings and errors are
    /// counted; a system without it fails with [`D3d11Error::DebugLayerMissing`].
    pub fn new(validation: bool) -> Result<Self, D3d11Error> {
        Self::on_adapter(None, &FEATURE_LEVELS, validation)
    }

    /// A device on `adapter` (the default hardware adapter when `None`) at
    /// the best of `feature_levels` (best first) it has, as [`Self::new`]
    /// otherwise. An OpenXR runtime names the adapter and lowest level.
    pub fn on_adapter(
        adapter: Option<&IDXGIAdapter>,
        feature_levels: &[D3D_FEATURE_LEVEL],
        validation: bool,
    ) -> Result<Self, D3d11Error> {
        if feature_levels.is_empty() {
            return Err(D3d11Error::NoDevice {
                detail: "no feature level both the shaders and the caller accept".into(),
            });
        }
        // BGRA support costs nothing and lets the device share surfaces with
        // Direct2D and OpenXR runtimes that want it.
        let mut flags: D3D11_CREATE_DEVICE_FLAG = D3D11_CREATE_DEVICE_BGRA_SUPPORT;
        if validation {
            flags |= D3D11_CREATE_DEVICE_DEBUG;
        }
        let mut device = None;
        let mut context = None;
        // With an adapter given, the driver type must be UNKNOWN.
        let driver_type = match adapter {
            Some(_) => D3D_DRIVER_TYPE_UNKNOWN,
            None => D3D_DRIVER_TYPE_HARDWARE,
        };
        // SAFETY: the out pointers point at live locals; the adapter, when
        // given, is a live DXGI adapter; no software module is passed.
        let created = unsafe {
            D3D11CreateDevice(
                adapter,
                driver_type,
                HMODULE::default(),
                flags,
                Some(feature_levels),
                D3D11_SDK_VERSION,
                Some(&mut device),
                None,
                Some(&mut context),
            )
        };
        match created {
            Err(error) if validation && error.code() == DXGI_ERROR_SDK_COMPONENT_MISSING => {
                return Err(D3d11Error::DebugLayerMissing {
                    detail: "D3D11CreateDevice: SDK component missing".into(),
                });
            }
            Err(error) => {
                return Err(D3d11Error::NoDevice {
                    detail: super::error::one_line(&error.message()),
                });
            }
            Ok(()) => {}
        }
        let (Some(device), Some(context)) = (device, context) else {
            return Err(D3d11Error::NoDevice {
                detail: "D3D11CreateDevice returned no device".into(),
            });
        };
        let info_queue = if validation {
            Some(device.cast::<ID3D11InfoQueue>().map_err(|error| {
                D3d11Error::DebugLayerMissing {
                    detail: format!(
                        "the device has no ID3D11InfoQueue: {}",
                        super::error::one_line(&error.message())
                    ),
                }
            })?)
        } else {
            None
        };
        let mut options = D3D11_FEATURE_DATA_D3D11_OPTIONS3::default();
        // SAFETY: `options` is the structure this feature fills, of the size given.
        let layer_from_vertex_shader = unsafe {
            device.CheckFeatureSupport(
                D3D11_FEATURE_D3D11_OPTIONS3,
                (&raw mut options).cast(),
                size_of::<D3D11_FEATURE_DATA_D3D11_OPTIONS3>() as u32,
            )
        }
        // A runtime older than Direct3D 11.3 does not know the query: no.
        .map(|()| {
            options
                .VPAndRTArrayIndexFromAnyShaderFeedingRasterizer
                .as_bool()
        })
        .unwrap_or(false);
        let adapter_name = adapter_name(&device).unwrap_or_else(|| "unknown adapter".into());
        Ok(D3d11Device {
            device,
            context,
            info_queue,
            validation: ValidationCounter::default(),
            layer_from_vertex_shader,
            adapter_name,
        })
    }

    /// The device.
    pub fn device(&self) -> &ID3D11Device {
        &self.device
    }

    /// The immediate context.
    pub fn context(&self) -> &ID3D11DeviceContext {
        &self.context
    }

    /// Whether one draw can write both eyes' layers (the vertex shader
    /// chooses the render-target array index).
    pub fn layer_from_vertex_shader(&self) -> bool {
        self.layer_from_vertex_shader
    }

    /// The adapter's name as the driver reports it.
    pub fn adapter_name(&self) -> &str {
        &self.adapter_name
    }

    /// Counts the debug layer's warnings and errors into the device's
    /// [`ValidationCounter`] and logs each, then empties the queue so the
    /// next call sees only new ones. Does nothing when validation is off.
    pub fn drain_validation(&self) {
        let Some(queue) = self.info_queue.as_ref() else {
            return;
        };
        // SAFETY: the queue is live; each message is read into a buffer of
        // the length the first call reports, aligned for D3D11_MESSAGE, and
        // read only before the queue is cleared.
        unsafe {
            for index in 0..queue.GetNumStoredMessages() {
                let mut length = 0;
                if queue.GetMessage(index, None, &mut length).is_err() {
                    continue;
                }
                let mut storage = vec![0u64; length.div_ceil(size_of::<u64>())];
                let message = storage.as_mut_ptr().cast::<D3D11_MESSAGE>();
                if queue.GetMessage(index, Some(message), &mut length).is_err() {
                    continue;
                }
                let message = &*message;
                if message.Severity.0 <= D3D11_MESSAGE_SEVERITY_WARNING.0 {
                    self.validation.record();
                    let text = std::slice::from_raw_parts(
                        message.pDescription,
                        message.DescriptionByteLength,
                    );
                    log::warn!(
                        "Direct3D 11 debug layer: {}",
                        String::from_utf8_lossy(text).trim_end_matches('\0')
                    );
                }
            }
            queue.ClearStoredMessages();
        }
    }

    /// The count of debug-layer warnings and errors drained so far; `None`
    /// when validation is off.
    pub fn validation_counter(&self) -> Option<ValidationCounter> {
        self.info_queue.as_ref().map(|_| self.validation.clone())
    }
}

/// The name of the adapter `device` runs on.
fn adapter_name(device: &ID3D11Device) -> Option<String> {
    let dxgi_device = device.cast::<IDXGIDevice>().ok()?;
    // SAFETY: plain queries on live objects.
    let description = unsafe { dxgi_device.GetAdapter().ok()?.GetDesc().ok()? };
    let name = &description.Description;
    let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
    Some(String::from_utf16_lossy(&name[..end]))
}
