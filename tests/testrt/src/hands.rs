//! XR_EXT_hand_tracking: hand trackers and their 26 joints with radii, as
//! the simulator's user poses them (`holoterrain::sim::user::hand_joints`).

use holoterrain::input::{Hand, JOINT_COUNT};
use openxr_sys as xr;
use xr::Handle as _;

use crate::spaces::{check_time, locate_in_room, location_flags, pose_to_xr, relative};
use crate::state::{Failure, invalid, lookup, new_handle, with_runtime};
use crate::structs::{bool32, check_chain, find_in_chain, input, out_value, output};

/// A hand tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandTracker {
    /// The session it belongs to.
    pub session: u64,
    /// The hand it tracks.
    pub hand: Hand,
}

/// xrCreateHandTrackerEXT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_hand_tracker(
    session: xr::Session,
    create_info: *const xr::HandTrackerCreateInfoEXT,
    hand_tracker: *mut xr::HandTrackerEXT,
) -> xr::Result {
    with_runtime("xrCreateHandTrackerEXT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        let hand = match info.hand {
            xr::HandEXT::LEFT => Hand::Left,
            xr::HandEXT::RIGHT => Hand::Right,
            other => return Err(invalid(format!("hand {other:?} is not an XrHandEXT"))),
        };
        if info.hand_joint_set != xr::HandJointSetEXT::DEFAULT {
            return Err(invalid(format!(
                "handJointSet {:?}: this system has the default joint set only",
                info.hand_joint_set
            )));
        }
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(hand_tracker, "handTracker") }?;
        let handle = new_handle();
        runtime
            .hand_trackers
            .insert(handle, HandTracker { session, hand });
        *output = xr::HandTrackerEXT::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroyHandTrackerEXT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_hand_tracker(hand_tracker: xr::HandTrackerEXT) -> xr::Result {
    with_runtime("xrDestroyHandTrackerEXT", |runtime| {
        lookup(
            &runtime.hand_trackers,
            hand_tracker.into_raw(),
            "XrHandTrackerEXT",
        )?;
        runtime.hand_trackers.remove(&hand_tracker.into_raw());
        Ok(xr::Result::SUCCESS)
    })
}

/// xrLocateHandJointsEXT: the wearer's joints at the time asked, in the
/// base space (velocities, when chained, are reported unknown).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn locate_hand_joints(
    hand_tracker: xr::HandTrackerEXT,
    locate_info: *const xr::HandJointsLocateInfoEXT,
    locations: *mut xr::HandJointLocationsEXT,
) -> xr::Result {
    with_runtime("xrLocateHandJointsEXT", |runtime| {
        let tracker = *lookup(
            &runtime.hand_trackers,
            hand_tracker.into_raw(),
            "XrHandTrackerEXT",
        )?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(locate_info, "locateInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "locateInfo") }?;
        let base = *lookup(&runtime.spaces, info.base_space.into_raw(), "XrSpace")?;
        if base.session != tracker.session {
            return Err(invalid("locateInfo.baseSpace belongs to another session"));
        }
        check_time(info.time, "locateInfo.time")?;
        // SAFETY: the application's output pointer.
        let locations = unsafe { output(locations, "locations") }?;
        // SAFETY: the chain is the application's.
        unsafe {
            check_chain(
                locations.next,
                &[xr::StructureType::HAND_JOINT_VELOCITIES_EXT],
                "locations",
            )
        }?;
        if locations.joint_count as usize != JOINT_COUNT || locations.joint_locations.is_null() {
            return Err(invalid(format!(
                "locations.jointCount is {}; the default joint set has {JOINT_COUNT} joints",
                locations.joint_count
            )));
        }
        let time_ns = info.time.as_nanos();
        let base_pose = locate_in_room(runtime, &base, time_ns);
        let joints = runtime.wearer.at(time_ns).hands[tracker.hand.index()].joints;
        // SAFETY: the application gives jointCount (26) writable locations.
        let slots =
            unsafe { std::slice::from_raw_parts_mut(locations.joint_locations, JOINT_COUNT) };
        let tracked = base_pose.zip(joints);
        for (index, slot) in slots.iter_mut().enumerate() {
            *slot = match tracked {
                Some((base, joints)) => xr::HandJointLocationEXT {
                    location_flags: location_flags(true),
                    pose: pose_to_xr(&relative(&base, &joints[index].pose)),
                    radius: joints[index].radius,
                },
                None => xr::HandJointLocationEXT {
                    location_flags: location_flags(false),
                    pose: xr::Posef::IDENTITY,
                    radius: 0.0,
                },
            };
        }
        locations.is_active = bool32(tracked.is_some());
        // SAFETY: the chain is the application's, its structures writable.
        let velocities = unsafe { find_in_chain::<xr::HandJointVelocitiesEXT>(locations.next) };
        if let Some(velocities) = velocities {
            if velocities.joint_count as usize != JOINT_COUNT
                || velocities.joint_velocities.is_null()
            {
                return Err(Failure::violation(
                    xr::Result::ERROR_VALIDATION_FAILURE,
                    "the chained velocities' jointCount must match the joint set's 26",
                ));
            }
            // SAFETY: the application gives jointCount (26) writable velocities.
            let velocities =
                unsafe { std::slice::from_raw_parts_mut(velocities.joint_velocities, JOINT_COUNT) };
            for velocity in velocities {
                velocity.velocity_flags = xr::SpaceVelocityFlags::EMPTY;
            }
        }
        Ok(xr::Result::SUCCESS)
    })
}
