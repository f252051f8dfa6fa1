//! Smoothing filters: the demo's two-tap recursive (IIR) pass, its true FIR variant, and a separable Gaussian blur.
//!
//! The two-tap filters run four directional passes, in this order: every row
//! left→right then right→left, then every column top→bottom then bottom→top.
//! The first sample of each directional pass is left as it is. With
//! `k` the filter constant, each pass computes `out = k * prev + (1 - k) * cur`:
//! for the IIR filter (the loop published in the demo's write-up, under the
//! name `FIRFilter`) `prev` is the output just written, for the FIR filter it
//! is the previous *input* sample of the same pass. Every row and column is
//! filtered, border included, as in that published loop; the HoloLens demo's
//! own code later skips the border rows and columns, which changes the
//! heights near the border slightly (see [`iir_two_tap`]).
use wide::f32x4;

use super::error::TerrainError;
use super::heightmap::Heightmap;
use super::heightmap::check_size;
#[cfg(target_arch = "x86_64")]
use super::lanes::Avx8;
use super::lanes::{ColumnBuffers, Lanes, array4};
use super::sliced::assert_map_size;
use super::sliced::{Sliced, rows_per_band};

/// Largest Gaussian sigma accepted, in samples; the kernel radius is
/// `ceil(3 * sigma)`, and wider kernels only cost time on maps we can hold.
pub const MAX_GAUSSIAN_SIGMA: f32 = 1024.0;

pub(crate) use super::lanes::ROW_LANES;

/// Which vectors the IIR pass runs on. Every choice gives the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Vectors {
    /// The widest this processor has: eight lanes (AVX) on an x86-64 that
    /// has AVX, else four.
    #[default]
    Widest,
    /// Four lanes: SSE2 on x86-64, NEON on ARM64, which every processor of
    /// either has.
    Four,
}

/// One pass of the two-tap recursive filter, bit for bit the loop published
/// in the demo's write-up, which filters every row and column, border included.
///
/// Each directional pass feeds on its own output, which makes it an infinite
/// impulse response filter. The column passes sweep whole rows at a time
/// (row `y` from row `y - 1`) and the row passes filter 16 or 32 rows side
/// by side; both perform exactly the per-row and per-column operations of
/// the published loop in the same order, so the result is bit-identical to
/// it (tested against a transcription), but reads memory sequentially and
/// keeps the vector units busy (docs/performance.md has the times).
///
/// The HoloLens demo's own code filters only the interior, starting each
/// pass from the untouched border sample. The app's demo run instead zeroes
/// the border after each pass (`lock_border`), so the border agrees, but the
/// return passes start from a filtered border sample: after a full
/// 500-iteration demo run on 257×257 the heights differ from the
/// border-skipping loop's by under 10⁻³ terrain units (0.5 mm on the 0.5 m
/// hologram, against peaks of about 0.2) and only within 64 samples of the
/// border (tested), so the published loop is kept as it is.
pub fn iir_two_tap(map: &mut Heightmap, k: f32) -> Result<(), TerrainError> {
    iir_two_tap_with(&mut IirScratch::default(), map, k)
}

/// Buffers [`iir_two_tap_with`] reuses, so that a pass every frame costs no allocation.
#[derive(Clone, Debug, Default)]
pub struct IirScratch {
    /// The row passes' columns.
    columns: ColumnBuffers,
    /// Which vectors to run on.
    vectors: Vectors,
}

impl IirScratch {
    /// Buffers for passes that run on `vectors`.
    pub fn on(vectors: Vectors) -> Self {
        IirScratch {
            vectors,
            ..IirScratch::default()
        }
    }

    /// Which vectors the passes run on.
    pub fn vectors(&self) -> Vectors {
        self.vectors
    }

    /// Runs the passes on `vectors` from now on.
    pub fn set_vectors(&mut self, vectors: Vectors) {
        self.vectors = vectors;
    }
}

/// [`iir_two_tap`] with buffers kept from call to call.
pub fn iir_two_tap_with(
    scratch: &mut IirScratch,
    map: &mut Heightmap,
    k: f32,
) -> Result<(), TerrainError> {
    check_filter_constant(k)?;
    let width = map.width();
    iir_two_tap_sweeps(
        scratch,
        map.cells_mut(),
        width,
        k,
        &mut Unshaped,
        None,
        |_, _| {},
    );
    Ok(())
}

/// What the down sweep of [`iir_two_tap_sweeps`] does to each height
/// before filtering it: nothing for a plain pass ([`Unshaped`]); for an
/// iteration of a run, add its change.
pub(crate) trait RowShaping {
    /// Whether heights change at all; when not, no change is read.
    const CHANGES: bool;

    /// Gets the change of rows `first..first + count` (at most
    /// [`ROW_LANES`]) ready for [`RowShaping::row`].
    fn prepare(&mut self, first: usize, count: usize);

    /// The change and the weight of each sample of row `i` of the
    /// prepared rows (row `first + i` of the map), at least `width` each.
    fn row(&self, i: usize) -> (&[f32], &[f32]);

    /// Heights after their changes: the lanes hold the same samples in
    /// `height`, `change` and `weight`.
    fn shaped<V: Lanes>(height: V, change: V, weight: V) -> V;
}

/// The shaping of a plain filter pass: heights stay as they are.
pub(crate) struct Unshaped;

impl RowShaping for Unshaped {
    const CHANGES: bool = false;

    fn prepare(&mut self, _first: usize, _count: usize) {}

    fn row(&self, _i: usize) -> (&[f32], &[f32]) {
        (&[], &[])
    }

    fn shaped<V: Lanes>(height: V, _change: V, _weight: V) -> V {
        height
    }
}

/// Applies `shaping`'s change to row `i` of its prepared rows (`row`),
/// `V::ROWS` samples at a time.
#[inline(always)]
pub(crate) fn shape_row<V: Lanes, S: RowShaping>(shaping: &S, i: usize, row: &mut [f32]) {
    if !S::CHANGES {
        return;
    }
    let (change, weight) = shaping.row(i);
    let width = row.len();
    let mut heights = row.chunks_exact_mut(V::ROWS);
    let changes = change[..width].chunks_exact(V::ROWS);
    let weights = weight[..width].chunks_exact(V::ROWS);
    let (change_rest, weight_rest) = (changes.remainder(), weights.remainder());
    for ((h, c), w) in (&mut heights).zip(changes).zip(weights) {
        S::shaped(V::load(h), V::load(c), V::load(w)).store(h);
    }
    let rest = heights
        .into_remainder()
        .iter_mut()
        .zip(change_rest)
        .zip(weight_rest);
    for ((h, &c), &w) in rest {
        let shaped = S::shaped(f32x4::splat(*h), f32x4::splat(c), f32x4::splat(w));
        *h = shaped.as_array()[0];
    }
}

/// One pass of [`iir_two_tap`] over the row-major `cells` of a `width`-wide
/// map (`k` already checked), as one sweep down the map and one up, with
/// the caller's own work on each row done while the row is in cache:
///
/// - down, [`ROW_LANES`] rows at a time (or half as many on four-lane
///   vectors): `shaping`'s change added to the heights as they are read,
///   then the row passes of those rows, then the top→bottom pass through
///   them;
/// - up, row by row: the bottom→top pass, and `finish(y, row)` on each row
///   as soon as the pass no longer reads it; returns the lowest and highest
///   height after `finish`.
///
/// With a `helper` (its own buffers and its own shaping of the same
/// change), the down sweep of the lower half runs on another thread of
/// rayon's pool: the row passes of the two halves are independent, and the
/// top→bottom pass goes on through the lower half once both are done.
///
/// Every sample goes through the operations of the four directional passes
/// in the published order, so the heights are those of [`iir_two_tap`]
/// run after the change on every row, then `finish` on every row, with or
/// without a helper, on any [`Vectors`].
pub(crate) fn iir_two_tap_sweeps<S: RowShaping + Send>(
    scratch: &mut IirScratch,
    cells: &mut [f32],
    width: usize,
    k: f32,
    shaping: &mut S,
    helper: Option<(&mut IirScratch, &mut S)>,
    finish: impl FnMut(usize, &mut [f32]),
) -> (f32, f32) {
    match scratch.vectors {
        #[cfg(target_arch = "x86_64")]
        Vectors::Widest if Avx8::available() => {
            sweeps::<Avx8, S>(scratch, cells, width, k, shaping, helper, finish)
        }
        Vectors::Widest | Vectors::Four => {
            sweeps::<f32x4, S>(scratch, cells, width, k, shaping, helper, finish)
        }
    }
}

/// [`iir_two_tap_sweeps`] on vectors `V`.
fn sweeps<V: Lanes, S: RowShaping + Send>(
    scratch: &mut IirScratch,
    cells: &mut [f32],
    width: usize,
    k: f32,
    shaping: &mut S,
    helper: Option<(&mut IirScratch, &mut S)>,
    mut finish: impl FnMut(usize, &mut [f32]),
) -> (f32, f32) {
    let keep = 1.0 - k;
    let rows = cells.len() / width;
    let halves = helper.filter(|_| rows >= 2 * ROW_LANES);
    match halves {
        Some((helper_scratch, helper_shaping)) => {
            let split = rows / 2 / ROW_LANES * ROW_LANES;
            let (upper, lower) = cells.split_at_mut(split * width);
            // The lower half goes to another thread of rayon's pool; this
            // thread does the upper half meanwhile rather than wait.
            rayon::in_place_scope(|scope| {
                scope.spawn(|_| {
                    V::with_instructions(
                        #[inline(always)]
                        || {
                            sweep_down::<V, S>(
                                helper_scratch,
                                lower,
                                split,
                                width,
                                k,
                                helper_shaping,
                                Downward::Later,
                            )
                        },
                    )
                });
                V::with_instructions(
                    #[inline(always)]
                    || sweep_down::<V, S>(scratch, upper, 0, width, k, shaping, Downward::Through),
                );
            });
            V::with_instructions(
                #[inline(always)]
                || {
                    for y in split..rows {
                        let (upper, lower) = cells.split_at_mut(y * width);
                        column_step(&upper[(y - 1) * width..], &mut lower[..width], k, keep);
                    }
                },
            );
        }
        None => V::with_instructions(
            #[inline(always)]
            || sweep_down::<V, S>(scratch, cells, 0, width, k, shaping, Downward::Through),
        ),
    }
    V::with_instructions(
        #[inline(always)]
        || {
            let mut range = HeightRange::<V>::new();
            for y in (0..rows - 1).rev() {
                let (upper, lower) = cells.split_at_mut((y + 1) * width);
                let below = &mut lower[..width];
                column_step(below, &mut upper[y * width..], k, keep);
                finish(y + 1, below);
                range.widen(below);
            }
            let top = &mut cells[..width];
            finish(0, top);
            range.widen(top);
            range.range()
        },
    )
}

/// The lowest and highest of the heights shown to it, two vectors of
/// running minimums and maximums at a time, so that no one chain of them
/// waits on itself. Heights are never NaN, so the vector minimum and
/// maximum give what `f32::min` and `f32::max` would (up to the sign of a
/// zero).
struct HeightRange<V> {
    low: [V; 2],
    high: [V; 2],
}

impl<V: Lanes> HeightRange<V> {
    #[inline(always)]
    fn new() -> Self {
        HeightRange {
            low: [V::splat(f32::INFINITY); 2],
            high: [V::splat(f32::NEG_INFINITY); 2],
        }
    }

    #[inline(always)]
    fn widen(&mut self, heights: &[f32]) {
        let lanes = V::ROWS;
        let (mut low, mut high) = (self.low, self.high);
        let mut pairs = heights.chunks_exact(2 * lanes);
        for pair in &mut pairs {
            let (a, b) = (V::load(pair), V::load(&pair[lanes..]));
            (low[0], high[0]) = (low[0].min(a), high[0].max(a));
            (low[1], high[1]) = (low[1].min(b), high[1].max(b));
        }
        // What is left is read a vector at a time, the last one repeating
        // the last height: seeing a height twice changes no minimum or
        // maximum.
        let rest = pairs.remainder();
        if let Some(last) = rest.len().checked_sub(1) {
            for start in (0..rest.len()).step_by(lanes) {
                let tail = V::gather(
                    #[inline(always)]
                    |j| rest[(start + j).min(last)],
                );
                (low[0], high[0]) = (low[0].min(tail), high[0].max(tail));
            }
        }
        (self.low, self.high) = (low, high);
    }

    fn range(&self) -> (f32, f32) {
        let low = self.low[0].min(self.low[1]).lanes();
        let high = self.high[0].max(self.high[1]).lanes();
        let low = low[..V::ROWS]
            .iter()
            .fold(f32::INFINITY, |lo, &h| lo.min(h));
        let high = high[..V::ROWS]
            .iter()
            .fold(f32::NEG_INFINITY, |hi, &h| hi.max(h));
        (low, high)
    }
}

/// Whether [`sweep_down`] runs the top→bottom pass.
#[derive(Clone, Copy)]
enum Downward {
    /// Through its rows, from the first (the map's top row).
    Through,
    /// Not at all: the caller runs it once the rows above are done.
    Later,
}

/// The down sweep of [`iir_two_tap_sweeps`] over `band`, the map's rows
/// from row `first` (a multiple of a group's rows): `shaping`'s change and
/// the row passes, [`ROW_LANES`] rows at a time,
/// and the top→bottom pass if `downward` says so.
#[inline(always)]
fn sweep_down<V: Lanes, S: RowShaping>(
    scratch: &mut IirScratch,
    band: &mut [f32],
    first: usize,
    width: usize,
    k: f32,
    shaping: &mut S,
    downward: Downward,
) {
    let keep = 1.0 - k;
    let rows = band.len() / width;
    let columns = V::buffer(&mut scratch.columns);
    // Every column is written before it is read: only the size matters.
    columns.resize(width * V::BLOCKS, V::splat(0.0));
    for start in (0..rows).step_by(ROW_LANES) {
        let (above, rest) = band.split_at_mut(start * width);
        let count = ROW_LANES.min(rows - start);
        let group = &mut rest[..count * width];
        shaping.prepare(first + start, count);
        for (i, row) in group.chunks_exact_mut(width).enumerate() {
            shape_row::<V, S>(&*shaping, i, row);
        }
        if count == ROW_LANES {
            match V::BLOCKS {
                2 => filter_group::<V, 2>(columns, group, width, k, keep),
                4 => filter_group::<V, 4>(columns, group, width, k, keep),
                blocks => unreachable!("{blocks} blocks of rows"),
            }
        } else {
            for row in group.chunks_exact_mut(width) {
                filter_row(row, k, keep);
            }
        }
        if let Downward::Through = downward {
            if let Some(above) = above.rchunks_exact(width).next() {
                column_step(above, &mut group[..width], k, keep);
            }
            for y in 1..count {
                let (upper, lower) = group.split_at_mut(y * width);
                column_step(&upper[(y - 1) * width..], &mut lower[..width], k, keep);
            }
        }
    }
}

/// The left→right then right→left passes of one row.
fn filter_row(row: &mut [f32], k: f32, keep: f32) {
    for x in 1..row.len() {
        row[x] = k * row[x - 1] + keep * row[x];
    }
    for x in (0..row.len() - 1).rev() {
        row[x] = k * row[x + 1] + keep * row[x];
    }
}

/// The row passes of a group of [`ROW_LANES`] rows, `V::BLOCKS` blocks of
/// `V::ROWS`.
///
/// Along a row every output waits for the previous one, so a row alone
/// runs at the latency of a multiply and an add per sample. Here the rows
/// of a block are transposed, four columns at a time, into vectors of one
/// column each (one row per lane), and stepped left→right as they come,
/// into `columns` (column `x`'s blocks at `x * V::BLOCKS..`); then
/// `columns` is read back from the right, stepped right→left, transposed
/// back and written. The blocks' recurrences are independent, and each
/// column steps all of them, so the processor overlaps them. Each sample
/// still gets its row's operations in the published order, in a lane of
/// its own.
#[inline(always)]
fn filter_group<V: Lanes, const BLOCKS: usize>(
    columns: &mut [V],
    group: &mut [f32],
    width: usize,
    k: f32,
    keep: f32,
) {
    let whole = width - width % 4;
    let blocks = BLOCKS;
    let block_len = V::ROWS * width;
    let (k, keep) = (V::splat(k), V::splat(keep));

    // The quads of four columns, with the pass's first column (left→right)
    // and last (right→left) peeled off, so that the loops test neither.
    let mut prev = [V::splat(0.0); BLOCKS];
    if whole > 0 {
        quad_in::<V, BLOCKS, true>(columns, group, &mut prev, width, 0, k, keep);
    }
    for x in (4..whole).step_by(4) {
        quad_in::<V, BLOCKS, false>(columns, group, &mut prev, width, x, k, keep);
    }
    for x in whole..width {
        for block in 0..blocks {
            let rows = &group[block * block_len..][..block_len];
            let column = V::gather(
                #[inline(always)]
                |j| rows[j * width + x],
            );
            prev[block] = step(k, keep, prev[block], column, x == 0);
            columns[x * blocks + block] = prev[block];
        }
    }

    let last = width - 1;
    for x in (whole..width).rev() {
        for block in 0..blocks {
            let rows = &mut group[block * block_len..][..block_len];
            prev[block] = step(k, keep, prev[block], columns[x * blocks + block], x == last);
            for (j, sample) in prev[block].lanes().into_iter().take(V::ROWS).enumerate() {
                rows[j * width + x] = sample;
            }
        }
    }
    let mut quads = (0..whole).step_by(4).rev();
    if whole == width
        && let Some(x) = quads.next()
    {
        quad_out::<V, BLOCKS, true>(columns, group, &mut prev, width, x, k, keep);
    }
    for x in quads {
        quad_out::<V, BLOCKS, false>(columns, group, &mut prev, width, x, k, keep);
    }
}

/// The left→right pass through columns `x..x + 4` of every block of
/// `group`, from each block's output in `prev`, into `columns`; with
/// `FIRST`, column `x` (the row's first) is left as it is.
#[inline(always)]
fn quad_in<V: Lanes, const BLOCKS: usize, const FIRST: bool>(
    columns: &mut [V],
    group: &[f32],
    prev: &mut [V; BLOCKS],
    width: usize,
    x: usize,
    k: V,
    keep: V,
) {
    let block_len = V::ROWS * width;
    let columns = &mut columns[x * BLOCKS..(x + 4) * BLOCKS];
    for (block, prev) in prev.iter_mut().enumerate() {
        let rows = &group[block * block_len..][..block_len];
        let quads = V::transpose(V::load_rows(rows, width, x));
        for (i, quad) in quads.into_iter().enumerate() {
            *prev = step(k, keep, *prev, quad, FIRST && i == 0);
            columns[i * BLOCKS + block] = *prev;
        }
    }
}

/// The right→left pass through columns `x + 3` down to `x` of `columns`,
/// from each block's output in `prev`, written back to the blocks' rows
/// in `group`; with `LAST`, column `x + 3` (the row's last) is left as it is.
#[inline(always)]
fn quad_out<V: Lanes, const BLOCKS: usize, const LAST: bool>(
    columns: &[V],
    group: &mut [f32],
    prev: &mut [V; BLOCKS],
    width: usize,
    x: usize,
    k: V,
    keep: V,
) {
    let block_len = V::ROWS * width;
    let columns = &columns[x * BLOCKS..(x + 4) * BLOCKS];
    for (block, prev) in prev.iter_mut().enumerate() {
        let mut quads = array4(
            #[inline(always)]
            |i| columns[i * BLOCKS + block],
        );
        for i in (0..4).rev() {
            *prev = step(k, keep, *prev, quads[i], LAST && i == 3);
            quads[i] = *prev;
        }
        let rows = &mut group[block * block_len..][..block_len];
        V::store_rows(V::transpose(quads), rows, width, x);
    }
}

/// One step of a directional pass along a row: `cur` from the output
/// before it, `prev`; the pass leaves its `first` sample as it is.
#[inline(always)]
fn step<V: Lanes>(k: V, keep: V, prev: V, cur: V, first: bool) -> V {
    if first { cur } else { k * prev + keep * cur }
}

/// One row of a column pass: `row` from the row the pass came from.
#[inline(always)]
fn column_step(previous: &[f32], row: &mut [f32], k: f32, keep: f32) {
    for (cur, &prev) in row.iter_mut().zip(previous) {
        *cur = k * prev + keep * *cur;
    }
}

/// One pass of the true two-tap FIR filter the blog describes: each output
/// depends only on the pass's input, `out[i] = k * in[i - 1] + (1 - k) * in[i]`.
///
/// This is a [`SmoothingPass`] of [`Smoothing::Fir`] stepped to the end.
pub fn fir_two_tap(map: &mut Heightmap, k: f32) -> Result<(), TerrainError> {
    SmoothingPass::new(Smoothing::Fir { k }, map.width(), map.height())?.run_to_end(map);
    Ok(())
}

/// Separable Gaussian blur with standard deviation `sigma` samples.
///
/// The kernel has radius `ceil(3 * sigma)` with weights
/// `exp(-i² / (2 sigma²))` (from `libm`, so every platform gets the same
/// bits) normalised to sum to one; samples beyond the border take the value
/// of the nearest border sample. Sums are accumulated in f64.
///
/// This is a [`SmoothingPass`] of [`Smoothing::Gaussian`] stepped to the end.
pub fn gaussian(map: &mut Heightmap, sigma: f32) -> Result<(), TerrainError> {
    SmoothingPass::new(Smoothing::Gaussian { sigma }, map.width(), map.height())?.run_to_end(map);
    Ok(())
}

/// One pass of a smoothing filter, as a [`SmoothingPass`] does it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Smoothing {
    /// [`iir_two_tap`] with filter constant `k`.
    Iir { k: f32 },
    /// [`fir_two_tap`] with filter constant `k`.
    Fir { k: f32 },
    /// [`gaussian`] with standard deviation `sigma`.
    Gaussian { sigma: f32 },
}

/// One pass of a [`Smoothing`] filter done a bounded slice at a time; after
/// the last slice the map is what [`iir_two_tap`], [`fir_two_tap`] or
/// [`gaussian`] gives, bit for bit (they are the same code).
///
/// - IIR: one slice, the whole pass (about 50 µs at 257×257, 0.2 ms at
///   513×513, docs/performance.md).
/// - FIR: the map in bands of rows of at most about
///   [`SLICE_CELLS`](super::sliced::SLICE_CELLS) cells;
///   going down, each band's row passes and its rows of the top→bottom
///   pass; then going up, each band's rows of the bottom→top pass.
/// - Gaussian: bands of rows sized by the kernel's taps, first the
///   horizontal pass band by band, then the vertical pass band by band,
///   reading a copy of the map taken as the vertical pass starts.
///
/// Between slices the map holds the filter's work so far: the rows done
/// are filtered further than the rest.
#[derive(Clone, Debug)]
pub struct SmoothingPass {
    width: usize,
    height: usize,
    /// Rows per band (FIR, Gaussian).
    band: usize,
    /// Bands per sweep (FIR, Gaussian).
    bands: usize,
    work: PassWork,
    done: usize,
}

/// The filter and its buffers, kept between slices.
#[derive(Clone, Debug)]
enum PassWork {
    Iir {
        k: f32,
        scratch: IirScratch,
    },
    Fir {
        k: f32,
        /// The input of the row before the current one in a column pass.
        prev_inputs: Vec<f32>,
    },
    Gaussian {
        weights: Vec<f64>,
        /// A row widened by the kernel's radius.
        line: Vec<f64>,
        /// The map as the vertical pass starts.
        input: Vec<f32>,
        /// One output row of the vertical pass.
        sums: Vec<f64>,
    },
}

impl SmoothingPass {
    /// One pass of `smoothing` on a `width × height` map, with the
    /// validation of the whole function.
    pub fn new(smoothing: Smoothing, width: usize, height: usize) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        let (work, weight) = match smoothing {
            Smoothing::Iir { k } => {
                check_filter_constant(k)?;
                let scratch = IirScratch::default();
                (PassWork::Iir { k, scratch }, 0)
            }
            Smoothing::Fir { k } => {
                check_filter_constant(k)?;
                let prev_inputs = vec![0.0; width];
                (PassWork::Fir { k, prev_inputs }, 1)
            }
            Smoothing::Gaussian { sigma } => {
                if !(sigma.is_finite() && sigma > 0.0 && sigma <= MAX_GAUSSIAN_SIGMA) {
                    return Err(TerrainError::out_of_range(
                        "sigma",
                        sigma,
                        "a finite number > 0 and <= 1024",
                    ));
                }
                let weights = gaussian_weights(sigma);
                let pad = weights.len() - 1;
                let taps = weights.len();
                let work = PassWork::Gaussian {
                    weights,
                    line: vec![0.0; width + 2 * pad],
                    input: Vec::new(),
                    sums: vec![0.0; width],
                };
                (work, taps)
            }
        };
        let (band, bands) = if weight == 0 {
            (height, 1)
        } else {
            let band = rows_per_band(height, width, weight);
            (band, height.div_ceil(band))
        };
        Ok(SmoothingPass {
            width,
            height,
            band,
            bands,
            work,
            done: 0,
        })
    }

    /// Rows of band `i` of the down sweep (from the top).
    fn down_rows(&self, i: usize) -> std::ops::Range<usize> {
        i * self.band..((i + 1) * self.band).min(self.height)
    }

    /// Rows of band `i` of the up sweep (from the bottom).
    fn up_rows(&self, i: usize) -> std::ops::Range<usize> {
        let end = self.height - i * self.band;
        end.saturating_sub(self.band)..end
    }
}

impl Sliced for SmoothingPass {
    fn slices(&self) -> usize {
        match self.work {
            PassWork::Iir { .. } => 1,
            PassWork::Fir { .. } | PassWork::Gaussian { .. } => 2 * self.bands,
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
        let (width, height) = (self.width, self.height);
        let (first_sweep, band) = (self.done < self.bands, self.done % self.bands);
        let rows = if first_sweep {
            self.down_rows(band)
        } else {
            self.up_rows(band)
        };
        let downward_rows = self.down_rows(band);
        let cells = map.cells_mut();
        match &mut self.work {
            PassWork::Iir { k, scratch } => {
                iir_two_tap_sweeps(scratch, cells, width, *k, &mut Unshaped, None, |_, _| {});
            }
            PassWork::Fir { k, prev_inputs } => {
                let (k, keep) = (*k, 1.0 - *k);
                if first_sweep {
                    fir_rows_down(cells, width, rows, k, keep, prev_inputs);
                } else {
                    fir_rows_up(cells, width, height, rows, k, keep, prev_inputs);
                }
            }
            PassWork::Gaussian {
                weights,
                line,
                input,
                sums,
            } => {
                if first_sweep {
                    let band = &mut cells[downward_rows.start * width..downward_rows.end * width];
                    gaussian_rows(band, width, weights, line);
                } else {
                    if band == 0 {
                        input.clear();
                        input.extend_from_slice(cells);
                    }
                    gaussian_columns(cells, input, width, height, downward_rows, weights, sums);
                }
            }
        }
        self.done += 1;
    }
}

/// The down sweep of [`fir_two_tap`] over `rows`: their row passes, then
/// their rows of the top→bottom pass, the previous row's input in
/// `prev_inputs`.
fn fir_rows_down(
    cells: &mut [f32],
    width: usize,
    rows: std::ops::Range<usize>,
    k: f32,
    keep: f32,
    prev_inputs: &mut [f32],
) {
    let band = &mut cells[rows.start * width..rows.end * width];
    for row in band.chunks_exact_mut(width) {
        let mut prev_input = row[0];
        for cur in row[1..].iter_mut() {
            let input = *cur;
            *cur = k * prev_input + keep * input;
            prev_input = input;
        }
        let mut prev_input = row[width - 1];
        for cur in row[..width - 1].iter_mut().rev() {
            let input = *cur;
            *cur = k * prev_input + keep * input;
            prev_input = input;
        }
    }
    // The column pass needs the previous row's input, which the pass has
    // already overwritten, so one row of it is kept aside.
    for (y, row) in rows.zip(band.chunks_exact_mut(width)) {
        if y == 0 {
            prev_inputs.copy_from_slice(row);
            continue;
        }
        for (cur, prev) in row.iter_mut().zip(prev_inputs.iter_mut()) {
            let input = *cur;
            *cur = k * *prev + keep * input;
            *prev = input;
        }
    }
}

/// The up sweep of [`fir_two_tap`] over `rows`: their rows of the
/// bottom→top pass, from the bottom one up.
fn fir_rows_up(
    cells: &mut [f32],
    width: usize,
    height: usize,
    rows: std::ops::Range<usize>,
    k: f32,
    keep: f32,
    prev_inputs: &mut [f32],
) {
    let band = &mut cells[rows.start * width..rows.end * width];
    for (y, row) in rows.rev().zip(band.chunks_exact_mut(width).rev()) {
        if y == height - 1 {
            prev_inputs.copy_from_slice(row);
            continue;
        }
        for (cur, prev) in row.iter_mut().zip(prev_inputs.iter_mut()) {
            let input = *cur;
            *cur = k * *prev + keep * input;
            *prev = input;
        }
    }
}

/// The horizontal pass of [`gaussian`] over the rows of `band`, each
/// widened in `line` by the radius (`weights.len() - 1`) copies of its end
/// samples on each side, so the taps need no clamping.
fn gaussian_rows(band: &mut [f32], width: usize, weights: &[f64], line: &mut [f64]) {
    let pad = weights.len() - 1;
    for row in band.chunks_exact_mut(width) {
        line[..pad].fill(f64::from(row[0]));
        line[pad + width..].fill(f64::from(row[width - 1]));
        for (padded, &h) in line[pad..pad + width].iter_mut().zip(row.iter()) {
            *padded = f64::from(h);
        }
        for (x, out) in row.iter_mut().enumerate() {
            let centre = x + pad;
            let mut sum = weights[0] * line[centre];
            for (offset, &weight) in weights.iter().enumerate().skip(1) {
                sum += weight * (line[centre - offset] + line[centre + offset]);
            }
            *out = sum as f32;
        }
    }
}

/// The vertical pass of [`gaussian`] for `rows`, from `input` (the map as
/// the pass started), row by row: each output row is a weighted sum of
/// whole input rows, so memory is read sequentially.
fn gaussian_columns(
    cells: &mut [f32],
    input: &[f32],
    width: usize,
    height: usize,
    rows: std::ops::Range<usize>,
    weights: &[f64],
    sums: &mut [f64],
) {
    let radius = (weights.len() - 1) as isize;
    for y in rows {
        let centre = &input[y * width..(y + 1) * width];
        for (sum, &h) in sums.iter_mut().zip(centre) {
            *sum = weights[0] * f64::from(h);
        }
        for (offset, &weight) in (1..=radius).zip(&weights[1..]) {
            let up = clamp_index(y as isize - offset, height) * width;
            let down = clamp_index(y as isize + offset, height) * width;
            let up_row = &input[up..up + width];
            let down_row = &input[down..down + width];
            for ((sum, &a), &b) in sums.iter_mut().zip(up_row).zip(down_row) {
                *sum += weight * (f64::from(a) + f64::from(b));
            }
        }
        for (out, &sum) in cells[y * width..(y + 1) * width]
            .iter_mut()
            .zip(sums.iter())
        {
            *out = sum as f32;
        }
    }
}

/// The one-sided half of the normalised Gaussian kernel: `weights[i]` for offset ±i.
fn gaussian_weights(sigma: f32) -> Vec<f64> {
    let sigma = f64::from(sigma);
    let radius = libm::ceil(3.0 * sigma) as usize;
    let two_sigma_sq = 2.0 * sigma * sigma;
    let raw: Vec<f64> = (0..=radius)
        .map(|i| libm::exp(-((i * i) as f64) / two_sigma_sq))
        .collect();
    let total = raw[0] + 2.0 * raw[1..].iter().sum::<f64>();
    raw.into_iter().map(|w| w / total).collect()
}

fn clamp_index(i: isize, len: usize) -> usize {
    i.clamp(0, len as isize - 1) as usize
}

fn check_filter_constant(k: f32) -> Result<(), TerrainError> {
    if (0.0..=1.0).contains(&k) {
        Ok(())
    } else {
        Err(TerrainError::out_of_range("k", k, "between 0 and 1"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::reference;
    use crate::terrain::rng::TerrainRng;

    fn random_map(width: usize, height: usize, seed: u64) -> Heightmap {
        let mut rng = TerrainRng::new(seed);
        let cells = (0..width * height)
            .map(|_| rng.range(-1.0, 1.0) as f32)
            .collect();
        Heightmap::from_cells(width, height, cells).unwrap()
    }

    fn bits(map: &Heightmap) -> Vec<u32> {
        map.cells().iter().map(|h| h.to_bits()).collect()
    }

    #[test]
    fn iir_matches_a_hand_computed_3x2_case() {
        // k = 1/4, out = prev/4 + 3 cur/4, every value exact in f32.
        // Row 0 [0, 16, 32]: left→right [0, 12, 27]; right→left
        //   x1 = 27/4 + 3·12/4 = 15.75, x0 = 15.75/4 + 0 = 3.9375.
        // Row 1 [16, 0, 0]: left→right [16, 4, 1]; right→left
        //   x1 = 1/4 + 3·4/4 = 3.25, x0 = 3.25/4 + 3·16/4 = 12.8125.
        // Top→bottom, row 1 = row0/4 + 3 row1/4:
        //   [0.984375 + 9.609375, 3.9375 + 2.4375, 6.75 + 0.75] = [10.59375, 6.375, 7.5].
        // Bottom→top, row 0 = row1/4 + 3 row0/4:
        //   [2.6484375 + 2.953125, 1.59375 + 11.8125, 1.875 + 20.25] = [5.6015625, 13.40625, 22.125].
        let mut map = Heightmap::from_cells(3, 2, vec![0.0, 16.0, 32.0, 16.0, 0.0, 0.0]).unwrap();
        iir_two_tap(&mut map, 0.25).unwrap();
        assert_eq!(
            map.cells(),
            &[5.6015625, 13.40625, 22.125, 10.59375, 6.375, 7.5]
        );
    }

    #[test]
    fn iir_is_bit_identical_to_the_per_column_reference_on_every_vector_width() {
        // Heights of 11, 17, 40 and 257 rows cover maps with no full group of
        // ROW_LANES rows, groups plus a remainder, and the per-frame size;
        // widths of 2, 3, 5 and 7 are narrower than a vector; widths of 4
        // and 64 end on a whole quad of columns, the others do not.
        let small = [
            (17, 11),
            (11, 17),
            (2, 2),
            (3, 40),
            (5, 33),
            (7, 17),
            (64, 3),
        ];
        let larger = [(33, 40), (4, 16), (64, 20), (257, 257), (258, 35)];
        for (width, height) in small.into_iter().chain(larger) {
            let mut reference = random_map(width, height, 5);
            let original = reference.clone();
            reference::iir_two_tap_per_column(&mut reference, 0.1);
            for vectors in [Vectors::Widest, Vectors::Four] {
                let mut fast = original.clone();
                iir_two_tap_with(&mut IirScratch::on(vectors), &mut fast, 0.1).unwrap();
                let what = format!("{width}x{height} on {vectors:?}");
                assert_eq!(bits(&fast), bits(&reference), "{what}");
            }
        }
    }

    /// [`HeightRange`] on `V` against a plain fold, for every length up to
    /// several vectors (so every way a row can end).
    fn check_height_range<V: Lanes>() {
        let heights: Vec<f32> = (0..50).map(|i| ((i * 37) % 23) as f32 - 7.5).collect();
        for len in 1..heights.len() {
            let (first, second) = heights[..len].split_at(len / 3);
            let mut range = HeightRange::<V>::new();
            V::with_instructions(|| {
                range.widen(first);
                range.widen(second);
            });
            let plain = heights[..len]
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
                    (lo.min(h), hi.max(h))
                });
            assert_eq!(range.range(), plain, "{len} heights");
        }
    }

    #[test]
    fn the_height_range_covers_every_height_on_every_vector_width() {
        check_height_range::<f32x4>();
        #[cfg(target_arch = "x86_64")]
        if Avx8::available() {
            check_height_range::<Avx8>();
        }
    }

    /// The HoloLens demo's code's pass: the published loop with the border
    /// rows and columns left alone.
    fn iir_interior_only(map: &mut Heightmap, k: f32) {
        let (w, h) = (map.width(), map.height());
        let m = map.cells_mut();
        for y in 1..h - 1 {
            let mut prev = m[y * w];
            for x in 1..w - 1 {
                m[x + y * w] = k * prev + (1.0 - k) * m[x + y * w];
                prev = m[x + y * w];
            }
            prev = m[(w - 1) + y * w];
            for x in (1..w - 1).rev() {
                m[x + y * w] = k * prev + (1.0 - k) * m[x + y * w];
                prev = m[x + y * w];
            }
        }
        for x in 1..w - 1 {
            let mut prev = m[x];
            for y in 1..h - 1 {
                m[x + y * w] = k * prev + (1.0 - k) * m[x + y * w];
                prev = m[x + y * w];
            }
            prev = m[x + w * (h - 1)];
            for y in (1..h - 1).rev() {
                m[x + y * w] = k * prev + (1.0 - k) * m[x + y * w];
                prev = m[x + y * w];
            }
        }
    }

    #[test]
    fn the_border_skipping_demo_loop_differs_only_slightly_and_only_near_the_border() {
        use crate::terrain::{Generator, GeneratorConfig};
        let side = 257;
        // Each iteration's weighted fault offsets, read as the change of an
        // unshaped run, are added to two maps that are then clamped and
        // smoothed as the demo run does, one with each loop.
        let unshaped = GeneratorConfig {
            smoothing: None,
            clamp_non_negative: false,
            ..GeneratorConfig::hololens_demo(side, side)
        };
        let mut faults = Generator::new(unshaped, 1).unwrap();
        let mut ours = Heightmap::flat(side, side).unwrap();
        let mut demos = ours.clone();
        let mut before = faults.heightmap().clone();
        while faults.step(1) == 1 {
            let after = faults.heightmap();
            for map in [&mut ours, &mut demos] {
                let changes = after.cells().iter().zip(before.cells());
                for (h, (new, old)) in map.cells_mut().iter_mut().zip(changes) {
                    *h = (*h + (new - old)).max(0.0);
                }
            }
            iir_two_tap(&mut ours, 0.1).unwrap();
            for y in 0..side {
                for x in 0..side {
                    if x == 0 || y == 0 || x == side - 1 || y == side - 1 {
                        ours.set(x, y, 0.0);
                    }
                }
            }
            iir_interior_only(&mut demos, 0.1);
            before.clone_from(after);
        }
        assert_eq!(faults.iterations_done(), 500);
        // The emulation is the generator's demo run, up to the rounding of
        // reading offsets back as differences.
        let mut real = Generator::new(GeneratorConfig::hololens_demo(side, side), 1).unwrap();
        real.step(500);
        for (emulated, real) in ours.cells().iter().zip(real.heightmap().cells()) {
            assert!((emulated - real).abs() < 1e-6);
        }
        let mut deepest = 0;
        let mut largest = 0.0f32;
        for y in 0..side {
            for x in 0..side {
                let difference = (ours.get(x, y) - demos.get(x, y)).abs();
                if difference > 0.0 {
                    deepest = deepest.max(x.min(y).min(side - 1 - x).min(side - 1 - y));
                }
                largest = largest.max(difference);
            }
        }
        assert!(largest > 0.0, "the loops should differ near the border");
        assert!(largest < 1e-3, "largest difference {largest}");
        assert!(deepest < 64, "differs {deepest} samples from the border");
    }

    #[test]
    fn iir_with_k_one_copies_the_first_sample_over_a_non_square_map() {
        // With k = 1 each pass copies its first sample along the run: the row
        // passes spread (0, y) along row y, the column passes spread row 0
        // down, so every cell ends as the original (0, 0) sample.
        let mut wide = random_map(7, 3, 11);
        let first = wide.get(0, 0);
        iir_two_tap(&mut wide, 1.0).unwrap();
        assert!(wide.cells().iter().all(|&h| h == first));
        let mut tall = random_map(3, 7, 12);
        let first = tall.get(0, 0);
        iir_two_tap(&mut tall, 1.0).unwrap();
        assert!(tall.cells().iter().all(|&h| h == first));
    }

    #[test]
    fn fir_differs_from_iir_on_a_step() {
        let step: Vec<f32> = (0..8).map(|x| if x < 4 { 0.0 } else { 1.0 }).collect();
        let cells: Vec<f32> = step.iter().chain(step.iter()).copied().collect();
        let mut iir = Heightmap::from_cells(8, 2, cells.clone()).unwrap();
        let mut fir = Heightmap::from_cells(8, 2, cells).unwrap();
        iir_two_tap(&mut iir, 0.5).unwrap();
        fir_two_tap(&mut fir, 0.5).unwrap();
        assert_ne!(iir.cells(), fir.cells());
    }

    #[test]
    fn fir_output_depends_only_on_the_input_of_each_pass() {
        // One row pass of FIR on [0, 0, 8, 0, 0] with k = 1/2 gives
        // left→right [0, 0, 4, 4, 0], then right→left from that input
        // [0, 2, 4, 2, 0]; the IIR pass would give [0.6875, 1.375, 2.75, 1.5, 1].
        // Both rows are identical, so the column passes, k·c + (1 − k)·c with
        // k = 1/2 and small integers, leave them exactly.
        let row = [0.0, 0.0, 8.0, 0.0, 0.0];
        let mut map =
            Heightmap::from_cells(5, 2, row.iter().chain(row.iter()).copied().collect()).unwrap();
        fir_two_tap(&mut map, 0.5).unwrap();
        assert_eq!(map.row(0), &[0.0, 2.0, 4.0, 2.0, 0.0]);
        assert_eq!(map.row(1), map.row(0));
    }

    #[test]
    fn fir_column_passes_use_the_previous_input_row() {
        // Column [0, 8, 0] as a 2x3 map of equal columns, k = 1/2:
        // top→bottom from inputs [0, 8, 0] gives [0, 4, 4]; bottom→top from
        // [0, 4, 4] gives [2, 4, 4].
        let mut map = Heightmap::from_cells(2, 3, vec![0.0, 0.0, 8.0, 8.0, 0.0, 0.0]).unwrap();
        fir_two_tap(&mut map, 0.5).unwrap();
        assert_eq!(map.cells(), &[2.0, 2.0, 4.0, 4.0, 4.0, 4.0]);
    }

    #[test]
    fn a_constant_map_is_unchanged_by_every_filter() {
        let constant = Heightmap::from_cells(9, 6, vec![0.75; 54]).unwrap();
        let mut iir = constant.clone();
        let mut fir = constant.clone();
        let mut blur = constant.clone();
        iir_two_tap(&mut iir, 0.3).unwrap();
        fir_two_tap(&mut fir, 0.3).unwrap();
        gaussian(&mut blur, 1.5).unwrap();
        // k·c + (1 − k)·c may round one ulp away from c, hence the tolerance.
        for map in [&iir, &fir, &blur] {
            for &h in map.cells() {
                assert!((h - 0.75).abs() <= 1e-6, "{h}");
            }
        }
    }

    #[test]
    fn gaussian_preserves_the_sum_far_from_the_borders() {
        // A spike at the centre of a 41x41 map with sigma 2 (radius 6): the
        // kernel never reaches a border, so only rounding changes the sum.
        let mut map = Heightmap::flat(41, 41).unwrap();
        map.set(20, 20, 100.0);
        map.set(21, 19, -30.0);
        gaussian(&mut map, 2.0).unwrap();
        let sum: f64 = map.cells().iter().map(|&h| f64::from(h)).sum();
        assert!((sum - 70.0).abs() < 1e-4, "sum {sum}");
        assert!(map.get(20, 20) < 100.0 && map.get(14, 20) > 0.0);
        assert_eq!(map.get(13, 20), 0.0, "radius is ceil(3 sigma) = 6");
    }

    #[test]
    fn gaussian_blurs_non_square_maps_symmetrically() {
        let mut map = Heightmap::flat(15, 7).unwrap();
        map.set(7, 3, 1.0);
        gaussian(&mut map, 1.0).unwrap();
        assert_eq!(map.get(6, 3), map.get(8, 3));
        assert_eq!(map.get(7, 2), map.get(7, 4));
        // Rows are blurred before columns, so the two axes may round apart.
        assert!((map.get(6, 3) - map.get(7, 2)).abs() < 1e-7);
    }

    /// The FIR pass written the plain way: each directional pass reads a
    /// copy of its input.
    fn fir_reference(map: &mut Heightmap, k: f32) {
        let (w, h) = (map.width(), map.height());
        let m = map.cells_mut();
        for y in 0..h {
            let input: Vec<f32> = m[y * w..(y + 1) * w].to_vec();
            for x in 1..w {
                m[y * w + x] = k * input[x - 1] + (1.0 - k) * input[x];
            }
            let input: Vec<f32> = m[y * w..(y + 1) * w].to_vec();
            for x in (0..w - 1).rev() {
                m[y * w + x] = k * input[x + 1] + (1.0 - k) * input[x];
            }
        }
        let input = m.to_vec();
        for y in 1..h {
            for x in 0..w {
                m[y * w + x] = k * input[(y - 1) * w + x] + (1.0 - k) * input[y * w + x];
            }
        }
        let input = m.to_vec();
        for y in (0..h - 1).rev() {
            for x in 0..w {
                m[y * w + x] = k * input[(y + 1) * w + x] + (1.0 - k) * input[y * w + x];
            }
        }
    }

    /// The Gaussian blur written the plain way: clamped taps, the rows
    /// into a copy, then the columns from it.
    fn gaussian_reference(map: &mut Heightmap, sigma: f32) {
        let weights = gaussian_weights(sigma);
        let (w, h) = (map.width(), map.height());
        let r = weights.len() as isize - 1;
        let input = map.cells().to_vec();
        let at = |i: isize, n: usize| clamp_index(i, n);
        let mut rows = vec![0.0f32; w * h];
        for y in 0..h {
            for x in 0..w {
                let mut sum = weights[0] * f64::from(input[y * w + x]);
                for i in 1..=r {
                    let left = f64::from(input[y * w + at(x as isize - i, w)]);
                    let right = f64::from(input[y * w + at(x as isize + i, w)]);
                    sum += weights[i as usize] * (left + right);
                }
                rows[y * w + x] = sum as f32;
            }
        }
        for y in 0..h {
            for x in 0..w {
                let mut sum = weights[0] * f64::from(rows[y * w + x]);
                for i in 1..=r {
                    let up = f64::from(rows[at(y as isize - i, h) * w + x]);
                    let down = f64::from(rows[at(y as isize + i, h) * w + x]);
                    sum += weights[i as usize] * (up + down);
                }
                map.set(x, y, sum as f32);
            }
        }
    }

    /// Steps a pass of `smoothing` to the end on `map`, checking that each
    /// slice changes the map and leaves it finite, and that a step after
    /// the end changes nothing.
    fn step_pass(smoothing: Smoothing, map: &mut Heightmap) -> usize {
        let mut pass = SmoothingPass::new(smoothing, map.width(), map.height()).unwrap();
        let mut changing = 0;
        while !pass.is_done() {
            let before = map.clone();
            pass.step(map);
            assert!(map.cells().iter().all(|h| h.is_finite()));
            if *map != before {
                changing += 1;
            }
        }
        let what = format!("{smoothing:?} on {}x{}", map.width(), map.height());
        assert_eq!(changing, pass.slices(), "{what}");
        let end = map.clone();
        pass.step(map);
        assert_eq!(bits(map), bits(&end), "{what}");
        pass.slices()
    }

    const SIZES: [(usize, usize); 7] = [
        (2, 2),
        (3, 2),
        (7, 3),
        (20, 33),
        (65, 40),
        (100, 7),
        (600, 300),
    ];

    #[test]
    fn sliced_passes_end_at_the_plain_filters_bit_for_bit() {
        for (width, height) in SIZES {
            for seed in [1, 2] {
                let start = random_map(width, height, seed);
                let what = format!("{width}x{height} seed {seed}");
                for k in [0.1, 0.5] {
                    let mut expected = start.clone();
                    reference::iir_two_tap_per_column(&mut expected, k);
                    let mut sliced = start.clone();
                    assert_eq!(step_pass(Smoothing::Iir { k }, &mut sliced), 1);
                    assert_eq!(bits(&sliced), bits(&expected), "IIR {k} {what}");

                    let mut expected = start.clone();
                    fir_reference(&mut expected, k);
                    let mut sliced = start.clone();
                    step_pass(Smoothing::Fir { k }, &mut sliced);
                    assert_eq!(bits(&sliced), bits(&expected), "FIR {k} {what}");
                    let mut whole = start.clone();
                    fir_two_tap(&mut whole, k).unwrap();
                    assert_eq!(bits(&whole), bits(&expected), "FIR {k} {what}");
                }
                for sigma in [0.5, 1.5, 4.0] {
                    let mut expected = start.clone();
                    gaussian_reference(&mut expected, sigma);
                    let mut sliced = start.clone();
                    step_pass(Smoothing::Gaussian { sigma }, &mut sliced);
                    assert_eq!(bits(&sliced), bits(&expected), "sigma {sigma} {what}");
                    let mut whole = start.clone();
                    gaussian(&mut whole, sigma).unwrap();
                    assert_eq!(bits(&whole), bits(&expected), "sigma {sigma} {what}");
                }
            }
        }
    }

    #[test]
    fn sliced_passes_on_257x257_end_at_the_plain_filters() {
        let start = random_map(257, 257, 3);
        let mut expected = start.clone();
        gaussian_reference(&mut expected, 2.0);
        let mut sliced = start.clone();
        let slices = step_pass(Smoothing::Gaussian { sigma: 2.0 }, &mut sliced);
        assert!(slices > 2, "the kernel's 7 taps split the rows: {slices}");
        assert_eq!(bits(&sliced), bits(&expected));
        let mut expected = start.clone();
        fir_reference(&mut expected, 0.1);
        let mut sliced = start;
        step_pass(Smoothing::Fir { k: 0.1 }, &mut sliced);
        assert_eq!(bits(&sliced), bits(&expected));
    }

    #[test]
    fn big_maps_split_into_more_slices() {
        let slices = |smoothing, side| SmoothingPass::new(smoothing, side, side).unwrap().slices();
        let fir = Smoothing::Fir { k: 0.1 };
        assert_eq!(slices(fir, 257), 2);
        assert_eq!(slices(fir, 513), 8);
        let blur = Smoothing::Gaussian { sigma: 2.0 };
        assert!(slices(blur, 513) > slices(blur, 257));
        assert_eq!(slices(Smoothing::Iir { k: 0.1 }, 513), 1);
        assert!(SmoothingPass::new(Smoothing::Iir { k: 2.0 }, 9, 9).is_err());
        assert!(SmoothingPass::new(Smoothing::Gaussian { sigma: 0.0 }, 9, 9).is_err());
        assert!(SmoothingPass::new(fir, 1, 9).is_err());
    }

    #[test]
    fn out_of_range_parameters_are_errors() {
        let mut map = Heightmap::flat(4, 4).unwrap();
        assert!(iir_two_tap(&mut map, 1.5).is_err());
        assert!(fir_two_tap(&mut map, -0.1).is_err());
        assert!(iir_two_tap(&mut map, f32::NAN).is_err());
        assert!(gaussian(&mut map, 0.0).is_err());
        assert!(gaussian(&mut map, f32::INFINITY).is_err());
        assert!(gaussian(&mut map, f32::NAN).is_err());
    }
}
