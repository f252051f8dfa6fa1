//! Conversions between OpenXR's types and the app's (glam-based) ones.

use glam::{Quat, Vec3};
use openxr as xr;

use crate::app::{EyeView, Fov};
use crate::input::Pose;
use crate::input::hand::{HandJoints, JOINT_COUNT, Joint};

/// An OpenXR pose as the app's pose.
pub fn pose_from_xr(pose: xr::Posef) -> Pose {
    let xr::Quaternionf { x, y, z, w } = pose.orientation;
    let xr::Vector3f {
        x: px,
        y: py,
        z: pz,
    } = pose.position;
    Pose::new(Vec3::new(px, py, pz), Quat::from_xyzw(x, y, z, w))
}

/// The app's pose as an OpenXR pose.
pub fn pose_to_xr(pose: &Pose) -> xr::Posef {
    xr::Posef {
        orientation: xr::Quaternionf {
            x: pose.orientation.x,
            y: pose.orientation.y,
            z: pose.orientation.z,
            w: pose.orientation.w,
        },
        position: xr::Vector3f {
            x: pose.position.x,
            y: pose.position.y,
            z: pose.position.z,
        },
    }
}

/// An OpenXR view as the app's eye view.
pub fn eye_from_xr(view: &xr::View) -> EyeView {
    EyeView {
        pose: pose_from_xr(view.pose),
        fov: Fov {
            angle_left: view.fov.angle_left,
            angle_right: view.fov.angle_right,
            angle_up: view.fov.angle_up,
            angle_down: view.fov.angle_down,
        },
    }
}

/// XR_EXT_hand_tracking joints (pose, radius) as the app's joints; `None`
/// unless all 26 are present.
pub fn joints_from_xr(joints: &[(xr::Posef, f32)]) -> Option<HandJoints> {
    if joints.len() != JOINT_COUNT {
        return None;
    }
    let mut out = [Joint {
        pose: Pose::IDENTITY,
        radius: 0.0,
    }; JOINT_COUNT];
    for (slot, (pose, radius)) in out.iter_mut().zip(joints) {
        *slot = Joint {
            pose: pose_from_xr(*pose),
            radius: *radius,
        };
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_survives_a_round_trip_through_openxr() {
        let pose = Pose::new(
            Vec3::new(0.1, -0.2, 0.3),
            Quat::from_rotation_y(0.7).normalize(),
        );
        assert_eq!(pose_from_xr(pose_to_xr(&pose)), pose);
    }

    #[test]
    fn openxr_quaternion_order_is_xyzw() {
        let posef = xr::Posef {
            orientation: xr::Quaternionf {
                x: 0.0,
                y: 1.0,
                z: 0.0,
                w: 0.0,
            },
            position: xr::Vector3f {
                x: 0.0,
                y: 0.0,
                z: 0.0,
            },
        };
        let forward = pose_from_xr(posef).forward();
        assert!(
            (forward - Vec3::Z).length() < 1e-6,
            "half turn about Y faces +Z, got {forward}"
        );
    }

    #[test]
    fn joints_need_all_twenty_six() {
        let joint = (xr::Posef::IDENTITY, 0.01);
        assert!(joints_from_xr(&[joint; 25]).is_none());
        let joints = joints_from_xr(&[joint; 26]).unwrap();
        assert_eq!(joints[10].radius, 0.01);
    }
}
