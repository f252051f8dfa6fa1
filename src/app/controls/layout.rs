//! Where the menus show and their buttons lie: the hand menu beside a palm or on a controller's ray, lingering when the palm drops, its buttons two columns of at most three rows under the session's code; the panel in front at arm's length, following the head until pinned, laid out from its groups (`panel`).
use glam::Vec3;

use super::actions::{Action, Page, SAVE_ROWS, hand_menu_actions};
use super::hit_test::Menu;
use super::hit_test::Plane;
use super::hit_test::ShownButton;
use super::palm::palm_shown;
use super::panel::{LABEL_PADDING_M, PanelWords, TITLE_HEIGHT_M, panel_layout};
use super::ramp::TextSize;
use super::state::{Controls, HandMenu, HandState, Panel, Shows};
use crate::app::frame::SaveSummary;
use crate::input::hand::PALM;
use crate::input::{Hand, HandJoints, Pose};
use crate::render::scene::UiRect;

/// A button's height (and the least of its sides): Microsoft's smallest
/// target for direct touch is 3.2 cm square.
pub const BUTTON_HEIGHT_M: f32 = 0.034;
/// A hand menu button's width: room for its longest label ("Resume
/// growth") whole at the ramp's button size.
pub const BUTTON_WIDTH_M: f32 = 0.09;
/// Columns of the hand menu: two, so that five buttons take three rows
/// (Microsoft's hand menu guidance: no taller than three at its distance).
const HAND_MENU_COLUMNS: usize = 2;
/// Space between buttons.
pub(super) const BUTTON_GAP_M: f32 = 0.005;
/// The session's code over the hand menu's buttons: its line at the
/// ramp's largest size, and a little room.
fn caption_height() -> f32 {
    TextSize::Large.line_m() + 2.0 * BUTTON_GAP_M
}
/// How long the hand menu stays where it was after the hand drops.
pub const MENU_LINGER_NS: i64 = 1_000_000_000;
/// The panel, opened or following, stands this far in front of the eyes...
const PANEL_DISTANCE_M: f32 = 0.5;
/// ...this far below them...
const PANEL_DROP_M: f32 = 0.12;
/// ...and follows the head when it is nearer than this (outside the near
/// fade, which dims what comes within 0.40 m of the eyes)...
pub const PANEL_NEAREST_M: f32 = 0.42;
/// The nearest the hand menu comes to the eyes: a palm held up sits about
/// 0.34 m away, inside the near fade (0.40 m to the clip at 0.30 m), where
/// the menu would show at under half its brightness; beyond the fade it
/// stays whole and still beside the hand as the eye sees it.
pub const MENU_NEAREST_M: f32 = 0.42;
/// ...further than this...
const PANEL_FARTHEST_M: f32 = 0.6;
/// ...or further off the gaze than this (cosine, about 35°).
const PANEL_IN_VIEW_COS: f32 = 0.82;
/// How fast it catches up when it follows: the time constant.
const PANEL_FOLLOW_S: f32 = 0.25;
/// How far along a controller's ray its menu opens.
const CONTROLLER_MENU_REACH_M: f32 = 0.35;

/// The hand menu's width.
fn hand_menu_width() -> f32 {
    HAND_MENU_COLUMNS as f32 * (BUTTON_WIDTH_M + BUTTON_GAP_M) - BUTTON_GAP_M
}

/// Where the hand menu's button `index` of `buttons` lies in its plane
/// (its centre): in reading order along rows of [`HAND_MENU_COLUMNS`],
/// the rows centred on the plane.
fn hand_menu_cell(index: usize, buttons: usize) -> (f32, f32) {
    let rows = buttons.div_ceil(HAND_MENU_COLUMNS) as f32;
    let (row, column) = (index / HAND_MENU_COLUMNS, index % HAND_MENU_COLUMNS);
    let step_x = BUTTON_WIDTH_M + BUTTON_GAP_M;
    let step_y = BUTTON_HEIGHT_M + BUTTON_GAP_M;
    (
        step_x * (column as f32 - (HAND_MENU_COLUMNS as f32 - 1.0) / 2.0),
        step_y * ((rows - 1.0) / 2.0 - row as f32),
    )
}

/// Which moment of the history shows: now, or how far back.
fn moment_readout((shown, length): (u64, u64)) -> String {
    if shown >= length {
        return "Now".into();
    }
    let percent = (100 * shown).checked_div(length).unwrap_or(0);
    format!("Back at {percent}% of the history")
}

/// What a save's row says: its name and its landscape.
fn save_line(save: &SaveSummary) -> String {
    format!("{}  {}", save.name, save.landscape)
}

/// The growth readout: how far the terrain has grown, and how fast.
fn readout(shows: &Shows) -> String {
    let (done, total) = shows.grown;
    let percent = (100 * done).checked_div(total).unwrap_or(100).min(100);
    let state = if shows.paused { "Paused at" } else { "Grown" };
    format!(
        "{state} {percent}%, {} steps/s",
        shows.iterations_per_second
    )
}

impl Controls {
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
                        page: Page::Terrain,
                    });
                }
            }
            Action::PinPanel | Action::UnpinPanel => {
                if let Some(panel) = self.panel.as_mut() {
                    panel.pinned = action == Action::PinPanel;
                }
            }
            Action::ClosePanel => self.panel = None,
            Action::HistoryPage | Action::TerrainPage => {
                if let Some(panel) = self.panel.as_mut() {
                    panel.page = match action {
                        Action::HistoryPage => Page::History,
                        _ => Page::Terrain,
                    };
                }
            }
            _ => {}
        }
    }

    /// Shows, moves or hides the menus for this frame's head and hands at
    /// `now`, and lays out their buttons.
    pub fn lay_out(&mut self, now: i64, head: Option<&Pose>, hands: [HandState; 2], shows: Shows) {
        let seconds = self
            .last_ns
            .map_or(0.0, |last| now.saturating_sub(last).max(0) as f32 * 1e-9);
        self.last_ns = Some(now);
        let menu_actions = hand_menu_actions(shows.paused, shows.session.is_some());
        if let Some(head) = head {
            self.menu_button(head, &hands, menu_actions.len());
            self.follow_palm(now, head, &hands);
            self.follow_head(head, seconds);
        }
        self.shown.clear();
        self.caption = None;
        if let Some(menu) = self.hand_menu {
            let buttons = menu_actions.len();
            let top = hand_menu_cell(0, buttons).1 + BUTTON_HEIGHT_M / 2.0;
            self.caption = shows.session.map(|code| {
                let text = format!("Session {code}");
                let width =
                    (TextSize::Large.width_m(&text) + 2.0 * LABEL_PADDING_M).max(hand_menu_width());
                let height = caption_height();
                let rect = menu
                    .plane
                    .rect(0.0, top + BUTTON_GAP_M + height / 2.0, width, height);
                (text, rect)
            });
            for (index, action) in menu_actions.enumerate() {
                let (x, y) = hand_menu_cell(index, buttons);
                self.shown.push(ShownButton {
                    action,
                    menu: Menu::HandMenu,
                    rect: menu.plane.rect(x, y, BUTTON_WIDTH_M, BUTTON_HEIGHT_M),
                    lit: false,
                });
            }
        }
        self.moment = shows.moment;
        let pictures = shows.saves.iter().take(SAVE_ROWS).map(|save| &save.mosaic);
        if !pictures.clone().eq(self.save_pictures.iter()) {
            self.save_pictures = pictures.cloned().collect();
        }
        self.panel_layout = self.panel.map(|panel| {
            let saves: Vec<String> = match panel.page {
                Page::History => shows.saves.iter().take(SAVE_ROWS).map(save_line).collect(),
                Page::Terrain => Vec::new(),
            };
            let words = PanelWords {
                growth: &readout(&shows),
                moment: &moment_readout(shows.moment),
                saves: &saves,
            };
            panel_layout(panel.page, panel.pinned, shows.session.is_some(), words)
        });
        if let (Some(panel), Some(layout)) = (self.panel, &self.panel_layout) {
            for button in &layout.buttons {
                let lit = match button.action {
                    Action::Landscape(name) => name.as_str() == shows.recipe_name,
                    Action::UnpinPanel => true,
                    Action::Contours => shows.contours,
                    _ => false,
                };
                self.shown.push(ShownButton {
                    action: button.action,
                    menu: Menu::LandscapesPanel,
                    rect: panel
                        .plane
                        .rect(button.x, button.y, button.width, BUTTON_HEIGHT_M),
                    lit,
                });
            }
        }
    }

    /// A controller's menu button pressed opens the hand menu beside the
    /// controller, or closes the one it opened.
    fn menu_button(&mut self, head: &Pose, hands: &[HandState; 2], buttons: usize) {
        for hand in Hand::BOTH {
            let state = hands[hand.index()];
            let down = state.menu == Some(true);
            let pressed = down && !self.menu_was_down[hand.index()];
            self.menu_was_down[hand.index()] = down;
            if !pressed {
                continue;
            }
            let opened_here = self
                .hand_menu
                .is_some_and(|menu| menu.by_controller && menu.hand == hand);
            self.hand_menu = if opened_here {
                None
            } else {
                state.aim.filter(Pose::is_finite).map(|aim| HandMenu {
                    hand,
                    plane: on_controller_ray(&aim, head.position, buttons),
                    dropped_ns: None,
                    by_controller: true,
                })
            };
        }
    }

    /// Shows the hand menu by a palm held up and looked at, keeps it where
    /// it was for a moment after the palm drops, then hides it.
    fn follow_palm(&mut self, now: i64, head: &Pose, hands: &[HandState; 2]) {
        let eye = head.position;
        let showing = Hand::BOTH.into_iter().find_map(|hand| {
            let joints = hands[hand.index()].joints?;
            palm_shown(hand, joints, head).then_some((hand, joints))
        });
        // The hand already showing it keeps it when both show a palm.
        let keeping = self.hand_menu.and_then(|menu| {
            let joints = hands[menu.hand.index()].joints?;
            palm_shown(menu.hand, joints, head).then_some((menu.hand, joints))
        });
        if showing.is_none() {
            self.palm_spent = false;
        }
        match keeping.or(showing) {
            Some(_) if self.palm_spent => {}
            Some((hand, joints)) => {
                self.hand_menu = Some(HandMenu {
                    hand,
                    plane: menu_beside(hand, joints, eye),
                    dropped_ns: None,
                    by_controller: false,
                });
            }
            // A controller's menu stays until its button closes it.
            None if self.hand_menu.is_some_and(|menu| menu.by_controller) => {}
            None => {
                if let Some(menu) = self.hand_menu.as_mut() {
                    let dropped = *menu.dropped_ns.get_or_insert(now);
                    // Not while a press on it is under way.
                    let pressing = self
                        .presses
                        .iter()
                        .any(|press| press.poked.is_some() || press.rayed.is_some());
                    if now.saturating_sub(dropped) >= MENU_LINGER_NS && !pressing {
                        self.hand_menu = None;
                    }
                }
            }
        }
    }

    /// Brings an unpinned panel back in front of the head when it has
    /// fallen out of reach or out of view, easing there.
    fn follow_head(&mut self, head: &Pose, seconds: f32) {
        let Some(panel) = self.panel.as_mut() else {
            return;
        };
        // Nor while a finger or a ray is on its buttons: a button that slid
        // away under a pushing finger would press twice or not at all.
        let in_use = self.presses.iter().any(|press| {
            press.touching.is_some() || press.poked.is_some() || press.rayed.is_some()
        });
        if panel.pinned || panel.grabbed.is_some() || in_use {
            return;
        }
        let to_panel = panel.plane.centre - head.position;
        let distance = to_panel.length();
        let in_view = to_panel.normalize_or_zero().dot(head.forward()) >= PANEL_IN_VIEW_COS;
        let placed = (PANEL_NEAREST_M..=PANEL_FARTHEST_M).contains(&distance) && in_view;
        if !placed {
            let target = in_front(head);
            let step = 1.0 - (-seconds / PANEL_FOLLOW_S).exp();
            let centre = panel.plane.centre.lerp(target, step.clamp(0.0, 1.0));
            panel.plane = Plane::facing(centre, head.position);
        }
    }
}

impl Controls {
    /// The panel's width and height, as the last update laid it out.
    pub(super) fn panel_size(&self) -> Option<(f32, f32)> {
        self.panel_layout
            .as_ref()
            .map(|layout| (layout.width, layout.height))
    }

    /// The panel's title bar, which a pinch takes to move it.
    pub(super) fn title_rect(&self) -> Option<UiRect> {
        let panel = self.panel?;
        let (width, height) = self.panel_size()?;
        Some(panel.plane.rect(
            0.0,
            height / 2.0 - TITLE_HEIGHT_M / 2.0,
            width,
            TITLE_HEIGHT_M,
        ))
    }
}

/// Where the panel opens: in front of the eyes at arm's length, a little below them.
pub(super) fn in_front(head: &Pose) -> Vec3 {
    let forward = head.forward();
    let level = Vec3::new(forward.x, 0.0, forward.z).normalize_or(Vec3::NEG_Z);
    head.position + level * PANEL_DISTANCE_M - Vec3::Y * PANEL_DROP_M
}

/// The hand menu's plane for a controller aiming along `aim`: at arm's
/// reach along its ray with the first button on the ray, facing the eyes, so
/// the controller's select presses a button without hunting for it.
fn on_controller_ray(aim: &Pose, eye: Vec3, buttons: usize) -> Plane {
    let on_ray = aim.position + aim.forward() * CONTROLLER_MENU_REACH_M;
    let facing = Plane::facing(on_ray, eye);
    let (x, y) = hand_menu_cell(0, buttons);
    Plane::facing(on_ray - facing.right * x - facing.up * y, eye)
}

/// The hand menu's plane: beside the little-finger side of the palm
/// (OpenXR's joint +X on a right hand, -X on a left), away from the wrist
/// where the system's home button shows, facing the eyes.
fn menu_beside(hand: Hand, joints: &HandJoints, eye: Vec3) -> Plane {
    let palm = joints[PALM].pose;
    let little_finger_side = palm.orientation
        * match hand {
            Hand::Left => Vec3::NEG_X,
            Hand::Right => Vec3::X,
        };
    let facing = Plane::facing(palm.position, eye);
    let side = if little_finger_side.dot(facing.right) >= 0.0 {
        1.0
    } else {
        -1.0
    };
    let beside = palm.position + facing.right * side * (0.035 + hand_menu_width() / 2.0);
    // Pushed back along the line of sight, it still shows beside the hand.
    let from_eye = beside - eye;
    let centre = eye + from_eye * (MENU_NEAREST_M / from_eye.length()).max(1.0);
    Plane::facing(centre, eye)
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;
    use crate::app::controls::test_support::button;
    use crate::app::controls::test_support::{head, open_panel, shows};
    use crate::app::controls::{PressedBy, palm_shown};
    use crate::input::HandJoints;
    use crate::input::Press;
    use crate::input::hand::PALM;
    use crate::input::hand::synthetic::hand_with_gap;

    #[test]
    fn a_palm_held_near_the_eyes_shows_its_menu_beyond_the_near_fade_in_the_same_direction() {
        let eye = Vec3::new(0.0, 1.6, 0.0);
        let joints = hand_with_gap(Vec3::new(-0.05, 1.45, -0.25), 0.08);
        let beside_at_palm = {
            let palm = joints[PALM].pose.position;
            (palm - eye).length()
        };
        assert!(beside_at_palm < MENU_NEAREST_M, "{beside_at_palm}");
        let plane = menu_beside(Hand::Left, &joints, eye);
        let distance = (plane.rect(0.0, 0.0, 0.01, 0.01).centre - eye).length();
        assert!((distance - MENU_NEAREST_M).abs() < 1e-4, "{distance}");
    }

    #[test]
    fn the_panel_opens_in_front_at_arms_length_with_the_growing_landscape_lit() {
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let islands = button(&controls, "Islands");
        assert!(islands.lit);
        assert!(!button(&controls, "Badlands").lit);
        let distance = islands.rect.centre.distance(head().position);
        assert!((0.3..0.6).contains(&distance), "{distance}");
        assert!(
            islands.normal().z > 0.9,
            "faces the wearer: {}",
            islands.normal()
        );
    }

    #[test]
    fn a_palm_to_the_face_shows_the_hand_menu_which_lingers_a_second_after_it_drops() {
        let mut controls = Controls::default();
        let head = head();
        let palm_at = head.position + Vec3::new(-0.05, -0.15, -0.35);
        // Palm (-Y) turned towards the eyes, fingers (-Z) up, or down.
        let towards_eye = (head.position - palm_at).normalize();
        let up = (Vec3::Y - towards_eye * Vec3::Y.dot(towards_eye)).normalize();
        let palm_to_eye = |fingers: Vec3| {
            let (y_axis, z_axis) = (-towards_eye, -fingers);
            Quat::from_mat3(&glam::Mat3::from_cols(y_axis.cross(z_axis), y_axis, z_axis))
        };
        let orientation = palm_to_eye(up);
        let with_palm = |orientation| {
            let mut joints = hand_with_gap(palm_at + Vec3::Y * 0.1, 0.05);
            joints[PALM].pose = Pose::new(palm_at, orientation);
            joints
        };
        let shown = with_palm(orientation);
        let down = with_palm(Quat::IDENTITY);
        assert!(palm_shown(Hand::Left, &shown, &head));
        assert!(!palm_shown(Hand::Left, &down, &head));
        // The palm towards the eyes, but the fingers pointing down at the
        // table, as a finger tapping the land is: no menu.
        let pointing_down = palm_to_eye(-up);
        assert!((pointing_down * Vec3::NEG_Y).dot(towards_eye) > 0.99);
        assert!(!palm_shown(Hand::Left, &with_palm(pointing_down), &head));
        fn hands(joints: &HandJoints) -> [HandState<'_>; 2] {
            let mut hands = [HandState::default(); 2];
            hands[0].joints = Some(joints);
            hands
        }
        controls.lay_out(0, Some(&head), hands(&shown), shows());
        assert_eq!(controls.shown().len(), 5);
        assert_eq!(controls.shown()[0].action, Action::NewTerrain);
        let where_shown = controls.shown()[0].rect.centre;
        controls.lay_out(500_000_000, Some(&head), hands(&down), shows());
        assert_eq!(
            controls.shown()[0].rect.centre,
            where_shown,
            "world-locked while it lingers"
        );
        controls.lay_out(1_400_000_000, Some(&head), hands(&down), shows());
        assert_eq!(controls.shown().len(), 5, "0.9 s after it dropped");
        controls.lay_out(1_500_000_000, Some(&head), hands(&down), shows());
        assert!(controls.shown().is_empty());
    }

    #[test]
    fn in_a_session_the_hand_menu_shows_its_code_over_the_buttons_in_place_of_share_session() {
        let aim = Pose::looking_at(Vec3::new(0.2, 1.3, -0.2), Vec3::new(0.2, 1.2, -1.0)).unwrap();
        let mut hands = [HandState::default(); 2];
        hands[1] = HandState {
            aim: Some(aim),
            menu: Some(true),
            ..HandState::default()
        };
        let mut alone = Controls::default();
        alone.lay_out(0, Some(&head()), hands, shows());
        assert_eq!(alone.shown().last().unwrap().action, Action::ShareSession);
        assert!(
            alone
                .draw(hands)
                .labels
                .iter()
                .all(|label| !label.text.starts_with("Session"))
        );

        let mut shared = Controls::default();
        let in_session = Shows {
            session: Some("7-guitar-orbit"),
            ..shows()
        };
        shared.lay_out(0, Some(&head()), hands, in_session);
        let actions: Vec<Action> = shared.shown().iter().map(|button| button.action).collect();
        assert_eq!(
            actions,
            [
                Action::NewTerrain,
                Action::Landscapes,
                Action::PauseGrowth,
                Action::PlaceHere
            ]
        );
        let labels = shared.draw(hands).labels;
        let caption = labels
            .iter()
            .find(|label| label.text == "Session 7-guitar-orbit")
            .expect("the code over the buttons");
        let top = shared.shown()[0].rect;
        assert!(
            (caption.rect.centre - top.centre).dot(top.up.normalize()) > BUTTON_HEIGHT_M / 2.0,
            "above the top button"
        );
        // Either way the top button is on the controller's ray.
        for controls in [&alone, &shared] {
            assert!(controls.shown()[0].hit(&aim.forward_ray()).is_some());
        }
        // The caption is not a button: saying it presses nothing.
        assert!(shared.hear("session 7-guitar-orbit").is_none());
    }

    #[test]
    fn a_controllers_menu_button_opens_the_menu_on_its_ray_and_closes_it() {
        let mut controls = Controls::default();
        let aim = Pose::looking_at(Vec3::new(0.2, 1.3, -0.2), Vec3::new(0.2, 1.2, -1.0)).unwrap();
        let frame = |controls: &mut Controls, menu: bool, press: Option<Press>| {
            let mut hands = [HandState::default(); 2];
            hands[1] = HandState {
                aim: Some(aim),
                menu: Some(menu),
                press,
                ..HandState::default()
            };
            controls.lay_out(0, Some(&head()), hands, shows());
            controls.touch(hands)
        };
        frame(&mut controls, true, None);
        assert_eq!(controls.shown().len(), 5);
        frame(&mut controls, false, None);
        assert_eq!(
            controls.shown().len(),
            5,
            "it stays when the button is let go"
        );
        // The controller's select presses the top button, on its ray.
        assert!(frame(&mut controls, false, Some(Press::Began)).is_empty());
        let presses = frame(&mut controls, false, Some(Press::Released));
        assert_eq!(presses.len(), 1);
        assert_eq!(
            (presses[0].action, presses[0].how),
            (Action::NewTerrain, PressedBy::Ray)
        );
        frame(&mut controls, true, None);
        assert!(controls.shown().is_empty(), "pressed again, it closes");
    }
}
