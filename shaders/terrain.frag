// Terrain fragment shader: colour by height and slope bands (sand, grass,
// rock, snow, blended smoothly as in texture splatting) under a directional light.
#version 450

layout(constant_id = 0) const bool ENCODE_SRGB = false;

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_projection[2];
    mat4 model;
    vec4 light_dir;
    vec4 bands;
    uvec4 grid;
} frame;

layout(location = 0) in vec3 in_normal;
layout(location = 1) in float in_height;

layout(location = 0) out vec4 out_color;

vec3 srgb_to_linear(vec3 srgb) {
    return mix(srgb / 12.92, pow((srgb + 0.055) / 1.055, vec3(2.4)), step(0.04045, srgb));
}

vec3 linear_to_srgb(vec3 linear) {
    return mix(linear * 12.92, 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, linear));
}

void main() {
    vec3 sand = srgb_to_linear(vec3(0.82, 0.74, 0.50));
    vec3 grass = srgb_to_linear(vec3(0.33, 0.55, 0.22));
    vec3 rock = srgb_to_linear(vec3(0.50, 0.45, 0.40));
    vec3 snow = srgb_to_linear(vec3(0.95, 0.96, 1.0));

    vec3 normal = normalize(in_normal);
    vec3 terrain_up = normalize(frame.model[1].xyz);
    float flatness = abs(dot(normal, terrain_up));
    // Grass does not hold on steep slopes, snow even less: both give way to rock.
    vec3 grass_or_rock = mix(rock, grass, smoothstep(0.45, 0.65, flatness));
    vec3 snow_or_rock = mix(rock, snow, smoothstep(0.6, 0.75, flatness));

    float half_blend = max(frame.bands.w * 0.5, 1e-6);
    vec3 color = sand;
    color = mix(color, grass_or_rock, smoothstep(frame.bands.x - half_blend, frame.bands.x + half_blend, in_height));
    color = mix(color, rock, smoothstep(frame.bands.y - half_blend, frame.bands.y + half_blend, in_height));
    color = mix(color, snow_or_rock, smoothstep(frame.bands.z - half_blend, frame.bands.z + half_blend, in_height));

    vec3 to_light = normalize(frame.light_dir.xyz);
    float diffuse = max(dot(normal, to_light), 0.0);
    // Sky light from above, dimmer from below, so shadowed slopes keep their colour.
    float ambient = mix(0.1, 0.25, dot(normal, terrain_up) * 0.5 + 0.5);
    vec3 lit = color * (ambient + 0.8 * diffuse);

    out_color = vec4(ENCODE_SRGB ? linear_to_srgb(lit) : lit, 1.0);
}
