//! The OpenXR extensions the app asks for whenever the runtime offers them,
//! by name: the one list `runtime/instance.rs` enables from, and what
//! decides the capabilities a packaged app declares.

use openxr as xr;

use super::scene_understanding;

/// An extension the app turns on whenever the runtime offers it.
pub struct OptionalExtension {
    /// Its name.
    pub name: &'static str,
    /// Its flag in the openxr crate's extension set; `None` in a build
    /// whose crate does not have it (a Windows-only extension elsewhere).
    pub(crate) flag: fn(&mut xr::ExtensionSet) -> Option<&mut bool>,
    /// Whether the openxr crate does not know it at all: it is then found
    /// and enabled by name, through `ExtensionSet::other`.
    pub(crate) unknown_to_crate: bool,
}

/// Every optional extension the app asks for, the one list `Runtime::open`
/// enables from (and what decides the capabilities a packaged app declares).
pub const OPTIONAL_EXTENSIONS: [OptionalExtension; 15] = [
    OptionalExtension {
        name: "XR_EXT_hand_tracking",
        flag: |set| Some(&mut set.ext_hand_tracking),
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: "XR_MSFT_hand_interaction",
        flag: |set| Some(&mut set.msft_hand_interaction),
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: "XR_EXT_hand_interaction",
        flag: |set| Some(&mut set.ext_hand_interaction),
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: "XR_MSFT_spatial_anchor",
        flag: |set| Some(&mut set.msft_spatial_anchor),
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: "XR_MSFT_spatial_anchor_persistence",
        flag: |set| Some(&mut set.msft_spatial_anchor_persistence),
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: scene_understanding::EXTENSION_NAME,
        flag: |_| None,
        unknown_to_crate: true,
    },
    // After scene understanding, which it needs enabled too.
    OptionalExtension {
        name: scene_understanding::MARKER_EXTENSION_NAME,
        flag: |_| None,
        unknown_to_crate: true,
    },
    OptionalExtension {
        name: "XR_EXT_plane_detection",
        flag: |set| Some(&mut set.ext_plane_detection),
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: "XR_MSFT_unbounded_reference_space",
        flag: |set| Some(&mut set.msft_unbounded_reference_space),
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: "XR_KHR_composition_layer_depth",
        flag: |set| Some(&mut set.khr_composition_layer_depth),
        unknown_to_crate: false,
    },
    // Mixed Reality Capture records the camera's own view (the observer)
    // rather than the right eye's reprojected to it.
    OptionalExtension {
        name: "XR_MSFT_secondary_view_configuration",
        flag: |set| Some(&mut set.msft_secondary_view_configuration),
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: "XR_MSFT_first_person_observer",
        flag: |set| Some(&mut set.msft_first_person_observer),
        unknown_to_crate: false,
    },
    // Planar reprojection from the submitted depth steadies a table-top hologram.
    OptionalExtension {
        name: "XR_MSFT_composition_layer_reprojection",
        flag: |set| Some(&mut set.msft_composition_layer_reprojection),
        unknown_to_crate: false,
    },
    // A HoloLens app runs in an app container, where the loader and the
    // runtime need this to work (manifests/hololens).
    OptionalExtension {
        name: "XR_EXT_win32_appcontainer_compatible",
        flag: appcontainer_flag,
        unknown_to_crate: false,
    },
    OptionalExtension {
        name: "XR_EXT_debug_utils",
        flag: |set| Some(&mut set.ext_debug_utils),
        unknown_to_crate: false,
    },
];

/// XR_EXT_win32_appcontainer_compatible's flag (the crate has it on Windows only).
#[cfg(windows)]
fn appcontainer_flag(set: &mut xr::ExtensionSet) -> Option<&mut bool> {
    Some(&mut set.ext_win32_appcontainer_compatible)
}

/// XR_EXT_win32_appcontainer_compatible's flag (the crate has it on Windows only).
#[cfg(not(windows))]
fn appcontainer_flag(_set: &mut xr::ExtensionSet) -> Option<&mut bool> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_optional_extension_turns_on_the_extension_it_names() {
        for extension in OPTIONAL_EXTENSIONS.iter().filter(|e| !e.unknown_to_crate) {
            let mut set = xr::ExtensionSet::default();
            let Some(flag) = (extension.flag)(&mut set) else {
                // Only a Windows-only extension may lack a flag, and only elsewhere.
                assert!(
                    !cfg!(windows) && extension.name == "XR_EXT_win32_appcontainer_compatible",
                    "{} has no flag",
                    extension.name
                );
                continue;
            };
            *flag = true;
            let name = format!("{}\0", extension.name);
            assert_eq!(set.names(), [name.as_bytes()], "{}", extension.name);
        }
    }

    #[test]
    fn the_extensions_unknown_to_the_crate_have_no_flag_in_it() {
        let unknown: Vec<&str> = OPTIONAL_EXTENSIONS
            .iter()
            .filter(|extension| extension.unknown_to_crate)
            .map(|extension| {
                assert!((extension.flag)(&mut xr::ExtensionSet::default()).is_none());
                extension.name
            })
            .collect();
        assert_eq!(
            unknown,
            [
                scene_understanding::EXTENSION_NAME,
                scene_understanding::MARKER_EXTENSION_NAME
            ]
        );
    }
}
