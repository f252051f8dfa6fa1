//! Shader modules: the terrain's and the controls' SPIR-V (compiled from shaders/*.vert and
//! *.frag, committed) and a module that is destroyed with its scope.
use std::io::Cursor;
use std::sync::Arc;

use ash::vk;

use super::context::GpuContext;
use super::error::vk_error;
use crate::render::error::RenderError;

/// The terrain's vertex shader (shaders/terrain.vert).
pub(crate) const VERTEX_SHADER: &[u8] = include_bytes!("../../../shaders/terrain.vert.spv");
/// The terrain's fragment shader (shaders/terrain.frag).
pub(crate) const FRAGMENT_SHADER: &[u8] = include_bytes!("../../../shaders/terrain.frag.spv");
/// The controls' vertex shader (shaders/ui.vert).
pub(crate) const UI_VERTEX_SHADER: &[u8] = include_bytes!("../../../shaders/ui.vert.spv");
/// The controls' fragment shader (shaders/ui.frag).
pub(crate) const UI_FRAGMENT_SHADER: &[u8] = include_bytes!("../../../shaders/ui.frag.spv");

/// A shader module destroyed at the end of the scope that made it.
pub(crate) struct ShaderModule {
    /// The context the module belongs to.
    ctx: Arc<GpuContext>,
    /// The module handle.
    pub(crate) raw: vk::ShaderModule,
}

impl ShaderModule {
    /// A module of `spirv` on `ctx`'s device.
    pub(crate) fn new(ctx: &Arc<GpuContext>, spirv: &[u8]) -> Result<Self, RenderError> {
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
