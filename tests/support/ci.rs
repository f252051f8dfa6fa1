//! Skipping a test whose environment is missing, except in CI, where a
//! missing environment is a failure.

/// Whether a skipped precondition must fail the test instead (env CI set).
fn must_run() -> bool {
    std::env::var_os("CI").is_some()
}

/// Skips (returns false, printing why) or, in CI, panics.
pub fn skip(reason: &str) -> bool {
    assert!(
        !must_run(),
        "CI is set, so this test must run, but: {reason}"
    );
    eprintln!("SKIPPED: {reason}");
    false
}
