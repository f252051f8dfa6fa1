// Controls vertex shader: the controls layer's quads and glyphs, already in
// the reference space (render::ui lays them out on the CPU), seen by each
// eye; one pass renders both eyes, as the terrain's does.
#version 450
#extension GL_EXT_multiview : require

// The terrain's Frame block, of which the controls need only the start.
layout(set = 0, binding = 0) uniform Frame {
    mat4 view_projection[2];
} frame;

layout(location = 0) in vec4 in_position_kind;
layout(location = 1) in vec2 in_uv;
layout(location = 2) in vec4 in_color;

layout(location = 0) out vec2 out_uv;
layout(location = 1) out vec4 out_color;
// 0 solid, 1 ring, 2 glyph (render::ui's KIND_*).
layout(location = 2) flat out float out_kind;
// Depth along the eye's view axis, metres, for the near fade.
layout(location = 3) out float out_eye_depth;

void main() {
    // The kind's multiples of 4 say which eye a vertex is for (render::ui's
    // KIND_EYE_STEP): 0 both, 1 the left, 2 the right. The other eye's copy
    // of a clipped quad collapses to a point inside the view: no area to
    // draw, and nothing for the GPU to clip.
    int packed = int(round(in_position_kind.w));
    int only = packed / 4;
    if (only != 0 && only - 1 != int(gl_ViewIndex)) {
        gl_Position = vec4(0.0, 0.0, 0.5, 1.0);
    } else {
        gl_Position = frame.view_projection[gl_ViewIndex] * vec4(in_position_kind.xyz, 1.0);
    }
    out_uv = in_uv;
    out_color = in_color;
    out_kind = float(packed - 4 * only);
    // The perspective projection's w is the depth along the view axis.
    out_eye_depth = gl_Position.w;
}
