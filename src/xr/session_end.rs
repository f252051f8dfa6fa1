//! How a session ended, as the report's `ended` says and the exit status
//! follows: a proper end, or the runtime stopping under the session.

use serde::Serialize;

/// How the session ended: the report's `ended`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionEnd {
    /// `--frames` frames were rendered and the session then ended properly.
    FrameLimit,
    /// Ctrl-C asked for the end and the session then ended properly.
    Interrupted,
    /// The runtime ended the session by itself (EXITING without being asked).
    #[default]
    RuntimeExit,
    /// The runtime lost the session: the LOSS_PENDING state or XR_ERROR_SESSION_LOST.
    SessionLost,
    /// The runtime went away: the INSTANCE_LOSS_PENDING event or
    /// XR_ERROR_INSTANCE_LOST (what Monado's client returns once its service
    /// is gone).
    InstanceLost,
    /// An OpenXR call answered XR_ERROR_RUNTIME_FAILURE: the runtime broke.
    RuntimeFailure,
    /// A runtime call did not return within `--runtime-timeout`: the
    /// watchdog wrote the report and ended the process (`run/watchdog.rs`).
    RuntimeUnresponsive,
    /// The Holographic Remoting connection dropped and every attempt to
    /// connect again failed (`--remote-retries`).
    RemotingLost,
}

impl SessionEnd {
    /// The end a failed OpenXR call means, when it says the runtime stopped.
    pub fn from_xr_result(result: openxr::sys::Result) -> Option<Self> {
        use openxr::sys::Result as XrResult;
        match result {
            XrResult::ERROR_INSTANCE_LOST => Some(SessionEnd::InstanceLost),
            XrResult::ERROR_SESSION_LOST => Some(SessionEnd::SessionLost),
            XrResult::ERROR_RUNTIME_FAILURE => Some(SessionEnd::RuntimeFailure),
            _ => None,
        }
    }

    /// Whether the runtime stopped under the app (exit code
    /// [`crate::xr::error::EXIT_RUNTIME_STOPPED`]) rather than the session ending
    /// properly. A runtime that stops answering never gets here: the
    /// watchdog ends the process itself.
    pub fn runtime_stopped(self) -> bool {
        matches!(
            self,
            SessionEnd::SessionLost
                | SessionEnd::InstanceLost
                | SessionEnd::RuntimeFailure
                | SessionEnd::RemotingLost
        )
    }

    /// What happened, for the one-line message.
    pub fn describe(self) -> &'static str {
        match self {
            SessionEnd::FrameLimit => "the frame limit was reached",
            SessionEnd::Interrupted => "interrupted",
            SessionEnd::RuntimeExit => "the runtime ended the session",
            SessionEnd::SessionLost => "session lost",
            SessionEnd::InstanceLost => "instance lost",
            SessionEnd::RuntimeFailure => "runtime failure",
            SessionEnd::RuntimeUnresponsive => "the runtime stopped answering",
            SessionEnd::RemotingLost => "the Holographic Remoting connection was lost",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_instance_lost_session_and_runtime_failure_mean_the_runtime_stopped() {
        use openxr::sys::Result as XrResult;
        let stopped = [
            (XrResult::ERROR_INSTANCE_LOST, SessionEnd::InstanceLost),
            (XrResult::ERROR_SESSION_LOST, SessionEnd::SessionLost),
            (XrResult::ERROR_RUNTIME_FAILURE, SessionEnd::RuntimeFailure),
        ];
        for (result, end) in stopped {
            assert_eq!(SessionEnd::from_xr_result(result), Some(end), "{result}");
            assert!(end.runtime_stopped());
        }
        for result in [
            XrResult::ERROR_VALIDATION_FAILURE,
            XrResult::ERROR_SESSION_NOT_RUNNING,
            XrResult::ERROR_CALL_ORDER_INVALID,
        ] {
            assert_eq!(SessionEnd::from_xr_result(result), None, "{result}");
        }
    }

    #[test]
    fn the_report_names_an_unresponsive_runtime() {
        assert_eq!(
            serde_json::to_value(SessionEnd::RuntimeUnresponsive).unwrap(),
            "runtime_unresponsive"
        );
    }

    #[test]
    fn proper_ends_are_not_runtime_stops() {
        for end in [
            SessionEnd::FrameLimit,
            SessionEnd::Interrupted,
            SessionEnd::RuntimeExit,
        ] {
            assert!(!end.runtime_stopped(), "{end:?}");
        }
    }
}
