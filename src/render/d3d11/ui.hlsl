// Controls shaders for Direct3D 11 (shader model 5.0): the HLSL twin of
// shaders/ui.vert and shaders/ui.frag. The quads and glyphs come laid out in
// the reference space (render::ui); the eye comes from `Eye` and the
// instance, as in terrain.hlsl (VIEW_FROM_INSTANCE: one draw, both layers).

// The terrain's Frame buffer, of which the controls read the eyes and the
// near fade.
cbuffer Frame : register(b0)
{
    // Projection × view, left then right eye, in Direct3D clip space.
    float4x4 view_projection[2];
    float4x4 model;
    float4 light_dir;
    float4 palette_color[6];
    float4 palette_clings[6];
    float4 palette_cliff;
    float4 contours;
    uint4 grid;
    float4 surface;
    float4 look;
    float4 marks;
    float4 stroke[32];
    // Near fade: where it starts and ends (view depth, m), by alpha (1) or darkening (0).
    float4 fade;
};

cbuffer Eye : register(b1)
{
    // x: the eye of instance 0.
    uint4 first_eye;
};

// render::ui::ATLAS_WIDTH.
static const int ATLAS_WIDTH = 1024;

// One coverage byte per texel, four to a word, little-endian. A typed
// buffer, as for the terrain's heights: Wine's HLSL compiler knows only those.
Buffer<uint> atlas : register(t0);

struct VertexInput
{
    float4 position_kind : POSITION;
    float2 uv : TEXCOORD;
    float4 color : COLOR;
    uint instance : SV_InstanceID;
};

struct VertexOutput
{
    float4 position : SV_Position;
    float2 uv : TEXCOORD;
    float4 color : COLOR;
    // 0 solid, 1 ring, 2 glyph (render::ui's KIND_*).
    nointerpolation float kind : KIND;
    // Depth along the eye's view axis, metres, for the near fade (in x);
    // a register of its own, as in terrain.hlsl.
    float4 eye_depth : EYEDEPTH;
#ifdef VIEW_FROM_INSTANCE
    uint layer : SV_RenderTargetArrayIndex;
#endif
};

VertexOutput vertex_main(VertexInput input)
{
    uint eye = first_eye.x + input.instance;
    VertexOutput output;
    // The kind's multiples of 4 say which eye a vertex is for (render::ui's
    // KIND_EYE_STEP): 0 both, 1 the left, 2 the right. The other eye's copy
    // of a clipped quad goes outside every view, whole.
    int packed = int(round(input.position_kind.w));
    int only = packed / 4;
    if (only != 0 && only - 1 != (int)eye) {
        output.position = float4(2.0, 2.0, 2.0, 1.0);
    } else {
        output.position = mul(view_projection[eye], float4(input.position_kind.xyz, 1.0));
    }
    output.uv = input.uv;
    output.color = input.color;
    output.kind = float(packed - 4 * only);
    // The perspective projection's w is the depth along the view axis.
    output.eye_depth = output.position.wwww;
#ifdef VIEW_FROM_INSTANCE
    output.layer = eye;
#endif
    return output;
}

float texel(int2 at)
{
    int index = at.y * ATLAS_WIDTH + at.x;
    uint word = atlas[index >> 2];
    return float((word >> (8u * uint(index & 3))) & 0xffu) / 255.0;
}

// Coverage at `uv` (texels; texel centres at half-integers).
float glyph_coverage(float2 uv)
{
    float2 at = uv - 0.5;
    float2 base = floor(at);
    float2 f = at - base;
    int2 corner = int2(base);
    float bottom = lerp(texel(corner), texel(corner + int2(1, 0)), f.x);
    float top = lerp(texel(corner + int2(0, 1)), texel(corner + int2(1, 1)), f.x);
    return lerp(bottom, top, f.y);
}

float4 pixel_main(VertexOutput input) : SV_Target
{
    int kind = int(round(input.kind));
    // Derivatives outside the branches, where every pixel of a quad runs.
    float radius = length(input.uv);
    float pixel = max(fwidth(radius), 1e-4);
    float cover = 1.0;
    if (kind == 1) {
        cover = clamp((1.0 - radius) / pixel + 0.5, 0.0, 1.0)
            * clamp((radius - 2.0 / 3.0) / pixel + 0.5, 0.0, 1.0);
    } else if (kind == 2) {
        cover = glyph_coverage(input.uv);
    }
    // Faded near the eye as terrain.hlsl's near_faded does, always blended.
    float shown = clamp((input.eye_depth.x - fade.y) / max(fade.x - fade.y, 1e-6), 0.0, 1.0);
    bool by_alpha = fade.z > 0.5;
    float alpha = input.color.a * cover * (by_alpha ? shown : 1.0);
    // What would store no alpha is not drawn, and so writes no depth.
    if (alpha < 1.0 / 255.0) {
        discard;
    }
    float3 color = by_alpha ? input.color.rgb : input.color.rgb * shown;
    // The target is sRGB: the hardware encodes.
    return float4(color, alpha);
}
