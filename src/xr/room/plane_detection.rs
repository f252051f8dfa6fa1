//! The room's surfaces from XR_EXT_plane_detection (other headsets than
//! HoloLens 2, which has XR_MSFT_scene_understanding instead): a plane
//! detector that asks once for the upward-facing planes around the head
//! and hands them to the app, retrying after a passing error.
//!
//! The extension's planes lie in their pose's X-Z plane with extents along
//! X and Z; [`Surface::from_detected_plane`] turns them into the app's
//! convention.
use std::sync::Arc;

use openxr as xr;
use xr::sys::Handle as _;

use crate::app::Surface;
use crate::xr::convert::pose_from_xr;
use crate::xr::error::{XrError, xr_call};
use crate::xr::room::surface_search::Search;
use crate::xr::runtime::calls::calling;

/// The name of the extension.
pub const EXTENSION_NAME: &str = "XR_EXT_plane_detection";

/// Edge of the box around the head planes are looked for in, metres: past
/// the gaze's 4 m reach either way.
const BOX_EDGE_M: f32 = 10.0;
/// Most planes asked for.
const MAX_PLANES: u32 = 64;

/// A plane detector that finds the room's upward planes.
pub struct PlaneDetector {
    /// The extension's functions.
    functions: xr::raw::PlaneDetectionEXT,
    /// The detector, destroyed in `Drop`.
    detector: xr::sys::PlaneDetectorEXT,
}

impl PlaneDetector {
    /// A detector on `session`; `Ok(None)` when the instance lacks the
    /// extension or the system cannot detect planes.
    pub fn create<G: xr::Graphics>(session: &xr::Session<G>) -> Result<Option<Self>, XrError> {
        let Some(functions) = session.instance().exts().ext_plane_detection else {
            return Ok(None);
        };
        let info = xr::sys::PlaneDetectorCreateInfoEXT {
            ty: xr::sys::PlaneDetectorCreateInfoEXT::TYPE,
            next: std::ptr::null(),
            flags: xr::sys::PlaneDetectorFlagsEXT::EMPTY,
        };
        let mut detector = xr::sys::PlaneDetectorEXT::NULL;
        // SAFETY: the session is live and the extension enabled (its table
        // exists); `info` and `detector` outlive the call.
        let result =
            unsafe { (functions.create_plane_detector)(session.as_raw(), &info, &mut detector) };
        if result == xr::sys::Result::ERROR_FEATURE_UNSUPPORTED {
            log::info!("{EXTENSION_NAME} is offered, but this system detects no planes");
            return Ok(None);
        }
        if result.into_raw() < 0 {
            return Err(xr_call("xrCreatePlaneDetectorEXT")(result));
        }
        Ok(Some(PlaneDetector {
            functions,
            detector,
        }))
    }

    /// Asks for the upward planes in a box around the head.
    pub fn begin(&self, head: &xr::Space, time: xr::Time) -> Result<(), XrError> {
        let orientations = [xr::sys::PlaneDetectorOrientationEXT::HORIZONTAL_UPWARD];
        let info = xr::sys::PlaneDetectorBeginInfoEXT {
            ty: xr::sys::PlaneDetectorBeginInfoEXT::TYPE,
            next: std::ptr::null(),
            base_space: head.as_raw(),
            time,
            orientation_count: orientations.len() as u32,
            orientations: orientations.as_ptr(),
            semantic_type_count: 0,
            semantic_types: std::ptr::null(),
            max_planes: MAX_PLANES,
            min_area: 0.0,
            bounding_box_pose: xr::sys::Posef::IDENTITY,
            bounding_box_extent: xr::sys::Extent3DfEXT {
                width: BOX_EDGE_M,
                height: BOX_EDGE_M,
                depth: BOX_EDGE_M,
            },
        };
        calling("xrBeginPlaneDetectionEXT");
        // SAFETY: the detector is live; `info` and what it points at outlive the call.
        let result = unsafe { (self.functions.begin_plane_detection)(self.detector, &info) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrBeginPlaneDetectionEXT")(result));
        }
        Ok(())
    }

    /// Where the detection stands; the planes once it is done.
    pub fn poll(&self, base: &xr::Space, time: xr::Time) -> Result<Search, XrError> {
        let mut state = xr::sys::PlaneDetectionStateEXT::NONE;
        calling("xrGetPlaneDetectionStateEXT");
        // SAFETY: the detector is live; `state` outlives the call.
        let result =
            unsafe { (self.functions.get_plane_detection_state)(self.detector, &mut state) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrGetPlaneDetectionStateEXT")(result));
        }
        Ok(match state {
            xr::sys::PlaneDetectionStateEXT::DONE => Search::Done(Some(self.planes(base, time)?)),
            xr::sys::PlaneDetectionStateEXT::FATAL => {
                log::warn!(
                    "the runtime cannot detect the room's planes; the hologram is placed ahead of the gaze"
                );
                Search::Done(None)
            }
            xr::sys::PlaneDetectionStateEXT::ERROR => Search::Retry,
            _ => Search::Running,
        })
    }

    /// The detected planes, located in `base` at `time`.
    fn planes(&self, base: &xr::Space, time: xr::Time) -> Result<Arc<[Surface]>, XrError> {
        let info = xr::sys::PlaneDetectorGetInfoEXT {
            ty: xr::sys::PlaneDetectorGetInfoEXT::TYPE,
            next: std::ptr::null(),
            base_space: base.as_raw(),
            time,
        };
        let get = |locations: &mut xr::sys::PlaneDetectorLocationsEXT| {
            calling("xrGetPlaneDetectionsEXT");
            // SAFETY: the detector and base space are live; the array
            // `locations` names holds its capacity and outlives the call.
            let result =
                unsafe { (self.functions.get_plane_detections)(self.detector, &info, locations) };
            if result.into_raw() < 0 {
                return Err(xr_call("xrGetPlaneDetectionsEXT")(result));
            }
            Ok(())
        };
        let mut counted = xr::sys::PlaneDetectorLocationsEXT {
            ty: xr::sys::PlaneDetectorLocationsEXT::TYPE,
            next: std::ptr::null_mut(),
            plane_location_capacity_input: 0,
            plane_location_count_output: 0,
            plane_locations: std::ptr::null_mut(),
        };
        get(&mut counted)?;
        let count = counted.plane_location_count_output;
        let empty = xr::sys::PlaneDetectorLocationEXT {
            ty: xr::sys::PlaneDetectorLocationEXT::TYPE,
            next: std::ptr::null_mut(),
            plane_id: 0,
            location_flags: xr::sys::SpaceLocationFlags::EMPTY,
            pose: xr::sys::Posef::IDENTITY,
            extents: xr::sys::Extent2Df::default(),
            orientation: xr::sys::PlaneDetectorOrientationEXT::HORIZONTAL_UPWARD,
            semantic_type: xr::sys::PlaneDetectorSemanticTypeEXT::UNDEFINED,
            polygon_buffer_count: 0,
        };
        let mut planes = vec![empty; count as usize];
        let mut filled = xr::sys::PlaneDetectorLocationsEXT {
            plane_location_capacity_input: count,
            plane_locations: planes.as_mut_ptr(),
            ..counted
        };
        if count > 0 {
            get(&mut filled)?;
        }
        let found = filled.plane_location_count_output.min(count) as usize;
        let valid = xr::sys::SpaceLocationFlags::POSITION_VALID
            | xr::sys::SpaceLocationFlags::ORIENTATION_VALID;
        Ok(planes[..found]
            .iter()
            .filter(|plane| plane.location_flags.contains(valid))
            .map(|plane| {
                Surface::from_detected_plane(
                    pose_from_xr(plane.pose),
                    plane.extents.width,
                    plane.extents.height,
                )
            })
            .collect())
    }
}

impl Drop for PlaneDetector {
    fn drop(&mut self) {
        calling("xrDestroyPlaneDetectorEXT");
        // SAFETY: the detector was made on a session that outlives it (it is
        // one of the session's parts, dropped before it).
        unsafe { (self.functions.destroy_plane_detector)(self.detector) };
    }
}
