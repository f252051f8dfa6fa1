//! Where the hologram goes and how big it is, its bounds for hit tests, and how points map onto its surface.
//!
//! Hologram space: metres at 1× scale, origin at the centre of the
//! diorama's underside (the flat plate the base stands on), +Y up, +Z
//! towards the viewer it was placed for. The terrain covers x, z in
//! [-0.25, 0.25]; its height zero sits [`BASE_DEPTH_M`] above the origin.
//! Sample (column c, row r) of a W×H heightmap sits at u = c/(W-1),
//! v = r/(H-1), i.e. at x = (u - 0.5)·0.5 m, z = (v - 0.5)·0.5 m,
//! y = height·0.5 m + [`BASE_DEPTH_M`]: row 0 is the far edge. The base's
//! sides carry the land's edge down to the underside at y = 0, or lower
//! when the land dips below it ([`base_bottom_m`]). A [`Placement`] puts
//! that space in the room: its pose, then its scale.
use glam::{Mat3, Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::input::{Aabb, Pose, Ray, SurfaceProbe};
use crate::terrain::Heightmap;

/// Edge length of the square hologram, in metres; also the metres per terrain height unit.
pub const HOLOGRAM_SIZE_M: f32 = 0.5;
/// How far the land's height zero sits above the underside of the base, at
/// 1× scale: deep enough to read as a solid block from the side.
pub const BASE_DEPTH_M: f32 = 0.03;
/// The least the base keeps under the lowest land, when the land dips so low
/// that the underside goes below the pose.
pub const MIN_BASE_UNDER_LAND_M: f32 = 0.01;
/// How far ahead of the head the hologram's centre is placed, horizontally.
pub const PLACEMENT_DISTANCE_M: f32 = 1.0;
/// How far below eye level the hologram's centre is placed.
pub const PLACEMENT_DROP_M: f32 = 0.3;

/// The smallest scale two hands can make the hologram.
pub const MIN_SCALE: f32 = 0.25;
/// The largest scale two hands can make the hologram.
pub const MAX_SCALE: f32 = 4.0;

/// Where the hologram is in the room and how big: its pose (centre of the
/// base, orientation) and its scale (1 = 0.5 m across).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Centre of the terrain's base and its orientation.
    pub pose: Pose,
    /// Size relative to the 0.5 m default, in [`MIN_SCALE`]..=[`MAX_SCALE`].
    pub scale: f32,
}

impl Placement {
    /// A placement at `pose` at the default size.
    pub fn at(pose: Pose) -> Self {
        Placement { pose, scale: 1.0 }
    }

    /// The same placement at `scale`, clamped to [`MIN_SCALE`]..=[`MAX_SCALE`].
    pub fn scaled(self, scale: f32) -> Self {
        Placement {
            scale: clamp_scale(scale),
            ..self
        }
    }

    /// The mesh's model-to-space transform with the land drawn
    /// `exaggeration` times taller than it is: model space is the terrain
    /// grid's (x, z in [-0.5, 0.5], heights in terrain units), its zero
    /// the base's depth above the pose.
    pub fn model_matrix(&self, exaggeration: f32) -> Mat4 {
        self.pose.to_mat4()
            * Mat4::from_scale(Vec3::splat(HOLOGRAM_SIZE_M * self.scale))
            * Mat4::from_translation(Vec3::Y * (BASE_DEPTH_M / HOLOGRAM_SIZE_M))
            * Mat4::from_scale(Vec3::new(1.0, exaggeration, 1.0))
    }

    /// A point of the room in hologram space (metres at 1×).
    pub fn to_local(&self, point: Vec3) -> Vec3 {
        self.pose.inverse().transform_point(point) / self.scale
    }

    /// A point of hologram space (metres at 1×) in the room.
    pub fn to_room(&self, local: Vec3) -> Vec3 {
        self.pose.transform_point(local * self.scale)
    }

    /// A ray of the room in hologram space; its parameter keeps its meaning
    /// up to the scale, so hit tests against [`hologram_bounds`] hold.
    pub fn ray_to_local(&self, ray: &Ray) -> Ray {
        let local = self.pose.ray_to_local(ray);
        Ray::new(local.origin / self.scale, local.direction / self.scale)
    }

    /// Whether the pose and scale are finite numbers.
    pub fn is_finite(&self) -> bool {
        self.pose.is_finite() && self.scale.is_finite()
    }
}

/// `scale` within [`MIN_SCALE`]..=[`MAX_SCALE`]; 1 for a scale that is not a number.
pub fn clamp_scale(scale: f32) -> f32 {
    if scale.is_nan() {
        1.0
    } else {
        scale.clamp(MIN_SCALE, MAX_SCALE)
    }
}

/// What put the hologram where it is: the report's `placements[].cause`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlacementCause {
    /// Onto the surface the gaze hit, when the room's surfaces became known.
    Surface,
    /// Ahead of the gaze, as no surface was hit (or none is known).
    Gaze,
    /// Where the last run left it (reported as `persisted`, as reports always said).
    #[serde(rename = "persisted")]
    Kept,
    /// Dragged by one hand's pinch.
    Move,
    /// Carried by a controller's squeeze.
    Grab,
    /// Turned and scaled by two hands.
    TwoHand,
    /// Scaled or put back by a voice command ("bigger", "smaller", "reset").
    Voice,
    /// Put onto the session's printed card where another headset at the
    /// table put it (a shared session co-located by the card).
    Card,
    /// Put onto the surface the gaze hits by the hand menu's "Place here".
    Menu,
}

impl PlacementCause {
    /// The lower-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            PlacementCause::Surface => "surface",
            PlacementCause::Gaze => "gaze",
            PlacementCause::Kept => "persisted",
            PlacementCause::Move => "move",
            PlacementCause::Grab => "grab",
            PlacementCause::TwoHand => "twohand",
            PlacementCause::Voice => "voice",
            PlacementCause::Menu => "menu",
            PlacementCause::Card => "card",
        }
    }

    /// Whether the user moved, turned or scaled the hologram, with hands,
    /// a controller or a voice command (what is kept for the next run),
    /// rather than the app placing it.
    pub fn is_manipulation(self) -> bool {
        matches!(
            self,
            PlacementCause::Move
                | PlacementCause::Grab
                | PlacementCause::TwoHand
                | PlacementCause::Voice
                | PlacementCause::Menu
        )
    }
}

/// The hologram pose for a head pose: 1 m ahead along the head's horizontal
/// forward, 0.3 m below the eyes, turned about gravity only so it lies level
/// however the head is pitched or rolled, its near edge facing the viewer.
pub fn place_hologram(head: &Pose) -> Pose {
    let forward = horizontal_forward(head);
    let position = head.position + forward * PLACEMENT_DISTANCE_M - Vec3::Y * PLACEMENT_DROP_M;
    Pose::new(position, facing_viewer(head))
}

/// The hologram pose with its base centred on `point` (a surface the gaze
/// hit), level, its near edge facing the viewer at `head`.
pub fn place_on_surface(head: &Pose, point: Vec3) -> Pose {
    Pose::new(point, facing_viewer(head))
}

/// The orientation that keeps the hologram level with its near edge
/// towards `head`: turned about gravity only.
fn facing_viewer(head: &Pose) -> Quat {
    // Columns are the hologram's x, y, z axes in space; its -Z looks where the head looks.
    let back = -horizontal_forward(head);
    let right = Vec3::Y.cross(back);
    Quat::from_mat3(&Mat3::from_cols(right, Vec3::Y, back)).normalize()
}

/// `orientation` with its tilt removed: the turn about gravity that keeps
/// its forward (or, looking straight up or down, its up) direction.
pub fn level(orientation: Quat) -> Quat {
    facing_viewer(&Pose::new(Vec3::ZERO, orientation))
}

/// The head's forward direction flattened onto the floor plane. Looking
/// straight up or down leaves no horizontal forward; then the top of the
/// head (looking down) or the chin (looking up) points the way.
fn horizontal_forward(head: &Pose) -> Vec3 {
    let forward = head.forward();
    let flat = Vec3::new(forward.x, 0.0, forward.z);
    if flat.length_squared() > 1e-6 {
        return flat.normalize();
    }
    let up = head.up() * -forward.y.signum();
    let flat_up = Vec3::new(up.x, 0.0, up.z);
    flat_up.try_normalize().unwrap_or(Vec3::NEG_Z)
}

/// Where the base's underside is in hologram space (metres at 1×) for land
/// whose lowest height is `min_height`: at the pose (0), or lower when the
/// land dips to within [`MIN_BASE_UNDER_LAND_M`] of it.
pub fn base_bottom_m(min_height: f32) -> f32 {
    (land_y_m(min_height) - MIN_BASE_UNDER_LAND_M).min(0.0)
}

/// Where a land height (terrain units, times the exaggeration it is drawn
/// with) is in hologram space, metres at 1×.
pub fn land_y_m(height: f32) -> f32 {
    height * HOLOGRAM_SIZE_M + BASE_DEPTH_M
}

/// The box in hologram space that holds the diorama: the base from its
/// underside and the land with its relief (at least up to height zero, so
/// a flat map has bounds too).
pub fn hologram_bounds(min_height: f32, max_height: f32) -> Aabb {
    let half = HOLOGRAM_SIZE_M / 2.0;
    Aabb::new(
        Vec3::new(-half, base_bottom_m(min_height), -half),
        Vec3::new(half, land_y_m(max_height.max(0.0)), half),
    )
}

/// The land as drawn: its heights, and how many times taller than they are.
#[derive(Debug, Clone, Copy)]
pub struct Land<'a> {
    /// The heights, terrain units.
    pub heights: &'a Heightmap,
    /// The vertical exaggeration they are drawn with.
    pub exaggeration: f32,
}

impl<'a> Land<'a> {
    /// `heights` drawn `exaggeration` times taller than they are.
    pub fn new(heights: &'a Heightmap, exaggeration: f32) -> Self {
        Land {
            heights,
            exaggeration,
        }
    }

    /// Where the land is drawn at (u, v) in [0, 1]², between samples
    /// bilinearly, in hologram space's y (metres at 1×).
    pub fn y_m(&self, u: f32, v: f32) -> f32 {
        land_y_m(sample_bilinear(self.heights, u, v) * self.exaggeration)
    }

    /// The hologram-space box that holds the diorama of this land.
    pub fn bounds(&self) -> Aabb {
        let (low, high) = self.heights.min_max();
        hologram_bounds(low * self.exaggeration, high * self.exaggeration)
    }
}

/// The point of the land's surface at (u, v) in [0, 1]², in hologram space.
pub fn surface_point(land: Land<'_>, u: f32, v: f32) -> Vec3 {
    Vec3::new(
        (u - 0.5) * HOLOGRAM_SIZE_M,
        land.y_m(u, v),
        (v - 0.5) * HOLOGRAM_SIZE_M,
    )
}

/// Where a point in hologram space is over the `land`'s surface, or `None`
/// when it is not above the terrain's footprint.
pub fn probe_surface(point: Vec3, land: Land<'_>) -> Option<SurfaceProbe> {
    let u = point.x / HOLOGRAM_SIZE_M + 0.5;
    let v = point.z / HOLOGRAM_SIZE_M + 0.5;
    if !(0.0..=1.0).contains(&u) || !(0.0..=1.0).contains(&v) {
        return None;
    }
    let surface = land.y_m(u, v);
    Some(SurfaceProbe {
        u,
        v,
        height_above_surface: point.y - surface,
    })
}

/// The height at (u, v) in [0, 1]², interpolated between the four nearest samples.
pub fn sample_bilinear(heights: &Heightmap, u: f32, v: f32) -> f32 {
    let x = u.clamp(0.0, 1.0) * (heights.width() - 1) as f32;
    let y = v.clamp(0.0, 1.0) * (heights.height() - 1) as f32;
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    let (x1, y1) = (
        (x0 + 1).min(heights.width() - 1),
        (y0 + 1).min(heights.height() - 1),
    );
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let top = heights.get(x0, y0) * (1.0 - fx) + heights.get(x1, y0) * fx;
    let bottom = heights.get(x0, y1) * (1.0 - fx) + heights.get(x1, y1) * fx;
    top * (1.0 - fy) + bottom * fy
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head_at(position: Vec3, yaw: f32, pitch: f32) -> Pose {
        Pose::new(
            position,
            Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch),
        )
    }

    fn assert_close(actual: Vec3, expected: Vec3) {
        assert!(
            actual.abs_diff_eq(expected, 1e-5),
            "{actual} is not {expected}"
        );
    }

    #[test]
    fn a_level_head_gets_the_hologram_one_metre_ahead_and_lower() {
        let pose = place_hologram(&head_at(Vec3::new(0.0, 1.6, 0.0), 0.0, 0.0));
        assert_close(pose.position, Vec3::new(0.0, 1.3, -1.0));
    }

    #[test]
    fn placement_follows_the_head_yaw() {
        let eye = Vec3::new(0.5, 1.7, 2.0);
        for yaw_degrees in [30.0f32, 90.0, 180.0, -135.0] {
            let yaw = yaw_degrees.to_radians();
            let pose = place_hologram(&head_at(eye, yaw, 0.0));
            let ahead = Vec3::new(-yaw.sin(), 0.0, -yaw.cos());
            assert_close(pose.position, eye + ahead - Vec3::Y * 0.3);
            assert_close(pose.forward(), ahead);
        }
    }

    #[test]
    fn a_pitched_head_does_not_tilt_or_move_the_hologram_vertically() {
        let eye = Vec3::new(0.0, 1.6, 0.0);
        let yaw = 0.4f32;
        let level = place_hologram(&head_at(eye, yaw, 0.0));
        for pitch_degrees in [-60.0f32, -20.0, 35.0] {
            let pitched = place_hologram(&head_at(eye, yaw, pitch_degrees.to_radians()));
            assert_close(pitched.position, level.position);
            assert_close(pitched.up(), Vec3::Y);
            assert_close(pitched.forward(), level.forward());
        }
    }

    #[test]
    fn looking_straight_down_places_ahead_of_the_top_of_the_head() {
        let head = Pose::new(
            Vec3::new(0.0, 1.6, 0.0),
            Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
        );
        let pose = place_hologram(&head);
        assert_close(pose.position, Vec3::new(0.0, 1.3, -1.0));
        assert_close(pose.up(), Vec3::Y);
    }

    #[test]
    fn model_matrix_puts_model_corners_at_the_hologram_edges() {
        let pose = place_hologram(&head_at(Vec3::new(0.0, 1.6, 0.0), 0.0, 0.0));
        let model = Placement::at(pose).model_matrix(1.0);
        let far_left = model.transform_point3(Vec3::new(-0.5, 1.0, -0.5));
        assert_close(far_left, Vec3::new(-0.25, 1.8 + BASE_DEPTH_M, -1.25));
        // The land's zero is the base's depth above the pose.
        assert_close(
            model.transform_point3(Vec3::ZERO),
            pose.position + Vec3::Y * BASE_DEPTH_M,
        );
    }

    #[test]
    fn a_scaled_placement_grows_about_the_base_centre() {
        let pose = place_hologram(&head_at(Vec3::new(0.0, 1.6, 0.0), 0.0, 0.0));
        let double = Placement::at(pose).scaled(2.0);
        let far_left = double
            .model_matrix(1.0)
            .transform_point3(Vec3::new(-0.5, 1.0, -0.5));
        assert_close(far_left, Vec3::new(-0.5, 2.3 + 2.0 * BASE_DEPTH_M, -1.5));
        let local = Vec3::new(0.1, 0.05, -0.2);
        assert_close(double.to_local(double.to_room(local)), local);
        assert_close(double.to_room(local), pose.transform_point(local * 2.0));
    }

    #[test]
    fn the_scale_is_clamped_to_a_quarter_to_four_times() {
        let pose = Pose::IDENTITY;
        assert_eq!(Placement::at(pose).scaled(0.1).scale, MIN_SCALE);
        assert_eq!(Placement::at(pose).scaled(9.0).scale, MAX_SCALE);
        assert_eq!(Placement::at(pose).scaled(1.5).scale, 1.5);
        assert_eq!(Placement::at(pose).scaled(f32::NAN).scale, 1.0);
    }

    #[test]
    fn a_ray_in_hologram_space_hits_what_the_scaled_hologram_covers() {
        let placement = Placement::at(Pose::new(Vec3::new(0.0, 1.0, -1.0), Quat::IDENTITY));
        let bounds = hologram_bounds(0.0, 0.1);
        // 0.4 m right of centre: off the 0.5 m footprint, on the 1 m one.
        let ray = Ray::new(Vec3::new(0.4, 2.0, -1.0), Vec3::NEG_Y);
        assert!(bounds.hit(&placement.ray_to_local(&ray)).is_none());
        assert!(
            bounds
                .hit(&placement.scaled(2.0).ray_to_local(&ray))
                .is_some()
        );
    }

    #[test]
    fn levelling_keeps_the_heading_and_drops_the_tilt() {
        let tilted = Quat::from_rotation_y(0.6) * Quat::from_rotation_x(0.4);
        let levelled = level(tilted);
        assert_close(levelled * Vec3::Y, Vec3::Y);
        let heading = |q: Quat| {
            let forward = q * Vec3::NEG_Z;
            Vec3::new(forward.x, 0.0, forward.z).normalize()
        };
        assert_close(heading(levelled), heading(tilted));
    }

    #[test]
    fn cause_names_are_the_reports() {
        for cause in [
            PlacementCause::Surface,
            PlacementCause::Gaze,
            PlacementCause::Kept,
            PlacementCause::Move,
            PlacementCause::Grab,
            PlacementCause::TwoHand,
        ] {
            assert_eq!(
                serde_json::to_value(cause).unwrap(),
                serde_json::Value::from(cause.name())
            );
        }
    }

    #[test]
    fn probe_reads_the_surface_height_under_the_point() {
        let mut map = Heightmap::flat(3, 3).unwrap();
        map.set(2, 0, 0.4); // far right corner
        let probe = probe_surface(
            Vec3::new(0.25, 0.25 + BASE_DEPTH_M, -0.25),
            Land::new(&map, 1.0),
        )
        .unwrap();
        assert_eq!((probe.u, probe.v), (1.0, 0.0));
        assert!((probe.height_above_surface - 0.05).abs() < 1e-6);
        // The land's model matrix puts that sample where the probe has it.
        let model = Placement::at(Pose::IDENTITY).model_matrix(1.0);
        let drawn = model.transform_point3(Vec3::new(0.5, 0.4, -0.5));
        assert!((drawn.y - (0.25 + BASE_DEPTH_M - 0.05)).abs() < 1e-6);
    }

    #[test]
    fn probe_outside_the_footprint_is_none() {
        let map = Heightmap::flat(3, 3).unwrap();
        assert_eq!(
            probe_surface(Vec3::new(0.3, 0.1, 0.0), Land::new(&map, 1.0)),
            None
        );
    }

    #[test]
    fn the_bounds_run_from_the_underside_to_the_highest_land() {
        let bounds = hologram_bounds(0.0, 0.2);
        assert_eq!(bounds.min.y, 0.0);
        assert!((bounds.max.y - (0.1 + BASE_DEPTH_M)).abs() < 1e-6);
        // Land dipping below the plate takes the underside down with it.
        let deep = hologram_bounds(-0.1, 0.2);
        assert!((deep.min.y - (-0.05 + BASE_DEPTH_M - MIN_BASE_UNDER_LAND_M)).abs() < 1e-6);
        assert!(deep.min.y < 0.0);
        assert_eq!(base_bottom_m(-0.01), 0.0);
    }

    #[test]
    fn bilinear_sampling_interpolates_between_samples() {
        let map = Heightmap::from_cells(2, 2, vec![0.0, 1.0, 2.0, 3.0]).unwrap();
        assert!((sample_bilinear(&map, 0.5, 0.5) - 1.5).abs() < 1e-6);
    }
}
