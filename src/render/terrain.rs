//! The terrain pass: pipeline, static grid, streamed heights and per-frame
//! uniforms, recorded into any 2-layer colour + depth target (offscreen images
//! or OpenXR swapchain images) with multiview.
use std::io::Cursor;
use std::sync::Arc;

use ash::vk;
use bytemuck::{Pod, Zeroable};
use gpu_allocator::MemoryLocation;

use super::context::GpuContext;
use super::error::{RenderError, vk_error};
use super::formats::is_srgb;
use super::frames::{FRAMES_IN_FLIGHT, Frame};
use super::grid::{GridIndices, TerrainGrid};
use super::memory::Buffer;
use super::scene::FrameScene;

/// Both eyes: view 0 is the left eye, view 1 the right, one array layer each.
pub const VIEW_MASK: u32 = 0b11;

/// Array layers of every render target.
pub const VIEW_COUNT: u32 = 2;

/// Transparent black, so an additive display shows nothing but the terrain.
const CLEAR_COLOR: [f32; 4] = [0.0, 0.0, 0.0, 0.0];

const VERTEX_SHADER: &[u8] = include_bytes!("../../shaders/terrain.vert.spv");
const FRAGMENT_SHADER: &[u8] = include_bytes!("../../shaders/terrain.frag.spv");

/// The shaders' `Frame` uniform block (std140).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct FrameUniforms {
    /// Projection × view, left then right eye (column-major).
    view_projection: [[f32; 16]; 2],
    /// Model → world.
    model: [f32; 16],
    /// Towards the light, world space (w unused).
    light_dir: [f32; 4],
    /// Band boundaries and blend width.
    bands: [f32; 4],
    /// Grid width and height (z, w unused).
    grid: [u32; 4],
}

/// The terrain renderer for one grid size and one pair of target formats.
pub struct TerrainRenderer {
    /// The device everything here lives on.
    ctx: Arc<GpuContext>,
    /// Format of the colour targets.
    color_format: vk::Format,
    /// Format of the depth targets.
    depth_format: vk::Format,
    /// Multiview render pass: clear, draw, keep colour and depth.
    render_pass: vk::RenderPass,
    /// Uniforms (binding 0) and heights (binding 1).
    descriptor_set_layout: vk::DescriptorSetLayout,
    /// The pipeline's layout.
    pipeline_layout: vk::PipelineLayout,
    /// The terrain pipeline.
    pipeline: vk::Pipeline,
    /// Holds `descriptor_sets`.
    descriptor_pool: vk::DescriptorPool,
    /// One set per frame slot: that slot's uniforms and the shared heights.
    descriptor_sets: [vk::DescriptorSet; FRAMES_IN_FLIGHT],
    /// Static grid vertices.
    vertex_buffer: Buffer,
    /// Static grid indices.
    index_buffer: Buffer,
    /// 16- or 32-bit indices.
    index_type: vk::IndexType,
    /// Indices to draw.
    index_count: u32,
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
        let grid = TerrainGrid::new(grid_width, grid_height)?;
        let vertex_bytes: &[u8] = bytemuck::cast_slice(&grid.vertices);
        let index_bytes = grid.indices.as_bytes();
        let height_bytes = (grid.vertices.len() * size_of::<f32>()) as u64;

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
        upload_static(
            &ctx,
            &[(&vertex_buffer, vertex_bytes), (&index_buffer, index_bytes)],
            &heights,
        )?;

        let mut renderer = TerrainRenderer {
            ctx,
            color_format,
            depth_format,
            render_pass: vk::RenderPass::null(),
            descriptor_set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            descriptor_sets: [vk::DescriptorSet::null(); FRAMES_IN_FLIGHT],
            vertex_buffer,
            index_buffer,
            index_type: match grid.indices {
                GridIndices::U16(_) => vk::IndexType::UINT16,
                GridIndices::U32(_) => vk::IndexType::UINT32,
            },
            index_count: grid.indices.len() as u32,
            heights,
            height_staging,
            uniforms,
            grid_width,
            grid_height,
        };
        // Drop destroys whatever was created if a later step fails (null
        // handles are ignored by vkDestroy*).
        renderer.create_render_pass()?;
        renderer.create_descriptors()?;
        renderer.create_pipeline()?;
        Ok(renderer)
    }

    /// The context the renderer runs on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// Format of the colour targets.
    pub fn color_format(&self) -> vk::Format {
        self.color_format
    }

    /// Format of the depth targets.
    pub fn depth_format(&self) -> vk::Format {
        self.depth_format
    }

    /// The render pass targets are made for.
    pub fn render_pass(&self) -> vk::RenderPass {
        self.render_pass
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

        let uniforms = FrameUniforms {
            view_projection: scene
                .views
                .map(|eye| (eye.projection * eye.view).to_cols_array()),
            model: scene.model.to_cols_array(),
            light_dir: scene.light_dir.extend(0.0).to_array(),
            bands: [
                scene.bands.sand_to_grass,
                scene.bands.grass_to_rock,
                scene.bands.rock_to_snow,
                scene.bands.blend,
            ],
            grid: [self.grid_width, self.grid_height, 0, 0],
        };
        write_mapped(&mut self.uniforms[slot], bytemuck::bytes_of(&uniforms));

        if let Some(heights) = scene.heights {
            write_mapped(
                &mut self.height_staging[slot],
                bytemuck::cast_slice(heights),
            );
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
            extent: target.extent,
        };
        let pass_info = vk::RenderPassBeginInfo::default()
            .render_pass(self.render_pass)
            .framebuffer(target.framebuffer)
            .render_area(area)
            .clear_values(&clear_values);
        let viewport = vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: target.extent.width as f32,
            height: target.extent.height as f32,
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
            device.cmd_draw_indexed(cmd, self.index_count, 1, 0, 0, 0);
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

    fn create_render_pass(&mut self) -> Result<(), RenderError> {
        let attachments = [
            vk::AttachmentDescription::default()
                .format(self.color_format)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
            // Depth is stored so an OpenXR depth layer can submit it.
            vk::AttachmentDescription::default()
                .format(self.depth_format)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        ];
        let color_refs = [vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let depth_ref = vk::AttachmentReference {
            attachment: 1,
            layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        };
        let subpasses = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&color_refs)
            .depth_stencil_attachment(&depth_ref)];
        // Earlier uses of the same images (the previous frame's attachment
        // writes, an offscreen copy out) finish before this pass clears them.
        let attachment_stages = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
            | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
            | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
        let attachment_writes = vk::AccessFlags::COLOR_ATTACHMENT_WRITE
            | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE;
        let dependencies = [vk::SubpassDependency::default()
            .src_subpass(vk::SUBPASS_EXTERNAL)
            .dst_subpass(0)
            .src_stage_mask(attachment_stages | vk::PipelineStageFlags::TRANSFER)
            .src_access_mask(attachment_writes)
            .dst_stage_mask(attachment_stages)
            .dst_access_mask(attachment_writes | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ)
            .dependency_flags(vk::DependencyFlags::BY_REGION)];
        let view_masks = [VIEW_MASK];
        // Both views are seen from nearly the same place: let the driver
        // share work between them.
        let correlation_masks = [VIEW_MASK];
        let mut multiview = vk::RenderPassMultiviewCreateInfo::default()
            .view_masks(&view_masks)
            .correlation_masks(&correlation_masks);
        let create_info = vk::RenderPassCreateInfo::default()
            .attachments(&attachments)
            .subpasses(&subpasses)
            .dependencies(&dependencies)
            .push_next(&mut multiview);
        // SAFETY: the device is live; all arrays outlive the call.
        self.render_pass = unsafe { self.ctx.device().create_render_pass(&create_info, None) }
            .map_err(vk_error("vkCreateRenderPass"))?;
        Ok(())
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

    fn create_pipeline(&mut self) -> Result<(), RenderError> {
        let device = self.ctx.device();
        let set_layouts = [self.descriptor_set_layout];
        let layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        // SAFETY: the device is live; the set layout was created on it.
        self.pipeline_layout = unsafe { device.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_error("vkCreatePipelineLayout"))?;

        let vertex = ShaderModule::new(&self.ctx, VERTEX_SHADER)?;
        let fragment = ShaderModule::new(&self.ctx, FRAGMENT_SHADER)?;
        // A UNORM target stores the shader's output as is, so the shader
        // encodes sRGB itself; an sRGB target encodes in hardware.
        let encode_srgb: vk::Bool32 = (!is_srgb(self.color_format)).into();
        let specialization_entries = [vk::SpecializationMapEntry {
            constant_id: 0,
            offset: 0,
            size: size_of::<vk::Bool32>(),
        }];
        let specialization_data = encode_srgb.to_ne_bytes();
        let specialization = vk::SpecializationInfo::default()
            .map_entries(&specialization_entries)
            .data(&specialization_data);
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vertex.raw)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fragment.raw)
                .name(c"main")
                .specialization_info(&specialization),
        ];
        let vertex_bindings = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: size_of::<super::grid::GridVertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let vertex_attributes = [
            vk::VertexInputAttributeDescription {
                location: 0,
                binding: 0,
                format: vk::Format::R32G32_SFLOAT,
                offset: 0,
            },
            vk::VertexInputAttributeDescription {
                location: 1,
                binding: 0,
                format: vk::Format::R32G32_SFLOAT,
                offset: 8,
            },
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&vertex_bindings)
            .vertex_attribute_descriptions(&vertex_attributes);
        let input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        // No culling: the hologram can be seen from below its edge.
        let rasterization = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(true)
            .depth_write_enable(true)
            .depth_compare_op(vk::CompareOp::LESS);
        let blend_attachments = [vk::PipelineColorBlendAttachmentState::default()
            .blend_enable(false)
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let color_blend =
            vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let create_info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&input_assembly)
            .viewport_state(&viewport)
            .rasterization_state(&rasterization)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth_stencil)
            .color_blend_state(&color_blend)
            .dynamic_state(&dynamic)
            .layout(self.pipeline_layout)
            .render_pass(self.render_pass)
            .subpass(0);
        // SAFETY: every referenced object and array outlives the call.
        let pipelines = unsafe {
            device.create_graphics_pipelines(vk::PipelineCache::null(), &[create_info], None)
        }
        .map_err(|(_, result)| vk_error("vkCreateGraphicsPipelines")(result))?;
        self.pipeline = pipelines[0];
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
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_descriptor_pool(self.descriptor_pool, None);
            device.destroy_descriptor_set_layout(self.descriptor_set_layout, None);
            device.destroy_render_pass(self.render_pass, None);
        }
    }
}

/// A colour and a depth image of 2 layers each, wrapped as one multiview
/// framebuffer of a [`TerrainRenderer`]'s render pass. Owns its framebuffer,
/// and its views when it made them ([`RenderTarget::new`]); never the images.
pub struct RenderTarget {
    /// The context the views and framebuffer belong to.
    ctx: Arc<GpuContext>,
    /// 2D-array views of the colour and the depth image.
    views: [vk::ImageView; 2],
    /// Whether dropping the target destroys `views`.
    owns_views: bool,
    /// The framebuffer (1 layer: multiview addresses the array layers).
    framebuffer: vk::Framebuffer,
    /// Size of each layer.
    extent: vk::Extent2D,
}

impl RenderTarget {
    /// Views and a framebuffer for drawing with `renderer` into `color_image`
    /// and `depth_image` (e.g. OpenXR swapchain images).
    ///
    /// # Safety
    /// Both images must be live on the renderer's device, have at least 2
    /// array layers of `extent`, the renderer's colour and depth formats, and
    /// COLOR_ATTACHMENT / DEPTH_STENCIL_ATTACHMENT usage; they must outlive
    /// the target (e.g. an OpenXR swapchain dropped after its targets).
    pub unsafe fn new(
        renderer: &TerrainRenderer,
        color_image: vk::Image,
        depth_image: vk::Image,
        extent: vk::Extent2D,
    ) -> Result<Self, RenderError> {
        let mut target = RenderTarget {
            ctx: renderer.ctx.clone(),
            views: [vk::ImageView::null(); 2],
            owns_views: true,
            framebuffer: vk::Framebuffer::null(),
            extent,
        };
        let images = [
            (
                color_image,
                renderer.color_format,
                vk::ImageAspectFlags::COLOR,
            ),
            (
                depth_image,
                renderer.depth_format,
                vk::ImageAspectFlags::DEPTH,
            ),
        ];
        for (view, (image, format, aspect)) in target.views.iter_mut().zip(images) {
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D_ARRAY)
                .format(format)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: aspect,
                    base_mip_level: 0,
                    level_count: 1,
                    base_array_layer: 0,
                    layer_count: VIEW_COUNT,
                });
            // SAFETY: per this function's contract; on failure Drop destroys
            // the views made so far.
            *view = unsafe { target.ctx.device().create_image_view(&view_info, None) }
                .map_err(vk_error("vkCreateImageView"))?;
        }
        target.create_framebuffer(renderer)?;
        Ok(target)
    }

    /// A framebuffer for drawing with `renderer` into views the caller made
    /// and keeps (the target does not destroy them).
    ///
    /// # Safety
    /// Both views must be live on the renderer's device, 2D-array views of 2
    /// layers of `extent` in the renderer's colour and depth formats, of
    /// images with attachment usage, and must outlive the target.
    pub unsafe fn from_views(
        renderer: &TerrainRenderer,
        color_view: vk::ImageView,
        depth_view: vk::ImageView,
        extent: vk::Extent2D,
    ) -> Result<Self, RenderError> {
        let mut target = RenderTarget {
            ctx: renderer.ctx.clone(),
            views: [color_view, depth_view],
            owns_views: false,
            framebuffer: vk::Framebuffer::null(),
            extent,
        };
        target.create_framebuffer(renderer)?;
        Ok(target)
    }

    fn create_framebuffer(&mut self, renderer: &TerrainRenderer) -> Result<(), RenderError> {
        let framebuffer_info = vk::FramebufferCreateInfo::default()
            .render_pass(renderer.render_pass)
            .attachments(&self.views)
            .width(self.extent.width)
            .height(self.extent.height)
            .layers(1);
        // SAFETY: the views match this render pass's formats (constructors' contracts).
        self.framebuffer = unsafe {
            self.ctx
                .device()
                .create_framebuffer(&framebuffer_info, None)
        }
        .map_err(vk_error("vkCreateFramebuffer"))?;
        Ok(())
    }

    /// Size of each eye's layer.
    pub fn extent(&self) -> vk::Extent2D {
        self.extent
    }
}

impl Drop for RenderTarget {
    fn drop(&mut self) {
        // SAFETY: owners drop targets only after the frames drawing into them
        // finished; null handles are ignored.
        unsafe {
            let device = self.ctx.device();
            device.destroy_framebuffer(self.framebuffer, None);
            if self.owns_views {
                for view in self.views {
                    device.destroy_image_view(view, None);
                }
            }
        }
    }
}

/// A shader module destroyed at the end of the scope that made it.
struct ShaderModule {
    /// The context the module belongs to.
    ctx: Arc<GpuContext>,
    /// The module handle.
    raw: vk::ShaderModule,
}

impl ShaderModule {
    fn new(ctx: &Arc<GpuContext>, spirv: &[u8]) -> Result<Self, RenderError> {
        let words = ash::util::read_spv(&mut Cursor::new(spirv)).map_err(|error| {
            RenderError::InvalidOptions(format!("embedded SPIR-V is malformed: {error}"))
        })?;
        let create_info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: the device is live; `words` outlives the call.
        let raw = unsafe { ctx.device().create_shader_module(&create_info, None) }
            .map_err(vk_error("vkCreateShaderModule"))?;
        Ok(ShaderModule {
            ctx: ctx.clone(),
            raw,
        })
    }
}

impl Drop for ShaderModule {
    fn drop(&mut self) {
        // SAFETY: modules are only needed while pipelines are created.
        unsafe { self.ctx.device().destroy_shader_module(self.raw, None) };
    }
}

/// Copies `bytes` to the start of a host-visible buffer.
fn write_mapped(buffer: &mut Buffer, bytes: &[u8]) {
    if let Some(mapped) = buffer.mapped_mut() {
        mapped[..bytes.len()].copy_from_slice(bytes);
    } else {
        log::error!("a host-visible buffer was not mapped; the frame's data was not written");
    }
}

/// An array made by a fallible function.
fn try_array<T, const N: usize>(
    mut make: impl FnMut(usize) -> Result<T, RenderError>,
) -> Result<[T; N], RenderError> {
    let items = (0..N).map(&mut make).collect::<Result<Vec<T>, _>>()?;
    items
        .try_into()
        .map_err(|_| RenderError::InvalidOptions("array length mismatch".into()))
}

/// Setup only: copies `contents` into device-local buffers through a
/// temporary staging buffer, zeroes `heights`, and waits for the copy.
fn upload_static(
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
        write_at(&mut staging, offset, bytes);
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
fn write_at(buffer: &mut Buffer, offset: usize, bytes: &[u8]) {
    if let Some(mapped) = buffer.mapped_mut() {
        mapped[offset..offset + bytes.len()].copy_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3};

    use super::*;
    use crate::render::frames::FrameRing;
    use crate::render::memory::Image;
    use crate::render::scene::{ColourBands, EyeView};

    fn array_view(
        ctx: &GpuContext,
        image: &Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
    ) -> vk::ImageView {
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image.raw())
            .view_type(vk::ImageViewType::TYPE_2D_ARRAY)
            .format(format)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: aspect,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: VIEW_COUNT,
            });
        // SAFETY: the image is live and has 2 layers of this format.
        unsafe { ctx.device().create_image_view(&view_info, None) }.unwrap()
    }

    #[test]
    fn a_target_on_caller_views_draws_and_leaves_the_views_alone() {
        let _ = env_logger::builder().is_test(true).try_init();
        let ctx = GpuContext::standalone(true).unwrap();
        let counter = ctx.validation_counter().unwrap();
        let (color_format, depth_format) = (vk::Format::R8G8B8A8_SRGB, vk::Format::D16_UNORM);
        let mut renderer =
            TerrainRenderer::new(ctx.clone(), 9, 7, color_format, depth_format).unwrap();
        let extent = vk::Extent2D {
            width: 32,
            height: 24,
        };
        let color = Image::new(
            &ctx,
            "colour",
            color_format,
            extent,
            VIEW_COUNT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT,
        )
        .unwrap();
        let depth = Image::new(
            &ctx,
            "depth",
            depth_format,
            extent,
            VIEW_COUNT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        )
        .unwrap();
        let color_view = array_view(&ctx, &color, color_format, vk::ImageAspectFlags::COLOR);
        let depth_view = array_view(&ctx, &depth, depth_format, vk::ImageAspectFlags::DEPTH);
        // SAFETY: the views fit the renderer and are destroyed after the target.
        let target =
            unsafe { RenderTarget::from_views(&renderer, color_view, depth_view, extent) }.unwrap();
        let mut frames = FrameRing::new(ctx.clone()).unwrap();
        let heights: Vec<f32> = (0..63).map(|i| i as f32 / 63.0).collect();
        let eye = EyeView {
            view: Mat4::from_translation(Vec3::new(0.0, -0.2, -1.0)),
            projection: crate::render::camera::perspective_from_fov(
                -0.5, 0.5, 0.4, -0.4, 0.05, 10.0,
            ),
        };
        let scene = FrameScene {
            model: Mat4::from_scale(Vec3::new(0.5, 0.1, 0.5)),
            views: [eye, eye],
            heights: Some(&heights),
            light_dir: Vec3::Y,
            bands: ColourBands::spread_over(0.0, 1.0),
        };
        for _ in 0..3 {
            let frame = frames.begin().unwrap();
            renderer.record(&frame, &target, &scene).unwrap();
            frames.submit(frame).unwrap();
        }
        frames.wait_for_all().unwrap();
        drop(target);
        // SAFETY: the GPU is done with the views; the target did not destroy
        // them, so destroying them here is valid (else the layer reports it).
        unsafe {
            ctx.device().destroy_image_view(color_view, None);
            ctx.device().destroy_image_view(depth_view, None);
        }
        drop((frames, color, depth, renderer, ctx));
        assert_eq!(counter.count(), 0, "validation messages (see the log)");
    }
}
