//! The gesture script: a text file of timed events (air-taps, taps, selects, drags, traces, lifts, two-hand turns, grabs, head moves, words said) that drive the simulated user.
//!
//! One event per line; `#` starts a comment; blank lines are ignored.
//! ```text
//! 1.0 airtap right            # pinch while aiming at the hologram
//! 3.0 airtap right away       # pinch aimed (and looking) elsewhere: no reseed
//! 2.5 tap left 0.2 0.7        # index tip pushes into the surface at (u, v)
//! 4.0 select right            # controller select press
//! 5.0 hold right 1.0 0.3 0 0  # pinch on the hologram's base, move 0.3 m along x over 1 s, release
//! 5.0 trace right 1.0 0.1 0.5 0.9 0.5   # pinch on the surface at (u, v), drag through the points
//! 5.0 lift left 1.0 0.5 0.5 0.1         # pinch on the surface at (u, v), raise the hand 0.1 m
//! 5.0 twohand 1.0 90 1.5      # both hands pinch; their line turns 90° and spreads 1.5×
//! 5.0 grab left 1.0 0 0.2 0   # controller squeeze held 1 s while it moves 0.2 m up
//! 6.0 head 0.0 1.6 0.5 0.0 1.0 -1.0   # head moves to (x y z), looks at (x y z)
//! 7.0 stall 10                # the display clock jumps 10 s ahead, no frame shown
//! 8.0 disconnect 17           # Holographic Remoting drops (reason: connection lost)
//! 9.0 disconnect 17 3         # ... and the player refuses the next 3 attempts to reconnect
//! 5.0 say new terrain         # the wearer says "new terrain"
//! 5.0 palm left 2.0           # left palm up to the face, looked at, for 2 s (the hand menu)
//! 5.5 press landscapes poke   # the index tip pushes the button "Landscapes" in and out
//! 6.0 press islands ray right # the right hand's ray on "islands", with a pinch
//! 7.0 wait peers 1            # the script's clock holds until a peer has joined
//! ```
//! Times are seconds of simulated time from the first frame. `disconnect`
//! is for the test runtime's remoting emulation (tests/testrt, docs/testrt.md);
//! the simulator streams nowhere, so it parses the event and does nothing.
//! `say` is heard on the first frame shown at or after its time, by the
//! simulator and by the test runtime's emulated speech recognition; words
//! that are no command of the app's (`app::voice`) do nothing. A `press`
//! of a label not on show at its time does nothing; one the app never
//! shows is an error. A `wait` holds the script's clock until its
//! [`Condition`] holds (the frame loop plays it: `super::wait`); a `stall`
//! after a `wait` is an error, as it would never happen (a wait is met only
//! in a shared session, whose clock is the wall's).
//!
//! Here: the [`Script`] a text parses into; [`event`] the events' types,
//! [`parse`] one line to an event and the words every event is made of,
//! [`gestures`] the hands' events, [`other_events`] the rest, [`error`] a
//! line that is not an event.
mod error;
mod event;
mod gestures;
mod other_events;
mod parse;
mod words;

pub use error::ScriptError;
pub use event::{Action, Condition, PressWith, ScriptEvent};
pub use gestures::{MAX_LIFT_M, MAX_SPREAD, MAX_TRACE_POINTS, MAX_TURN_DEG};
pub use other_events::{MAX_DISCONNECT_REASON, MAX_ORDERED};
pub use words::{MAX_GESTURE_S, MAX_MOVE_M, MAX_TIME_S};

use crate::input::Hand;
use error::error;
use other_events::STALL;
use parse::parse_event;

/// A parsed script, events in time order (lines with equal times keep file order).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// The events.
    pub events: Vec<ScriptEvent>,
}

impl Script {
    /// Parses script text.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut events = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let content = raw.split('#').next().unwrap_or_default();
            let words: Vec<&str> = content.split_whitespace().collect();
            if words.is_empty() {
                continue;
            }
            events.push(parse_event(index + 1, &words)?);
        }
        events.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
        let script = Script { events };
        if let Some(wait) = script.first_wait()
            && let Some(stall) = script
                .events
                .iter()
                .skip_while(|e| e.line != wait.line)
                .find(|e| matches!(e.action, Action::Stall { .. }))
        {
            return Err(error(
                stall.line,
                format!(
                    "a stall after the wait on line {} would never happen: a wait is met only in a shared session, whose clock is the wall's",
                    wait.line
                ),
                STALL,
            ));
        }
        Ok(script)
    }

    /// The first `wait` in time order, if the script has one.
    pub fn first_wait(&self) -> Option<&ScriptEvent> {
        self.events
            .iter()
            .find(|event| matches!(event.action, Action::Wait { .. }))
    }

    /// A script with one air-tap of the right hand at `time_s`.
    pub fn single_air_tap(time_s: f64) -> Script {
        Script {
            events: vec![ScriptEvent {
                time_s,
                action: Action::AirTap {
                    hand: Hand::Right,
                    away: false,
                },
                line: 0,
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    #[test]
    fn parses_every_event_kind_and_skips_comments() {
        let script = Script::parse(
            "# a comment\n\n1.0 airtap right\n3.0 airtap left away # trailing\n2.5 tap left 0.2 0.7\n4 select right\n6.0 head 0.0 1.6 0.5 0.0 1.0 -1.0\n",
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
                Action::AirTap {
                    hand: Hand::Right,
                    away: false
                },
                Action::Tap {
                    hand: Hand::Left,
                    u: 0.2,
                    v: 0.7
                },
                Action::AirTap {
                    hand: Hand::Left,
                    away: true
                },
                Action::Select { hand: Hand::Right },
                Action::Head {
                    position: Vec3::new(0.0, 1.6, 0.5),
                    look_at: Vec3::new(0.0, 1.0, -1.0)
                },
            ]
        );
        assert_eq!(script.events[1].line, 5);
    }

    #[test]
    fn a_bad_line_names_its_number() {
        let error = Script::parse("1.0 airtap right\n\n2.0 wave right\n").unwrap_err();
        assert_eq!(error.line, 3);
        assert!(
            error
                .to_string()
                .starts_with("line 3: unknown event `wave`")
        );
    }

    #[test]
    fn a_stall_after_a_wait_is_an_error_and_one_before_it_is_not() {
        assert!(Script::parse("1 stall 2\n3 wait joined\n").is_ok());
        let error = Script::parse("3 wait joined\n5 stall 2\n").unwrap_err();
        assert_eq!((error.line, error.expected), (2, STALL));
        assert!(
            error.problem.contains("after the wait on line 1"),
            "{error}"
        );
        // At the wait's own time, file order says which comes first.
        assert!(Script::parse("3 stall 2\n3 wait joined\n").is_ok());
        assert_eq!(
            Script::parse("3 wait joined\n3 stall 2\n")
                .unwrap_err()
                .line,
            2
        );
    }
}
