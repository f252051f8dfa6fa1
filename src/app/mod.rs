//! The frame-loop core: owns the terrain generator, the hologram's placement, the growth schedule and the gesture rules; no GPU, no XR.
//!
//! A platform (OpenXR session or simulator) builds a [`FrameInput`] each
//! frame, calls [`App::update`], draws what the [`FrameOutput`] says with the
//! heights from [`App::heightmap`] (through [`SceneBuilder`]), and notes the
//! frame in its [`recorder::RunRecorder`], which makes the run's report.
//!
//! Rules, in the order `update` applies them:
//! 1. Placement: on the first frame with a located head pose the hologram is
//!    placed where an earlier run left it ([`Persisted::Located`]; while it
//!    is [`Persisted::Pending`] the app waits up to [`PERSISTED_WAIT_NS`]),
//!    else onto the upward surface the gaze hits first within 4 m
//!    ([`surfaces::gaze_hit`]), else 1 m ahead ([`placement::place_hologram`]);
//!    growth starts. A placement made ahead of the gaze moves onto the
//!    surface the gaze hits on the first frame the room's surfaces are known.
//!    Voice commands ([`VoiceCommand`]): "reset" places it afresh (before
//!    the rule above), "bigger" and "smaller" scale it by
//!    [`VOICE_SCALE_STEP`] or its inverse, clamped (after it); each is a
//!    settled change with cause `voice`, kept for the next run.
//! 2. Gestures: every recogniser sees every frame; nothing acts before the
//!    hologram is placed. A pinch (or a hand's runtime select) aimed at the
//!    hologram — its aim ray or the head's gaze ray hits the hologram's
//!    bounds when it begins — is an air-tap if it ends within 0.35 s having
//!    moved less than 2 cm, and reseeds on its release; held longer or moved
//!    further it drags the hologram 1:1 with the hand, and on release the
//!    hologram settles onto an upward surface up to 10 cm below its base.
//!    Both hands pinching on it turn it about the vertical and scale it
//!    (0.25–4×) ([`manipulation::Manipulation`]). A controller's squeeze
//!    aimed at it carries it rigidly with the grip. A controller's select
//!    reseeds on each press; a fingertip pushed into the surface taps. Hit
//!    tests use the placement the hologram is drawn at this frame
//!    ([`FrameInput::hologram_located`] when the platform locates it and no
//!    manipulation is moving it, else the app's own). At most one reseed per
//!    frame: the first cause found, left hand before right, air-tap before
//!    tap before select, then a voice command ("new terrain"); the reseed
//!    names the hand that made it (none for a voice command).
//! 3. Reseed: the next seed is `mix(previous seed, reseed count)` (so a run
//!    is reproducible from its first seed), the map goes flat and growth
//!    restarts at this frame's display time.
//! 4. Growth: the iterations due by now ([`growth::GrowthSchedule`]), at
//!    most the per-frame budget of them, with display time up to a frame
//!    that is not visible left out (the rules and why: [`growth`]).
//!
//! Every settled change of placement is an [`AppEvent::Placed`]; the
//! platform pins it with an anchor and, after a manipulation
//! ([`PlacementCause::is_manipulation`]), keeps it for the next run.
pub mod frame;
pub mod growth;
pub mod manipulation;
pub mod placement;
pub mod recorder;
pub mod report;
pub mod saved;
pub mod scene;
pub mod surfaces;
pub mod voice;

use glam::Vec3;
use thiserror::Error;

use crate::input::hand::{INDEX_TIP, PALM, joints_are_finite};
use crate::input::{
    Aabb, Hand, HoldEvent, HoldRecognizer, PinchTracker, Pose, Press, SelectRecognizer,
    SurfaceProbe, TapRecognizer,
};
use crate::terrain::rng::mix;
use crate::terrain::{Generator, GeneratorConfig, Heightmap, TerrainError};

pub use frame::{
    AppEvent, EyeView, Fov, FrameInput, FrameOutput, HandInput, Persisted, ReseedCause,
};
pub use growth::{GrowthSchedule, MAX_ITERATIONS_PER_FRAME};
pub use manipulation::Manipulation;
pub use placement::{
    HOLOGRAM_SIZE_M, MAX_SCALE, MIN_SCALE, PLACEMENT_DISTANCE_M, PLACEMENT_DROP_M, Placement,
    PlacementCause,
};
pub use scene::SceneBuilder;
pub use surfaces::Surface;

/// The factor "bigger" scales the hologram by ("smaller" by its inverse).
pub const VOICE_SCALE_STEP: f32 = 1.25;

/// How long after the first head pose the app waits for a kept placement
/// the platform is still locating, before it places the hologram afresh.
pub const PERSISTED_WAIT_NS: i64 = 2_000_000_000;
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
    /// Thumb and index closing and parting, from the joints.
    pinch: PinchTracker,
    /// Tap versus hold of a pinch (or of a hand's runtime select) aimed at the hologram.
    hold: HoldRecognizer,
    /// Index tip pushed into the surface.
    tap: TapRecognizer,
    /// The select action: a controller's button, or a hand's runtime air-tap.
    select: SelectRecognizer,
    /// The squeeze action: a controller's grab.
    squeeze: SelectRecognizer,
}

/// The app's state between frames.
pub struct App {
    /// The terrain being grown.
    generator: Generator,
    /// Where the hologram is and how big, once placed; during a
    /// manipulation, where the hands have it now.
    placement: Option<Placement>,
    /// What made the current placement.
    placed_by: Option<PlacementCause>,
    /// Whether the hologram was ever placed (a kept placement counts only
    /// for the first placement, and growth starts with it).
    ever_placed: bool,
    /// Whether the platform has reported the room's surfaces yet.
    surfaces_seen: bool,
    /// The display time at which the app began waiting for a kept
    /// placement the platform is still locating.
    waiting_since_ns: Option<i64>,
    /// What is moving the hologram, if anything.
    manipulation: Option<Manipulation>,
    /// Whether the pose the platform locates belongs to an older placement:
    /// while a manipulation moves the hologram, and on the frame its
    /// placement changed (the platform pins the new one after the update).
    located_is_stale: bool,
    /// Placement changes made between updates ([`App::scale_by`]), told by the next update.
    pending_events: Vec<AppEvent>,
    /// What the next fresh placement is reported as, when a command put
    /// the hologram back ("reset") rather than the app placing it first.
    reset_by: Option<PlacementCause>,
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
            placement: None,
            placed_by: None,
            ever_placed: false,
            surfaces_seen: false,
            waiting_since_ns: None,
            manipulation: None,
            located_is_stale: false,
            pending_events: Vec::new(),
            reset_by: None,
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
        let mut events = std::mem::take(&mut self.pending_events);
        let mut heights_changed = false;
        if !input.visible
            && let Some(last) = self.last_display_time_ns
        {
            self.growth.postpone(now.saturating_sub(last));
        }
        self.last_display_time_ns = Some(now);
        if self.manipulation.is_none() {
            self.located_is_stale = false;
        }

        if input.voice == Some(VoiceCommand::Reset) && self.placement.is_some() {
            self.reset_placement();
            self.reset_by = Some(PlacementCause::Voice);
        }
        self.place(input, &mut events);
        let factor = match input.voice {
            Some(VoiceCommand::Bigger) => Some(VOICE_SCALE_STEP),
            Some(VoiceCommand::Smaller) => Some(VOICE_SCALE_STEP.recip()),
            _ => None,
        };
        if let Some(factor) = factor {
            self.scale_into(factor, PlacementCause::Voice, &mut events);
        }

        if let Some((cause, hand)) = self.gestures(input, &mut events) {
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
            model: self
                .drawn_placement(input)
                .as_ref()
                .map(Placement::model_matrix),
            heights_changed,
            events,
            iterations_done: self.generator.iterations_done(),
            iterations_applied,
            views: input.views,
        }
    }

    /// Places the hologram when it is not yet (a kept placement, a surface
    /// the gaze hits, or ahead of the gaze), and moves a placement made
    /// ahead of the gaze onto a surface when the surfaces first become known.
    fn place(&mut self, input: &FrameInput, events: &mut Vec<AppEvent>) {
        let now = input.display_time_ns;
        let head = input.head.filter(Pose::is_finite);
        if self.placement.is_none() {
            let kept = if self.ever_placed {
                Persisted::None
            } else {
                input.persisted
            };
            let placed = match (kept, head) {
                (Persisted::Located(kept), _) if kept.is_finite() => {
                    Some((kept.scaled(kept.scale), PlacementCause::Persisted))
                }
                (Persisted::Pending, Some(head)) => {
                    let since = *self.waiting_since_ns.get_or_insert(now);
                    (now.saturating_sub(since) >= PERSISTED_WAIT_NS)
                        .then(|| fresh_placement(&head, input.surfaces.as_deref()))
                }
                (_, head) => head.map(|head| fresh_placement(&head, input.surfaces.as_deref())),
            };
            if let Some((placement, cause)) = placed {
                let cause = self.reset_by.take().unwrap_or(cause);
                if !self.ever_placed {
                    self.growth.start(now);
                    self.ever_placed = true;
                }
                self.settle(placement, cause, events);
            }
        } else if self.placed_by == Some(PlacementCause::Gaze)
            && !self.surfaces_seen
            && self.manipulation.is_none()
            && let (Some(head), Some(surfaces)) = (head, input.surfaces.as_deref())
            && let Some(point) = surfaces::gaze_hit(surfaces, &head.forward_ray())
            && let Some(current) = self.placement
        {
            let pose = placement::place_on_surface(&head, point);
            self.settle(
                Placement { pose, ..current },
                PlacementCause::Surface,
                events,
            );
        }
        if input.surfaces.is_some() {
            self.surfaces_seen = true;
        }
    }

    /// Makes `placement` the settled one, as `cause` put it there.
    fn settle(&mut self, placement: Placement, cause: PlacementCause, events: &mut Vec<AppEvent>) {
        self.placement = Some(placement);
        self.placed_by = Some(cause);
        self.located_is_stale = true;
        events.push(AppEvent::Placed { placement, cause });
    }

    /// Where the hologram is drawn this frame: the platform's located pose
    /// when it has a finite one for the current placement, else the app's
    /// own; `None` before placement.
    fn drawn_placement(&self, input: &FrameInput) -> Option<Placement> {
        self.placement.map(|own| {
            let located = input
                .hologram_located
                .filter(|pose| pose.is_finite() && !self.located_is_stale);
            match located {
                Some(pose) => Placement { pose, ..own },
                None => own,
            }
        })
    }

    /// Feeds every recogniser this frame's tracking, moves the hologram
    /// with a manipulation in progress (starting and ending them), and
    /// returns the first reseed cause found and the hand that made it
    /// (none for a voice command).
    fn gestures(
        &mut self,
        input: &FrameInput,
        events: &mut Vec<AppEvent>,
    ) -> Option<(ReseedCause, Option<Hand>)> {
        let now = input.display_time_ns;
        let drawn = self.drawn_placement(input);
        let bounds = self.bounds;
        // A pose with NaNs in it could slip through the slab test, so only
        // finite poses can aim.
        let hits = |from: &Pose| {
            from.is_finite()
                && drawn.is_some_and(|placement| {
                    bounds
                        .hit(&placement.ray_to_local(&from.forward_ray()))
                        .is_some()
                })
        };
        let gaze_hits = input.head.as_ref().is_some_and(hits);
        let positions = input.hands.each_ref().map(hand_position);
        let grips = input
            .hands
            .each_ref()
            .map(|hand| hand.grip.filter(Pose::is_finite));
        let mut cause = None;
        for hand in Hand::BOTH {
            let index = hand.index();
            let hand_input = &input.hands[index];
            let aimed = || gaze_hits || hand_input.aim.as_ref().is_some_and(hits);
            let recognizers = &mut self.recognizers[index];
            let select = recognizers.select.press(hand_input.select);
            let (press, controller_select) = if hand_input.select_is_air_tap {
                // The runtime recognises the pinch; ours would count it again.
                recognizers.pinch.update(None);
                (select, false)
            } else {
                (
                    recognizers.pinch.press(hand_input.joints.as_ref()),
                    select == Press::Began,
                )
            };
            let hold = recognizers
                .hold
                .update(press, now, positions[index], || drawn.is_some() && aimed());
            let origin = recognizers.hold.origin().or(positions[index]);
            let probe = drawn
                .zip(hand_input.joints.as_ref())
                .and_then(|(placement, joints)| {
                    let tip = placement.to_local(joints[INDEX_TIP].pose.position);
                    // Press depths are the fingertip's own, at any scale.
                    placement::probe_surface(tip, self.generator.heightmap()).map(|probe| {
                        SurfaceProbe {
                            height_above_surface: probe.height_above_surface * placement.scale,
                            ..probe
                        }
                    })
                });
            let tap = recognizers.tap.update(probe).is_some();
            let squeeze = recognizers.squeeze.press(hand_input.squeeze);

            match hold {
                HoldEvent::Manipulating { first: true } if self.manipulation.is_none() => {
                    if let (Some(origin), Some(start)) = (origin, drawn) {
                        self.manipulation = Some(Manipulation::Drag {
                            hand,
                            origin,
                            start,
                        });
                        self.located_is_stale = true;
                    }
                }
                HoldEvent::ManipulationEnded
                    if matches!(
                        self.manipulation,
                        Some(Manipulation::Drag { hand: dragging, .. }) if dragging == hand
                    ) || matches!(self.manipulation, Some(Manipulation::TwoHand { .. })) =>
                {
                    self.end_manipulation(input, events);
                }
                _ => {}
            }
            match squeeze {
                Press::Began if self.manipulation.is_none() && aimed() => {
                    if let (Some(grip), Some(placement)) = (grips[index], drawn) {
                        self.manipulation = Some(Manipulation::grab(hand, &grip, placement));
                        self.located_is_stale = true;
                    }
                }
                Press::Released | Press::Lost
                    if matches!(
                        self.manipulation,
                        Some(Manipulation::Grab { hand: grabbing, .. }) if grabbing == hand
                    ) =>
                {
                    self.end_manipulation(input, events);
                }
                _ => {}
            }

            let found = [
                (hold == HoldEvent::Tap, ReseedCause::AirTap),
                (tap, ReseedCause::Tap),
                (controller_select && drawn.is_some(), ReseedCause::Select),
            ]
            .into_iter()
            .find_map(|(fired, cause)| fired.then_some((cause, Some(hand))));
            cause = cause.or(found);
        }
        self.start_two_hands(&positions);
        if let Some(manipulation) = self.manipulation
            && let Some(moved) = manipulation.follow(positions, grips)
        {
            self.placement = Some(moved);
        }
        let new_terrain_said = input.voice == Some(VoiceCommand::NewTerrain) && drawn.is_some();
        cause.or(new_terrain_said.then_some((ReseedCause::Voice, None)))
    }

    /// Starts turning and scaling with both hands when both pinch on the
    /// hologram (taking over a one-hand drag); their pinches can then no
    /// longer be taps.
    fn start_two_hands(&mut self, positions: &[Option<Vec3>; 2]) {
        let both_pressed = self
            .recognizers
            .iter()
            .all(|recognizers| recognizers.hold.is_pressed());
        let free = matches!(self.manipulation, None | Some(Manipulation::Drag { .. }));
        if let ([Some(left), Some(right)], Some(start), true, true) =
            (*positions, self.placement, both_pressed, free)
        {
            self.manipulation = Some(Manipulation::TwoHand {
                origins: [left, right],
                start,
            });
            self.located_is_stale = true;
            for recognizers in &mut self.recognizers {
                recognizers.hold.claim();
            }
        }
    }

    /// Ends the manipulation in progress: the hologram follows the hands
    /// one last time, a drag settles onto a surface just below, and the
    /// placement is settled.
    fn end_manipulation(&mut self, input: &FrameInput, events: &mut Vec<AppEvent>) {
        let Some(manipulation) = self.manipulation.take() else {
            return;
        };
        let positions = input.hands.each_ref().map(hand_position);
        let grips = input
            .hands
            .each_ref()
            .map(|hand| hand.grip.filter(Pose::is_finite));
        let Some(mut ended) = manipulation.follow(positions, grips).or(self.placement) else {
            return;
        };
        if manipulation.cause() == PlacementCause::Move
            && let Some(surfaces) = input.surfaces.as_deref()
            && let Some(height) = surfaces::surface_below(surfaces, ended.pose.position)
        {
            ended.pose = Pose::new(
                Vec3::new(ended.pose.position.x, height, ended.pose.position.z),
                placement::level(ended.pose.orientation),
            );
        }
        self.settle(ended, manipulation.cause(), events);
    }

    /// Scales the hologram by `factor` about its base's centre, clamped to
    /// [`MIN_SCALE`]..=[`MAX_SCALE`], as a settled change told by the next
    /// update with `cause` (for commands such as a voice's "bigger"); a
    /// manipulation in progress ends first, where the hands have it. The
    /// new placement, or `None` when nothing is placed yet.
    pub fn scale_by(&mut self, factor: f32, cause: PlacementCause) -> Option<Placement> {
        let mut events = Vec::new();
        let scaled = self.scale_into(factor, cause, &mut events);
        self.pending_events.extend(events);
        scaled
    }

    /// [`Self::scale_by`], telling the changes in `events`.
    fn scale_into(
        &mut self,
        factor: f32,
        cause: PlacementCause,
        events: &mut Vec<AppEvent>,
    ) -> Option<Placement> {
        if let Some(manipulation) = self.manipulation.take()
            && let Some(current) = self.placement
        {
            self.settle(current, manipulation.cause(), events);
        }
        let current = self.placement?;
        let scaled = current.scaled(current.scale * factor);
        self.settle(scaled, cause, events);
        Some(scaled)
    }

    /// Forgets where the hologram is: the next update places it afresh at
    /// the default size (a surface the gaze hits, or ahead of the gaze),
    /// never where an earlier run left it. What the platform keeps for the
    /// next run is its own to forget.
    pub fn reset_placement(&mut self) {
        self.placement = None;
        self.placed_by = None;
        self.manipulation = None;
        self.located_is_stale = true;
        for recognizers in &mut self.recognizers {
            recognizers.hold = HoldRecognizer::new();
        }
    }

    /// The current heights (terrain units).
    pub fn heightmap(&self) -> &Heightmap {
        self.generator.heightmap()
    }

    /// Where the hologram is (its pose), once placed.
    pub fn hologram_pose(&self) -> Option<Pose> {
        self.placement.map(|placement| placement.pose)
    }

    /// Where the hologram is and how big, once placed.
    pub fn placement(&self) -> Option<Placement> {
        self.placement
    }

    /// The manipulation moving the hologram now, if any.
    pub fn manipulation(&self) -> Option<&Manipulation> {
        self.manipulation.as_ref()
    }

    /// The hologram's bounds in hologram space (metres at 1×), relief included.
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

/// A fresh placement for the head: onto the upward surface its gaze hits
/// first within 4 m, else ahead of it.
fn fresh_placement(head: &Pose, surfaces: Option<&[Surface]>) -> (Placement, PlacementCause) {
    match surfaces.and_then(|surfaces| surfaces::gaze_hit(surfaces, &head.forward_ray())) {
        Some(point) => (
            Placement::at(placement::place_on_surface(head, point)),
            PlacementCause::Surface,
        ),
        None => (
            Placement::at(placement::place_hologram(head)),
            PlacementCause::Gaze,
        ),
    }
}

/// Where a hand is, for measuring how far it moves: its palm when the
/// joints are tracked (the palm stays put as the fingers close), else its
/// grip, else its aim pose.
fn hand_position(hand: &HandInput) -> Option<Vec3> {
    let palm = hand
        .joints
        .as_ref()
        .filter(|joints| joints_are_finite(joints))
        .map(|joints| joints[PALM].pose.position);
    let pose_position =
        |pose: &Option<Pose>| pose.filter(Pose::is_finite).map(|pose: Pose| pose.position);
    palm.or_else(|| pose_position(&hand.grip))
        .or_else(|| pose_position(&hand.aim))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_manipulation;
