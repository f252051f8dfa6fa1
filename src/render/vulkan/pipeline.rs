//! The terrain's fixed-function state: the multiview render pass (with the
//! target formats it is made for) and the graphics pipeline (shaders, vertex
//! layout, depth, rasterisation).
use std::sync::Arc;

use ash::vk;

use super::context::GpuContext;
use super::error::vk_error;
use super::formats::is_srgb;
use super::shader::{FRAGMENT_SHADER, ShaderModule, VERTEX_SHADER};
use crate::render::diorama::DioramaVertex;
use crate::render::error::RenderError;
use crate::render::scene::VIEW_COUNT;

/// Every eye: view 0 is the left eye, view 1 the right, one array layer each.
pub const VIEW_MASK: u32 = (1 << VIEW_COUNT) - 1;

/// The multiview render pass: clears colour and depth, draws both eyes,
/// keeps both (depth too, so an OpenXR depth layer can submit it). Targets
/// ([`RenderTarget`](super::target::RenderTarget)) are framebuffers of it,
/// with its colour and depth formats.
pub struct MultiviewPass {
    /// The context the pass belongs to.
    ctx: Arc<GpuContext>,
    /// The render pass handle.
    raw: vk::RenderPass,
    /// Format of the colour attachment.
    color_format: vk::Format,
    /// Format of the depth attachment.
    depth_format: vk::Format,
}

impl MultiviewPass {
    /// The pass for targets of `color_format` and `depth_format`.
    pub(crate) fn new(
        ctx: &Arc<GpuContext>,
        color_format: vk::Format,
        depth_format: vk::Format,
    ) -> Result<Self, RenderError> {
        Ok(MultiviewPass {
            ctx: Arc::clone(ctx),
            raw: create_render_pass(ctx, color_format, depth_format)?,
            color_format,
            depth_format,
        })
    }

    /// The context the pass belongs to.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// The render pass handle.
    pub fn raw(&self) -> vk::RenderPass {
        self.raw
    }

    /// Format of the colour targets.
    pub fn color_format(&self) -> vk::Format {
        self.color_format
    }

    /// Format of the depth targets.
    pub fn depth_format(&self) -> vk::Format {
        self.depth_format
    }
}

impl Drop for MultiviewPass {
    fn drop(&mut self) {
        // SAFETY: its owner (the terrain renderer) waited for the device
        // before dropping it, and the pipelines made for it are gone.
        unsafe { self.ctx.device().destroy_render_pass(self.raw, None) };
    }
}

/// An attachment cleared at the start of the pass and kept at its end, left
/// in `final_layout`; no stencil.
fn cleared_and_stored(
    format: vk::Format,
    final_layout: vk::ImageLayout,
) -> vk::AttachmentDescription {
    vk::AttachmentDescription::default()
        .format(format)
        .samples(vk::SampleCountFlags::TYPE_1)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
        .initial_layout(vk::ImageLayout::UNDEFINED)
        .final_layout(final_layout)
}

/// The multiview render pass: clear colour and depth, draw, keep both.
fn create_render_pass(
    ctx: &GpuContext,
    color_format: vk::Format,
    depth_format: vk::Format,
) -> Result<vk::RenderPass, RenderError> {
    let attachments = [
        cleared_and_stored(color_format, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
        // Depth is stored so an OpenXR depth layer can submit it.
        cleared_and_stored(
            depth_format,
            vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        ),
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
    let attachment_writes =
        vk::AccessFlags::COLOR_ATTACHMENT_WRITE | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE;
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
    unsafe { ctx.device().create_render_pass(&create_info, None) }
        .map_err(vk_error("vkCreateRenderPass"))
}

/// The pipeline layout: one descriptor set of `set_layout`.
pub(crate) fn create_pipeline_layout(
    ctx: &GpuContext,
    set_layout: vk::DescriptorSetLayout,
) -> Result<vk::PipelineLayout, RenderError> {
    let set_layouts = [set_layout];
    let layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    // SAFETY: the device is live; the set layout was created on it.
    unsafe { ctx.device().create_pipeline_layout(&layout_info, None) }
        .map_err(vk_error("vkCreatePipelineLayout"))
}

/// Which part of the diorama a pipeline draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The closed solid: opaque, writing depth.
    Solid,
    /// The water, after the solid: blended over it, testing depth without
    /// writing it, so the controls drawn next show through it as before.
    Water,
    /// The water again once the controls are drawn: its depth alone, no
    /// colour, so every pixel it coloured has its depth (what the runtime
    /// reprojects by).
    WaterDepth,
}

/// A diorama pipeline: the mesh's vertices, heights from the storage
/// buffer, depth test LESS, back faces culled (the solid is closed), for
/// targets of `color_format`.
pub(crate) fn create_pipeline(
    ctx: &Arc<GpuContext>,
    layout: vk::PipelineLayout,
    render_pass: vk::RenderPass,
    color_format: vk::Format,
    part: Part,
) -> Result<vk::Pipeline, RenderError> {
    let vertex = ShaderModule::new(ctx, VERTEX_SHADER)?;
    let fragment = ShaderModule::new(ctx, FRAGMENT_SHADER)?;
    // A UNORM target stores the shader's output as is, so the shader
    // encodes sRGB itself; an sRGB target encodes in hardware.
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
        stride: size_of::<DioramaVertex>() as u32,
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
        vk::VertexInputAttributeDescription {
            location: 2,
            binding: 0,
            format: vk::Format::R32G32_SFLOAT,
            offset: 16,
        },
        vk::VertexInputAttributeDescription {
            location: 3,
            binding: 0,
            format: vk::Format::R32_SFLOAT,
            offset: 24,
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
    // The solid is closed and wound counter-clockwise seen from outside.
    let rasterization = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::BACK)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(part != Part::Water)
        .depth_compare_op(vk::CompareOp::LESS);
    let color_writes = if part == Part::WaterDepth {
        vk::ColorComponentFlags::empty()
    } else {
        vk::ColorComponentFlags::RGBA
    };
    // Water over land keeps the land's alpha; over nothing it is partly transparent.
    let blend_attachments = [vk::PipelineColorBlendAttachmentState::default()
        .blend_enable(part == Part::Water)
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
