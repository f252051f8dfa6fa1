//! Buffers and images with their GPU memory, freed when dropped.
use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};

use super::context::GpuContext;
use crate::render::error::{RenderError, vk_error};

/// Memory for a new buffer or image; on failure `discard` destroys the
/// object the memory was for, so nothing leaks.
fn allocate(
    ctx: &GpuContext,
    name: &str,
    requirements: vk::MemoryRequirements,
    location: MemoryLocation,
    linear: bool,
    discard: impl FnOnce(),
) -> Result<Allocation, RenderError> {
    ctx.allocator()
        .allocate(&AllocationCreateDesc {
            name,
            requirements,
            location,
            linear,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        })
        .map_err(|error| {
            discard();
            error.into()
        })
}

/// A buffer bound to its own allocation.
pub(crate) struct Buffer {
    /// The context the buffer and its memory belong to; outlives both.
    ctx: Arc<GpuContext>,
    /// The buffer handle.
    raw: vk::Buffer,
    /// Its memory; persistently mapped when host-visible.
    allocation: Allocation,
    /// Size requested, in bytes.
    size: u64,
}

impl Buffer {
    /// A buffer of `size` bytes for `usage`, in memory at `location`.
    pub(crate) fn new(
        ctx: &Arc<GpuContext>,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Self, RenderError> {
        let device = ctx.device();
        let create_info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: the device is live; the create info is valid for the call.
        let raw = unsafe { device.create_buffer(&create_info, None) }
            .map_err(vk_error("vkCreateBuffer"))?;
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(raw) };
        let allocation = allocate(ctx, name, requirements, location, true, || {
            // SAFETY: the buffer is unused and has no memory bound.
            unsafe { device.destroy_buffer(raw, None) }
        })?;
        let buffer = Buffer {
            ctx: ctx.clone(),
            raw,
            allocation,
            size,
        };
        // SAFETY: the allocation satisfies the buffer's requirements and is
        // bound exactly once; on failure Drop destroys buffer and memory.
        unsafe {
            device.bind_buffer_memory(raw, buffer.allocation.memory(), buffer.allocation.offset())
        }
        .map_err(vk_error("vkBindBufferMemory"))?;
        Ok(buffer)
    }

    /// The buffer handle.
    pub(crate) fn raw(&self) -> vk::Buffer {
        self.raw
    }

    /// Size in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// The mapped bytes of a host-visible buffer (coherent memory: writes need
    /// no flush), or `None` for device-local memory.
    pub(crate) fn mapped_mut(&mut self) -> Option<&mut [u8]> {
        let size = self.size as usize;
        self.allocation
            .mapped_slice_mut()
            .map(|bytes| &mut bytes[..size])
    }

    /// The mapped bytes of a host-visible buffer.
    pub(crate) fn mapped(&self) -> Option<&[u8]> {
        let size = self.size as usize;
        self.allocation.mapped_slice().map(|bytes| &bytes[..size])
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: owners drop buffers only once the GPU no longer uses them
        // (after their frame fences or a device wait).
        unsafe { self.ctx.device().destroy_buffer(self.raw, None) };
        if let Err(error) = self
            .ctx
            .allocator()
            .free(std::mem::take(&mut self.allocation))
        {
            log::error!("freeing buffer memory failed: {error}");
        }
    }
}

/// A 2D image bound to its own allocation.
pub(crate) struct Image {
    /// The context the image and its memory belong to; outlives both.
    ctx: Arc<GpuContext>,
    /// The image handle.
    raw: vk::Image,
    /// Its memory.
    allocation: Allocation,
}

impl Image {
    /// A device-local image with `layers` array layers and one mip level.
    pub(crate) fn new(
        ctx: &Arc<GpuContext>,
        name: &str,
        format: vk::Format,
        extent: vk::Extent2D,
        layers: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<Self, RenderError> {
        let device = ctx.device();
        let create_info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(extent.into())
            .mip_levels(1)
            .array_layers(layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: the device is live; the create info is valid for the call.
        let raw = unsafe { device.create_image(&create_info, None) }
            .map_err(vk_error("vkCreateImage"))?;
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.get_image_memory_requirements(raw) };
        let allocation = allocate(
            ctx,
            name,
            requirements,
            MemoryLocation::GpuOnly,
            false,
            || {
                // SAFETY: the image is unused and has no memory bound.
                unsafe { device.destroy_image(raw, None) }
            },
        )?;
        let image = Image {
            ctx: ctx.clone(),
            raw,
            allocation,
        };
        // SAFETY: as for buffers: bound once, Drop cleans up on failure.
        unsafe {
            device.bind_image_memory(raw, image.allocation.memory(), image.allocation.offset())
        }
        .map_err(vk_error("vkBindImageMemory"))?;
        Ok(image)
    }

    /// The image handle.
    pub(crate) fn raw(&self) -> vk::Image {
        self.raw
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: owners drop images only once the GPU no longer uses them.
        unsafe { self.ctx.device().destroy_image(self.raw, None) };
        if let Err(error) = self
            .ctx
            .allocator()
            .free(std::mem::take(&mut self.allocation))
        {
            log::error!("freeing image memory failed: {error}");
        }
    }
}

/// An array made by a fallible function.
pub(crate) fn try_array<T, const N: usize>(
    mut make: impl FnMut(usize) -> Result<T, RenderError>,
) -> Result<[T; N], RenderError> {
    let items = (0..N).map(&mut make).collect::<Result<Vec<T>, _>>()?;
    items
        .try_into()
        .map_err(|_| RenderError::InvalidOptions("array length mismatch".into()))
}
