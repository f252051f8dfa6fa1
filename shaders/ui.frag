// Controls fragment shader: a solid quad's colour, a ring (radii 2/3 to 1 of
// the quad, edges smoothed over a pixel), or a glyph's coverage read from the
// atlas with bilinear filtering done here, so that every backend filters
// alike; blended over the terrain with the colour's opacity, faded near the
// eye as the terrain is.
#version 450

layout(constant_id = 0) const bool ENCODE_SRGB = false;

// The terrain's Frame block, of which the controls read the near fade.
layout(set = 0, binding = 0) uniform Frame {
    mat4 view_projection[2];
    mat4 model;
    vec4 light_dir;
    vec4 palette_color[6];
    vec4 palette_clings[6];
    vec4 palette_cliff;
    vec4 contours;
    uvec4 grid;
    vec4 surface;
    vec4 look;
    vec4 marks;
    vec4 stroke[32];
    vec4 fade;
} frame;

// render::ui::ATLAS_WIDTH.
const int ATLAS_WIDTH = 1024;

// One coverage byte per texel, four to a word, little-endian.
layout(set = 0, binding = 1) readonly buffer Atlas {
    uint texels[];
} atlas;

layout(location = 0) in vec2 in_uv;
layout(location = 1) in vec4 in_color;
layout(location = 2) flat in float in_kind;
layout(location = 3) in float in_eye_depth;

layout(location = 0) out vec4 out_color;

vec3 linear_to_srgb(vec3 linear) {
    return mix(linear * 12.92, 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, linear));
}

float texel(ivec2 at) {
    int index = at.y * ATLAS_WIDTH + at.x;
    uint word = atlas.texels[index >> 2];
    return float((word >> (8u * uint(index & 3))) & 0xffu) / 255.0;
}

// Coverage at `uv` (texels; texel centres at half-integers).
float glyph_coverage(vec2 uv) {
    vec2 at = uv - 0.5;
    vec2 base = floor(at);
    vec2 f = at - base;
    ivec2 corner = ivec2(base);
    float bottom = mix(texel(corner), texel(corner + ivec2(1, 0)), f.x);
    float top = mix(texel(corner + ivec2(0, 1)), texel(corner + ivec2(1, 1)), f.x);
    return mix(bottom, top, f.y);
}

void main() {
    int kind = int(round(in_kind));
    // Derivatives outside the branches, where every fragment of a quad runs.
    float radius = length(in_uv);
    float pixel = max(fwidth(radius), 1e-4);
    float cover = 1.0;
    if (kind == 1) {
        cover = clamp((1.0 - radius) / pixel + 0.5, 0.0, 1.0)
            * clamp((radius - 2.0 / 3.0) / pixel + 0.5, 0.0, 1.0);
    } else if (kind == 2) {
        cover = glyph_coverage(in_uv);
    }
    // Faded near the eye as terrain.frag's near_faded does, always blended.
    float shown = clamp((in_eye_depth - frame.fade.y) / max(frame.fade.x - frame.fade.y, 1e-6), 0.0, 1.0);
    bool by_alpha = frame.fade.z > 0.5;
    float alpha = in_color.a * cover * (by_alpha ? shown : 1.0);
    // What would store no alpha is not drawn, and so writes no depth.
    if (alpha < 1.0 / 255.0) {
        discard;
    }
    vec3 color = by_alpha ? in_color.rgb : in_color.rgb * shown;
    out_color = vec4(ENCODE_SRGB ? linear_to_srgb(color) : color, alpha);
}
