//! What is drawn: the panel's backplate and title, the caption, every button in its look with its label, each hand's ray and cursor, and the ring under a fingertip; which of them each menu is made of; the colours they are drawn in, and the lowest contrast of a label on its plate.
use glam::Vec3;

use super::actions::panel_actions;
use super::hit_test::Menu;
use super::hit_test::Plane;
use super::layout::{panel_size, title_rect};
use super::measure::{ShownMenu, contrast_ratio, over, srgb_from_linear};
use super::press::{HOVER_DISTANCE_M, Look, RELEASE_DEPTH_M};
use super::state::{Controls, HandState};
use crate::input::Hand;
use crate::input::hand::INDEX_TIP;
use crate::render::scene::{UiFill, UiLabel, UiQuad, UiRect};

/// How long a ray is drawn when it hits nothing.
const RAY_IDLE_LENGTH_M: f32 = 0.5;

/// What the controls draw this frame: the quads and labels in drawing
/// order, and the menus on show, each with its own plates and labels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DrawnControls {
    /// The shapes, in drawing order.
    pub quads: Vec<UiQuad>,
    /// The text on them.
    pub labels: Vec<UiLabel>,
    /// The menus on show, in the order they were drawn.
    pub menus: Vec<ShownMenu>,
}

impl DrawnControls {
    /// Draws `quad` as one of `menu`'s plates.
    fn plate(&mut self, menu: Menu, quad: UiQuad) {
        self.menu(menu).plates.push(quad.rect);
        self.quads.push(quad);
    }

    /// Draws `label` on `menu`.
    fn label(&mut self, menu: Menu, label: UiLabel) {
        self.menu(menu).labels.push(label.clone());
        self.labels.push(label);
    }

    /// `menu`'s entry, begun when it first draws.
    fn menu(&mut self, menu: Menu) -> &mut ShownMenu {
        let index = match self.menus.iter().position(|shown| shown.menu == menu) {
            Some(index) => index,
            None => {
                self.menus.push(ShownMenu {
                    menu,
                    plates: Vec::new(),
                    labels: Vec::new(),
                    min_contrast: min_contrast(menu),
                });
                self.menus.len() - 1
            }
        };
        &mut self.menus[index]
    }
}

impl Controls {
    /// What to draw: the panel's backplate and title, every button (its
    /// look, the growing landscape marked) with its label, and while any
    /// control shows, each hand's ray with a cursor where it meets a
    /// button, and a ring under a fingertip near one.
    pub fn draw(&self, hands: [HandState; 2]) -> DrawnControls {
        let mut drawn = DrawnControls::default();
        if let Some(panel) = self.panel {
            let (width, height) = panel_size(panel_actions(panel.pinned).len());
            let on_panel = Menu::LandscapesPanel;
            drawn.plate(
                on_panel,
                UiQuad {
                    rect: panel.plane.rect(0.0, 0.0, width, height),
                    color: BACKPLATE,
                    fill: UiFill::Solid,
                },
            );
            let title = title_rect(&panel);
            drawn.plate(
                on_panel,
                UiQuad {
                    rect: title,
                    color: TITLE_BAR,
                    fill: UiFill::Solid,
                },
            );
            drawn.label(
                on_panel,
                UiLabel {
                    rect: inset(&title, 0.8),
                    text: "Landscapes".into(),
                    color: LABEL,
                },
            );
        }
        if let Some((text, rect)) = &self.caption {
            drawn.plate(
                Menu::HandMenu,
                UiQuad {
                    rect: *rect,
                    color: TITLE_BAR,
                    fill: UiFill::Solid,
                },
            );
            drawn.label(
                Menu::HandMenu,
                UiLabel {
                    rect: inset(rect, 0.8),
                    text: text.clone(),
                    color: LABEL,
                },
            );
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
            drawn.plate(
                button.menu,
                UiQuad {
                    rect,
                    color: match look {
                        Look::Rest => REST,
                        Look::Hover => HOVER,
                        Look::Pressed => PRESSED,
                    },
                    fill: UiFill::Solid,
                },
            );
            if button.marked {
                drawn.plate(
                    button.menu,
                    UiQuad {
                        rect: UiRect {
                            centre: rect.centre - rect.right * 0.94 + button.normal() * 0.001,
                            right: rect.right * 0.04,
                            up: rect.up * 0.8,
                        },
                        color: MARK,
                        fill: UiFill::Solid,
                    },
                );
            }
            drawn.label(
                button.menu,
                UiLabel {
                    rect: UiRect {
                        centre: rect.centre + button.normal() * 0.001,
                        ..inset(&rect, 0.55)
                    },
                    text: button.action.label().into(),
                    color: LABEL,
                },
            );
        }
        if !self.shown.is_empty() {
            for hand in Hand::BOTH {
                self.draw_pointer(hand, hands[hand.index()], &mut drawn.quads);
            }
        }
        drawn
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

/// The lowest WCAG 2 contrast of a label on its plate over every look
/// `menu`'s plates take (a button at rest, hovered and pressed; a title bar
/// or caption), each as the display shows it: blended over the panel's
/// backplate where it has one, and over black (see-through) behind all.
/// There is no toggled look: "Pin panel" and "Unpin panel" are two labels
/// on the same plate, and the growing landscape's mark lies beside its label.
fn min_contrast(menu: Menu) -> f32 {
    let behind = match menu {
        Menu::HandMenu => [0.0; 3],
        Menu::LandscapesPanel => over(BACKPLATE, [0.0; 3]),
    };
    [REST, HOVER, PRESSED, TITLE_BAR]
        .map(|plate| {
            let shown = over(plate, behind);
            contrast_ratio(
                srgb_from_linear(over(LABEL, shown)),
                srgb_from_linear(shown),
            )
        })
        .into_iter()
        .fold(f32::MAX, f32::min)
}

/// `rect` shrunk to `fraction` of its height (and a little of its width), for its text.
fn inset(rect: &UiRect, fraction: f32) -> UiRect {
    UiRect {
        right: rect.right * 0.9,
        up: rect.up * fraction,
        ..*rect
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::controls::test_support::open_panel;

    #[test]
    fn each_menu_on_show_lists_the_plates_and_labels_it_is_drawn_with() {
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let drawn = controls.draw([HandState::default(); 2]);
        let [panel] = &drawn.menus[..] else {
            panic!("one menu: {:?}", drawn.menus);
        };
        assert_eq!(panel.menu, Menu::LandscapesPanel);
        // The backplate, the title bar, every button and the growing
        // landscape's mark; no hand points at it.
        let buttons = controls.shown().len();
        assert_eq!(panel.plates.len(), 2 + buttons + 1);
        assert_eq!(
            panel.plates,
            drawn.quads.iter().map(|quad| quad.rect).collect::<Vec<_>>()
        );
        assert_eq!(panel.labels.len(), 1 + buttons);
        assert_eq!(panel.labels, drawn.labels);
    }

    #[test]
    fn a_pressed_button_is_the_lowest_contrast_look() {
        // White on the opaque pressed blue: its luminance is
        // 0.2126 × 0.3 + 0.7152 × 0.55 + 0.0722 × 0.95 = 0.5258 (linear
        // already), so 1.05 / 0.5758 = 1.82.
        let pressed = 0.2126 * 0.3 + 0.7152 * 0.55 + 0.0722 * 0.95;
        let expected = 1.05 / (pressed + 0.05);
        for menu in [Menu::HandMenu, Menu::LandscapesPanel] {
            let lowest = min_contrast(menu);
            assert!((lowest - expected).abs() < 1e-3, "{menu:?}: {lowest}");
        }
    }
}
