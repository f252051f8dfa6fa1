//! Per-frame GPU resources of the OpenXR loop: a command buffer and a fence
//! for each frame in flight, and the recording that prepares the acquired
//! swapchain images for composition.

use ash::vk;

use super::error::{XrError, vk_call};
use super::swapchain::VIEW_COUNT;

/// Frames the CPU may record ahead of the GPU.
pub const FRAMES_IN_FLIGHT: usize = 2;

/// Command buffers and fences for the frames in flight.
pub struct FrameResources {
    /// Pool of the command buffers, reset per buffer.
    pool: vk::CommandPool,
    /// One primary command buffer per frame in flight.
    command_buffers: Vec<vk::CommandBuffer>,
    /// Signalled when the frame's submission finished; created signalled.
    fences: Vec<vk::Fence>,
    /// Which frame slot records next.
    slot: usize,
}

/// The images one frame draws into.
#[derive(Debug, Clone, Copy)]
pub struct FrameTargets {
    /// The acquired colour swapchain image (2 layers).
    pub colour: vk::Image,
    /// The acquired depth swapchain image (2 layers), when depth is submitted.
    pub depth: Option<(vk::Image, vk::Format)>,
}

impl FrameResources {
    /// Creates the pool, buffers and signalled fences.
    pub fn create(device: &ash::Device, queue_family_index: u32) -> Result<Self, XrError> {
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(queue_family_index)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: the device is live; the pool is destroyed in destroy().
        let pool = unsafe { device.create_command_pool(&pool_info, None) }
            .map_err(vk_call("vkCreateCommandPool"))?;
        let mut resources = Self {
            pool,
            command_buffers: Vec::new(),
            fences: Vec::new(),
            slot: 0,
        };
        let allocate_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(FRAMES_IN_FLIGHT as u32);
        // SAFETY: the pool was just created on this device.
        match unsafe { device.allocate_command_buffers(&allocate_info) } {
            Ok(buffers) => resources.command_buffers = buffers,
            Err(result) => {
                resources.destroy(device);
                return Err(vk_call("vkAllocateCommandBuffers")(result));
            }
        }
        for _ in 0..FRAMES_IN_FLIGHT {
            let fence_info = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
            // SAFETY: the device is live; fences are destroyed in destroy().
            match unsafe { device.create_fence(&fence_info, None) } {
                Ok(fence) => resources.fences.push(fence),
                Err(result) => {
                    resources.destroy(device);
                    return Err(vk_call("vkCreateFence")(result));
                }
            }
        }
        Ok(resources)
    }

    /// Waits for the next slot's previous submission, then starts recording into it.
    pub fn begin(&mut self, device: &ash::Device) -> Result<vk::CommandBuffer, XrError> {
        let fence = self.fences[self.slot];
        // SAFETY: the fence belongs to this device; waiting on our own fence is
        // the one GPU wait the frame loop allows.
        unsafe {
            device
                .wait_for_fences(&[fence], true, u64::MAX)
                .map_err(vk_call("vkWaitForFences"))?;
            device
                .reset_fences(&[fence])
                .map_err(vk_call("vkResetFences"))?;
        }
        let command_buffer = self.command_buffers[self.slot];
        // SAFETY: the fence wait above guarantees the buffer is no longer pending.
        unsafe {
            device
                .reset_command_buffer(command_buffer, vk::CommandBufferResetFlags::empty())
                .map_err(vk_call("vkResetCommandBuffer"))?;
            device
                .begin_command_buffer(
                    command_buffer,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(vk_call("vkBeginCommandBuffer"))?;
        }
        Ok(command_buffer)
    }

    /// Ends the current slot's recording, submits it with its fence and moves on.
    pub fn submit(&mut self, device: &ash::Device, queue: vk::Queue) -> Result<(), XrError> {
        let command_buffer = self.command_buffers[self.slot];
        let command_buffers = [command_buffer];
        let submit = vk::SubmitInfo::default().command_buffers(&command_buffers);
        // SAFETY: the buffer is recording (begin() ran) and its fence is unsignalled.
        unsafe {
            device
                .end_command_buffer(command_buffer)
                .map_err(vk_call("vkEndCommandBuffer"))?;
            device
                .queue_submit(queue, &[submit], self.fences[self.slot])
                .map_err(vk_call("vkQueueSubmit"))?;
        }
        self.slot = (self.slot + 1) % FRAMES_IN_FLIGHT;
        Ok(())
    }

    /// Waits for every frame in flight; call before destroying what they use.
    pub fn wait_all(&self, device: &ash::Device) -> Result<(), XrError> {
        if self.fences.is_empty() {
            return Ok(());
        }
        // SAFETY: the fences belong to this device.
        unsafe { device.wait_for_fences(&self.fences, true, u64::MAX) }
            .map_err(vk_call("vkWaitForFences"))
    }

    /// Destroys the fences and pool; the caller has waited for all frames.
    pub fn destroy(&mut self, device: &ash::Device) {
        // SAFETY: no submission is pending (wait_all ran, or nothing was submitted).
        unsafe {
            for fence in self.fences.drain(..) {
                device.destroy_fence(fence, None);
            }
            device.destroy_command_pool(self.pool, None);
        }
        self.command_buffers.clear();
    }
}

/// Records clears of both layers of the frame's images to transparent black
/// (see-through on additive displays) and far depth, leaving them in the
/// attachment layouts the runtime expects at release.
pub fn record_clear(
    device: &ash::Device,
    command_buffer: vk::CommandBuffer,
    targets: FrameTargets,
) {
    let colour_range = vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: VIEW_COUNT,
    };
    let mut to_transfer = vec![
        vk::ImageMemoryBarrier::default()
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(targets.colour)
            .subresource_range(colour_range),
    ];
    let mut to_attachment = vec![
        vk::ImageMemoryBarrier::default()
            .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(targets.colour)
            .subresource_range(colour_range),
    ];
    let depth_range = targets.depth.map(|(image, format)| {
        let mut aspect = vk::ImageAspectFlags::DEPTH;
        if format == vk::Format::D24_UNORM_S8_UINT || format == vk::Format::D32_SFLOAT_S8_UINT {
            aspect |= vk::ImageAspectFlags::STENCIL;
        }
        let range = vk::ImageSubresourceRange {
            aspect_mask: aspect,
            ..colour_range
        };
        to_transfer.push(
            vk::ImageMemoryBarrier::default()
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(range),
        );
        to_attachment.push(
            vk::ImageMemoryBarrier::default()
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL)
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(range),
        );
        (image, range)
    });
    // SAFETY: the command buffer is recording; the images are the acquired
    // swapchain images, which stay valid until release after submission.
    unsafe {
        device.cmd_pipeline_barrier(
            command_buffer,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &to_transfer,
        );
        device.cmd_clear_color_image(
            command_buffer,
            targets.colour,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &vk::ClearColorValue {
                float32: [0.0, 0.0, 0.0, 0.0],
            },
            &[colour_range],
        );
        if let Some((image, range)) = depth_range {
            device.cmd_clear_depth_stencil_image(
                command_buffer,
                image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
                &[range],
            );
        }
        device.cmd_pipeline_barrier(
            command_buffer,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
                | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &to_attachment,
        );
    }
}
