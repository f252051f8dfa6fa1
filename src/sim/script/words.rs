//! The words every script event is made of: a hand, a duration, a distance, a number, a coordinate, and the limits on them.
use super::error::{ScriptError, error};
use crate::input::Hand;

/// Latest time a script may use, so a typo cannot schedule an event in the year 3000.
pub const MAX_TIME_S: f64 = 86_400.0;

/// Longest a `hold`, `twohand` or `grab` may last, seconds.
pub const MAX_GESTURE_S: f64 = 60.0;
/// Farthest a `hold` or `grab` may move the hand along each axis, metres.
pub const MAX_MOVE_M: f32 = 10.0;

/// `left` or `right`.
pub(super) fn parse_hand(
    line: usize,
    word: &str,
    expected: &'static str,
) -> Result<Hand, ScriptError> {
    match word {
        "left" => Ok(Hand::Left),
        "right" => Ok(Hand::Right),
        other => Err(error(line, format!("`{other}` is not a hand"), expected)),
    }
}

/// A gesture's duration: above 0, at most [`MAX_GESTURE_S`].
pub(super) fn parse_duration(
    line: usize,
    word: &str,
    expected: &'static str,
) -> Result<f64, ScriptError> {
    word.parse::<f64>()
        .ok()
        .filter(|seconds| *seconds > 0.0 && *seconds <= MAX_GESTURE_S)
        .ok_or_else(|| {
            error(
                line,
                format!("`{word}` is not a duration in 0..{MAX_GESTURE_S} s"),
                expected,
            )
        })
}

/// A distance the hand moves along one axis, within ±[`MAX_MOVE_M`].
pub(super) fn parse_metres(
    line: usize,
    word: &str,
    expected: &'static str,
) -> Result<f32, ScriptError> {
    parse_number(line, word, expected, "a distance in metres", |metres| {
        metres.abs() <= MAX_MOVE_M
    })
}

/// A finite number that `allowed` accepts; `what` names it in the error.
pub(super) fn parse_number(
    line: usize,
    word: &str,
    expected: &'static str,
    what: &str,
    allowed: impl Fn(f32) -> bool,
) -> Result<f32, ScriptError> {
    word.parse::<f32>()
        .ok()
        .filter(|value| value.is_finite() && allowed(*value))
        .ok_or_else(|| error(line, format!("`{word}` is not {what} in range"), expected))
}

/// A coordinate across or along the terrain, 0..1.
pub(super) fn parse_unit(
    line: usize,
    word: &str,
    expected: &'static str,
) -> Result<f32, ScriptError> {
    word.parse::<f32>()
        .ok()
        .filter(|value| (0.0..=1.0).contains(value))
        .ok_or_else(|| {
            error(
                line,
                format!("`{word}` is not a coordinate in 0..1"),
                expected,
            )
        })
}
