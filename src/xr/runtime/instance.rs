//! The OpenXR instance: loader (or, for Holographic Remoting, the runtime
//! the app loads itself from its manifest), extension negotiation, the
//! headset system and (with `--validation`) the core validation layer and
//! its messenger.

use std::sync::Arc;

use openxr as xr;
use xr::sys::Handle as _;

use super::calls::calling;
use super::graphics_api::{D3D11_BUILT, OfferedGraphics, choose_graphics};
use super::manifest::{self, LoadedRuntime, RuntimeManifest};
use crate::render::Backend;
use crate::xr::error::{XrError, xr_call};
use crate::xr::runtime::validation::{MessageCounter, xr_debug_callback};
use crate::xr::sys::extensions::OPTIONAL_EXTENSIONS;
use crate::xr::sys::remoting;
use crate::xr::sys::scene_understanding;
use crate::xr::sys::speech;

/// The OpenXR core validation layer's name.
const CORE_VALIDATION_LAYER: &str = "XR_APILAYER_LUNARG_core_validation";
/// The first OpenXR version whose headers (and so core validation layer)
/// know XR_MSFT_scene_marker.
const MARKER_LAYER_VERSION: xr::Version = xr::Version::new(1, 0, 31);

/// Which optional extensions the runtime offered and we enabled.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnabledExtensions {
    /// XR_EXT_hand_tracking: articulated hand joints.
    pub hand_tracking: bool,
    /// XR_MSFT_hand_interaction: the microsoft/hand_interaction profile
    /// (air-tap select).
    pub msft_hand_interaction: bool,
    /// XR_EXT_hand_interaction: the ext/hand_interaction_ext profile (pinch).
    pub ext_hand_interaction: bool,
    /// XR_MSFT_unbounded_reference_space: world-scale reference space.
    pub unbounded_space: bool,
    /// XR_KHR_composition_layer_depth: submit depth with the projection layer.
    pub composition_depth: bool,
    /// XR_MSFT_composition_layer_reprojection: ask for a reprojection mode.
    pub reprojection: bool,
    /// XR_MSFT_secondary_view_configuration and XR_MSFT_first_person_observer:
    /// render Mixed Reality Capture's camera view.
    pub observer: bool,
    /// XR_MSFT_scene_understanding: the room's planes.
    pub scene_understanding: bool,
    /// XR_MSFT_scene_marker (with scene understanding): the QR codes in sight.
    pub scene_marker: bool,
    /// XR_MSFT_holographic_remoting_speech: the player's speech recognizer
    /// (with remoting only).
    pub remoting_speech: bool,
}

/// What to open the runtime for.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// Turn on the OpenXR core validation layer and a messenger.
    pub validation: bool,
    /// Holographic Remoting: the flag asking for it (`--remote` or
    /// `--listen`) and the remoting runtime's manifest, which the app loads
    /// itself; `None`: the OpenXR loader's active runtime.
    pub remoting: Option<(&'static str, RuntimeManifest)>,
    /// `--graphics`.
    pub graphics: Option<Backend>,
}

/// The loaded runtime: instance, system and what was negotiated.
pub struct Runtime {
    /// The OpenXR instance.
    pub instance: xr::Instance,
    /// The head-mounted display system.
    pub system: xr::SystemId,
    /// The graphics API the session draws with (its extension is on).
    pub graphics: Backend,
    /// The optional extensions that are on.
    pub extensions: EnabledExtensions,
    /// Names of the optional extensions that are on.
    pub enabled_names: Vec<String>,
    /// Names of the optional extensions the runtime lacks.
    pub missing_names: Vec<String>,
    /// Runtime name and version, e.g. "Monado(XRT) by Collabora et al 25.0.0".
    pub runtime_name: String,
    /// Whether the OpenXR core validation layer is on.
    pub core_validation: bool,
    /// The manifest of the runtime the app loaded itself (remoting).
    pub manifest: Option<RuntimeManifest>,
    /// The debug-utils messenger, destroyed in `Drop` before the instance.
    messenger: Option<xr::sys::DebugUtilsMessengerEXT>,
    /// Counts the messenger's messages; shared (with the report so far)
    /// behind an `Arc`, so its address stays put.
    counter: Arc<MessageCounter>,
    /// The runtime library the app loaded itself: the last field, so it is
    /// unloaded after the instance made through it is destroyed.
    _loaded: Option<LoadedRuntime>,
}

/// Opens the system's OpenXR loader, libopenxr_loader.so.1.
#[cfg(not(windows))]
fn open_loader() -> Result<xr::Entry, XrError> {
    // SAFETY: libopenxr_loader.so.1 is the Khronos loader (or a conforming
    // one); its entry points are what the openxr crate expects.
    unsafe { xr::Entry::load(&()) }.map_err(|_| XrError::LoaderMissing)
}

/// The Khronos OpenXR loader linked into the exe: a Windows PC has no loader
/// of its own, and one inside the exe cannot go missing.
#[cfg(windows)]
fn open_loader() -> Result<xr::Entry, XrError> {
    xr::Entry::linked(&()).map_err(XrError::NoRuntime)
}

impl Runtime {
    /// Loads the loader (or, with remoting, the remoting runtime from its
    /// manifest), creates the instance with every useful extension the
    /// runtime offers, and finds the headset. With remoting,
    /// XR_MSFT_holographic_remoting too (and its speech extension when
    /// offered), and a runtime without it fails with
    /// [`XrError::RemotingUnavailable`]. The graphics API is
    /// `options.graphics` (`--graphics`) or what the runtime offers (Vulkan
    /// first), see [`choose_graphics`].
    pub fn open(options: RuntimeOptions) -> Result<Self, XrError> {
        let RuntimeOptions {
            validation,
            remoting,
            graphics: requested,
        } = options;
        let (loaded, entry, mut available) = open_entry(&remoting)?;
        let remoting_speech = remoting.is_some()
            && available
                .other
                .contains(&unknown_extension(speech::EXTENSION_NAME));
        let graphics = choose_graphics(
            requested,
            OfferedGraphics {
                vulkan: available.khr_vulkan_enable2,
                d3d11: offers_d3d11(&available),
            },
            D3D11_BUILT,
        )?;
        let mut wanted = xr::ExtensionSet::default();
        let graphics_extension = match graphics {
            Backend::Vulkan => {
                wanted.khr_vulkan_enable2 = true;
                "XR_KHR_vulkan_enable2"
            }
            Backend::D3d11 => enable_d3d11(&mut wanted)?,
        };
        let layer = ValidationLayer::find(validation, &remoting, loaded.is_some(), &entry)?;
        let mut names = ExtensionNames::default();
        if remoting.is_some() {
            names.want_remoting(&mut wanted, remoting_speech);
        }
        names.want_optional(&mut available, &mut wanted, layer.predates_markers);
        log::info!(
            "OpenXR extensions enabled: {graphics_extension} {}",
            names.enabled.join(" ")
        );
        if !names.missing.is_empty() {
            log::info!("OpenXR extensions not offered: {}", names.missing.join(" "));
        }

        let instance = create_instance(&entry, &wanted, layer.names())?;
        let properties = instance
            .properties()
            .map_err(xr_call("xrGetInstanceProperties"))?;
        let runtime_name = format!("{} {}", properties.runtime_name, properties.runtime_version);
        log::info!("OpenXR runtime: {runtime_name}");

        let counter = Arc::<MessageCounter>::default();
        let messenger = if validation && wanted.ext_debug_utils {
            Some(create_messenger(&instance, &counter)?)
        } else {
            None
        };

        let system = instance
            .system(xr::FormFactor::HEAD_MOUNTED_DISPLAY)
            .map_err(XrError::NoHeadset)?;

        Ok(Self {
            instance,
            system,
            graphics,
            extensions: EnabledExtensions::of(&wanted, &names.enabled, remoting_speech),
            enabled_names: names.enabled,
            missing_names: names.missing,
            runtime_name,
            core_validation: layer.on,
            manifest: remoting.map(|(_, manifest)| manifest),
            messenger,
            counter,
            _loaded: loaded,
        })
    }

    /// The system's name, e.g. "Monado: Simulated HMD". Read once the
    /// session exists: a remoting runtime answers with defaults until it is
    /// connected to the player (Microsoft: create the session before
    /// reading the device's properties).
    pub fn system_name(&self) -> Result<String, XrError> {
        let name = self
            .instance
            .system_properties(self.system)
            .map_err(xr_call("xrGetSystemProperties"))?
            .system_name;
        log::info!("OpenXR system: {name}");
        Ok(name)
    }

    /// Whether XR_EXT_hand_tracking is on and this system actually tracks hands.
    pub fn system_tracks_hands(&self) -> Result<bool, XrError> {
        if !self.extensions.hand_tracking {
            return Ok(false);
        }
        let tracks = self
            .instance
            .supports_hand_tracking(self.system)
            .map_err(xr_call("xrGetSystemProperties"))?;
        if !tracks {
            log::info!("XR_EXT_hand_tracking is offered but this system tracks no hands");
        }
        Ok(tracks)
    }

    /// The count of OpenXR validation messages; `None` when no messenger listens.
    pub fn validation_counter(&self) -> Option<Arc<MessageCounter>> {
        self.messenger.map(|_| Arc::clone(&self.counter))
    }
}

impl EnabledExtensions {
    /// The optional extensions `wanted` turns on; `enabled_names` for those
    /// the openxr crate does not know.
    fn of(wanted: &xr::ExtensionSet, enabled_names: &[String], remoting_speech: bool) -> Self {
        EnabledExtensions {
            hand_tracking: wanted.ext_hand_tracking,
            msft_hand_interaction: wanted.msft_hand_interaction,
            ext_hand_interaction: wanted.ext_hand_interaction,
            unbounded_space: wanted.msft_unbounded_reference_space,
            composition_depth: wanted.khr_composition_layer_depth,
            reprojection: wanted.msft_composition_layer_reprojection,
            observer: wanted.msft_secondary_view_configuration && wanted.msft_first_person_observer,
            scene_understanding: enabled_names
                .iter()
                .any(|name| name == scene_understanding::EXTENSION_NAME),
            scene_marker: enabled_names
                .iter()
                .any(|name| name == scene_understanding::MARKER_EXTENSION_NAME),
            remoting_speech,
        }
    }
}

/// The runtime library the app loaded itself (remoting), the entry to the
/// runtime (through it or the loader) and the extensions the runtime
/// offers. With remoting, a runtime without XR_MSFT_holographic_remoting
/// fails with [`XrError::RemotingUnavailable`].
fn open_entry(
    remoting: &Option<(&'static str, RuntimeManifest)>,
) -> Result<(Option<LoadedRuntime>, xr::Entry, xr::ExtensionSet), XrError> {
    let loaded = match remoting {
        Some((_, manifest)) => Some(manifest::load(&manifest.path)?),
        None => None,
    };
    let entry = match &loaded {
        Some(loaded) => loaded.entry.clone(),
        None => open_loader()?,
    };
    let available = entry
        .enumerate_extensions()
        .map_err(|result| match remoting {
            Some((_, manifest)) => XrError::RuntimeManifest {
                path: manifest.path.clone(),
                problem: format!("its runtime lists no extensions ({result})"),
            },
            None => XrError::NoRuntime(result),
        })?;
    if let Some((flag, manifest)) = remoting
        && !available
            .other
            .contains(&unknown_extension(remoting::EXTENSION_NAME))
    {
        return Err(XrError::RemotingUnavailable {
            flag,
            detail: format!(
                "the OpenXR runtime of {} ({}) does not offer {}",
                manifest.path.display(),
                manifest.origin.name(),
                remoting::EXTENSION_NAME
            ),
        });
    }
    Ok((loaded, entry, available))
}

/// The OpenXR core validation layer, as `--validation` finds it.
struct ValidationLayer {
    /// Asked for and installed: the instance enables it.
    on: bool,
    /// It is on and was built before XR_MSFT_scene_marker (OpenXR 1.0.31),
    /// so it fails every call that names the extension.
    predates_markers: bool,
}

impl ValidationLayer {
    /// Whether the layer is on, with a warning when `--validation` asks for
    /// it and it cannot be.
    fn find(
        validation: bool,
        remoting: &Option<(&'static str, RuntimeManifest)>,
        runtime_loaded_by_app: bool,
        entry: &xr::Entry,
    ) -> Result<Self, XrError> {
        // API layers are the loader's; a runtime loaded without it has none
        // (and no xrEnumerateApiLayerProperties to ask).
        let layers_offered = if runtime_loaded_by_app {
            Vec::new()
        } else {
            entry.enumerate_layers().map_err(XrError::NoRuntime)?
        };
        let core_validation = validation
            && layers_offered
                .iter()
                .any(|layer| layer.layer_name == CORE_VALIDATION_LAYER);
        if validation && remoting.is_some() {
            log::warn!(
                "--validation: the OpenXR core validation layer comes through the OpenXR loader, which remoting bypasses (the app loads the remoting runtime itself); the graphics API's validation still counts"
            );
        } else if validation && !core_validation {
            log::warn!(
                "--validation: the OpenXR core validation layer is not installed (Debian: openxr-layer-corevalidation)"
            );
        }
        let predates_markers = core_validation
            && layers_offered
                .iter()
                .find(|layer| layer.layer_name == CORE_VALIDATION_LAYER)
                .is_some_and(|layer| layer.spec_version < MARKER_LAYER_VERSION);
        Ok(ValidationLayer {
            on: core_validation,
            predates_markers,
        })
    }

    /// The API layers the instance enables.
    fn names(&self) -> &'static [&'static str] {
        if self.on {
            &[CORE_VALIDATION_LAYER]
        } else {
            &[]
        }
    }
}

/// The names of the extensions beyond the graphics API's that the instance
/// enables, and of those the runtime lacks, in the order they were asked for.
#[derive(Default)]
struct ExtensionNames {
    enabled: Vec<String>,
    missing: Vec<String>,
}

impl ExtensionNames {
    /// XR_MSFT_holographic_remoting, and its speech extension when offered.
    fn want_remoting(&mut self, wanted: &mut xr::ExtensionSet, speech_offered: bool) {
        wanted
            .other
            .push(unknown_extension(remoting::EXTENSION_NAME));
        if speech_offered {
            wanted.other.push(unknown_extension(speech::EXTENSION_NAME));
            self.enabled.push(speech::EXTENSION_NAME.to_owned());
        } else {
            self.missing.push(speech::EXTENSION_NAME.to_owned());
        }
    }

    /// Every optional extension the runtime offers (and can use here).
    fn want_optional(
        &mut self,
        available: &mut xr::ExtensionSet,
        wanted: &mut xr::ExtensionSet,
        layer_predates_markers: bool,
    ) {
        for extension in &OPTIONAL_EXTENSIONS {
            let offered = if extension.unknown_to_crate {
                self.want_unknown_to_crate(
                    extension.name,
                    available,
                    wanted,
                    layer_predates_markers,
                )
            } else {
                let (Some(offered), Some(wanted_flag)) =
                    ((extension.flag)(available), (extension.flag)(wanted))
                else {
                    continue;
                };
                *wanted_flag = *offered;
                *offered
            };
            if offered {
                self.enabled.push(extension.name.to_owned());
            } else {
                self.missing.push(extension.name.to_owned());
            }
        }
    }

    /// Asks for `name`, which the openxr crate has no flag for, when the
    /// runtime offers it; whether it did.
    fn want_unknown_to_crate(
        &self,
        name: &'static str,
        available: &xr::ExtensionSet,
        wanted: &mut xr::ExtensionSet,
        layer_predates_markers: bool,
    ) -> bool {
        let nul_terminated = unknown_extension(name);
        // Scene markers need scene understanding enabled too, and a
        // validation layer that knows them.
        let is_marker = name == scene_understanding::MARKER_EXTENSION_NAME;
        let needs_missing = is_marker
            && !self
                .enabled
                .iter()
                .any(|enabled| enabled == scene_understanding::EXTENSION_NAME);
        if is_marker && layer_predates_markers && available.other.contains(&nul_terminated) {
            log::info!(
                "--validation: the OpenXR core validation layer predates {name} (OpenXR 1.0.31) and would fail its calls: QR codes are not read in this run"
            );
        }
        let offered = available.other.contains(&nul_terminated)
            && !needs_missing
            && !(is_marker && layer_predates_markers);
        if offered {
            wanted.other.push(nul_terminated);
        }
        offered
    }
}

/// Creates the instance; a runtime that is not there or fails is
/// [`XrError::NoRuntime`].
fn create_instance(
    entry: &xr::Entry,
    wanted: &xr::ExtensionSet,
    layers: &[&str],
) -> Result<xr::Instance, XrError> {
    entry
        .create_instance(
            &xr::ApplicationInfo {
                application_name: "holoterrain",
                application_version: 1,
                engine_name: "holoterrain",
                engine_version: 1,
                api_version: xr::Version::new(1, 0, 0),
            },
            wanted,
            layers,
            &(),
        )
        .map_err(|result| match result {
            xr::sys::Result::ERROR_RUNTIME_UNAVAILABLE
            | xr::sys::Result::ERROR_RUNTIME_FAILURE
            | xr::sys::Result::ERROR_INSTANCE_LOST => XrError::NoRuntime(result),
            other => XrError::Xr {
                call: "xrCreateInstance",
                result: other,
            },
        })
}

/// An extension the openxr crate does not know, as its
/// `ExtensionSet::other` holds it: the name with its NUL (the crate passes
/// these bytes to the runtime as a C string).
fn unknown_extension(name: &str) -> Vec<u8> {
    [name.as_bytes(), b"\0"].concat()
}

/// Whether the runtime offers XR_KHR_D3D11_enable (only a Windows build
/// can know: the openxr crate has the extension on Windows only).
#[cfg(windows)]
fn offers_d3d11(available: &xr::ExtensionSet) -> bool {
    available.khr_d3d11_enable
}

/// Whether the runtime offers XR_KHR_D3D11_enable (only a Windows build
/// can know: the openxr crate has the extension on Windows only).
#[cfg(not(windows))]
fn offers_d3d11(_available: &xr::ExtensionSet) -> bool {
    false
}

/// Turns XR_KHR_D3D11_enable on; returns its name.
#[cfg(windows)]
fn enable_d3d11(wanted: &mut xr::ExtensionSet) -> Result<&'static str, XrError> {
    wanted.khr_d3d11_enable = true;
    Ok("XR_KHR_D3D11_enable")
}

/// A build without Direct3D 11 cannot enable it (choose_graphics never
/// picks it there).
#[cfg(not(windows))]
fn enable_d3d11(_wanted: &mut xr::ExtensionSet) -> Result<&'static str, XrError> {
    Err(XrError::GraphicsNotBuilt)
}

/// Registers a messenger that counts every warning and error.
fn create_messenger(
    instance: &xr::Instance,
    counter: &MessageCounter,
) -> Result<xr::sys::DebugUtilsMessengerEXT, XrError> {
    let Some(debug_utils) = instance.exts().ext_debug_utils.as_ref() else {
        return Err(XrError::Xr {
            call: "xrCreateDebugUtilsMessengerEXT",
            result: xr::sys::Result::ERROR_EXTENSION_NOT_PRESENT,
        });
    };
    let create_info = xr::sys::DebugUtilsMessengerCreateInfoEXT {
        ty: xr::sys::DebugUtilsMessengerCreateInfoEXT::TYPE,
        next: std::ptr::null(),
        message_severities: xr::sys::DebugUtilsMessageSeverityFlagsEXT::WARNING
            | xr::sys::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        message_types: xr::sys::DebugUtilsMessageTypeFlagsEXT::GENERAL
            | xr::sys::DebugUtilsMessageTypeFlagsEXT::VALIDATION
            | xr::sys::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE
            | xr::sys::DebugUtilsMessageTypeFlagsEXT::CONFORMANCE,
        user_callback: Some(xr_debug_callback),
        user_data: counter as *const MessageCounter as *mut _,
    };
    let mut messenger = xr::sys::DebugUtilsMessengerEXT::from_raw(0);
    // SAFETY: the instance is live and enabled XR_EXT_debug_utils; the
    // Runtime holds the counter (in an Arc, so it does not move) until its
    // Drop has destroyed the messenger.
    let result = unsafe {
        (debug_utils.create_debug_utils_messenger)(instance.as_raw(), &create_info, &mut messenger)
    };
    if result.into_raw() < 0 {
        return Err(XrError::Xr {
            call: "xrCreateDebugUtilsMessengerEXT",
            result,
        });
    }
    Ok(messenger)
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if let (Some(messenger), Some(debug_utils)) = (
            self.messenger.take(),
            self.instance.exts().ext_debug_utils.as_ref(),
        ) {
            calling("xrDestroyDebugUtilsMessengerEXT");
            // SAFETY: the messenger was created on this instance, which is still alive.
            unsafe {
                (debug_utils.destroy_debug_utils_messenger)(messenger);
            }
        }
        // The fields drop next, the instance with them.
        calling("xrDestroyInstance");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extension_the_crate_does_not_know_is_found_and_enabled_with_its_nul() {
        let offered: xr::ExtensionSet = [b"XR_MSFT_holographic_remoting\0".as_slice()]
            .into_iter()
            .collect();
        let name = unknown_extension(remoting::EXTENSION_NAME);
        assert!(offered.other.contains(&name), "{:?}", offered.other);
        assert_eq!(name.last(), Some(&0), "a C string for xrCreateInstance");
    }
}
