//! What a run must show that the app's watchdog ended because the OpenXR
//! runtime stopped answering: exit status 4, one line naming the call and
//! the report, and the report of a session that was never torn down.

use std::path::Path;

use serde_json::Value;

/// The exit status `holoterrain xr` documents for a runtime that stopped answering.
pub const EXIT_RUNTIME_UNRESPONSIVE: i32 = 4;

/// Asserts that the watchdog ended the run: exit status 4 (`status`),
/// exactly one line of holoterrain's (`error: …` or `xr: …`) in `output`,
/// starting with `start` and naming `report_path`, and `report` (read from
/// it) ended as `ended` with the states and frames of a session that was
/// running and never torn down. Returns the line.
pub fn assert_ended_by_watchdog(
    status: Option<i32>,
    output: &str,
    start: &str,
    report_path: &Path,
    report: &Value,
    ended: &str,
) -> String {
    assert_eq!(
        status,
        Some(EXIT_RUNTIME_UNRESPONSIVE),
        "exit status; output:\n{output}"
    );
    let ours: Vec<&str> = output
        .lines()
        .filter(|line| line.starts_with("error: ") || line.starts_with("xr: "))
        .collect();
    assert_eq!(ours.len(), 1, "one line from holoterrain, got {ours:?}");
    let line = ours[0];
    assert!(line.starts_with(start), "{line}");
    assert!(
        line.contains(&format!("; report written to {};", report_path.display())),
        "names the report: {line}"
    );
    assert!(
        line.contains("the app ended without tearing down the session"),
        "{line}"
    );
    assert_eq!(report["ended"], ended, "report: {report}");
    assert!(report["frames"].as_u64().unwrap() > 0, "report: {report}");
    let states: Vec<&str> = report["session_states"]
        .as_array()
        .expect("session_states")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(states.contains(&"FOCUSED"), "{states:?}");
    assert!(
        !states.contains(&"STOPPING") && !states.contains(&"EXITING"),
        "the session was never ended: {states:?}"
    );
    line.to_owned()
}
