//! Midpoint displacement with roughness (the introduction to §3.1 of Fritz, "Procedural Generation of Mountain Ranges Based on Geology", 2016: Fournier et al. 1982), along a line and on a W×H map.
//!
//! **Along a line** ([`midpoint_line`]): the two ends start at 0; every
//! level halves each segment, setting its midpoint to the mean of the
//! segment's two ends plus a random offset, uniform in `[−a_k, a_k)`. The
//! first level's range is `a_0 = 1` and every level multiplies it by
//! `roughness`: `a_k = roughness^k = 2^(−H·k)`, so `roughness = 2^−H`, where
//! `H` is the Hurst exponent of Fournier et al.'s fractional Brownian
//! motion (`H = −log2 roughness`). `roughness = 0.5` (`H = 1`) is the
//! halving of the thesis' listing 3.1 (`roughness /= 2.0` per level), `1`
//! (`H = 0`) keeps the range (the roughest, close to white noise), `0` leaves
//! only the first offset (straight segments after it).
//!
//! **On a map** ([`midpoint`], [`MidpointGrowth`]): the square form on the
//! smallest grid of side 2^n + 1 covering `max(width, height)`, cropped to
//! its top-left `width × height` as [`diamond_square`](super::diamond_square)
//! does. The four corners start at 0; each level splits every square into
//! four: each edge midpoint gets the mean of that edge's two ends, each
//! centre the mean of its square's four corners, each plus an offset in
//! `[−a_k, a_k)` with `a_k = amplitude · roughness^k`. Unlike diamond-square,
//! a new point never reads another point of its own level, so a level's
//! points can be made in any order and only those the crop needs are made.
//!
//! The offsets of grid row `y` of the level whose new points are `h` apart
//! come from their own [`TerrainRng::at`]`(seed, h, y)` stream, drawn left
//! to right, so a point's offset depends only on the seed and its place:
//! row 0 of the map is exactly the line [`midpoint_line`] makes (for
//! `amplitude = 1` and the same grid side), and a crop is the top-left of
//! the covering square map.
use super::diamond_square::grid_side;
use super::error::TerrainError;
use super::heightmap::Heightmap;
use super::heightmap::{MAX_CELLS, check_size};
use super::rng::TerrainRng;
use super::sliced::assert_map_size;
use super::sliced::{SLICE_CELLS, Sliced};

/// Largest [`MidpointParams::amplitude`].
pub const MAX_AMPLITUDE: f32 = 1.0e6;

/// Parameters of [`midpoint`] and [`MidpointGrowth`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MidpointParams {
    /// Half the range of the first level's offsets, `a_0` (height units);
    /// `0..=1e6`, default 1. Heights stay within `±Σ_k a_k`, less than
    /// `amplitude / (1 − roughness)` (and `amplitude · levels` at roughness 1).
    pub amplitude: f32,
    /// The factor each level multiplies the offset range by, `2^−H`;
    /// `0..=1`, default 0.5 (the thesis' halving, `H = 1`). Larger is rougher.
    pub roughness: f32,
}

impl Default for MidpointParams {
    fn default() -> Self {
        MidpointParams {
            amplitude: 1.0,
            roughness: 0.5,
        }
    }
}

impl MidpointParams {
    /// Checks both parameters' ranges; the error names the first one out of range.
    pub fn validate(&self) -> Result<(), TerrainError> {
        if !(0.0..=MAX_AMPLITUDE).contains(&self.amplitude) {
            return Err(TerrainError::out_of_range(
                "amplitude",
                self.amplitude,
                "0 <= amplitude <= 1e6",
            ));
        }
        check_roughness(self.roughness)
    }
}

fn check_roughness(roughness: f32) -> Result<(), TerrainError> {
    if (0.0..=1.0).contains(&roughness) {
        Ok(())
    } else {
        Err(TerrainError::out_of_range(
            "roughness",
            roughness,
            "0 <= roughness <= 1",
        ))
    }
}

/// The smallest multiple of `step` that is at least `n`.
fn ceil_to(n: usize, step: usize) -> usize {
    n.div_ceil(step) * step
}

/// Uniform in `[−amplitude, amplitude)`, as diamond-square draws it.
fn random_offset(rng: &mut TerrainRng, amplitude: f64) -> f32 {
    (amplitude * (rng.range(0.0, 2.0) - 1.0)) as f32
}

/// A midpoint-displacement line of `samples` heights (2 ..= 2^28).
///
/// Made on the smallest line of 2^n + 1 samples covering `samples` and
/// cropped; both ends of that line are 0, the first midpoint's offset is in
/// `[−1, 1)` and each level's range is the last one's times `roughness`
/// (`0..=1`, see the [module](self) for its meaning).
pub fn midpoint_line(samples: usize, roughness: f32, seed: u64) -> Result<Vec<f32>, TerrainError> {
    if !(2..=MAX_CELLS).contains(&samples) {
        return Err(TerrainError::out_of_range(
            "samples",
            samples,
            "2 <= samples <= 268435456",
        ));
    }
    check_roughness(roughness)?;
    let side = grid_side(samples);
    let mut line = vec![0.0f32; side];
    let mut amplitude = 1.0f64;
    let mut step = side - 1;
    while step > 1 {
        let half = step / 2;
        let mut rng = TerrainRng::at(seed, half as i64, 0);
        // Only the midpoints the crop (or a finer level inside it) needs.
        for x in (half..=ceil_to(samples - 1, half)).step_by(step) {
            let ends = line[x - half] + line[x + half];
            line[x] = ends / 2.0 + random_offset(&mut rng, amplitude);
        }
        amplitude *= f64::from(roughness);
        step = half;
    }
    line.truncate(samples);
    Ok(line)
}

/// A midpoint-displacement map of `width × height` samples: the square
/// form described in the [module](self) docs. This is [`MidpointGrowth`]
/// run to the end without showing the intermediate levels.
pub fn midpoint(
    width: usize,
    height: usize,
    params: &MidpointParams,
    seed: u64,
) -> Result<Heightmap, TerrainError> {
    let mut growth = MidpointGrowth::new(width, height, params, seed)?;
    for i in 0..growth.plan.len() {
        growth.compute(growth.plan[i]);
    }
    let side = growth.side;
    let mut cells = Vec::with_capacity(width * height);
    for row in growth.grid.chunks_exact(side).take(height) {
        cells.extend_from_slice(&row[..width]);
    }
    Heightmap::from_cells(width, height, cells)
}

/// What one slice of a [`MidpointGrowth`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    /// Shows the corners' 0 over the whole map.
    Corners,
    /// The new points of level `level` (0 = the first), `half` apart, on
    /// grid rows `rows.0..rows.1` (multiples of `half`).
    Band {
        level: usize,
        half: usize,
        rows: (usize, usize),
    },
}

/// Weight of computing one grid point (a draw of the generator, two or four
/// loads) against showing one map cell, in [`SLICE_CELLS`]' cheap units.
const POINT_WEIGHT: usize = 2;

/// Midpoint displacement grown a bounded slice at a time: the job behind
/// [`midpoint`], whose result the map holds bit for bit after the last
/// slice.
///
/// The first slice shows the corners (a flat map at 0); then come the
/// levels in order, each split into bands of grid rows whose work (points
/// made, map cells shown) stays within about [`SLICE_CELLS`]; a row that
/// shows nothing on the crop (needed only by finer levels) joins the band
/// it follows or precedes, so every slice changes the map. The slice count
/// follows from the size alone. After every slice each map cell shows the
/// grid point that owns it at the finest spacing made so far (a point of
/// spacing `s` at (x, y) owns `[x, x + s) × [y, y + s)`), as
/// [`DiamondSquareGrowth`](super::DiamondSquareGrowth) shows its levels: the
/// terrain sharpens level by level from a flat block to the final map.
#[derive(Clone)]
pub struct MidpointGrowth {
    width: usize,
    height: usize,
    /// Side of the square grid, 2^n + 1.
    side: usize,
    /// The grid made so far (only the points the crop needs are ever made).
    grid: Vec<f32>,
    seed: u64,
    /// Offset range of each level, `amplitude · roughness^level`.
    amplitudes: Vec<f64>,
    /// Every slice's work, in order.
    plan: Vec<Work>,
    done: usize,
}

impl MidpointGrowth {
    /// The job of `midpoint(width, height, params, seed)`, with the same validation.
    pub fn new(
        width: usize,
        height: usize,
        params: &MidpointParams,
        seed: u64,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        params.validate()?;
        let side = grid_side(width.max(height));
        check_size(side, side)?;
        let mut amplitudes = Vec::new();
        let mut amplitude = f64::from(params.amplitude);
        let mut step = side - 1;
        while step > 1 {
            amplitudes.push(amplitude);
            amplitude *= f64::from(params.roughness);
            step /= 2;
        }
        Ok(MidpointGrowth {
            width,
            height,
            side,
            grid: vec![0.0; side * side],
            seed,
            amplitudes,
            plan: plan(side, width, height),
            done: 0,
        })
    }

    /// Makes the new points of one slice's rows.
    fn compute(&mut self, work: Work) {
        let Work::Band { level, half, rows } = work else {
            return;
        };
        let side = self.side;
        let amplitude = self.amplitudes[level];
        let last_x = ceil_to(self.width - 1, half);
        let grid = &mut self.grid;
        for y in (rows.0..rows.1).step_by(half) {
            let mut rng = TerrainRng::at(self.seed, half as i64, y as i64);
            if (y / half).is_multiple_of(2) {
                // A row of the coarser grid: midpoints of its horizontal edges.
                let row = y * side;
                for x in (half..=last_x).step_by(2 * half) {
                    let ends = grid[row + x - half] + grid[row + x + half];
                    grid[row + x] = ends / 2.0 + random_offset(&mut rng, amplitude);
                }
            } else {
                // Between two coarser rows: vertical edges' midpoints at even
                // multiples of `half`, squares' centres at odd ones.
                let (above, row, below) = ((y - half) * side, y * side, (y + half) * side);
                for x in (0..=last_x).step_by(half) {
                    let mean = if (x / half).is_multiple_of(2) {
                        (grid[above + x] + grid[below + x]) / 2.0
                    } else {
                        let corners = grid[above + x - half]
                            + grid[above + x + half]
                            + grid[below + x - half]
                            + grid[below + x + half];
                        corners / 4.0
                    };
                    grid[row + x] = mean + random_offset(&mut rng, amplitude);
                }
            }
        }
    }

    /// Shows on `map` the points `work` made, each over the `half × half`
    /// block it owns, cropped to the map.
    fn show(&self, work: Work, map: &mut Heightmap) {
        let (width, height, side) = (self.width, self.height, self.side);
        let cells = map.cells_mut();
        let Work::Band { half, rows, .. } = work else {
            cells.fill(self.grid[0]);
            return;
        };
        for y in (rows.0..rows.1.min(height)).step_by(half) {
            let grid_row = &self.grid[y * side..(y + 1) * side];
            let (shown, below) = cells[y * width..].split_at_mut(width);
            let (first_x, x_step) = if (y / half).is_multiple_of(2) {
                (half, 2 * half)
            } else {
                (0, half)
            };
            for x in (first_x..width).step_by(x_step) {
                shown[x..(x + half).min(width)].fill(grid_row[x]);
            }
            for row in below.chunks_exact_mut(width).take(half.min(height - y) - 1) {
                row.copy_from_slice(shown);
            }
        }
    }
}

/// Every slice's work for a `side × side` grid cropped to `width × height`:
/// the corners, then each level's grid rows in bands within
/// [`SLICE_CELLS`]. A level whose new points are `half` apart makes the
/// points up to `ceil_to(width − 1, half)` across and `ceil_to(height − 1,
/// half)` down, exactly those the crop and the finer levels read.
fn plan(side: usize, width: usize, height: usize) -> Vec<Work> {
    let mut plan = vec![Work::Corners];
    let mut half = (side - 1) / 2;
    let mut level = 0;
    while half >= 1 {
        let last_x = ceil_to(width - 1, half);
        let last_y = ceil_to(height - 1, half);
        let (mut start, mut work, mut shows) = (0, 0, false);
        for y in (0..=last_y).step_by(half) {
            let even = (y / half).is_multiple_of(2);
            let points = if even {
                (last_x / half).div_ceil(2)
            } else {
                last_x / half + 1
            };
            // An odd row's first point is at x = 0; an even row's at `half`.
            let row_shows = y < height && (!even || half < width);
            let this = POINT_WEIGHT * points
                + if y < height {
                    half.min(height - y) * width
                } else {
                    0
                };
            if shows && row_shows && work + this > SLICE_CELLS {
                plan.push(Work::Band {
                    level,
                    half,
                    rows: (start, y),
                });
                (start, work, shows) = (y, 0, false);
            }
            work += this;
            shows |= row_shows;
        }
        plan.push(Work::Band {
            level,
            half,
            rows: (start, last_y + 1),
        });
        half /= 2;
        level += 1;
    }
    plan
}

impl std::fmt::Debug for MidpointGrowth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MidpointGrowth")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("side", &self.side)
            .field("slices", &self.plan.len())
            .field("slices_done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Sliced for MidpointGrowth {
    fn slices(&self) -> usize {
        self.plan.len()
    }

    fn slices_done(&self) -> usize {
        self.done
    }

    fn step(&mut self, map: &mut Heightmap) {
        let Some(&work) = self.plan.get(self.done) else {
            return;
        };
        assert_map_size(map, self.width, self.height);
        self.compute(work);
        self.show(work, map);
        self.done += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(cells: &[f32]) -> Vec<u32> {
        cells.iter().map(|h| h.to_bits()).collect()
    }

    fn params(amplitude: f32, roughness: f32) -> MidpointParams {
        MidpointParams {
            amplitude,
            roughness,
        }
    }

    /// The line written the plain way: every midpoint of the whole 2^n + 1
    /// line, level by level, left to right, then the crop.
    fn reference_line(samples: usize, roughness: f32, seed: u64) -> Vec<f32> {
        let side = grid_side(samples);
        let mut line = vec![0.0f32; side];
        let mut amplitude = 1.0f64;
        let mut step = side - 1;
        while step > 1 {
            let half = step / 2;
            let mut rng = TerrainRng::at(seed, half as i64, 0);
            let mut x = half;
            while x < side {
                line[x] =
                    (line[x - half] + line[x + half]) / 2.0 + random_offset(&mut rng, amplitude);
                x += step;
            }
            amplitude *= f64::from(roughness);
            step = half;
        }
        line.truncate(samples);
        line
    }

    /// The map written the plain way: every point of the whole square grid,
    /// level by level, row by row, each row's points left to right, then
    /// the crop.
    fn reference(width: usize, height: usize, p: MidpointParams, seed: u64) -> Vec<f32> {
        let side = grid_side(width.max(height));
        let mut grid = vec![0.0f32; side * side];
        let at = |x: usize, y: usize| y * side + x;
        let mut amplitude = f64::from(p.amplitude);
        let mut step = side - 1;
        while step > 1 {
            let half = step / 2;
            for y in (0..side).step_by(half) {
                let mut rng = TerrainRng::at(seed, half as i64, y as i64);
                for x in (0..side).step_by(half) {
                    let odd_x = (x / half) % 2 == 1;
                    let odd_y = (y / half) % 2 == 1;
                    let mean = match (odd_x, odd_y) {
                        (false, false) => continue,
                        (true, false) => (grid[at(x - half, y)] + grid[at(x + half, y)]) / 2.0,
                        (false, true) => (grid[at(x, y - half)] + grid[at(x, y + half)]) / 2.0,
                        (true, true) => {
                            (grid[at(x - half, y - half)]
                                + grid[at(x + half, y - half)]
                                + grid[at(x - half, y + half)]
                                + grid[at(x + half, y + half)])
                                / 4.0
                        }
                    };
                    grid[at(x, y)] = mean + random_offset(&mut rng, amplitude);
                }
            }
            amplitude *= f64::from(p.roughness);
            step = half;
        }
        let mut cells = Vec::new();
        for y in 0..height {
            cells.extend_from_slice(&grid[at(0, y)..at(width, y)]);
        }
        cells
    }

    const SIZES: [(usize, usize); 8] = [
        (2, 2),
        (3, 2),
        (2, 9),
        (7, 3),
        (20, 33),
        (65, 40),
        (100, 7),
        (257, 257),
    ];

    #[test]
    fn the_line_is_the_plain_subdivision_bit_for_bit() {
        for samples in [2, 3, 4, 5, 17, 100, 257, 1000] {
            for roughness in [0.0, 0.5, 0.8, 1.0] {
                for seed in [0, 3] {
                    assert_eq!(
                        bits(&midpoint_line(samples, roughness, seed).unwrap()),
                        bits(&reference_line(samples, roughness, seed)),
                        "{samples} samples, roughness {roughness}, seed {seed}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_whole_function_is_the_plain_algorithm_bit_for_bit() {
        for (width, height) in SIZES {
            for p in [params(1.5, 0.5), params(2.0, 0.9), params(1.0, 0.0)] {
                for seed in [0, 5, 77] {
                    let map = midpoint(width, height, &p, seed).unwrap();
                    assert_eq!(
                        bits(map.cells()),
                        bits(&reference(width, height, p, seed)),
                        "{width}x{height} {p:?} seed {seed}"
                    );
                }
            }
        }
    }

    #[test]
    fn growing_slice_by_slice_ends_at_the_whole_function_through_finite_maps() {
        let p = params(2.0, 0.6);
        // Sum of the offset ranges: no height can leave it.
        let bound = 2.0 / (1.0 - 0.6) + 1e-3;
        for (width, height) in SIZES.into_iter().chain([(513, 300), (1000, 2), (2, 600)]) {
            for seed in [1, 9] {
                let mut growth = MidpointGrowth::new(width, height, &p, seed).unwrap();
                let mut map =
                    Heightmap::from_cells(width, height, vec![1e6; width * height]).unwrap();
                let mut steps = 0;
                while !growth.is_done() {
                    let before = map.clone();
                    let done = growth.slices_done();
                    growth.step(&mut map);
                    steps += 1;
                    assert_eq!(growth.slices_done(), done + 1);
                    assert!(
                        map.cells()
                            .iter()
                            .all(|h| h.is_finite() && h.abs() <= bound),
                        "{width}x{height}: slice {done}"
                    );
                    assert_ne!(map, before, "{width}x{height}: slice {done} showed nothing");
                }
                assert_eq!(steps, growth.slices(), "{width}x{height}");
                assert_eq!(
                    bits(map.cells()),
                    bits(&reference(width, height, p, seed)),
                    "{width}x{height} seed {seed}"
                );
                let end = map.clone();
                growth.step(&mut map);
                assert_eq!(bits(map.cells()), bits(end.cells()), "a step after the end");
                assert_eq!(growth.slices_done(), growth.slices());
            }
        }
    }

    #[test]
    fn slice_counts_follow_from_the_size() {
        let count = |w, h| {
            MidpointGrowth::new(w, h, &MidpointParams::default(), 0)
                .unwrap()
                .slices()
        };
        assert_eq!(count(2, 2), 1, "only the corners");
        assert_eq!(count(3, 3), 2, "the corners, one level");
        assert_eq!(count(9, 9), 4, "the corners, three small levels");
        // 257²: the corners, levels of spacing 128..16 in one slice each;
        // 8 and 4 in two bands, 2 in two, 1 in three (each ≤ 70 000 units).
        assert_eq!(count(257, 257), 13);
        let big = MidpointGrowth::new(513, 513, &MidpointParams::default(), 0).unwrap();
        for work in &big.plan {
            if let Work::Band { half, rows, .. } = *work {
                // Each band shows at most the budget's worth of cells, or
                // is one grid row of a coarse level (a fill of its block).
                let shown_rows = rows.1.min(513) - rows.0;
                assert!(
                    shown_rows * 513 <= SLICE_CELLS || shown_rows <= half,
                    "{work:?}"
                );
            }
        }
        assert_eq!(big.slices(), 45);
    }

    #[test]
    fn the_same_seed_gives_the_same_bits_and_seeds_differ() {
        let p = MidpointParams::default();
        let a = midpoint(33, 20, &p, 9).unwrap();
        assert_eq!(
            bits(a.cells()),
            bits(midpoint(33, 20, &p, 9).unwrap().cells())
        );
        assert_ne!(
            bits(a.cells()),
            bits(midpoint(33, 20, &p, 10).unwrap().cells())
        );
        let line = midpoint_line(100, 0.5, 9).unwrap();
        assert_eq!(bits(&line), bits(&midpoint_line(100, 0.5, 9).unwrap()));
        assert_ne!(bits(&line), bits(&midpoint_line(100, 0.5, 10).unwrap()));
    }

    #[test]
    fn ends_and_corners_stay_at_zero() {
        let line = midpoint_line(129, 0.7, 4).unwrap();
        assert_eq!((line[0], line[128]), (0.0, 0.0));
        assert_ne!(line[64], 0.0, "the first midpoint got an offset");
        let map = midpoint(65, 65, &params(3.0, 0.7), 4).unwrap();
        for (x, y) in [(0, 0), (64, 0), (0, 64), (64, 64)] {
            assert_eq!(map.get(x, y), 0.0);
        }
        assert_ne!(map.get(32, 32), 0.0);
        assert_eq!(
            midpoint(2, 2, &params(3.0, 0.7), 4).unwrap().cells(),
            &[0.0; 4]
        );
    }

    #[test]
    fn the_maps_top_row_is_the_line() {
        // Row 0 is subdivided by its own edges' midpoints alone.
        for (width, height) in [(129, 2), (129, 129), (100, 70)] {
            let map = midpoint(width, height, &params(1.0, 0.6), 12).unwrap();
            assert_eq!(
                bits(map.row(0)),
                bits(&midpoint_line(width, 0.6, 12).unwrap())
            );
        }
    }

    #[test]
    fn a_non_square_map_is_the_top_left_of_the_covering_square() {
        let full = midpoint(129, 129, &MidpointParams::default(), 5).unwrap();
        for (width, height) in [(100, 3), (7, 129), (65, 66)] {
            let crop = midpoint(width, height, &MidpointParams::default(), 5).unwrap();
            for y in 0..height {
                assert_eq!(
                    crop.row(y),
                    &full.row(y)[..width],
                    "{width}x{height} row {y}"
                );
            }
        }
    }

    /// Largest |point − mean of its parents| among the points of each level
    /// of a full (2^n + 1)² map, coarsest first.
    fn offsets_per_level(map: &Heightmap) -> Vec<f32> {
        let side = map.width();
        let mut out = Vec::new();
        let mut step = side - 1;
        while step > 1 {
            let half = step / 2;
            let mut largest = 0.0f32;
            for y in (0..side).step_by(half) {
                for x in (0..side).step_by(half) {
                    let g = |dx: isize, dy: isize| {
                        map.get((x as isize + dx) as usize, (y as isize + dy) as usize)
                    };
                    let h = half as isize;
                    let mean = match ((x / half) % 2, (y / half) % 2) {
                        (0, 0) => continue,
                        (1, 0) => (g(-h, 0) + g(h, 0)) / 2.0,
                        (0, 1) => (g(0, -h) + g(0, h)) / 2.0,
                        _ => (g(-h, -h) + g(h, -h) + g(-h, h) + g(h, h)) / 4.0,
                    };
                    largest = largest.max((map.get(x, y) - mean).abs());
                }
            }
            out.push(largest);
            step = half;
        }
        out
    }

    #[test]
    fn offsets_shrink_by_the_roughness_per_level() {
        for roughness in [0.5f32, 0.8] {
            let map = midpoint(257, 257, &params(2.0, roughness), 3).unwrap();
            let largest = offsets_per_level(&map);
            assert_eq!(largest.len(), 8);
            let mut range = 2.0f64;
            for (level, &offset) in largest.iter().enumerate() {
                // Within the level's range (give or take the f32 sum's rounding).
                assert!(
                    f64::from(offset) <= range * (1.0 + 1e-5) + 1e-5,
                    "level {level}: {offset} > {range}"
                );
                // From level 2 on a level has ≥ 80 points: its largest offset
                // nears the range.
                if level >= 2 {
                    assert!(
                        f64::from(offset) >= range * 0.75,
                        "level {level}: {offset} ≪ {range}"
                    );
                }
                range *= f64::from(roughness);
            }
        }
    }

    /// Mean squared height difference between samples `lag` apart.
    fn structure(line: &[f32], lag: usize) -> f64 {
        let n = line.len() - lag;
        (0..n)
            .map(|i| f64::from(line[i + lag] - line[i]).powi(2))
            .sum::<f64>()
            / n as f64
    }

    /// The Hurst exponent the line shows between lags 1 and 16: for
    /// fractional Brownian motion the structure function grows as lag^(2H).
    fn measured_h(roughness: f32) -> f64 {
        let (mut fine, mut coarse) = (0.0, 0.0);
        for seed in 0..8 {
            let line = midpoint_line(4097, roughness, seed).unwrap();
            fine += structure(&line, 1);
            coarse += structure(&line, 16);
        }
        (coarse / fine).log2() / 8.0
    }

    #[test]
    fn roughness_sets_the_hurst_exponent() {
        // roughness = 2^−H: H = 1, 0.5, 0.25 for roughness 0.5, 0.707, 0.841.
        let h: Vec<f64> = [0.5f32, std::f32::consts::FRAC_1_SQRT_2, 0.840_896_4]
            .iter()
            .map(|&r| measured_h(r))
            .collect();
        assert!(h[0] > h[1] + 0.15 && h[1] > h[2] + 0.1, "{h:?}");
        assert!((h[0] - 1.0).abs() < 0.15, "{h:?}");
        assert!((h[1] - 0.5).abs() < 0.15, "{h:?}");
        assert!((h[2] - 0.25).abs() < 0.15, "{h:?}");
        // On the map too: rougher maps have relatively larger neighbour steps.
        let step_ratio = |roughness| {
            let map = midpoint(257, 257, &params(1.0, roughness), 2).unwrap();
            let row = map.row(128);
            structure(row, 1) / structure(row, 32)
        };
        assert!(step_ratio(0.8) > 3.0 * step_ratio(0.5));
    }

    #[test]
    fn every_cell_shows_its_owner_at_the_finest_level_so_far() {
        let mut growth = MidpointGrowth::new(9, 9, &params(1.0, 0.5), 3).unwrap();
        let mut map = Heightmap::from_cells(9, 9, vec![7.0; 81]).unwrap();
        growth.step(&mut map);
        assert!(map.cells().iter().all(|&h| h == 0.0), "corners only");
        growth.step(&mut map);
        // The first level made (4, 0), (0, 4), (4, 4), (8, 4), (4, 8).
        let full = midpoint(9, 9, &params(1.0, 0.5), 3).unwrap();
        for y in 0..9 {
            for x in 0..9 {
                let owner = (x / 4 * 4, y / 4 * 4);
                assert_eq!(map.get(x, y), full.get(owner.0, owner.1), "({x}, {y})");
            }
        }
    }

    #[test]
    fn bad_parameters_are_one_line_errors_naming_the_parameter() {
        let cases = [
            (params(-1.0, 0.5), "amplitude", "0 <= amplitude <= 1e6"),
            (params(2e6, 0.5), "amplitude", "0 <= amplitude <= 1e6"),
            (params(f32::NAN, 0.5), "amplitude", "0 <= amplitude <= 1e6"),
            (params(1.0, -0.1), "roughness", "0 <= roughness <= 1"),
            (params(1.0, 1.5), "roughness", "0 <= roughness <= 1"),
            (
                params(1.0, f32::INFINITY),
                "roughness",
                "0 <= roughness <= 1",
            ),
        ];
        for (p, name, range) in cases {
            let message = p.validate().unwrap_err().to_string();
            assert!(
                message.starts_with(name) && message.contains(range),
                "{message}"
            );
            assert!(!message.contains('\n'));
            assert!(midpoint(9, 9, &p, 0).is_err());
            assert!(MidpointGrowth::new(9, 9, &p, 0).is_err());
        }
        let message = midpoint_line(1, 0.5, 0).unwrap_err().to_string();
        assert!(
            message.starts_with("samples") && message.contains("2 <= samples"),
            "{message}"
        );
        assert!(midpoint_line(9, 2.0, 0).is_err());
        assert!(midpoint(1, 5, &MidpointParams::default(), 0).is_err());
        assert!(matches!(
            midpoint(16_385, 2, &MidpointParams::default(), 0),
            Err(TerrainError::TooLarge { .. })
        ));
    }
}
