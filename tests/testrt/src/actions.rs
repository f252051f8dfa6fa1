//! Actions: action sets and actions (names checked), suggested bindings
//! (checked against [`crate::profiles`]), attaching, the interaction
//! profile each hand gets (HoloLens 2's hands: `microsoft/hand_interaction`
//! when the application suggested bindings for it), and the bound sources
//! and their names. Syncing and action states: [`crate::action_states`].

use std::collections::HashMap;
use std::ffi::c_char;

use openxr_sys as xr;
use xr::Handle as _;

use crate::extensions::Extension;
use crate::instance::Event;
use crate::profiles::{self, HAND_INTERACTION, HAND_PATHS, Kind, binding_kind};
use crate::state::{
    Failure, Runtime, XrResult, invalid, lookup, lookup_mut, new_handle, with_runtime,
};
use crate::structs::{check_chain, fixed_str, input, out_value, output, two_call};

/// An action set.
pub struct ActionSet {
    /// Its name.
    pub name: String,
    /// Its localized name.
    pub localized_name: String,
    /// Whether a session attached it (no more actions can join).
    pub attached: bool,
}

/// An action.
pub struct Action {
    /// The action set it belongs to.
    pub set: u64,
    /// Its name.
    pub name: String,
    /// Its localized name.
    pub localized_name: String,
    /// Boolean, float, vector2, pose or vibration.
    pub kind: xr::ActionType,
    /// The top-level user paths it may be queried on (empty: none given).
    pub subactions: Vec<xr::Path>,
}

/// One suggested binding of a profile.
#[derive(Debug, Clone, PartialEq)]
pub struct SuggestedBinding {
    /// The action.
    pub action: u64,
    /// The hand (0 left, 1 right).
    pub hand: usize,
    /// The component path within the hand, e.g. `input/select/value`.
    pub component: String,
    /// What it gives.
    pub kind: Kind,
    /// The whole binding path's atom.
    pub path: xr::Path,
}

/// An action's state for one hand, as of the last xrSyncActions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct InputState {
    /// Bound in the hand's current profile and synced while focused.
    pub active: bool,
    /// The value (booleans 0 or 1).
    pub value: f32,
    /// Whether the value changed at the last sync.
    pub changed: bool,
    /// When it last changed.
    pub last_change_ns: i64,
}

/// A session's view of input.
#[derive(Debug, Default)]
pub struct SessionInput {
    /// The attached action sets (empty before xrAttachSessionActionSets).
    pub attached: Vec<u64>,
    /// The current interaction profile of each hand (NULL: none).
    pub profiles: [xr::Path; 2],
    /// Action states by (action, hand).
    pub states: HashMap<(u64, usize), InputState>,
}

/// Checks an action or action set name: non-empty, lower-case letters,
/// digits, `-`, `_` and `.`, within its array.
fn check_name(chars: &[c_char], what: &str) -> XrResult<String> {
    let name = fixed_str(chars, what)?;
    let well_formed = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'));
    if !well_formed {
        return Err(Failure::violation(
            xr::Result::ERROR_PATH_FORMAT_INVALID,
            format!("{what} `{name}` is not a well-formed name"),
        ));
    }
    Ok(name.to_owned())
}

/// Checks a localized name: non-empty, within its array.
fn check_localized(chars: &[c_char], what: &str) -> XrResult<String> {
    let name = fixed_str(chars, what)?;
    if name.is_empty() {
        return Err(Failure::violation(
            xr::Result::ERROR_LOCALIZED_NAME_INVALID,
            format!("{what} is empty"),
        ));
    }
    Ok(name.to_owned())
}

/// xrCreateActionSet.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_action_set(
    instance: xr::Instance,
    create_info: *const xr::ActionSetCreateInfo,
    action_set: *mut xr::ActionSet,
) -> xr::Result {
    with_runtime("xrCreateActionSet", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        let name = check_name(&info.action_set_name, "actionSetName")?;
        let localized_name =
            check_localized(&info.localized_action_set_name, "localizedActionSetName")?;
        if runtime.action_sets.values().any(|set| set.name == name) {
            return Err(Failure::violation(
                xr::Result::ERROR_NAME_DUPLICATED,
                format!("an action set `{name}` exists"),
            ));
        }
        if runtime
            .action_sets
            .values()
            .any(|set| set.localized_name == localized_name)
        {
            return Err(Failure::violation(
                xr::Result::ERROR_LOCALIZED_NAME_DUPLICATED,
                format!("an action set localized `{localized_name}` exists"),
            ));
        }
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(action_set, "actionSet") }?;
        let handle = new_handle();
        runtime.action_sets.insert(
            handle,
            ActionSet {
                name,
                localized_name,
                attached: false,
            },
        );
        *output = xr::ActionSet::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroyActionSet: its actions go with it.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_action_set(action_set: xr::ActionSet) -> xr::Result {
    with_runtime("xrDestroyActionSet", |runtime| {
        let handle = action_set.into_raw();
        lookup(&runtime.action_sets, handle, "XrActionSet")?;
        runtime.action_sets.remove(&handle);
        runtime.actions.retain(|_, action| action.set != handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrCreateAction.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_action(
    action_set: xr::ActionSet,
    create_info: *const xr::ActionCreateInfo,
    action: *mut xr::Action,
) -> xr::Result {
    with_runtime("xrCreateAction", |runtime| {
        let set = action_set.into_raw();
        let attached = lookup(&runtime.action_sets, set, "XrActionSet")?.attached;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        if attached {
            return Err(Failure::violation(
                xr::Result::ERROR_ACTIONSETS_ALREADY_ATTACHED,
                "the action set is attached to a session; actions can no longer join it",
            ));
        }
        let name = check_name(&info.action_name, "actionName")?;
        let localized_name = check_localized(&info.localized_action_name, "localizedActionName")?;
        if !matches!(
            info.action_type,
            xr::ActionType::BOOLEAN_INPUT
                | xr::ActionType::FLOAT_INPUT
                | xr::ActionType::VECTOR2F_INPUT
                | xr::ActionType::POSE_INPUT
                | xr::ActionType::VIBRATION_OUTPUT
        ) {
            return Err(invalid(format!(
                "actionType {:?} is not an action type",
                info.action_type
            )));
        }
        let siblings = runtime.actions.values().filter(|action| action.set == set);
        for sibling in siblings {
            if sibling.name == name {
                return Err(Failure::violation(
                    xr::Result::ERROR_NAME_DUPLICATED,
                    format!("the set has an action `{name}`"),
                ));
            }
            if sibling.localized_name == localized_name {
                return Err(Failure::violation(
                    xr::Result::ERROR_LOCALIZED_NAME_DUPLICATED,
                    format!("the set has an action localized `{localized_name}`"),
                ));
            }
        }
        let mut subactions = Vec::new();
        if info.count_subaction_paths > 0 && info.subaction_paths.is_null() {
            return Err(invalid("subactionPaths is NULL"));
        }
        for index in 0..info.count_subaction_paths as usize {
            // SAFETY: the application gives countSubactionPaths paths.
            let path = unsafe { *info.subaction_paths.add(index) };
            let text = runtime.paths.existing(path, "a subaction path")?;
            if !is_top_level_user_path(text) {
                return Err(Failure::violation(
                    xr::Result::ERROR_PATH_UNSUPPORTED,
                    format!("subaction path {text} is not a top-level user path"),
                ));
            }
            if subactions.contains(&path) {
                return Err(invalid(format!("subaction path {text} is given twice")));
            }
            subactions.push(path);
        }
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(action, "action") }?;
        let handle = new_handle();
        runtime.actions.insert(
            handle,
            Action {
                set,
                name,
                localized_name,
                kind: info.action_type,
                subactions,
            },
        );
        *output = xr::Action::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// The top-level user paths the specification defines.
fn is_top_level_user_path(path: &str) -> bool {
    matches!(
        path,
        "/user/hand/left" | "/user/hand/right" | "/user/head" | "/user/gamepad" | "/user/treadmill"
    )
}

/// xrDestroyAction.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_action(action: xr::Action) -> xr::Result {
    with_runtime("xrDestroyAction", |runtime| {
        let handle = action.into_raw();
        lookup(&runtime.actions, handle, "XrAction")?;
        runtime.actions.remove(&handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrSuggestInteractionProfileBindings.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn suggest_interaction_profile_bindings(
    instance: xr::Instance,
    suggested_bindings: *const xr::InteractionProfileSuggestedBinding,
) -> xr::Result {
    with_runtime("xrSuggestInteractionProfileBindings", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's pointers.
        let suggested = unsafe { input(suggested_bindings, "suggestedBindings") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(suggested.next, &[], "suggestedBindings") }?;
        let profile = runtime
            .paths
            .existing(suggested.interaction_profile, "interactionProfile")?
            .to_owned();
        let hands = runtime.enabled.has(Extension::HandInteraction);
        if !profiles::is_known(&profile, hands) {
            return Err(Failure::violation(
                xr::Result::ERROR_PATH_UNSUPPORTED,
                format!(
                    "{profile} is not an interaction profile of this runtime (with the extensions enabled)"
                ),
            ));
        }
        if runtime.action_sets.values().any(|set| set.attached) {
            return Err(Failure::violation(
                xr::Result::ERROR_ACTIONSETS_ALREADY_ATTACHED,
                "bindings are suggested before a session attaches its action sets",
            ));
        }
        let count = suggested.count_suggested_bindings as usize;
        if count == 0 || suggested.suggested_bindings.is_null() {
            return Err(invalid("no suggested bindings"));
        }
        let mut bindings = Vec::with_capacity(count);
        for index in 0..count {
            // SAFETY: the application gives countSuggestedBindings bindings.
            let binding = unsafe { &*suggested.suggested_bindings.add(index) };
            let action = lookup(&runtime.actions, binding.action.into_raw(), "XrAction")?;
            let path = runtime.paths.existing(binding.binding, "binding")?;
            let (hand, component) = profiles::split_binding(path).ok_or_else(|| {
                Failure::violation(
                    xr::Result::ERROR_PATH_UNSUPPORTED,
                    format!("{path}: {profile} binds /user/hand/left and /user/hand/right only"),
                )
            })?;
            let kind = binding_kind(&profile, path, action.kind).ok_or_else(|| {
                Failure::violation(
                    xr::Result::ERROR_PATH_UNSUPPORTED,
                    format!("{profile} has no {path} for a {:?} action", action.kind),
                )
            })?;
            bindings.push(SuggestedBinding {
                action: binding.action.into_raw(),
                hand,
                component: component.to_owned(),
                kind,
                path: binding.binding,
            });
        }
        let profile_path = suggested.interaction_profile;
        runtime.suggested.insert(profile_path, bindings);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrAttachSessionActionSets: the hands get `microsoft/hand_interaction`
/// when the application suggested bindings for it.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn attach_session_action_sets(
    session: xr::Session,
    attach_info: *const xr::SessionActionSetsAttachInfo,
) -> xr::Result {
    with_runtime("xrAttachSessionActionSets", |runtime| {
        let handle = session.into_raw();
        let current = lookup(&runtime.sessions, handle, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(attach_info, "attachInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "attachInfo") }?;
        if !current.input.attached.is_empty() {
            return Err(Failure::violation(
                xr::Result::ERROR_ACTIONSETS_ALREADY_ATTACHED,
                "the session's action sets are already attached",
            ));
        }
        if info.count_action_sets == 0 || info.action_sets.is_null() {
            return Err(invalid("no action sets to attach"));
        }
        let mut sets = Vec::new();
        for index in 0..info.count_action_sets as usize {
            // SAFETY: the application gives countActionSets handles.
            let set = unsafe { *info.action_sets.add(index) }.into_raw();
            lookup(&runtime.action_sets, set, "XrActionSet")?;
            sets.push(set);
        }
        for set in &sets {
            if let Some(set) = runtime.action_sets.get_mut(set) {
                set.attached = true;
            }
        }
        let hand_profile = runtime.paths.atom(HAND_INTERACTION);
        let profile = if runtime.suggested.contains_key(&hand_profile) {
            hand_profile
        } else {
            xr::Path::NULL
        };
        let current = lookup_mut(&mut runtime.sessions, handle, "XrSession")?;
        current.input.attached = sets;
        current.input.profiles = [profile; 2];
        if profile != xr::Path::NULL {
            runtime
                .events
                .push(Event::InteractionProfileChanged { session: handle });
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// The bindings of `action` on `hand` in the hand's current profile.
pub fn bindings_of<'a>(
    runtime: &'a Runtime,
    profiles: &[xr::Path; 2],
    action: u64,
    hand: usize,
) -> impl Iterator<Item = &'a SuggestedBinding> {
    runtime
        .suggested
        .get(&profiles[hand])
        .into_iter()
        .flatten()
        .filter(move |binding| binding.action == action && binding.hand == hand)
}

/// xrGetCurrentInteractionProfile.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_current_interaction_profile(
    session: xr::Session,
    top_level_user_path: xr::Path,
    profile: *mut xr::InteractionProfileState,
) -> xr::Result {
    with_runtime("xrGetCurrentInteractionProfile", |runtime| {
        let current = lookup(&runtime.sessions, session.into_raw(), "XrSession")?;
        let text = runtime
            .paths
            .existing(top_level_user_path, "topLevelUserPath")?;
        if !is_top_level_user_path(text) {
            return Err(Failure::violation(
                xr::Result::ERROR_PATH_UNSUPPORTED,
                format!("{text} is not a top-level user path"),
            ));
        }
        if current.input.attached.is_empty() {
            return Err(Failure::violation(
                xr::Result::ERROR_ACTIONSET_NOT_ATTACHED,
                "no action sets are attached to the session yet",
            ));
        }
        // SAFETY: the application's output pointer.
        let state = unsafe { output(profile, "interactionProfile") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(state.next, &[], "interactionProfile") }?;
        state.interaction_profile = HAND_PATHS
            .iter()
            .position(|hand| *hand == text)
            .map_or(xr::Path::NULL, |hand| current.input.profiles[hand]);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrEnumerateBoundSourcesForAction.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_bound_sources_for_action(
    session: xr::Session,
    enumerate_info: *const xr::BoundSourcesForActionEnumerateInfo,
    capacity: u32,
    count_output: *mut u32,
    sources: *mut xr::Path,
) -> xr::Result {
    with_runtime("xrEnumerateBoundSourcesForAction", |runtime| {
        let current = lookup(&runtime.sessions, session.into_raw(), "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(enumerate_info, "enumerateInfo") }?;
        let action = lookup(&runtime.actions, info.action.into_raw(), "XrAction")?;
        if !current.input.attached.contains(&action.set) {
            return Err(Failure::violation(
                xr::Result::ERROR_ACTIONSET_NOT_ATTACHED,
                "the action's set is not attached to this session",
            ));
        }
        let bound: Vec<xr::Path> = (0..2)
            .flat_map(|hand| {
                bindings_of(
                    runtime,
                    &current.input.profiles,
                    info.action.into_raw(),
                    hand,
                )
            })
            .map(|binding| binding.path)
            .collect();
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                sources,
                &bound,
                "sources",
                |_| Ok(()),
                |slot, path| *slot = *path,
            )
        }
    })
}

/// xrGetInputSourceLocalizedName: words from the path's parts, e.g.
/// "Right Hand Select".
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_input_source_localized_name(
    session: xr::Session,
    get_info: *const xr::InputSourceLocalizedNameGetInfo,
    capacity: u32,
    count_output: *mut u32,
    buffer: *mut c_char,
) -> xr::Result {
    with_runtime("xrGetInputSourceLocalizedName", |runtime| {
        let current = lookup(&runtime.sessions, session.into_raw(), "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(get_info, "getInfo") }?;
        if current.input.attached.is_empty() {
            return Err(Failure::violation(
                xr::Result::ERROR_ACTIONSET_NOT_ATTACHED,
                "no action sets are attached to the session yet",
            ));
        }
        if info.which_components.is_empty() {
            return Err(invalid("whichComponents is empty"));
        }
        let path = runtime.paths.existing(info.source_path, "sourcePath")?;
        let (hand, component) = profiles::split_binding(path).ok_or_else(|| {
            Failure::violation(
                xr::Result::ERROR_PATH_UNSUPPORTED,
                format!("{path} is not an input source"),
            )
        })?;
        let mut words = Vec::new();
        if info
            .which_components
            .contains(xr::InputSourceLocalizedNameFlags::USER_PATH)
        {
            words.push(if hand == 0 { "Left Hand" } else { "Right Hand" }.to_owned());
        }
        if info
            .which_components
            .contains(xr::InputSourceLocalizedNameFlags::INTERACTION_PROFILE)
        {
            words.push(
                if current.input.profiles[hand] == xr::Path::NULL {
                    "No Device"
                } else {
                    "Hand"
                }
                .to_owned(),
            );
        }
        if info
            .which_components
            .contains(xr::InputSourceLocalizedNameFlags::COMPONENT)
        {
            let identifier = component.split('/').nth(1).unwrap_or(component);
            let mut letters = identifier.chars();
            words.push(letters.next().map_or(String::new(), |first| {
                first.to_uppercase().chain(letters).collect()
            }));
        }
        let mut text: Vec<c_char> = words.join(" ").bytes().map(|byte| byte as c_char).collect();
        text.push(0);
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                buffer,
                &text,
                "buffer",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        }
    })
}
