// Terrain vertex shader: displaces the static grid by the streamed heights and
// derives the normal from neighbouring heights; one pass renders both eyes.
#version 450
#extension GL_EXT_multiview : require

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_projection[2];
    mat4 model;
    vec4 light_dir;
    // sand→grass, grass→rock, rock→snow heights, blend width (terrain units).
    vec4 bands;
    // Grid width and height in samples.
    uvec4 grid;
} frame;

layout(set = 0, binding = 1) readonly buffer Heights {
    float heights[];
};

layout(location = 0) in vec2 in_position_xz;
layout(location = 1) in vec2 in_uv;

layout(location = 0) out vec3 out_normal;
layout(location = 1) out float out_height;

float height_at(int col, int row) {
    int width = int(frame.grid.x);
    int clamped_col = clamp(col, 0, width - 1);
    int clamped_row = clamp(row, 0, int(frame.grid.y) - 1);
    return heights[clamped_row * width + clamped_col];
}

void main() {
    int width = int(frame.grid.x);
    // The grid's uv names the vertex's heightmap sample exactly.
    int col = int(round(in_uv.x * float(frame.grid.x - 1u)));
    int row = int(round(in_uv.y * float(frame.grid.y - 1u)));
    float height = height_at(col, row);

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
    mat3 linear = mat3(frame.model);
    out_normal = cross(linear * tangent_z, linear * tangent_x);
    out_height = height;

    vec4 world = frame.model * vec4(in_position_xz.x, height, in_position_xz.y, 1.0);
    gl_Position = frame.view_projection[gl_ViewIndex] * world;
}
