//! Which of the room's printed codes the simulated user sees, and when it
//! last did: the simulator hands them to the app in `FrameInput.markers`,
//! and the test runtime lists the same sightings as `XR_MSFT_scene_marker`
//! QR codes, so both platforms see a code on the same frames.
//!
//! A code is seen on a frame when its centre is within the head's field of
//! view (the eyes' angles, from the head), at most [`SIGHT_RANGE_M`] away,
//! and its printed face is turned towards the head (its normal's dot with
//! the direction to the head above [`MIN_FACING`]). A code once seen stays
//! listed with its last sighting, as `XR_MSFT_scene_marker` keeps a
//! marker's `lastSeenTime`. A `stale-marker`'s sighting from before the run
//! is left out, as a platform leaves out sightings from before the run
//! started; seen during the run, it is listed as any other.
use std::sync::Arc;

use glam::Vec3;

use super::room::RoomMarker;
use crate::app::{Fov, FrameInput, Marker};
use crate::input::Pose;

/// Farthest a code can be read from, metres.
pub const SIGHT_RANGE_M: f32 = 2.0;
/// Least the cosine between the code's normal and the direction to the head
/// may be: a code seen too obliquely cannot be read.
pub const MIN_FACING: f32 = 0.3;

/// Whether a head at `head` with field `fov` sees `marker` now.
pub fn in_sight(head: &Pose, fov: &Fov, marker: &RoomMarker) -> bool {
    let pose = marker.pose();
    let to_marker = pose.position - head.position;
    let distance = to_marker.length();
    if !(distance > 0.0 && distance <= SIGHT_RANGE_M) {
        return false;
    }
    let normal = pose.orientation * Vec3::Y;
    if normal.dot(-to_marker / distance) <= MIN_FACING {
        return false;
    }
    // In the head's axes: forward is -Z, right +X, up +Y.
    let local = head.orientation.inverse() * to_marker;
    let ahead = -local.z;
    if ahead <= 0.0 {
        return false;
    }
    let across = local.x.atan2(ahead);
    let up = local.y.atan2(ahead);
    (fov.angle_left..=fov.angle_right).contains(&across)
        && (fov.angle_down..=fov.angle_up).contains(&up)
}

/// The room's codes and when each was last seen.
#[derive(Debug, Clone, Default)]
pub struct Sightings {
    /// The codes, in room order.
    markers: Vec<RoomMarker>,
    /// When each was last seen during the run, display nanoseconds.
    last_seen_ns: Vec<Option<i64>>,
    /// The list handed over, rebuilt when a sighting changed.
    listed: Option<Arc<[Marker]>>,
}

impl Sightings {
    /// The sightings of `markers`, none yet.
    pub fn new(markers: &[RoomMarker]) -> Self {
        Sightings {
            markers: markers.to_vec(),
            last_seen_ns: vec![None; markers.len()],
            listed: None,
        }
    }

    /// Notes the codes `input`'s head sees (at its display time) and
    /// returns every code seen so far, each as last seen, in room order:
    /// what the platform hands over in `FrameInput.markers`.
    pub fn look(&mut self, input: &FrameInput) -> Arc<[Marker]> {
        if let Some(head) = &input.head {
            let fov = &input.views[0].fov;
            for (marker, last_seen) in self.markers.iter().zip(&mut self.last_seen_ns) {
                if in_sight(head, fov, marker) {
                    *last_seen = Some(input.display_time_ns);
                    self.listed = None;
                }
            }
        }
        if let Some(listed) = &self.listed {
            return listed.clone();
        }
        let listed: Arc<[Marker]> = self.seen().collect();
        self.listed = Some(listed.clone());
        listed
    }

    /// Every code seen so far, as last seen.
    fn seen(&self) -> impl Iterator<Item = Marker> + '_ {
        self.markers
            .iter()
            .zip(&self.last_seen_ns)
            .filter_map(|(marker, seen)| {
                seen.map(|last_seen_ns| Marker {
                    text: marker.text.clone(),
                    pose: marker.pose(),
                    size_m: marker.size_m,
                    last_seen_ns,
                })
            })
    }

    /// When the code at `index` (room order) was last seen during the run.
    pub fn last_seen_ns(&self, index: usize) -> Option<i64> {
        self.last_seen_ns.get(index).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{EyeView, HandInput, Kept};

    fn marker(centre: Vec3, yaw_deg: f32) -> RoomMarker {
        RoomMarker {
            centre,
            yaw_deg,
            size_m: 0.1,
            text: "holoterrain:7-guitar-orbit".into(),
            seen_before_start: false,
        }
    }

    /// 45° across, 34° up and down, as the simulator's 320x240 eyes.
    fn fov() -> Fov {
        let half_width = 22.5f32.to_radians();
        let half_height = (half_width.tan() / (4.0 / 3.0)).atan();
        Fov {
            angle_left: -half_width,
            angle_right: half_width,
            angle_up: half_height,
            angle_down: -half_height,
        }
    }

    fn input(head: Pose, time_ns: i64) -> FrameInput {
        let eye = EyeView {
            pose: head,
            fov: fov(),
        };
        FrameInput {
            display_time_ns: time_ns,
            head: Some(head),
            hands: [HandInput::default(); 2],
            views: [eye; 2],
            hologram_located: None,
            visible: true,
            surfaces: None,
            markers: None,
            kept: Kept::None,
            voice: None,
            shared: Vec::new(),
            saves: None,
            saved: None,
        }
    }

    /// A head at eye height 1 m back from (0, 0.75, -1), looking at `at`.
    fn head_looking_at(at: Vec3) -> Pose {
        Pose::looking_at(Vec3::new(0.0, 1.6, 0.0), at).unwrap()
    }

    #[test]
    fn a_code_on_the_table_ahead_is_seen_when_looked_at() {
        let code = marker(Vec3::new(0.0, 0.75, -1.0), 0.0);
        assert!(in_sight(&head_looking_at(code.centre), &fov(), &code));
    }

    #[test]
    fn a_code_behind_the_head_or_beside_the_view_is_not_seen() {
        let code = marker(Vec3::new(0.0, 0.75, -1.0), 0.0);
        // Looking the other way.
        let away = head_looking_at(Vec3::new(0.0, 0.75, 1.0));
        assert!(!in_sight(&away, &fov(), &code));
        // Looking 40° to its side: outside the 22.5° half field.
        let aside = head_looking_at(Vec3::new(-0.84, 0.75, -1.0));
        assert!(!in_sight(&aside, &fov(), &code));
        // Looking over it, at the ceiling far ahead.
        let up = head_looking_at(Vec3::new(0.0, 3.0, -1.0));
        assert!(!in_sight(&up, &fov(), &code));
    }

    #[test]
    fn a_code_further_than_two_metres_is_not_seen() {
        let near = marker(Vec3::new(0.0, 0.75, -1.7), 0.0); // 1.90 m from the eyes
        let far = marker(Vec3::new(0.0, 0.75, -1.9), 0.0); // 2.08 m
        assert!(in_sight(&head_looking_at(near.centre), &fov(), &near));
        assert!(!in_sight(&head_looking_at(far.centre), &fov(), &far));
    }

    #[test]
    fn a_code_whose_face_is_turned_away_is_not_seen() {
        // A code face up at eye height, straight ahead...
        let mut code = marker(Vec3::new(0.0, 1.6, -1.0), 0.0);
        let head = head_looking_at(code.centre);
        // ...face up at eye height: the normal is square to the gaze.
        assert!(!in_sight(&head, &fov(), &code));
        // Face down on the underside of a glass shelf, seen from below.
        code.centre = Vec3::new(0.0, 0.75, -1.0);
        let below = Pose::looking_at(Vec3::new(0.0, 0.0, 0.0), code.centre).unwrap();
        assert!(!in_sight(&below, &fov(), &code));
        // Lying flat far below a high gaze: the face is seen almost edge on.
        let flat = marker(Vec3::new(0.0, 1.3, -1.5), 0.0);
        let low_angle = head_looking_at(flat.centre);
        let normal_dot = (Vec3::new(0.0, 1.6, 0.0) - flat.centre).normalize().y;
        assert!(normal_dot < MIN_FACING, "{normal_dot}");
        assert!(!in_sight(&low_angle, &fov(), &flat));
    }

    #[test]
    fn a_code_seen_stays_listed_with_its_last_sighting() {
        let code = marker(Vec3::new(0.0, 0.75, -1.0), 30.0);
        let mut sightings = Sightings::new(std::slice::from_ref(&code));
        let looking = head_looking_at(code.centre);
        let away = head_looking_at(Vec3::new(0.0, 0.75, 1.0));
        assert!(sightings.look(&input(away, 1_000)).is_empty());
        assert_eq!(sightings.last_seen_ns(0), None);
        let seen = sightings.look(&input(looking, 2_000));
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].last_seen_ns, 2_000);
        assert_eq!(seen[0].text, "holoterrain:7-guitar-orbit");
        assert_eq!(seen[0].pose, code.pose());
        assert_eq!(seen[0].size_m, 0.1);
        // Looking away again: still listed, as last seen.
        let kept = sightings.look(&input(away, 3_000));
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].last_seen_ns, 2_000);
        assert!(Arc::ptr_eq(&kept, &sightings.look(&input(away, 4_000))));
        // Seen again: the newer sighting.
        assert_eq!(
            sightings.look(&input(looking, 5_000))[0].last_seen_ns,
            5_000
        );
    }

    #[test]
    fn a_marker_pose_faces_up_with_its_top_edge_along_its_yaw() {
        let code = marker(Vec3::new(1.0, 0.75, -2.0), 90.0);
        let pose = code.pose();
        assert!((pose.orientation * Vec3::Y).abs_diff_eq(Vec3::Y, 1e-6));
        // Turned 90° counter-clockwise seen from above: -Z goes to -X.
        assert!((pose.orientation * Vec3::NEG_Z).abs_diff_eq(Vec3::NEG_X, 1e-6));
    }
}
