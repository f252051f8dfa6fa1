//! The room's surfaces from XR_MSFT_scene_understanding (HoloLens 2): the
//! declarations openxr-sys 0.14 lacks (it has the handles and structure
//! types, not the structures or functions), and a scene observer that
//! computes the planes once, asynchronously, and hands them to the app.
//!
//! The declarations are `sys/scene_understanding.rs`'s.
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

/// A scene observer that computes the room's planes.
pub struct SceneObserver {
    /// The extension's functions.
    functions: Functions,
    /// The observer, destroyed in `Drop`.
    observer: xr::sys::SceneObserverMSFT,
}

impl SceneObserver {
    /// An observer on `session`, whose instance has the extension enabled.
    pub fn create<G: xr::Graphics>(session: &xr::Session<G>) -> Result<Self, XrError> {
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
            observer,
        })
    }

    /// Asks for a complete snapshot of the planes within [`BOUNDS_RADIUS_M`] of the head.
    pub fn begin(&self, head: &xr::Space, time: xr::Time) -> Result<(), XrError> {
        let features = [COMPUTE_FEATURE_PLANE];
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

    /// Where the computation stands; the planes once it is complete.
    pub fn poll(&self, base: &xr::Space, time: xr::Time) -> Result<Search, XrError> {
        let mut state = COMPUTE_STATE_NONE;
        calling("xrGetSceneComputeStateMSFT");
        // SAFETY: the observer is live; `state` outlives the call.
        let result = unsafe { (self.functions.get_scene_compute_state)(self.observer, &mut state) };
        if result.into_raw() < 0 {
            return Err(xr_call("xrGetSceneComputeStateMSFT")(result));
        }
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

    /// The computed scene's planes, located in `base` at `time`.
    fn planes(&self, base: &xr::Space, time: xr::Time) -> Result<Arc<[Surface]>, XrError> {
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
        let planes = self.read_planes(scene, base, time);
        calling("xrDestroySceneMSFT");
        // SAFETY: the scene was made above and nothing else refers to it.
        unsafe { (self.functions.destroy_scene)(scene) };
        planes
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
