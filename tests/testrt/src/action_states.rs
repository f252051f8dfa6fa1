//! Action states: syncing them from the wearer's newest frame, the
//! xrGetActionState* calls that read them, what action spaces ask of a
//! pose action, and haptics, which succeed and are recorded (hands have no
//! haptic output, so nothing plays).

use openxr_sys as xr;
use xr::Handle as _;

use crate::actions::{InputState, SuggestedBinding, bindings_of};
use crate::profiles::{HAND_PATHS, Kind};
use crate::report::HapticRecord;
use crate::state::{Failure, Runtime, XrResult, invalid, lookup, lookup_mut, with_runtime};
use crate::structs::{Typed, bool32, check_chain, check_type, input, output};

/// The value a binding's component gives for `hand`, from the wearer's
/// newest frame: a HoloLens 2 hand's `select` is the runtime's own
/// recognition of the pinch; nothing in the script squeezes.
fn component_value(runtime: &Runtime, hand: usize, component: &str) -> f32 {
    let pinched = runtime
        .wearer
        .latest()
        .is_some_and(|sample| sample.pinched[hand]);
    match component {
        "input/select/value" if pinched => 1.0,
        _ => 0.0,
    }
}

/// xrSyncActions: action states from the wearer's newest frame.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn sync_actions(
    session: xr::Session,
    sync_info: *const xr::ActionsSyncInfo,
) -> xr::Result {
    with_runtime("xrSyncActions", |runtime| {
        let handle = session.into_raw();
        let current = lookup(&runtime.sessions, handle, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(sync_info, "syncInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "syncInfo") }?;
        if info.count_active_action_sets > 0 && info.active_action_sets.is_null() {
            return Err(invalid("activeActionSets is NULL"));
        }
        let mut active_sets = Vec::new();
        for index in 0..info.count_active_action_sets as usize {
            // SAFETY: the application gives countActiveActionSets entries.
            let active = unsafe { *info.active_action_sets.add(index) };
            let set = active.action_set.into_raw();
            lookup(&runtime.action_sets, set, "XrActionSet")?;
            if !current.input.attached.contains(&set) {
                return Err(Failure::violation(
                    xr::Result::ERROR_ACTIONSET_NOT_ATTACHED,
                    "an active action set is not attached to this session",
                ));
            }
            active_sets.push(set);
        }
        let focused = current.state == xr::SessionState::FOCUSED && !current.lost;
        let profiles = current.input.profiles;
        let now = runtime.wearer.now_ns();
        let actions: Vec<u64> = runtime
            .actions
            .iter()
            .filter(|(_, action)| active_sets.contains(&action.set))
            .map(|(&handle, _)| handle)
            .collect();
        let mut updates = Vec::new();
        for action in actions {
            for hand in 0..2 {
                let bound: Vec<&SuggestedBinding> =
                    bindings_of(runtime, &profiles, action, hand).collect();
                let value = bound
                    .iter()
                    .map(|binding| component_value(runtime, hand, &binding.component))
                    .fold(0.0_f32, f32::max);
                updates.push(((action, hand), focused && !bound.is_empty(), value));
            }
        }
        let current = lookup_mut(&mut runtime.sessions, handle, "XrSession")?;
        for (key, active, value) in updates {
            let state = current.input.states.entry(key).or_default();
            let value = if active { value } else { 0.0 };
            state.changed = active && state.active && state.value != value;
            if state.changed || (active && !state.active) {
                state.last_change_ns = now;
            }
            state.active = active;
            state.value = value;
        }
        Ok(if focused {
            xr::Result::SUCCESS
        } else {
            xr::Result::SESSION_NOT_FOCUSED
        })
    })
}

/// The state of `info`'s action for a get-state call: checks the action's
/// type and subaction path, and combines both hands for the NULL path.
fn action_state(
    runtime: &Runtime,
    session: u64,
    info: &xr::ActionStateGetInfo,
    expected: xr::ActionType,
) -> XrResult<InputState> {
    let current = lookup(&runtime.sessions, session, "XrSession")?;
    let action = lookup(&runtime.actions, info.action.into_raw(), "XrAction")?;
    if !current.input.attached.contains(&action.set) {
        return Err(Failure::violation(
            xr::Result::ERROR_ACTIONSET_NOT_ATTACHED,
            format!(
                "action `{}`'s set is not attached to this session",
                action.name
            ),
        ));
    }
    if action.kind != expected {
        return Err(Failure::violation(
            xr::Result::ERROR_ACTION_TYPE_MISMATCH,
            format!("action `{}` is a {:?} action", action.name, action.kind),
        ));
    }
    let hands: Vec<usize> = if info.subaction_path == xr::Path::NULL {
        vec![0, 1]
    } else {
        if !action.subactions.contains(&info.subaction_path) {
            return Err(Failure::violation(
                xr::Result::ERROR_PATH_UNSUPPORTED,
                format!(
                    "action `{}` was not created with that subaction path",
                    action.name
                ),
            ));
        }
        let text = runtime
            .paths
            .string(info.subaction_path)
            .unwrap_or_default();
        HAND_PATHS
            .iter()
            .position(|hand| *hand == text)
            .into_iter()
            .collect()
    };
    let states: Vec<InputState> = hands
        .iter()
        .filter_map(|&hand| {
            current
                .input
                .states
                .get(&(info.action.into_raw(), hand))
                .copied()
        })
        .filter(|state| state.active)
        .collect();
    Ok(InputState {
        active: !states.is_empty(),
        value: states.iter().map(|state| state.value).fold(0.0, f32::max),
        changed: states.iter().any(|state| state.changed),
        last_change_ns: states
            .iter()
            .map(|state| state.last_change_ns)
            .max()
            .unwrap_or(0),
    })
}

/// A get-state call named `name`: checks `get_info` and the output
/// `state`, finds the state of the action (which must be of `kind`), and
/// lets `fill` write it.
///
/// # Safety
/// `get_info` and `state` are the application's, as the OpenXR API defines them.
unsafe fn get_state<T: Typed>(
    name: &'static str,
    session: xr::Session,
    get_info: *const xr::ActionStateGetInfo,
    state: *mut T,
    kind: xr::ActionType,
    fill: impl FnOnce(&mut T, InputState),
) -> xr::Result {
    with_runtime(name, |runtime| {
        // SAFETY: the caller's promise.
        let (info, state) = unsafe { (input(get_info, "getInfo")?, output(state, "state")?) };
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "getInfo") }?;
        fill(
            state,
            action_state(runtime, session.into_raw(), info, kind)?,
        );
        Ok(xr::Result::SUCCESS)
    })
}

/// xrGetActionStateBoolean.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_action_state_boolean(
    session: xr::Session,
    get_info: *const xr::ActionStateGetInfo,
    state: *mut xr::ActionStateBoolean,
) -> xr::Result {
    let kind = xr::ActionType::BOOLEAN_INPUT;
    // SAFETY: the caller's arguments, passed on.
    unsafe {
        get_state(
            "xrGetActionStateBoolean",
            session,
            get_info,
            state,
            kind,
            |state, found| {
                state.is_active = bool32(found.active);
                state.current_state = bool32(found.value >= 0.5);
                state.changed_since_last_sync = bool32(found.changed);
                state.last_change_time = xr::Time::from_nanos(found.last_change_ns);
            },
        )
    }
}

/// xrGetActionStateFloat.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_action_state_float(
    session: xr::Session,
    get_info: *const xr::ActionStateGetInfo,
    state: *mut xr::ActionStateFloat,
) -> xr::Result {
    let kind = xr::ActionType::FLOAT_INPUT;
    // SAFETY: the caller's arguments, passed on.
    unsafe {
        get_state(
            "xrGetActionStateFloat",
            session,
            get_info,
            state,
            kind,
            |state, found| {
                state.is_active = bool32(found.active);
                state.current_state = found.value;
                state.changed_since_last_sync = bool32(found.changed);
                state.last_change_time = xr::Time::from_nanos(found.last_change_ns);
            },
        )
    }
}

/// xrGetActionStateVector2f (no device of this runtime has a thumbstick:
/// such actions are never active).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_action_state_vector2f(
    session: xr::Session,
    get_info: *const xr::ActionStateGetInfo,
    state: *mut xr::ActionStateVector2f,
) -> xr::Result {
    let kind = xr::ActionType::VECTOR2F_INPUT;
    // SAFETY: the caller's arguments, passed on.
    unsafe {
        get_state(
            "xrGetActionStateVector2f",
            session,
            get_info,
            state,
            kind,
            |state, found| {
                state.is_active = bool32(found.active);
                state.current_state = xr::Vector2f { x: 0.0, y: 0.0 };
                state.changed_since_last_sync = xr::FALSE;
                state.last_change_time = xr::Time::from_nanos(found.last_change_ns);
            },
        )
    }
}

/// xrGetActionStatePose.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_action_state_pose(
    session: xr::Session,
    get_info: *const xr::ActionStateGetInfo,
    state: *mut xr::ActionStatePose,
) -> xr::Result {
    let kind = xr::ActionType::POSE_INPUT;
    // SAFETY: the caller's arguments, passed on.
    unsafe {
        get_state(
            "xrGetActionStatePose",
            session,
            get_info,
            state,
            kind,
            |state, found| {
                state.is_active = bool32(found.active);
            },
        )
    }
}

/// Whether pose `action` is bound and active on `hand` (for action spaces).
pub fn pose_active(runtime: &Runtime, session: u64, action: u64, hand: usize) -> bool {
    runtime
        .sessions
        .get(&session)
        .and_then(|current| current.input.states.get(&(action, hand)))
        .is_some_and(|state| state.active)
}

/// The component a pose action is bound to on `hand` in its current profile.
pub fn pose_component(runtime: &Runtime, session: u64, action: u64, hand: usize) -> Option<String> {
    let current = runtime.sessions.get(&session)?;
    bindings_of(runtime, &current.input.profiles, action, hand)
        .find(|binding| binding.kind == Kind::Pose)
        .map(|binding| binding.component.clone())
}

/// The hand (0 or 1) a subaction path names, if a hand.
pub fn hand_of(runtime: &Runtime, path: xr::Path) -> Option<usize> {
    let text = runtime.paths.string(path)?;
    HAND_PATHS.iter().position(|hand| *hand == text)
}

/// xrApplyHapticFeedback: recorded; plays only where a haptic output is
/// bound (a hand has none).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn apply_haptic_feedback(
    session: xr::Session,
    haptic_action_info: *const xr::HapticActionInfo,
    haptic_feedback: *const xr::HapticBaseHeader,
) -> xr::Result {
    with_runtime("xrApplyHapticFeedback", |runtime| {
        let handle = session.into_raw();
        // SAFETY: the application's pointers.
        let info = unsafe { input(haptic_action_info, "hapticActionInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "hapticActionInfo") }?;
        // SAFETY: the application's pointer, NULL or a haptic structure.
        let header =
            unsafe { haptic_feedback.as_ref() }.ok_or_else(|| invalid("hapticFeedback is NULL"))?;
        check_type(
            header.ty,
            xr::StructureType::HAPTIC_VIBRATION,
            "hapticFeedback",
        )?;
        // SAFETY: the type says it is an XrHapticVibration.
        let vibration = unsafe { &*haptic_feedback.cast::<xr::HapticVibration>() };
        let get = xr::ActionStateGetInfo {
            ty: xr::ActionStateGetInfo::TYPE,
            next: std::ptr::null(),
            action: info.action,
            subaction_path: info.subaction_path,
        };
        let found = action_state(runtime, handle, &get, xr::ActionType::VIBRATION_OUTPUT)?;
        let hand = runtime
            .paths
            .string(info.subaction_path)
            .unwrap_or("both hands")
            .to_owned();
        let focused = runtime
            .sessions
            .get(&handle)
            .is_some_and(|current| current.state == xr::SessionState::FOCUSED);
        runtime.record.haptics.push(HapticRecord {
            frame: runtime.record.frames_submitted,
            hand,
            amplitude: vibration.amplitude,
            duration_ns: vibration.duration.as_nanos(),
            frequency: vibration.frequency,
            played: found.active && focused,
        });
        Ok(if focused {
            xr::Result::SUCCESS
        } else {
            xr::Result::SESSION_NOT_FOCUSED
        })
    })
}

/// xrStopHapticFeedback: nothing plays, so nothing stops.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn stop_haptic_feedback(
    session: xr::Session,
    haptic_action_info: *const xr::HapticActionInfo,
) -> xr::Result {
    with_runtime("xrStopHapticFeedback", |runtime| {
        // SAFETY: the application's pointers.
        let info = unsafe { input(haptic_action_info, "hapticActionInfo") }?;
        let get = xr::ActionStateGetInfo {
            ty: xr::ActionStateGetInfo::TYPE,
            next: std::ptr::null(),
            action: info.action,
            subaction_path: info.subaction_path,
        };
        action_state(
            runtime,
            session.into_raw(),
            &get,
            xr::ActionType::VIBRATION_OUTPUT,
        )?;
        Ok(xr::Result::SUCCESS)
    })
}
