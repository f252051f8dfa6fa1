//! The wearer's controls: the palm-up hand menu, the landscapes panel (a near menu), their buttons, and how a fingertip, a hand's or controller's ray, or a spoken label presses them.
//!
//! Microsoft's HoloLens 2 guidance, as followed here: a hand menu shows
//! beside the little-finger side of a flat hand held palm to the face while
//! the wearer looks at it, stays world-locked for a moment when the hand
//! drops ([`MENU_LINGER_NS`]), then hides; a near menu follows the head
//! at arm's length until pinned; buttons are at least 3.2 cm square
//! ([`BUTTON_HEIGHT_M`]) and show their looks (rest, hover, pressed, and a
//! lit bar for a toggle that is on); every text is one of three sizes; a
//! fingertip presses a button by pushing it in ([`PRESS_DEPTH_M`]) and
//! lets go on the way back ([`RELEASE_DEPTH_M`]); a ray presses with an
//! air-tap or a controller's select; every label on show is a voice
//! command ("see it, say it").
//!
//! A press acts when it ends (the finger back out, the pinch let go on the
//! same button), as a pressable button does, so a finger that slides off
//! or a pinch dragged away cancels it.
//!
//! Here: [`state`] the controls' state between frames and what the world
//! asks of it; [`actions`] what the buttons do, [`layout`] where the menus show and
//! their buttons lie, [`panel`] the panel's groups laid out, [`ramp`] the
//! three text sizes, [`palm`] the palm held up, [`hit_test`] where a
//! fingertip or a ray meets a button, [`press`] the presses, [`draw`] what
//! is drawn, [`cursor`] the cursors where rays and the gaze land, [`ghost`] the hand
//! coach's ghost hand, [`measure`] how big a menu and its text look from the eyes and
//! how its labels stand out; [`legend`], the scale bar on the
//! hologram's base; and [`toast`], the short lines that say what a save,
//! an undo or speech did.
mod actions;
mod cursor;
mod draw;
mod ghost;
mod hit_test;
mod layout;
pub mod legend;
pub mod measure;
mod palm;
mod panel;
mod press;
pub mod ramp;
mod state;
pub mod toast;

pub use actions::{Action, SAVE_ROWS, every_label, landscape_label, says};
pub use cursor::Cursor;
pub use draw::DrawnControls;
pub use ghost::draw_coach;
pub use hit_test::Menu;
pub use hit_test::ShownButton;
pub use layout::{
    BUTTON_HEIGHT_M, BUTTON_WIDTH_M, MENU_LINGER_NS, MENU_NEAREST_M, PANEL_NEAREST_M,
};
pub use measure::{MenuMeasure, ShownMenu};
pub use palm::palm_shown;
pub use panel::PANEL_BUTTON_WIDTH_M;
pub use press::{Look, PRESS_DEPTH_M, PressedBy, RELEASE_DEPTH_M, UiPress};
pub use state::{Controls, HandState, Shows};

#[cfg(test)]
mod test_support;
