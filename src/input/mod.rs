//! Gesture recognisers (pinch, tap versus hold, direct tap, controller select and squeeze) and the plain pose math they use; no GPU or XR types.
//!
//! Every recogniser turns a per-frame stream of tracking data into at most one
//! event per gesture. They share one rule for lost tracking: a frame without
//! valid data cancels a gesture in progress, and a new gesture can start only
//! after the hand (or button) has been seen released again with valid data.
//! So a tracking drop-out can neither fire a second event nor leave a
//! recogniser stuck in a pressed state.

pub mod geometry;
pub mod hand;
pub mod hold;
pub mod pinch;
pub mod select;
pub mod tap;

pub use geometry::{Aabb, Pose, Ray};
pub use hand::{Hand, HandJoints, JOINT_COUNT, Joint};
pub use hold::{HoldEvent, HoldRecognizer, Press, TAP_MAX_DURATION_NS, TAP_MAX_TRAVEL_M};
pub use pinch::{PINCH_END_M, PINCH_START_M, PinchTracker};
pub use select::SelectRecognizer;
pub use tap::{SurfaceProbe, TAP_PRESS_DEPTH_M, TAP_RELEASE_HEIGHT_M, Tap, TapRecognizer};
