//! The instance and the system: xrCreateInstance (where the environment is
//! read and a script the runtime cannot play is refused), the extension
//! list, instance and system properties, paths, string conversions, the
//! view configuration HoloLens 2 has (PRIMARY_STEREO, ADDITIVE only), and
//! the event queue xrPollEvent empties.

use std::collections::{HashMap, VecDeque};
use std::ffi::c_char;

use openxr_sys as xr;
use xr::Handle as _;

use crate::anchors::AnchorStore;
use crate::config::Config;
use crate::extensions::{self, Enabled, Extension};
use crate::observer::OBSERVER;
use crate::remoting::Remoting;
use crate::report::Record;
use crate::session;
use crate::state::{self, Failure, Runtime, XrResult, bad_handle, call, invalid, with_runtime};
use crate::structs::{
    self, c_str, check_chain, fixed_str, input, out_value, output, two_call, two_call_typed,
    write_fixed,
};
use crate::wearer::Wearer;

/// The one system's id: a head-mounted display.
const SYSTEM_ID: u64 = 1;

/// The one system.
pub fn system_id() -> xr::SystemId {
    xr::SystemId::from_raw(SYSTEM_ID)
}
/// The runtime's name in xrGetInstanceProperties.
pub const RUNTIME_NAME: &str = "holoterrain-testrt (HoloLens 2-like test runtime)";
/// The system's name in xrGetSystemProperties.
pub const SYSTEM_NAME: &str = "holoterrain-testrt: emulated HoloLens 2 (a test double)";
/// Most composition layers per frame (OpenXR's minimum for runtimes).
pub const MAX_LAYER_COUNT: u32 = 16;
/// Largest swapchain image side offered.
pub const MAX_IMAGE_SIDE: u32 = 4096;
/// The only blend mode: a see-through display adds light (HoloLens 2).
pub const BLEND_MODE: xr::EnvironmentBlendMode = xr::EnvironmentBlendMode::ADDITIVE;
/// The only view configuration: two eyes.
pub const VIEW_CONFIGURATION: xr::ViewConfigurationType = xr::ViewConfigurationType::PRIMARY_STEREO;
/// OpenXR's limit on path strings, including the NUL.
const MAX_PATH_LENGTH: usize = 256;

/// An event waiting for xrPollEvent.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// XrEventDataSessionStateChanged.
    SessionStateChanged {
        /// The session.
        session: u64,
        /// Its new state.
        state: xr::SessionState,
        /// When it changed.
        time_ns: i64,
    },
    /// XrEventDataInteractionProfileChanged.
    InteractionProfileChanged {
        /// The session.
        session: u64,
    },
    /// XrRemotingEventDataListeningMSFT.
    RemotingListening {
        /// The handshake port listened on.
        port: u16,
    },
    /// XrRemotingEventDataConnectedMSFT.
    RemotingConnected,
    /// XrRemotingEventDataDisconnectedMSFT.
    RemotingDisconnected {
        /// XrRemotingDisconnectReasonMSFT.
        reason: u32,
    },
    /// XrEventDataRemotingSpeechRecognizerStateChangedMSFT.
    SpeechRecognizerState {
        /// The session the recognizer listens for.
        session: u64,
        /// XrRemotingSpeechRecognizerStateMSFT.
        state: u32,
    },
    /// XrEventDataRemotingSpeechRecognizedMSFT.
    SpeechRecognized {
        /// The session that heard it.
        session: u64,
        /// Names the recognised text.
        packet_id: u64,
    },
}

/// Events in the order they happened.
#[derive(Debug, Default)]
pub struct EventQueue(VecDeque<Event>);

impl EventQueue {
    /// Queues `event`.
    pub fn push(&mut self, event: Event) {
        self.0.push_back(event);
    }

    /// Drops the events of a destroyed session.
    pub fn forget_session(&mut self, handle: u64) {
        self.0.retain(|event| match event {
            Event::SessionStateChanged { session, .. }
            | Event::InteractionProfileChanged { session }
            | Event::SpeechRecognizerState { session, .. }
            | Event::SpeechRecognized { session, .. } => *session != handle,
            _ => true,
        });
    }
}

/// Path strings and their atoms (1, 2, ... in order of first use).
#[derive(Debug, Default)]
pub struct Paths {
    /// The atom of each string.
    atoms: HashMap<String, u64>,
    /// Each atom's string, atom n at n - 1.
    strings: Vec<String>,
}

impl Paths {
    /// The atom of `text`, made on first use.
    pub fn atom(&mut self, text: &str) -> xr::Path {
        if let Some(&atom) = self.atoms.get(text) {
            return xr::Path::from_raw(atom);
        }
        self.strings.push(text.to_owned());
        let atom = self.strings.len() as u64;
        self.atoms.insert(text.to_owned(), atom);
        xr::Path::from_raw(atom)
    }

    /// The string of `path`, when it is an atom of this instance.
    pub fn string(&self, path: xr::Path) -> Option<&str> {
        let index = usize::try_from(path.into_raw()).ok()?.checked_sub(1)?;
        self.strings.get(index).map(String::as_str)
    }

    /// The string of `path`, or the violation of passing anything else.
    pub fn existing(&self, path: xr::Path, what: &str) -> XrResult<&str> {
        self.string(path).ok_or_else(|| {
            Failure::violation(
                xr::Result::ERROR_PATH_INVALID,
                format!(
                    "{what} {:#x} is not a path of this instance",
                    path.into_raw()
                ),
            )
        })
    }
}

/// Whether `text` is a well-formed OpenXR path: `/`-separated non-empty
/// components of lower-case letters, digits, `-`, `_` and `.`, not all dots.
pub fn is_well_formed_path(text: &str) -> bool {
    text.len() < MAX_PATH_LENGTH
        && text.starts_with('/')
        && text[1..].split('/').all(|component| {
            !component.is_empty()
                && component.chars().any(|c| c != '.')
                && component.chars().all(|c| {
                    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.')
                })
        })
}

/// xrEnumerateInstanceExtensionProperties.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_instance_extension_properties(
    layer_name: *const c_char,
    capacity: u32,
    count_output: *mut u32,
    properties: *mut xr::ExtensionProperties,
) -> xr::Result {
    call("xrEnumerateInstanceExtensionProperties", |_| {
        if !layer_name.is_null() {
            return Err(Failure::quiet(xr::Result::ERROR_API_LAYER_NOT_PRESENT));
        }
        // SAFETY: count_output and properties are the application's (NULL or valid).
        unsafe {
            two_call_typed(
                capacity,
                count_output,
                properties,
                &extensions::offered(),
                "properties",
                |slot, &(name, version)| {
                    write_fixed(&mut slot.extension_name, name);
                    slot.extension_version = version;
                },
            )
        }
    })
}

/// xrCreateInstance: reads the environment; a bad value or a script event
/// the runtime cannot play is one line on stderr and
/// XR_ERROR_INITIALIZATION_FAILED.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_instance(
    create_info: *const xr::InstanceCreateInfo,
    instance: *mut xr::Instance,
) -> xr::Result {
    call("xrCreateInstance", |state| {
        // SAFETY: the application's pointer, NULL or valid for the call.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe {
            check_chain(
                info.next,
                &[xr::StructureType::DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT],
                "createInfo",
            )
        }?;
        if info.create_flags != xr::InstanceCreateFlags::EMPTY {
            return Err(invalid("createInfo.createFlags must be 0"));
        }
        let application = &info.application_info;
        let name = fixed_str(
            &application.application_name,
            "applicationInfo.applicationName",
        )?;
        if name.is_empty() {
            return Err(Failure::violation(
                xr::Result::ERROR_NAME_INVALID,
                "applicationInfo.applicationName is empty",
            ));
        }
        fixed_str(&application.engine_name, "applicationInfo.engineName")?;
        let version = application.api_version;
        if version.major() != 1 || version.minor() != 0 {
            return Err(Failure::violation(
                xr::Result::ERROR_API_VERSION_UNSUPPORTED,
                format!(
                    "applicationInfo.apiVersion {}.{}.{}: this runtime (like the HoloLens 2 one it emulates) offers OpenXR 1.0",
                    version.major(),
                    version.minor(),
                    version.patch()
                ),
            ));
        }
        let mut enabled = Vec::new();
        for index in 0..info.enabled_extension_count as usize {
            // SAFETY: the application promises enabledExtensionCount valid names.
            let name = unsafe {
                c_str(
                    *info.enabled_extension_names.add(index),
                    "enabledExtensionNames[i]",
                )
            }?;
            match extensions::find(name) {
                Some(extension) => enabled.push(extension),
                None => {
                    return Err(Failure::violation(
                        xr::Result::ERROR_EXTENSION_NOT_PRESENT,
                        format!("{name} is not offered"),
                    ));
                }
            }
        }
        if enabled.contains(&Extension::SpatialAnchorPersistence)
            && !enabled.contains(&Extension::SpatialAnchor)
        {
            return Err(Failure::violation(
                xr::Result::ERROR_EXTENSION_DEPENDENCY_NOT_ENABLED,
                "XR_MSFT_spatial_anchor_persistence needs XR_MSFT_spatial_anchor enabled too",
            ));
        }
        if enabled.contains(&Extension::SceneMarker)
            && !enabled.contains(&Extension::SceneUnderstanding)
        {
            return Err(Failure::violation(
                xr::Result::ERROR_EXTENSION_DEPENDENCY_NOT_ENABLED,
                "XR_MSFT_scene_marker needs XR_MSFT_scene_understanding enabled too",
            ));
        }
        // SAFETY: the application's output pointer.
        let instance = unsafe { out_value(instance, "instance") }?;
        if state.is_some() {
            return Err(Failure::quiet(xr::Result::ERROR_LIMIT_REACHED));
        }
        let runtime = open(Enabled::new(enabled)).map_err(|line| {
            eprintln!("holoterrain-testrt: {line}; xrCreateInstance fails");
            Failure::quiet(xr::Result::ERROR_INITIALIZATION_FAILED)
        })?;
        *instance = xr::Instance::from_raw(runtime.instance);
        *state = Some(runtime);
        Ok(xr::Result::SUCCESS)
    })
}

/// The instance's state from the environment, or the one line saying why not.
fn open(enabled: Enabled) -> Result<Runtime, String> {
    let config = Config::from_environment().map_err(|error| error.to_string())?;
    let wearer = Wearer::new(&config).map_err(|error| format!("the wearer's app core: {error}"))?;
    let record = Record::open(config.out.clone()).map_err(|error| error.to_string())?;
    let anchor_store = AnchorStore::open(config.out.as_deref())?;
    let remoting = Remoting::new(
        config.remoting.clone(),
        config.pc_codecs.clone(),
        config.player_codecs.clone(),
    );
    let reprojection_modes = crate::reprojection::listed_modes()?;
    let observer = crate::observer::ObserverSettings::from_environment()?;
    Ok(Runtime {
        reprojection_modes,
        observer,
        ..Runtime::new(config, enabled, wearer, remoting, record, anchor_store)
    })
}

/// xrDestroyInstance: destroys what is left and writes runtime-report.json.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_instance(instance: xr::Instance) -> xr::Result {
    call("xrDestroyInstance", |state| {
        let Some(runtime) = state.as_mut() else {
            return Err(bad_handle("no XrInstance exists"));
        };
        runtime.check_instance(instance)?;
        let sessions: Vec<u64> = runtime.sessions.keys().copied().collect();
        for handle in sessions {
            session::destroy(runtime, handle);
        }
        runtime.action_sets.clear();
        runtime.actions.clear();
        let Some(runtime) = state.take() else {
            return Err(bad_handle("no XrInstance exists"));
        };
        let written = runtime.record.write(&runtime);
        if let Err(error) = written {
            eprintln!("holoterrain-testrt: {error}");
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrGetInstanceProperties.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_instance_properties(
    instance: xr::Instance,
    properties: *mut xr::InstanceProperties,
) -> xr::Result {
    with_runtime("xrGetInstanceProperties", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's output pointer.
        let properties = unsafe { output(properties, "instanceProperties") }?;
        properties.runtime_version = runtime_version();
        write_fixed(&mut properties.runtime_name, RUNTIME_NAME);
        Ok(xr::Result::SUCCESS)
    })
}

/// This crate's version as an XrVersion.
fn runtime_version() -> xr::Version {
    xr::Version::new(
        env!("CARGO_PKG_VERSION_MAJOR").parse().unwrap_or(0),
        env!("CARGO_PKG_VERSION_MINOR").parse().unwrap_or(0),
        env!("CARGO_PKG_VERSION_PATCH").parse().unwrap_or(0),
    )
}

/// xrGetSystem.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_system(
    instance: xr::Instance,
    get_info: *const xr::SystemGetInfo,
    system_id: *mut xr::SystemId,
) -> xr::Result {
    with_runtime("xrGetSystem", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(get_info, "getInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "getInfo") }?;
        // SAFETY: the application's output pointer.
        let system_id = unsafe { out_value(system_id, "systemId") }?;
        match info.form_factor {
            xr::FormFactor::HEAD_MOUNTED_DISPLAY => {
                *system_id = self::system_id();
                Ok(xr::Result::SUCCESS)
            }
            xr::FormFactor::HANDHELD_DISPLAY => {
                Err(Failure::quiet(xr::Result::ERROR_FORM_FACTOR_UNSUPPORTED))
            }
            other => Err(invalid(format!(
                "formFactor {other:?} is not an XrFormFactor"
            ))),
        }
    })
}

/// Fails unless `system` is the one system.
pub fn check_system(system: xr::SystemId) -> XrResult {
    if system == self::system_id() {
        Ok(())
    } else {
        Err(Failure::violation(
            xr::Result::ERROR_SYSTEM_INVALID,
            format!(
                "systemId {} was not returned by xrGetSystem",
                system.into_raw()
            ),
        ))
    }
}

/// xrGetSystemProperties (with XrSystemHandTrackingPropertiesEXT).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_system_properties(
    instance: xr::Instance,
    system_id: xr::SystemId,
    properties: *mut xr::SystemProperties,
) -> xr::Result {
    with_runtime("xrGetSystemProperties", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        // SAFETY: the application's output pointer.
        let properties = unsafe { output(properties, "properties") }?;
        let mut allowed = Vec::new();
        if runtime.enabled.has(Extension::HandTracking) {
            allowed.push(xr::StructureType::SYSTEM_HAND_TRACKING_PROPERTIES_EXT);
        }
        if runtime.enabled.has(Extension::PlaneDetection) {
            allowed.push(xr::StructureType::SYSTEM_PLANE_DETECTION_PROPERTIES_EXT);
        }
        // SAFETY: the chain is the application's.
        unsafe { check_chain(properties.next, &allowed, "properties") }?;
        properties.system_id = self::system_id();
        properties.vendor_id = 0;
        write_fixed(&mut properties.system_name, SYSTEM_NAME);
        properties.graphics_properties = xr::SystemGraphicsProperties {
            max_swapchain_image_height: MAX_IMAGE_SIDE,
            max_swapchain_image_width: MAX_IMAGE_SIDE,
            max_layer_count: MAX_LAYER_COUNT,
        };
        properties.tracking_properties = xr::SystemTrackingProperties {
            orientation_tracking: xr::TRUE,
            position_tracking: xr::TRUE,
        };
        // SAFETY: the chain is the application's, its structures writable.
        if let Some(hands) = unsafe {
            structs::find_in_chain::<xr::SystemHandTrackingPropertiesEXT>(properties.next)
        } {
            hands.supports_hand_tracking = xr::TRUE;
        }
        // SAFETY: the chain is the application's, its structures writable.
        if let Some(planes) = unsafe {
            structs::find_in_chain::<xr::SystemPlaneDetectionPropertiesEXT>(properties.next)
        } {
            planes.supported_features = xr::PlaneDetectionCapabilityFlagsEXT::PLANE_DETECTION;
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// Fails unless `view_type` is PRIMARY_STEREO.
pub fn check_view_configuration(view_type: xr::ViewConfigurationType) -> XrResult {
    if view_type == VIEW_CONFIGURATION {
        Ok(())
    } else {
        Err(Failure::violation(
            xr::Result::ERROR_VIEW_CONFIGURATION_TYPE_UNSUPPORTED,
            format!("view configuration {view_type:?}: this system has PRIMARY_STEREO only"),
        ))
    }
}

/// `view_type` must be PRIMARY_STEREO, or the observer's where its
/// extensions are enabled.
pub fn check_any_view_configuration(
    runtime: &Runtime,
    view_type: xr::ViewConfigurationType,
) -> XrResult {
    if view_type == OBSERVER && runtime.enabled.observer() {
        Ok(())
    } else {
        check_view_configuration(view_type)
    }
}

/// xrEnumerateViewConfigurations.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_view_configurations(
    instance: xr::Instance,
    system_id: xr::SystemId,
    capacity: u32,
    count_output: *mut u32,
    types: *mut xr::ViewConfigurationType,
) -> xr::Result {
    with_runtime("xrEnumerateViewConfigurations", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        let listed: &[xr::ViewConfigurationType] = if runtime.enabled.observer() {
            &[VIEW_CONFIGURATION, OBSERVER]
        } else {
            &[VIEW_CONFIGURATION]
        };
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                types,
                listed,
                "viewConfigurationTypes",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        }
    })
}

/// xrGetViewConfigurationProperties.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_view_configuration_properties(
    instance: xr::Instance,
    system_id: xr::SystemId,
    view_type: xr::ViewConfigurationType,
    properties: *mut xr::ViewConfigurationProperties,
) -> xr::Result {
    with_runtime("xrGetViewConfigurationProperties", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        check_any_view_configuration(runtime, view_type)?;
        // SAFETY: the application's output pointer.
        let properties = unsafe { output(properties, "configurationProperties") }?;
        properties.view_configuration_type = view_type;
        properties.fov_mutable = xr::FALSE;
        Ok(xr::Result::SUCCESS)
    })
}

/// xrEnumerateViewConfigurationViews: two eyes at the configured size, or
/// the observer's one view at the size of its latest activation (the start
/// size until it was first active).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_view_configuration_views(
    instance: xr::Instance,
    system_id: xr::SystemId,
    view_type: xr::ViewConfigurationType,
    capacity: u32,
    count_output: *mut u32,
    views: *mut xr::ViewConfigurationView,
) -> xr::Result {
    with_runtime("xrEnumerateViewConfigurationViews", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        check_any_view_configuration(runtime, view_type)?;
        let (size, count) = if view_type == OBSERVER {
            (
                runtime.observer.recommended(runtime.observer_activations),
                1,
            )
        } else {
            (runtime.config.resolution, 2)
        };
        // SAFETY: the application's pointers.
        unsafe {
            two_call_typed(
                capacity,
                count_output,
                views,
                &[(); 2][..count],
                "views",
                |view, ()| {
                    view.recommended_image_rect_width = size.width;
                    view.recommended_image_rect_height = size.height;
                    view.max_image_rect_width = MAX_IMAGE_SIDE;
                    view.max_image_rect_height = MAX_IMAGE_SIDE;
                    view.recommended_swapchain_sample_count = 1;
                    view.max_swapchain_sample_count = 1;
                },
            )
        }
    })
}

/// xrEnumerateEnvironmentBlendModes: ADDITIVE only.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_environment_blend_modes(
    instance: xr::Instance,
    system_id: xr::SystemId,
    view_type: xr::ViewConfigurationType,
    capacity: u32,
    count_output: *mut u32,
    modes: *mut xr::EnvironmentBlendMode,
) -> xr::Result {
    with_runtime("xrEnumerateEnvironmentBlendModes", |runtime| {
        runtime.check_instance(instance)?;
        check_system(system_id)?;
        check_any_view_configuration(runtime, view_type)?;
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                modes,
                &[BLEND_MODE],
                "environmentBlendModes",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        }
    })
}

/// xrStringToPath.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn string_to_path(
    instance: xr::Instance,
    path_string: *const c_char,
    path: *mut xr::Path,
) -> xr::Result {
    with_runtime("xrStringToPath", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's string.
        let text = unsafe { c_str(path_string, "pathString") }?;
        if !is_well_formed_path(text) {
            return Err(Failure::violation(
                xr::Result::ERROR_PATH_FORMAT_INVALID,
                format!("`{text}` is not a well-formed path"),
            ));
        }
        // SAFETY: the application's output pointer.
        let path = unsafe { out_value(path, "path") }?;
        *path = runtime.paths.atom(text);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrPathToString.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn path_to_string(
    instance: xr::Instance,
    path: xr::Path,
    capacity: u32,
    count_output: *mut u32,
    buffer: *mut c_char,
) -> xr::Result {
    with_runtime("xrPathToString", |runtime| {
        runtime.check_instance(instance)?;
        let text = runtime.paths.existing(path, "path")?;
        let mut bytes: Vec<c_char> = text.bytes().map(|byte| byte as c_char).collect();
        bytes.push(0);
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                buffer,
                &bytes,
                "buffer",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        }
    })
}

/// xrResultToString.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn result_to_string(
    instance: xr::Instance,
    value: xr::Result,
    buffer: *mut c_char,
) -> xr::Result {
    with_runtime("xrResultToString", |runtime| {
        runtime.check_instance(instance)?;
        let name = match format!("{value:?}").parse::<i32>() {
            Ok(raw) if raw >= 0 => format!("XR_UNKNOWN_SUCCESS_{raw}"),
            Ok(raw) => format!("XR_UNKNOWN_FAILURE_{}", -i64::from(raw)),
            Err(_) => state::result_name(value),
        };
        write_string_buffer(buffer, xr::MAX_RESULT_STRING_SIZE, &name)
    })
}

/// xrStructureTypeToString.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn structure_type_to_string(
    instance: xr::Instance,
    value: xr::StructureType,
    buffer: *mut c_char,
) -> xr::Result {
    with_runtime("xrStructureTypeToString", |runtime| {
        runtime.check_instance(instance)?;
        write_string_buffer(
            buffer,
            xr::MAX_STRUCTURE_NAME_SIZE,
            &structs::structure_type_name(value),
        )
    })
}

/// Writes `text` into the application's fixed-size `buffer`.
fn write_string_buffer(buffer: *mut c_char, size: usize, text: &str) -> XrResult<xr::Result> {
    if buffer.is_null() {
        return Err(invalid("buffer is NULL"));
    }
    // SAFETY: the API gives the buffer `size` characters.
    let buffer = unsafe { std::slice::from_raw_parts_mut(buffer, size) };
    write_fixed(buffer, text);
    Ok(xr::Result::SUCCESS)
}

/// xrPollEvent.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn poll_event(
    instance: xr::Instance,
    event_data: *mut xr::EventDataBuffer,
) -> xr::Result {
    with_runtime("xrPollEvent", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's buffer.
        let buffer = unsafe { output(event_data, "eventData") }?;
        for event in runtime.remoting.events_due() {
            let disconnected = matches!(event, Event::RemotingDisconnected { .. });
            runtime.events.push(event);
            if disconnected {
                session::lose_sessions(runtime);
            }
        }
        let Some(event) = runtime.events.0.pop_front() else {
            return Ok(xr::Result::EVENT_UNAVAILABLE);
        };
        write_event(buffer, &event);
        Ok(xr::Result::SUCCESS)
    })
}

/// Writes `event` over the application's XrEventDataBuffer.
fn write_event(buffer: &mut xr::EventDataBuffer, event: &Event) {
    let base: *mut xr::EventDataBuffer = buffer;
    // SAFETY: every event structure below is smaller than XrEventDataBuffer
    // (4000 bytes) and no more aligned, so each fits in the buffer.
    unsafe {
        match *event {
            Event::SessionStateChanged {
                session,
                state,
                time_ns,
            } => base.cast::<xr::EventDataSessionStateChanged>().write(
                xr::EventDataSessionStateChanged {
                    ty: xr::EventDataSessionStateChanged::TYPE,
                    next: std::ptr::null(),
                    session: xr::Session::from_raw(session),
                    state,
                    time: xr::Time::from_nanos(time_ns),
                },
            ),
            Event::InteractionProfileChanged { session } => base
                .cast::<xr::EventDataInteractionProfileChanged>()
                .write(xr::EventDataInteractionProfileChanged {
                    ty: xr::EventDataInteractionProfileChanged::TYPE,
                    next: std::ptr::null(),
                    session: xr::Session::from_raw(session),
                }),
            Event::RemotingListening { port } => base
                .cast::<holoterrain::xr::sys::remoting::EventDataListening>()
                .write(crate::remoting::listening_event(port)),
            Event::RemotingConnected => base
                .cast::<xr::EventDataBaseHeader>()
                .write(crate::remoting::connected_event()),
            Event::RemotingDisconnected { reason } => base
                .cast::<holoterrain::xr::sys::remoting::EventDataDisconnected>()
                .write(crate::remoting::disconnected_event(reason)),
            Event::SpeechRecognizerState { state, .. } => base
                .cast::<holoterrain::xr::sys::speech::EventDataRecognizerStateChanged>()
                .write(crate::speech::recognizer_state_event(state)),
            Event::SpeechRecognized { packet_id, .. } => base
                .cast::<holoterrain::xr::sys::speech::EventDataRecognized>()
                .write(crate::speech::recognized_event(packet_id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_the_specifications_form() {
        for good in [
            "/user/hand/left",
            "/interaction_profiles/khr/simple_controller",
            "/a.b-c_d/0",
        ] {
            assert!(is_well_formed_path(good), "{good}");
        }
        for bad in [
            "",
            "/",
            "user/hand",
            "/user//hand",
            "/user/hand/",
            "/User/hand",
            "/user/./hand",
            "/user/ hand",
        ] {
            assert!(!is_well_formed_path(bad), "{bad:?}");
        }
        assert!(!is_well_formed_path(&format!("/{}", "a".repeat(255))));
    }

    #[test]
    fn atoms_are_stable_and_unknown_ones_are_invalid() {
        let mut paths = Paths::default();
        let left = paths.atom("/user/hand/left");
        assert_eq!(paths.atom("/user/hand/left"), left);
        assert_ne!(paths.atom("/user/hand/right"), left);
        assert_eq!(paths.string(left), Some("/user/hand/left"));
        let failure = paths.existing(xr::Path::from_raw(99), "path").unwrap_err();
        assert_eq!(failure.result, xr::Result::ERROR_PATH_INVALID);
        assert_eq!(paths.string(xr::Path::NULL), None);
    }
}
