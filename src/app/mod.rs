//! The frame-loop core: input → intent → command → world; the terrain, the hologram's placement, growth and the gesture rules; no GPU, no XR.
//!
//! A platform (the OpenXR session, the simulator, the test runtime's
//! wearer) builds a [`FrameInput`] each frame and hands it to the one run
//! loop ([`run::RunLoop`]), which brings in what the shared session sent,
//! calls [`App::update`] through its [`driver::FrameDriver`], notes the
//! frame in the run's record (report and command log), sends on what the
//! frame made, and draws and saves through the platform.
//!
//! The rooms, each importing only those below it: [`run`] (the run loop,
//! the record, the log, saving, the scene glue) above the [`App`]
//! (`update.rs`), above [`intent`] (hands, gaze and voice into commands),
//! [`shared`] (a shared session's values and rules) and [`world`] (the
//! terrain, its growth, edits, undo and the settled placement).
//!
//! Inside an update, [`intent::Interaction`] turns hands, gaze and
//! voice into [`Command`]s (one owner per hand: [`focus::Focus`]), and the
//! [`World`] applies them and grows; it knows nothing of hands. Every
//! command applied comes back in [`FrameOutput::commands`], stamped with
//! its order and origin, so that [`App::replay`] can apply the same
//! commands again and grow the same world.
//!
//! Rules, in the order `update` applies them:
//! 1. Placement: on the first frame with a located head pose the hologram is
//!    placed where an earlier run left it ([`Kept::Located`]; while it
//!    is [`Kept::Pending`] the app waits up to [`KEPT_WAIT_NS`]),
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
//!    moved less than 2 cm, and reseeds on its release. Held longer or moved
//!    further, what the hand's ray met when the pinch began decides
//!    ([`aim::aim`]): the land sculpts ([`stroke::Stroke`]: the first 2 cm
//!    of travel say a traced fault or a lifted hill, a command on release);
//!    the base, or only the gaze, drags the hologram 1:1 with the hand, and
//!    on release the hologram settles onto an upward surface up to 10 cm
//!    below its base.
//!    Both hands pinching on it turn it about the vertical and scale it
//!    (0.25–4×) ([`manipulation::Manipulation`]). A controller's squeeze
//!    aimed at it carries it rigidly with the grip. A controller's select
//!    clicked (within the air-tap's limits) reseeds on its release wherever
//!    it points, and held it sculpts or drags as a pinch does; a fingertip
//!    pushed into the surface taps. Hit
//!    tests use the placement the hologram is drawn at this frame
//!    ([`FrameInput::hologram_located`] when the platform locates it and no
//!    manipulation is moving it, else the app's own). At most one reseed per
//!    frame: the first cause found, left hand before right, air-tap before
//!    tap before select, then a voice command ("new terrain"); the reseed
//!    names the hand that made it (none for a voice command).
//! 3. Reseed ([`Command::Reseed`], the one a frame may have, applied last):
//!    the next seed is `mix(previous seed, reseed count)` (so a run
//!    is reproducible from its first seed), the map goes flat and growth
//!    restarts at this frame's display time.
//! 4. Edits ([`Command::Trace`], [`Command::Lift`]) are a layer over the
//!    grown terrain ([`edits::EditLayer`]), eased in over half a second;
//!    [`Command::Undo`] takes back the last reseed, landscape or edit
//!    ([`undo::UndoStack`]).
//! 5. Growth: the iterations due by now ([`growth::GrowthSchedule`]), at
//!    most the per-frame budget of them, with display time up to a frame
//!    that is not visible left out (the rules and why: [`growth`]).
//!
//! Every settled change of placement is an [`AppEvent::Placed`]; the
//! platform pins it with an anchor and, after a manipulation
//! ([`PlacementCause::is_manipulation`]), keeps it for the next run.
pub mod controls;
pub mod frame;
pub mod intent;
pub mod run;
pub mod shared;
pub(crate) mod update;
pub mod voice;
pub mod world;

pub use frame::{
    AppEvent, EyeView, Fov, FrameInput, FrameOutput, HandInput, Kept, Marker, OwnedSurfaceMarks,
};
pub use intent::manipulation::Manipulation;
pub use intent::{KEPT_WAIT_NS, VOICE_SCALE_STEP, aim, focus, manipulation, stroke};
pub use run::scene::SceneBuilder;
pub use run::{driver, log, recorder, report, save, scene};
pub use shared::session::{Ordered, Role, SessionIn, SessionOut, Step};
pub use shared::{colocation, session};
pub use update::App;
pub use voice::VoiceCommand;
pub use world::command::{Applied, Command, Origin, ReseedCause};
pub use world::growth::{CATCH_UP_ITERATIONS_PER_FRAME, GrowthSchedule, MAX_ITERATIONS_PER_FRAME};
pub use world::placement::{
    HOLOGRAM_SIZE_M, MAX_SCALE, MIN_SCALE, PLACEMENT_DISTANCE_M, PLACEMENT_DROP_M, Placement,
    PlacementCause,
};
pub use world::surfaces::Surface;
pub use world::{
    AppConfig, AppError, DEFAULT_ITERATIONS_PER_SECOND, World, command, edits, growth, kept,
    placement, surfaces, undo,
};
