//! Hit tests and the frames menus are laid out in: a flat frame facing the wearer, the menus, a button on show (and its menu), where a fingertip is in its terms, and where a ray meets it (or any rectangle, such as the panel's title bar).
use glam::Vec3;

use super::actions::Action;
use crate::input::Ray;
use crate::render::scene::UiRect;

/// The menus the controls show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Menu {
    /// The column of buttons beside a palm held up (or a controller's ray).
    HandMenu,
    /// The landscapes panel in front of the wearer.
    LandscapesPanel,
}

impl Menu {
    /// What the report calls it.
    pub fn name(self) -> &'static str {
        match self {
            Menu::HandMenu => "hand menu",
            Menu::LandscapesPanel => "landscapes panel",
        }
    }
}

/// Farthest a ray reaches a button.
const RAY_REACH_M: f32 = 3.0;

/// A flat frame in the room facing the wearer: its centre and unit axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Plane {
    pub(super) centre: Vec3,
    pub(super) right: Vec3,
    pub(super) up: Vec3,
}

impl Plane {
    /// A frame at `centre` turned to face `eye` upright.
    pub(super) fn facing(centre: Vec3, eye: Vec3) -> Self {
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
    pub(super) fn normal(&self) -> Vec3 {
        self.right.cross(self.up)
    }

    /// The rectangle `width` × `height` whose centre is `(x, y)` in this frame.
    pub(super) fn rect(&self, x: f32, y: f32, width: f32, height: f32) -> UiRect {
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
    /// The menu it is on.
    pub menu: Menu,
    /// Where it is.
    pub rect: UiRect,
    /// Its lit bar shows: the landscape growing now, or a toggle that is on
    /// (the panel pinned, the contour lines drawn).
    pub lit: bool,
}

impl ShownButton {
    /// Towards the viewer, unit length.
    pub fn normal(&self) -> Vec3 {
        self.rect.right.cross(self.rect.up).normalize()
    }

    /// `point` in the button's terms: across and up from its centre (in
    /// metres), and how far it is pushed in behind its face.
    pub(super) fn local(&self, point: Vec3) -> (f32, f32, f32) {
        let offset = point - self.rect.centre;
        (
            offset.dot(self.rect.right.normalize()),
            offset.dot(self.rect.up.normalize()),
            -offset.dot(self.normal()),
        )
    }

    /// Whether (x, y) from [`Self::local`] lies on its face.
    pub(super) fn covers(&self, x: f32, y: f32) -> bool {
        x.abs() <= self.rect.right.length() && y.abs() <= self.rect.up.length()
    }

    /// Where along `ray` it meets the button's face from the front, if it does.
    pub(super) fn hit(&self, ray: &Ray) -> Option<f32> {
        hit_rect(&self.rect, ray)
    }
}

/// Where along `ray` it meets `rect` from the front, within reach.
pub(super) fn hit_rect(rect: &UiRect, ray: &Ray) -> Option<f32> {
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
