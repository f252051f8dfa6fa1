//! One line to an event: its time, its kind and the kind's own grammar (the words it is made of: `words.rs`).
use super::error::{ScriptError, error};
use super::event::ScriptEvent;
use super::gestures::{
    parse_airtap, parse_hold_or_grab, parse_lift, parse_palm, parse_press, parse_scrub,
    parse_select, parse_tap, parse_trace, parse_twohand,
};
use super::other_events::{parse_disconnect, parse_head, parse_say, parse_stall, parse_wait};
use super::words::MAX_TIME_S;

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
        "scrub" => parse_scrub(line, args),
        "wait" => parse_wait(line, args),
        other => Err(error(line, format!("unknown event `{other}`"), ANY_EVENT)),
    }?;
    Ok(ScriptEvent {
        time_s,
        action,
        line,
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
