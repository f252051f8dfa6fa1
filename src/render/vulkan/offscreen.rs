//! Offscreen stereo rendering for the simulator and tests: owns a device,
//! the terrain renderer, per-slot 2-layer images and read-back buffers (the
//! colour's and the depth's); and the one Vulkan-only option, forcing the
//! target formats.
use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::context::GpuContext;
use super::error::VulkanError;
use super::formats::{
    COLOR_FORMAT_PREFERENCE, DEPTH_FORMAT_PREFERENCE, choose_color_format, choose_depth_format,
    is_bgra,
};
use super::frames::{FRAMES_IN_FLIGHT, FrameRing};
use super::memory::{Buffer, Image};
use super::target::RenderTarget;
use super::terrain::TerrainRenderer;
use crate::render::backend::{
    Backend, OffscreenOptions, StereoDepth, StereoImage, StereoRenderer, ValidationCounter,
};
use crate::render::error::RenderError;
use crate::render::scene::{FrameScene, VIEW_COUNT};

/// Bytes per RGBA8 / BGRA8 pixel.
const BYTES_PER_PIXEL: usize = 4;

/// Formats to force instead of the preferred ones the device supports
/// ([`OffscreenRenderer::with_formats`]), so tests can draw into each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TargetFormats {
    /// Colour format (one of `formats::COLOR_FORMAT_PREFERENCE`); `None` picks the best supported.
    pub color: Option<vk::Format>,
    /// Depth format (one of `formats::DEPTH_FORMAT_PREFERENCE`); `None` picks the best supported.
    pub depth: Option<vk::Format>,
}

/// One frame slot's images and read-back buffer.
struct OffscreenSlot {
    /// Framebuffer and views; dropped before the images they view.
    target: RenderTarget,
    /// Colour, 2 layers; copied out after each frame.
    color: Image,
    /// Depth, 2 layers; copied out after each frame too.
    depth: Image,
    /// Host-visible copy of both colour layers, left then right.
    readback: Buffer,
    /// Host-visible copy of both depth layers, left then right.
    depth_readback: Buffer,
}

/// Renders stereo frames into its own images and reads them back.
pub struct OffscreenRenderer {
    /// Per-slot images; dropped first (after Drop waited for the GPU).
    slots: Vec<OffscreenSlot>,
    /// Command buffers and fences.
    frames: FrameRing,
    /// The terrain pass.
    terrain: TerrainRenderer,
    /// The device.
    ctx: Arc<GpuContext>,
    /// Pixels per eye row.
    eye_width: u32,
    /// Eye rows.
    eye_height: u32,
}

impl OffscreenRenderer {
    /// A renderer on a device of its own, drawing into the preferred formats
    /// the device supports (sRGB colour, D16 depth).
    pub fn new(options: OffscreenOptions) -> Result<Self, RenderError> {
        Self::with_formats(options, TargetFormats::default())
    }

    /// As [`Self::new`], with `formats` forced where given; a format the
    /// device cannot render to fails with `UnsuitableDevice`.
    pub fn with_formats(
        options: OffscreenOptions,
        formats: TargetFormats,
    ) -> Result<Self, RenderError> {
        if options.eye_width == 0 || options.eye_height == 0 {
            return Err(RenderError::InvalidOptions(format!(
                "eye images must not be empty, got {}×{}",
                options.eye_width, options.eye_height
            )));
        }
        let ctx = GpuContext::standalone(options.validation)?;
        let color_format = pick_format(
            &ctx,
            formats.color,
            &COLOR_FORMAT_PREFERENCE,
            vk::FormatFeatureFlags::COLOR_ATTACHMENT | vk::FormatFeatureFlags::TRANSFER_SRC,
            choose_color_format,
            "colour",
        )?;
        let depth_format = pick_format(
            &ctx,
            formats.depth,
            &DEPTH_FORMAT_PREFERENCE,
            vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT | vk::FormatFeatureFlags::TRANSFER_SRC,
            choose_depth_format,
            "depth",
        )?;
        let terrain = TerrainRenderer::new(
            ctx.clone(),
            options.grid_width,
            options.grid_height,
            color_format,
            depth_format,
        )?;
        let extent = vk::Extent2D {
            width: options.eye_width,
            height: options.eye_height,
        };
        let slots = (0..FRAMES_IN_FLIGHT)
            .map(|_| make_slot(&ctx, &terrain, extent))
            .collect::<Result<Vec<_>, _>>()?;
        let frames = FrameRing::new(ctx.clone())?;
        Ok(OffscreenRenderer {
            slots,
            frames,
            terrain,
            ctx,
            eye_width: options.eye_width,
            eye_height: options.eye_height,
        })
    }

    /// Records and submits one frame; waits only for the frame slot's
    /// previous use, never for this frame.
    pub fn render(&mut self, scene: &FrameScene) -> Result<(), RenderError> {
        let frame = self.frames.begin()?;
        let slot = &self.slots[frame.slot()];
        self.terrain.record(&frame, &slot.target, scene)?;
        // SAFETY: the command buffer is recording; the slot's images and
        // buffers are not used by any other frame in flight.
        unsafe {
            for copy in [CopyOut::color(slot), CopyOut::depth(slot)] {
                record_copy_out(
                    self.ctx.device(),
                    frame.command_buffer(),
                    &copy,
                    self.eye_width,
                    self.eye_height,
                );
            }
        }
        self.frames.submit(frame)
    }

    /// Waits for the most recent frame and returns its pixels.
    pub fn read_back(&mut self) -> Result<StereoImage, RenderError> {
        let slot = self
            .frames
            .last_submitted()
            .ok_or(RenderError::NothingRendered)?;
        self.frames.wait_for_slot(slot)?;
        let bytes = self.slots[slot].readback.mapped()?;
        let eye_bytes = self.eye_width as usize * self.eye_height as usize * BYTES_PER_PIXEL;
        let mut left = bytes[..eye_bytes].to_vec();
        let mut right = bytes[eye_bytes..2 * eye_bytes].to_vec();
        if is_bgra(self.terrain.color_format()) {
            for pixel in left.chunks_exact_mut(4).chain(right.chunks_exact_mut(4)) {
                pixel.swap(0, 2);
            }
        }
        Ok(StereoImage {
            width: self.eye_width,
            height: self.eye_height,
            left,
            right,
        })
    }

    /// Waits for the most recent frame and returns its depth.
    pub fn read_back_depth(&mut self) -> Result<StereoDepth, RenderError> {
        let slot = self
            .frames
            .last_submitted()
            .ok_or(RenderError::NothingRendered)?;
        self.frames.wait_for_slot(slot)?;
        let bytes = self.slots[slot].depth_readback.mapped()?;
        let values: Vec<f32> = match self.terrain.depth_format() {
            vk::Format::D16_UNORM => bytes
                .chunks_exact(2)
                .map(|texel| f32::from(u16::from_ne_bytes([texel[0], texel[1]])) / 65535.0)
                .collect(),
            _ => bytes
                .chunks_exact(4)
                .map(|texel| f32::from_ne_bytes([texel[0], texel[1], texel[2], texel[3]]))
                .collect(),
        };
        let eye_values = self.eye_width as usize * self.eye_height as usize;
        Ok(StereoDepth {
            width: self.eye_width,
            height: self.eye_height,
            left: values[..eye_values].to_vec(),
            right: values[eye_values..2 * eye_values].to_vec(),
        })
    }

    /// Validation warnings and errors so far; `None` when validation is off.
    pub fn validation_messages(&self) -> Option<u64> {
        self.ctx.validation_messages()
    }

    /// A counter that stays readable after the renderer is dropped, so a
    /// caller can check that teardown (leak checks) was clean too.
    pub fn validation_counter(&self) -> Option<ValidationCounter> {
        self.ctx.validation_counter()
    }

    /// The colour format in use.
    pub fn color_format(&self) -> vk::Format {
        self.terrain.color_format()
    }

    /// The depth format in use.
    pub fn depth_format(&self) -> vk::Format {
        self.terrain.depth_format()
    }

    /// The device's name (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)").
    pub fn device_name(&self) -> &str {
        self.ctx.device_name()
    }
}

impl StereoRenderer for OffscreenRenderer {
    fn render(&mut self, scene: &FrameScene<'_>) -> Result<(), RenderError> {
        OffscreenRenderer::render(self, scene)
    }

    fn read_back(&mut self) -> Result<StereoImage, RenderError> {
        OffscreenRenderer::read_back(self)
    }

    fn read_back_depth(&mut self) -> Result<StereoDepth, RenderError> {
        OffscreenRenderer::read_back_depth(self)
    }

    fn validation_counter(&self) -> Option<ValidationCounter> {
        OffscreenRenderer::validation_counter(self)
    }

    fn device_name(&self) -> &str {
        OffscreenRenderer::device_name(self)
    }

    fn backend(&self) -> Backend {
        Backend::Vulkan
    }
}

impl Drop for OffscreenRenderer {
    fn drop(&mut self) {
        // The slots' images drop before the frame ring, so wait here.
        if let Err(error) = self.frames.wait_for_all() {
            log::error!("waiting for frames at teardown failed: {error}");
        }
    }
}

/// `forced` if the device supports it, else the best supported of `preference`.
fn pick_format(
    ctx: &GpuContext,
    forced: Option<vk::Format>,
    preference: &[vk::Format],
    features: vk::FormatFeatureFlags,
    choose: fn(&[vk::Format]) -> Option<vk::Format>,
    what: &str,
) -> Result<vk::Format, RenderError> {
    let supported: Vec<_> = preference
        .iter()
        .copied()
        .filter(|&format| ctx.supports_format(format, features))
        .collect();
    let chosen = match forced {
        Some(format) if supported.contains(&format) => Some(format),
        Some(format) => {
            return Err(VulkanError::UnsuitableDevice {
                device: ctx.device_name().into(),
                missing: format!("{what} format {format:?} as a render target"),
            }
            .into());
        }
        None => choose(&supported),
    };
    chosen.ok_or_else(|| {
        VulkanError::UnsuitableDevice {
            device: ctx.device_name().into(),
            missing: format!("a {what} format usable as a render target"),
        }
        .into()
    })
}

fn make_slot(
    ctx: &Arc<GpuContext>,
    terrain: &TerrainRenderer,
    extent: vk::Extent2D,
) -> Result<OffscreenSlot, RenderError> {
    let color = Image::new(
        ctx,
        "offscreen colour",
        terrain.color_format(),
        extent,
        VIEW_COUNT,
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
    )?;
    let depth = Image::new(
        ctx,
        "offscreen depth",
        terrain.depth_format(),
        extent,
        VIEW_COUNT,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
    )?;
    let readback = Buffer::new(
        ctx,
        "offscreen read-back",
        (extent.width as usize * extent.height as usize * BYTES_PER_PIXEL * VIEW_COUNT as usize)
            as u64,
        vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuToCpu,
    )?;
    let depth_texel_bytes = match terrain.depth_format() {
        vk::Format::D16_UNORM => 2,
        _ => 4,
    };
    let depth_readback = Buffer::new(
        ctx,
        "offscreen depth read-back",
        (extent.width as usize * extent.height as usize * depth_texel_bytes * VIEW_COUNT as usize)
            as u64,
        vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuToCpu,
    )?;
    // SAFETY: both images were just made with 2 layers of `extent`, the
    // renderer's formats and attachment usage; the slot keeps them alive
    // longer than the target (field order).
    let target = unsafe { RenderTarget::new(terrain.pass(), color.raw(), depth.raw(), extent) }?;
    Ok(OffscreenSlot {
        target,
        color,
        depth,
        readback,
        depth_readback,
    })
}

/// One attachment of a frame slot copied out to its readback buffer: the
/// colour and the depth differ only in these.
struct CopyOut {
    /// The image the pass drew into.
    image: vk::Image,
    /// Which aspect of it.
    aspect: vk::ImageAspectFlags,
    /// The layout the pass left it in.
    layout: vk::ImageLayout,
    /// The pass's writes to it, and the stage they finish in.
    written: (vk::AccessFlags, vk::PipelineStageFlags),
    /// The host-visible buffer it goes to.
    buffer: vk::Buffer,
}

impl CopyOut {
    /// The slot's colour, as the pass left it.
    fn color(slot: &OffscreenSlot) -> Self {
        CopyOut {
            image: slot.color.raw(),
            aspect: vk::ImageAspectFlags::COLOR,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            written: (
                vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            ),
            buffer: slot.readback.raw(),
        }
    }

    /// The slot's depth, as the pass's depth tests left it.
    fn depth(slot: &OffscreenSlot) -> Self {
        CopyOut {
            image: slot.depth.raw(),
            aspect: vk::ImageAspectFlags::DEPTH,
            layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
            written: (
                vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
                vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
            ),
            buffer: slot.depth_readback.raw(),
        }
    }
}

/// # Safety
/// `cmd` is recording, right after the terrain pass drew into the slot
/// `copy`'s image and buffer belong to.
unsafe fn record_copy_out(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    copy: &CopyOut,
    width: u32,
    height: u32,
) {
    let (written_access, written_stage) = copy.written;
    let to_transfer = vk::ImageMemoryBarrier::default()
        .src_access_mask(written_access)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
        .old_layout(copy.layout)
        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(copy.image)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: copy.aspect,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: VIEW_COUNT,
        });
    let region = vk::BufferImageCopy::default()
        .image_subresource(vk::ImageSubresourceLayers {
            aspect_mask: copy.aspect,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: VIEW_COUNT,
        })
        .image_extent(vk::Extent3D {
            width,
            height,
            depth: 1,
        });
    let to_host = vk::BufferMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .buffer(copy.buffer)
        .size(vk::WHOLE_SIZE);
    // SAFETY: per this function's contract.
    unsafe {
        device.cmd_pipeline_barrier(
            cmd,
            written_stage,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[to_transfer],
        );
        device.cmd_copy_image_to_buffer(
            cmd,
            copy.image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            copy.buffer,
            &[region],
        );
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[],
            &[to_host],
            &[],
        );
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3};

    use super::*;
    use crate::render::alloc_count::allocations_during;
    use crate::render::camera::perspective_from_fov;
    use crate::render::palette::TEMPERATE;
    use crate::render::scene::{EyeView, UiFill, UiLabel, UiLayer, UiQuad, UiRect};

    #[test]
    fn rendering_a_frame_does_not_allocate() {
        let mut renderer = OffscreenRenderer::new(OffscreenOptions {
            eye_width: 64,
            eye_height: 48,
            grid_width: 33,
            grid_height: 17,
            validation: false,
        })
        .unwrap();
        let heights: Vec<f32> = (0..33 * 17).map(|i| (i % 7) as f32 * 0.1).collect();
        // Controls too, so their layout and pipeline are exercised.
        let rect = UiRect {
            centre: Vec3::new(0.0, 0.2, 0.1),
            right: Vec3::X * 0.1,
            up: Vec3::Y * 0.03,
        };
        let quads = [
            UiQuad {
                rect,
                color: [0.1, 0.2, 0.6, 1.0],
                fill: UiFill::Solid,
            },
            UiQuad {
                rect,
                color: [1.0, 1.0, 0.0, 1.0],
                fill: UiFill::Ring,
            },
        ];
        let labels = [UiLabel {
            rect,
            text: "Pause growth".into(),
            color: [1.0; 4],
        }];
        let eye = EyeView {
            view: Mat4::from_translation(Vec3::new(0.0, -0.2, -1.0)),
            projection: perspective_from_fov(-0.5, 0.5, 0.4, -0.4, 0.05, 10.0),
        };
        let with_heights = FrameScene {
            model: Mat4::from_scale(Vec3::new(0.5, 0.1, 0.5)),
            views: [eye, eye],
            heights: Some(&heights),
            light_dir: Vec3::Y,
            palette: TEMPERATE,
            contours: false,
            base_bottom: -0.3,
            // Water too, so its pipeline is exercised.
            sea_level: Some(0.2),
            time_s: 0.0,
            display: crate::render::scene::Display::Additive,
            marks: crate::render::scene::SurfaceMarks {
                stroke: &[glam::Vec2::ZERO, glam::Vec2::ONE],
                cursor: Some(glam::Vec2::splat(0.5)),
            },
            ui: UiLayer {
                quads: &quads,
                labels: &labels,
            },
            near_fade: crate::render::scene::NearFade::NONE,
        };
        let without_heights = FrameScene {
            heights: None,
            ..with_heights
        };
        let allocations = allocations_during(|| {
            for _ in 0..3 {
                renderer.render(&with_heights).unwrap();
                renderer.render(&without_heights).unwrap();
            }
        });
        assert_eq!(allocations, 0);
    }
}
