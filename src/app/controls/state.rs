//! The controls' state between frames: the hand menu and the panel while they show, each hand's press in progress, the buttons on show, and what a hand and the world offer them each frame.
use glam::Vec3;

use super::actions::{Action, Page};
use super::hit_test::{Plane, ShownButton};
use super::panel::PanelLayout;
use crate::app::frame::SaveSummary;
use crate::input::{Hand, HandJoints, Pose};
use crate::render::scene::UiRect;

/// The hand menu while it shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct HandMenu {
    /// The hand whose palm shows it.
    pub(super) hand: Hand,
    /// Where its column of buttons is.
    pub(super) plane: Plane,
    /// When the palm stopped showing, while it lingers.
    pub(super) dropped_ns: Option<i64>,
    /// Opened by a controller's menu button: it stays until pressed again.
    pub(super) by_controller: bool,
}

impl HandMenu {
    /// Whether `hand` holds the menu up with its palm (and so does not press it).
    pub(super) fn held_by(&self, hand: Hand) -> bool {
        self.hand == hand && !self.by_controller
    }
}

/// The landscapes panel while it is open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Panel {
    pub(super) plane: Plane,
    pub(super) pinned: bool,
    /// A hand moving it by its title bar, and where that hand was last frame.
    pub(super) grabbed: Option<(Hand, Vec3)>,
    /// The page it shows.
    pub(super) page: Page,
}

/// What a hand offers the controls this frame.
#[derive(Debug, Clone, Copy, Default)]
pub struct HandState<'a> {
    /// Its joints, when tracked.
    pub joints: Option<&'a HandJoints>,
    /// Its aim pose, when located.
    pub aim: Option<Pose>,
    /// Its pinch (or a controller's select): began, held or let go.
    pub press: Option<crate::input::Press>,
    /// Its controller's menu button, when it has one.
    pub menu: Option<bool>,
    /// How far along its aim ray something else is met first (the
    /// hologram): a button beyond is behind it, and the ray does not reach
    /// it (the pointer pipeline's nearest hit first).
    pub hidden_beyond: Option<f32>,
    /// Where its ray lands on the hologram, for its cursor.
    pub lands_on: Option<super::cursor::Cursor>,
}

/// The controls' state between frames.
#[derive(Debug, Clone, Default)]
pub struct Controls {
    pub(super) hand_menu: Option<HandMenu>,
    pub(super) panel: Option<Panel>,
    pub(super) presses: [HandPress; 2],
    /// Each controller's menu button as the last update saw it.
    pub(super) menu_was_down: [bool; 2],
    /// "Landscapes" closed the hand menu: a palm still up does not bring
    /// it back until it drops and is raised again.
    pub(super) palm_spent: bool,
    /// The last touch's clicks, and where each sounds.
    pub(super) clicks: Vec<(crate::sound::Sound, Vec3)>,
    /// The buttons on show, as the last update laid them out.
    pub(super) shown: Vec<ShownButton>,
    /// The line over the hand menu's buttons (the session's code), and
    /// where, as the last update laid it out.
    pub(super) caption: Option<(String, UiRect)>,
    /// The panel as the last update laid it out, while it is open.
    pub(super) panel_layout: Option<PanelLayout>,
    /// Display time of the last update.
    pub(super) last_ns: Option<i64>,
    /// The button each hand's ray or fingertip has been on, and since when
    /// (for its "Say …" hint).
    pub(super) hovered_since: [Option<(Action, i64)>; 2],
    /// The moment of the history shown and the moments in all, for the
    /// time slider's knob.
    pub(super) moment: (u64, u64),
    /// The pictures of the saves the history page lists, newest first.
    pub(super) save_pictures: Vec<Vec<[u8; 3]>>,
}

/// What the world says that the buttons show.
#[derive(Debug, Clone, Copy)]
pub struct Shows<'a> {
    /// Growth is paused (the hand menu offers "Resume growth").
    pub paused: bool,
    /// The recipe growing now (its landscape button is lit).
    pub recipe_name: &'a str,
    /// The contour lines are drawn ("Contours" is lit).
    pub contours: bool,
    /// Iterations grown, of all the terrain's, for the panel's readout.
    pub grown: (usize, usize),
    /// How fast it grows, iterations a second, for the readout.
    pub iterations_per_second: u32,
    /// The shared session's code, while the headset is in one: the hand
    /// menu shows it over its buttons in place of "Share session".
    pub session: Option<&'a str>,
    /// The moment of the history shown, and the moments in all (equal: now).
    pub moment: (u64, u64),
    /// The saves that can be opened, newest first.
    pub saves: &'a [SaveSummary],
}

impl Controls {
    /// The buttons on show.
    pub fn shown(&self) -> &[ShownButton] {
        &self.shown
    }

    /// The label of the button `hand`'s ray is on, as the last touch found it.
    pub fn ray_on(&self, hand: Hand) -> Option<&'static str> {
        self.presses[hand.index()].hovered.map(Action::label)
    }

    /// Whether a press by `hand`'s pinch or select belongs to a button.
    pub fn holds(&self, hand: Hand) -> bool {
        self.presses[hand.index()].rayed.is_some()
            || self
                .panel
                .is_some_and(|panel| panel.grabbed.is_some_and(|(grabbing, _)| grabbing == hand))
    }

    /// Whether the hand menu shows.
    pub fn hand_menu_open(&self) -> bool {
        self.hand_menu.is_some()
    }

    /// Whether the panel is open.
    pub fn panel_open(&self) -> bool {
        self.panel.is_some()
    }

    /// Whether the panel stays where it is.
    pub fn panel_pinned(&self) -> bool {
        self.panel.is_some_and(|panel| panel.pinned)
    }
}

/// One hand's press in progress.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct HandPress {
    /// The button the fingertip is in front of or pushing, and how far in.
    pub(super) touching: Option<(Action, f32)>,
    /// The button the fingertip pushed in, until it comes back out.
    pub(super) poked: Option<Action>,
    /// The button the ray is on.
    pub(super) hovered: Option<Action>,
    /// The button a pinch or select began on, until it is let go.
    pub(super) rayed: Option<Action>,
    /// Where the ray ends (a button or the panel), for the cursor.
    pub(super) ray_hit: Option<f32>,
}
