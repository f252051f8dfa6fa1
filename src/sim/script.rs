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
use std::fmt;

use glam::Vec3;
use thiserror::Error;

use crate::app::controls::{every_label, says};
use crate::input::Hand;
use crate::net::session::MAX_PEERS;

/// Latest time a script may use, so a typo cannot schedule an event in the year 3000.
pub const MAX_TIME_S: f64 = 86_400.0;

/// Longest a `hold`, `twohand` or `grab` may last, seconds.
pub const MAX_GESTURE_S: f64 = 60.0;
/// Farthest a `hold` or `grab` may move the hand along each axis, metres.
pub const MAX_MOVE_M: f32 = 10.0;
/// Most points a `trace` may pass through.
pub const MAX_TRACE_POINTS: usize = 256;
/// Farthest a `lift` may raise or lower the hand, metres.
pub const MAX_LIFT_M: f32 = 1.0;
/// Largest turn a `twohand` may make, degrees either way.
pub const MAX_TURN_DEG: f32 = 720.0;
/// Largest factor by which a `twohand` may spread (or, inverted, close) the hands.
pub const MAX_SPREAD: f32 = 100.0;

/// The most terrain commands a `wait ordered N` may wait for.
pub const MAX_ORDERED: u64 = 1_000_000;

/// The largest `XrRemotingDisconnectReasonMSFT` value a `disconnect` event
/// may give (handshake permission denied, the last one Microsoft's
/// published header names).
pub const MAX_DISCONNECT_REASON: u32 = 28;

/// What the simulated user does.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Pinch thumb and index of `hand`.
    AirTap {
        /// Which hand pinches.
        hand: Hand,
        /// True when hand and head point away from the hologram.
        away: bool,
    },
    /// Push the index tip of `hand` into the terrain at (u, v).
    Tap {
        /// Which hand taps.
        hand: Hand,
        /// Across the terrain, 0..1 left to right.
        u: f32,
        /// Along the terrain, 0..1 far to near.
        v: f32,
    },
    /// Press the select button of the controller in `hand`.
    Select {
        /// Which controller.
        hand: Hand,
    },
    /// Pinch aiming at the land's surface at the first point and keep
    /// pinching while the aim sweeps through the others at constant speed,
    /// the hand moving across with it, then release: a traced fault.
    Trace {
        /// Which hand.
        hand: Hand,
        /// How long the pinch lasts, seconds.
        seconds: f64,
        /// The (u, v) points, at least two, each in 0..1.
        points: Vec<[f32; 2]>,
    },
    /// Pinch aiming at the land's surface at (u, v) and raise the hand `dh`
    /// metres (negative: lower it) over `seconds`, then release: a lifted hill.
    Lift {
        /// Which hand.
        hand: Hand,
        /// How long the pinch lasts, seconds.
        seconds: f64,
        /// Across the terrain, 0..1 left to right.
        u: f32,
        /// Along the terrain, 0..1 far to near.
        v: f32,
        /// How far the hand rises, metres.
        dh: f32,
    },
    /// Pinch aiming at the hologram's base (below the land's edge, on the
    /// side facing the head) and keep pinching while the hand moves by
    /// `delta` at constant speed, then release.
    Hold {
        /// Which hand.
        hand: Hand,
        /// How long the pinch lasts, seconds.
        seconds: f64,
        /// How far the hand moves meanwhile, metres.
        delta: Vec3,
    },
    /// Both hands pinch on the hologram; over `seconds` the line between
    /// them turns `degrees` about the vertical (counter-clockwise seen from
    /// above) and their distance changes by `scale`; then both release.
    TwoHand {
        /// How long both pinch, seconds.
        seconds: f64,
        /// How far their line turns, degrees.
        degrees: f32,
        /// The factor their distance changes by.
        scale: f32,
    },
    /// Squeeze the controller in `hand` for `seconds` while it moves by `delta`.
    Grab {
        /// Which controller.
        hand: Hand,
        /// How long the squeeze lasts, seconds.
        seconds: f64,
        /// How far the controller moves meanwhile, metres.
        delta: Vec3,
    },
    /// Move the head to `position`, looking at `look_at`, and stop orbiting.
    Head {
        /// Where the head goes (metres).
        position: Vec3,
        /// The point it looks at.
        look_at: Vec3,
    },
    /// The runtime stops asking for frames: the display clock jumps this far
    /// ahead with no frame shown in between.
    Stall {
        /// How far the clock jumps, in seconds.
        seconds: f64,
    },
    /// Holographic Remoting loses its connection with this
    /// `XrRemotingDisconnectReasonMSFT` (played by the test runtime only).
    Disconnect {
        /// The reason code the runtime reports.
        reason: u32,
        /// How many attempts to reconnect the player refuses afterwards.
        refusals: u32,
    },
    /// The wearer says these words (lower case, single spaces).
    Say {
        /// What is said.
        words: String,
    },
    /// The wearer holds `hand` up, flat and open, palm to the face, and
    /// looks at it for `seconds` (the hand menu shows beside it).
    Palm {
        /// Which hand.
        hand: Hand,
        /// How long, seconds.
        seconds: f64,
    },
    /// The wearer presses the button labelled `label` if it is on show
    /// then: with the index tip (`poke`) or the hand's ray and a pinch
    /// (`ray`), by `hand` (by default the hand not showing its palm, else
    /// the right).
    Press {
        /// The label, as the button spells it.
        label: &'static str,
        /// How.
        with: PressWith,
        /// Which hand, when the script says.
        hand: Option<Hand>,
    },
    /// The script's clock holds here until `until` holds (the simulator's
    /// frame loop plays it; every later event comes that much later).
    Wait {
        /// What it waits for.
        until: Condition,
    },
}

/// What a scripted `wait` waits for: the run's standing in a shared session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// The run is a peer of a session (by `--join` or by a card) whose host
    /// has not left it.
    Joined,
    /// The run hosts a session and at least this many peers are connected.
    Peers(usize),
    /// Nobody else is in the run's session now: it hosts and no peer is
    /// connected, or it joined and the host has left.
    Alone,
    /// The session's shared order, as this run has taken it in, holds at
    /// least this many terrain commands (the host: those it ordered,
    /// including a session's first made alone before "Share session"; a
    /// peer: those it received and applied).
    Ordered(u64),
}

impl fmt::Display for Condition {
    /// As the script spells it: `joined`, `peers 2`, `alone`, `ordered 7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Joined => write!(f, "joined"),
            Condition::Peers(n) => write!(f, "peers {n}"),
            Condition::Alone => write!(f, "alone"),
            Condition::Ordered(n) => write!(f, "ordered {n}"),
        }
    }
}

/// How a scripted `press` is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PressWith {
    /// The index tip pushes the button in and comes back out.
    Poke,
    /// The hand's ray on the button, with a pinch.
    Ray,
}

/// One line of the script.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptEvent {
    /// When it happens, in seconds from the first frame.
    pub time_s: f64,
    /// What happens.
    pub action: Action,
    /// The line it came from (1-based), for messages.
    pub line: usize,
}

/// A parsed script, events in time order (lines with equal times keep file order).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// The events.
    pub events: Vec<ScriptEvent>,
}

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

const ANY_EVENT: &str = "`TIME airtap|tap|select|hold|trace|lift|twohand|grab|head|stall|disconnect|say|palm|press|wait ...`, e.g. `1.0 airtap right`";
const TRACE: &str = "`TIME trace left|right SECONDS U0 V0 U1 V1 [U V ...]` (SECONDS in 0..60, at least two points, each U and V in 0..1)";
const LIFT: &str = "`TIME lift left|right SECONDS U V DH` (SECONDS in 0..60, U and V in 0..1, DH metres within ±1)";
const AIRTAP: &str = "`TIME airtap left|right [away]`";
const TAP: &str = "`TIME tap left|right U V` with U and V in 0..1";
const SELECT: &str = "`TIME select left|right`";
const HEAD: &str = "`TIME head X Y Z LOOK_X LOOK_Y LOOK_Z` (metres)";
const HOLD: &str = "`TIME hold left|right SECONDS DX DY DZ` (SECONDS in 0..60, metres within ±10)";
const TWOHAND: &str = "`TIME twohand SECONDS DEGREES SCALE` (SECONDS in 0..60, DEGREES within ±720, SCALE in 0.01..100)";
const GRAB: &str = "`TIME grab left|right SECONDS DX DY DZ` (SECONDS in 0..60, metres within ±10)";
const STALL: &str = "`TIME stall SECONDS` with SECONDS above 0";
const DISCONNECT: &str = "`TIME disconnect REASON [REFUSALS]` with REASON a remoting disconnect reason code, 0 to 28, and REFUSALS how many attempts to reconnect the player refuses (default 0)";
const SAY: &str = "`TIME say WORDS`, e.g. `5.0 say new terrain`";
const PALM: &str = "`TIME palm left|right SECONDS` (SECONDS in 0..60)";
const WAIT: &str = "`TIME wait joined|alone|peers N|ordered N` (peers: 1 to 7; ordered: terrain commands, 1 or more)";
const PRESS: &str = "`TIME press LABEL [poke|ray] [left|right]` with LABEL a button's label, e.g. `4.0 press pause growth poke`";

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

/// Builds the error for `line`.
fn error(line: usize, problem: impl fmt::Display, expected: &'static str) -> ScriptError {
    ScriptError {
        line,
        problem: problem.to_string(),
        expected,
    }
}

fn parse_event(line: usize, words: &[&str]) -> Result<ScriptEvent, ScriptError> {
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

/// `airtap left|right [away]`.
fn parse_airtap(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_tap(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_select(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_hold_or_grab(line: usize, kind: &str, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_trace(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_lift(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_twohand(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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

/// `head X Y Z LOOK_X LOOK_Y LOOK_Z`.
fn parse_head(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_stall(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_disconnect(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_say(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
    if args.is_empty() {
        return Err(error(line, "say needs the words said", SAY));
    }
    Ok(Action::Say {
        words: args.join(" ").to_lowercase(),
    })
}

/// `palm left|right SECONDS`.
fn parse_palm(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
fn parse_press(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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
    })
}

/// `wait joined|alone|peers N|ordered N`.
fn parse_wait(line: usize, args: &[&str]) -> Result<Action, ScriptError> {
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

fn parse_hand(line: usize, word: &str, expected: &'static str) -> Result<Hand, ScriptError> {
    match word {
        "left" => Ok(Hand::Left),
        "right" => Ok(Hand::Right),
        other => Err(error(line, format!("`{other}` is not a hand"), expected)),
    }
}

/// A gesture's duration: above 0, at most [`MAX_GESTURE_S`].
fn parse_duration(line: usize, word: &str, expected: &'static str) -> Result<f64, ScriptError> {
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
fn parse_metres(line: usize, word: &str, expected: &'static str) -> Result<f32, ScriptError> {
    parse_number(line, word, expected, "a distance in metres", |metres| {
        metres.abs() <= MAX_MOVE_M
    })
}

/// A finite number that `allowed` accepts; `what` names it in the error.
fn parse_number(
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

fn parse_unit(line: usize, word: &str, expected: &'static str) -> Result<f32, ScriptError> {
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
    fn a_missing_time_is_rejected() {
        assert_eq!(Script::parse("airtap right").unwrap_err().line, 1);
    }

    #[test]
    fn a_negative_time_is_rejected() {
        assert!(Script::parse("-1 select left").is_err());
    }

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

    #[test]
    fn an_unknown_hand_is_rejected() {
        assert!(Script::parse("1 select middle").is_err());
    }
}
