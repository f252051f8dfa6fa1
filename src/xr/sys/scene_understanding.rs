//! Scene understanding's declarations (XR_MSFT_scene_understanding): the
//! structures, functions and values openxr-sys 0.14 lacks (it has the
//! handles and structure types, not the structures or functions).
//!
//! The declarations follow the OpenXR headers' (`openxr.h`, extension 98);
//! `tests/support/scene_understanding_layout.c` prints the C compiler's
//! sizes and offsets of the same structures from the system's `openxr.h`
//! (Debian `libopenxr-dev`) and the tests below hold these to them. The
//! test runtime answers with the same declarations.

use std::ffi::c_void;

use openxr as xr;

/// The extension's name.
pub const EXTENSION_NAME: &str = "XR_MSFT_scene_understanding";

/// XR_SCENE_COMPUTE_FEATURE_PLANE_MSFT.
pub const COMPUTE_FEATURE_PLANE: i32 = 1;
/// XR_SCENE_COMPUTE_CONSISTENCY_SNAPSHOT_COMPLETE_MSFT: a consistent,
/// complete snapshot, what an app analysing the room asks for.
pub const CONSISTENCY_SNAPSHOT_COMPLETE: i32 = 1;
/// XR_SCENE_COMPUTE_CONSISTENCY_OCCLUSION_OPTIMIZED_MSFT, the last consistency value.
pub const CONSISTENCY_OCCLUSION_OPTIMIZED: i32 = 3;
/// XR_SCENE_COMPONENT_TYPE_PLANE_MSFT.
pub const COMPONENT_TYPE_PLANE: i32 = 2;
/// XR_SCENE_COMPUTE_STATE_NONE_MSFT.
pub const COMPUTE_STATE_NONE: i32 = 0;
/// XR_SCENE_COMPUTE_STATE_UPDATING_MSFT.
pub const COMPUTE_STATE_UPDATING: i32 = 1;
/// XR_SCENE_COMPUTE_STATE_COMPLETED_MSFT.
pub const COMPUTE_STATE_COMPLETED: i32 = 2;
/// XR_SCENE_COMPUTE_STATE_COMPLETED_WITH_ERROR_MSFT.
pub const COMPUTE_STATE_COMPLETED_WITH_ERROR: i32 = 3;
/// XR_SCENE_PLANE_ALIGNMENT_TYPE_HORIZONTAL_MSFT.
pub const PLANE_ALIGNMENT_HORIZONTAL: i32 = 1;

/// XrSceneObserverCreateInfoMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneObserverCreateInfo {
    /// XR_TYPE_SCENE_OBSERVER_CREATE_INFO_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *const c_void,
}

/// XrSceneCreateInfoMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneCreateInfo {
    /// XR_TYPE_SCENE_CREATE_INFO_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *const c_void,
}

/// XrSceneSphereBoundMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneSphereBound {
    /// Centre in the bounds' space.
    pub center: xr::sys::Vector3f,
    /// Radius, metres.
    pub radius: f32,
}

/// XrSceneOrientedBoxBoundMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneOrientedBoxBound {
    /// Centre and orientation in the bounds' space.
    pub pose: xr::sys::Posef,
    /// Edge lengths, metres.
    pub extents: xr::sys::Vector3f,
}

/// XrSceneFrustumBoundMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneFrustumBound {
    /// Apex and orientation in the bounds' space.
    pub pose: xr::sys::Posef,
    /// Its angles.
    pub fov: xr::sys::Fovf,
    /// How far it reaches, metres.
    pub far_distance: f32,
}

/// XrSceneBoundsMSFT: the volume outside which components may be culled.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneBounds {
    /// The space the volumes are given in.
    pub space: xr::sys::Space,
    /// When that space is located.
    pub time: xr::sys::Time,
    /// Number of spheres.
    pub sphere_count: u32,
    /// The spheres.
    pub spheres: *const SceneSphereBound,
    /// Number of boxes.
    pub box_count: u32,
    /// The boxes.
    pub boxes: *const SceneOrientedBoxBound,
    /// Number of frustums.
    pub frustum_count: u32,
    /// The frustums.
    pub frustums: *const SceneFrustumBound,
}

/// XrNewSceneComputeInfoMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct NewSceneComputeInfo {
    /// XR_TYPE_NEW_SCENE_COMPUTE_INFO_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *const c_void,
    /// Number of features.
    pub requested_feature_count: u32,
    /// XrSceneComputeFeatureMSFT values.
    pub requested_features: *const i32,
    /// XrSceneComputeConsistencyMSFT.
    pub consistency: i32,
    /// Where to look.
    pub bounds: SceneBounds,
}

/// XrUuidMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UuidMsft {
    /// The 16 bytes.
    pub bytes: [u8; 16],
}

/// XrSceneComponentMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneComponent {
    /// XrSceneComponentTypeMSFT.
    pub component_type: i32,
    /// Its identity.
    pub id: UuidMsft,
    /// The object it belongs to.
    pub parent_id: UuidMsft,
    /// When it last changed.
    pub update_time: xr::sys::Time,
}

/// XrSceneComponentsMSFT: the two-call array of components.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneComponents {
    /// XR_TYPE_SCENE_COMPONENTS_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain (XrScenePlanesMSFT).
    pub next: *mut c_void,
    /// Capacity of `components`.
    pub component_capacity_input: u32,
    /// How many there are.
    pub component_count_output: u32,
    /// The components.
    pub components: *mut SceneComponent,
}

/// XrSceneComponentsGetInfoMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneComponentsGetInfo {
    /// XR_TYPE_SCENE_COMPONENTS_GET_INFO_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain (filters).
    pub next: *const c_void,
    /// XrSceneComponentTypeMSFT.
    pub component_type: i32,
}

/// XrSceneComponentLocationMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneComponentLocation {
    /// Which parts of the pose are valid.
    pub flags: xr::sys::SpaceLocationFlags,
    /// The component's pose.
    pub pose: xr::sys::Posef,
}

/// XrSceneComponentLocationsMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneComponentLocations {
    /// XR_TYPE_SCENE_COMPONENT_LOCATIONS_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *mut c_void,
    /// Number of locations (the number of ids asked for).
    pub location_count: u32,
    /// The locations.
    pub locations: *mut SceneComponentLocation,
}

/// XrSceneComponentsLocateInfoMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneComponentsLocateInfo {
    /// XR_TYPE_SCENE_COMPONENTS_LOCATE_INFO_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *const c_void,
    /// The space to locate in.
    pub base_space: xr::sys::Space,
    /// When.
    pub time: xr::sys::Time,
    /// Number of ids.
    pub component_id_count: u32,
    /// The components to locate.
    pub component_ids: *const UuidMsft,
}

/// XrScenePlaneMSFT: a plane's extent in its pose's X-Y plane (normal +Z).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ScenePlane {
    /// XrScenePlaneAlignmentTypeMSFT.
    pub alignment: i32,
    /// Width along X, height along Y, metres.
    pub size: xr::sys::Extent2Df,
    /// Its mesh (0: none).
    pub mesh_buffer_id: u64,
    /// Whether the mesh has 16-bit indices.
    pub supports_indices_uint16: xr::sys::Bool32,
}

/// XrScenePlanesMSFT, chained to [`SceneComponents`] for planes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ScenePlanes {
    /// XR_TYPE_SCENE_PLANES_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *mut c_void,
    /// Number of planes (the components' capacity).
    pub scene_plane_count: u32,
    /// The planes, one per component.
    pub scene_planes: *mut ScenePlane,
}

/// XR_MSFT_scene_marker's name (extension 148; it needs
/// XR_MSFT_scene_understanding enabled too).
pub const MARKER_EXTENSION_NAME: &str = "XR_MSFT_scene_marker";
/// XR_SCENE_COMPUTE_FEATURE_MARKER_MSFT.
pub const COMPUTE_FEATURE_MARKER: i32 = 1_000_147_000;
/// XR_SCENE_COMPONENT_TYPE_MARKER_MSFT.
pub const COMPONENT_TYPE_MARKER: i32 = 1_000_147_000;
/// XR_SCENE_MARKER_TYPE_QR_CODE_MSFT.
pub const MARKER_TYPE_QR_CODE: i32 = 1;
/// XR_SCENE_MARKER_QR_CODE_SYMBOL_TYPE_QR_CODE_MSFT.
pub const QR_CODE_SYMBOL_TYPE_QR_CODE: i32 = 1;
/// XR_SCENE_MARKER_QR_CODE_SYMBOL_TYPE_MICRO_QR_CODE_MSFT.
pub const QR_CODE_SYMBOL_TYPE_MICRO_QR_CODE: i32 = 2;

/// XrSceneMarkerMSFT: a marker's properties. `center` and `size` are the
/// marker image's bounding box in the X-Y plane of its pose (for a QR
/// code: the origin at its top-left corner, X right, Y down, +Z into it).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneMarker {
    /// XrSceneMarkerTypeMSFT.
    pub marker_type: i32,
    /// When it was last seen.
    pub last_seen_time: xr::sys::Time,
    /// Centre of its image in its pose's X-Y plane, metres.
    pub center: xr::sys::Offset2Df,
    /// Width (X) and height (Y) of its image, metres.
    pub size: xr::sys::Extent2Df,
}

/// XrSceneMarkersMSFT, chained to [`SceneComponents`] for markers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneMarkers {
    /// XR_TYPE_SCENE_MARKERS_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *const c_void,
    /// Capacity of `scene_markers` (at least the components').
    pub scene_marker_capacity_input: u32,
    /// One per component.
    pub scene_markers: *mut SceneMarker,
}

/// XrSceneMarkerQRCodeMSFT.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneMarkerQrCode {
    /// XrSceneMarkerQRCodeSymbolTypeMSFT.
    pub symbol_type: i32,
    /// Its version (1 to 40; a Micro QR code's 1 to 4).
    pub version: u8,
}

/// XrSceneMarkerQRCodesMSFT, chained to [`SceneComponents`] for markers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SceneMarkerQrCodes {
    /// XR_TYPE_SCENE_MARKER_QR_CODES_MSFT.
    pub ty: xr::sys::StructureType,
    /// Extension chain.
    pub next: *const c_void,
    /// Capacity of `qr_codes` (at least the components').
    pub qr_code_capacity_input: u32,
    /// One per component.
    pub qr_codes: *mut SceneMarkerQrCode,
}

/// PFN_xrGetSceneMarkerDecodedStringMSFT: the marker's text, UTF-8 with
/// its NUL, by the two-call idiom.
pub type GetSceneMarkerDecodedStringFn = unsafe extern "system" fn(
    xr::sys::SceneMSFT,
    *const UuidMsft,
    u32,
    *mut u32,
    *mut std::ffi::c_char,
) -> xr::sys::Result;
/// PFN_xrGetSceneMarkerRawDataMSFT: the marker's bytes, by the two-call idiom.
pub type GetSceneMarkerRawDataFn = unsafe extern "system" fn(
    xr::sys::SceneMSFT,
    *const UuidMsft,
    u32,
    *mut u32,
    *mut u8,
) -> xr::sys::Result;

/// PFN_xrCreateSceneObserverMSFT.
pub type CreateSceneObserverFn = unsafe extern "system" fn(
    xr::sys::Session,
    *const SceneObserverCreateInfo,
    *mut xr::sys::SceneObserverMSFT,
) -> xr::sys::Result;
/// PFN_xrDestroySceneObserverMSFT.
pub type DestroySceneObserverFn =
    unsafe extern "system" fn(xr::sys::SceneObserverMSFT) -> xr::sys::Result;
/// PFN_xrCreateSceneMSFT.
pub type CreateSceneFn = unsafe extern "system" fn(
    xr::sys::SceneObserverMSFT,
    *const SceneCreateInfo,
    *mut xr::sys::SceneMSFT,
) -> xr::sys::Result;
/// PFN_xrDestroySceneMSFT.
pub type DestroySceneFn = unsafe extern "system" fn(xr::sys::SceneMSFT) -> xr::sys::Result;
/// PFN_xrComputeNewSceneMSFT.
pub type ComputeNewSceneFn = unsafe extern "system" fn(
    xr::sys::SceneObserverMSFT,
    *const NewSceneComputeInfo,
) -> xr::sys::Result;
/// PFN_xrGetSceneComputeStateMSFT.
pub type GetSceneComputeStateFn =
    unsafe extern "system" fn(xr::sys::SceneObserverMSFT, *mut i32) -> xr::sys::Result;
/// PFN_xrGetSceneComponentsMSFT.
pub type GetSceneComponentsFn = unsafe extern "system" fn(
    xr::sys::SceneMSFT,
    *const SceneComponentsGetInfo,
    *mut SceneComponents,
) -> xr::sys::Result;
/// PFN_xrLocateSceneComponentsMSFT.
pub type LocateSceneComponentsFn = unsafe extern "system" fn(
    xr::sys::SceneMSFT,
    *const SceneComponentsLocateInfo,
    *mut SceneComponentLocations,
) -> xr::sys::Result;

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::mem::{offset_of, size_of};
    use std::path::Path;

    use super::super::c_layout::{self, skip};
    use super::*;

    /// Where Debian's libopenxr-dev puts the header.
    const OPENXR_HEADER: &str = "/usr/include/openxr/openxr.h";

    /// Sizes, offsets and constants as the C compiler lays them out from
    /// the system's openxr.h (tests/support/scene_understanding_layout.c).
    fn c_layout() -> Option<HashMap<String, i64>> {
        if !Path::new(OPENXR_HEADER).is_file() {
            skip("no openxr.h (Debian: libopenxr-dev) to check the scene understanding layout");
            return None;
        }
        c_layout::c_layout("scene_understanding_layout.c", "scene understanding")
    }

    /// XR_MSFT_scene_marker came after the openxr.h Debian ships (1.0.20),
    /// so its layout is held to the registry's (xr.xml) by hand: C's
    /// natural alignment on a 64-bit target.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn marker_declarations_have_the_registrys_layout() {
        assert_eq!(size_of::<SceneMarker>(), 32);
        assert_eq!(offset_of!(SceneMarker, last_seen_time), 8);
        assert_eq!(offset_of!(SceneMarker, center), 16);
        assert_eq!(offset_of!(SceneMarker, size), 24);
        assert_eq!(size_of::<SceneMarkers>(), 32);
        assert_eq!(offset_of!(SceneMarkers, scene_marker_capacity_input), 16);
        assert_eq!(offset_of!(SceneMarkers, scene_markers), 24);
        assert_eq!(size_of::<SceneMarkerQrCode>(), 8);
        assert_eq!(offset_of!(SceneMarkerQrCode, version), 4);
        assert_eq!(size_of::<SceneMarkerQrCodes>(), 32);
        assert_eq!(offset_of!(SceneMarkerQrCodes, qr_codes), 24);
        assert_eq!(
            COMPUTE_FEATURE_MARKER,
            xr::sys::SceneComputeFeatureMSFT::MARKER.into_raw()
        );
        assert_eq!(
            COMPONENT_TYPE_MARKER,
            xr::sys::SceneComponentTypeMSFT::MARKER.into_raw()
        );
        assert_eq!(
            MARKER_TYPE_QR_CODE,
            xr::sys::SceneMarkerTypeMSFT::QR_CODE.into_raw()
        );
        assert_eq!(
            QR_CODE_SYMBOL_TYPE_QR_CODE,
            xr::sys::SceneMarkerQRCodeSymbolTypeMSFT::QR_CODE.into_raw()
        );
        assert_eq!(
            QR_CODE_SYMBOL_TYPE_MICRO_QR_CODE,
            xr::sys::SceneMarkerQRCodeSymbolTypeMSFT::MICRO_QR_CODE.into_raw()
        );
        assert_eq!(
            format!("{MARKER_EXTENSION_NAME}\0").as_bytes(),
            xr::sys::MSFT_SCENE_MARKER_EXTENSION_NAME
        );
    }

    #[test]
    fn declarations_match_the_c_layout_of_openxr_h() {
        let Some(layout) = c_layout() else {
            return;
        };
        let expected: Vec<(&str, i64)> = vec![
            (
                "observer_info.size",
                size_of::<SceneObserverCreateInfo>() as i64,
            ),
            ("scene_info.size", size_of::<SceneCreateInfo>() as i64),
            ("sphere.size", size_of::<SceneSphereBound>() as i64),
            ("sphere.radius", offset_of!(SceneSphereBound, radius) as i64),
            ("box.size", size_of::<SceneOrientedBoxBound>() as i64),
            ("frustum.size", size_of::<SceneFrustumBound>() as i64),
            ("bounds.size", size_of::<SceneBounds>() as i64),
            ("bounds.time", offset_of!(SceneBounds, time) as i64),
            ("bounds.spheres", offset_of!(SceneBounds, spheres) as i64),
            ("bounds.boxCount", offset_of!(SceneBounds, box_count) as i64),
            ("bounds.frustums", offset_of!(SceneBounds, frustums) as i64),
            ("compute.size", size_of::<NewSceneComputeInfo>() as i64),
            (
                "compute.requestedFeatures",
                offset_of!(NewSceneComputeInfo, requested_features) as i64,
            ),
            (
                "compute.consistency",
                offset_of!(NewSceneComputeInfo, consistency) as i64,
            ),
            (
                "compute.bounds",
                offset_of!(NewSceneComputeInfo, bounds) as i64,
            ),
            ("component.size", size_of::<SceneComponent>() as i64),
            ("component.id", offset_of!(SceneComponent, id) as i64),
            (
                "component.updateTime",
                offset_of!(SceneComponent, update_time) as i64,
            ),
            ("components.size", size_of::<SceneComponents>() as i64),
            (
                "components.componentCountOutput",
                offset_of!(SceneComponents, component_count_output) as i64,
            ),
            (
                "components.components",
                offset_of!(SceneComponents, components) as i64,
            ),
            ("get_info.size", size_of::<SceneComponentsGetInfo>() as i64),
            (
                "get_info.componentType",
                offset_of!(SceneComponentsGetInfo, component_type) as i64,
            ),
            ("location.size", size_of::<SceneComponentLocation>() as i64),
            (
                "location.pose",
                offset_of!(SceneComponentLocation, pose) as i64,
            ),
            (
                "locations.size",
                size_of::<SceneComponentLocations>() as i64,
            ),
            (
                "locations.locations",
                offset_of!(SceneComponentLocations, locations) as i64,
            ),
            (
                "locate_info.size",
                size_of::<SceneComponentsLocateInfo>() as i64,
            ),
            (
                "locate_info.baseSpace",
                offset_of!(SceneComponentsLocateInfo, base_space) as i64,
            ),
            (
                "locate_info.time",
                offset_of!(SceneComponentsLocateInfo, time) as i64,
            ),
            (
                "locate_info.componentIds",
                offset_of!(SceneComponentsLocateInfo, component_ids) as i64,
            ),
            ("plane.size", size_of::<ScenePlane>() as i64),
            ("plane.extent", offset_of!(ScenePlane, size) as i64),
            (
                "plane.meshBufferId",
                offset_of!(ScenePlane, mesh_buffer_id) as i64,
            ),
            (
                "plane.supportsIndicesUint16",
                offset_of!(ScenePlane, supports_indices_uint16) as i64,
            ),
            ("planes.size", size_of::<ScenePlanes>() as i64),
            (
                "planes.scenePlanes",
                offset_of!(ScenePlanes, scene_planes) as i64,
            ),
            ("FEATURE_PLANE", COMPUTE_FEATURE_PLANE as i64),
            (
                "CONSISTENCY_SNAPSHOT_COMPLETE",
                CONSISTENCY_SNAPSHOT_COMPLETE as i64,
            ),
            (
                "CONSISTENCY_OCCLUSION_OPTIMIZED",
                CONSISTENCY_OCCLUSION_OPTIMIZED as i64,
            ),
            ("COMPONENT_TYPE_PLANE", COMPONENT_TYPE_PLANE as i64),
            ("STATE_NONE", COMPUTE_STATE_NONE as i64),
            ("STATE_UPDATING", COMPUTE_STATE_UPDATING as i64),
            ("STATE_COMPLETED", COMPUTE_STATE_COMPLETED as i64),
            (
                "STATE_COMPLETED_WITH_ERROR",
                COMPUTE_STATE_COMPLETED_WITH_ERROR as i64,
            ),
            ("ALIGNMENT_HORIZONTAL", PLANE_ALIGNMENT_HORIZONTAL as i64),
            (
                "TYPE_NEW_SCENE_COMPUTE_INFO",
                xr::sys::StructureType::NEW_SCENE_COMPUTE_INFO_MSFT.into_raw() as i64,
            ),
            (
                "TYPE_SCENE_PLANES",
                xr::sys::StructureType::SCENE_PLANES_MSFT.into_raw() as i64,
            ),
        ];
        for (name, value) in expected {
            assert_eq!(layout.get(name), Some(&value), "{name}");
        }
    }
}
