//! Buffers and images with their GPU memory, freed when dropped.
use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};

use super::context::GpuContext;
use super::error::{VulkanError, vk_error};
use crate::render::error::RenderError;

/// Memory for a new buffer or image.
fn allocate(
    ctx: &GpuContext,
    name: &str,
    requirements: vk::MemoryRequirements,
    location: MemoryLocation,
    linear: bool,
) -> Result<Allocation, RenderError> {
    Ok(ctx.allocator().allocate(&AllocationCreateDesc {
        name,
        requirements,
        location,
        linear,
        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
    })?)
}

/// A buffer bound to its own allocation.
pub(crate) struct Buffer {
    /// The context the buffer and its memory belong to; outlives both.
    ctx: Arc<GpuContext>,
    /// The buffer handle.
    raw: vk::Buffer,
    /// Its memory (null until allocated); persistently mapped when host-visible.
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
        // From here an error drops `buffer`, which destroys the handle and
        // frees the memory (a null allocation frees nothing).
        let mut buffer = Buffer {
            ctx: ctx.clone(),
            raw,
            allocation: Allocation::default(),
            size,
        };
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(raw) };
        buffer.allocation = allocate(ctx, name, requirements, location, true)?;
        // SAFETY: the allocation satisfies the buffer's requirements and is
        // bound exactly once.
        unsafe {
            device.bind_buffer_memory(raw, buffer.allocation.memory(), buffer.allocation.offset())
        }
        .map_err(vk_error("vkBindBufferMemory"))?;
        Ok(buffer)
    }

    /// Test builds only: a buffer with no memory at all, hence no mapping.
    #[cfg(test)]
    pub(crate) fn without_memory(ctx: &Arc<GpuContext>, size: u64) -> Result<Self, RenderError> {
        let create_info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_SRC);
        // SAFETY: the device is live; Drop destroys the buffer.
        let raw = unsafe { ctx.device().create_buffer(&create_info, None) }
            .map_err(vk_error("vkCreateBuffer"))?;
        Ok(Buffer {
            ctx: ctx.clone(),
            raw,
            allocation: Allocation::default(),
            size,
        })
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
    /// no flush); [`VulkanError::NotMapped`] for device-local memory.
    pub(crate) fn mapped_mut(&mut self) -> Result<&mut [u8], RenderError> {
        let size = self.size as usize;
        self.allocation
            .mapped_slice_mut()
            .map(|bytes| &mut bytes[..size])
            .ok_or_else(|| VulkanError::NotMapped.into())
    }

    /// The mapped bytes of a host-visible buffer; [`VulkanError::NotMapped`]
    /// for device-local memory.
    pub(crate) fn mapped(&self) -> Result<&[u8], RenderError> {
        let size = self.size as usize;
        self.allocation
            .mapped_slice()
            .map(|bytes| &bytes[..size])
            .ok_or_else(|| VulkanError::NotMapped.into())
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
    /// Its memory (null until allocated).
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
        // As for buffers: an error from here drops `image`, which cleans up.
        let mut image = Image {
            ctx: ctx.clone(),
            raw,
            allocation: Allocation::default(),
        };
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { device.get_image_memory_requirements(raw) };
        image.allocation = allocate(ctx, name, requirements, MemoryLocation::GpuOnly, false)?;
        // SAFETY: as for buffers: bound once.
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
