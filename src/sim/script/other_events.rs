//! The events that are not a hand's gesture: the head moved, the runtime stalling or dropping the remoting connection, words said, and waits for a shared session; each line's grammar and limits.
use glam::Vec3;

use super::error::{ScriptError, error};
use super::event::{Action, Condition};
use super::words::MAX_TIME_S;
use crate::net::session::MAX_PEERS;

/// The most terrain commands a `wait ordered N` may wait for.
pub const MAX_ORDERED: u64 = 1_000_000;

/// The largest `XrRemotingDisconnectReasonMSFT` value a `disconnect` event
/// may give (handshake permission denied, the last one Microsoft's
/// published header names).
pub const MAX_DISCONNECT_REASON: u32 = 28;

// What each event's line should look like, as its errors say.
const HEAD: &str = "`TIME head X Y Z LOOK_X LOOK_Y LOOK_Z` (metres)";
pub(super) const STALL: &str = "`TIME stall SECONDS` with SECONDS above 0";
const DISCONNECT: &str = "`TIME disconnect REASON [REFUSALS]` with REASON a remoting disconnect reason code, 0 to 28, and REFUSALS how many attempts to reconnect the player refuses (default 0)";
const SAY: &str = "`TIME say WORDS`, e.g. `5.0 say new terrain`";
const WAIT: &str = "`TIME wait joined|alone|peers N|ordered N` (peers: 1 to 7; ordered: terrain commands, 1 or more)";

/// `head X Y Z LOOK_X LOOK_Y LOOK_Z`.
pub(super) fn parse_head(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    if args.len() != 6 {
        return Err(error(
            line,
            format!("head takes 6 numbers, got {}", args.len()),
            HEAD,
        ));
    }
    let mut numbers = [0.0f32; 6];
    for (number, word) in numbers.iter_mut().zip(args) {
        *number = word
            .parse::<f32>()
            .ok()
            .filter(|value| value.is_finite() && value.abs() <= 1000.0)
            .ok_or_else(|| {
                error(
                    line,
                    format!("`{word}` is not a coordinate in metres"),
                    HEAD,
                )
            })?;
    }
    let position = Vec3::new(numbers[0], numbers[1], numbers[2]);
    let look_at = Vec3::new(numbers[3], numbers[4], numbers[5]);
    if position.distance(look_at) < 1e-3 {
        return Err(error(
            line,
            "the head cannot look at its own position",
            HEAD,
        ));
    }
    Ok(Action::Head { position, look_at })
}

/// `stall SECONDS`.
pub(super) fn parse_stall(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let [seconds] = args else {
        return Err(error(
            line,
            format!("stall takes one duration, got `{}`", args.join(" ")),
            STALL,
        ));
    };
    let seconds = seconds
        .parse::<f64>()
        .ok()
        .filter(|value| *value > 0.0 && *value <= MAX_TIME_S)
        .ok_or_else(|| {
            error(
                line,
                format!("`{seconds}` is not a duration in 0..{MAX_TIME_S} s"),
                STALL,
            )
        })?;
    Ok(Action::Stall { seconds })
}

/// `disconnect REASON [REFUSALS]`.
pub(super) fn parse_disconnect(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let ([reason] | [reason, _]) = args else {
        return Err(error(
            line,
            format!(
                "disconnect takes a reason code and an optional number of refusals, got `{}`",
                args.join(" ")
            ),
            DISCONNECT,
        ));
    };
    let reason = reason
        .parse::<u32>()
        .ok()
        .filter(|reason| *reason <= MAX_DISCONNECT_REASON)
        .ok_or_else(|| {
            error(
                line,
                format!("`{reason}` is not a disconnect reason code"),
                DISCONNECT,
            )
        })?;
    let refusals = match args.get(1) {
        None => 0,
        Some(refusals) => refusals.parse::<u32>().map_err(|_| {
            error(
                line,
                format!("`{refusals}` is not a number of refused attempts"),
                DISCONNECT,
            )
        })?,
    };
    Ok(Action::Disconnect { reason, refusals })
}

/// `say WORDS`.
pub(super) fn parse_say(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    if args.is_empty() {
        return Err(error(line, "say needs the words said", SAY));
    }
    Ok(Action::Say {
        words: args.join(" ").to_lowercase(),
    })
}

/// `wait joined|alone|peers N|ordered N`.
pub(super) fn parse_wait(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let count = |word: &str, what: &str, most: u64| {
        word.parse::<u64>()
            .ok()
            .filter(|n| (1..=most).contains(n))
            .ok_or_else(|| {
                error(
                    line,
                    format!("`{word}` is not a number of {what} from 1 to {most}"),
                    WAIT,
                )
            })
    };
    let until = match args {
        ["joined"] => Condition::Joined,
        ["alone"] => Condition::Alone,
        ["peers", n] => Condition::Peers(count(n, "peers", MAX_PEERS as u64)? as usize),
        ["ordered", n] => Condition::Ordered(count(n, "terrain commands", MAX_ORDERED)?),
        [] => return Err(error(line, "wait needs a condition", WAIT)),
        [word, ..] if !["joined", "alone", "peers", "ordered"].contains(word) => {
            return Err(error(
                line,
                format!("`{word}` is not something to wait for"),
                WAIT,
            ));
        }
        _ => {
            return Err(error(
                line,
                format!("wait takes one condition, got `{}`", args.join(" ")),
                WAIT,
            ));
        }
    };
    Ok(Action::Wait { until })
}

#[cfg(test)]
mod tests {
    use super::super::Script;
    use super::*;

    #[test]
    fn a_short_head_line_is_rejected() {
        let error = Script::parse("1 head 0 1.6 0").unwrap_err();
        assert_eq!(error.expected, HEAD);
    }

    #[test]
    fn a_stall_parses_its_duration() {
        let script = Script::parse("1.0 stall 10\n").unwrap();
        assert_eq!(script.events[0].action, Action::Stall { seconds: 10.0 });
    }

    #[test]
    fn a_stall_needs_one_positive_finite_duration() {
        for line in [
            "1 stall",
            "1 stall 0",
            "1 stall -2",
            "1 stall nan",
            "1 stall inf",
            "1 stall 1 2",
        ] {
            let error = Script::parse(line).unwrap_err();
            assert_eq!(error.expected, STALL, "{line}");
        }
    }

    #[test]
    fn a_disconnect_parses_its_reason_code_and_refusals() {
        let script = Script::parse("2.5 disconnect 17\n3 disconnect 4 2\n").unwrap();
        assert_eq!(
            script.events[0].action,
            Action::Disconnect {
                reason: 17,
                refusals: 0
            }
        );
        assert_eq!(
            script.events[1].action,
            Action::Disconnect {
                reason: 4,
                refusals: 2
            }
        );
    }

    #[test]
    fn say_keeps_its_words_in_lower_case_with_single_spaces() {
        let script = Script::parse("5.0 say New   Terrain # loud\n").unwrap();
        assert_eq!(
            script.events[0].action,
            Action::Say {
                words: "new terrain".into()
            }
        );
        let error = Script::parse("5.0 say").unwrap_err();
        assert_eq!(error.expected, SAY);
    }

    #[test]
    fn a_disconnect_needs_one_known_reason_code() {
        for line in [
            "1 disconnect",
            "1 disconnect 29",
            "1 disconnect -1",
            "1 disconnect lost",
            "1 disconnect 4 -5",
            "1 disconnect 4 5 6",
        ] {
            let error = Script::parse(line).unwrap_err();
            assert_eq!(error.expected, DISCONNECT, "{line}");
        }
    }

    #[test]
    fn a_wait_parses_each_condition() {
        let script = Script::parse(
            "1 wait joined\n2 wait peers 2\n3 wait alone\n4 wait ordered 7 # all seven\n",
        )
        .unwrap();
        let conditions: Vec<Condition> = script
            .events
            .iter()
            .map(|event| match event.action {
                Action::Wait { until } => until,
                ref other => panic!("not a wait: {other:?}"),
            })
            .collect();
        assert_eq!(
            conditions,
            [
                Condition::Joined,
                Condition::Peers(2),
                Condition::Alone,
                Condition::Ordered(7)
            ]
        );
        assert_eq!(script.first_wait().map(|wait| wait.line), Some(1));
        let spelled: Vec<String> = conditions.iter().map(ToString::to_string).collect();
        assert_eq!(spelled, ["joined", "peers 2", "alone", "ordered 7"]);
    }

    #[test]
    fn a_malformed_wait_is_one_error_naming_its_line() {
        for (line, problem) in [
            ("1 wait", "wait needs a condition"),
            ("1 wait sunrise", "`sunrise` is not something to wait for"),
            ("1 wait peers", "wait takes one condition, got `peers`"),
            ("1 wait peers 0", "`0` is not a number of peers from 1 to 7"),
            ("1 wait peers 8", "`8` is not a number of peers from 1 to 7"),
            (
                "1 wait peers two",
                "`two` is not a number of peers from 1 to 7",
            ),
            (
                "1 wait ordered -3",
                "`-3` is not a number of terrain commands from 1 to 1000000",
            ),
            (
                "1 wait ordered 2.5",
                "`2.5` is not a number of terrain commands",
            ),
            (
                "1 wait joined now",
                "wait takes one condition, got `joined now`",
            ),
            ("1 wait alone 2", "wait takes one condition, got `alone 2`"),
            (
                "1 wait ordered 3 4",
                "wait takes one condition, got `ordered 3 4`",
            ),
        ] {
            let error = Script::parse(&format!("0.5 airtap right\n{line}\n")).unwrap_err();
            assert_eq!((error.line, error.expected), (2, WAIT), "{line}: {error}");
            assert!(error.problem.starts_with(problem), "{line}: {error}");
        }
    }
}
