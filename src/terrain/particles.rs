//! Particle erosion after Fritz, "Procedural Generation of Mountain Ranges Based on Geology" (2016), §3.5.3: rain particles with a capacity, an acidity and a lifespan slide over the heightfield, kept on it by ray–triangle tests.
//!
//! The thesis ran a full SPH fluid and kept its particles above the terrain
//! with Möller and Trumbore's ray–triangle test, pushing a particle out
//! along the surface normal where it hit. Here each particle moves on its
//! own (no particle–particle forces: the erosion needs only where water runs
//! and how fast), which keeps the job deterministic, order-fixed and cheap.
//!
//! Geometry: sample (x, y) is the point (x, y, h / l) in cell units, l the
//! cell size in height units; each cell is split into two triangles along
//! the diagonal from (x, y) to (x + 1, y + 1).
use super::erosion::{check_non_negative, check_scale, check_unit};
use super::error::TerrainError;
use super::heightmap::Heightmap;
use super::heightmap::check_size;
use super::rng::TerrainRng;
use super::sliced::assert_map_size;
use super::sliced::{SLICE_CELLS, Sliced};

/// Most particles one call accepts, a guard against a typo that would run for hours.
pub const MAX_PARTICLES: u32 = 10_000_000;

/// Longest lifespan accepted, in steps.
pub const MAX_LIFESPAN: u32 = 10_000;

/// Work of one particle step in units of [`SLICE_CELLS`]'s cheap work (up
/// to 8 ray–triangle tests, the surface lookup and the erosion; measured:
/// docs/terrain-mei-particles.md).
const STEP_WEIGHT: usize = 10;

/// Parameters of [`particles`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParticleParams {
    /// Number of rain particles, at most [`MAX_PARTICLES`].
    pub particles: u32,
    /// Steps each particle lives, in [1, [`MAX_LIFESPAN`]]; its water
    /// evaporates linearly over them, and it leaves its load when it dies.
    pub lifespan: u32,
    /// Sediment (height units) a particle carries per unit of speed (cells a
    /// step) while it has all its water; finite and ≥ 0.
    pub capacity: f32,
    /// Share of the spare capacity a touching particle dissolves per step, in [0, 1].
    pub acidity: f32,
    /// Share of the load above capacity a touching particle deposits per step, in [0, 1].
    pub deposition: f32,
    /// Downward acceleration, in cells per step², in [0.0001, 10000].
    pub gravity: f32,
    /// Share of the velocity lost at each contact with the ground, in [0, 1].
    pub friction: f32,
    /// Distance between two samples in height units, in [0.0001, 10000]:
    /// how steep the map is to a particle.
    pub cell_size: f32,
}

impl Default for ParticleParams {
    /// For a 257-sample map of heights in [0, 1] spanning one height unit
    /// (l = 1/256): 20 000 particles living 48 steps.
    fn default() -> Self {
        ParticleParams {
            particles: 20_000,
            lifespan: 48,
            capacity: 0.02,
            acidity: 0.1,
            deposition: 0.2,
            gravity: 0.1,
            friction: 0.1,
            cell_size: 1.0 / 256.0,
        }
    }
}

impl ParticleParams {
    /// Checks every field against its range; the error names the first
    /// field out of range and the range.
    pub fn validate(&self) -> Result<(), TerrainError> {
        if self.particles > MAX_PARTICLES {
            return Err(TerrainError::out_of_range(
                "particles",
                self.particles,
                "at most 10000000",
            ));
        }
        if !(1..=MAX_LIFESPAN).contains(&self.lifespan) {
            return Err(TerrainError::out_of_range(
                "lifespan",
                self.lifespan,
                "between 1 and 10000",
            ));
        }
        check_non_negative("capacity", self.capacity)?;
        check_unit("acidity", self.acidity)?;
        check_unit("deposition", self.deposition)?;
        check_scale("gravity", self.gravity)?;
        check_unit("friction", self.friction)?;
        check_scale("cell_size", self.cell_size)?;
        Ok(())
    }
}

/// Where a ray meets a triangle: `origin + t · dir`, at barycentric
/// coordinates (u, v) along the triangle's first and second edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    pub t: f32,
    pub u: f32,
    pub v: f32,
}

/// Möller and Trumbore's ray–triangle test (1997): the hit of the ray
/// `origin + t · dir` (any t, `dir` need not be normalised) with the
/// triangle `[p0, p1, p2]`, edges and corners included; `None` when it
/// misses or runs parallel to the triangle's plane (|det| < 1e-12).
pub fn ray_triangle(origin: [f32; 3], dir: [f32; 3], triangle: [[f32; 3]; 3]) -> Option<RayHit> {
    let [p0, p1, p2] = triangle;
    let e1 = sub(p1, p0);
    let e2 = sub(p2, p0);
    let p = cross(dir, e2);
    let det = dot(e1, p);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = sub(origin, p0);
    let u = dot(s, p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = cross(s, e1);
    let v = dot(dir, q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = dot(e2, q) * inv;
    t.is_finite().then_some(RayHit { t, u, v })
}

/// Particle erosion: `params.particles` rain particles, dropped one after
/// another at seeded positions ([`drop_point`]), each living out its
/// lifespan before the next falls.
///
/// A particle starts at rest on the surface with all its water. Each step:
///
/// 1. gravity: `v.z −= g`; the horizontal speed is clamped to 1 cell a step;
/// 2. motion: the segment from p to p + v is tested against the triangles
///    of the (at most 2×2) cells under it with [`ray_triangle`]; at the
///    nearest hit p moves there and the velocity loses its component into
///    the triangle (the thesis' impulse along the normal) and then the
///    share `friction`; otherwise p = p + v, and if p ends below the
///    surface (a graze between triangles) it is lifted onto it with the same
///    response. A particle leaving the map stops at the border and dies;
/// 3. erosion, when it touched the ground: with water `w = 1 − age / lifespan`
///    and capacity `c = capacity · |v| · w`, a particle carrying `s < c`
///    dissolves `acidity · (c − s)`, else deposits `deposition · (s − c)`,
///    taken from or given to the 4 samples around p with bilinear weights.
///    It dissolves where it speeds up, deposits where it slows, and
///    deposits as its water evaporates;
/// 4. death (lifespan over, or off the map): it leaves its load at p.
///
/// Material only moves: the sum of heights is conserved up to f32 rounding.
/// This is [`ParticleErosion`] stepped to the end.
pub fn particles(
    map: &mut Heightmap,
    params: &ParticleParams,
    seed: u64,
) -> Result<(), TerrainError> {
    ParticleErosion::new(map.width(), map.height(), params, seed)?.run_to_end(map);
    Ok(())
}

/// [`particles`] a bounded slice at a time: a slice is a batch of whole
/// particle lives, `max(1, SLICE_CELLS / (lifespan · 10))` particles (10
/// units of cheap work a particle step), so `slices()` is
/// `ceil(particles / batch)`. No particle outlives its slice, so between
/// slices nothing is in suspension; after the last slice the map is
/// [`particles`]' map bit for bit.
#[derive(Debug, Clone)]
pub struct ParticleErosion {
    width: usize,
    height: usize,
    params: ParticleParams,
    seed: u64,
    batch: usize,
    /// Particles done.
    dropped: usize,
    /// Total removed from and given to the map, summed in f64 in particle order.
    dissolved: f64,
    deposited: f64,
}

impl ParticleErosion {
    /// The job of `particles(map, params, seed)` on a `width × height` map,
    /// with the same validation.
    pub fn new(
        width: usize,
        height: usize,
        params: &ParticleParams,
        seed: u64,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        params.validate()?;
        let batch = (SLICE_CELLS / (params.lifespan as usize * STEP_WEIGHT)).max(1);
        Ok(ParticleErosion {
            width,
            height,
            params: *params,
            seed,
            batch,
            dropped: 0,
            dissolved: 0.0,
            deposited: 0.0,
        })
    }

    /// Particles a slice drops.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Material taken from the map so far (height units summed over samples).
    pub fn dissolved(&self) -> f64 {
        self.dissolved
    }

    /// Material given to the map so far.
    pub fn deposited(&self) -> f64 {
        self.deposited
    }

    /// Particles that have lived their lives.
    pub fn particles_done(&self) -> usize {
        self.dropped
    }
}

impl Sliced for ParticleErosion {
    fn slices(&self) -> usize {
        (self.params.particles as usize).div_ceil(self.batch)
    }

    fn slices_done(&self) -> usize {
        self.dropped.div_ceil(self.batch)
    }

    fn step(&mut self, map: &mut Heightmap) {
        if self.is_done() {
            return;
        }
        assert_map_size(map, self.width, self.height);
        let end = (self.dropped + self.batch).min(self.params.particles as usize);
        let mut sim = Simulation {
            map,
            params: &self.params,
            inv_cell: 1.0 / self.params.cell_size,
            dissolved: self.dissolved,
            deposited: self.deposited,
        };
        for index in self.dropped..end {
            let (x, y) = drop_point(self.seed, index, self.width, self.height);
            sim.live(x, y);
        }
        self.dissolved = sim.dissolved;
        self.deposited = sim.deposited;
        self.dropped = end;
    }
}

/// Where particle `index` of the run seeded `seed` starts: uniform over
/// the map, from its own generator (`TerrainRng::at(seed, index, 0)`), so
/// it depends on nothing but the seed and the index.
pub fn drop_point(seed: u64, index: usize, width: usize, height: usize) -> (f32, f32) {
    let mut rng = TerrainRng::at(seed, index as i64, 0);
    let x = rng.range(0.0, (width - 1) as f64) as f32;
    let y = rng.range(0.0, (height - 1) as f64) as f32;
    (x, y)
}

/// One slice's view of the map and the running totals.
struct Simulation<'a> {
    map: &'a mut Heightmap,
    params: &'a ParticleParams,
    inv_cell: f32,
    dissolved: f64,
    deposited: f64,
}

impl Simulation<'_> {
    /// The cell (x, y) whose two triangles hold the point, and the point's
    /// offsets in it.
    fn cell(&self, px: f32, py: f32) -> (usize, usize, f32, f32) {
        let cx = (px as usize).min(self.map.width() - 2);
        let cy = (py as usize).min(self.map.height() - 2);
        (cx, cy, px - cx as f32, py - cy as f32)
    }

    /// The two triangles of cell (cx, cy) in cell units, each wound so
    /// that `e1 × e2` points up: (a, b, d) below the diagonal a–d, (a, d, c)
    /// above it.
    fn triangles(&self, cx: usize, cy: usize) -> [[[f32; 3]; 3]; 2] {
        let w = self.map.width();
        let cells = self.map.cells();
        let j = cy * w + cx;
        let (x0, y0) = (cx as f32, cy as f32);
        let (x1, y1) = (x0 + 1.0, y0 + 1.0);
        let a = [x0, y0, cells[j] * self.inv_cell];
        let b = [x1, y0, cells[j + 1] * self.inv_cell];
        let c = [x0, y1, cells[j + w] * self.inv_cell];
        let d = [x1, y1, cells[j + w + 1] * self.inv_cell];
        [[a, b, d], [a, d, c]]
    }

    /// The surface height (cell units) at (px, py) and the upward normal of
    /// the triangle there.
    fn surface(&self, px: f32, py: f32) -> (f32, [f32; 3]) {
        let (cx, cy, fx, fy) = self.cell(px, py);
        let [lower, upper] = self.triangles(cx, cy);
        let [a, b, d] = lower;
        let c = upper[2];
        if fx >= fy {
            let z = a[2] + fx * (b[2] - a[2]) + fy * (d[2] - b[2]);
            (z, normal(lower))
        } else {
            let z = a[2] + fy * (c[2] - a[2]) + fx * (d[2] - c[2]);
            (z, normal(upper))
        }
    }

    /// One particle's life from rest on the surface at (x, y).
    fn live(&mut self, x: f32, y: f32) {
        let p = self.params;
        let (w, h) = (self.map.width(), self.map.height());
        let (x_max, y_max) = ((w - 1) as f32, (h - 1) as f32);
        let mut pos = [x, y, self.surface(x, y).0];
        let mut vel = [0.0f32; 3];
        let mut carried = 0.0f32;
        for age in 0..p.lifespan {
            vel[2] -= p.gravity;
            let across = vel[0] * vel[0] + vel[1] * vel[1];
            if across > 1.0 {
                let speed = across.sqrt();
                vel[0] /= speed;
                vel[1] /= speed;
            }
            let end = add(pos, vel);
            let (x0, x1) = (pos[0].min(end[0]), pos[0].max(end[0]));
            let (y0, y1) = (pos[1].min(end[1]), pos[1].max(end[1]));
            let (cx0, cy0, _, _) = self.cell(x0.max(0.0), y0.max(0.0));
            let (cx1, cy1, _, _) = self.cell(x1.clamp(0.0, x_max), y1.clamp(0.0, y_max));
            let mut nearest: Option<(f32, [f32; 3])> = None;
            for cy in cy0..=cy1 {
                for cx in cx0..=cx1 {
                    for triangle in self.triangles(cx, cy) {
                        if let Some(hit) = ray_triangle(pos, vel, triangle)
                            && (0.0..=1.0).contains(&hit.t)
                            && nearest.is_none_or(|(t, _)| hit.t < t)
                        {
                            nearest = Some((hit.t, normal(triangle)));
                        }
                    }
                }
            }
            let mut touching = false;
            match nearest {
                Some((t, n)) => {
                    pos = add(pos, scale(vel, t));
                    vel = respond(vel, n, p.friction);
                    touching = true;
                }
                None => pos = end,
            }
            let inside = (0.0..=x_max).contains(&pos[0]) && (0.0..=y_max).contains(&pos[1]);
            if !inside {
                pos[0] = pos[0].clamp(0.0, x_max);
                pos[1] = pos[1].clamp(0.0, y_max);
                break;
            }
            let (z, n) = self.surface(pos[0], pos[1]);
            if pos[2] < z {
                pos[2] = z;
                if !touching {
                    vel = respond(vel, n, p.friction);
                    touching = true;
                }
            }
            if touching {
                let water = (p.lifespan - age) as f32 / p.lifespan as f32;
                let capacity = p.capacity * dot(vel, vel).sqrt() * water;
                if carried < capacity {
                    let amount = p.acidity * (capacity - carried);
                    self.dissolved += self.exchange(pos, -amount);
                    carried += amount;
                } else {
                    let amount = p.deposition * (carried - capacity);
                    self.deposited += self.exchange(pos, amount);
                    carried -= amount;
                }
            }
        }
        self.deposited += self.exchange(pos, carried);
    }

    /// Adds `amount` (height units) to the 4 samples around (pos.x, pos.y)
    /// with bilinear weights; returns the magnitude actually moved.
    fn exchange(&mut self, pos: [f32; 3], amount: f32) -> f64 {
        let (cx, cy, fx, fy) = self.cell(pos[0], pos[1]);
        let w = self.map.width();
        let j = cy * w + cx;
        let weights = [
            (j, (1.0 - fx) * (1.0 - fy)),
            (j + 1, fx * (1.0 - fy)),
            (j + w, (1.0 - fx) * fy),
            (j + w + 1, fx * fy),
        ];
        let cells = self.map.cells_mut();
        let mut moved = 0.0f64;
        for (i, weight) in weights {
            let share = amount * weight;
            cells[i] += share;
            moved += f64::from(share.abs());
        }
        moved
    }
}

/// The particle's velocity after touching a surface with unit normal `n`:
/// the part into the surface removed, then `friction` of the rest.
fn respond(vel: [f32; 3], n: [f32; 3], friction: f32) -> [f32; 3] {
    let into = dot(vel, n);
    let slid = if into < 0.0 {
        sub(vel, scale(n, into))
    } else {
        vel
    };
    scale(slid, 1.0 - friction)
}

/// The unit normal `e1 × e2 / |e1 × e2|` of a triangle.
fn normal([p0, p1, p2]: [[f32; 3]; 3]) -> [f32; 3] {
    let n = cross(sub(p1, p0), sub(p2, p0));
    scale(n, 1.0 / dot(n, n).sqrt())
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: [f32; 3], k: f32) -> [f32; 3] {
    [a[0] * k, a[1] * k, a[2] * k]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::diamond_square::diamond_square;

    fn bits(map: &Heightmap) -> Vec<u32> {
        map.cells().iter().map(|h| h.to_bits()).collect()
    }

    fn total(map: &Heightmap) -> f64 {
        map.cells().iter().map(|&h| f64::from(h)).sum()
    }

    fn params(particles: u32) -> ParticleParams {
        ParticleParams {
            particles,
            ..ParticleParams::default()
        }
    }

    const FLAT: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

    #[test]
    fn moller_trumbore_hits_a_triangle_under_the_ray() {
        let hit = ray_triangle([0.25, 0.25, 2.0], [0.0, 0.0, -1.0], FLAT).unwrap();
        assert_eq!(
            hit,
            RayHit {
                t: 2.0,
                u: 0.25,
                v: 0.25
            }
        );
        // From below, and with an unnormalised direction.
        let hit = ray_triangle([0.5, 0.25, -1.0], [0.0, 0.0, 4.0], FLAT).unwrap();
        assert_eq!((hit.t, hit.u, hit.v), (0.25, 0.5, 0.25));
        // A slanted triangle: the plane z = x through (0,0,0), (1,0,1), (0,1,0).
        let slanted = [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]];
        let hit = ray_triangle([0.5, 0.25, 3.0], [0.0, 0.0, -1.0], slanted).unwrap();
        assert_eq!(hit.t, 2.5);
    }

    #[test]
    fn moller_trumbore_misses_beside_the_triangle() {
        assert_eq!(
            ray_triangle([0.75, 0.75, 1.0], [0.0, 0.0, -1.0], FLAT),
            None
        );
        assert_eq!(ray_triangle([-0.1, 0.5, 1.0], [0.0, 0.0, -1.0], FLAT), None);
        // Behind the origin: the hit is reported with t < 0, callers check t.
        let behind = ray_triangle([0.2, 0.2, -1.0], [0.0, 0.0, -1.0], FLAT).unwrap();
        assert_eq!(behind.t, -1.0);
    }

    #[test]
    fn moller_trumbore_counts_edges_and_corners_as_hits() {
        let edge = ray_triangle([0.5, 0.5, 1.0], [0.0, 0.0, -1.0], FLAT).unwrap();
        assert_eq!((edge.u, edge.v, edge.u + edge.v), (0.5, 0.5, 1.0));
        let side = ray_triangle([0.5, 0.0, 1.0], [0.0, 0.0, -1.0], FLAT).unwrap();
        assert_eq!(side.v, 0.0);
        let corner = ray_triangle([0.0, 0.0, 1.0], [0.0, 0.0, -1.0], FLAT).unwrap();
        assert_eq!((corner.t, corner.u, corner.v), (1.0, 0.0, 0.0));
    }

    #[test]
    fn moller_trumbore_ignores_a_ray_parallel_to_the_plane() {
        assert_eq!(ray_triangle([0.2, 0.2, 0.0], [1.0, 0.0, 0.0], FLAT), None);
        assert_eq!(ray_triangle([0.2, 0.2, 1.0], [0.0, 1.0, 0.0], FLAT), None);
        assert_eq!(ray_triangle([0.2, 0.2, 1.0], [0.0, 0.0, 0.0], FLAT), None);
    }

    /// The particles written the plain way: one loop over all particles,
    /// (x, y) indices, the geometry spelled out, in the engine's arithmetic;
    /// only the ray–triangle test (unit-tested above) is shared. Returns
    /// (dissolved, deposited).
    fn reference(map: &mut Heightmap, p: &ParticleParams, seed: u64) -> (f64, f64) {
        let (w, h) = (map.width(), map.height());
        let inv = 1.0 / p.cell_size;
        let (mut dissolved, mut deposited) = (0.0f64, 0.0f64);
        let unit = |n: [f32; 3]| {
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            [n[0] * (1.0 / len), n[1] * (1.0 / len), n[2] * (1.0 / len)]
        };
        let tri_normal = |t: [[f32; 3]; 3]| {
            let e1 = [t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]];
            let e2 = [t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]];
            unit([
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ])
        };
        let corner = |m: &Heightmap, x: usize, y: usize| [x as f32, y as f32, m.get(x, y) * inv];
        let tris = |m: &Heightmap, cx: usize, cy: usize| {
            let (a, b) = (corner(m, cx, cy), corner(m, cx + 1, cy));
            let (c, d) = (corner(m, cx, cy + 1), corner(m, cx + 1, cy + 1));
            [[a, b, d], [a, d, c]]
        };
        let cell = |x: f32, y: f32| {
            let cx = (x.floor() as usize).min(w - 2);
            let cy = (y.floor() as usize).min(h - 2);
            (cx, cy, x - cx as f32, y - cy as f32)
        };
        let respond = |v: [f32; 3], n: [f32; 3]| {
            let into = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
            let v = if into < 0.0 {
                [v[0] - n[0] * into, v[1] - n[1] * into, v[2] - n[2] * into]
            } else {
                v
            };
            let keep = 1.0 - p.friction;
            [v[0] * keep, v[1] * keep, v[2] * keep]
        };
        let exchange = |m: &mut Heightmap, pos: [f32; 3], amount: f32| {
            let (cx, cy, fx, fy) = cell(pos[0], pos[1]);
            let mut moved = 0.0f64;
            for (x, y, weight) in [
                (cx, cy, (1.0 - fx) * (1.0 - fy)),
                (cx + 1, cy, fx * (1.0 - fy)),
                (cx, cy + 1, (1.0 - fx) * fy),
                (cx + 1, cy + 1, fx * fy),
            ] {
                let share = amount * weight;
                m.set(x, y, m.get(x, y) + share);
                moved += f64::from(share.abs());
            }
            moved
        };
        let surface = |m: &Heightmap, x: f32, y: f32| {
            let (cx, cy, fx, fy) = cell(x, y);
            let [lower, upper] = tris(m, cx, cy);
            let (za, zb, zc, zd) = (lower[0][2], lower[1][2], upper[2][2], lower[2][2]);
            if fx >= fy {
                (za + fx * (zb - za) + fy * (zd - zb), tri_normal(lower))
            } else {
                (za + fy * (zc - za) + fx * (zd - zc), tri_normal(upper))
            }
        };
        for index in 0..p.particles as usize {
            let mut rng = TerrainRng::at(seed, index as i64, 0);
            let x = rng.range(0.0, (w - 1) as f64) as f32;
            let y = rng.range(0.0, (h - 1) as f64) as f32;
            let mut pos = [x, y, surface(map, x, y).0];
            let mut vel = [0.0f32; 3];
            let mut carried = 0.0f32;
            for age in 0..p.lifespan {
                vel[2] -= p.gravity;
                let across = vel[0] * vel[0] + vel[1] * vel[1];
                if across > 1.0 {
                    let speed = across.sqrt();
                    vel = [vel[0] / speed, vel[1] / speed, vel[2]];
                }
                let end = [pos[0] + vel[0], pos[1] + vel[1], pos[2] + vel[2]];
                let lo = cell(pos[0].min(end[0]).max(0.0), pos[1].min(end[1]).max(0.0));
                let hi = cell(
                    pos[0].max(end[0]).clamp(0.0, (w - 1) as f32),
                    pos[1].max(end[1]).clamp(0.0, (h - 1) as f32),
                );
                let mut best: Option<(f32, [f32; 3])> = None;
                for cy in lo.1..=hi.1 {
                    for cx in lo.0..=hi.0 {
                        for t in tris(map, cx, cy) {
                            if let Some(hit) = ray_triangle(pos, vel, t)
                                && hit.t >= 0.0
                                && hit.t <= 1.0
                                && best.is_none_or(|b| hit.t < b.0)
                            {
                                best = Some((hit.t, tri_normal(t)));
                            }
                        }
                    }
                }
                let mut touching = false;
                if let Some((t, n)) = best {
                    pos = [
                        pos[0] + vel[0] * t,
                        pos[1] + vel[1] * t,
                        pos[2] + vel[2] * t,
                    ];
                    vel = respond(vel, n);
                    touching = true;
                } else {
                    pos = end;
                }
                let (xm, ym) = ((w - 1) as f32, (h - 1) as f32);
                if pos[0] < 0.0 || pos[0] > xm || pos[1] < 0.0 || pos[1] > ym {
                    pos = [pos[0].clamp(0.0, xm), pos[1].clamp(0.0, ym), pos[2]];
                    break;
                }
                let (z, n) = surface(map, pos[0], pos[1]);
                if pos[2] < z {
                    pos[2] = z;
                    if !touching {
                        vel = respond(vel, n);
                        touching = true;
                    }
                }
                if touching {
                    let water = (p.lifespan - age) as f32 / p.lifespan as f32;
                    let speed = (vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]).sqrt();
                    let capacity = p.capacity * speed * water;
                    if carried < capacity {
                        let amount = p.acidity * (capacity - carried);
                        dissolved += exchange(map, pos, -amount);
                        carried += amount;
                    } else {
                        let amount = p.deposition * (carried - capacity);
                        deposited += exchange(map, pos, amount);
                        carried -= amount;
                    }
                }
            }
            deposited += exchange(map, pos, carried);
        }
        (dissolved, deposited)
    }

    fn start_maps() -> Vec<Heightmap> {
        [(2, 2, 1), (3, 2, 2), (20, 33, 3), (65, 40, 4), (100, 7, 5)]
            .into_iter()
            .map(|(w, h, seed)| {
                let mut map = diamond_square(w, h, 1.0, seed).unwrap();
                for y in 0..h {
                    for x in 0..w {
                        map.set(x, y, map.get(x, y) + 0.003 * x as f32 + 0.002 * y as f32);
                    }
                }
                map
            })
            .collect()
    }

    fn step_to_end(job: &mut ParticleErosion, map: &mut Heightmap) {
        let left = job.slices() - job.slices_done();
        let mut stepped = 0;
        while !job.is_done() {
            job.step(map);
            stepped += 1;
            assert!(map.cells().iter().all(|h| h.is_finite()));
            assert_eq!(
                job.particles_done(),
                (stepped * job.batch()).min(job.params.particles as usize)
            );
        }
        assert_eq!(stepped, left);
        let end = map.clone();
        job.step(map);
        assert_eq!(bits(map), bits(&end));
    }

    #[test]
    fn the_job_is_the_plain_loop_bit_for_bit() {
        let cases = [
            ParticleParams {
                lifespan: 300,
                ..params(700)
            },
            ParticleParams {
                particles: 800,
                lifespan: 20,
                capacity: 0.5,
                acidity: 1.0,
                deposition: 1.0,
                gravity: 2.0,
                friction: 0.0,
                cell_size: 0.1,
            },
        ];
        for start in start_maps() {
            for p in &cases {
                let mut expected = start.clone();
                let (dissolved, deposited) = reference(&mut expected, p, 7);
                let mut job = ParticleErosion::new(start.width(), start.height(), p, 7).unwrap();
                assert!(job.slices() > 1, "several batches");
                let mut sliced = start.clone();
                step_to_end(&mut job, &mut sliced);
                assert_eq!(bits(&sliced), bits(&expected), "{p:?}");
                assert_eq!((job.dissolved(), job.deposited()), (dissolved, deposited));
                let mut whole = start.clone();
                particles(&mut whole, p, 7).unwrap();
                assert_eq!(bits(&whole), bits(&expected));
                assert_ne!(bits(&whole), bits(&start), "the terrain changed");
            }
        }
    }

    #[test]
    fn on_257x257_the_job_is_the_plain_loop_and_slices_are_exact() {
        let start = diamond_square(257, 257, 1.0, 9).unwrap();
        let p = params(2000);
        let mut expected = start.clone();
        reference(&mut expected, &p, 3);
        let mut job = ParticleErosion::new(257, 257, &p, 3).unwrap();
        assert_eq!(job.batch(), SLICE_CELLS / (48 * STEP_WEIGHT));
        assert_eq!(job.slices(), 2000usize.div_ceil(job.batch()));
        let mut sliced = start;
        step_to_end(&mut job, &mut sliced);
        assert_eq!(bits(&sliced), bits(&expected));
    }

    #[test]
    fn material_dissolved_is_deposited() {
        // Every particle dies inside its slice and leaves its load, so at the
        // end nothing is carried: dissolved = deposited, and the sum of
        // heights is unchanged, up to rounding (each exchange rounds 4
        // shares and 4 additions; the bound allows 16 roundings of
        // magnitude ≤ 4 per particle step).
        let start = diamond_square(65, 65, 1.0, 11).unwrap();
        let p = params(3000);
        let mut map = start.clone();
        let mut job = ParticleErosion::new(65, 65, &p, 5).unwrap();
        step_to_end(&mut job, &mut map);
        let steps = f64::from(p.particles) * f64::from(p.lifespan);
        let bound = steps * 16.0 * 4.0 * f64::from(f32::EPSILON);
        assert!(job.dissolved() > 0.1, "{}", job.dissolved());
        assert!((job.dissolved() - job.deposited()).abs() < bound);
        assert!((total(&map) - total(&start)).abs() < bound);
    }

    #[test]
    fn it_lowers_peaks_and_fills_valleys() {
        let start = diamond_square(65, 65, 1.0, 11).unwrap();
        let mut map = start.clone();
        particles(&mut map, &params(20_000), 1).unwrap();
        let (lo0, hi0) = start.min_max();
        let (lo1, hi1) = map.min_max();
        assert!(hi1 < hi0 - 0.01, "peak {hi0} -> {hi1}");
        assert!(lo1 > lo0 + 0.01, "valley {lo0} -> {lo1}");
    }

    #[test]
    fn runs_are_deterministic_and_seeded() {
        let start = diamond_square(40, 31, 1.0, 2).unwrap();
        let (mut a, mut b, mut c) = (start.clone(), start.clone(), start);
        particles(&mut a, &params(500), 1).unwrap();
        particles(&mut b, &params(500), 1).unwrap();
        particles(&mut c, &params(500), 2).unwrap();
        assert_eq!(bits(&a), bits(&b));
        assert_ne!(bits(&a), bits(&c));
    }

    #[test]
    fn a_2x2_map_and_no_particles_do_not_panic() {
        let mut map = Heightmap::from_cells(2, 2, vec![1.0, 0.0, 0.5, 0.0]).unwrap();
        particles(&mut map, &params(100), 3).unwrap();
        assert!(map.cells().iter().all(|h| h.is_finite()));
        let mut none = ParticleErosion::new(2, 2, &params(0), 3).unwrap();
        assert_eq!(none.slices(), 0);
        assert!(none.is_done());
        let before = map.clone();
        none.step(&mut map);
        assert_eq!(map, before);
    }

    #[test]
    fn out_of_range_parameters_are_one_line_errors() {
        let d = ParticleParams::default();
        let cases = [
            (
                ParticleParams {
                    particles: MAX_PARTICLES + 1,
                    ..d
                },
                "particles",
            ),
            (ParticleParams { lifespan: 0, ..d }, "lifespan"),
            (
                ParticleParams {
                    lifespan: MAX_LIFESPAN + 1,
                    ..d
                },
                "lifespan",
            ),
            (
                ParticleParams {
                    capacity: -1.0,
                    ..d
                },
                "capacity",
            ),
            (ParticleParams { acidity: 1.5, ..d }, "acidity"),
            (
                ParticleParams {
                    deposition: f32::NAN,
                    ..d
                },
                "deposition",
            ),
            (ParticleParams { gravity: 0.0, ..d }, "gravity"),
            (
                ParticleParams {
                    friction: -0.5,
                    ..d
                },
                "friction",
            ),
            (
                ParticleParams {
                    cell_size: f32::INFINITY,
                    ..d
                },
                "cell_size",
            ),
        ];
        let mut map = Heightmap::flat(4, 4).unwrap();
        for (p, name) in cases {
            let message = particles(&mut map, &p, 1).unwrap_err().to_string();
            assert!(message.starts_with(name), "{message}");
            assert!(!message.contains('\n'));
        }
        assert!(ParticleErosion::new(4, 1, &d, 1).is_err());
        assert_eq!(map, Heightmap::flat(4, 4).unwrap());
    }
}
