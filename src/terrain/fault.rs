//! Classic fault formation ("Terrain via the faulting method", University of Illinois CS 418 notes; "Fault Line Terrain Generation", VirtuallyProgramming.com, 2013): random lines, one side raised, the other lowered.
use super::error::TerrainError;
use super::fixed::to_fixed;
use super::raster::{Line, RowSplitter};
use super::rng::TerrainRng;

/// How a random fault line is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineChoice {
    /// Through two uniformly random points of the map (lines crowd the centre).
    TwoPoints,
    /// Through one random point at a uniformly random angle (no direction
    /// favoured, a weaker pull towards the centre).
    PointAngle,
}

/// The parameters of a run of classic faults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultParams {
    /// How each line is drawn.
    pub line_choice: LineChoice,
    /// Displacement of the first fault, in terrain units.
    pub displacement_max: f64,
    /// Displacement of the last fault; equal to the maximum for a constant displacement.
    pub displacement_min: f64,
    /// Lower the left side by the displacement as well as raising the right side.
    pub lower_other_side: bool,
    /// When set, displacement falls with distance r from the line as
    /// g(r) = (1 − (r/R)²)² for r < R and is zero beyond.
    pub falloff_radius: Option<f64>,
}

impl Default for FaultParams {
    fn default() -> Self {
        FaultParams {
            line_choice: LineChoice::PointAngle,
            displacement_max: 1.25,
            displacement_min: 0.25,
            lower_other_side: true,
            falloff_radius: None,
        }
    }
}

impl FaultParams {
    pub fn validate(&self) -> Result<(), TerrainError> {
        for (name, v) in [
            ("displacement max", self.displacement_max),
            ("displacement min", self.displacement_min),
        ] {
            if !v.is_finite() || v.abs() > 1e6 {
                return Err(TerrainError::out_of_range(
                    name,
                    v,
                    "a finite number of magnitude at most 1e6",
                ));
            }
        }
        if let Some(r) = self.falloff_radius
            && !(r.is_finite() && r > 0.0)
        {
            return Err(TerrainError::out_of_range(
                "fault falloff radius",
                r,
                "a positive number of samples",
            ));
        }
        Ok(())
    }

    /// Displacement of fault `index` of `total`: linear from max to min.
    pub fn displacement(&self, index: usize, total: usize) -> f64 {
        if total <= 1 {
            return self.displacement_max;
        }
        let t = index as f64 / (total - 1) as f64;
        self.displacement_max + (self.displacement_min - self.displacement_max) * t
    }
}

/// One fault: a line and how much it moves each side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fault {
    /// The fault line.
    pub line: Line,
    /// Displacement of the right side (terrain units, before any distance falloff).
    pub raise: f64,
    /// Displacement of the left side.
    pub lower: f64,
    /// Distance falloff radius, if any.
    pub falloff_radius: Option<f64>,
}

/// Draws a random line over a `width` × `height` map.
pub fn random_line(rng: &mut TerrainRng, choice: LineChoice, width: usize, height: usize) -> Line {
    let (w, h) = ((width - 1) as f64, (height - 1) as f64);
    let start = [rng.range(0.0, w), rng.range(0.0, h)];
    match choice {
        LineChoice::TwoPoints => Line::new(start, [rng.range(0.0, w), rng.range(0.0, h)]),
        LineChoice::PointAngle => {
            let angle = rng.range(0.0, std::f64::consts::TAU);
            Line::new(
                start,
                [start[0] + libm::cos(angle), start[1] + libm::sin(angle)],
            )
        }
    }
}

impl Fault {
    /// Draws fault `index` of a run of `total` with `params`.
    pub fn random(
        rng: &mut TerrainRng,
        params: &FaultParams,
        index: usize,
        total: usize,
        width: usize,
        height: usize,
    ) -> Self {
        let line = random_line(rng, params.line_choice, width, height);
        let d = params.displacement(index, total);
        Fault {
            line,
            raise: d,
            lower: if params.lower_other_side { -d } else { 0.0 },
            falloff_radius: params.falloff_radius,
        }
    }

    /// The fixed-point displacement of sample (x, y): the per-pixel rule both
    /// the rasteriser and the reference use.
    pub fn displacement_at(&self, x: usize, y: usize) -> i64 {
        let pd = self.line.perp_dot(x as f64, y as f64);
        let d = if pd > 0.0 { self.raise } else { self.lower };
        match self.falloff_radius {
            None => to_fixed(d),
            Some(radius) => to_fixed(d * self.falloff_weight(pd, radius)),
        }
    }

    /// g(r) = (1 − (r/R)²)² for r < R, else 0, with r the distance to the line.
    fn falloff_weight(&self, perp_dot: f64, radius: f64) -> f64 {
        let dx = self.line.end[0] - self.line.start[0];
        let dy = self.line.end[1] - self.line.start[1];
        let len2 = dx * dx + dy * dy;
        if len2 == 0.0 {
            return 1.0;
        }
        let q = perp_dot * perp_dot / (len2 * radius * radius);
        if q >= 1.0 { 0.0 } else { (1.0 - q) * (1.0 - q) }
    }
}

/// Adds many faults to a fixed-point accumulator by row spans.
///
/// Constant-displacement faults wait in a list; resolving walks the map once,
/// row by row, and for each row drops every waiting fault's step into one
/// difference array of the row and resolves it with a prefix sum. Each fault
/// costs O(rows), and the working set of a row stays in cache. Faults with a
/// distance falloff touch only the band r < R of each row, straight away.
#[derive(Clone)]
pub struct FaultRasterizer {
    /// Map width.
    width: usize,
    /// Map height.
    height: usize,
    /// Constant faults waiting for [`FaultRasterizer::resolve_into`].
    pending: Vec<PendingFault>,
    /// The difference array of one row, `width + 1` entries.
    steps: Vec<i64>,
}

/// A constant-displacement fault ready to be split row by row.
#[derive(Clone)]
struct PendingFault {
    /// Where the line crosses each row.
    splitter: RowSplitter,
    /// Fixed-point displacement of the right side.
    raise: i64,
    /// Fixed-point displacement of the left side.
    lower: i64,
}

impl FaultRasterizer {
    pub fn new(width: usize, height: usize) -> Self {
        FaultRasterizer {
            width,
            height,
            pending: Vec::new(),
            steps: vec![0; width + 1],
        }
    }

    /// Adds one fault; call [`FaultRasterizer::resolve_into`] after the last.
    pub fn add(&mut self, fault: &Fault, acc: &mut [i64]) {
        match fault.falloff_radius {
            None => self.pending.push(PendingFault {
                splitter: RowSplitter::new(fault.line, self.height),
                raise: to_fixed(fault.raise),
                lower: to_fixed(fault.lower),
            }),
            Some(radius) => self.add_banded(fault, radius, acc),
        }
    }

    fn add_banded(&mut self, fault: &Fault, radius: f64, acc: &mut [i64]) {
        let line = fault.line;
        let dx = line.end[0] - line.start[0];
        let dy = line.end[1] - line.start[1];
        let len = libm::sqrt(dx * dx + dy * dy);
        for y in 0..self.height {
            let row = &mut acc[y * self.width..(y + 1) * self.width];
            // The band |perp_dot| < R·len around the crossing, widened by one
            // sample for rounding; samples outside get exactly zero either way.
            let (lo, hi) = if dy == 0.0 || len == 0.0 {
                (0, self.width)
            } else {
                let crossing = line.start[0] + dx * (y as f64 - line.start[1]) / dy;
                let half = radius * len / dy.abs();
                let lo = (crossing - half - 1.0)
                    .floor()
                    .clamp(0.0, self.width as f64);
                let hi = (crossing + half + 2.0).ceil().clamp(0.0, self.width as f64);
                (lo as usize, hi as usize)
            };
            for (x, cell) in row.iter_mut().enumerate().take(hi).skip(lo) {
                *cell += fault.displacement_at(x, y);
            }
        }
    }

    /// Adds the waiting faults to `acc` and forgets them.
    pub fn resolve_into(&mut self, acc: &mut [i64]) {
        if self.pending.is_empty() {
            return;
        }
        for (y, row) in acc.chunks_exact_mut(self.width).enumerate() {
            let steps = &mut self.steps;
            for fault in &self.pending {
                let (s, right_first) = fault.splitter.split(y, 0, self.width);
                let (first, second) = if right_first {
                    (fault.raise, fault.lower)
                } else {
                    (fault.lower, fault.raise)
                };
                steps[0] += first;
                steps[s] += second - first;
            }
            let mut level = 0i64;
            for (cell, step) in row.iter_mut().zip(steps.iter_mut()) {
                level += *step;
                *step = 0;
                *cell += level;
            }
            steps[self.width] = 0;
        }
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::reference;

    fn run_both(
        params: FaultParams,
        width: usize,
        height: usize,
        count: usize,
        seed: u64,
    ) -> (Vec<i64>, Vec<i64>) {
        let mut rng = TerrainRng::new(seed);
        let faults: Vec<Fault> = (0..count)
            .map(|i| Fault::random(&mut rng, &params, i, count, width, height))
            .collect();
        let mut fast = vec![0i64; width * height];
        let mut raster = FaultRasterizer::new(width, height);
        for f in &faults {
            raster.add(f, &mut fast);
        }
        raster.resolve_into(&mut fast);
        let mut slow = vec![0i64; width * height];
        reference::faults_per_pixel(&faults, width, height, &mut slow);
        (fast, slow)
    }

    #[test]
    fn span_rasteriser_equals_per_pixel_reference() {
        for (w, h) in [(65, 65), (40, 17), (2, 2), (3, 50)] {
            let (fast, slow) = run_both(FaultParams::default(), w, h, 200, 11);
            assert_eq!(fast, slow, "{w}x{h}");
        }
    }

    #[test]
    fn two_point_lines_and_raise_only_match_reference() {
        let params = FaultParams {
            line_choice: LineChoice::TwoPoints,
            lower_other_side: false,
            ..FaultParams::default()
        };
        let (fast, slow) = run_both(params, 50, 31, 300, 5);
        assert_eq!(fast, slow);
        assert!(fast.iter().all(|&v| v >= 0), "raise-only never lowers");
    }

    #[test]
    fn distance_weighted_faults_match_reference() {
        let params = FaultParams {
            falloff_radius: Some(6.0),
            ..FaultParams::default()
        };
        let (fast, slow) = run_both(params, 48, 37, 100, 9);
        assert_eq!(fast, slow);
    }

    #[test]
    fn distance_weight_is_one_on_the_line_and_zero_beyond_radius() {
        let fault = Fault {
            line: Line::new([0.0, 5.0], [10.0, 5.0]),
            raise: 1.0,
            lower: -1.0,
            falloff_radius: Some(4.0),
        };
        // The line runs along y = 5 towards +x: the perp-dot is positive (the
        // raised right side) towards -y; samples on the line count as left.
        assert_eq!(fault.displacement_at(3, 5), to_fixed(-1.0));
        assert_eq!(fault.displacement_at(3, 3), to_fixed(0.5625)); // (1 - (2/4)^2)^2
        assert_eq!(fault.displacement_at(3, 7), to_fixed(-0.5625));
        assert_eq!(fault.displacement_at(3, 9), 0);
        assert_eq!(fault.displacement_at(3, 0), 0);
    }

    #[test]
    fn displacement_falls_linearly_from_max_to_min() {
        let p = FaultParams::default();
        assert_eq!(p.displacement(0, 5), 1.25);
        assert_eq!(p.displacement(2, 5), 0.75);
        assert_eq!(p.displacement(4, 5), 0.25);
    }

    #[test]
    fn two_point_lines_crowd_the_centre() {
        // Lines through two random points pass near the centre far more often
        // than near a corner, and more often than point-angle lines do: their
        // bias is towards the centre, not the corners.
        let (w, h) = (101, 101);
        let hits_near = |choice, (x, y): (f64, f64)| {
            let mut rng = TerrainRng::new(1);
            (0..20_000)
                .filter(|_| {
                    let l = random_line(&mut rng, choice, w, h);
                    let dx = l.end[0] - l.start[0];
                    let dy = l.end[1] - l.start[1];
                    let dist = l.perp_dot(x, y).abs() / (dx * dx + dy * dy).sqrt();
                    dist < 5.0
                })
                .count()
        };
        let (centre, corner) = ((50.0, 50.0), (10.0, 10.0));
        let two_points = LineChoice::TwoPoints;
        assert!(hits_near(two_points, centre) * 10 > hits_near(two_points, corner) * 15);
        assert!(hits_near(two_points, centre) > hits_near(LineChoice::PointAngle, centre) * 5 / 4);
    }
}
