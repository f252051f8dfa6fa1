//! What each hand points at this frame, found once: its pointers (the aim ray of a pinch or a controller's select, the index fingertip) and the head's gaze, hit-tested against the hologram as drawn (its bounds, then the land or the base the ray meets first), for the recognisers and the tools that consume the presses.
//!
//! The order of the frame's hit tests is the pointer pipeline's: the
//! controls' buttons first (a press that begins on a button is theirs until
//! it ends, [`crate::app::controls::Controls::touch`]); then, for what is
//! left, the hologram's bounds (whether a press is aimed at it: by the
//! hand's ray, or by the gaze when the hand's ray misses), and only for a
//! press beginning or a sculpt under way the ray march to the land or the
//! base ([`super::aim::aim`], the nearest of the two); the fingertip is
//! probed against the land for a tap.
use super::aim::{AimedAt, Land, aim};
use crate::app::frame::HandInput;
use crate::app::world::World;
use crate::app::world::placement::{self, Placement};
use crate::input::hand::INDEX_TIP;
use crate::input::{Aabb, Pose, SurfaceProbe};
use crate::terrain::Heightmap;

/// The hologram as the frame's pointers see it, taken when the frame's
/// gestures begin.
pub(super) struct Pointing {
    /// Where the hologram is drawn this frame, once placed.
    drawn: Option<Placement>,
    /// Its bounds in hologram space, relief included.
    bounds: Aabb,
    /// How many times taller than it is the land is drawn.
    exaggeration: f32,
    /// Whether the head's gaze meets its bounds.
    gaze_hits: bool,
}

/// What one hand's pointers meet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct HandHits {
    /// The hand's aim ray, or else the head's gaze, meets the hologram's
    /// bounds: a press now is aimed at the hologram.
    pub aimed: bool,
    /// What the aim ray meets first, the land (its uv) or the base; only
    /// when asked for (the ray march is the frame's dearest hit test).
    pub aimed_at: Option<AimedAt>,
    /// The index fingertip over or in the land, at the fingertip's own
    /// depth whatever the hologram's scale.
    pub probe: Option<SurfaceProbe>,
}

impl Pointing {
    /// The hologram `drawn` where the frame draws it, in `world`, and the
    /// gaze from `head`.
    pub fn new(drawn: Option<Placement>, world: &World, head: Option<&Pose>) -> Self {
        let mut pointing = Pointing {
            drawn,
            bounds: world.bounds(),
            exaggeration: world.exaggeration(),
            gaze_hits: false,
        };
        pointing.gaze_hits = head.is_some_and(|head| pointing.meets_bounds(head));
        pointing
    }

    /// Whether the ray forward from `from` meets the hologram's bounds. A
    /// pose with NaNs in it could slip through the slab test, so only finite
    /// poses aim.
    fn meets_bounds(&self, from: &Pose) -> bool {
        from.is_finite()
            && self.drawn.is_some_and(|placement| {
                self.bounds
                    .hit(&placement.ray_to_local(&from.forward_ray()))
                    .is_some()
            })
    }

    /// How far along `aim`'s ray the hologram's bounds are entered: what
    /// the ray meets before any control beyond.
    pub fn bounds_distance(&self, aim: &Pose) -> Option<f32> {
        let placement = self.drawn.filter(|_| aim.is_finite())?;
        self.bounds.hit(&placement.ray_to_local(&aim.forward_ray()))
    }

    /// What `hand`'s pointers meet on the land of `heights` (as the hands
    /// before it left them); the land or base its ray meets only when
    /// `needs_aim` (a press beginning, or this hand's sculpt).
    pub fn hand(&self, hand: &HandInput, needs_aim: bool, heights: &Heightmap) -> HandHits {
        let aimed = self.gaze_hits || hand.aim.as_ref().is_some_and(|aim| self.meets_bounds(aim));
        let aimed_at = self
            .drawn
            .zip(hand.aim.filter(Pose::is_finite))
            .filter(|_| needs_aim)
            .and_then(|(placement, aim_pose)| {
                let land = Land::new(heights, self.exaggeration);
                aim(&aim_pose.forward_ray(), &placement, land, self.bounds)
            });
        let probe = self
            .drawn
            .zip(hand.joints.as_ref())
            .and_then(|(placement, joints)| {
                let tip = placement.to_local(joints[INDEX_TIP].pose.position);
                let land = Land::new(heights, self.exaggeration);
                placement::probe_surface(tip, land).map(|probe| SurfaceProbe {
                    height_above_surface: probe.height_above_surface * placement.scale,
                    ..probe
                })
            });
        HandHits {
            aimed,
            aimed_at,
            probe,
        }
    }
}
