// Diorama vertex shader: places the static mesh by the streamed heights (land
// at its sample, the base's sides from the edge down to the underside, the
// water at the sea level), with normals; one pass renders both eyes.
#version 450
#extension GL_EXT_multiview : require

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_projection[2];
    mat4 model;
    vec4 light_dir;
    // The elevation palette's stops (linear colour, height where each takes
    // over), how each gives way on slopes, the cliff colour and half blend.
    vec4 palette_color[6];
    vec4 palette_clings[6];
    vec4 palette_cliff;
    // Stops used, contour interval (terrain units; 0: none), bold every n-th, unused.
    vec4 contours;
    // Grid width and height in samples.
    uvec4 grid;
    // Base underside, sea level, ripple time (s), water present (0 or 1).
    vec4 surface;
    // Ambient facing down, ambient facing up, brightness floor.
    vec4 look;
    // Stroke points, cursor present (0 or 1), cursor u and v.
    vec4 marks;
    // Stroke points in uv, two to an element.
    vec4 stroke[32];
    // Near fade: where it starts and ends (view depth, m), by alpha (1) or darkening (0).
    vec4 fade;
} frame;

layout(set = 0, binding = 1) readonly buffer Heights {
    float heights[];
};

layout(location = 0) in vec2 in_position_xz;
layout(location = 1) in vec2 in_uv;
layout(location = 2) in vec2 in_outward;
layout(location = 3) in float in_kind;

layout(location = 0) out vec3 out_normal;
layout(location = 1) out float out_height;
layout(location = 2) out vec2 out_uv;
// 0 land, 1 side, 2 underside, 3 water, 4 water side.
layout(location = 3) flat out float out_surface;
// Depth along the eye's view axis, metres, for the near fade.
layout(location = 4) out float out_eye_depth;

float height_at(int col, int row) {
    int width = int(frame.grid.x);
    int clamped_col = clamp(col, 0, width - 1);
    int clamped_row = clamp(row, 0, int(frame.grid.y) - 1);
    return heights[clamped_row * width + clamped_col];
}

void main() {
    int width = int(frame.grid.x);
    // The mesh's uv names the vertex's heightmap sample exactly.
    int col = int(round(in_uv.x * float(frame.grid.x - 1u)));
    int row = int(round(in_uv.y * float(frame.grid.y - 1u)));
    float land = height_at(col, row);
    int kind = int(round(in_kind));
    mat3 linear = mat3(frame.model);

    float height = land;
    vec3 normal = linear * vec3(in_outward.x, 0.0, in_outward.y);
    float surface = 1.0;
    if (kind == 0) {
        // Central differences (one-sided at the border) give model-space
        // tangents; transforming tangents by the model matrix and crossing them
        // keeps the normal right under the model's non-uniform scale.
        int left = max(col - 1, 0);
        int right = min(col + 1, width - 1);
        int up = max(row - 1, 0);
        int down = min(row + 1, int(frame.grid.y) - 1);
        vec2 cell = 1.0 / vec2(frame.grid.xy - 1u);
        vec3 tangent_x = vec3(float(right - left) * cell.x, height_at(right, row) - height_at(left, row), 0.0);
        vec3 tangent_z = vec3(0.0, height_at(col, down) - height_at(col, up), float(down - up) * cell.y);
        normal = cross(linear * tangent_z, linear * tangent_x);
        surface = 0.0;
    } else if (kind == 2) {
        height = frame.surface.x;
    } else if (kind == 3) {
        height = frame.surface.x;
        normal = -linear[1];
        surface = 2.0;
    } else if (kind == 4) {
        height = frame.surface.y;
        normal = linear[1];
        surface = 3.0;
    } else if (kind == 5) {
        height = max(land, frame.surface.y);
        surface = 4.0;
    } else if (kind == 6) {
        surface = 4.0;
    }
    out_normal = normal;
    out_height = height;
    out_uv = in_uv;
    out_surface = surface;

    vec4 world = frame.model * vec4(in_position_xz.x, height, in_position_xz.y, 1.0);
    gl_Position = frame.view_projection[gl_ViewIndex] * world;
    // The perspective projection's w is the depth along the view axis.
    out_eye_depth = gl_Position.w;
}
