//! The room's surfaces from XR_MSFT_scene_understanding (HoloLens 2): the
//! declarations openxr-sys 0.14 lacks (it has the handles and structure
//! types, not the structures or functions), and a scene observer that
//! computes the planes once, asynchronously, and hands them to the app;
//! with XR_MSFT_scene_marker, an observer of its own computes the QR codes
//! in sight again and again ([`super::markers`]).
//!
//! The declarations are `sys/scene_understanding.rs`'s.
use std::collections::HashMap;
use std::sync::Arc;

use openxr as xr;
use xr::sys::Handle as _;

use crate::app::Surface;
use crate::xr::convert::pose_from_xr;
use crate::xr::error::{XrError, xr_call};
use crate::xr::room::surface_search::Search;
use crate::xr::runtime::calls::calling;
use crate::xr::runtime::extension_fns::load;
use crate::xr::sys::scene_understanding::*;

/// How far around the head the scene is computed, metres: past the gaze's
/// 4 m reach.
const BOUNDS_RADIUS_M: f32 = 5.0;

/// The extension's functions the app calls.
#[derive(Clone, Copy)]
struct Functions {
    create_scene_observer: CreateSceneObserverFn,
    destroy_scene_observer: DestroySceneObserverFn,
    create_scene: CreateSceneFn,
    destroy_scene: DestroySceneFn,
    compute_new_scene: ComputeNewSceneFn,
    get_scene_compute_state: GetSceneComputeStateFn,
    get_scene_components: GetSceneComponentsFn,
    locate_scene_components: LocateSceneComponentsFn,
}

impl Functions {
    /// Looks them up.
    ///
    /// # Safety
    /// The instance must have XR_MSFT_scene_understanding enabled.
    unsafe fn load(instance: &xr::Instance) -> Result<Self, XrError> {
        // SAFETY: each type is the header's for its name; the caller
        // enabled the extension.
        unsafe {
            Ok(Functions {
                create_scene_observer: load(instance, c"xrCreateSceneObserverMSFT")?,
                destroy_scene_observer: load(instance, c"xrDestroySceneObserverMSFT")?,
                create_scene: load(instance, c"xrCreateSceneMSFT")?,
                destroy_scene: load(instance, c"xrDestroySceneMSFT")?,
                compute_new_scene: load(instance, c"xrComputeNewSceneMSFT")?,
                get_scene_compute_state: load(instance, c"xrGetSceneComputeStateMSFT")?,
                get_scene_components: load(instance, c"xrGetSceneComponentsMSFT")?,
                locate_scene_components: load(instance, c"xrLocateSceneComponentsMSFT")?,
            })
        }
    }
}

/// XR_MSFT_scene_marker's function the app calls.
#[derive(Clone, Copy)]
struct MarkerFunctions {
    get_decoded_string: GetSceneMarkerDecodedStringFn,
}

/// A QR code as a computed scene has it, in the specification's QR code
/// convention (`sys::scene_understanding::SceneMarker`).
#[derive(Debug, Clone, PartialEq)]
pub struct SceneQrCode {
    /// Its text.
    pub text: String,
    /// Its pose: the top-left corner, X right, Y down the code, +Z into it.
    pub pose: crate::input::Pose,
    /// The centre of its image in the pose's X-Y plane, metres.
    pub center: glam::Vec2,
    /// Its image's width (X) and height (Y), metres.
    pub size: glam::Vec2,
    /// When it was last seen (`lastSeenTime`), nanoseconds.
    pub last_seen_ns: i64,
}

/// What the runtime says of a computation of the QR codes in sight.
pub enum MarkerSearch {
    /// Still computing.
    Running,
    /// Over: the codes, or `None` when the runtime could not compute them.
    Done(Option<Vec<SceneQrCode>>),
}

/// A scene observer that computes the room's planes (or, made with
/// [`SceneObserver::create_for_markers`], its QR codes).
pub struct SceneObserver {
    /// The extension's functions.
    functions: Functions,
    /// XR_MSFT_scene_marker's, when it observes markers.
    marker_functions: Option<MarkerFunctions>,
    /// The observer, destroyed in `Drop`.
    observer: xr::sys::SceneObserverMSFT,
}

impl SceneObserver {
    /// An observer of the room's planes on `session`, whose instance has
    /// the extension enabled.
    pub fn create<G: xr::Graphics>(session: &xr::Session<G>) -> Result<Self, XrError> {
        Self::create_with(session, None)
    }

    /// An observer of the QR codes in sight on `session`, whose instance
    /// has XR_MSFT_scene_understanding and XR_MSFT_scene_marker enabled.
    pub fn create_for_markers<G: xr::Graphics>(session: &xr::Session<G>) -> Result<Self, XrError> {
        // SAFETY: the caller's instance enabled XR_MSFT_scene_marker.
        let get_decoded_string =
            unsafe { load(session.instance(), c"xrGetSceneMarkerDecodedStringMSFT") }?;
        Self::create_with(session, Some(MarkerFunctions { get_decoded_string }))
    }

    /// An observer on `session` with `marker_functions` when it observes markers.
    fn create_with<G: xr::Graphics>(
        session: &xr::Session<G>,
        marker_functions: Option<MarkerFunctions>,
    ) -> Result<Self, XrError> {
        // SAFETY: the caller's instance enabled XR_MSFT_scene_understanding.
        let functions = unsafe { Functions::load(session.instance()) }?;
        let info = SceneObserverCreateInfo {
            ty: xr::sys::StructureType::SCENE_OBSERVER_CREATE_INFO_MSFT,
            next: std::ptr::null(),
        };
        let mut observer = xr::sys::SceneObserverMSFT::NULL;
        // SAFETY: the session is live; `info` and `observer` outlive the call.
        let result =
            unsafe { (functions.create_scene_observer)(session.as_raw(), &info, &mut observer) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrCreateSceneObserverMSFT")(result));
        }
        Ok(SceneObserver {
            functions,
            marker_functions,
            observer,
        })
    }

    /// Asks for a complete snapshot of what it observes (the planes, or the
    /// QR codes) within [`BOUNDS_RADIUS_M`] of the head.
    pub fn begin(&self, head: &xr::Space, time: xr::Time) -> Result<(), XrError> {
        let features = [match self.marker_functions {
            Some(_) => COMPUTE_FEATURE_MARKER,
            None => COMPUTE_FEATURE_PLANE,
        }];
        let sphere = SceneSphereBound {
            center: xr::sys::Vector3f::default(),
            radius: BOUNDS_RADIUS_M,
        };
        let info = NewSceneComputeInfo {
            ty: xr::sys::StructureType::NEW_SCENE_COMPUTE_INFO_MSFT,
            next: std::ptr::null(),
            requested_feature_count: features.len() as u32,
            requested_features: features.as_ptr(),
            consistency: CONSISTENCY_SNAPSHOT_COMPLETE,
            bounds: SceneBounds {
                space: head.as_raw(),
                time,
                sphere_count: 1,
                spheres: &sphere,
                box_count: 0,
                boxes: std::ptr::null(),
                frustum_count: 0,
                frustums: std::ptr::null(),
            },
        };
        calling("xrComputeNewSceneMSFT");
        // SAFETY: the observer is live; `info` and what it points at outlive the call.
        let result = unsafe { (self.functions.compute_new_scene)(self.observer, &info) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrComputeNewSceneMSFT")(result));
        }
        Ok(())
    }

    /// The computation's state (XrSceneComputeStateMSFT).
    fn compute_state(&self) -> Result<i32, XrError> {
        let mut state = COMPUTE_STATE_NONE;
        calling("xrGetSceneComputeStateMSFT");
        // SAFETY: the observer is live; `state` outlives the call.
        let result = unsafe { (self.functions.get_scene_compute_state)(self.observer, &mut state) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrGetSceneComputeStateMSFT")(result));
        }
        Ok(state)
    }

    /// Where a computation of the QR codes stands; the codes once it is
    /// complete, located in `base` at `time`. `texts` keeps each marker's
    /// text by id (`None`: it holds no text), so each is fetched once.
    pub fn poll_markers(
        &self,
        base: &xr::Space,
        time: xr::Time,
        texts: &mut HashMap<[u8; 16], Option<String>>,
    ) -> Result<MarkerSearch, XrError> {
        Ok(match self.compute_state()? {
            COMPUTE_STATE_COMPLETED => {
                let scene = self.create_scene()?;
                let markers = self.read_markers(scene, base, time, texts);
                self.destroy_scene(scene);
                MarkerSearch::Done(Some(markers?))
            }
            COMPUTE_STATE_COMPLETED_WITH_ERROR => MarkerSearch::Done(None),
            _ => MarkerSearch::Running,
        })
    }

    /// Where the computation stands; the planes once it is complete.
    pub fn poll(&self, base: &xr::Space, time: xr::Time) -> Result<Search, XrError> {
        let state = self.compute_state()?;
        Ok(match state {
            COMPUTE_STATE_COMPLETED => Search::Done(Some(self.planes(base, time)?)),
            COMPUTE_STATE_COMPLETED_WITH_ERROR => {
                log::warn!(
                    "the runtime could not compute the room's surfaces; the hologram is placed ahead of the gaze"
                );
                Search::Done(None)
            }
            _ => Search::Running,
        })
    }

    /// The completed computation's scene.
    fn create_scene(&self) -> Result<xr::sys::SceneMSFT, XrError> {
        let info = SceneCreateInfo {
            ty: xr::sys::StructureType::SCENE_CREATE_INFO_MSFT,
            next: std::ptr::null(),
        };
        let mut scene = xr::sys::SceneMSFT::NULL;
        calling("xrCreateSceneMSFT");
        // SAFETY: the observer is live and its computation completed.
        let result = unsafe { (self.functions.create_scene)(self.observer, &info, &mut scene) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrCreateSceneMSFT")(result));
        }
        Ok(scene)
    }

    /// Destroys a scene [`Self::create_scene`] made.
    fn destroy_scene(&self, scene: xr::sys::SceneMSFT) {
        calling("xrDestroySceneMSFT");
        // SAFETY: the scene was made by create_scene and nothing else refers to it.
        unsafe { (self.functions.destroy_scene)(scene) };
    }

    /// The computed scene's planes, located in `base` at `time`.
    fn planes(&self, base: &xr::Space, time: xr::Time) -> Result<Arc<[Surface]>, XrError> {
        let scene = self.create_scene()?;
        let planes = self.read_planes(scene, base, time);
        self.destroy_scene(scene);
        planes
    }

    /// The QR code components of `scene`, their properties, texts and
    /// where they are; markers that are no QR code or hold no text are
    /// left out, as are those the runtime cannot locate.
    fn read_markers(
        &self,
        scene: xr::sys::SceneMSFT,
        base: &xr::Space,
        time: xr::Time,
        texts: &mut HashMap<[u8; 16], Option<String>>,
    ) -> Result<Vec<SceneQrCode>, XrError> {
        let get_info = SceneComponentsGetInfo {
            ty: xr::sys::StructureType::SCENE_COMPONENTS_GET_INFO_MSFT,
            next: std::ptr::null(),
            component_type: COMPONENT_TYPE_MARKER,
        };
        let get = |components: &mut SceneComponents| {
            calling("xrGetSceneComponentsMSFT");
            // SAFETY: the scene is live; the arrays `components` names hold
            // its capacity and outlive the call.
            let result =
                unsafe { (self.functions.get_scene_components)(scene, &get_info, components) };
            if result.into_raw() < 0 {
                return Err(xr_call("xrGetSceneComponentsMSFT")(result));
            }
            Ok(())
        };
        let mut counted = SceneComponents {
            ty: xr::sys::StructureType::SCENE_COMPONENTS_MSFT,
            next: std::ptr::null_mut(),
            component_capacity_input: 0,
            component_count_output: 0,
            components: std::ptr::null_mut(),
        };
        get(&mut counted)?;
        let count = counted.component_count_output;
        if count == 0 {
            return Ok(Vec::new());
        }
        let mut components = vec![
            SceneComponent {
                component_type: 0,
                id: UuidMsft::default(),
                parent_id: UuidMsft::default(),
                update_time: xr::sys::Time::from_nanos(0),
            };
            count as usize
        ];
        let mut markers = vec![
            SceneMarker {
                marker_type: 0,
                last_seen_time: xr::sys::Time::from_nanos(0),
                center: xr::sys::Offset2Df::default(),
                size: xr::sys::Extent2Df::default(),
            };
            count as usize
        ];
        let mut marker_list = SceneMarkers {
            ty: xr::sys::StructureType::SCENE_MARKERS_MSFT,
            next: std::ptr::null(),
            scene_marker_capacity_input: count,
            scene_markers: markers.as_mut_ptr(),
        };
        let mut filled = SceneComponents {
            ty: xr::sys::StructureType::SCENE_COMPONENTS_MSFT,
            next: (&raw mut marker_list).cast(),
            component_capacity_input: count,
            component_count_output: 0,
            components: components.as_mut_ptr(),
        };
        get(&mut filled)?;
        let found = filled.component_count_output.min(count) as usize;
        let mut codes: Vec<(UuidMsft, SceneMarker, String)> = Vec::new();
        for (component, marker) in components[..found].iter().zip(&markers) {
            if marker.marker_type != MARKER_TYPE_QR_CODE {
                continue;
            }
            let text = match texts.get(&component.id.bytes) {
                Some(text) => text.clone(),
                None => {
                    let text = self.decoded_string(scene, &component.id)?;
                    texts.insert(component.id.bytes, text.clone());
                    text
                }
            };
            if let Some(text) = text {
                codes.push((component.id, *marker, text));
            }
        }
        if codes.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<UuidMsft> = codes.iter().map(|(id, _, _)| *id).collect();
        let locations = self.locate(scene, base, time, &ids)?;
        let valid = xr::sys::SpaceLocationFlags::POSITION_VALID
            | xr::sys::SpaceLocationFlags::ORIENTATION_VALID;
        Ok(codes
            .into_iter()
            .zip(&locations)
            .filter(|(_, location)| location.flags.contains(valid))
            .map(|((_, marker, text), location)| SceneQrCode {
                text,
                pose: pose_from_xr(location.pose),
                center: glam::Vec2::new(marker.center.x, marker.center.y),
                size: glam::Vec2::new(marker.size.width, marker.size.height),
                last_seen_ns: marker.last_seen_time.as_nanos(),
            })
            .collect())
    }

    /// The text marker `id` of `scene` holds (UTF-8, by the two-call
    /// idiom); `None` when its data is no string, or no UTF-8.
    fn decoded_string(
        &self,
        scene: xr::sys::SceneMSFT,
        id: &UuidMsft,
    ) -> Result<Option<String>, XrError> {
        let Some(functions) = self.marker_functions else {
            return Ok(None);
        };
        let call = |capacity: u32, count: &mut u32, buffer: *mut std::ffi::c_char| {
            calling("xrGetSceneMarkerDecodedStringMSFT");
            // SAFETY: the scene is live; `buffer` holds `capacity` bytes
            // (or is NULL with 0) and outlives the call.
            let result =
                unsafe { (functions.get_decoded_string)(scene, id, capacity, count, buffer) };
            if result.into_raw() < 0 {
                return Err(xr_call("xrGetSceneMarkerDecodedStringMSFT")(result));
            }
            Ok(result)
        };
        let mut count = 0;
        if call(0, &mut count, std::ptr::null_mut())?
            == xr::sys::Result::SCENE_MARKER_DATA_NOT_STRING_MSFT
            || count <= 1
        {
            return Ok(None);
        }
        let mut buffer = vec![0u8; count as usize];
        let result = call(count, &mut count, buffer.as_mut_ptr().cast())?;
        if result == xr::sys::Result::SCENE_MARKER_DATA_NOT_STRING_MSFT {
            return Ok(None);
        }
        buffer.truncate(count as usize);
        Ok(std::ffi::CStr::from_bytes_until_nul(&buffer)
            .ok()
            .and_then(|text| text.to_str().ok())
            .map(str::to_owned))
    }

    /// Where components `ids` of `scene` are, in `base` at `time`.
    fn locate(
        &self,
        scene: xr::sys::SceneMSFT,
        base: &xr::Space,
        time: xr::Time,
        ids: &[UuidMsft],
    ) -> Result<Vec<SceneComponentLocation>, XrError> {
        let mut locations = vec![
            SceneComponentLocation {
                flags: xr::sys::SpaceLocationFlags::EMPTY,
                pose: xr::sys::Posef::IDENTITY,
            };
            ids.len()
        ];
        let locate_info = SceneComponentsLocateInfo {
            ty: xr::sys::StructureType::SCENE_COMPONENTS_LOCATE_INFO_MSFT,
            next: std::ptr::null(),
            base_space: base.as_raw(),
            time,
            component_id_count: ids.len() as u32,
            component_ids: ids.as_ptr(),
        };
        let mut located = SceneComponentLocations {
            ty: xr::sys::StructureType::SCENE_COMPONENT_LOCATIONS_MSFT,
            next: std::ptr::null_mut(),
            location_count: ids.len() as u32,
            locations: locations.as_mut_ptr(),
        };
        calling("xrLocateSceneComponentsMSFT");
        // SAFETY: the scene and base space are live; `ids` and `locations`
        // hold as many elements and outlive the call.
        let result =
            unsafe { (self.functions.locate_scene_components)(scene, &locate_info, &mut located) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrLocateSceneComponentsMSFT")(result));
        }
        Ok(locations)
    }

    /// The plane components of `scene` and where they are.
    fn read_planes(
        &self,
        scene: xr::sys::SceneMSFT,
        base: &xr::Space,
        time: xr::Time,
    ) -> Result<Arc<[Surface]>, XrError> {
        let get_info = SceneComponentsGetInfo {
            ty: xr::sys::StructureType::SCENE_COMPONENTS_GET_INFO_MSFT,
            next: std::ptr::null(),
            component_type: COMPONENT_TYPE_PLANE,
        };
        let mut counted = SceneComponents {
            ty: xr::sys::StructureType::SCENE_COMPONENTS_MSFT,
            next: std::ptr::null_mut(),
            component_capacity_input: 0,
            component_count_output: 0,
            components: std::ptr::null_mut(),
        };
        let get = |components: &mut SceneComponents| {
            calling("xrGetSceneComponentsMSFT");
            // SAFETY: the scene is live; the arrays `components` names hold
            // its capacity and outlive the call.
            let result =
                unsafe { (self.functions.get_scene_components)(scene, &get_info, components) };
            if result.into_raw() < 0 {
                return Err(xr_call("xrGetSceneComponentsMSFT")(result));
            }
            Ok(())
        };
        get(&mut counted)?;
        let count = counted.component_count_output;
        if count == 0 {
            return Ok(Arc::from([]));
        }
        let empty_component = SceneComponent {
            component_type: 0,
            id: UuidMsft::default(),
            parent_id: UuidMsft::default(),
            update_time: xr::sys::Time::from_nanos(0),
        };
        let mut components = vec![empty_component; count as usize];
        let mut planes = vec![
            ScenePlane {
                alignment: 0,
                size: xr::sys::Extent2Df::default(),
                mesh_buffer_id: 0,
                supports_indices_uint16: xr::sys::FALSE,
            };
            count as usize
        ];
        let mut plane_list = ScenePlanes {
            ty: xr::sys::StructureType::SCENE_PLANES_MSFT,
            next: std::ptr::null_mut(),
            scene_plane_count: count,
            scene_planes: planes.as_mut_ptr(),
        };
        let mut filled = SceneComponents {
            ty: xr::sys::StructureType::SCENE_COMPONENTS_MSFT,
            next: (&raw mut plane_list).cast(),
            component_capacity_input: count,
            component_count_output: 0,
            components: components.as_mut_ptr(),
        };
        get(&mut filled)?;
        let found = filled.component_count_output.min(count) as usize;
        let ids: Vec<UuidMsft> = components[..found].iter().map(|c| c.id).collect();
        let mut locations = vec![
            SceneComponentLocation {
                flags: xr::sys::SpaceLocationFlags::EMPTY,
                pose: xr::sys::Posef::IDENTITY,
            };
            found
        ];
        let locate_info = SceneComponentsLocateInfo {
            ty: xr::sys::StructureType::SCENE_COMPONENTS_LOCATE_INFO_MSFT,
            next: std::ptr::null(),
            base_space: base.as_raw(),
            time,
            component_id_count: found as u32,
            component_ids: ids.as_ptr(),
        };
        let mut located = SceneComponentLocations {
            ty: xr::sys::StructureType::SCENE_COMPONENT_LOCATIONS_MSFT,
            next: std::ptr::null_mut(),
            location_count: found as u32,
            locations: locations.as_mut_ptr(),
        };
        calling("xrLocateSceneComponentsMSFT");
        // SAFETY: the scene and base space are live; `ids` and `locations`
        // hold `found` elements and outlive the call.
        let result =
            unsafe { (self.functions.locate_scene_components)(scene, &locate_info, &mut located) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrLocateSceneComponentsMSFT")(result));
        }
        let valid = xr::sys::SpaceLocationFlags::POSITION_VALID
            | xr::sys::SpaceLocationFlags::ORIENTATION_VALID;
        Ok(planes[..found]
            .iter()
            .zip(&locations)
            .filter(|(_, location)| location.flags.contains(valid))
            .map(|(plane, location)| {
                Surface::from_scene_plane(
                    pose_from_xr(location.pose),
                    plane.size.width,
                    plane.size.height,
                )
            })
            .collect())
    }
}

impl Drop for SceneObserver {
    fn drop(&mut self) {
        calling("xrDestroySceneObserverMSFT");
        // SAFETY: the observer was made on a session that outlives it (the
        // observer is one of the session's parts, dropped before it), and
        // no scene made from it is alive.
        unsafe { (self.functions.destroy_scene_observer)(self.observer) };
    }
}
