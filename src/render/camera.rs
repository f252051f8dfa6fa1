//! Camera math shared by the simulator and the OpenXR path: projection from an
//! OpenXR field of view and view matrices from eye poses (pure glam, no GPU).
//!
//! Conventions: view space is OpenXR's (right-handed, +X right, +Y up, looking
//! down −Z); clip space is Vulkan's (+Y down, depth 0 at the near plane and 1
//! at the far plane). Depth is *not* reversed: the depth buffer clears to 1.0
//! and tests with LESS, and a depth swapchain submitted to OpenXR has
//! `min_depth = 0`, `max_depth = 1`, `near_z = near`, `far_z = far`.
use glam::{Mat4, Quat, Vec3, Vec4};

/// The projection for an OpenXR `XrFovf` (angles in radians, `angle_left` and
/// `angle_down` normally negative): an asymmetric frustum into Vulkan clip
/// space. A `far` of `f32::INFINITY` gives an infinite far plane.
pub fn perspective_from_fov(
    angle_left: f32,
    angle_right: f32,
    angle_up: f32,
    angle_down: f32,
    near: f32,
    far: f32,
) -> Mat4 {
    let tan_left = angle_left.tan();
    let tan_right = angle_right.tan();
    let tan_up = angle_up.tan();
    let tan_down = angle_down.tan();
    let width = tan_right - tan_left;
    let height = tan_up - tan_down;
    // Depth maps z = −near to 0 and z = −far to 1; in the limit far → ∞ the
    // factors become −1 and −near.
    let (depth_scale, depth_offset) = if far.is_infinite() {
        (-1.0, -near)
    } else {
        (-far / (far - near), -far * near / (far - near))
    };
    Mat4::from_cols(
        Vec4::new(2.0 / width, 0.0, 0.0, 0.0),
        // Vulkan's y axis points down, so up in view space is −y in clip space.
        Vec4::new(0.0, -2.0 / height, 0.0, 0.0),
        Vec4::new(
            (tan_right + tan_left) / width,
            -(tan_up + tan_down) / height,
            depth_scale,
            -1.0,
        ),
        Vec4::new(0.0, 0.0, depth_offset, 0.0),
    )
}

/// The view matrix of an eye at `position` with `orientation` (both in the
/// world or reference space): the inverse of the eye's pose.
pub fn view_from_pose(position: Vec3, orientation: Quat) -> Mat4 {
    let inverse_rotation = orientation.normalize().conjugate();
    Mat4::from_quat(inverse_rotation) * Mat4::from_translation(-position)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(projection: Mat4, point: Vec3) -> Vec3 {
        projection.project_point3(point)
    }

    fn assert_close(actual: Vec3, expected: Vec3) {
        assert!(
            (actual - expected).abs().max_element() < 1e-5,
            "{actual} is not {expected}"
        );
    }

    const LEFT: f32 = -0.7;
    const RIGHT: f32 = 0.5;
    const UP: f32 = 0.6;
    const DOWN: f32 = -0.8;

    #[test]
    fn frustum_edges_map_to_the_clip_space_borders() {
        let projection = perspective_from_fov(LEFT, RIGHT, UP, DOWN, 0.1, 10.0);
        let depth = 2.0;
        let left_edge = Vec3::new(LEFT.tan() * depth, 0.0, -depth);
        let right_edge = Vec3::new(RIGHT.tan() * depth, 0.0, -depth);
        let top_edge = Vec3::new(0.0, UP.tan() * depth, -depth);
        let bottom_edge = Vec3::new(0.0, DOWN.tan() * depth, -depth);
        assert!((project(projection, left_edge).x + 1.0).abs() < 1e-5);
        assert!((project(projection, right_edge).x - 1.0).abs() < 1e-5);
        // Vulkan: the top of the view is y = −1.
        assert!((project(projection, top_edge).y + 1.0).abs() < 1e-5);
        assert!((project(projection, bottom_edge).y - 1.0).abs() < 1e-5);
    }

    #[test]
    fn near_plane_maps_to_depth_zero_and_far_plane_to_one() {
        let projection = perspective_from_fov(LEFT, RIGHT, UP, DOWN, 0.1, 10.0);
        assert_close(
            project(projection, Vec3::new(0.0, 0.0, -0.1)) * Vec3::Z,
            Vec3::ZERO,
        );
        assert_close(
            project(projection, Vec3::new(0.0, 0.0, -10.0)) * Vec3::Z,
            Vec3::Z,
        );
    }

    #[test]
    fn infinite_far_plane_keeps_depth_below_one() {
        let projection = perspective_from_fov(LEFT, RIGHT, UP, DOWN, 0.1, f32::INFINITY);
        let near = project(projection, Vec3::new(0.0, 0.0, -0.1)).z;
        let far = project(projection, Vec3::new(0.0, 0.0, -1.0e4)).z;
        assert!(near.abs() < 1e-6);
        assert!(far > 0.999 && far < 1.0, "depth {far}");
    }

    #[test]
    fn symmetric_fov_centres_the_view_axis() {
        let projection = perspective_from_fov(-0.5, 0.5, 0.5, -0.5, 0.1, 10.0);
        assert_close(
            project(projection, Vec3::new(0.0, 0.0, -3.0)) * Vec3::new(1.0, 1.0, 0.0),
            Vec3::ZERO,
        );
    }

    #[test]
    fn view_from_pose_moves_the_eye_to_the_origin() {
        let position = Vec3::new(0.3, 1.6, -0.2);
        let orientation = Quat::from_rotation_y(0.8) * Quat::from_rotation_x(-0.3);
        let view = view_from_pose(position, orientation);
        assert_close(view.transform_point3(position), Vec3::ZERO);
    }

    #[test]
    fn view_from_pose_puts_what_the_eye_faces_on_the_minus_z_axis() {
        let position = Vec3::new(0.3, 1.6, -0.2);
        let orientation = Quat::from_rotation_y(0.8) * Quat::from_rotation_x(-0.3);
        let ahead = position + orientation * Vec3::new(0.0, 0.0, -2.0);
        let view = view_from_pose(position, orientation);
        assert_close(view.transform_point3(ahead), Vec3::new(0.0, 0.0, -2.0));
    }
}
