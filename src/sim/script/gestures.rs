//! The hands' events: air-taps, taps, selects, holds and grabs, traces, lifts, two-hand turns, palms shown and buttons pressed, each line's grammar and limits.
use glam::Vec3;

use super::error::{ScriptError, error};
use super::event::{Action, PressWith};
use super::words::{parse_duration, parse_hand, parse_metres, parse_number, parse_unit};
use crate::app::controls::{Action as ButtonAction, every_label, says};
use crate::input::Hand;

/// Most points a `trace` may pass through.
pub const MAX_TRACE_POINTS: usize = 256;
/// Farthest a `lift` may raise or lower the hand, metres.
pub const MAX_LIFT_M: f32 = 1.0;
/// Largest turn a `twohand` may make, degrees either way.
pub const MAX_TURN_DEG: f32 = 720.0;
/// Largest factor by which a `twohand` may spread (or, inverted, close) the hands.
pub const MAX_SPREAD: f32 = 100.0;

// What each event's line should look like, as its errors say.
const TRACE: &str = "`TIME trace left|right SECONDS U0 V0 U1 V1 [U V ...]` (SECONDS in 0..60, at least two points, each U and V in 0..1)";
const LIFT: &str = "`TIME lift left|right SECONDS U V DH` (SECONDS in 0..60, U and V in 0..1, DH metres within ±1)";
const AIRTAP: &str = "`TIME airtap left|right [away]`";
const TAP: &str = "`TIME tap left|right U V` with U and V in 0..1";
const SELECT: &str = "`TIME select left|right`";
const HOLD: &str = "`TIME hold left|right SECONDS DX DY DZ` (SECONDS in 0..60, metres within ±10)";
const TWOHAND: &str = "`TIME twohand SECONDS DEGREES SCALE` (SECONDS in 0..60, DEGREES within ±720, SCALE in 0.01..100)";
const GRAB: &str = "`TIME grab left|right SECONDS DX DY DZ` (SECONDS in 0..60, metres within ±10)";
const PALM: &str = "`TIME palm left|right SECONDS` (SECONDS in 0..60)";
const PRESS: &str = "`TIME press LABEL [poke|ray] [left|right]` with LABEL a button's label, e.g. `4.0 press pause growth poke`";
const SCRUB: &str = "`TIME scrub FRACTION [poke|ray] [left|right]` with FRACTION in 0..1 (0 the history's start, 1 now), pressing the history page's time slider there, e.g. `6.0 scrub 0.5`";

/// `airtap left|right [away]`.
pub(super) fn parse_airtap(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let (hand, away) = match args {
        [hand] => (hand, false),
        [hand, "away"] => (hand, true),
        _ => {
            return Err(error(
                line,
                format!(
                    "airtap takes a hand and an optional `away`, got `{}`",
                    args.join(" ")
                ),
                AIRTAP,
            ));
        }
    };
    Ok(Action::AirTap {
        hand: parse_hand(line, hand, AIRTAP)?,
        away,
    })
}

/// `tap left|right U V`.
pub(super) fn parse_tap(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let [hand, u, v] = args else {
        return Err(error(
            line,
            format!(
                "tap takes a hand and two coordinates, got `{}`",
                args.join(" ")
            ),
            TAP,
        ));
    };
    Ok(Action::Tap {
        hand: parse_hand(line, hand, TAP)?,
        u: parse_unit(line, u, TAP)?,
        v: parse_unit(line, v, TAP)?,
    })
}

/// `select left|right`.
pub(super) fn parse_select(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let [hand] = args else {
        return Err(error(
            line,
            format!("select takes one hand, got `{}`", args.join(" ")),
            SELECT,
        ));
    };
    Ok(Action::Select {
        hand: parse_hand(line, hand, SELECT)?,
    })
}

/// `hold|grab left|right SECONDS DX DY DZ` (`kind` says which).
pub(super) fn parse_hold_or_grab(
    line: usize,
    kind: &str,
    args: &[&str],
) -> Result<Action, ScriptError> {
    let expected = if kind == "hold" { HOLD } else { GRAB };
    let [hand, seconds, dx, dy, dz] = args else {
        return Err(error(
            line,
            format!(
                "{kind} takes a hand, a duration and 3 distances, got `{}`",
                args.join(" ")
            ),
            expected,
        ));
    };
    let hand = parse_hand(line, hand, expected)?;
    let seconds = parse_duration(line, seconds, expected)?;
    let delta = Vec3::new(
        parse_metres(line, dx, expected)?,
        parse_metres(line, dy, expected)?,
        parse_metres(line, dz, expected)?,
    );
    Ok(if kind == "hold" {
        Action::Hold {
            hand,
            seconds,
            delta,
        }
    } else {
        Action::Grab {
            hand,
            seconds,
            delta,
        }
    })
}

/// `trace left|right SECONDS U0 V0 U1 V1 [U V ...]`.
pub(super) fn parse_trace(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let [hand, seconds, coordinates @ ..] = args else {
        return Err(error(
            line,
            format!(
                "trace takes a hand, a duration and points, got `{}`",
                args.join(" ")
            ),
            TRACE,
        ));
    };
    if coordinates.len() < 4 || coordinates.len() % 2 != 0 {
        return Err(error(
            line,
            format!(
                "trace needs at least two points as U V pairs, got {} numbers",
                coordinates.len()
            ),
            TRACE,
        ));
    }
    if coordinates.len() / 2 > MAX_TRACE_POINTS {
        return Err(error(
            line,
            format!("trace takes at most {MAX_TRACE_POINTS} points"),
            TRACE,
        ));
    }
    let mut points = Vec::with_capacity(coordinates.len() / 2);
    for pair in coordinates.chunks(2) {
        points.push([
            parse_unit(line, pair[0], TRACE)?,
            parse_unit(line, pair[1], TRACE)?,
        ]);
    }
    Ok(Action::Trace {
        hand: parse_hand(line, hand, TRACE)?,
        seconds: parse_duration(line, seconds, TRACE)?,
        points,
    })
}

/// `lift left|right SECONDS U V DH`.
pub(super) fn parse_lift(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let [hand, seconds, u, v, dh] = args else {
        return Err(error(
            line,
            format!(
                "lift takes a hand, a duration, a point and a height, got `{}`",
                args.join(" ")
            ),
            LIFT,
        ));
    };
    Ok(Action::Lift {
        hand: parse_hand(line, hand, LIFT)?,
        seconds: parse_duration(line, seconds, LIFT)?,
        u: parse_unit(line, u, LIFT)?,
        v: parse_unit(line, v, LIFT)?,
        dh: parse_number(line, dh, LIFT, "a height in metres", |dh| {
            dh.abs() <= MAX_LIFT_M
        })?,
    })
}

/// `twohand SECONDS DEGREES SCALE`.
pub(super) fn parse_twohand(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let [seconds, degrees, scale] = args else {
        return Err(error(
            line,
            format!(
                "twohand takes a duration, an angle and a factor, got `{}`",
                args.join(" ")
            ),
            TWOHAND,
        ));
    };
    Ok(Action::TwoHand {
        seconds: parse_duration(line, seconds, TWOHAND)?,
        degrees: parse_number(line, degrees, TWOHAND, "an angle in degrees", |d| {
            d.abs() <= MAX_TURN_DEG
        })?,
        scale: parse_number(line, scale, TWOHAND, "a spread factor", |k| {
            (1.0 / MAX_SPREAD..=MAX_SPREAD).contains(&k)
        })?,
    })
}

/// `palm left|right SECONDS`.
pub(super) fn parse_palm(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let [hand, seconds] = args else {
        return Err(error(
            line,
            format!("palm takes a hand and a duration, got `{}`", args.join(" ")),
            PALM,
        ));
    };
    Ok(Action::Palm {
        hand: parse_hand(line, hand, PALM)?,
        seconds: parse_duration(line, seconds, PALM)?,
    })
}

/// `press LABEL [poke|ray] [left|right]`.
pub(super) fn parse_press(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let mut words = args;
    let hand = match words.last() {
        Some(&"left") => Some(Hand::Left),
        Some(&"right") => Some(Hand::Right),
        _ => None,
    };
    if hand.is_some() {
        words = &words[..words.len() - 1];
    }
    let with = match words.last() {
        Some(&"poke") => Some(PressWith::Poke),
        Some(&"ray") => Some(PressWith::Ray),
        _ => None,
    };
    if with.is_some() {
        words = &words[..words.len() - 1];
    }
    if words.is_empty() {
        return Err(error(line, "press needs a button's label", PRESS));
    }
    let said = words.join(" ");
    let Some(label) = every_label().into_iter().find(|label| says(&said, label)) else {
        return Err(error(
            line,
            format!(
                "no button says `{said}` (they say: {})",
                every_label().join(", ")
            ),
            PRESS,
        ));
    };
    Ok(Action::Press {
        label,
        with: with.unwrap_or(PressWith::Poke),
        hand,
        along: 0.5,
    })
}

/// `scrub FRACTION [poke|ray] [left|right]`: a press of the time slider at
/// FRACTION across it.
pub(super) fn parse_scrub(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    let Some((fraction, rest)) = args.split_first() else {
        return Err(error(
            line,
            "scrub needs the fraction of the history to go to",
            SCRUB,
        ));
    };
    let along = match fraction.parse::<f32>() {
        Ok(along) if (0.0..=1.0).contains(&along) => along,
        _ => {
            return Err(error(
                line,
                format!("scrub's fraction `{fraction}` is not a number in 0..1"),
                SCRUB,
            ));
        }
    };
    let mut press = vec![ButtonAction::TimeSlider.label()];
    press.extend(rest);
    match parse_press(line, &press) {
        Ok(Action::Press {
            label, with, hand, ..
        }) => Ok(Action::Press {
            label,
            with,
            hand,
            along,
        }),
        _ => Err(error(
            line,
            format!(
                "scrub takes `poke` or `ray` and a hand after the fraction, got `{}`",
                rest.join(" ")
            ),
            SCRUB,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Script;
    use super::*;

    #[test]
    fn a_tap_outside_the_terrain_is_rejected() {
        let error = Script::parse("1.0 tap left 1.2 0.5").unwrap_err();
        assert_eq!((error.line, error.expected), (1, TAP));
    }

    #[test]
    fn traces_and_lifts_parse_their_points_and_heights() {
        let script = Script::parse(
            "1 trace right 1.5 0.1 0.5 0.5 0.4 0.9 0.5
2 lift left 1 0.3 0.7 -0.05
",
        )
        .unwrap();
        assert_eq!(
            script.events[0].action,
            Action::Trace {
                hand: Hand::Right,
                seconds: 1.5,
                points: vec![[0.1, 0.5], [0.5, 0.4], [0.9, 0.5]]
            }
        );
        assert_eq!(
            script.events[1].action,
            Action::Lift {
                hand: Hand::Left,
                seconds: 1.0,
                u: 0.3,
                v: 0.7,
                dh: -0.05
            }
        );
    }

    #[test]
    fn a_trace_off_the_surface_or_too_short_is_a_script_error_on_its_line() {
        for (text, expected) in [
            (
                "1 airtap right
2 trace right 1 0.1 0.5 1.1 0.5",
                TRACE,
            ),
            (
                "

2 trace right 1 0.1 0.5",
                TRACE,
            ),
            (
                "

2 trace right 1 0.1 0.5 0.2",
                TRACE,
            ),
            (
                "

2 trace right -1 0.1 0.5 0.2 0.5",
                TRACE,
            ),
            (
                "

2 lift right 1 0.1 0.5",
                LIFT,
            ),
            (
                "

2 lift right 1 0.1 -0.5 0.1",
                LIFT,
            ),
            (
                "

2 lift right 1 0.1 0.5 3",
                LIFT,
            ),
        ] {
            let error = Script::parse(text).unwrap_err();
            assert_eq!(
                (error.line, error.expected),
                (3 - text.starts_with('1') as usize, expected),
                "{text}"
            );
        }
        assert_eq!(
            Script::parse("-1 trace right 1 0.1 0.5 0.2 0.5")
                .unwrap_err()
                .line,
            1
        );
    }

    #[test]
    fn hold_twohand_and_grab_parse_their_numbers() {
        let script = Script::parse(
            "1 hold left 1.5 0.3 0 -0.1\n2 twohand 1.0 90 1.5\n3 grab right 0.5 0 0.2 0\n",
        )
        .unwrap();
        let actions: Vec<Action> = script
            .events
            .iter()
            .map(|event| event.action.clone())
            .collect();
        assert_eq!(
            actions,
            vec![
                Action::Hold {
                    hand: Hand::Left,
                    seconds: 1.5,
                    delta: Vec3::new(0.3, 0.0, -0.1)
                },
                Action::TwoHand {
                    seconds: 1.0,
                    degrees: 90.0,
                    scale: 1.5
                },
                Action::Grab {
                    hand: Hand::Right,
                    seconds: 0.5,
                    delta: Vec3::new(0.0, 0.2, 0.0)
                },
            ]
        );
    }

    #[test]
    fn hold_twohand_and_grab_refuse_what_is_out_of_range() {
        for (line, expected) in [
            ("1 hold left 0 0.3 0 0", HOLD),
            ("1 hold left 61 0.3 0 0", HOLD),
            ("1 hold left 1 0.3 0", HOLD),
            ("1 hold middle 1 0.3 0 0", HOLD),
            ("1 hold left 1 nan 0 0", HOLD),
            ("1 grab left 1 0 11 0", GRAB),
            ("1 twohand 1 90", TWOHAND),
            ("1 twohand 1 900 1.5", TWOHAND),
            ("1 twohand 1 90 0", TWOHAND),
            ("1 twohand 1 90 -2", TWOHAND),
            ("1 twohand -1 90 1.5", TWOHAND),
        ] {
            let error = Script::parse(line).unwrap_err();
            assert_eq!(error.expected, expected, "{line}: {error}");
        }
    }
}
