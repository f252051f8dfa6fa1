//! The presses: a fingertip pushing a button in and back out, a ray with a pinch or select begun and let go on it, a label said; the clicks they make, and how each button looks meanwhile.
use glam::Vec3;

use super::actions::{Action, says};
use super::hit_test::hit_rect;
use super::state::{Controls, HandState};
use crate::input::hand::{INDEX_TIP, PALM};
use crate::input::{Hand, HandJoints, Pose};
use crate::sound::Sound;

/// How far in a fingertip pushes a button before it is pressed.
pub const PRESS_DEPTH_M: f32 = 0.008;
/// How far out it comes again before the press ends (and acts).
pub const RELEASE_DEPTH_M: f32 = 0.004;
/// A fingertip further in than this has gone through the button: no press.
const THROUGH_DEPTH_M: f32 = 0.04;
/// A fingertip this close in front of a button hovers it.
pub(super) const HOVER_DISTANCE_M: f32 = 0.03;

/// How a press was made, as the report's `how` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PressedBy {
    /// A fingertip pushed the button in.
    Poke,
    /// A hand's ray and an air-tap, or a controller's ray and select.
    Ray,
    /// Its label was spoken.
    Voice,
}

impl PressedBy {
    /// Its name, as the report writes it.
    pub fn name(self) -> &'static str {
        match self {
            PressedBy::Poke => "poke",
            PressedBy::Ray => "ray",
            PressedBy::Voice => "voice",
        }
    }
}

/// One press that acted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UiPress {
    /// The button's label.
    pub label: &'static str,
    /// How it was pressed.
    pub how: PressedBy,
    /// What it did.
    pub action: Action,
    /// Where across the button it was let go, 0 its left edge to 1 its
    /// right (the time slider's moment); 0.5 when said.
    pub along: f32,
}

/// How a button looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// Nothing near it.
    Rest,
    /// A fingertip in front of it or a ray on it.
    Hover,
    /// Pushed in, or a pinch held on it.
    Pressed,
}

impl Look {
    /// Every look a button takes.
    pub const ALL: [Look; 3] = [Look::Rest, Look::Hover, Look::Pressed];
}

impl Controls {
    /// Acts on this frame's fingertips and rays: which buttons they hover,
    /// push or release, and the panel's title bar a pinch drags. Returns
    /// the presses that acted.
    pub fn touch(&mut self, hands: [HandState; 2]) -> Vec<UiPress> {
        let before = self.presses.map(|press| [press.poked, press.rayed]);
        let mut pressed = Vec::new();
        for hand in Hand::BOTH {
            let state = hands[hand.index()];
            if let Some(press) = self.poke(hand, state.joints) {
                pressed.push(press);
            }
            if let Some(press) = self.ray(hand, state) {
                pressed.push(press);
            }
        }
        self.note_hovers();
        // A press beginning or ending clicks, from its button.
        let after = self.presses.map(|press| [press.poked, press.rayed]);
        self.clicks.clear();
        for (was, now) in before.iter().flatten().zip(after.iter().flatten()) {
            let clicked = match (was, now) {
                (None, Some(action)) => Some((Sound::Press, *action)),
                (Some(action), None) => Some((Sound::Release, *action)),
                _ => None,
            };
            if let Some((sound, button)) = clicked.and_then(|(sound, action)| {
                let button = self.shown.iter().find(|button| button.action == action)?;
                Some((sound, button))
            }) {
                self.clicks.push((sound, button.rect.centre));
            }
        }
        pressed
    }

    /// Notes since when each hand's ray or fingertip has been on the
    /// button it is on.
    fn note_hovers(&mut self) {
        let now = self.last_ns.unwrap_or(0);
        for hand in Hand::BOTH {
            let press = self.presses[hand.index()];
            let on = press.hovered.or(press.touching.map(|(action, _)| action));
            let since = &mut self.hovered_since[hand.index()];
            *since = match (on, *since) {
                (Some(action), Some((was, at))) if was == action => Some((was, at)),
                (Some(action), _) => Some((action, now)),
                (None, _) => None,
            };
        }
    }

    /// This frame's clicks and where they sound: a press from each button
    /// whose press began, a release from each whose press ended.
    pub fn clicks(&self) -> &[(Sound, Vec3)] {
        &self.clicks
    }

    /// A fingertip pushing a button: pressed at [`PRESS_DEPTH_M`] having
    /// come from the front, acting when it comes back out past
    /// [`RELEASE_DEPTH_M`] over the same button.
    fn poke(&mut self, hand: Hand, joints: Option<&HandJoints>) -> Option<UiPress> {
        let press = &mut self.presses[hand.index()];
        let before = press.touching;
        // The hand showing the menu does not press its own buttons.
        let menu_hand = self.hand_menu.is_some_and(|menu| menu.held_by(hand));
        let tip = joints
            .filter(|_| !menu_hand)
            .map(|joints| joints[INDEX_TIP].pose.position);
        press.touching = tip.and_then(|tip| {
            self.shown
                .iter()
                .filter_map(|button| {
                    let (x, y, depth) = button.local(tip);
                    (button.covers(x, y) && (-HOVER_DISTANCE_M..THROUGH_DEPTH_M).contains(&depth))
                        .then_some((button.action, depth))
                })
                .min_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        });
        match (press.poked, press.touching) {
            (None, Some((action, depth))) if depth >= PRESS_DEPTH_M => {
                let from_front = before.is_some_and(|(was, depth_before)| {
                    was == action && depth_before < PRESS_DEPTH_M
                });
                if from_front {
                    press.poked = Some(action);
                }
                None
            }
            (Some(action), Some((on, depth))) if on == action => {
                if depth >= RELEASE_DEPTH_M {
                    return None;
                }
                press.poked = None;
                Some(UiPress {
                    label: action.label(),
                    how: PressedBy::Poke,
                    action,
                    along: tip.map_or(0.5, |tip| self.along(action, tip)),
                })
            }
            (Some(_), _) => {
                // Slid off or went through: no press.
                press.poked = None;
                None
            }
            _ => None,
        }
    }

    /// A ray on a button with a pinch (or select) that begins and ends on
    /// it; a pinch on the panel's title bar moves the panel.
    fn ray(&mut self, hand: Hand, state: HandState) -> Option<UiPress> {
        use crate::input::Press;
        let ray = state
            .aim
            .filter(Pose::is_finite)
            .map(|aim| aim.forward_ray());
        let menu_hand = self.hand_menu.is_some_and(|menu| menu.held_by(hand));
        let near = self.presses[hand.index()].touching.is_some();
        let in_front = |t: f32| state.hidden_beyond.is_none_or(|beyond| t <= beyond);
        let hit = ray.filter(|_| !menu_hand && !near).and_then(|ray| {
            self.shown
                .iter()
                .filter_map(|button| button.hit(&ray).map(|t| (button.action, t)))
                .filter(|&(_, t)| in_front(t))
                .min_by(|a, b| a.1.total_cmp(&b.1))
        });
        let title_hit = ray
            .filter(|_| !menu_hand && !near)
            .zip(self.title_rect())
            .and_then(|(ray, title)| hit_rect(&title, &ray).map(|t| (ray, t)))
            .filter(|&(_, t)| in_front(t));
        let press = &mut self.presses[hand.index()];
        press.hovered = hit.map(|(action, _)| action);
        press.ray_hit = hit.map(|(_, t)| t).or(title_hit.map(|(_, t)| t));
        let position = state.joints.map(|joints| joints[PALM].pose.position);
        match state.press {
            Some(Press::Began) => {
                if let Some((action, _)) = hit {
                    press.rayed = Some(action);
                } else if title_hit.is_some()
                    && let (Some(panel), Some(position)) = (
                        self.panel.as_mut(),
                        position.or(state.aim.map(|aim| aim.position)),
                    )
                {
                    panel.grabbed = Some((hand, position));
                    panel.pinned = true;
                }
                None
            }
            Some(Press::Held) => {
                if let Some(panel) = self.panel.as_mut()
                    && let Some((grabbing, last)) = panel.grabbed
                    && grabbing == hand
                    && let Some(now) = position.or(state.aim.map(|aim| aim.position))
                {
                    panel.plane.centre += now - last;
                    panel.grabbed = Some((hand, now));
                }
                None
            }
            _ => {
                if let Some(panel) = self.panel.as_mut()
                    && panel.grabbed.is_some_and(|(grabbing, _)| grabbing == hand)
                {
                    panel.grabbed = None;
                }
                let began_on = press.rayed.take()?;
                let let_go_on_it =
                    state.press == Some(Press::Released) && press.hovered == Some(began_on);
                let at = ray
                    .zip(hit)
                    .map(|(ray, (_, t))| ray.origin + ray.direction * t);
                let_go_on_it.then(|| UiPress {
                    label: began_on.label(),
                    how: PressedBy::Ray,
                    action: began_on,
                    along: at.map_or(0.5, |at| self.along(began_on, at)),
                })
            }
        }
    }

    /// The press that `words` make: the button on show whose label they say.
    pub fn hear(&self, words: &str) -> Option<UiPress> {
        self.shown
            .iter()
            .find(|button| says(words, button.action.label()))
            .map(|button| UiPress {
                label: button.action.label(),
                how: PressedBy::Voice,
                action: button.action,
                along: 0.5,
            })
    }

    /// Where across `action`'s button `point` lies: 0 its left edge, 1 its right.
    fn along(&self, action: Action, point: Vec3) -> f32 {
        self.shown
            .iter()
            .find(|button| button.action == action)
            .map_or(0.5, |button| {
                let (x, _, _) = button.local(point);
                (0.5 + x / (2.0 * button.rect.right.length())).clamp(0.0, 1.0)
            })
    }

    /// How every button looks now.
    pub(super) fn look(&self, action: Action) -> Look {
        let pressed = self
            .presses
            .iter()
            .any(|press| press.poked == Some(action) || press.rayed == Some(action));
        let hovered = self.presses.iter().any(|press| {
            press.hovered == Some(action) || press.touching.is_some_and(|(on, _)| on == action)
        });
        if pressed {
            Look::Pressed
        } else if hovered {
            Look::Hover
        } else {
            Look::Rest
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::controls::test_support::{button, head, joints_with_tip, open_panel};
    use crate::input::Press;

    #[test]
    fn a_fingertip_pushing_in_and_back_out_presses_once() {
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let undo = button(&controls, "Undo");
        let normal = undo.normal();
        let mut presses = Vec::new();
        for depth in [-0.02, -0.005, 0.004, 0.012, 0.012, 0.006, 0.002, -0.01] {
            let tip = undo.rect.centre - normal * depth;
            let joints = joints_with_tip(tip);
            let hands = [
                HandState::default(),
                HandState {
                    joints: Some(&joints),
                    ..HandState::default()
                },
            ];
            presses.extend(controls.touch(hands));
        }
        assert_eq!(presses.len(), 1, "{presses:?}");
        assert_eq!(presses[0].action, Action::Undo);
        assert_eq!(presses[0].how, PressedBy::Poke);
    }

    #[test]
    fn a_fingertip_coming_from_behind_or_sliding_off_presses_nothing() {
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let undo = button(&controls, "Undo");
        let normal = undo.normal();
        let beside = undo.rect.right * 3.0;
        let paths: [&[(f32, Vec3)]; 2] = [
            &[
                (0.03, Vec3::ZERO),
                (0.012, Vec3::ZERO),
                (0.0, Vec3::ZERO),
                (-0.02, Vec3::ZERO),
            ],
            &[
                (-0.01, Vec3::ZERO),
                (0.012, Vec3::ZERO),
                (0.012, beside),
                (-0.02, beside),
            ],
        ];
        for path in paths {
            let mut presses = Vec::new();
            for &(depth, offset) in path {
                let joints = joints_with_tip(undo.rect.centre - normal * depth + offset);
                let hands = [
                    HandState {
                        joints: Some(&joints),
                        ..HandState::default()
                    },
                    HandState::default(),
                ];
                presses.extend(controls.touch(hands));
            }
            assert!(presses.is_empty(), "{path:?}: {presses:?}");
        }
    }

    #[test]
    fn a_pinch_begun_and_let_go_on_a_button_presses_it_and_one_dragged_off_does_not() {
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let faster = button(&controls, "Faster");
        let from = head().position + Vec3::new(0.1, -0.2, 0.0);
        let on = Pose::looking_at(from, faster.rect.centre).unwrap();
        let off = Pose::looking_at(from, faster.rect.centre + Vec3::Y).unwrap();
        let frame = |controls: &mut Controls, aim: Pose, press: Press| {
            controls.touch([
                HandState::default(),
                HandState {
                    aim: Some(aim),
                    press: Some(press),
                    ..HandState::default()
                },
            ])
        };
        // Something met before the button along the ray hides it.
        let behind = controls.touch([
            HandState::default(),
            HandState {
                aim: Some(on),
                press: Some(Press::Began),
                hidden_beyond: Some(on.position.distance(faster.rect.centre) * 0.5),
                ..HandState::default()
            },
        ]);
        assert!(behind.is_empty() && !controls.holds(Hand::Right));
        assert_eq!(controls.ray_on(Hand::Right), None, "hidden behind");
        frame(&mut controls, on, Press::Released);
        assert!(frame(&mut controls, on, Press::Began).is_empty());
        assert_eq!(
            controls.clicks(),
            [(Sound::Press, faster.rect.centre)],
            "a press clicks as it begins"
        );
        assert!(controls.holds(Hand::Right));
        assert_eq!(controls.look(Action::Faster), Look::Pressed);
        let presses = frame(&mut controls, on, Press::Released);
        assert_eq!(presses.len(), 1);
        assert_eq!(
            controls.clicks(),
            [(Sound::Release, faster.rect.centre)],
            "and a release, higher, as it ends"
        );
        assert_eq!(
            (presses[0].action, presses[0].how),
            (Action::Faster, PressedBy::Ray)
        );
        assert!(!controls.holds(Hand::Right));
        assert!(frame(&mut controls, on, Press::Began).is_empty());
        assert!(frame(&mut controls, off, Press::Released).is_empty());
        assert_eq!(controls.look(Action::Faster), Look::Rest);
    }

    #[test]
    fn a_label_said_presses_the_button_on_show_only() {
        let mut controls = Controls::default();
        assert_eq!(controls.hear("close"), None);
        open_panel(&mut controls);
        let press = controls.hear("  CLOSE ").expect("on show");
        assert_eq!(
            (press.action, press.how),
            (Action::ClosePanel, PressedBy::Voice)
        );
        controls.act(press.action, None);
        assert!(!controls.panel_open());
    }
}
