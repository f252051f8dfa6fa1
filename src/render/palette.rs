//! The terrain's palette on the CPU: the colour the fragment shaders give a point by its height and slope, before lighting, for what is coloured without a GPU (the glb export).
//!
//! shaders/terrain.frag is the original and src/render/d3d11/terrain.hlsl
//! its twin (tests/d3d11_shaders.rs holds the two to the same numbers); the
//! tests below hold these constants to the GLSL's, so neither can change
//! alone. Sand, grass, rock and snow follow one another up the
//! [`ColorBands`], each change blended smoothly over the bands' blend
//! width; on steep slopes grass and snow give way to rock.
use glam::Vec3;

use super::scene::ColorBands;

/// Sand, sRGB-encoded as the shader writes it.
pub const SAND_SRGB: [f32; 3] = [0.82, 0.74, 0.50];
/// Grass, sRGB-encoded.
pub const GRASS_SRGB: [f32; 3] = [0.33, 0.55, 0.22];
/// Rock, sRGB-encoded.
pub const ROCK_SRGB: [f32; 3] = [0.50, 0.45, 0.40];
/// Snow, sRGB-encoded.
pub const SNOW_SRGB: [f32; 3] = [0.95, 0.96, 1.0];

/// Flatness (the cosine of the slope) over which rock turns into grass:
/// steeper than the first is all rock, flatter than the second all grass.
pub const GRASS_FLATNESS: [f32; 2] = [0.45, 0.65];
/// Flatness over which rock turns into snow, which holds on slopes even less.
pub const SNOW_FLATNESS: [f32; 2] = [0.6, 0.75];
/// The narrowest half blend: a band change of zero width (a flat map's)
/// is still a step with a middle, never a division by zero.
pub const MIN_HALF_BLEND: f32 = 1e-6;

/// sRGB's linear segment ends here (IEC 61966-2-1).
const SRGB_LINEAR_END: f32 = 0.04045;
/// The slope of sRGB's linear segment.
const SRGB_LINEAR_SLOPE: f32 = 12.92;
/// The offset of sRGB's power segment.
const SRGB_OFFSET: f32 = 0.055;
/// The exponent of sRGB's power segment.
const SRGB_GAMMA: f32 = 2.4;

/// The linear RGB colour, each channel in [0, 1] up to rounding, of a point
/// at `height` (terrain units) whose surface has `flatness`: the absolute
/// cosine between its normal and the terrain's up, 1 on level ground.
pub fn terrain_color(height: f32, flatness: f32, bands: &ColorBands) -> [f32; 3] {
    let [sand, grass, rock, snow] = [SAND_SRGB, GRASS_SRGB, ROCK_SRGB, SNOW_SRGB]
        .map(|srgb| Vec3::from(srgb.map(srgb_to_linear)));
    // Grass does not hold on steep slopes, snow even less: both give way to rock.
    let grass_or_rock = rock.lerp(
        grass,
        smoothstep(GRASS_FLATNESS[0], GRASS_FLATNESS[1], flatness),
    );
    let snow_or_rock = rock.lerp(
        snow,
        smoothstep(SNOW_FLATNESS[0], SNOW_FLATNESS[1], flatness),
    );
    let half_blend = (bands.blend * 0.5).max(MIN_HALF_BLEND);
    let above = |boundary: f32| smoothstep(boundary - half_blend, boundary + half_blend, height);
    let mut color = sand;
    color = color.lerp(grass_or_rock, above(bands.sand_to_grass));
    color = color.lerp(rock, above(bands.grass_to_rock));
    color = color.lerp(snow_or_rock, above(bands.rock_to_snow));
    color.to_array()
}

/// One sRGB-encoded channel in linear light, by the shader's formula.
pub fn srgb_to_linear(srgb: f32) -> f32 {
    if srgb < SRGB_LINEAR_END {
        srgb / SRGB_LINEAR_SLOPE
    } else {
        // libm, not the platform's powf, whose last bits vary between systems.
        libm::powf((srgb + SRGB_OFFSET) / (1.0 + SRGB_OFFSET), SRGB_GAMMA)
    }
}

/// GLSL's `smoothstep`: 0 up to `edge0`, 1 from `edge1`, a cubic between.
/// Where GLSL leaves it undefined (`edge0 >= edge1`, as when a blend
/// narrower than a float's step at large heights collapses), a step at `edge0`.
fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    if edge0 >= edge1 {
        return if x < edge0 { 0.0 } else { 1.0 };
    }
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fragment shader the palette copies.
    const FRAGMENT_SHADER: &str = include_str!("../../shaders/terrain.frag");

    /// The numbers among the comma-separated arguments that follow `call`
    /// in the fragment shader, up to the next closing parenthesis.
    fn shader_numbers_after(call: &str) -> Vec<f32> {
        let start = FRAGMENT_SHADER
            .find(call)
            .unwrap_or_else(|| panic!("`{call}` is not in shaders/terrain.frag"))
            + call.len();
        let end = start + FRAGMENT_SHADER[start..].find(')').expect("a `)` after it");
        FRAGMENT_SHADER[start..end]
            .split(',')
            .filter_map(|argument| argument.trim().parse().ok())
            .collect()
    }

    /// Bands at 1, 2 and 3 with a blend of 0.2.
    fn bands() -> ColorBands {
        ColorBands::spread_over(0.0, 4.0)
    }

    fn linear(srgb: [f32; 3]) -> [f32; 3] {
        srgb.map(srgb_to_linear)
    }

    fn assert_close(got: [f32; 3], want: [f32; 3]) {
        for (g, w) in got.into_iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{got:?} is not {want:?}");
        }
    }

    #[test]
    fn the_colours_are_the_fragment_shaders() {
        for (name, srgb) in [
            ("sand", SAND_SRGB),
            ("grass", GRASS_SRGB),
            ("rock", ROCK_SRGB),
            ("snow", SNOW_SRGB),
        ] {
            assert_eq!(
                shader_numbers_after(&format!("{name} = srgb_to_linear(vec3(")),
                srgb,
                "{name}"
            );
        }
    }

    #[test]
    fn the_slope_and_blend_thresholds_are_the_fragment_shaders() {
        assert_eq!(
            shader_numbers_after("grass_or_rock = mix(rock, grass, smoothstep("),
            GRASS_FLATNESS
        );
        assert_eq!(
            shader_numbers_after("snow_or_rock = mix(rock, snow, smoothstep("),
            SNOW_FLATNESS
        );
        assert_eq!(
            shader_numbers_after("half_blend = max(frame.bands.w * "),
            [0.5, MIN_HALF_BLEND]
        );
    }

    #[test]
    fn the_srgb_decoding_is_the_fragment_shaders() {
        let formula = format!(
            "mix(srgb / {SRGB_LINEAR_SLOPE}, pow((srgb + {SRGB_OFFSET}) / {}, vec3({SRGB_GAMMA})), step({SRGB_LINEAR_END}, srgb))",
            1.0 + SRGB_OFFSET
        );
        assert!(
            FRAGMENT_SHADER.contains(&formula),
            "shaders/terrain.frag no longer decodes sRGB as {formula}"
        );
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert!((srgb_to_linear(1.0) - 1.0).abs() < 1e-6);
        // 0.5 decodes to 0.2140 (the sRGB standard's tables).
        assert!((srgb_to_linear(0.5) - 0.214_041).abs() < 1e-6);
    }

    #[test]
    fn level_ground_goes_from_sand_through_grass_and_rock_to_snow() {
        let bands = bands();
        assert_close(terrain_color(0.5, 1.0, &bands), linear(SAND_SRGB));
        assert_close(terrain_color(1.5, 1.0, &bands), linear(GRASS_SRGB));
        assert_close(terrain_color(2.5, 1.0, &bands), linear(ROCK_SRGB));
        assert_close(terrain_color(3.5, 1.0, &bands), linear(SNOW_SRGB));
    }

    #[test]
    fn steep_slopes_are_rock_where_grass_or_snow_would_be() {
        let bands = bands();
        for height in [1.5, 3.5] {
            assert_close(terrain_color(height, 0.3, &bands), linear(ROCK_SRGB));
        }
        // Sand does not give way.
        assert_close(terrain_color(0.5, 0.3, &bands), linear(SAND_SRGB));
    }

    #[test]
    fn a_band_boundary_is_half_way_between_its_colours() {
        let [sand, grass] = [SAND_SRGB, GRASS_SRGB].map(linear);
        let halfway = [0, 1, 2].map(|i| (sand[i] + grass[i]) / 2.0);
        assert_close(terrain_color(1.0, 1.0, &bands()), halfway);
    }

    #[test]
    fn every_colour_is_within_zero_and_one() {
        let bands = bands();
        for step in 0..=100 {
            let height = -1.0 + 6.0 * step as f32 / 100.0;
            for flatness in [0.0, 0.5, 0.62, 0.7, 1.0] {
                for channel in terrain_color(height, flatness, &bands) {
                    assert!(
                        (0.0..=1.0 + 1e-6).contains(&channel),
                        "{channel} at {height}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_collapsed_blend_is_a_step() {
        assert_eq!(smoothstep(2.0, 2.0, 1.9), 0.0);
        assert_eq!(smoothstep(2.0, 2.0, 2.0), 1.0);
        assert_eq!(smoothstep(0.0, 1.0, 0.5), 0.5);
    }
}
