// Diorama fragment shader: the land coloured by the elevation palette (fixed
// colours by height, blended smoothly, steep slopes giving way to the cliff
// colour, a beach above the sea) with contour lines a pixel or two wide at
// any size, the base's sides darker with the strata their heights imply,
// the water dim blue and rippling, under a directional light with the
// display's ambient and floor, and the marks (a stroke, a cursor ring)
// bright on the land.
#version 450

layout(constant_id = 0) const bool ENCODE_SRGB = false;

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_projection[2];
    mat4 model;
    vec4 light_dir;
    // The elevation palette's stops: linear colour, and in w the height
    // (terrain units) where each takes over from the one below.
    vec4 palette_color[6];
    // Per stop: the flatnesses over which the cliff colour gives way to it.
    vec4 palette_clings[6];
    // The cliff's linear colour, and half the blend between stops (w).
    vec4 palette_cliff;
    // Stops used, contour interval (terrain units; 0: none), every how
    // many lines one is bold, unused.
    vec4 contours;
    uvec4 grid;
    vec4 surface;
    vec4 look;
    vec4 marks;
    vec4 stroke[32];
    vec4 fade;
} frame;

layout(location = 0) in vec3 in_normal;
layout(location = 1) in float in_height;
layout(location = 2) in vec2 in_uv;
layout(location = 3) flat in float in_surface;
layout(location = 4) in float in_eye_depth;

layout(location = 0) out vec4 out_color;

vec3 srgb_to_linear(vec3 srgb) {
    return mix(srgb / 12.92, pow((srgb + 0.055) / 1.055, vec3(2.4)), step(0.04045, srgb));
}

vec3 linear_to_srgb(vec3 linear) {
    return mix(linear * 12.92, 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, linear));
}

// `color` (linear) with `alpha`, faded near the eye and encoded for the
// target: all shown from frame.fade.x out, nothing at frame.fade.y (the near
// plane). An additive display sees through black, so there the colour
// darkens; elsewhere the alpha falls (frame.fade.z), and the colour with it
// where nothing is `blended` under it, as blending over nothing leaves it.
vec4 near_faded(vec3 color, float alpha, bool blended) {
    float shown = clamp((in_eye_depth - frame.fade.y) / max(frame.fade.x - frame.fade.y, 1e-6), 0.0, 1.0);
    bool by_alpha = frame.fade.z > 0.5;
    vec3 faded = (by_alpha && blended) ? color : color * shown;
    return vec4(ENCODE_SRGB ? linear_to_srgb(faded) : faded, by_alpha ? alpha * shown : alpha);
}

vec2 stroke_point(int index) {
    vec4 pair = frame.stroke[index / 2];
    return (index % 2 == 0) ? pair.xy : pair.zw;
}

// How much of a mark covers this point: 1 on the stroke or the ring, 0
// away from them, soft over about a pixel.
float mark_cover(vec2 uv) {
    float pixel = max(length(fwidth(uv)), 1e-5);
    float cover = 0.0;
    int count = int(frame.marks.x);
    for (int index = 0; index < count; index++) {
        vec2 a = stroke_point(index);
        vec2 b = stroke_point(min(index + 1, count - 1));
        vec2 ab = b - a;
        float along = clamp(dot(uv - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
        float distance_to = length(uv - (a + ab * along));
        // 3 mm wide at 1x: 0.006 of the 0.5 m side.
        cover = max(cover, 1.0 - smoothstep(0.003 - pixel, 0.003 + pixel, distance_to));
    }
    if (frame.marks.y > 0.5) {
        // A ring 1 cm across (radius 0.01 of the side), 2 mm thick.
        float off_ring = abs(length(uv - frame.marks.zw) - 0.01);
        cover = max(cover, 1.0 - smoothstep(0.002 - pixel, 0.002 + pixel, off_ring));
    }
    return cover;
}

// Land within this height above the sea is sand (render::palette::BEACH_HEIGHT).
const float BEACH_HEIGHT = 0.006;

// The palette's colour `index` at `flatness`: the cliff's on slopes it does not cling to.
vec3 on_slope(int index, vec3 cliff, float flatness) {
    vec2 clings = frame.palette_clings[index].xy;
    return mix(cliff, frame.palette_color[index].rgb, smoothstep(clings.x, clings.y, flatness));
}

// The land's colour at this fragment's height (render::palette::terrain_color).
vec3 land_color(float flatness, vec3 sand) {
    vec3 cliff = frame.palette_cliff.rgb;
    float half_blend = max(frame.palette_cliff.w, 1e-6);
    vec3 color = on_slope(0, cliff, flatness);
    int count = int(frame.contours.x);
    for (int index = 1; index < count; index++) {
        float from = frame.palette_color[index].w;
        float above = smoothstep(from - half_blend, from + half_blend, in_height);
        color = mix(color, on_slope(index, cliff, flatness), above);
    }
    if (frame.surface.w > 0.5) {
        float sea = frame.surface.y;
        float beach = 1.0 - smoothstep(sea + BEACH_HEIGHT, sea + BEACH_HEIGHT + half_blend, in_height);
        color = mix(color, sand, beach);
    }
    return color;
}

// How much a contour line covers this point: a line every interval of
// height, every few a bolder one, about a pixel wide whatever the size,
// faded out where lines crowd closer than a few pixels (they would only
// alias) and on level ground.
float contour_cover(float height) {
    // No early return and no branch: the derivative is taken where every
    // pixel of a quad runs, and contours off only zero the result.
    float interval = max(frame.contours.y, 1e-6);
    float lines = height / interval;
    float pixel = max(fwidth(lines), 1e-6);
    float nearest = floor(lines + 0.5);
    float off = abs(lines - nearest) / pixel;
    float bold_every = frame.contours.z;
    float bold = 1.0 - step(0.5, nearest - bold_every * floor(nearest / bold_every));
    float half_width = mix(0.5, 1.0, bold);
    float crowding = pixel / mix(1.0, bold_every, bold);
    float cover = 1.0 - smoothstep(half_width - 0.5, half_width + 0.5, off);
    // Level ground exactly at a line's height (a mesa's top, a plain at
    // zero) is not a line: only where the height changes is there one.
    float sloped = smoothstep(0.0001, 0.001, pixel);
    float drawn = step(1e-6, frame.contours.y);
    return drawn * cover * sloped * (1.0 - smoothstep(0.15, 0.35, crowding)) * mix(0.5, 0.75, bold);
}

void main() {
    vec3 sand = srgb_to_linear(vec3(0.82, 0.74, 0.50));
    vec3 water = srgb_to_linear(vec3(0.05, 0.3, 0.9));
    // Cyan: it stands out on sand, grass, rock and snow alike, and is
    // bright on an additive display.
    vec3 mark = srgb_to_linear(vec3(0.45, 1.0, 1.0));

    // Derivatives before any branch, where every fragment of a quad runs.
    float contour = contour_cover(in_height);
    vec3 normal = normalize(in_normal);
    vec3 terrain_up = normalize(frame.model[1].xyz);
    int surface = int(round(in_surface));
    vec3 to_light = normalize(frame.light_dir.xyz);

    if (surface >= 3) {
        // Water: a gentle ripple of two slow waves, repeating every 60 s, tilts the normal.
        vec2 phase = in_uv * vec2(37.0, 29.0) + frame.surface.z * vec2(0.7330383, -0.5235988);
        vec3 tilt = normalize(frame.model[0].xyz) * sin(phase.x) + normalize(frame.model[2].xyz) * sin(phase.y);
        vec3 wavy = normalize(normal + 0.12 * tilt);
        float lit_water = 0.55 + 0.45 * max(dot(wavy, to_light), 0.0);
        vec3 color = water * lit_water;
        float alpha = surface == 3 ? 0.7 : 0.8;
        out_color = near_faded(color, alpha, true);
        return;
    }

    float flatness = abs(dot(normal, terrain_up));
    if (surface != 0) {
        // The sides and underside take the colour the land would have at their height, level.
        flatness = 1.0;
    }
    vec3 color = land_color(flatness, sand);
    if (surface == 0) {
        // Lines darken the land: on an additive display they read as see-through.
        color *= 1.0 - contour;
    }

    // The floor keeps a share of the palette's colour however a surface faces the light.
    vec3 floor_color = color * frame.look.z;
    float strata = 1.0;
    if (surface == 1) {
        // Cut earth: darker than the land, in layers a little over a
        // contour interval thick but at least a third of the base's depth,
        // faded where a layer would be thinner than a few pixels (fine
        // stripes only alias).
        color *= 0.7;
        float thickness = max(0.012, abs(frame.surface.x) / 3.0);
        float layer = fract(in_height / thickness);
        float resolved = 1.0 - smoothstep(0.1, 0.3, fwidth(in_height) / thickness);
        strata = 1.0 - 0.15 * resolved * (1.0 - smoothstep(0.35, 0.5, abs(layer - 0.5)));
    } else if (surface == 2) {
        color = frame.palette_cliff.rgb * 0.4;
        floor_color = color * frame.look.z;
    }

    float diffuse = max(dot(normal, to_light), 0.0);
    // Sky light from above, dimmer from below, so shadowed slopes keep their colour.
    float ambient = mix(frame.look.x, frame.look.y, dot(normal, terrain_up) * 0.5 + 0.5);
    vec3 lit = max(color * (ambient + 0.8 * diffuse), floor_color) * strata;
    if (surface == 0) {
        lit = mix(lit, mark, mark_cover(in_uv));
    }

    out_color = near_faded(lit, 1.0, false);
}
