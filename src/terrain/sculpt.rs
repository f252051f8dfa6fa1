//! Hand edits: a fault traced along a polyline (one side raised, the other lowered) and a lifted hill, each fading as g(r) = (1 − (r/R)²)² with the distance r from its path, rasterised into a change map a bounded slice at a time.
//!
//! In "Fault Line Terrain Generation" (VirtuallyProgramming.com, 2013) a
//! fault is a straight line and the side of a sample is the sign of its
//! perp-dot with the line; "Terrain via the faulting method" (University of
//! Illinois CS 418 notes) fades the change with g(r). A
//! traced fault keeps both, with the line replaced by the path the finger
//! drew: r is the distance to the nearest point of the polyline and the side
//! is the perp-dot with the segment that point lies on (at a vertex, with
//! the direction halfway between its two segments), so a curved trace gives
//! a curved fault.
//!
//! The side's sign alone makes a ladder of a slanted fault: each sample is
//! wholly up or down, so the step follows the grid as a staircase and the
//! renderer's central-difference normals light every stair as a stripe.
//! So the step has an edge: with d the sample's signed distance to the path
//! (from the segment's line, which past the path's ends is the line
//! continued; where the nearest point is a vertex between two segments, r
//! with the halfway direction's sign), it moves by s(d/e)·g(r) times half
//! the step, s(x) = x(3 − x²)/2 a smoothstep from −1 to 1, held at ±1
//! beyond, and e [`FAULT_EDGE`] sample spacings (the coarser axis's). The
//! land then climbs smoothly across a band 2e wide and only there: on the
//! line it stays put (halfway up), and from e on each side has its full
//! half step, as in the sources.
//!
//! Distances are measured in the map's (u, v) square, which the hologram
//! shows square whatever its sample counts, and the arithmetic is f64 with
//! no transcendental function (g needs only r², the edge one square root,
//! which IEEE 754 rounds exactly), so the change is the same bits on every
//! platform.
use serde::{Deserialize, Serialize};

use super::heightmap::Heightmap;
use super::sliced::{Sliced, assert_map_size, rows_per_band};

/// The step across a traced fault, height units: one side rises by half
/// of it, the other sinks by half (2 cm at scale 1 on the 0.5 m hologram).
pub const TRACE_STEP: f32 = 0.04;
/// How far an edit reaches, as a fraction of the map's width (u).
pub const EDIT_RADIUS: f32 = 0.1;
/// How far a traced fault's edge reaches to either side of the path, in
/// sample spacings: within it the land climbs smoothly from the sunk side
/// to the raised one, beyond it each side has its full half step.
pub const FAULT_EDGE: f32 = 2.0;
/// Most points a traced path keeps once thinned.
pub const MAX_TRACE_POINTS: usize = 64;
/// How far (in u, v) a thinned path may stray from the points the hand
/// drew: 2 mm on the hologram at scale 1, under what a hand means.
pub const THIN_TOLERANCE: f32 = 0.004;

/// One hand edit, in the map's (u, v) square: u along the columns, v along
/// the rows, both 0..1; heights in terrain units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Edit {
    /// A fault along the traced path: the side its perp-dot finds positive
    /// rises by [`TRACE_STEP`]/2, the other sinks by as much, with an edge
    /// [`FAULT_EDGE`] samples to either side climbing smoothly from one to
    /// the other.
    Trace {
        /// The path, thinned, in the order it was drawn.
        points: Vec<[f32; 2]>,
    },
    /// A hill (or, for a negative height, a basin) peaking at `at`.
    Lift {
        /// Where its peak is.
        at: [f32; 2],
        /// How high its peak rises.
        height: f32,
    },
}

/// Highest (and, negated, deepest) a lift may raise its peak, terrain
/// units: a hand's full reach (1 m) at the hologram's smallest scale. A
/// lift beyond it is ignored, so no sequence of edits can carry a height
/// out of what f32 holds.
pub const MAX_LIFT_HEIGHT: f32 = 8.0;

/// Why an edit changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ignored {
    /// Fewer than two of the trace's points lie on the surface.
    TooFewPoints,
    /// The trace's points on the surface are all at one place.
    ZeroLength,
    /// The lift's point is off the surface.
    OffSurface,
    /// The lift has no height (zero, or not a number).
    NoHeight,
    /// The lift's height is beyond ±[`MAX_LIFT_HEIGHT`].
    TooHigh,
}

impl Ignored {
    /// What the report says.
    pub fn reason(self) -> &'static str {
        match self {
            Ignored::TooFewPoints => "fewer than two points on the surface",
            Ignored::ZeroLength => "the trace has zero length",
            Ignored::OffSurface => "the point is off the surface",
            Ignored::NoHeight => "the lift has no height",
            Ignored::TooHigh => "the lift is higher than a hand can raise it",
        }
    }
}

fn on_surface(point: [f32; 2]) -> bool {
    point.iter().all(|c| (0.0..=1.0).contains(c))
}

impl Edit {
    /// The edit as it applies: a trace keeps its points on the surface
    /// (consecutive repeats dropped); an edit that would change nothing is
    /// [`Ignored`] with the reason.
    pub fn checked(&self) -> Result<Edit, Ignored> {
        match self {
            Edit::Trace { points } => {
                let on: Vec<[f32; 2]> = points.iter().copied().filter(|p| on_surface(*p)).collect();
                if on.len() < 2 {
                    return Err(Ignored::TooFewPoints);
                }
                let mut kept: Vec<[f32; 2]> = Vec::with_capacity(on.len());
                for point in on {
                    if kept.last() != Some(&point) {
                        kept.push(point);
                    }
                }
                if kept.len() < 2 {
                    return Err(Ignored::ZeroLength);
                }
                Ok(Edit::Trace { points: kept })
            }
            Edit::Lift { at, height } => {
                if !on_surface(*at) {
                    Err(Ignored::OffSurface)
                } else if !height.is_finite() || *height == 0.0 {
                    Err(Ignored::NoHeight)
                } else if height.abs() > MAX_LIFT_HEIGHT {
                    Err(Ignored::TooHigh)
                } else {
                    Ok(self.clone())
                }
            }
        }
    }
}

/// g(r) = (1 − (r/R)²)² from r² and R², zero from R on.
fn falloff(distance_sq: f64, radius_sq: f64) -> f64 {
    let q = distance_sq / radius_sq;
    if q >= 1.0 { 0.0 } else { (1.0 - q) * (1.0 - q) }
}

/// The share of the half step (−1 sunk, 1 raised) at signed distance `d`
/// from the path, its edge reaching `edge` to either side: the smoothstep
/// s(x) = x(3 − x²)/2 of x = d/edge, which is ±1 with a level tangent at
/// x = ±1 and odd, so the two sides are mirror images to the bit.
fn edge_share(d: f64, edge: f64) -> f64 {
    let x = (d / edge).clamp(-1.0, 1.0);
    x * (3.0 - x * x) / 2.0
}

/// One segment of a traced path, in (u, v).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Segment {
    start: [f64; 2],
    end: [f64; 2],
}

impl Segment {
    fn direction(&self) -> [f64; 2] {
        [self.end[0] - self.start[0], self.end[1] - self.start[1]]
    }

    /// The squared distance from `p` and where along the segment (0..1) the
    /// nearest point lies.
    fn nearest(&self, p: [f64; 2]) -> (f64, f64) {
        let [dx, dy] = self.direction();
        let (px, py) = (p[0] - self.start[0], p[1] - self.start[1]);
        let len_sq = dx * dx + dy * dy;
        let t = if len_sq == 0.0 {
            0.0
        } else {
            ((px * dx + py * dy) / len_sq).clamp(0.0, 1.0)
        };
        let (ex, ey) = (px - t * dx, py - t * dy);
        (ex * ex + ey * ey, t)
    }
}

/// The fault sources' perp-dot of `p` with the line through `origin` along `direction`.
fn perp_dot(origin: [f64; 2], direction: [f64; 2], p: [f64; 2]) -> f64 {
    (p[0] - origin[0]) * direction[1] - direction[0] * (p[1] - origin[1])
}

/// A direction scaled to unit length (unchanged when it has none).
fn unit(d: [f64; 2]) -> [f64; 2] {
    let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
    if len == 0.0 {
        d
    } else {
        [d[0] / len, d[1] / len]
    }
}

/// An edit made ready to rasterise: its geometry in f64 and its reach.
#[derive(Debug, Clone, PartialEq)]
pub struct EditShape {
    kind: ShapeKind,
    /// R², in (u, v).
    radius_sq: f64,
    /// R with a margin, for the bounding tests that skip far segments.
    reach: f64,
}

#[derive(Debug, Clone, PartialEq)]
enum ShapeKind {
    Fault {
        segments: Vec<Segment>,
        half_step: f64,
        /// How far the edge reaches to either side, in (u, v).
        edge: f64,
    },
    Hill {
        at: [f64; 2],
        height: f64,
    },
}

impl EditShape {
    /// The shape of `edit` (already [`Edit::checked`]) on a
    /// `width`×`height` map, reaching [`EDIT_RADIUS`], a fault's edge
    /// [`FAULT_EDGE`] of the map's coarser sample spacing.
    pub fn new(edit: &Edit, width: usize, height: usize) -> Self {
        let radius = f64::from(EDIT_RADIUS);
        let to_f64 = |p: [f32; 2]| [f64::from(p[0]), f64::from(p[1])];
        let kind = match edit {
            Edit::Trace { points } => ShapeKind::Fault {
                segments: points
                    .windows(2)
                    .map(|pair| Segment {
                        start: to_f64(pair[0]),
                        end: to_f64(pair[1]),
                    })
                    .collect(),
                half_step: f64::from(TRACE_STEP) / 2.0,
                edge: f64::from(FAULT_EDGE) / (width.min(height) - 1) as f64,
            },
            Edit::Lift { at, height } => ShapeKind::Hill {
                at: to_f64(*at),
                height: f64::from(*height),
            },
        };
        EditShape {
            kind,
            radius_sq: radius * radius,
            // Rounding in a distance can never bring a segment skipped by
            // this margin inside R.
            reach: radius * (1.0 + 1e-6),
        }
    }

    /// The (u, v) box outside which the edit changes nothing.
    fn bounds(&self) -> ([f64; 2], [f64; 2]) {
        let (mut low, mut high) = ([f64::MAX; 2], [f64::MIN; 2]);
        let mut include = |p: [f64; 2]| {
            for axis in 0..2 {
                low[axis] = low[axis].min(p[axis]);
                high[axis] = high[axis].max(p[axis]);
            }
        };
        match &self.kind {
            ShapeKind::Fault { segments, .. } => {
                for segment in segments {
                    include(segment.start);
                    include(segment.end);
                }
            }
            ShapeKind::Hill { at, .. } => include(*at),
        }
        (
            [low[0] - self.reach, low[1] - self.reach],
            [high[0] + self.reach, high[1] + self.reach],
        )
    }

    /// The change at `p` from the segments `candidates` (indices in order,
    /// every segment within reach of `p` among them).
    fn change_at(&self, p: [f64; 2], candidates: impl Iterator<Item = usize>) -> f64 {
        match &self.kind {
            ShapeKind::Hill { at, height } => {
                let (dx, dy) = (p[0] - at[0], p[1] - at[1]);
                let weight = falloff(dx * dx + dy * dy, self.radius_sq);
                // Out of reach is +0.0, as in the cells a raster skips.
                if weight == 0.0 { 0.0 } else { height * weight }
            }
            ShapeKind::Fault {
                segments,
                half_step,
                edge,
            } => {
                let mut best: Option<(f64, usize, f64)> = None;
                for index in candidates {
                    let (distance_sq, t) = segments[index].nearest(p);
                    if best.is_none_or(|(best_sq, _, _)| distance_sq < best_sq) {
                        best = Some((distance_sq, index, t));
                    }
                }
                let Some((distance_sq, index, t)) = best else {
                    return 0.0;
                };
                let weight = falloff(distance_sq, self.radius_sq);
                if weight == 0.0 {
                    return 0.0;
                }
                let d = signed_distance(segments, index, t, p, distance_sq);
                edge_share(d, *edge) * half_step * weight
            }
        }
    }
}

/// The signed distance from the path to `p`, its nearest point at `t`
/// along `segments[index]` and `distance_sq` away, positive on the side
/// the perp-dot finds positive. At a vertex shared by two segments the
/// perp-dot with the direction halfway between them decides the side (so
/// it does not flip on the outside of a bend) and the distance is to the
/// vertex, which meets the segments' own on either edge of the wedge the
/// vertex is nearest in; elsewhere it is the distance from the segment's
/// line, which is the distance to the segment beside it and goes on past
/// the path's ends, so the edge continues straight there as the side does.
fn signed_distance(
    segments: &[Segment],
    index: usize,
    t: f64,
    p: [f64; 2],
    distance_sq: f64,
) -> f64 {
    let segment = segments[index];
    let neighbour = if t == 0.0 && index > 0 {
        Some((segments[index - 1], segment, segment.start))
    } else if t == 1.0 && index + 1 < segments.len() {
        Some((segment, segments[index + 1], segment.end))
    } else {
        None
    };
    if let Some((before, after, vertex)) = neighbour {
        let (a, b) = (unit(before.direction()), unit(after.direction()));
        let halfway = [a[0] + b[0], a[1] + b[1]];
        if halfway != [0.0, 0.0] {
            let distance = distance_sq.sqrt();
            return if perp_dot(vertex, halfway, p) > 0.0 {
                distance
            } else {
                -distance
            };
        }
    }
    perp_dot(segment.start, unit(segment.direction()), p)
}

/// (u, v) of sample (x, y) on a `width`×`height` map.
fn sample_uv(x: usize, y: usize, width: usize, height: usize) -> [f64; 2] {
    [
        x as f64 / (width - 1) as f64,
        y as f64 / (height - 1) as f64,
    ]
}

/// The change `shape` makes to a `width`×`height` map, written (not added)
/// into `change`, a band of rows a step: rows and columns the edit cannot
/// reach are skipped, and of a trace's segments only those within reach of
/// a row are measured.
#[derive(Debug, Clone)]
pub struct EditRaster {
    shape: EditShape,
    width: usize,
    height: usize,
    /// Rows (inclusive start, exclusive end) and columns the edit reaches.
    rows: (usize, usize),
    columns: (usize, usize),
    rows_per_band: usize,
    next_row: usize,
}

/// The sample range (inclusive start, exclusive end) of `samples` covering [low, high] in 0..1.
fn sample_range(low: f64, high: f64, samples: usize) -> (usize, usize) {
    let last = (samples - 1) as f64;
    let first = (low * last).ceil().clamp(0.0, last + 1.0) as usize;
    let end = ((high * last).floor() + 1.0).clamp(0.0, last + 1.0) as usize;
    (first.min(end), end)
}

impl EditRaster {
    /// The raster of `edit` (already [`Edit::checked`]) on a `width`×`height` map.
    pub fn new(edit: &Edit, width: usize, height: usize) -> Self {
        let shape = EditShape::new(edit, width, height);
        let (low, high) = shape.bounds();
        let rows = sample_range(low[1], high[1], height);
        let columns = sample_range(low[0], high[0], width);
        let weight = match &shape.kind {
            ShapeKind::Fault { segments, .. } => segments.len(),
            ShapeKind::Hill { .. } => 1,
        };
        let rows_per_band = rows_per_band(rows.1 - rows.0, columns.1 - columns.0, weight);
        EditRaster {
            shape,
            width,
            height,
            rows,
            columns,
            rows_per_band,
            next_row: rows.0,
        }
    }

    /// Writes the change of row `y` into `row` (its `width` samples).
    fn row(&self, y: usize, row: &mut [f32]) {
        let v = sample_uv(0, y, self.width, self.height)[1];
        match &self.shape.kind {
            ShapeKind::Hill { .. } => {
                let (first, end) = self.columns;
                for (x, cell) in row.iter_mut().enumerate().take(end).skip(first) {
                    let p = sample_uv(x, y, self.width, self.height);
                    *cell = self.shape.change_at(p, std::iter::empty()) as f32;
                }
            }
            ShapeKind::Fault { segments, .. } => {
                let reach = self.shape.reach;
                let near: Vec<usize> = (0..segments.len())
                    .filter(|&index| {
                        let s = segments[index];
                        s.start[1].min(s.end[1]) - reach <= v
                            && v <= s.start[1].max(s.end[1]) + reach
                    })
                    .collect();
                if near.is_empty() {
                    return;
                }
                let (u_low, u_high) = near.iter().fold((f64::MAX, f64::MIN), |(low, high), &i| {
                    let s = segments[i];
                    (
                        low.min(s.start[0].min(s.end[0]) - reach),
                        high.max(s.start[0].max(s.end[0]) + reach),
                    )
                });
                let (first, end) = sample_range(u_low, u_high, self.width);
                for (x, cell) in row.iter_mut().enumerate().take(end).skip(first) {
                    let p = sample_uv(x, y, self.width, self.height);
                    *cell = self.shape.change_at(p, near.iter().copied()) as f32;
                }
            }
        }
    }
}

impl Sliced for EditRaster {
    fn slices(&self) -> usize {
        (self.rows.1 - self.rows.0).div_ceil(self.rows_per_band)
    }

    fn slices_done(&self) -> usize {
        (self.next_row - self.rows.0).div_ceil(self.rows_per_band)
    }

    fn step(&mut self, change: &mut Heightmap) {
        assert_map_size(change, self.width, self.height);
        let end = (self.next_row + self.rows_per_band).min(self.rows.1);
        let width = self.width;
        for y in self.next_row..end {
            let row = &mut change.cells_mut()[y * width..(y + 1) * width];
            self.row(y, row);
        }
        self.next_row = end;
    }
}

/// The change `edit` (already [`Edit::checked`]) makes to a `width`×`height` map, whole.
pub fn edit_change(edit: &Edit, width: usize, height: usize) -> Heightmap {
    let mut change = Heightmap::flat(width, height).expect("the edited map's own size");
    EditRaster::new(edit, width, height).run_to_end(&mut change);
    change
}

/// `points` thinned to what the hand meant (Douglas–Peucker): the fewest
/// points that keep every drawn point within `tolerance` of the path,
/// widened until at most [`MAX_TRACE_POINTS`] remain.
pub fn thin_path(points: &[[f32; 2]], tolerance: f32) -> Vec<[f32; 2]> {
    let mut tolerance = tolerance.max(f32::EPSILON);
    loop {
        let mut keep = vec![false; points.len()];
        if let Some(last) = points.len().checked_sub(1) {
            keep[0] = true;
            keep[last] = true;
            douglas_peucker(points, 0, last, tolerance, &mut keep);
        }
        let thinned: Vec<[f32; 2]> = points
            .iter()
            .zip(&keep)
            .filter_map(|(point, kept)| kept.then_some(*point))
            .collect();
        if thinned.len() <= MAX_TRACE_POINTS {
            return thinned;
        }
        tolerance *= 2.0;
    }
}

fn douglas_peucker(
    points: &[[f32; 2]],
    first: usize,
    last: usize,
    tolerance: f32,
    keep: &mut [bool],
) {
    if last <= first + 1 {
        return;
    }
    let to_f64 = |p: [f32; 2]| [f64::from(p[0]), f64::from(p[1])];
    let chord = Segment {
        start: to_f64(points[first]),
        end: to_f64(points[last]),
    };
    let (farthest, distance_sq) = (first + 1..last)
        .map(|index| (index, chord.nearest(to_f64(points[index])).0))
        .fold((first, -1.0), |best, candidate| {
            if candidate.1 > best.1 {
                candidate
            } else {
                best
            }
        });
    let tolerance = f64::from(tolerance);
    if distance_sq > tolerance * tolerance {
        keep[farthest] = true;
        douglas_peucker(points, first, farthest, tolerance as f32, keep);
        douglas_peucker(points, farthest, last, tolerance as f32, keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain per-sample change: every segment measured at every sample.
    fn reference(edit: &Edit, width: usize, height: usize) -> Vec<f32> {
        let shape = EditShape::new(edit, width, height);
        let segments = match &shape.kind {
            ShapeKind::Fault { segments, .. } => segments.len(),
            ShapeKind::Hill { .. } => 0,
        };
        let mut cells = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                cells.push(shape.change_at(sample_uv(x, y, width, height), 0..segments) as f32);
            }
        }
        cells
    }

    fn trace(points: &[[f32; 2]]) -> Edit {
        Edit::Trace {
            points: points.to_vec(),
        }
    }

    fn bits(cells: &[f32]) -> Vec<u32> {
        cells.iter().map(|c| c.to_bits()).collect()
    }

    #[test]
    fn the_sliced_raster_equals_the_per_sample_reference_bit_for_bit() {
        let edits = [
            trace(&[[0.1, 0.5], [0.9, 0.5]]),
            trace(&[
                [0.05, 0.2],
                [0.3, 0.6],
                [0.5, 0.4],
                [0.52, 0.41],
                [0.9, 0.9],
            ]),
            trace(&[[0.5, 0.1], [0.5, 0.9], [0.55, 0.1]]),
            Edit::Lift {
                at: [0.3, 0.7],
                height: 0.07,
            },
            Edit::Lift {
                at: [1.0, 0.0],
                height: -0.05,
            },
        ];
        for (width, height) in [(65, 65), (33, 80), (2, 2)] {
            for edit in &edits {
                let change = edit_change(edit, width, height);
                let expected = bits(&reference(edit, width, height));
                let differing = bits(change.cells())
                    .iter()
                    .zip(&expected)
                    .filter(|(a, b)| a != b)
                    .count();
                assert_eq!(differing, 0, "{edit:?} on {width}×{height}");
            }
        }
    }

    #[test]
    fn a_left_to_right_trace_raises_the_far_rows_and_lowers_the_near_ones() {
        let change = edit_change(&trace(&[[0.1, 0.5], [0.9, 0.5]]), 65, 65);
        // Rows above the line (smaller v: the far side for a wearer at the
        // front edge) rise; below it they sink. From FAULT_EDGE (two rows)
        // off the line each side has its full half step, faded by g; one
        // row off, s(1/2) = 11/16 of it; on the line, halfway up the
        // edge, nothing moves.
        let half = f64::from(TRACE_STEP) / 2.0;
        let g = |rows: f64| falloff((rows / 64.0).powi(2), f64::from(EDIT_RADIUS).powi(2));
        for (row, expected) in [
            (29, half * g(3.0)),
            (30, half * g(2.0)),
            (31, 0.6875 * half * g(1.0)),
            (32, 0.0),
            (33, -0.6875 * half * g(1.0)),
            (34, -half * g(2.0)),
            (35, -half * g(3.0)),
        ] {
            let got = f64::from(change.get(32, row));
            assert!(
                (got - expected).abs() < 1e-9,
                "row {row}: {got}, not {expected}"
            );
        }
    }

    /// A trace across the map at an angle that no row, column or diagonal
    /// of the grid shares, so its line crosses the samples at every offset.
    const DIAGONAL: [[f32; 2]; 2] = [[0.12, 0.23], [0.88, 0.71]];

    /// The point `along` (0..1) of the way down [`DIAGONAL`] and `across`
    /// sample spacings of a `side`-sample map off it, towards the side that
    /// rises.
    fn off_diagonal(along: f64, across: f64, side: usize) -> [f64; 2] {
        let [a, b] = DIAGONAL.map(|p| [f64::from(p[0]), f64::from(p[1])]);
        let d = [b[0] - a[0], b[1] - a[1]];
        let length = (d[0] * d[0] + d[1] * d[1]).sqrt();
        // Positive perp-dot: along (dy, −dx).
        let rising = [d[1] / length, -d[0] / length];
        let offset = across / (side - 1) as f64;
        [
            a[0] + along * d[0] + offset * rising[0],
            a[1] + along * d[1] + offset * rising[1],
        ]
    }

    /// `values` (one a sample of a `side`×`side` map) at (u, v), bilinear
    /// between the four samples around it, as the mesh spans them.
    fn between_samples<const N: usize>(values: &[[f64; N]], side: usize, p: [f64; 2]) -> [f64; N] {
        let last = (side - 1) as f64;
        let (x, y) = (p[0] * last, p[1] * last);
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (fx, fy) = (x - x0 as f64, y - y0 as f64);
        let at = |x: usize, y: usize| values[y.min(side - 1) * side + x.min(side - 1)];
        let mut mixed = [0.0; N];
        for (k, value) in mixed.iter_mut().enumerate() {
            *value = (at(x0, y0)[k] * (1.0 - fx) + at(x0 + 1, y0)[k] * fx) * (1.0 - fy)
                + (at(x0, y0 + 1)[k] * (1.0 - fx) + at(x0 + 1, y0 + 1)[k] * fx) * fy;
        }
        mixed
    }

    /// The change a trace along [`DIAGONAL`] makes to a `side`×`side` map, as f64.
    fn diagonal_fault(side: usize) -> Vec<[f64; 1]> {
        edit_change(&trace(&DIAGONAL), side, side)
            .cells()
            .iter()
            .map(|&c| [f64::from(c)])
            .collect()
    }

    #[test]
    fn across_a_diagonal_fault_the_land_climbs_steadily_to_the_full_step_within_a_few_samples() {
        let step = f64::from(TRACE_STEP);
        for side in [257, 513] {
            let change = diagonal_fault(side);
            // The step is spread over more than one sample: no two
            // neighbours (along a row or a column) differ by much of it
            // (0.31 of it here; with the side's sign alone, all of it).
            let mut steepest: f64 = 0.0;
            for y in 0..side {
                for x in 0..side {
                    let here = change[y * side + x][0];
                    if x + 1 < side {
                        steepest = steepest.max((change[y * side + x + 1][0] - here).abs());
                    }
                    if y + 1 < side {
                        steepest = steepest.max((change[(y + 1) * side + x][0] - here).abs());
                    }
                }
            }
            assert!(
                steepest < 0.4 * step,
                "{side}²: neighbours differ by {steepest}"
            );
            // Along lines square to the fault, at places all along it: from
            // two samples on the sinking side to two on the rising side
            // the land only climbs, and three samples off it the two sides
            // are the full step apart (less only the fade g).
            for along in [0.2, 0.31, 0.43, 0.5, 0.57, 0.66, 0.8] {
                let at = |across: f64| {
                    between_samples(&change, side, off_diagonal(along, across, side))[0]
                };
                let profile: Vec<f64> = (-16..=16).map(|i| at(f64::from(i) / 8.0)).collect();
                for (i, pair) in profile.windows(2).enumerate() {
                    assert!(
                        pair[1] > pair[0],
                        "{side}², {along} along: it falls at {} samples across: {profile:?}",
                        f64::from(i as i32 - 16) / 8.0
                    );
                }
                let apart = at(3.0) - at(-3.0);
                assert!(
                    apart > 0.9 * step && apart <= step,
                    "{side}², {along} along: {apart} apart"
                );
            }
        }
    }

    #[test]
    fn a_bent_traces_edge_stays_smooth_round_its_bends_and_past_its_ends() {
        // A gentle bend and a sharp one, and both ends inside the map: the
        // edge goes on straight past each end and round the outside of
        // each bend, so nowhere do two neighbouring samples differ by
        // much of the step.
        let step = f64::from(TRACE_STEP);
        let bent = trace(&[[0.2, 0.3], [0.45, 0.42], [0.6, 0.7], [0.75, 0.35]]);
        for side in [257, 513] {
            let change = edit_change(&bent, side, side);
            let cell = |x: usize, y: usize| f64::from(change.get(x, y));
            let mut steepest: f64 = 0.0;
            for y in 0..side - 1 {
                for x in 0..side - 1 {
                    steepest = steepest
                        .max((cell(x + 1, y) - cell(x, y)).abs())
                        .max((cell(x, y + 1) - cell(x, y)).abs());
                }
            }
            assert!(
                steepest < 0.4 * step,
                "{side}²: neighbours differ by {steepest}"
            );
        }
    }

    #[test]
    fn along_a_diagonal_fault_the_land_keeps_its_height_at_each_distance_with_no_staircase() {
        let step = f64::from(TRACE_STEP);
        for side in [257, 513] {
            let change = diagonal_fault(side);
            // On lines parallel to the fault from four samples on the
            // sinking side to four on the rising side, along its middle
            // (where the nearest point of the path is inside the segment,
            // so the fade is the same all along a line): the land as the
            // mesh spans it stays at one height (within 0.033 of the step
            // here; with the side's sign alone it varied by 0.95 of it).
            let mut worst: f64 = 0.0;
            for i in -16..=16 {
                let across = f64::from(i) / 4.0;
                let heights: Vec<f64> = (0..=2000)
                    .map(|k| {
                        let along = 0.3 + 0.4 * f64::from(k) / 2000.0;
                        between_samples(&change, side, off_diagonal(along, across, side))[0]
                    })
                    .collect();
                let low = heights.iter().copied().fold(f64::MAX, f64::min);
                let high = heights.iter().copied().fold(f64::MIN, f64::max);
                worst = worst.max(high - low);
            }
            assert!(
                worst < 0.05 * step,
                "{side}²: heights vary by {worst} along the fault"
            );
        }
    }

    #[test]
    fn along_a_diagonal_fault_the_shading_keeps_one_slope_with_no_stripes() {
        for side in [257, 513] {
            let change = diagonal_fault(side);
            // The renderer's normal at each sample (shaders/terrain.vert):
            // central differences, heights and (u, v) in one unit.
            let cell = 1.0 / (side - 1) as f64;
            let height = |x: usize, y: usize| change[y.min(side - 1) * side + x.min(side - 1)][0];
            let mut normals = Vec::with_capacity(side * side);
            for y in 0..side {
                for x in 0..side {
                    let (left, right) = (x.saturating_sub(1), (x + 1).min(side - 1));
                    let (up, down) = (y.saturating_sub(1), (y + 1).min(side - 1));
                    let gx = (height(right, y) - height(left, y)) / ((right - left) as f64 * cell);
                    let gy = (height(x, down) - height(x, up)) / ((down - up) as f64 * cell);
                    normals.push([-gx, 1.0, -gy]);
                }
            }
            // Interpolated between samples and made unit, as the fragment
            // shader lights it, on lines parallel to the fault: the normal
            // stays put along each line.
            let mut worst: f64 = 0.0;
            for i in -16..=16 {
                let across = f64::from(i) / 4.0;
                let (mut low, mut high) = ([f64::MAX; 3], [f64::MIN; 3]);
                for k in 0..=2000 {
                    let along = 0.3 + 0.4 * f64::from(k) / 2000.0;
                    let n = between_samples(&normals, side, off_diagonal(along, across, side));
                    let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                    for axis in 0..3 {
                        low[axis] = low[axis].min(n[axis] / length);
                        high[axis] = high[axis].max(n[axis] / length);
                    }
                }
                let spread = (0..3)
                    .map(|a| (high[a] - low[a]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                worst = worst.max(spread);
            }
            // The hard-sided fault's varied by 1.4 at 257² and 1.5 at 513²,
            // the normal swinging from up to nearly level and back.
            let bound = if side == 257 { 0.25 } else { 0.4 };
            assert!(
                worst < bound,
                "{side}²: the unit normal varies by {worst} along the fault"
            );
        }
    }

    #[test]
    fn nothing_changes_at_or_beyond_the_radius() {
        let edit = trace(&[[0.2, 0.3], [0.6, 0.35], [0.7, 0.8]]);
        let (width, height) = (101, 101);
        let change = edit_change(&edit, width, height);
        let shape = EditShape::new(&edit, width, height);
        let ShapeKind::Fault { segments, .. } = &shape.kind else {
            unreachable!()
        };
        for y in 0..height {
            for x in 0..width {
                let p = sample_uv(x, y, width, height);
                let nearest = segments
                    .iter()
                    .map(|s| s.nearest(p).0.sqrt())
                    .fold(f64::MAX, f64::min);
                if nearest >= f64::from(EDIT_RADIUS) {
                    assert_eq!(change.get(x, y), 0.0, "({x}, {y}) is {nearest} away");
                } else if nearest < 0.9 * f64::from(EDIT_RADIUS) {
                    assert_ne!(change.get(x, y), 0.0, "({x}, {y}) is {nearest} away");
                }
            }
        }
    }

    #[test]
    fn the_curve_not_its_chord_decides_the_side() {
        // A trace bowing up through v = 0.42 between two ends at v = 0.5: a
        // sample at v = 0.46 under the bow's middle lies below the curve
        // (sinks) though above the chord from end to end (which raises it).
        let bow = trace(&[[0.2, 0.5], [0.5, 0.42], [0.8, 0.5]]);
        let change = edit_change(&bow, 101, 101);
        assert!(change.get(50, 46) < 0.0);
        let chord = edit_change(&trace(&[[0.2, 0.5], [0.8, 0.5]]), 101, 101);
        assert!(chord.get(50, 46) > 0.0);
    }

    #[test]
    fn the_outside_of_a_bend_keeps_one_side() {
        // A right-angle bend: samples around the outside corner are all on
        // the same side as the straight parts' outsides.
        let bend = trace(&[[0.2, 0.5], [0.5, 0.5], [0.5, 0.8]]);
        let change = edit_change(&bend, 101, 101);
        let outside = [change.get(52, 45), change.get(55, 48), change.get(55, 55)];
        assert!(outside.iter().all(|&c| c > 0.0), "{outside:?}");
        assert!(change.get(45, 55) < 0.0);
    }

    #[test]
    fn a_lift_peaks_at_its_height_and_fades_to_nothing_at_the_radius() {
        let change = edit_change(
            &Edit::Lift {
                at: [0.5, 0.5],
                height: 0.08,
            },
            101,
            101,
        );
        assert_eq!(change.get(50, 50), 0.08);
        assert!((change.get(55, 50) - 0.08 * 0.5625).abs() < 1e-6); // (1 − (0.05/0.1)²)²
        assert_eq!(change.get(61, 50), 0.0);
        assert_eq!(change.get(50, 39), 0.0);
    }

    #[test]
    fn traces_that_change_nothing_say_why() {
        assert_eq!(trace(&[[0.5, 0.5]]).checked(), Err(Ignored::TooFewPoints));
        assert_eq!(
            trace(&[[1.5, 0.5], [0.2, 0.2], [-0.1, 0.3]]).checked(),
            Err(Ignored::TooFewPoints)
        );
        assert_eq!(
            trace(&[[0.2, 0.2], [0.2, 0.2]]).checked(),
            Err(Ignored::ZeroLength)
        );
        assert_eq!(
            Edit::Lift {
                at: [0.5, 1.2],
                height: 0.1
            }
            .checked(),
            Err(Ignored::OffSurface)
        );
        assert_eq!(
            Edit::Lift {
                at: [0.5, 0.5],
                height: f32::NAN
            }
            .checked(),
            Err(Ignored::NoHeight)
        );
        assert_eq!(
            trace(&[[1.5, 0.5], [0.2, 0.2], [0.2, 0.2], [0.4, 0.3]]).checked(),
            Ok(trace(&[[0.2, 0.2], [0.4, 0.3]]))
        );
    }

    #[test]
    fn thinning_drops_jitter_but_keeps_corners() {
        let mut drawn = Vec::new();
        for i in 0..=100 {
            let t = i as f32 / 100.0;
            let jitter = if i % 2 == 0 { 0.001 } else { -0.001 };
            drawn.push([0.1 + 0.4 * t, 0.3 + jitter]);
        }
        for i in 1..=100 {
            let t = i as f32 / 100.0;
            drawn.push([0.5, 0.3 + 0.4 * t]);
        }
        let thinned = thin_path(&drawn, THIN_TOLERANCE);
        assert!(thinned.len() <= 5, "{thinned:?}");
        assert_eq!(thinned.first(), drawn.first());
        assert_eq!(thinned.last(), drawn.last());
        assert!(
            thinned
                .iter()
                .any(|p| (p[0] - 0.5).abs() < 0.01 && (p[1] - 0.3).abs() < 0.01)
        );
    }

    #[test]
    fn thinning_a_long_wiggle_keeps_at_most_the_limit() {
        let drawn: Vec<[f32; 2]> = (0..1000)
            .map(|i| {
                let t = i as f32 / 1000.0;
                [t, 0.5 + if i % 10 < 5 { 0.05 } else { -0.05 }]
            })
            .collect();
        assert!(thin_path(&drawn, THIN_TOLERANCE).len() <= MAX_TRACE_POINTS);
    }
}
