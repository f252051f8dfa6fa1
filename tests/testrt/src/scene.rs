//! XR_MSFT_scene_understanding as HoloLens 2 offers it, planes only: the
//! room (`HOLOTERRAIN_TESTRT_ROOM`, `holoterrain sim --room`'s format) is
//! the scene, each surface a horizontal plane at the pose the simulator
//! gives the app ([`holoterrain::sim::room::RoomSurface::scene_plane_pose`]).
//! A computation completes at once (a HoloLens takes seconds), so the app's
//! first frame knows the room, as the simulator's does. The declarations
//! are the app's own (`holoterrain::xr::sys::scene_understanding`), whose tests
//! hold them to openxr.h.
//!
//! XR_MSFT_scene_marker: a computation asking for markers takes a snapshot
//! of the room's printed codes the wearer has seen so far, each with when
//! it was last seen ([`crate::wearer::Wearer::marker_sightings`]: the
//! simulator's rule, on the same frames, and a `stale-marker` seen before
//! the session began); the scene lists them as QR code components, located
//! in the specification's QR code convention
//! ([`holoterrain::sim::room::RoomMarker::qr_code_pose`]), their text
//! from xrGetSceneMarkerDecodedStringMSFT and xrGetSceneMarkerRawDataMSFT.

use holoterrain::sim::room::{RoomMarker, RoomSurface};
use holoterrain::xr::sys::scene_understanding as su;
use openxr_sys as xr;
use xr::Handle as _;

use crate::extensions::Extension;
use crate::instance::check_system;
use crate::spaces::{Space, check_time, locate_in_room, location_flags, pose_to_xr, relative};
use crate::state::{Failure, XrResult, invalid, lookup, lookup_mut, new_handle, with_runtime};
use crate::structs::{check_chain, input, out_value, output, two_call};

/// The printed codes a computation saw: (index in the room, last seen,
/// runtime clock nanoseconds); `None` when it did not ask for markers.
pub type MarkerSnapshot = Option<Vec<(usize, i64)>>;

/// A scene observer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneObserver {
    /// The session it belongs to.
    pub session: u64,
    /// Whether a scene has been computed (and so can be created).
    pub computed: bool,
    /// The markers of its latest computation.
    pub markers: MarkerSnapshot,
}

/// A scene made from an observer's computation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scene {
    /// The observer it came from.
    pub observer: u64,
    /// The session both belong to.
    pub session: u64,
    /// The markers it holds.
    pub markers: MarkerSnapshot,
}

/// The component id of the room's `index`th marker: "testrt", `m`, and the index.
pub fn marker_id(index: usize) -> su::UuidMsft {
    let mut bytes = [0; 16];
    bytes[..6].copy_from_slice(b"testrt");
    bytes[6] = b'm';
    bytes[8..].copy_from_slice(&(index as u64).to_le_bytes());
    su::UuidMsft { bytes }
}

/// The room index and last sighting of `scene`'s marker `id`, if it holds it.
fn marker_in(scene: &Scene, id: &su::UuidMsft) -> Option<(usize, i64)> {
    scene
        .markers
        .iter()
        .flatten()
        .find(|(index, _)| marker_id(*index) == *id)
        .copied()
}

/// The smallest QR code version that holds `bytes` bytes in byte mode at
/// error correction level L (ISO/IEC 18004's capacities; a room's text is
/// at most 256 bytes, version 10).
pub fn qr_version(bytes: usize) -> u8 {
    const CAPACITY: [usize; 10] = [17, 32, 53, 78, 106, 134, 154, 192, 230, 271];
    CAPACITY
        .iter()
        .position(|&capacity| bytes <= capacity)
        .map_or(40, |index| index as u8 + 1)
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
        let offered: &[i32] = if runtime.enabled.has(Extension::SceneMarker) {
            &[su::COMPUTE_FEATURE_PLANE, su::COMPUTE_FEATURE_MARKER]
        } else {
            &[su::COMPUTE_FEATURE_PLANE]
        };
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                features,
                offered,
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
                markers: None,
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
        let markers_enabled = runtime.enabled.has(Extension::SceneMarker);
        if let Some(feature) = features.iter().find(|feature| {
            !((1..=4).contains(*feature)
                || **feature == su::COMPUTE_FEATURE_MARKER && markers_enabled)
        }) {
            return Err(invalid(if *feature == su::COMPUTE_FEATURE_MARKER {
                "computeInfo.requestedFeatures holds XR_SCENE_COMPUTE_FEATURE_MARKER_MSFT, but XR_MSFT_scene_marker is not enabled".to_owned()
            } else {
                format!(
                    "computeInfo.requestedFeatures holds {feature}, no XrSceneComputeFeatureMSFT"
                )
            }));
        }
        let asks_markers = features.contains(&su::COMPUTE_FEATURE_MARKER);
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
        let markers = asks_markers.then(|| runtime.wearer.marker_sightings());
        let found = lookup_mut(&mut runtime.scene_observers, handle, "XrSceneObserverMSFT")?;
        found.computed = true;
        found.markers = markers;
        if features
            .iter()
            .any(|feature| *feature != su::COMPUTE_FEATURE_MARKER)
        {
            runtime.record.scene_computes += 1;
        }
        if asks_markers {
            runtime.record.markers.computes += 1;
        }
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
        let found = lookup(&runtime.scene_observers, handle, "XrSceneObserverMSFT")?.clone();
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
                markers: found.markers,
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

/// xrGetSceneComponentsMSFT: the room's surfaces as plane components, their
/// planes in a chained XrScenePlanesMSFT; the markers the scene holds as
/// marker components, their properties in a chained XrSceneMarkersMSFT and
/// XrSceneMarkerQRCodesMSFT (no objects or meshes).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_scene_components(
    scene: xr::SceneMSFT,
    get_info: *const su::SceneComponentsGetInfo,
    components: *mut su::SceneComponents,
) -> xr::Result {
    with_runtime("xrGetSceneComponentsMSFT", |runtime| {
        let found = lookup(&runtime.scenes, scene.into_raw(), "XrSceneMSFT")?.clone();
        // SAFETY: the application's pointers.
        let info = unsafe { input(get_info, "getInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "getInfo") }?;
        // SAFETY: the application's output pointer.
        let components = unsafe { output(components, "components") }?;
        let markers_enabled = runtime.enabled.has(Extension::SceneMarker);
        // SAFETY: the chain is the application's.
        let lists =
            unsafe { ComponentLists::find(components, info.component_type, markers_enabled) }?;
        let is_markers = info.component_type == su::COMPONENT_TYPE_MARKER;
        let surfaces: Vec<RoomSurface> = if info.component_type == su::COMPONENT_TYPE_PLANE {
            runtime.config.room.surfaces.clone()
        } else {
            Vec::new()
        };
        let markers: Vec<(usize, i64)> = if is_markers {
            found.markers.clone().unwrap_or_default()
        } else {
            Vec::new()
        };
        let capacity = components.component_capacity_input;
        lists.check_capacities(capacity, surfaces.len())?;
        let now = xr::Time::from_nanos(runtime.wearer.now_ns());
        let listed = if is_markers {
            marker_components(&markers)
        } else {
            plane_components(surfaces.len(), now)
        };
        // SAFETY: the application's arrays, of its stated capacity.
        let result = unsafe {
            two_call(
                capacity,
                &mut components.component_count_output,
                components.components,
                &listed,
                "components",
                |_| Ok(()),
                |slot, component| *slot = *component,
            )
        }?;
        if capacity == 0 {
            return Ok(result);
        }
        let room_markers: Vec<RoomMarker> = markers
            .iter()
            .filter_map(|&(index, _)| runtime.wearer.marker(index).cloned())
            .collect();
        // SAFETY: the capacity is above 0 and the lists were checked for it.
        unsafe { lists.fill(&surfaces, &room_markers, &markers) };
        for marker in &room_markers {
            runtime.record.markers.listed(&marker.text);
        }
        Ok(result)
    })
}

/// The property lists an application chains to XrSceneComponentsMSFT.
struct ComponentLists<'a> {
    planes: Option<&'a mut su::ScenePlanes>,
    markers: Option<&'a mut su::SceneMarkers>,
    qr_codes: Option<&'a mut su::SceneMarkerQrCodes>,
}

impl ComponentLists<'_> {
    /// The lists chained to `components`, checked to be the ones the
    /// component type asked for can have.
    ///
    /// # Safety
    /// `components.next` is the application's chain of writable structures.
    unsafe fn find(
        components: &su::SceneComponents,
        component_type: i32,
        markers_enabled: bool,
    ) -> XrResult<Self> {
        let allowed: &[xr::StructureType] = if markers_enabled {
            &[
                xr::StructureType::SCENE_PLANES_MSFT,
                xr::StructureType::SCENE_MARKERS_MSFT,
                xr::StructureType::SCENE_MARKER_QR_CODES_MSFT,
            ]
        } else {
            &[xr::StructureType::SCENE_PLANES_MSFT]
        };
        // SAFETY: the caller's promise is passed on.
        unsafe { check_chain(components.next, allowed, "components") }?;
        // SAFETY: the chain was just checked: these lists are all it may hold.
        let lists = unsafe {
            ComponentLists {
                planes: crate::structs::find_in_chain::<su::ScenePlanes>(components.next),
                markers: crate::structs::find_in_chain::<su::SceneMarkers>(components.next),
                qr_codes: crate::structs::find_in_chain::<su::SceneMarkerQrCodes>(components.next),
            }
        };
        let is_planes = component_type == su::COMPONENT_TYPE_PLANE;
        let is_markers = component_type == su::COMPONENT_TYPE_MARKER;
        if is_markers && !markers_enabled {
            return Err(invalid(
                "getInfo.componentType is XR_SCENE_COMPONENT_TYPE_MARKER_MSFT, but XR_MSFT_scene_marker is not enabled",
            ));
        }
        if lists.planes.is_some() && !is_planes {
            return Err(Failure::violation(
                xr::Result::ERROR_SCENE_COMPONENT_TYPE_MISMATCH_MSFT,
                "XrScenePlanesMSFT is chained, but getInfo.componentType is not XR_SCENE_COMPONENT_TYPE_PLANE_MSFT",
            ));
        }
        if (lists.markers.is_some() || lists.qr_codes.is_some()) && !is_markers {
            return Err(Failure::violation(
                xr::Result::ERROR_SCENE_COMPONENT_TYPE_MISMATCH_MSFT,
                "XrSceneMarkersMSFT or XrSceneMarkerQRCodesMSFT is chained, but getInfo.componentType is not XR_SCENE_COMPONENT_TYPE_MARKER_MSFT",
            ));
        }
        Ok(lists)
    }

    /// That each list has room for `capacity` components (the planes' for
    /// the `plane_count` there are) when the application asks for them.
    fn check_capacities(&self, capacity: u32, plane_count: usize) -> XrResult {
        if capacity == 0 {
            return Ok(());
        }
        if let Some(planes) = &self.planes
            && (planes.scene_plane_count < plane_count as u32 || planes.scene_planes.is_null())
        {
            return Err(invalid(format!(
                "XrScenePlanesMSFT holds {} planes for {plane_count} components",
                planes.scene_plane_count,
            )));
        }
        if let Some(list) = &self.markers {
            if list.scene_marker_capacity_input < capacity {
                return Err(Failure::violation(
                    xr::Result::ERROR_SIZE_INSUFFICIENT,
                    format!(
                        "XrSceneMarkersMSFT.sceneMarkerCapacityInput {} is less than components.componentCapacityInput {capacity}",
                        list.scene_marker_capacity_input
                    ),
                ));
            }
            check_array(1, list.scene_markers, "XrSceneMarkersMSFT.sceneMarkers")?;
        }
        if let Some(list) = &self.qr_codes {
            if list.qr_code_capacity_input < capacity {
                return Err(Failure::violation(
                    xr::Result::ERROR_SIZE_INSUFFICIENT,
                    format!(
                        "XrSceneMarkerQRCodesMSFT.qrCodeCapacityInput {} is less than components.componentCapacityInput {capacity}",
                        list.qr_code_capacity_input
                    ),
                ));
            }
            check_array(1, list.qr_codes, "XrSceneMarkerQRCodesMSFT.qrCodes")?;
        }
        Ok(())
    }

    /// Writes the planes' and the markers' properties, one per component.
    ///
    /// # Safety
    /// [`Self::check_capacities`] passed for a capacity above 0 that holds
    /// every component.
    unsafe fn fill(
        self,
        surfaces: &[RoomSurface],
        room_markers: &[RoomMarker],
        markers: &[(usize, i64)],
    ) {
        if let Some(planes) = self.planes {
            for (index, surface) in surfaces.iter().enumerate() {
                // SAFETY: checked: scenePlaneCount elements, at least one per component.
                let plane = unsafe { &mut *planes.scene_planes.add(index) };
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
        if let Some(list) = self.markers {
            for (slot, (marker, &(_, seen_ns))) in room_markers.iter().zip(markers).enumerate() {
                let half = marker.size_m / 2.0;
                // SAFETY: checked: at least componentCapacityInput elements.
                let element = unsafe { &mut *list.scene_markers.add(slot) };
                *element = su::SceneMarker {
                    marker_type: su::MARKER_TYPE_QR_CODE,
                    last_seen_time: xr::Time::from_nanos(seen_ns),
                    center: xr::Offset2Df { x: half, y: half },
                    size: xr::Extent2Df {
                        width: marker.size_m,
                        height: marker.size_m,
                    },
                };
            }
        }
        if let Some(list) = self.qr_codes {
            for (slot, marker) in room_markers.iter().enumerate() {
                // SAFETY: checked: at least componentCapacityInput elements.
                let element = unsafe { &mut *list.qr_codes.add(slot) };
                *element = su::SceneMarkerQrCode {
                    symbol_type: su::QR_CODE_SYMBOL_TYPE_QR_CODE,
                    version: qr_version(marker.text.len()),
                };
            }
        }
    }
}

/// The scene's markers as components, each updated when it was last seen.
fn marker_components(markers: &[(usize, i64)]) -> Vec<su::SceneComponent> {
    markers
        .iter()
        .map(|&(index, seen_ns)| su::SceneComponent {
            component_type: su::COMPONENT_TYPE_MARKER,
            id: marker_id(index),
            parent_id: su::UuidMsft::default(),
            update_time: xr::Time::from_nanos(seen_ns),
        })
        .collect()
}

/// The room's `count` surfaces as plane components, updated `now`.
fn plane_components(count: usize, now: xr::Time) -> Vec<su::SceneComponent> {
    (0..count)
        .map(|index| su::SceneComponent {
            component_type: su::COMPONENT_TYPE_PLANE,
            id: plane_id(index),
            parent_id: su::UuidMsft::default(),
            update_time: now,
        })
        .collect()
}

/// The text of `scene`'s marker `marker_id`, checking the scene and the id.
fn marker_text(
    runtime: &crate::state::Runtime,
    scene: xr::SceneMSFT,
    marker_id: *const su::UuidMsft,
) -> XrResult<String> {
    let found = lookup(&runtime.scenes, scene.into_raw(), "XrSceneMSFT")?;
    // SAFETY: the application's pointer.
    let id = unsafe { marker_id.as_ref() }.ok_or_else(|| invalid("markerId is NULL"))?;
    let (index, _) = marker_in(found, id).ok_or_else(|| {
        Failure::violation(
            xr::Result::ERROR_SCENE_COMPONENT_ID_INVALID_MSFT,
            "markerId is not a marker component of this scene (xrGetSceneComponentsMSFT lists them)",
        )
    })?;
    runtime
        .wearer
        .marker(index)
        .map(|marker| marker.text.clone())
        .ok_or_else(|| invalid("markerId names no marker of the room"))
}

/// xrGetSceneMarkerDecodedStringMSFT: the marker's text, UTF-8 with its NUL.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_scene_marker_decoded_string(
    scene: xr::SceneMSFT,
    marker_id: *const su::UuidMsft,
    capacity: u32,
    count_output: *mut u32,
    buffer: *mut std::ffi::c_char,
) -> xr::Result {
    with_runtime("xrGetSceneMarkerDecodedStringMSFT", |runtime| {
        let text = marker_text(runtime, scene, marker_id)?;
        let mut bytes = text.clone().into_bytes();
        bytes.push(0);
        // SAFETY: the application's buffer, of its stated capacity.
        let result = unsafe {
            two_call(
                capacity,
                count_output,
                buffer,
                &bytes,
                "buffer",
                |_| Ok(()),
                |slot, byte| *slot = *byte as std::ffi::c_char,
            )
        }?;
        if capacity > 0 {
            runtime.record.markers.string_fetched(&text);
        }
        Ok(result)
    })
}

/// xrGetSceneMarkerRawDataMSFT: the marker's bytes (its text, as a QR code
/// in byte mode holds it).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_scene_marker_raw_data(
    scene: xr::SceneMSFT,
    marker_id: *const su::UuidMsft,
    capacity: u32,
    count_output: *mut u32,
    buffer: *mut u8,
) -> xr::Result {
    with_runtime("xrGetSceneMarkerRawDataMSFT", |runtime| {
        let text = marker_text(runtime, scene, marker_id)?;
        // SAFETY: the application's buffer, of its stated capacity.
        let result = unsafe {
            two_call(
                capacity,
                count_output,
                buffer,
                text.as_bytes(),
                "buffer",
                |_| Ok(()),
                |slot, byte| *slot = *byte,
            )
        }?;
        if capacity > 0 {
            runtime.record.markers.raw_data_fetched += 1;
        }
        Ok(result)
    })
}

/// xrLocateSceneComponentsMSFT: each plane where the room has it, and each
/// of the scene's markers at its QR code pose, seen from the base space;
/// unknown ids are not located.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn locate_scene_components(
    scene: xr::SceneMSFT,
    locate_info: *const su::SceneComponentsLocateInfo,
    locations: *mut su::SceneComponentLocations,
) -> xr::Result {
    with_runtime("xrLocateSceneComponentsMSFT", |runtime| {
        let found = lookup(&runtime.scenes, scene.into_raw(), "XrSceneMSFT")?.clone();
        let session = found.session;
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
            let marker = marker_in(&found, id)
                .and_then(|(index, _)| runtime.wearer.marker(index))
                .map(RoomMarker::qr_code_pose);
            if marker.is_some() {
                runtime.record.markers.located += 1;
            }
            let pose = plane_of(&runtime.config.room.surfaces, id)
                .map(|surface| surface.scene_plane_pose())
                .or(marker)
                .zip(base_pose)
                .map(|(pose, base)| relative(&base, &pose));
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

    #[test]
    fn marker_ids_differ_from_plane_ids_and_only_the_scenes_are_found() {
        assert_ne!(marker_id(0), plane_id(0));
        assert_ne!(marker_id(0), marker_id(1));
        let scene = Scene {
            observer: 1,
            session: 2,
            markers: Some(vec![(1, 42)]),
        };
        assert_eq!(marker_in(&scene, &marker_id(1)), Some((1, 42)));
        assert_eq!(marker_in(&scene, &marker_id(0)), None);
        assert_eq!(marker_in(&scene, &plane_id(1)), None);
    }

    #[test]
    fn a_qr_version_is_the_smallest_that_holds_the_text() {
        assert_eq!(qr_version(0), 1);
        assert_eq!(qr_version(17), 1);
        assert_eq!(qr_version(18), 2);
        assert_eq!(qr_version(26), 2);
        assert_eq!(qr_version(256), 10);
    }
}
