//! What a run of a program printed: its text, success in full, or failure
//! in exactly one line.

use std::process::Output;

/// Bytes a program printed, as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts that a run failed with nothing on stdout and exactly one line on
/// stderr, and returns that line.
pub fn one_error_line(output: &Output, what: &str) -> String {
    assert!(!output.status.success(), "{what} succeeded");
    assert_eq!(text(&output.stdout), "", "{what}: stdout");
    let stderr = text(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one line on stderr, got:\n{stderr}");
    lines[0].to_owned()
}

/// Asserts `output` is of a run that succeeded, showing what it printed if not.
pub fn assert_success(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
}
