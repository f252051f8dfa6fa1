//! The controls pass: the glyph atlas on the GPU, each frame slot's vertices
//! of the controls layer (laid out by `render::ui` into mapped memory), and
//! their pipelines — drawn inside the terrain's render pass, after it,
//! depth-tested against it without writing depth, alpha-blended over it;
//! then drawn again for their depth alone.
use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::context::GpuContext;
use super::error::vk_error;
use super::formats::is_srgb;
use super::frames::FRAMES_IN_FLIGHT;
use super::memory::{Buffer, try_array};
use super::shader::{ShaderModule, UI_FRAGMENT_SHADER, UI_VERTEX_SHADER};
use crate::render::error::RenderError;
use crate::render::scene::UiLayer;
use crate::render::ui::{MAX_UI_VERTICES, UiVertex, atlas, layout_ui};
use glam::Mat4;

/// Which of the controls' two draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UiDraw {
    /// Their colour, blended over what is drawn, testing depth without
    /// writing it: a label lies on its plate, in the same plane.
    Colour,
    /// Their depth alone, once every colour is in: each fragment the colour
    /// draw kept (the discarded ones write nothing here either) writes its
    /// depth, the nearest of them winning.
    Depth,
}

/// The controls' pipelines, atlas and per-slot vertices.
pub(crate) struct UiPass {
    /// The device everything here lives on.
    ctx: Arc<GpuContext>,
    /// The terrain's uniforms (binding 0, for the eyes' matrices and the
    /// near fade) and the atlas (binding 1).
    descriptor_set_layout: vk::DescriptorSetLayout,
    /// The pipeline's layout.
    pipeline_layout: vk::PipelineLayout,
    /// Blended, depth-tested, not culled.
    pipeline: vk::Pipeline,
    /// The same shapes' depth, no colour.
    depth_pipeline: vk::Pipeline,
    /// Holds `descriptor_sets`.
    descriptor_pool: vk::DescriptorPool,
    /// One set per frame slot.
    descriptor_sets: [vk::DescriptorSet; FRAMES_IN_FLIGHT],
    /// Device-local atlas texels, four to a word (filled by the terrain's setup upload).
    atlas: Buffer,
    /// Host-visible vertices, one buffer per frame slot, [`MAX_UI_VERTICES`] each.
    vertices: [Buffer; FRAMES_IN_FLIGHT],
    /// Vertices each slot's buffer holds for its frame.
    counts: [u32; FRAMES_IN_FLIGHT],
}

impl UiPass {
    /// The pass for targets of `color_format` in `render_pass`, reading the
    /// eyes from each slot's `uniforms`. The atlas is empty until
    /// [`Self::atlas_upload`]'s copy has run.
    pub(crate) fn new(
        ctx: &Arc<GpuContext>,
        render_pass: vk::RenderPass,
        color_format: vk::Format,
        uniforms: &[Buffer; FRAMES_IN_FLIGHT],
    ) -> Result<Self, RenderError> {
        let atlas = Buffer::new(
            ctx,
            "controls glyph atlas",
            atlas().texels().len() as u64,
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuOnly,
        )?;
        let vertices = try_array(|_| {
            Buffer::new(
                ctx,
                "controls vertices",
                (MAX_UI_VERTICES * size_of::<UiVertex>()) as u64,
                vk::BufferUsageFlags::VERTEX_BUFFER,
                MemoryLocation::CpuToGpu,
            )
        })?;
        let mut pass = UiPass {
            ctx: ctx.clone(),
            descriptor_set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            depth_pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            descriptor_sets: [vk::DescriptorSet::null(); FRAMES_IN_FLIGHT],
            atlas,
            vertices,
            counts: [0; FRAMES_IN_FLIGHT],
        };
        // As for the terrain: Drop destroys what exists if a step fails.
        pass.create_descriptors(uniforms)?;
        pass.pipeline_layout =
            super::pipeline::create_pipeline_layout(ctx, pass.descriptor_set_layout)?;
        for (pipeline, draw) in [
            (&mut pass.pipeline, UiDraw::Colour),
            (&mut pass.depth_pipeline, UiDraw::Depth),
        ] {
            *pipeline =
                create_ui_pipeline(ctx, pass.pipeline_layout, render_pass, color_format, draw)?;
        }
        Ok(pass)
    }

    /// The atlas buffer and the bytes the setup copy puts in it.
    pub(crate) fn atlas_upload(&self) -> (&Buffer, &'static [u8]) {
        (&self.atlas, atlas().texels())
    }

    /// Lays `layer` out into `slot`'s vertices. Never allocates; the slot's
    /// previous frame must be done (its fence waited).
    pub(crate) fn prepare(
        &mut self,
        slot: usize,
        layer: &UiLayer<'_>,
        eyes: &[Mat4; 2],
    ) -> Result<(), RenderError> {
        let bytes = self.vertices[slot].mapped_mut()?;
        let vertices: &mut [UiVertex] = bytemuck::cast_slice_mut(bytes);
        self.counts[slot] = layout_ui(layer, eyes, vertices) as u32;
        Ok(())
    }

    /// Draws `slot`'s vertices for `draw`, when there are any.
    ///
    /// # Safety
    /// `cmd` is recording inside the terrain's render pass, with the
    /// viewport and scissor set, after [`Self::prepare`] for `slot`.
    pub(crate) unsafe fn record(&self, cmd: vk::CommandBuffer, slot: usize, draw: UiDraw) {
        if self.counts[slot] == 0 {
            return;
        }
        let device = self.ctx.device();
        // SAFETY: per this function's contract; the bound objects live as
        // long as the pass, which outlives the frame (Drop waits).
        unsafe {
            let pipeline = match draw {
                UiDraw::Colour => self.pipeline,
                UiDraw::Depth => self.depth_pipeline,
            };
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
            device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.pipeline_layout,
                0,
                &[self.descriptor_sets[slot]],
                &[],
            );
            device.cmd_bind_vertex_buffers(cmd, 0, &[self.vertices[slot].raw()], &[0]);
            device.cmd_draw(cmd, self.counts[slot], 1, 0, 0);
        }
    }

    fn create_descriptors(
        &mut self,
        uniforms: &[Buffer; FRAMES_IN_FLIGHT],
    ) -> Result<(), RenderError> {
        let device = self.ctx.device();
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                .descriptor_count(1)
                // The eyes for the vertices, the near fade for the fragments.
                .stage_flags(vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT),
            vk::DescriptorSetLayoutBinding::default()
                .binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT),
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
        for (set, uniforms) in self.descriptor_sets.iter().zip(uniforms) {
            let whole = |buffer: &Buffer| {
                [vk::DescriptorBufferInfo {
                    buffer: buffer.raw(),
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }]
            };
            let (uniform_info, atlas_info) = (whole(uniforms), whole(&self.atlas));
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
                    .buffer_info(&atlas_info),
            ];
            // SAFETY: the sets are not in use by any command buffer yet.
            unsafe { device.update_descriptor_sets(&writes, &[]) };
        }
        Ok(())
    }
}

impl Drop for UiPass {
    fn drop(&mut self) {
        // SAFETY: the terrain renderer that owns the pass waited for the
        // device before dropping it; null handles are ignored.
        unsafe {
            let device = self.ctx.device();
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline(self.depth_pipeline, None);
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_descriptor_pool(self.descriptor_pool, None);
            device.destroy_descriptor_set_layout(self.descriptor_set_layout, None);
        }
    }
}

/// A controls pipeline: [`UiVertex`] triangles, both faces (a panel may
/// be seen from behind), depth test LESS; for [`UiDraw::Colour`] without
/// writing depth (labels lie on their plates), blended as the water is;
/// for [`UiDraw::Depth`] writing depth and no colour.
fn create_ui_pipeline(
    ctx: &Arc<GpuContext>,
    layout: vk::PipelineLayout,
    render_pass: vk::RenderPass,
    color_format: vk::Format,
    draw: UiDraw,
) -> Result<vk::Pipeline, RenderError> {
    let vertex = ShaderModule::new(ctx, UI_VERTEX_SHADER)?;
    let fragment = ShaderModule::new(ctx, UI_FRAGMENT_SHADER)?;
    // As for the terrain: a UNORM target gets sRGB from the shader.
    let encode_srgb: vk::Bool32 = (!is_srgb(color_format)).into();
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
        stride: size_of::<UiVertex>() as u32,
        input_rate: vk::VertexInputRate::VERTEX,
    }];
    let attribute = |location, format, offset| vk::VertexInputAttributeDescription {
        location,
        binding: 0,
        format,
        offset,
    };
    let vertex_attributes = [
        attribute(0, vk::Format::R32G32B32A32_SFLOAT, 0),
        attribute(1, vk::Format::R32G32_SFLOAT, 16),
        attribute(2, vk::Format::R32G32B32A32_SFLOAT, 24),
    ];
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&vertex_bindings)
        .vertex_attribute_descriptions(&vertex_attributes);
    let input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let rasterization = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(draw == UiDraw::Depth)
        .depth_compare_op(vk::CompareOp::LESS);
    let color_writes = match draw {
        UiDraw::Colour => vk::ColorComponentFlags::RGBA,
        UiDraw::Depth => vk::ColorComponentFlags::empty(),
    };
    let blend_attachments = [vk::PipelineColorBlendAttachmentState::default()
        .blend_enable(draw == UiDraw::Colour)
        .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
        .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(vk::BlendFactor::ONE)
        .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .alpha_blend_op(vk::BlendOp::ADD)
        .color_write_mask(color_writes)];
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
        .layout(layout)
        .render_pass(render_pass)
        .subpass(0);
    // SAFETY: every referenced object and array outlives the call.
    let pipelines = unsafe {
        ctx.device()
            .create_graphics_pipelines(vk::PipelineCache::null(), &[create_info], None)
    }
    .map_err(|(_, result)| vk_error("vkCreateGraphicsPipelines")(result))?;
    Ok(pipelines[0])
}
