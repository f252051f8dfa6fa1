//! Spaces and locating: the reference spaces HoloLens 2 offers (VIEW,
//! LOCAL, UNBOUNDED_MSFT with its extension; LOCAL and UNBOUNDED share the
//! room's origin, where the simulator's user stands), action spaces on the
//! hands' aim and grip, spatial anchors' spaces, and the eyes
//! (xrLocateViews). Every pose comes from the wearer at the time asked.
//! Relative poses are computed as `base⁻¹ · space`, and exactly (no
//! arithmetic at all) when the base is the room itself, so the app receives
//! the simulator's numbers bit for bit.

use holoterrain::input::Pose;
use holoterrain::input::hand::PALM;
pub use holoterrain::xr::convert::{pose_from_xr, pose_to_xr};
use openxr_sys as xr;
use xr::Handle as _;

use crate::action_states::{hand_of, pose_active, pose_component};
use crate::extensions::Extension;
use crate::instance::check_any_view_configuration;
use crate::layers::check_pose;
use crate::observer::{OBSERVER, observer_view};
use crate::state::{Failure, Runtime, XrResult, invalid, lookup, new_handle, with_runtime};
use crate::structs::{
    check_chain, find_in_chain, input, out_value, output, two_call, two_call_typed,
};

/// What a space follows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpaceKind {
    /// A reference space.
    Reference(xr::ReferenceSpaceType),
    /// A pose action on a hand (`None`: whichever hand is bound first).
    Action {
        /// The action.
        action: u64,
        /// The hand its subaction path names.
        hand: Option<usize>,
    },
    /// A spatial anchor, at its pose in the room.
    Anchor(Pose),
}

/// A space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Space {
    /// The session it belongs to.
    pub session: u64,
    /// What it follows.
    pub kind: SpaceKind,
    /// Its origin relative to what it follows.
    pub offset: Pose,
}

/// `outer · inner`: the pose `inner` (relative to `outer`) in `outer`'s parent.
pub fn compose(outer: &Pose, inner: &Pose) -> Pose {
    if *inner == Pose::IDENTITY {
        return *outer;
    }
    if *outer == Pose::IDENTITY {
        return *inner;
    }
    Pose::new(
        outer.transform_point(inner.position),
        outer.orientation * inner.orientation,
    )
}

/// `pose` (in the room) seen from `base` (in the room).
pub fn relative(base: &Pose, pose: &Pose) -> Pose {
    if *base == Pose::IDENTITY {
        return *pose;
    }
    compose(&base.inverse(), pose)
}

/// Where `space` is in the room at `time_ns`, when it can be located.
pub fn locate_in_room(runtime: &Runtime, space: &Space, time_ns: i64) -> Option<Pose> {
    let followed = match space.kind {
        SpaceKind::Reference(xr::ReferenceSpaceType::VIEW) => runtime.wearer.at(time_ns).head?,
        SpaceKind::Reference(_) => Pose::IDENTITY,
        SpaceKind::Anchor(pose) => pose,
        SpaceKind::Action { action, hand } => {
            let hands: Vec<usize> = hand.map_or(vec![0, 1], |hand| vec![hand]);
            let hand = hands
                .into_iter()
                .find(|&hand| pose_active(runtime, space.session, action, hand))?;
            let component = pose_component(runtime, space.session, action, hand)?;
            let sample = runtime.wearer.at(time_ns).hands[hand];
            match component.as_str() {
                "input/aim/pose" => sample.aim?,
                "input/grip/pose" => sample.joints?[PALM].pose,
                _ => return None,
            }
        }
    };
    Some(compose(&followed, &space.offset))
}

/// Fails unless `time` is a valid XrTime (greater than 0).
pub fn check_time(time: xr::Time, what: &str) -> XrResult {
    if time.as_nanos() > 0 {
        Ok(())
    } else {
        Err(Failure::violation(
            xr::Result::ERROR_TIME_INVALID,
            format!("{what} {} is not a valid time", time.as_nanos()),
        ))
    }
}

/// The reference spaces offered, with XR_MSFT_unbounded_reference_space on or off.
fn reference_spaces(runtime: &Runtime) -> Vec<xr::ReferenceSpaceType> {
    let mut spaces = vec![xr::ReferenceSpaceType::VIEW, xr::ReferenceSpaceType::LOCAL];
    if runtime.enabled.has(Extension::UnboundedReferenceSpace) {
        spaces.push(xr::ReferenceSpaceType::UNBOUNDED_MSFT);
    }
    spaces
}

/// Registers a new space; returns its handle.
pub fn add_space(runtime: &mut Runtime, space: Space) -> u64 {
    let handle = new_handle();
    runtime.spaces.insert(handle, space);
    handle
}

/// xrEnumerateReferenceSpaces.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn enumerate_reference_spaces(
    session: xr::Session,
    capacity: u32,
    count_output: *mut u32,
    spaces: *mut xr::ReferenceSpaceType,
) -> xr::Result {
    with_runtime("xrEnumerateReferenceSpaces", |runtime| {
        lookup(&runtime.sessions, session.into_raw(), "XrSession")?;
        // SAFETY: the application's pointers.
        unsafe {
            two_call(
                capacity,
                count_output,
                spaces,
                &reference_spaces(runtime),
                "spaces",
                |_| Ok(()),
                |slot, value| *slot = *value,
            )
        }
    })
}

/// xrCreateReferenceSpace.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_reference_space(
    session: xr::Session,
    create_info: *const xr::ReferenceSpaceCreateInfo,
    space: *mut xr::Space,
) -> xr::Result {
    with_runtime("xrCreateReferenceSpace", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        if !reference_spaces(runtime).contains(&info.reference_space_type) {
            return Err(Failure::violation(
                xr::Result::ERROR_REFERENCE_SPACE_UNSUPPORTED,
                format!(
                    "{:?} is not offered (VIEW, LOCAL, and UNBOUNDED_MSFT with its extension)",
                    info.reference_space_type
                ),
            ));
        }
        check_pose(&info.pose_in_reference_space, "poseInReferenceSpace")?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(space, "space") }?;
        let handle = add_space(
            runtime,
            Space {
                session,
                kind: SpaceKind::Reference(info.reference_space_type),
                offset: pose_from_xr(info.pose_in_reference_space),
            },
        );
        *output = xr::Space::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrGetReferenceSpaceBoundsRect: no reference space here has bounds.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn get_reference_space_bounds_rect(
    session: xr::Session,
    reference_space_type: xr::ReferenceSpaceType,
    bounds: *mut xr::Extent2Df,
) -> xr::Result {
    with_runtime("xrGetReferenceSpaceBoundsRect", |runtime| {
        lookup(&runtime.sessions, session.into_raw(), "XrSession")?;
        if !reference_spaces(runtime).contains(&reference_space_type) {
            return Err(Failure::violation(
                xr::Result::ERROR_REFERENCE_SPACE_UNSUPPORTED,
                format!("{reference_space_type:?} is not offered"),
            ));
        }
        // SAFETY: the application's output pointer.
        let bounds = unsafe { out_value(bounds, "bounds") }?;
        *bounds = xr::Extent2Df {
            width: 0.0,
            height: 0.0,
        };
        Ok(xr::Result::SPACE_BOUNDS_UNAVAILABLE)
    })
}

/// xrCreateActionSpace.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_action_space(
    session: xr::Session,
    create_info: *const xr::ActionSpaceCreateInfo,
    space: *mut xr::Space,
) -> xr::Result {
    with_runtime("xrCreateActionSpace", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "createInfo") }?;
        let action = lookup(&runtime.actions, info.action.into_raw(), "XrAction")?;
        if action.kind != xr::ActionType::POSE_INPUT {
            return Err(Failure::violation(
                xr::Result::ERROR_ACTION_TYPE_MISMATCH,
                format!("action `{}` is not a pose action", action.name),
            ));
        }
        if info.subaction_path != xr::Path::NULL
            && !action.subactions.contains(&info.subaction_path)
        {
            return Err(Failure::violation(
                xr::Result::ERROR_PATH_UNSUPPORTED,
                format!(
                    "action `{}` was not created with that subaction path",
                    action.name
                ),
            ));
        }
        check_pose(&info.pose_in_action_space, "poseInActionSpace")?;
        // SAFETY: the application's output pointer.
        let output = unsafe { out_value(space, "space") }?;
        let hand = (info.subaction_path != xr::Path::NULL)
            .then(|| hand_of(runtime, info.subaction_path))
            .flatten();
        let handle = add_space(
            runtime,
            Space {
                session,
                kind: SpaceKind::Action {
                    action: info.action.into_raw(),
                    hand,
                },
                offset: pose_from_xr(info.pose_in_action_space),
            },
        );
        *output = xr::Space::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroySpace.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_space(space: xr::Space) -> xr::Result {
    with_runtime("xrDestroySpace", |runtime| {
        lookup(&runtime.spaces, space.into_raw(), "XrSpace")?;
        runtime.spaces.remove(&space.into_raw());
        Ok(xr::Result::SUCCESS)
    })
}

/// `space` and `base`, which must be live spaces of one session.
fn space_pair(runtime: &Runtime, space: xr::Space, base: xr::Space) -> XrResult<(Space, Space)> {
    let located = *lookup(&runtime.spaces, space.into_raw(), "XrSpace")?;
    let base = *lookup(&runtime.spaces, base.into_raw(), "XrSpace")?;
    if located.session != base.session {
        return Err(invalid("space and baseSpace belong to different sessions"));
    }
    Ok((located, base))
}

/// The location flags of a pose that is (or is not) known.
pub fn location_flags(valid: bool) -> xr::SpaceLocationFlags {
    if valid {
        xr::SpaceLocationFlags::POSITION_VALID
            | xr::SpaceLocationFlags::ORIENTATION_VALID
            | xr::SpaceLocationFlags::POSITION_TRACKED
            | xr::SpaceLocationFlags::ORIENTATION_TRACKED
    } else {
        xr::SpaceLocationFlags::EMPTY
    }
}

/// xrLocateSpace (velocities, when chained, are reported unknown).
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn locate_space(
    space: xr::Space,
    base_space: xr::Space,
    time: xr::Time,
    location: *mut xr::SpaceLocation,
) -> xr::Result {
    with_runtime("xrLocateSpace", |runtime| {
        let (located, base) = space_pair(runtime, space, base_space)?;
        check_time(time, "time")?;
        // SAFETY: the application's output pointer.
        let location = unsafe { output(location, "location") }?;
        // SAFETY: the chain is the application's.
        unsafe {
            check_chain(
                location.next,
                &[xr::StructureType::SPACE_VELOCITY],
                "location",
            )
        }?;
        let time_ns = time.as_nanos();
        let pose = locate_in_room(runtime, &base, time_ns)
            .zip(locate_in_room(runtime, &located, time_ns))
            .map(|(base, located)| relative(&base, &located));
        location.location_flags = location_flags(pose.is_some());
        location.pose = pose.as_ref().map_or(xr::Posef::IDENTITY, pose_to_xr);
        // SAFETY: the chain is the application's, its structures writable.
        if let Some(velocity) = unsafe { find_in_chain::<xr::SpaceVelocity>(location.next) } {
            velocity.velocity_flags = xr::SpaceVelocityFlags::EMPTY;
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrLocateViews: both eyes of the wearer at the time asked.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn locate_views(
    session: xr::Session,
    view_locate_info: *const xr::ViewLocateInfo,
    view_state: *mut xr::ViewState,
    capacity: u32,
    count_output: *mut u32,
    views: *mut xr::View,
) -> xr::Result {
    with_runtime("xrLocateViews", |runtime| {
        let session = session.into_raw();
        lookup(&runtime.sessions, session, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(view_locate_info, "viewLocateInfo") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[], "viewLocateInfo") }?;
        check_any_view_configuration(runtime, info.view_configuration_type)?;
        check_time(info.display_time, "viewLocateInfo.displayTime")?;
        let base = *lookup(&runtime.spaces, info.space.into_raw(), "XrSpace")?;
        if base.session != session {
            return Err(invalid("viewLocateInfo.space belongs to another session"));
        }
        // SAFETY: the application's output pointer.
        let state = unsafe { output(view_state, "viewState") }?;
        // SAFETY: the chain is the application's.
        unsafe { check_chain(state.next, &[], "viewState") }?;
        let time_ns = info.display_time.as_nanos();
        let base_pose = locate_in_room(runtime, &base, time_ns);
        let input = runtime.wearer.at(time_ns);
        // (pose, fov) of each view: both eyes, or the observer camera at the head.
        let views_at: Vec<(Pose, xr::Fovf)> = if info.view_configuration_type == OBSERVER {
            input
                .head
                .map(|head| {
                    let size = runtime.observer.recommended(runtime.observer_activations);
                    observer_view(&head, size)
                })
                .into_iter()
                .collect()
        } else {
            input
                .views
                .iter()
                .map(|eye| {
                    (
                        eye.pose,
                        xr::Fovf {
                            angle_left: eye.fov.angle_left,
                            angle_right: eye.fov.angle_right,
                            angle_up: eye.fov.angle_up,
                            angle_down: eye.fov.angle_down,
                        },
                    )
                })
                .collect()
        };
        // The observer needs the head, which the wearer has from the first frame.
        let located = base_pose.is_some() && !views_at.is_empty();
        let views_at = if views_at.is_empty() {
            vec![(Pose::IDENTITY, xr::Fovf::default()); 1]
        } else {
            views_at
        };
        state.view_state_flags = if located {
            xr::ViewStateFlags::POSITION_VALID
                | xr::ViewStateFlags::ORIENTATION_VALID
                | xr::ViewStateFlags::POSITION_TRACKED
                | xr::ViewStateFlags::ORIENTATION_TRACKED
        } else {
            xr::ViewStateFlags::EMPTY
        };
        // SAFETY: the application's pointers.
        unsafe {
            two_call_typed(
                capacity,
                count_output,
                views,
                &views_at,
                "views",
                |view, (pose, fov)| {
                    view.pose = base_pose
                        .filter(|_| located)
                        .map_or(xr::Posef::IDENTITY, |base| {
                            pose_to_xr(&relative(&base, pose))
                        });
                    view.fov = *fov;
                },
            )
        }
    })
}
