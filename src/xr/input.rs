//! OpenXR input: one action set with a select (reseed) action, aim and grip
//! poses and a haptic output, bound for the common interaction profiles; plus
//! XR_EXT_hand_tracking joints for both hands.

use openxr as xr;

use super::error::{XrError, xr_call};

/// Left and right, in the order the app uses everywhere.
pub const HANDS: [&str; 2] = ["/user/hand/left", "/user/hand/right"];

/// The profile whose select is the runtime's own air-tap (HoloLens 2).
const HAND_INTERACTION_PROFILE: &str = "/interaction_profiles/microsoft/hand_interaction";

/// One hand's tracked state at a frame's predicted display time.
#[derive(Debug, Clone, Default)]
pub struct HandSample {
    /// Aim pose (ray origin and direction -Z) when located.
    pub aim: Option<xr::Posef>,
    /// The select action's state when the action is active, else `None`.
    pub select: Option<bool>,
    /// Whether the hand's current interaction profile is
    /// microsoft/hand_interaction, whose select is the runtime's air-tap.
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
    /// Haptic pulse output, played on reseed.
    haptic: xr::Action<xr::Haptic>,
    /// Subaction paths for left and right.
    hand_paths: [xr::Path; 2],
    /// Aim pose spaces, left and right.
    aim_spaces: [xr::Space; 2],
    /// The microsoft/hand_interaction profile's path, when that extension is on.
    hand_interaction_profile: Option<xr::Path>,
    /// Hand trackers, left and right, when XR_EXT_hand_tracking is on.
    hand_trackers: Option<[xr::HandTracker; 2]>,
    /// Keeps the pose actions alive as long as their spaces.
    _pose_actions: [xr::Action<xr::Posef>; 2],
}

/// (profile, [(action name, input/output path suffix)]) suggested for each profile.
fn profile_bindings(hand_interaction: bool) -> Vec<(&'static str, [&'static str; 4])> {
    // Order of suffixes: select, aim, grip, haptic ("" = the profile has none).
    let mut profiles = vec![
        (
            "/interaction_profiles/khr/simple_controller",
            [
                "input/select/click",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
            ],
        ),
        (
            "/interaction_profiles/valve/index_controller",
            [
                "input/trigger/click",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
            ],
        ),
        (
            "/interaction_profiles/oculus/touch_controller",
            [
                "input/trigger/value",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
            ],
        ),
        (
            "/interaction_profiles/htc/vive_controller",
            [
                "input/trigger/click",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
            ],
        ),
        (
            "/interaction_profiles/microsoft/motion_controller",
            [
                "input/trigger/value",
                "input/aim/pose",
                "input/grip/pose",
                "output/haptic",
            ],
        ),
    ];
    if hand_interaction {
        profiles.push((
            HAND_INTERACTION_PROFILE,
            [
                "input/select/value",
                "input/aim/pose",
                "input/grip/pose",
                "",
            ],
        ));
    }
    profiles
}

impl Input {
    /// Creates the actions, suggests bindings, attaches the set and makes the
    /// pose spaces and (when enabled) hand trackers.
    pub fn create(
        instance: &xr::Instance,
        session: &xr::Session<xr::Vulkan>,
        hand_interaction: bool,
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
            .create_action::<bool>("select", "Reseed the terrain", &hand_paths)
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

        for (profile, [select_suffix, aim_suffix, grip_suffix, haptic_suffix]) in
            profile_bindings(hand_interaction)
        {
            let mut bindings = Vec::new();
            for hand in HANDS {
                let path = |suffix: &str| {
                    instance
                        .string_to_path(&format!("{hand}/{suffix}"))
                        .map_err(xr_call("xrStringToPath"))
                };
                bindings.push(xr::Binding::new(&select, path(select_suffix)?));
                bindings.push(xr::Binding::new(&aim, path(aim_suffix)?));
                bindings.push(xr::Binding::new(&grip, path(grip_suffix)?));
                if !haptic_suffix.is_empty() {
                    bindings.push(xr::Binding::new(&haptic, path(haptic_suffix)?));
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
            haptic,
            hand_paths,
            aim_spaces,
            hand_interaction_profile: if hand_interaction {
                Some(
                    instance
                        .string_to_path(HAND_INTERACTION_PROFILE)
                        .map_err(xr_call("xrStringToPath"))?,
                )
            } else {
                None
            },
            hand_trackers,
            _pose_actions: [aim, grip],
        })
    }

    /// Syncs the actions (call only while the session is FOCUSED) and samples
    /// both hands at `time` in `base`.
    pub fn sample(
        &self,
        session: &xr::Session<xr::Vulkan>,
        base: &xr::Space,
        time: xr::Time,
    ) -> Result<[HandSample; 2], XrError> {
        session
            .sync_actions(&[xr::ActiveActionSet::new(&self.action_set)])
            .map_err(xr_call("xrSyncActions"))?;
        let mut hands: [HandSample; 2] = Default::default();
        for (index, hand) in hands.iter_mut().enumerate() {
            let state = self
                .select
                .state(session, self.hand_paths[index])
                .map_err(xr_call("xrGetActionStateBoolean"))?;
            hand.select = state.is_active.then_some(state.current_state);
            hand.aim = located_pose(&self.aim_spaces[index], base, time)?;
            hand.select_is_air_tap = match self.hand_interaction_profile {
                Some(profile) => {
                    session
                        .current_interaction_profile(self.hand_paths[index])
                        .map_err(xr_call("xrGetCurrentInteractionProfile"))?
                        == profile
                }
                None => false,
            };
            if let Some(trackers) = &self.hand_trackers {
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

    /// A short pulse on `hand`, where its profile has a haptic output.
    pub fn pulse(&self, session: &xr::Session<xr::Vulkan>, hand: usize) -> Result<(), XrError> {
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

    #[test]
    fn hand_interaction_profile_is_suggested_only_when_its_extension_is_on() {
        let named = |on: bool| {
            profile_bindings(on)
                .iter()
                .any(|(profile, _)| profile.ends_with("microsoft/hand_interaction"))
        };
        assert!(named(true));
        assert!(!named(false));
    }

    #[test]
    fn every_profile_binds_select_aim_and_grip() {
        for (profile, suffixes) in profile_bindings(true) {
            assert!(suffixes[0].starts_with("input/"), "{profile} select");
            assert_eq!(suffixes[1], "input/aim/pose", "{profile} aim");
            assert_eq!(suffixes[2], "input/grip/pose", "{profile} grip");
        }
    }
}
