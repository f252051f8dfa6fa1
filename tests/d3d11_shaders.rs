//! The Direct3D 11 shaders (src/render/d3d11/terrain.hlsl and ui.hlsl,
//! written by hand) against the Vulkan ones (shaders/terrain.* and ui.*): the same
//! uniform layout and the same numbers in every function that shades the
//! terrain, so a change to one that is not made to the other fails here.
//! The Wine test (tests/windows_wine.rs) compares the images they draw.
use std::path::Path;

fn source(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The text between the braces that follow the first occurrence of `header`.
fn braced_after<'a>(text: &'a str, header: &str) -> &'a str {
    let start = text
        .find(header)
        .unwrap_or_else(|| panic!("`{header}` not found"));
    let open = start + text[start..].find('{').expect("an opening brace");
    let mut depth = 0;
    for (offset, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open + 1..open + offset];
                }
            }
            _ => {}
        }
    }
    panic!("`{header}` has no closing brace")
}

/// `text` without `//` comments.
fn code(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every decimal number literal in `text` (like `0.45`, `1e-6`, `2.4`), as
/// written, in order, ignoring integers used as indices and counts.
fn float_literals(text: &str) -> Vec<String> {
    let mut literals = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut index = 0;
    while index < chars.len() {
        let starts_number = chars[index].is_ascii_digit()
            && (index == 0 || !(chars[index - 1].is_alphanumeric() || chars[index - 1] == '_'));
        if !starts_number {
            index += 1;
            continue;
        }
        let start = index;
        while index < chars.len()
            && (chars[index].is_ascii_digit()
                || chars[index] == '.'
                || chars[index] == 'e'
                || (chars[index] == '-' && chars[index - 1] == 'e'))
        {
            index += 1;
        }
        let literal: String = chars[start..index].iter().collect();
        if literal.contains('.') || literal.contains('e') {
            literals.push(literal);
        }
    }
    literals
}

/// `(type, name)` of each member of a uniform block or constant buffer,
/// with GLSL types spelled as HLSL's.
fn members(block: &str) -> Vec<(String, String)> {
    code(block)
        .split(';')
        .filter_map(|declaration| {
            let mut words = declaration.split_whitespace();
            let (kind, name) = (words.next()?, words.next()?);
            let kind = match kind {
                "mat4" => "float4x4",
                "vec4" => "float4",
                "uvec4" => "uint4",
                other => other,
            };
            Some((kind.to_owned(), name.to_owned()))
        })
        .collect()
}

#[test]
fn the_frame_constants_have_the_uniform_blocks_layout() {
    let hlsl = source("src/render/d3d11/terrain.hlsl");
    let hlsl_members = members(braced_after(&hlsl, "cbuffer Frame"));
    assert_eq!(hlsl_members.len(), 13, "{hlsl_members:?}");
    // The near fade is appended last (render::scene::FrameUniforms).
    assert_eq!(
        hlsl_members.last(),
        Some(&("float4".to_owned(), "fade".to_owned()))
    );
    for shader in [
        "shaders/terrain.vert",
        "shaders/terrain.frag",
        "shaders/ui.frag",
    ] {
        let glsl = source(shader);
        assert_eq!(
            members(braced_after(&glsl, "uniform Frame")),
            hlsl_members,
            "{shader}'s Frame block and terrain.hlsl's cbuffer Frame"
        );
    }
    let ui_hlsl = source("src/render/d3d11/ui.hlsl");
    assert_eq!(
        members(braced_after(&ui_hlsl, "cbuffer Frame")),
        hlsl_members,
        "ui.hlsl's cbuffer Frame and terrain.hlsl's"
    );
    // ui.vert reads only the start of the block.
    let ui_vert = members(braced_after(&source("shaders/ui.vert"), "uniform Frame"));
    assert_eq!(
        ui_vert[..],
        hlsl_members[..ui_vert.len()],
        "shaders/ui.vert"
    );
}

#[test]
fn the_vertex_shaders_use_the_same_numbers() {
    let glsl = source("shaders/terrain.vert");
    let hlsl = source("src/render/d3d11/terrain.hlsl");
    for (glsl_function, hlsl_function) in [
        ("float height_at(", "float height_at("),
        ("void main()", "VertexOutput vertex_main("),
    ] {
        let glsl_numbers = float_literals(&code(braced_after(&glsl, glsl_function)));
        let hlsl_numbers = float_literals(&code(braced_after(&hlsl, hlsl_function)));
        assert_eq!(
            glsl_numbers, hlsl_numbers,
            "{glsl_function} / {hlsl_function}"
        );
    }
}

#[test]
fn the_fragment_and_pixel_shaders_use_the_same_colors_palette_contours_and_light() {
    let glsl = source("shaders/terrain.frag");
    let hlsl = source("src/render/d3d11/terrain.hlsl");
    for (glsl_function, hlsl_function) in [
        ("vec3 srgb_to_linear(", "float3 srgb_to_linear("),
        ("vec4 near_faded(", "float4 near_faded("),
        ("float mark_cover(", "float mark_cover("),
        ("vec3 land_color(", "float3 land_color("),
        ("float contour_cover(", "float contour_cover("),
        ("void main()", "float4 pixel_main("),
    ] {
        let glsl_numbers = float_literals(&code(braced_after(&glsl, glsl_function)));
        let hlsl_numbers = float_literals(&code(braced_after(&hlsl, hlsl_function)));
        assert!(glsl_numbers.len() >= 3, "{glsl_function}: {glsl_numbers:?}");
        assert_eq!(
            glsl_numbers, hlsl_numbers,
            "{glsl_function} / {hlsl_function}"
        );
    }
}

#[test]
fn the_controls_shaders_use_the_same_numbers_and_atlas_width() {
    let glsl = source("shaders/ui.frag");
    let hlsl = source("src/render/d3d11/ui.hlsl");
    for (glsl_function, hlsl_function) in [
        ("float texel(", "float texel("),
        ("float glyph_coverage(", "float glyph_coverage("),
        ("void main()", "float4 pixel_main("),
    ] {
        let glsl_numbers = float_literals(&code(braced_after(&glsl, glsl_function)));
        let hlsl_numbers = float_literals(&code(braced_after(&hlsl, hlsl_function)));
        assert!(
            !glsl_numbers.is_empty(),
            "{glsl_function}: {glsl_numbers:?}"
        );
        assert_eq!(
            glsl_numbers, hlsl_numbers,
            "{glsl_function} / {hlsl_function}"
        );
    }
    // Both index the atlas with render::ui's width.
    let width = format!(
        "int ATLAS_WIDTH = {};",
        holoterrain::render::ui::ATLAS_WIDTH
    );
    assert!(glsl.contains(&width), "shaders/ui.frag: {width}");
    assert!(hlsl.contains(&width), "ui.hlsl: {width}");
}

#[test]
fn the_literal_scanner_finds_decimals_and_skips_names_and_integers() {
    assert_eq!(
        float_literals("mix(vec3(0.82, 1e-6), x2, 12.92) + a[1] + 2u - 0.5"),
        ["0.82", "1e-6", "12.92", "0.5"]
    );
}
