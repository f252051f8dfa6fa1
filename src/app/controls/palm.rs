//! The palm held up: whether a hand is held flat and open, palm to the face, while the wearer looks at it.
use glam::Vec3;

use crate::input::hand::{PALM, pinch_distance};
use crate::input::{Hand, HandJoints, Pose};

/// Least cosine between the palm's normal and the way to the eyes for a
/// palm that faces the face (about 45°).
const PALM_FACING_COS: f32 = 0.7;
/// Least cosine between the gaze and the way to the palm for a palm the
/// wearer looks at (about 40°).
const PALM_LOOKED_AT_COS: f32 = 0.77;
/// The fingers may point down at most this much (the sine of about 17°)
/// for a palm that is held up.
const FINGERS_DOWN_LIMIT: f32 = -0.3;
/// Thumb and index at least this far apart: an open, flat hand.
const OPEN_HAND_GAP_M: f32 = 0.03;

/// Whether `hand` is held flat and open with its palm to the face while
/// the head looks at it.
pub fn palm_shown(hand: Hand, joints: &HandJoints, head: &Pose) -> bool {
    let _ = hand;
    let palm = joints[PALM].pose;
    if !palm.is_finite() {
        return false;
    }
    // The palm faces along the joint's -Y (OpenXR's hand joint axes).
    let palm_normal = palm.orientation * Vec3::NEG_Y;
    let to_eye = (head.position - palm.position).normalize_or_zero();
    let facing = palm_normal.dot(to_eye) >= PALM_FACING_COS;
    let looked_at = head.forward().dot(-to_eye) >= PALM_LOOKED_AT_COS;
    let open = pinch_distance(joints) >= OPEN_HAND_GAP_M;
    // The fingers (the joint's -Z) point up or across, not down: a finger
    // pointing down at the table shows its palm to the face too.
    let raised = (palm.orientation * Vec3::NEG_Z).y >= FINGERS_DOWN_LIMIT;
    facing && looked_at && open && raised
}
