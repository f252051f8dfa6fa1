//! What each hand points at this frame, found once: its pointers (the aim ray of a pinch or a controller's select, the index fingertip) and the head's gaze, hit-tested against the hologram as drawn (the land or the base each ray lands on first), for the recognisers, the tools that consume the presses and the cursors drawn where they land.
//!
//! The order of the frame's hit tests is the pointer pipeline's: the
//! controls' buttons first (a press that begins on a button is theirs until
//! it ends, [`crate::app::controls::Controls::touch`]); then, for what is
//! left, the ray march to the land or the base ([`super::aim::land_on`],
//! the nearest of the two) for each hand's ray and the gaze: a press is
//! aimed at the hologram when its hand's ray lands on it, or the gaze does
//! when the hand's ray misses (or either meets the hologram's box: an
//! air-tap into it acts as it always did). A ray that crosses the box but
//! misses the land lands nowhere, so it shows no cursor. The fingertip is
//! probed against the land for a tap.
use super::aim::{AimedAt, Land, Landing, land_on};
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
    /// Where the head's gaze lands on it.
    gaze: Option<Landing>,
    /// Whether the head's gaze meets its bounds.
    gaze_hits: bool,
}

/// What one hand's pointers meet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct HandHits {
    /// The hand's aim ray, or else the head's gaze, lands on the
    /// hologram: a press now is aimed at it.
    pub aimed: bool,
    /// What the aim ray meets first, the land (its uv) or the base.
    pub aimed_at: Option<AimedAt>,
    /// Where the aim ray lands, for its cursor.
    pub landing: Option<Landing>,
    /// The index fingertip over or in the land, at the fingertip's own
    /// depth whatever the hologram's scale.
    pub probe: Option<SurfaceProbe>,
}

impl Pointing {
    /// The hologram `drawn` where the frame draws it, in `world`, and
    /// where the gaze from `head` lands on it.
    pub fn new(drawn: Option<Placement>, world: &World, head: Option<&Pose>) -> Self {
        let mut pointing = Pointing {
            drawn,
            bounds: world.bounds(),
            exaggeration: world.exaggeration(),
            gaze: None,
            gaze_hits: false,
        };
        pointing.gaze = head.and_then(|head| pointing.land(head, world.heightmap()));
        pointing.gaze_hits = head.is_some_and(|head| pointing.meets_bounds(head));
        pointing
    }

    /// Where the ray forward from `from` lands on the land of `heights`
    /// or the base. A pose with NaNs in it could slip through the slab
    /// test, so only finite poses aim.
    fn land(&self, from: &Pose, heights: &Heightmap) -> Option<Landing> {
        let placement = self.drawn.filter(|_| from.is_finite())?;
        let land = Land::new(heights, self.exaggeration);
        land_on(&from.forward_ray(), &placement, land, self.bounds)
    }

    /// Whether the ray forward from `from` meets the hologram's bounds. A
    /// pose with NaNs in it could slip through the slab test, so only
    /// finite poses aim.
    fn meets_bounds(&self, from: &Pose) -> bool {
        from.is_finite()
            && self.drawn.is_some_and(|placement| {
                self.bounds
                    .hit(&placement.ray_to_local(&from.forward_ray()))
                    .is_some()
            })
    }

    /// Where the head's gaze lands on the hologram.
    pub fn gaze(&self) -> Option<Landing> {
        self.gaze
    }

    /// How far along `aim`'s ray the hologram's bounds are entered: what
    /// the ray meets before any control beyond.
    pub fn bounds_distance(&self, aim: &Pose) -> Option<f32> {
        let placement = self.drawn.filter(|_| aim.is_finite())?;
        self.bounds.hit(&placement.ray_to_local(&aim.forward_ray()))
    }

    /// What `hand`'s pointers meet on the land of `heights` (as the hands
    /// before it left them).
    pub fn hand(&self, hand: &HandInput, heights: &Heightmap) -> HandHits {
        let landing = hand.aim.and_then(|aim| self.land(&aim, heights));
        // An air-tap into the hologram's box still reseeds where its ray
        // passes over the land without landing (a pinch aimed at the
        // hologram, as every run so far made them); the cursor shows only
        // where a ray lands.
        let aimed = landing.is_some()
            || self.gaze.is_some()
            || self.gaze_hits
            || hand.aim.as_ref().is_some_and(|aim| self.meets_bounds(aim));
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
            aimed_at: landing.map(|landing| landing.at),
            landing,
            probe,
        }
    }
}
