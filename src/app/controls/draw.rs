//! What is drawn: the panel's backplate, title bar, rules and headings, the caption, every button in its look with its label and its lit bar, each hand's ray and cursor, and the ring under a fingertip; which of them each menu is made of; the colours they are drawn in, and the lowest contrast of a text on what is behind it over every look.
use glam::Vec3;

use super::actions::Action;
use super::cursor::Cursor;
use super::hit_test::Menu;
use super::hit_test::Plane;
use super::measure::{ShownMenu, contrast_ratio, over, srgb_from_linear};
use super::panel::{LABEL_PADDING_M, PanelLayout, RULE_M, TextRole};
use super::press::{HOVER_DISTANCE_M, Look, RELEASE_DEPTH_M};
use super::ramp::{TextSize, text_in};
use super::state::{Controls, HandState};
use crate::app::frame::SAVE_MOSAIC;
use crate::input::Hand;
use crate::input::hand::INDEX_TIP;
use crate::render::palette::srgb_to_linear;
use crate::render::scene::{UiFill, UiLabel, UiQuad, UiRect};

/// How long a ray or fingertip stays on a button before it says how to
/// say it.
pub const SAY_HINT_NS: i64 = 1_000_000_000;
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
    /// What to draw: the panel (backplate, title bar, rules, headings and
    /// readout), the caption, every button (its look, its lit bar when on)
    /// with its label, each hand's ray with a cursor where it lands on a
    /// button, the panel or the hologram (and while any control shows, its
    /// ray alone when it lands on nothing), and a ring under a fingertip
    /// near a button.
    pub fn draw(&self, hands: [HandState; 2]) -> DrawnControls {
        let mut drawn = DrawnControls::default();
        self.draw_panel(&mut drawn);
        if let Some((text, rect)) = &self.caption {
            let menu = Menu::HandMenu;
            drawn.plate(menu, solid(*rect, TITLE_BAR));
            let slot = shrunk_across(rect, LABEL_PADDING_M);
            drawn.label(menu, text_in(&slot, text.clone(), TextSize::Large, LABEL));
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
            drawn.plate(button.menu, solid(rect, plate_color(look, button.lit)));
            if button.action == Action::TimeSlider {
                self.draw_time(&rect, button.normal(), &mut drawn.quads);
            }
            if button.lit {
                drawn.plate(button.menu, solid(lit_bar(&rect, button.normal()), LIT_BAR));
            }
            let slot = UiRect {
                centre: rect.centre + button.normal() * 0.001,
                ..shrunk_across(&rect, LABEL_PADDING_M)
            };
            let label = button.action.label();
            drawn.label(button.menu, text_in(&slot, label, TextSize::Medium, LABEL));
        }
        for hand in Hand::BOTH {
            self.draw_say_hint(hand, &mut drawn);
            self.draw_pointer(hand, hands[hand.index()], &mut drawn.quads);
        }
        drawn
    }

    /// The panel's backplate, title bar, the rules between its groups, and
    /// its own text (title, headings, readout).
    fn draw_panel(&self, drawn: &mut DrawnControls) {
        let (Some(panel), Some(layout)) = (self.panel, &self.panel_layout) else {
            return;
        };
        let on_panel = Menu::LandscapesPanel;
        let plane = panel.plane;
        let (width, height) = (layout.width, layout.height);
        drawn.plate(
            on_panel,
            solid(plane.rect(0.0, 0.0, width, height), BACKPLATE),
        );
        if let Some(title) = self.title_rect() {
            drawn.plate(on_panel, solid(title, TITLE_BAR));
        }
        let forward = plane.normal() * 0.001;
        for &y in &layout.rules {
            let rule = plane.rect(0.0, y, width - 4.0 * LABEL_PADDING_M, RULE_M);
            drawn.plate(
                on_panel,
                solid(
                    UiRect {
                        centre: rule.centre + forward,
                        ..rule
                    },
                    RULE,
                ),
            );
        }
        self.draw_pictures(&plane, layout, &mut drawn.quads);
        for text in &layout.texts {
            // A little wider than the text, so rounding never shrinks it.
            let text_width = text.size.width_m(&text.text) * 1.01;
            let slot = plane.rect(text.left + text_width / 2.0, text.y, text_width, 1.0);
            let color = match text.role {
                TextRole::Title | TextRole::Save => LABEL,
                TextRole::Heading => HEADING,
            };
            let mut label = text_in(&slot, text.text.clone(), text.size, color);
            label.rect.centre += forward;
            drawn.label(on_panel, label);
        }
    }

    /// "Say '…'" over the button `hand` has been on for [`SAY_HINT_NS`]
    /// (see it, say it), on a plate of its own.
    fn draw_say_hint(&self, hand: Hand, drawn: &mut DrawnControls) {
        let Some((action, since)) = self.hovered_since[hand.index()] else {
            return;
        };
        let long_enough = self.last_ns.is_some_and(|now| now - since >= SAY_HINT_NS);
        let Some(button) = self
            .shown
            .iter()
            .find(|button| button.action == action)
            .filter(|_| long_enough)
        else {
            return;
        };
        let text = format!("Say '{}'", action.label());
        let size = TextSize::Small;
        let width = size.width_m(&text) + 2.0 * LABEL_PADDING_M;
        let height = size.line_m() + LABEL_PADDING_M;
        let (right, up) = (
            button.rect.right.normalize_or_zero(),
            button.rect.up.normalize_or_zero(),
        );
        // Just over the button, and a little nearer than it, so the
        // buttons above do not hide it.
        let rect = UiRect {
            centre: button.rect.centre
                + up * (button.rect.up.length() + height / 2.0)
                + button.normal() * 0.004,
            right: right * (width / 2.0),
            up: up * (height / 2.0),
        };
        drawn.plate(button.menu, solid(rect, TITLE_BAR));
        let slot = UiRect {
            centre: rect.centre + button.normal() * 0.001,
            ..shrunk_across(&rect, LABEL_PADDING_M)
        };
        drawn.label(button.menu, text_in(&slot, text, size, LABEL));
    }

    /// The time slider's track along the bottom of its plate, and its knob
    /// where the moment shown lies (at the right end: now).
    fn draw_time(&self, plate: &UiRect, normal: Vec3, quads: &mut Vec<UiQuad>) {
        let (shown, length) = self.moment;
        let fraction = if length == 0 {
            1.0
        } else {
            shown as f32 / length as f32
        };
        let across = plate.right.length();
        let (right, up) = (
            plate.right.normalize_or_zero(),
            plate.up.normalize_or_zero(),
        );
        let low = plate.centre - up * plate.up.length() * 0.6 + normal * 0.0015;
        let inset = across - 2.0 * LABEL_PADDING_M;
        quads.push(solid(
            UiRect {
                centre: low,
                right: right * inset,
                up: up * (RULE_M / 2.0),
            },
            RULE,
        ));
        quads.push(solid(
            UiRect {
                centre: low + right * inset * (2.0 * fraction - 1.0) + normal * 0.0005,
                right: right * 0.002,
                up: up * 0.005,
            },
            LIT_BAR,
        ));
    }

    /// Each listed save's picture, a mosaic of coloured cells.
    fn draw_pictures(&self, plane: &Plane, layout: &PanelLayout, quads: &mut Vec<UiQuad>) {
        let (columns, rows) = SAVE_MOSAIC;
        for picture in &layout.pictures {
            let Some(mosaic) = self.save_pictures.get(picture.row) else {
                continue;
            };
            let (cell_w, cell_h) = (picture.width / columns as f32, picture.height / rows as f32);
            for (index, rgb) in mosaic.iter().enumerate().take(columns * rows) {
                let (column, row) = (index % columns, index / columns);
                let x = picture.x - picture.width / 2.0 + cell_w * (column as f32 + 0.5);
                let y = picture.y + picture.height / 2.0 - cell_h * (row as f32 + 0.5);
                let mut rect = plane.rect(x, y, cell_w, cell_h);
                rect.centre += plane.normal() * 0.001;
                let linear = rgb.map(|channel| srgb_to_linear(f32::from(channel) / 255.0));
                quads.push(solid(rect, [linear[0], linear[1], linear[2], 1.0]));
            }
        }
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
        // The nearest first: a button or the panel, else the hologram.
        let landed = match press.ray_hit {
            Some(length) => {
                let end = ray.origin + ray.direction * length;
                Some(Cursor {
                    point: end,
                    normal: Plane::facing(end, ray.origin).normal(),
                    distance: length,
                    targeted: press.hovered.is_some(),
                })
            }
            None => state.lands_on,
        };
        if landed.is_none() && self.shown.is_empty() {
            return;
        }
        let length = landed.map_or(RAY_IDLE_LENGTH_M, |cursor| {
            (cursor.point - ray.origin).length()
        });
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
        if let Some(cursor) = landed {
            cursor.push(quads);
        }
    }
}

/// A solid quad over `rect` in `color`.
fn solid(rect: UiRect, color: [f32; 4]) -> UiQuad {
    UiQuad {
        rect,
        color,
        fill: UiFill::Solid,
    }
}

/// `rect` less `margin` at each end, across.
fn shrunk_across(rect: &UiRect, margin: f32) -> UiRect {
    let half = rect.right.length();
    UiRect {
        right: rect.right * ((half - margin).max(0.0) / half.max(f32::EPSILON)),
        ..*rect
    }
}

/// The lit bar along the bottom of a button's plate: a toggle that is on,
/// the landscape growing now. As wide as most of the button and 4 mm tall
/// (about 0.45° at the panel's distance), under its label.
fn lit_bar(rect: &UiRect, normal: Vec3) -> UiRect {
    let up = rect.up.normalize_or_zero();
    let half_height = rect.up.length();
    UiRect {
        centre: rect.centre - up * (half_height - LIT_BAR_M / 2.0 - 0.002) + normal * 0.001,
        right: rect.right * 0.8,
        up: up * (LIT_BAR_M / 2.0),
    }
}

/// How tall the lit bar is.
const LIT_BAR_M: f32 = 0.004;

/// The plate of a button in `look`, lit or not: a lit button at rest is
/// tinted as well as barred; hovered or pressed, it takes those looks.
fn plate_color(look: Look, lit: bool) -> [f32; 4] {
    match (look, lit) {
        (Look::Rest, false) => REST,
        (Look::Rest, true) => TOGGLED,
        (Look::Hover, _) => HOVER,
        (Look::Pressed, _) => PRESSED,
    }
}

// Plates are opaque (alpha 1), as Microsoft's guidance for depth-based
// reprojection asks of UI backplates: a see-through plate would show what
// is behind it at the depth of the plate, which moves it wrongly when the
// runtime reprojects. The looks differ by brightness, all dark enough
// that the labels keep 4.5 : 1 on the brightest (pressed).

/// A button at rest: a blue that shows on an additive display.
const REST: [f32; 4] = [0.025, 0.06, 0.17, 1.0];
/// Hovered: brighter.
const HOVER: [f32; 4] = [0.045, 0.1, 0.28, 1.0];
/// Pressed: brighter still.
const PRESSED: [f32; 4] = [0.07, 0.135, 0.38, 1.0];
/// A toggle that is on, or the landscape growing now, at rest: teal.
const TOGGLED: [f32; 4] = [0.015, 0.11, 0.12, 1.0];
/// The lit bar of a toggle that is on.
const LIT_BAR: [f32; 4] = [0.3, 1.0, 0.9, 1.0];
/// The panel behind its buttons: darker than a button at rest.
const BACKPLATE: [f32; 4] = [0.01, 0.015, 0.035, 1.0];
/// Its title bar, and the caption.
const TITLE_BAR: [f32; 4] = [0.03, 0.04, 0.08, 1.0];
/// The rule between the panel's groups.
const RULE: [f32; 4] = [0.12, 0.2, 0.35, 1.0];
/// Labels: 235 of 255 in sRGB (0.83 linear), not pure white, which
/// Microsoft's typography guidance finds too bright on an additive display.
const LABEL: [f32; 4] = [0.83, 0.83, 0.83, 1.0];
/// Headings and the readout: a quieter blue-grey.
const HEADING: [f32; 4] = [0.5, 0.6, 0.78, 1.0];
/// Rays.
const RAY: [f32; 4] = [0.8, 0.9, 1.0, 0.6];
/// Cursors and fingertip rings.
const CURSOR: [f32; 4] = [1.0, 1.0, 1.0, 1.0];

/// Every text colour `menu` draws with what is right behind it: a
/// button's label on its plate in every look, lit or not; the caption, the
/// title on the title bar; the headings and readout on the backplate.
fn texts_on_plates(menu: Menu) -> Vec<([f32; 4], [f32; 4])> {
    let mut pairs: Vec<([f32; 4], [f32; 4])> = Look::ALL
        .into_iter()
        .flat_map(|look| [false, true].map(|lit| (LABEL, plate_color(look, lit))))
        .collect();
    pairs.push((LABEL, TITLE_BAR));
    if menu == Menu::LandscapesPanel {
        pairs.push((HEADING, BACKPLATE));
    }
    pairs
}

/// The lowest WCAG 2 contrast of a text on what is behind it over every
/// pairing [`texts_on_plates`] lists, each as the display shows it:
/// blended over the panel's backplate where it has one, and over black
/// (see-through) behind all.
fn min_contrast(menu: Menu) -> f32 {
    let behind = match menu {
        Menu::HandMenu => [0.0; 3],
        Menu::LandscapesPanel => over(BACKPLATE, [0.0; 3]),
    };
    texts_on_plates(menu)
        .into_iter()
        .map(|(text, plate)| {
            let shown = over(plate, behind);
            contrast_ratio(srgb_from_linear(over(text, shown)), srgb_from_linear(shown))
        })
        .fold(f32::MAX, f32::min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::controls::test_support::{button, head, open_panel, shows};
    use crate::app::controls::{Action, Shows};
    use crate::input::Press;
    use crate::render::ui::drawn_cap_height;

    #[test]
    fn the_time_slider_draws_its_knob_where_the_moment_shown_lies_and_each_save_its_picture() {
        let saves = [crate::app::frame::SaveSummary {
            name: "save-001".into(),
            landscape: "Mesas".into(),
            mosaic: vec![[200, 40, 10]; SAVE_MOSAIC.0 * SAVE_MOSAIC.1],
        }];
        let knob_at = |moment: (u64, u64)| {
            let mut controls = Controls::default();
            open_panel(&mut controls);
            controls.act(Action::HistoryPage, Some(&head()));
            let shows = Shows {
                moment,
                saves: &saves,
                ..shows()
            };
            controls.lay_out(0, Some(&head()), [HandState::default(); 2], shows);
            let slider = button(&controls, "Time");
            let drawn = controls.draw([HandState::default(); 2]);
            let knobs: Vec<&UiQuad> = drawn.quads.iter().filter(|q| q.color == LIT_BAR).collect();
            assert_eq!(knobs.len(), 1);
            let red = drawn
                .quads
                .iter()
                .filter(|q| q.color[0] > 0.5 && q.color[1] < 0.1)
                .count();
            assert_eq!(red, SAVE_MOSAIC.0 * SAVE_MOSAIC.1, "the save's picture");
            let right = slider.rect.right.normalize();
            (knobs[0].rect.centre - slider.rect.centre).dot(right) / slider.rect.right.length()
        };
        let (start, middle, now) = (knob_at((0, 80)), knob_at((40, 80)), knob_at((80, 80)));
        assert!(start < -0.9 && now > 0.9, "{start} {now}");
        assert!(middle.abs() < 0.01, "{middle}");
    }

    #[test]
    fn each_menu_on_show_lists_the_plates_and_labels_it_is_drawn_with() {
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let drawn = controls.draw([HandState::default(); 2]);
        let [panel] = &drawn.menus[..] else {
            panic!("one menu: {:?}", drawn.menus);
        };
        assert_eq!(panel.menu, Menu::LandscapesPanel);
        // The backplate, the title bar, the rule between the two groups,
        // every button, and the lit bars of the growing landscape and of
        // "Contours" (drawn); no hand points at it.
        let buttons = controls.shown().len();
        assert_eq!(panel.plates.len(), 3 + buttons + 2);
        assert_eq!(
            panel.plates,
            drawn.quads.iter().map(|quad| quad.rect).collect::<Vec<_>>()
        );
        // The title, two headings, the readout, every button's label and
        // the two lines of phrases always heard.
        assert_eq!(panel.labels.len(), 4 + buttons + 2);
        assert_eq!(panel.labels, drawn.labels);
        assert!(
            drawn
                .labels
                .iter()
                .any(|label| label.text == "Grown 25%, 60 steps/s"),
            "{:?}",
            drawn.labels
        );
    }

    #[test]
    fn every_text_is_one_of_three_sizes_whole_and_the_session_code_the_largest() {
        let aim =
            crate::input::Pose::looking_at(Vec3::new(0.2, 1.3, -0.2), Vec3::new(0.2, 1.2, -1.0))
                .unwrap();
        let mut hands = [HandState::default(); 2];
        hands[1] = HandState {
            aim: Some(aim),
            menu: Some(true),
            ..HandState::default()
        };
        let mut sizes: Vec<f32> = Vec::new();
        for (paused, session) in [
            (false, None),
            (true, Some("9999-pneumonoultramicroscop-orbit")),
        ] {
            let mut controls = Controls::default();
            controls.act(Action::Landscapes, Some(&head()));
            let shows = Shows {
                paused,
                session,
                ..shows()
            };
            controls.lay_out(0, Some(&head()), hands, shows);
            let drawn = controls.draw(hands);
            assert_eq!(drawn.menus.len(), 2);
            for label in &drawn.labels {
                let drawn_cap = drawn_cap_height(label);
                let size = TextSize::ALL
                    .into_iter()
                    .find(|size| (size.cap_m() - drawn_cap).abs() < 1e-6)
                    .unwrap_or_else(|| panic!("{:?} shrunk to {drawn_cap}", label.text));
                sizes.push(size.cap_m());
                if label.text.starts_with("Session") {
                    assert_eq!(size, TextSize::Large);
                }
                // 235 of 255, or the quieter headings: never pure white.
                assert!(label.color[..3].iter().all(|&c| c < 0.9), "{label:?}");
            }
            assert_eq!(
                drawn
                    .labels
                    .iter()
                    .any(|label| label.text == "Resume growth"),
                paused
            );
        }
        sizes.sort_by(f32::total_cmp);
        sizes.dedup();
        assert_eq!(sizes.len(), 3, "{sizes:?}");
    }

    #[test]
    fn every_text_keeps_4_5_to_1_in_every_look_and_the_drawn_looks_are_those_measured() {
        for menu in [Menu::HandMenu, Menu::LandscapesPanel] {
            assert!(
                min_contrast(menu) >= 4.5,
                "{menu:?}: {}",
                min_contrast(menu)
            );
            let pairs = texts_on_plates(menu);
            for look in Look::ALL {
                for lit in [false, true] {
                    assert!(pairs.contains(&(LABEL, plate_color(look, lit))));
                }
            }
        }
        // The looks differ from each other and from the backplate.
        let mut plates = vec![BACKPLATE, REST, HOVER, PRESSED, TOGGLED];
        plates.dedup();
        assert_eq!(plates.len(), 5);
        // A ray pinched on "Undo": its plate is drawn pressed, the others at
        // rest, the growing landscape lit, each label on a measured plate.
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let undo = button(&controls, "Undo");
        let from = undo.rect.centre + undo.normal() * 0.3;
        let aim = crate::input::Pose::looking_at(from, undo.rect.centre).unwrap();
        let mut hands = [HandState::default(); 2];
        hands[1] = HandState {
            aim: Some(aim),
            press: Some(Press::Began),
            ..HandState::default()
        };
        controls.touch(hands);
        let drawn = controls.draw(hands);
        let colour_of = |rect: UiRect| {
            drawn
                .quads
                .iter()
                .find(|quad| {
                    quad.rect.right == rect.right
                        && quad.rect.up == rect.up
                        && (quad.rect.centre - rect.centre).length() < 0.01
                })
                .map(|quad| quad.color)
        };
        assert_eq!(colour_of(undo.rect), Some(PRESSED));
        assert_eq!(colour_of(button(&controls, "Islands").rect), Some(TOGGLED));
        assert_eq!(colour_of(button(&controls, "Redo").rect), Some(REST));
        let pairs = texts_on_plates(Menu::LandscapesPanel);
        for shown in controls.shown() {
            let plate = colour_of(shown.rect).unwrap();
            assert!(pairs.contains(&(LABEL, plate)), "{:?}", shown.action);
        }
    }

    #[test]
    fn a_ray_on_a_button_for_a_second_shows_how_to_say_it_over_it() {
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let on = |controls: &Controls, label: &str| {
            let shown = button(controls, label);
            let from = shown.rect.centre + shown.normal() * 0.3;
            let mut hands = [HandState::default(); 2];
            hands[1] = HandState {
                aim: crate::input::Pose::looking_at(from, shown.rect.centre),
                ..HandState::default()
            };
            hands
        };
        let hint_at = |controls: &mut Controls, now: i64, label: &str| {
            let hands = on(controls, label);
            controls.lay_out(now, Some(&head()), hands, shows());
            controls.touch(hands);
            let drawn = controls.draw(hands);
            drawn
                .labels
                .iter()
                .find(|text| text.text.starts_with("Say '"))
                .map(|text| (text.text.clone(), text.rect.centre))
        };
        assert_eq!(hint_at(&mut controls, 0, "Undo"), None);
        assert_eq!(hint_at(&mut controls, SAY_HINT_NS / 2, "Undo"), None);
        let (text, at) = hint_at(&mut controls, SAY_HINT_NS, "Undo").unwrap();
        assert_eq!(text, "Say 'Undo'");
        let undo = button(&controls, "Undo");
        let above = (at - undo.rect.centre).dot(undo.rect.up.normalize());
        assert!(above > undo.rect.up.length(), "over the button: {above}");
        // Moved to another button: its own second starts again.
        assert_eq!(hint_at(&mut controls, SAY_HINT_NS + 1, "Redo"), None);
        let (text, _) = hint_at(&mut controls, 2 * SAY_HINT_NS + 1, "Redo").unwrap();
        assert_eq!(text, "Say 'Redo'");
    }
}
