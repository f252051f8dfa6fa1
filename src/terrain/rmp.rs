//! Repeated Magnification and Probing (RMP, Kamal and Uddin), the Voronoi-based implementation of Fritz, "Procedural Generation of Mountain Ranges Based on Geology" (2016), §3.3.2.
//!
//! Mountains grow at chosen or seeded peaks. Every iteration scatters
//! `cones` random sites over the map (the thesis' flat-shaded cones seen
//! from above, whose visible parts form a Voronoi diagram), probes which
//! site's cell each peak lies in, and raises every cell of the map in those
//! same Voronoi cells by `height / iterations`. After `iterations` rounds a
//! cell's height is
//!
//! ```text
//! h(p) = height · (rounds in which p shared a Voronoi cell with a peak) / iterations
//! ```
//!
//! so every peak is at exactly `height`, and the height falls with the
//! distance from the peak as sharing a cell with it gets less likely. Fewer
//! cones make larger cells and a wider mountain; more make a steeper one.
//!
//! Sites and peaks lie on map cells, and the nearest site is decided in
//! exact integer arithmetic (squared distances of whole cells; a tie goes
//! to the site drawn first), so the cells are the same bits on every
//! platform. The job never searches the whole map for nearest sites: a
//! Voronoi cell is convex, so its cells on a map row are one run, which
//! [`RmpGrowth`] finds by clipping the row with the half-plane of each other
//! site (nearest first, stopping once the rest are too far to matter); the
//! tests compare it with the plain per-cell nearest-site search.
use super::error::TerrainError;
use super::heightmap::Heightmap;
use super::heightmap::check_size;
use super::rng::TerrainRng;
use super::sliced::assert_map_size;
use super::sliced::{Sliced, rows_per_band};

/// Largest [`RmpParams::peaks`].
pub const MAX_PEAKS: u32 = 16;
/// Largest [`RmpParams::cones`].
pub const MAX_CONES: u32 = 1024;
/// Largest [`RmpParams::iterations`].
pub const MAX_ITERATIONS: u32 = 10_000;
/// Largest [`RmpParams::height`].
pub const MAX_HEIGHT: f32 = 1.0e6;

/// Parameters of [`rmp`] and [`RmpGrowth`].
#[derive(Debug, Clone, PartialEq)]
pub struct RmpParams {
    /// Mountains, each with one peak; `1..=16`, default 3.
    pub peaks: u32,
    /// Chosen places of the first peaks, as fractions `[x, y]` of the map's
    /// width and height (`0..=1` each; `[0.5, 0.5]` is the centre, rounded
    /// to the nearest cell); at most `peaks` of them, default none. The
    /// other peaks are placed at random cells.
    pub peak_at: Vec<[f32; 2]>,
    /// Cones (Voronoi sites) scattered each iteration; `2..=1024`, default
    /// 16. The spread: a mountain's width is about that of a Voronoi cell,
    /// `sqrt(width · height / cones)`.
    pub cones: u32,
    /// Rounds of magnification and probing, the thesis' `n`; `1..=10000`,
    /// default 200. More rounds give smoother slopes (the height has
    /// `iterations + 1` levels) and cost proportionally more.
    pub iterations: u32,
    /// Height of every peak after the last round (height units), reached in
    /// steps of `height / iterations`; `0..=1e6`, default 1.
    pub height: f32,
}

impl Default for RmpParams {
    fn default() -> Self {
        RmpParams {
            peaks: 3,
            peak_at: Vec::new(),
            cones: 16,
            iterations: 200,
            height: 1.0,
        }
    }
}

impl RmpParams {
    /// Checks every parameter's range; the error names the first one out of range.
    pub fn validate(&self) -> Result<(), TerrainError> {
        if !(1..=MAX_PEAKS).contains(&self.peaks) {
            return Err(TerrainError::out_of_range(
                "peaks",
                self.peaks,
                "1 <= peaks <= 16",
            ));
        }
        if self.peak_at.len() > self.peaks as usize {
            return Err(TerrainError::out_of_range(
                "peak_at",
                format!("{} places", self.peak_at.len()),
                "at most `peaks` places",
            ));
        }
        if let Some(place) = self
            .peak_at
            .iter()
            .find(|p| !p.iter().all(|c| (0.0..=1.0).contains(c)))
        {
            return Err(TerrainError::out_of_range(
                "peak_at",
                format!("[{}, {}]", place[0], place[1]),
                "fractions of the map, 0 <= x, y <= 1",
            ));
        }
        if !(2..=MAX_CONES).contains(&self.cones) {
            return Err(TerrainError::out_of_range(
                "cones",
                self.cones,
                "2 <= cones <= 1024",
            ));
        }
        if !(1..=MAX_ITERATIONS).contains(&self.iterations) {
            return Err(TerrainError::out_of_range(
                "iterations",
                self.iterations,
                "1 <= iterations <= 10000",
            ));
        }
        if !(0.0..=MAX_HEIGHT).contains(&self.height) {
            return Err(TerrainError::out_of_range(
                "height",
                self.height,
                "0 <= height <= 1e6",
            ));
        }
        Ok(())
    }
}

/// An RMP heightmap of `width × height` samples, starting flat at 0: the
/// [module](self)'s algorithm. This is [`RmpGrowth`] run to the end.
pub fn rmp(
    width: usize,
    height: usize,
    params: &RmpParams,
    seed: u64,
) -> Result<Heightmap, TerrainError> {
    let mut growth = RmpGrowth::new(width, height, params, seed)?;
    let mut map = Heightmap::flat(width, height)?;
    growth.run_to_end(&mut map);
    Ok(map)
}

/// Another site, as one Voronoi cell's row clipping needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rival {
    /// Squared distance to the cell's own site.
    distance2: i64,
    x: i64,
    y: i64,
    /// Whether it was drawn before the cell's site (and so wins ties).
    first: bool,
}

/// Rivals sorted by distance when a cell is made; the rest are only known
/// to be no nearer than the last of these. A cell is clipped by a few
/// near rivals, so sorting all of them (RMP's up to 1023) would be wasted.
const SORTED_RIVALS: usize = 24;

/// The Voronoi cell of one site (for RMP, a site whose cell holds a peak
/// this round; for plates, one a collision line crosses).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cell {
    x: i64,
    y: i64,
    /// Every other site: the first `sorted` nearest first, the rest in
    /// any order, none of them nearer than `rivals[sorted - 1]`.
    rivals: Vec<Rival>,
    sorted: usize,
}

impl Cell {
    /// Makes this the cell of `sites[owner]`, its rivals every other site,
    /// the nearest [`SORTED_RIVALS`] of them sorted nearest first (reusing
    /// the rivals' storage).
    pub(crate) fn set_site(&mut self, sites: &[(i64, i64)], owner: usize) {
        let (sx, sy) = sites[owner];
        self.x = sx;
        self.y = sy;
        self.rivals.clear();
        for (i, &(x, y)) in sites.iter().enumerate() {
            if i != owner {
                let distance2 = (x - sx).pow(2) + (y - sy).pow(2);
                let first = i < owner;
                self.rivals.push(Rival {
                    distance2,
                    x,
                    y,
                    first,
                });
            }
        }
        // Only speed depends on the order: clipping is an intersection.
        if self.rivals.len() > SORTED_RIVALS {
            self.rivals
                .select_nth_unstable_by_key(SORTED_RIVALS - 1, |r| r.distance2);
            self.sorted = SORTED_RIVALS;
        } else {
            self.sorted = self.rivals.len();
        }
        self.rivals[..self.sorted].sort_unstable_by_key(|r| r.distance2);
    }

    /// Whether rival `index` and every one after it can be left out when
    /// rivals farther than `reach2` (squared) cannot clip; `Some(false)`
    /// when only this one can.
    fn beyond(&self, index: usize, reach2: i64) -> Option<bool> {
        if index == self.sorted && index > 0 && self.rivals[index - 1].distance2 > reach2 {
            // Every unsorted rival is at least as far as the last sorted one.
            return Some(true);
        }
        (self.rivals[index].distance2 > reach2).then_some(index < self.sorted)
    }

    /// Rows `top..=bottom` of a `width`×`height` map outside which the
    /// cell has no map cell (a bound, not always tight); none when the
    /// cell surely has none. The cell is clipped from the map's rectangle
    /// in floating point by the rivals' closed half-planes; rounding can
    /// only move its corners by far less than the row added either side.
    pub(crate) fn row_span(&self, width: i64, height: i64) -> Option<(i64, i64)> {
        let (sx, sy) = (self.x as f64, self.y as f64);
        let (right, bottom) = ((width - 1) as f64, (height - 1) as f64);
        let mut polygon = vec![[0.0, 0.0], [right, 0.0], [right, bottom], [0.0, bottom]];
        let mut clipped = Vec::with_capacity(8);
        let reach = |polygon: &[[f64; 2]]| {
            let far = polygon
                .iter()
                .map(|p| (p[0] - sx).powi(2) + (p[1] - sy).powi(2))
                .fold(0.0, f64::max);
            // Rounded up to a whole square distance, as the rivals' are.
            4 * far.ceil() as i64
        };
        let mut reach2 = reach(&polygon);
        for index in 0..self.rivals.len() {
            match self.beyond(index, reach2) {
                Some(true) => break,
                Some(false) => continue,
                None => {}
            }
            let rival = self.rivals[index];
            // Nearer the site than the rival: a·x + b·y ≤ c.
            let (rx, ry) = (rival.x as f64, rival.y as f64);
            let (a, b) = (2.0 * (rx - sx), 2.0 * (ry - sy));
            let c = rx * rx + ry * ry - sx * sx - sy * sy;
            let side = |p: [f64; 2]| a * p[0] + b * p[1] - c;
            clipped.clear();
            for i in 0..polygon.len() {
                let (p, q) = (polygon[i], polygon[(i + 1) % polygon.len()]);
                let (sp, sq) = (side(p), side(q));
                if sp <= 0.0 {
                    clipped.push(p);
                }
                if (sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0) {
                    let t = sp / (sp - sq);
                    clipped.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
                }
            }
            if clipped.is_empty() {
                // Only an empty cell or rounding leaves nothing: keep every
                // row, and let the exact row clipping decide.
                return Some((0, height - 1));
            }
            std::mem::swap(&mut polygon, &mut clipped);
            reach2 = reach(&polygon);
        }
        let top = polygon.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
        let low = polygon
            .iter()
            .map(|p| p[1])
            .fold(f64::NEG_INFINITY, f64::max);
        let top = (top.floor() as i64 - 1).max(0);
        let low = (low.ceil() as i64 + 1).min(height - 1);
        (top <= low).then_some((top, low))
    }

    /// The run `lo..=hi` of row `y` (of a map `width` wide) whose cells are
    /// nearer this cell's site than any other (a tie goes to the site drawn
    /// first), if any.
    pub(crate) fn row_run(&self, y: i64, width: i64) -> Option<(i64, i64)> {
        let (sx, sy) = (self.x, self.y);
        let dy2 = (y - sy) * (y - sy);
        let (mut lo, mut hi) = (0, width - 1);
        // Four times the squared distance from the site to the run's
        // farthest end: a rival farther than twice that loses to the site
        // everywhere on the run, and so do all after it.
        let reach = |lo: i64, hi: i64| 4 * ((lo - sx).pow(2).max((hi - sx).pow(2)) + dy2);
        let mut reach2 = reach(lo, hi);
        for index in 0..self.rivals.len() {
            match self.beyond(index, reach2) {
                Some(true) => break,
                Some(false) => continue,
                None => {}
            }
            let rival = &self.rivals[index];
            // d²(p, site) − d²(p, rival) = a·x + b for p = (x, y); the site
            // keeps p where that is < 0 (the rival drawn first) or ≤ 0.
            let a = 2 * (rival.x - sx);
            let b = sx * sx - rival.x * rival.x + dy2 - (y - rival.y).pow(2);
            let r = if rival.first { -1 } else { 0 } - b;
            // Keep a·x ≤ r.
            if a > 0 {
                hi = hi.min(r.div_euclid(a));
            } else if a < 0 {
                lo = lo.max(-r.div_euclid(-a));
            } else if r < 0 {
                return None;
            }
            if lo > hi {
                return None;
            }
            reach2 = reach(lo, hi);
        }
        Some((lo, hi))
    }
}

/// RMP grown a bounded slice at a time: the job behind [`rmp`], whose
/// result the map holds bit for bit after the last slice.
///
/// Each round is split into bands of map rows (one band up to about
/// 260×260, [`rows_per_band`] beyond), one slice each:
/// `slices = iterations × bands`. A round's first band also scatters its
/// cones and probes the peaks' cells; the very first slice also sets the
/// map to 0. After every slice the map shows the mountains as grown so
/// far: each cell `height · raises / iterations`.
#[derive(Clone)]
pub struct RmpGrowth {
    width: usize,
    height: usize,
    /// Peak places, in cells.
    peaks: Vec<(i64, i64)>,
    cones: usize,
    rng: TerrainRng,
    /// Times each map cell was raised.
    raises: Vec<u16>,
    /// The height of a cell raised `i` times, `height · i / iterations`.
    levels: Vec<f32>,
    /// Rows per band and bands per round.
    band_rows: usize,
    bands: usize,
    slices: usize,
    /// The cells being raised this round (distinct sites).
    cells: Vec<Cell>,
    /// This round's sites.
    sites: Vec<(i64, i64)>,
    done: usize,
}

impl RmpGrowth {
    /// The job of `rmp(width, height, params, seed)`, with the same validation.
    pub fn new(
        width: usize,
        height: usize,
        params: &RmpParams,
        seed: u64,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        params.validate()?;
        let mut rng = TerrainRng::new(seed);
        let (w, h) = (width as i64, height as i64);
        let place = |f: f32, side: i64| (f64::from(f) * (side - 1) as f64).round() as i64;
        let mut peaks: Vec<(i64, i64)> = params
            .peak_at
            .iter()
            .map(|&[x, y]| (place(x, w), place(y, h)))
            .collect();
        while peaks.len() < params.peaks as usize {
            let x = rng.below(width as u64) as i64;
            let y = rng.below(height as u64) as i64;
            peaks.push((x, y));
        }
        let iterations = f64::from(params.iterations);
        let levels = (0..=params.iterations)
            .map(|i| (f64::from(i) * f64::from(params.height) / iterations) as f32)
            .collect();
        let band_rows = rows_per_band(height, width, 1);
        let bands = height.div_ceil(band_rows);
        Ok(RmpGrowth {
            width,
            height,
            peaks,
            cones: params.cones as usize,
            rng,
            raises: vec![0; width * height],
            levels,
            band_rows,
            bands,
            slices: params.iterations as usize * bands,
            cells: Vec::new(),
            sites: Vec::new(),
            done: 0,
        })
    }

    /// Scatters a round's cones and finds the distinct cells holding a peak.
    fn probe(&mut self) {
        let (width, height) = (self.width as u64, self.height as u64);
        self.sites.clear();
        for _ in 0..self.cones {
            let x = self.rng.below(width) as i64;
            let y = self.rng.below(height) as i64;
            self.sites.push((x, y));
        }
        let mut owners: Vec<usize> = Vec::with_capacity(self.peaks.len());
        for &peak in &self.peaks {
            let owner = nearest_site(&self.sites, peak);
            if !owners.contains(&owner) {
                owners.push(owner);
            }
        }
        self.cells.resize_with(owners.len(), Cell::default);
        for (cell, &owner) in self.cells.iter_mut().zip(&owners) {
            cell.set_site(&self.sites, owner);
        }
    }
}

/// The index of the site nearest `p` (squared distances, exact); the first
/// drawn of equally near sites.
pub(crate) fn nearest_site(sites: &[(i64, i64)], p: (i64, i64)) -> usize {
    let mut best = 0;
    let mut best_d2 = i64::MAX;
    for (i, &(x, y)) in sites.iter().enumerate() {
        let d2 = (x - p.0).pow(2) + (y - p.1).pow(2);
        if d2 < best_d2 {
            (best, best_d2) = (i, d2);
        }
    }
    best
}

impl std::fmt::Debug for RmpGrowth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RmpGrowth")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("peaks", &self.peaks)
            .field("cones", &self.cones)
            .field("slices", &self.slices)
            .field("slices_done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Sliced for RmpGrowth {
    fn slices(&self) -> usize {
        self.slices
    }

    fn slices_done(&self) -> usize {
        self.done
    }

    fn step(&mut self, map: &mut Heightmap) {
        if self.done >= self.slices {
            return;
        }
        assert_map_size(map, self.width, self.height);
        if self.done == 0 {
            map.clear();
        }
        let band = self.done % self.bands;
        if band == 0 {
            self.probe();
        }
        let width = self.width;
        let first = band * self.band_rows;
        let rows = first..(first + self.band_rows).min(self.height);
        let cells = map.cells_mut();
        for cell in &self.cells {
            for y in rows.clone() {
                let Some((lo, hi)) = cell.row_run(y as i64, width as i64) else {
                    continue;
                };
                let run = y * width + lo as usize..y * width + hi as usize + 1;
                for (raises, shown) in self.raises[run.clone()].iter_mut().zip(&mut cells[run]) {
                    *raises += 1;
                    *shown = self.levels[usize::from(*raises)];
                }
            }
        }
        self.done += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(cells: &[f32]) -> Vec<u32> {
        cells.iter().map(|h| h.to_bits()).collect()
    }

    fn params(peaks: u32, cones: u32, iterations: u32) -> RmpParams {
        RmpParams {
            peaks,
            cones,
            iterations,
            ..RmpParams::default()
        }
    }

    /// RMP written the plain way, as the thesis renders it: every round,
    /// the nearest site of every map cell (the Voronoi diagram), then every
    /// cell whose site is a peak's site is raised once.
    fn reference(width: usize, height: usize, p: &RmpParams, seed: u64) -> Vec<f32> {
        let mut rng = TerrainRng::new(seed);
        let (w, h) = (width as i64, height as i64);
        let mut peaks: Vec<(i64, i64)> = p
            .peak_at
            .iter()
            .map(|&[x, y]| {
                (
                    (f64::from(x) * (w - 1) as f64).round() as i64,
                    (f64::from(y) * (h - 1) as f64).round() as i64,
                )
            })
            .collect();
        while peaks.len() < p.peaks as usize {
            let x = rng.below(width as u64) as i64;
            let y = rng.below(height as u64) as i64;
            peaks.push((x, y));
        }
        let nearest = |sites: &[(i64, i64)], x: i64, y: i64| {
            let mut best = 0;
            for i in 1..sites.len() {
                let d = |(sx, sy): (i64, i64)| (sx - x) * (sx - x) + (sy - y) * (sy - y);
                if d(sites[i]) < d(sites[best]) {
                    best = i;
                }
            }
            best
        };
        let mut raises = vec![0u32; width * height];
        for _ in 0..p.iterations {
            let mut sites = Vec::new();
            for _ in 0..p.cones {
                let x = rng.below(width as u64) as i64;
                let y = rng.below(height as u64) as i64;
                sites.push((x, y));
            }
            let peak_sites: Vec<usize> =
                peaks.iter().map(|&(x, y)| nearest(&sites, x, y)).collect();
            for y in 0..height {
                for x in 0..width {
                    if peak_sites.contains(&nearest(&sites, x as i64, y as i64)) {
                        raises[y * width + x] += 1;
                    }
                }
            }
        }
        raises
            .iter()
            .map(|&n| (f64::from(n) * f64::from(p.height) / f64::from(p.iterations)) as f32)
            .collect()
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
        let cases = [
            params(1, 2, 30),
            params(3, 16, 20),
            params(16, 200, 10),
            RmpParams {
                peak_at: vec![[0.5, 0.5], [0.0, 1.0]],
                height: 3.7,
                ..params(3, 40, 12)
            },
        ];
        for (width, height) in SIZES {
            for p in &cases {
                for seed in [0, 5] {
                    if width == 257 && (p.cones > 16 || seed > 0) {
                        continue; // the reference is slow
                    }
                    let map = rmp(width, height, p, seed).unwrap();
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
    fn growing_slice_by_slice_ends_at_the_whole_function() {
        let p = params(4, 12, 6);
        for (width, height) in SIZES.into_iter().chain([(600, 513)]) {
            let mut growth = RmpGrowth::new(width, height, &p, 3).unwrap();
            let mut map = Heightmap::from_cells(width, height, vec![1e6; width * height]).unwrap();
            let mut steps = 0;
            let mut last_peak = 0.0;
            while !growth.is_done() {
                growth.step(&mut map);
                steps += 1;
                assert!(map.cells().iter().all(|h| (0.0..=1.0).contains(h)));
                // Rounds raise the peaks one by one.
                let peak = map.get(growth.peaks[0].0 as usize, growth.peaks[0].1 as usize);
                assert!(peak >= last_peak);
                last_peak = peak;
            }
            assert_eq!(steps, growth.slices());
            assert_eq!(
                growth.slices(),
                6 * height.div_ceil(rows_per_band(height, width, 1))
            );
            let whole = rmp(width, height, &p, 3).unwrap();
            assert_eq!(bits(map.cells()), bits(whole.cells()), "{width}x{height}");
            growth.step(&mut map);
            assert_eq!(
                bits(map.cells()),
                bits(whole.cells()),
                "a step after the end"
            );
            assert_eq!(growth.slices_done(), growth.slices());
        }
        let count = |w, h| {
            RmpGrowth::new(w, h, &params(1, 16, 200), 0)
                .unwrap()
                .slices()
        };
        assert_eq!(count(2, 2), 200);
        assert_eq!(count(257, 257), 200, "a round a slice");
        assert_eq!(count(513, 513), 800, "four bands of 129 rows a round");
    }

    #[test]
    fn the_same_seed_gives_the_same_bits_and_seeds_differ() {
        let p = RmpParams::default();
        let a = rmp(40, 30, &p, 1).unwrap();
        assert_eq!(bits(a.cells()), bits(rmp(40, 30, &p, 1).unwrap().cells()));
        assert_ne!(bits(a.cells()), bits(rmp(40, 30, &p, 2).unwrap().cells()));
    }

    #[test]
    fn the_peaks_are_the_highest_at_exactly_the_height() {
        let p = RmpParams {
            peak_at: vec![[0.25, 0.75]],
            height: 2.5,
            ..params(4, 24, 50)
        };
        let map = rmp(129, 97, &p, 8).unwrap();
        let growth = RmpGrowth::new(129, 97, &p, 8).unwrap();
        assert_eq!(growth.peaks[0], (32, 72), "the chosen place");
        for &(x, y) in &growth.peaks {
            assert_eq!(map.get(x as usize, y as usize), 2.5);
        }
        assert_eq!(map.min_max().1, 2.5);
        assert_eq!(map.min_max().0, 0.0, "some land was never raised");
    }

    /// Mean height in rings around the map's centre: [0, 4), [4, 12),
    /// [12, 24), [24, 40), [40, 64) cells away.
    fn ring_means(map: &Heightmap) -> Vec<f64> {
        let edges = [0.0, 4.0, 12.0, 24.0, 40.0, 64.0];
        let (cx, cy) = ((map.width() / 2) as f64, (map.height() / 2) as f64);
        let mut sums = vec![(0.0, 0usize); edges.len() - 1];
        for y in 0..map.height() {
            for x in 0..map.width() {
                let r = (x as f64 - cx).hypot(y as f64 - cy);
                if let Some(ring) = edges.windows(2).position(|e| (e[0]..e[1]).contains(&r)) {
                    sums[ring].0 += f64::from(map.get(x, y));
                    sums[ring].1 += 1;
                }
            }
        }
        sums.iter().map(|&(sum, n)| sum / n as f64).collect()
    }

    fn one_mountain(cones: u32) -> Heightmap {
        let p = RmpParams {
            peak_at: vec![[0.5, 0.5]],
            ..params(1, cones, 400)
        };
        rmp(129, 129, &p, 21).unwrap()
    }

    #[test]
    fn height_falls_with_distance_from_the_peak() {
        let rings = ring_means(&one_mountain(16));
        for pair in rings.windows(2) {
            assert!(pair[0] > pair[1] + 0.03, "{rings:?}");
        }
        assert!(rings[0] > 0.7 && rings[4] < 0.2, "{rings:?}");
    }

    #[test]
    fn more_cones_give_a_steeper_narrower_mountain() {
        // The mountain's volume (mean height) and its width at half height.
        let spread = |cones| {
            let map = one_mountain(cones);
            let mean =
                map.cells().iter().map(|&h| f64::from(h)).sum::<f64>() / map.cells().len() as f64;
            let half_width = map.row(64).iter().filter(|&&h| h >= 0.5).count();
            (mean, half_width)
        };
        let (few, many) = (spread(4), spread(64));
        assert!(few.0 > 3.0 * many.0, "{few:?} vs {many:?}");
        assert!(few.1 > 2 * many.1, "{few:?} vs {many:?}");
        let middle = spread(16);
        assert!(few.0 > middle.0 && middle.0 > many.0, "{middle:?}");
    }

    #[test]
    fn row_runs_clip_exactly_on_ties() {
        // Two sites on one row: the cells between at equal distance go to the first drawn.
        let cell = |x, y, rivals: &[(i64, i64, bool)]| Cell {
            x,
            y,
            rivals: rivals
                .iter()
                .map(|&(rx, ry, first)| Rival {
                    distance2: (rx - x).pow(2) + (ry - y).pow(2),
                    x: rx,
                    y: ry,
                    first,
                })
                .collect(),
            sorted: rivals.len(),
        };
        assert_eq!(cell(2, 0, &[(6, 0, false)]).row_run(0, 9), Some((0, 4)));
        assert_eq!(cell(2, 0, &[(6, 0, true)]).row_run(0, 9), Some((0, 3)));
        assert_eq!(cell(6, 0, &[(2, 0, true)]).row_run(0, 9), Some((5, 8)));
        assert_eq!(
            cell(3, 3, &[(3, 3, true)]).row_run(1, 9),
            None,
            "a twin drawn first wins"
        );
        assert_eq!(cell(3, 3, &[(3, 0, false)]).row_run(1, 9), None);
        assert_eq!(cell(3, 3, &[(3, 0, false)]).row_run(5, 9), Some((0, 8)));
    }

    #[test]
    fn a_cells_rows_lie_within_its_row_span_and_partly_sorted_rivals_clip_as_all_sorted() {
        let mut rng = TerrainRng::new(4);
        for (width, height, count) in [(2, 2, 3), (9, 5, 40), (64, 40, 8), (120, 97, 300)] {
            let sites: Vec<(i64, i64)> = (0..count)
                .map(|_| (rng.below(width) as i64, rng.below(height) as i64))
                .collect();
            let (w, h) = (width as i64, height as i64);
            for owner in 0..sites.len() {
                let mut cell = Cell::default();
                cell.set_site(&sites, owner);
                // Every rival sorted: the plain order.
                let mut all = cell.clone();
                all.rivals.sort_by_key(|r| r.distance2);
                all.sorted = all.rivals.len();
                let span = cell.row_span(w, h);
                for y in 0..h {
                    let run = cell.row_run(y, w);
                    assert_eq!(run, all.row_run(y, w), "site {owner} row {y}");
                    if run.is_some() {
                        let (top, bottom) = span.expect("a cell with cells has a span");
                        assert!((top..=bottom).contains(&y), "row {y} outside {span:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn bad_parameters_are_one_line_errors_naming_the_parameter() {
        let base = RmpParams::default();
        let cases = [
            (
                RmpParams {
                    peaks: 0,
                    ..base.clone()
                },
                "peaks",
                "1 <= peaks <= 16",
            ),
            (
                RmpParams {
                    peaks: 17,
                    ..base.clone()
                },
                "peaks",
                "1 <= peaks <= 16",
            ),
            (
                RmpParams {
                    peaks: 1,
                    peak_at: vec![[0.5, 0.5]; 2],
                    ..base.clone()
                },
                "peak_at",
                "at most `peaks` places",
            ),
            (
                RmpParams {
                    peak_at: vec![[0.5, 1.5]],
                    ..base.clone()
                },
                "peak_at",
                "0 <= x, y <= 1",
            ),
            (
                RmpParams {
                    peak_at: vec![[f32::NAN, 0.5]],
                    ..base.clone()
                },
                "peak_at",
                "0 <= x, y <= 1",
            ),
            (
                RmpParams {
                    cones: 1,
                    ..base.clone()
                },
                "cones",
                "2 <= cones <= 1024",
            ),
            (
                RmpParams {
                    cones: 1025,
                    ..base.clone()
                },
                "cones",
                "2 <= cones <= 1024",
            ),
            (
                RmpParams {
                    iterations: 0,
                    ..base.clone()
                },
                "iterations",
                "1 <= iterations <= 10000",
            ),
            (
                RmpParams {
                    iterations: 10_001,
                    ..base.clone()
                },
                "iterations",
                "1 <= iterations <= 10000",
            ),
            (
                RmpParams {
                    height: -1.0,
                    ..base.clone()
                },
                "height",
                "0 <= height <= 1e6",
            ),
            (
                RmpParams {
                    height: f32::NAN,
                    ..base.clone()
                },
                "height",
                "0 <= height <= 1e6",
            ),
        ];
        for (p, name, range) in cases {
            let message = p.validate().unwrap_err().to_string();
            assert!(
                message.starts_with(name) && message.contains(range),
                "{message}"
            );
            assert!(!message.contains('\n'));
            assert!(rmp(9, 9, &p, 0).is_err());
            assert!(RmpGrowth::new(9, 9, &p, 0).is_err());
        }
        assert!(base.validate().is_ok());
        assert!(rmp(1, 9, &base, 0).is_err());
    }
}
