//! The terrain pass: the static diorama mesh, streamed heights, per-frame uniforms and
//! descriptors, recorded with the pipeline into a [`RenderTarget`] with multiview,
//! and the controls layer drawn over it in the same render pass.
use std::sync::Arc;

use ash::vk;
use glam::Mat4;
use gpu_allocator::MemoryLocation;

use super::context::GpuContext;
use super::error::vk_error;
use super::frames::{FRAMES_IN_FLIGHT, Frame};
use super::memory::{Buffer, try_array};
use super::pipeline::{MultiviewPass, Part, create_pipeline, create_pipeline_layout};
use super::target::RenderTarget;
use super::ui::{UiDraw, UiPass};
use super::upload::{upload_static, write_mapped};
use crate::render::diorama::DioramaMesh;
use crate::render::error::RenderError;
use crate::render::grid::GridIndices;
use crate::render::scene::{FrameScene, FrameUniforms};
use crate::render::ui::eye_clips;

/// Transparent black, so an additive display shows nothing but the terrain.
const CLEAR_COLOR: [f32; 4] = [0.0, 0.0, 0.0, 0.0];

/// The terrain renderer for one grid size and one pair of target formats.
pub struct TerrainRenderer {
    /// The device everything here lives on.
    ctx: Arc<GpuContext>,
    /// Multiview render pass and the target formats: clear, draw, keep
    /// colour and depth.
    pass: MultiviewPass,
    /// Uniforms (binding 0) and heights (binding 1).
    descriptor_set_layout: vk::DescriptorSetLayout,
    /// The pipeline's layout.
    pipeline_layout: vk::PipelineLayout,
    /// The solid's pipeline (land, sides, underside).
    pipeline: vk::Pipeline,
    /// The water's pipeline, blended.
    water_pipeline: vk::Pipeline,
    /// The water's depth, written after the controls are drawn.
    water_depth_pipeline: vk::Pipeline,
    /// Holds `descriptor_sets`.
    descriptor_pool: vk::DescriptorPool,
    /// One set per frame slot: that slot's uniforms and the shared heights.
    descriptor_sets: [vk::DescriptorSet; FRAMES_IN_FLIGHT],
    /// Static diorama vertices.
    vertex_buffer: Buffer,
    /// Static diorama indices.
    index_buffer: Buffer,
    /// 16- or 32-bit indices.
    index_type: vk::IndexType,
    /// The solid's indices.
    solid: std::ops::Range<u32>,
    /// The water's indices.
    water: std::ops::Range<u32>,
    /// Device-local heights the vertex shader reads.
    heights: Buffer,
    /// Host-visible staging for new heights, one per frame slot.
    height_staging: [Buffer; FRAMES_IN_FLIGHT],
    /// Host-visible uniforms, one per frame slot.
    uniforms: [Buffer; FRAMES_IN_FLIGHT],
    /// Grid samples per row.
    grid_width: u32,
    /// Grid rows.
    grid_height: u32,
    /// The controls drawn after the terrain.
    ui: UiPass,
}

impl TerrainRenderer {
    /// A renderer for a `grid_width` × `grid_height` heightmap drawing into
    /// targets of `color_format` and `depth_format`. The heights start flat (0).
    pub fn new(
        ctx: Arc<GpuContext>,
        grid_width: u32,
        grid_height: u32,
        color_format: vk::Format,
        depth_format: vk::Format,
    ) -> Result<Self, RenderError> {
        let grid = DioramaMesh::new(grid_width, grid_height)?;
        let vertex_bytes: &[u8] = bytemuck::cast_slice(&grid.vertices);
        let index_bytes = grid.indices.as_bytes();
        let height_bytes = (grid_width as usize * grid_height as usize * size_of::<f32>()) as u64;

        let transfer_dst = vk::BufferUsageFlags::TRANSFER_DST;
        let vertex_buffer = Buffer::new(
            &ctx,
            "terrain grid vertices",
            vertex_bytes.len() as u64,
            vk::BufferUsageFlags::VERTEX_BUFFER | transfer_dst,
            MemoryLocation::GpuOnly,
        )?;
        let index_buffer = Buffer::new(
            &ctx,
            "terrain grid indices",
            index_bytes.len() as u64,
            vk::BufferUsageFlags::INDEX_BUFFER | transfer_dst,
            MemoryLocation::GpuOnly,
        )?;
        let heights = Buffer::new(
            &ctx,
            "terrain heights",
            height_bytes,
            vk::BufferUsageFlags::STORAGE_BUFFER | transfer_dst,
            MemoryLocation::GpuOnly,
        )?;
        let height_staging = try_array(|_| {
            Buffer::new(
                &ctx,
                "terrain height staging",
                height_bytes,
                vk::BufferUsageFlags::TRANSFER_SRC,
                MemoryLocation::CpuToGpu,
            )
        })?;
        let uniforms = try_array(|_| {
            Buffer::new(
                &ctx,
                "terrain frame uniforms",
                size_of::<FrameUniforms>() as u64,
                vk::BufferUsageFlags::UNIFORM_BUFFER,
                MemoryLocation::CpuToGpu,
            )
        })?;
        let pass = MultiviewPass::new(&ctx, color_format, depth_format)?;
        let ui = UiPass::new(&ctx, pass.raw(), color_format, &uniforms)?;
        let (atlas_buffer, atlas_bytes) = ui.atlas_upload();
        upload_static(
            &ctx,
            &[
                (&vertex_buffer, vertex_bytes),
                (&index_buffer, index_bytes),
                (atlas_buffer, atlas_bytes),
            ],
            &heights,
        )?;

        let mut renderer = TerrainRenderer {
            ctx,
            pass,
            descriptor_set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            water_pipeline: vk::Pipeline::null(),
            water_depth_pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            descriptor_sets: [vk::DescriptorSet::null(); FRAMES_IN_FLIGHT],
            vertex_buffer,
            index_buffer,
            index_type: match grid.indices {
                GridIndices::U16(_) => vk::IndexType::UINT16,
                GridIndices::U32(_) => vk::IndexType::UINT32,
            },
            solid: grid.solid.clone(),
            water: grid.water.clone(),
            heights,
            height_staging,
            uniforms,
            grid_width,
            grid_height,
            ui,
        };
        // Drop destroys whatever was created if a later step fails (null
        // handles are ignored by vkDestroy*).
        renderer.create_descriptors()?;
        renderer.pipeline_layout =
            create_pipeline_layout(&renderer.ctx, renderer.descriptor_set_layout)?;
        renderer.pipeline = create_pipeline(
            &renderer.ctx,
            renderer.pipeline_layout,
            renderer.pass.raw(),
            color_format,
            Part::Solid,
        )?;
        renderer.water_pipeline = create_pipeline(
            &renderer.ctx,
            renderer.pipeline_layout,
            renderer.pass.raw(),
            color_format,
            Part::Water,
        )?;
        renderer.water_depth_pipeline = create_pipeline(
            &renderer.ctx,
            renderer.pipeline_layout,
            renderer.pass.raw(),
            color_format,
            Part::WaterDepth,
        )?;
        Ok(renderer)
    }

    /// The context the renderer runs on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// Format of the colour targets.
    pub fn color_format(&self) -> vk::Format {
        self.pass.color_format()
    }

    /// Format of the depth targets.
    pub fn depth_format(&self) -> vk::Format {
        self.pass.depth_format()
    }

    /// The render pass its targets are made for ([`RenderTarget::new`]).
    pub fn pass(&self) -> &MultiviewPass {
        &self.pass
    }

    /// Records the frame into `frame`'s command buffer: uploads new heights
    /// when the scene has them, then clears `target` and draws both eyes.
    /// Afterwards the colour layers are in COLOR_ATTACHMENT_OPTIMAL and the
    /// depth layers in DEPTH_STENCIL_ATTACHMENT_OPTIMAL. Never waits and never
    /// allocates. `frame` must come from the one `FrameRing` this renderer is
    /// used with, and `target` must have been made from this renderer.
    pub fn record(
        &mut self,
        frame: &Frame,
        target: &RenderTarget,
        scene: &FrameScene,
    ) -> Result<(), RenderError> {
        let slot = frame.slot();
        let cmd = frame.command_buffer();
        let device = self.ctx.device();
        let height_count = (self.grid_width * self.grid_height) as usize;
        if let Some(heights) = scene.heights
            && heights.len() != height_count
        {
            return Err(RenderError::HeightCountMismatch {
                expected: height_count,
                actual: heights.len(),
            });
        }

        let uniforms = FrameUniforms::new(scene, Mat4::IDENTITY, self.grid_width, self.grid_height);
        write_mapped(&mut self.uniforms[slot], bytemuck::bytes_of(&uniforms))?;
        self.ui.prepare(slot, &scene.ui, &eye_clips(scene))?;

        if let Some(heights) = scene.heights {
            write_mapped(
                &mut self.height_staging[slot],
                bytemuck::cast_slice(heights),
            )?;
            // SAFETY: the staging slot was written above and its previous copy
            // finished (the frame's fence was waited); the barriers order this
            // copy after earlier frames' vertex reads and before this frame's.
            unsafe { self.record_height_upload(cmd, slot) };
        }

        let clear_values = [
            vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: CLEAR_COLOR,
                },
            },
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
            },
        ];
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: target.extent(),
        };
        let pass_info = vk::RenderPassBeginInfo::default()
            .render_pass(self.pass.raw())
            .framebuffer(target.framebuffer())
            .render_area(area)
            .clear_values(&clear_values);
        let viewport = vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: target.extent().width as f32,
            height: target.extent().height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        // SAFETY: `cmd` is recording (Frame invariant); every bound object
        // lives as long as the renderer, which outlives the frame's execution
        // (Drop waits for the device).
        unsafe {
            device.cmd_begin_render_pass(cmd, &pass_info, vk::SubpassContents::INLINE);
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
            device.cmd_set_viewport(cmd, 0, &[viewport]);
            device.cmd_set_scissor(cmd, 0, &[area]);
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.pipeline_layout,
                0,
                &[self.descriptor_sets[slot]],
                &[],
            );
            device.cmd_bind_vertex_buffers(cmd, 0, &[self.vertex_buffer.raw()], &[0]);
            device.cmd_bind_index_buffer(cmd, self.index_buffer.raw(), 0, self.index_type);
            device.cmd_draw_indexed(cmd, self.solid.len() as u32, 1, self.solid.start, 0, 0);
            if scene.sea_level.is_some() {
                device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.water_pipeline);
                device.cmd_draw_indexed(cmd, self.water.len() as u32, 1, self.water.start, 0, 0);
            }
            // The controls: over the land, hidden where it is in front.
            self.ui.record(cmd, slot, UiDraw::Colour);
            // Then the depth of what was blended, the water's and the
            // controls', so every pixel drawn has its depth; written only
            // now, the colour above is what it was without it (a label on
            // its plate, a control under the water, both still show).
            if scene.sea_level.is_some() {
                device.cmd_bind_pipeline(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.water_depth_pipeline,
                );
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.pipeline_layout,
                    0,
                    &[self.descriptor_sets[slot]],
                    &[],
                );
                device.cmd_bind_vertex_buffers(cmd, 0, &[self.vertex_buffer.raw()], &[0]);
                device.cmd_draw_indexed(cmd, self.water.len() as u32, 1, self.water.start, 0, 0);
            }
            self.ui.record(cmd, slot, UiDraw::Depth);
            device.cmd_end_render_pass(cmd);
        }
        Ok(())
    }

    /// # Safety
    /// `cmd` is recording and `height_staging[slot]` holds the new heights.
    unsafe fn record_height_upload(&self, cmd: vk::CommandBuffer, slot: usize) {
        let device = self.ctx.device();
        let whole = |access_before, access_after| {
            vk::BufferMemoryBarrier::default()
                .src_access_mask(access_before)
                .dst_access_mask(access_after)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(self.heights.raw())
                .size(vk::WHOLE_SIZE)
        };
        let region = vk::BufferCopy::default().size(self.heights.size());
        // SAFETY: per this function's contract.
        unsafe {
            // Earlier frames may still read the heights: wait for their
            // vertex shaders before overwriting (write-after-read).
            device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::VERTEX_SHADER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[whole(
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::TRANSFER_WRITE,
                )],
                &[],
            );
            device.cmd_copy_buffer(
                cmd,
                self.height_staging[slot].raw(),
                self.heights.raw(),
                &[region],
            );
            device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::VERTEX_SHADER,
                vk::DependencyFlags::empty(),
                &[],
                &[whole(
                    vk::AccessFlags::TRANSFER_WRITE,
                    vk::AccessFlags::SHADER_READ,
                )],
                &[],
            );
        }
    }

    fn create_descriptors(&mut self) -> Result<(), RenderError> {
        let device = self.ctx.device();
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT),
            vk::DescriptorSetLayoutBinding::default()
                .binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::VERTEX),
        ];
        let layout_info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: the device is live; `bindings` outlives the call.
        self.descriptor_set_layout =
            unsafe { device.create_descriptor_set_layout(&layout_info, None) }
                .map_err(vk_error("vkCreateDescriptorSetLayout"))?;
        let pool_sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: FRAMES_IN_FLIGHT as u32,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: FRAMES_IN_FLIGHT as u32,
            },
        ];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(FRAMES_IN_FLIGHT as u32)
            .pool_sizes(&pool_sizes);
        // SAFETY: as above.
        self.descriptor_pool = unsafe { device.create_descriptor_pool(&pool_info, None) }
            .map_err(vk_error("vkCreateDescriptorPool"))?;
        let layouts = [self.descriptor_set_layout; FRAMES_IN_FLIGHT];
        let allocate_info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.descriptor_pool)
            .set_layouts(&layouts);
        // SAFETY: the pool has room for exactly these sets.
        let sets = unsafe { device.allocate_descriptor_sets(&allocate_info) }
            .map_err(vk_error("vkAllocateDescriptorSets"))?;
        self.descriptor_sets.copy_from_slice(&sets);
        for (set, uniforms) in self.descriptor_sets.iter().zip(&self.uniforms) {
            let uniform_info = [vk::DescriptorBufferInfo {
                buffer: uniforms.raw(),
                offset: 0,
                range: vk::WHOLE_SIZE,
            }];
            let heights_info = [vk::DescriptorBufferInfo {
                buffer: self.heights.raw(),
                offset: 0,
                range: vk::WHOLE_SIZE,
            }];
            let writes = [
                vk::WriteDescriptorSet::default()
                    .dst_set(*set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&uniform_info),
                vk::WriteDescriptorSet::default()
                    .dst_set(*set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&heights_info),
            ];
            // SAFETY: the sets are not in use by any command buffer yet.
            unsafe { device.update_descriptor_sets(&writes, &[]) };
        }
        Ok(())
    }
}

impl Drop for TerrainRenderer {
    fn drop(&mut self) {
        // SAFETY: waiting for the device makes sure no frame still uses the
        // pipeline or buffers; null handles (after a failed `new`) are ignored.
        unsafe {
            let device = self.ctx.device();
            if let Err(error) = device.device_wait_idle() {
                log::error!(
                    "waiting for the device before destroying the terrain renderer failed: {error}"
                );
            }
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline(self.water_pipeline, None);
            device.destroy_pipeline(self.water_depth_pipeline, None);
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_descriptor_pool(self.descriptor_pool, None);
            device.destroy_descriptor_set_layout(self.descriptor_set_layout, None);
        }
    }
}
