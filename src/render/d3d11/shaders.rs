//! The terrain's HLSL (`terrain.hlsl`, the twin of the Vulkan GLSL shaders),
//! compiled with d3dcompiler_47 when the renderer starts.
//!
//! Compiling at start-up rather than shipping bytecode: d3dcompiler_47.dll is
//! part of every Windows 10 and 11 and of HoloLens 2 (and Wine has it), it
//! takes milliseconds for these two small shaders, and the bytecode could
//! only be made by running a Windows compiler at build time, which this
//! project's Linux build machine cannot do without Wine.
use windows::Win32::Graphics::Direct3D::Fxc::{D3DCOMPILE_OPTIMIZATION_LEVEL3, D3DCompile};
use windows::Win32::Graphics::Direct3D::{D3D_SHADER_MACRO, ID3DBlob};
use windows::core::{PCSTR, s};

use super::error::{D3d11Error, one_line};

/// The HLSL source: vertex shader `vertex_main`, pixel shader `pixel_main`.
pub const TERRAIN_HLSL: &str = include_str!("terrain.hlsl");

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
    let view_from_instance = [
        D3D_SHADER_MACRO {
            Name: s!("VIEW_FROM_INSTANCE"),
            Definition: s!("1"),
        },
        D3D_SHADER_MACRO::default(),
    ];
    let defines = layer_from_vertex_shader.then_some(&view_from_instance);
    Ok(TerrainShaders {
        vertex: compile(defines, "vertex_main", s!("vertex_main"), s!("vs_5_0"))?,
        pixel: compile(defines, "pixel_main", s!("pixel_main"), s!("ps_5_0"))?,
    })
}

fn compile(
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
            TERRAIN_HLSL.as_ptr().cast(),
            TERRAIN_HLSL.len(),
            s!("terrain.hlsl"),
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
