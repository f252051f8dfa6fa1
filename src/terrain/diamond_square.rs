//! Diamond-square terrain (Fournier et al. 1982, as Fritz's "Procedural Generation of Mountain Ranges Based on Geology", 2016, §3.1, describes it), for any W×H ≥ 2×2.
//!
//! The algorithm needs a square grid of side 2^n + 1. We run it on the
//! smallest such grid whose side covers `max(width, height)` and keep its
//! top-left `width × height` corner. Following the thesis, the four grid
//! corners start at `roughness`, the first level's random offsets are drawn
//! uniformly from `[−roughness, roughness)`, and the offset range halves at
//! every level. Each level does all its diamond steps (square centres get
//! the mean of their 4 corners plus an offset), then all its square steps
//! (edge midpoints get the mean of their 2–4 existing diamond neighbours
//! plus an offset), both in row-major order; offsets come from one
//! [`TerrainRng`] seeded with `seed`, so a seed fixes every bit.
use super::error::TerrainError;
use super::heightmap::Heightmap;
use super::heightmap::check_size;
use super::rng::TerrainRng;
use super::sliced::assert_map_size;
use super::sliced::{SLICE_CELLS, Sliced};

/// A diamond-square heightmap of `width × height` samples.
///
/// Heights stay within `±3 · roughness` (corners at `roughness`, offsets
/// summing to less than `2 · roughness`). `roughness` must be finite and ≥ 0.
/// This is [`DiamondSquareGrowth`] run to the end without showing the
/// intermediate levels.
pub fn diamond_square(
    width: usize,
    height: usize,
    roughness: f32,
    seed: u64,
) -> Result<Heightmap, TerrainError> {
    let mut growth = DiamondSquareGrowth::new(width, height, roughness, seed)?;
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

/// The smallest 2^n + 1 that is at least `min_side` (which is ≥ 2): the
/// square grid midpoint methods grow on.
pub(crate) fn grid_side(min_side: usize) -> usize {
    let mut side = 2;
    while side < min_side {
        side = 2 * side - 1;
    }
    side
}

/// What one slice of a [`DiamondSquareGrowth`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    /// Shows the four corners (set when the job is made).
    Corners,
    /// The diamond steps of the level of spacing `step` whose centres lie
    /// on grid rows `rows.0..rows.1` (multiples of `step` plus `step / 2`).
    Diamonds { step: usize, rows: (usize, usize) },
    /// The square steps of the level of spacing `step` on grid rows
    /// `rows.0..rows.1` (multiples of `step / 2`).
    Squares { step: usize, rows: (usize, usize) },
}

/// Weight of computing one grid point (a draw of the generator, four loads)
/// against showing one map cell (a store in a row fill), in the cheap
/// per-cell units of [`SLICE_CELLS`].
const POINT_WEIGHT: usize = 2;

/// Diamond-square grown a bounded slice at a time: the job behind
/// [`diamond_square`], whose result the map holds bit for bit after the
/// last slice.
///
/// The first slice shows the four corners; then come the levels in order,
/// each its diamond steps then its square steps, in row-major order as the
/// whole function draws them; a level's diamond or square steps whose work
/// exceeds the slice budget ([`SLICE_CELLS`]) are split by grid rows, and
/// work that shows nothing on a cropped map joins a neighbouring slice
/// (see [`plan`]), so the slice count follows from the size alone. After
/// every slice each map cell shows the value of the grid point that owns it
/// at the finest spacing computed so far: the nearest computed point above
/// and to the left of it (a point of spacing `s` owns its `s × s` block), so
/// the terrain sharpens level by level from one flat block to the final map.
#[derive(Clone)]
pub struct DiamondSquareGrowth {
    width: usize,
    height: usize,
    /// Side of the square grid, 2^n + 1.
    side: usize,
    /// The whole grid, computed so far.
    grid: Vec<f32>,
    rng: TerrainRng,
    /// Amplitude of the offsets of the level being computed.
    amplitude: f64,
    /// Spacing of the level `amplitude` belongs to.
    amplitude_step: usize,
    /// The work of every slice, in order.
    plan: Vec<Work>,
    /// Where in `plan` each slice's work ends.
    ends: Vec<usize>,
    /// Slices done.
    done: usize,
}

impl DiamondSquareGrowth {
    /// The job of `diamond_square(width, height, roughness, seed)`, with the
    /// same validation.
    pub fn new(
        width: usize,
        height: usize,
        roughness: f32,
        seed: u64,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        if !(roughness.is_finite() && roughness >= 0.0) {
            return Err(TerrainError::out_of_range(
                "roughness",
                roughness,
                "a finite number >= 0",
            ));
        }
        let side = grid_side(width.max(height));
        check_size(side, side)?;
        let mut grid = vec![0.0f32; side * side];
        let last = side - 1;
        for (x, y) in [(0, 0), (last, 0), (0, last), (last, last)] {
            grid[y * side + x] = roughness;
        }
        let (plan, ends) = plan(side, width, height);
        Ok(DiamondSquareGrowth {
            width,
            height,
            side,
            grid,
            rng: TerrainRng::new(seed),
            amplitude: f64::from(roughness),
            amplitude_step: last,
            plan,
            ends,
            done: 0,
        })
    }

    /// Runs one slice's diamond or square steps on the grid.
    fn compute(&mut self, work: Work) {
        let side = self.side;
        let last = side - 1;
        let (step, rows, diamonds) = match work {
            Work::Corners => return,
            Work::Diamonds { step, rows } => (step, rows, true),
            Work::Squares { step, rows } => (step, rows, false),
        };
        while self.amplitude_step > step {
            self.amplitude /= 2.0;
            self.amplitude_step /= 2;
        }
        let amplitude = self.amplitude;
        let half = step / 2;
        let grid = &mut self.grid;
        let rng = &mut self.rng;
        if diamonds {
            // Centres on rows y + half for the squares' top rows y.
            for y in (rows.0 - half..rows.1 - half).step_by(step) {
                for x in (0..last).step_by(step) {
                    let corners = grid[y * side + x]
                        + grid[y * side + x + step]
                        + grid[(y + step) * side + x]
                        + grid[(y + step) * side + x + step];
                    let offset = random_offset(rng, amplitude);
                    grid[(y + half) * side + x + half] = corners / 4.0 + offset;
                }
            }
            return;
        }
        for y in (rows.0..rows.1).step_by(half) {
            let first_x = if (y / half).is_multiple_of(2) {
                half
            } else {
                0
            };
            for x in (first_x..side).step_by(step) {
                let mut sum = 0.0f32;
                let mut count = 0u8;
                if x >= half {
                    sum += grid[y * side + x - half];
                    count += 1;
                }
                if x + half < side {
                    sum += grid[y * side + x + half];
                    count += 1;
                }
                if y >= half {
                    sum += grid[(y - half) * side + x];
                    count += 1;
                }
                if y + half < side {
                    sum += grid[(y + half) * side + x];
                    count += 1;
                }
                let offset = random_offset(rng, amplitude);
                grid[y * side + x] = sum / f32::from(count) + offset;
            }
        }
    }

    /// Shows on `map` the grid points `work` computed, each over the block
    /// it owns until a finer level splits it: a point of spacing `s` at
    /// (x, y) owns `[x, x + s) × [y, y + s)`, cropped to the map.
    fn show(&self, work: Work, map: &mut Heightmap) {
        let side = self.side;
        let last = side - 1;
        // Rows of points (start, end, every), the points' spacing along a
        // row, and the spacing they show at (the block side).
        let (rows, x_step, block) = match work {
            Work::Corners => ((0, side, last), last, last),
            Work::Diamonds { step, rows } => ((rows.0, rows.1, step), step, step / 2),
            Work::Squares { step, rows } => ((rows.0, rows.1, step / 2), step, step / 2),
        };
        let first_x = |y: usize| match work {
            Work::Corners => 0,
            Work::Diamonds { step, .. } => step / 2,
            Work::Squares { step, .. } => {
                let half = step / 2;
                if (y / half).is_multiple_of(2) {
                    half
                } else {
                    0
                }
            }
        };
        let (width, height) = (self.width, self.height);
        let cells = map.cells_mut();
        for y in (rows.0..rows.1.min(height)).step_by(rows.2) {
            let grid_row = &self.grid[y * side..(y + 1) * side];
            let (shown, below) = cells[y * width..].split_at_mut(width);
            for x in (first_x(y)..width).step_by(x_step) {
                shown[x..(x + block).min(width)].fill(grid_row[x]);
            }
            for row in below
                .chunks_exact_mut(width)
                .take(block.min(height - y) - 1)
            {
                row.copy_from_slice(shown);
            }
        }
    }
}

impl std::fmt::Debug for DiamondSquareGrowth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiamondSquareGrowth")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("side", &self.side)
            .field("slices", &self.ends.len())
            .field("slices_done", &self.done)
            .finish_non_exhaustive()
    }
}

/// Largest work of a slice that work showing nothing joins: such work is
/// the grid points below (or right of) a crop, which must be computed for
/// the generator's draws to stay in order; their cost is only computing
/// (no map cells shown), and slices of this size stay within 1 ms
/// (docs/performance.md, "Sliced steps").
const UNSEEN_JOIN_LIMIT: usize = 4 * SLICE_CELLS;

/// The work of a `side × side` grid cropped to `width × height`, in order,
/// and where each slice of it ends: every level's diamond and square steps,
/// split by grid rows within [`SLICE_CELLS`]; then work that shows nothing
/// on the crop (rows below it, or points right of it) joins a neighbouring
/// slice when the two stay within [`UNSEEN_JOIN_LIMIT`], so that every
/// slice shows something unless the map is so much wider than tall that
/// the unseen rows alone fill slices.
fn plan(side: usize, width: usize, height: usize) -> (Vec<Work>, Vec<usize>) {
    let last = side - 1;
    // (work, its cost, whether it shows anything)
    let mut items = vec![(Work::Corners, width * height, true)];
    let mut step = last;
    while step > 1 {
        let half = step / 2;
        // A grid row of diamonds or squares computes about side / step
        // points and shows up to `half` map rows of up to `width` cells.
        let row_work = |shown_rows: usize| POINT_WEIGHT * (side / step + 1) + shown_rows * width;
        for diamonds in [true, false] {
            let (first, row_step) = if diamonds { (half, step) } else { (0, half) };
            let first_x = |y: usize| {
                if diamonds || (y / half).is_multiple_of(2) {
                    half
                } else {
                    0
                }
            };
            let (mut start, mut work, mut shows) = (first, 0, false);
            for y in (first..side).step_by(row_step) {
                let shown = if y < height && first_x(y) < width {
                    half.min(height - y)
                } else {
                    0
                };
                let this = row_work(shown);
                if work > 0 && work + this > SLICE_CELLS {
                    items.push((slice(diamonds, step, start, y), work, shows));
                    (start, work, shows) = (y, 0, false);
                }
                work += this;
                shows |= shown > 0;
            }
            items.push((slice(diamonds, step, start, side), work, shows));
        }
        step = half;
    }
    let mut ends = Vec::new();
    let (mut work, mut shows) = (0, false);
    for (i, &(_, cost, item_shows)) in items.iter().enumerate() {
        let joins = i > 0 && (!shows || !item_shows) && work + cost <= UNSEEN_JOIN_LIMIT;
        if i > 0 && !joins {
            ends.push(i);
            (work, shows) = (0, false);
        }
        work += cost;
        shows |= item_shows;
    }
    ends.push(items.len());
    (items.into_iter().map(|(work, ..)| work).collect(), ends)
}

fn slice(diamonds: bool, step: usize, start: usize, end: usize) -> Work {
    let rows = (start, end);
    if diamonds {
        Work::Diamonds { step, rows }
    } else {
        Work::Squares { step, rows }
    }
}

impl Sliced for DiamondSquareGrowth {
    fn slices(&self) -> usize {
        self.ends.len()
    }

    fn slices_done(&self) -> usize {
        self.done
    }

    fn step(&mut self, map: &mut Heightmap) {
        let Some(&end) = self.ends.get(self.done) else {
            return;
        };
        assert_map_size(map, self.width, self.height);
        let start = self.done.checked_sub(1).map_or(0, |i| self.ends[i]);
        for i in start..end {
            let work = self.plan[i];
            self.compute(work);
            self.show(work, map);
        }
        self.done += 1;
    }
}

/// Uniform in `[−amplitude, amplitude)`, the thesis' `roughness · (randomFloat(2) − 1)`.
fn random_offset(rng: &mut TerrainRng, amplitude: f64) -> f32 {
    (amplitude * (rng.range(0.0, 2.0) - 1.0)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(map: &Heightmap) -> Vec<u32> {
        map.cells().iter().map(|h| h.to_bits()).collect()
    }

    #[test]
    fn the_same_seed_gives_the_same_bits() {
        let a = diamond_square(33, 20, 1.0, 9).unwrap();
        let b = diamond_square(33, 20, 1.0, 9).unwrap();
        assert_eq!(bits(&a), bits(&b));
    }

    #[test]
    fn different_seeds_give_different_maps() {
        let a = diamond_square(17, 17, 1.0, 1).unwrap();
        let b = diamond_square(17, 17, 1.0, 2).unwrap();
        assert_ne!(bits(&a), bits(&b));
    }

    #[test]
    fn full_grid_corners_start_at_the_roughness() {
        let map = diamond_square(9, 9, 0.75, 3).unwrap();
        for (x, y) in [(0, 0), (8, 0), (0, 8), (8, 8)] {
            assert_eq!(map.get(x, y), 0.75);
        }
        assert_ne!(map.get(4, 4), 0.75, "the centre got a random offset");
    }

    #[test]
    fn a_2x2_map_is_just_the_corners() {
        let map = diamond_square(2, 2, 0.5, 4).unwrap();
        assert_eq!(map.cells(), &[0.5; 4]);
    }

    #[test]
    fn a_non_square_map_is_the_top_left_of_the_covering_grid() {
        // max(7, 3) = 7 is covered by the 9x9 grid, the same grid a 9x9 map uses.
        let crop = diamond_square(7, 3, 1.0, 5).unwrap();
        let full = diamond_square(9, 9, 1.0, 5).unwrap();
        assert_eq!((crop.width(), crop.height()), (7, 3));
        for y in 0..3 {
            assert_eq!(crop.row(y), &full.row(y)[..7]);
        }
    }

    #[test]
    fn heights_stay_within_three_times_the_roughness() {
        let map = diamond_square(65, 40, 2.0, 6).unwrap();
        let (lo, hi) = map.min_max();
        assert!(lo >= -6.0 && hi <= 6.0, "{lo}..{hi}");
        assert!(hi - lo > 0.5, "the map has relief");
    }

    #[test]
    fn zero_roughness_is_flat() {
        let map = diamond_square(5, 5, 0.0, 7).unwrap();
        assert!(map.cells().iter().all(|&h| h == 0.0));
    }

    /// The whole algorithm written the plain way, as it was before the
    /// sliced job: every level's diamond steps, then its square steps, in
    /// row-major order on the whole grid, then the crop.
    fn reference(width: usize, height: usize, roughness: f32, seed: u64) -> Vec<f32> {
        let side = grid_side(width.max(height));
        let mut rng = TerrainRng::new(seed);
        let mut grid = vec![0.0f32; side * side];
        let last = side - 1;
        for (x, y) in [(0, 0), (last, 0), (0, last), (last, last)] {
            grid[y * side + x] = roughness;
        }
        let mut amplitude = f64::from(roughness);
        let mut step = last;
        while step > 1 {
            let half = step / 2;
            for y in (0..last).step_by(step) {
                for x in (0..last).step_by(step) {
                    let corners = grid[y * side + x]
                        + grid[y * side + x + step]
                        + grid[(y + step) * side + x]
                        + grid[(y + step) * side + x + step];
                    let offset = random_offset(&mut rng, amplitude);
                    grid[(y + half) * side + x + half] = corners / 4.0 + offset;
                }
            }
            for y in (0..side).step_by(half) {
                let first_x = if (y / half).is_multiple_of(2) {
                    half
                } else {
                    0
                };
                for x in (first_x..side).step_by(step) {
                    let mut sum = 0.0f32;
                    let mut count = 0u8;
                    if x >= half {
                        sum += grid[y * side + x - half];
                        count += 1;
                    }
                    if x + half < side {
                        sum += grid[y * side + x + half];
                        count += 1;
                    }
                    if y >= half {
                        sum += grid[(y - half) * side + x];
                        count += 1;
                    }
                    if y + half < side {
                        sum += grid[(y + half) * side + x];
                        count += 1;
                    }
                    let offset = random_offset(&mut rng, amplitude);
                    grid[y * side + x] = sum / f32::from(count) + offset;
                }
            }
            amplitude /= 2.0;
            step = half;
        }
        let mut cells = Vec::new();
        for y in 0..height {
            cells.extend_from_slice(&grid[y * side..y * side + width]);
        }
        cells
    }

    fn to_bits(cells: &[f32]) -> Vec<u32> {
        cells.iter().map(|h| h.to_bits()).collect()
    }

    const SIZES: [(usize, usize); 7] = [
        (2, 2),
        (3, 2),
        (7, 3),
        (20, 33),
        (65, 40),
        (100, 7),
        (257, 257),
    ];

    #[test]
    fn the_whole_function_is_the_plain_algorithm_bit_for_bit() {
        for (width, height) in SIZES {
            for seed in [0, 5, 77] {
                let map = diamond_square(width, height, 1.5, seed).unwrap();
                assert_eq!(
                    bits(&map),
                    to_bits(&reference(width, height, 1.5, seed)),
                    "{width}x{height} seed {seed}"
                );
            }
        }
    }

    #[test]
    fn growing_slice_by_slice_ends_at_the_whole_function_through_finite_maps() {
        for (width, height) in SIZES.into_iter().chain([(513, 300)]) {
            for seed in [1, 9] {
                let mut growth = DiamondSquareGrowth::new(width, height, 2.0, seed).unwrap();
                // A start no slice would write, so any cell left unshown shows.
                let mut map =
                    Heightmap::from_cells(width, height, vec![1e6; width * height]).unwrap();
                let mut changing = 0;
                while !growth.is_done() {
                    let before = map.clone();
                    let done = growth.slices_done();
                    growth.step(&mut map);
                    assert_eq!(growth.slices_done(), done + 1);
                    assert!(
                        map.cells().iter().all(|h| h.is_finite() && h.abs() <= 6.0),
                        "{width}x{height}: slice {done}"
                    );
                    if map != before {
                        changing += 1;
                    }
                }
                assert_eq!(changing, growth.slices(), "{width}x{height}");
                let expected = reference(width, height, 2.0, seed);
                assert_eq!(
                    bits(&map),
                    to_bits(&expected),
                    "{width}x{height} seed {seed}"
                );
                let end = map.clone();
                growth.step(&mut map);
                assert_eq!(bits(&map), bits(&end), "a step after the end");
                assert_eq!(growth.slices_done(), growth.slices());
            }
        }
    }

    #[test]
    fn every_cell_shows_its_owner_at_the_finest_level_so_far() {
        // After the corners slice the whole 9x9 map shows the corners'
        // `roughness`; after the first level's diamond step the centre's
        // block [4, 8) x [4, 8) shows the centre, the rest still a corner.
        let mut growth = DiamondSquareGrowth::new(9, 9, 1.0, 3).unwrap();
        let mut map = Heightmap::flat(9, 9).unwrap();
        growth.step(&mut map);
        assert_eq!(map.get(7, 7), 1.0);
        assert_eq!(map.get(8, 3), 1.0);
        growth.step(&mut map);
        let centre = map.get(4, 4);
        assert_ne!(centre, 1.0);
        assert_eq!(map.get(7, 7), centre);
        assert_eq!(map.get(3, 3), 1.0);
        assert_eq!(map.get(8, 8), 1.0);
    }

    #[test]
    fn big_levels_are_split_within_the_budget() {
        let growth = DiamondSquareGrowth::new(513, 513, 1.0, 0).unwrap();
        let levels = 9;
        assert!(
            growth.slices() > 1 + 2 * levels,
            "{} slices",
            growth.slices()
        );
        let small = DiamondSquareGrowth::new(2, 2, 1.0, 0).unwrap();
        assert_eq!(small.slices(), 1, "only the corners");
        assert!(DiamondSquareGrowth::new(1, 2, 1.0, 0).is_err());
        assert!(DiamondSquareGrowth::new(5, 5, f32::NAN, 0).is_err());
    }

    #[test]
    fn bad_sizes_and_roughness_are_errors() {
        assert!(diamond_square(1, 5, 1.0, 0).is_err());
        assert!(diamond_square(5, 5, -1.0, 0).is_err());
        assert!(diamond_square(5, 5, f32::NAN, 0).is_err());
        assert!(matches!(
            diamond_square(16_385, 2, 1.0, 0),
            Err(TerrainError::TooLarge { .. })
        ));
    }
}
