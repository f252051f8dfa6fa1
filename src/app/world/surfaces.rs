//! The room's surfaces as the platform knows them (scene-understanding
//! planes, the simulator's room): where the gaze ray first meets an
//! upward-facing one, and which one lies just below a point.
//!
//! A surface is a rectangle in the convention of `XR_MSFT_scene_understanding`'s
//! planes: its pose's +Z is the front face's normal, and it spans `width`
//! along the pose's X and `height` along its Y, centred on the pose.
//! `XR_EXT_plane_detection`'s planes lie in their pose's X-Z plane instead
//! ([`Surface::from_detected_plane`] turns them).
use std::f32::consts::FRAC_1_SQRT_2;

use glam::{Quat, Vec3};

use crate::input::{Pose, Ray};

/// A quarter turn about X taking +Z onto +Y (and +Y onto -Z): a plane
/// whose normal is its pose's +Y, turned into this module's convention. It
/// is written out rather than computed, so it has the same bits everywhere.
pub const Z_ONTO_Y: Quat = Quat::from_xyzw(-FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2);

/// A surface faces up when its normal is within this angle of gravity's up,
/// so a tilted scan of a table still counts (cos 25°).
pub const UPWARD_MIN_COSINE: f32 = 0.906;
/// The gaze ray looks for a surface this far, metres.
pub const GAZE_REACH_M: f32 = 4.0;
/// A released hologram settles onto a surface at most this far below its base, metres.
pub const SETTLE_REACH_M: f32 = 0.10;

/// One flat rectangle of the room.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    /// Centre and orientation; +Z is the normal of the face that counts.
    pub pose: Pose,
    /// Extent along the pose's X, metres.
    pub width: f32,
    /// Extent along the pose's Y, metres.
    pub height: f32,
}

impl Surface {
    /// A surface from a scene-understanding plane: its pose and size.
    pub fn from_scene_plane(pose: Pose, width: f32, height: f32) -> Self {
        Surface {
            pose,
            width,
            height,
        }
    }

    /// A surface from an `XR_EXT_plane_detection` plane: its pose (the
    /// plane in the pose's X-Z plane, its normal +Y) and its extents along X
    /// (`width`) and Z (`height`).
    pub fn from_detected_plane(pose: Pose, width: f32, height: f32) -> Self {
        // Not normalised: a unit quaternion times Z_ONTO_Y is one, and the
        // identity's product is Z_ONTO_Y to the bit.
        Surface {
            pose: Pose::new(pose.position, pose.orientation * Z_ONTO_Y),
            width,
            height,
        }
    }

    /// The normal of its front face.
    pub fn normal(&self) -> Vec3 {
        self.pose.orientation * Vec3::Z
    }

    /// Whether its front face looks up (a table top, a floor; not a wall or ceiling).
    pub fn faces_up(&self) -> bool {
        self.normal().y >= UPWARD_MIN_COSINE
    }

    /// How far along `ray` (its direction taken as unit length) it meets
    /// the front face inside the rectangle; `None` when it misses, comes
    /// from behind or runs parallel.
    pub fn hit(&self, ray: &Ray) -> Option<f32> {
        let direction = ray.direction.try_normalize()?;
        let local = self.pose.ray_to_local(&Ray::new(ray.origin, direction));
        // From the front: the origin above the face, heading into it.
        if local.origin.z < 0.0 || local.direction.z >= 0.0 {
            return None;
        }
        let distance = -local.origin.z / local.direction.z;
        let point = local.origin + local.direction * distance;
        let inside = point.x.abs() <= self.width / 2.0 && point.y.abs() <= self.height / 2.0;
        (inside && distance.is_finite()).then_some(distance)
    }
}

/// Where `gaze` first meets an upward-facing surface within
/// [`GAZE_REACH_M`]: the hit point, or `None`.
pub fn gaze_hit(surfaces: &[Surface], gaze: &Ray) -> Option<Vec3> {
    let direction = gaze.direction.try_normalize()?;
    surfaces
        .iter()
        .filter(|surface| surface.faces_up())
        .filter_map(|surface| surface.hit(gaze))
        .filter(|distance| *distance <= GAZE_REACH_M)
        .min_by(f32::total_cmp)
        .map(|distance| gaze.origin + direction * distance)
}

/// The height of the highest upward-facing surface at most
/// [`SETTLE_REACH_M`] straight below `point` (or at its height), if any.
pub fn surface_below(surfaces: &[Surface], point: Vec3) -> Option<f32> {
    // Starts a hair above the point, so a base already resting on a
    // surface finds it.
    let start = point + Vec3::Y * 1e-4;
    let down = Ray::new(start, Vec3::NEG_Y);
    surfaces
        .iter()
        .filter(|surface| surface.faces_up())
        .filter_map(|surface| surface.hit(&down))
        .filter(|drop| *drop <= SETTLE_REACH_M + 1e-4)
        .min_by(f32::total_cmp)
        .map(|drop| start.y - drop)
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;

    /// A level table top: normal up, `width` along x, `depth` along z.
    fn table(centre: Vec3, width: f32, depth: f32) -> Surface {
        Surface::from_scene_plane(Pose::new(centre, Z_ONTO_Y), width, depth)
    }

    #[test]
    fn a_detected_plane_is_the_same_surface_as_a_scene_plane() {
        let centre = Vec3::new(0.3, 0.75, -2.0);
        let detected = Surface::from_detected_plane(Pose::new(centre, Quat::IDENTITY), 1.0, 0.6);
        assert_eq!(detected, table(centre, 1.0, 0.6));
        let turned =
            Surface::from_detected_plane(Pose::new(centre, Quat::from_rotation_y(0.5)), 1.0, 0.6);
        assert!(turned.faces_up());
        assert!(turned.normal().abs_diff_eq(Vec3::Y, 1e-6));
    }

    #[test]
    fn the_quarter_turn_takes_z_onto_y() {
        assert!((Z_ONTO_Y * Vec3::Z).abs_diff_eq(Vec3::Y, 1e-6));
        assert!((Z_ONTO_Y * Vec3::Y).abs_diff_eq(Vec3::NEG_Z, 1e-6));
    }

    #[test]
    fn a_level_plane_faces_up_and_spans_x_and_z() {
        let surface = table(Vec3::new(0.0, 0.75, -2.0), 1.0, 0.6);
        assert!(surface.normal().abs_diff_eq(Vec3::Y, 1e-6));
        assert!(surface.faces_up());
        let down = |x: f32, z: f32| Ray::new(Vec3::new(x, 2.0, z), Vec3::NEG_Y);
        assert!(surface.hit(&down(0.49, -2.0)).is_some());
        assert!(surface.hit(&down(0.51, -2.0)).is_none());
        assert!(surface.hit(&down(0.0, -2.29)).is_some());
        assert!(surface.hit(&down(0.0, -2.31)).is_none());
    }

    #[test]
    fn the_gaze_hits_the_nearest_upward_surface_within_reach() {
        let near = table(Vec3::new(0.0, 0.75, -2.0), 1.0, 1.0);
        let floor = table(Vec3::new(0.0, 0.0, -2.0), 10.0, 10.0);
        let gaze = Ray::new(Vec3::new(0.0, 1.6, 0.0), Vec3::new(0.0, -0.85, -2.0));
        let hit = gaze_hit(&[floor, near], &gaze).unwrap();
        assert!(hit.abs_diff_eq(Vec3::new(0.0, 0.75, -2.0), 1e-5), "{hit}");
    }

    #[test]
    fn surfaces_beyond_reach_walls_and_those_seen_from_below_are_not_hit() {
        let far = table(Vec3::new(0.0, 0.0, -10.0), 4.0, 4.0);
        let gaze_far = Ray::new(Vec3::new(0.0, 1.6, 0.0), Vec3::new(0.0, -0.16, -1.0));
        assert_eq!(gaze_hit(&[far], &gaze_far), None);
        let wall = Surface::from_scene_plane(
            Pose::new(Vec3::new(0.0, 1.0, -2.0), Quat::IDENTITY),
            4.0,
            3.0,
        );
        let ahead = Ray::new(Vec3::new(0.0, 1.6, 0.0), Vec3::NEG_Z);
        assert!(wall.hit(&ahead).is_some(), "the wall faces the viewer");
        assert_eq!(gaze_hit(&[wall], &ahead), None, "walls do not face up");
        let above = table(Vec3::new(0.0, 2.0, -1.0), 2.0, 2.0);
        let up = Ray::new(Vec3::new(0.0, 1.6, -1.0), Vec3::Y);
        assert_eq!(gaze_hit(&[above], &up), None);
    }

    #[test]
    fn a_surface_up_to_ten_centimetres_below_is_found_and_none_further() {
        let surfaces = [table(Vec3::new(0.0, 0.75, -1.0), 1.0, 1.0)];
        let below = |y: f32| surface_below(&surfaces, Vec3::new(0.1, y, -1.1));
        assert!((below(0.84).unwrap() - 0.75).abs() < 1e-6);
        assert!((below(0.75).unwrap() - 0.75).abs() < 1e-6);
        assert_eq!(below(0.86), None);
        assert_eq!(below(0.70), None, "under the table is not on it");
        assert_eq!(surface_below(&surfaces, Vec3::new(0.7, 0.8, -1.0)), None);
    }
}
