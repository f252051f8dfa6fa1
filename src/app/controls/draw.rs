//! What is drawn: the panel's backplate and title, the caption, every button in its look with its label, each hand's ray and cursor, and the ring under a fingertip; the colours they are drawn in.
use glam::Vec3;

use super::actions::panel_actions;
use super::hit_test::Plane;
use super::layout::{panel_size, title_rect};
use super::press::{HOVER_DISTANCE_M, Look, RELEASE_DEPTH_M};
use super::state::{Controls, HandState};
use crate::input::Hand;
use crate::input::hand::INDEX_TIP;
use crate::render::scene::{UiFill, UiLabel, UiQuad, UiRect};

/// How long a ray is drawn when it hits nothing.
const RAY_IDLE_LENGTH_M: f32 = 0.5;

impl Controls {
    /// What to draw: the panel's backplate and title, every button (its
    /// look, the growing landscape marked) with its label, and while any
    /// control shows, each hand's ray with a cursor where it meets a
    /// button, and a ring under a fingertip near one.
    pub fn draw(&self, hands: [HandState; 2]) -> (Vec<UiQuad>, Vec<UiLabel>) {
        let mut quads = Vec::new();
        let mut labels = Vec::new();
        if let Some(panel) = self.panel {
            let (width, height) = panel_size(panel_actions(panel.pinned).len());
            quads.push(UiQuad {
                rect: panel.plane.rect(0.0, 0.0, width, height),
                color: BACKPLATE,
                fill: UiFill::Solid,
            });
            let title = title_rect(&panel);
            quads.push(UiQuad {
                rect: title,
                color: TITLE_BAR,
                fill: UiFill::Solid,
            });
            labels.push(UiLabel {
                rect: inset(&title, 0.8),
                text: "Landscapes".into(),
                color: LABEL,
            });
        }
        if let Some((text, rect)) = &self.caption {
            quads.push(UiQuad {
                rect: *rect,
                color: TITLE_BAR,
                fill: UiFill::Solid,
            });
            labels.push(UiLabel {
                rect: inset(rect, 0.8),
                text: text.clone(),
                color: LABEL,
            });
        }
        for button in &self.shown {
            let look = self.look(button.action);
            // Pushed in, the plate sinks with the finger.
            let sunk = if look == Look::Pressed {
                -button.normal() * RELEASE_DEPTH_M
            } else {
                button.normal() * 0.002
            };
            let rect = UiRect {
                centre: button.rect.centre + sunk,
                ..button.rect
            };
            quads.push(UiQuad {
                rect,
                color: match look {
                    Look::Rest => REST,
                    Look::Hover => HOVER,
                    Look::Pressed => PRESSED,
                },
                fill: UiFill::Solid,
            });
            if button.marked {
                quads.push(UiQuad {
                    rect: UiRect {
                        centre: rect.centre - rect.right * 0.94 + button.normal() * 0.001,
                        right: rect.right * 0.04,
                        up: rect.up * 0.8,
                    },
                    color: MARK,
                    fill: UiFill::Solid,
                });
            }
            labels.push(UiLabel {
                rect: UiRect {
                    centre: rect.centre + button.normal() * 0.001,
                    ..inset(&rect, 0.55)
                },
                text: button.action.label().into(),
                color: LABEL,
            });
        }
        if !self.shown.is_empty() {
            for hand in Hand::BOTH {
                self.draw_pointer(hand, hands[hand.index()], &mut quads);
            }
        }
        (quads, labels)
    }

    /// One hand's ray and cursor, or the ring under its fingertip.
    fn draw_pointer(&self, hand: Hand, state: HandState, quads: &mut Vec<UiQuad>) {
        let press = self.presses[hand.index()];
        if let Some((action, depth)) = press.touching
            && let Some(button) = self.shown.iter().find(|button| button.action == action)
            && let Some(joints) = state.joints
        {
            let tip = joints[INDEX_TIP].pose.position;
            let normal = button.normal();
            let on_face = tip + normal * depth + normal * 0.003;
            // The ring narrows as the finger nears the face.
            let radius = 0.004 + depth.abs().min(HOVER_DISTANCE_M) * 0.3;
            quads.push(UiQuad {
                rect: UiRect {
                    centre: on_face,
                    right: button.rect.right.normalize() * radius,
                    up: button.rect.up.normalize() * radius,
                },
                color: CURSOR,
                fill: UiFill::Ring,
            });
            return;
        }
        let menu_hand = self.hand_menu.is_some_and(|menu| menu.held_by(hand));
        let Some(aim) = state.aim.filter(|aim| aim.is_finite() && !menu_hand) else {
            return;
        };
        let ray = aim.forward_ray();
        let length = press.ray_hit.unwrap_or(RAY_IDLE_LENGTH_M);
        let end = ray.origin + ray.direction * length;
        // A thin strip along the ray, turned edge-on to nothing in particular:
        // its width is across the ray and the world's up, or x when vertical.
        let across = ray.direction.cross(Vec3::Y).normalize_or(Vec3::X);
        quads.push(UiQuad {
            rect: UiRect {
                centre: (ray.origin + end) / 2.0,
                right: across * 0.0015,
                up: ray.direction * (length / 2.0),
            },
            color: RAY,
            fill: UiFill::Solid,
        });
        if press.ray_hit.is_some() {
            let facing = Plane::facing(end, ray.origin);
            quads.push(UiQuad {
                rect: UiRect {
                    centre: end + facing.normal() * 0.003,
                    right: facing.right * 0.006,
                    up: facing.up * 0.006,
                },
                color: CURSOR,
                fill: UiFill::Ring,
            });
        }
    }
}

// Plates are opaque (alpha 1), as Microsoft's guidance for depth-based
// reprojection asks of UI backplates: a see-through plate would show what
// is behind it at the depth of the plate, which moves it wrongly when the
// runtime reprojects.

/// A button at rest: a blue bright enough to show on an additive display.
const REST: [f32; 4] = [0.05, 0.12, 0.32, 1.0];
/// Hovered: brighter.
const HOVER: [f32; 4] = [0.12, 0.28, 0.6, 1.0];
/// Pressed: brighter still.
const PRESSED: [f32; 4] = [0.3, 0.55, 0.95, 1.0];
/// The growing landscape's mark.
const MARK: [f32; 4] = [0.3, 1.0, 0.9, 1.0];
/// The panel behind its buttons.
const BACKPLATE: [f32; 4] = [0.03, 0.05, 0.1, 1.0];
/// Its title bar.
const TITLE_BAR: [f32; 4] = [0.08, 0.1, 0.18, 1.0];
/// Text.
const LABEL: [f32; 4] = [1.0, 1.0, 1.0, 1.0];
/// Rays.
const RAY: [f32; 4] = [0.8, 0.9, 1.0, 0.6];
/// Cursors and fingertip rings.
const CURSOR: [f32; 4] = [1.0, 1.0, 1.0, 1.0];

/// `rect` shrunk to `fraction` of its height (and a little of its width), for its text.
fn inset(rect: &UiRect, fraction: f32) -> UiRect {
    UiRect {
        right: rect.right * 0.9,
        up: rect.up * fraction,
        ..*rect
    }
}
