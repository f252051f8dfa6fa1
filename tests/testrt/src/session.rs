//! Sessions and their state machine: IDLE → READY on creation;
//! xrBeginSession moves on to SYNCHRONIZED → VISIBLE → FOCUSED at once, so
//! the first frame already has input (as in the simulator);
//! xrRequestExitSession walks back to STOPPING; xrEndSession → IDLE →
//! EXITING; with Holographic Remoting, a session created without a
//! connection, or whose connection drops, → LOSS_PENDING. HoloLens 2 runs
//! one session at a time.

use openxr_sys as xr;
use xr::Handle as _;

use crate::actions::SessionInput;
use crate::extensions::Extension;
use crate::frame::{self, FrameCycle, Submission};
use crate::graphics::{self, SessionDevice};
use crate::instance::{Event, check_system, check_view_configuration};
use crate::state::{
    Failure, Runtime, XrResult, invalid, lookup, lookup_mut, new_handle, with_runtime,
};
use crate::structs::{check_chain, input, out_value};

/// A session and what the runtime tracks of it.
pub struct Session {
    /// The application's graphics device, and what the runtime made on it.
    pub device: SessionDevice,
    /// The state last reported.
    pub state: xr::SessionState,
    /// Between xrBeginSession and xrEndSession.
    pub running: bool,
    /// xrRequestExitSession was called.
    pub exit_requested: bool,
    /// The session is lost (LOSS_PENDING was reported).
    pub lost: bool,
    /// Where the frame loop stands.
    pub frame: FrameCycle,
    /// Attached action sets, interaction profiles and action states.
    pub input: SessionInput,
    /// The newest submitted frame, until its images are read back.
    pub pending: Option<Submission>,
}

impl Session {
    /// Fails with XR_ERROR_SESSION_LOST once the session is lost (no fault
    /// of the application) or XR_ERROR_SESSION_NOT_RUNNING outside
    /// xrBeginSession … xrEndSession.
    pub fn check_running(&self) -> XrResult {
        if self.lost {
            return Err(Failure::quiet(xr::Result::ERROR_SESSION_LOST));
        }
        if !self.running {
            return Err(Failure::violation(
                xr::Result::ERROR_SESSION_NOT_RUNNING,
                "the session is not running (xrBeginSession first)",
            ));
        }
        Ok(())
    }

    /// Whether the user sees the frames (VISIBLE or FOCUSED).
    pub fn visible(&self) -> bool {
        matches!(
            self.state,
            xr::SessionState::VISIBLE | xr::SessionState::FOCUSED
        )
    }
}

/// The state's name as the report lists it, e.g. "FOCUSED".
pub fn state_name(state: xr::SessionState) -> String {
    format!("{state:?}")
}

/// Moves session `handle` to `state`, queues the event and records it.
pub fn set_state(runtime: &mut Runtime, handle: u64, state: xr::SessionState) {
    let time_ns = runtime.wearer.now_ns();
    if let Some(session) = runtime.sessions.get_mut(&handle) {
        session.state = state;
    }
    runtime.events.push(Event::SessionStateChanged {
        session: handle,
        state,
        time_ns,
    });
    runtime.record.session_states.push(state_name(state));
}

/// Every session moves to LOSS_PENDING (the remoting connection dropped).
pub fn lose_sessions(runtime: &mut Runtime) {
    let handles: Vec<u64> = runtime
        .sessions
        .iter()
        .filter(|(_, session)| !session.lost)
        .map(|(&handle, _)| handle)
        .collect();
    for handle in handles {
        if let Some(session) = runtime.sessions.get_mut(&handle) {
            session.lost = true;
        }
        set_state(runtime, handle, xr::SessionState::LOSS_PENDING);
    }
}

/// Destroys session `handle` and everything made from it, reading back the
/// newest submitted frame first if it has not been.
pub fn destroy(runtime: &mut Runtime, handle: u64) {
    frame::read_back_pending(runtime, handle);
    runtime.spaces.retain(|_, space| space.session != handle);
    runtime
        .swapchains
        .retain(|_, swapchain| swapchain.session != handle);
    runtime
        .hand_trackers
        .retain(|_, tracker| tracker.session != handle);
    runtime.anchors.retain(|_, anchor| anchor.session != handle);
    runtime
        .anchor_stores
        .retain(|_, store| store.session != handle);
    runtime
        .scene_observers
        .retain(|_, observer| observer.session != handle);
    runtime.scenes.retain(|_, scene| scene.session != handle);
    runtime
        .plane_detectors
        .retain(|_, detector| detector.session != handle);
    runtime.speech.forget_session(handle);
    runtime.events.forget_session(handle);
    runtime.sessions.remove(&handle);
}

/// xrCreateSession on the build's graphics API.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn create_session(
    instance: xr::Instance,
    create_info: *const xr::SessionCreateInfo,
    session: *mut xr::Session,
) -> xr::Result {
    with_runtime("xrCreateSession", |runtime| {
        runtime.check_instance(instance)?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(create_info, "createInfo") }?;
        check_system(info.system_id)?;
        if info.create_flags != xr::SessionCreateFlags::EMPTY {
            return Err(invalid("createInfo.createFlags must be 0"));
        }
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, &[graphics::BINDING_TYPE], "createInfo") }?;
        if !runtime.graphics.requirements_queried {
            return Err(Failure::violation(
                xr::Result::ERROR_GRAPHICS_REQUIREMENTS_CALL_MISSING,
                format!(
                    "{} was not called before xrCreateSession",
                    graphics::REQUIREMENTS_CALL
                ),
            ));
        }
        // SAFETY: the application's output pointer.
        let session = unsafe { out_value(session, "session") }?;
        if !runtime.sessions.is_empty() {
            return Err(Failure::quiet(xr::Result::ERROR_LIMIT_REACHED));
        }
        // SAFETY: the binding's handles are the application's live device.
        let device = unsafe { SessionDevice::from_chain(&runtime.graphics, info.next) }?;
        let handle = new_handle();
        runtime.record.graphics_api = Some(graphics::API_NAME);
        runtime.sessions.insert(
            handle,
            Session {
                device,
                state: xr::SessionState::UNKNOWN,
                running: false,
                exit_requested: false,
                lost: false,
                frame: FrameCycle::default(),
                input: SessionInput::default(),
                pending: None,
            },
        );
        set_state(runtime, handle, xr::SessionState::IDLE);
        let streaming = !runtime.enabled.has(Extension::HolographicRemoting)
            || runtime.remoting.await_connection();
        if streaming {
            set_state(runtime, handle, xr::SessionState::READY);
        } else {
            lose_sessions(runtime);
        }
        *session = xr::Session::from_raw(handle);
        Ok(xr::Result::SUCCESS)
    })
}

/// xrDestroySession.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn destroy_session(session: xr::Session) -> xr::Result {
    with_runtime("xrDestroySession", |runtime| {
        lookup(&runtime.sessions, session.into_raw(), "XrSession")?;
        destroy(runtime, session.into_raw());
        Ok(xr::Result::SUCCESS)
    })
}

/// xrBeginSession: READY → SYNCHRONIZED → VISIBLE → FOCUSED.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn begin_session(
    session: xr::Session,
    begin_info: *const xr::SessionBeginInfo,
) -> xr::Result {
    with_runtime("xrBeginSession", |runtime| {
        let handle = session.into_raw();
        let current = lookup(&runtime.sessions, handle, "XrSession")?;
        // SAFETY: the application's pointers.
        let info = unsafe { input(begin_info, "beginInfo") }?;
        let allowed: &[xr::StructureType] = if runtime.enabled.observer() {
            &[xr::StructureType::SECONDARY_VIEW_CONFIGURATION_SESSION_BEGIN_INFO_MSFT]
        } else {
            &[]
        };
        // SAFETY: the chain is the application's.
        unsafe { check_chain(info.next, allowed, "beginInfo") }?;
        check_view_configuration(info.primary_view_configuration_type)?;
        // SAFETY: the chain was checked; its structures are the application's.
        let secondary = unsafe { secondary_types(info.next) }?;
        crate::observer::check_enabled(&secondary)?;
        if current.lost {
            return Err(Failure::quiet(xr::Result::ERROR_SESSION_LOST));
        }
        if current.running {
            return Err(Failure::violation(
                xr::Result::ERROR_SESSION_RUNNING,
                "the session is already running",
            ));
        }
        if current.state != xr::SessionState::READY {
            return Err(Failure::violation(
                xr::Result::ERROR_SESSION_NOT_READY,
                format!("the session is {}, not READY", state_name(current.state)),
            ));
        }
        let current = lookup_mut(&mut runtime.sessions, handle, "XrSession")?;
        current.running = true;
        current.frame.observer_enabled = !secondary.is_empty();
        for state in [
            xr::SessionState::SYNCHRONIZED,
            xr::SessionState::VISIBLE,
            xr::SessionState::FOCUSED,
        ] {
            set_state(runtime, handle, state);
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrRequestExitSession: walks the session back to STOPPING.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn request_exit_session(session: xr::Session) -> xr::Result {
    with_runtime("xrRequestExitSession", |runtime| {
        let handle = session.into_raw();
        let current = lookup_mut(&mut runtime.sessions, handle, "XrSession")?;
        current.check_running()?;
        current.exit_requested = true;
        let from = current.state;
        let steps: &[xr::SessionState] = match from {
            xr::SessionState::FOCUSED => &[
                xr::SessionState::VISIBLE,
                xr::SessionState::SYNCHRONIZED,
                xr::SessionState::STOPPING,
            ],
            xr::SessionState::VISIBLE => {
                &[xr::SessionState::SYNCHRONIZED, xr::SessionState::STOPPING]
            }
            xr::SessionState::SYNCHRONIZED | xr::SessionState::READY => {
                &[xr::SessionState::STOPPING]
            }
            _ => &[],
        };
        for &state in steps {
            set_state(runtime, handle, state);
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// xrEndSession: STOPPING → IDLE, then EXITING after an exit request.
///
/// # Safety
/// The arguments are the application's, as the OpenXR API defines them.
pub unsafe extern "system" fn end_session(session: xr::Session) -> xr::Result {
    with_runtime("xrEndSession", |runtime| {
        let handle = session.into_raw();
        let current = lookup(&runtime.sessions, handle, "XrSession")?;
        current.check_running()?;
        if current.state != xr::SessionState::STOPPING {
            return Err(Failure::violation(
                xr::Result::ERROR_SESSION_NOT_STOPPING,
                format!("the session is {}, not STOPPING", state_name(current.state)),
            ));
        }
        frame::read_back_pending(runtime, handle);
        let current = lookup_mut(&mut runtime.sessions, handle, "XrSession")?;
        current.running = false;
        current.frame = FrameCycle::default();
        let exiting = current.exit_requested;
        set_state(runtime, handle, xr::SessionState::IDLE);
        if exiting {
            set_state(runtime, handle, xr::SessionState::EXITING);
        }
        Ok(xr::Result::SUCCESS)
    })
}

/// The secondary view configurations a begin info's chain enables.
///
/// # Safety
/// `next` is a valid chain of the application's structures.
unsafe fn secondary_types(
    next: *const std::ffi::c_void,
) -> XrResult<Vec<xr::ViewConfigurationType>> {
    let mut types = Vec::new();
    let mut link = next.cast::<xr::BaseInStructure>();
    // SAFETY: the caller's promise: each link is a structure of the chain.
    while let Some(header) = unsafe { link.as_ref() } {
        if header.ty == xr::StructureType::SECONDARY_VIEW_CONFIGURATION_SESSION_BEGIN_INFO_MSFT {
            // SAFETY: the type says which structure it is.
            let info =
                unsafe { &*link.cast::<xr::SecondaryViewConfigurationSessionBeginInfoMSFT>() };
            let count = info.view_configuration_count as usize;
            if count > 0 && info.enabled_view_configuration_types.is_null() {
                return Err(crate::state::invalid(
                    "enabledViewConfigurationTypes is NULL with a count",
                ));
            }
            if count > 0 {
                // SAFETY: the application's array of `count` types.
                types.extend_from_slice(unsafe {
                    std::slice::from_raw_parts(info.enabled_view_configuration_types, count)
                });
            }
        }
        link = header.next;
    }
    Ok(types)
}
