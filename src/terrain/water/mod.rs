//! The live water layer: a depth of water on every cell of the terrain, flowing through Mei, Decaudin and Hu's virtual pipes at a fixed stable step, fed by rain and springs, held at a sea level, draining off the map's open edge, evaporating, and (when asked) carving the ground.
//!
//! The pipes, the erosion and deposition and the sediment transport are
//! [`mei`](super::mei)'s own functions; what this layer adds is what live
//! water needs and a growth step does not: sources that start and stop,
//! open edges, a sea, friction so that a lake comes to rest, an exact
//! ledger of where the water went, and carving reported as a change to the
//! ground in a layer the caller keeps (so that undo can take it back).
//!
//! A step is four passes over the map (sources, flux, depth, and with
//! carving on the sediment transport), plus one for the sea when there is
//! one. It uses only `+ − × /`, `sqrt`, `min`, `max` and comparisons, in a
//! fixed order on one thread, so the bits are the same on every platform;
//! it allocates nothing.
mod sources;
#[cfg(test)]
mod tests;

pub use sources::{MAX_SOURCE_SECONDS, MAX_SOURCES, SourceId, WaterSource};

use super::erosion::{check_non_negative, check_scale, check_unit, check_within};
use super::error::TerrainError;
use super::heightmap::check_size;
use super::mei::{Carving, Pipes, ground_tilt, scatter_sediment, stable_time_step};
use sources::{RunningSource, steps_for};

/// Depth under which what is left after evaporation evaporates too: a film
/// decaying towards zero would reach subnormal floats, which are many times
/// slower to compute with, and a dry cell's flux is skipped. It is 10⁻⁴ of
/// [`MIN_VELOCITY_DEPTH`](super::mei::MIN_VELOCITY_DEPTH), far below any
/// depth a renderer shows.
pub const DRY_DEPTH: f32 = 1e-10;

/// Parameters of a [`WaterLayer`], fixed when it is made.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WaterParams {
    /// l: the distance between two samples, in height units, in
    /// [0.0001, 10000]. With 1/256 a 257-sample map is one unit across,
    /// and a recipe's heights (about 0 to 0.25) are hills, not cliffs.
    pub cell_size: f32,
    /// g, in [0.0001, 10000]. With l it fixes the step,
    /// Δt = ½ · √(l / (2g)) (Mei's stable step, [`stable_time_step`]).
    pub gravity: f32,
    /// Share of the pipe flux lost per simulated second, in [0, 100]: a
    /// friction Mei's pipes lack, without which a lake's waves never die.
    pub friction: f32,
    /// Ke: share of the water evaporating per simulated second, in [0, 1].
    pub evaporation: f32,
    /// Kc: sediment capacity per unit of speed and tilt; finite and ≥ 0.
    pub capacity: f32,
    /// Ks: share of the spare capacity dissolved per step, in [0, 1].
    pub dissolving: f32,
    /// Kd: share of the sediment above capacity deposited per step, in [0, 1].
    pub depositing: f32,
    /// Smallest sin(tilt) used in the capacity, in [0, 1].
    pub min_tilt: f32,
}

impl Default for WaterParams {
    /// l = 1/256 and g = 9.81 (Δt = 0.00706 s); friction 2 per second (a
    /// wave's height halves in about 0.7 simulated seconds); evaporation
    /// 0.02 per second (a pond loses 2 % of its depth a simulated second);
    /// Mei's erosion constants as in [`MeiParams`](super::mei::MeiParams)
    /// but a tenth of the capacity: with 0.2 the carving test's heavy rain
    /// (0.3 a second) cut its channel 0.10 deep on average (0.4 of a
    /// recipe's relief) in 10.6 simulated seconds, too fast to watch; with
    /// 0.02, 0.05.
    fn default() -> Self {
        WaterParams {
            cell_size: 1.0 / 256.0,
            gravity: 9.81,
            friction: 2.0,
            evaporation: 0.02,
            capacity: 0.02,
            dissolving: 0.3,
            depositing: 0.3,
            min_tilt: 0.05,
        }
    }
}

impl WaterParams {
    /// Checks every field against its range; the error names the first
    /// field out of range and the range.
    pub fn validate(&self) -> Result<(), TerrainError> {
        check_scale("cell_size", self.cell_size)?;
        check_scale("gravity", self.gravity)?;
        check_within("friction", self.friction, 0.0, 100.0, "between 0 and 100")?;
        check_unit("evaporation", self.evaporation)?;
        check_non_negative("capacity", self.capacity)?;
        check_unit("dissolving", self.dissolving)?;
        check_unit("depositing", self.depositing)?;
        check_unit("min_tilt", self.min_tilt)
    }

    /// Simulated seconds a step takes: Mei's stable step for g and l.
    pub fn time_step(&self) -> f32 {
        stable_time_step(self.gravity, self.cell_size)
    }
}

/// Where the water went, each summed over the cells in units of water
/// depth (height units; times `cell_size²` for a volume). Rain and springs
/// in plus what the sea gave equals what stands on the map plus what
/// drained off the edge plus what evaporated, up to f32 rounding
/// ([`WaterLedger::imbalance`]).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct WaterLedger {
    /// Rain and springs, every source.
    pub rained: f64,
    /// What the sea gave the cells below it to stand at its level, less
    /// what it took from them (negative when it took more).
    pub sea: f64,
    /// Water standing on the map now.
    pub on_map: f64,
    /// Water that flowed off the map's edge.
    pub drained: f64,
    /// Water that evaporated.
    pub evaporated: f64,
}

impl WaterLedger {
    /// `rained + sea − on_map − drained − evaporated`: zero but for f32
    /// rounding in the pipes.
    pub fn imbalance(&self) -> f64 {
        self.rained + self.sea - self.on_map - self.drained - self.evaporated
    }
}

/// What carving moved, in height units summed over the cells: the ground
/// lost `eroded` and gained `deposited`, and the water carries the rest,
/// so `eroded = deposited + suspended` up to f32 rounding.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct SedimentLedger {
    pub eroded: f64,
    pub deposited: f64,
    pub suspended: f64,
}

/// Live water on a `width × height` terrain; see the module's description.
#[derive(Debug, Clone)]
pub struct WaterLayer {
    width: usize,
    height: usize,
    params: WaterParams,
    pipes: Pipes,
    carving_constants: Carving,
    /// max(0, 1 − friction · Δt): the flux kept from one step to the next.
    flux_keep: f32,
    /// max(0, 1 − Ke · Δt): the water kept after evaporation.
    water_keep: f32,
    /// Depth d per cell, row-major.
    depth: Vec<f32>,
    /// Outflow flux to the left, right, upper (y − 1) and lower (y + 1)
    /// neighbour; at the border, off the map.
    flux: Vec<[f32; 4]>,
    /// Mei's velocity (u, v) per cell, from the last step.
    velocity: Vec<[f32; 2]>,
    /// Cells the sediment moves in the transport pass (carving only).
    drift: Vec<[f32; 2]>,
    /// Sediment in suspension per cell.
    sediment: Vec<f32>,
    /// Where the transport pass gathers the moved sediment.
    moved: Vec<f32>,
    /// The running sources, in the order they were added; allocated for
    /// [`MAX_SOURCES`] once.
    sources: Vec<RunningSource>,
    next_source: u64,
    sea_level: Option<f32>,
    carving: bool,
    /// The ledger without `on_map`, which is summed when asked.
    ledger: WaterLedger,
    eroded: f64,
    deposited: f64,
    steps_taken: u64,
}

impl WaterLayer {
    /// A dry layer over a `width × height` map, with no sources, no sea
    /// and carving off.
    pub fn new(width: usize, height: usize, params: &WaterParams) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        params.validate()?;
        let len = width * height;
        let dt = params.time_step();
        Ok(WaterLayer {
            width,
            height,
            params: *params,
            pipes: Pipes::new(dt, params.gravity, params.cell_size),
            carving_constants: Carving {
                capacity: params.capacity,
                dissolving: params.dissolving,
                depositing: params.depositing,
                min_tilt: params.min_tilt,
            },
            flux_keep: (1.0 - params.friction * dt).max(0.0),
            water_keep: (1.0 - params.evaporation * dt).max(0.0),
            depth: vec![0.0; len],
            flux: vec![[0.0; 4]; len],
            velocity: vec![[0.0; 2]; len],
            drift: vec![[0.0; 2]; len],
            sediment: vec![0.0; len],
            moved: vec![0.0; len],
            sources: Vec::with_capacity(MAX_SOURCES),
            next_source: 0,
            sea_level: None,
            carving: false,
            ledger: WaterLedger::default(),
            eroded: 0.0,
            deposited: 0.0,
            steps_taken: 0,
        })
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn params(&self) -> &WaterParams {
        &self.params
    }

    /// Simulated seconds one [`step`](Self::step) advances.
    pub fn time_step(&self) -> f32 {
        self.pipes.dt
    }

    /// Steps taken since the layer was made.
    pub fn steps_taken(&self) -> u64 {
        self.steps_taken
    }

    /// Starts `source` for `seconds` of simulated time (rounded to whole
    /// steps, at least one) or, with `None`, until stopped.
    pub fn add_source(
        &mut self,
        source: WaterSource,
        seconds: Option<f32>,
    ) -> Result<SourceId, TerrainError> {
        source.validate()?;
        let steps = seconds
            .map(|seconds| steps_for(seconds, self.pipes.dt))
            .transpose()?;
        if self.sources.len() >= MAX_SOURCES {
            return Err(TerrainError::out_of_range(
                "sources",
                self.sources.len() + 1,
                "at most 64 running at once",
            ));
        }
        let id = SourceId(self.next_source);
        self.next_source += 1;
        let size = (self.width, self.height);
        let running = RunningSource::new(id, source, steps, size, self.pipes.dt);
        self.sources.push(running);
        Ok(id)
    }

    /// Stops the source `id`; false if it was not running (never added,
    /// stopped, or its time ran out).
    pub fn stop_source(&mut self, id: SourceId) -> bool {
        let before = self.sources.len();
        self.sources.retain(|source| source.id != id);
        self.sources.len() < before
    }

    /// Stops every source.
    pub fn stop_all_sources(&mut self) {
        self.sources.clear();
    }

    /// The running sources in the order they were added, each with the
    /// steps it has left (`None`: until stopped).
    pub fn sources(&self) -> impl Iterator<Item = (SourceId, WaterSource, Option<u64>)> + '_ {
        self.sources
            .iter()
            .map(|running| (running.id, running.source, running.steps_left))
    }

    /// From the next step on, cells whose ground is below `level` hold
    /// water up to it exactly (`None`: no sea). The sea gives and takes
    /// what that needs; the ledger counts it as `sea`.
    pub fn set_sea_level(&mut self, level: Option<f32>) -> Result<(), TerrainError> {
        if let Some(level) = level
            && !level.is_finite()
        {
            return Err(TerrainError::out_of_range(
                "sea_level",
                level,
                "a finite number",
            ));
        }
        self.sea_level = level;
        Ok(())
    }

    pub fn sea_level(&self) -> Option<f32> {
        self.sea_level
    }

    /// Turns the rivers' carving on or off. Turning it off lays the
    /// sediment still in suspension down where it is, added to `carved`
    /// (the caller's change to the ground, the map's size).
    pub fn set_carving(&mut self, on: bool, carved: &mut [f32]) {
        assert_eq!(carved.len(), self.depth.len(), "carved is the map's size");
        if !on {
            for (change, s) in carved.iter_mut().zip(&mut self.sediment) {
                *change += *s;
                self.deposited += f64::from(*s);
                *s = 0.0;
            }
        }
        self.carving = on;
    }

    pub fn carving(&self) -> bool {
        self.carving
    }

    /// Water depth per cell, row-major, in height units.
    pub fn depth(&self) -> &[f32] {
        &self.depth
    }

    /// Mei's velocity (u along x, v along y) per cell, in height units per
    /// simulated second, from the last step; zero under a 10⁻⁶ film.
    pub fn velocity(&self) -> &[[f32; 2]] {
        &self.velocity
    }

    /// Sediment in suspension per cell, in height units.
    pub fn sediment(&self) -> &[f32] {
        &self.sediment
    }

    /// Where the water went so far; `on_map` is summed now.
    pub fn ledger(&self) -> WaterLedger {
        WaterLedger {
            on_map: self.depth.iter().map(|&d| f64::from(d)).sum(),
            ..self.ledger
        }
    }

    /// What carving moved so far; `suspended` is summed now.
    pub fn sediment_ledger(&self) -> SedimentLedger {
        SedimentLedger {
            eroded: self.eroded,
            deposited: self.deposited,
            suspended: self.sediment.iter().map(|&s| f64::from(s)).sum(),
        }
    }

    /// The first 8 bytes of the SHA-256 of every depth, flux and sediment
    /// value's bits (little-endian, row after row): the state the next
    /// step starts from. Two layers stepped alike agree to the bit.
    pub fn checksum(&self) -> u64 {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        let values = self.depth.iter().chain(self.flux.as_flattened());
        for value in values.chain(&self.sediment) {
            hasher.update(value.to_bits().to_le_bytes());
        }
        let digest = hasher.finalize();
        u64::from_le_bytes(digest[..8].try_into().expect("a SHA-256 has 32 bytes"))
    }

    /// Advances the water one step ([`time_step`](Self::time_step)
    /// simulated seconds) over `ground` (the terrain's heights, row-major,
    /// the map's size). With carving on, the step's cut (negative) and fill
    /// (positive) are added to `carved`; the ground the water sees changes
    /// only when the caller folds `carved` into `ground`.
    pub fn step(&mut self, ground: &[f32], carved: &mut [f32]) {
        let len = self.depth.len();
        assert_eq!(ground.len(), len, "ground is the map's size");
        assert_eq!(carved.len(), len, "carved is the map's size");
        self.rain();
        self.flux_pass(ground);
        self.depth_pass(ground, carved);
        self.drain_edges();
        if self.carving {
            self.transport_pass(ground);
        }
        self.hold_sea(ground);
        self.steps_taken += 1;
    }

    /// `count` steps over the same `ground`: the same bits as `count`
    /// calls of [`step`](Self::step).
    pub fn steps(&mut self, count: u32, ground: &[f32], carved: &mut [f32]) {
        for _ in 0..count {
            self.step(ground, carved);
        }
    }

    /// Every running source adds its step of water; sources whose time ran
    /// out stop.
    fn rain(&mut self) {
        for source in &mut self.sources {
            self.ledger.rained += source.rain_into(&mut self.depth, self.width);
            if let Some(left) = &mut source.steps_left {
                *left -= 1;
            }
        }
        self.sources.retain(|source| source.steps_left != Some(0));
    }

    /// Mei's pipes from every cell to its 4 neighbours, with friction; at
    /// the border a pipe leads off the map onto dry land as high as the
    /// edge cell, so water at the edge runs off it.
    fn flux_pass(&mut self, ground: &[f32]) {
        let (w, h) = (self.width, self.height);
        let depth = &self.depth;
        let level_at = |n: usize| ground[n] + depth[n];
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                let d = depth[i];
                if d <= 0.0 {
                    // A dry cell sends nothing: Mei's scaling would zero it.
                    self.flux[i] = [0.0; 4];
                    continue;
                }
                let beyond = ground[i];
                let others = [
                    if x > 0 { level_at(i - 1) } else { beyond },
                    if x + 1 < w { level_at(i + 1) } else { beyond },
                    if y > 0 { level_at(i - w) } else { beyond },
                    if y + 1 < h { level_at(i + w) } else { beyond },
                ];
                let level = ground[i] + d;
                let kept = self.flux_keep;
                self.flux[i] = self
                    .pipes
                    .flux(self.flux[i], kept, d, level, others.map(Some));
            }
        }
    }

    /// New depth and velocity, carving, and evaporation, cell by cell;
    /// reads the neighbours' flux and only its own depth.
    fn depth_pass(&mut self, ground: &[f32], carved: &mut [f32]) {
        let (w, h) = (self.width, self.height);
        let mut evaporated = 0.0f64;
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                let out = self.flux[i];
                let inflows = [
                    if x > 0 { self.flux[i - 1][1] } else { 0.0 },
                    if x + 1 < w { self.flux[i + 1][0] } else { 0.0 },
                    if y > 0 { self.flux[i - w][3] } else { 0.0 },
                    if y + 1 < h { self.flux[i + w][2] } else { 0.0 },
                ];
                let inflow = inflows[0] + inflows[1] + inflows[2] + inflows[3];
                let outflow = out[0] + out[1] + out[2] + out[3];
                let rained = self.depth[i];
                let depth = self.pipes.depth(rained, inflow, outflow);
                let (velocity, drift) = self.pipes.velocity(out, inflows, rained, depth);
                self.velocity[i] = velocity;
                if self.carving {
                    self.carve((x, y), ground, velocity, drift, carved);
                }
                let mut kept = depth * self.water_keep;
                if kept < DRY_DEPTH {
                    kept = 0.0;
                }
                evaporated += f64::from(depth) - f64::from(kept);
                self.depth[i] = kept;
            }
        }
        self.ledger.evaporated += evaporated;
    }

    /// Mei's erosion or deposition at (x, y): the ground's change goes to
    /// `carved`, the sediment's to the layer.
    fn carve(
        &mut self,
        (x, y): (usize, usize),
        ground: &[f32],
        velocity: [f32; 2],
        drift: [f32; 2],
        carved: &mut [f32],
    ) {
        let (w, h) = (self.width, self.height);
        let i = y * w + x;
        let constants = &self.carving_constants;
        let tilt = ground_tilt(
            ground,
            (x, y),
            (w, h),
            self.pipes.length,
            constants.min_tilt,
        );
        let s = self.sediment[i];
        let to_ground = constants.exchange(tilt, velocity, s);
        carved[i] += to_ground;
        self.sediment[i] = s - to_ground;
        self.drift[i] = drift;
        if to_ground < 0.0 {
            self.eroded -= f64::from(to_ground);
        } else {
            self.deposited += f64::from(to_ground);
        }
    }

    /// Counts the flux through the border pipes as drained.
    fn drain_edges(&mut self) {
        let (w, h) = (self.width, self.height);
        let mut out = 0.0f64;
        for x in 0..w {
            out += f64::from(self.flux[x][2]) + f64::from(self.flux[(h - 1) * w + x][3]);
        }
        for y in 0..h {
            out += f64::from(self.flux[y * w][0]) + f64::from(self.flux[y * w + w - 1][1]);
        }
        self.ledger.drained += out * f64::from(self.pipes.dt) / f64::from(self.pipes.area);
    }

    /// Mei's transport traced forward (the shared splat), then the moved
    /// sediment becomes the sediment.
    fn transport_pass(&mut self, ground: &[f32]) {
        let (w, h) = (self.width, self.height);
        self.moved.fill(0.0);
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                let s = self.sediment[i];
                if s == 0.0 {
                    continue;
                }
                let level = ground[i] + self.depth[i];
                scatter_sediment(
                    (x, y),
                    (w, h),
                    s,
                    self.drift[i],
                    level,
                    ground,
                    &mut self.moved,
                );
            }
        }
        std::mem::swap(&mut self.sediment, &mut self.moved);
    }

    /// Fills every cell whose ground is below the sea level to exactly it.
    fn hold_sea(&mut self, ground: &[f32]) {
        let Some(sea) = self.sea_level else {
            return;
        };
        let mut given = 0.0f64;
        for (depth, &b) in self.depth.iter_mut().zip(ground) {
            if b < sea {
                let target = sea - b;
                given += f64::from(target) - f64::from(*depth);
                *depth = target;
            }
        }
        self.ledger.sea += given;
    }
}
