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
use glam::Vec3;

use super::world::growth::{MAX_ITERATIONS_PER_SECOND, MIN_ITERATIONS_PER_SECOND};
use crate::input::hand::{INDEX_TIP, PALM, pinch_distance};
use crate::input::{Hand, HandJoints, Pose, Ray};
use crate::render::scene::{UiFill, UiLabel, UiQuad, UiRect};
use crate::terrain::recipe::{BuiltInName, Recipe};

/// A button's height (and the least of its sides): Microsoft's smallest
/// target for direct touch is 3.2 cm square.
pub const BUTTON_HEIGHT_M: f32 = 0.034;
/// A hand menu button's width: room for the longest label at a legible size.
pub const BUTTON_WIDTH_M: f32 = 0.09;
/// A panel button's width: four columns of them fit in the wearer's view
/// at arm's length (HoloLens 2 shows about 43° across: 40 cm at 50 cm).
pub const PANEL_BUTTON_WIDTH_M: f32 = 0.07;
/// Space between buttons.
const BUTTON_GAP_M: f32 = 0.005;
/// How far in a fingertip pushes a button before it is pressed.
pub const PRESS_DEPTH_M: f32 = 0.008;
/// How far out it comes again before the press ends (and acts).
pub const RELEASE_DEPTH_M: f32 = 0.004;
/// A fingertip further in than this has gone through the button: no press.
const THROUGH_DEPTH_M: f32 = 0.04;
/// A fingertip this close in front of a button hovers it.
const HOVER_DISTANCE_M: f32 = 0.03;
/// How long the hand menu stays where it was after the hand drops.
pub const MENU_LINGER_NS: i64 = 1_000_000_000;
/// Least cosine between the palm's normal and the way to the eyes for a
/// palm that faces the face (about 45°).
const PALM_FACING_COS: f32 = 0.7;
/// Least cosine between the gaze and the way to the palm for a palm the
/// wearer looks at (about 40°).
const PALM_LOOKED_AT_COS: f32 = 0.77;
/// The fingers may point down at most this much (the sine of about 17°)
/// for a palm that is held up.
const FINGERS_DOWN_LIMIT: f32 = -0.3;
/// Thumb and index at least this far apart: an open, flat hand.
const OPEN_HAND_GAP_M: f32 = 0.03;
/// The panel, opened or following, stands this far in front of the eyes...
const PANEL_DISTANCE_M: f32 = 0.5;
/// ...this far below them...
const PANEL_DROP_M: f32 = 0.12;
/// ...and follows the head when it is nearer than this...
const PANEL_NEAREST_M: f32 = 0.3;
/// ...further than this...
const PANEL_FARTHEST_M: f32 = 0.6;
/// ...or further off the gaze than this (cosine, about 35°).
const PANEL_IN_VIEW_COS: f32 = 0.82;
/// How fast it catches up when it follows: the time constant.
const PANEL_FOLLOW_S: f32 = 0.25;
/// Columns of the panel's landscape buttons.
const PANEL_COLUMNS: usize = 4;
/// Height of the panel's title bar, which a pinch grabs to move it.
const TITLE_HEIGHT_M: f32 = 0.03;
/// How far along a controller's ray its menu opens.
const CONTROLLER_MENU_REACH_M: f32 = 0.35;
/// Farthest a ray reaches a button.
const RAY_REACH_M: f32 = 3.0;
/// How long a ray is drawn when it hits nothing.
const RAY_IDLE_LENGTH_M: f32 = 0.5;

/// What a button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// A new terrain from the next seed.
    NewTerrain,
    /// Open the landscapes panel, or bring it back in front.
    Landscapes,
    /// Stop growth where it stands.
    PauseGrowth,
    /// Let it go on.
    ResumeGrowth,
    /// Put the hologram onto the surface the gaze hits.
    PlaceHere,
    /// Host a shared session from here, with a new code.
    ShareSession,
    /// Grow this built-in landscape from the next seed.
    Landscape(BuiltInName),
    /// Grow at half the speed.
    Slower,
    /// Grow at twice the speed.
    Faster,
    /// Start the recipe's erosion now.
    Weather,
    /// Take back the last terrain command.
    Undo,
    /// Keep the terrain in a folder of its own.
    Save,
    /// Keep the panel where it is.
    PinPanel,
    /// Let the panel follow the head again.
    UnpinPanel,
    /// Hide the panel.
    ClosePanel,
}

impl Action {
    /// What its button says.
    pub fn label(self) -> &'static str {
        match self {
            Action::NewTerrain => "New terrain",
            Action::Landscapes => "Landscapes",
            Action::PauseGrowth => "Pause growth",
            Action::ResumeGrowth => "Resume growth",
            Action::PlaceHere => "Place here",
            Action::ShareSession => "Share session",
            Action::Landscape(name) => name.as_str(),
            Action::Slower => "Slower",
            Action::Faster => "Faster",
            Action::Weather => "Weather",
            Action::Undo => "Undo",
            Action::Save => "Save terrain",
            Action::PinPanel => "Pin panel",
            Action::UnpinPanel => "Unpin panel",
            Action::ClosePanel => "Close panel",
        }
    }

    /// What it did, as the report's `did` names it.
    pub fn did(self) -> &'static str {
        match self {
            Action::NewTerrain => "reseed",
            Action::Landscapes => "open panel",
            Action::PauseGrowth => "pause",
            Action::ResumeGrowth => "resume",
            Action::PlaceHere => "place",
            Action::ShareSession => "share",
            Action::Landscape(_) => "landscape",
            Action::Slower | Action::Faster => "speed",
            Action::Weather => "weather",
            Action::Undo => "undo",
            Action::Save => "save",
            Action::PinPanel => "pin panel",
            Action::UnpinPanel => "unpin panel",
            Action::ClosePanel => "close panel",
        }
    }

    /// The growth rate after this action from `rate` (only Slower and Faster change it).
    pub fn rate_after(self, rate: u32) -> u32 {
        match self {
            Action::Slower => (rate / 2).max(MIN_ITERATIONS_PER_SECOND),
            Action::Faster => rate.saturating_mul(2).min(MAX_ITERATIONS_PER_SECOND),
            _ => rate,
        }
    }
}

/// Every label a button can ever show, from the buttons themselves: what
/// a script's `press` may name and a speech recognizer listens for.
pub fn every_label() -> Vec<&'static str> {
    let mut labels: Vec<&'static str> = hand_menu_actions(false, false)
        .chain(hand_menu_actions(true, true))
        .chain(panel_actions(false))
        .chain(panel_actions(true))
        .map(Action::label)
        .collect();
    let mut seen = Vec::new();
    labels.retain(|label| {
        let new = !seen.contains(label);
        seen.push(*label);
        new
    });
    labels
}

/// Whether `words` say `label`: the same words, in any case and spacing.
pub fn says(words: &str, label: &str) -> bool {
    words
        .split_whitespace()
        .map(str::to_lowercase)
        .eq(label.split_whitespace().map(str::to_lowercase))
}

/// The hand menu's buttons, top to bottom: "Share session" only while
/// the headset is in no session.
fn hand_menu_actions(paused: bool, in_session: bool) -> impl ExactSizeIterator<Item = Action> {
    let all = [
        Action::NewTerrain,
        Action::Landscapes,
        if paused {
            Action::ResumeGrowth
        } else {
            Action::PauseGrowth
        },
        Action::PlaceHere,
        Action::ShareSession,
    ];
    // Without allocating: the menu is laid out every frame.
    all.into_iter().take(if in_session { 4 } else { 5 })
}

/// The panel's buttons: the landscapes, then the growth and panel controls.
fn panel_actions(pinned: bool) -> Vec<Action> {
    Recipe::built_in_names()
        .filter_map(BuiltInName::new)
        .map(Action::Landscape)
        .chain([
            Action::Slower,
            Action::Faster,
            Action::Weather,
            Action::Undo,
            Action::Save,
            if pinned {
                Action::UnpinPanel
            } else {
                Action::PinPanel
            },
            Action::ClosePanel,
        ])
        .collect()
}

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiPress {
    /// The button's label.
    pub label: &'static str,
    /// How it was pressed.
    pub how: PressedBy,
    /// What it did.
    pub action: Action,
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

/// A flat frame in the room facing the wearer: its centre and unit axes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Plane {
    centre: Vec3,
    right: Vec3,
    up: Vec3,
}

impl Plane {
    /// A frame at `centre` turned to face `eye` upright.
    fn facing(centre: Vec3, eye: Vec3) -> Self {
        let towards = eye - centre;
        let level = Vec3::new(towards.x, 0.0, towards.z).normalize_or(Vec3::Z);
        let normal = towards.normalize_or(level);
        let right = Vec3::Y.cross(normal).normalize_or(Vec3::X);
        Plane {
            centre,
            right,
            up: normal.cross(right),
        }
    }

    /// Towards the viewer.
    fn normal(&self) -> Vec3 {
        self.right.cross(self.up)
    }

    /// The rectangle `width` × `height` whose centre is `(x, y)` in this frame.
    fn rect(&self, x: f32, y: f32, width: f32, height: f32) -> UiRect {
        UiRect {
            centre: self.centre + self.right * x + self.up * y,
            right: self.right * (width / 2.0),
            up: self.up * (height / 2.0),
        }
    }
}

/// A button on show this frame, where it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShownButton {
    /// What it does (and says).
    pub action: Action,
    /// Where it is.
    pub rect: UiRect,
    /// The landscape growing now (its button is marked).
    pub marked: bool,
}

impl ShownButton {
    /// Towards the viewer, unit length.
    pub fn normal(&self) -> Vec3 {
        self.rect.right.cross(self.rect.up).normalize()
    }

    /// `point` in the button's terms: across and up from its centre (in
    /// metres), and how far it is pushed in behind its face.
    fn local(&self, point: Vec3) -> (f32, f32, f32) {
        let offset = point - self.rect.centre;
        (
            offset.dot(self.rect.right.normalize()),
            offset.dot(self.rect.up.normalize()),
            -offset.dot(self.normal()),
        )
    }

    /// Whether (x, y) from [`Self::local`] lies on its face.
    fn covers(&self, x: f32, y: f32) -> bool {
        x.abs() <= self.rect.right.length() && y.abs() <= self.rect.up.length()
    }

    /// Where along `ray` it meets the button's face from the front, if it does.
    fn hit(&self, ray: &Ray) -> Option<f32> {
        hit_rect(&self.rect, ray)
    }
}

/// Where along `ray` it meets `rect` from the front, within reach.
fn hit_rect(rect: &UiRect, ray: &Ray) -> Option<f32> {
    let normal = rect.right.cross(rect.up).normalize();
    let facing = ray.direction.dot(normal);
    if facing >= -1e-4 {
        return None;
    }
    let t = (rect.centre - ray.origin).dot(normal) / facing;
    if !(0.0..=RAY_REACH_M).contains(&t) {
        return None;
    }
    let offset = ray.origin + ray.direction * t - rect.centre;
    let covers = offset.dot(rect.right.normalize()).abs() <= rect.right.length()
        && offset.dot(rect.up.normalize()).abs() <= rect.up.length();
    covers.then_some(t)
}

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

/// One hand's press in progress.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct HandPress {
    /// The button the fingertip is in front of or pushing, and how far in.
    touching: Option<(Action, f32)>,
    /// The button the fingertip pushed in, until it comes back out.
    poked: Option<Action>,
    /// The button the ray is on.
    hovered: Option<Action>,
    /// The button a pinch or select began on, until it is let go.
    rayed: Option<Action>,
    /// Where the ray ends (a button or the panel), for the cursor.
    ray_hit: Option<f32>,
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
            let step = BUTTON_HEIGHT_M + BUTTON_GAP_M;
            let top = step * (menu_actions.len() as f32 - 1.0) / 2.0;
            self.caption = shows.session.map(|code| {
                let rect = menu
                    .plane
                    .rect(0.0, top + step, BUTTON_WIDTH_M, TITLE_HEIGHT_M);
                (format!("Session {code}"), rect)
            });
            for (row, action) in menu_actions.enumerate() {
                self.shown.push(ShownButton {
                    action,
                    rect: menu.plane.rect(
                        0.0,
                        top - step * row as f32,
                        BUTTON_WIDTH_M,
                        BUTTON_HEIGHT_M,
                    ),
                    marked: false,
                });
            }
        }
        if let Some(panel) = self.panel {
            let actions = panel_actions(panel.pinned);
            let (width, height) = panel_size(actions.len());
            let step_x = PANEL_BUTTON_WIDTH_M + BUTTON_GAP_M;
            let step_y = BUTTON_HEIGHT_M + BUTTON_GAP_M;
            let left = -width / 2.0 + BUTTON_GAP_M + PANEL_BUTTON_WIDTH_M / 2.0;
            let top = height / 2.0 - TITLE_HEIGHT_M - BUTTON_GAP_M - BUTTON_HEIGHT_M / 2.0;
            for (index, action) in actions.into_iter().enumerate() {
                let (row, column) = (index / PANEL_COLUMNS, index % PANEL_COLUMNS);
                self.shown.push(ShownButton {
                    action,
                    rect: panel.plane.rect(
                        left + step_x * column as f32,
                        top - step_y * row as f32,
                        PANEL_BUTTON_WIDTH_M,
                        BUTTON_HEIGHT_M,
                    ),
                    marked: matches!(action, Action::Landscape(name) if name.as_str() == shows.recipe_name),
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
        // A press beginning or ending clicks, from its button.
        let after = self.presses.map(|press| [press.poked, press.rayed]);
        self.clicks.clear();
        for (was, now) in before.iter().flatten().zip(after.iter().flatten()) {
            let clicked = match (was, now) {
                (None, Some(action)) | (Some(action), None) => Some(*action),
                _ => None,
            };
            if let Some(button) =
                clicked.and_then(|action| self.shown.iter().find(|button| button.action == action))
            {
                self.clicks.push(button.rect.centre);
            }
        }
        pressed
    }

    /// Where this frame's clicks sound: each button whose press began or ended.
    pub fn clicks(&self) -> &[Vec3] {
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
                (depth < RELEASE_DEPTH_M).then(|| {
                    press.poked = None;
                    UiPress {
                        label: action.label(),
                        how: PressedBy::Poke,
                        action,
                    }
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
        let hit = ray.filter(|_| !menu_hand && !near).and_then(|ray| {
            self.shown
                .iter()
                .filter_map(|button| button.hit(&ray).map(|t| (button.action, t)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
        });
        let title_hit = ray
            .filter(|_| !menu_hand && !near)
            .zip(self.panel)
            .and_then(|(ray, panel)| hit_rect(&title_rect(&panel), &ray).map(|t| (ray, t)));
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
                let_go_on_it.then(|| UiPress {
                    label: began_on.label(),
                    how: PressedBy::Ray,
                    action: began_on,
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
            })
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

    /// How every button looks now.
    fn look(&self, action: Action) -> Look {
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

/// A button at rest: a blue bright enough to show on an additive display.
const REST: [f32; 4] = [0.05, 0.12, 0.32, 0.9];
/// Hovered: brighter.
const HOVER: [f32; 4] = [0.12, 0.28, 0.6, 0.95];
/// Pressed: brighter still.
const PRESSED: [f32; 4] = [0.3, 0.55, 0.95, 1.0];
/// The growing landscape's mark.
const MARK: [f32; 4] = [0.3, 1.0, 0.9, 1.0];
/// The panel behind its buttons.
const BACKPLATE: [f32; 4] = [0.03, 0.05, 0.1, 0.75];
/// Its title bar.
const TITLE_BAR: [f32; 4] = [0.08, 0.1, 0.18, 0.9];
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

/// The panel's width and height for `buttons` buttons.
fn panel_size(buttons: usize) -> (f32, f32) {
    let rows = buttons.div_ceil(PANEL_COLUMNS) as f32;
    let width = PANEL_COLUMNS as f32 * (PANEL_BUTTON_WIDTH_M + BUTTON_GAP_M) + BUTTON_GAP_M;
    let height = TITLE_HEIGHT_M + rows * (BUTTON_HEIGHT_M + BUTTON_GAP_M) + BUTTON_GAP_M;
    (width, height)
}

/// The panel's title bar, which a pinch takes to move it.
fn title_rect(panel: &Panel) -> UiRect {
    let (width, height) = panel_size(panel_actions(panel.pinned).len());
    panel.plane.rect(
        0.0,
        height / 2.0 - TITLE_HEIGHT_M / 2.0,
        width,
        TITLE_HEIGHT_M,
    )
}

/// Where the panel opens: in front of the eyes at arm's length, a little below them.
fn in_front(head: &Pose) -> Vec3 {
    let forward = head.forward();
    let level = Vec3::new(forward.x, 0.0, forward.z).normalize_or(Vec3::NEG_Z);
    head.position + level * PANEL_DISTANCE_M - Vec3::Y * PANEL_DROP_M
}

/// The hand menu's plane for a controller aiming along `aim`: at arm's
/// reach along its ray with the top button on the ray, facing the eyes, so
/// the controller's select presses a button without hunting for it.
fn on_controller_ray(aim: &Pose, eye: Vec3, buttons: usize) -> Plane {
    let on_ray = aim.position + aim.forward() * CONTROLLER_MENU_REACH_M;
    let facing = Plane::facing(on_ray, eye);
    let top = (BUTTON_HEIGHT_M + BUTTON_GAP_M) * (buttons as f32 - 1.0) / 2.0;
    Plane::facing(on_ray - facing.up * top, eye)
}

/// Whether `hand` is held flat and open with its palm to the face while
/// the head looks at it.
pub fn palm_shown(hand: Hand, joints: &HandJoints, head: &Pose) -> bool {
    let _ = hand;
    let palm = joints[PALM].pose;
    if !palm.is_finite() {
        return false;
    }
    // The palm faces along the joint's -Y (OpenXR's hand joint axes).
    let palm_normal = palm.orientation * Vec3::NEG_Y;
    let to_eye = (head.position - palm.position).normalize_or_zero();
    let facing = palm_normal.dot(to_eye) >= PALM_FACING_COS;
    let looked_at = head.forward().dot(-to_eye) >= PALM_LOOKED_AT_COS;
    let open = pinch_distance(joints) >= OPEN_HAND_GAP_M;
    // The fingers (the joint's -Z) point up or across, not down: a finger
    // pointing down at the table shows its palm to the face too.
    let raised = (palm.orientation * Vec3::NEG_Z).y >= FINGERS_DOWN_LIMIT;
    facing && looked_at && open && raised
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
    let centre = palm.position + facing.right * side * (0.05 + BUTTON_WIDTH_M / 2.0);
    Plane::facing(centre, eye)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Press;
    use crate::input::hand::synthetic::hand_with_gap;
    use glam::Quat;

    fn head() -> Pose {
        Pose::new(Vec3::new(0.0, 1.6, 0.0), Quat::IDENTITY)
    }

    fn open_panel(controls: &mut Controls) {
        controls.act(Action::Landscapes, Some(&head()));
        controls.lay_out(0, Some(&head()), [HandState::default(); 2], shows());
    }

    fn shows() -> Shows<'static> {
        Shows {
            paused: false,
            recipe_name: "islands",
            session: None,
        }
    }

    fn button(controls: &Controls, label: &str) -> ShownButton {
        *controls
            .shown()
            .iter()
            .find(|button| button.action.label() == label)
            .unwrap_or_else(|| panic!("{label} is not on show"))
    }

    #[test]
    fn every_label_is_listed_once_and_buttons_are_big_enough_to_touch() {
        let labels = every_label();
        for label in [
            "New terrain",
            "Resume growth",
            "Unpin panel",
            "islands",
            "Save terrain",
        ] {
            assert!(labels.contains(&label), "{label}");
        }
        let mut sorted = labels.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), labels.len());
    }

    #[test]
    fn the_panel_opens_in_front_at_arms_length_with_the_growing_landscape_marked() {
        let mut controls = Controls::default();
        open_panel(&mut controls);
        let islands = button(&controls, "islands");
        assert!(islands.marked);
        assert!(!button(&controls, "badlands").marked);
        let distance = islands.rect.centre.distance(head().position);
        assert!((0.3..0.6).contains(&distance), "{distance}");
        assert!(
            islands.normal().z > 0.9,
            "faces the wearer: {}",
            islands.normal()
        );
    }

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
        assert!(frame(&mut controls, on, Press::Began).is_empty());
        assert_eq!(
            controls.clicks(),
            [faster.rect.centre],
            "a press clicks as it begins"
        );
        assert!(controls.holds(Hand::Right));
        assert_eq!(controls.look(Action::Faster), Look::Pressed);
        let presses = frame(&mut controls, on, Press::Released);
        assert_eq!(presses.len(), 1);
        assert_eq!(controls.clicks().len(), 1, "and as it ends");
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
                .1
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
        let labels = shared.draw(hands).1;
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

    #[test]
    fn a_label_said_presses_the_button_on_show_only() {
        let mut controls = Controls::default();
        assert_eq!(controls.hear("close panel"), None);
        open_panel(&mut controls);
        let press = controls.hear("  CLOSE   panel ").expect("on show");
        assert_eq!(
            (press.action, press.how),
            (Action::ClosePanel, PressedBy::Voice)
        );
        controls.act(press.action, None);
        assert!(!controls.panel_open());
    }

    #[test]
    fn speed_halves_and_doubles_within_its_limits() {
        assert_eq!(Action::Faster.rate_after(60), 120);
        assert_eq!(
            Action::Faster.rate_after(MAX_ITERATIONS_PER_SECOND),
            MAX_ITERATIONS_PER_SECOND
        );
        assert_eq!(Action::Slower.rate_after(60), 30);
        assert_eq!(Action::Slower.rate_after(20), MIN_ITERATIONS_PER_SECOND);
    }

    fn joints_with_tip(tip: Vec3) -> HandJoints {
        hand_with_gap(tip, 0.05)
    }
}
