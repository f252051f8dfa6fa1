// Diorama shaders for Direct3D 11 (shader model 5.0): the HLSL twin of
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
    // The elevation palette's stops: linear colour, and in w the height
    // (terrain units) where each takes over from the one below.
    float4 palette_color[6];
    // Per stop: the flatnesses over which the cliff colour gives way to it.
    float4 palette_clings[6];
    // The cliff's linear colour, and half the blend between stops (w).
    float4 palette_cliff;
    // Stops used, contour interval (terrain units; 0: none), every how
    // many lines one is bold, unused.
    float4 contours;
    // Grid width and height in samples.
    uint4 grid;
    // Base underside, sea level, ripple time (s), water present (0 or 1).
    float4 surface;
    // Ambient facing down, ambient facing up, brightness floor.
    float4 look;
    // Stroke points, cursor present (0 or 1), cursor u and v.
    float4 marks;
    // Stroke points in uv, two to an element.
    float4 stroke[32];
    // Near fade: where it starts and ends (view depth, m), by alpha (1) or darkening (0).
    float4 fade;
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
    float2 outward : OUTWARD;
    float kind : KIND;
    uint instance : SV_InstanceID;
};

struct VertexOutput
{
    float4 position : SV_Position;
    float3 normal : NORMAL;
    // The height in x of a register of its own: packed beside another
    // value, Wine's translation took its screen-space derivative as NaN
    // (the contours then blackened the land).
    float4 height : HEIGHT;
    float2 uv : TEXCOORD;
    // 0 land, 1 side, 2 underside, 3 water, 4 water side.
    nointerpolation float surface_kind : SURFACE;
    // Depth along the eye's view axis, metres, for the near fade (in x).
    // A register of its own: packed beside another element, Wine's
    // translation of the terrain's shaders read the land's colour wrong.
    float4 eye_depth : EYEDEPTH;
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
    // The mesh's uv names the vertex's heightmap sample exactly.
    int col = int(round(input.uv.x * float(grid.x - 1u)));
    int row = int(round(input.uv.y * float(grid.y - 1u)));
    float land = height_at(col, row);
    int kind = int(round(input.kind));
    float3x3 linear_part = (float3x3)model;
    // The model matrix's second column (model[1] indexes a row in HLSL).
    float3 model_up = model._m01_m11_m21;

    float height = land;
    float3 normal = mul(linear_part, float3(input.outward.x, 0.0, input.outward.y));
    float surface_kind = 1.0;
    if (kind == 0) {
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
        normal = cross(mul(linear_part, tangent_z), mul(linear_part, tangent_x));
        surface_kind = 0.0;
    } else if (kind == 2) {
        height = surface.x;
    } else if (kind == 3) {
        height = surface.x;
        normal = -model_up;
        surface_kind = 2.0;
    } else if (kind == 4) {
        height = surface.y;
        normal = model_up;
        surface_kind = 3.0;
    } else if (kind == 5) {
        height = max(land, surface.y);
        surface_kind = 4.0;
    } else if (kind == 6) {
        surface_kind = 4.0;
    }

    uint eye = first_eye.x + input.instance;
    VertexOutput output;
    output.normal = normal;
    output.height = height.xxxx;
    output.uv = input.uv;
    output.surface_kind = surface_kind;
    float4 world = mul(model, float4(input.position_xz.x, height, input.position_xz.y, 1.0));
    output.position = mul(view_projection[eye], world);
    // The perspective projection's w is the depth along the view axis.
    output.eye_depth = output.position.wwww;
#ifdef VIEW_FROM_INSTANCE
    output.layer = eye;
#endif
    return output;
}

float3 srgb_to_linear(float3 srgb)
{
    return lerp(srgb / 12.92, pow((srgb + 0.055) / 1.055, 2.4), step(0.04045, srgb));
}

// `color` (linear) with `alpha`, faded near the eye at `eye_depth`: all
// shown from fade.x out, nothing at fade.y (the near plane). An additive
// display sees through black, so there the colour darkens; elsewhere the
// alpha falls (fade.z), and the colour with it where nothing is `blended`
// under it, as blending over nothing leaves it. The target is sRGB: the
// hardware encodes.
float4 near_faded(float3 color, float alpha, bool blended, float eye_depth)
{
    float shown = clamp((eye_depth - fade.y) / max(fade.x - fade.y, 1e-6), 0.0, 1.0);
    bool by_alpha = fade.z > 0.5;
    float3 faded = (by_alpha && blended) ? color : color * shown;
    return float4(faded, by_alpha ? alpha * shown : alpha);
}

float2 stroke_point(int index)
{
    float4 pair = stroke[index / 2];
    return (index % 2 == 0) ? pair.xy : pair.zw;
}

// How much of a mark covers this point: 1 on the stroke or the ring, 0
// away from them, soft over about a pixel.
float mark_cover(float2 uv)
{
    float pixel = max(length(fwidth(uv)), 1e-5);
    float cover = 0.0;
    int count = int(marks.x);
    [loop]
    for (int index = 0; index < count; index++) {
        float2 a = stroke_point(index);
        float2 b = stroke_point(min(index + 1, count - 1));
        float2 ab = b - a;
        float along = clamp(dot(uv - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
        float distance_to = length(uv - (a + ab * along));
        // 3 mm wide at 1x: 0.006 of the 0.5 m side.
        cover = max(cover, 1.0 - smoothstep(0.003 - pixel, 0.003 + pixel, distance_to));
    }
    if (marks.y > 0.5) {
        // A ring 1 cm across (radius 0.01 of the side), 2 mm thick.
        float off_ring = abs(length(uv - marks.zw) - 0.01);
        cover = max(cover, 1.0 - smoothstep(0.002 - pixel, 0.002 + pixel, off_ring));
    }
    return cover;
}

// Land within this height above the sea is sand (render::palette::BEACH_HEIGHT).
static const float BEACH_HEIGHT = 0.006;

// The palette's colour `index` at `flatness`: the cliff's on slopes it does not cling to.
float3 on_slope(int index, float3 cliff, float flatness)
{
    float2 clings = palette_clings[index].xy;
    return lerp(cliff, palette_color[index].rgb, smoothstep(clings.x, clings.y, flatness));
}

// The land's colour at `height` (render::palette::terrain_color).
float3 land_color(float height, float flatness, float3 sand)
{
    float3 cliff = palette_cliff.rgb;
    float half_blend = max(palette_cliff.w, 1e-6);
    float3 color = on_slope(0, cliff, flatness);
    int count = int(contours.x);
    // Unrolled to constant indices: Wine's HLSL compiler read the palette
    // as zeros when a loop indexed it (the land drew black).
    [unroll]
    for (int index = 1; index < 6; index++) {
        if (index < count) {
            float from = palette_color[index].w;
            float above = smoothstep(from - half_blend, from + half_blend, height);
            color = lerp(color, on_slope(index, cliff, flatness), above);
        }
    }
    if (surface.w > 0.5) {
        float sea = surface.y;
        float beach = 1.0 - smoothstep(sea + BEACH_HEIGHT, sea + BEACH_HEIGHT + half_blend, height);
        color = lerp(color, sand, beach);
    }
    return color;
}

// How much a contour line covers this point: a line every interval of
// height, every few a bolder one, about a pixel wide whatever the size,
// faded out where lines crowd closer than a few pixels (they would only
// alias) and on level ground.
float contour_cover(float height)
{
    // No early return and no branch: the derivative is taken where every
    // pixel of a quad runs, and contours off only zero the result.
    float interval = max(contours.y, 1e-6);
    float lines = height / interval;
    float pixel = max(fwidth(lines), 1e-6);
    float nearest = floor(lines + 0.5);
    float off = abs(lines - nearest) / pixel;
    float bold_every = contours.z;
    float bold = 1.0 - step(0.5, nearest - bold_every * floor(nearest / bold_every));
    float half_width = lerp(0.5, 1.0, bold);
    float crowding = pixel / lerp(1.0, bold_every, bold);
    float cover = 1.0 - smoothstep(half_width - 0.5, half_width + 0.5, off);
    // Level ground exactly at a line's height (a mesa's top, a plain at
    // zero) is not a line: only where the height changes is there one.
    float sloped = smoothstep(0.0001, 0.001, pixel);
    float drawn = step(1e-6, contours.y);
    return drawn * cover * sloped * (1.0 - smoothstep(0.15, 0.35, crowding)) * lerp(0.5, 0.75, bold);
}

// The target is always an sRGB format, so the hardware encodes the output.
float4 pixel_main(VertexOutput input) : SV_Target
{
    float3 sand = srgb_to_linear(float3(0.82, 0.74, 0.50));
    float3 water = srgb_to_linear(float3(0.05, 0.3, 0.9));
    // Cyan: it stands out on sand, grass, rock and snow alike, and is
    // bright on an additive display.
    float3 mark = srgb_to_linear(float3(0.45, 1.0, 1.0));

    // Derivatives before any branch, where every fragment of a quad runs.
    float contour = contour_cover(input.height.x);
    float3 normal = normalize(input.normal);
    // The model matrix's second column (model[1] indexes a row in HLSL).
    float3 terrain_up = normalize(model._m01_m11_m21);
    int surface_kind = int(round(input.surface_kind));
    float3 to_light = normalize(light_dir.xyz);

    if (surface_kind >= 3) {
        // Water: a gentle ripple of two slow waves, repeating every 60 s, tilts the normal.
        float2 phase = input.uv * float2(37.0, 29.0) + surface.z * float2(0.7330383, -0.5235988);
        float3 tilt = normalize(model._m00_m10_m20) * sin(phase.x) + normalize(model._m02_m12_m22) * sin(phase.y);
        float3 wavy = normalize(normal + 0.12 * tilt);
        float lit_water = 0.55 + 0.45 * max(dot(wavy, to_light), 0.0);
        float3 water_color = water * lit_water;
        float alpha = surface_kind == 3 ? 0.7 : 0.8;
        return near_faded(water_color, alpha, true, input.eye_depth.x);
    }

    float flatness = abs(dot(normal, terrain_up));
    if (surface_kind != 0) {
        // The sides and underside take the colour the land would have at their height, level.
        flatness = 1.0;
    }
    float3 color = land_color(input.height.x, flatness, sand);
    if (surface_kind == 0) {
        // Lines darken the land: on an additive display they read as see-through.
        color *= 1.0 - contour;
    }

    // The floor keeps a share of the palette's colour however a surface faces the light.
    float3 floor_color = color * look.z;
    float strata = 1.0;
    if (surface_kind == 1) {
        // Cut earth: darker than the land, in layers a little over a
        // contour interval thick but at least a third of the base's depth,
        // faded where a layer would be thinner than a few pixels (fine
        // stripes only alias).
        color *= 0.7;
        float thickness = max(0.012, abs(surface.x) / 3.0);
        float layer = frac(input.height.x / thickness);
        float resolved = 1.0 - smoothstep(0.1, 0.3, fwidth(input.height.x) / thickness);
        strata = 1.0 - 0.15 * resolved * (1.0 - smoothstep(0.35, 0.5, abs(layer - 0.5)));
    } else if (surface_kind == 2) {
        color = palette_cliff.rgb * 0.4;
        floor_color = color * look.z;
    }

    float diffuse = max(dot(normal, to_light), 0.0);
    // Sky light from above, dimmer from below, so shadowed slopes keep their colour.
    float ambient = lerp(look.x, look.y, dot(normal, terrain_up) * 0.5 + 0.5);
    float3 lit = max(color * (ambient + 0.8 * diffuse), floor_color) * strata;
    if (surface_kind == 0) {
        lit = lerp(lit, mark, mark_cover(input.uv));
    }

    return near_faded(lit, 1.0, false, input.eye_depth.x);
}
