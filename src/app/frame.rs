//! What a platform hands the app each frame (`FrameInput`) and what it gets back (`FrameOutput`).
use std::sync::Arc;

use glam::{Mat4, Vec2};

use super::controls::{ShownMenu, UiPress};
pub use super::shared::colocation::Marker;
use super::shared::session::{SessionIn, SessionOut};
use super::voice::VoiceCommand;
use super::world::WorldEvent;
use super::world::command::{Applied, ReseedCause};
pub use super::world::growth::GrowthState;
pub use super::world::kept::Kept;
use super::world::placement::{Placement, PlacementCause};
use super::world::surfaces::Surface;
use super::world::undo::Undone;
use crate::input::{Hand, HandJoints, Pose};
use crate::render::camera::{perspective_from_fov, view_from_pose};
use crate::render::scene::{EyeView as RenderEyeView, NearFade};
use crate::sound::Sound;
use crate::terrain::recipe::PaletteName;
use crate::terrain::sculpt::Ignored;

/// A view's field of view as four angles in radians from its forward axis,
/// OpenXR's `XrFovf` convention: left and down are negative for a symmetric view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fov {
    /// Angle of the left edge (negative to the left).
    pub angle_left: f32,
    /// Angle of the right edge.
    pub angle_right: f32,
    /// Angle of the top edge.
    pub angle_up: f32,
    /// Angle of the bottom edge (negative below).
    pub angle_down: f32,
}

/// One eye's camera for the predicted display time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EyeView {
    /// Where the eye is and which way it looks.
    pub pose: Pose,
    /// How much it sees.
    pub fov: Fov,
}

/// Near clipping plane of every eye, metres: Microsoft's comfort guidance
/// for HoloLens clips at 30 cm (nearer, the eyes cannot converge on it
/// comfortably), after content has faded out from [`NEAR_FADE_START_M`].
pub const NEAR_M: f32 = 0.3;
/// What comes nearer the eyes than this, metres, fades out until the near
/// plane (on an additive display it darkens, else loses its alpha).
pub const NEAR_FADE_START_M: f32 = 0.4;
/// The fade every frame is drawn with: from [`NEAR_FADE_START_M`] to [`NEAR_M`].
pub const NEAR_FADE: NearFade = NearFade {
    start_m: NEAR_FADE_START_M,
    end_m: NEAR_M,
};
/// Far clipping plane, metres: past the furthest hologram (placed up to
/// 4 m away, 2 m across at 4×). A narrow range spends the 16-bit depth
/// submitted to the compositor on the hologram, which depth-based
/// reprojection needs to hold it steady.
pub const FAR_M: f32 = 10.0;

impl EyeView {
    /// The renderer's view and projection matrices for this eye.
    pub fn render_view(&self) -> RenderEyeView {
        RenderEyeView {
            view: view_from_pose(self.pose.position, self.pose.orientation),
            projection: perspective_from_fov(
                self.fov.angle_left,
                self.fov.angle_right,
                self.fov.angle_up,
                self.fov.angle_down,
                NEAR_M,
                FAR_M,
            ),
        }
    }
}

/// One hand's (or its controller's) tracking for this frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HandInput {
    /// All 26 joints when hand tracking has them, else `None`.
    pub joints: Option<HandJoints>,
    /// The aim pose (`aim/pose`: forward is where the hand points), when located.
    pub aim: Option<Pose>,
    /// The grip pose (`grip/pose`: where a held controller sits, or the
    /// palm), when located; a squeeze carries the hologram with it.
    pub grip: Option<Pose>,
    /// The select action's current state when the action is active, else `None`.
    pub select: Option<bool>,
    /// The squeeze (grab) action's current state when the action is active, else `None`.
    pub squeeze: Option<bool>,
    /// A controller's menu button when the action is active, else `None`:
    /// a press opens (or closes) the hand menu beside the controller.
    pub menu: Option<bool>,
    /// Whether `select` is the runtime's own air-tap of a tracked hand (the
    /// microsoft/hand_interaction profile, as on HoloLens 2, or
    /// ext/hand_interaction_ext's pinch) rather than a
    /// controller button: it then counts as an air-tap, only when aimed at
    /// the hologram, and the joint-based air-tap stands down for that hand so
    /// one pinch is one event.
    pub select_is_air_tap: bool,
}

/// Everything the app needs to know about one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameInput {
    /// When the frame will be shown, in nanoseconds on the platform's clock.
    pub display_time_ns: i64,
    /// The head (view space) pose, `None` until the runtime locates it.
    pub head: Option<Pose>,
    /// Left and right hand, in [`crate::input::Hand::index`] order.
    pub hands: [HandInput; 2],
    /// Left and right eye.
    pub views: [EyeView; 2],
    /// Where the platform itself locates the hologram this frame, if it does
    /// (a spatial anchor as the runtime now places it, which drifts from the
    /// pose the app pinned as the runtime refines its map); `None` means at
    /// the pinned pose. The hologram is drawn and hit-tested at this pose, so
    /// a gesture lands where the user sees the terrain.
    pub hologram_located: Option<Pose>,
    /// Whether the user sees this frame (an OpenXR session VISIBLE or
    /// FOCUSED; always in the simulator). The display time since the last
    /// update does not count towards growth when this frame is not visible.
    pub visible: bool,
    /// The room's surfaces once the platform knows them (scene
    /// understanding, the simulator's `--room`), in the platform's space;
    /// `None` until then. Shared, so handing them over each frame is cheap.
    pub surfaces: Option<Arc<[Surface]>>,
    /// The printed codes the headset sees (`XR_MSFT_scene_marker`'s QR
    /// codes, the simulator's room markers in view), each as last seen;
    /// `None` where the platform has no marker tracking. Sightings from
    /// before the run started are left out by the platform.
    pub markers: Option<Arc<[Marker]>>,
    /// The placement an earlier run left, before the hologram is first placed.
    pub kept: Kept,
    /// What the wearer said since the last frame, when it is a command.
    pub voice: Option<VoiceCommand>,
    /// What the shared session brought since the last frame, in order
    /// (empty outside a session); the run loop fills it in, not the platform.
    pub shared: Vec<SessionIn>,
    /// The saves this run can open, newest first, when it keeps any; the
    /// run loop fills it in, not the platform.
    pub saves: Option<Arc<[SaveSummary]>>,
    /// How the save asked for on the frame before went, for its toast; the
    /// run loop fills it in, not the platform.
    pub saved: Option<SaveOutcome>,
}

/// How a "Save terrain" went.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveOutcome {
    /// Written, into the save folder of this name (`save-003`).
    Saved(String),
    /// Not written, for this reason (the line the log has).
    Failed(String),
}

/// A save as the panel's history page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SaveSummary {
    /// Its folder's name (`save-003`).
    pub name: String,
    /// The landscape it grew last (its built-in's label, or its recipe's name).
    pub landscape: String,
    /// Its picture, shrunk to [`SAVE_MOSAIC`] coloured cells, rows from the
    /// top (grey where it has no picture).
    pub mosaic: Vec<[u8; 3]>,
}

/// Cells across and down of a save's shrunk picture: enough to tell
/// landscapes apart at the size of a button, few enough that four saves'
/// pictures fit the controls' quads ([`crate::render::ui::MAX_UI_QUADS`]).
pub const SAVE_MOSAIC: (usize, usize) = (9, 6);

/// Something that happened this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AppEvent {
    /// A hand edit applied (it eases in from now) or was ignored.
    Edited {
        /// A trace or a lift.
        kind: Undone,
        /// The hand that made it.
        hand: Option<Hand>,
        /// Why it changed nothing, when it did not apply.
        ignored: Option<Ignored>,
    },
    /// An undo took back the last terrain command, or found none left (`None`).
    Undid {
        /// What it took back.
        undone: Option<Undone>,
    },
    /// In a shared session this headset hosts, the wearer's undo was not
    /// ordered: the last change is someone else's.
    UndoRefused,
    /// A redo did again what the last undo took back, or found none (`None`).
    Redid {
        /// What it did again.
        redone: Option<Undone>,
    },
    /// The recipe's erosion started early ("Weather").
    Weathered,
    /// The land is drawn this many times taller than it is now ("Taller", "Flatter", or an undo of one).
    Exaggerated {
        /// The vertical exaggeration.
        exaggeration: f32,
    },
    /// The world shows moment `to` of its history, `length` moments long
    /// (now, when they are equal): a scrub, or an undo coming back to now.
    Scrubbed {
        /// The moment shown.
        to: u64,
        /// The history's moments in all.
        length: u64,
        /// CPU milliseconds rebuilding it took.
        ms: f64,
    },
    /// Growth was paused, resumed or changed speed; how it goes now.
    Growth(GrowthState),
    /// A button of the controls was pressed (by a fingertip, a ray or its
    /// label spoken) and did what it says.
    Pressed(UiPress),
    /// The wearer asked to keep the terrain ("Save terrain"): the platform
    /// writes it into its state folder.
    SaveAsked,
    /// The wearer asked to open the save on this row of the saves the
    /// frame's input listed: the run loop grows its world from its history.
    OpenAsked(usize),
    /// The wearer asked to host a shared session from here ("Share
    /// session"): the platform opens it, if the headset is in none.
    ShareAsked,
    /// The wearer asked to leave the shared session ("Leave session"): the
    /// run loop ends this headset's part in it, and the app goes on alone.
    LeaveAsked,
    /// A sound to play from `at` (metres, the reference space) where the
    /// platform can play one: a click as a button's press begins (press)
    /// or ends (release), a grab or let-go of the hologram, a grain of the
    /// loop heard while a fault is traced.
    Sound {
        /// Which.
        sound: Sound,
        /// Where it comes from.
        at: glam::Vec3,
    },
    /// The wearer said a phrase or a label on show, and the app listened
    /// (in a shared session, only with the speaker's menu or panel open).
    Heard(VoiceCommand),
    /// The hand coach showed (`shown`) or went, its gesture done.
    Coach {
        /// The gesture it shows.
        what: crate::app::intent::coach::Coached,
        /// Whether it showed (else it went).
        shown: bool,
    },
    /// The hologram's placement changed and is settled here: placed at the
    /// start, put onto a surface, or left where a manipulation ended (not on
    /// the frames in between, while it follows the hands). The platform
    /// pins it anew (a spatial anchor) and, after a manipulation, keeps it.
    Placed {
        /// The hologram's pose in the platform's space, and its scale.
        placement: Placement,
        /// What placed it.
        cause: PlacementCause,
    },
    /// The terrain went flat and started growing from a new seed.
    Reseeded {
        /// The new seed.
        seed: u64,
        /// What asked for it.
        cause: ReseedCause,
        /// The hand that made the gesture or pressed select (a gaze-aimed
        /// air-tap is still one hand's pinch), so a platform can answer on
        /// that hand alone; `None` for a voice command.
        hand: Option<Hand>,
    },
}

/// Marks to draw on the land ([`crate::render::scene::SurfaceMarks`], owned):
/// points in the heightmap's uv.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OwnedSurfaceMarks {
    /// A stroke, as a polyline.
    pub stroke: Vec<Vec2>,
    /// A cursor ring's centre, when there is one.
    pub cursor: Option<Vec2>,
}

/// The controls to draw ([`crate::render::scene::UiLayer`], owned), and
/// which menus they show.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OwnedUiLayer {
    /// The shapes, in drawing order.
    pub quads: Vec<crate::render::scene::UiQuad>,
    /// The text on them.
    pub labels: Vec<crate::render::scene::UiLabel>,
    /// The menus on show (the hand menu, the landscapes panel), each with
    /// its own plates and labels, for measuring how they look.
    pub menus: Vec<ShownMenu>,
}

/// What to draw this frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameOutput {
    /// Model-to-space transform of the terrain mesh at the hologram's pose
    /// this frame (the input's located pose, else the pinned one), `None`
    /// until placed (nothing to draw yet). The mesh's model space spans x, z in
    /// [-0.5, 0.5] with heights in terrain units along y; the transform
    /// scales all three by the hologram's 0.5 m size times its scale.
    pub model: Option<Mat4>,
    /// True when the heights differ from last frame's and must be uploaded.
    pub heights_changed: bool,
    /// What happened this frame, in order.
    pub events: Vec<AppEvent>,
    /// The commands applied this frame, in order (what the command log
    /// records): a manipulation in progress is a preview, not a command,
    /// until it settles.
    pub commands: Vec<Applied>,
    /// Fault iterations applied to the current seed so far.
    pub iterations_done: usize,
    /// Fault iterations applied this frame, at most the app's per-frame budget.
    pub iterations_applied: usize,
    /// The cameras to draw with: the input's views, passed through so a
    /// renderer needs nothing but this output and the heights.
    pub views: [EyeView; 2],
    /// The frame's display time (the input's), for what moves with time (the water).
    pub display_time_ns: i64,
    /// The lowest and highest height of the terrain now (terrain units).
    pub height_range: (f32, f32),
    /// The recipe's water level (terrain units), when it has water.
    pub sea_level: Option<f32>,
    /// The colours by height the land is painted with (the recipe's).
    pub palette: PaletteName,
    /// Whether contour lines are drawn.
    pub contours: bool,
    /// How many times taller than it is the land is drawn (`model` has it
    /// in its vertical scale already).
    pub exaggeration: f32,
    /// How wide the land is, km (the recipe's): what the legend's scale says.
    pub across_km: f32,
    /// Marks to draw on the land (empty unless a tool draws them).
    pub marks: OwnedSurfaceMarks,
    /// The controls to draw (empty when none show).
    pub ui: OwnedUiLayer,
    /// What goes to the shared session, while in one.
    pub shared: Option<SessionOut>,
    /// The toast this frame began, if any (`ui` draws it while it shows).
    pub toast: Option<String>,
}

impl From<WorldEvent> for AppEvent {
    fn from(event: WorldEvent) -> Self {
        match event {
            WorldEvent::Reseeded { seed, cause, hand } => AppEvent::Reseeded { seed, cause, hand },
            WorldEvent::Undid { undone } => AppEvent::Undid { undone },
            WorldEvent::Redid { redone } => AppEvent::Redid { redone },
            WorldEvent::Weathered => AppEvent::Weathered,
            WorldEvent::Exaggerated { exaggeration } => AppEvent::Exaggerated { exaggeration },
            WorldEvent::Scrubbed { to, length, ms } => AppEvent::Scrubbed { to, length, ms },
            WorldEvent::Growth(state) => AppEvent::Growth(state),
            WorldEvent::Edited {
                kind,
                hand,
                ignored,
            } => AppEvent::Edited {
                kind,
                hand,
                ignored,
            },
            WorldEvent::Placed { placement, cause } => AppEvent::Placed { placement, cause },
        }
    }
}

impl FrameOutput {
    /// The placements this frame settled that are kept for the next run:
    /// those a manipulation (hands, a controller, a voice command) made,
    /// never where the app placed it itself.
    pub fn placements_to_keep(&self) -> impl Iterator<Item = &Placement> {
        self.events.iter().filter_map(|event| match event {
            AppEvent::Placed { placement, cause } if cause.is_manipulation() => Some(placement),
            _ => None,
        })
    }
}

#[cfg(test)]
impl FrameOutput {
    /// Test builds only: a frame where nothing is placed, changed or
    /// happened, seen by two eyes at the origin looking down -Z.
    pub(crate) fn empty() -> Self {
        let eye = EyeView {
            pose: Pose {
                position: glam::Vec3::ZERO,
                orientation: glam::Quat::IDENTITY,
            },
            fov: Fov {
                angle_left: -0.5,
                angle_right: 0.5,
                angle_up: 0.4,
                angle_down: -0.4,
            },
        };
        FrameOutput {
            model: None,
            heights_changed: false,
            events: Vec::new(),
            commands: Vec::new(),
            iterations_done: 0,
            iterations_applied: 0,
            views: [eye, eye],
            display_time_ns: 0,
            height_range: (0.0, 0.0),
            sea_level: None,
            palette: PaletteName::default(),
            contours: true,
            exaggeration: 1.0,
            across_km: 10.0,
            marks: OwnedSurfaceMarks::default(),
            ui: OwnedUiLayer::default(),
            shared: None,
            toast: None,
        }
    }
}

// The menus keep beyond the near fade, which keeps before the clip: checked
// as the crate compiles.
const _: () = {
    use crate::app::controls::{MENU_NEAREST_M, PANEL_NEAREST_M};
    assert!(NEAR_M < NEAR_FADE_START_M);
    assert!(MENU_NEAREST_M > NEAR_FADE_START_M);
    assert!(PANEL_NEAREST_M > NEAR_FADE_START_M);
};
