//! A recipe: everything a terrain is made of apart from its seed and size (growth, per-iteration shaping, finishing smoothing, weathering, sea level), read from TOML, and the built-in landscapes.
//!
//! The same recipe, seed and size give the same heights bit for bit however
//! they are grown: live a slice per frame in the headset, or at once by
//! `holoterrain generate` ([`super::recipe_growth::RecipeGrowth`] does both).
//! Every key, its range and the source it comes from: docs/terrain.md.
use serde::{Deserialize, Serialize};

use super::bsp::MAX_DEPTH;
use super::erosion::{Hardness, HydraulicParams, MAX_EROSION_ITERATIONS, ThermalParams};
use super::error::TerrainError;
use super::fault::{FaultParams, LineChoice};
use super::filter::{MAX_GAUSSIAN_SIGMA, Smoothing};
use super::generator::{Algorithm, GeneratorConfig, MAX_TOTAL_RELIEF};
use super::look::check_across_km;
pub use super::look::{ACROSS_KM_RANGE, DEFAULT_ACROSS_KM, PaletteName};
use super::mei::MeiParams;
use super::midpoint::MidpointParams;
use super::particles::ParticleParams;
use super::plates::PlatesParams;
use super::quadtree_growth::QuadtreeParams;
pub use super::recipe_error::RecipeError;
use super::rmp::RmpParams;

/// Most growth iterations a recipe may ask for.
pub const MAX_ITERATIONS: usize = 10_000_000;

/// Most passes of one finishing filter.
pub const MAX_FILTER_PASSES: u32 = 1000;

/// The built-in landscapes: name and recipe file, in the order they are listed.
const BUILT_IN: [(&str, &str); 12] = [
    ("demo", include_str!("recipes/demo.toml")),
    ("ridges", include_str!("recipes/ridges.toml")),
    ("mesas", include_str!("recipes/mesas.toml")),
    ("highlands", include_str!("recipes/highlands.toml")),
    ("ranges", include_str!("recipes/ranges.toml")),
    ("islands", include_str!("recipes/islands.toml")),
    ("hillocks", include_str!("recipes/hillocks.toml")),
    ("summits", include_str!("recipes/summits.toml")),
    ("valleys", include_str!("recipes/valleys.toml")),
    ("badlands", include_str!("recipes/badlands.toml")),
    ("cordillera", include_str!("recipes/cordillera.toml")),
    ("uplands", include_str!("recipes/uplands.toml")),
];

/// The name of a built-in recipe, checked: what a command names a
/// landscape by, the same in every build and on every headset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltInName(&'static str);

impl BuiltInName {
    /// `name` when it is a built-in recipe's.
    pub fn new(name: &str) -> Option<Self> {
        Recipe::built_in_names()
            .find(|known| *known == name)
            .map(BuiltInName)
    }

    /// The built-in after `name` in the list, round to the first (the
    /// first also after a name that is not built in, such as a file).
    pub fn after(name: &str) -> Self {
        let names: Vec<_> = Recipe::built_in_names().collect();
        let next = names
            .iter()
            .position(|known| *known == name)
            .map_or(0, |index| (index + 1) % names.len());
        BuiltInName(names[next])
    }

    /// The name.
    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// Its recipe.
    pub fn recipe(self) -> Recipe {
        Recipe::built_in(self.0).expect("every built-in recipe reads")
    }
}

impl Serialize for BuiltInName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for BuiltInName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        BuiltInName::new(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "no built-in recipe \"{name}\" (this build has {})",
                Recipe::built_in_names().collect::<Vec<_>>().join(", ")
            ))
        })
    }
}

/// What a terrain is made of, apart from its seed and size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// One line saying what it looks like.
    pub description: String,
    /// The water's height in terrain units, for the look; none for dry land.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sea_level: Option<f32>,
    /// How wide the land is, in kilometres: what the hologram's edge stands
    /// for, so heights and the scale bar can be read in real units
    /// ([`DEFAULT_ACROSS_KM`] when a recipe does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub across_km: Option<f32>,
    /// The colours by height the land is painted with.
    #[serde(default, skip_serializing_if = "PaletteName::is_default")]
    pub palette: PaletteName,
    /// How the land rises.
    pub growth: Growth,
    /// What every fault iteration does to the map after its change.
    #[serde(default)]
    pub shaping: Shaping,
    /// Smoothing after the growth, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finish: Vec<Finish>,
    /// Erosion after the smoothing: thermal, then hydraulic.
    #[serde(default)]
    pub weathering: Weathering,
}

/// How the land rises.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "algorithm", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Growth {
    /// Classic fault formation (Traagen's demo blog, the University of
    /// Illinois CS 418 notes "Terrain via the faulting method",
    /// VirtuallyProgramming.com's "Fault Line Terrain Generation"): a random
    /// line per iteration, one side raised and the other lowered.
    Fault {
        /// Fault lines.
        iterations: usize,
        /// How each line is drawn.
        line: Line,
        /// Displacement of the first fault, terrain units.
        displacement_max: f64,
        /// Displacement of the last; equal to the first for a constant step.
        displacement_min: f64,
        /// Raise one side only.
        #[serde(default)]
        raise_only: bool,
        /// The change fades with distance r from the line as
        /// g(r) = (1 − (r/R)²)², R in samples.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        falloff_radius: Option<f64>,
    },
    /// A BSP tree of random fault segments per iteration (Traagen, "HoloLens
    /// Terrain Generation Demo Part 4 – Fault Formation").
    Bsp(BspGrowth),
    /// A structured BSP tree per iteration (Traagen's HoloLens terrain demo).
    BspStructured(BspGrowth),
    /// Diamond-square midpoint displacement (Fritz, "Procedural Generation of
    /// Mountain Ranges Based on Geology", 2016, §3.1), level by level.
    DiamondSquare {
        /// The corners' height and the first level's offset range, terrain units.
        roughness: f32,
    },
    /// Square midpoint displacement (Fritz 2016, §3.1's introduction), level by level.
    Midpoint {
        /// Half the range of the first level's offsets, terrain units.
        amplitude: f32,
        /// The factor each level multiplies the offset range by, 2^−H.
        roughness: f32,
    },
    /// Repeated magnification and probing, the Voronoi variant (Fritz 2016, §3.3).
    Rmp {
        /// Mountains, each with one peak.
        peaks: u32,
        /// Chosen places of the first peaks, fractions [x, y] of the map.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        peak_at: Vec<[f32; 2]>,
        /// Voronoi sites per round: the fewer, the wider each mountain.
        cones: u32,
        /// Rounds of magnification and probing.
        iterations: u32,
        /// Every peak's final height, terrain units.
        height: f32,
    },
    /// Tectonic plates (Fritz 2016, §3.6): the square split into convex
    /// plates that drift and collide in a physics world, ranges raised
    /// where they meet.
    Plates {
        /// Plates the square is split into.
        plates: u32,
        /// Physics steps of 1/60 s.
        steps: u32,
        /// Voronoi sites per step: the fewer, the wider a range.
        cones: u32,
        /// The height one step's collision raises its cells by, terrain units.
        uplift: f32,
        /// A free plate's drift, sides of the square per second.
        drift: f32,
    },
    /// One square of the edge-matched quadtree world of "Matching Edge
    /// Altitudes of Different Fractal Squares", level by level.
    Quadtree {
        /// The note's `a`: level l's offsets are bounded by 2^(−a·l), 0 … 4.
        roughness: f32,
        /// Terrain units per unit of the world's heights (the corners lie within ±1).
        amplitude: f32,
        /// Which square of the world, [i, j].
        #[serde(default)]
        tile: [i64; 2],
    },
}

impl Growth {
    /// The midpoint displacement parameters, for [`Growth::Midpoint`].
    pub fn midpoint_params(&self) -> Option<MidpointParams> {
        match *self {
            Growth::Midpoint {
                amplitude,
                roughness,
            } => Some(MidpointParams {
                amplitude,
                roughness,
            }),
            _ => None,
        }
    }

    /// The RMP parameters, for [`Growth::Rmp`].
    pub fn rmp_params(&self) -> Option<RmpParams> {
        match self {
            Growth::Rmp {
                peaks,
                peak_at,
                cones,
                iterations,
                height,
            } => Some(RmpParams {
                peaks: *peaks,
                peak_at: peak_at.clone(),
                cones: *cones,
                iterations: *iterations,
                height: *height,
            }),
            _ => None,
        }
    }

    /// The tectonic plates parameters, for [`Growth::Plates`].
    pub fn plates_params(&self) -> Option<PlatesParams> {
        match *self {
            Growth::Plates {
                plates,
                steps,
                cones,
                uplift,
                drift,
            } => Some(PlatesParams {
                plates,
                steps,
                cones,
                uplift,
                drift,
            }),
            _ => None,
        }
    }

    /// The quadtree tile parameters, for [`Growth::Quadtree`].
    pub fn quadtree_params(&self) -> Option<QuadtreeParams> {
        match *self {
            Growth::Quadtree {
                roughness,
                amplitude,
                tile,
            } => Some(QuadtreeParams {
                roughness,
                amplitude,
                tile,
            }),
            _ => None,
        }
    }

    /// Whether it grows by fault iterations (the only growth shaping follows).
    pub fn is_faults(&self) -> bool {
        matches!(
            self,
            Growth::Fault { .. } | Growth::Bsp(_) | Growth::BspStructured(_)
        )
    }
}

/// BSP fault trees, one per iteration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BspGrowth {
    /// Trees.
    pub iterations: usize,
    /// Levels of lines in each tree.
    pub depth: u32,
    /// The root level's displacement, terrain units.
    pub amplitude: f32,
}

/// How a classic fault line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Line {
    /// Through two random points (lines crowd the centre).
    TwoPoints,
    /// Through a random point at a random angle.
    PointAngle,
}

/// What every fault iteration does after its change (the demo's shaping).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shaping {
    /// Scale every change by min(4·Dx·Dy, 1), which fades to zero at the border.
    #[serde(default)]
    pub edge_falloff: bool,
    /// Keep heights at or above zero.
    #[serde(default)]
    pub clamp_non_negative: bool,
    /// Never change the outermost samples.
    #[serde(default)]
    pub lock_border: bool,
    /// One two-tap IIR pass with this k after every iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smoothing: Option<f32>,
}

/// One finishing filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "filter", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Finish {
    /// The demo's two-tap IIR filter (Traagen's demo blog), `passes` times.
    Iir {
        /// Its coefficient, 0..1.
        k: f32,
        /// Passes.
        passes: u32,
    },
    /// The true FIR two-tap filter, `passes` times.
    Fir {
        /// Its coefficient, 0..1.
        k: f32,
        /// Passes.
        passes: u32,
    },
    /// A Gaussian blur (Fritz 2016).
    Gaussian {
        /// Its sigma, samples.
        sigma: f32,
    },
}

impl Finish {
    /// Its passes, each one smoothing of the whole map.
    pub fn passes(&self) -> impl Iterator<Item = Smoothing> {
        let (smoothing, passes) = match *self {
            Finish::Iir { k, passes } => (Smoothing::Iir { k }, passes),
            Finish::Fir { k, passes } => (Smoothing::Fir { k }, passes),
            Finish::Gaussian { sigma } => (Smoothing::Gaussian { sigma }, 1),
        };
        std::iter::repeat_n(smoothing, passes as usize)
    }
}

/// Erosion after the growth and smoothing, on heights scaled to 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weathering {
    /// Thermal erosion (Fritz, "Procedural Generation of Mountain Ranges Based
    /// on Geology", 2016, §3.5.1), first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thermal: Option<Thermal>,
    /// Hydraulic erosion (Olsen; Fritz 2016, §3.5.2), second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hydraulic: Option<Hydraulic>,
    /// Mei et al.'s virtual-pipe hydraulic erosion (Fritz 2016, §3.5), third;
    /// a key left out takes its default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mei: Option<MeiParams>,
    /// Particle erosion (Fritz 2016, §3.5.3), last; a key left out takes its default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub particles: Option<ParticleParams>,
}

impl Weathering {
    /// Whether any erosion runs (on heights scaled to 0..1).
    pub fn is_some(&self) -> bool {
        self.thermal.is_some()
            || self.hydraulic.is_some()
            || self.mei.is_some()
            || self.particles.is_some()
    }
}

/// Thermal erosion: material slides down slopes steeper than the talus.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thermal {
    /// Iterations.
    pub iterations: u32,
    /// The steepest difference to a neighbour that stays put, in 0..1 heights.
    pub talus: f32,
    /// The share of the excess that moves per iteration, 0 to 0.5.
    pub rate: f32,
    /// How much of the excess moves at the lowest land, 0..1.
    pub hardness_at_lowest: f32,
    /// How much of it moves at the highest, 0..1.
    pub hardness_at_highest: f32,
}

/// Hydraulic erosion: rain dissolves, water carries, evaporation deposits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hydraulic {
    /// Iterations.
    pub iterations: u32,
    /// Kr: water rained on every cell per iteration.
    pub rain: f32,
    /// Ks: land dissolved per unit of water.
    pub solubility: f32,
    /// Ke: the share of water that evaporates per iteration.
    pub evaporation: f32,
    /// Kc: sediment a unit of water carries.
    pub capacity: f32,
    /// How much less steep land dissolves, 0..1.
    pub steep_hardness: f32,
}

impl From<Thermal> for ThermalParams {
    fn from(thermal: Thermal) -> Self {
        ThermalParams {
            iterations: thermal.iterations,
            talus: thermal.talus,
            rate: thermal.rate,
            hardness: Hardness {
                at_lowest: thermal.hardness_at_lowest,
                at_highest: thermal.hardness_at_highest,
            },
        }
    }
}

impl From<Hydraulic> for HydraulicParams {
    fn from(hydraulic: Hydraulic) -> Self {
        HydraulicParams {
            iterations: hydraulic.iterations,
            rain: hydraulic.rain,
            solubility: hydraulic.solubility,
            evaporation: hydraulic.evaporation,
            capacity: hydraulic.capacity,
            steep_hardness: hydraulic.steep_hardness,
        }
    }
}

impl Default for Thermal {
    /// The engine's thermal defaults.
    fn default() -> Self {
        let params = ThermalParams::default();
        Thermal {
            iterations: params.iterations,
            talus: params.talus,
            rate: params.rate,
            hardness_at_lowest: params.hardness.at_lowest,
            hardness_at_highest: params.hardness.at_highest,
        }
    }
}

impl Default for Hydraulic {
    /// The engine's hydraulic defaults.
    fn default() -> Self {
        let params = HydraulicParams::default();
        Hydraulic {
            iterations: params.iterations,
            rain: params.rain,
            solubility: params.solubility,
            evaporation: params.evaporation,
            capacity: params.capacity,
            steep_hardness: params.steep_hardness,
        }
    }
}

impl Recipe {
    /// The built-in landscapes' names, in order.
    pub fn built_in_names() -> impl Iterator<Item = &'static str> {
        BUILT_IN.iter().map(|(name, _)| *name)
    }

    /// The built-in recipe file `name`, as the user may copy it.
    pub fn built_in_text(name: &str) -> Result<&'static str, RecipeError> {
        BUILT_IN
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, text)| *text)
            .ok_or_else(|| RecipeError::Unknown {
                name: name.into(),
                known: Self::built_in_names().collect::<Vec<_>>().join(", "),
            })
    }

    /// The built-in recipe `name`.
    pub fn built_in(name: &str) -> Result<Self, RecipeError> {
        let recipe = Self::from_toml(Self::built_in_text(name)?)?;
        Ok(recipe)
    }

    /// The recipe `--recipe NAME|FILE` names: a file when the value has a
    /// `/` or ends in `.toml`, else a built-in name.
    pub fn load(name_or_file: &str) -> Result<Self, RecipeError> {
        if !is_file_name(name_or_file) {
            return Self::built_in(name_or_file);
        }
        let text = std::fs::read_to_string(name_or_file).map_err(|error| RecipeError::Read {
            path: name_or_file.into(),
            message: error.to_string(),
        })?;
        Self::from_toml(&text).map_err(|source| RecipeError::InFile {
            path: name_or_file.into(),
            source: Box::new(source),
        })
    }

    /// Traagen's HoloLens terrain demo, as every run grew it before recipes.
    pub fn demo() -> Self {
        Self::built_in("demo").expect("the built-in demo recipe reads")
    }

    /// Reads a recipe from TOML and checks every value's range.
    pub fn from_toml(text: &str) -> Result<Self, RecipeError> {
        let recipe: Recipe = toml::from_str(text).map_err(|error| {
            let message = error.message().trim().replace('\n', " ");
            // Inside a tagged table (growth, finish) the parser can only
            // point at the table; the key itself is easy to find.
            let (line, column) = unknown_key_position(text, &message)
                .or_else(|| error.span().map(|span| line_and_column(text, span.start)))
                .unwrap_or((1, 1));
            RecipeError::Syntax {
                line,
                column,
                message,
            }
        })?;
        recipe.validate()?;
        Ok(recipe)
    }

    /// The recipe as a TOML file.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a recipe is plain TOML")
    }

    /// How wide the land is, km.
    pub fn across_km(&self) -> f32 {
        self.across_km.unwrap_or(DEFAULT_ACROSS_KM)
    }

    /// Checks every value against its range, naming the first that is out.
    pub fn validate(&self) -> Result<(), RecipeError> {
        if let Some(level) = self.sea_level
            && !level.is_finite()
        {
            return Err(RecipeError::out_of_range(
                "sea_level",
                f64::from(level),
                "a finite height",
            ));
        }
        if let Some(across) = self.across_km {
            check_across_km(across)?;
        }
        self.growth.validate()?;
        self.validate_shaping()?;
        for finish in &self.finish {
            finish.validate()?;
        }
        self.weathering.validate()
    }

    /// The shaping's smoothing, and that shaping is set only for a growth
    /// by faults, whose iterations it follows.
    fn validate_shaping(&self) -> Result<(), RecipeError> {
        if let Some(k) = self.shaping.smoothing {
            check_unit("shaping.smoothing", k)?;
        }
        let shaped = self.shaping != Shaping::default();
        if shaped && !self.growth.is_faults() {
            return Err(RecipeError::out_of_range(
                "shaping",
                "set",
                "nothing: shaping follows each fault iteration, and this growth has none (use [[finish]])",
            ));
        }
        Ok(())
    }

    /// The fault generator's configuration for a `width`×`height` map, when
    /// the recipe grows by faults.
    pub fn generator_config(&self, width: usize, height: usize) -> Option<GeneratorConfig> {
        let (algorithm, iterations, depth, amplitude, fault) = match self.growth {
            Growth::Fault {
                iterations,
                line,
                displacement_max,
                displacement_min,
                raise_only,
                falloff_radius,
            } => (
                Algorithm::Fault,
                iterations,
                1,
                0.0,
                FaultParams {
                    line_choice: match line {
                        Line::TwoPoints => LineChoice::TwoPoints,
                        Line::PointAngle => LineChoice::PointAngle,
                    },
                    displacement_max,
                    displacement_min,
                    lower_other_side: !raise_only,
                    falloff_radius,
                },
            ),
            Growth::Bsp(bsp) | Growth::BspStructured(bsp) => (
                if matches!(self.growth, Growth::Bsp(_)) {
                    Algorithm::Bsp
                } else {
                    Algorithm::BspStructured
                },
                bsp.iterations,
                bsp.depth,
                bsp.amplitude,
                FaultParams::default(),
            ),
            Growth::DiamondSquare { .. }
            | Growth::Midpoint { .. }
            | Growth::Rmp { .. }
            | Growth::Plates { .. }
            | Growth::Quadtree { .. } => {
                return None;
            }
        };
        Some(GeneratorConfig {
            width,
            height,
            algorithm,
            iterations,
            depth,
            amplitude,
            fault,
            smoothing: self.shaping.smoothing,
            edge_falloff: self.shaping.edge_falloff,
            clamp_non_negative: self.shaping.clamp_non_negative,
            lock_border: self.shaping.lock_border,
        })
    }
}

impl Growth {
    /// The growth table's values: those its algorithm reads.
    fn validate(&self) -> Result<(), RecipeError> {
        match self {
            &Growth::Fault {
                iterations,
                displacement_max,
                displacement_min,
                falloff_radius,
                ..
            } => validate_faults(
                iterations,
                displacement_max,
                displacement_min,
                falloff_radius,
            ),
            Growth::Bsp(bsp) | Growth::BspStructured(bsp) => bsp.validate(),
            Growth::Midpoint { .. }
            | Growth::Rmp { .. }
            | Growth::Plates { .. }
            | Growth::Quadtree { .. } => {
                let checked = match (
                    self.midpoint_params(),
                    self.rmp_params(),
                    self.plates_params(),
                    self.quadtree_params(),
                ) {
                    (Some(params), _, _, _) => params.validate(),
                    (_, Some(params), _, _) => params.validate(),
                    (_, _, Some(params), _) => params.validate(),
                    (_, _, _, Some(params)) => params.validate(),
                    _ => Ok(()),
                };
                checked.map_err(|error| in_table("growth", error))
            }
            &Growth::DiamondSquare { roughness } => {
                if roughness.is_finite() && (0.0..=1e6).contains(&roughness) {
                    Ok(())
                } else {
                    Err(RecipeError::out_of_range(
                        "growth.roughness",
                        roughness,
                        "0 to 1e6",
                    ))
                }
            }
        }
    }
}

/// Classic fault growth's values, the relief they can add up to among them.
fn validate_faults(
    iterations: usize,
    displacement_max: f64,
    displacement_min: f64,
    falloff_radius: Option<f64>,
) -> Result<(), RecipeError> {
    check_growth_iterations(iterations)?;
    for (key, value) in [
        ("growth.displacement_max", displacement_max),
        ("growth.displacement_min", displacement_min),
    ] {
        if !(value.is_finite() && value.abs() <= 1e6) {
            return Err(RecipeError::out_of_range(
                key,
                value,
                "a finite number of magnitude at most 1e6",
            ));
        }
    }
    let relief = displacement_max.abs().max(displacement_min.abs()) * iterations as f64;
    if relief > MAX_TOTAL_RELIEF {
        return Err(RecipeError::out_of_range(
            "growth.displacement_max × growth.iterations",
            relief,
            "at most 5e8 terrain units",
        ));
    }
    if let Some(radius) = falloff_radius
        && !(radius.is_finite() && radius > 0.0 && radius <= 1e6)
    {
        return Err(RecipeError::out_of_range(
            "growth.falloff_radius",
            radius,
            "above 0, at most 1e6 samples",
        ));
    }
    Ok(())
}

impl BspGrowth {
    /// Its values, and the relief they can add up to.
    fn validate(&self) -> Result<(), RecipeError> {
        let BspGrowth {
            iterations,
            depth,
            amplitude,
        } = *self;
        check_growth_iterations(iterations)?;
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(RecipeError::out_of_range(
                "growth.depth",
                depth,
                format!("1 to {MAX_DEPTH}"),
            ));
        }
        if !(amplitude.is_finite() && amplitude.abs() <= 1e6) {
            return Err(RecipeError::out_of_range(
                "growth.amplitude",
                amplitude,
                "a finite number of magnitude at most 1e6",
            ));
        }
        let relief = 2.0 * f64::from(amplitude.abs()) * iterations as f64;
        if relief > MAX_TOTAL_RELIEF {
            return Err(RecipeError::out_of_range(
                "growth.amplitude × growth.iterations",
                relief,
                "at most 5e8 terrain units",
            ));
        }
        Ok(())
    }
}

impl Finish {
    /// One finishing filter's values.
    fn validate(&self) -> Result<(), RecipeError> {
        match *self {
            Finish::Iir { k, passes } | Finish::Fir { k, passes } => {
                check_unit("finish.k", k)?;
                if !(1..=MAX_FILTER_PASSES).contains(&passes) {
                    return Err(RecipeError::out_of_range(
                        "finish.passes",
                        passes,
                        format!("1 to {MAX_FILTER_PASSES}"),
                    ));
                }
            }
            Finish::Gaussian { sigma } => {
                if !(sigma.is_finite() && sigma > 0.0 && sigma <= MAX_GAUSSIAN_SIGMA) {
                    return Err(RecipeError::out_of_range(
                        "finish.sigma",
                        sigma,
                        format!("above 0, at most {MAX_GAUSSIAN_SIGMA} samples"),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Weathering {
    /// Every erosion's values: thermal, Mei's, particles, then hydraulic,
    /// the order that decides which of two bad values is named.
    fn validate(&self) -> Result<(), RecipeError> {
        if let Some(thermal) = self.thermal {
            thermal.validate()?;
        }
        if let Some(mei) = self.mei {
            mei.validate()
                .map_err(|error| in_table("weathering.mei", error))?;
        }
        if let Some(particles) = self.particles {
            particles
                .validate()
                .map_err(|error| in_table("weathering.particles", error))?;
        }
        if let Some(hydraulic) = self.hydraulic {
            hydraulic.validate()?;
        }
        Ok(())
    }
}

impl Thermal {
    /// The thermal table's values.
    fn validate(&self) -> Result<(), RecipeError> {
        check_erosion_iterations("weathering.thermal.iterations", self.iterations)?;
        check_non_negative("weathering.thermal.talus", self.talus)?;
        if !(0.0..=0.5).contains(&self.rate) {
            return Err(RecipeError::out_of_range(
                "weathering.thermal.rate",
                self.rate,
                "0 to 0.5",
            ));
        }
        check_unit(
            "weathering.thermal.hardness_at_lowest",
            self.hardness_at_lowest,
        )?;
        check_unit(
            "weathering.thermal.hardness_at_highest",
            self.hardness_at_highest,
        )
    }
}

impl Hydraulic {
    /// The hydraulic table's values.
    fn validate(&self) -> Result<(), RecipeError> {
        check_erosion_iterations("weathering.hydraulic.iterations", self.iterations)?;
        for (key, value) in [
            ("weathering.hydraulic.rain", self.rain),
            ("weathering.hydraulic.solubility", self.solubility),
            ("weathering.hydraulic.capacity", self.capacity),
        ] {
            check_non_negative(key, value)?;
        }
        check_unit("weathering.hydraulic.evaporation", self.evaporation)?;
        check_unit("weathering.hydraulic.steep_hardness", self.steep_hardness)
    }
}

fn check_growth_iterations(iterations: usize) -> Result<(), RecipeError> {
    if (1..=MAX_ITERATIONS).contains(&iterations) {
        Ok(())
    } else {
        Err(RecipeError::out_of_range(
            "growth.iterations",
            iterations,
            format!("1 to {MAX_ITERATIONS}"),
        ))
    }
}

fn check_erosion_iterations(key: &str, iterations: u32) -> Result<(), RecipeError> {
    if (1..=MAX_EROSION_ITERATIONS).contains(&iterations) {
        Ok(())
    } else {
        Err(RecipeError::out_of_range(
            key,
            iterations,
            format!("1 to {MAX_EROSION_ITERATIONS}"),
        ))
    }
}

fn check_unit(key: &str, value: f32) -> Result<(), RecipeError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(RecipeError::out_of_range(key, value, "0 to 1"))
    }
}

fn check_non_negative(key: &str, value: f32) -> Result<(), RecipeError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(RecipeError::out_of_range(
            key,
            value,
            "a finite number >= 0",
        ))
    }
}

/// An engine's range error as the recipe key in `table` that holds the value.
fn in_table(table: &str, error: TerrainError) -> RecipeError {
    match error {
        TerrainError::OutOfRange {
            name,
            value,
            expected,
        } => RecipeError::OutOfRange {
            key: format!("{table}.{name}"),
            value,
            range: expected.into(),
        },
        other => RecipeError::OutOfRange {
            key: table.into(),
            value: "given".into(),
            range: other.to_string(),
        },
    }
}

/// Whether `--recipe`'s value names a file rather than a built-in recipe.
pub fn is_file_name(value: &str) -> bool {
    value.contains('/') || value.contains('\\') || value.ends_with(".toml")
}

/// Where the key an "unknown field `KEY`" message names is set in `text`
/// (its first line that sets it), 1-based line and column.
fn unknown_key_position(text: &str, message: &str) -> Option<(usize, usize)> {
    let key = message.strip_prefix("unknown field `")?.split('`').next()?;
    text.lines().enumerate().find_map(|(index, line)| {
        let trimmed = line.trim_start();
        let rest = trimmed.strip_prefix(key)?;
        rest.trim_start()
            .starts_with('=')
            .then(|| (index + 1, line.len() - trimmed.len() + 1))
    })
}

/// The 1-based line and column of byte `offset` in `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |tail| tail.chars().count())
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_reads_checks_and_reads_back_as_written() {
        let names: Vec<_> = Recipe::built_in_names().collect();
        assert!(names.len() >= 6, "{names:?}");
        for name in names {
            let recipe = Recipe::built_in(name).unwrap();
            assert!(!recipe.description.is_empty(), "{name}");
            assert_eq!(
                Recipe::from_toml(&recipe.to_toml()).unwrap(),
                recipe,
                "{name}"
            );
            // A name the wearer says and the menu shows: one lowercase word.
            assert!(name.chars().all(|c| c.is_ascii_lowercase()), "{name}");
        }
    }

    #[test]
    fn the_demo_is_the_hololens_demo_configuration() {
        assert_eq!(
            Recipe::demo().generator_config(65, 33),
            Some(GeneratorConfig::hololens_demo(65, 33))
        );
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let error = Recipe::built_in("alps").unwrap_err().to_string();
        assert!(
            error.starts_with("no built-in recipe \"alps\"; the built-in recipes are demo, ridges"),
            "{error}"
        );
    }

    #[test]
    fn a_malformed_file_or_an_unknown_key_names_line_and_column() {
        let text = "description = \"x\"\n[growth]\nalgorithm = \"bsp\"\niterations = 10\ndepth = 3\namplitude = 0.1\ndpeth = 4\n";
        match Recipe::from_toml(text).unwrap_err() {
            RecipeError::Syntax { line, message, .. } => {
                assert_eq!(line, 7, "{message}");
                assert!(message.contains("dpeth"), "{message}");
            }
            other => panic!("{other}"),
        }
        let broken = "description = \"x\"\n[growth\n";
        match Recipe::from_toml(broken).unwrap_err() {
            RecipeError::Syntax { line, column, .. } => assert_eq!((line, column), (2, 8)),
            other => panic!("{other}"),
        }
    }

    #[test]
    fn an_out_of_range_value_names_its_key_and_range() {
        let text = "description = \"x\"\n[growth]\nalgorithm = \"bsp-structured\"\niterations = 10\ndepth = 30\namplitude = 0.1\n";
        assert_eq!(
            Recipe::from_toml(text).unwrap_err().to_string(),
            "growth.depth = 30 is out of range: 1 to 20"
        );
        let eroded = format!(
            "{}\n[weathering.thermal]\niterations = 5\ntalus = 0.01\nrate = 0.9\nhardness_at_lowest = 1\nhardness_at_highest = 0.5\n",
            text.replace("depth = 30", "depth = 3")
        );
        assert_eq!(
            Recipe::from_toml(&eroded).unwrap_err().to_string(),
            "weathering.thermal.rate = 0.9 is out of range: 0 to 0.5"
        );
        let plates = "description = \"x\"\n[growth]\nalgorithm = \"plates\"\nplates = 0\nsteps = 10\ncones = 8\nuplift = 0.01\ndrift = 0.1\n";
        assert_eq!(
            Recipe::from_toml(plates).unwrap_err().to_string(),
            "growth.plates = 0 is out of range: 2 <= plates <= 32"
        );
        assert_eq!(
            Recipe::from_toml(
                &plates
                    .replace("plates = 0", "plates = 4")
                    .replace("cones = 8", "cones = 300")
            )
            .unwrap_err()
            .to_string(),
            "growth.cones = 300 is out of range: 2 <= cones <= 256"
        );
    }
}
