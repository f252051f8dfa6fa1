// Terrain shaders for Direct3D 11 (shader model 5.0): the HLSL twin of
// shaders/terrain.vert and shaders/terrain.frag, written by hand because the
// Vulkan vertex shader takes its eye from multiview (gl_ViewIndex), which
// shader model 5 has no counterpart for. tests/d3d11_shaders.rs checks that
// both use the same constants and uniform layout; the Wine test checks that
// both draw the same images.
//
// The eye: each draw's first eye comes from `Eye`, and each instance adds
// one. Drawing one eye per pass (1 instance, layer chosen by the render
// target view) needs nothing more; with VIEW_FROM_INSTANCE defined (devices
// whose vertex shader may choose the render-target array layer, such as
// HoloLens 2) one draw of 2 instances writes both layers.

cbuffer Frame : register(b0)
{
    // Projection × view, left then right eye, in Direct3D clip space.
    float4x4 view_projection[2];
    float4x4 model;
    float4 light_dir;
    // sand→grass, grass→rock, rock→snow heights, blend width (terrain units).
    float4 bands;
    // Grid width and height in samples.
    uint4 grid;
};

cbuffer Eye : register(b1)
{
    // x: the eye of instance 0.
    uint4 first_eye;
};

// A typed buffer, not a StructuredBuffer: Wine's HLSL compiler knows only the former.
Buffer<float> heights : register(t0);

struct VertexInput
{
    float2 position_xz : POSITION;
    float2 uv : TEXCOORD;
    uint instance : SV_InstanceID;
};

struct VertexOutput
{
    float4 position : SV_Position;
    float3 normal : NORMAL;
    float height : HEIGHT;
#ifdef VIEW_FROM_INSTANCE
    uint layer : SV_RenderTargetArrayIndex;
#endif
};

float height_at(int col, int row)
{
    int width = int(grid.x);
    int clamped_col = clamp(col, 0, width - 1);
    int clamped_row = clamp(row, 0, int(grid.y) - 1);
    return heights[clamped_row * width + clamped_col];
}

VertexOutput vertex_main(VertexInput input)
{
    int width = int(grid.x);
    // The grid's uv names the vertex's heightmap sample exactly.
    int col = int(round(input.uv.x * float(grid.x - 1u)));
    int row = int(round(input.uv.y * float(grid.y - 1u)));
    float height = height_at(col, row);

    // Central differences (one-sided at the border) give model-space
    // tangents; transforming tangents by the model matrix and crossing them
    // keeps the normal right under the model's non-uniform scale.
    int left = max(col - 1, 0);
    int right = min(col + 1, width - 1);
    int up = max(row - 1, 0);
    int down = min(row + 1, int(grid.y) - 1);
    float2 cell = 1.0 / float2(grid.xy - 1u);
    float3 tangent_x = float3(float(right - left) * cell.x, height_at(right, row) - height_at(left, row), 0.0);
    float3 tangent_z = float3(0.0, height_at(col, down) - height_at(col, up), float(down - up) * cell.y);
    float3x3 linear_part = (float3x3)model;

    uint eye = first_eye.x + input.instance;
    VertexOutput output;
    output.normal = cross(mul(linear_part, tangent_z), mul(linear_part, tangent_x));
    output.height = height;
    float4 world = mul(model, float4(input.position_xz.x, height, input.position_xz.y, 1.0));
    output.position = mul(view_projection[eye], world);
#ifdef VIEW_FROM_INSTANCE
    output.layer = eye;
#endif
    return output;
}

float3 srgb_to_linear(float3 srgb)
{
    return lerp(srgb / 12.92, pow((srgb + 0.055) / 1.055, 2.4), step(0.04045, srgb));
}

// The target is always an sRGB format, so the hardware encodes the output.
float4 pixel_main(VertexOutput input) : SV_Target
{
    float3 sand = srgb_to_linear(float3(0.82, 0.74, 0.50));
    float3 grass = srgb_to_linear(float3(0.33, 0.55, 0.22));
    float3 rock = srgb_to_linear(float3(0.50, 0.45, 0.40));
    float3 snow = srgb_to_linear(float3(0.95, 0.96, 1.0));

    float3 normal = normalize(input.normal);
    // The model matrix's second column (model[1] indexes a row in HLSL).
    float3 terrain_up = normalize(model._m01_m11_m21);
    float flatness = abs(dot(normal, terrain_up));
    // Grass does not hold on steep slopes, snow even less: both give way to rock.
    float3 grass_or_rock = lerp(rock, grass, smoothstep(0.45, 0.65, flatness));
    float3 snow_or_rock = lerp(rock, snow, smoothstep(0.6, 0.75, flatness));

    float half_blend = max(bands.w * 0.5, 1e-6);
    float3 color = sand;
    color = lerp(color, grass_or_rock, smoothstep(bands.x - half_blend, bands.x + half_blend, input.height));
    color = lerp(color, rock, smoothstep(bands.y - half_blend, bands.y + half_blend, input.height));
    color = lerp(color, snow_or_rock, smoothstep(bands.z - half_blend, bands.z + half_blend, input.height));

    float3 to_light = normalize(light_dir.xyz);
    float diffuse = max(dot(normal, to_light), 0.0);
    // Sky light from above, dimmer from below, so shadowed slopes keep their colour.
    float ambient = lerp(0.1, 0.25, dot(normal, terrain_up) * 0.5 + 0.5);
    float3 lit = color * (ambient + 0.8 * diffuse);

    return float4(lit, 1.0);
}
