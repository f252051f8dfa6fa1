//! XR_MSFT_scene_understanding as HoloLens 2 offers it, planes only: the
//! room (`HOLOTERRAIN_TESTRT_ROOM`, `holoterrain sim --room`'s format) is
//! the scene, each surface a horizontal plane at the pose the simulator
//! gives the app ([`holoterrain::sim::room::RoomSurface::scene_plane_pose`]).
//! A computation completes at once (a HoloLens takes seconds), so the app's
//! first frame knows the room, as the simulator's does. The declarations
//! are the app's own (`holoterrain::xr::sys::scene_understanding`), whose tests
//! hold them to openxr.h.

use holoterrain::sim::room::RoomSurface;
use holoterrain::xr::sys::scene_understanding as su;
use openxr_sys as xr;
use xr::Handle as _;

use crate::instance::check_system;
use crate::spaces::{Space, check_time, locate_in_room, location_flags, pose_to_xr, relative};
use crate::state::{Failure, XrResult, invalid, lookup, lookup_mut, new_handle, with_runtime};
use crate::structs::{check_chain, input, out_value, output, two_call};

/// A scene observer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SceneObserver {
    /// The session it belongs to.
    pub session: u64,
    /// Whether a scene has been computed (and so can be created).
    pub computed: bool,
}

/// A scene made from an observer's computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scene {
    /// The observer it came from.
    pub observer: u64,
    /// The session both belong to.
    pub session: u64,
}

/// The component id of the room's `index`th surface: "testrt" and the index.
pub fn plane_id(index: usize) -> su::UuidMsft {
    let mut bytes = [0; 16];
    bytes[..6].copy_from_slice(b"testrt");
    bytes[8..].copy_from_slice(&(index as u64).to_le_bytes());
    su::UuidMsft { bytes }
}

/// The room's surface behind component `id`, if it is one.
fn plane_of(surfaces: &[RoomSurface], id: &su::UuidMsft) -> Option<RoomSurface> {
    surfaces
        .iter()
        .enumerate()
        .find(|(index, _)| plane_id(*index) == *id)
        .map(|(_, surface)| *surface)
}

/// Fails unless `count` elements at `pointer` are given whenever `count` is not 0.
fn check_array<T>(count: u32, pointer: *const T, what: &str) -> XrResult {
    if count > 0 && pointer.is_null() {
        return Err(invalid(format!("{what} is NULL with a count of {count}")));
    }
    Ok(())
}

/// xrEnumerateSceneComputeFeaturesMSFT: planes.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_scene_compute_features(
    instance: xr::Instance,
    system: xr::SystemId,
    capacity: u32,
    count_output: *mut u32,
    features: *mut i32,
) -> xr::Result {
    with_runtime("xrEnumerateSceneComputeFeaturesMSFT", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system)?;
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                features,
                &[su::COMPUTE_FEATURE_PLANE],
                "features",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        }
    })
}

/// xrCreateSceneObserverMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_scene_observer(
    session: xr::Session,
    create_info: *const su::SceneObserverCreateInfo,
    observer: *mut xr::SceneObserverMSFT,
) -> xr::Result {
    with_runtime("xrCreateSceneObserverMSFT", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(observer, "sceneObserver") }?;
        let handle = new_handle();
        runtime.scene_observers.insert(
            handle,
            SceneObserver {
                session,
                computed: false,
            },
        );
        *output = xr::SceneObserverMSFT::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroySceneObserverMSFT: its scenes go with it.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_scene_observer(
    observer: xr::SceneObserverMSFT,
) -> xr::Result {
    with_runtime("xrDestroySceneObserverMSFT", |runtime| {
        let handle = observer.into_raw();
        lookup(&runtime.scene_observers, handle, "XrSceneObserverMSFT")?;
        runtime.scene_observers.remove(&handle);
        runtime.scenes.retain(|_, scene| scene.observer != handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrComputeNewSceneMSFT: checks the request and completes it at once.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn compute_new_scene(
    observer: xr::SceneObserverMSFT,
    compute_info: *const su::NewSceneComputeInfo,
) -> xr::Result {
    with_runtime("xrComputeNewSceneMSFT", |runtime| {
        let handle = observer.into_raw();
        let session = lookup(&runtime.scene_observers, handle, "XrSceneObserverMSFT")?.session;
        // SAFETY: the application's pointers.
        let info = unsafe { input(compute_info, "computeInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "computeInfo") }?;
        if info.requested_feature_count == 0 {
            return Err(invalid("computeInfo.requestedFeatureCount is 0"));
        }
        check_array(
            info.requested_feature_count,
            info.requested_features,
            "computeInfo.requestedFeatures",
        )?;
        // SAFETY: the application gives requestedFeatureCount features.
        let features = unsafe {
            std::slice::from_raw_parts(
                info.requested_features,
                info.requested_feature_count as usize,
            )
        };
        if let Some(feature) = features.iter().find(|feature| !(1..=4).contains(*feature)) {
            return Err(invalid(format!(
                "computeInfo.requestedFeatures holds {feature}, no XrSceneComputeFeatureMSFT"
            )));
        }
        if !(su::CONSISTENCY_SNAPSHOT_COMPLETE..=su::CONSISTENCY_OCCLUSION_OPTIMIZED)
            .contains(&info.consistency)
        {
            return Err(invalid(format!(
                "computeInfo.consistency {} is no XrSceneComputeConsistencyMSFT",
                info.consistency
            )));
        }
        let bounds = &info.bounds;
        let space: Space = *lookup(&runtime.spaces, bounds.space.into_raw(), "XrSpace")?;
        if space.session != session {
            return Err(invalid(
                "computeInfo.bounds.space belongs to another session",
            ));
        }
        check_time(bounds.time, "computeInfo.bounds.time")?;
        check_array(
            bounds.sphere_count,
            bounds.spheres,
            "computeInfo.bounds.spheres",
        )?;
        check_array(bounds.box_count, bounds.boxes, "computeInfo.bounds.boxes")?;
        check_array(
            bounds.frustum_count,
            bounds.frustums,
            "computeInfo.bounds.frustums",
        )?;
        if bounds.sphere_count > 0 {
            // SAFETY: the application gives sphereCount spheres.
            let spheres =
                unsafe { std::slice::from_raw_parts(bounds.spheres, bounds.sphere_count as usize) };
            if spheres
                .iter()
                .any(|sphere| !(sphere.radius.is_finite() && sphere.radius >= 0.0))
            {
                return Err(invalid(
                    "computeInfo.bounds.spheres has a radius that is not a finite distance",
                ));
            }
        }
        lookup_mut(&mut runtime.scene_observers, handle, "XrSceneObserverMSFT")?.computed = true;
        runtime.record.scene_computes += 1;
        Ok(xr::Result::SUCCESS)
    })
}

/// xrGetSceneComputeStateMSFT: completed once a scene was asked for.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_scene_compute_state(
    observer: xr::SceneObserverMSFT,
    state: *mut i32,
) -> xr::Result {
    with_runtime("xrGetSceneComputeStateMSFT", |runtime| {
        let computed = lookup(
            &runtime.scene_observers,
            observer.into_raw(),
            "XrSceneObserverMSFT",
        )?
        .computed;
        // SAFETY: the application's output pointer.
        let state = unsafe { out_value(state, "state") }?;
        *state = if computed {
            su::COMPUTE_STATE_COMPLETED
        } else {
            su::COMPUTE_STATE_NONE
        };
        Ok(xr::Result::SUCCESS)
    })
}

/// xrCreateSceneMSFT: only after a computation completed.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_scene(
    observer: xr::SceneObserverMSFT,
    create_info: *const su::SceneCreateInfo,
    scene: *mut xr::SceneMSFT,
) -> xr::Result {
    with_runtime("xrCreateSceneMSFT", |runtime| {
        let handle = observer.into_raw();
        let found = *lookup(&runtime.scene_observers, handle, "XrSceneObserverMSFT")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(scene, "scene") }?;
        if !found.computed {
            return Err(Failure::violation(
                xr::Result::ERROR_COMPUTE_NEW_SCENE_NOT_COMPLETED_MSFT,
                "no scene was computed (xrComputeNewSceneMSFT, then COMPLETED from xrGetSceneComputeStateMSFT)",
            ));
        }
        let scene_handle = new_handle();
        runtime.scenes.insert(
            scene_handle,
            Scene {
                observer: handle,
                session: found.session,
            },
        );
        *output = xr::SceneMSFT::from_raw(scene_handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroySceneMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_scene(scene: xr::SceneMSFT) -> xr::Result {
    with_runtime("xrDestroySceneMSFT", |runtime| {
        lookup(&runtime.scenes, scene.into_raw(), "XrSceneMSFT")?;
        runtime.scenes.remove(&scene.into_raw());
        Ok(xr::Result::SUCCESS)
    })
}

/// xrGetSceneComponentsMSFT: the room's surfaces as plane components (no
/// objects or meshes), their planes in a chained XrScenePlanesMSFT.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_scene_components(
    scene: xr::SceneMSFT,
    get_info: *const su::SceneComponentsGetInfo,
    components: *mut su::SceneComponents,
) -> xr::Result {
    with_runtime("xrGetSceneComponentsMSFT", |runtime| {
        lookup(&runtime.scenes, scene.into_raw(), "XrSceneMSFT")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(get_info, "getInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "getInfo") }?;
        // SAFETY: the application's output pointer.
        let components = unsafe { output(components, "components") }?;
        // SAFETY: the chain is the application's.
        unsafe {
            check_chain(
                components.next,
                &[xr::StructureType::SCENE_PLANES_MSFT],
                "components",
            )
        }?;
        // SAFETY: the chain was just checked: a plane list is all it may hold.
        let planes = unsafe { crate::structs::find_in_chain::<su::ScenePlanes>(components.next) };
        let is_planes = info.component_type == su::COMPONENT_TYPE_PLANE;
        if planes.is_some() && !is_planes {
            return Err(Failure::violation(
                xr::Result::ERROR_SCENE_COMPONENT_TYPE_MISMATCH_MSFT,
                "XrScenePlanesMSFT is chained, but getInfo.componentType is not XR_SCENE_COMPONENT_TYPE_PLANE_MSFT",
            ));
        }
        let surfaces: Vec<RoomSurface> = if is_planes {
            runtime.config.room.surfaces.clone()
        } else {
            Vec::new()
        };
        let capacity = components.component_capacity_input;
        if let Some(planes) = &planes
            && capacity > 0
            && (planes.scene_plane_count < surfaces.len() as u32 || planes.scene_planes.is_null())
        {
            return Err(invalid(format!(
                "XrScenePlanesMSFT holds {} planes for {} components",
                planes.scene_plane_count,
                surfaces.len()
            )));
        }
        let indexed: Vec<(usize, RoomSurface)> = surfaces.into_iter().enumerate().collect();
        let now = xr::Time::from_nanos(runtime.wearer.now_ns());
        // SAFETY: the application's arrays, of its stated capacity.
        let result = unsafe {
            two_call(
                capacity,
                &mut components.component_count_output,
                components.components,
                &indexed,
                "components",
                |_| Ok(()),
                |slot, (index, _)| {
                    *slot = su::SceneComponent {
                        component_type: su::COMPONENT_TYPE_PLANE,
                        id: plane_id(*index),
                        parent_id: su::UuidMsft::default(),
                        update_time: now,
                    }
                },
            )
        }?;
        if let Some(planes) = planes
            && capacity > 0
        {
            for (index, surface) in &indexed {
                // SAFETY: checked above: scenePlaneCount elements, at least one per component.
                let plane = unsafe { &mut *planes.scene_planes.add(*index) };
                *plane = su::ScenePlane {
                    alignment: su::PLANE_ALIGNMENT_HORIZONTAL,
                    size: xr::Extent2Df {
                        width: surface.width,
                        height: surface.depth,
                    },
                    mesh_buffer_id: 0,
                    supports_indices_uint16: xr::FALSE,
                };
            }
        }
        Ok(result)
    })
}

/// xrLocateSceneComponentsMSFT: each plane where the room has it, seen
/// from the base space; unknown ids are not located.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn locate_scene_components(
    scene: xr::SceneMSFT,
    locate_info: *const su::SceneComponentsLocateInfo,
    locations: *mut su::SceneComponentLocations,
) -> xr::Result {
    with_runtime("xrLocateSceneComponentsMSFT", |runtime| {
        let session = lookup(&runtime.scenes, scene.into_raw(), "XrSceneMSFT")?.session;
        // SAFETY: the application's pointers.
        let info = unsafe { input(locate_info, "locateInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "locateInfo") }?;
        let base: Space = *lookup(&runtime.spaces, info.base_space.into_raw(), "XrSpace")?;
        if base.session != session {
            return Err(invalid("locateInfo.baseSpace belongs to another session"));
        }
        check_time(info.time, "locateInfo.time")?;
        check_array(
            info.component_id_count,
            info.component_ids,
            "locateInfo.componentIds",
        )?;
        // SAFETY: the application's output pointer.
        let located = unsafe { output(locations, "locations") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(located.next, &[], "locations") }?;
        if located.location_count < info.component_id_count {
            return Err(Failure::violation(
                xr::Result::ERROR_SIZE_INSUFFICIENT,
                format!(
                    "locations.locationCount {} is less than locateInfo.componentIdCount {}",
                    located.location_count, info.component_id_count
                ),
            ));
        }
        check_array(
            located.location_count,
            located.locations,
            "locations.locations",
        )?;
        let count = info.component_id_count as usize;
        if count == 0 {
            return Ok(xr::Result::SUCCESS);
        }
        // SAFETY: the application gives componentIdCount ids and at least
        // as many writable locations (checked above).
        let (ids, slots) = unsafe {
            (
                std::slice::from_raw_parts(info.component_ids, count),
                std::slice::from_raw_parts_mut(located.locations, count),
            )
        };
        let base_pose = locate_in_room(runtime, &base, info.time.as_nanos());
        for (id, slot) in ids.iter().zip(slots) {
            let pose = plane_of(&runtime.config.room.surfaces, id)
                .zip(base_pose)
                .map(|(surface, base)| relative(&base, &surface.scene_plane_pose()));
            *slot = su::SceneComponentLocation {
                flags: location_flags(pose.is_some()),
                pose: pose.as_ref().map_or(xr::Posef::IDENTITY, pose_to_xr),
            };
        }
        Ok(xr::Result::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_ids_differ_and_name_their_surface() {
        let surfaces = [
            RoomSurface {
                centre: glam::Vec3::ZERO,
                width: 1.0,
                depth: 1.0,
            },
            RoomSurface {
                centre: glam::Vec3::Y,
                width: 2.0,
                depth: 1.0,
            },
        ];
        assert_ne!(plane_id(0), plane_id(1));
        assert_eq!(plane_of(&surfaces, &plane_id(1)), Some(surfaces[1]));
        assert_eq!(plane_of(&surfaces, &plane_id(2)), None);
        assert_eq!(plane_of(&surfaces, &su::UuidMsft::default()), None);
    }
}
