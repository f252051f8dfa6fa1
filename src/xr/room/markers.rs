//! The printed QR codes the headset sees (XR_MSFT_scene_marker, HoloLens 2
//! with OpenXR runtime 113 or later): an observer of its own asks the
//! runtime for the codes in sight, again [`RECOMPUTE_NS`] after each
//! computation ends, checks each frame (one cheap call) whether the
//! computation is done, and keeps what the last one found; the app gets
//! them as `app::Marker`s, converted from the specification's QR code
//! convention ([`marker_from_qr_code`]), without sightings from before the
//! session's first frame.
use std::collections::HashMap;
use std::sync::Arc;

use glam::{Quat, Vec2, Vec3};
use openxr as xr;

use crate::app::Marker;
use crate::input::Pose;
use crate::xr::error::XrError;
use crate::xr::room::scene_understanding::{MarkerSearch, SceneObserver, SceneQrCode};
use crate::xr::runtime::instance::Runtime;

/// Display time from the end of one computation to the next, nanoseconds:
/// a code laid down is seen within about a second, without keeping the
/// runtime's scene compute busy.
pub const RECOMPUTE_NS: i64 = 1_000_000_000;

/// `app::Marker`'s axes (X right, +Y out of the printed face, -Z towards
/// its top edge) in a QR code's of `XR_MSFT_scene_marker` (X right along
/// the top edge, Y down the code, +Z into the face): a -90° turn about X.
const MARKER_IN_QR_CODE: Quat = Quat::from_xyzw(
    -std::f32::consts::FRAC_1_SQRT_2,
    0.0,
    0.0,
    std::f32::consts::FRAC_1_SQRT_2,
);

/// A QR code as the runtime locates it (the specification's convention:
/// `pose` at its top-left corner, X right, Y down, +Z into the code;
/// `center` and `size` its image's box in that X-Y plane) as the app
/// takes it: centred, +Y out of its face, -Z towards its top edge; its
/// side the larger of the box's width and height.
pub fn marker_from_qr_code(
    text: String,
    pose: Pose,
    center: Vec2,
    size: Vec2,
    last_seen_ns: i64,
) -> Marker {
    Marker {
        text,
        pose: Pose::new(
            pose.transform_point(Vec3::new(center.x, center.y, 0.0)),
            (pose.orientation * MARKER_IN_QR_CODE).normalize(),
        ),
        size_m: size.x.max(size.y),
        last_seen_ns,
    }
}

/// Watches the QR codes in sight.
pub struct MarkerWatcher {
    /// The observer computing them.
    observer: SceneObserver,
    /// Each marker's text by component id (`None`: no text), fetched once.
    texts: HashMap<[u8; 16], Option<String>>,
    /// Whether a computation is running.
    asked: bool,
    /// When the next computation may start (display time, nanoseconds).
    next_ns: i64,
    /// The display time of the session's first frame: sightings from
    /// before it are left out.
    started_ns: Option<i64>,
    /// The codes the last computation found.
    markers: Arc<[Marker]>,
}

impl MarkerWatcher {
    /// A watcher when the runtime offered XR_MSFT_scene_marker (the
    /// instance enabled it), else `None`.
    pub fn open<G: xr::Graphics>(
        runtime: &Runtime,
        session: &xr::Session<G>,
    ) -> Result<Option<Self>, XrError> {
        if !runtime.extensions.scene_marker {
            return Ok(None);
        }
        Ok(Some(MarkerWatcher {
            observer: SceneObserver::create_for_markers(session)?,
            texts: HashMap::new(),
            asked: false,
            next_ns: i64::MIN,
            started_ns: None,
            markers: Arc::from([]),
        }))
    }

    /// The codes seen since the session's first frame, as last computed:
    /// starts a computation around `head` when one is due, and checks
    /// whether the running one is done (locating its codes in `base` at
    /// `time`).
    pub fn markers(
        &mut self,
        head: &xr::Space,
        base: &xr::Space,
        time: xr::Time,
    ) -> Result<Arc<[Marker]>, XrError> {
        let now_ns = time.as_nanos();
        let started_ns = *self.started_ns.get_or_insert(now_ns);
        if !self.asked && now_ns >= self.next_ns {
            self.observer.begin(head, time)?;
            self.asked = true;
        }
        if self.asked
            && let MarkerSearch::Done(found) =
                self.observer.poll_markers(base, time, &mut self.texts)?
        {
            self.asked = false;
            self.next_ns = now_ns.saturating_add(RECOMPUTE_NS);
            match found {
                Some(codes) => self.markers = fresh(codes, started_ns),
                None => log::warn!("the runtime could not compute the QR codes in sight"),
            }
        }
        Ok(self.markers.clone())
    }
}

/// `codes` seen at or after `started_ns`, as the app takes them.
fn fresh(codes: Vec<SceneQrCode>, started_ns: i64) -> Arc<[Marker]> {
    codes
        .into_iter()
        .filter(|code| code.last_seen_ns >= started_ns)
        .map(|code| {
            marker_from_qr_code(
                code.text,
                code.pose,
                code.center,
                code.size,
                code.last_seen_ns,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::room::RoomMarker;

    #[test]
    fn a_qr_code_at_its_corner_becomes_a_marker_at_its_centre_facing_out() {
        // A 0.2 m code lying face up, its top edge towards -z: the runtime
        // puts its origin at the top-left corner (-x, -z), X along +x, Y
        // down the code (+z), Z into the table (-y).
        let corner = Pose::new(
            Vec3::new(0.9, 0.75, -2.1),
            Quat::from_mat3(&glam::Mat3::from_cols(Vec3::X, Vec3::Z, Vec3::NEG_Y)),
        );
        let marker = marker_from_qr_code(
            "holoterrain:7-guitar-orbit".into(),
            corner,
            Vec2::splat(0.1),
            Vec2::splat(0.2),
            42,
        );
        assert!(
            marker
                .pose
                .position
                .abs_diff_eq(Vec3::new(1.0, 0.75, -2.0), 1e-6)
        );
        let axis = |v: Vec3| marker.pose.orientation * v;
        assert!(
            axis(Vec3::Y).abs_diff_eq(Vec3::Y, 1e-6),
            "+Y out of the face"
        );
        assert!(
            axis(Vec3::NEG_Z).abs_diff_eq(Vec3::NEG_Z, 1e-6),
            "-Z to the top edge"
        );
        assert!(axis(Vec3::X).abs_diff_eq(Vec3::X, 1e-6));
        assert_eq!(marker.size_m, 0.2);
        assert_eq!(marker.last_seen_ns, 42);
        assert_eq!(marker.text, "holoterrain:7-guitar-orbit");
    }

    #[test]
    fn a_code_on_a_wall_faces_the_room_with_its_top_edge_up() {
        // On the wall z = -3, face towards +z, read upright: X along +x,
        // Y down (-y), Z into the wall (-z); origin at the top-left corner.
        let corner = Pose::new(
            Vec3::new(-0.05, 1.55, -3.0),
            Quat::from_mat3(&glam::Mat3::from_cols(Vec3::X, Vec3::NEG_Y, Vec3::NEG_Z)),
        );
        let marker =
            marker_from_qr_code("w".into(), corner, Vec2::splat(0.05), Vec2::splat(0.1), 0);
        assert!(
            marker
                .pose
                .position
                .abs_diff_eq(Vec3::new(0.0, 1.5, -3.0), 1e-6)
        );
        assert!((marker.pose.orientation * Vec3::Y).abs_diff_eq(Vec3::Z, 1e-6));
        assert!((marker.pose.orientation * Vec3::NEG_Z).abs_diff_eq(Vec3::Y, 1e-6));
    }

    #[test]
    fn the_test_runtimes_qr_code_pose_converts_back_to_the_rooms_marker() {
        for yaw_deg in [0.0, 37.0, -120.0, 180.0] {
            let room = RoomMarker {
                centre: Vec3::new(0.3, 0.75, -2.4),
                yaw_deg,
                size_m: 0.12,
                text: "t".into(),
                seen_before_start: false,
            };
            let half = Vec2::splat(room.size_m / 2.0);
            let marker = marker_from_qr_code(
                "t".into(),
                room.qr_code_pose(),
                half,
                Vec2::splat(room.size_m),
                0,
            );
            assert!(
                marker.pose.position.abs_diff_eq(room.centre, 1e-5),
                "{yaw_deg}"
            );
            assert!(
                marker
                    .pose
                    .orientation
                    .abs_diff_eq(room.pose().orientation, 1e-5)
                    || marker
                        .pose
                        .orientation
                        .abs_diff_eq(-room.pose().orientation, 1e-5),
                "{yaw_deg}"
            );
        }
    }

    #[test]
    fn sightings_from_before_the_session_are_left_out() {
        let code = |text: &str, last_seen_ns| SceneQrCode {
            text: text.into(),
            pose: Pose::new(Vec3::ZERO, Quat::IDENTITY),
            center: Vec2::splat(0.05),
            size: Vec2::splat(0.1),
            last_seen_ns,
        };
        let kept = fresh(
            vec![code("old", 999), code("new", 1000), code("newer", 2000)],
            1000,
        );
        let texts: Vec<&str> = kept.iter().map(|marker| marker.text.as_str()).collect();
        assert_eq!(texts, ["new", "newer"]);
    }
}
