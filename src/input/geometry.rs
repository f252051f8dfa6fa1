//! Rigid poses, rays and axis-aligned boxes in OpenXR conventions (metres, +Y up, -Z forward).
use glam::{Mat3, Mat4, Quat, Vec3};

/// A rigid transform: where something is and which way it faces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Position in metres.
    pub position: Vec3,
    /// Orientation as a unit quaternion; the identity faces -Z with +Y up.
    pub orientation: Quat,
}

impl Pose {
    pub const IDENTITY: Pose = Pose {
        position: Vec3::ZERO,
        orientation: Quat::IDENTITY,
    };

    pub fn new(position: Vec3, orientation: Quat) -> Self {
        Pose {
            position,
            orientation,
        }
    }

    /// A pose at `position` looking at `target`, its up as close to +Y as the
    /// view allows (+Z when looking straight up or down). `None` when the
    /// two points coincide or are not finite.
    pub fn looking_at(position: Vec3, target: Vec3) -> Option<Pose> {
        let back = (position - target).try_normalize()?;
        let right = Vec3::Y
            .cross(back)
            .try_normalize()
            .or_else(|| Vec3::Z.cross(back).try_normalize())?;
        let up = back.cross(right);
        let orientation = Quat::from_mat3(&Mat3::from_cols(right, up, back)).normalize();
        Some(Pose::new(position, orientation))
    }

    /// The direction this pose looks along (its local -Z).
    pub fn forward(&self) -> Vec3 {
        self.orientation * Vec3::NEG_Z
    }

    /// Its local +Y.
    pub fn up(&self) -> Vec3 {
        self.orientation * Vec3::Y
    }

    /// The ray from this pose's position along its forward direction.
    pub fn forward_ray(&self) -> Ray {
        Ray::new(self.position, self.forward())
    }

    /// Maps a point from this pose's local space to the parent space.
    pub fn transform_point(&self, point: Vec3) -> Vec3 {
        self.position + self.orientation * point
    }

    /// `inner` (given relative to this pose) in this pose's parent space:
    /// this transform applied after `inner`.
    pub fn compose(&self, inner: &Pose) -> Pose {
        Pose {
            position: self.transform_point(inner.position),
            orientation: (self.orientation * inner.orientation).normalize(),
        }
    }

    /// The pose that undoes this one.
    pub fn inverse(&self) -> Pose {
        let orientation = self.orientation.inverse();
        Pose {
            position: orientation * -self.position,
            orientation,
        }
    }

    /// Maps a ray from the parent space into this pose's local space.
    pub fn ray_to_local(&self, ray: &Ray) -> Ray {
        let inverse = self.inverse();
        Ray::new(
            inverse.transform_point(ray.origin),
            inverse.orientation * ray.direction,
        )
    }

    /// The same transform as a matrix.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_rotation_translation(self.orientation, self.position)
    }

    /// True when position and orientation are finite numbers.
    pub fn is_finite(&self) -> bool {
        self.position.is_finite() && self.orientation.is_finite()
    }
}

/// A half-line: an origin and a direction (not necessarily unit length).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec3,
    /// Which way it goes.
    pub direction: Vec3,
}

impl Ray {
    pub fn new(origin: Vec3, direction: Vec3) -> Self {
        Ray { origin, direction }
    }
}

/// An axis-aligned box given by its two extreme corners.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// The corner with the smallest coordinates.
    pub min: Vec3,
    /// The corner with the largest coordinates.
    pub max: Vec3,
}

impl Aabb {
    pub fn new(min: Vec3, max: Vec3) -> Self {
        Aabb { min, max }
    }

    /// The ray parameter where the ray first meets the box (0 when it starts
    /// inside), or `None` when it misses or the box lies behind it.
    pub fn hit(&self, ray: &Ray) -> Option<f32> {
        self.span(ray).map(|(entry, _)| entry)
    }

    /// The ray parameters where the ray enters the box (0 when it starts
    /// inside) and leaves it, or `None` when it misses or the box lies behind it.
    pub fn span(&self, ray: &Ray) -> Option<(f32, f32)> {
        let mut entry = 0.0f32;
        let mut exit = f32::INFINITY;
        for axis in 0..3 {
            let origin = ray.origin[axis];
            let direction = ray.direction[axis];
            let (lo, hi) = (self.min[axis], self.max[axis]);
            if direction == 0.0 {
                // Parallel to this slab: inside it for the whole ray or never.
                if origin < lo || origin > hi {
                    return None;
                }
                continue;
            }
            let (mut near, mut far) = ((lo - origin) / direction, (hi - origin) / direction);
            if near > far {
                std::mem::swap(&mut near, &mut far);
            }
            entry = entry.max(near);
            exit = exit.min(far);
            if entry > exit {
                return None;
            }
        }
        Some((entry, exit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box() -> Aabb {
        Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0))
    }

    #[test]
    fn ray_towards_the_box_hits_its_near_face() {
        let ray = Ray::new(Vec3::new(0.0, 0.0, 5.0), Vec3::NEG_Z);
        assert_eq!(unit_box().hit(&ray), Some(4.0));
    }

    #[test]
    fn ray_pointing_away_misses() {
        let ray = Ray::new(Vec3::new(0.0, 0.0, 5.0), Vec3::Z);
        assert_eq!(unit_box().hit(&ray), None);
    }

    #[test]
    fn ray_passing_beside_misses() {
        let ray = Ray::new(Vec3::new(1.5, 0.0, 5.0), Vec3::NEG_Z);
        assert_eq!(unit_box().hit(&ray), None);
    }

    #[test]
    fn ray_starting_inside_hits_at_zero() {
        let ray = Ray::new(Vec3::ZERO, Vec3::X);
        assert_eq!(unit_box().hit(&ray), Some(0.0));
    }

    #[test]
    fn a_flat_box_is_hit_from_above() {
        let flat = Aabb::new(Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 0.0, 1.0));
        let ray = Ray::new(Vec3::new(0.2, 2.0, 0.1), Vec3::NEG_Y);
        assert_eq!(flat.hit(&ray), Some(2.0));
    }

    #[test]
    fn inverse_pose_round_trips_a_point() {
        let pose = Pose::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.7));
        let point = Vec3::new(-0.3, 0.4, 0.9);
        let back = pose.inverse().transform_point(pose.transform_point(point));
        assert!(back.abs_diff_eq(point, 1e-5));
    }

    #[test]
    fn composing_with_the_inverse_gives_back_the_inner_pose() {
        let outer = Pose::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.7));
        let inner = Pose::new(Vec3::new(-0.2, 0.1, 0.4), Quat::from_rotation_x(0.3));
        let composed = outer.compose(&inner);
        assert!(
            composed
                .position
                .abs_diff_eq(outer.transform_point(inner.position), 1e-6)
        );
        let back = outer.inverse().compose(&composed);
        assert!(back.position.abs_diff_eq(inner.position, 1e-5));
        assert!(back.orientation.abs_diff_eq(inner.orientation, 1e-5));
    }

    #[test]
    fn looking_at_faces_the_target_with_a_level_right_axis() {
        let pose = Pose::looking_at(Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.0, 1.0, 0.0)).unwrap();
        let towards = Vec3::new(-1.0, -1.0, -3.0).normalize();
        assert!(pose.forward().abs_diff_eq(towards, 1e-5));
        assert!((pose.orientation * Vec3::X).y.abs() < 1e-6);
        assert!(pose.up().y > 0.0);
    }

    #[test]
    fn looking_straight_down_still_gives_a_pose() {
        let pose = Pose::looking_at(Vec3::Y, Vec3::ZERO).unwrap();
        assert!(pose.forward().abs_diff_eq(Vec3::NEG_Y, 1e-5));
    }

    #[test]
    fn forward_of_identity_is_negative_z() {
        assert_eq!(Pose::IDENTITY.forward(), Vec3::NEG_Z);
    }
}
