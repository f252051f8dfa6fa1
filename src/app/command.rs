//! What can change the world (`Command`), stamped with its order and origin, and what applying one left behind (`Applied`).
//!
//! Interaction turns a frame's hands, gaze and voice into commands; a command
//! log read back (`sim --replay`) hands over the same commands. Placement
//! commands are whole values (a settled pose and scale), never gestures, so
//! that a command applies the same way whoever made it: the world grown
//! from a log is the world the gestures grew, bit for bit.
use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::placement::{Placement, PlacementCause};
use crate::input::{Hand, Pose};
use crate::terrain::recipe::BuiltInName;

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
    /// so the hologram's pose and scale do not matter): the side the seeds'
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
    /// Take back the last terrain command (reseed, landscape, edit), whoever made it.
    Undo,
    /// Stop growth where it stands ("Pause growth").
    Pause,
    /// Let a paused growth go on ("Resume growth").
    Resume,
    /// Start the recipe's erosion now on the land as it stands ("Weather").
    Weather,
    /// Grow at this many iterations per second from now ("Slower", "Faster").
    Speed {
        /// The new rate.
        iterations_per_second: u32,
    },
}

impl Command {
    /// Whether it starts a new terrain (a frame applies at most one, last).
    pub fn is_new_terrain(&self) -> bool {
        matches!(self, Command::Reseed { .. } | Command::Landscape { .. })
    }

    /// Whether it changes the terrain or its growth (a reseed, a landscape,
    /// an edit, an undo, a weather, a pause, a resume or a speed): what a
    /// shared session orders for everyone. Placement stays
    /// each headset's own until the headsets share a marker. Every variant
    /// is named, so a new command cannot join or miss the shared order
    /// without a decision here.
    pub fn is_terrain(&self) -> bool {
        match self {
            Command::Reseed { .. }
            | Command::Landscape { .. }
            | Command::Trace { .. }
            | Command::Lift { .. }
            | Command::Undo
            | Command::Weather => true,
            // The host's growth paces every peer (peers grow only as far as
            // it announces), so a pause or a new speed anyone asks for goes
            // to the host and through the shared order.
            Command::Pause | Command::Resume | Command::Speed { .. } => true,
            Command::Place { .. } | Command::Scale { .. } | Command::ResetPlacement => false,
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
            Command::Pause,
            Command::Resume,
            Command::Weather,
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

    #[test]
    fn a_placement_that_is_not_finite_does_not_read() {
        let text = r#"{"place":{"cause":"move","placement":{"position":[0,1e39,0],"orientation":[0,0,0,1],"scale":1}}}"#;
        assert!(serde_json::from_str::<Command>(text).is_err());
    }
}
