//! XR_EXT_plane_detection, offered instead of scene understanding with
//! `HOLOTERRAIN_TESTRT_PLANES=ext` (as headsets other than HoloLens 2 do):
//! the room's surfaces are upward planes in the room's own axes
//! ([`holoterrain::sim::room::RoomSurface::detected_plane_pose`]). A
//! detection is done as soon as it begins; planes have no polygon buffers.

use holoterrain::sim::room::RoomSurface;
use openxr_sys as xr;
use xr::Handle as _;

use crate::spaces::{Space, check_time, locate_in_room, location_flags, pose_to_xr, relative};
use crate::state::{
    Failure, XrResult, invalid, lookup, lookup_mut, new_handle, out_of_order, with_runtime,
};
use crate::structs::{check_chain, input, out_value, output, two_call_typed};

/// A plane detector.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaneDetector {
    /// The session it belongs to.
    pub session: u64,
    /// The planes of the last detection (its ids and surfaces), once one began.
    detected: Option<Vec<(u64, RoomSurface)>>,
}

/// Fails unless `count` elements at `pointer` are given whenever `count` is not 0.
fn check_array<T>(count: u32, pointer: *const T, what: &str) -> XrResult {
    if count > 0 && pointer.is_null() {
        return Err(invalid(format!("{what} is NULL with a count of {count}")));
    }
    Ok(())
}

/// xrCreatePlaneDetectorEXT: no contours (this system cannot make them).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_plane_detector(
    session: xr::Session,
    create_info: *const xr::PlaneDetectorCreateInfoEXT,
    detector: *mut xr::PlaneDetectorEXT,
) -> xr::Result {
    with_runtime("xrCreatePlaneDetectorEXT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        if info
            .flags
            .contains(xr::PlaneDetectorFlagsEXT::ENABLE_CONTOUR)
        {
            return Err(Failure::quiet(xr::Result::ERROR_FEATURE_UNSUPPORTED));
        }
        if info.flags != xr::PlaneDetectorFlagsEXT::EMPTY {
            return Err(invalid("createInfo.flags holds unknown bits"));
        }
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(detector, "planeDetector") }?;
        let handle = new_handle();
        runtime.plane_detectors.insert(
            handle,
            PlaneDetector {
                session,
                detected: None,
            },
        );
        *output = xr::PlaneDetectorEXT::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroyPlaneDetectorEXT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_plane_detector(detector: xr::PlaneDetectorEXT) -> xr::Result {
    with_runtime("xrDestroyPlaneDetectorEXT", |runtime| {
        lookup(
            &runtime.plane_detectors,
            detector.into_raw(),
            "XrPlaneDetectorEXT",
        )?;
        runtime.plane_detectors.remove(&detector.into_raw());
        Ok(xr::Result::SUCCESS)
    })
}

/// xrBeginPlaneDetectionEXT: checks the filters and detects at once.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn begin_plane_detection(
    detector: xr::PlaneDetectorEXT,
    begin_info: *const xr::PlaneDetectorBeginInfoEXT,
) -> xr::Result {
    with_runtime("xrBeginPlaneDetectionEXT", |runtime| {
        let handle = detector.into_raw();
        let session = lookup(&runtime.plane_detectors, handle, "XrPlaneDetectorEXT")?.session;
        // SAFETY: the application's pointers.
        let info = unsafe { input(begin_info, "beginInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "beginInfo") }?;
        let space: Space = *lookup(&runtime.spaces, info.base_space.into_raw(), "XrSpace")?;
        if space.session != session {
            return Err(invalid("beginInfo.baseSpace belongs to another session"));
        }
        check_time(info.time, "beginInfo.time")?;
        if info.max_planes == 0 {
            return Err(invalid("beginInfo.maxPlanes is 0"));
        }
        check_array(
            info.orientation_count,
            info.orientations,
            "beginInfo.orientations",
        )?;
        check_array(
            info.semantic_type_count,
            info.semantic_types,
            "beginInfo.semanticTypes",
        )?;
        let extent = info.bounding_box_extent;
        if ![extent.width, extent.height, extent.depth]
            .iter()
            .all(|side| side.is_finite() && *side >= 0.0)
        {
            return Err(invalid(
                "beginInfo.boundingBoxExtent has a side that is not a distance",
            ));
        }
        if locate_in_room(runtime, &space, info.time.as_nanos()).is_none() {
            return Err(Failure::quiet(xr::Result::ERROR_SPACE_NOT_LOCATABLE_EXT));
        }
        let upward_wanted = info.orientation_count == 0 || {
            // SAFETY: the application gives orientationCount orientations.
            let orientations = unsafe {
                std::slice::from_raw_parts(info.orientations, info.orientation_count as usize)
            };
            orientations.contains(&xr::PlaneDetectorOrientationEXT::HORIZONTAL_UPWARD)
        };
        // The room's planes are all upward and of no semantic type: a
        // semantic filter leaves none of them.
        let detected = if upward_wanted && info.semantic_type_count == 0 {
            runtime
                .config
                .room
                .surfaces
                .iter()
                .enumerate()
                .take(info.max_planes as usize)
                .map(|(index, surface)| (index as u64 + 1, *surface))
                .collect()
        } else {
            Vec::new()
        };
        lookup_mut(&mut runtime.plane_detectors, handle, "XrPlaneDetectorEXT")?.detected =
            Some(detected);
        runtime.record.scene_computes += 1;
        Ok(xr::Result::SUCCESS)
    })
}

/// xrGetPlaneDetectionStateEXT: done once a detection began.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_plane_detection_state(
    detector: xr::PlaneDetectorEXT,
    state: *mut xr::PlaneDetectionStateEXT,
) -> xr::Result {
    with_runtime("xrGetPlaneDetectionStateEXT", |runtime| {
        let found = lookup(
            &runtime.plane_detectors,
            detector.into_raw(),
            "XrPlaneDetectorEXT",
        )?;
        let done = found.detected.is_some();
        // SAFETY: the application's output pointer.
        let state = unsafe { out_value(state, "state") }?;
        *state = if done {
            xr::PlaneDetectionStateEXT::DONE
        } else {
            xr::PlaneDetectionStateEXT::NONE
        };
        Ok(xr::Result::SUCCESS)
    })
}

/// xrGetPlaneDetectionsEXT: the last detection's planes, seen from the base space.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_plane_detections(
    detector: xr::PlaneDetectorEXT,
    get_info: *const xr::PlaneDetectorGetInfoEXT,
    locations: *mut xr::PlaneDetectorLocationsEXT,
) -> xr::Result {
    with_runtime("xrGetPlaneDetectionsEXT", |runtime| {
        let found = lookup(
            &runtime.plane_detectors,
            detector.into_raw(),
            "XrPlaneDetectorEXT",
        )?
        .clone();
        // SAFETY: the application's pointers.
        let info = unsafe { input(get_info, "info") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "info") }?;
        let base: Space = *lookup(&runtime.spaces, info.base_space.into_raw(), "XrSpace")?;
        if base.session != found.session {
            return Err(invalid("info.baseSpace belongs to another session"));
        }
        check_time(info.time, "info.time")?;
        let Some(detected) = found.detected else {
            return Err(out_of_order(
                "no detection is done (xrBeginPlaneDetectionEXT, then DONE from xrGetPlaneDetectionStateEXT)",
            ));
        };
        let Some(base_pose) = locate_in_room(runtime, &base, info.time.as_nanos()) else {
            return Err(Failure::quiet(xr::Result::ERROR_SPACE_NOT_LOCATABLE_EXT));
        };
        // SAFETY: the application's output pointer.
        let locations = unsafe { output(locations, "locations") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(locations.next, &[], "locations") }?;
        // SAFETY: the application's array, of its stated capacity.
        unsafe {
            two_call_typed(
                locations.plane_location_capacity_input,
                &mut locations.plane_location_count_output,
                locations.plane_locations,
                &detected,
                "planeLocations",
                |slot, (id, surface)| {
                    let pose = relative(&base_pose, &surface.detected_plane_pose());
                    slot.plane_id = *id;
                    slot.location_flags = location_flags(true);
                    slot.pose = pose_to_xr(&pose);
                    slot.extents = xr::Extent2Df {
                        width: surface.width,
                        height: surface.depth,
                    };
                    slot.orientation = xr::PlaneDetectorOrientationEXT::HORIZONTAL_UPWARD;
                    slot.semantic_type = xr::PlaneDetectorSemanticTypeEXT::UNDEFINED;
                    slot.polygon_buffer_count = 0;
                },
            )
        }
    })
}

/// xrGetPlanePolygonBufferEXT: no plane here has a polygon buffer.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_plane_polygon_buffer(
    detector: xr::PlaneDetectorEXT,
    plane_id: u64,
    polygon_buffer_index: u32,
    polygon_buffer: *mut xr::PlaneDetectorPolygonBufferEXT,
) -> xr::Result {
    with_runtime("xrGetPlanePolygonBufferEXT", |runtime| {
        lookup(
            &runtime.plane_detectors,
            detector.into_raw(),
            "XrPlaneDetectorEXT",
        )?;
        // SAFETY: the application's output pointer.
        unsafe { output(polygon_buffer, "polygonBuffer") }?;
        Err(invalid(format!(
            "plane {plane_id} has no polygon buffer {polygon_buffer_index} (its polygonBufferCount is 0)"
        )))
    })
}
