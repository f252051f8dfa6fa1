//! Hydraulic erosion with virtual pipes (Mei, Decaudin and Hu 2007; Fritz, "Procedural Generation of Mountain Ranges Based on Geology", 2016, §3.5.1), kept stable at any requested time step.
//!
//! Water stands on the terrain in every cell and flows to the 4 neighbours
//! through virtual pipes whose outflow flux accelerates with the difference
//! of water levels. The flux gives a velocity field; moving water dissolves
//! terrain up to a capacity that grows with its speed and the ground's tilt,
//! deposits what exceeds it, and carries its sediment along the velocity.
//!
//! The thesis dropped this model because large steps made the water
//! oscillate until it overflowed. Here the step is kept inside the model's
//! stable range (see [`stable_time_step`] and [`MeiParams::time_step`]), and
//! three safeguards bound every quantity whatever the step asked for: Mei's
//! flux scaling (no cell sends more water than it has), a CFL clamp of the
//! velocity (sediment moves at most one cell a step) and no velocity in
//! cells with almost no water.
//!
//! Heights are the terrain `b`; the cell spacing `l` (in height units) sets
//! how steep the map is. Every pass reads only state the previous pass
//! wrote, so doing a pass a band of rows at a time gives the same bits as
//! doing it at once.
use super::erosion::{
    check_iterations, check_non_negative, check_positive, check_scale, check_unit,
};
use super::error::TerrainError;
use super::heightmap::Heightmap;
use super::heightmap::check_size;
use super::sliced::assert_map_size;
use super::sliced::{SLICE_CELLS, Sliced, rows_per_band};

/// Mean water depth under which a cell's water has no velocity: the
/// velocity divides the flux by the depth, and a film this thin would give
/// it any value.
pub const MIN_VELOCITY_DEPTH: f32 = 1e-6;

/// Parameters of [`mei`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MeiParams {
    /// Number of iterations (time steps), at most [`MAX_EROSION_ITERATIONS`](super::erosion::MAX_EROSION_ITERATIONS).
    pub iterations: u32,
    /// Δt asked for, a finite number > 0. The step taken is
    /// `min(time_step, stable_time_step(gravity, cell_size))`, so a large
    /// value cannot make the water oscillate and overflow.
    pub time_step: f32,
    /// Kr: water depth added to every cell per unit of time; finite and ≥ 0.
    pub rain: f32,
    /// Kc: sediment capacity per unit of speed and tilt; finite and ≥ 0.
    pub capacity: f32,
    /// Ks: share of the spare capacity dissolved per step, in [0, 1].
    pub dissolving: f32,
    /// Kd: share of the sediment above capacity deposited per step, in [0, 1].
    pub depositing: f32,
    /// Ke: share of the water evaporating per unit of time, in [0, 1].
    pub evaporation: f32,
    /// Smallest sin(tilt) used in the capacity, in [0, 1]: without it,
    /// water on flat ground could carry nothing however fast it flows.
    pub min_tilt: f32,
    /// g, the acceleration of the water in the pipes, in [0.0001, 10000].
    pub gravity: f32,
    /// l: the distance between two samples, in height units, in
    /// [0.0001, 10000]; also the pipes' length, and each pipe's cross
    /// section is l² (as wide as a cell).
    pub cell_size: f32,
}

impl Default for MeiParams {
    /// A 257-sample map of heights in [0, 1] spanning one height unit
    /// (l = 1/256), g = 9.81, Δt = 0.005 (the stable cap is 0.00706);
    /// rain and evaporation balance at a mean depth of Kr / Ke = 0.05.
    fn default() -> Self {
        MeiParams {
            iterations: 100,
            time_step: 0.005,
            rain: 0.05,
            capacity: 0.2,
            dissolving: 0.3,
            depositing: 0.3,
            evaporation: 1.0,
            min_tilt: 0.05,
            gravity: 9.81,
            cell_size: 1.0 / 256.0,
        }
    }
}

impl MeiParams {
    /// Checks every field against its range; the error names the first
    /// field out of range and the range.
    pub fn validate(&self) -> Result<(), TerrainError> {
        check_iterations(self.iterations)?;
        check_positive("time_step", self.time_step)?;
        check_non_negative("rain", self.rain)?;
        check_non_negative("capacity", self.capacity)?;
        check_unit("dissolving", self.dissolving)?;
        check_unit("depositing", self.depositing)?;
        check_unit("evaporation", self.evaporation)?;
        check_unit("min_tilt", self.min_tilt)?;
        check_scale("gravity", self.gravity)?;
        check_scale("cell_size", self.cell_size)?;
        Ok(())
    }

    /// The Δt the simulation takes: the one asked for, capped at
    /// [`stable_time_step`].
    pub fn effective_time_step(&self) -> f32 {
        self.time_step
            .min(stable_time_step(self.gravity, self.cell_size))
    }
}

/// The largest Δt the job takes: `½ · √(l / (2g))`.
///
/// Linearised, the pipe model is a wave equation stepped with symplectic
/// Euler: the flux gains `Δt · g · l · Δh` (cross section l², pipe length
/// l) and the depth changes by `Δt · Σflux / l²`, so a level disturbance
/// obeys `ḧ = (g / l) · L h` with L the 4-neighbour Laplacian, whose
/// eigenvalues reach −8. Symplectic Euler stays bounded for `Δt · ω ≤ 2`,
/// here `Δt ≤ √(l / (2g))`. The two one-way pipes between two cells can
/// both carry flow for a step when the level difference changes sign,
/// doubling the gain at worst (`Δt ≤ √(l / (4g))`, 0.71 of the first);
/// half the linear limit stays below both with room for the nonlinearity.
pub fn stable_time_step(gravity: f32, cell_size: f32) -> f32 {
    0.5 * (cell_size / (2.0 * gravity)).sqrt()
}

/// Mei's hydraulic erosion, each iteration (step Δt, spacing l):
///
/// 1. rain: `d₁ = d + Δt · Kr`;
/// 2. flux: for each neighbour n, `fₙ = max(0, fₙ + Δt · g · l · (b + d₁ − bₙ − d₁ₙ))`
///    (no pipe across the border), then all four times
///    `K = min(1, d₁ · l² / (Σf · Δt))` so no cell sends more than it has;
/// 3. water and velocity: `d₂ = d₁ + Δt · (Σf_in − Σf_out) / l²`;
///    `u = ½ (f_R(x−1) − f_L(x) + f_R(x) − f_L(x+1)) / (l · d̄)`, likewise
///    v, with `d̄ = (d₁ + d₂) / 2`; zero where `d̄ <` [`MIN_VELOCITY_DEPTH`],
///    and each clamped to `±l / Δt` (the CFL condition: one cell a step);
/// 4. erosion and deposition: `C = Kc · max(sin α, min_tilt) · |(u, v)|`,
///    with α the tilt of the terrain from central differences; if `C > s`,
///    `Ks · (C − s)` moves from b to s, else `Kd · (s − C)` from s to b;
/// 5. transport: each cell's sediment moves to `(x, y) + (u_out, v_out) · Δt / l`
///    (clamped into the map), with the outflow velocity
///    `u_out = (f_R − f_L) / (l · d̄)` (likewise v_out, same clamps), and is
///    shared bilinearly among the 4 cells around that point; a share aimed
///    at a cell whose ground stands above the source's water level stays in
///    the source. This is semi-Lagrangian advection traced forward, which
///    conserves sediment exactly (Mei's backward lookup does not). Mei's
///    centred velocity, kept for the capacity, points into a wall where
///    water arrives from behind, and sediment carried along it piled up on
///    ridges into spikes; the outflow velocity and the guard prevent that;
/// 6. evaporation: `d = d₂ · max(0, 1 − Ke · Δt)`.
///
/// After the last iteration the water evaporates and the sediment still in
/// suspension is deposited where it is, so b + s is conserved up to f32
/// rounding and a later call starts dry.
///
/// This is [`MeiErosion`] stepped to the end.
pub fn mei(map: &mut Heightmap, params: &MeiParams) -> Result<(), TerrainError> {
    MeiErosion::new(map.width(), map.height(), params)?.run_to_end(map);
    Ok(())
}

/// Work of one cell in each of the three passes, in units of
/// [`SLICE_CELLS`]'s cheap work (measured: docs/terrain-mei-particles.md).
const PASS_WEIGHTS: [usize; 3] = [3, 3, 4];

/// [`mei`] a bounded slice at a time, keeping water, flux and sediment
/// between slices.
///
/// An iteration is three passes over the rows: flux (rain, pipes, scaling,
/// tilt), water (depth, velocity, erosion, deposition, evaporation) and
/// transport. When a whole iteration fits [`SLICE_CELLS`] a slice is one
/// iteration; otherwise each pass is cut into bands of rows
/// (`rows_per_band` with the pass's weight) and a slice is one band. A last
/// slice deposits the suspended sediment, so `slices()` is
/// `iterations × slices per iteration + 1`. Between slices the map shows the
/// ground without the suspended sediment; after the last slice it is
/// [`mei`]'s map bit for bit.
#[derive(Debug, Clone)]
pub struct MeiErosion {
    width: usize,
    height: usize,
    params: MeiParams,
    /// Rows per band of each pass; `None` when a slice is a whole iteration.
    bands: Option<[usize; 3]>,
    per_iteration: usize,
    state: MeiState,
    /// Next pass (0..3) and its first row, within the current iteration.
    pass: usize,
    row: usize,
    /// Slices done.
    done: usize,
}

impl MeiErosion {
    /// The job of `mei(map, params)` on a `width × height` map, with the
    /// same validation.
    pub fn new(width: usize, height: usize, params: &MeiParams) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        params.validate()?;
        let total_weight: usize = PASS_WEIGHTS.iter().sum();
        let (bands, per_iteration) = if width * height * total_weight <= SLICE_CELLS {
            (None, 1)
        } else {
            let bands = PASS_WEIGHTS.map(|weight| rows_per_band(height, width, weight));
            let count = bands.iter().map(|&band| height.div_ceil(band)).sum();
            (Some(bands), count)
        };
        Ok(MeiErosion {
            width,
            height,
            params: *params,
            bands,
            per_iteration,
            state: MeiState::new(width, height, params),
            pass: 0,
            row: 0,
            done: 0,
        })
    }

    /// Water depth per cell, row-major.
    pub fn water(&self) -> &[f32] {
        &self.state.water
    }

    /// Sediment in suspension per cell, row-major.
    pub fn sediment(&self) -> &[f32] {
        &self.state.sediment
    }

    /// Velocity (u along x, v along y) per cell, row-major, as the last
    /// water pass left it.
    pub fn velocity(&self) -> &[[f32; 2]] {
        &self.state.velocity
    }

    /// The Δt the job takes ([`MeiParams::effective_time_step`]).
    pub fn time_step(&self) -> f32 {
        self.state.dt
    }

    fn iterations_done(&self) -> usize {
        self.done / self.per_iteration
    }
}

impl Sliced for MeiErosion {
    fn slices(&self) -> usize {
        self.params.iterations as usize * self.per_iteration + 1
    }

    fn slices_done(&self) -> usize {
        self.done
    }

    fn step(&mut self, map: &mut Heightmap) {
        if self.is_done() {
            return;
        }
        assert_map_size(map, self.width, self.height);
        if self.iterations_done() >= self.params.iterations as usize {
            self.state.deposit_all(map);
        } else {
            match self.bands {
                None => {
                    for pass in 0..3 {
                        self.state.pass(pass, 0..self.height, map);
                    }
                }
                Some(bands) => {
                    let end = (self.row + bands[self.pass]).min(self.height);
                    self.state.pass(self.pass, self.row..end, map);
                    self.row = end;
                    if end == self.height {
                        self.row = 0;
                        self.pass = (self.pass + 1) % 3;
                    }
                }
            }
        }
        self.done += 1;
    }
}

/// Water, flux, velocity and sediment of a run, and the constants derived
/// from its parameters.
#[derive(Debug, Clone)]
struct MeiState {
    width: usize,
    height: usize,
    /// Depth d between iterations (after evaporation).
    water: Vec<f32>,
    /// Depth d₁ after the rain of the current iteration.
    rained: Vec<f32>,
    /// Outflow flux to the left, right, upper (y − 1) and lower (y + 1) neighbour.
    flux: Vec<[f32; 4]>,
    /// max(sin α, min_tilt) of the terrain at the start of the iteration.
    tilt: Vec<f32>,
    /// (u, v) after the water pass.
    velocity: Vec<[f32; 2]>,
    /// Cells the sediment moves in the transport pass.
    drift: Vec<[f32; 2]>,
    /// Sediment in suspension s.
    sediment: Vec<f32>,
    /// Where the transport pass gathers the moved sediment.
    moved: Vec<f32>,
    /// Δt taken.
    dt: f32,
    /// Δt · Kr.
    rain_step: f32,
    pipes: Pipes,
    carving: Carving,
    /// max(0, 1 − Ke · Δt).
    keep: f32,
}

impl MeiState {
    fn new(width: usize, height: usize, params: &MeiParams) -> Self {
        let len = width * height;
        let dt = params.effective_time_step();
        MeiState {
            width,
            height,
            water: vec![0.0; len],
            rained: vec![0.0; len],
            flux: vec![[0.0; 4]; len],
            tilt: vec![0.0; len],
            velocity: vec![[0.0; 2]; len],
            drift: vec![[0.0; 2]; len],
            sediment: vec![0.0; len],
            moved: vec![0.0; len],
            dt,
            rain_step: dt * params.rain,
            pipes: Pipes::new(dt, params.gravity, params.cell_size),
            carving: Carving {
                capacity: params.capacity,
                dissolving: params.dissolving,
                depositing: params.depositing,
                min_tilt: params.min_tilt,
            },
            keep: (1.0 - params.evaporation * dt).max(0.0),
        }
    }

    fn pass(&mut self, pass: usize, rows: std::ops::Range<usize>, map: &mut Heightmap) {
        match pass {
            0 => self.flux_pass(rows, map.cells()),
            1 => self.water_pass(rows, map.cells_mut()),
            _ => self.transport_pass(rows, map.cells()),
        }
    }

    /// Rain, pipe flux with Mei's scaling, and the tilt, for `rows`; reads
    /// the depth and terrain of the neighbours, writes only its own rows.
    fn flux_pass(&mut self, rows: std::ops::Range<usize>, b: &[f32]) {
        let (w, h) = (self.width, self.height);
        for y in rows {
            for x in 0..w {
                let i = y * w + x;
                let d1 = self.water[i] + self.rain_step;
                self.rained[i] = d1;
                let others = neighbours(x, y, w, h)
                    .map(|n| n.map(|n| b[n] + (self.water[n] + self.rain_step)));
                self.flux[i] = self.pipes.flux(self.flux[i], 1.0, d1, b[i] + d1, others);
                self.tilt[i] =
                    ground_tilt(b, (x, y), (w, h), self.pipes.length, self.carving.min_tilt);
            }
        }
    }

    /// New depth, velocity, erosion or deposition and evaporation for
    /// `rows`; reads the neighbours' flux, writes only its own cells.
    fn water_pass(&mut self, rows: std::ops::Range<usize>, b: &mut [f32]) {
        let (w, h) = (self.width, self.height);
        for y in rows {
            for x in 0..w {
                let i = y * w + x;
                let f = self.flux[i];
                let [from_left, from_right, from_above, from_below] =
                    neighbours(x, y, w, h).map(|n| n.map(|n| self.flux[n]));
                // What each neighbour sends this way: its flux in the opposite direction.
                let in_left = from_left.map_or(0.0, |g| g[1]);
                let in_right = from_right.map_or(0.0, |g| g[0]);
                let in_above = from_above.map_or(0.0, |g| g[3]);
                let in_below = from_below.map_or(0.0, |g| g[2]);
                let inflow = in_left + in_right + in_above + in_below;
                let outflow = f[0] + f[1] + f[2] + f[3];
                let d1 = self.rained[i];
                let d2 = self.pipes.depth(d1, inflow, outflow);
                let inflows = [in_left, in_right, in_above, in_below];
                let (velocity, drift) = self.pipes.velocity(f, inflows, d1, d2);
                self.velocity[i] = velocity;
                self.drift[i] = drift;
                let s = self.sediment[i];
                let to_ground = self.carving.exchange(self.tilt[i], velocity, s);
                b[i] += to_ground;
                self.sediment[i] = s - to_ground;
                self.water[i] = d2 * self.keep;
                self.moved[i] = 0.0;
            }
        }
    }

    /// Moves the sediment of `rows` along the velocity into `moved`
    /// (whose rows the water pass cleared); after the last row, the moved
    /// sediment becomes the sediment.
    fn transport_pass(&mut self, rows: std::ops::Range<usize>, b: &[f32]) {
        let (w, h) = (self.width, self.height);
        let last = rows.end == h;
        for y in rows {
            for x in 0..w {
                let i = y * w + x;
                let s = self.sediment[i];
                if s == 0.0 {
                    continue;
                }
                let level = b[i] + self.water[i];
                scatter_sediment((x, y), (w, h), s, self.drift[i], level, b, &mut self.moved);
            }
        }
        if last {
            std::mem::swap(&mut self.sediment, &mut self.moved);
        }
    }

    /// Deposits all suspended sediment and dries the map.
    fn deposit_all(&mut self, map: &mut Heightmap) {
        for (b, s) in map.cells_mut().iter_mut().zip(&self.sediment) {
            *b += s;
        }
        // The job ends here: only what the accessors show is cleared.
        self.sediment.fill(0.0);
        self.water.fill(0.0);
        self.velocity.fill([0.0; 2]);
    }
}

/// The left, right, upper (y − 1) and lower (y + 1) neighbours of (x, y),
/// when inside the map.
fn neighbours(x: usize, y: usize, w: usize, h: usize) -> [Option<usize>; 4] {
    let i = y * w + x;
    [
        (x > 0).then(|| i - 1),
        (x + 1 < w).then(|| i + 1),
        (y > 0).then(|| i - w),
        (y + 1 < h).then(|| i + w),
    ]
}

/// The constants of Mei's virtual pipes at one step Δt and spacing l:
/// the flux, depth and velocity updates that both [`mei`] and the live
/// [`WaterLayer`](super::water::WaterLayer) take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pipes {
    /// Δt.
    pub dt: f32,
    /// Δt · g · l: the flux a unit level difference adds in a step.
    pub flux_gain: f32,
    /// l², each pipe's cross section and each cell's area.
    pub area: f32,
    /// l.
    pub length: f32,
    /// l / Δt, the CFL speed limit.
    pub max_speed: f32,
    /// Δt / l: cells moved per unit of velocity.
    pub cells_per_speed: f32,
}

impl Pipes {
    pub fn new(dt: f32, gravity: f32, cell_size: f32) -> Self {
        let l = cell_size;
        Pipes {
            dt,
            flux_gain: dt * gravity * l,
            area: l * l,
            length: l,
            max_speed: l / dt,
            cells_per_speed: dt / l,
        }
    }

    /// A cell's four outflows (left, right, upper, lower) after a step:
    /// each `max(0, keep · f + Δt · g · l · (level − other))`, none where
    /// `others` has no pipe, then Mei's scaling so that the cell sends at
    /// most its `depth`. `keep` < 1 is a friction on the flux; 1 is Mei's
    /// frictionless pipe (and `f · 1` is `f` to the bit).
    #[inline]
    pub fn flux(
        &self,
        previous: [f32; 4],
        keep: f32,
        depth: f32,
        level: f32,
        others: [Option<f32>; 4],
    ) -> [f32; 4] {
        let mut f = previous;
        let mut out = 0.0f32;
        for (k, other) in others.into_iter().enumerate() {
            f[k] = match other {
                Some(other) => (f[k] * keep + self.flux_gain * (level - other)).max(0.0),
                None => 0.0,
            };
            out += f[k];
        }
        if out > 0.0 {
            let scale = (depth * self.area / (out * self.dt)).min(1.0);
            for f in &mut f {
                *f *= scale;
            }
        }
        f
    }

    /// The depth after the water moved: `max(0, d₁ + Δt · (in − out) / l²)`.
    #[inline]
    pub fn depth(&self, rained: f32, inflow: f32, outflow: f32) -> f32 {
        (rained + self.dt * (inflow - outflow) / self.area).max(0.0)
    }

    /// Mei's centred velocity (u, v) through the cell and the cells its
    /// outflow moves sediment in a step, from its outflows `out`, what its
    /// neighbours send it `inflows` (from the left, right, upper, lower)
    /// and its depth before and after the step; each clamped to the CFL
    /// limit, and zero under a [`MIN_VELOCITY_DEPTH`] film.
    #[inline]
    pub fn velocity(
        &self,
        out: [f32; 4],
        inflows: [f32; 4],
        rained: f32,
        depth: f32,
    ) -> ([f32; 2], [f32; 2]) {
        let mean = (rained + depth) * 0.5;
        if mean >= MIN_VELOCITY_DEPTH {
            let limit =
                |flux: f32, cross: f32| (flux / cross).clamp(-self.max_speed, self.max_speed);
            let [in_left, in_right, in_above, in_below] = inflows;
            let cross = self.length * mean;
            let through_x = (in_left - out[0] + out[1] - in_right) * 0.5;
            let through_y = (in_above - out[2] + out[3] - in_below) * 0.5;
            let out_x = limit(out[1] - out[0], cross) * self.cells_per_speed;
            let out_y = limit(out[3] - out[2], cross) * self.cells_per_speed;
            (
                [limit(through_x, cross), limit(through_y, cross)],
                [out_x, out_y],
            )
        } else {
            ([0.0, 0.0], [0.0, 0.0])
        }
    }
}

/// Mei's erosion and deposition constants (Kc, Ks, Kd and the smallest
/// tilt), shared by [`mei`] and the live water's rivers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Carving {
    pub capacity: f32,
    pub dissolving: f32,
    pub depositing: f32,
    pub min_tilt: f32,
}

impl Carving {
    /// What moves from the suspended sediment `s` to the ground this step
    /// (negative: dissolved from the ground): with capacity
    /// `C = Kc · tilt · |velocity|`, `−Ks · (C − s)` if `C > s`, else
    /// `Kd · (s − C)`. The ground gains it and the sediment loses it, so
    /// their sum is unchanged.
    #[inline]
    pub fn exchange(&self, tilt: f32, velocity: [f32; 2], s: f32) -> f32 {
        let [u, v] = velocity;
        let speed = (u * u + v * v).sqrt();
        let c = self.capacity * tilt * speed;
        if c > s {
            -(self.dissolving * (c - s))
        } else {
            self.depositing * (s - c)
        }
    }
}

/// `max(sin α, min_tilt)` of the ground `b` at (x, y), α its tilt from
/// central differences (one-sided at the border) over spacing `length`
/// units: `sin α = |∇b| / √(1 + |∇b|²)`.
#[inline]
pub(crate) fn ground_tilt(
    b: &[f32],
    (x, y): (usize, usize),
    (w, h): (usize, usize),
    length: f32,
    min_tilt: f32,
) -> f32 {
    let span = [2.0 * length, length];
    let (x0, x1) = (x.saturating_sub(1), (x + 1).min(w - 1));
    let (y0, y1) = (y.saturating_sub(1), (y + 1).min(h - 1));
    let gx = (b[y * w + x1] - b[y * w + x0]) / span[usize::from(x1 - x0 == 1)];
    let gy = (b[y1 * w + x] - b[y0 * w + x]) / span[usize::from(y1 - y0 == 1)];
    let g2 = gx * gx + gy * gy;
    (g2 / (1.0 + g2)).sqrt().max(min_tilt)
}

/// Mei's transport traced forward: the sediment `s` of (x, y) moves by
/// `drift` cells (clamped into the map) and is shared bilinearly among the
/// 4 cells around that point, added into `moved`; a share aimed at ground
/// `b` above `level` (the source's water surface) stays in the source.
/// The shares sum to `s`, so sediment is conserved up to rounding.
#[inline]
pub(crate) fn scatter_sediment(
    (x, y): (usize, usize),
    (w, h): (usize, usize),
    s: f32,
    drift: [f32; 2],
    level: f32,
    b: &[f32],
    moved: &mut [f32],
) {
    let i = y * w + x;
    let [dx, dy] = drift;
    let px = (x as f32 + dx).clamp(0.0, (w - 1) as f32);
    let py = (y as f32 + dy).clamp(0.0, (h - 1) as f32);
    let cx = (px as usize).min(w - 2);
    let cy = (py as usize).min(h - 2);
    let fx = px - cx as f32;
    let fy = py - cy as f32;
    let j = cy * w + cx;
    let shares = [
        (j, (1.0 - fx) * (1.0 - fy)),
        (j + 1, fx * (1.0 - fy)),
        (j + w, (1.0 - fx) * fy),
        (j + w + 1, fx * fy),
    ];
    for (target, weight) in shares {
        // Never onto ground above the water it came with.
        let target = if b[target] > level { i } else { target };
        moved[target] += s * weight;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::diamond_square::diamond_square;
    use crate::terrain::erosion::MAX_EROSION_ITERATIONS;
    use crate::terrain::metrics::metrics;

    fn bits(map: &Heightmap) -> Vec<u32> {
        map.cells().iter().map(|h| h.to_bits()).collect()
    }

    fn total(cells: &[f32]) -> f64 {
        cells.iter().map(|&h| f64::from(h)).sum()
    }

    fn params(iterations: u32) -> MeiParams {
        MeiParams {
            iterations,
            ..MeiParams::default()
        }
    }

    /// What the plain reference leaves besides the map.
    struct Left {
        water: Vec<f32>,
        sediment: Vec<f32>,
    }

    /// Mei's steps written the plain way, each over the whole map with
    /// (x, y) indices into separate arrays, in the engine's arithmetic.
    /// With `guarded` false it is the model as published, as the thesis
    /// ran it: Δt as asked, no flux scaling, no velocity limits, and it
    /// stops at the iteration where anything stops being finite.
    fn reference(map: &mut Heightmap, p: &MeiParams, guarded: bool, deposit: bool) -> Left {
        let (w, h) = (map.width(), map.height());
        let n = w * h;
        let dt = if guarded {
            p.time_step
                .min(0.5 * (p.cell_size / (2.0 * p.gravity)).sqrt())
        } else {
            p.time_step
        };
        let l = p.cell_size;
        let at = |x: usize, y: usize| y * w + x;
        let mut d = vec![0.0f32; n];
        let mut s = vec![0.0f32; n];
        // fl, fr, ft, fb: flux to the left, right, up (y - 1), down (y + 1).
        let (mut fl, mut fr, mut ft, mut fb) = (
            vec![0.0f32; n],
            vec![0.0f32; n],
            vec![0.0f32; n],
            vec![0.0f32; n],
        );
        for _ in 0..p.iterations {
            let b = map.cells().to_vec();
            let d1: Vec<f32> = d.iter().map(|&d| d + dt * p.rain).collect();
            let mut tilt = vec![0.0f32; n];
            for y in 0..h {
                for x in 0..w {
                    let i = at(x, y);
                    let lv = b[i] + d1[i];
                    let gain = dt * p.gravity * l;
                    let pipe = |f: f32, j: usize| (f + gain * (lv - (b[j] + d1[j]))).max(0.0);
                    fl[i] = if x > 0 {
                        pipe(fl[i], at(x - 1, y))
                    } else {
                        0.0
                    };
                    fr[i] = if x + 1 < w {
                        pipe(fr[i], at(x + 1, y))
                    } else {
                        0.0
                    };
                    ft[i] = if y > 0 {
                        pipe(ft[i], at(x, y - 1))
                    } else {
                        0.0
                    };
                    fb[i] = if y + 1 < h {
                        pipe(fb[i], at(x, y + 1))
                    } else {
                        0.0
                    };
                    let out = fl[i] + fr[i] + ft[i] + fb[i];
                    if guarded && out > 0.0 {
                        let k = (d1[i] * (l * l) / (out * dt)).min(1.0);
                        fl[i] *= k;
                        fr[i] *= k;
                        ft[i] *= k;
                        fb[i] *= k;
                    }
                    let gx = if x == 0 || x == w - 1 {
                        (b[at((x + 1).min(w - 1), y)] - b[at(x.saturating_sub(1), y)]) / l
                    } else {
                        (b[at(x + 1, y)] - b[at(x - 1, y)]) / (2.0 * l)
                    };
                    let gy = if y == 0 || y == h - 1 {
                        (b[at(x, (y + 1).min(h - 1))] - b[at(x, y.saturating_sub(1))]) / l
                    } else {
                        (b[at(x, y + 1)] - b[at(x, y - 1)]) / (2.0 * l)
                    };
                    let g2 = gx * gx + gy * gy;
                    tilt[i] = (g2 / (1.0 + g2)).sqrt().max(p.min_tilt);
                }
            }
            let mut u = vec![0.0f32; n];
            let mut v = vec![0.0f32; n];
            // Where the sediment drifts: the outflow velocity times Δt / l.
            let (mut ux, mut vy) = (vec![0.0f32; n], vec![0.0f32; n]);
            let m = map.cells_mut();
            for y in 0..h {
                for x in 0..w {
                    let i = at(x, y);
                    let in_l = if x > 0 { fr[at(x - 1, y)] } else { 0.0 };
                    let in_r = if x + 1 < w { fl[at(x + 1, y)] } else { 0.0 };
                    let in_t = if y > 0 { fb[at(x, y - 1)] } else { 0.0 };
                    let in_b = if y + 1 < h { ft[at(x, y + 1)] } else { 0.0 };
                    let mut d2 = d1[i]
                        + dt * ((in_l + in_r + in_t + in_b) - (fl[i] + fr[i] + ft[i] + fb[i]))
                            / (l * l);
                    if guarded {
                        d2 = d2.max(0.0);
                    }
                    let mean = (d1[i] + d2) * 0.5;
                    let wx = (in_l - fl[i] + fr[i] - in_r) * 0.5;
                    let wy = (in_t - ft[i] + fb[i] - in_b) * 0.5;
                    if guarded {
                        if mean >= MIN_VELOCITY_DEPTH {
                            let c = l * mean;
                            u[i] = (wx / c).clamp(-l / dt, l / dt);
                            v[i] = (wy / c).clamp(-l / dt, l / dt);
                            ux[i] = ((fr[i] - fl[i]) / c).clamp(-l / dt, l / dt) * (dt / l);
                            vy[i] = ((fb[i] - ft[i]) / c).clamp(-l / dt, l / dt) * (dt / l);
                        }
                    } else {
                        u[i] = wx / (l * mean);
                        v[i] = wy / (l * mean);
                        ux[i] = (fr[i] - fl[i]) / (l * mean) * (dt / l);
                        vy[i] = (fb[i] - ft[i]) / (l * mean) * (dt / l);
                    }
                    let c = p.capacity * tilt[i] * (u[i] * u[i] + v[i] * v[i]).sqrt();
                    if c > s[i] {
                        let a = p.dissolving * (c - s[i]);
                        m[i] -= a;
                        s[i] += a;
                    } else {
                        let a = p.depositing * (s[i] - c);
                        m[i] += a;
                        s[i] -= a;
                    }
                    d[i] = d2 * (1.0 - p.evaporation * dt).max(0.0);
                }
            }
            let mut moved = vec![0.0f32; n];
            for y in 0..h {
                for x in 0..w {
                    let i = at(x, y);
                    if s[i] == 0.0 {
                        continue;
                    }
                    let px = (x as f32 + ux[i]).clamp(0.0, (w - 1) as f32);
                    let py = (y as f32 + vy[i]).clamp(0.0, (h - 1) as f32);
                    let cx = (px.floor() as usize).min(w - 2);
                    let cy = (py.floor() as usize).min(h - 2);
                    let (fx, fy) = (px - cx as f32, py - cy as f32);
                    let corners = [
                        (at(cx, cy), (1.0 - fx) * (1.0 - fy)),
                        (at(cx + 1, cy), fx * (1.0 - fy)),
                        (at(cx, cy + 1), (1.0 - fx) * fy),
                        (at(cx + 1, cy + 1), fx * fy),
                    ];
                    let b = map.cells();
                    for (t, weight) in corners {
                        if b[t] > b[i] + d[i] {
                            moved[i] += s[i] * weight;
                        } else {
                            moved[t] += s[i] * weight;
                        }
                    }
                }
            }
            s = moved;
            let finite = |a: &[f32]| a.iter().all(|x| x.is_finite());
            let all_finite = finite(map.cells()) && finite(&d) && finite(&s);
            if !guarded && !all_finite {
                break;
            }
        }
        if deposit {
            for (b, s) in map.cells_mut().iter_mut().zip(&mut s) {
                *b += *s;
                *s = 0.0;
            }
            d.fill(0.0);
        }
        Left {
            water: d,
            sediment: s,
        }
    }

    /// Rough maps of every kind of size, tilted so that water runs.
    fn start_maps() -> Vec<Heightmap> {
        [
            (2, 2, 1),
            (3, 2, 2),
            (20, 33, 3),
            (65, 40, 4),
            (100, 7, 5),
            (90, 120, 6),
        ]
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

    /// Steps `job` to the end, checking every slice leaves the map finite,
    /// the count of slices is `slices()`, and a step after the end changes
    /// nothing.
    fn step_to_end(job: &mut impl Sliced, map: &mut Heightmap) {
        let mut stepped = 0;
        let left = job.slices() - job.slices_done();
        while !job.is_done() {
            job.step(map);
            stepped += 1;
            assert!(map.cells().iter().all(|h| h.is_finite()));
        }
        assert_eq!(stepped, left);
        let end = map.clone();
        job.step(map);
        assert_eq!(bits(map), bits(&end));
        assert_eq!(job.slices_done(), job.slices());
    }

    #[test]
    fn the_job_is_the_plain_steps_bit_for_bit() {
        let cases = [
            params(9),
            MeiParams {
                iterations: 5,
                time_step: 1.0,
                rain: 1.0,
                capacity: 0.5,
                dissolving: 1.0,
                depositing: 0.1,
                evaporation: 0.0,
                min_tilt: 0.0,
                gravity: 2.0,
                cell_size: 0.01,
            },
        ];
        for start in start_maps() {
            for p in &cases {
                let mut expected = start.clone();
                reference(&mut expected, p, true, true);
                let mut job = MeiErosion::new(start.width(), start.height(), p).unwrap();
                let mut sliced = start.clone();
                step_to_end(&mut job, &mut sliced);
                assert_eq!(bits(&sliced), bits(&expected), "{p:?}");
                let mut whole = start.clone();
                mei(&mut whole, p).unwrap();
                assert_eq!(bits(&whole), bits(&expected));
                assert_ne!(bits(&whole), bits(&start), "the terrain changed");
            }
        }
    }

    #[test]
    fn on_257x257_bands_are_the_plain_steps_and_slices_are_exact() {
        let start = diamond_square(257, 257, 1.0, 9).unwrap();
        let p = params(3);
        let mut expected = start.clone();
        let left = reference(&mut expected, &p, true, false);
        let mut job = MeiErosion::new(257, 257, &p).unwrap();
        let per_iteration = (job.slices() - 1) / 3;
        assert!(per_iteration > 1, "257x257 is cut into bands");
        assert_eq!(job.slices(), 3 * per_iteration + 1);
        let mut sliced = start.clone();
        for _ in 0..3 * per_iteration {
            job.step(&mut sliced);
        }
        // Mid-run state equals the reference's before its final deposit.
        assert_eq!(bits(&sliced), bits(&expected));
        assert_eq!(job.water(), &left.water[..]);
        assert_eq!(job.sediment(), &left.sediment[..]);
        assert!(job.water().iter().any(|&d| d > 0.0));
        assert!(job.sediment().iter().any(|&s| s > 0.0));
        step_to_end(&mut job, &mut sliced);
        let mut whole = start;
        mei(&mut whole, &p).unwrap();
        assert_eq!(bits(&sliced), bits(&whole));
    }

    #[test]
    fn small_maps_take_one_slice_an_iteration() {
        let job = MeiErosion::new(20, 20, &params(7)).unwrap();
        assert_eq!(job.slices(), 8);
        let job = MeiErosion::new(513, 513, &params(2)).unwrap();
        let bands: usize = PASS_WEIGHTS
            .iter()
            .map(|&w| 513usize.div_ceil(rows_per_band(513, 513, w)))
            .sum();
        assert_eq!(job.slices(), 2 * bands + 1);
        let mut none = MeiErosion::new(2, 2, &params(0)).unwrap();
        assert_eq!(none.slices(), 1);
        let mut map = Heightmap::flat(2, 2).unwrap();
        step_to_end(&mut none, &mut map);
    }

    #[test]
    fn a_2x2_map_erodes_without_panicking() {
        let mut map = Heightmap::from_cells(2, 2, vec![1.0, 0.0, 0.5, 0.0]).unwrap();
        mei(&mut map, &params(50)).unwrap();
        assert!(map.cells().iter().all(|h| h.is_finite()));
    }

    #[test]
    fn terrain_plus_sediment_is_conserved() {
        // Dissolving and depositing move an amount from b to s or back, and
        // the transport shares each cell's s among 4 cells with weights
        // summing to 1, so only rounding changes Σb + Σs: at most a few
        // half-ulps of the values per cell and iteration. The bound below
        // allows 8 roundings of magnitude ≤ 2 per cell and iteration.
        let mut map = diamond_square(33, 33, 1.0, 17).unwrap();
        let p = params(40);
        let before = total(map.cells());
        let left = reference(&mut map, &p, true, false);
        let suspended = total(&left.sediment);
        assert!(suspended > 0.0, "the water carries sediment");
        let after = total(map.cells()) + suspended;
        let bound = 40.0 * 33.0 * 33.0 * 8.0 * f64::from(f32::EPSILON);
        assert!((after - before).abs() < bound, "{after} vs {before}");
        // The job deposits everything at the end: Σb alone is conserved.
        let mut job_map = diamond_square(33, 33, 1.0, 17).unwrap();
        mei(&mut job_map, &p).unwrap();
        let end = total(job_map.cells());
        assert!((end - before).abs() < bound, "{end} vs {before}");
    }

    #[test]
    fn water_never_goes_negative_and_rain_is_the_only_source() {
        let mut map = diamond_square(40, 30, 1.0, 3).unwrap();
        let p = MeiParams {
            evaporation: 0.0,
            ..params(30)
        };
        let left = reference(&mut map, &p, true, false);
        assert!(left.water.iter().all(|&d| d >= 0.0));
        let rained = 30.0 * 40.0 * 30.0 * f64::from(p.effective_time_step() * p.rain);
        let water = total(&left.water);
        assert!(
            (water - rained).abs() < 1e-3 * rained,
            "{water} vs {rained}"
        );
    }

    #[test]
    fn a_large_step_stays_finite_and_bounded() {
        // Δt = 0.5 is 70 times the stable cap for l = 1/256, g = 9.81: as
        // published (no cap, no flux scaling, no velocity clamp) the water
        // oscillates, goes negative and overflows within a few dozen steps;
        // with the safeguards every value stays finite, the water stays ≥ 0
        // and within the rain, and the terrain within its range ± what the
        // capacity can carry.
        let start = diamond_square(33, 33, 1.0, 21).unwrap();
        let p = MeiParams {
            time_step: 0.5,
            ..params(200)
        };
        assert!(p.effective_time_step() < 0.01);
        let mut bare = start.clone();
        let left = reference(&mut bare, &p, false, false);
        let broken = !bare.cells().iter().all(|h| h.is_finite())
            || left.water.iter().any(|&d| !d.is_finite() || d < 0.0);
        assert!(broken, "the unguarded model diverges at this step");

        let mut job = MeiErosion::new(33, 33, &p).unwrap();
        let mut map = start.clone();
        let (lo, hi) = start.min_max();
        let rain = 200.0 * p.effective_time_step() * p.rain;
        while !job.is_done() {
            job.step(&mut map);
            assert!(
                job.water()
                    .iter()
                    .all(|&d| d.is_finite() && (0.0..=rain * 1089.0).contains(&d))
            );
            assert!(job.sediment().iter().all(|&s| s.is_finite() && s >= 0.0));
            let (l, h) = map.min_max();
            assert!(l > lo - 1.0 && h < hi + 1.0, "{l}..{h}");
        }
    }

    #[test]
    fn the_stable_cap_is_the_derived_one() {
        let p = MeiParams::default();
        let cap = stable_time_step(p.gravity, p.cell_size);
        assert!((cap - 0.5 * (1.0f32 / 256.0 / 19.62).sqrt()).abs() < 1e-7);
        assert!(p.time_step <= cap, "the default step is inside the range");
        let job = MeiErosion::new(
            8,
            8,
            &MeiParams {
                time_step: 10.0,
                ..p
            },
        )
        .unwrap();
        assert_eq!(job.time_step(), cap);
    }

    #[test]
    fn it_lowers_peaks_and_fills_valleys() {
        let start = diamond_square(65, 65, 1.0, 11).unwrap();
        let mut map = start.clone();
        mei(&mut map, &params(150)).unwrap();
        let (lo0, hi0) = start.min_max();
        let (lo1, hi1) = map.min_max();
        assert!(hi1 < hi0 - 0.05, "peak {hi0} -> {hi1}");
        assert!(lo1 > lo0 + 0.05, "valley {lo0} -> {lo1}");
        // Olsen's score rises as filled valleys flatten and slopes steepen
        // (0.39 -> 0.50 here).
        let before = metrics(&start).erosion_score;
        let after = metrics(&map).erosion_score;
        assert!(after > before + 0.05, "{before} -> {after}");
    }

    #[test]
    fn runs_are_deterministic() {
        let start = diamond_square(50, 37, 1.0, 2).unwrap();
        let (mut a, mut b) = (start.clone(), start);
        mei(&mut a, &params(20)).unwrap();
        mei(&mut b, &params(20)).unwrap();
        assert_eq!(bits(&a), bits(&b));
    }

    #[test]
    fn out_of_range_parameters_are_one_line_errors() {
        let d = MeiParams::default();
        let cases = [
            (
                MeiParams {
                    iterations: MAX_EROSION_ITERATIONS + 1,
                    ..d
                },
                "iterations",
            ),
            (
                MeiParams {
                    time_step: 0.0,
                    ..d
                },
                "time_step",
            ),
            (
                MeiParams {
                    time_step: f32::INFINITY,
                    ..d
                },
                "time_step",
            ),
            (MeiParams { rain: -1.0, ..d }, "rain"),
            (
                MeiParams {
                    capacity: f32::NAN,
                    ..d
                },
                "capacity",
            ),
            (
                MeiParams {
                    dissolving: 1.5,
                    ..d
                },
                "dissolving",
            ),
            (
                MeiParams {
                    depositing: -0.1,
                    ..d
                },
                "depositing",
            ),
            (
                MeiParams {
                    evaporation: 2.0,
                    ..d
                },
                "evaporation",
            ),
            (MeiParams { min_tilt: 1.1, ..d }, "min_tilt"),
            (MeiParams { gravity: 0.0, ..d }, "gravity"),
            (
                MeiParams {
                    cell_size: 1e5,
                    ..d
                },
                "cell_size",
            ),
        ];
        let mut map = Heightmap::flat(4, 4).unwrap();
        for (p, name) in cases {
            let message = mei(&mut map, &p).unwrap_err().to_string();
            assert!(message.starts_with(name), "{message}");
            assert!(!message.contains('\n'));
            assert!(MeiErosion::new(4, 4, &p).is_err());
        }
        assert!(MeiErosion::new(1, 4, &d).is_err());
        assert_eq!(map, Heightmap::flat(4, 4).unwrap());
    }
}
