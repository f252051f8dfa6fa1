//! The elevation palettes: fixed colours by height in terrain units, the same for every landscape that names the palette, with steep slopes giving way to the palette's cliff colour; and the same colour on the CPU, for what is coloured without a GPU (the glb export).
//!
//! A map coloured by its own range reads "rolling hillocks" as alpine; a
//! fixed scale lets a colour mean a height, as on a hypsometric map and in
//! the AR Sandbox. A [`Palette`] is a few stops up the heights: below the
//! second stop's height the first colour, then each next colour taking over
//! around its height, blended over [`Palette::half_blend`] either side.
//! Some colours (grass, snow) do not hold on steep slopes: between a
//! stop's [`Stop::clings`] flatnesses (the cosine of the slope) the cliff
//! colour gives way to it. The shaders (shaders/terrain.frag and its twin
//! src/render/d3d11/terrain.hlsl) receive the palette as uniforms
//! ([`super::scene::FrameUniforms`]) and do the same arithmetic; the tests
//! below hold [`terrain_color`] to the shader's formula.
use glam::Vec3;

pub use crate::terrain::recipe::PaletteName;

/// Most stops a palette has (the shaders' arrays hold this many).
pub const MAX_STOPS: usize = 6;
/// The narrowest half blend: a stop change of zero width is still a step
/// with a middle, never a division by zero.
pub const MIN_HALF_BLEND: f32 = 1e-6;
/// Contour lines every this many terrain units (1 cm at the default 0.5 m
/// hologram; 120 m on a 12 km land), every fifth drawn bolder.
pub const CONTOUR_INTERVAL: f32 = 0.01;
/// Every this many contour lines one is bold (an index contour).
pub const BOLD_EVERY: f32 = 5.0;

/// One colour of a palette.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stop {
    /// Where it takes over from the stop below, terrain units (the first
    /// stop's is unused: it holds all the way down).
    pub from: f32,
    /// Its colour, sRGB-encoded.
    pub srgb: [f32; 3],
    /// The flatnesses over which the cliff colour gives way to it: steeper
    /// than the first is all cliff, flatter than the second all this
    /// colour; `[-1, 0]` for a colour that holds on any slope.
    pub clings: [f32; 2],
}

/// Colours fixed by height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Palette {
    /// The stops, lowest first; only the first `count` are used.
    pub stops: [Stop; MAX_STOPS],
    /// How many stops are used.
    pub count: usize,
    /// What steep slopes show instead of a colour that does not cling, sRGB.
    pub cliff_srgb: [f32; 3],
    /// Half the height over which one stop blends into the next.
    pub half_blend: f32,
}

/// A colour on any slope.
const HOLDS: [f32; 2] = [-1.0, 0.0];
/// Grass gives way to rock on slopes steeper than about 50° to 63°.
const GRASS_CLINGS: [f32; 2] = [0.45, 0.65];
/// Snow holds on slopes even less.
const SNOW_CLINGS: [f32; 2] = [0.6, 0.75];

const fn stop(from: f32, srgb: [f32; 3], clings: [f32; 2]) -> Stop {
    Stop { from, srgb, clings }
}

/// Green lowlands, yellow-green and tan uplands, rock, then snow above
/// 0.2 terrain units (2.4 km on a 12 km land).
pub const TEMPERATE: Palette = Palette {
    stops: [
        stop(0.0, [0.30, 0.52, 0.24], GRASS_CLINGS),
        stop(0.03, [0.46, 0.62, 0.28], GRASS_CLINGS),
        stop(0.075, [0.64, 0.58, 0.40], GRASS_CLINGS),
        stop(0.13, [0.52, 0.47, 0.42], HOLDS),
        stop(0.2, [0.95, 0.96, 1.0], SNOW_CLINGS),
        stop(0.2, [0.95, 0.96, 1.0], SNOW_CLINGS),
    ],
    count: 5,
    cliff_srgb: [0.50, 0.45, 0.40],
    half_blend: 0.006,
};

/// Pale sand low, then orange, red and dark red rock: canyon country.
pub const DESERT: Palette = Palette {
    stops: [
        stop(0.0, [0.84, 0.70, 0.50], HOLDS),
        stop(0.04, [0.82, 0.56, 0.34], HOLDS),
        stop(0.08, [0.72, 0.40, 0.26], HOLDS),
        stop(0.11, [0.58, 0.32, 0.24], HOLDS),
        stop(0.11, [0.58, 0.32, 0.24], HOLDS),
        stop(0.11, [0.58, 0.32, 0.24], HOLDS),
    ],
    count: 4,
    cliff_srgb: [0.55, 0.36, 0.27],
    half_blend: 0.004,
};

/// Beaches: land within this height above the sea is sand, whatever the palette.
pub const BEACH_HEIGHT: f32 = 0.006;
/// Sand, sRGB-encoded.
pub const SAND_SRGB: [f32; 3] = [0.82, 0.74, 0.50];

impl Palette {
    /// The palette `name` stands for.
    pub fn named(name: PaletteName) -> &'static Palette {
        match name {
            PaletteName::Temperate => &TEMPERATE,
            PaletteName::Desert => &DESERT,
        }
    }

    /// Its used stops.
    pub fn used(&self) -> &[Stop] {
        &self.stops[..self.count]
    }
}

/// sRGB's linear segment ends here (IEC 61966-2-1).
const SRGB_LINEAR_END: f32 = 0.04045;
/// The slope of sRGB's linear segment.
const SRGB_LINEAR_SLOPE: f32 = 12.92;
/// The offset of sRGB's power segment.
const SRGB_OFFSET: f32 = 0.055;
/// The exponent of sRGB's power segment.
const SRGB_GAMMA: f32 = 2.4;

/// The linear RGB colour, each channel in [0, 1] up to rounding, of land at
/// `height` (terrain units) whose surface has `flatness` (the absolute
/// cosine between its normal and the terrain's up, 1 on level ground),
/// painted with `palette`, with a beach above `sea_level` when there is one.
pub fn terrain_color(
    height: f32,
    flatness: f32,
    palette: &Palette,
    sea_level: Option<f32>,
) -> [f32; 3] {
    let linear = |srgb: [f32; 3]| Vec3::from(srgb.map(srgb_to_linear));
    let cliff = linear(palette.cliff_srgb);
    let half_blend = palette.half_blend.max(MIN_HALF_BLEND);
    let on_slope = |stop: &Stop| {
        cliff.lerp(
            linear(stop.srgb),
            smoothstep(stop.clings[0], stop.clings[1], flatness),
        )
    };
    let stops = palette.used();
    let mut color = on_slope(&stops[0]);
    for stop in &stops[1..] {
        let above = smoothstep(stop.from - half_blend, stop.from + half_blend, height);
        color = color.lerp(on_slope(stop), above);
    }
    if let Some(sea) = sea_level {
        let beach = 1.0 - smoothstep(sea + BEACH_HEIGHT, sea + BEACH_HEIGHT + half_blend, height);
        color = color.lerp(linear(SAND_SRGB), beach);
    }
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
/// Where GLSL leaves it undefined (`edge0 >= edge1`), a step at `edge0`.
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

    /// The fragment shader the palette's arithmetic copies.
    const FRAGMENT_SHADER: &str = include_str!("../../shaders/terrain.frag");

    fn linear(srgb: [f32; 3]) -> [f32; 3] {
        srgb.map(srgb_to_linear)
    }

    fn assert_close(got: [f32; 3], want: [f32; 3]) {
        for (g, w) in got.into_iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{got:?} is not {want:?}");
        }
    }

    #[test]
    fn the_shader_blends_stops_and_slopes_by_this_formula() {
        for line in [
            "vec3 color = on_slope(0, cliff, flatness);",
            "float above = smoothstep(from - half_blend, from + half_blend, in_height);",
            "return mix(cliff, frame.palette_color[index].rgb, smoothstep(clings.x, clings.y, flatness));",
            "float beach = 1.0 - smoothstep(sea + BEACH_HEIGHT, sea + BEACH_HEIGHT + half_blend, in_height);",
        ] {
            assert!(
                FRAGMENT_SHADER.contains(line),
                "shaders/terrain.frag no longer says `{line}`"
            );
        }
        assert!(FRAGMENT_SHADER.contains(&format!("const float BEACH_HEIGHT = {BEACH_HEIGHT};")));
        assert!(FRAGMENT_SHADER.contains(&format!("vec4 palette_color[{MAX_STOPS}];")));
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
    fn level_ground_takes_each_stops_colour_between_the_blends() {
        for palette in [&TEMPERATE, &DESERT] {
            let stops = palette.used();
            for (index, stop) in stops.iter().enumerate() {
                let top = stops
                    .get(index + 1)
                    .map_or(stop.from + 1.0, |next| next.from);
                let bottom = if index == 0 { top - 1.0 } else { stop.from };
                let middle = (bottom + top) / 2.0;
                assert_close(terrain_color(middle, 1.0, palette, None), linear(stop.srgb));
            }
        }
    }

    #[test]
    fn the_same_height_is_the_same_colour_whatever_the_land_around_it() {
        // The colour is a function of height and slope alone: no range, no
        // other heights go in, so two landscapes agree wherever they meet.
        let low = terrain_color(0.05, 1.0, &TEMPERATE, None);
        assert_eq!(low, terrain_color(0.05, 1.0, &TEMPERATE, None));
        assert_ne!(low, terrain_color(0.25, 1.0, &TEMPERATE, None));
        // Snow at 0.25 units, grass at 0.01: hillocks are green, ranges white.
        assert_close(
            terrain_color(0.25, 1.0, &TEMPERATE, None),
            linear(TEMPERATE.stops[4].srgb),
        );
        assert_close(
            terrain_color(0.01, 1.0, &TEMPERATE, None),
            linear(TEMPERATE.stops[0].srgb),
        );
    }

    #[test]
    fn steep_slopes_are_cliff_where_grass_or_snow_would_be() {
        let cliff = linear(TEMPERATE.cliff_srgb);
        for height in [0.01, 0.05, 0.3] {
            assert_close(terrain_color(height, 0.3, &TEMPERATE, None), cliff);
        }
        // Rock holds on any slope.
        assert_close(
            terrain_color(0.16, 0.3, &TEMPERATE, None),
            linear(TEMPERATE.stops[3].srgb),
        );
    }

    #[test]
    fn a_stop_boundary_is_half_way_between_its_colours() {
        let [low, high] = [TEMPERATE.stops[0].srgb, TEMPERATE.stops[1].srgb].map(linear);
        let halfway = [0, 1, 2].map(|i| (low[i] + high[i]) / 2.0);
        assert_close(
            terrain_color(TEMPERATE.stops[1].from, 1.0, &TEMPERATE, None),
            halfway,
        );
    }

    #[test]
    fn land_just_above_the_sea_is_beach() {
        let sea = 0.05;
        assert_close(
            terrain_color(sea + 0.001, 1.0, &TEMPERATE, Some(sea)),
            linear(SAND_SRGB),
        );
        assert_close(
            terrain_color(sea + 0.001, 1.0, &TEMPERATE, None),
            linear(TEMPERATE.stops[1].srgb),
        );
        let inland = terrain_color(sea + 2.5 * BEACH_HEIGHT, 1.0, &TEMPERATE, Some(sea));
        assert_close(
            inland,
            terrain_color(sea + 2.0 * BEACH_HEIGHT, 1.0, &TEMPERATE, None),
        );
    }

    #[test]
    fn every_colour_is_within_zero_and_one() {
        for palette in [&TEMPERATE, &DESERT] {
            for step in 0..=100 {
                let height = -0.5 + step as f32 / 100.0;
                for flatness in [0.0, 0.5, 0.62, 0.7, 1.0] {
                    for channel in terrain_color(height, flatness, palette, Some(0.0)) {
                        assert!(
                            (0.0..=1.0 + 1e-6).contains(&channel),
                            "{channel} at {height}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn stops_rise_and_fit_the_shaders_arrays() {
        for palette in [&TEMPERATE, &DESERT] {
            assert!((2..=MAX_STOPS).contains(&palette.count));
            let used = palette.used();
            assert!(
                used.windows(2)
                    .all(|pair| pair[0].from < pair[1].from || pair[0].from == 0.0)
            );
        }
    }

    #[test]
    fn a_collapsed_blend_is_a_step() {
        assert_eq!(smoothstep(2.0, 2.0, 1.9), 0.0);
        assert_eq!(smoothstep(2.0, 2.0, 2.0), 1.0);
        assert_eq!(smoothstep(0.0, 1.0, 0.5), 0.5);
    }
}
