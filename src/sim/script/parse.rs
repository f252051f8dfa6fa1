//! One line to an event: its time, its kind and the kind's own grammar; and the words every event is made of (a hand, a duration, a distance, a coordinate).
use super::error::{ScriptError, error};
use super::event::ScriptEvent;
use super::gestures::{
    parse_airtap, parse_hold_or_grab, parse_lift, parse_palm, parse_press, parse_select, parse_tap,
    parse_trace, parse_twohand,
};
use super::other_events::{parse_disconnect, parse_head, parse_say, parse_stall, parse_wait};
use crate::input::Hand;

/// Latest time a script may use, so a typo cannot schedule an event in the year 3000.
pub const MAX_TIME_S: f64 = 86_400.0;

/// Longest a `hold`, `twohand` or `grab` may last, seconds.
pub const MAX_GESTURE_S: f64 = 60.0;
/// Farthest a `hold` or `grab` may move the hand along each axis, metres.
pub const MAX_MOVE_M: f32 = 10.0;

/// What any line should look like.
const ANY_EVENT: &str = "`TIME airtap|tap|select|hold|trace|lift|twohand|grab|head|stall|disconnect|say|palm|press|wait ...`, e.g. `1.0 airtap right`";

/// One line's words, its comment gone, as its event.
pub(super) fn parse_event(line: usize, words: &[&str]) -> Result<ScriptEvent, ScriptError> {
    let time_s: f64 = words[0].parse().map_err(|_| {
        error(
            line,
            format!("`{}` is not a time in seconds", words[0]),
            ANY_EVENT,
        )
    })?;
    if !(0.0..=MAX_TIME_S).contains(&time_s) {
        return Err(error(
            line,
            format!("time {time_s} is outside 0..{MAX_TIME_S} s"),
            ANY_EVENT,
        ));
    }
    let Some(&kind) = words.get(1) else {
        return Err(error(line, "a time with no event", ANY_EVENT));
    };
    let args = &words[2..];
    let action = match kind {
        "airtap" => parse_airtap(line, args),
        "tap" => parse_tap(line, args),
        "select" => parse_select(line, args),
        "hold" | "grab" => parse_hold_or_grab(line, kind, args),
        "trace" => parse_trace(line, args),
        "lift" => parse_lift(line, args),
        "twohand" => parse_twohand(line, args),
        "head" => parse_head(line, args),
        "stall" => parse_stall(line, args),
        "disconnect" => parse_disconnect(line, args),
        "say" => parse_say(line, args),
        "palm" => parse_palm(line, args),
        "press" => parse_press(line, args),
        "wait" => parse_wait(line, args),
        other => Err(error(line, format!("unknown event `{other}`"), ANY_EVENT)),
    }?;
    Ok(ScriptEvent {
        time_s,
        action,
        line,
    })
}

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

#[cfg(test)]
mod tests {
    use super::super::Script;

    #[test]
    fn a_missing_time_is_rejected() {
        assert_eq!(Script::parse("airtap right").unwrap_err().line, 1);
    }

    #[test]
    fn a_negative_time_is_rejected() {
        assert!(Script::parse("-1 select left").is_err());
    }

    #[test]
    fn an_unknown_hand_is_rejected() {
        assert!(Script::parse("1 select middle").is_err());
    }
}
