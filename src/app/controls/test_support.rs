//! What the controls' tests share: a head, a panel opened in front of it, the world's state, a button found by its label, a hand with its index tip placed.
use glam::{Quat, Vec3};

use super::actions::Action;
use super::hit_test::ShownButton;
use super::state::{Controls, HandState, Shows};
use crate::input::hand::synthetic::hand_with_gap;
use crate::input::{HandJoints, Pose};

pub fn head() -> Pose {
    Pose::new(Vec3::new(0.0, 1.6, 0.0), Quat::IDENTITY)
}

pub fn open_panel(controls: &mut Controls) {
    controls.act(Action::Landscapes, Some(&head()));
    controls.lay_out(0, Some(&head()), [HandState::default(); 2], shows());
}

pub fn shows() -> Shows<'static> {
    Shows {
        paused: false,
        recipe_name: "islands",
        contours: true,
        grown: (100, 400),
        iterations_per_second: 60,
        session: None,
        moment: (40, 50),
        saves: &[],
    }
}

pub fn button(controls: &Controls, label: &str) -> ShownButton {
    *controls
        .shown()
        .iter()
        .find(|button| button.action.label() == label)
        .unwrap_or_else(|| panic!("{label} is not on show"))
}

pub fn joints_with_tip(tip: Vec3) -> HandJoints {
    hand_with_gap(tip, 0.05)
}
