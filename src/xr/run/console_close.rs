//! Windows only: closing the console window (or logging off, or shutting
//! down) ends the OpenXR session cleanly instead of killing it mid-frame.
//!
//! Windows runs console handlers newest first on a thread of its own and
//! ends the process as soon as a handler returns from one of these events
//! (or 5 s after it arrived). The `ctrlc` crate's handler sets its flag and
//! returns at once, which is right for Ctrl-C but would end the process
//! before the session loop even sees the flag after a close. So this
//! handler, installed after `ctrlc`'s, takes the close, log-off and shutdown
//! events: it raises the same stop flag, then holds the process until the
//! session has been torn down and its report written, for at most
//! [`CLOSE_GRACE`]. Ctrl-C and Ctrl-Break pass on to `ctrlc`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use windows_sys::Win32::Foundation::{FALSE, TRUE};
use windows_sys::Win32::System::Console::{
    CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT, SetConsoleCtrlHandler,
};
use windows_sys::core::BOOL;

/// How long the handler holds the process: under the 5 s after which
/// Windows ends it anyway.
const CLOSE_GRACE: Duration = Duration::from_millis(4500);

/// The session loop's stop flag, the one Ctrl-C raises.
static STOP_FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
/// Whether the session is over (torn down, report written), with its signal.
static SESSION_OVER: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// Makes the console close events raise `stop` and wait for [`session_over`].
/// Call after `ctrlc::set_handler`, so this handler runs first.
pub fn install(stop: &Arc<AtomicBool>) {
    if STOP_FLAG.set(Arc::clone(stop)).is_err() {
        return;
    }
    // SAFETY: `on_console_event` is a plain function that lives as long as
    // the program and touches only statics.
    if unsafe { SetConsoleCtrlHandler(Some(on_console_event), TRUE) } == FALSE {
        log::warn!(
            "closing the console will not end the session cleanly: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Tells a waiting close handler that the session has ended, so Windows may
/// end the process.
pub fn session_over() {
    let (over, signal) = &SESSION_OVER;
    *over.lock().unwrap_or_else(PoisonError::into_inner) = true;
    signal.notify_all();
}

/// The console control handler: close, log-off and shutdown stop the session
/// and wait for its end; every other event goes to the next handler.
unsafe extern "system" fn on_console_event(event: u32) -> BOOL {
    if !matches!(
        event,
        CTRL_CLOSE_EVENT | CTRL_LOGOFF_EVENT | CTRL_SHUTDOWN_EVENT
    ) {
        return FALSE;
    }
    if let Some(stop) = STOP_FLAG.get() {
        stop.store(true, Ordering::Relaxed);
    }
    let (over, signal) = &SESSION_OVER;
    let guard = over.lock().unwrap_or_else(PoisonError::into_inner);
    let _over = signal
        .wait_timeout_while(guard, CLOSE_GRACE, |over| !*over)
        .unwrap_or_else(PoisonError::into_inner);
    TRUE
}
