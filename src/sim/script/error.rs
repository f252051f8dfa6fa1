//! A line that is not an event: its number, what is wrong, and what it should look like.
use std::fmt;

use thiserror::Error;

/// A line that is not an event.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("line {line}: {problem}; expected {expected}")]
pub struct ScriptError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub problem: String,
    /// What the line should look like.
    pub expected: &'static str,
}

/// Builds the error for `line`.
pub(super) fn error(
    line: usize,
    problem: impl fmt::Display,
    expected: &'static str,
) -> ScriptError {
    ScriptError {
        line,
        problem: problem.to_string(),
        expected,
    }
}
