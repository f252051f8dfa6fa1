//! The wearer's controls: the palm-up hand menu, the landscapes panel (a near menu), their buttons, and how a fingertip, a hand's or controller's ray, or a spoken label presses them.
//!
//! Microsoft's HoloLens 2 guidance, as followed here: a hand menu shows
//! beside the little-finger side of a flat hand held palm to the face while
//! the wearer looks at it, stays world-locked for a moment when the hand
//! drops ([`MENU_LINGER_NS`]), then hides; a near menu follows the head
//! at arm's length until pinned; buttons are at least 3.2 cm square
//! ([`BUTTON_HEIGHT_M`]) and show three looks (rest, hover, pressed); a
//! fingertip presses a button by pushing it in ([`PRESS_DEPTH_M`]) and
//! lets go on the way back ([`RELEASE_DEPTH_M`]); a ray presses with an
//! air-tap or a controller's select; every label on show is a voice
//! command ("see it, say it").
//!
//! A press acts when it ends (the finger back out, the pinch let go on the
//! same button), as a pressable button does, so a finger that slides off
//! or a pinch dragged away cancels it.
//!
//! Here: the controls' state between frames and what the world asks of
//! it; [`actions`] what the buttons do, [`layout`] where the menus show and
//! their buttons lie, [`palm`] the palm held up, [`hit_test`] where a
//! fingertip or a ray meets a button, [`press`] the presses, [`draw`] what
//! is drawn.
use glam::Vec3;

use crate::input::{Hand, HandJoints, Pose};
use crate::render::scene::UiRect;

mod actions;
mod draw;
mod hit_test;
mod layout;
mod palm;
mod press;

pub use actions::{Action, every_label, says};
pub use hit_test::ShownButton;
pub use layout::{BUTTON_HEIGHT_M, BUTTON_WIDTH_M, MENU_LINGER_NS, PANEL_BUTTON_WIDTH_M};
pub use palm::palm_shown;
pub use press::{Look, PRESS_DEPTH_M, PressedBy, RELEASE_DEPTH_M, UiPress};

use hit_test::Plane;
use layout::in_front;
use press::HandPress;

/// The hand menu while it shows.
#[derive(Debug, Clone, Copy, PartialEq)]
struct HandMenu {
    /// The hand whose palm shows it.
    hand: Hand,
    /// Where its column of buttons is.
    plane: Plane,
    /// When the palm stopped showing, while it lingers.
    dropped_ns: Option<i64>,
    /// Opened by a controller's menu button: it stays until pressed again.
    by_controller: bool,
}

impl HandMenu {
    /// Whether `hand` holds the menu up with its palm (and so does not press it).
    fn held_by(&self, hand: Hand) -> bool {
        self.hand == hand && !self.by_controller
    }
}

/// The landscapes panel while it is open.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Panel {
    plane: Plane,
    pinned: bool,
    /// A hand moving it by its title bar, and where that hand was last frame.
    grabbed: Option<(Hand, Vec3)>,
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
}

/// The controls' state between frames.
#[derive(Debug, Clone, Default)]
pub struct Controls {
    hand_menu: Option<HandMenu>,
    panel: Option<Panel>,
    presses: [HandPress; 2],
    /// Each controller's menu button as the last update saw it.
    menu_was_down: [bool; 2],
    /// "Landscapes" closed the hand menu: a palm still up does not bring
    /// it back until it drops and is raised again.
    palm_spent: bool,
    /// Where the last touch's clicks sound.
    clicks: Vec<Vec3>,
    /// The buttons on show, as the last update laid them out.
    shown: Vec<ShownButton>,
    /// The line over the hand menu's buttons (the session's code), and
    /// where, as the last update laid it out.
    caption: Option<(String, UiRect)>,
    /// Display time of the last update.
    last_ns: Option<i64>,
}

/// What the world says that the buttons show.
#[derive(Debug, Clone, Copy)]
pub struct Shows<'a> {
    /// Growth is paused (the hand menu offers "Resume growth").
    pub paused: bool,
    /// The recipe growing now (its landscape button is marked).
    pub recipe_name: &'a str,
    /// The shared session's code, while the headset is in one: the hand
    /// menu shows it over its buttons in place of "Share session".
    pub session: Option<&'a str>,
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

    /// Whether the panel is open.
    pub fn panel_open(&self) -> bool {
        self.panel.is_some()
    }

    /// Whether the panel stays where it is.
    pub fn panel_pinned(&self) -> bool {
        self.panel.is_some_and(|panel| panel.pinned)
    }

    /// Does what a press of the panel's own buttons asks; the others are the
    /// world's (the caller issues their commands).
    pub fn act(&mut self, action: Action, head: Option<&Pose>) {
        match action {
            Action::Landscapes => {
                // The hand menu makes way for the panel, until the palm is
                // shown again.
                self.hand_menu = None;
                self.palm_spent = true;
                if let Some(head) = head {
                    let pinned = self.panel.is_some_and(|panel| panel.pinned);
                    self.panel = Some(Panel {
                        plane: Plane::facing(in_front(head), head.position),
                        pinned,
                        grabbed: None,
                    });
                }
            }
            Action::PinPanel | Action::UnpinPanel => {
                if let Some(panel) = self.panel.as_mut() {
                    panel.pinned = action == Action::PinPanel;
                }
            }
            Action::ClosePanel => self.panel = None,
            _ => {}
        }
    }
}

#[cfg(test)]
mod test_support;
