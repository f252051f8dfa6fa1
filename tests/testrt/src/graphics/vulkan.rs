//! XR_KHR_vulkan_enable2, the Linux build's graphics: the Vulkan instance
//! and device are made through the application's vkGetInstanceProcAddr
//! with its own create infos (so its validation layer checks the runtime's
//! Vulkan calls too); the session works on the application's VkDevice and
//! queue; swapchain images live on that device, in the layout the
//! specification promises at acquire; read-back copies a released image on
//! the application's queue, ordered after its work by a barrier.

use std::ffi::c_void;

use ash::vk::{self, Handle as _};
use openxr_sys as xr;

use super::IMAGE_COUNT;
use crate::instance::check_system;
use crate::state::{Failure, XrResult, invalid, with_runtime};
use crate::structs::{check_chain, find_in_chain, input, out_value, output, two_call_typed};
use crate::swapchain::SwapchainInfo;

/// The structure that binds a session to Vulkan (the same value as
/// XR_TYPE_GRAPHICS_BINDING_VULKAN2_KHR).
pub const BINDING_TYPE: xr::StructureType = xr::StructureType::GRAPHICS_BINDING_VULKAN_KHR;
/// The call that must come before xrCreateSession.
pub const REQUIREMENTS_CALL: &str = "xrGetVulkanGraphicsRequirements2KHR";
/// The API's name in the report.
pub const API_NAME: &str = "vulkan";

/// The swapchain formats offered, best first: HoloLens 2's order (BGRA
/// before RGBA, linear before sRGB; D16 first for depth) in Vulkan's terms.
const FORMATS: [vk::Format; 8] = [
    vk::Format::B8G8R8A8_UNORM,
    vk::Format::B8G8R8A8_SRGB,
    vk::Format::R8G8B8A8_UNORM,
    vk::Format::R8G8B8A8_SRGB,
    vk::Format::D16_UNORM,
    vk::Format::D24_UNORM_S8_UINT,
    vk::Format::D32_SFLOAT,
    vk::Format::D32_SFLOAT_S8_UINT,
];

/// Whether `format` is one of the depth formats above.
fn is_depth(format: vk::Format) -> bool {
    matches!(
        format,
        vk::Format::D16_UNORM
            | vk::Format::D24_UNORM_S8_UINT
            | vk::Format::D32_SFLOAT
            | vk::Format::D32_SFLOAT_S8_UINT
    )
}

/// The image aspects of `format`.
fn aspects(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D24_UNORM_S8_UINT | vk::Format::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        format if is_depth(format) => vk::ImageAspectFlags::DEPTH,
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// What the application made through the runtime before its session.
#[derive(Default)]
pub struct GraphicsSetup {
    /// xrGetVulkanGraphicsRequirements2KHR was called.
    pub requirements_queried: bool,
    /// Instances made by xrCreateVulkanInstanceKHR.
    instances: Vec<ash::Instance>,
    /// The physical device xrGetVulkanGraphicsDevice2KHR named, and its instance.
    physical: Option<(vk::Instance, vk::PhysicalDevice)>,
    /// Devices made by xrCreateVulkanDeviceKHR.
    devices: Vec<ash::Device>,
}

impl GraphicsSetup {
    /// The instance made through the runtime with handle `raw`.
    fn instance(&self, raw: vk::Instance) -> Option<&ash::Instance> {
        self.instances
            .iter()
            .find(|instance| instance.handle() == raw)
    }
}

/// The application's device as a session uses it.
pub struct SessionDevice {
    /// The instance's functions.
    instance: ash::Instance,
    /// The physical device.
    physical: vk::PhysicalDevice,
    /// The device's functions.
    device: ash::Device,
    /// The queue from the graphics binding.
    queue: vk::Queue,
    /// The runtime's command pool on that queue's family.
    pool: vk::CommandPool,
    /// Signalled when the runtime's own work is done.
    fence: vk::Fence,
}

/// A swapchain's images on the application's device.
pub struct SwapchainImages {
    /// The device they live on.
    device: ash::Device,
    /// The images, by index.
    images: Vec<vk::Image>,
    /// Their memory.
    memory: Vec<vk::DeviceMemory>,
    /// Their format.
    format: vk::Format,
}

impl Drop for SwapchainImages {
    fn drop(&mut self) {
        // SAFETY: the images and memory are the runtime's, on a device the
        // application keeps alive until its session is gone (which destroys
        // them first); no work of the runtime is pending (it waits for each
        // submission), and the application may not use a destroyed swapchain.
        unsafe {
            for &image in &self.images {
                self.device.destroy_image(image, None);
            }
            for &memory in &self.memory {
                self.device.free_memory(memory, None);
            }
        }
    }
}

impl SwapchainImages {
    /// How many images there are.
    pub fn count(&self) -> u32 {
        self.images.len() as u32
    }

    /// Destroys the images. What the application does wrong with them (a
    /// destroyed image, a view left over) its Vulkan validation layer
    /// reports, so nothing is returned.
    pub fn release(self) -> Vec<String> {
        Vec::new()
    }

    /// xrEnumerateSwapchainImages' answer: XrSwapchainImageVulkanKHR each.
    ///
    /// # Safety
    /// The arguments are the application's, as the OpenXR API defines them.
    pub unsafe fn enumerate(
        &self,
        capacity: u32,
        count_output: *mut u32,
        images: *mut xr::SwapchainImageBaseHeader,
    ) -> XrResult<xr::Result> {
        // SAFETY: the application passes XrSwapchainImageVulkanKHR elements
        // for a Vulkan session; each is checked for that type before use.
        unsafe {
            two_call_typed(
                capacity,
                count_output,
                images.cast::<xr::SwapchainImageVulkanKHR>(),
                &self.images,
                "images",
                |slot, image| slot.image = image.as_raw(),
            )
        }
    }
}

impl Drop for SessionDevice {
    fn drop(&mut self) {
        // SAFETY: the pool and fence are the runtime's; their work is done
        // (each submission was waited for) and the device outlives the session.
        unsafe {
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.pool, None);
        }
    }
}

/// A Vulkan error as the call's failure: the runtime could not do its part.
fn vulkan_failure(call: &str, result: vk::Result) -> Failure {
    Failure::violation(
        xr::Result::ERROR_RUNTIME_FAILURE,
        format!("{call} on the application's device failed: {result}"),
    )
}

impl SessionDevice {
    /// The device of the session whose create info chains `next`.
    ///
    /// # Safety
    /// `next` is the application's chain; its handles are live.
    pub unsafe fn from_chain(setup: &GraphicsSetup, next: *const c_void) -> XrResult<Self> {
        // SAFETY: the caller's promise; the binding is only read.
        let binding = unsafe { find_in_chain::<xr::GraphicsBindingVulkanKHR>(next.cast_mut()) }
            .ok_or_else(|| {
                Failure::violation(
                    xr::Result::ERROR_GRAPHICS_DEVICE_INVALID,
                    "createInfo chains no XrGraphicsBindingVulkan2KHR",
                )
            })?;
        let device_invalid = |what: &str| {
            Failure::violation(xr::Result::ERROR_GRAPHICS_DEVICE_INVALID, what.to_owned())
        };
        let instance = setup
            .instance(vk::Instance::from_raw(binding.instance as u64))
            .ok_or_else(|| {
                device_invalid("the binding's VkInstance was not made by xrCreateVulkanInstanceKHR")
            })?
            .clone();
        let physical = vk::PhysicalDevice::from_raw(binding.physical_device as u64);
        if setup.physical != Some((instance.handle(), physical)) {
            return Err(device_invalid(
                "the binding's VkPhysicalDevice is not the one xrGetVulkanGraphicsDevice2KHR returned",
            ));
        }
        let device = setup
            .devices
            .iter()
            .find(|device| device.handle().as_raw() == binding.device as u64)
            .ok_or_else(|| {
                device_invalid("the binding's VkDevice was not made by xrCreateVulkanDeviceKHR")
            })?
            .clone();
        // SAFETY: a query on the application's live physical device.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let family = families
            .get(binding.queue_family_index as usize)
            .ok_or_else(|| {
                invalid(format!(
                    "queueFamilyIndex {} does not exist",
                    binding.queue_family_index
                ))
            })?;
        if binding.queue_index >= family.queue_count {
            return Err(invalid(format!(
                "queueIndex {} is past the family's {} queues",
                binding.queue_index, family.queue_count
            )));
        }
        // SAFETY: the queue exists (checked above) on the live device.
        let queue =
            unsafe { device.get_device_queue(binding.queue_family_index, binding.queue_index) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(binding.queue_family_index)
            .flags(
                vk::CommandPoolCreateFlags::TRANSIENT
                    | vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER,
            );
        // SAFETY: plain object creation on the live device.
        let pool = unsafe { device.create_command_pool(&pool_info, None) }
            .map_err(|result| vulkan_failure("vkCreateCommandPool", result))?;
        // SAFETY: as above.
        let fence = match unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) } {
            Ok(fence) => fence,
            Err(result) => {
                // SAFETY: the pool was just made and is unused.
                unsafe { device.destroy_command_pool(pool, None) };
                return Err(vulkan_failure("vkCreateFence", result));
            }
        };
        Ok(Self {
            instance,
            physical,
            device,
            queue,
            pool,
            fence,
        })
    }

    /// The features a swapchain of `format` needs from the device.
    fn needed_features(format: vk::Format) -> vk::FormatFeatureFlags {
        let attachment = if is_depth(format) {
            vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT
        } else {
            vk::FormatFeatureFlags::COLOR_ATTACHMENT
        };
        attachment | vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::SAMPLED_IMAGE
    }

    /// The formats offered on this device, best first: those of the list
    /// the device can draw into, sample and copy from.
    pub fn formats(&self) -> Vec<i64> {
        FORMATS
            .into_iter()
            .filter(|&format| {
                // SAFETY: a query on the live physical device.
                let properties = unsafe {
                    self.instance
                        .get_physical_device_format_properties(self.physical, format)
                };
                properties
                    .optimal_tiling_features
                    .contains(Self::needed_features(format))
            })
            .map(|format| i64::from(format.as_raw()))
            .collect()
    }

    /// Whether `format` (one of [`Self::formats`]) holds depth.
    pub fn is_depth_format(format: i64) -> bool {
        is_depth(vk::Format::from_raw(format as i32))
    }

    /// A memory type of `bits` with `flags`.
    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> Option<u32> {
        // SAFETY: a query on the live physical device.
        let properties = unsafe {
            self.instance
                .get_physical_device_memory_properties(self.physical)
        };
        (0..properties.memory_type_count).find(|&index| {
            bits & (1 << index) != 0
                && properties.memory_types[index as usize]
                    .property_flags
                    .contains(flags)
        })
    }

    /// Records commands with `record`, submits them on the application's
    /// queue and waits for them.
    fn run_once(&self, record: impl FnOnce(vk::CommandBuffer)) -> Result<(), vk::Result> {
        let allocate = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is the runtime's, on this device.
        let buffers = unsafe { self.device.allocate_command_buffers(&allocate) }?;
        let outcome = (|| {
            let commands = buffers[0];
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: a fresh command buffer of the runtime's pool.
            unsafe { self.device.begin_command_buffer(commands, &begin) }?;
            record(commands);
            // SAFETY: recording began above.
            unsafe { self.device.end_command_buffer(commands) }?;
            let submit = [vk::SubmitInfo::default().command_buffers(&buffers)];
            // SAFETY: the queue is the application's, used from the thread
            // that is inside its OpenXR call (queues are externally
            // synchronised, and the application is not submitting now); the
            // fence is unsignalled and waited for right away.
            unsafe {
                self.device.queue_submit(self.queue, &submit, self.fence)?;
                self.device.wait_for_fences(&[self.fence], true, u64::MAX)?;
                self.device.reset_fences(&[self.fence])
            }
        })();
        // SAFETY: the buffer's work is done (or was never submitted).
        unsafe { self.device.free_command_buffers(self.pool, &buffers) };
        outcome
    }

    /// Makes the images of a swapchain (`IMAGE_COUNT`, one if static) and moves them to the
    /// layout the application finds at acquire.
    pub fn create_images(&mut self, info: &SwapchainInfo) -> XrResult<SwapchainImages> {
        let format = vk::Format::from_raw(info.format as i32);
        let depth = is_depth(format);
        let mut usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::SAMPLED;
        usage |= if depth {
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        } else {
            vk::ImageUsageFlags::COLOR_ATTACHMENT
        };
        if info.usage.contains(xr::SwapchainUsageFlags::TRANSFER_DST) {
            usage |= vk::ImageUsageFlags::TRANSFER_DST;
        }
        if info
            .usage
            .contains(xr::SwapchainUsageFlags::UNORDERED_ACCESS)
        {
            usage |= vk::ImageUsageFlags::STORAGE;
        }
        let flags = if info.usage.contains(xr::SwapchainUsageFlags::MUTABLE_FORMAT) {
            vk::ImageCreateFlags::MUTABLE_FORMAT
        } else {
            vk::ImageCreateFlags::empty()
        };
        let image_info = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: info.width,
                height: info.height,
                depth: 1,
            })
            .mip_levels(info.mip_count)
            .array_layers(info.array_size)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let mut images = SwapchainImages {
            device: self.device.clone(),
            images: Vec::new(),
            memory: Vec::new(),
            format,
        };
        let count = if info.static_image { 1 } else { IMAGE_COUNT };
        for _ in 0..count {
            // SAFETY: creation on the live device with a valid create info.
            let image = unsafe { self.device.create_image(&image_info, None) }
                .map_err(|result| vulkan_failure("vkCreateImage", result))?;
            images.images.push(image);
            // SAFETY: the image was just made on this device.
            let requirements = unsafe { self.device.get_image_memory_requirements(image) };
            let memory_type = self
                .memory_type(
                    requirements.memory_type_bits,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                )
                .or_else(|| {
                    self.memory_type(
                        requirements.memory_type_bits,
                        vk::MemoryPropertyFlags::empty(),
                    )
                })
                .ok_or_else(|| {
                    vulkan_failure(
                        "choosing image memory",
                        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                    )
                })?;
            let allocate = vk::MemoryAllocateInfo::default()
                .allocation_size(requirements.size)
                .memory_type_index(memory_type);
            // SAFETY: allocation on the live device.
            let memory = unsafe { self.device.allocate_memory(&allocate, None) }
                .map_err(|result| vulkan_failure("vkAllocateMemory", result))?;
            images.memory.push(memory);
            // SAFETY: the memory fits the image's requirements.
            unsafe { self.device.bind_image_memory(image, memory, 0) }
                .map_err(|result| vulkan_failure("vkBindImageMemory", result))?;
        }
        let layout = if depth {
            vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
        } else {
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL
        };
        let (stage, access) = if depth {
            (
                vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
                    | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
                vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ
                    | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
            )
        } else {
            (
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            )
        };
        let barriers: Vec<vk::ImageMemoryBarrier> = images
            .images
            .iter()
            .map(|&image| {
                vk::ImageMemoryBarrier::default()
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(layout)
                    .src_access_mask(vk::AccessFlags::empty())
                    .dst_access_mask(access)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .image(image)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: aspects(format),
                        base_mip_level: 0,
                        level_count: vk::REMAINING_MIP_LEVELS,
                        base_array_layer: 0,
                        layer_count: vk::REMAINING_ARRAY_LAYERS,
                    })
            })
            .collect();
        self.run_once(|commands| {
            // SAFETY: recording into the runtime's command buffer; the
            // images are new and unused.
            unsafe {
                self.device.cmd_pipeline_barrier(
                    commands,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    stage,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &barriers,
                );
            }
        })
        .map_err(|result| vulkan_failure("moving new swapchain images to their layout", result))?;
        Ok(images)
    }

    /// Copies `rect` of layer `array_index` of colour image `index` to the
    /// host, as RGBA8 rows top to bottom, and returns the image to the
    /// layout the application released it in.
    pub fn read_back(
        &mut self,
        images: &SwapchainImages,
        index: u32,
        array_index: u32,
        rect: xr::Rect2Di,
    ) -> Result<Vec<u8>, String> {
        let image = *images
            .images
            .get(index as usize)
            .ok_or_else(|| format!("no image {index}"))?;
        if is_depth(images.format) {
            return Err("only colour images are read back".into());
        }
        let (width, height) = (rect.extent.width as u32, rect.extent.height as u32);
        let size = u64::from(width) * u64::from(height) * 4;
        let buffer_info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: creation on the live device.
        let buffer = unsafe { self.device.create_buffer(&buffer_info, None) }
            .map_err(|result| format!("vkCreateBuffer: {result}"))?;
        let outcome = self.copy_through(buffer, image, array_index, rect, size);
        // SAFETY: the copy's work is done (run_once waits) or never started.
        unsafe { self.device.destroy_buffer(buffer, None) };
        let mut pixels = outcome?;
        if matches!(
            images.format,
            vk::Format::B8G8R8A8_UNORM | vk::Format::B8G8R8A8_SRGB
        ) {
            super::bgra_to_rgba(&mut pixels);
        }
        Ok(pixels)
    }

    /// Binds host memory to `buffer`, copies the image region into it and
    /// reads it.
    fn copy_through(
        &self,
        buffer: vk::Buffer,
        image: vk::Image,
        array_index: u32,
        rect: xr::Rect2Di,
        size: u64,
    ) -> Result<Vec<u8>, String> {
        // SAFETY: the buffer was just made on this device.
        let requirements = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let memory_type = self
            .memory_type(
                requirements.memory_type_bits,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            )
            .ok_or("no host-visible, coherent memory")?;
        let allocate = vk::MemoryAllocateInfo::default()
            .allocation_size(requirements.size)
            .memory_type_index(memory_type);
        // SAFETY: allocation on the live device.
        let memory = unsafe { self.device.allocate_memory(&allocate, None) }
            .map_err(|result| format!("vkAllocateMemory: {result}"))?;
        let outcome = (|| {
            // SAFETY: the memory fits the buffer's requirements.
            unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }
                .map_err(|result| format!("vkBindBufferMemory: {result}"))?;
            let layer = vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: array_index,
                layer_count: 1,
            };
            let to_source = vk::ImageMemoryBarrier::default()
                .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(layer);
            let back = vk::ImageMemoryBarrier::default()
                .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .src_access_mask(vk::AccessFlags::empty())
                .dst_access_mask(
                    vk::AccessFlags::COLOR_ATTACHMENT_READ
                        | vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                )
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(layer);
            let to_host = vk::BufferMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(buffer)
                .offset(0)
                .size(vk::WHOLE_SIZE);
            let region = vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: array_index,
                    layer_count: 1,
                })
                .image_offset(vk::Offset3D {
                    x: rect.offset.x,
                    y: rect.offset.y,
                    z: 0,
                })
                .image_extent(vk::Extent3D {
                    width: rect.extent.width as u32,
                    height: rect.extent.height as u32,
                    depth: 1,
                });
            self.run_once(|commands| {
                // SAFETY: recording into the runtime's command buffer. The
                // first barrier orders the copy after every colour write
                // submitted before on this queue (the application's frame);
                // the image was released in COLOR_ATTACHMENT_OPTIMAL and is
                // left so again.
                unsafe {
                    self.device.cmd_pipeline_barrier(
                        commands,
                        vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::DependencyFlags::empty(),
                        &[],
                        &[],
                        &[to_source],
                    );
                    self.device.cmd_copy_image_to_buffer(
                        commands,
                        image,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        buffer,
                        &[region],
                    );
                    self.device.cmd_pipeline_barrier(
                        commands,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
                            | vk::PipelineStageFlags::HOST,
                        vk::DependencyFlags::empty(),
                        &[],
                        &[to_host],
                        &[back],
                    );
                }
            })
            .map_err(|result| format!("copying the image: {result}"))?;
            // SAFETY: the copy is complete (waited for); the memory is
            // host-visible and coherent, mapped whole and unmapped below.
            unsafe {
                let mapped = self
                    .device
                    .map_memory(memory, 0, size, vk::MemoryMapFlags::empty())
                    .map_err(|result| format!("vkMapMemory: {result}"))?;
                let pixels =
                    std::slice::from_raw_parts(mapped.cast::<u8>(), size as usize).to_vec();
                self.device.unmap_memory(memory);
                Ok(pixels)
            }
        })();
        // SAFETY: nothing uses the memory any more.
        unsafe { self.device.free_memory(memory, None) };
        outcome
    }
}

/// The Vulkan version range the runtime works with (it copies images with
/// Vulkan 1.0 commands; lavapipe and today's drivers offer up to 1.3).
fn api_range() -> (xr::Version, xr::Version) {
    (xr::Version::new(1, 0, 0), xr::Version::new(1, 3, 0))
}

/// The application's vkGetInstanceProcAddr as ash's entry point.
fn entry_of(get_instance_proc_addr: xr::platform::VkGetInstanceProcAddr) -> ash::Entry {
    // SAFETY: both are the C signature of vkGetInstanceProcAddr
    // (VkInstance, const char*) -> PFN_vkVoidFunction with the same ABI.
    let function = unsafe {
        std::mem::transmute::<xr::platform::VkGetInstanceProcAddr, vk::PFN_vkGetInstanceProcAddr>(
            get_instance_proc_addr,
        )
    };
    // SAFETY: the application's loader entry point, valid while it runs.
    unsafe {
        ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: function,
        })
    }
}

/// xrGetVulkanGraphicsRequirements2KHR.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_vulkan_graphics_requirements2(
    instance: xr::Instance,
    system_id: xr::SystemId,
    requirements: *mut xr::GraphicsRequirementsVulkanKHR,
) -> xr::Result {
    with_runtime("xrGetVulkanGraphicsRequirements2KHR", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        // SAFETY: the application's output pointer.
        let requirements = unsafe { output(requirements, "graphicsRequirements") }?;
        let (min, max) = api_range();
        requirements.min_api_version_supported = min;
        requirements.max_api_version_supported = max;
        runtime.graphics.requirements_queried = true;
        Ok(xr::Result::SUCCESS)
    })
}

/// xrCreateVulkanInstanceKHR: vkCreateInstance through the application's loader.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_vulkan_instance(
    instance: xr::Instance,
    create_info: *const xr::VulkanInstanceCreateInfoKHR,
    vulkan_instance: *mut xr::platform::VkInstance,
    vulkan_result: *mut xr::platform::VkResult,
) -> xr::Result {
    with_runtime("xrCreateVulkanInstanceKHR", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        check_system(info.system_id)?;
        if info.create_flags.into_raw() != 0 {
            return Err(invalid("createInfo.createFlags must be 0"));
        }
        let get_instance_proc_addr = info
            .pfn_get_instance_proc_addr
            .ok_or_else(|| invalid("createInfo.pfnGetInstanceProcAddr is NULL"))?;
        if info.vulkan_create_info.is_null() {
            return Err(invalid("createInfo.vulkanCreateInfo is NULL"));
        }
        // SAFETY: the application's output pointers.
        let (output_instance, output_result) = unsafe {
            (
                out_value(vulkan_instance, "vulkanInstance")?,
                out_value(vulkan_result, "vulkanResult")?,
            )
        };
        let entry = entry_of(get_instance_proc_addr);
        // SAFETY: the application's VkInstanceCreateInfo and allocator live
        // for the call; the runtime adds nothing to them.
        let created = unsafe {
            entry.create_instance(
                &*info.vulkan_create_info.cast::<vk::InstanceCreateInfo>(),
                info.vulkan_allocator
                    .cast::<vk::AllocationCallbacks>()
                    .as_ref(),
            )
        };
        match created {
            Ok(created) => {
                *output_instance = created.handle().as_raw() as xr::platform::VkInstance;
                *output_result = vk::Result::SUCCESS.as_raw();
                runtime.graphics.instances.push(created);
            }
            Err(result) => *output_result = result.as_raw(),
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrGetVulkanGraphicsDevice2KHR: the instance's first physical device.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_vulkan_graphics_device2(
    instance: xr::Instance,
    get_info: *const xr::VulkanGraphicsDeviceGetInfoKHR,
    physical_device: *mut xr::platform::VkPhysicalDevice,
) -> xr::Result {
    with_runtime("xrGetVulkanGraphicsDevice2KHR", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(get_info, "getInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "getInfo") }?;
        check_system(info.system_id)?;
        // SAFETY: the application's output pointer.
        let output_device = unsafe { out_value(physical_device, "vulkanPhysicalDevice") }?;
        let vulkan = runtime
            .graphics
            .instance(vk::Instance::from_raw(info.vulkan_instance as u64))
            .ok_or_else(|| {
                invalid("getInfo.vulkanInstance was not made by xrCreateVulkanInstanceKHR")
            })?;
        // SAFETY: a query on the application's live instance.
        let devices = unsafe { vulkan.enumerate_physical_devices() }.map_err(|result| {
            Failure::violation(
                xr::Result::ERROR_RUNTIME_FAILURE,
                format!("vkEnumeratePhysicalDevices failed: {result}"),
            )
        })?;
        let first = *devices.first().ok_or_else(|| {
            Failure::violation(
                xr::Result::ERROR_RUNTIME_FAILURE,
                "the Vulkan instance has no physical device",
            )
        })?;
        runtime.graphics.physical = Some((vulkan.handle(), first));
        *output_device = first.as_raw() as xr::platform::VkPhysicalDevice;
        Ok(xr::Result::SUCCESS)
    })
}

/// xrCreateVulkanDeviceKHR: vkCreateDevice through the application's loader.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_vulkan_device(
    instance: xr::Instance,
    create_info: *const xr::VulkanDeviceCreateInfoKHR,
    vulkan_device: *mut xr::platform::VkDevice,
    vulkan_result: *mut xr::platform::VkResult,
) -> xr::Result {
    with_runtime("xrCreateVulkanDeviceKHR", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        check_system(info.system_id)?;
        if info.create_flags.into_raw() != 0 {
            return Err(invalid("createInfo.createFlags must be 0"));
        }
        if info.pfn_get_instance_proc_addr.is_none() || info.vulkan_create_info.is_null() {
            return Err(invalid(
                "createInfo.pfnGetInstanceProcAddr or vulkanCreateInfo is NULL",
            ));
        }
        let physical = vk::PhysicalDevice::from_raw(info.vulkan_physical_device as u64);
        let Some((instance_handle, chosen)) = runtime.graphics.physical else {
            return Err(Failure::violation(
                xr::Result::ERROR_CALL_ORDER_INVALID,
                "xrGetVulkanGraphicsDevice2KHR was not called first",
            ));
        };
        if physical != chosen {
            return Err(invalid(
                "createInfo.vulkanPhysicalDevice is not the one xrGetVulkanGraphicsDevice2KHR returned",
            ));
        }
        // SAFETY: the application's output pointers.
        let (output_device, output_result) = unsafe {
            (
                out_value(vulkan_device, "vulkanDevice")?,
                out_value(vulkan_result, "vulkanResult")?,
            )
        };
        let vulkan = runtime
            .graphics
            .instance(instance_handle)
            .ok_or_else(|| invalid("the physical device's instance is gone"))?;
        // SAFETY: the application's VkDeviceCreateInfo and allocator live for
        // the call; the physical device belongs to the instance.
        let created = unsafe {
            vulkan.create_device(
                physical,
                &*info.vulkan_create_info.cast::<vk::DeviceCreateInfo>(),
                info.vulkan_allocator
                    .cast::<vk::AllocationCallbacks>()
                    .as_ref(),
            )
        };
        match created {
            Ok(created) => {
                *output_device = created.handle().as_raw() as xr::platform::VkDevice;
                *output_result = vk::Result::SUCCESS.as_raw();
                runtime.graphics.devices.push(created);
            }
            Err(result) => *output_result = result.as_raw(),
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// The extension's functions by name, for xrGetInstanceProcAddr.
pub fn function(name: &str) -> Option<xr::pfn::VoidFunction> {
    crate::dispatch::table!(name,
        "xrGetVulkanGraphicsRequirements2KHR" => get_vulkan_graphics_requirements2 as xr::pfn::GetVulkanGraphicsRequirements2KHR,
        "xrCreateVulkanInstanceKHR" => create_vulkan_instance as xr::pfn::CreateVulkanInstanceKHR,
        "xrGetVulkanGraphicsDevice2KHR" => get_vulkan_graphics_device2 as xr::pfn::GetVulkanGraphicsDevice2KHR,
        "xrCreateVulkanDeviceKHR" => create_vulkan_device as xr::pfn::CreateVulkanDeviceKHR,
    )
}
