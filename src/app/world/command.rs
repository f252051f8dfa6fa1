//! What can change the world (`Command`), stamped with its order and origin, and what applying one left behind (`Applied`).
//!
//! Interaction turns a frame's hands, gaze and voice into commands; a command
//! log read back (`sim --replay`) hands over the same commands. Placement
//! commands are whole values (a settled pose and scale), never gestures, so
//! that a command applies the same way whoever made it: the world grown
//! from a log is the world the gestures grew, bit for bit.
use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::placement::{MAX_SCALE, MIN_SCALE, Placement, PlacementCause};
use crate::input::{Hand, Pose};
use crate::terrain::recipe::BuiltInName;

/// Highest (and, negated, deepest) a lift may raise its peak, terrain
/// units (the sculpting engine's bound, which a wearer's lift is held to).
pub use crate::terrain::sculpt::MAX_LIFT_HEIGHT;
/// Most points a traced fault may have: a hand's stroke is thinned to at
/// most this many ([`crate::terrain::sculpt::thin_path`]), and no other
/// source may send more (each point costs every headset work on the frame
/// it applies in, and the command must fit a shared session's frame once
/// the host has wrapped it).
pub use crate::terrain::sculpt::MAX_TRACE_POINTS;
/// Farthest a placement may put the hologram from the room's origin, m.
pub const MAX_PLACEMENT_DISTANCE_M: f32 = 1000.0;
/// How far from 1 a placement's orientation quaternion's length may be.
pub const UNIT_QUATERNION_TOLERANCE: f32 = 1e-3;
/// Largest factor (and, inverted, smallest) one scale command may apply:
/// from the smallest scale to the largest.
pub const MAX_SCALE_FACTOR: f32 = MAX_SCALE / MIN_SCALE;

/// The vertical exaggerations "Taller" and "Flatter" step through: the
/// land as it is (1) in the middle, up to four times taller and down to a
/// quarter.
pub const EXAGGERATIONS: [f32; 7] = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0];

/// The exaggeration one step taller (`taller`) or flatter than `now`, or
/// `now` itself at the end of [`EXAGGERATIONS`].
pub fn exaggeration_after(now: f32, taller: bool) -> f32 {
    if taller {
        EXAGGERATIONS.into_iter().find(|&e| e > now).unwrap_or(now)
    } else {
        EXAGGERATIONS
            .into_iter()
            .rev()
            .find(|&e| e < now)
            .unwrap_or(now)
    }
}

/// Why a command cannot apply, naming the field: every command is held to
/// [`Command::check`] wherever it comes from (the wearer, a command log, a
/// script, another headset), so that no number a peer or a file sends can
/// put a non-finite or unbounded value into the world or the shared order.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{what}")]
pub struct InvalidCommand {
    what: String,
}

/// `x` as a line reads it best: huge magnitudes in exponent form.
fn number(x: f32) -> String {
    if x.is_finite() && x.abs() >= 1e6 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn invalid(what: impl Into<String>) -> InvalidCommand {
    InvalidCommand { what: what.into() }
}

/// A point of the map's (u, v) square that is finite.
fn check_point(point: [f32; 2], what: &str) -> Result<(), InvalidCommand> {
    if point.iter().all(|c| c.is_finite()) {
        Ok(())
    } else {
        Err(invalid(format!(
            "{what} ({}, {}) is not a finite point",
            point[0], point[1]
        )))
    }
}

/// Whether `placement` is one a wearer could make: finite, within reach of
/// the room's origin, turned by a unit quaternion, at a scale within the
/// limits. Shared with the placements other headsets send.
pub fn check_placement(placement: &Placement) -> Result<(), InvalidCommand> {
    let Placement { pose, scale } = placement;
    if !placement.is_finite() {
        return Err(invalid("the placement is not finite"));
    }
    if pose.position.length() > MAX_PLACEMENT_DISTANCE_M {
        return Err(invalid(format!(
            "the placement is {} m away, beyond {MAX_PLACEMENT_DISTANCE_M} m",
            number(pose.position.length())
        )));
    }
    if (pose.orientation.length() - 1.0).abs() > UNIT_QUATERNION_TOLERANCE {
        return Err(invalid(format!(
            "the placement's orientation has length {}, not 1",
            pose.orientation.length()
        )));
    }
    if !(MIN_SCALE..=MAX_SCALE).contains(scale) {
        return Err(invalid(format!(
            "the placement's scale {} is outside {MIN_SCALE}..{MAX_SCALE}",
            number(*scale)
        )));
    }
    Ok(())
}

/// What made the terrain start over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReseedCause {
    /// A pinch while the hand's aim ray or the head's gaze hit the hologram.
    AirTap,
    /// The index fingertip pushed into the terrain surface.
    Tap,
    /// A controller's select button.
    Select,
    /// The wearer said "new terrain".
    Voice,
    /// A button: "New terrain" on the hand menu, or a landscape on the panel.
    Menu,
}

impl ReseedCause {
    /// The lower-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            ReseedCause::AirTap => "airtap",
            ReseedCause::Tap => "tap",
            ReseedCause::Select => "select",
            ReseedCause::Voice => "voice",
            ReseedCause::Menu => "menu",
        }
    }
}

/// One change to the world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Start a new terrain from the next seed.
    Reseed {
        /// What asked for it.
        cause: ReseedCause,
        /// The hand that asked, none for a voice command.
        hand: Option<Hand>,
    },
    /// Settle the hologram at `placement` (the first placement starts growth).
    Place {
        /// What put it there.
        cause: PlacementCause,
        /// Where and how big.
        #[serde(with = "placement_fields")]
        placement: Placement,
    },
    /// Scale the settled hologram by `factor` about its base's centre,
    /// clamped to the scale limits.
    Scale {
        /// What asked for it.
        cause: PlacementCause,
        /// The factor.
        factor: f32,
    },
    /// Forget where the hologram is, so that it is placed afresh.
    ResetPlacement,
    /// Grow the built-in landscape `name` from the next seed.
    Landscape {
        /// What asked for it.
        cause: ReseedCause,
        /// The landscape.
        name: BuiltInName,
    },
    /// Fault the terrain along a traced path (in the map's (u, v) square,
    /// so the hologram's pose and scale do not matter): the side the fault-line blog's
    /// perp-dot finds positive rises, the other sinks
    /// ([`crate::terrain::sculpt`]).
    Trace {
        /// The hand that traced it, none for one made otherwise.
        hand: Option<Hand>,
        /// The path, thinned, in the order it was drawn.
        points: Vec<[f32; 2]>,
    },
    /// Raise a hill (or sink a basin) at a point of the map.
    Lift {
        /// The hand that lifted it.
        hand: Option<Hand>,
        /// Where its peak is, in (u, v).
        at: [f32; 2],
        /// How high its peak rises, terrain units (negative: a basin).
        height: f32,
    },
    /// Take back the last terrain command (reseed, landscape, edit). The
    /// world takes it back whoever made it; a shared session's host orders
    /// an undo only when its speaker made it (`crate::app::shared::authors`).
    Undo,
    /// Do again what the last undo took back, unless a change came since.
    Redo,
    /// Stop growth where it stands ("Pause growth").
    Pause,
    /// Let a paused growth go on ("Resume growth").
    Resume,
    /// Start the recipe's erosion now on the land as it stands ("Weather").
    Weather,
    /// Draw the land this many times taller than it is ("Taller", "Flatter"),
    /// within [`EXAGGERATIONS`]' least and most.
    Exaggerate {
        /// The new vertical exaggeration.
        exaggeration: f32,
    },
    /// Grow at this many iterations per second from now ("Slower", "Faster").
    Speed {
        /// The new rate.
        iterations_per_second: u32,
    },
    /// Show the terrain as it stood at moment `to` of its history (each
    /// terrain command and each growth step is one; at the history's
    /// length or beyond: now) ("Time", "back", "forward").
    Scrub {
        /// The moment.
        to: u64,
    },
}

impl Command {
    /// Whether it can apply: every number finite and within its range
    /// (points finite, at most [`MAX_TRACE_POINTS`] of them; a lift's
    /// height within ±[`MAX_LIFT_HEIGHT`]; a placement as
    /// [`check_placement`]; a scale factor within 1/[`MAX_SCALE_FACTOR`] and
    /// [`MAX_SCALE_FACTOR`]). What is on the map but off its surface is the
    /// world's to ignore, with a reason in the report, as before.
    pub fn check(&self) -> Result<(), InvalidCommand> {
        match self {
            Command::Trace { points, .. } => {
                if points.len() > MAX_TRACE_POINTS {
                    return Err(invalid(format!(
                        "the trace has {} points, more than {MAX_TRACE_POINTS}",
                        points.len()
                    )));
                }
                points
                    .iter()
                    .try_for_each(|point| check_point(*point, "a trace's point"))
            }
            Command::Lift { at, height, .. } => {
                check_point(*at, "the lift's point")?;
                if height.is_finite() && height.abs() <= MAX_LIFT_HEIGHT {
                    Ok(())
                } else {
                    Err(invalid(format!(
                        "the lift's height {} is outside ±{MAX_LIFT_HEIGHT}",
                        number(*height)
                    )))
                }
            }
            Command::Place { placement, .. } => check_placement(placement),
            Command::Scale { factor, .. } => {
                if factor.is_finite()
                    && (MAX_SCALE_FACTOR.recip()..=MAX_SCALE_FACTOR).contains(factor)
                {
                    Ok(())
                } else {
                    Err(invalid(format!(
                        "the scale factor {} is outside 1/{MAX_SCALE_FACTOR}..{MAX_SCALE_FACTOR}",
                        number(*factor)
                    )))
                }
            }
            Command::Exaggerate { exaggeration } => {
                let (least, most) = (EXAGGERATIONS[0], EXAGGERATIONS[EXAGGERATIONS.len() - 1]);
                if exaggeration.is_finite() && (least..=most).contains(exaggeration) {
                    Ok(())
                } else {
                    Err(invalid(format!(
                        "the exaggeration {} is outside {least}..{most}",
                        number(*exaggeration)
                    )))
                }
            }
            Command::Reseed { .. }
            | Command::ResetPlacement
            | Command::Landscape { .. }
            | Command::Undo
            | Command::Redo
            | Command::Pause
            | Command::Resume
            | Command::Weather
            | Command::Speed { .. }
            | Command::Scrub { .. } => Ok(()),
        }
    }

    /// Its kind as the log names it (`lift`, `trace`, …), for lines that
    /// say which command was refused.
    pub fn kind(&self) -> &'static str {
        match self {
            Command::Reseed { .. } => "reseed",
            Command::Place { .. } => "place",
            Command::Scale { .. } => "scale",
            Command::ResetPlacement => "reset_placement",
            Command::Landscape { .. } => "landscape",
            Command::Trace { .. } => "trace",
            Command::Lift { .. } => "lift",
            Command::Undo => "undo",
            Command::Redo => "redo",
            Command::Pause => "pause",
            Command::Resume => "resume",
            Command::Weather => "weather",
            Command::Exaggerate { .. } => "exaggerate",
            Command::Speed { .. } => "speed",
            Command::Scrub { .. } => "scrub",
        }
    }

    /// Whether it changes what the world's history holds (the terrain,
    /// its edits, what undo can take back): a reseed, a landscape, an
    /// edit, an undo, a redo, a weather or an exaggeration. Every variant
    /// is named, so a new command cannot join or miss the history without
    /// a decision here.
    pub fn changes_terrain(&self) -> bool {
        match self {
            Command::Reseed { .. }
            | Command::Landscape { .. }
            | Command::Trace { .. }
            | Command::Lift { .. }
            | Command::Undo
            | Command::Redo
            | Command::Weather
            | Command::Exaggerate { .. } => true,
            Command::Place { .. }
            | Command::Scale { .. }
            | Command::ResetPlacement
            | Command::Pause
            | Command::Resume
            | Command::Speed { .. }
            | Command::Scrub { .. } => false,
        }
    }

    /// Whether it starts a new terrain (a frame applies at most one, last).
    pub fn is_new_terrain(&self) -> bool {
        matches!(self, Command::Reseed { .. } | Command::Landscape { .. })
    }

    /// Whether a shared session orders it for everyone: what changes the
    /// history ([`Command::changes_terrain`], which names every variant),
    /// and what paces growth or moves through time (a pause, a resume, a
    /// speed, a scrub). Placement stays each headset's own until the
    /// headsets share a marker.
    pub fn is_terrain(&self) -> bool {
        // Every change the history holds must stand in the same order on
        // every headset (undo takes an exaggeration back like an edit).
        self.changes_terrain()
            || match self {
                // The host's growth paces every peer (peers grow only as far
                // as it announces), so a pause or a new speed anyone asks
                // for goes to the host and through the shared order; a scrub
                // moves everyone to the same moment of the same history.
                Command::Pause
                | Command::Resume
                | Command::Speed { .. }
                | Command::Scrub { .. } => true,
                _ => false,
            }
    }
}

/// Who made a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// This app's wearer (gestures, voice).
    Local,
    /// A command log read back.
    Replay,
    /// In a shared session, the host's wearer (as a peer logs it).
    Host,
    /// In a shared session, the peer the host numbered so (1 for the first
    /// to join); a peer's own commands come back from the host with its number.
    Peer(u32),
}

impl Origin {
    /// Who it is, for a line about one of its commands.
    pub fn describe(&self) -> String {
        match self {
            Origin::Local => "the wearer".into(),
            Origin::Replay => "the command log".into(),
            Origin::Host => "the session's host".into(),
            Origin::Peer(peer) => format!("peer {peer}"),
        }
    }
}

/// A command that was applied: its place in the world's order, who made
/// it, and the growth iteration of the current seed it applied at.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// Its sequence number: 0 for the run's first command, then one more each.
    pub seq: u64,
    /// Who made it.
    pub origin: Origin,
    /// What it was.
    pub command: Command,
    /// Iterations of the current seed done when it applied.
    pub iteration: usize,
}

/// A placement as its fields, for the command log: position, orientation
/// quaternion and scale as JSON numbers, which read back bit for bit.
pub(crate) mod placement_fields {
    use super::*;

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Fields {
        position: [f32; 3],
        orientation: [f32; 4],
        scale: f32,
    }

    pub fn serialize<S: serde::Serializer>(
        placement: &Placement,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        Fields {
            position: placement.pose.position.to_array(),
            orientation: placement.pose.orientation.to_array(),
            scale: placement.scale,
        }
        .serialize(serializer)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Placement, D::Error> {
        let fields = Fields::deserialize(deserializer)?;
        let placement = Placement {
            pose: Pose {
                position: Vec3::from_array(fields.position),
                orientation: Quat::from_array(fields.orientation),
            },
            scale: fields.scale,
        };
        if !placement.is_finite() {
            return Err(serde::de::Error::custom("a placement must be finite"));
        }
        Ok(placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_reads_back_as_written_bit_for_bit() {
        let placement = Placement {
            pose: Pose {
                position: Vec3::new(0.1, 0.7 / 3.0, -1.000_000_1),
                orientation: Quat::from_rotation_y(1.234_567),
            },
            scale: 1.25f32.powi(3),
        };
        let commands = [
            Command::Reseed {
                cause: ReseedCause::AirTap,
                hand: Some(Hand::Right),
            },
            Command::Reseed {
                cause: ReseedCause::Voice,
                hand: None,
            },
            Command::Place {
                cause: PlacementCause::TwoHand,
                placement,
            },
            Command::Scale {
                cause: PlacementCause::Voice,
                factor: 1.25f32.recip(),
            },
            Command::ResetPlacement,
            Command::Landscape {
                cause: ReseedCause::Voice,
                name: BuiltInName::new("islands").unwrap(),
            },
            Command::Trace {
                hand: Some(Hand::Left),
                points: vec![[0.1, 0.7 / 3.0], [0.9, 1.0 / 3.0]],
            },
            Command::Lift {
                hand: None,
                at: [0.25, 0.1],
                height: -0.1f32 / 3.0,
            },
            Command::Undo,
            Command::Redo,
            Command::Pause,
            Command::Resume,
            Command::Weather,
            Command::Exaggerate { exaggeration: 1.5 },
            Command::Speed {
                iterations_per_second: 120,
            },
        ];
        for command in commands.clone() {
            let text = serde_json::to_string(&command).unwrap();
            let back: Command = serde_json::from_str(&text).unwrap();
            assert_eq!(back, command, "{text}");
        }
        let text = serde_json::to_string(&commands[2]).unwrap();
        assert!(text.starts_with(r#"{"place":{"cause":"twohand","placement":{"position":"#));
    }

    fn lift(height: f32) -> Command {
        Command::Lift {
            hand: None,
            at: [0.5, 0.5],
            height,
        }
    }

    fn placed(position: Vec3, orientation: Quat, scale: f32) -> Command {
        Command::Place {
            cause: PlacementCause::Move,
            placement: Placement {
                pose: Pose {
                    position,
                    orientation,
                },
                scale,
            },
        }
    }

    #[test]
    fn a_wearers_commands_pass_the_check() {
        for command in [
            lift(0.05),
            lift(-MAX_LIFT_HEIGHT),
            Command::Trace {
                hand: None,
                points: vec![[0.0, 0.0]; MAX_TRACE_POINTS],
            },
            placed(
                Vec3::new(0.0, 1.2, -1.0),
                Quat::from_rotation_y(2.0),
                MAX_SCALE,
            ),
            Command::Scale {
                cause: PlacementCause::TwoHand,
                factor: 0.9,
            },
            Command::Undo,
        ] {
            assert_eq!(command.check(), Ok(()), "{command:?}");
        }
    }

    #[test]
    fn non_finite_and_unbounded_numbers_are_refused_naming_the_field() {
        let refused = |command: Command| command.check().unwrap_err().to_string();
        assert_eq!(
            refused(lift(f32::INFINITY)),
            "the lift's height inf is outside ±8"
        );
        assert_eq!(
            refused(lift(3.4e38)),
            "the lift's height 3.4e38 is outside ±8"
        );
        assert!(refused(lift(f32::NAN)).starts_with("the lift's height NaN"));
        assert_eq!(
            refused(Command::Lift {
                hand: None,
                at: [f32::NAN, 0.5],
                height: 0.1
            }),
            "the lift's point (NaN, 0.5) is not a finite point"
        );
        assert_eq!(
            refused(Command::Trace {
                hand: None,
                points: vec![[0.5, 0.5]; MAX_TRACE_POINTS + 1]
            }),
            "the trace has 65 points, more than 64"
        );
        assert_eq!(
            refused(Command::Trace {
                hand: None,
                points: vec![[0.5, 0.5], [f32::NEG_INFINITY, 0.5]]
            }),
            "a trace's point (-inf, 0.5) is not a finite point"
        );
        assert_eq!(
            refused(placed(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0), 1.0)),
            "the placement's orientation has length 0, not 1"
        );
        assert_eq!(
            refused(placed(Vec3::new(0.0, 0.0, -5000.0), Quat::IDENTITY, 1.0)),
            "the placement is 5000 m away, beyond 1000 m"
        );
        assert_eq!(
            refused(placed(Vec3::ZERO, Quat::IDENTITY, 40.0)),
            "the placement's scale 40 is outside 0.25..4"
        );
        assert!(
            refused(Command::Scale {
                cause: PlacementCause::Voice,
                factor: f32::INFINITY
            })
            .starts_with("the scale factor inf")
        );
        assert!(
            refused(Command::Scale {
                cause: PlacementCause::Voice,
                factor: 0.0
            })
            .starts_with("the scale factor 0")
        );
        assert_eq!(
            refused(Command::Exaggerate { exaggeration: 10.0 }),
            "the exaggeration 10 is outside 0.25..4"
        );
        assert!(
            refused(Command::Exaggerate {
                exaggeration: f32::NAN
            })
            .starts_with("the exaggeration NaN")
        );
    }

    #[test]
    fn taller_and_flatter_step_through_the_exaggerations_and_stop_at_the_ends() {
        assert_eq!(exaggeration_after(1.0, true), 1.5);
        assert_eq!(exaggeration_after(1.0, false), 0.5);
        assert_eq!(exaggeration_after(4.0, true), 4.0);
        assert_eq!(exaggeration_after(0.25, false), 0.25);
        // From between two steps, the next one each way.
        assert_eq!(exaggeration_after(1.2, true), 1.5);
        assert_eq!(exaggeration_after(1.2, false), 1.0);
        for exaggeration in EXAGGERATIONS {
            assert_eq!(Command::Exaggerate { exaggeration }.check(), Ok(()));
        }
    }

    #[test]
    fn a_placement_that_is_not_finite_does_not_read() {
        let text = r#"{"place":{"cause":"move","placement":{"position":[0,1e39,0],"orientation":[0,0,0,1],"scale":1}}}"#;
        assert!(serde_json::from_str::<Command>(text).is_err());
    }
}
