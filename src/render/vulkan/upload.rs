//! Getting bytes to the GPU: writes into host-visible buffers, and setup-time
//! copies into device-local buffers that record, submit and wait in one place.
use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::context::GpuContext;
use super::error::vk_error;
use super::memory::Buffer;
use crate::render::error::RenderError;

/// Copies `bytes` to the start of a host-visible buffer.
pub(crate) fn write_mapped(buffer: &mut Buffer, bytes: &[u8]) -> Result<(), RenderError> {
    write_at(buffer, 0, bytes)
}

/// Setup only: copies `contents` into device-local buffers through a
/// temporary staging buffer, zeroes `heights`, and waits for the copy.
pub(crate) fn upload_static(
    ctx: &Arc<GpuContext>,
    contents: &[(&Buffer, &[u8])],
    heights: &Buffer,
) -> Result<(), RenderError> {
    let total: usize = contents.iter().map(|(_, bytes)| bytes.len()).sum();
    let mut staging = Buffer::new(
        ctx,
        "terrain setup staging",
        total as u64,
        vk::BufferUsageFlags::TRANSFER_SRC,
        MemoryLocation::CpuToGpu,
    )?;
    let mut offsets = Vec::with_capacity(contents.len());
    let mut offset = 0;
    for (_, bytes) in contents {
        write_at(&mut staging, offset, bytes)?;
        offsets.push(offset);
        offset += bytes.len();
    }
    let device = ctx.device();
    let pool_info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(ctx.queue_family_index())
        .flags(vk::CommandPoolCreateFlags::TRANSIENT);
    // SAFETY: the device is live.
    let pool = unsafe { device.create_command_pool(&pool_info, None) }
        .map_err(vk_error("vkCreateCommandPool"))?;
    // SAFETY: the pool and fence are destroyed at the end of this block,
    // after the fence wait (or, on an error, after waiting for the device).
    let result = unsafe {
        record_and_wait(ctx, pool, |cmd| {
            for ((buffer, bytes), offset) in contents.iter().zip(&offsets) {
                let region = vk::BufferCopy {
                    src_offset: *offset as u64,
                    dst_offset: 0,
                    size: bytes.len() as u64,
                };
                device.cmd_copy_buffer(cmd, staging.raw(), buffer.raw(), &[region]);
            }
            device.cmd_fill_buffer(cmd, heights.raw(), 0, vk::WHOLE_SIZE, 0);
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(
                    vk::AccessFlags::VERTEX_ATTRIBUTE_READ
                        | vk::AccessFlags::INDEX_READ
                        | vk::AccessFlags::SHADER_READ
                        | vk::AccessFlags::TRANSFER_WRITE,
                );
            device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::VERTEX_INPUT
                    | vk::PipelineStageFlags::VERTEX_SHADER
                    | vk::PipelineStageFlags::FRAGMENT_SHADER
                    | vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
        })
    };
    // SAFETY: record_and_wait returned, so the pool's command buffer is done.
    unsafe { device.destroy_command_pool(pool, None) };
    result
}

/// # Safety
/// `pool` belongs to the context's device and queue family.
unsafe fn record_and_wait(
    ctx: &GpuContext,
    pool: vk::CommandPool,
    record: impl FnOnce(vk::CommandBuffer),
) -> Result<(), RenderError> {
    let device = ctx.device();
    let allocate_info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: per this function's contract.
    unsafe {
        let cmd = device
            .allocate_command_buffers(&allocate_info)
            .map_err(vk_error("vkAllocateCommandBuffers"))?[0];
        let begin_info = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        device
            .begin_command_buffer(cmd, &begin_info)
            .map_err(vk_error("vkBeginCommandBuffer"))?;
        record(cmd);
        device
            .end_command_buffer(cmd)
            .map_err(vk_error("vkEndCommandBuffer"))?;
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(vk_error("vkCreateFence"))?;
        let command_buffers = [cmd];
        let submit = vk::SubmitInfo::default().command_buffers(&command_buffers);
        let result = device
            .queue_submit(ctx.queue(), &[submit], fence)
            .map_err(vk_error("vkQueueSubmit"))
            .and_then(|()| {
                device
                    .wait_for_fences(&[fence], true, u64::MAX)
                    .map_err(vk_error("vkWaitForFences"))
            });
        if result.is_err() {
            let _ = device.device_wait_idle();
        }
        device.destroy_fence(fence, None);
        result
    }
}

/// Copies `bytes` into a host-visible buffer at `offset`.
fn write_at(buffer: &mut Buffer, offset: usize, bytes: &[u8]) -> Result<(), RenderError> {
    buffer.mapped_mut()?[offset..offset + bytes.len()].copy_from_slice(bytes);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::vulkan::error::VulkanError;

    #[test]
    fn writing_into_a_buffer_without_a_mapping_fails_instead_of_dropping_the_bytes() {
        let ctx = GpuContext::standalone(false).unwrap();
        let mut buffer = Buffer::without_memory(&ctx, 16).unwrap();
        let error = write_mapped(&mut buffer, &[1, 2, 3]).unwrap_err();
        assert!(
            matches!(error.backend_error(), Some(VulkanError::NotMapped)),
            "{error}"
        );
    }
}
