//! The cursors: where a hand's ray, a controller's ray or the head's gaze lands on something that acts (the land, the base, a button), a ring lying on that surface, larger and brighter with a dot inside when a pinch or select there would act.
//!
//! Microsoft's cursor guidance asks for continuous feedback that follows
//! the surface pointed at, and a "targeted" state distinct from the idle
//! one; what acts is what shows a cursor ([`crate::app::intent`] acts only
//! where a ray, or else the gaze, lands on the hologram).
use glam::Vec3;

use super::state::{Controls, HandState};
use crate::input::Hand;
use crate::render::scene::{UiFill, UiQuad, UiRect};

/// Where a pointer lands, and whether a pinch or select would act there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cursor {
    /// The point on the surface, in the room.
    pub point: Vec3,
    /// The surface's outward unit normal there: the cursor lies across it.
    pub normal: Vec3,
    /// How far the eyes (else the pointer) are from it, metres: the cursor
    /// grows with it, so it keeps about the same size in view.
    pub distance: f32,
    /// A pinch or select now would act on what it is on.
    pub targeted: bool,
}

/// An idle cursor's radius per metre away: about 0.4° across.
const IDLE_RADIUS_PER_M: f32 = 0.0035;
/// A targeted cursor's: about 0.6° across.
const TARGETED_RADIUS_PER_M: f32 = 0.0055;
/// The nearest a cursor is drawn as if it were, so one close up keeps a
/// size the eye can take in.
const NEAREST_M: f32 = 0.4;
/// How far off the surface a cursor floats, so the surface does not cut it.
const LIFT_M: f32 = 0.002;
/// The idle ring: a dimmer white.
pub(super) const IDLE: [f32; 4] = [0.7, 0.75, 0.8, 0.7];
/// The targeted ring and its dot: full white.
pub(super) const TARGETED: [f32; 4] = [1.0, 1.0, 1.0, 1.0];

impl Cursor {
    /// Draws the cursor: a ring lying across the surface; targeted, larger,
    /// brighter and with a dot at its centre.
    pub fn push(&self, quads: &mut Vec<UiQuad>) {
        let normal = self.normal.normalize_or(Vec3::Y);
        // Any line across the surface will do for the ring; the dot is
        // square, too small to tell from round.
        let right = normal.cross(Vec3::Y).try_normalize().unwrap_or(Vec3::X);
        let up = right.cross(normal);
        let centre = self.point + normal * LIFT_M;
        let away = self.distance.max(NEAREST_M);
        let (per_m, color) = if self.targeted {
            (TARGETED_RADIUS_PER_M, TARGETED)
        } else {
            (IDLE_RADIUS_PER_M, IDLE)
        };
        let radius = per_m * away;
        quads.push(UiQuad {
            rect: UiRect {
                centre,
                right: right * radius,
                up: up * radius,
            },
            color,
            fill: UiFill::Ring,
        });
        if self.targeted {
            let dot = radius * 0.3;
            quads.push(UiQuad {
                rect: UiRect {
                    centre: centre + normal * 0.0005,
                    right: right * dot,
                    up: up * dot,
                },
                color,
                fill: UiFill::Solid,
            });
        }
    }
}

impl Controls {
    /// The head's gaze cursor, where the gaze lands on the hologram and no
    /// hand's ray is on something of its own (the hand rays take over from
    /// the gaze, as on HoloLens 2): targeted while a tracked hand's pinch
    /// would go to what the gaze is on ("gaze and commit"), idle with no
    /// hand to commit.
    pub fn draw_gaze(&self, gaze: Option<Cursor>, hands: [HandState; 2], quads: &mut Vec<UiQuad>) {
        let Some(gaze) = gaze else {
            return;
        };
        let own_target = |hand: Hand| {
            let state = hands[hand.index()];
            state.lands_on.is_some() || self.presses[hand.index()].ray_hit.is_some()
        };
        let tracked =
            Hand::BOTH.map(|hand| hands[hand.index()].aim.is_some_and(|aim| aim.is_finite()));
        let free = Hand::BOTH
            .into_iter()
            .any(|hand| tracked[hand.index()] && !own_target(hand));
        if tracked.contains(&true) && !free {
            return;
        }
        let targeted = free;
        Cursor { targeted, ..gaze }.push(quads);
    }
}
