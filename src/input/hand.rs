//! Tracked hand joints in the `XR_EXT_hand_tracking` layout: 26 joints, each a pose and a radius.
use super::geometry::Pose;

/// Joints per hand in `XR_EXT_hand_tracking`.
pub const JOINT_COUNT: usize = 26;
/// Index of the palm joint.
pub const PALM: usize = 0;
/// Index of the wrist joint.
pub const WRIST: usize = 1;
/// Index of the thumb tip joint.
pub const THUMB_TIP: usize = 5;
/// Index of the index finger's proximal joint (its knuckle).
pub const INDEX_PROXIMAL: usize = 7;
/// Index of the index finger tip joint.
pub const INDEX_TIP: usize = 10;

/// Which hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Hand {
    Left,
    Right,
}

impl Hand {
    /// Both hands, in the order used by per-hand arrays.
    pub const BOTH: [Hand; 2] = [Hand::Left, Hand::Right];

    /// The position of this hand in per-hand arrays.
    pub fn index(self) -> usize {
        match self {
            Hand::Left => 0,
            Hand::Right => 1,
        }
    }
}

/// One tracked joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Joint {
    /// Where the joint is and how it is oriented.
    pub pose: Pose,
    /// Distance from the joint's centre to the skin surface, in metres.
    pub radius: f32,
}

/// All joints of one hand, indexed by the constants above.
pub type HandJoints = [Joint; JOINT_COUNT];

/// The gap between thumb tip and index tip skin surfaces, as StereoKit
/// measures it: centre distance minus both joint radii (negative when the
/// fingertips overlap).
pub fn pinch_distance(joints: &HandJoints) -> f32 {
    let thumb = &joints[THUMB_TIP];
    let index = &joints[INDEX_TIP];
    thumb.pose.position.distance(index.pose.position) - thumb.radius - index.radius
}

/// True when every joint's pose and radius are finite, so they can be trusted.
pub fn joints_are_finite(joints: &HandJoints) -> bool {
    joints
        .iter()
        .all(|joint| joint.pose.is_finite() && joint.radius.is_finite())
}

/// Synthetic hands for the recognisers' unit tests.
#[cfg(test)]
pub(crate) mod synthetic {
    use super::*;
    use glam::{Quat, Vec3};

    /// Radius given to every synthetic joint, close to a real fingertip's.
    pub const RADIUS: f32 = 0.008;

    /// A hand whose thumb and index skin surfaces are `gap` metres apart,
    /// index tip at `index_tip`.
    pub fn hand_with_gap(index_tip: Vec3, gap: f32) -> HandJoints {
        let joint = |position| Joint {
            pose: Pose::new(position, Quat::IDENTITY),
            radius: RADIUS,
        };
        let mut joints = [joint(index_tip + Vec3::new(0.0, -0.05, 0.08)); JOINT_COUNT];
        joints[INDEX_TIP] = joint(index_tip);
        joints[THUMB_TIP] = joint(index_tip + Vec3::new(-(gap + 2.0 * RADIUS), 0.0, 0.0));
        joints
    }
}

#[cfg(test)]
mod tests {
    use super::synthetic::*;
    use super::*;
    use glam::Vec3;

    #[test]
    fn pinch_distance_subtracts_both_radii() {
        let joints = hand_with_gap(Vec3::new(0.1, 1.2, -0.4), 0.015);
        assert!((pinch_distance(&joints) - 0.015).abs() < 1e-6);
    }

    #[test]
    fn a_nan_joint_makes_the_hand_untrustworthy() {
        let mut joints = hand_with_gap(Vec3::ZERO, 0.05);
        joints[WRIST].pose.position.x = f32::NAN;
        assert!(!joints_are_finite(&joints));
    }
}
