//! Tectonic plates (Fritz, "Procedural Generation of Mountain Ranges Based on Geology", 2016, §3.6): the square split into convex plates that drift, pushed by kinematic beams, and collide in a rapier2d world; mountain ranges rise where they meet.
//!
//! The thesis splits a big square a number of times into convex plates
//! (Box2D polygons), keeps them moving with kinematic beams around the
//! square, and on every collision between two plates that has exactly two
//! contact points draws a line between the points onto the heightmap:
//! an RMP round (its Voronoi variant, [`super::rmp`]) then raises every
//! map cell whose Voronoi cell a Bresenham walk along that line passes
//! through. Repeated collisions grow ranges along the plates' meeting lines.
//!
//! Here the physics is rapier2d's (the Box2D of Rust), built with its
//! `enhanced-determinism` feature, stepped at a fixed 1/60 s, with no
//! gravity; the seeded choices (the cuts, each plate's drift, the beams'
//! rhythm, the Voronoi sites) all come from [`TerrainRng`]. Each step:
//!
//! 1. the four beams move to their next place on a triangle wave (inward
//!    by up to [`BEAM_REACH`] of the side and back), pushing what they meet;
//! 2. every plate is pulled along its own seeded direction (the magma
//!    underneath: a constant force against linear damping, so a free plate
//!    drifts at `drift` sides a second);
//! 3. rapier steps; the contact manifolds between two plates that press on
//!    each other (a positive normal impulse) with two points each give one
//!    collision line, with a strength: the pair's impulse as a share of the
//!    step's hardest, rounded up to eighths (so converging plates raise
//!    more than plates sliding past each other);
//! 4. `cones` Voronoi sites are scattered over the map, the collision lines
//!    walked in map cells, and the cells of every site a line passed
//!    through raised by `uplift` times the strongest such line's strength
//!    (one union for the step: a cell is raised at most once a step).
//!
//! A cell's height is `uplift / 8 · (the eighths it was raised by)`,
//! counted in integers, so the order of raising cannot change a bit. The
//! uplift's row runs are RMP's exact integer Voronoi clipping; the tests
//! compare the whole rasterisation with a plain per-cell nearest-site
//! search over the collision lines the physics recorded.
use libm::{cos, sin};
use rapier2d::prelude::{
    ColliderBuilder, ColliderHandle, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle, Vector,
};

use super::error::TerrainError;
use super::heightmap::{Heightmap, check_size};
use super::rmp::Cell;
use super::rng::{TerrainRng, mix};
use super::sliced::{Sliced, assert_map_size, rows_per_band};

/// Largest [`PlatesParams::plates`].
pub const MAX_PLATES: u32 = 32;
/// Largest [`PlatesParams::steps`].
pub const MAX_STEPS: u32 = 10_000;
/// Largest [`PlatesParams::cones`]: a step builds the Voronoi cell of
/// every site a collision touches, each against all the others, so the
/// cones bound a step's cost (docs/performance.md).
pub const MAX_CONES: u32 = 256;
/// Largest [`PlatesParams::uplift`].
pub const MAX_UPLIFT: f32 = 1.0e3;
/// Largest [`PlatesParams::drift`].
pub const MAX_DRIFT: f32 = 1.0;

/// The square's side in physics units: rapier's contact tolerances are
/// tuned for bodies of about a unit to tens of units.
pub const SIDE: f32 = 10.0;
/// The fixed physics step, seconds: one app frame at 60 Hz.
pub const DT: f32 = 1.0 / 60.0;
/// How far a beam pushes in at the crest of its wave, as a share of the side.
pub const BEAM_REACH: f32 = 0.04;
/// Each plate is shrunk this much about its centroid, so the plates start
/// a little apart and meet by drifting, not all at once.
const SHRINK: f64 = 0.98;
/// Linear and angular damping of a plate, per second: the drag of the
/// mantle, which makes a steady pull a steady drift.
const DAMPING: f32 = 1.0;
/// Half the thickness of a beam, physics units.
const BEAM_HALF_THICKNESS: f32 = 0.5;
/// The beams' wave periods are drawn in this range of steps (2–6 s).
const BEAM_PERIODS: (u64, u64) = (120, 360);
/// The smallest share of a plate either piece of a cut may keep: no slivers.
const MIN_PIECE: f64 = 0.2;
/// Tries of a seeded cut before cutting through the centroid, which
/// always leaves each piece at least 4/9 of a convex plate.
const CUT_TRIES: usize = 8;
/// Levels of a collision's strength: its share of the step's hardest push,
/// rounded up to eighths, so uplift adds whole numbers.
pub const STRENGTH_LEVELS: u32 = 8;
/// The stream of the uplift's Voronoi sites, apart from the layout's, so
/// that the sites do not depend on how many draws the layout took.
const UPLIFT_STREAM: u64 = 0x504c_4154_4553;

/// Parameters of [`plates`] and [`PlatesGrowth`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlatesParams {
    /// Plates the square is split into; `2..=32`, default 8.
    pub plates: u32,
    /// Physics steps of 1/60 s, each raising the step's collision zones;
    /// `1..=10000`, default 600 (10 s of drift).
    pub steps: u32,
    /// Voronoi sites scattered over the map each step: the fewer, the
    /// wider a range; `2..=256`, default 160.
    pub cones: u32,
    /// The height one step's collision raises its cells by, terrain units;
    /// `0..=1000`, default 0.0005.
    pub uplift: f32,
    /// How fast a free plate drifts, sides of the square per second;
    /// `0..=1`, default 0.05.
    pub drift: f32,
}

impl Default for PlatesParams {
    fn default() -> Self {
        PlatesParams {
            plates: 8,
            steps: 600,
            cones: 160,
            uplift: 0.0005,
            drift: 0.05,
        }
    }
}

impl PlatesParams {
    /// Checks every parameter's range; the error names the first one out of range.
    pub fn validate(&self) -> Result<(), TerrainError> {
        if !(2..=MAX_PLATES).contains(&self.plates) {
            return Err(TerrainError::out_of_range(
                "plates",
                self.plates,
                "2 <= plates <= 32",
            ));
        }
        if !(1..=MAX_STEPS).contains(&self.steps) {
            return Err(TerrainError::out_of_range(
                "steps",
                self.steps,
                "1 <= steps <= 10000",
            ));
        }
        if !(2..=MAX_CONES).contains(&self.cones) {
            return Err(TerrainError::out_of_range(
                "cones",
                self.cones,
                "2 <= cones <= 256",
            ));
        }
        if !(0.0..=MAX_UPLIFT).contains(&self.uplift) {
            return Err(TerrainError::out_of_range(
                "uplift",
                self.uplift,
                "0 <= uplift <= 1000",
            ));
        }
        if !(0.0..=MAX_DRIFT).contains(&self.drift) {
            return Err(TerrainError::out_of_range(
                "drift",
                self.drift,
                "0 <= drift <= 1",
            ));
        }
        Ok(())
    }
}

/// A plates heightmap of `width × height` samples, starting flat at 0: the
/// [module](self)'s algorithm. This is [`PlatesGrowth`] run to the end.
pub fn plates(
    width: usize,
    height: usize,
    params: &PlatesParams,
    seed: u64,
) -> Result<Heightmap, TerrainError> {
    let mut growth = PlatesGrowth::new(width, height, params, seed)?;
    let mut map = Heightmap::flat(width, height)?;
    growth.run_to_end(&mut map);
    Ok(map)
}

/// A convex polygon's corners, counter-clockwise, physics units.
pub type Polygon = Vec<[f64; 2]>;

/// The signed area of `polygon` (positive counter-clockwise).
pub fn area(polygon: &[[f64; 2]]) -> f64 {
    let n = polygon.len();
    (0..n)
        .map(|i| {
            let (p, q) = (polygon[i], polygon[(i + 1) % n]);
            p[0] * q[1] - q[0] * p[1]
        })
        .sum::<f64>()
        / 2.0
}

/// The centroid of `polygon` (of its area).
fn centroid(polygon: &[[f64; 2]]) -> [f64; 2] {
    let n = polygon.len();
    let (mut cx, mut cy) = (0.0, 0.0);
    for i in 0..n {
        let (p, q) = (polygon[i], polygon[(i + 1) % n]);
        let cross = p[0] * q[1] - q[0] * p[1];
        cx += (p[0] + q[0]) * cross;
        cy += (p[1] + q[1]) * cross;
    }
    let six_area = 6.0 * area(polygon);
    [cx / six_area, cy / six_area]
}

/// `polygon` cut by the line through `at` along `direction`: the pieces
/// on its left and on its right. Each is the polygon's intersection with
/// a half-plane, so both stay convex (the thesis sorts corners by their
/// angle about the cut's middle, listing 3.2; for a convex polygon the
/// side of the line is the same partition, from one sign each).
fn cut(polygon: &[[f64; 2]], at: [f64; 2], direction: [f64; 2]) -> (Polygon, Polygon) {
    let side = |p: [f64; 2]| direction[0] * (p[1] - at[1]) - direction[1] * (p[0] - at[0]);
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let n = polygon.len();
    for i in 0..n {
        let (p, q) = (polygon[i], polygon[(i + 1) % n]);
        let (sp, sq) = (side(p), side(q));
        if sp >= 0.0 {
            left.push(p);
        }
        if sp <= 0.0 {
            right.push(p);
        }
        if (sp > 0.0 && sq < 0.0) || (sp < 0.0 && sq > 0.0) {
            let t = sp / (sp - sq);
            let x = [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])];
            left.push(x);
            right.push(x);
        }
    }
    (left, right)
}

/// The square `[0, SIDE]²` split into `plates` convex plates: each cut
/// halves the largest plate (the first of equals) along a seeded line near
/// its centroid, never leaving a piece under a fifth of it.
pub fn split_square(plates: u32, rng: &mut TerrainRng) -> Vec<Polygon> {
    let s = f64::from(SIDE);
    let mut pieces: Vec<Polygon> = vec![vec![[0.0, 0.0], [s, 0.0], [s, s], [0.0, s]]];
    while pieces.len() < plates as usize {
        let largest = (0..pieces.len()).fold(0, |best, i| {
            if area(&pieces[i]) > area(&pieces[best]) {
                i
            } else {
                best
            }
        });
        let plate = pieces.swap_remove(largest);
        let whole = area(&plate);
        let middle = centroid(&plate);
        let reach = whole.sqrt() * 0.3;
        let mut halves = None;
        for attempt in 0..=CUT_TRIES {
            let angle = rng.range(0.0, std::f64::consts::PI);
            let (dx, dy) = (rng.range(-reach, reach), rng.range(-reach, reach));
            // The last try cuts through the centroid itself.
            let at = if attempt == CUT_TRIES {
                middle
            } else {
                [middle[0] + dx, middle[1] + dy]
            };
            let (left, right) = cut(&plate, at, [cos(angle), sin(angle)]);
            let smaller = area(&left).min(area(&right));
            if left.len() >= 3 && right.len() >= 3 && smaller >= MIN_PIECE * whole {
                halves = Some((left, right));
                break;
            }
        }
        let (left, right) = halves.expect("a cut through the centroid leaves 4/9 each side");
        // The left piece takes the cut plate's place and the right one
        // goes last, so the other plates keep their indices.
        let last = pieces.len();
        pieces.push(left);
        pieces.push(right);
        pieces.swap(largest, last);
    }
    pieces
}

/// One collision line of a physics step: two plates' contact manifold
/// with two points, in physics units, while they press on each other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collision {
    /// The two plates, by index, the lower first.
    pub plates: (usize, usize),
    /// The two contact points (on the first collider's surface).
    pub ends: [[f32; 2]; 2],
    /// How hard they press: the pair's normal impulse this step as a share
    /// of the step's hardest pair's, rounded up to
    /// 1..=[`STRENGTH_LEVELS`].
    pub strength: u32,
}

/// A kinematic beam along one side of the square.
#[derive(Clone)]
struct Beam {
    body: RigidBodyHandle,
    /// Where it rests, just outside the square.
    rest: [f32; 2],
    /// The unit step inward.
    inward: [f32; 2],
    /// Its wave's period and phase, in steps.
    period: u64,
    phase: u64,
}

/// The plates' physics: a rapier world with one dynamic body per plate and
/// the four kinematic beams.
struct Tectonics {
    world: PhysicsWorld,
    plates: Vec<RigidBodyHandle>,
    /// Each plate's pull, physics force units.
    pulls: Vec<[f32; 2]>,
    beams: Vec<Beam>,
    /// Steps done.
    steps: u64,
    /// The last step's collisions, ordered by plates and then points.
    collisions: Vec<Collision>,
}

impl Clone for Tectonics {
    /// The bodies, colliders, contacts and islands as they stand, with new
    /// pipelines: rapier's pipelines and CCD solver hold only per-step
    /// workspace, so the copy steps on to the same bits (a test in
    /// `recipe_growth` grows a copy taken mid-way to the end).
    fn clone(&self) -> Self {
        let world = &self.world;
        let mut copy = PhysicsWorld::new();
        copy.gravity = world.gravity;
        copy.integration_parameters = world.integration_parameters;
        copy.islands = world.islands.clone();
        copy.broad_phase = world.broad_phase.clone();
        copy.narrow_phase = world.narrow_phase.clone();
        copy.bodies = world.bodies.clone();
        copy.colliders = world.colliders.clone();
        copy.impulse_joints = world.impulse_joints.clone();
        copy.multibody_joints = world.multibody_joints.clone();
        copy.soft_bodies = world.soft_bodies.clone();
        Tectonics {
            world: copy,
            plates: self.plates.clone(),
            pulls: self.pulls.clone(),
            beams: self.beams.clone(),
            steps: self.steps,
            collisions: self.collisions.clone(),
        }
    }
}

impl Tectonics {
    /// The seeded layout in a fresh world.
    fn new(params: &PlatesParams, rng: &mut TerrainRng) -> Self {
        let mut world = PhysicsWorld::new();
        world.gravity = Vector::ZERO;
        world.integration_parameters.dt = DT;
        let mut plates = Vec::new();
        let mut pulls = Vec::new();
        for (index, polygon) in split_square(params.plates, rng).into_iter().enumerate() {
            let [cx, cy] = centroid(&polygon);
            let corners: Vec<Vector> = polygon
                .iter()
                .map(|&[x, y]| Vector::new(((x - cx) * SHRINK) as f32, ((y - cy) * SHRINK) as f32))
                .collect();
            let collider = ColliderBuilder::convex_hull(&corners)
                .expect("a plate has area")
                .friction(0.5)
                .restitution(0.0)
                .user_data(index as u128 + 1);
            let body = RigidBodyBuilder::dynamic()
                .translation(Vector::new(cx as f32, cy as f32))
                .linear_damping(DAMPING)
                .angular_damping(DAMPING)
                .can_sleep(false);
            let (handle, _) = world.insert(body, collider);
            let angle = rng.range(0.0, 2.0 * std::f64::consts::PI);
            // Force = mass · damping · speed: a free plate's terminal drift.
            let strength = world.bodies[handle].mass() * DAMPING * params.drift * SIDE;
            pulls.push([
                (cos(angle) as f32) * strength,
                (sin(angle) as f32) * strength,
            ]);
            plates.push(handle);
        }
        let half = BEAM_HALF_THICKNESS;
        let long = SIDE / 2.0 + 2.0 * half;
        let sides = [
            ([-half, SIDE / 2.0], [1.0, 0.0], (half, long)),
            ([SIDE + half, SIDE / 2.0], [-1.0, 0.0], (half, long)),
            ([SIDE / 2.0, -half], [0.0, 1.0], (long, half)),
            ([SIDE / 2.0, SIDE + half], [0.0, -1.0], (long, half)),
        ];
        let mut beams = Vec::new();
        for (rest, inward, (hx, hy)) in sides {
            let body = RigidBodyBuilder::kinematic_position_based()
                .translation(Vector::new(rest[0], rest[1]));
            let (handle, _) = world.insert(body, ColliderBuilder::cuboid(hx, hy).user_data(0));
            let period = BEAM_PERIODS.0 + rng.below(BEAM_PERIODS.1 - BEAM_PERIODS.0 + 1);
            let phase = rng.below(period);
            beams.push(Beam {
                body: handle,
                rest,
                inward,
                period,
                phase,
            });
        }
        Tectonics {
            world,
            plates,
            pulls,
            beams,
            steps: 0,
            collisions: Vec::new(),
        }
    }

    /// The plate a collider belongs to, if it is a plate's.
    fn plate_of(&self, collider: ColliderHandle) -> Option<usize> {
        let data = self.world.colliders.get(collider)?.user_data;
        (data > 0).then(|| (data - 1) as usize)
    }

    /// One fixed step; the collisions are then in `self.collisions`.
    fn step(&mut self) {
        for beam in &self.beams {
            // A triangle wave 0 → 1 → 0 over the period, from whole steps.
            let t = ((self.steps + beam.phase) % beam.period) as f32 / beam.period as f32;
            let push = (1.0 - (2.0 * t - 1.0).abs()) * BEAM_REACH * SIDE;
            let place = Vector::new(
                beam.rest[0] + beam.inward[0] * push,
                beam.rest[1] + beam.inward[1] * push,
            );
            self.world.bodies[beam.body].set_next_kinematic_translation(place);
        }
        for (&plate, &[fx, fy]) in self.plates.iter().zip(&self.pulls) {
            let body = &mut self.world.bodies[plate];
            body.reset_forces(false);
            body.add_force(Vector::new(fx, fy), true);
        }
        self.world.step();
        self.steps += 1;
        let mut collisions = std::mem::take(&mut self.collisions);
        collisions.clear();
        let mut pushes = Vec::new();
        for pair in self.world.narrow_phase.contact_pairs() {
            let (Some(a), Some(b)) = (self.plate_of(pair.collider1), self.plate_of(pair.collider2))
            else {
                continue;
            };
            // Plates that touch without pressing on each other raise nothing.
            let push: f32 = pair
                .solver_manifolds()
                .iter()
                .flat_map(|manifold| &manifold.points)
                .map(|point| point.data.impulse)
                .sum();
            if !pair.has_any_active_contact() || push.is_nan() || push <= 0.0 {
                continue;
            }
            let pose = self.world.colliders[pair.collider1].position();
            for manifold in pair.manifolds() {
                // The thesis keeps only collisions with exactly two points.
                if manifold.points.len() != 2 {
                    continue;
                }
                let end = |i: usize| {
                    let p = pose.transform_point(manifold.points[i].local_p1);
                    [p.x, p.y]
                };
                collisions.push(Collision {
                    plates: (a.min(b), a.max(b)),
                    ends: [end(0), end(1)],
                    strength: 0,
                });
                pushes.push(push);
            }
        }
        let hardest = pushes.iter().copied().fold(0.0, f32::max);
        for (collision, push) in collisions.iter_mut().zip(pushes) {
            let share = (push / hardest * STRENGTH_LEVELS as f32).ceil();
            collision.strength = (share as u32).clamp(1, STRENGTH_LEVELS);
        }
        // The uplift is a union and does not depend on this order; the
        // record that tests and tools read does.
        collisions.sort_by(|p, q| {
            let key = |c: &Collision| (c.plates, c.ends.map(|e| e.map(f32::to_bits)), c.strength);
            key(p).cmp(&key(q))
        });
        self.collisions = collisions;
    }

    /// Every plate's corners where it is now, physics units.
    fn outlines(&self) -> Vec<Vec<[f32; 2]>> {
        self.plates
            .iter()
            .map(|&plate| {
                let body = &self.world.bodies[plate];
                let collider = body.colliders()[0];
                let pose = self.world.colliders[collider].position();
                let polygon = self.world.colliders[collider]
                    .shape()
                    .as_convex_polygon()
                    .expect("a plate is a convex polygon");
                polygon
                    .points()
                    .iter()
                    .map(|&p| {
                        let q = pose.transform_point(p);
                        [q.x, q.y]
                    })
                    .collect()
            })
            .collect()
    }
}

/// The map cell `(x, y)` of a physics point: the square `[0, SIDE]²`
/// stretched over the map, rounded to the nearest cell and kept on it.
pub fn to_cell(point: [f32; 2], width: usize, height: usize) -> (i64, i64) {
    let along = |v: f32, cells: usize| {
        let cell = (v / SIDE * (cells - 1) as f32).round();
        (cell.max(0.0) as i64).min(cells as i64 - 1)
    };
    (along(point[0], width), along(point[1], height))
}

/// Calls `visit` with every cell of Bresenham's line from `a` to `b`,
/// both ends included, in order from `a`.
pub fn bresenham(a: (i64, i64), b: (i64, i64), mut visit: impl FnMut((i64, i64))) {
    let (dx, dy) = ((b.0 - a.0).abs(), -(b.1 - a.1).abs());
    let (sx, sy) = ((b.0 - a.0).signum(), (b.1 - a.1).signum());
    let (mut x, mut y) = a;
    let mut error = dx + dy;
    loop {
        visit((x, y));
        if (x, y) == b {
            return;
        }
        let twice = 2 * error;
        if twice >= dy {
            error += dy;
            x += sx;
        }
        if twice <= dx {
            error += dx;
            y += sy;
        }
    }
}

/// The Voronoi sites of one step binned into square buckets, so the
/// nearest site of a cell is found among a few buckets rather than all.
#[derive(Clone)]
struct SiteGrid {
    /// A bucket's side in cells, and buckets across and down.
    side: i64,
    across: i64,
    down: i64,
    /// Bucket `b` holds `items[starts[b]..starts[b + 1]]`, site indices ascending.
    starts: Vec<usize>,
    items: Vec<usize>,
}

impl SiteGrid {
    /// Buckets for `sites` sites over a `width`×`height` map: about one site a bucket.
    fn new(width: usize, height: usize, sites: usize) -> Self {
        let cells = (width * height) as f64;
        let side = ((cells / sites.max(1) as f64).sqrt().ceil() as usize).max(1);
        SiteGrid {
            side: side as i64,
            across: width.div_ceil(side) as i64,
            down: height.div_ceil(side) as i64,
            starts: Vec::new(),
            items: Vec::new(),
        }
    }

    /// Bins `sites` (counting sort by bucket keeps each bucket ascending).
    fn fill(&mut self, sites: &[(i64, i64)]) {
        let buckets = (self.across * self.down) as usize;
        self.starts.clear();
        self.starts.resize(buckets + 1, 0);
        let bucket =
            |&(x, y): &(i64, i64)| ((y / self.side) * self.across + x / self.side) as usize;
        for site in sites {
            self.starts[bucket(site) + 1] += 1;
        }
        for b in 0..buckets {
            self.starts[b + 1] += self.starts[b];
        }
        let mut next = self.starts.clone();
        self.items.clear();
        self.items.resize(sites.len(), 0);
        for (index, site) in sites.iter().enumerate() {
            let b = bucket(site);
            self.items[next[b]] = index;
            next[b] += 1;
        }
    }

    /// The index of the site nearest `p`, the first drawn of equally near
    /// ones: exactly a search over all sites would answer (RMP's rule).
    fn nearest(&self, sites: &[(i64, i64)], p: (i64, i64)) -> usize {
        let (bx, by) = (p.0 / self.side, p.1 / self.side);
        let mut best = (i64::MAX, usize::MAX);
        let rings = self.across.max(self.down);
        for ring in 0..=rings {
            for j in by - ring..=by + ring {
                if !(0..self.down).contains(&j) {
                    continue;
                }
                let edge = j == by - ring || j == by + ring;
                let step = if edge { 1 } else { (2 * ring).max(1) };
                let mut i = bx - ring;
                while i <= bx + ring {
                    if (0..self.across).contains(&i) {
                        let b = (j * self.across + i) as usize;
                        for &index in &self.items[self.starts[b]..self.starts[b + 1]] {
                            let (x, y) = sites[index];
                            let d2 = (x - p.0).pow(2) + (y - p.1).pow(2);
                            best = best.min((d2, index));
                        }
                    }
                    i += step;
                }
            }
            // Every site in a farther ring is at least ring·side + 1 away
            // (p lies inside its own bucket): none can be nearer, nor tie.
            let beyond = ring * self.side + 1;
            if beyond * beyond > best.0 {
                break;
            }
        }
        best.1
    }
}

/// Tectonic plates grown a bounded slice at a time: the job behind
/// [`plates`], whose result the map holds bit for bit after the last slice.
///
/// Each physics step is split into bands of map rows (one band up to about
/// 260×260, [`rows_per_band`] beyond), one slice each:
/// `slices = steps × bands`. A step's first band also steps the physics,
/// scatters the sites and walks the collision lines; the very first slice
/// also sets the map to 0. After every slice the map shows the ranges as
/// grown so far: each cell `uplift · raises`.
#[derive(Clone)]
pub struct PlatesGrowth {
    width: usize,
    height: usize,
    /// The height of one strength level: `uplift / STRENGTH_LEVELS`.
    unit: f32,
    cones: usize,
    tectonics: Tectonics,
    rng: TerrainRng,
    /// Times each map cell was raised.
    raises: Vec<u32>,
    band_rows: usize,
    bands: usize,
    slices: usize,
    /// This step's sites, their buckets, the strongest collision that
    /// touched each (0 for none), and the touched ones' cells and strengths.
    sites: Vec<(i64, i64)>,
    grid: SiteGrid,
    touched: Vec<u32>,
    cells: Vec<Cell>,
    levels: Vec<u32>,
    /// The rows each of `cells` may have map cells in.
    spans: Vec<Option<(i64, i64)>>,
    done: usize,
}

impl PlatesGrowth {
    /// The job of `plates(width, height, params, seed)`, with the same validation.
    pub fn new(
        width: usize,
        height: usize,
        params: &PlatesParams,
        seed: u64,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        params.validate()?;
        let tectonics = Tectonics::new(params, &mut TerrainRng::new(seed));
        let band_rows = rows_per_band(height, width, 1);
        let bands = height.div_ceil(band_rows);
        let cones = params.cones as usize;
        Ok(PlatesGrowth {
            width,
            height,
            unit: params.uplift / STRENGTH_LEVELS as f32,
            cones,
            tectonics,
            rng: TerrainRng::new(mix(seed, UPLIFT_STREAM)),
            raises: vec![0; width * height],
            band_rows,
            bands,
            slices: params.steps as usize * bands,
            sites: Vec::with_capacity(cones),
            grid: SiteGrid::new(width, height, cones),
            touched: vec![0; cones],
            cells: Vec::new(),
            levels: Vec::new(),
            spans: Vec::new(),
            done: 0,
        })
    }

    /// The last physics step's collision lines (none before the first).
    pub fn collisions(&self) -> &[Collision] {
        &self.tectonics.collisions
    }

    /// Every plate's corners where it is now, physics units (the square is
    /// `[0, SIDE]²`).
    pub fn plate_outlines(&self) -> Vec<Vec<[f32; 2]>> {
        self.tectonics.outlines()
    }

    /// Physics steps done.
    pub fn steps_done(&self) -> u64 {
        self.tectonics.steps
    }

    /// Steps the physics, scatters the step's sites and finds the cells
    /// the collision lines pass through.
    fn advance(&mut self) {
        self.tectonics.step();
        let (width, height) = (self.width, self.height);
        self.sites.clear();
        for _ in 0..self.cones {
            let x = self.rng.below(width as u64) as i64;
            let y = self.rng.below(height as u64) as i64;
            self.sites.push((x, y));
        }
        self.grid.fill(&self.sites);
        self.touched.fill(0);
        for collision in &self.tectonics.collisions {
            let a = to_cell(collision.ends[0], width, height);
            let b = to_cell(collision.ends[1], width, height);
            bresenham(a, b, |p| {
                let site = &mut self.touched[self.grid.nearest(&self.sites, p)];
                *site = (*site).max(collision.strength);
            });
        }
        let owners: Vec<usize> = (0..self.cones).filter(|&i| self.touched[i] > 0).collect();
        self.levels.clear();
        self.levels.extend(owners.iter().map(|&i| self.touched[i]));
        self.cells.resize_with(owners.len(), Cell::default);
        self.spans.clear();
        for (cell, &owner) in self.cells.iter_mut().zip(&owners) {
            cell.set_site(&self.sites, owner);
            // A cell is a few rows of the map: the row clipping need not
            // visit the rest.
            self.spans.push(cell.row_span(width as i64, height as i64));
        }
    }
}

impl std::fmt::Debug for PlatesGrowth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlatesGrowth")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("plates", &self.tectonics.plates.len())
            .field("cones", &self.cones)
            .field("slices", &self.slices)
            .field("slices_done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Sliced for PlatesGrowth {
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
            self.advance();
        }
        let width = self.width;
        let first = band * self.band_rows;
        let rows = first..(first + self.band_rows).min(self.height);
        let cells = map.cells_mut();
        for ((cell, span), &level) in self.cells.iter().zip(&self.spans).zip(&self.levels) {
            let Some((top, bottom)) = *span else {
                continue;
            };
            let rows = rows.start.max(top as usize)..rows.end.min(bottom as usize + 1);
            for y in rows {
                let Some((lo, hi)) = cell.row_run(y as i64, width as i64) else {
                    continue;
                };
                let run = y * width + lo as usize..y * width + hi as usize + 1;
                for (raises, shown) in self.raises[run.clone()].iter_mut().zip(&mut cells[run]) {
                    *raises += level;
                    *shown = *raises as f32 * self.unit;
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

    /// The site nearest `p` by a search over all of them; the first drawn
    /// of equally near ones.
    fn plain_nearest(sites: &[(i64, i64)], p: (i64, i64)) -> usize {
        let mut best = 0;
        for i in 1..sites.len() {
            let d = |(x, y): (i64, i64)| (x - p.0) * (x - p.0) + (y - p.1) * (y - p.1);
            if d(sites[i]) < d(sites[best]) {
                best = i;
            }
        }
        best
    }

    fn params(plates: u32, steps: u32, cones: u32) -> PlatesParams {
        PlatesParams {
            plates,
            steps,
            cones,
            ..PlatesParams::default()
        }
    }

    /// The uplift written the plain way from the collision lines a run
    /// recorded (`lines[s]` are step `s`'s): every step, the same sites,
    /// Bresenham's line cell by cell as in the textbook, the nearest site
    /// of every line cell and of every map cell by a search over all
    /// sites, and each map cell whose site a line touched raised once.
    fn reference(
        width: usize,
        height: usize,
        p: &PlatesParams,
        seed: u64,
        lines: &[Vec<Collision>],
    ) -> Vec<f32> {
        let mut rng = TerrainRng::new(mix(seed, UPLIFT_STREAM));
        let cell_of = |v: f32, cells: usize| -> i64 {
            let c = (v / SIDE * (cells - 1) as f32).round();
            if c < 0.0 {
                0
            } else if c > (cells - 1) as f32 {
                cells as i64 - 1
            } else {
                c as i64
            }
        };
        let mut raises = vec![0u32; width * height];
        for step in lines {
            let sites: Vec<(i64, i64)> = (0..p.cones)
                .map(|_| {
                    let x = rng.below(width as u64) as i64;
                    let y = rng.below(height as u64) as i64;
                    (x, y)
                })
                .collect();
            // The remembered colours: each site a line crossed, with the
            // strongest such line's strength.
            let mut colours = vec![0u32; sites.len()];
            for line in step {
                let (x0, y0) = (
                    cell_of(line.ends[0][0], width),
                    cell_of(line.ends[0][1], height),
                );
                let (x1, y1) = (
                    cell_of(line.ends[1][0], width),
                    cell_of(line.ends[1][1], height),
                );
                // Bresenham for all octants, the textbook integer error
                // form (a step on an axis when twice the error reaches it).
                let (dx, dy) = ((x1 - x0).abs(), (y1 - y0).abs());
                let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
                let (mut x, mut y, mut err) = (x0, y0, dx - dy);
                loop {
                    let site = plain_nearest(&sites, (x, y));
                    colours[site] = colours[site].max(line.strength);
                    if x == x1 && y == y1 {
                        break;
                    }
                    let e2 = 2 * err;
                    if e2 >= -dy {
                        err -= dy;
                        x += sx;
                    }
                    if e2 <= dx {
                        err += dx;
                        y += sy;
                    }
                }
            }
            for y in 0..height {
                for x in 0..width {
                    raises[y * width + x] += colours[plain_nearest(&sites, (x as i64, y as i64))];
                }
            }
        }
        let unit = p.uplift / STRENGTH_LEVELS as f32;
        raises.iter().map(|&n| n as f32 * unit).collect()
    }

    /// Grows slice by slice, recording each step's collision lines.
    fn grow(
        width: usize,
        height: usize,
        p: &PlatesParams,
        seed: u64,
    ) -> (Heightmap, Vec<Vec<Collision>>) {
        let mut growth = PlatesGrowth::new(width, height, p, seed).unwrap();
        let mut map = Heightmap::from_cells(width, height, vec![7.0; width * height]).unwrap();
        let mut lines = Vec::new();
        while !growth.is_done() {
            let before = growth.steps_done();
            growth.step(&mut map);
            if growth.steps_done() > before {
                lines.push(growth.collisions().to_vec());
            }
        }
        (map, lines)
    }

    #[test]
    fn the_uplift_is_the_plain_rasterisation_of_the_recorded_collisions_bit_for_bit() {
        let cases = [
            (params(2, 60, 2), 1),
            (params(6, 90, 24), 4),
            (params(12, 40, 256), 9),
            (
                PlatesParams {
                    uplift: 0.37,
                    drift: 0.3,
                    ..params(5, 50, 40)
                },
                2,
            ),
        ];
        for (width, height) in [(2, 2), (9, 4), (33, 20), (65, 65), (97, 61)] {
            for &(p, seed) in &cases {
                let (map, lines) = grow(width, height, &p, seed);
                assert_eq!(lines.len(), p.steps as usize);
                assert_eq!(
                    bits(map.cells()),
                    bits(&reference(width, height, &p, seed, &lines)),
                    "{width}x{height} {p:?} seed {seed}"
                );
            }
        }
        // Collisions did happen, and on a map with two bands a step.
        let fast = PlatesParams {
            drift: 0.5,
            ..params(8, 20, 64)
        };
        let (map, lines) = grow(260, 290, &fast, 3);
        assert_eq!(rows_per_band(290, 260, 1), 145);
        assert!(lines.iter().map(Vec::len).sum::<usize>() > 10);
        assert_eq!(
            bits(map.cells()),
            bits(&reference(260, 290, &fast, 3, &lines))
        );
    }

    #[test]
    fn the_site_grid_finds_the_plain_nearest_site_ties_included() {
        let mut rng = TerrainRng::new(11);
        for (width, height, count) in [
            (2, 2, 2),
            (9, 40, 3),
            (64, 64, 16),
            (257, 100, 256),
            (50, 50, 200),
        ] {
            let mut grid = SiteGrid::new(width, height, count);
            // Small maps with many sites give twins and ties.
            let sites: Vec<(i64, i64)> = (0..count)
                .map(|_| {
                    (
                        rng.below(width as u64) as i64,
                        rng.below(height as u64) as i64,
                    )
                })
                .collect();
            grid.fill(&sites);
            for y in 0..height as i64 {
                for x in 0..width as i64 {
                    assert_eq!(
                        grid.nearest(&sites, (x, y)),
                        plain_nearest(&sites, (x, y)),
                        "{width}x{height}, {count} sites, at ({x}, {y})"
                    );
                }
            }
        }
        // Equidistant sites: the first drawn wins.
        let sites = [(4, 0), (0, 0), (2, 2)];
        let mut grid = SiteGrid::new(5, 3, 3);
        grid.fill(&sites);
        assert_eq!(grid.nearest(&sites, (2, 0)), 0);
    }

    #[test]
    fn bresenham_walks_an_eight_connected_line_from_end_to_end() {
        let mut rng = TerrainRng::new(2);
        for _ in 0..200 {
            let mut end = || (rng.below(40) as i64 - 20, rng.below(40) as i64 - 20);
            let (a, b) = (end(), end());
            let mut cells = Vec::new();
            bresenham(a, b, |p| cells.push(p));
            assert_eq!(cells[0], a);
            assert_eq!(*cells.last().unwrap(), b);
            assert_eq!(
                cells.len() as i64,
                (b.0 - a.0).abs().max((b.1 - a.1).abs()) + 1
            );
            for pair in cells.windows(2) {
                let step = ((pair[1].0 - pair[0].0).abs(), (pair[1].1 - pair[0].1).abs());
                assert!(step.0 <= 1 && step.1 <= 1 && step != (0, 0), "{a:?} {b:?}");
            }
        }
    }

    fn is_convex(polygon: &[[f64; 2]]) -> bool {
        let n = polygon.len();
        (0..n).all(|i| {
            let (a, b, c) = (polygon[i], polygon[(i + 1) % n], polygon[(i + 2) % n]);
            (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) >= -1e-9
        })
    }

    #[test]
    fn the_square_splits_into_convex_plates_that_tile_it() {
        let s = f64::from(SIDE);
        for plates in [2, 3, 8, 17, 32] {
            for seed in 0..6 {
                let pieces = split_square(plates, &mut TerrainRng::new(seed));
                assert_eq!(pieces.len(), plates as usize);
                let mut total = 0.0;
                for piece in &pieces {
                    assert!(piece.len() >= 3);
                    assert!(is_convex(piece), "{piece:?}");
                    assert!(
                        piece
                            .iter()
                            .all(|c| c.iter().all(|v| (0.0..=s).contains(v)))
                    );
                    let a = area(piece);
                    assert!(a > 0.0, "counter-clockwise");
                    total += a;
                }
                assert!(
                    (total - s * s).abs() < 1e-9 * s * s,
                    "they tile the square: {total}"
                );
                // No two overlap: a point inside one (its centroid) is
                // outside every other.
                for (i, piece) in pieces.iter().enumerate() {
                    let c = centroid(piece);
                    for (j, other) in pieces.iter().enumerate() {
                        let n = other.len();
                        let inside = (0..n).all(|k| {
                            let (a, b) = (other[k], other[(k + 1) % n]);
                            (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) > 0.0
                        });
                        assert_eq!(inside, i == j, "plate {i}'s centroid and plate {j}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_plates_stay_convex_and_in_the_square_as_they_drift() {
        let p = PlatesParams {
            drift: 0.2,
            ..params(10, 240, 16)
        };
        let mut growth = PlatesGrowth::new(65, 65, &p, 5).unwrap();
        let start = growth.plate_outlines();
        let mut map = Heightmap::flat(65, 65).unwrap();
        growth.run_to_end(&mut map);
        let end = growth.plate_outlines();
        assert_eq!(start.len(), 10);
        let mut moved = 0;
        for (before, after) in start.iter().zip(&end) {
            let polygon: Vec<[f64; 2]> = after.iter().map(|p| p.map(f64::from)).collect();
            assert!(is_convex(&polygon), "{polygon:?}");
            // Contained by the beams (less a contact's give).
            assert!(
                after
                    .iter()
                    .all(|c| c.iter().all(|&v| (-0.1..=SIDE + 0.1).contains(&v)))
            );
            if before
                .iter()
                .zip(after)
                .any(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]) > 0.05)
            {
                moved += 1;
            }
        }
        assert!(moved >= 8, "the plates drift: {moved} of 10 moved");
    }

    #[test]
    fn ranges_rise_where_the_plates_meet() {
        let (width, height) = (129, 129);
        let p = params(6, 300, 160);
        let (map, lines) = grow(width, height, &p, 8);
        // Every cell a collision line of the run crossed, then each map
        // cell's squared distance to the nearest of them (up to 24 cells).
        let mut crossed = vec![false; width * height];
        for line in lines.iter().flatten() {
            let a = to_cell(line.ends[0], width, height);
            let b = to_cell(line.ends[1], width, height);
            bresenham(a, b, |(x, y)| {
                crossed[y as usize * width + x as usize] = true
            });
        }
        let mut near = vec![u32::MAX; width * height];
        for i in (0..width * height).filter(|&i| crossed[i]) {
            let (x, y) = ((i % width) as i64, (i / width) as i64);
            for yy in (y - 24).max(0)..=(y + 24).min(height as i64 - 1) {
                for xx in (x - 24).max(0)..=(x + 24).min(width as i64 - 1) {
                    let d = ((xx - x).pow(2) + (yy - y).pow(2)) as u32;
                    let j = yy as usize * width + xx as usize;
                    near[j] = near[j].min(d);
                }
            }
        }
        let mean = |keep: &dyn Fn(u32) -> bool| {
            let picked: Vec<f64> = near
                .iter()
                .zip(map.cells())
                .filter(|(d, _)| keep(**d))
                .map(|(_, &h)| f64::from(h))
                .collect();
            (
                picked.iter().sum::<f64>() / picked.len().max(1) as f64,
                picked.len(),
            )
        };
        let (on, on_count) = mean(&|d| d <= 4);
        let (off, off_count) = mean(&|d| d > 24 * 24);
        assert!(on_count > 200 && off_count > 200, "{on_count} {off_count}");
        assert!(
            on > 20.0 * off,
            "ranges along the collisions: {on} vs {off} away"
        );
        // The highest cell lies on or beside a collision line.
        let top = (0..map.cells().len())
            .max_by(|&a, &b| map.cells()[a].total_cmp(&map.cells()[b]))
            .unwrap();
        assert!(
            near[top] <= 4 * 4,
            "the peak is {} cells from a collision",
            f64::from(near[top]).sqrt()
        );
        assert!(map.min_max().1 > 0.05);
    }

    #[test]
    fn growing_slice_by_slice_ends_at_the_whole_function_and_only_rises() {
        let p = params(5, 20, 32);
        for (width, height) in [(2, 2), (20, 33), (600, 513)] {
            let mut growth = PlatesGrowth::new(width, height, &p, 3).unwrap();
            let mut map = Heightmap::from_cells(width, height, vec![1e6; width * height]).unwrap();
            let mut last = vec![0.0; width * height];
            let mut steps = 0;
            while !growth.is_done() {
                growth.step(&mut map);
                steps += 1;
                assert!(map.cells().iter().zip(&last).all(|(h, l)| h >= l));
                last.copy_from_slice(map.cells());
            }
            assert_eq!(steps, growth.slices());
            let bands = height.div_ceil(rows_per_band(height, width, 1));
            assert_eq!(growth.slices(), 20 * bands);
            assert_eq!(growth.steps_done(), 20);
            let whole = plates(width, height, &p, 3).unwrap();
            assert_eq!(bits(map.cells()), bits(whole.cells()), "{width}x{height}");
            growth.step(&mut map);
            assert_eq!(
                bits(map.cells()),
                bits(whole.cells()),
                "a step after the end"
            );
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_bits_and_seeds_differ() {
        let p = params(8, 200, 64);
        let a = plates(60, 45, &p, 1).unwrap();
        assert!(a.min_max().1 > 0.0);
        assert_eq!(
            bits(a.cells()),
            bits(plates(60, 45, &p, 1).unwrap().cells())
        );
        assert_ne!(
            bits(a.cells()),
            bits(plates(60, 45, &p, 2).unwrap().cells())
        );
        // The physics itself repeats: the same collision lines, to the bit.
        let (_, first) = grow(30, 30, &p, 6);
        let (_, second) = grow(30, 30, &p, 6);
        assert_eq!(first, second);
        assert!(first.iter().any(|step| !step.is_empty()));
    }

    /// FNV-1a over the bits of `values`.
    fn fingerprint(values: impl Iterator<Item = u32>) -> u64 {
        values.fold(0xcbf2_9ce4_8422_2325, |hash, v| {
            v.to_le_bytes().iter().fold(hash, |hash, &b| {
                (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
        })
    }

    #[test]
    fn a_seed_keeps_its_plates_across_builds_and_platforms() {
        // Pinned once from this code on x86-64 Linux; the ARM64 build runs
        // this test under qemu (tests/aarch64_qemu.rs). A rapier update, a
        // lost `enhanced-determinism`, or a change to the layout, the pulls,
        // the beams or the uplift shows up here before it silently changes
        // every seed's ranges.
        let (map, lines) = grow(65, 49, &params(9, 400, 64), 1);
        let heights = fingerprint(map.cells().iter().map(|h| h.to_bits()));
        let collisions = fingerprint(lines.iter().flatten().flat_map(|c| {
            [c.plates.0 as u32, c.plates.1 as u32, c.strength]
                .into_iter()
                .chain(c.ends.iter().flatten().map(|v| v.to_bits()))
        }));
        assert_eq!([heights, collisions], [PINNED_HEIGHTS, PINNED_COLLISIONS]);
    }

    const PINNED_HEIGHTS: u64 = 9_059_131_150_480_875_824;
    const PINNED_COLLISIONS: u64 = 4_135_838_370_381_271_935;

    #[test]
    fn bad_parameters_are_one_line_errors_naming_the_parameter() {
        let base = PlatesParams::default();
        let cases = [
            (
                PlatesParams { plates: 0, ..base },
                "plates",
                "2 <= plates <= 32",
            ),
            (
                PlatesParams { plates: 1, ..base },
                "plates",
                "2 <= plates <= 32",
            ),
            (
                PlatesParams { plates: 33, ..base },
                "plates",
                "2 <= plates <= 32",
            ),
            (
                PlatesParams { steps: 0, ..base },
                "steps",
                "1 <= steps <= 10000",
            ),
            (
                PlatesParams {
                    steps: 10_001,
                    ..base
                },
                "steps",
                "1 <= steps <= 10000",
            ),
            (
                PlatesParams { cones: 1, ..base },
                "cones",
                "2 <= cones <= 256",
            ),
            (
                PlatesParams { cones: 257, ..base },
                "cones",
                "2 <= cones <= 256",
            ),
            (
                PlatesParams {
                    uplift: -1.0,
                    ..base
                },
                "uplift",
                "0 <= uplift <= 1000",
            ),
            (
                PlatesParams {
                    uplift: f32::NAN,
                    ..base
                },
                "uplift",
                "0 <= uplift <= 1000",
            ),
            (
                PlatesParams { drift: 1.5, ..base },
                "drift",
                "0 <= drift <= 1",
            ),
            (
                PlatesParams {
                    drift: f32::INFINITY,
                    ..base
                },
                "drift",
                "0 <= drift <= 1",
            ),
        ];
        for (p, name, range) in cases {
            let message = p.validate().unwrap_err().to_string();
            assert!(
                message.starts_with(name) && message.contains(range),
                "{message}"
            );
            assert!(!message.contains('\n'));
            assert!(plates(9, 9, &p, 0).is_err());
            assert!(PlatesGrowth::new(9, 9, &p, 0).is_err());
        }
        assert!(base.validate().is_ok());
        assert!(plates(1, 9, &base, 0).is_err());
    }
}
