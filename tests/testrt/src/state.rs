//! The runtime's state behind one lock: the instance and every object made
//! from it (each handle with its parent), the wrapper every entry point runs
//! in, and violations: errors the application caused, recorded for the
//! report and printed as they happen.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use openxr_sys as xr;

use crate::actions::{Action, ActionSet, SuggestedBinding};
use crate::anchors::{Anchor, AnchorStore, StoreConnection};
use crate::config::Config;
use crate::extensions::Enabled;
use crate::graphics::GraphicsSetup;
use crate::hands::HandTracker;
use crate::instance::{EventQueue, Paths};
use crate::planes::PlaneDetector;
use crate::remoting::Remoting;
use crate::report::Record;
use crate::scene::{Scene, SceneObserver};
use crate::session::Session;
use crate::spaces::Space;
use crate::speech::Speech;
use crate::swapchain::Swapchain;
use crate::wearer::Wearer;

/// The outcome of a runtime call: `Err` carries the error to return.
pub type XrResult<T = ()> = Result<T, Failure>;

/// An error result, and why, when the application caused it.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// What the call returns.
    pub result: xr::Result,
    /// The rule the application broke; `None` for errors that correct use
    /// meets too (a lost session, a buffer the two-call idiom sizes next).
    pub violation: Option<String>,
}

impl Failure {
    /// The application broke a rule of the specification: `result` is the
    /// error the specification names for it.
    pub fn violation(result: xr::Result, message: impl Into<String>) -> Self {
        Self {
            result,
            violation: Some(message.into()),
        }
    }

    /// An error that is no fault of the application.
    pub fn quiet(result: xr::Result) -> Self {
        Self {
            result,
            violation: None,
        }
    }
}

/// A valid-usage rule broken: XR_ERROR_VALIDATION_FAILURE.
pub fn invalid(message: impl Into<String>) -> Failure {
    Failure::violation(xr::Result::ERROR_VALIDATION_FAILURE, message)
}

/// A handle that is not a live object of the expected kind.
pub fn bad_handle(message: impl Into<String>) -> Failure {
    Failure::violation(xr::Result::ERROR_HANDLE_INVALID, message)
}

/// Functions called in an order the specification forbids.
pub fn out_of_order(message: impl Into<String>) -> Failure {
    Failure::violation(xr::Result::ERROR_CALL_ORDER_INVALID, message)
}

/// An OpenXR result as the specification spells it, e.g. `XR_ERROR_VALIDATION_FAILURE`.
pub fn result_name(result: xr::Result) -> String {
    match crate::remoting::result_name(result) {
        Some(name) => name.to_owned(),
        None => format!("XR_{result:?}"),
    }
}

/// The instance and everything made from it.
pub struct Runtime {
    /// The XrInstance handle.
    pub instance: u64,
    /// What the environment asked for.
    pub config: Config,
    /// The extensions the application enabled.
    pub enabled: Enabled,
    /// Path strings and their atoms.
    pub paths: Paths,
    /// Events waiting for xrPollEvent.
    pub events: EventQueue,
    /// What goes into runtime-report.json.
    pub record: Record,
    /// The scripted person wearing the headset.
    pub wearer: Wearer,
    /// The Holographic Remoting connection, when emulated.
    pub remoting: Remoting,
    /// The player's speech recognizer (with remoting).
    pub speech: Speech,
    /// Graphics requirements queried and devices made before any session.
    pub graphics: GraphicsSetup,
    /// Live sessions (HoloLens 2 runs one at a time).
    pub sessions: HashMap<u64, Session>,
    /// Live spaces; each belongs to a session.
    pub spaces: HashMap<u64, Space>,
    /// Live swapchains; each belongs to a session.
    pub swapchains: HashMap<u64, Swapchain>,
    /// Live action sets; each belongs to the instance.
    pub action_sets: HashMap<u64, ActionSet>,
    /// Live actions; each belongs to an action set.
    pub actions: HashMap<u64, Action>,
    /// Suggested bindings by interaction profile path.
    pub suggested: HashMap<xr::Path, Vec<SuggestedBinding>>,
    /// Live hand trackers; each belongs to a session.
    pub hand_trackers: HashMap<u64, HandTracker>,
    /// Live spatial anchors; each belongs to a session.
    pub anchors: HashMap<u64, Anchor>,
    /// Live connections to the anchor store; each belongs to a session.
    pub anchor_stores: HashMap<u64, StoreConnection>,
    /// The app's anchor store (persisted anchors, kept between runs).
    pub anchor_store: AnchorStore,
    /// Live scene observers; each belongs to a session.
    pub scene_observers: HashMap<u64, SceneObserver>,
    /// Live scenes; each belongs to a scene observer.
    pub scenes: HashMap<u64, Scene>,
    /// Live plane detectors; each belongs to a session.
    pub plane_detectors: HashMap<u64, PlaneDetector>,
    /// The reprojection modes xrEnumerateReprojectionModesMSFT lists.
    pub reprojection_modes: Vec<xr::ReprojectionModeMSFT>,
    /// When the observer view is active, and its size.
    pub observer: crate::observer::ObserverSettings,
    /// How often xrWaitFrame has said the observer view became active
    /// (active, and not at the frame before): its recommended size is that
    /// activation's.
    pub observer_activations: usize,
}

/// The state of the one instance the runtime holds (`None` before
/// xrCreateInstance and after xrDestroyInstance).
static STATE: Mutex<Option<Runtime>> = Mutex::new(None);

/// Handle values count up from here, process-wide, so a handle of a
/// destroyed object never comes back to life as another one.
static NEXT_HANDLE: AtomicU64 = AtomicU64::new(0x7e57_0000_0001);

/// A new handle value, never handed out before in this process.
pub fn new_handle() -> u64 {
    NEXT_HANDLE.fetch_add(1, Ordering::Relaxed)
}

impl Runtime {
    /// An instance with nothing made from it yet.
    pub fn new(
        config: Config,
        enabled: Enabled,
        wearer: Wearer,
        remoting: Remoting,
        record: Record,
        anchor_store: AnchorStore,
    ) -> Self {
        Self {
            instance: new_handle(),
            config,
            enabled,
            paths: Paths::default(),
            events: EventQueue::default(),
            record,
            wearer,
            remoting,
            speech: Speech::default(),
            graphics: GraphicsSetup::default(),
            sessions: HashMap::new(),
            spaces: HashMap::new(),
            swapchains: HashMap::new(),
            action_sets: HashMap::new(),
            actions: HashMap::new(),
            suggested: HashMap::new(),
            hand_trackers: HashMap::new(),
            anchors: HashMap::new(),
            anchor_stores: HashMap::new(),
            anchor_store,
            scene_observers: HashMap::new(),
            scenes: HashMap::new(),
            plane_detectors: HashMap::new(),
            reprojection_modes: crate::reprojection::parse_modes(None)
                .expect("the default modes are known"),
            observer: crate::observer::ObserverSettings::default(),
            observer_activations: 0,
        }
    }

    /// Checks that `instance` is this instance.
    pub fn check_instance(&self, instance: xr::Instance) -> XrResult {
        use xr::Handle as _;
        if instance.into_raw() == self.instance {
            Ok(())
        } else {
            Err(bad_handle(format!(
                "instance {:#x} is not the live XrInstance",
                instance.into_raw()
            )))
        }
    }
}

/// The live object behind `handle` in `objects`, or the violation of
/// passing anything else where a `kind` is expected.
pub fn lookup<'a, T>(objects: &'a HashMap<u64, T>, handle: u64, kind: &str) -> XrResult<&'a T> {
    objects.get(&handle).ok_or_else(|| {
        bad_handle(format!(
            "{handle:#x} is not a live {kind} (never created, destroyed, or destroyed with its parent)"
        ))
    })
}

/// The live object behind `handle` in `objects`, mutably.
pub fn lookup_mut<'a, T>(
    objects: &'a mut HashMap<u64, T>,
    handle: u64,
    kind: &str,
) -> XrResult<&'a mut T> {
    objects.get_mut(&handle).ok_or_else(|| {
        bad_handle(format!(
            "{handle:#x} is not a live {kind} (never created, destroyed, or destroyed with its parent)"
        ))
    })
}

/// Records a violation: into the report when an instance exists, always on
/// stderr, so a run that dies before writing its report still shows it.
fn record(runtime: Option<&mut Runtime>, call: &str, result: xr::Result, message: &str) {
    let line = format!("{call}: {message} ({})", result_name(result));
    eprintln!("holoterrain-testrt: violation: {line}");
    if let Some(runtime) = runtime {
        runtime.record.violations.push(line);
    }
}

/// Records a violation found in a call that still succeeds (a rule broken
/// earlier that only shows now, such as a reference released twice).
pub fn note_violation(runtime: &mut Runtime, call: &str, message: &str) {
    let line = format!("{call}: {message}");
    eprintln!("holoterrain-testrt: violation: {line}");
    runtime.record.violations.push(line);
}

/// Runs the OpenXR call `name`: `body` gets the runtime's state (`None`
/// before xrCreateInstance) and returns the call's success code, or a
/// failure whose violation is recorded. A panic inside becomes
/// XR_ERROR_RUNTIME_FAILURE (and is recorded as one) instead of unwinding
/// into the application.
pub fn call(
    name: &'static str,
    body: impl FnOnce(&mut Option<Runtime>) -> XrResult<xr::Result>,
) -> xr::Result {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut state = STATE.lock().unwrap_or_else(PoisonError::into_inner);
        match body(&mut state) {
            Ok(result) => result,
            Err(failure) => {
                if let Some(message) = &failure.violation {
                    record(state.as_mut(), name, failure.result, message);
                }
                failure.result
            }
        }
    }));
    outcome.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("a panic");
        let mut state = STATE.lock().unwrap_or_else(PoisonError::into_inner);
        let result = xr::Result::ERROR_RUNTIME_FAILURE;
        record(
            state.as_mut(),
            name,
            result,
            &format!("the test runtime failed: {what}"),
        );
        result
    })
}

/// [`call`] for a function that needs the instance: without one, any
/// handle it was given is invalid.
pub fn with_runtime(
    name: &'static str,
    body: impl FnOnce(&mut Runtime) -> XrResult<xr::Result>,
) -> xr::Result {
    call(name, |state| match state {
        Some(runtime) => body(runtime),
        None => Err(bad_handle("no XrInstance exists")),
    })
}
