//! OpenXR input: one action set with a select (reseed, air-tap and drag)
//! action, a squeeze (grab) action, aim and grip poses and a haptic output,
//! bound for the common interaction profiles and the two hand-interaction
//! profiles whose select is the runtime's own air-tap; plus
//! XR_EXT_hand_tracking joints for both hands.

use openxr as xr;

use crate::xr::error::{XrError, xr_call};
use crate::xr::runtime::calls::calling;

/// Left and right, in the order the app uses everywhere.
pub const HANDS: [&str; 2] = ["/user/hand/left", "/user/hand/right"];

/// XR_MSFT_hand_interaction's profile (HoloLens 2): `select/value` is the air-tap.
const MSFT_HAND_INTERACTION_PROFILE: &str = "/interaction_profiles/microsoft/hand_interaction";
/// XR_EXT_hand_interaction's profile (newer Quest and Pico runtimes; Monado
/// offers the extension): `pinch_ext/value` is the index–thumb pinch, 1.0
/// (true) when the tips touch.
const EXT_HAND_INTERACTION_PROFILE: &str = "/interaction_profiles/ext/hand_interaction_ext";

/// Which hand-interaction profiles are on (their extensions are enabled).
/// On either, select is the runtime's recognition of a tracked hand's pinch.
#[derive(Debug, Clone, Copy, Default)]
pub struct HandProfiles {
    /// XR_MSFT_hand_interaction is on.
    pub msft: bool,
    /// XR_EXT_hand_interaction is on.
    pub ext: bool,
}

impl HandProfiles {
    /// The paths of the profiles that are on.
    fn names(self) -> Vec<&'static str> {
        [
            (self.msft, MSFT_HAND_INTERACTION_PROFILE),
            (self.ext, EXT_HAND_INTERACTION_PROFILE),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }
}

/// One hand's tracked state at a frame's predicted display time.
#[derive(Debug, Clone, Default)]
pub struct HandSample {
    /// Aim pose (ray origin and direction -Z) when located.
    pub aim: Option<xr::Posef>,
    /// Grip pose (the controller in the hand, or the palm) when located.
    pub grip: Option<xr::Posef>,
    /// The select action's state when the action is active, else `None`.
    pub select: Option<bool>,
    /// The squeeze action's state when the action is active, else `None`.
    pub squeeze: Option<bool>,
    /// The menu action's state when the action is active, else `None`.
    pub menu: Option<bool>,
    /// Whether the hand's current interaction profile is a hand-interaction
    /// profile (microsoft/hand_interaction, ext/hand_interaction_ext), whose
    /// select is the runtime's air-tap.
    pub select_is_air_tap: bool,
    /// All 26 joints (pose, radius) when hand tracking located them.
    pub joints: Option<[(xr::Posef, f32); xr::HAND_JOINT_COUNT]>,
}

/// The action set, its actions, their spaces and the hand trackers.
pub struct Input {
    /// The one action set.
    action_set: xr::ActionSet,
    /// Select / reseed, boolean (air-tap on hands, trigger or select on controllers).
    select: xr::Action<bool>,
    /// Squeeze / grab, boolean (the grip button or squeeze on controllers, a grasp on hands).
    squeeze: xr::Action<bool>,
    /// A controller's menu button: opens the hand menu beside it.
    menu: xr::Action<bool>,
    /// Haptic pulse output, played on reseed.
    haptic: xr::Action<xr::Haptic>,
    /// Subaction paths for left and right.
    hand_paths: [xr::Path; 2],
    /// Aim pose spaces, left and right.
    aim_spaces: [xr::Space; 2],
    /// Grip pose spaces, left and right.
    grip_spaces: [xr::Space; 2],
    /// The paths of the hand-interaction profiles that are on.
    air_tap_profiles: Vec<xr::Path>,
    /// Hand trackers, left and right, when XR_EXT_hand_tracking is on.
    hand_trackers: Option<[xr::HandTracker; 2]>,
    /// Keeps the pose actions alive as long as their spaces.
    _pose_actions: [xr::Action<xr::Posef>; 2],
}

/// (profile, [(action name, input/output path suffix)]) suggested for each profile.
fn profile_bindings(hand_profiles: HandProfiles) -> Vec<(&'static str, [&'static str; 6])> {
    // Order of suffixes: select, squeeze, aim, grip, haptic, menu ("" = the
    // profile has none). Boolean actions on float inputs are thresholded by
    // the runtime (with hysteresis).
    let mut profiles = vec![
        (
            "/interaction_profiles/khr/simple_controller",
            [
                "input/select/click",
                "",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
                "input/menu/click",
            ],
        ),
        (
            "/interaction_profiles/valve/index_controller",
            [
                "input/trigger/click",
                "input/squeeze/value",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
                // The Index has no menu button (its system button is the runtime's).
                "",
            ],
        ),
        (
            "/interaction_profiles/oculus/touch_controller",
            [
                "input/trigger/value",
                "input/squeeze/value",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
                // The left controller's only (below).
                "input/menu/click",
            ],
        ),
        (
            "/interaction_profiles/htc/vive_controller",
            [
                "input/trigger/click",
                "input/squeeze/click",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
                "input/menu/click",
            ],
        ),
        (
            "/interaction_profiles/microsoft/motion_controller",
            [
                "input/trigger/value",
                "input/squeeze/click",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
                "input/menu/click",
            ],
        ),
    ];
    for profile in hand_profiles.names() {
        // Select is true while the fingers pinch; squeeze while the hand grasps.
        let (select, squeeze) = if profile == EXT_HAND_INTERACTION_PROFILE {
            ("input/pinch_ext/value", "input/grasp_ext/value")
        } else {
            ("input/select/value", "input/squeeze/value")
        };
        profiles.push((
            profile,
            [select, squeeze, "input/aim/pose", "input/grip/pose", "", ""],
        ));
    }
    profiles
}

impl Input {
    /// Creates the actions, suggests bindings, attaches the set and makes the
    /// pose spaces and (when enabled) hand trackers.
    pub fn create<G: xr::Graphics>(
        instance: &xr::Instance,
        session: &xr::Session<G>,
        hand_profiles: HandProfiles,
        hand_tracking: bool,
    ) -> Result<Self, XrError> {
        let hand_paths = [
            instance
                .string_to_path(HANDS[0])
                .map_err(xr_call("xrStringToPath"))?,
            instance
                .string_to_path(HANDS[1])
                .map_err(xr_call("xrStringToPath"))?,
        ];
        let action_set = instance
            .create_action_set("holoterrain", "holoterrain", 0)
            .map_err(xr_call("xrCreateActionSet"))?;
        let select = action_set
            .create_action::<bool>("select", "Reseed or move the terrain", &hand_paths)
            .map_err(xr_call("xrCreateAction"))?;
        let squeeze = action_set
            .create_action::<bool>("squeeze", "Grab the terrain", &hand_paths)
            .map_err(xr_call("xrCreateAction"))?;
        let aim = action_set
            .create_action::<xr::Posef>("aim", "Aim pose", &hand_paths)
            .map_err(xr_call("xrCreateAction"))?;
        let grip = action_set
            .create_action::<xr::Posef>("grip", "Grip pose", &hand_paths)
            .map_err(xr_call("xrCreateAction"))?;
        let haptic = action_set
            .create_action::<xr::Haptic>("reseed_pulse", "Reseed pulse", &hand_paths)
            .map_err(xr_call("xrCreateAction"))?;
        let menu = action_set
            .create_action::<bool>("menu", "Open the menu", &hand_paths)
            .map_err(xr_call("xrCreateAction"))?;

        for (
            profile,
            [
                select_suffix,
                squeeze_suffix,
                aim_suffix,
                grip_suffix,
                haptic_suffix,
                menu_suffix,
            ],
        ) in profile_bindings(hand_profiles)
        {
            let mut bindings = Vec::new();
            for hand in HANDS {
                let path = |suffix: &str| {
                    instance
                        .string_to_path(&format!("{hand}/{suffix}"))
                        .map_err(xr_call("xrStringToPath"))
                };
                bindings.push(xr::Binding::new(&select, path(select_suffix)?));
                if !squeeze_suffix.is_empty() {
                    bindings.push(xr::Binding::new(&squeeze, path(squeeze_suffix)?));
                }
                bindings.push(xr::Binding::new(&aim, path(aim_suffix)?));
                bindings.push(xr::Binding::new(&grip, path(grip_suffix)?));
                if !haptic_suffix.is_empty() {
                    bindings.push(xr::Binding::new(&haptic, path(haptic_suffix)?));
                }
                // The Touch's right menu button is the system's.
                let system_owns_menu =
                    profile == "/interaction_profiles/oculus/touch_controller" && hand == HANDS[1];
                let menu_on_this_hand = !(menu_suffix.is_empty() || system_owns_menu);
                if menu_on_this_hand {
                    bindings.push(xr::Binding::new(&menu, path(menu_suffix)?));
                }
            }
            let profile_path = instance
                .string_to_path(profile)
                .map_err(xr_call("xrStringToPath"))?;
            // A runtime may reject a profile it does not know; the others still apply.
            if let Err(result) =
                instance.suggest_interaction_profile_bindings(profile_path, &bindings)
            {
                log::warn!("bindings for {profile} not accepted: {result}");
            }
        }
        session
            .attach_action_sets(&[&action_set])
            .map_err(xr_call("xrAttachSessionActionSets"))?;

        let space = |action: &xr::Action<xr::Posef>, hand: usize| {
            action
                .create_space(session, hand_paths[hand], xr::Posef::IDENTITY)
                .map_err(xr_call("xrCreateActionSpace"))
        };
        let aim_spaces = [space(&aim, 0)?, space(&aim, 1)?];
        let grip_spaces = [space(&grip, 0)?, space(&grip, 1)?];
        let hand_trackers = if hand_tracking {
            Some([
                session
                    .create_hand_tracker(xr::Hand::LEFT)
                    .map_err(xr_call("xrCreateHandTrackerEXT"))?,
                session
                    .create_hand_tracker(xr::Hand::RIGHT)
                    .map_err(xr_call("xrCreateHandTrackerEXT"))?,
            ])
        } else {
            None
        };
        Ok(Self {
            action_set,
            select,
            squeeze,
            menu,
            haptic,
            hand_paths,
            aim_spaces,
            grip_spaces,
            air_tap_profiles: hand_profiles
                .names()
                .into_iter()
                .map(|name| {
                    instance
                        .string_to_path(name)
                        .map_err(xr_call("xrStringToPath"))
                })
                .collect::<Result<_, _>>()?,
            hand_trackers,
            _pose_actions: [aim, grip],
        })
    }

    /// Destroys the action set, the actions, their spaces and the hand
    /// trackers in that order, each destroy call named for the watchdog as
    /// it is made.
    pub fn destroy(self) {
        let Input {
            action_set,
            select,
            squeeze,
            menu,
            haptic,
            aim_spaces,
            grip_spaces,
            hand_trackers,
            _pose_actions,
            ..
        } = self;
        calling("xrDestroyActionSet");
        drop(action_set);
        calling("xrDestroyAction");
        drop((select, squeeze, menu, haptic));
        calling("xrDestroySpace");
        drop((aim_spaces, grip_spaces));
        if hand_trackers.is_some() {
            calling("xrDestroyHandTrackerEXT");
            drop(hand_trackers);
        }
        calling("xrDestroyAction");
        drop(_pose_actions);
    }

    /// Syncs the actions (call only while the session is FOCUSED) and samples
    /// both hands at `time` in `base`.
    pub fn sample<G: xr::Graphics>(
        &self,
        session: &xr::Session<G>,
        base: &xr::Space,
        time: xr::Time,
    ) -> Result<[HandSample; 2], XrError> {
        calling("xrSyncActions");
        session
            .sync_actions(&[xr::ActiveActionSet::new(&self.action_set)])
            .map_err(xr_call("xrSyncActions"))?;
        let mut hands: [HandSample; 2] = Default::default();
        for (index, hand) in hands.iter_mut().enumerate() {
            calling("xrGetActionStateBoolean");
            let state = self
                .select
                .state(session, self.hand_paths[index])
                .map_err(xr_call("xrGetActionStateBoolean"))?;
            hand.select = state.is_active.then_some(state.current_state);
            calling("xrGetActionStateBoolean");
            let squeeze = self
                .squeeze
                .state(session, self.hand_paths[index])
                .map_err(xr_call("xrGetActionStateBoolean"))?;
            hand.squeeze = squeeze.is_active.then_some(squeeze.current_state);
            calling("xrGetActionStateBoolean");
            let menu = self
                .menu
                .state(session, self.hand_paths[index])
                .map_err(xr_call("xrGetActionStateBoolean"))?;
            hand.menu = menu.is_active.then_some(menu.current_state);
            hand.aim = located_pose(&self.aim_spaces[index], base, time)?;
            hand.grip = located_pose(&self.grip_spaces[index], base, time)?;
            hand.select_is_air_tap = !self.air_tap_profiles.is_empty() && {
                calling("xrGetCurrentInteractionProfile");
                self.air_tap_profiles.contains(
                    &session
                        .current_interaction_profile(self.hand_paths[index])
                        .map_err(xr_call("xrGetCurrentInteractionProfile"))?,
                )
            };
            if let Some(trackers) = &self.hand_trackers {
                calling("xrLocateHandJointsEXT");
                hand.joints = base
                    .locate_hand_joints(&trackers[index], time)
                    .map_err(xr_call("xrLocateHandJointsEXT"))?
                    .filter(|joints| {
                        joints.iter().all(|joint| {
                            joint.location_flags.contains(
                                xr::SpaceLocationFlags::POSITION_VALID
                                    | xr::SpaceLocationFlags::ORIENTATION_VALID,
                            )
                        })
                    })
                    .map(|joints| std::array::from_fn(|i| (joints[i].pose, joints[i].radius)));
            }
        }
        Ok(hands)
    }

    /// Each hand's current interaction profile, "none" when it has none.
    pub fn current_profiles<G: xr::Graphics>(
        &self,
        instance: &xr::Instance,
        session: &xr::Session<G>,
    ) -> Result<[String; 2], XrError> {
        let name = |hand: xr::Path| -> Result<String, XrError> {
            let profile = session
                .current_interaction_profile(hand)
                .map_err(xr_call("xrGetCurrentInteractionProfile"))?;
            if profile == xr::Path::NULL {
                return Ok("none".into());
            }
            instance
                .path_to_string(profile)
                .map_err(xr_call("xrPathToString"))
        };
        Ok([name(self.hand_paths[0])?, name(self.hand_paths[1])?])
    }

    /// A short pulse on `hand`, where its profile has a haptic output.
    pub fn pulse<G: xr::Graphics>(
        &self,
        session: &xr::Session<G>,
        hand: usize,
    ) -> Result<(), XrError> {
        let vibration = xr::HapticVibration::new()
            .amplitude(0.5)
            .duration(xr::Duration::from_nanos(80_000_000))
            .frequency(xr::FREQUENCY_UNSPECIFIED);
        self.haptic
            .apply_feedback(session, self.hand_paths[hand], &vibration)
            .map_err(xr_call("xrApplyHapticFeedback"))
    }
}

/// The pose of `space` in `base` at `time` when both position and orientation are valid.
pub fn located_pose(
    space: &xr::Space,
    base: &xr::Space,
    time: xr::Time,
) -> Result<Option<xr::Posef>, XrError> {
    calling("xrLocateSpace");
    let location = space.locate(base, time).map_err(xr_call("xrLocateSpace"))?;
    let valid = xr::SpaceLocationFlags::POSITION_VALID | xr::SpaceLocationFlags::ORIENTATION_VALID;
    Ok(location
        .location_flags
        .contains(valid)
        .then_some(location.pose))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: HandProfiles = HandProfiles {
        msft: true,
        ext: true,
    };

    fn suggests(hand_profiles: HandProfiles, profile: &str) -> bool {
        profile_bindings(hand_profiles)
            .iter()
            .any(|(suggested, _)| *suggested == profile)
    }

    #[test]
    fn each_hand_interaction_profile_is_suggested_only_when_its_extension_is_on() {
        let msft_only = HandProfiles {
            msft: true,
            ext: false,
        };
        let ext_only = HandProfiles {
            msft: false,
            ext: true,
        };
        assert!(suggests(msft_only, MSFT_HAND_INTERACTION_PROFILE));
        assert!(!suggests(msft_only, EXT_HAND_INTERACTION_PROFILE));
        assert!(suggests(ext_only, EXT_HAND_INTERACTION_PROFILE));
        assert!(!suggests(ext_only, MSFT_HAND_INTERACTION_PROFILE));
        assert!(!suggests(
            HandProfiles::default(),
            MSFT_HAND_INTERACTION_PROFILE
        ));
        assert!(!suggests(
            HandProfiles::default(),
            EXT_HAND_INTERACTION_PROFILE
        ));
    }

    #[test]
    fn the_ext_profile_binds_select_to_the_pinch_and_has_no_haptic() {
        let (_, suffixes) = profile_bindings(BOTH)
            .into_iter()
            .find(|(profile, _)| *profile == EXT_HAND_INTERACTION_PROFILE)
            .expect("ext profile suggested");
        assert_eq!(suffixes[0], "input/pinch_ext/value");
        assert_eq!(suffixes[1], "input/grasp_ext/value");
        assert_eq!(suffixes[4], "", "hand_interaction_ext has no haptic output");
    }

    #[test]
    fn both_hand_interaction_profiles_count_as_air_tap_profiles() {
        assert_eq!(
            BOTH.names(),
            [MSFT_HAND_INTERACTION_PROFILE, EXT_HAND_INTERACTION_PROFILE]
        );
        assert!(HandProfiles::default().names().is_empty());
    }

    #[test]
    fn every_profile_binds_select_aim_and_grip() {
        for (profile, suffixes) in profile_bindings(BOTH) {
            assert!(suffixes[0].starts_with("input/"), "{profile} select");
            assert_eq!(suffixes[2], "input/aim/pose", "{profile} aim");
            assert_eq!(suffixes[3], "input/grip/pose", "{profile} grip");
        }
    }

    #[test]
    fn every_profile_but_the_simple_controller_binds_a_squeeze() {
        for (profile, suffixes) in profile_bindings(BOTH) {
            let simple = profile == "/interaction_profiles/khr/simple_controller";
            assert_eq!(suffixes[1].is_empty(), simple, "{profile} squeeze");
            assert!(simple || suffixes[1].starts_with("input/"), "{profile}");
        }
    }
}
