//! The world: the terrain growing, the hologram's settled placement and the reseed count; it only applies commands and grows, and knows nothing of hands.
use thiserror::Error;

use super::command::Command;
use super::frame::AppEvent;
use super::growth::GrowthSchedule;
use super::growth::MAX_ITERATIONS_PER_FRAME;
use super::placement::{self, Placement, PlacementCause};
use crate::input::Aabb;
use crate::terrain::recipe::{BuiltInName, Recipe};
use crate::terrain::recipe_growth::RecipeGrowth;
use crate::terrain::rng::mix;
use crate::terrain::{Heightmap, TerrainError};

/// Iterations per second of display time: the demo's one per frame at 60 Hz.
pub const DEFAULT_ITERATIONS_PER_SECOND: u32 = 60;

/// What the app cannot start with.
#[derive(Debug, Error)]
pub enum AppError {
    /// The terrain configuration is unusable.
    #[error("terrain: {0}")]
    Terrain(#[from] TerrainError),
    /// Growth must advance.
    #[error("iterations per second must be at least 1")]
    ZeroGrowthRate,
    /// Growth must advance within a frame too.
    #[error("the per-frame iteration budget must be at least 1")]
    ZeroFrameBudget,
}

/// How the app grows terrain.
#[derive(Debug, Clone)]
pub struct AppConfig {
    /// What the terrain is made of.
    pub recipe: Recipe,
    /// What the recipe is called: its built-in name or its file.
    pub recipe_name: String,
    /// Heightmap samples along x and along y.
    pub width: usize,
    pub height: usize,
    /// The first seed.
    pub seed: u64,
    /// Iterations due per second of display time.
    pub iterations_per_second: u32,
    /// Most iterations one frame applies ([`MAX_ITERATIONS_PER_FRAME`] for
    /// the app; benchmarks lift it to compare with unbudgeted catch-up).
    pub max_iterations_per_frame: usize,
}

impl AppConfig {
    /// The seed author's HoloLens demo on a `width`×`height` map.
    pub fn hololens_demo(width: usize, height: usize, seed: u64) -> Self {
        Self::new(Recipe::demo(), "demo", width, height, seed)
    }

    /// `recipe` (called `recipe_name`) on a `width`×`height` map from `seed`.
    pub fn new(recipe: Recipe, recipe_name: &str, width: usize, height: usize, seed: u64) -> Self {
        AppConfig {
            recipe,
            recipe_name: recipe_name.into(),
            width,
            height,
            seed,
            iterations_per_second: DEFAULT_ITERATIONS_PER_SECOND,
            max_iterations_per_frame: MAX_ITERATIONS_PER_FRAME,
        }
    }
}

/// Which settled placement the hologram has: a new one for every change, so
/// a pose the platform located for an older one is never taken for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlacementId(u64);

/// The terrain, its growth and where the hologram is.
pub struct World {
    /// The terrain being grown.
    growth: RecipeGrowth,
    /// What its recipe is called.
    recipe_name: String,
    /// When the current seed started growing.
    schedule: GrowthSchedule,
    /// Most iterations one frame applies.
    max_iterations_per_frame: usize,
    /// Where the hologram is settled and how big, once placed.
    placement: Option<Placement>,
    /// What made the current placement.
    placed_by: Option<PlacementCause>,
    /// The current placement's id.
    placement_id: PlacementId,
    /// Whether the hologram was ever placed (growth starts with the first placement).
    ever_placed: bool,
    /// Reseeds so far, an input to the next seed.
    reseed_count: u64,
    /// The hologram's bounds in hologram space, kept in step with the heights.
    bounds: Aabb,
    /// Display time of the last frame, to measure time the user did not see.
    last_display_time_ns: Option<i64>,
}

impl World {
    /// The world `config` starts from: flat, not placed, not growing.
    pub fn new(config: &AppConfig) -> Result<Self, AppError> {
        if config.iterations_per_second == 0 {
            return Err(AppError::ZeroGrowthRate);
        }
        if config.max_iterations_per_frame == 0 {
            return Err(AppError::ZeroFrameBudget);
        }
        Ok(World {
            growth: RecipeGrowth::new(
                config.recipe.clone(),
                config.width,
                config.height,
                config.seed,
            )?,
            recipe_name: config.recipe_name.clone(),
            schedule: GrowthSchedule::new(config.iterations_per_second),
            max_iterations_per_frame: config.max_iterations_per_frame,
            placement: None,
            placed_by: None,
            placement_id: PlacementId::default(),
            ever_placed: false,
            reseed_count: 0,
            bounds: placement::hologram_bounds(0.0, 0.0),
            last_display_time_ns: None,
        })
    }

    /// Starts the frame shown at `now`: display time since the last frame
    /// does not count towards growth when this one is not `visible`.
    pub fn begin_frame(&mut self, now: i64, visible: bool) {
        if !visible && let Some(last) = self.last_display_time_ns {
            self.schedule.postpone(now.saturating_sub(last));
        }
        self.last_display_time_ns = Some(now);
    }

    /// Applies `command` at display time `now`; what it changed, if anything
    /// a platform answers (a scale with nothing placed changes nothing).
    pub fn apply(&mut self, command: &Command, now: i64) -> Option<AppEvent> {
        match *command {
            Command::Reseed { cause, hand } => {
                let seed = self.next_seed();
                self.growth.reseed(seed);
                self.schedule.start(now);
                self.update_bounds();
                Some(AppEvent::Reseeded { seed, cause, hand })
            }
            Command::Landscape { cause, name } => {
                let seed = self.next_seed();
                let (width, height) = (
                    self.growth.heightmap().width(),
                    self.growth.heightmap().height(),
                );
                // Built-in recipes are checked by the tests at every size the app takes.
                self.growth = RecipeGrowth::new(name.recipe(), width, height, seed)
                    .expect("a built-in recipe grows on any map");
                self.recipe_name = name.as_str().into();
                self.schedule.start(now);
                self.update_bounds();
                Some(AppEvent::Reseeded {
                    seed,
                    cause,
                    hand: None,
                })
            }
            Command::Place { cause, placement } => {
                if !self.ever_placed {
                    self.schedule.start(now);
                    self.ever_placed = true;
                }
                Some(self.settle(placement, cause))
            }
            Command::Scale { cause, factor } => {
                let current = self.placement?;
                Some(self.settle(current.scaled(current.scale * factor), cause))
            }
            Command::ResetPlacement => {
                self.placement = None;
                self.placed_by = None;
                self.placement_id.0 += 1;
                None
            }
        }
    }

    /// The next seed: `mix(previous seed, reseed count)`, so a run is
    /// reproducible from its first seed.
    fn next_seed(&mut self) -> u64 {
        self.reseed_count += 1;
        mix(self.growth.seed(), self.reseed_count)
    }

    /// Makes `placement` the settled one, as `cause` put it there.
    fn settle(&mut self, placement: Placement, cause: PlacementCause) -> AppEvent {
        self.placement = Some(placement);
        self.placed_by = Some(cause);
        self.placement_id.0 += 1;
        AppEvent::Placed { placement, cause }
    }

    /// Grows the iterations due by `now`, at most the per-frame budget of
    /// them; how many it applied.
    pub fn grow(&mut self, now: i64) -> usize {
        let due = self.schedule.iterations_due(now, self.growth.steps_total());
        let behind = due.saturating_sub(self.growth.steps_done());
        if behind == 0 {
            return 0;
        }
        let applied = self.growth.step(behind.min(self.max_iterations_per_frame));
        if applied > 0 {
            self.update_bounds();
        }
        applied
    }

    /// Brings the bounds in step with the heights. The generator keeps
    /// their range as it writes them, so this costs no pass over the map.
    fn update_bounds(&mut self) {
        let (low, high) = self.growth.height_range();
        self.bounds = placement::hologram_bounds(low, high);
    }

    /// Where the hologram is settled and how big, once placed.
    pub fn placement(&self) -> Option<Placement> {
        self.placement
    }

    /// What made the current placement.
    pub fn placed_by(&self) -> Option<PlacementCause> {
        self.placed_by
    }

    /// The current placement's id.
    pub fn placement_id(&self) -> PlacementId {
        self.placement_id
    }

    /// Whether the hologram was ever placed.
    pub fn ever_placed(&self) -> bool {
        self.ever_placed
    }

    /// The current heights (terrain units).
    pub fn heightmap(&self) -> &Heightmap {
        self.growth.heightmap()
    }

    /// The lowest and highest height now (terrain units).
    pub fn height_range(&self) -> (f32, f32) {
        self.growth.height_range()
    }

    /// The hologram's bounds in hologram space (metres at 1×), relief included.
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// The current seed.
    pub fn seed(&self) -> u64 {
        self.growth.seed()
    }

    /// Iterations applied to the current seed so far.
    pub fn iterations_done(&self) -> usize {
        self.growth.steps_done()
    }

    /// What the terrain is made of.
    pub fn recipe(&self) -> &Recipe {
        self.growth.recipe()
    }

    /// What its recipe is called: a built-in name or a file.
    pub fn recipe_name(&self) -> &str {
        &self.recipe_name
    }

    /// Whether every growth step of the current seed is done.
    pub fn growth_complete(&self) -> bool {
        self.growth.is_complete()
    }

    /// The built-in landscape after the current one (the first after a
    /// recipe from a file).
    pub fn next_landscape(&self) -> BuiltInName {
        BuiltInName::after(&self.recipe_name)
    }

    /// Iterations in a full growth.
    pub fn iterations_total(&self) -> usize {
        self.growth.steps_total()
    }
}
