//! Vulkan through the runtime (XR_KHR_vulkan_enable2): the instance and
//! device the OpenXR runtime creates for us, with what the renderer needs
//! (`GpuContext::instance_requirements` / `device_requirements`), and their
//! hand-over to the renderer (`GpuContext::from_external`).

use std::ffi::c_char;
use std::sync::Arc;

use ash::vk::{self, Handle};
use openxr as xr;

use super::error::{XrError, vk_call, xr_call};
use super::runtime::Runtime;
use crate::render::GpuContext;
use crate::render::vulkan::context::{VALIDATION_LAYER, VULKAN_API_VERSION};

/// The Vulkan objects created through the runtime, destroyed in `Drop`.
pub struct XrVulkan {
    /// The Vulkan loader; kept alive for as long as the instance.
    pub entry: ash::Entry,
    /// The instance the runtime created for us.
    pub instance: ash::Instance,
    /// The physical device the runtime requires.
    pub physical_device: vk::PhysicalDevice,
    /// The logical device the runtime created for us.
    pub device: ash::Device,
    /// The graphics queue family.
    pub queue_family_index: u32,
    /// Whether the instance has the validation layer and VK_EXT_debug_utils.
    pub validation: bool,
}

impl XrVulkan {
    /// Creates the instance and device through the runtime.
    pub fn create(runtime: &Runtime, validation: bool) -> Result<Self, XrError> {
        let xr_requirements = runtime
            .instance
            .graphics_requirements::<xr::Vulkan>(runtime.system)
            .map_err(xr_call("xrGetVulkanGraphicsRequirements2KHR"))?;
        let wanted = xr::Version::new(1, 1, 0);
        if wanted < xr_requirements.min_api_version_supported
            || wanted.major() > xr_requirements.max_api_version_supported.major()
        {
            return Err(XrError::VulkanVersion {
                min: xr_requirements.min_api_version_supported,
                max: xr_requirements.max_api_version_supported,
            });
        }
        // SAFETY: loads the system's Vulkan loader, which follows the Vulkan ABI.
        let entry = unsafe { ash::Entry::load() }.map_err(|_| XrError::VulkanLoaderMissing)?;
        let layer_present = validation && has_validation_layer(&entry)?;
        if validation && !layer_present {
            log::warn!(
                "--validation: VK_LAYER_KHRONOS_validation is not installed (Debian: vulkan-validationlayers)"
            );
        }
        let requirements = GpuContext::instance_requirements(layer_present);
        let layers: Vec<*const c_char> = requirements
            .layers
            .iter()
            .map(|name| name.as_ptr())
            .collect();
        let extensions: Vec<*const c_char> = requirements
            .extensions
            .iter()
            .map(|name| name.as_ptr())
            .collect();
        let app_info = vk::ApplicationInfo::default()
            .application_name(c"holoterrain")
            .api_version(requirements.api_version.max(VULKAN_API_VERSION));
        let instance_info = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        // SAFETY: get_instance_proc_addr comes from the loaded Vulkan entry and has
        // the signature OpenXR expects; instance_info and what it points at live
        // across the call. The runtime adds the extensions it needs itself.
        let raw_instance = unsafe {
            runtime.instance.create_vulkan_instance(
                runtime.system,
                std::mem::transmute::<
                    vk::PFN_vkGetInstanceProcAddr,
                    xr::sys::platform::VkGetInstanceProcAddr,
                >(entry.static_fn().get_instance_proc_addr),
                &instance_info as *const vk::InstanceCreateInfo<'_> as *const _,
            )
        }
        .map_err(xr_call("xrCreateVulkanInstanceKHR"))?
        .map_err(|raw| XrError::Vulkan {
            call: "vkCreateInstance (through OpenXR)",
            result: vk::Result::from_raw(raw),
        })?;
        // SAFETY: raw_instance is the live VkInstance the runtime just created with this loader.
        let instance = unsafe {
            ash::Instance::load(entry.static_fn(), vk::Instance::from_raw(raw_instance as _))
        };

        let (physical_device, queue_family_index, device) =
            match create_device(runtime, &entry, &instance, &xr_requirements) {
                Ok(created) => created,
                Err(error) => {
                    // SAFETY: nothing else was made from the instance: the
                    // device was not created, and no session exists yet.
                    unsafe { instance.destroy_instance(None) };
                    return Err(error);
                }
            };
        Ok(Self {
            entry,
            instance,
            physical_device,
            device,
            queue_family_index,
            validation: layer_present,
        })
    }

    /// The handles OpenXR needs to create a session on this device.
    pub fn session_create_info(&self) -> xr::vulkan::SessionCreateInfo {
        xr::vulkan::SessionCreateInfo {
            instance: self.instance.handle().as_raw() as _,
            physical_device: self.physical_device.as_raw() as _,
            device: self.device.handle().as_raw() as _,
            queue_family_index: self.queue_family_index,
            queue_index: 0,
        }
    }

    /// The renderer's context on these objects (which stay ours to destroy),
    /// counting validation messages when the layer is on.
    pub fn gpu_context(&self) -> Result<Arc<GpuContext>, XrError> {
        let (entry, instance, device) = (
            self.entry.clone(),
            self.instance.clone(),
            self.device.clone(),
        );
        let context = if self.validation {
            GpuContext::from_external_with_validation(
                entry,
                instance,
                self.physical_device,
                device,
                self.queue_family_index,
            )
        } else {
            GpuContext::from_external(
                entry,
                instance,
                self.physical_device,
                device,
                self.queue_family_index,
            )
        };
        Ok(context?)
    }
}

/// Whether the Khronos validation layer is installed.
fn has_validation_layer(entry: &ash::Entry) -> Result<bool, XrError> {
    // SAFETY: a plain global query on a loaded entry.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }
        .map_err(vk_call("vkEnumerateInstanceLayerProperties"))?;
    Ok(layers
        .iter()
        .any(|layer| layer.layer_name_as_c_str() == Ok(VALIDATION_LAYER)))
}

impl Drop for XrVulkan {
    fn drop(&mut self) {
        // SAFETY: run_session drops the renderer, its GpuContext and the
        // OpenXR session (and every object made from them) before this, after
        // waiting for every frame, so nothing uses the device or instance.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Picks the runtime's physical device and creates the logical device
/// through the runtime, with multiview and one graphics queue.
fn create_device(
    runtime: &Runtime,
    entry: &ash::Entry,
    instance: &ash::Instance,
    xr_requirements: &xr::vulkan::Requirements,
) -> Result<(vk::PhysicalDevice, u32, ash::Device), XrError> {
    // SAFETY: the instance was created through xrCreateVulkanInstanceKHR, as
    // XR_KHR_vulkan_enable2 requires.
    let raw_physical = unsafe {
        runtime
            .instance
            .vulkan_graphics_device(runtime.system, instance.handle().as_raw() as _)
    }
    .map_err(xr_call("xrGetVulkanGraphicsDevice2KHR"))?;
    let physical_device = vk::PhysicalDevice::from_raw(raw_physical as _);
    // SAFETY: physical_device belongs to this live instance.
    let properties = unsafe { instance.get_physical_device_properties(physical_device) };
    if properties.api_version < VULKAN_API_VERSION {
        return Err(XrError::VulkanVersion {
            min: xr_requirements.min_api_version_supported,
            max: xr_requirements.max_api_version_supported,
        });
    }
    // SAFETY: as above.
    let queue_family_index =
        unsafe { instance.get_physical_device_queue_family_properties(physical_device) }
            .iter()
            .position(|family| family.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            .ok_or(XrError::NoGraphicsQueue)? as u32;
    log::info!(
        "Vulkan device: {}",
        properties
            .device_name_as_c_str()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    );

    let priorities = [1.0_f32];
    let queue_infos = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family_index)
        .queue_priorities(&priorities)];
    let mut device_requirements = GpuContext::device_requirements();
    let device_extensions: Vec<*const c_char> = device_requirements
        .extensions
        .iter()
        .map(|name| name.as_ptr())
        .collect();
    let device_info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue_infos)
        .enabled_extension_names(&device_extensions)
        .push_next(&mut device_requirements.multiview_features);
    // SAFETY: as for the instance; device_info and its chain live across the call.
    let raw_device = unsafe {
        runtime.instance.create_vulkan_device(
            runtime.system,
            std::mem::transmute::<
                vk::PFN_vkGetInstanceProcAddr,
                xr::sys::platform::VkGetInstanceProcAddr,
            >(entry.static_fn().get_instance_proc_addr),
            physical_device.as_raw() as _,
            &device_info as *const vk::DeviceCreateInfo<'_> as *const _,
        )
    }
    .map_err(xr_call("xrCreateVulkanDeviceKHR"))?
    .map_err(|raw| XrError::Vulkan {
        call: "vkCreateDevice (through OpenXR)",
        result: vk::Result::from_raw(raw),
    })?;
    // SAFETY: raw_device is the live VkDevice just created on this instance.
    let device =
        unsafe { ash::Device::load(instance.fp_v1_0(), vk::Device::from_raw(raw_device as _)) };
    Ok((physical_device, queue_family_index, device))
}
