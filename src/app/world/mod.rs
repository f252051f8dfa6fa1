//! The world: the terrain growing, the hand edits over it, what undo can take back, the hologram's settled placement and the reseed count; it only applies commands and grows, and knows nothing of hands.
pub mod command;
pub mod edits;
pub mod growth;
pub mod history;
pub mod kept;
pub mod placement;
pub mod surfaces;
#[cfg(test)]
mod tests_history;
pub mod undo;
use std::sync::Arc;
use std::time::Instant;

use thiserror::Error;

use self::command::{Command, ReseedCause};
use self::edits::EditLayer;
use self::growth::GrowthState;
use self::growth::{
    CATCH_UP_ITERATIONS_PER_FRAME, GrowthSchedule, MAX_ITERATIONS_PER_FRAME,
    MAX_ITERATIONS_PER_SECOND, MIN_ITERATIONS_PER_SECOND, catch_up_frames,
};
use self::history::{History, PastStep, Replay, Terrain};
use self::placement::{Placement, PlacementCause};
use self::undo::{Replaced, UndoStack, Undone};
use crate::input::Aabb;
use crate::input::Hand;
use crate::terrain::recipe::{BuiltInName, Recipe};
use crate::terrain::recipe_growth::RecipeGrowth;
use crate::terrain::rng::mix;
use crate::terrain::sculpt::{Edit, Ignored};
use crate::terrain::{Heightmap, TerrainError};

/// What a command did to the world; the app tells each as an
/// [`AppEvent`](super::AppEvent) of the same name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorldEvent {
    /// The terrain went flat and started growing from a new seed.
    Reseeded {
        seed: u64,
        cause: ReseedCause,
        hand: Option<Hand>,
    },
    /// An undo took back the last terrain command, or found none left.
    Undid { undone: Option<Undone> },
    /// A redo did again what the last undo took back, or found none left.
    Redid { redone: Option<Undone> },
    /// The recipe's erosion started early.
    Weathered,
    /// Growth was paused, resumed or changed speed.
    Growth(GrowthState),
    /// A hand edit applied or was ignored.
    Edited {
        kind: Undone,
        hand: Option<Hand>,
        ignored: Option<Ignored>,
    },
    /// The land is drawn this many times taller than it is ("Taller", "Flatter").
    Exaggerated { exaggeration: f32 },
    /// The world shows moment `to` of a history `length` moments long
    /// (now, when they are equal); rebuilding it took `ms`.
    Scrubbed { to: u64, length: u64, ms: f64 },
    /// The hologram's placement settled here.
    Placed {
        placement: Placement,
        cause: PlacementCause,
    },
}

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
    /// The history it goes on from (a save opened), replayed first.
    pub past: Vec<PastStep>,
}

impl AppConfig {
    /// Traagen's HoloLens terrain demo (docs/terrain.md, Sources) on a `width`×`height` map.
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
            past: Vec::new(),
        }
    }
}

/// Which settled placement the hologram has: a new one for every change, so
/// a pose the platform located for an older one is never taken for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlacementId(u64);

/// The terrain, its growth and where the hologram is.
pub struct World {
    /// The terrain, its growth, edits and what undo can take back.
    terrain: Terrain,
    /// Everything that happened to it, and the moment shown.
    history: History,
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
    /// The hologram's bounds in hologram space, kept in step with the heights.
    bounds: Aabb,
    /// Display time of the last frame, to measure time the user did not see.
    last_display_time_ns: Option<i64>,
    /// Display time from the frame before to this one (0 on the first).
    frame_interval_ns: i64,
    /// In a shared session's peer, the iteration the host announced: growth
    /// goes to it (within the budget) and never past it, whatever this
    /// headset's clock says ([`World::set_growth_limit`]).
    growth_limit: Option<usize>,
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
        let terrain = Terrain {
            growth: RecipeGrowth::new(
                config.recipe.clone(),
                config.width,
                config.height,
                config.seed,
            )?,
            edits: EditLayer::new(config.width, config.height),
            undo: UndoStack::default(),
            exaggeration: 1.0,
            recipe_name: config.recipe_name.clone(),
            reseed_count: 0,
        };
        let mut world = World {
            history: History::new(&terrain),
            terrain,
            schedule: GrowthSchedule::new(config.iterations_per_second),
            max_iterations_per_frame: config.max_iterations_per_frame,
            placement: None,
            placed_by: None,
            placement_id: PlacementId::default(),
            ever_placed: false,
            bounds: placement::hologram_bounds(0.0, 0.0),
            last_display_time_ns: None,
            frame_interval_ns: 0,
            growth_limit: None,
        };
        for step in &config.past {
            match step {
                PastStep::Apply {
                    iteration,
                    command,
                    time_ns,
                } => {
                    world.grow_to(*iteration);
                    world.apply(command, *time_ns);
                }
                PastStep::GrowTo(iteration) => world.grow_to(*iteration),
            }
        }
        world.settle_edits();
        Ok(world)
    }

    /// Starts the frame shown at `now`: display time since the last frame
    /// does not count towards growth when this one is not `visible`.
    pub fn begin_frame(&mut self, now: i64, visible: bool) {
        if !visible && let Some(last) = self.last_display_time_ns {
            self.schedule.postpone(now.saturating_sub(last));
        }
        self.frame_interval_ns = self
            .last_display_time_ns
            .map_or(0, |last| now.saturating_sub(last));
        self.last_display_time_ns = Some(now);
    }

    /// Applies `command` at display time `now`; what it changed, if anything
    /// a platform answers (a scale with nothing placed changes nothing).
    /// A terrain command goes into the history; one made while an earlier
    /// moment shows cuts the history there and goes on from it (undo gives
    /// the cut-off history back), except an undo, which comes back to now.
    pub fn apply(&mut self, command: &Command, now: i64) -> Option<WorldEvent> {
        if let Command::Scrub { to } = *command {
            return Some(self.scrub(to, now));
        }
        if !command.changes_terrain() {
            return self.apply_unrecorded(command, now);
        }
        if self.history.is_scrubbed() {
            match command {
                Command::Undo => return Some(self.scrub(self.history.length(), now)),
                Command::Redo => return Some(WorldEvent::Redid { redone: None }),
                _ => {}
            }
        }
        if matches!(command, Command::Undo)
            && let Some(event) = self.undo_branch(now)
        {
            return Some(event);
        }
        let started = Instant::now();
        let future = self
            .history
            .is_scrubbed()
            .then(|| Arc::new(self.history.cut()));
        let pushed = self.terrain.undo.pushed();
        let event = self.apply_unrecorded(command, now);
        let changed = self.terrain.undo.pushed() > pushed;
        if let Some(future) = &future {
            if !changed {
                // Nothing changed (an edit off the land): nothing is cut.
                self.history.restore(future);
                return event;
            }
            self.terrain.undo.mark_branch(Arc::clone(future));
            // The cut moment is now: growth goes on from it.
            self.schedule.resume(now, self.terrain.growth.steps_done());
        }
        self.history
            .record_command(command, now, started.elapsed(), &self.terrain, future);
        event
    }

    /// Applies `command` without noting it in the history: a command that
    /// does not change the terrain, or one the history applies again.
    fn apply_unrecorded(&mut self, command: &Command, now: i64) -> Option<WorldEvent> {
        match *command {
            Command::Reseed { cause, hand } => {
                let seed = self.next_seed();
                let recipe = self.terrain.growth.recipe().clone();
                self.replace_terrain(
                    Undone::Reseed,
                    recipe,
                    self.terrain.recipe_name.clone(),
                    seed,
                    now,
                );
                Some(WorldEvent::Reseeded { seed, cause, hand })
            }
            Command::Landscape { cause, name } => {
                let seed = self.next_seed();
                self.replace_terrain(
                    Undone::Landscape,
                    name.recipe(),
                    name.as_str().into(),
                    seed,
                    now,
                );
                Some(WorldEvent::Reseeded {
                    seed,
                    cause,
                    hand: None,
                })
            }
            Command::Trace { hand, ref points } => {
                let edit = Edit::Trace {
                    points: points.clone(),
                };
                Some(self.edit(Undone::Trace, &edit, hand))
            }
            Command::Lift { hand, at, height } => {
                Some(self.edit(Undone::Lift, &Edit::Lift { at, height }, hand))
            }
            Command::Undo => {
                let undone = self.undo(now);
                Some(WorldEvent::Undid { undone })
            }
            Command::Redo => {
                let redone = self.redo(now);
                Some(WorldEvent::Redid { redone })
            }
            Command::Weather => {
                self.terrain.undo.push(Replaced::Weather {
                    weathered_at: self.terrain.growth.weathered_at().to_vec(),
                    steps: self.terrain.growth.steps_done(),
                });
                self.terrain.growth.weather_now();
                self.compose();
                Some(WorldEvent::Weathered)
            }
            Command::Exaggerate { exaggeration } => {
                self.terrain.undo.push(Replaced::Exaggeration {
                    exaggeration: self.terrain.exaggeration,
                });
                self.terrain.exaggeration = exaggeration;
                self.compose();
                Some(WorldEvent::Exaggerated { exaggeration })
            }
            Command::Pause => {
                self.schedule.pause(now);
                Some(WorldEvent::Growth(self.growth_state()))
            }
            Command::Resume => {
                self.schedule.unpause(now);
                Some(WorldEvent::Growth(self.growth_state()))
            }
            Command::Speed {
                iterations_per_second,
            } => {
                let rate = iterations_per_second
                    .clamp(MIN_ITERATIONS_PER_SECOND, MAX_ITERATIONS_PER_SECOND);
                self.schedule
                    .set_rate(now, self.terrain.growth.steps_done(), rate);
                Some(WorldEvent::Growth(self.growth_state()))
            }
            Command::Place { cause, placement } => {
                if !self.ever_placed {
                    // A world opened from a save grows on from where it stands.
                    self.schedule.start(now);
                    self.schedule.resume(now, self.terrain.growth.steps_done());
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
            Command::Scrub { to } => Some(self.scrub(to, now)),
        }
    }

    /// Shows moment `to` of the history (now, at its length or beyond):
    /// the terrain rebuilt as it stood then, not growing while in the past.
    fn scrub(&mut self, to: u64, now: i64) -> WorldEvent {
        let started = Instant::now();
        let to = to.min(self.history.length());
        let from = self.history.shown();
        if to != from {
            if !self.history.is_scrubbed() {
                // Coming back to now is then a copy.
                self.settle_edits();
                self.history.keep(&self.terrain);
            }
            self.rebuild(to, now);
            self.history.show(to);
            if !self.history.is_scrubbed() {
                self.schedule.resume(now, self.terrain.growth.steps_done());
            }
        }
        WorldEvent::Scrubbed {
            to,
            length: self.history.length(),
            ms: started.elapsed().as_secs_f64() * 1e3,
        }
    }

    /// The terrain at moment `to`: the checkpoint before it with the steps
    /// since applied again, edits settled.
    fn rebuild(&mut self, to: u64, now: i64) {
        let (terrain, replays) = self.history.rebuild(to);
        self.terrain = terrain;
        for replay in replays {
            match replay {
                Replay::Command(command, time_ns, branch) => {
                    self.apply_unrecorded(&command, time_ns);
                    if let Some(future) = branch {
                        self.terrain.undo.mark_branch(future);
                    }
                }
                Replay::Grow(steps) => {
                    self.terrain.growth.step(steps);
                }
            }
        }
        // Replayed commands restart the clock at their own times.
        self.schedule.resume(now, self.terrain.growth.steps_done());
        self.growth_limit = None;
        self.settle_edits();
    }

    /// An undo of a change made at an earlier moment: back to that moment,
    /// with the history it cut off; `None` when the last change was not one.
    fn undo_branch(&mut self, now: i64) -> Option<WorldEvent> {
        let Some(Replaced::Branch { .. }) = self.terrain.undo.last() else {
            return None;
        };
        let Some(Replaced::Branch { kind, future }) = self.terrain.undo.pop() else {
            unreachable!("the last change was looked at just now");
        };
        self.history.restore(&future);
        self.rebuild(future.at, now);
        Some(WorldEvent::Undid { undone: Some(kind) })
    }

    /// Starts `recipe` (called `recipe_name`) growing from `seed` at `now`
    /// on flat ground, keeping the terrain it replaces (with its edits) for undo.
    fn replace_terrain(
        &mut self,
        kind: Undone,
        recipe: Recipe,
        recipe_name: String,
        seed: u64,
        now: i64,
    ) {
        let (width, height) = (
            self.terrain.growth.heightmap().width(),
            self.terrain.growth.heightmap().height(),
        );
        // Built-in recipes are checked by the tests at every size the app
        // takes, and the current one already started on this map.
        let growth = RecipeGrowth::new(recipe, width, height, seed)
            .expect("a recipe that grows on this map starts again");
        let replaced = std::mem::replace(&mut self.terrain.growth, growth);
        let replaced_name = std::mem::replace(&mut self.terrain.recipe_name, recipe_name);
        self.terrain.undo.push(Replaced::Terrain {
            kind,
            growth: Box::new(replaced),
            recipe_name: replaced_name,
            layer: self.terrain.edits.take(),
        });
        self.schedule.start(now);
        // A new terrain grows by this world's clock (a shared session's
        // peer holds it again at once, until the host says more).
        self.growth_limit = None;
        self.compose();
    }

    /// Applies `edit` from `hand` (what undo calls a `kind`): it starts
    /// easing in, or it is ignored and the event says why.
    fn edit(&mut self, kind: Undone, edit: &Edit, hand: Option<Hand>) -> WorldEvent {
        match edit.checked() {
            Ok(edit) => {
                let layer = self.terrain.edits.snapshot();
                self.terrain.undo.push(Replaced::Edit { kind, layer });
                self.terrain.edits.begin(&edit);
                self.compose();
                WorldEvent::Edited {
                    kind,
                    hand,
                    ignored: None,
                }
            }
            Err(why) => WorldEvent::Edited {
                kind,
                hand,
                ignored: Some(why),
            },
        }
    }

    /// Takes back the last terrain command, if any is left: an edit's layer
    /// as it was, or the terrain a reseed replaced, growing on from where
    /// it stood; what it took back can be redone.
    fn undo(&mut self, now: i64) -> Option<Undone> {
        let replaced = self.terrain.undo.pop()?;
        let kind = replaced.kind();
        let undone = self.swap_in(replaced, now);
        self.terrain.undo.push_redo(undone);
        Some(kind)
    }

    /// Does again the last command undo took back, if any is left and no
    /// new change came since: the world as it was before that undo, bit for bit.
    fn redo(&mut self, now: i64) -> Option<Undone> {
        let replaced = self.terrain.undo.pop_redo()?;
        let kind = replaced.kind();
        let redone = self.swap_in(replaced, now);
        self.terrain.undo.push_undone(redone);
        Some(kind)
    }

    /// Puts back the world `replaced` holds and returns, of the same kind,
    /// what it put back over: undo and redo are the same swap, each
    /// handing the other what it needs to go back.
    fn swap_in(&mut self, replaced: Replaced, now: i64) -> Replaced {
        let swapped = match replaced {
            Replaced::Edit { kind, layer } => {
                let current = self.terrain.edits.snapshot();
                self.terrain.edits.restore(layer);
                Replaced::Edit {
                    kind,
                    layer: current,
                }
            }
            Replaced::Terrain {
                kind,
                growth,
                recipe_name,
                layer,
            } => {
                let current_layer = self.terrain.edits.take();
                let current = std::mem::replace(&mut self.terrain.growth, *growth);
                let current_name = std::mem::replace(&mut self.terrain.recipe_name, recipe_name);
                self.terrain.edits.restore(layer);
                self.schedule.resume(now, self.terrain.growth.steps_done());
                self.growth_limit = None;
                Replaced::Terrain {
                    kind,
                    growth: Box::new(current),
                    recipe_name: current_name,
                    layer: current_layer,
                }
            }
            Replaced::Exaggeration { exaggeration } => Replaced::Exaggeration {
                exaggeration: std::mem::replace(&mut self.terrain.exaggeration, exaggeration),
            },
            // Undo takes these back by the history ([`World::undo_branch`]);
            // nothing else hands one over.
            branch @ Replaced::Branch { .. } => branch,
            Replaced::Weather {
                weathered_at,
                steps,
            } => {
                let current = Replaced::Weather {
                    weathered_at: self.terrain.growth.weathered_at().to_vec(),
                    steps: self.terrain.growth.steps_done(),
                };
                let map = self.terrain.growth.heightmap();
                // The same recipe, map and seed grew once already.
                self.terrain.growth = RecipeGrowth::regrown(
                    self.terrain.growth.recipe().clone(),
                    map.width(),
                    map.height(),
                    self.terrain.growth.seed(),
                    &weathered_at,
                    steps,
                )
                .expect("a recipe that grew on this map grows again");
                self.schedule.resume(now, self.terrain.growth.steps_done());
                current
            }
        };
        self.compose();
        swapped
    }

    /// Brings what shows (grown heights plus edits) and the bounds in step.
    fn compose(&mut self) {
        let range = self
            .terrain
            .edits
            .compose(self.terrain.growth.heightmap())
            .unwrap_or_else(|| self.terrain.growth.height_range());
        // Every command is checked and every edit bounded: whatever the
        // world was given, its heights stay finite.
        debug_assert!(
            range.0.is_finite() && range.1.is_finite(),
            "the shown heights range over {range:?}"
        );
        self.bounds = placement::hologram_bounds(
            range.0 * self.terrain.exaggeration,
            range.1 * self.terrain.exaggeration,
        );
    }

    /// Shows `lift` (a lift the hand still holds) over the terrain without
    /// applying it, or stops showing one; whether the heights changed.
    pub fn preview(&mut self, lift: Option<&Edit>) -> bool {
        let changed = self.terrain.edits.preview(lift);
        if changed {
            self.compose();
        }
        changed
    }

    /// Finishes an edit still easing in and drops any preview, so the
    /// heights are the terrain the commands made (what a run writes at its end).
    pub fn settle_edits(&mut self) {
        self.terrain.edits.preview(None);
        self.terrain.edits.settle();
        self.compose();
    }

    /// Grows straight to `iteration` of the current seed (or its end),
    /// ignoring display time and the per-frame budget, and settles the
    /// edits: how a command log is replayed offline.
    pub fn grow_to(&mut self, iteration: usize) {
        let behind = iteration.saturating_sub(self.terrain.growth.steps_done());
        self.grow_steps(behind);
        self.settle_edits();
    }

    /// Grows `steps` steps of the current seed, noted in the history; none
    /// while an earlier moment shows. How many it grew.
    fn grow_steps(&mut self, steps: usize) -> usize {
        if steps == 0 || self.history.is_scrubbed() {
            return 0;
        }
        let started = Instant::now();
        let grew = self.terrain.growth.step(steps);
        self.history
            .record_growth(grew, started.elapsed(), &self.terrain);
        grew
    }

    /// Whether growth is paused, and how fast it goes.
    pub fn growth_state(&self) -> GrowthState {
        GrowthState {
            paused: self.schedule.is_paused(),
            iterations_per_second: self.schedule.rate(),
        }
    }

    /// Paces growth by another clock (a shared session's host): with
    /// `Some(n)`, [`World::grow`] grows towards iteration `n` of the current
    /// seed, within the per-frame budget, and never past it, and this
    /// world's own schedule no longer counts; `None` goes back to the own
    /// schedule, growing on from where the terrain stands at `now`.
    pub fn set_growth_limit(&mut self, limit: Option<usize>, now: i64) {
        if limit.is_none() && self.growth_limit.is_some() {
            self.schedule.resume(now, self.terrain.growth.steps_done());
        }
        self.growth_limit = limit;
    }

    /// The iteration growth is held to, if another clock paces it.
    pub fn growth_limit(&self) -> Option<usize> {
        self.growth_limit
    }

    /// Grows straight to `iteration` of the current seed, ignoring the
    /// budget but leaving an edit easing in as it is: how a shared
    /// session's peer reaches the iteration at which the host applied a
    /// command before applying it too ([`World::grow_to`] also settles the
    /// edits, which a log's offline replay wants and a live peer does not).
    pub fn catch_up_to(&mut self, iteration: usize) {
        let behind = iteration.saturating_sub(self.terrain.growth.steps_done());
        if self.grow_steps(behind) > 0 {
            self.compose();
        }
    }

    /// A checksum of the grown heights (edits left out: they are a pure
    /// function of the commands, and one may still be easing in on one
    /// headset and settled on another): the first 8 bytes of the SHA-256
    /// of every height's bits, row after row. Two headsets that grew the
    /// same seed to the same iteration agree on it, bit for bit.
    pub fn grown_checksum(&self) -> u64 {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for height in self.terrain.growth.heightmap().cells() {
            hasher.update(height.to_bits().to_le_bytes());
        }
        let digest = hasher.finalize();
        u64::from_le_bytes(digest[..8].try_into().expect("a SHA-256 has 32 bytes"))
    }

    /// The world's history, and the moment it shows.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Takes the history's checkpoints after `spacing` of work (a benchmark
    /// that wants none but the start, or one per step).
    pub fn set_checkpoint_spacing(&mut self, spacing: std::time::Duration) {
        self.history.set_spacing(spacing);
    }

    /// Terrain commands undo can still take back.
    pub fn undo_depth(&self) -> usize {
        self.terrain.undo.len()
    }

    /// How many changes undo was ever handed (redos aside): whether a
    /// command made one.
    pub fn changes_noted(&self) -> u64 {
        self.terrain.undo.pushed()
    }

    /// The next seed: `mix(previous seed, reseed count)`, so a run is
    /// reproducible from its first seed.
    fn next_seed(&mut self) -> u64 {
        self.terrain.reseed_count += 1;
        mix(self.terrain.growth.seed(), self.terrain.reseed_count)
    }

    /// Makes `placement` the settled one, as `cause` put it there.
    fn settle(&mut self, placement: Placement, cause: PlacementCause) -> WorldEvent {
        self.placement = Some(placement);
        self.placed_by = Some(cause);
        self.placement_id.0 += 1;
        WorldEvent::Placed { placement, cause }
    }

    /// Grows the iterations due by `now`, at most the per-frame budget of
    /// them, and moves an edit in flight on; how many iterations it applied
    /// and whether the heights changed.
    pub fn grow(&mut self, now: i64) -> (usize, bool) {
        let due = match self.growth_limit {
            Some(limit) => limit.min(self.terrain.growth.steps_total()),
            None => self
                .schedule
                .iterations_due(now, self.terrain.growth.steps_total()),
        };
        let behind = due.saturating_sub(self.terrain.growth.steps_done());
        // A peer far behind its host's announcement catches up faster, by
        // the time the frame stands for: a headset drawing slowly does more
        // a frame, so being level takes the same time at any frame rate.
        let budget = if self.growth_limit.is_some() && behind > self.max_iterations_per_frame {
            (CATCH_UP_ITERATIONS_PER_FRAME * catch_up_frames(self.frame_interval_ns))
                .max(self.max_iterations_per_frame)
        } else {
            self.max_iterations_per_frame
        };
        let applied = self.grow_steps(behind.min(budget));
        let edited = self.terrain.edits.advance(now);
        if applied > 0 || edited {
            self.compose();
        }
        (applied, applied > 0 || edited)
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

    /// The heights that show (terrain units): the grown terrain plus its
    /// edits, an edit easing in and a lift's preview.
    pub fn heightmap(&self) -> &Heightmap {
        self.terrain
            .edits
            .shown()
            .unwrap_or(self.terrain.growth.heightmap())
    }

    /// The lowest and highest height now (terrain units).
    pub fn height_range(&self) -> (f32, f32) {
        self.terrain.growth.height_range()
    }

    /// How many times taller than it is the land is drawn (1: true to its size).
    pub fn exaggeration(&self) -> f32 {
        self.terrain.exaggeration
    }

    /// The hologram's bounds in hologram space (metres at 1×), relief included.
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// The current seed.
    pub fn seed(&self) -> u64 {
        self.terrain.growth.seed()
    }

    /// Iterations applied to the current seed so far.
    pub fn iterations_done(&self) -> usize {
        self.terrain.growth.steps_done()
    }

    /// What the terrain is made of.
    pub fn recipe(&self) -> &Recipe {
        self.terrain.growth.recipe()
    }

    /// What its recipe is called: a built-in name or a file.
    pub fn recipe_name(&self) -> &str {
        &self.terrain.recipe_name
    }

    /// Whether every growth step of the current seed is done.
    pub fn growth_complete(&self) -> bool {
        self.terrain.growth.is_complete()
    }

    /// The built-in landscape after the current one (the first after a
    /// recipe from a file).
    pub fn next_landscape(&self) -> BuiltInName {
        BuiltInName::after(&self.terrain.recipe_name)
    }

    /// Iterations in a full growth.
    pub fn iterations_total(&self) -> usize {
        self.terrain.growth.steps_total()
    }
}
