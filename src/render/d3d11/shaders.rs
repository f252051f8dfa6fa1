//! The terrain's and the controls' HLSL (`terrain.hlsl` and `ui.hlsl`, the
//! twins of the Vulkan GLSL shaders), compiled with d3dcompiler_47 when the
//! renderer starts, and the
//! interface of compiled shaders as `D3DReflect` gives it
//! ([`reflect_stages`]), to hold the one-pass variant to the per-eye one.
//!
//! Compiling at start-up rather than shipping bytecode: d3dcompiler_47.dll is
//! part of every Windows 10 and 11 and of HoloLens 2 (and Wine has it), it
//! takes milliseconds for these two small shaders, and the bytecode could
//! only be made by running a Windows compiler at build time, which this
//! project's Linux build machine cannot do without Wine.
use windows::Win32::Graphics::Direct3D::Fxc::{
    D3DCOMPILE_OPTIMIZATION_LEVEL3, D3DCompile, D3DReflect,
};
use windows::Win32::Graphics::Direct3D::{D3D_SHADER_MACRO, ID3DBlob};
use windows::Win32::Graphics::Direct3D11::{
    D3D11_SHADER_BUFFER_DESC, D3D11_SHADER_DESC, D3D11_SHADER_INPUT_BIND_DESC,
    D3D11_SHADER_VARIABLE_DESC, D3D11_SIGNATURE_PARAMETER_DESC, ID3D11ShaderReflection,
};
use windows::core::{Interface, PCSTR, s};

use super::error::{D3d11Error, call_error, one_line};
use crate::render::shader_interface::{
    ConstantBuffer, Resource, ShaderInterface, SignatureElement, StageInterfaces, Variable,
};

/// The HLSL source: vertex shader `vertex_main`, pixel shader `pixel_main`.
pub const TERRAIN_HLSL: &str = include_str!("terrain.hlsl");

/// The controls' HLSL: vertex shader `vertex_main`, pixel shader `pixel_main`.
pub const UI_HLSL: &str = include_str!("ui.hlsl");

/// Compiled bytecode of both stages.
pub struct TerrainShaders {
    /// The vertex shader (vs_5_0); also the input layout's signature.
    pub vertex: Vec<u8>,
    /// The pixel shader (ps_5_0).
    pub pixel: Vec<u8>,
}

/// Compiles both stages; with `layer_from_vertex_shader` the vertex shader
/// draws one eye per instance into the layer of that eye (VIEW_FROM_INSTANCE).
pub fn compile_terrain_shaders(
    layer_from_vertex_shader: bool,
) -> Result<TerrainShaders, D3d11Error> {
    compile_stages((TERRAIN_HLSL, s!("terrain.hlsl")), layer_from_vertex_shader)
}

/// The controls' shaders (`ui.hlsl`), with the same variants as
/// [`compile_terrain_shaders`].
pub fn compile_ui_shaders(layer_from_vertex_shader: bool) -> Result<TerrainShaders, D3d11Error> {
    compile_stages((UI_HLSL, s!("ui.hlsl")), layer_from_vertex_shader)
}

/// Both stages of `source` (its text and file name).
fn compile_stages(
    source: (&str, PCSTR),
    layer_from_vertex_shader: bool,
) -> Result<TerrainShaders, D3d11Error> {
    let view_from_instance = [
        D3D_SHADER_MACRO {
            Name: s!("VIEW_FROM_INSTANCE"),
            Definition: s!("1"),
        },
        D3D_SHADER_MACRO::default(),
    ];
    let defines = layer_from_vertex_shader.then_some(&view_from_instance);
    Ok(TerrainShaders {
        vertex: compile(
            source,
            defines,
            "vertex_main",
            s!("vertex_main"),
            s!("vs_5_0"),
        )?,
        pixel: compile(
            source,
            defines,
            "pixel_main",
            s!("pixel_main"),
            s!("ps_5_0"),
        )?,
    })
}

fn compile(
    (source, file_name): (&str, PCSTR),
    defines: Option<&[D3D_SHADER_MACRO; 2]>,
    entry_point: &'static str,
    entry_point_c: PCSTR,
    profile: PCSTR,
) -> Result<Vec<u8>, D3d11Error> {
    let mut code: Option<ID3DBlob> = None;
    let mut messages: Option<ID3DBlob> = None;
    // SAFETY: the source, names and the null-terminated define list outlive
    // the call; the out pointers point at live locals.
    let compiled = unsafe {
        D3DCompile(
            source.as_ptr().cast(),
            source.len(),
            file_name,
            defines.map(|list| list.as_ptr()),
            None,
            entry_point_c,
            profile,
            D3DCOMPILE_OPTIMIZATION_LEVEL3,
            0,
            &mut code,
            Some(&mut messages),
        )
    };
    let failed = |message: String| D3d11Error::ShaderCompile {
        entry_point,
        message,
    };
    match (compiled, code) {
        (Ok(()), Some(code)) => Ok(blob_bytes(&code).to_vec()),
        (result, _) => Err(failed(match messages {
            Some(messages) => one_line(&String::from_utf8_lossy(blob_bytes(&messages))),
            None => result
                .err()
                .map_or_else(|| "no bytecode".into(), |error| error.message()),
        })),
    }
}

/// The bytes a blob holds, borrowed from it.
fn blob_bytes(blob: &ID3DBlob) -> &[u8] {
    // SAFETY: a blob's pointer and size describe memory it owns while it lives,
    // and the slice borrows the blob.
    unsafe {
        std::slice::from_raw_parts(blob.GetBufferPointer().cast::<u8>(), blob.GetBufferSize())
    }
}

/// The interfaces of both stages of `shaders`, as `D3DReflect` reads them
/// from the bytecode.
pub fn reflect_stages(shaders: &TerrainShaders) -> Result<StageInterfaces, D3d11Error> {
    Ok(StageInterfaces {
        vertex: reflect(&shaders.vertex)?,
        pixel: reflect(&shaders.pixel)?,
    })
}

/// A compiled shader's interface.
fn reflect(bytecode: &[u8]) -> Result<ShaderInterface, D3d11Error> {
    let mut raw = std::ptr::null_mut();
    // SAFETY: the bytecode outlives the call; the out pointer is a live local.
    unsafe {
        D3DReflect(
            bytecode.as_ptr().cast(),
            bytecode.len(),
            &ID3D11ShaderReflection::IID,
            &mut raw,
        )
    }
    .map_err(call_error("D3DReflect"))?;
    // SAFETY: D3DReflect succeeded, so `raw` is a reference to an
    // ID3D11ShaderReflection that is now ours to release.
    let reflection = unsafe { ID3D11ShaderReflection::from_raw(raw) };
    let mut desc = D3D11_SHADER_DESC::default();
    // SAFETY: a plain query into a live local.
    unsafe { reflection.GetDesc(&mut desc) }
        .map_err(call_error("ID3D11ShaderReflection::GetDesc"))?;
    let element = |parameter: D3D11_SIGNATURE_PARAMETER_DESC| SignatureElement {
        semantic: text(parameter.SemanticName),
        index: parameter.SemanticIndex,
        register: parameter.Register,
        system_value: parameter.SystemValueType.0 as u32,
        component_type: parameter.ComponentType.0 as u32,
        mask: parameter.Mask,
    };
    let mut inputs = Vec::new();
    for index in 0..desc.InputParameters {
        let mut parameter = D3D11_SIGNATURE_PARAMETER_DESC::default();
        // SAFETY: `index` is below the count GetDesc gave; the out pointer is a live local.
        unsafe { reflection.GetInputParameterDesc(index, &mut parameter) }
            .map_err(call_error("ID3D11ShaderReflection::GetInputParameterDesc"))?;
        inputs.push(element(parameter));
    }
    let mut outputs = Vec::new();
    for index in 0..desc.OutputParameters {
        let mut parameter = D3D11_SIGNATURE_PARAMETER_DESC::default();
        // SAFETY: as for the inputs.
        unsafe { reflection.GetOutputParameterDesc(index, &mut parameter) }
            .map_err(call_error("ID3D11ShaderReflection::GetOutputParameterDesc"))?;
        outputs.push(element(parameter));
    }
    let missing = |what: &str| D3d11Error::Call {
        call: "ID3D11ShaderReflection",
        message: format!("no {what}"),
        code: 0,
    };
    let mut constant_buffers = Vec::new();
    for index in 0..desc.ConstantBuffers {
        // SAFETY: `index` is below the count GetDesc gave; the buffer's
        // reflection lives as long as `reflection`, which outlives its use here.
        let buffer = unsafe { reflection.GetConstantBufferByIndex(index) }
            .ok_or_else(|| missing("constant buffer"))?;
        let mut buffer_desc = D3D11_SHADER_BUFFER_DESC::default();
        // SAFETY: a plain query into a live local.
        unsafe { buffer.GetDesc(&mut buffer_desc) }
            .map_err(call_error("ID3D11ShaderReflectionConstantBuffer::GetDesc"))?;
        let mut variables = Vec::new();
        for variable_index in 0..buffer_desc.Variables {
            // SAFETY: as for the buffer.
            let variable = unsafe { buffer.GetVariableByIndex(variable_index) }
                .ok_or_else(|| missing("variable"))?;
            let mut variable_desc = D3D11_SHADER_VARIABLE_DESC::default();
            // SAFETY: a plain query into a live local.
            unsafe { variable.GetDesc(&mut variable_desc) }
                .map_err(call_error("ID3D11ShaderReflectionVariable::GetDesc"))?;
            variables.push(Variable {
                name: text(variable_desc.Name),
                offset: variable_desc.StartOffset,
                size: variable_desc.Size,
            });
        }
        constant_buffers.push(ConstantBuffer {
            name: text(buffer_desc.Name),
            size: buffer_desc.Size,
            variables,
        });
    }
    let mut resources = Vec::new();
    for index in 0..desc.BoundResources {
        let mut binding = D3D11_SHADER_INPUT_BIND_DESC::default();
        // SAFETY: `index` is below the count GetDesc gave; the out pointer is a live local.
        unsafe { reflection.GetResourceBindingDesc(index, &mut binding) }
            .map_err(call_error("ID3D11ShaderReflection::GetResourceBindingDesc"))?;
        resources.push(Resource {
            name: text(binding.Name),
            kind: binding.Type.0 as u32,
            bind_point: binding.BindPoint,
        });
    }
    Ok(ShaderInterface {
        inputs,
        outputs,
        constant_buffers,
        resources,
    })
}

/// A name the reflection gives, as text ("" when it gives none).
fn text(name: PCSTR) -> String {
    if name.is_null() {
        return String::new();
    }
    // SAFETY: the reflection's names are NUL-terminated strings that live
    // as long as the reflection, which outlives this copy.
    unsafe { name.to_string() }.unwrap_or_default()
}
