//! `holoterrain generate`: offline heightmap generation and export from the same engine.
//!
//! It sits above the layers it uses: the engine (`terrain`) for the heights
//! and the sample formats, and for the glb mesh the renderer's grid and
//! palette (`render`) placed as the app places the hologram (`app`).
use crate::app::placement::Placement;
use crate::input::Pose;
use crate::render::ColorBands;
use crate::render::glb::{self, GlbError};
use crate::size::Size;
use crate::terrain::erosion::{self, HydraulicParams, ThermalParams};
use crate::terrain::export::{self, ExportError, Format};
use crate::terrain::fault::{FaultParams, LineChoice};
use crate::terrain::metrics::{Metrics, metrics};
use crate::terrain::tiles::TileWorld;
use crate::terrain::{
    Algorithm, Generator, GeneratorConfig, Heightmap, TerrainError, diamond_square, filter,
};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Largest iteration count accepted: past this a run takes hours.
pub const MAX_ITERATIONS: usize = 10_000_000;

/// What can stop `generate`.
#[derive(Debug, Error)]
pub enum GenerateError {
    #[error(transparent)]
    Terrain(#[from] TerrainError),
    #[error(transparent)]
    Export(#[from] ExportError),
    #[error(transparent)]
    Glb(#[from] GlbError),
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
    /// Heightmap algorithm [default: bsp-structured; fault with --tile].
    #[arg(long, value_enum)]
    pub algorithm: Option<AlgorithmArg>,
    /// Heightmap size in samples, any W and H ≥ 2.
    #[arg(long, default_value = "257x257", value_name = "WxH")]
    pub size: Size,
    /// Fault iterations [default: 500 for BSP, 1000 for fault].
    #[arg(long, value_name = "N")]
    pub iterations: Option<usize>,
    /// BSP tree depth.
    #[arg(long, default_value_t = 5, value_name = "D")]
    pub depth: u32,
    /// BSP root amplitude, classic fault's first displacement (falling to a fifth of it),
    /// diamond-square roughness, or tile fault displacement [default: 0.005, 1.25, 1, 1].
    #[arg(long, value_name = "A", allow_negative_numbers = true)]
    pub amplitude: Option<f32>,
    /// Seed: the same seed and flags give the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How classic fault lines are drawn.
    #[arg(long, value_enum, default_value_t = LineArg::PointAngle)]
    pub line: LineArg,
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
    /// Passes of the two-tap filter.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub filter_passes: u32,
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
    /// Generate tile I,J of a seamless world: W×H tiles share their edge samples.
    #[arg(long, value_name = "I,J", allow_hyphen_values = true)]
    pub tile: Option<TileIndex>,
    /// Output file [default: heightmap.png, .raw, .pgm, .f32 or .glb by format].
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Output format: png16, png8, raw16, pgm (heights normalised to
    /// integers), f32 (the heights as 32-bit little-endian floats), glb (the
    /// terrain mesh as the hologram shows it, glTF 2.0 binary).
    #[arg(long, default_value = "png16", value_parser = parse_format)]
    pub format: Format,
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
    let (map, range) = build(args, progress)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("heightmap.{}", args.format.extension())));
    let bytes = match args.format {
        Format::Glb => terrain_glb(&map, range)?,
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

/// The terrain mesh as the app draws it: on the hologram's footprint (the
/// model matrix of a placement at the origin at 1×: metres, +Y up), its
/// colour bands spread over the map's own heights by the thesis' rule, or
/// over a tile world's fixed `range`, so neighbouring tiles agree at their seams.
fn terrain_glb(map: &Heightmap, range: Option<(f32, f32)>) -> Result<Vec<u8>, GenerateError> {
    let (lo, hi) = range.unwrap_or_else(|| map.min_max());
    let model = Placement::at(Pose::IDENTITY).model_matrix();
    Ok(glb::encode(map, model, &ColorBands::spread_over(lo, hi))?)
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
) -> Result<(Heightmap, Option<(f32, f32)>), GenerateError> {
    let (width, height) = (args.size.width as usize, args.size.height as usize);
    let algorithm = args.algorithm.unwrap_or(if args.tile.is_some() {
        AlgorithmArg::Fault
    } else {
        AlgorithmArg::BspStructured
    });
    if let Some(tile) = args.tile {
        return build_tile(args, algorithm, tile).map(|(map, range)| (map, Some(range)));
    }
    let mut map = match algorithm {
        AlgorithmArg::DiamondSquare => {
            diamond_square::diamond_square(width, height, args.amplitude.unwrap_or(1.0), args.seed)?
        }
        AlgorithmArg::Fault | AlgorithmArg::Bsp | AlgorithmArg::BspStructured => {
            let config = fault_config(args, algorithm)?;
            let mut generator = Generator::new(config, args.seed)?;
            generator.run_to_end(progress);
            generator.into_heightmap()
        }
    };
    post_process(args, &mut map)?;
    Ok((map, None))
}

/// The generator configuration the flags ask for.
fn fault_config(
    args: &GenerateArgs,
    algorithm: AlgorithmArg,
) -> Result<GeneratorConfig, GenerateError> {
    let (width, height) = (args.size.width as usize, args.size.height as usize);
    let is_fault = algorithm == AlgorithmArg::Fault;
    let iterations = args.iterations.unwrap_or(if is_fault { 1000 } else { 500 });
    if !(1..=MAX_ITERATIONS).contains(&iterations) {
        return Err(TerrainError::out_of_range("--iterations", iterations, "1 to 10000000").into());
    }
    let shaping = args.shaping.unwrap_or(if is_fault {
        ShapingArg::None
    } else {
        ShapingArg::Demo
    });
    let demo = GeneratorConfig::hololens_demo(width, height);
    let shaped = shaping == ShapingArg::Demo;
    let amplitude = args
        .amplitude
        .unwrap_or(if is_fault { 1.25 } else { demo.amplitude });
    Ok(GeneratorConfig {
        algorithm: match algorithm {
            AlgorithmArg::Fault => Algorithm::Fault,
            AlgorithmArg::Bsp => Algorithm::Bsp,
            _ => Algorithm::BspStructured,
        },
        iterations,
        depth: args.depth,
        amplitude,
        fault: FaultParams {
            line_choice: match args.line {
                LineArg::TwoPoints => LineChoice::TwoPoints,
                LineArg::PointAngle => LineChoice::PointAngle,
            },
            displacement_max: f64::from(amplitude),
            displacement_min: f64::from(amplitude) / 5.0,
            lower_other_side: !args.raise_only,
            falloff_radius: args.fault_radius,
        },
        smoothing: if shaped { demo.smoothing } else { None },
        edge_falloff: shaped,
        clamp_non_negative: shaped,
        lock_border: shaped,
        ..demo
    })
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
    if args.filter.is_some()
        || args.gaussian.is_some()
        || args.thermal.is_some()
        || args.hydraulic.is_some()
    {
        return Err(GenerateError::Usage(
            "smoothing and erosion see only one tile and would break its seams: drop them with --tile".into(),
        ));
    }
    let world = TileWorld::new(args.seed, f64::from(args.amplitude.unwrap_or(1.0)));
    let map = world.tile(
        tile.i,
        tile.j,
        args.size.width as usize,
        args.size.height as usize,
    )?;
    Ok((map, world.export_range()))
}

/// Smoothing, then erosion, as the flags ask.
fn post_process(args: &GenerateArgs, map: &mut Heightmap) -> Result<(), GenerateError> {
    if let Some(k) = args.filter {
        for _ in 0..args.filter_passes {
            if args.fir {
                filter::fir_two_tap(map, k)?;
            } else {
                filter::iir_two_tap(map, k)?;
            }
        }
    }
    if let Some(sigma) = args.gaussian {
        filter::gaussian(map, sigma)?;
    }
    if args.thermal.is_none() && args.hydraulic.is_none() {
        return Ok(());
    }
    // Erosion constants are meant for heights in 0..1: erode a scaled copy.
    let (lo, hi) = map.min_max();
    let span = if hi > lo { hi - lo } else { 1.0 };
    for h in map.cells_mut() {
        *h = (*h - lo) / span;
    }
    if let Some(iterations) = args.thermal {
        let params = ThermalParams {
            iterations,
            talus: args.talus.unwrap_or(ThermalParams::default().talus),
            ..ThermalParams::default()
        };
        erosion::thermal(map, &params)?;
    }
    if let Some(iterations) = args.hydraulic {
        erosion::hydraulic(
            map,
            &HydraulicParams {
                iterations,
                ..HydraulicParams::default()
            },
        )?;
    }
    for h in map.cells_mut() {
        *h = lo + *h * span;
    }
    Ok(())
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
