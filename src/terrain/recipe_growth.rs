//! A recipe grown a bounded slice at a time: fault iterations (or diamond-square level by level), then the finishing smoothing, then weathering; the live frame loop and `generate` both run it, so both end with the same bits.
//!
//! A step is one fault iteration or one slice of a whole-map job
//! ([`Sliced`]), each small enough for a frame's budget; the number of
//! steps in the whole growth is known when it starts.
use super::diamond_square::DiamondSquareGrowth;
use super::erosion::{HydraulicErosion, ThermalErosion};
use super::error::TerrainError;
use super::filter::SmoothingPass;
use super::generator::Generator;
use super::heightmap::Heightmap;
use super::mei::MeiErosion;
use super::midpoint::MidpointGrowth;
use super::particles::ParticleErosion;
use super::plates::PlatesGrowth;
use super::quadtree_growth::QuadtreeGrowth;
use super::recipe::{Growth, Recipe, Thermal, Weathering};
use super::rmp::RmpGrowth;
use super::sliced::Sliced;

/// One part of the growth, in the order they run.
#[derive(Clone)]
enum Job {
    /// The fault generator's iterations (on the generator's own map).
    Faults,
    /// Diamond-square, level by level.
    DiamondSquare(DiamondSquareGrowth),
    /// Square midpoint displacement, level by level.
    Midpoint(MidpointGrowth),
    /// Repeated magnification and probing, a band of a round at a time.
    Rmp(RmpGrowth),
    /// Tectonic plates, a physics step (or a band of its uplift) at a time.
    Plates(Box<PlatesGrowth>),
    /// An edge-matched quadtree tile, a level a step.
    Quadtree(QuadtreeGrowth),
    /// One pass of a finishing filter.
    Smooth(SmoothingPass),
    /// One step: the erosion's working copy of the heights, scaled to
    /// 0..1, where the erosion constants hold.
    ToUnit,
    /// Thermal erosion, a band of an iteration a step.
    Thermal(ThermalErosion),
    /// Hydraulic erosion, a band of an iteration (or of the deposit) a step.
    Hydraulic(HydraulicErosion),
    /// Mei's virtual-pipe erosion, a band of a pass a step.
    Mei(MeiErosion),
    /// Particle erosion, a batch of particle lives a step.
    Particles(ParticleErosion),
    /// One step: the working copy done with (the heights are its, scaled
    /// back from 0..1).
    FromUnit,
    /// A job done with, its buffers let go: a copy of the growth (the
    /// history's checkpoint) need not carry them.
    Finished,
}

/// A recipe growing on one map from one seed.
#[derive(Clone)]
pub struct RecipeGrowth {
    recipe: Recipe,
    width: usize,
    height: usize,
    seed: u64,
    /// The fault generator, when the recipe grows by faults; it holds the
    /// map until its iterations are done.
    generator: Option<Generator>,
    /// The map once no generator holds it.
    map: Heightmap,
    /// Whether `map` is the current one (the faults are done, or there are none).
    map_is_current: bool,
    /// The jobs, in order, and the index of the one running.
    jobs: Vec<Job>,
    current: usize,
    /// Steps done and in all.
    done: usize,
    total: usize,
    /// The lowest and highest height now.
    range: (f32, f32),
    /// The height and span scaled to 0..1 for weathering.
    unit_scale: (f32, f32),
    /// The erosion's working copy at 0..1 (its buffer kept between
    /// erosions), and whether an erosion works on it now. While it does,
    /// `map` holds the working copy scaled back after every step, so that
    /// what is drawn, saved, written and checked is always the terrain's
    /// own heights, never the working scale.
    unit_map: Option<Heightmap>,
    eroding: bool,
    /// The steps at which "Weather" started erosion early.
    weathered_at: Vec<usize>,
}

impl RecipeGrowth {
    /// `recipe` on a `width`×`height` map from `seed`, nothing grown yet.
    pub fn new(
        recipe: Recipe,
        width: usize,
        height: usize,
        seed: u64,
    ) -> Result<Self, TerrainError> {
        super::heightmap::check_size(width, height)?;
        let generator = match recipe.generator_config(width, height) {
            Some(config) => Some(Generator::new(config, seed)?),
            None => None,
        };
        let mut growth = RecipeGrowth {
            recipe,
            width,
            height,
            seed,
            generator,
            map: Heightmap::flat(width, height)?,
            map_is_current: false,
            jobs: Vec::new(),
            current: 0,
            done: 0,
            total: 0,
            range: (0.0, 0.0),
            unit_scale: (0.0, 1.0),
            unit_map: None,
            eroding: false,
            weathered_at: Vec::new(),
        };
        growth.start()?;
        Ok(growth)
    }

    /// Makes the jobs for the current seed, from a flat map.
    fn start(&mut self) -> Result<(), TerrainError> {
        let (width, height) = (self.width, self.height);
        let mut jobs = Vec::new();
        let growth = &self.recipe.growth;
        match growth {
            &Growth::DiamondSquare { roughness } => jobs.push(Job::DiamondSquare(
                DiamondSquareGrowth::new(width, height, roughness, self.seed)?,
            )),
            Growth::Midpoint { .. } => jobs.push(Job::Midpoint(MidpointGrowth::new(
                width,
                height,
                &growth.midpoint_params().expect("a midpoint growth"),
                self.seed,
            )?)),
            Growth::Rmp { .. } => jobs.push(Job::Rmp(RmpGrowth::new(
                width,
                height,
                &growth.rmp_params().expect("an RMP growth"),
                self.seed,
            )?)),
            Growth::Plates { .. } => jobs.push(Job::Plates(Box::new(PlatesGrowth::new(
                width,
                height,
                &growth.plates_params().expect("a plates growth"),
                self.seed,
            )?))),
            Growth::Quadtree { .. } => jobs.push(Job::Quadtree(QuadtreeGrowth::new(
                width,
                height,
                &growth.quadtree_params().expect("a quadtree growth"),
                self.seed,
            )?)),
            Growth::Fault { .. } | Growth::Bsp(_) | Growth::BspStructured(_) => {
                jobs.push(Job::Faults)
            }
        }
        for finish in &self.recipe.finish {
            for smoothing in finish.passes() {
                jobs.push(Job::Smooth(SmoothingPass::new(smoothing, width, height)?));
            }
        }
        let weathering = self.recipe.weathering;
        if weathering.is_some() {
            jobs.extend(self.weathering_jobs(&weathering)?);
        }
        self.total = jobs.iter().map(|job| self.slices_of(job)).sum();
        self.jobs = jobs;
        self.weathered_at.clear();
        self.eroding = false;
        self.current = 0;
        self.done = 0;
        self.map_is_current = self.generator.is_none();
        self.map.cells_mut().fill(0.0);
        self.range = (0.0, 0.0);
        Ok(())
    }

    /// The jobs of one round of `weathering`: to 0..1, each erosion it
    /// names, back.
    fn weathering_jobs(&self, weathering: &Weathering) -> Result<Vec<Job>, TerrainError> {
        let (width, height) = (self.width, self.height);
        let mut jobs = vec![Job::ToUnit];
        if let Some(thermal) = weathering.thermal {
            jobs.push(Job::Thermal(ThermalErosion::banded(
                width,
                height,
                &thermal.into(),
            )?));
        }
        if let Some(hydraulic) = weathering.hydraulic {
            jobs.push(Job::Hydraulic(HydraulicErosion::new(
                width,
                height,
                &hydraulic.into(),
            )?));
        }
        if let Some(mei) = weathering.mei {
            jobs.push(Job::Mei(MeiErosion::new(width, height, &mei)?));
        }
        if let Some(particles) = weathering.particles {
            jobs.push(Job::Particles(ParticleErosion::new(
                width, height, &particles, self.seed,
            )?));
        }
        jobs.push(Job::FromUnit);
        Ok(jobs)
    }

    /// "Weather": the recipe's erosion (thermal erosion with its defaults
    /// for a recipe that has none) starts now on the heights as they stand,
    /// in place of what was left of the growth; once the growth is done, a
    /// new round of it. Deterministic, so a log replays it at the same step.
    pub fn weather_now(&mut self) {
        if !self.map_is_current
            && let Some(generator) = &self.generator
        {
            self.map
                .cells_mut()
                .copy_from_slice(generator.heightmap().cells());
            self.map_is_current = true;
        }
        let weathering = if self.recipe.weathering.is_some() {
            self.recipe.weathering
        } else {
            Weathering {
                thermal: Some(Thermal::default()),
                ..Weathering::default()
            }
        };
        let jobs = self
            .weathering_jobs(&weathering)
            .expect("erosion that started on this map starts again");
        // An erosion under way stops where it stands: `map` holds its
        // heights already, scaled back.
        self.eroding = false;
        self.jobs.truncate(self.current.min(self.jobs.len()));
        self.current = self.jobs.len();
        self.total = self.done + jobs.iter().map(|job| self.slices_of(job)).sum::<usize>();
        self.jobs.extend(jobs);
        self.range = self.map.min_max();
        self.weathered_at.push(self.done);
    }

    /// A copy without the buffers it keeps only to reuse (the erosion's
    /// working copy between erosions): what the history's checkpoints keep.
    pub fn without_scratch(&self) -> RecipeGrowth {
        let mut copy = self.clone();
        if !copy.eroding {
            copy.unit_map = None;
        }
        copy
    }

    /// The steps at which "Weather" started erosion, in order.
    pub fn weathered_at(&self) -> &[usize] {
        &self.weathered_at
    }

    /// `recipe` from `seed` grown again to `steps`, weathered at the same
    /// steps as before: the growth exactly as it stood (undo's way back
    /// from a "Weather").
    pub fn regrown(
        recipe: Recipe,
        width: usize,
        height: usize,
        seed: u64,
        weathered_at: &[usize],
        steps: usize,
    ) -> Result<Self, TerrainError> {
        let mut growth = Self::new(recipe, width, height, seed)?;
        for &at in weathered_at {
            growth.step(at.saturating_sub(growth.done));
            growth.weather_now();
        }
        growth.step(steps.saturating_sub(growth.done));
        Ok(growth)
    }

    /// Steps in `job`.
    fn slices_of(&self, job: &Job) -> usize {
        match job {
            Job::Faults => self
                .generator
                .as_ref()
                .map_or(0, Generator::iterations_total),
            Job::DiamondSquare(job) => job.slices(),
            Job::Midpoint(job) => job.slices(),
            Job::Rmp(job) => job.slices(),
            Job::Plates(job) => job.slices(),
            Job::Quadtree(job) => job.slices(),
            Job::Smooth(job) => job.slices(),
            Job::Thermal(job) => job.slices(),
            Job::Hydraulic(job) => job.slices(),
            Job::Mei(job) => job.slices(),
            Job::Particles(job) => job.slices(),
            Job::ToUnit | Job::FromUnit => 1,
            Job::Finished => 0,
        }
    }

    /// Grows up to `steps` more steps; how many it did.
    pub fn step(&mut self, steps: usize) -> usize {
        let mut left = steps;
        let mut map_changed = false;
        while left > 0 && self.current < self.jobs.len() {
            let did = match &mut self.jobs[self.current] {
                Job::Faults => {
                    let generator = self.generator.as_mut().expect("faults have a generator");
                    let did = generator.step(left);
                    if generator.iterations_done() >= generator.iterations_total() {
                        // The later jobs work on a map of their own.
                        self.map
                            .cells_mut()
                            .copy_from_slice(generator.heightmap().cells());
                        self.map_is_current = true;
                        self.generator = None;
                        // The range is the map's now, not the generator's.
                        map_changed = true;
                        self.current += 1;
                    }
                    did
                }
                job => {
                    let map = match self.unit_map.as_mut() {
                        Some(unit) if self.eroding => unit,
                        _ => &mut self.map,
                    };
                    let finished = match job {
                        Job::DiamondSquare(job) => step_job(job, map),
                        Job::Midpoint(job) => step_job(job, map),
                        Job::Rmp(job) => step_job(job, map),
                        Job::Plates(job) => step_job(job.as_mut(), map),
                        Job::Quadtree(job) => step_job(job, map),
                        Job::Smooth(job) => step_job(job, map),
                        Job::Thermal(job) => step_job(job, map),
                        Job::Hydraulic(job) => step_job(job, map),
                        Job::Mei(job) => step_job(job, map),
                        Job::Particles(job) => step_job(job, map),
                        Job::ToUnit => {
                            let (low, high) = self.map.min_max();
                            let span = if high > low { high - low } else { 1.0 };
                            let unit = self.unit_map.get_or_insert_with(|| self.map.clone());
                            for (u, h) in unit.cells_mut().iter_mut().zip(self.map.cells()) {
                                *u = (*h - low) / span;
                            }
                            self.unit_scale = (low, span);
                            self.eroding = true;
                            true
                        }
                        Job::FromUnit => {
                            if let Some(unit) = &self.unit_map {
                                from_unit(unit, self.unit_scale, &mut self.map);
                            }
                            self.eroding = false;
                            true
                        }
                        Job::Faults => unreachable!("matched above"),
                        Job::Finished => unreachable!("a finished job is never current"),
                    };
                    map_changed = true;
                    if finished {
                        self.jobs[self.current] = Job::Finished;
                        self.current += 1;
                    }
                    1
                }
            };
            if did == 0 {
                break;
            }
            self.done += did;
            left -= did.min(left);
        }
        if map_changed {
            if self.eroding
                && let Some(unit) = &self.unit_map
            {
                from_unit(unit, self.unit_scale, &mut self.map);
            }
            self.range = self.map.min_max();
        }
        steps - left
    }

    /// Grows to the end, telling `progress` (done, total) as it goes.
    pub fn run_to_end(&mut self, mut progress: impl FnMut(usize, usize)) {
        const BATCH: usize = 64;
        while self.done < self.total {
            if self.step(BATCH) == 0 {
                break;
            }
            progress(self.done, self.total);
        }
    }

    /// The heights as grown so far.
    pub fn heightmap(&self) -> &Heightmap {
        match &self.generator {
            Some(generator) if !self.map_is_current => generator.heightmap(),
            _ => &self.map,
        }
    }

    /// The finished map.
    pub fn into_heightmap(self) -> Heightmap {
        match self.generator {
            Some(generator) if !self.map_is_current => generator.into_heightmap(),
            _ => self.map,
        }
    }

    /// The lowest and highest height now (kept as the heights are written).
    pub fn height_range(&self) -> (f32, f32) {
        match &self.generator {
            Some(generator) if !self.map_is_current => generator.height_range(),
            _ => self.range,
        }
    }

    /// The recipe.
    pub fn recipe(&self) -> &Recipe {
        &self.recipe
    }

    /// The current seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Steps done on the current seed.
    pub fn steps_done(&self) -> usize {
        self.done
    }

    /// Steps in the whole growth.
    pub fn steps_total(&self) -> usize {
        self.total
    }

    /// Whether every step is done: the map is what `generate` writes.
    pub fn is_complete(&self) -> bool {
        self.done >= self.total
    }
}

/// One slice of `job` on `map`; whether the job is now done.
fn step_job(job: &mut (impl Sliced + ?Sized), map: &mut Heightmap) -> bool {
    job.step(map);
    job.is_done()
}

/// `unit`'s heights scaled back from 0..1 by `(low, span)` into `map`.
fn from_unit(unit: &Heightmap, (low, span): (f32, f32), map: &mut Heightmap) {
    for (h, u) in map.cells_mut().iter_mut().zip(unit.cells()) {
        *h = low + *u * span;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weather_starts_erosion_now_and_regrowing_gives_the_same_bits() {
        let recipe = Recipe::built_in("demo").unwrap();
        let mut growth = RecipeGrowth::new(recipe.clone(), 33, 33, 9).unwrap();
        growth.step(120);
        let before = growth.heightmap().cells().to_vec();
        growth.weather_now();
        assert_eq!(
            growth.heightmap().cells(),
            &before[..],
            "nothing moves until it steps"
        );
        assert!(growth.steps_total() > 120 && !growth.is_complete());
        growth.run_to_end(|_, _| {});
        let weathered = growth.heightmap().cells().to_vec();
        assert_ne!(weathered, before, "the erosion changed the land");
        // Without the weather, the same steps give other heights.
        let mut plain = RecipeGrowth::new(recipe.clone(), 33, 33, 9).unwrap();
        plain.run_to_end(|_, _| {});
        assert_ne!(plain.heightmap().cells(), &weathered[..]);
        let again = RecipeGrowth::regrown(
            recipe,
            33,
            33,
            9,
            growth.weathered_at(),
            growth.steps_done(),
        )
        .unwrap();
        assert_eq!(again.heightmap().cells(), &weathered[..]);
        assert_eq!(again.steps_done(), growth.steps_done());
    }
    use crate::terrain::recipe::BuiltInName;

    #[test]
    fn a_copy_taken_mid_way_grows_on_to_the_same_bits() {
        // The history's checkpoints are such copies; plates' physics is
        // copied without its pipelines, which must hold nothing that counts.
        for name in Recipe::built_in_names().filter_map(BuiltInName::new) {
            let mut whole = RecipeGrowth::new(name.recipe(), 33, 33, 4).unwrap();
            whole.run_to_end(|_, _| {});
            let total = whole.steps_total();
            for fifth in 1..5 {
                let mut growth = RecipeGrowth::new(name.recipe(), 33, 33, 4).unwrap();
                growth.step(total * fifth / 5);
                let mut copy = growth.clone();
                assert_eq!(copy.heightmap().cells(), growth.heightmap().cells());
                copy.step(total);
                assert_eq!(
                    copy.heightmap().cells(),
                    whole.heightmap().cells(),
                    "{} copied at step {}",
                    name.as_str(),
                    total * fifth / 5
                );
            }
        }
    }

    /// Whether `inner` lies within `outer`, give or take `slack`.
    fn within(inner: (f32, f32), outer: (f32, f32), slack: f32) -> bool {
        inner.0 >= outer.0 - slack && inner.1 <= outer.1 + slack
    }

    #[test]
    fn the_heights_are_the_terrains_own_at_every_step_of_an_erosion() {
        // Before the change, an erosion showed its 0..1 working scale:
        // badlands rose to 0.999 mid-growth against 0.088 when done.
        for name in Recipe::built_in_names().filter_map(BuiltInName::new) {
            let mut finished = RecipeGrowth::new(name.recipe(), 33, 33, 5).unwrap();
            finished.run_to_end(|_, _| {});
            let after = finished.height_range();
            let mut growth = RecipeGrowth::new(name.recipe(), 33, 33, 5).unwrap();
            let mut before = growth.height_range();
            while !growth.is_complete() {
                if !growth.eroding {
                    before = growth.height_range();
                }
                growth.step(3);
                if growth.eroding {
                    let span = (before.1 - before.0).max(after.1 - after.0);
                    let outer = (before.0.min(after.0), before.1.max(after.1));
                    let shown = growth.heightmap().min_max();
                    assert!(
                        within(shown, outer, 0.05 * span),
                        "{} at step {}: {shown:?} outside {outer:?}",
                        name.as_str(),
                        growth.steps_done()
                    );
                }
            }
            assert_eq!(growth.heightmap().cells(), finished.heightmap().cells());
        }
    }

    #[test]
    fn weather_pressed_during_an_erosion_goes_on_from_the_terrains_heights() {
        let recipe = BuiltInName::new("badlands").unwrap().recipe();
        let mut growth = RecipeGrowth::new(recipe, 33, 33, 5).unwrap();
        while !growth.eroding {
            growth.step(1);
        }
        growth.step(5);
        let shown = growth.height_range();
        growth.weather_now();
        assert_eq!(growth.height_range(), shown);
        growth.run_to_end(|_, _| {});
        let (low, high) = growth.height_range();
        assert!(
            within((low, high), shown, 0.05 * (shown.1 - shown.0)),
            "{:?} after weathering from {shown:?}",
            (low, high)
        );
    }

    #[test]
    fn the_kept_height_range_is_the_maps_at_every_step() {
        for name in Recipe::built_in_names().filter_map(BuiltInName::new) {
            let mut growth = RecipeGrowth::new(name.recipe(), 33, 33, 5).unwrap();
            while !growth.is_complete() {
                growth.step(7);
                assert_eq!(
                    growth.height_range(),
                    growth.heightmap().min_max(),
                    "{} at step {}",
                    name.as_str(),
                    growth.steps_done()
                );
            }
        }
    }
}
