//! The frame-loop core: owns the terrain generator, the hologram's pose, the growth schedule and the reseed rule; no GPU, no XR.
//!
//! A platform (OpenXR session or simulator) builds a [`FrameInput`] each
//! frame, calls [`App::update`], draws what the [`FrameOutput`] says with the
//! heights from [`App::heightmap`] (through [`SceneBuilder`]), and notes the
//! frame in its [`recorder::RunRecorder`], which makes the run's report.
//!
//! Rules, in the order `update` applies them:
//! 1. Placement: on the first frame with a located head pose the hologram is
//!    placed ([`placement::place_hologram`]) and stays pinned; growth starts.
//! 2. Gestures: every recogniser sees every frame. A reseed needs a placed
//!    hologram. An air-tap counts when the hand's aim ray or the head's gaze
//!    ray hits the hologram's bounds; a tap when the index tip pushes into the
//!    surface; a select on each press. Hit tests use the pose the hologram
//!    is drawn at this frame ([`FrameInput::hologram_located`] when the
//!    platform locates it, else the pinned pose). At most one reseed per
//!    frame: the first cause found, left hand before right, air-tap before
//!    tap before select, then a voice command ("new terrain"); the reseed
//!    names the hand that made it (none for a voice command).
//! 3. Reseed: the next seed is `mix(previous seed, reseed count)` (so a run
//!    is reproducible from its first seed), the map goes flat and growth
//!    restarts at this frame's display time.
//! 4. Growth: the iterations due by now ([`growth::GrowthSchedule`]), at
//!    most the per-frame budget of them, with display time up to a frame
//!    that is not visible left out (the rules and why: [`growth`]).
pub mod frame;
pub mod growth;
pub mod placement;
pub mod recorder;
pub mod report;
pub mod scene;
pub mod voice;

use thiserror::Error;

use crate::input::hand::INDEX_TIP;
use crate::input::{Aabb, AirTapRecognizer, Hand, Pose, SelectRecognizer, TapRecognizer};
use crate::terrain::rng::mix;
use crate::terrain::{Generator, GeneratorConfig, Heightmap, TerrainError};

pub use frame::{AppEvent, EyeView, Fov, FrameInput, FrameOutput, HandInput, ReseedCause};
pub use growth::{GrowthSchedule, MAX_ITERATIONS_PER_FRAME};
pub use placement::{HOLOGRAM_SIZE_M, PLACEMENT_DISTANCE_M, PLACEMENT_DROP_M};
pub use scene::SceneBuilder;
pub use voice::VoiceCommand;

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
    /// The generator's run: size, algorithm, iterations, shaping.
    pub generator: GeneratorConfig,
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
        AppConfig {
            generator: GeneratorConfig::hololens_demo(width, height),
            seed,
            iterations_per_second: DEFAULT_ITERATIONS_PER_SECOND,
            max_iterations_per_frame: MAX_ITERATIONS_PER_FRAME,
        }
    }
}

/// The gesture recognisers of one hand.
#[derive(Debug, Clone, Default)]
struct HandRecognizers {
    /// Pinch aimed (or gazed) at the hologram.
    air_tap: AirTapRecognizer,
    /// Index tip pushed into the surface.
    tap: TapRecognizer,
    /// Controller select press.
    select: SelectRecognizer,
}

/// The app's state between frames.
pub struct App {
    /// The terrain being grown.
    generator: Generator,
    /// Where the hologram is pinned, once placed.
    hologram: Option<Pose>,
    /// When the current seed started growing.
    growth: GrowthSchedule,
    /// Most iterations one frame applies.
    max_iterations_per_frame: usize,
    /// Display time of the last update, to measure time the user did not see.
    last_display_time_ns: Option<i64>,
    /// Reseeds so far, an input to the next seed.
    reseed_count: u64,
    /// Left and right hand recognisers.
    recognizers: [HandRecognizers; 2],
    /// The hologram's bounds in hologram space, kept in step with the heights.
    bounds: Aabb,
}

impl App {
    pub fn new(config: AppConfig) -> Result<Self, AppError> {
        if config.iterations_per_second == 0 {
            return Err(AppError::ZeroGrowthRate);
        }
        if config.max_iterations_per_frame == 0 {
            return Err(AppError::ZeroFrameBudget);
        }
        let generator = Generator::new(config.generator, config.seed)?;
        Ok(App {
            generator,
            hologram: None,
            growth: GrowthSchedule::new(config.iterations_per_second),
            max_iterations_per_frame: config.max_iterations_per_frame,
            last_display_time_ns: None,
            reseed_count: 0,
            recognizers: Default::default(),
            bounds: placement::hologram_bounds(0.0, 0.0),
        })
    }

    /// Advances one frame.
    pub fn update(&mut self, input: &FrameInput) -> FrameOutput {
        let now = input.display_time_ns;
        let mut events = Vec::new();
        let mut heights_changed = false;
        if !input.visible
            && let Some(last) = self.last_display_time_ns
        {
            self.growth.postpone(now.saturating_sub(last));
        }
        self.last_display_time_ns = Some(now);

        if self.hologram.is_none()
            && let Some(head) = input.head.filter(Pose::is_finite)
        {
            let pose = placement::place_hologram(&head);
            self.hologram = Some(pose);
            self.growth.start(now);
            events.push(AppEvent::Placed { pose });
        }

        if let Some((cause, hand)) = self.recognize(input) {
            self.reseed_count += 1;
            let seed = mix(self.generator.seed(), self.reseed_count);
            self.generator.reseed(seed);
            self.growth.start(now);
            heights_changed = true;
            events.push(AppEvent::Reseeded { seed, cause, hand });
        }

        let due = self
            .growth
            .iterations_due(now, self.generator.iterations_total());
        let behind = due.saturating_sub(self.generator.iterations_done());
        let iterations_applied = if behind > 0 {
            self.generator
                .step(behind.min(self.max_iterations_per_frame))
        } else {
            0
        };
        heights_changed |= iterations_applied > 0;
        if heights_changed {
            // The generator keeps the range as it writes the heights, so
            // the bounds cost no pass over the map of their own.
            let (low, high) = self.generator.height_range();
            self.bounds = placement::hologram_bounds(low, high);
        }

        FrameOutput {
            model: self.drawn_pose(input).as_ref().map(placement::model_matrix),
            heights_changed,
            events,
            iterations_done: self.generator.iterations_done(),
            iterations_applied,
            views: input.views,
        }
    }

    /// Where the hologram is drawn this frame: the platform's located pose
    /// when it has a finite one, else the pinned pose; `None` before placement.
    fn drawn_pose(&self, input: &FrameInput) -> Option<Pose> {
        self.hologram.map(|pinned| {
            input
                .hologram_located
                .filter(Pose::is_finite)
                .unwrap_or(pinned)
        })
    }

    /// Feeds every recogniser this frame's tracking; the first reseed cause
    /// found and the hand that made it (none for a voice command).
    fn recognize(&mut self, input: &FrameInput) -> Option<(ReseedCause, Option<Hand>)> {
        let hologram = self.drawn_pose(input);
        let bounds = self.bounds;
        let heights = self.generator.heightmap();
        // A pose with NaNs in it could slip through the slab test, so only
        // finite poses can aim.
        let hits = |from: &Pose| {
            from.is_finite()
                && hologram.is_some_and(|pose| {
                    bounds
                        .hit(&pose.ray_to_local(&from.forward_ray()))
                        .is_some()
                })
        };
        let gaze_hits = input.head.as_ref().is_some_and(hits);
        let mut cause = None;
        for hand in Hand::BOTH {
            let hand_input = &input.hands[hand.index()];
            let recognizers = &mut self.recognizers[hand.index()];
            let aimed = || gaze_hits || hand_input.aim.as_ref().is_some_and(hits);
            let pressed = recognizers.select.update(hand_input.select) && hologram.is_some();
            let (air_tap, select) = if hand_input.select_is_air_tap {
                // The runtime recognised the pinch; ours would count it again.
                recognizers.air_tap.update(None, || false);
                (pressed && aimed(), false)
            } else {
                (
                    recognizers
                        .air_tap
                        .update(hand_input.joints.as_ref(), aimed),
                    pressed,
                )
            };
            let probe = hologram
                .zip(hand_input.joints.as_ref())
                .and_then(|(pose, joints)| {
                    let tip = pose
                        .inverse()
                        .transform_point(joints[INDEX_TIP].pose.position);
                    placement::probe_surface(tip, heights)
                });
            let tap = recognizers.tap.update(probe).is_some();
            let found = [
                (air_tap, ReseedCause::AirTap),
                (tap, ReseedCause::Tap),
                (select, ReseedCause::Select),
            ]
            .into_iter()
            .find_map(|(fired, cause)| fired.then_some((cause, Some(hand))));
            cause = cause.or(found);
        }
        let new_terrain_said = input.voice == Some(VoiceCommand::NewTerrain) && hologram.is_some();
        cause.or(new_terrain_said.then_some((ReseedCause::Voice, None)))
    }

    /// The current heights (terrain units).
    pub fn heightmap(&self) -> &Heightmap {
        self.generator.heightmap()
    }

    /// Where the hologram is pinned, once placed.
    pub fn hologram_pose(&self) -> Option<Pose> {
        self.hologram
    }

    /// The hologram's bounds in hologram space (metres), relief included.
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// The current seed.
    pub fn seed(&self) -> u64 {
        self.generator.seed()
    }

    /// Iterations applied to the current seed so far.
    pub fn iterations_done(&self) -> usize {
        self.generator.iterations_done()
    }

    /// Iterations in a full growth.
    pub fn iterations_total(&self) -> usize {
        self.generator.iterations_total()
    }
}

#[cfg(test)]
mod tests;
