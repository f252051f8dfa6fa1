//! xrGetInstanceProcAddr: the table of every function the runtime offers.
//! Core functions are always there (xrEnumerateApiLayerProperties is the
//! loader's own); an extension's only while the application has it enabled.

use std::ffi::c_char;

use openxr_sys as xr;
use xr::Handle as _;

use crate::extensions::{Enabled, Extension};
use crate::state::{Failure, bad_handle, call};
use crate::structs::{c_str, out_value};
use crate::{
    action_states, actions, anchors, frame, graphics, hands, instance, planes, remoting,
    reprojection, scene, session, spaces, speech, swapchain,
};
use holoterrain::xr::sys::scene_understanding as su;

/// Matches `$name` against function names, each given with its function
/// and its `PFN_xr*` type (so a wrong signature does not compile), and
/// yields the function as a `PFN_xrVoidFunction`.
macro_rules! table {
    ($name:expr, $($xr:literal => $function:path as $pfn:ty),* $(,)?) => {
        match $name {
            $($xr => {
                let typed: $pfn = $function;
                // SAFETY: an OpenXR function pointer is handed out as a
                // PFN_xrVoidFunction; the caller casts it back to the type
                // of the name it asked for, which is `$pfn`.
                Some(unsafe { std::mem::transmute::<$pfn, openxr_sys::pfn::VoidFunction>(typed) })
            })*
            _ => None,
        }
    };
}
pub(crate) use table;

/// The core OpenXR 1.0 functions.
fn core(name: &str) -> Option<xr::pfn::VoidFunction> {
    table!(name,
        "xrGetInstanceProcAddr" => get_instance_proc_addr as xr::pfn::GetInstanceProcAddr,
        "xrEnumerateInstanceExtensionProperties" => instance::enumerate_instance_extension_properties as xr::pfn::EnumerateInstanceExtensionProperties,
        "xrCreateInstance" => instance::create_instance as xr::pfn::CreateInstance,
        "xrDestroyInstance" => instance::destroy_instance as xr::pfn::DestroyInstance,
        "xrResultToString" => instance::result_to_string as xr::pfn::ResultToString,
        "xrStructureTypeToString" => instance::structure_type_to_string as xr::pfn::StructureTypeToString,
        "xrGetInstanceProperties" => instance::get_instance_properties as xr::pfn::GetInstanceProperties,
        "xrGetSystem" => instance::get_system as xr::pfn::GetSystem,
        "xrGetSystemProperties" => instance::get_system_properties as xr::pfn::GetSystemProperties,
        "xrEnumerateViewConfigurations" => instance::enumerate_view_configurations as xr::pfn::EnumerateViewConfigurations,
        "xrGetViewConfigurationProperties" => instance::get_view_configuration_properties as xr::pfn::GetViewConfigurationProperties,
        "xrEnumerateViewConfigurationViews" => instance::enumerate_view_configuration_views as xr::pfn::EnumerateViewConfigurationViews,
        "xrEnumerateEnvironmentBlendModes" => instance::enumerate_environment_blend_modes as xr::pfn::EnumerateEnvironmentBlendModes,
        "xrPollEvent" => instance::poll_event as xr::pfn::PollEvent,
        "xrStringToPath" => instance::string_to_path as xr::pfn::StringToPath,
        "xrPathToString" => instance::path_to_string as xr::pfn::PathToString,
        "xrCreateSession" => session::create_session as xr::pfn::CreateSession,
        "xrDestroySession" => session::destroy_session as xr::pfn::DestroySession,
        "xrBeginSession" => session::begin_session as xr::pfn::BeginSession,
        "xrEndSession" => session::end_session as xr::pfn::EndSession,
        "xrRequestExitSession" => session::request_exit_session as xr::pfn::RequestExitSession,
        "xrWaitFrame" => frame::wait_frame as xr::pfn::WaitFrame,
        "xrBeginFrame" => frame::begin_frame as xr::pfn::BeginFrame,
        "xrEndFrame" => frame::end_frame as xr::pfn::EndFrame,
        "xrEnumerateSwapchainFormats" => swapchain::enumerate_swapchain_formats as xr::pfn::EnumerateSwapchainFormats,
        "xrCreateSwapchain" => swapchain::create_swapchain as xr::pfn::CreateSwapchain,
        "xrDestroySwapchain" => swapchain::destroy_swapchain as xr::pfn::DestroySwapchain,
        "xrEnumerateSwapchainImages" => swapchain::enumerate_swapchain_images as xr::pfn::EnumerateSwapchainImages,
        "xrAcquireSwapchainImage" => swapchain::acquire_swapchain_image as xr::pfn::AcquireSwapchainImage,
        "xrWaitSwapchainImage" => swapchain::wait_swapchain_image as xr::pfn::WaitSwapchainImage,
        "xrReleaseSwapchainImage" => swapchain::release_swapchain_image as xr::pfn::ReleaseSwapchainImage,
        "xrEnumerateReferenceSpaces" => spaces::enumerate_reference_spaces as xr::pfn::EnumerateReferenceSpaces,
        "xrCreateReferenceSpace" => spaces::create_reference_space as xr::pfn::CreateReferenceSpace,
        "xrGetReferenceSpaceBoundsRect" => spaces::get_reference_space_bounds_rect as xr::pfn::GetReferenceSpaceBoundsRect,
        "xrCreateActionSpace" => spaces::create_action_space as xr::pfn::CreateActionSpace,
        "xrDestroySpace" => spaces::destroy_space as xr::pfn::DestroySpace,
        "xrLocateSpace" => spaces::locate_space as xr::pfn::LocateSpace,
        "xrLocateViews" => spaces::locate_views as xr::pfn::LocateViews,
        "xrCreateActionSet" => actions::create_action_set as xr::pfn::CreateActionSet,
        "xrDestroyActionSet" => actions::destroy_action_set as xr::pfn::DestroyActionSet,
        "xrCreateAction" => actions::create_action as xr::pfn::CreateAction,
        "xrDestroyAction" => actions::destroy_action as xr::pfn::DestroyAction,
        "xrSuggestInteractionProfileBindings" => actions::suggest_interaction_profile_bindings as xr::pfn::SuggestInteractionProfileBindings,
        "xrAttachSessionActionSets" => actions::attach_session_action_sets as xr::pfn::AttachSessionActionSets,
        "xrGetCurrentInteractionProfile" => actions::get_current_interaction_profile as xr::pfn::GetCurrentInteractionProfile,
        "xrSyncActions" => action_states::sync_actions as xr::pfn::SyncActions,
        "xrGetActionStateBoolean" => action_states::get_action_state_boolean as xr::pfn::GetActionStateBoolean,
        "xrGetActionStateFloat" => action_states::get_action_state_float as xr::pfn::GetActionStateFloat,
        "xrGetActionStateVector2f" => action_states::get_action_state_vector2f as xr::pfn::GetActionStateVector2f,
        "xrGetActionStatePose" => action_states::get_action_state_pose as xr::pfn::GetActionStatePose,
        "xrApplyHapticFeedback" => action_states::apply_haptic_feedback as xr::pfn::ApplyHapticFeedback,
        "xrStopHapticFeedback" => action_states::stop_haptic_feedback as xr::pfn::StopHapticFeedback,
        "xrEnumerateBoundSourcesForAction" => actions::enumerate_bound_sources_for_action as xr::pfn::EnumerateBoundSourcesForAction,
        "xrGetInputSourceLocalizedName" => actions::get_input_source_localized_name as xr::pfn::GetInputSourceLocalizedName,
    )
}

/// The functions of the enabled extensions.
fn extension(name: &str, enabled: &Enabled) -> Option<xr::pfn::VoidFunction> {
    let graphics = enabled.has(Extension::VulkanEnable2) || enabled.has(Extension::D3d11Enable);
    let hand_tracking = || {
        table!(name,
            "xrCreateHandTrackerEXT" => hands::create_hand_tracker as xr::pfn::CreateHandTrackerEXT,
            "xrDestroyHandTrackerEXT" => hands::destroy_hand_tracker as xr::pfn::DestroyHandTrackerEXT,
            "xrLocateHandJointsEXT" => hands::locate_hand_joints as xr::pfn::LocateHandJointsEXT,
        )
    };
    let spatial_anchor = || {
        table!(name,
            "xrCreateSpatialAnchorMSFT" => anchors::create_spatial_anchor as xr::pfn::CreateSpatialAnchorMSFT,
            "xrCreateSpatialAnchorSpaceMSFT" => anchors::create_spatial_anchor_space as xr::pfn::CreateSpatialAnchorSpaceMSFT,
            "xrDestroySpatialAnchorMSFT" => anchors::destroy_spatial_anchor as xr::pfn::DestroySpatialAnchorMSFT,
        )
    };
    let anchor_persistence = || {
        table!(name,
            "xrCreateSpatialAnchorStoreConnectionMSFT" => anchors::create_spatial_anchor_store_connection as xr::pfn::CreateSpatialAnchorStoreConnectionMSFT,
            "xrDestroySpatialAnchorStoreConnectionMSFT" => anchors::destroy_spatial_anchor_store_connection as xr::pfn::DestroySpatialAnchorStoreConnectionMSFT,
            "xrPersistSpatialAnchorMSFT" => anchors::persist_spatial_anchor as xr::pfn::PersistSpatialAnchorMSFT,
            "xrEnumeratePersistedSpatialAnchorNamesMSFT" => anchors::enumerate_persisted_spatial_anchor_names as xr::pfn::EnumeratePersistedSpatialAnchorNamesMSFT,
            "xrCreateSpatialAnchorFromPersistedNameMSFT" => anchors::create_spatial_anchor_from_persisted_name as xr::pfn::CreateSpatialAnchorFromPersistedNameMSFT,
            "xrUnpersistSpatialAnchorMSFT" => anchors::unpersist_spatial_anchor as xr::pfn::UnpersistSpatialAnchorMSFT,
            "xrClearSpatialAnchorStoreMSFT" => anchors::clear_spatial_anchor_store as xr::pfn::ClearSpatialAnchorStoreMSFT,
        )
    };
    let scene_understanding = || {
        table!(name,
            "xrEnumerateSceneComputeFeaturesMSFT" => scene::enumerate_scene_compute_features as EnumerateSceneComputeFeaturesFn,
            "xrCreateSceneObserverMSFT" => scene::create_scene_observer as su::CreateSceneObserverFn,
            "xrDestroySceneObserverMSFT" => scene::destroy_scene_observer as su::DestroySceneObserverFn,
            "xrCreateSceneMSFT" => scene::create_scene as su::CreateSceneFn,
            "xrDestroySceneMSFT" => scene::destroy_scene as su::DestroySceneFn,
            "xrComputeNewSceneMSFT" => scene::compute_new_scene as su::ComputeNewSceneFn,
            "xrGetSceneComputeStateMSFT" => scene::get_scene_compute_state as su::GetSceneComputeStateFn,
            "xrGetSceneComponentsMSFT" => scene::get_scene_components as su::GetSceneComponentsFn,
            "xrLocateSceneComponentsMSFT" => scene::locate_scene_components as su::LocateSceneComponentsFn,
        )
    };
    let scene_marker = || {
        table!(name,
            "xrGetSceneMarkerDecodedStringMSFT" => scene::get_scene_marker_decoded_string as su::GetSceneMarkerDecodedStringFn,
            "xrGetSceneMarkerRawDataMSFT" => scene::get_scene_marker_raw_data as su::GetSceneMarkerRawDataFn,
        )
    };
    let reprojection = || {
        table!(name,
            "xrEnumerateReprojectionModesMSFT" => reprojection::enumerate_reprojection_modes as xr::pfn::EnumerateReprojectionModesMSFT,
        )
    };
    let plane_detection = || {
        table!(name,
            "xrCreatePlaneDetectorEXT" => planes::create_plane_detector as xr::pfn::CreatePlaneDetectorEXT,
            "xrDestroyPlaneDetectorEXT" => planes::destroy_plane_detector as xr::pfn::DestroyPlaneDetectorEXT,
            "xrBeginPlaneDetectionEXT" => planes::begin_plane_detection as xr::pfn::BeginPlaneDetectionEXT,
            "xrGetPlaneDetectionStateEXT" => planes::get_plane_detection_state as xr::pfn::GetPlaneDetectionStateEXT,
            "xrGetPlaneDetectionsEXT" => planes::get_plane_detections as xr::pfn::GetPlaneDetectionsEXT,
            "xrGetPlanePolygonBufferEXT" => planes::get_plane_polygon_buffer as xr::pfn::GetPlanePolygonBufferEXT,
        )
    };
    None.or_else(|| graphics.then(|| graphics::function(name)).flatten())
        .or_else(|| {
            enabled
                .has(Extension::CompositionLayerReprojection)
                .then(reprojection)
                .flatten()
        })
        .or_else(|| {
            enabled
                .has(Extension::HandTracking)
                .then(hand_tracking)
                .flatten()
        })
        .or_else(|| {
            enabled
                .has(Extension::SpatialAnchor)
                .then(spatial_anchor)
                .flatten()
        })
        .or_else(|| {
            enabled
                .has(Extension::SpatialAnchorPersistence)
                .then(anchor_persistence)
                .flatten()
        })
        .or_else(|| {
            enabled
                .has(Extension::SceneUnderstanding)
                .then(scene_understanding)
                .flatten()
        })
        .or_else(|| {
            enabled
                .has(Extension::SceneMarker)
                .then(scene_marker)
                .flatten()
        })
        .or_else(|| {
            enabled
                .has(Extension::PlaneDetection)
                .then(plane_detection)
                .flatten()
        })
        .or_else(|| {
            enabled
                .has(Extension::HolographicRemoting)
                .then(|| remoting::function(name))
                .flatten()
        })
        .or_else(|| {
            enabled
                .has(Extension::HolographicRemotingSpeech)
                .then(|| speech::function(name))
                .flatten()
        })
}

/// PFN_xrEnumerateSceneComputeFeaturesMSFT (the app does not call it, so
/// its declarations leave it out).
type EnumerateSceneComputeFeaturesFn =
    unsafe extern "system" fn(xr::Instance, xr::SystemId, u32, *mut u32, *mut i32) -> xr::Result;

/// The functions that may be asked for without an instance.
const GLOBAL: [&str; 3] = [
    "xrEnumerateInstanceExtensionProperties",
    "xrEnumerateApiLayerProperties",
    "xrCreateInstance",
];

/// xrGetInstanceProcAddr.
///
/// # Safety
/// The arguments are the application's (or loader's), as the OpenXR API
/// defines them.
pub unsafe extern "system" fn get_instance_proc_addr(
    instance: xr::Instance,
    name: *const c_char,
    function: *mut Option<xr::pfn::VoidFunction>,
) -> xr::Result {
    call("xrGetInstanceProcAddr", |state| {
        // SAFETY: the caller's output pointer and name.
        let (function, name) = unsafe { (out_value(function, "function")?, c_str(name, "name")?) };
        *function = None;
        let found = if instance.into_raw() == 0 {
            if !GLOBAL.contains(&name) {
                return Err(bad_handle(format!(
                    "{name} needs an instance (only {} may be asked for without one)",
                    GLOBAL.join(", ")
                )));
            }
            core(name)
        } else {
            let runtime = state
                .as_ref()
                .ok_or_else(|| bad_handle("no XrInstance exists"))?;
            runtime.check_instance(instance)?;
            core(name).or_else(|| extension(name, &runtime.enabled))
        };
        *function = found;
        match found {
            Some(_) => Ok(xr::Result::SUCCESS),
            None => Err(Failure::quiet(xr::Result::ERROR_FUNCTION_UNSUPPORTED)),
        }
    })
}
