//! Frames in flight: a command buffer and a fence per slot, so the CPU records
//! frame N + 1 while the GPU still draws frame N, and never waits for more.
use std::sync::Arc;

use ash::vk;

use super::context::GpuContext;
use super::error::vk_error;
use crate::render::error::RenderError;

/// How many frames the CPU may record ahead of the GPU.
pub const FRAMES_IN_FLIGHT: usize = 2;

/// A frame being recorded: its slot and command buffer. Only
/// [`FrameRing::begin`] makes one, after the slot's previous use finished, so
/// per-slot resources (staging, uniforms) may be rewritten while it lives.
pub struct Frame {
    /// Which slot of the ring (0..FRAMES_IN_FLIGHT).
    slot: usize,
    /// The slot's command buffer, in the recording state.
    command_buffer: vk::CommandBuffer,
}

impl Frame {
    /// The slot index, for per-slot resources.
    pub fn slot(&self) -> usize {
        self.slot
    }

    /// The command buffer to record into.
    pub fn command_buffer(&self) -> vk::CommandBuffer {
        self.command_buffer
    }
}

/// One slot's command buffer and the fence its submission signals.
struct FrameSlot {
    /// Re-recorded each time the slot comes round.
    command_buffer: vk::CommandBuffer,
    /// Signalled when the slot's last submission finished (created signalled).
    fence: vk::Fence,
}

/// The ring of frame slots.
pub struct FrameRing {
    /// The context the pool and fences belong to.
    ctx: Arc<GpuContext>,
    /// Pool of the slots' command buffers.
    command_pool: vk::CommandPool,
    /// The slots.
    slots: [FrameSlot; FRAMES_IN_FLIGHT],
    /// The slot the next `begin` uses.
    next: usize,
    /// The slot most recently submitted, if any.
    last_submitted: Option<usize>,
}

impl FrameRing {
    /// A ring on the context's queue family.
    pub fn new(ctx: Arc<GpuContext>) -> Result<Self, RenderError> {
        let mut ring = FrameRing {
            ctx,
            command_pool: vk::CommandPool::null(),
            slots: std::array::from_fn(|_| FrameSlot {
                command_buffer: vk::CommandBuffer::null(),
                fence: vk::Fence::null(),
            }),
            next: 0,
            last_submitted: None,
        };
        // Drop destroys whatever was created if a later step fails (null
        // handles are ignored by vkDestroy* and by the waits).
        let device = ring.ctx.device();
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(ring.ctx.queue_family_index())
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: the device is live.
        ring.command_pool = unsafe { device.create_command_pool(&pool_info, None) }
            .map_err(vk_error("vkCreateCommandPool"))?;
        let allocate_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(ring.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(FRAMES_IN_FLIGHT as u32);
        // SAFETY: the pool was just created on this device; its buffers go with it.
        let command_buffers = unsafe { device.allocate_command_buffers(&allocate_info) }
            .map_err(vk_error("vkAllocateCommandBuffers"))?;
        let fence_info = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
        for (slot, command_buffer) in ring.slots.iter_mut().zip(command_buffers) {
            slot.command_buffer = command_buffer;
            // SAFETY: the device is live.
            slot.fence = unsafe { device.create_fence(&fence_info, None) }
                .map_err(vk_error("vkCreateFence"))?;
        }
        Ok(ring)
    }

    /// Waits until the next slot's previous submission finished (the only
    /// wait in the frame loop), then starts recording its command buffer.
    pub fn begin(&mut self) -> Result<Frame, RenderError> {
        let slot = self.next;
        self.wait_for_slot(slot)?;
        let device = self.ctx.device();
        let command_buffer = self.slots[slot].command_buffer;
        let begin_info = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the slot's fence is signalled, so the command buffer is not
        // pending; the pool allows resetting single buffers.
        unsafe {
            device
                .reset_command_buffer(command_buffer, vk::CommandBufferResetFlags::empty())
                .map_err(vk_error("vkResetCommandBuffer"))?;
            device
                .begin_command_buffer(command_buffer, &begin_info)
                .map_err(vk_error("vkBeginCommandBuffer"))?;
        }
        Ok(Frame {
            slot,
            command_buffer,
        })
    }

    /// Ends recording and submits the frame; its slot's fence signals when the
    /// GPU is done with it.
    pub fn submit(&mut self, frame: Frame) -> Result<(), RenderError> {
        let device = self.ctx.device();
        let fence = self.slots[frame.slot].fence;
        let command_buffers = [frame.command_buffer];
        let submit_info = vk::SubmitInfo::default().command_buffers(&command_buffers);
        // SAFETY: the command buffer was begun by `begin` and the fence is
        // signalled (waited in `begin`), so resetting it here is allowed; the
        // queue is used from this thread only.
        unsafe {
            device
                .end_command_buffer(frame.command_buffer)
                .map_err(vk_error("vkEndCommandBuffer"))?;
            device
                .reset_fences(&[fence])
                .map_err(vk_error("vkResetFences"))?;
            device
                .queue_submit(self.ctx.queue(), &[submit_info], fence)
                .map_err(vk_error("vkQueueSubmit"))?;
        }
        self.last_submitted = Some(frame.slot);
        self.next = (frame.slot + 1) % FRAMES_IN_FLIGHT;
        Ok(())
    }

    /// The slot most recently submitted, if any.
    pub fn last_submitted(&self) -> Option<usize> {
        self.last_submitted
    }

    /// Waits until `slot`'s last submission finished.
    pub fn wait_for_slot(&self, slot: usize) -> Result<(), RenderError> {
        let fence = self.slots[slot].fence;
        if fence == vk::Fence::null() {
            // Only a ring that failed half way through `new` has one.
            return Ok(());
        }
        // SAFETY: the fence belongs to this device and lives as long as self.
        unsafe { self.ctx.device().wait_for_fences(&[fence], true, u64::MAX) }
            .map_err(vk_error("vkWaitForFences"))
    }

    /// Waits until every submitted frame finished.
    pub fn wait_for_all(&self) -> Result<(), RenderError> {
        (0..FRAMES_IN_FLIGHT).try_for_each(|slot| self.wait_for_slot(slot))
    }
}

impl Drop for FrameRing {
    fn drop(&mut self) {
        if let Err(error) = self.wait_for_all() {
            log::error!("waiting for frames in flight at teardown failed: {error}");
        }
        // SAFETY: every submission finished (or the device is lost, when
        // destroying is still allowed); nothing else uses these handles, and
        // null ones (after a failed `new`) are ignored.
        unsafe {
            let device = self.ctx.device();
            for slot in &self.slots {
                device.destroy_fence(slot.fence, None);
            }
            device.destroy_command_pool(self.command_pool, None);
        }
    }
}
