//! Thermal and hydraulic erosion as cellular automata (Olsen 2004, with the material hardness of Fritz, "Procedural Generation of Mountain Ranges Based on Geology", 2016, §3.4, §3.5.1).
//!
//! Both run on the 4-neighbourhood (von Neumann) and update every cell from
//! the state at the start of the iteration (all transfers are computed, then
//! applied), so the result does not depend on the order cells are visited.
//! Material only moves between cells: the sum of heights (plus sediment in
//! suspension, for the hydraulic model) stays constant up to f32 rounding.
use super::error::TerrainError;
use super::heightmap::Heightmap;
use super::heightmap::check_size;
#[cfg(test)]
use super::metrics::for_each_slope;
use super::sliced::assert_map_size;
use super::sliced::{Sliced, rows_per_band, rows_per_band_within};

/// Most iterations one call accepts, a guard against a typo that would run for hours.
pub const MAX_EROSION_ITERATIONS: u32 = 100_000;

/// How easily material erodes as a function of height: the thesis' material
/// hardness, here ground that gets harder (or softer) linearly with altitude.
///
/// A cell at height `h` moves `factor(h)` times the material Olsen's rule
/// gives, with `factor(h) = at_lowest + t · (at_highest − at_lowest)` and
/// `t = (h − min) / (max − min)` over the map's heights at the start of the
/// iteration (`t = 0` on a flat map). Both factors lie in [0, 1]; 1 is loose
/// material (Olsen's rule unchanged), 0 is rock that never moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hardness {
    /// Share of the movement that happens at the map's lowest height.
    pub at_lowest: f32,
    /// Share of the movement that happens at the map's highest height.
    pub at_highest: f32,
}

impl Hardness {
    /// The same factor 1 everywhere: Olsen's rule without material properties.
    pub const UNIFORM: Hardness = Hardness {
        at_lowest: 1.0,
        at_highest: 1.0,
    };
}

impl Default for Hardness {
    /// Soft sediment in the valleys, rock twice as hard on the peaks.
    fn default() -> Self {
        Hardness {
            at_lowest: 1.0,
            at_highest: 0.5,
        }
    }
}

/// Parameters of [`thermal`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThermalParams {
    /// Number of iterations, at most [`MAX_EROSION_ITERATIONS`].
    pub iterations: u32,
    /// Talus threshold T: the largest height difference to a neighbour that
    /// stays in place, in height units per cell; finite and ≥ 0.
    pub talus: f32,
    /// Share c of the excess over talus moved per iteration, in [0, 0.5]
    /// (above 0.5 simultaneous transfers can overshoot and oscillate).
    pub rate: f32,
    /// Height-dependent scaling of the moved material.
    pub hardness: Hardness,
}

impl Default for ThermalParams {
    /// Olsen's values for heights in [0, 1] on a 256-cell map: T = 4/256, c = 0.5.
    fn default() -> Self {
        ThermalParams {
            iterations: 50,
            talus: 4.0 / 256.0,
            rate: 0.5,
            hardness: Hardness::default(),
        }
    }
}

/// Parameters of [`hydraulic`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HydraulicParams {
    /// Number of iterations, at most [`MAX_EROSION_ITERATIONS`].
    pub iterations: u32,
    /// Kr: water added to every cell per iteration; finite and ≥ 0.
    pub rain: f32,
    /// Ks: material dissolved per unit of water per iteration, in [0, 1].
    pub solubility: f32,
    /// Ke: share of the water evaporating per iteration, in [0, 1].
    pub evaporation: f32,
    /// Kc: sediment one unit of water can carry; finite and ≥ 0.
    pub capacity: f32,
    /// How much harder the steepest ground of the map is to dissolve, in
    /// [0, 1]: Ks is scaled by `1 − steep_hardness · s / s_max`, where s is a
    /// cell's largest height difference to its 4 neighbours (bare rock on
    /// cliffs, loose soil on flats).
    pub steep_hardness: f32,
}

impl Default for HydraulicParams {
    /// Olsen's constants: Kr = 0.01, Ks = 0.01, Ke = 0.5, Kc = 0.01.
    fn default() -> Self {
        HydraulicParams {
            iterations: 100,
            rain: 0.01,
            solubility: 0.01,
            evaporation: 0.5,
            capacity: 0.01,
            steep_hardness: 0.5,
        }
    }
}

/// Olsen's thermal erosion with height-dependent hardness.
///
/// For a cell of height h with 4-neighbour differences dᵢ = h − hᵢ, let
/// d_max be the largest and d_total the sum of those above the talus T. If
/// d_max > T, neighbour i (with dᵢ > T) receives
/// `c · (d_max − T) · factor(h) · dᵢ / d_total` from the cell.
///
/// This is [`ThermalErosion`] stepped to the end.
pub fn thermal(map: &mut Heightmap, params: &ThermalParams) -> Result<(), TerrainError> {
    ThermalErosion::new(params)?.run_to_end(map);
    Ok(())
}

/// [`thermal`] a bounded slice at a time. Each iteration is split into
/// bands of rows, visited top to bottom, so the job has `params.iterations`
/// × bands slices; [`ThermalErosion::new`] makes one band of the whole map
/// (a slice is an iteration), [`ThermalErosion::banded`] bands sized for a
/// frame's budget. The map after the last slice is [`thermal`]'s bit for
/// bit; between the bands of an iteration the rows above the band just done
/// hold the new heights and the rest the old ones.
///
/// A band computes the transfers out of its rows from the heights at the
/// start of the iteration, in the whole iteration's row-major order, and
/// adds to the map every row no later row reads any more (one row behind,
/// the last band all of them), so every height gets the same sums in the
/// same order as in one pass. The lowest and highest height the next
/// iteration's hardness needs are folded as rows are written, in row-major
/// order; only the first slice reads the whole map for them.
#[derive(Debug, Clone)]
pub struct ThermalErosion {
    params: ThermalParams,
    /// The map size and rows per band, when banded; `None`: one band of
    /// the whole map, whatever its size.
    bands: Option<Bands>,
    /// Net transfer of the current iteration, all zeros between iterations
    /// (each row is cleared as it is added to the map).
    delta: Vec<f32>,
    /// The lowest and highest height at the start of the current iteration.
    range: (f32, f32),
    /// The lowest and highest new height of the rows written so far.
    next_range: (f32, f32),
    /// Slices done.
    done: usize,
}

/// A map size and the rows of each of its bands.
#[derive(Debug, Clone, Copy)]
struct Bands {
    width: usize,
    height: usize,
    rows: usize,
}

impl Bands {
    fn new(width: usize, height: usize, rows: usize) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        Ok(Bands {
            width,
            height,
            rows: rows.clamp(1, height),
        })
    }

    /// Bands in the whole map.
    fn count(&self) -> usize {
        self.height.div_ceil(self.rows)
    }

    /// The rows of band `i`.
    fn range(&self, i: usize) -> (usize, usize) {
        (i * self.rows, ((i + 1) * self.rows).min(self.height))
    }

    fn check(&self, map: &Heightmap) {
        assert_map_size(map, self.width, self.height);
    }
}

/// Cells in a band of a thermal erosion iteration: an erosion cell costs
/// 7–9 ns (20–50 of [`SLICE_CELLS`](super::sliced::SLICE_CELLS)' cheap
/// cells), so a band is about 0.3 ms on one core of the project's machine,
/// under a loaded machine's 1 ms (docs/performance.md, "Sliced steps").
pub const THERMAL_BAND_CELLS: usize = 40_000;

/// Cells in a band of a hydraulic erosion iteration: a cell costs about
/// 16 ns, so a band is 0.3–0.4 ms on one core of the project's machine
/// (docs/performance.md, "Sliced steps").
pub const HYDRAULIC_BAND_CELLS: usize = 24_000;

/// How many cells' slopes the first hydraulic slice measures in the time a
/// band spends on one cell (docs/performance.md, "Sliced steps").
const SLOPES_PER_BAND_CELL: usize = 8;

const EMPTY_RANGE: (f32, f32) = (f32::INFINITY, f32::NEG_INFINITY);

impl ThermalErosion {
    /// The job of `thermal(map, params)`, with the same validation: one
    /// slice per iteration, on a map of any size.
    pub fn new(params: &ThermalParams) -> Result<Self, TerrainError> {
        check_iterations(params.iterations)?;
        check_non_negative("talus", params.talus)?;
        check_within("rate", params.rate, 0.0, 0.5, "between 0 and 0.5")?;
        check_unit("hardness.at_lowest", params.hardness.at_lowest)?;
        check_unit("hardness.at_highest", params.hardness.at_highest)?;
        Ok(ThermalErosion {
            params: *params,
            bands: None,
            delta: Vec::new(),
            range: EMPTY_RANGE,
            next_range: EMPTY_RANGE,
            done: 0,
        })
    }

    /// The job of `thermal(map, params)` on a `width × height` map, each
    /// iteration in bands of about [`THERMAL_BAND_CELLS`] cells.
    pub fn banded(
        width: usize,
        height: usize,
        params: &ThermalParams,
    ) -> Result<Self, TerrainError> {
        let rows = rows_per_band_within(height, width, THERMAL_BAND_CELLS);
        Self::with_band_rows(width, height, rows, params)
    }

    /// The job of `thermal(map, params)` on a `width × height` map, each
    /// iteration in bands of `rows` rows (at least 1, the last band the
    /// rest).
    pub fn with_band_rows(
        width: usize,
        height: usize,
        rows: usize,
        params: &ThermalParams,
    ) -> Result<Self, TerrainError> {
        let mut job = Self::new(params)?;
        job.bands = Some(Bands::new(width, height, rows)?);
        Ok(job)
    }

    /// Bands per iteration.
    fn bands_per_iteration(&self) -> usize {
        self.bands.map_or(1, |bands| bands.count())
    }

    /// Band `band` of an iteration on `map`; `first` when it is the first
    /// band of the first iteration.
    fn band(&mut self, map: &mut Heightmap, band: usize, first: bool) {
        let bands = match self.bands {
            Some(bands) => {
                bands.check(map);
                bands
            }
            None => Bands {
                width: map.width(),
                height: map.height(),
                rows: map.height(),
            },
        };
        let (width, height) = (map.width(), map.height());
        if band == 0 {
            if first {
                self.delta.clear();
                self.delta.resize(map.cells().len(), 0.0);
                self.range = map.min_max();
            } else {
                self.range = self.next_range;
            }
            self.next_range = EMPTY_RANGE;
        }
        let (lo, hi) = self.range;
        let step = ThermalStep {
            talus: self.params.talus,
            rate: self.params.rate,
            at_lowest: self.params.hardness.at_lowest,
            hardness_span: self.params.hardness.at_highest - self.params.hardness.at_lowest,
            lo,
            inv_range: if hi > lo { 1.0 / (hi - lo) } else { 0.0 },
        };
        let (start, end) = bands.range(band);
        // Row y is added to the map once the transfers of row y + 1 are
        // done: no later transfer reads it or sends to it.
        let end = if end == height { height + 1 } else { end };
        for y in start..end {
            if y < height {
                step.transfer_row(map.cells(), &mut self.delta, width, height, y);
            }
            if let Some(done) = y.checked_sub(1) {
                let row = done * width..(done + 1) * width;
                let cells = &mut map.cells_mut()[row.clone()];
                let (mut lo, mut hi) = self.next_range;
                for (h, d) in cells.iter_mut().zip(&mut self.delta[row]) {
                    *h += *d;
                    *d = 0.0;
                    lo = lo.min(*h);
                    hi = hi.max(*h);
                }
                self.next_range = (lo, hi);
            }
        }
    }
}

/// The constants of one thermal iteration.
struct ThermalStep {
    talus: f32,
    rate: f32,
    at_lowest: f32,
    hardness_span: f32,
    lo: f32,
    inv_range: f32,
}

impl ThermalStep {
    /// The transfers out of every cell of row `y`, added to `delta`.
    fn transfer_row(
        &self,
        cells: &[f32],
        delta: &mut [f32],
        width: usize,
        height: usize,
        y: usize,
    ) {
        let row = y * width;
        if y == 0 || y + 1 == height || width < 3 {
            for x in 0..width {
                let (neighbours, count) = edge_neighbours(x, y, width, height);
                self.transfer(cells, delta, row + x, &neighbours[..count]);
            }
            return;
        }
        self.transfer(cells, delta, row, &[row + 1, row - width, row + width]);
        for i in row + 1..row + width - 1 {
            self.transfer(cells, delta, i, &[i - 1, i + 1, i - width, i + width]);
        }
        let i = row + width - 1;
        self.transfer(cells, delta, i, &[i - 1, i - width, i + width]);
    }

    /// Olsen's rule for cell `i` with `neighbours` (left, right, up, down,
    /// those inside the map).
    #[inline(always)]
    fn transfer(&self, cells: &[f32], delta: &mut [f32], i: usize, neighbours: &[usize]) {
        // Branch-free: a neighbour at or under the talus adds 0.0, which
        // leaves every sum as it is (none is ever -0.0: each starts at +0.0
        // and an exact cancellation rounds to +0.0), so the bits are those of
        // skipping it.
        let h = cells[i];
        let mut d_max = 0.0f32;
        let mut d_total = 0.0f32;
        for &n in neighbours {
            let d = h - cells[n];
            d_max = d_max.max(d);
            d_total += if d > self.talus { d } else { 0.0 };
        }
        if d_max <= self.talus {
            return;
        }
        let t = (h - self.lo) * self.inv_range;
        let factor = self.at_lowest + t * self.hardness_span;
        let moved = self.rate * (d_max - self.talus) * factor;
        for &n in neighbours {
            let d = h - cells[n];
            let amount = if d > self.talus {
                moved * d / d_total
            } else {
                0.0
            };
            delta[n] += amount;
            delta[i] -= amount;
        }
    }
}

impl Sliced for ThermalErosion {
    fn slices(&self) -> usize {
        self.params.iterations as usize * self.bands_per_iteration()
    }

    fn slices_done(&self) -> usize {
        self.done
    }

    fn step(&mut self, map: &mut Heightmap) {
        if self.is_done() {
            return;
        }
        let bands = self.bands_per_iteration();
        self.band(map, self.done % bands, self.done == 0);
        self.done += 1;
    }
}

/// Olsen's hydraulic erosion; each iteration runs his four steps:
///
/// 1. rain: `w += Kr` on every cell;
/// 2. dissolve: `amount = Ks · (1 − steep_hardness · s / s_max) · w`,
///    `h −= amount`, `m += amount`;
/// 3. transport: with total level a = h + w, the lower neighbours
///    (dᵢ = a − aᵢ > 0) share `Δw = min(w, a − ā)` in proportion to dᵢ,
///    where ā is the mean level of the cell and those neighbours; the
///    sediment follows its water, `Δmᵢ = m · Δwᵢ / w`;
/// 4. evaporate and deposit: `w *= 1 − Ke`; sediment above the capacity
///    `Kc · w` is deposited, `h += m − Kc · w`, `m = Kc · w`.
///
/// After the last iteration the remaining water evaporates and all sediment
/// still in suspension is deposited where it is, so the sum of heights is
/// conserved and a later call starts dry.
///
/// This is [`HydraulicErosion`] stepped to the end.
pub fn hydraulic(map: &mut Heightmap, params: &HydraulicParams) -> Result<(), TerrainError> {
    HydraulicErosion::new(map.width(), map.height(), params)?.run_to_end(map);
    Ok(())
}

/// [`hydraulic`] a bounded slice at a time, keeping the water and the
/// sediment in suspension between slices. Each iteration is split into
/// bands of about [`HYDRAULIC_BAND_CELLS`] cells, visited top to bottom,
/// then the suspended sediment is deposited in bands of about
/// [`SLICE_CELLS`](super::sliced::SLICE_CELLS) cells: `params.iterations` ×
/// bands + deposit bands slices (`params.iterations + 1` on a map of one
/// band). After the last slice the map is [`hydraulic`]'s bit for bit.
///
/// A band rains on and dissolves its rows, moves the water of the row
/// above it, evaporates and deposits two rows above it and measures the
/// next iteration's slopes three rows above it (the last band finishes all
/// of them): each row is read and written in the same order and with the
/// same values as in a whole iteration. Only the first slice measures the
/// slopes of the whole map.
#[derive(Debug, Clone)]
pub struct HydraulicErosion {
    width: usize,
    height: usize,
    params: HydraulicParams,
    state: HydraulicState,
    /// Rows per band of an iteration, and bands; the first band of the
    /// first iteration (which also measures every slope) has `first_rows`.
    band_rows: usize,
    bands: usize,
    first_rows: usize,
    /// Rows per band of the deposit, and bands.
    deposit_rows: usize,
    deposit_bands: usize,
    /// Slices done.
    done: usize,
}

impl HydraulicErosion {
    /// The job of `hydraulic(map, params)` on a `width × height` map, with
    /// the same validation, each iteration in bands of about
    /// [`HYDRAULIC_BAND_CELLS`] cells.
    pub fn new(
        width: usize,
        height: usize,
        params: &HydraulicParams,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        let rows = rows_per_band_within(height, width, HYDRAULIC_BAND_CELLS);
        let mut job = Self::with_band_rows(width, height, rows, params)?;
        // The first slice also measures every slope: its band is shorter by
        // as many cells as that costs, unless the whole map fits.
        let slopes = (width * height).div_ceil(SLOPES_PER_BAND_CELL);
        if slopes + width * height > HYDRAULIC_BAND_CELLS {
            let left = HYDRAULIC_BAND_CELLS.saturating_sub(slopes) / width;
            job.first_rows = left.clamp(1, rows);
        }
        Ok(job)
    }

    /// The job of `hydraulic(map, params)` on a `width × height` map, each
    /// iteration in bands of `rows` rows (at least 1, the last band the rest).
    pub fn with_band_rows(
        width: usize,
        height: usize,
        rows: usize,
        params: &HydraulicParams,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        check_iterations(params.iterations)?;
        check_non_negative("rain", params.rain)?;
        check_unit("solubility", params.solubility)?;
        check_unit("evaporation", params.evaporation)?;
        check_non_negative("capacity", params.capacity)?;
        check_unit("steep_hardness", params.steep_hardness)?;
        let band_rows = rows.clamp(1, height);
        let deposit_rows = rows_per_band(height, width, 1);
        Ok(HydraulicErosion {
            width,
            height,
            params: *params,
            state: HydraulicState::new(width * height),
            band_rows,
            bands: height.div_ceil(band_rows),
            first_rows: band_rows,
            deposit_rows,
            deposit_bands: height.div_ceil(deposit_rows),
            done: 0,
        })
    }

    /// Bands of the first iteration.
    fn first_iteration_bands(&self) -> usize {
        1 + (self.height - self.first_rows.min(self.height)).div_ceil(self.band_rows)
    }

    /// The rows of slice `slice` (below the deposit's) and its iteration.
    fn band_of(&self, slice: usize) -> (usize, usize, usize) {
        let first = self.first_iteration_bands();
        let (iteration, start) = if slice < first {
            let start = match slice {
                0 => 0,
                band => self.first_rows + (band - 1) * self.band_rows,
            };
            (0, start)
        } else {
            let band = (slice - first) % self.bands;
            (1 + (slice - first) / self.bands, band * self.band_rows)
        };
        let rows = if slice == 0 {
            self.first_rows
        } else {
            self.band_rows
        };
        (iteration, start, (start + rows).min(self.height))
    }

    /// Water depth per cell, row-major.
    pub fn water(&self) -> &[f32] {
        &self.state.water
    }

    /// Sediment in suspension per cell, row-major.
    pub fn sediment(&self) -> &[f32] {
        &self.state.sediment
    }
}

impl Sliced for HydraulicErosion {
    fn slices(&self) -> usize {
        match self.params.iterations as usize {
            0 => self.deposit_bands,
            iterations => {
                self.first_iteration_bands() + (iterations - 1) * self.bands + self.deposit_bands
            }
        }
    }

    fn slices_done(&self) -> usize {
        self.done
    }

    fn step(&mut self, map: &mut Heightmap) {
        if self.is_done() {
            return;
        }
        assert_map_size(map, self.width, self.height);
        let iterations = self.params.iterations as usize;
        let sweeps = self.slices() - self.deposit_bands;
        if self.done < sweeps {
            let (iteration, start, end) = self.band_of(self.done);
            if start == 0 {
                if iteration == 0 {
                    self.state.measure_slopes(map);
                }
                self.state.start_iteration();
            }
            let slopes_next = iteration + 1 < iterations;
            self.state.sweep(map, &self.params, start, end, slopes_next);
        } else {
            let band = self.done - sweeps;
            let start = band * self.deposit_rows * self.width;
            let end = ((band + 1) * self.deposit_rows * self.width).min(map.cells().len());
            let cells = &mut map.cells_mut()[start..end];
            for (h, m) in cells.iter_mut().zip(&self.state.sediment[start..end]) {
                *h += m;
            }
            // The water evaporates and the sediment is in the ground now.
            self.state.water[start..end].fill(0.0);
            self.state.sediment[start..end].fill(0.0);
        }
        self.done += 1;
    }
}

/// Water and suspended sediment of a hydraulic run, plus scratch buffers
/// kept across iterations to avoid allocating in the loop.
#[derive(Debug, Clone)]
struct HydraulicState {
    /// Water depth per cell.
    water: Vec<f32>,
    /// Dissolved material carried per cell.
    sediment: Vec<f32>,
    /// Net water transfer of the current transport step, all zeros between
    /// iterations (each row is cleared as it settles).
    water_delta: Vec<f32>,
    /// Net sediment transfer of the current transport step, likewise.
    sediment_delta: Vec<f32>,
    /// Each cell's slope s for the dissolve step.
    slopes: Vec<f32>,
    /// 1 / the largest slope of the current iteration (0 on a flat map).
    inv_max_slope: f32,
    /// The largest slope measured so far for the next iteration.
    next_max_slope: f32,
}

impl HydraulicState {
    fn new(len: usize) -> Self {
        HydraulicState {
            water: vec![0.0; len],
            sediment: vec![0.0; len],
            water_delta: vec![0.0; len],
            sediment_delta: vec![0.0; len],
            slopes: vec![0.0; len],
            inv_max_slope: 0.0,
            next_max_slope: 0.0,
        }
    }

    /// One whole iteration on `map`.
    #[cfg(test)]
    fn iterate(&mut self, map: &mut Heightmap, params: &HydraulicParams) {
        self.measure_slopes(map);
        self.start_iteration();
        self.sweep(map, params, 0, map.height(), false);
    }

    /// Every cell's slope, for the next iteration.
    fn measure_slopes(&mut self, map: &Heightmap) {
        self.next_max_slope = 0.0;
        for y in 0..map.height() {
            self.slope_row(map, y);
        }
    }

    /// Starts an iteration on the slopes measured.
    fn start_iteration(&mut self) {
        let max_slope = self.next_max_slope;
        self.inv_max_slope = if max_slope > 0.0 {
            1.0 / max_slope
        } else {
            0.0
        };
        self.next_max_slope = 0.0;
    }

    /// The slopes of row `y`, folded into the next largest slope. A slope
    /// is the largest of up to four absolute differences, never -0.0, so
    /// the largest slope is the same whatever order it is folded in.
    fn slope_row(&mut self, map: &Heightmap, y: usize) {
        let width = map.width();
        let height = map.height();
        let cells = map.cells();
        let row = &cells[y * width..(y + 1) * width];
        let slopes = &mut self.slopes[y * width..(y + 1) * width];
        if y == 0 || y + 1 == height || width < 3 {
            let above = (y > 0).then(|| &cells[(y - 1) * width..y * width]);
            let below = (y + 1 < height).then(|| &cells[(y + 1) * width..(y + 2) * width]);
            for x in 0..width {
                let h = row[x];
                let mut s = 0.0f32;
                if x > 0 {
                    s = s.max((h - row[x - 1]).abs());
                }
                if x + 1 < width {
                    s = s.max((h - row[x + 1]).abs());
                }
                if let Some(above) = above {
                    s = s.max((h - above[x]).abs());
                }
                if let Some(below) = below {
                    s = s.max((h - below[x]).abs());
                }
                slopes[x] = s;
            }
        } else {
            let above = &cells[(y - 1) * width..y * width];
            let below = &cells[(y + 1) * width..(y + 2) * width];
            let edge = |x: usize, side: usize| {
                let h = row[x];
                0.0f32
                    .max((h - row[side]).abs())
                    .max((h - above[x]).abs())
                    .max((h - below[x]).abs())
            };
            slopes[0] = edge(0, 1);
            slopes[width - 1] = edge(width - 1, width - 2);
            let inner = width - 2;
            let (left, mid, right) = (&row[..inner], &row[1..=inner], &row[2..]);
            let (up, down) = (&above[1..=inner], &below[1..=inner]);
            let out = &mut slopes[1..=inner];
            for x in 0..inner {
                let h = mid[x];
                out[x] = 0.0f32
                    .max((h - left[x]).abs())
                    .max((h - right[x]).abs())
                    .max((h - up[x]).abs())
                    .max((h - down[x]).abs());
            }
        }
        let mut lanes = [self.next_max_slope; 8];
        let chunks = slopes.chunks_exact(8);
        let rest = chunks.remainder().iter().fold(0.0f32, |a, &s| a.max(s));
        for chunk in chunks {
            for (lane, &s) in lanes.iter_mut().zip(chunk) {
                *lane = lane.max(s);
            }
        }
        self.next_max_slope = lanes.iter().fold(rest, |a, &s| a.max(s));
    }

    /// Rows `start..end` of an iteration: rain and dissolve row y, move the
    /// water of row y − 1, evaporate and deposit row y − 2 and (with
    /// `slopes_next`) measure row y − 3's slope for the next iteration;
    /// the band that ends at the last row finishes every row.
    fn sweep(
        &mut self,
        map: &mut Heightmap,
        params: &HydraulicParams,
        start: usize,
        end: usize,
        slopes_next: bool,
    ) {
        let width = map.width();
        let height = map.height();
        let end = if end == height { height + 3 } else { end };
        for y in start..end {
            if y < height {
                self.dissolve_row(map, params, y);
            }
            if let Some(row) = y.checked_sub(1).filter(|&row| row < height) {
                self.transport_row(map.cells(), width, height, row);
            }
            if let Some(row) = y.checked_sub(2).filter(|&row| row < height) {
                self.settle_row(map, params, row);
            }
            if let Some(row) = y.checked_sub(3).filter(|&row| slopes_next && row < height) {
                self.slope_row(map, row);
            }
        }
    }

    /// Rain and dissolve on row `y`.
    fn dissolve_row(&mut self, map: &mut Heightmap, params: &HydraulicParams, y: usize) {
        let width = map.width();
        let row = y * width..(y + 1) * width;
        let inv_max_slope = self.inv_max_slope;
        let dissolving = map.cells_mut()[row.clone()]
            .iter_mut()
            .zip(&mut self.water[row.clone()])
            .zip(&mut self.sediment[row.clone()])
            .zip(&self.slopes[row]);
        for (((h, water), sediment), &slope) in dissolving {
            *water += params.rain;
            let softness = 1.0 - params.steep_hardness * slope * inv_max_slope;
            let amount = params.solubility * softness * *water;
            *h -= amount;
            *sediment += amount;
        }
    }

    /// The water (and its sediment) moving out of every cell of row `y`.
    fn transport_row(&mut self, cells: &[f32], width: usize, height: usize, y: usize) {
        let row = y * width;
        if y == 0 || y + 1 == height || width < 3 {
            for x in 0..width {
                let (neighbours, count) = edge_neighbours(x, y, width, height);
                self.transport(cells, row + x, &neighbours[..count]);
            }
            return;
        }
        self.transport(cells, row, &[row + 1, row - width, row + width]);
        for i in row + 1..row + width - 1 {
            self.transport(cells, i, &[i - 1, i + 1, i - width, i + width]);
        }
        let i = row + width - 1;
        self.transport(cells, i, &[i - 1, i - width, i + width]);
    }

    /// Olsen's transport out of cell `i` with `neighbours` (left, right,
    /// up, down, those inside the map).
    #[inline(always)]
    fn transport(&mut self, cells: &[f32], i: usize, neighbours: &[usize]) {
        let water = self.water[i];
        if water <= 0.0 {
            return;
        }
        // Branch-free: a neighbour not lower adds 0.0, which leaves every
        // sum as it is (none is ever -0.0: the deltas start at +0.0 and an
        // exact cancellation rounds to +0.0; a level is h + w with w > 0),
        // so the bits are those of skipping it.
        let level = cells[i] + water;
        let mut levels = [0.0f32; 4];
        let mut d_total = 0.0f32;
        let mut level_sum = level;
        let mut lower = 0u8;
        for (&n, around) in neighbours.iter().zip(&mut levels) {
            *around = cells[n] + self.water[n];
            let d = level - *around;
            let is_lower = d > 0.0;
            d_total += if is_lower { d } else { 0.0 };
            level_sum += if is_lower { *around } else { 0.0 };
            lower += u8::from(is_lower);
        }
        if lower == 0 {
            return;
        }
        let mean_level = level_sum / f32::from(lower + 1);
        let moved = water.min(level - mean_level);
        if moved <= 0.0 {
            return;
        }
        let sediment_per_water = self.sediment[i] / water;
        for (&n, &around) in neighbours.iter().zip(&levels) {
            let d = level - around;
            let water_out = if d > 0.0 { moved * d / d_total } else { 0.0 };
            let sediment_out = sediment_per_water * water_out;
            self.water_delta[n] += water_out;
            self.water_delta[i] -= water_out;
            self.sediment_delta[n] += sediment_out;
            self.sediment_delta[i] -= sediment_out;
        }
    }

    /// Evaporation and deposit on row `y`, clearing its transfers.
    fn settle_row(&mut self, map: &mut Heightmap, params: &HydraulicParams, y: usize) {
        let width = map.width();
        let row = y * width..(y + 1) * width;
        let keep = 1.0 - params.evaporation;
        let settling = map.cells_mut()[row.clone()]
            .iter_mut()
            .zip(&mut self.water[row.clone()])
            .zip(&mut self.sediment[row.clone()])
            .zip(&mut self.water_delta[row.clone()])
            .zip(&mut self.sediment_delta[row]);
        for ((((h, water), sediment), water_delta), sediment_delta) in settling {
            // Rounding can leave a cell that sent everything a hair below zero.
            let new_water = ((*water + *water_delta) * keep).max(0.0);
            let new_sediment = (*sediment + *sediment_delta).max(0.0);
            let deposit = (new_sediment - params.capacity * new_water).max(0.0);
            *h += deposit;
            *sediment = new_sediment - deposit;
            *water = new_water;
            *water_delta = 0.0;
            *sediment_delta = 0.0;
        }
    }
}

/// The neighbours of cell (`x`, `y`) inside the map, in the order left,
/// right, up, down, and how many there are.
fn edge_neighbours(x: usize, y: usize, width: usize, height: usize) -> ([usize; 4], usize) {
    let i = y * width + x;
    let mut neighbours = [0; 4];
    let mut count = 0;
    let candidates = [
        (x > 0).then(|| i - 1),
        (x + 1 < width).then(|| i + 1),
        (y > 0).then(|| i - width),
        (y + 1 < height).then(|| i + width),
    ];
    for n in candidates.into_iter().flatten() {
        neighbours[count] = n;
        count += 1;
    }
    (neighbours, count)
}

/// The parameter checks every erosion shares: each error names the
/// parameter and its range in one line.
pub(crate) fn check_iterations(iterations: u32) -> Result<(), TerrainError> {
    if iterations <= MAX_EROSION_ITERATIONS {
        Ok(())
    } else {
        Err(TerrainError::out_of_range(
            "iterations",
            iterations,
            "at most 100000",
        ))
    }
}

pub(crate) fn check_non_negative(name: &'static str, value: f32) -> Result<(), TerrainError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(TerrainError::out_of_range(
            name,
            value,
            "a finite number >= 0",
        ))
    }
}

pub(crate) fn check_positive(name: &'static str, value: f32) -> Result<(), TerrainError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(TerrainError::out_of_range(
            name,
            value,
            "a finite number > 0",
        ))
    }
}

pub(crate) fn check_unit(name: &'static str, value: f32) -> Result<(), TerrainError> {
    check_within(name, value, 0.0, 1.0, "between 0 and 1")
}

pub(crate) fn check_scale(name: &'static str, value: f32) -> Result<(), TerrainError> {
    check_within(name, value, 0.0001, 10_000.0, "between 0.0001 and 10000")
}

pub(crate) fn check_within(
    name: &'static str,
    value: f32,
    lo: f32,
    hi: f32,
    expected: &'static str,
) -> Result<(), TerrainError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(TerrainError::out_of_range(name, value, expected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::diamond_square::diamond_square;
    use crate::terrain::metrics::metrics;

    fn total(map: &Heightmap) -> f64 {
        map.cells().iter().map(|&h| f64::from(h)).sum()
    }

    fn rough_map() -> Heightmap {
        diamond_square(33, 33, 1.0, 17).unwrap()
    }

    fn thermal_params(iterations: u32, talus: f32) -> ThermalParams {
        ThermalParams {
            iterations,
            talus,
            rate: 0.5,
            hardness: Hardness::default(),
        }
    }

    #[test]
    fn thermal_conserves_the_sum_of_heights() {
        // Each transfer subtracts and adds the same f32 amount; only the
        // final additions round, so the sum moves by far less than 1e-4.
        let mut map = rough_map();
        let before = total(&map);
        thermal(&mut map, &thermal_params(40, 0.01)).unwrap();
        assert!(
            (total(&map) - before).abs() < 1e-4,
            "{} vs {before}",
            total(&map)
        );
        assert_ne!(map, rough_map(), "material moved");
    }

    #[test]
    fn thermal_leaves_a_slope_under_talus_alone() {
        let cells = (0..4)
            .flat_map(|_| (0..6).map(|x| 0.1 * x as f32))
            .collect();
        let mut map = Heightmap::from_cells(6, 4, cells).unwrap();
        let before = map.clone();
        thermal(&mut map, &thermal_params(10, 0.11)).unwrap();
        assert_eq!(map, before);
    }

    #[test]
    fn thermal_flattens_a_spike_down_to_the_talus_slope() {
        // A unit spike on flat ground with T = 0.05: material slides off
        // until no difference to a neighbour exceeds the talus (the excess
        // shrinks geometrically, so 100 iterations leave < 1e-4 of it).
        let mut map = Heightmap::flat(7, 7).unwrap();
        map.set(3, 3, 1.0);
        let params = ThermalParams {
            hardness: Hardness::UNIFORM,
            ..thermal_params(100, 0.05)
        };
        thermal(&mut map, &params).unwrap();
        assert!(map.get(3, 3) < 0.2, "spike still at {}", map.get(3, 3));
        assert!(map.get(3, 2) > 0.0 && map.get(2, 3) > 0.0);
        for_each_slope(&map, |s| assert!(s < 0.05 + 1e-4, "slope {s}"));
    }

    #[test]
    fn thermal_hardness_zero_freezes_the_map() {
        let mut map = rough_map();
        let before = map.clone();
        let params = ThermalParams {
            hardness: Hardness {
                at_lowest: 0.0,
                at_highest: 0.0,
            },
            ..thermal_params(5, 0.0)
        };
        thermal(&mut map, &params).unwrap();
        assert_eq!(map, before);
    }

    #[test]
    fn harder_peaks_keep_more_of_their_height() {
        let mut soft = rough_map();
        let mut hard = rough_map();
        let peak = soft.min_max().1;
        thermal(
            &mut soft,
            &ThermalParams {
                hardness: Hardness::UNIFORM,
                ..thermal_params(10, 0.0)
            },
        )
        .unwrap();
        thermal(
            &mut hard,
            &ThermalParams {
                hardness: Hardness {
                    at_lowest: 1.0,
                    at_highest: 0.1,
                },
                ..thermal_params(10, 0.0)
            },
        )
        .unwrap();
        assert!(hard.min_max().1 > soft.min_max().1);
        assert!(hard.min_max().1 <= peak);
    }

    #[test]
    fn thermal_does_not_raise_the_erosion_score_of_a_rough_map() {
        let mut map = rough_map();
        let before = metrics(&map).erosion_score;
        thermal(&mut map, &thermal_params(50, 0.02)).unwrap();
        let after = metrics(&map).erosion_score;
        assert!(after <= before, "{after} > {before}");
    }

    #[test]
    fn thermal_iterations_compose() {
        let mut once = rough_map();
        let mut twice = rough_map();
        thermal(&mut once, &thermal_params(6, 0.01)).unwrap();
        thermal(&mut twice, &thermal_params(3, 0.01)).unwrap();
        thermal(&mut twice, &thermal_params(3, 0.01)).unwrap();
        assert_eq!(once, twice);
    }

    #[test]
    fn hydraulic_iterations_conserve_height_plus_sediment() {
        // Transfers are exact negatives of each other and deposits move
        // material between h and m, so only f32 rounding changes the total.
        let mut map = rough_map();
        let params = HydraulicParams::default();
        let before = total(&map);
        let mut state = HydraulicState::new(map.cells().len());
        for _ in 0..30 {
            state.iterate(&mut map, &params);
        }
        let suspended: f64 = state.sediment.iter().map(|&m| f64::from(m)).sum();
        assert!(suspended > 0.0, "water carried sediment");
        let after = total(&map) + suspended;
        assert!((after - before).abs() < 1e-3, "{after} vs {before}");
    }

    #[test]
    fn hydraulic_conserves_the_sum_of_heights_and_changes_the_map() {
        let mut map = rough_map();
        let before = total(&map);
        hydraulic(&mut map, &HydraulicParams::default()).unwrap();
        assert!((total(&map) - before).abs() < 1e-3);
        assert_ne!(map, rough_map());
    }

    #[test]
    fn hydraulic_moves_material_downhill() {
        // A ramp rising along x: water flows to x = 0, carrying sediment
        // dissolved uphill, so the low edge gains height overall.
        let cells = (0..8)
            .flat_map(|_| (0..8).map(|x| 0.2 * x as f32))
            .collect();
        let mut map = Heightmap::from_cells(8, 8, cells).unwrap();
        let low_before: f32 = (0..8).map(|y| map.get(0, y)).sum();
        let high_before: f32 = (0..8).map(|y| map.get(7, y)).sum();
        hydraulic(
            &mut map,
            &HydraulicParams {
                iterations: 50,
                ..HydraulicParams::default()
            },
        )
        .unwrap();
        let low_after: f32 = (0..8).map(|y| map.get(0, y)).sum();
        let high_after: f32 = (0..8).map(|y| map.get(7, y)).sum();
        assert!(low_after > low_before, "{low_after} <= {low_before}");
        assert!(high_after < high_before, "{high_after} >= {high_before}");
    }

    /// Olsen's thermal rule written the plain way, cell by cell with
    /// (x, y) indices, in the same order and arithmetic as the engine's.
    fn thermal_reference(map: &mut Heightmap, params: &ThermalParams) {
        let (w, h) = (map.width(), map.height());
        for _ in 0..params.iterations {
            let (lo, hi) = map.min_max();
            let inv_range = if hi > lo { 1.0 / (hi - lo) } else { 0.0 };
            let mut delta = vec![0.0f32; w * h];
            let m = map.cells();
            for y in 0..h {
                for x in 0..w {
                    let i = y * w + x;
                    let mut neighbours = Vec::new();
                    if x > 0 {
                        neighbours.push(i - 1);
                    }
                    if x + 1 < w {
                        neighbours.push(i + 1);
                    }
                    if y > 0 {
                        neighbours.push(i - w);
                    }
                    if y + 1 < h {
                        neighbours.push(i + w);
                    }
                    let mut d_max = 0.0f32;
                    let mut d_total = 0.0f32;
                    for &n in &neighbours {
                        let d = m[i] - m[n];
                        d_max = d_max.max(d);
                        if d > params.talus {
                            d_total += d;
                        }
                    }
                    if d_max <= params.talus {
                        continue;
                    }
                    let t = (m[i] - lo) * inv_range;
                    let hard = params.hardness;
                    let factor = hard.at_lowest + t * (hard.at_highest - hard.at_lowest);
                    let moved = params.rate * (d_max - params.talus) * factor;
                    for &n in &neighbours {
                        let d = m[i] - m[n];
                        if d > params.talus {
                            let amount = moved * d / d_total;
                            delta[n] += amount;
                            delta[i] -= amount;
                        }
                    }
                }
            }
            for (h, d) in map.cells_mut().iter_mut().zip(&delta) {
                *h += d;
            }
        }
    }

    /// Olsen's four hydraulic steps written the plain way, each over the
    /// whole map with (x, y) indices, then the final deposit.
    fn hydraulic_reference(map: &mut Heightmap, p: &HydraulicParams) {
        let (w, h) = (map.width(), map.height());
        let mut water = vec![0.0f32; w * h];
        let mut sediment = vec![0.0f32; w * h];
        let neighbours = |x: usize, y: usize| {
            let i = y * w + x;
            let mut n = Vec::new();
            if x > 0 {
                n.push(i - 1);
            }
            if x + 1 < w {
                n.push(i + 1);
            }
            if y > 0 {
                n.push(i - w);
            }
            if y + 1 < h {
                n.push(i + w);
            }
            n
        };
        for _ in 0..p.iterations {
            let m = map.cells().to_vec();
            let slopes: Vec<f32> = (0..w * h)
                .map(|i| {
                    neighbours(i % w, i / w)
                        .iter()
                        .fold(0.0f32, |s, &n| s.max((m[i] - m[n]).abs()))
                })
                .collect();
            let max_slope = slopes.iter().fold(0.0f32, |a, &s| a.max(s));
            let inv = if max_slope > 0.0 {
                1.0 / max_slope
            } else {
                0.0
            };
            let m = map.cells_mut();
            for i in 0..w * h {
                water[i] += p.rain;
                let amount = p.solubility * (1.0 - p.steep_hardness * slopes[i] * inv) * water[i];
                m[i] -= amount;
                sediment[i] += amount;
            }
            let mut dw = vec![0.0f32; w * h];
            let mut ds = vec![0.0f32; w * h];
            for i in 0..w * h {
                if water[i] <= 0.0 {
                    continue;
                }
                let level = m[i] + water[i];
                let around = neighbours(i % w, i / w);
                let lower: Vec<(usize, f32)> = around
                    .iter()
                    .map(|&n| (n, level - (m[n] + water[n])))
                    .filter(|&(_, d)| d > 0.0)
                    .collect();
                if lower.is_empty() {
                    continue;
                }
                let mut d_total = 0.0f32;
                let mut level_sum = level;
                for &(n, d) in &lower {
                    d_total += d;
                    level_sum += m[n] + water[n];
                }
                let mean = level_sum / (lower.len() + 1) as f32;
                let moved = water[i].min(level - mean);
                if moved <= 0.0 {
                    continue;
                }
                let per_water = sediment[i] / water[i];
                for &(n, d) in &lower {
                    let out = moved * d / d_total;
                    dw[n] += out;
                    dw[i] -= out;
                    ds[n] += per_water * out;
                    ds[i] -= per_water * out;
                }
            }
            for i in 0..w * h {
                let new_water = ((water[i] + dw[i]) * (1.0 - p.evaporation)).max(0.0);
                let new_sediment = (sediment[i] + ds[i]).max(0.0);
                let deposit = (new_sediment - p.capacity * new_water).max(0.0);
                m[i] += deposit;
                sediment[i] = new_sediment - deposit;
                water[i] = new_water;
            }
        }
        for (h, s) in map.cells_mut().iter_mut().zip(&sediment) {
            *h += s;
        }
    }

    fn bits(map: &Heightmap) -> Vec<u32> {
        map.cells().iter().map(|h| h.to_bits()).collect()
    }

    /// Rough starting maps: diamond-square on sizes that are square, not,
    /// not 2^n + 1, tiny, plus one with a flat plateau.
    fn start_maps() -> Vec<Heightmap> {
        let mut maps: Vec<Heightmap> =
            [(2, 2, 1), (3, 2, 2), (20, 33, 3), (65, 40, 4), (100, 7, 5)]
                .into_iter()
                .map(|(w, h, seed)| {
                    // Tilted, so that even the flat 2x2 map has slopes.
                    let mut map = diamond_square(w, h, 1.0, seed).unwrap();
                    for y in 0..h {
                        for x in 0..w {
                            map.set(x, y, map.get(x, y) + 0.3 * x as f32 + 0.2 * y as f32);
                        }
                    }
                    map
                })
                .collect();
        let mut plateau = diamond_square(30, 17, 0.5, 6).unwrap();
        for y in 4..10 {
            for x in 5..20 {
                plateau.set(x, y, 0.75);
            }
        }
        maps.push(plateau);
        maps
    }

    /// Steps `job` to the end on `map`, checking that every slice left
    /// changes the map and leaves it finite, and that a step after the end
    /// changes nothing.
    fn step_to_end(mut job: impl Sliced, map: &mut Heightmap) {
        let left = job.slices() - job.slices_done();
        let mut changing = 0;
        while !job.is_done() {
            let before = map.clone();
            job.step(map);
            assert!(map.cells().iter().all(|h| h.is_finite()));
            if *map != before {
                changing += 1;
            }
        }
        assert_eq!(changing, left, "{}x{}", map.width(), map.height());
        let end = map.clone();
        job.step(map);
        assert_eq!(bits(map), bits(&end));
        assert_eq!(job.slices_done(), job.slices());
    }

    #[test]
    fn thermal_sliced_ends_at_the_plain_rule_bit_for_bit() {
        let params = [
            thermal_params(12, 0.0),
            thermal_params(7, 0.02),
            ThermalParams {
                hardness: Hardness::UNIFORM,
                ..thermal_params(5, 0.01)
            },
        ];
        for start in start_maps() {
            for params in &params {
                let mut expected = start.clone();
                thermal_reference(&mut expected, params);
                let mut sliced = start.clone();
                step_to_end(ThermalErosion::new(params).unwrap(), &mut sliced);
                assert_eq!(bits(&sliced), bits(&expected), "{params:?}");
                let mut whole = start.clone();
                thermal(&mut whole, params).unwrap();
                assert_eq!(bits(&whole), bits(&expected));
            }
        }
    }

    #[test]
    fn thermal_sliced_on_257x257_is_the_plain_rule() {
        let start = diamond_square(257, 257, 1.0, 8).unwrap();
        let params = thermal_params(3, 0.01);
        let mut expected = start.clone();
        thermal_reference(&mut expected, &params);
        let mut sliced = start;
        step_to_end(ThermalErosion::new(&params).unwrap(), &mut sliced);
        assert_eq!(bits(&sliced), bits(&expected));
    }

    #[test]
    fn hydraulic_sliced_ends_at_the_plain_steps_bit_for_bit() {
        let params = [
            HydraulicParams {
                iterations: 9,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                iterations: 4,
                rain: 0.05,
                solubility: 0.1,
                evaporation: 0.2,
                capacity: 0.02,
                steep_hardness: 0.0,
            },
        ];
        for start in start_maps() {
            for params in &params {
                let mut expected = start.clone();
                hydraulic_reference(&mut expected, params);
                let mut sliced = start.clone();
                let job = HydraulicErosion::new(start.width(), start.height(), params).unwrap();
                assert_eq!(job.slices(), params.iterations as usize + 1);
                step_to_end(job, &mut sliced);
                assert_eq!(bits(&sliced), bits(&expected), "{params:?}");
                let mut whole = start.clone();
                hydraulic(&mut whole, params).unwrap();
                assert_eq!(bits(&whole), bits(&expected));
            }
        }
    }

    #[test]
    fn hydraulic_sliced_on_257x257_is_the_plain_steps_and_keeps_its_water() {
        let start = diamond_square(257, 257, 1.0, 9).unwrap();
        let params = HydraulicParams {
            iterations: 3,
            ..HydraulicParams::default()
        };
        let mut expected = start.clone();
        hydraulic_reference(&mut expected, &params);
        let mut job = HydraulicErosion::new(257, 257, &params).unwrap();
        let mut sliced = start;
        job.step(&mut sliced);
        assert!(job.water().iter().any(|&w| w > 0.0), "it rained");
        assert!(
            job.sediment().iter().any(|&m| m > 0.0),
            "water carries sediment"
        );
        step_to_end(job.clone(), &mut sliced);
        assert_eq!(bits(&sliced), bits(&expected));
    }

    #[test]
    fn erosion_jobs_validate_as_the_functions_do() {
        assert!(ThermalErosion::new(&thermal_params(1, -1.0)).is_err());
        let bad = HydraulicParams {
            solubility: 2.0,
            ..HydraulicParams::default()
        };
        assert!(HydraulicErosion::new(8, 8, &bad).is_err());
        assert!(HydraulicErosion::new(1, 8, &HydraulicParams::default()).is_err());
        let none = ThermalErosion::new(&thermal_params(0, 0.0)).unwrap();
        assert!(none.is_done());
    }

    #[test]
    fn out_of_range_parameters_are_errors() {
        let mut map = Heightmap::flat(4, 4).unwrap();
        let thermal_cases = [
            ThermalParams {
                talus: -1.0,
                ..ThermalParams::default()
            },
            ThermalParams {
                rate: 0.6,
                ..ThermalParams::default()
            },
            ThermalParams {
                iterations: MAX_EROSION_ITERATIONS + 1,
                ..ThermalParams::default()
            },
            ThermalParams {
                hardness: Hardness {
                    at_lowest: 1.5,
                    at_highest: 1.0,
                },
                ..ThermalParams::default()
            },
        ];
        for params in thermal_cases {
            assert!(thermal(&mut map, &params).is_err(), "{params:?}");
        }
        let hydraulic_cases = [
            HydraulicParams {
                rain: f32::NAN,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                solubility: 2.0,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                evaporation: -0.5,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                capacity: f32::INFINITY,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                steep_hardness: 1.1,
                ..HydraulicParams::default()
            },
        ];
        for params in hydraulic_cases {
            assert!(hydraulic(&mut map, &params).is_err(), "{params:?}");
        }
    }

    #[test]
    fn thermal_in_row_bands_is_the_plain_rule_bit_for_bit() {
        let params = [thermal_params(6, 0.0), thermal_params(4, 0.02)];
        for start in start_maps() {
            let (w, h) = (start.width(), start.height());
            for params in &params {
                let mut expected = start.clone();
                thermal_reference(&mut expected, params);
                for rows in [1, 2, 3, 5, h] {
                    let job = ThermalErosion::with_band_rows(w, h, rows, params).unwrap();
                    let bands = h.div_ceil(rows);
                    assert_eq!(job.slices(), params.iterations as usize * bands);
                    // A one-row band at the top only computes transfers
                    // (the row is written with the next band), so not
                    // every slice changes the map.
                    let mut sliced = start.clone();
                    let mut job = job;
                    job.run_to_end(&mut sliced);
                    assert!(job.is_done());
                    assert_eq!(bits(&sliced), bits(&expected), "{w}x{h}, {rows} rows");
                }
            }
        }
    }

    #[test]
    fn hydraulic_in_row_bands_is_the_plain_steps_bit_for_bit() {
        let params = HydraulicParams {
            iterations: 5,
            ..HydraulicParams::default()
        };
        for start in start_maps() {
            let (w, h) = (start.width(), start.height());
            let mut expected = start.clone();
            hydraulic_reference(&mut expected, &params);
            for rows in [1, 2, 3, 4, 7, h] {
                let job = HydraulicErosion::with_band_rows(w, h, rows, &params).unwrap();
                let bands = h.div_ceil(rows);
                assert_eq!(job.slices(), params.iterations as usize * bands + 1);
                let mut sliced = start.clone();
                let mut job = job;
                job.run_to_end(&mut sliced);
                assert_eq!(bits(&sliced), bits(&expected), "{w}x{h}, {rows} rows");
            }
        }
    }

    #[test]
    fn banded_jobs_on_513x513_are_the_whole_functions() {
        let start = diamond_square(513, 513, 1.0, 10).unwrap();
        let thermal_params = thermal_params(2, 0.01);
        let mut whole = start.clone();
        thermal(&mut whole, &thermal_params).unwrap();
        let mut job = ThermalErosion::banded(513, 513, &thermal_params).unwrap();
        assert!(job.slices() > 2, "{} slices", job.slices());
        let mut banded = start.clone();
        job.run_to_end(&mut banded);
        assert_eq!(bits(&banded), bits(&whole));
        let params = HydraulicParams {
            iterations: 2,
            ..HydraulicParams::default()
        };
        let mut expected = start.clone();
        hydraulic_reference(&mut expected, &params);
        let job = HydraulicErosion::new(513, 513, &params).unwrap();
        assert!(job.slices() > 3, "{} slices", job.slices());
        let mut banded = start;
        step_to_end(job, &mut banded);
        assert_eq!(bits(&banded), bits(&expected));
    }
}
