//! What a compiled shader exchanges with the rest of the pipeline — its
//! input and output signatures, constant buffers and bound resources — as
//! plain data, and the rule the Direct3D 11 terrain shaders' two variants
//! keep: the one-pass variant (`VIEW_FROM_INSTANCE`: the vertex shader
//! chooses the render-target array layer, as on HoloLens 2 and the desktop
//! GPUs a Holographic Remoting PC has) is the per-eye variant plus the
//! layer index, and in each variant the pixel shader reads what the vertex
//! shader writes. The Windows build fills these from `D3DReflect`
//! (`render/d3d11/shaders.rs`); a device without the feature (Wine's)
//! cannot run the one-pass variant, but can compile and compare it.

use serde::Serialize;

/// D3D_NAME_RENDER_TARGET_ARRAY_INDEX: the system value that picks the layer.
pub const RENDER_TARGET_ARRAY_INDEX: u32 = 4;

/// One element of an input or output signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignatureElement {
    /// The semantic, e.g. "NORMAL" or "SV_Position".
    pub semantic: String,
    /// The semantic's index.
    pub index: u32,
    /// The register it occupies.
    pub register: u32,
    /// D3D_NAME: 0, or the system value it is.
    pub system_value: u32,
    /// D3D_REGISTER_COMPONENT_TYPE: float, int or uint.
    pub component_type: u32,
    /// The components it declares (x = 1, y = 2, z = 4, w = 8).
    pub mask: u8,
}

/// One variable of a constant buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// Bytes from the buffer's start.
    pub offset: u32,
    /// Bytes it takes.
    pub size: u32,
}

/// A constant buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConstantBuffer {
    /// Its name, e.g. "Frame".
    pub name: String,
    /// Bytes it takes.
    pub size: u32,
    /// Its variables, in order.
    pub variables: Vec<Variable>,
}

/// A resource bound to a register (constant buffer, texture, buffer...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resource {
    /// Its name.
    pub name: String,
    /// D3D_SHADER_INPUT_TYPE.
    pub kind: u32,
    /// The register.
    pub bind_point: u32,
}

/// A compiled shader's interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShaderInterface {
    /// What it reads.
    pub inputs: Vec<SignatureElement>,
    /// What it writes.
    pub outputs: Vec<SignatureElement>,
    /// Its constant buffers.
    pub constant_buffers: Vec<ConstantBuffer>,
    /// What it binds.
    pub resources: Vec<Resource>,
}

/// A vertex and a pixel shader compiled together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StageInterfaces {
    /// The vertex shader's.
    pub vertex: ShaderInterface,
    /// The pixel shader's.
    pub pixel: ShaderInterface,
}

/// What breaks the rule between the per-eye and the one-pass variants,
/// each problem in one line; empty when they agree.
pub fn one_pass_problems(per_eye: &StageInterfaces, one_pass: &StageInterfaces) -> Vec<String> {
    let mut problems = Vec::new();
    let mut same = |what: &str, equal: bool| {
        if !equal {
            problems.push(format!("{what} differ between the variants"));
        }
    };
    same(
        "vertex inputs",
        per_eye.vertex.inputs == one_pass.vertex.inputs,
    );
    same(
        "vertex constant buffers",
        per_eye.vertex.constant_buffers == one_pass.vertex.constant_buffers,
    );
    same(
        "vertex resources",
        per_eye.vertex.resources == one_pass.vertex.resources,
    );
    same(
        "pixel constant buffers",
        per_eye.pixel.constant_buffers == one_pass.pixel.constant_buffers,
    );
    same(
        "pixel resources",
        per_eye.pixel.resources == one_pass.pixel.resources,
    );
    same(
        "pixel outputs",
        per_eye.pixel.outputs == one_pass.pixel.outputs,
    );
    let (layer, others): (Vec<&SignatureElement>, Vec<&SignatureElement>) = one_pass
        .vertex
        .outputs
        .iter()
        .partition(|element| element.system_value == RENDER_TARGET_ARRAY_INDEX);
    if layer.len() != 1 {
        problems.push(format!(
            "the one-pass vertex shader writes the render-target array index {} times, not once",
            layer.len()
        ));
    }
    if per_eye
        .vertex
        .outputs
        .iter()
        .any(|element| element.system_value == RENDER_TARGET_ARRAY_INDEX)
    {
        problems.push("the per-eye vertex shader writes the render-target array index".into());
    }
    if !per_eye.vertex.outputs.iter().eq(others) {
        problems.push(
            "the one-pass vertex outputs are not the per-eye ones plus the layer index".into(),
        );
    }
    for (variant, stages) in [("per-eye", per_eye), ("one-pass", one_pass)] {
        for input in &stages.pixel.inputs {
            let fed = stages.vertex.outputs.iter().any(|output| {
                output.semantic.eq_ignore_ascii_case(&input.semantic)
                    && output.index == input.index
                    && output.register == input.register
                    && output.component_type == input.component_type
                    && input.mask & !output.mask == 0
            });
            if !fed {
                problems.push(format!(
                    "{variant}: the pixel shader reads {}{} (register {}), which the vertex shader does not write there",
                    input.semantic, input.index, input.register
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(semantic: &str, register: u32, system_value: u32, mask: u8) -> SignatureElement {
        SignatureElement {
            semantic: semantic.into(),
            index: 0,
            register,
            system_value,
            component_type: 3,
            mask,
        }
    }

    fn shader(inputs: Vec<SignatureElement>, outputs: Vec<SignatureElement>) -> ShaderInterface {
        ShaderInterface {
            inputs,
            outputs,
            constant_buffers: vec![ConstantBuffer {
                name: "Frame".into(),
                size: 256,
                variables: vec![Variable {
                    name: "model".into(),
                    offset: 128,
                    size: 64,
                }],
            }],
            resources: Vec::new(),
        }
    }

    /// Variants as the terrain shaders have them: position, normal,
    /// height; the one-pass one adds the layer.
    fn variants() -> (StageInterfaces, StageInterfaces) {
        let varyings = vec![
            element("SV_Position", 0, 1, 0xf),
            element("NORMAL", 1, 0, 0x7),
            element("HEIGHT", 1, 0, 0x8),
        ];
        let mut one_pass_out = varyings.clone();
        one_pass_out.push(element("SV_RenderTargetArrayIndex", 2, 4, 0x1));
        let pixel = |inputs| shader(inputs, vec![element("SV_Target", 0, 64, 0xf)]);
        let vertex = |outputs| shader(vec![element("POSITION", 0, 0, 0x3)], outputs);
        (
            StageInterfaces {
                vertex: vertex(varyings.clone()),
                pixel: pixel(varyings.clone()),
            },
            StageInterfaces {
                vertex: vertex(one_pass_out.clone()),
                pixel: pixel(one_pass_out),
            },
        )
    }

    #[test]
    fn the_terrain_shaders_variants_agree() {
        let (per_eye, one_pass) = variants();
        assert_eq!(one_pass_problems(&per_eye, &one_pass), Vec::<String>::new());
    }

    #[test]
    fn a_missing_layer_index_or_an_extra_output_is_a_problem() {
        let (per_eye, mut one_pass) = variants();
        one_pass.vertex.outputs.pop();
        one_pass.pixel.inputs.pop();
        let problems = one_pass_problems(&per_eye, &one_pass);
        assert!(problems[0].contains("0 times"), "{problems:?}");
        let (per_eye, mut one_pass) = variants();
        one_pass
            .vertex
            .outputs
            .insert(1, element("COLOR", 3, 0, 0xf));
        let problems = one_pass_problems(&per_eye, &one_pass);
        assert!(
            problems
                .iter()
                .any(|problem| problem.contains("not the per-eye ones")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_constant_buffer_laid_out_otherwise_is_a_problem() {
        let (per_eye, mut one_pass) = variants();
        one_pass.vertex.constant_buffers[0].variables[0].offset = 64;
        assert_eq!(
            one_pass_problems(&per_eye, &one_pass),
            ["vertex constant buffers differ between the variants"]
        );
    }

    #[test]
    fn a_pixel_input_the_vertex_shader_does_not_write_is_a_problem() {
        let (per_eye, mut one_pass) = variants();
        one_pass.pixel.inputs[1].register = 5;
        let problems = one_pass_problems(&per_eye, &one_pass);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("one-pass: the pixel shader reads NORMAL0 (register 5)"));
    }
}
