//! Vulkan through the runtime (XR_KHR_vulkan_enable2): the instance and
//! device the OpenXR runtime creates for us, with what the renderer needs
//! (`GpuContext::instance_requirements` / `device_requirements`), owned from
//! then on by the renderer's context (`GpuContext::from_external`), which
//! destroys them when its last user is gone; and [`VulkanGraphics`], the
//! session's [`GraphicsBinding`] for Vulkan.

use std::ffi::c_char;
use std::sync::Arc;

use ash::vk::{self, Handle};
use openxr as xr;

use super::{FormatOf, GraphicsBinding, NewSession, StereoFrames};
use crate::render::backend::ValidationCounter;
use crate::render::scene::FrameScene;
use crate::render::vulkan::context::{VALIDATION_LAYER, VULKAN_API_VERSION};
use crate::render::vulkan::formats::{choose_color_format, choose_depth_format};
use crate::render::vulkan::{ExternalDevice, FrameRing, GpuContext, RenderTarget, TerrainRenderer};
use crate::xr::error::{XrError, vk_call, xr_call};
use crate::xr::graphics::swapchain::{StereoSwapchain, SwapchainKind};
use crate::xr::runtime::calls::{CallKind, runtime_call};
use crate::xr::runtime::instance::Runtime;

/// Vulkan as the session's graphics: the renderer's context on the device
/// the runtime created. Dropped after the session (see `xr::run`); the
/// context then destroys the device and instance once the frames are gone
/// too.
pub struct VulkanGraphics {
    /// The renderer's context on the runtime's device.
    gpu: Arc<GpuContext>,
}

/// The Vulkan renderer and its targets on the swapchain images. Fields
/// drop in declaration order: framebuffers and views on the swapchain
/// images first, then the renderer, then the frame ring.
pub struct VulkanFrames {
    /// One render target per (colour image, depth image) pair, indexed
    /// `colour_index * depth_image_count + depth_index`.
    targets: Vec<RenderTarget>,
    /// Draws the terrain into a target.
    renderer: TerrainRenderer,
    /// Command buffers and fences of the frames in flight.
    ring: FrameRing,
    /// Images in the depth swapchain.
    depth_image_count: usize,
}

/// The runtime's formats (raw Vulkan values) as Vulkan formats.
fn as_vulkan_formats(offered: &[u32]) -> Vec<vk::Format> {
    offered
        .iter()
        .map(|&raw| vk::Format::from_raw(raw as i32))
        .collect()
}

impl GraphicsBinding for VulkanGraphics {
    type Api = xr::Vulkan;
    type Frames = VulkanFrames;

    fn open(runtime: &Runtime, validation: bool) -> Result<Self, XrError> {
        Ok(Self {
            gpu: create_gpu_context(runtime, validation)?,
        })
    }

    unsafe fn create_session(&self, runtime: &Runtime) -> Result<NewSession<xr::Vulkan>, XrError> {
        // SAFETY: the handles were created through this instance and system;
        // the caller drops the session before `self`, the context's last
        // user besides the frames, which destroys the device when dropped.
        unsafe {
            runtime
                .instance
                .create_session::<xr::Vulkan>(runtime.system, &session_create_info(&self.gpu))
        }
        .map_err(xr_call("xrCreateSession"))
    }

    fn choose_format(kind: SwapchainKind, offered: &[FormatOf<Self>]) -> Option<FormatOf<Self>> {
        let offered = as_vulkan_formats(offered);
        match kind {
            SwapchainKind::Color => choose_color_format(&offered),
            SwapchainKind::Depth => choose_depth_format(&offered),
        }
        .map(|format| format.as_raw() as u32)
    }

    fn format_name(format: FormatOf<Self>) -> String {
        format!("{:?}", vk::Format::from_raw(format as i32))
    }

    fn renderer(
        &self,
        color_format: u32,
        depth_format: u32,
        grid_width: u32,
        grid_height: u32,
    ) -> Result<VulkanFrames, XrError> {
        let renderer = TerrainRenderer::new(
            Arc::clone(&self.gpu),
            grid_width,
            grid_height,
            vk::Format::from_raw(color_format as i32),
            vk::Format::from_raw(depth_format as i32),
        )?;
        let ring = FrameRing::new(Arc::clone(&self.gpu))?;
        Ok(VulkanFrames {
            targets: Vec::new(),
            renderer,
            ring,
            depth_image_count: 0,
        })
    }

    unsafe fn retarget(
        frames: &mut VulkanFrames,
        color: &StereoSwapchain<xr::Vulkan>,
        depth: &StereoSwapchain<xr::Vulkan>,
    ) -> Result<(), XrError> {
        let extent = vk::Extent2D {
            width: color.width,
            height: color.height,
        };
        let mut targets = Vec::with_capacity(color.images.len() * depth.images.len());
        for &color_image in &color.images {
            for &depth_image in &depth.images {
                // SAFETY: both images are live swapchain images of this device with
                // 2 layers of `extent`, the renderer's formats and attachment usage;
                // the caller drops the frames before the swapchains.
                targets.push(unsafe {
                    RenderTarget::new(
                        frames.renderer.pass(),
                        vk::Image::from_raw(color_image),
                        vk::Image::from_raw(depth_image),
                        extent,
                    )
                }?);
            }
        }
        // The old targets drop here; the caller has waited for the GPU.
        frames.targets = targets;
        frames.depth_image_count = depth.images.len();
        Ok(())
    }

    fn validation_counter(&self) -> Option<ValidationCounter> {
        self.gpu.validation_counter()
    }
}

impl StereoFrames for VulkanFrames {
    fn render(
        &mut self,
        color_index: usize,
        depth_index: usize,
        scene: &FrameScene<'_>,
    ) -> Result<(), XrError> {
        let target = &self.targets[color_index * self.depth_image_count + depth_index];
        let frame = self.ring.begin()?;
        self.renderer.record(&frame, target, scene)?;
        self.ring.submit(frame)?;
        Ok(())
    }

    fn wait_idle(&mut self) -> Result<(), XrError> {
        Ok(self.ring.wait_for_all()?)
    }
}

/// Creates the instance and device through the runtime and hands them to
/// the renderer's context, which destroys them once its last user (renderer,
/// frame ring, render targets, and the caller's own `Arc`) is gone; with
/// `validation` and the layer installed, the context counts its messages,
/// from the instance's creation to its destruction.
fn create_gpu_context(runtime: &Runtime, validation: bool) -> Result<Arc<GpuContext>, XrError> {
    let xr_requirements = runtime_call(
        CallKind::SetUp,
        "xrGetVulkanGraphicsRequirements2KHR",
        || {
            runtime
                .instance
                .graphics_requirements::<xr::Vulkan>(runtime.system)
        },
    )
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
    let counter = layer_present.then(ValidationCounter::default);
    let instance = create_instance(runtime, &entry, counter.as_ref())?;
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
    let external = ExternalDevice {
        entry,
        instance,
        physical_device,
        device,
        queue_family_index,
    };
    // SAFETY: the runtime created the instance and device from this entry
    // with the renderer's requirements (create_instance, create_device), for
    // the app to own (XR_KHR_vulkan_enable2); from here only the context
    // destroys them, and the OpenXR session on them is dropped before it
    // (see `xr::run`).
    Ok(unsafe { GpuContext::from_external(external, counter) }?)
}

/// The handles OpenXR needs to create a session on the context's device.
fn session_create_info(gpu: &GpuContext) -> xr::vulkan::SessionCreateInfo {
    xr::vulkan::SessionCreateInfo {
        instance: gpu.instance().handle().as_raw() as _,
        physical_device: gpu.physical_device().as_raw() as _,
        device: gpu.device().handle().as_raw() as _,
        queue_family_index: gpu.queue_family_index(),
        queue_index: 0,
    }
}

/// Creates the Vulkan instance through the runtime; with a `counter`, with
/// the validation layer, VK_EXT_debug_utils and a messenger counting into
/// it chained into the creation (so vkCreateInstance and vkDestroyInstance
/// are heard too).
fn create_instance(
    runtime: &Runtime,
    entry: &ash::Entry,
    counter: Option<&ValidationCounter>,
) -> Result<ash::Instance, XrError> {
    let requirements = GpuContext::instance_requirements(counter.is_some());
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
    let mut instance_info = vk::InstanceCreateInfo::default()
        .application_info(&app_info)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&extensions);
    let mut creation_messenger = counter.map(GpuContext::counting_messenger_info);
    if let Some(messenger) = creation_messenger.as_mut() {
        instance_info = instance_info.push_next(messenger);
    }
    let raw_instance = runtime_call(CallKind::SetUp, "xrCreateVulkanInstanceKHR", || {
        // SAFETY: get_instance_proc_addr comes from the loaded Vulkan entry
        // and has the signature OpenXR expects; instance_info and what it
        // points at live across the call. The runtime adds the extensions it
        // needs itself.
        unsafe {
            runtime.instance.create_vulkan_instance(
                runtime.system,
                std::mem::transmute::<
                    vk::PFN_vkGetInstanceProcAddr,
                    xr::sys::platform::VkGetInstanceProcAddr,
                >(entry.static_fn().get_instance_proc_addr),
                &instance_info as *const vk::InstanceCreateInfo<'_> as *const _,
            )
        }
    })
    .map_err(xr_call("xrCreateVulkanInstanceKHR"))?
    .map_err(|raw| XrError::Vulkan {
        call: "vkCreateInstance (through OpenXR)",
        result: vk::Result::from_raw(raw),
    })?;
    // SAFETY: raw_instance is the live VkInstance the runtime just created with this loader.
    Ok(
        unsafe {
            ash::Instance::load(entry.static_fn(), vk::Instance::from_raw(raw_instance as _))
        },
    )
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

/// Picks the runtime's physical device and creates the logical device
/// through the runtime, with multiview and one graphics queue.
fn create_device(
    runtime: &Runtime,
    entry: &ash::Entry,
    instance: &ash::Instance,
    xr_requirements: &xr::vulkan::Requirements,
) -> Result<(vk::PhysicalDevice, u32, ash::Device), XrError> {
    let raw_physical = runtime_call(CallKind::SetUp, "xrGetVulkanGraphicsDevice2KHR", || {
        // SAFETY: the instance was created through xrCreateVulkanInstanceKHR,
        // as XR_KHR_vulkan_enable2 requires.
        unsafe {
            runtime
                .instance
                .vulkan_graphics_device(runtime.system, instance.handle().as_raw() as _)
        }
    })
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
    let raw_device = runtime_call(CallKind::SetUp, "xrCreateVulkanDeviceKHR", || {
        // SAFETY: as for the instance; device_info and its chain live across
        // the call.
        unsafe {
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
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_formats_are_read_as_vulkan_formats() {
        let offered = [
            vk::Format::D16_UNORM.as_raw() as u32,
            vk::Format::R8G8B8A8_SRGB.as_raw() as u32,
        ];
        assert_eq!(
            as_vulkan_formats(&offered),
            [vk::Format::D16_UNORM, vk::Format::R8G8B8A8_SRGB]
        );
        assert_eq!(
            VulkanGraphics::choose_format(SwapchainKind::Depth, &offered),
            Some(vk::Format::D16_UNORM.as_raw() as u32)
        );
        assert_eq!(VulkanGraphics::format_name(offered[1]), "R8G8B8A8_SRGB");
    }
}
