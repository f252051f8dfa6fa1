//! `holoterrain generate`: offline heightmap generation and export from the same engine.
//!
//! It sits above the layers it uses: the engine (`terrain`) for the heights
//! and the sample formats, and for the meshes the renderer's (`render`):
//! the glb's grid and palette placed as the app places the hologram
//! (`app`), the STL's and 3MF's solid sized for a printer.
use crate::app::log::CommandLog;

use crate::app::placement::{self, HOLOGRAM_SIZE_M};
use crate::render::glb::{self, GlbError, Paint};
use crate::render::print;
use crate::render::solid::{self, PrintSize, Quantity, SolidError};
use crate::size::Size;
use crate::terrain::export::{self, ExportError, Format};
use crate::terrain::mei::MeiParams;
use crate::terrain::metrics::{Metrics, metrics};
use crate::terrain::midpoint::MidpointParams;
use crate::terrain::particles::ParticleParams;
use crate::terrain::plates::PlatesParams;
use crate::terrain::quadtree::{self, QuadtreeWorld};
use crate::terrain::recipe::{
    BspGrowth, Finish, Growth, Hydraulic, Line, MAX_ITERATIONS, PaletteName, Recipe, RecipeError,
    Shaping, Thermal, Weathering,
};
use crate::terrain::recipe_growth::RecipeGrowth;
use crate::terrain::rmp::RmpParams;
use crate::terrain::tiles::TileWorld;
use crate::terrain::{GeneratorConfig, Heightmap, TerrainError};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use thiserror::Error;

/// What can stop `generate`.
#[derive(Debug, Error)]
pub enum GenerateError {
    #[error(transparent)]
    Terrain(#[from] TerrainError),
    #[error(transparent)]
    Export(#[from] ExportError),
    /// The recipe (with the flags over it) cannot be grown.
    #[error("{0}")]
    Recipe(#[from] RecipeError),
    #[error(transparent)]
    Glb(#[from] GlbError),
    #[error(transparent)]
    Solid(#[from] SolidError),
    /// The 3MF package could not be put together.
    #[error("cannot write the 3MF package: {0}")]
    ThreeMf(#[from] zip::result::ZipError),
    /// Flags that do not fit together.
    #[error("{0}")]
    Usage(String),
}

/// The heightmap algorithms of `generate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AlgorithmArg {
    /// Classic fault formation: random lines, one side raised, the other lowered.
    Fault,
    /// A BSP tree of random fault segments per iteration.
    Bsp,
    /// A structured BSP tree per iteration (the HoloLens demo's).
    BspStructured,
    /// Diamond-square midpoint displacement.
    DiamondSquare,
    /// Square midpoint displacement with roughness (--amplitude: the first offsets).
    Midpoint,
    /// Repeated magnification and probing, Voronoi variant (--amplitude: peak height, --iterations: rounds).
    Rmp,
    /// Tectonic plates: drifting convex plates collide in a physics world, ranges rise where they meet (--amplitude: uplift per step, --iterations: physics steps).
    Plates,
}

/// How classic fault lines are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LineArg {
    /// Through two random points (lines crowd the centre, corners stay quiet).
    TwoPoints,
    /// Through a random point at a random angle.
    PointAngle,
}

/// Per-iteration shaping of fault runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShapingArg {
    /// The HoloLens demo's: edge falloff, heights ≥ 0, locked border, one IIR pass (k = 0.1) per iteration.
    Demo,
    /// None: faults only.
    None,
}

/// How `--tile` makes its seamless world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TileMethodArg {
    /// Local faults fixed in world coordinates.
    Fault,
    /// Edge-matched quadtree midpoint displacement (after "Matching Edge
    /// Altitudes of Different Fractal Squares").
    Quadtree,
}

/// A tile index `I,J`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileIndex {
    /// Column of tiles.
    pub i: i64,
    /// Row of tiles.
    pub j: i64,
}

impl std::str::FromStr for TileIndex {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("expected I,J (two integers, e.g. 0,-1), got `{s}`");
        let (i, j) = s.split_once(',').ok_or_else(bad)?;
        let limit = 1i64 << 32;
        let parse = |v: &str| v.trim().parse::<i64>().ok().filter(|n| n.abs() < limit);
        Ok(TileIndex {
            i: parse(i).ok_or_else(bad)?,
            j: parse(j).ok_or_else(bad)?,
        })
    }
}

/// Flags of `holoterrain generate`.
#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// Write the terrain a command log (a run's commands.jsonl) ended
    /// with: its recipe, seed, size and every command (reseeds, landscapes,
    /// hand edits, undos), replayed bit for bit; takes no terrain flags.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = [
            "recipe", "algorithm", "size", "iterations", "depth", "amplitude", "seed",
            "displacement_min", "line", "raise_only", "fault_radius", "shaping", "filter",
            "fir", "gaussian", "thermal", "talus", "hydraulic", "mei", "particles", "tile",
        ]
    )]
    pub replay: Option<PathBuf>,
    /// Start from a recipe: a built-in name (`holoterrain recipes`) or a
    /// recipe file (a value with a / or ending in .toml); the flags given
    /// beside it override its values.
    #[arg(long, value_name = "NAME|FILE", conflicts_with = "tile")]
    pub recipe: Option<String>,
    /// Heightmap algorithm [default: bsp-structured; fault with --tile].
    #[arg(long, value_enum)]
    pub algorithm: Option<AlgorithmArg>,
    /// Heightmap size in samples, any W and H ≥ 2.
    #[arg(long, default_value = "257x257", value_name = "WxH")]
    pub size: Size,
    /// Fault iterations [default: 500 for BSP, 1000 for fault].
    #[arg(long, value_name = "N")]
    pub iterations: Option<usize>,
    /// BSP tree depth [default: 5].
    #[arg(long, value_name = "D")]
    pub depth: Option<u32>,
    /// BSP root amplitude, classic fault's first displacement (falling to a fifth of it),
    /// diamond-square roughness, tile fault displacement, or quadtree tile
    /// roughness (0 to 4) [default: 0.005, 1.25, 1, 1, 1].
    #[arg(long, value_name = "A", allow_negative_numbers = true)]
    pub amplitude: Option<f32>,
    /// Seed: the same seed and flags give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Classic faults' last displacement [default: a fifth of the first];
    /// equal to --amplitude for a constant step.
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub displacement_min: Option<f64>,
    /// How classic fault lines are drawn [default: point-angle].
    #[arg(long, value_enum)]
    pub line: Option<LineArg>,
    /// Classic faults raise one side only.
    #[arg(long)]
    pub raise_only: bool,
    /// Classic faults fade with distance r from the line as (1 − (r/R)²)², R in samples.
    #[arg(long, value_name = "R")]
    pub fault_radius: Option<f64>,
    /// Per-iteration shaping [default: demo for BSP, none for fault].
    #[arg(long, value_enum)]
    pub shaping: Option<ShapingArg>,
    /// Smooth afterwards with the two-tap filter of coefficient K (0..1).
    #[arg(long, value_name = "K")]
    pub filter: Option<f32>,
    /// Passes of the two-tap filter [default: 1].
    #[arg(long, value_name = "N", requires = "filter")]
    pub filter_passes: Option<u32>,
    /// Use the true FIR two-tap filter instead of the demo's IIR one.
    #[arg(long)]
    pub fir: bool,
    /// Smooth afterwards with a Gaussian blur of this sigma (samples).
    #[arg(long, value_name = "SIGMA")]
    pub gaussian: Option<f32>,
    /// Thermal erosion iterations (on heights scaled to 0..1).
    #[arg(long, value_name = "N")]
    pub thermal: Option<u32>,
    /// Thermal erosion talus threshold, in 0..1 heights [default: 4/256].
    #[arg(long, value_name = "T")]
    pub talus: Option<f32>,
    /// Hydraulic erosion iterations (on heights scaled to 0..1).
    #[arg(long, value_name = "N")]
    pub hydraulic: Option<u32>,
    /// Mei's virtual-pipe hydraulic erosion iterations, after the others (the
    /// step kept in its stable range; docs/terrain.md).
    #[arg(long, value_name = "N")]
    pub mei: Option<u32>,
    /// Particle erosion: rain particles dropped, moving over the surface,
    /// dissolving and depositing; last.
    #[arg(long, value_name = "N")]
    pub particles: Option<u32>,
    /// Generate tile I,J of a seamless world: W×H tiles share their edge samples.
    #[arg(long, value_name = "I,J", allow_hyphen_values = true)]
    pub tile: Option<TileIndex>,
    /// How --tile makes its world: fault (local faults fixed in world
    /// coordinates) or quadtree (edge-matched midpoint-displacement squares;
    /// --size a square 2^n+1 from 2x2 to 4097x4097) [default: fault].
    #[arg(long, value_enum, value_name = "METHOD", requires = "tile")]
    pub tile_method: Option<TileMethodArg>,
    /// Output file [default: heightmap.png, .raw, .pgm, .f32, .glb, .stl
    /// or .3mf by format].
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Output format: png16, png8, raw16, pgm (heights normalised to
    /// integers), f32 (the heights as 32-bit little-endian floats), glb (the
    /// diorama as the hologram shows it, glTF 2.0 binary), stl or 3mf (the
    /// diorama as one watertight solid to print, millimetres).
    #[arg(long, default_value = "png16", value_parser = parse_format)]
    pub format: Format,
    /// With --format stl or 3mf: the land's width across, mm (1 to 2000) [default: 100].
    #[arg(long, value_name = "MM", allow_negative_numbers = true)]
    pub print_size: Option<f32>,
    /// With --format stl or 3mf: how many times taller than true the land
    /// stands (above 0, at most 100) [default: 1].
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    pub exaggeration: Option<f32>,
    /// With --format stl or 3mf: how far the flat bottom sits below the
    /// land's lowest point, mm (0.5 to 1000) [default: 5].
    #[arg(long, value_name = "MM", allow_negative_numbers = true)]
    pub base_mm: Option<f32>,
    /// Print min, max, mean, erosion score and hypsometric integral.
    #[arg(long)]
    pub stats: bool,
    /// Write the same metrics as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse::<Format>().map_err(|e| e.to_string())
}

/// What a finished `generate` run made.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The heightmap file written.
    pub out: PathBuf,
    /// Metrics of the final heightmap.
    pub metrics: Metrics,
}

/// Runs `generate`: builds the heightmap, writes it (and the stats) atomically.
/// `progress` is called with (done, total) during long fault runs.
pub fn run(
    args: &GenerateArgs,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Generated, GenerateError> {
    // The print flags are checked first: a mistake there costs no growth.
    let print_size = print_size_of(args)?;
    let (map, range, paint) = build(args, progress)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("heightmap.{}", args.format.extension())));
    let bytes = match args.format {
        Format::Glb => glb::land(&map, paint, HOLOGRAM_SIZE_M, underside(&map))?,
        Format::Stl => print::stl(&solid::solid(&map, print_size)?),
        Format::ThreeMf => print::three_mf(&solid::solid(&map, print_size)?)?,
        samples => export::encode(&map, samples, range)?,
    };
    let metrics = metrics(&map);
    let json = stats_json(&metrics);
    let mut files = vec![(out.as_path(), bytes.as_slice())];
    if let Some(path) = &args.stats_json {
        files.push((path.as_path(), json.as_bytes()));
    }
    // Both files are written in full before either is renamed into place,
    // so a failure leaves neither behind.
    export::write_all_atomically(&files)?;
    Ok(Generated { out, metrics })
}

/// Where the base's underside is, terrain units below the land's height
/// zero, as the app draws it under `map` (at the base's depth, or lower
/// when the land dips below it).
fn underside(map: &Heightmap) -> f32 {
    let (lowest, _) = map.min_max();
    (placement::base_bottom_m(lowest) - placement::BASE_DEPTH_M) / HOLOGRAM_SIZE_M
}

/// The print's size from `--print-size`, `--exaggeration` and `--base-mm`
/// (each defaulted), which only a print format takes.
fn print_size_of(args: &GenerateArgs) -> Result<PrintSize, GenerateError> {
    let given = [
        ("--print-size", args.print_size.is_some()),
        ("--exaggeration", args.exaggeration.is_some()),
        ("--base-mm", args.base_mm.is_some()),
    ];
    if !args.format.is_print()
        && let Some((flag, _)) = given.iter().find(|(_, is_given)| *is_given)
    {
        return Err(GenerateError::Usage(format!(
            "{flag} sizes a print: it takes --format stl or --format 3mf, not {}",
            args.format
        )));
    }
    let defaults = PrintSize::default();
    let size = PrintSize {
        size_mm: args.print_size.unwrap_or(defaults.size_mm),
        exaggeration: args.exaggeration.unwrap_or(defaults.exaggeration),
        base_mm: args.base_mm.unwrap_or(defaults.base_mm),
    };
    size.check().map_err(|error| match error {
        SolidError::OutOfRange { what, value, range } => {
            let flag = match what {
                Quantity::Size => "--print-size",
                Quantity::Exaggeration => "--exaggeration",
                Quantity::Base => "--base-mm",
            };
            GenerateError::Usage(format!("{flag} {value} is out of range: it takes {range}"))
        }
        other => other.into(),
    })?;
    Ok(size)
}

/// The metrics as the JSON object `--stats-json` writes.
pub fn stats_json(m: &Metrics) -> String {
    let mut s = serde_json::to_string_pretty(m).expect("metrics are plain numbers");
    s.push('\n');
    s
}

/// The metrics as `--stats` prints them.
pub fn stats_text(m: &Metrics) -> String {
    format!(
        "min {:.6}\nmax {:.6}\nmean {:.6}\nerosion score {:.6}\nhypsometric integral {:.6}",
        m.min, m.max, m.mean, m.erosion_score, m.hypsometric_integral
    )
}

/// Builds the heightmap and the fixed export range, if the mode needs one.
fn build(
    args: &GenerateArgs,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Built, GenerateError> {
    if let Some(tile) = args.tile {
        let built = match args.tile_method.unwrap_or(TileMethodArg::Fault) {
            TileMethodArg::Fault => {
                let algorithm = args.algorithm.unwrap_or(AlgorithmArg::Fault);
                build_tile(args, algorithm, tile)
            }
            TileMethodArg::Quadtree => build_quadtree_tile(args, tile),
        };
        return built.map(|(map, range)| (map, Some(range), Paint::default()));
    }
    if let Some(path) = &args.replay {
        let (map, paint) = replayed(path)?;
        return Ok((map, None, paint));
    }
    let recipe = recipe_of(args)?;
    let paint = Paint::of(&recipe);
    let mut growth = RecipeGrowth::new(
        recipe,
        args.size.width as usize,
        args.size.height as usize,
        args.seed,
    )?;
    growth.run_to_end(progress);
    Ok((growth.into_heightmap(), None, paint))
}

/// What `generate` made: the heights, the range a tile world normalises
/// its samples over, and how the land is painted.
type Built = (Heightmap, Option<(f32, f32)>, Paint);

/// The terrain the command log at `path` ended with, and how it is painted.
fn replayed(path: &std::path::Path) -> Result<(Heightmap, Paint), GenerateError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|error| {
        GenerateError::Usage(format!(
            "cannot read the command log {shown}: {error}; give --replay a run's commands.jsonl"
        ))
    })?;
    let log = CommandLog::parse(&text)
        .map_err(|error| GenerateError::Usage(format!("command log {shown}: {error}")))?;
    let world = log
        .replay_offline()
        .map_err(|error| GenerateError::Usage(format!("command log {shown}: {error}")))?;
    Ok((world.heightmap().clone(), Paint::of(world.recipe())))
}

/// The recipe the flags ask for: `--recipe`'s (or the chosen algorithm's
/// defaults), with every flag given put over it.
pub fn recipe_of(args: &GenerateArgs) -> Result<Recipe, GenerateError> {
    let mut recipe = match &args.recipe {
        Some(name) => {
            let mut recipe = Recipe::load(name)?;
            if let Some(algorithm) = args.algorithm {
                recipe.growth = default_growth(algorithm);
            }
            recipe
        }
        None => {
            let algorithm = args.algorithm.unwrap_or(AlgorithmArg::BspStructured);
            let shaped = matches!(algorithm, AlgorithmArg::Bsp | AlgorithmArg::BspStructured);
            Recipe {
                description: "from generate's flags".into(),
                sea_level: None,
                across_km: None,
                palette: PaletteName::default(),
                growth: default_growth(algorithm),
                shaping: if shaped {
                    DEMO_SHAPING
                } else {
                    Shaping::default()
                },
                finish: Vec::new(),
                weathering: Weathering::default(),
            }
        }
    };
    override_growth(args, &mut recipe.growth)?;
    if let Some(shaping) = args.shaping {
        recipe.shaping = match shaping {
            ShapingArg::Demo => DEMO_SHAPING,
            ShapingArg::None => Shaping::default(),
        };
    }
    if args.filter.is_some() || args.gaussian.is_some() {
        recipe.finish.clear();
    }
    if let Some(k) = args.filter {
        let passes = args.filter_passes.unwrap_or(1);
        recipe.finish.push(if args.fir {
            Finish::Fir { k, passes }
        } else {
            Finish::Iir { k, passes }
        });
    }
    if let Some(sigma) = args.gaussian {
        recipe.finish.push(Finish::Gaussian { sigma });
    }
    if let Some(iterations) = args.thermal {
        let thermal = recipe
            .weathering
            .thermal
            .get_or_insert_with(Thermal::default);
        thermal.iterations = iterations;
    }
    if let Some(talus) = args.talus {
        let Some(thermal) = recipe.weathering.thermal.as_mut() else {
            return Err(GenerateError::Usage(
                "--talus needs thermal erosion: add --thermal N (or a recipe with it)".into(),
            ));
        };
        thermal.talus = talus;
    }
    if let Some(iterations) = args.hydraulic {
        let hydraulic = recipe
            .weathering
            .hydraulic
            .get_or_insert_with(Hydraulic::default);
        hydraulic.iterations = iterations;
    }
    if let Some(iterations) = args.mei {
        let mei = recipe.weathering.mei.get_or_insert_with(MeiParams::default);
        mei.iterations = iterations;
    }
    if let Some(count) = args.particles {
        let particles = recipe
            .weathering
            .particles
            .get_or_insert_with(ParticleParams::default);
        particles.particles = count;
    }
    recipe.validate()?;
    Ok(recipe)
}

/// The demo's per-iteration shaping, `--shaping demo`.
const DEMO_SHAPING: Shaping = Shaping {
    edge_falloff: true,
    clamp_non_negative: true,
    lock_border: true,
    smoothing: Some(0.1),
};

/// `algorithm` with generate's defaults.
fn default_growth(algorithm: AlgorithmArg) -> Growth {
    let demo = GeneratorConfig::hololens_demo(2, 2);
    let bsp = BspGrowth {
        iterations: demo.iterations,
        depth: demo.depth,
        amplitude: demo.amplitude,
    };
    match algorithm {
        AlgorithmArg::Fault => Growth::Fault {
            iterations: 1000,
            line: Line::PointAngle,
            displacement_max: 1.25,
            displacement_min: 1.25 / 5.0,
            raise_only: false,
            falloff_radius: None,
        },
        AlgorithmArg::Bsp => Growth::Bsp(bsp),
        AlgorithmArg::BspStructured => Growth::BspStructured(bsp),
        AlgorithmArg::DiamondSquare => Growth::DiamondSquare { roughness: 1.0 },
        AlgorithmArg::Midpoint => {
            let params = MidpointParams::default();
            Growth::Midpoint {
                amplitude: params.amplitude,
                roughness: params.roughness,
            }
        }
        AlgorithmArg::Rmp => {
            let params = RmpParams::default();
            Growth::Rmp {
                peaks: params.peaks,
                peak_at: params.peak_at,
                cones: params.cones,
                iterations: params.iterations,
                height: params.height,
            }
        }
        AlgorithmArg::Plates => {
            let params = PlatesParams::default();
            Growth::Plates {
                plates: params.plates,
                steps: params.steps,
                cones: params.cones,
                uplift: params.uplift,
                drift: params.drift,
            }
        }
    }
}

/// Puts the growth flags given over `growth`; a flag for another
/// algorithm's growth is ignored, as it always was.
fn override_growth(args: &GenerateArgs, growth: &mut Growth) -> Result<(), GenerateError> {
    if let Some(count) = args.iterations
        && !(1..=MAX_ITERATIONS).contains(&count)
    {
        return Err(TerrainError::out_of_range("--iterations", count, "1 to 10000000").into());
    }
    match growth {
        Growth::Fault {
            iterations,
            line,
            displacement_max,
            displacement_min,
            raise_only,
            falloff_radius,
        } => {
            *iterations = args.iterations.unwrap_or(*iterations);
            if let Some(amplitude) = args.amplitude {
                *displacement_max = f64::from(amplitude);
                *displacement_min = f64::from(amplitude) / 5.0;
            }
            *displacement_min = args.displacement_min.unwrap_or(*displacement_min);
            if let Some(choice) = args.line {
                *line = match choice {
                    LineArg::TwoPoints => Line::TwoPoints,
                    LineArg::PointAngle => Line::PointAngle,
                };
            }
            *raise_only |= args.raise_only;
            *falloff_radius = args.fault_radius.or(*falloff_radius);
        }
        Growth::Bsp(bsp) | Growth::BspStructured(bsp) => {
            bsp.iterations = args.iterations.unwrap_or(bsp.iterations);
            bsp.depth = args.depth.unwrap_or(bsp.depth);
            bsp.amplitude = args.amplitude.unwrap_or(bsp.amplitude);
        }
        Growth::DiamondSquare { roughness } => {
            *roughness = args.amplitude.unwrap_or(*roughness);
        }
        Growth::Midpoint { amplitude, .. } => {
            *amplitude = args.amplitude.unwrap_or(*amplitude);
        }
        Growth::Rmp {
            iterations, height, ..
        } => {
            if let Some(count) = args.iterations {
                *iterations = u32::try_from(count).unwrap_or(u32::MAX);
            }
            *height = args.amplitude.unwrap_or(*height);
        }
        Growth::Plates { steps, uplift, .. } => {
            if let Some(count) = args.iterations {
                *steps = u32::try_from(count).unwrap_or(u32::MAX);
            }
            *uplift = args.amplitude.unwrap_or(*uplift);
        }
        Growth::Quadtree { amplitude, .. } => {
            *amplitude = args.amplitude.unwrap_or(*amplitude);
        }
    }
    Ok(())
}

/// Tile (i, j) of the seamless world, with the world's fixed export range.
fn build_tile(
    args: &GenerateArgs,
    algorithm: AlgorithmArg,
    tile: TileIndex,
) -> Result<(Heightmap, (f32, f32)), GenerateError> {
    if algorithm != AlgorithmArg::Fault {
        return Err(GenerateError::Usage(
            "--tile works with --algorithm fault (faults fixed in world coordinates)".into(),
        ));
    }
    refuse_per_tile_steps(args)?;
    let world = TileWorld::new(args.seed, f64::from(args.amplitude.unwrap_or(1.0)));
    let map = world.tile(
        tile.i,
        tile.j,
        args.size.width as usize,
        args.size.height as usize,
    )?;
    Ok((map, world.export_range()))
}

/// Refuses smoothing and erosion with `--tile`.
fn refuse_per_tile_steps(args: &GenerateArgs) -> Result<(), GenerateError> {
    if args.filter.is_some()
        || args.gaussian.is_some()
        || args.thermal.is_some()
        || args.hydraulic.is_some()
        || args.mei.is_some()
        || args.particles.is_some()
    {
        return Err(GenerateError::Usage(
            "smoothing and erosion see only one tile and would break its seams: drop them with --tile".into(),
        ));
    }
    Ok(())
}

/// Square (i, j) of the edge-matched quadtree world, expanded to the level
/// `--size` asks for (2^level + 1 samples a side), with the world's fixed
/// export range.
fn build_quadtree_tile(
    args: &GenerateArgs,
    tile: TileIndex,
) -> Result<(Heightmap, (f32, f32)), GenerateError> {
    if args.algorithm.is_some() {
        return Err(GenerateError::Usage(
            "--tile-method quadtree is its own algorithm: drop --algorithm".into(),
        ));
    }
    refuse_per_tile_steps(args)?;
    let (w, h) = (args.size.width as usize, args.size.height as usize);
    let level = (0..=quadtree::MAX_LEVEL).find(|&l| w == h && w == (1 << l) + 1);
    let Some(level) = level else {
        return Err(GenerateError::Usage(format!(
            "--tile-method quadtree needs a square --size of 2^n+1 samples (2x2, 3x3, 5x5, 9x9, … 257x257, 513x513, … 4097x4097), got {w}x{h}"
        )));
    };
    let mut world = QuadtreeWorld::new(args.seed, args.amplitude.unwrap_or(1.0))?;
    let map = world.tile(tile.i, tile.j, level)?;
    Ok((map, world.export_range()))
}

/// A progress bar on stderr that appears only once a run has taken a moment,
/// and only when stderr is a terminal.
pub struct LazyProgress {
    /// When the run started.
    started: Instant,
    /// The bar, once shown.
    bar: Option<indicatif::ProgressBar>,
}

impl Default for LazyProgress {
    fn default() -> Self {
        LazyProgress {
            started: Instant::now(),
            bar: None,
        }
    }
}

impl LazyProgress {
    /// How long a run goes before its bar appears.
    const DELAY: Duration = Duration::from_millis(400);

    pub fn update(&mut self, done: usize, total: usize) {
        if self.bar.is_none() && self.started.elapsed() >= Self::DELAY {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(total as u64),
                indicatif::ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} iterations, {eta} left",
                )
                .expect("the template is valid"),
            );
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
