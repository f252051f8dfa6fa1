//! XR_MSFT_spatial_anchor: an anchor pins a pose of the room; its space is
//! located there. The emulated room's map never changes, so anchors never
//! drift (a HoloLens 2 refines its map and anchors move with it).

use holoterrain::input::Pose;
use openxr_sys as xr;
use xr::Handle as _;

use crate::layers::check_pose;
use crate::spaces::{
    Space, SpaceKind, add_space, check_time, compose, locate_in_room, pose_from_xr,
};
use crate::state::{Failure, invalid, lookup, new_handle, with_runtime};
use crate::structs::{check_chain, input, out_value};

/// A spatial anchor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anchor {
    /// The session it belongs to.
    pub session: u64,
    /// Where it is in the room.
    pub pose: Pose,
}

/// xrCreateSpatialAnchorMSFT: fails with
/// XR_ERROR_CREATE_SPATIAL_ANCHOR_FAILED_MSFT where the space cannot be
/// located at that time.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_spatial_anchor(
    session: xr::Session,
    create_info: *const xr::SpatialAnchorCreateInfoMSFT,
    anchor: *mut xr::SpatialAnchorMSFT,
) -> xr::Result {
    with_runtime("xrCreateSpatialAnchorMSFT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        let space: Space = *lookup(&runtime.spaces, info.space.into_raw(), "XrSpace")?;
        if space.session != session {
            return Err(invalid("createInfo.space belongs to another session"));
        }
        check_pose(&info.pose, "createInfo.pose")?;
        check_time(info.time, "createInfo.time")?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(anchor, "anchor") }?;
        let located = locate_in_room(runtime, &space, info.time.as_nanos())
            .ok_or_else(|| Failure::quiet(xr::Result::ERROR_CREATE_SPATIAL_ANCHOR_FAILED_MSFT))?;
        let handle = new_handle();
        runtime.anchors.insert(
            handle,
            Anchor {
                session,
                pose: compose(&located, &pose_from_xr(info.pose)),
            },
        );
        *output = xr::SpatialAnchorMSFT::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrCreateSpatialAnchorSpaceMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_spatial_anchor_space(
    session: xr::Session,
    create_info: *const xr::SpatialAnchorSpaceCreateInfoMSFT,
    space: *mut xr::Space,
) -> xr::Result {
    with_runtime("xrCreateSpatialAnchorSpaceMSFT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        let anchor = *lookup(
            &runtime.anchors,
            info.anchor.into_raw(),
            "XrSpatialAnchorMSFT",
        )?;
        if anchor.session != session {
            return Err(invalid("createInfo.anchor belongs to another session"));
        }
        check_pose(&info.pose_in_anchor_space, "createInfo.poseInAnchorSpace")?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(space, "space") }?;
        let handle = add_space(
            runtime,
            Space {
                session,
                kind: SpaceKind::Anchor(anchor.pose),
                offset: pose_from_xr(info.pose_in_anchor_space),
            },
        );
        *output = xr::Space::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroySpatialAnchorMSFT (spaces made from it stay where it was).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_spatial_anchor(anchor: xr::SpatialAnchorMSFT) -> xr::Result {
    with_runtime("xrDestroySpatialAnchorMSFT", |runtime| {
        lookup(&runtime.anchors, anchor.into_raw(), "XrSpatialAnchorMSFT")?;
        runtime.anchors.remove(&anchor.into_raw());
        Ok(xr::Result::SUCCESS)
    })
}
