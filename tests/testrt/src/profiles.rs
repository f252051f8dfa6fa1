//! The interaction profiles the runtime knows, with every input and output
//! path each one has, as the OpenXR specification lists them (chapter
//! "Interaction Profiles", and XR_MSFT_hand_interaction). Suggested bindings
//! are checked against this table: a path a profile lacks is
//! XR_ERROR_PATH_UNSUPPORTED. Of these, a HoloLens 2 wearer's hands drive
//! only `microsoft/hand_interaction`; the controller profiles are accepted
//! (runtimes accept bindings for profiles they know) but no device uses them.

use openxr_sys as xr;

/// The kind of value a component path gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A button: on or off.
    Boolean,
    /// A trigger or squeeze: 0 to 1.
    Float,
    /// A thumbstick or trackpad identifier: x and y.
    Vector2,
    /// A tracked pose.
    Pose,
    /// A haptic output.
    Haptic,
}

/// Which hands a component exists on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hands {
    Both,
    Left,
    Right,
}

/// One input or output of a profile, e.g. `input/select/click`.
struct Component {
    path: &'static str,
    kind: Kind,
    hands: Hands,
}

const fn both(path: &'static str, kind: Kind) -> Component {
    Component {
        path,
        kind,
        hands: Hands::Both,
    }
}

const fn left(path: &'static str, kind: Kind) -> Component {
    Component {
        path,
        kind,
        hands: Hands::Left,
    }
}

const fn right(path: &'static str, kind: Kind) -> Component {
    Component {
        path,
        kind,
        hands: Hands::Right,
    }
}

/// A profile: its path and its components on `/user/hand/left|right`.
struct Profile {
    path: &'static str,
    components: &'static [Component],
}

use Kind::{Boolean, Float, Haptic, Pose, Vector2};

/// XR_MSFT_hand_interaction's profile: what a HoloLens 2 wearer's hands give.
pub const HAND_INTERACTION: &str = "/interaction_profiles/microsoft/hand_interaction";

const PROFILES: [Profile; 6] = [
    Profile {
        path: HAND_INTERACTION,
        components: &[
            both("input/select/value", Float),
            both("input/squeeze/value", Float),
            both("input/aim/pose", Pose),
            both("input/grip/pose", Pose),
        ],
    },
    Profile {
        path: "/interaction_profiles/khr/simple_controller",
        components: &[
            both("input/select/click", Boolean),
            both("input/menu/click", Boolean),
            both("input/grip/pose", Pose),
            both("input/aim/pose", Pose),
            both("output/haptic", Haptic),
        ],
    },
    Profile {
        path: "/interaction_profiles/valve/index_controller",
        components: &[
            both("input/system/click", Boolean),
            both("input/system/touch", Boolean),
            both("input/a/click", Boolean),
            both("input/a/touch", Boolean),
            both("input/b/click", Boolean),
            both("input/b/touch", Boolean),
            both("input/squeeze/value", Float),
            both("input/squeeze/force", Float),
            both("input/trigger/click", Boolean),
            both("input/trigger/value", Float),
            both("input/trigger/touch", Boolean),
            both("input/thumbstick", Vector2),
            both("input/thumbstick/x", Float),
            both("input/thumbstick/y", Float),
            both("input/thumbstick/click", Boolean),
            both("input/thumbstick/touch", Boolean),
            both("input/trackpad", Vector2),
            both("input/trackpad/x", Float),
            both("input/trackpad/y", Float),
            both("input/trackpad/force", Float),
            both("input/trackpad/touch", Boolean),
            both("input/grip/pose", Pose),
            both("input/aim/pose", Pose),
            both("output/haptic", Haptic),
        ],
    },
    Profile {
        path: "/interaction_profiles/oculus/touch_controller",
        components: &[
            left("input/x/click", Boolean),
            left("input/x/touch", Boolean),
            left("input/y/click", Boolean),
            left("input/y/touch", Boolean),
            left("input/menu/click", Boolean),
            right("input/a/click", Boolean),
            right("input/a/touch", Boolean),
            right("input/b/click", Boolean),
            right("input/b/touch", Boolean),
            right("input/system/click", Boolean),
            both("input/squeeze/value", Float),
            both("input/trigger/value", Float),
            both("input/trigger/touch", Boolean),
            both("input/thumbstick", Vector2),
            both("input/thumbstick/x", Float),
            both("input/thumbstick/y", Float),
            both("input/thumbstick/click", Boolean),
            both("input/thumbstick/touch", Boolean),
            both("input/thumbrest/touch", Boolean),
            both("input/grip/pose", Pose),
            both("input/aim/pose", Pose),
            both("output/haptic", Haptic),
        ],
    },
    Profile {
        path: "/interaction_profiles/htc/vive_controller",
        components: &[
            both("input/system/click", Boolean),
            both("input/squeeze/click", Boolean),
            both("input/menu/click", Boolean),
            both("input/trigger/click", Boolean),
            both("input/trigger/value", Float),
            both("input/trackpad", Vector2),
            both("input/trackpad/x", Float),
            both("input/trackpad/y", Float),
            both("input/trackpad/click", Boolean),
            both("input/trackpad/touch", Boolean),
            both("input/grip/pose", Pose),
            both("input/aim/pose", Pose),
            both("output/haptic", Haptic),
        ],
    },
    Profile {
        path: "/interaction_profiles/microsoft/motion_controller",
        components: &[
            both("input/menu/click", Boolean),
            both("input/squeeze/click", Boolean),
            both("input/trigger/value", Float),
            both("input/thumbstick", Vector2),
            both("input/thumbstick/x", Float),
            both("input/thumbstick/y", Float),
            both("input/thumbstick/click", Boolean),
            both("input/trackpad", Vector2),
            both("input/trackpad/x", Float),
            both("input/trackpad/y", Float),
            both("input/trackpad/click", Boolean),
            both("input/trackpad/touch", Boolean),
            both("input/grip/pose", Pose),
            both("input/aim/pose", Pose),
            both("output/haptic", Haptic),
        ],
    },
];

/// The hands' top-level user paths, left first.
pub const HAND_PATHS: [&str; 2] = ["/user/hand/left", "/user/hand/right"];

/// Whether `path` names a profile of the table. XR_MSFT_hand_interaction's
/// profile exists only when that extension is enabled.
pub fn is_known(path: &str, hand_interaction_enabled: bool) -> bool {
    PROFILES.iter().any(|profile| {
        profile.path == path && (path != HAND_INTERACTION || hand_interaction_enabled)
    })
}

/// Whether an action of `action_type` can read a component of `kind`.
pub fn fits(action_type: xr::ActionType, kind: Kind) -> bool {
    match action_type {
        xr::ActionType::BOOLEAN_INPUT | xr::ActionType::FLOAT_INPUT => {
            matches!(kind, Kind::Boolean | Kind::Float)
        }
        xr::ActionType::VECTOR2F_INPUT => kind == Kind::Vector2,
        xr::ActionType::POSE_INPUT => kind == Kind::Pose,
        xr::ActionType::VIBRATION_OUTPUT => kind == Kind::Haptic,
        _ => false,
    }
}

/// A binding path split into its hand (0 left, 1 right) and component.
pub fn split_binding(path: &str) -> Option<(usize, &str)> {
    HAND_PATHS.iter().enumerate().find_map(|(hand, user)| {
        path.strip_prefix(user)
            .and_then(|rest| rest.strip_prefix('/'))
            .map(|component| (hand, component))
    })
}

/// The kind of value `binding` (e.g. `/user/hand/right/input/select/click`)
/// gives in `profile`, for an action of `action_type`; `None` when the
/// profile has no such path or none that fits the action. An identifier
/// without its last component (`…/input/trigger`) stands for the first of
/// its components that fits.
pub fn binding_kind(profile: &str, binding: &str, action_type: xr::ActionType) -> Option<Kind> {
    let profile = PROFILES
        .iter()
        .find(|candidate| candidate.path == profile)?;
    let (hand, component) = split_binding(binding)?;
    let on_hand = |entry: &&Component| match entry.hands {
        Hands::Both => true,
        Hands::Left => hand == 0,
        Hands::Right => hand == 1,
    };
    let exact = profile
        .components
        .iter()
        .filter(on_hand)
        .find(|entry| entry.path == component)
        .map(|entry| entry.kind);
    let kind = exact.or_else(|| {
        let under: Vec<Kind> = profile
            .components
            .iter()
            .filter(on_hand)
            .filter(|entry| {
                entry
                    .path
                    .strip_prefix(component)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
            .map(|entry| entry.kind)
            .collect();
        let preferred = match action_type {
            xr::ActionType::FLOAT_INPUT => Kind::Float,
            _ => Kind::Boolean,
        };
        under
            .iter()
            .copied()
            .find(|&kind| kind == preferred && fits(action_type, kind))
            .or_else(|| under.iter().copied().find(|&kind| fits(action_type, kind)))
    })?;
    fits(action_type, kind).then_some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holoterrains_bindings_are_all_known() {
        let cases = [
            (
                "/interaction_profiles/khr/simple_controller",
                "/user/hand/left/input/select/click",
                xr::ActionType::BOOLEAN_INPUT,
            ),
            (
                "/interaction_profiles/valve/index_controller",
                "/user/hand/right/input/trigger/click",
                xr::ActionType::BOOLEAN_INPUT,
            ),
            (
                "/interaction_profiles/oculus/touch_controller",
                "/user/hand/right/input/trigger/value",
                xr::ActionType::BOOLEAN_INPUT,
            ),
            (
                "/interaction_profiles/htc/vive_controller",
                "/user/hand/left/output/haptic",
                xr::ActionType::VIBRATION_OUTPUT,
            ),
            (
                "/interaction_profiles/microsoft/motion_controller",
                "/user/hand/left/input/grip/pose",
                xr::ActionType::POSE_INPUT,
            ),
            (
                HAND_INTERACTION,
                "/user/hand/right/input/select/value",
                xr::ActionType::BOOLEAN_INPUT,
            ),
            (
                HAND_INTERACTION,
                "/user/hand/right/input/aim/pose",
                xr::ActionType::POSE_INPUT,
            ),
        ];
        for (profile, binding, action_type) in cases {
            assert!(
                binding_kind(profile, binding, action_type).is_some(),
                "{profile} {binding}"
            );
        }
    }

    #[test]
    fn a_path_the_profile_lacks_or_of_the_wrong_kind_is_refused() {
        // Hands have no haptics and no click; Touch's `a` is on the right hand only.
        assert_eq!(
            binding_kind(
                HAND_INTERACTION,
                "/user/hand/left/output/haptic",
                xr::ActionType::VIBRATION_OUTPUT
            ),
            None
        );
        assert_eq!(
            binding_kind(
                HAND_INTERACTION,
                "/user/hand/left/input/select/click",
                xr::ActionType::BOOLEAN_INPUT
            ),
            None
        );
        assert_eq!(
            binding_kind(
                "/interaction_profiles/oculus/touch_controller",
                "/user/hand/left/input/a/click",
                xr::ActionType::BOOLEAN_INPUT
            ),
            None
        );
        assert_eq!(
            binding_kind(
                HAND_INTERACTION,
                "/user/hand/left/input/aim/pose",
                xr::ActionType::BOOLEAN_INPUT
            ),
            None
        );
        assert_eq!(
            binding_kind(
                HAND_INTERACTION,
                "/user/head/input/aim/pose",
                xr::ActionType::POSE_INPUT
            ),
            None
        );
    }

    #[test]
    fn an_identifier_stands_for_its_fitting_component() {
        assert_eq!(
            binding_kind(
                "/interaction_profiles/valve/index_controller",
                "/user/hand/left/input/trigger",
                xr::ActionType::FLOAT_INPUT
            ),
            Some(Kind::Float)
        );
        assert_eq!(
            binding_kind(
                "/interaction_profiles/valve/index_controller",
                "/user/hand/left/input/trigger",
                xr::ActionType::BOOLEAN_INPUT
            ),
            Some(Kind::Boolean)
        );
        assert_eq!(
            binding_kind(
                "/interaction_profiles/htc/vive_controller",
                "/user/hand/left/input/trackpad",
                xr::ActionType::VECTOR2F_INPUT
            ),
            Some(Kind::Vector2)
        );
    }

    #[test]
    fn the_hand_profile_needs_its_extension() {
        assert!(is_known(HAND_INTERACTION, true));
        assert!(!is_known(HAND_INTERACTION, false));
        assert!(is_known(
            "/interaction_profiles/khr/simple_controller",
            false
        ));
        assert!(!is_known(
            "/interaction_profiles/ext/hand_interaction_ext",
            true
        ));
    }
}
