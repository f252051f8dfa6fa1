//! The extensions the runtime offers, in one table: HoloLens 2's set for
//! what holoterrain uses (the graphics extension of the build's platform,
//! hand tracking and hand interaction, spatial anchors and their
//! persistence, scene understanding or plane detection, the unbounded
//! space, depth submission), and XR_MSFT_holographic_remoting with its
//! speech extension when remoting is emulated. Sources for each:
//! docs/testrt.md.

use openxr_sys as xr;

use crate::config::{PLANES_VARIABLE, REMOTING_VARIABLE};

/// Which extension an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extension {
    /// XR_KHR_vulkan_enable2 (the Linux build; HoloLens 2 has no Vulkan).
    VulkanEnable2,
    /// XR_KHR_D3D11_enable (the Windows build).
    D3d11Enable,
    /// XR_KHR_composition_layer_depth.
    CompositionLayerDepth,
    /// XR_MSFT_composition_layer_reprojection.
    CompositionLayerReprojection,
    /// XR_MSFT_secondary_view_configuration.
    SecondaryViewConfiguration,
    /// XR_MSFT_first_person_observer.
    FirstPersonObserver,
    /// XR_EXT_hand_tracking.
    HandTracking,
    /// XR_MSFT_hand_interaction.
    HandInteraction,
    /// XR_MSFT_unbounded_reference_space.
    UnboundedReferenceSpace,
    /// XR_MSFT_spatial_anchor.
    SpatialAnchor,
    /// XR_MSFT_spatial_anchor_persistence.
    SpatialAnchorPersistence,
    /// XR_MSFT_scene_understanding.
    SceneUnderstanding,
    /// XR_MSFT_scene_marker (QR codes; needs scene understanding).
    SceneMarker,
    /// XR_EXT_plane_detection (with HOLOTERRAIN_TESTRT_PLANES=ext, instead
    /// of scene understanding; no HoloLens 2 offers it).
    PlaneDetection,
    /// XR_EXT_win32_appcontainer_compatible (the Windows build).
    #[cfg(windows)]
    Win32AppContainer,
    /// XR_MSFT_holographic_remoting (with HOLOTERRAIN_TESTRT_REMOTING).
    HolographicRemoting,
    /// XR_MSFT_holographic_remoting_speech (with HOLOTERRAIN_TESTRT_REMOTING).
    HolographicRemotingSpeech,
}

/// One offered extension: its name, specification version, and whether
/// this build and configuration offer it.
struct Entry {
    extension: Extension,
    name: &'static str,
    version: u32,
    offered: fn() -> bool,
}

/// An extension name as openxr-sys spells it, without its NUL.
const fn name(with_nul: &'static [u8]) -> &'static str {
    match with_nul.split_last() {
        Some((0, name)) => match std::str::from_utf8(name) {
            Ok(name) => name,
            Err(_) => panic!("extension names are ASCII"),
        },
        _ => panic!("openxr-sys extension names end in NUL"),
    }
}

/// The extensions of every build.
const TABLE: [Entry; 14] = [
    Entry {
        extension: Extension::CompositionLayerDepth,
        name: name(xr::KHR_COMPOSITION_LAYER_DEPTH_EXTENSION_NAME),
        version: xr::KHR_composition_layer_depth_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::CompositionLayerReprojection,
        name: name(xr::MSFT_COMPOSITION_LAYER_REPROJECTION_EXTENSION_NAME),
        version: xr::MSFT_composition_layer_reprojection_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::SecondaryViewConfiguration,
        name: name(xr::MSFT_SECONDARY_VIEW_CONFIGURATION_EXTENSION_NAME),
        version: xr::MSFT_secondary_view_configuration_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::FirstPersonObserver,
        name: name(xr::MSFT_FIRST_PERSON_OBSERVER_EXTENSION_NAME),
        version: xr::MSFT_first_person_observer_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::HandTracking,
        name: name(xr::EXT_HAND_TRACKING_EXTENSION_NAME),
        version: xr::EXT_hand_tracking_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::HandInteraction,
        name: name(xr::MSFT_HAND_INTERACTION_EXTENSION_NAME),
        version: xr::MSFT_hand_interaction_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::UnboundedReferenceSpace,
        name: name(xr::MSFT_UNBOUNDED_REFERENCE_SPACE_EXTENSION_NAME),
        version: xr::MSFT_unbounded_reference_space_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::SpatialAnchor,
        name: name(xr::MSFT_SPATIAL_ANCHOR_EXTENSION_NAME),
        version: xr::MSFT_spatial_anchor_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::SpatialAnchorPersistence,
        name: name(xr::MSFT_SPATIAL_ANCHOR_PERSISTENCE_EXTENSION_NAME),
        version: xr::MSFT_spatial_anchor_persistence_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::SceneUnderstanding,
        name: holoterrain::xr::sys::scene_understanding::EXTENSION_NAME,
        version: xr::MSFT_scene_understanding_SPEC_VERSION,
        offered: || !planes_detected(),
    },
    Entry {
        extension: Extension::SceneMarker,
        name: holoterrain::xr::sys::scene_understanding::MARKER_EXTENSION_NAME,
        version: xr::MSFT_scene_marker_SPEC_VERSION,
        offered: || !planes_detected(),
    },
    Entry {
        extension: Extension::PlaneDetection,
        name: name(xr::EXT_PLANE_DETECTION_EXTENSION_NAME),
        version: xr::EXT_plane_detection_SPEC_VERSION,
        offered: planes_detected,
    },
    Entry {
        extension: Extension::HolographicRemoting,
        name: holoterrain::xr::sys::remoting::EXTENSION_NAME,
        version: 1,
        offered: || std::env::var_os(REMOTING_VARIABLE).is_some(),
    },
    Entry {
        extension: Extension::HolographicRemotingSpeech,
        name: holoterrain::xr::sys::speech::EXTENSION_NAME,
        version: 3,
        offered: || std::env::var_os(REMOTING_VARIABLE).is_some(),
    },
];

/// Whether the room's planes are offered through XR_EXT_plane_detection
/// (`HOLOTERRAIN_TESTRT_PLANES=ext`) rather than scene understanding.
fn planes_detected() -> bool {
    std::env::var(PLANES_VARIABLE).is_ok_and(|value| value == "ext")
}

/// The graphics extension (and, on Windows, app-container support) of
/// this build's platform.
#[cfg(not(windows))]
const PLATFORM: [Entry; 1] = [Entry {
    extension: Extension::VulkanEnable2,
    name: name(xr::KHR_VULKAN_ENABLE2_EXTENSION_NAME),
    version: xr::KHR_vulkan_enable2_SPEC_VERSION,
    offered: || true,
}];

/// The graphics extension (and, on Windows, app-container support) of
/// this build's platform.
#[cfg(windows)]
const PLATFORM: [Entry; 2] = [
    Entry {
        extension: Extension::D3d11Enable,
        name: name(xr::KHR_D3D11_ENABLE_EXTENSION_NAME),
        version: xr::KHR_D3D11_enable_SPEC_VERSION,
        offered: || true,
    },
    Entry {
        extension: Extension::Win32AppContainer,
        name: name(xr::EXT_WIN32_APPCONTAINER_COMPATIBLE_EXTENSION_NAME),
        version: xr::EXT_win32_appcontainer_compatible_SPEC_VERSION,
        offered: || true,
    },
];

/// Every entry, the platform's first.
fn entries() -> impl Iterator<Item = &'static Entry> {
    PLATFORM.iter().chain(TABLE.iter())
}

/// The offered extensions' names and versions, in the table's order.
pub fn offered() -> Vec<(&'static str, u32)> {
    entries()
        .filter(|entry| (entry.offered)())
        .map(|entry| (entry.name, entry.version))
        .collect()
}

/// The offered extension called `name`, if it is offered.
pub fn find(name: &str) -> Option<Extension> {
    entries()
        .find(|entry| (entry.offered)() && entry.name == name)
        .map(|entry| entry.extension)
}

/// The extensions the application enabled at xrCreateInstance.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Enabled(Vec<Extension>);

impl Enabled {
    /// The set of `extensions`.
    pub fn new(extensions: Vec<Extension>) -> Self {
        Self(extensions)
    }

    /// Whether `extension` is enabled.
    pub fn has(&self, extension: Extension) -> bool {
        self.0.contains(&extension)
    }

    /// Whether the observer view exists: both of its extensions are enabled.
    pub fn observer(&self) -> bool {
        self.has(Extension::SecondaryViewConfiguration) && self.has(Extension::FirstPersonObserver)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_graphics_extension_is_the_builds_own() {
        let names: Vec<&str> = offered().into_iter().map(|(name, _)| name).collect();
        assert_eq!(names.contains(&"XR_KHR_vulkan_enable2"), cfg!(not(windows)));
        assert_eq!(names.contains(&"XR_KHR_D3D11_enable"), cfg!(windows));
        for name in [
            "XR_EXT_hand_tracking",
            "XR_MSFT_hand_interaction",
            "XR_MSFT_unbounded_reference_space",
            "XR_MSFT_spatial_anchor",
            "XR_MSFT_spatial_anchor_persistence",
            "XR_MSFT_scene_understanding",
            "XR_MSFT_scene_marker",
            "XR_KHR_composition_layer_depth",
        ] {
            assert!(names.contains(&name), "{name} offered");
        }
        assert!(
            !names.contains(&"XR_EXT_hand_interaction"),
            "HoloLens 2 has no XR_EXT_hand_interaction"
        );
    }

    #[test]
    fn unknown_names_are_not_found() {
        assert_eq!(find("XR_EXT_hand_tracking"), Some(Extension::HandTracking));
        assert_eq!(find("XR_MND_headless"), None);
    }
}
