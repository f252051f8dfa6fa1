//! Co-location by a printed card: where the session's card (a QR code holding `holoterrain:CODE`) lies in this headset's space, averaged from fresh sightings, and the hologram's placement relative to it, which is what headsets at one table share.
//!
//! Each headset has its own space; the card is the one thing they all
//! see. A placement relative to the card, composed with where this headset
//! sees the card, puts the hologram at the same spot of the table for
//! everyone. The card's frame is level (turned about gravity only, as the
//! hologram is), so a slightly tilted sighting never tilts the hologram.
use std::collections::VecDeque;

use glam::{Quat, Vec3};

use crate::app::world::placement::Placement;
use crate::input::Pose;
use crate::render::scene::{UiFill, UiLabel, UiQuad, UiRect};

/// A printed code (a QR code) the headset sees, as last seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// The text it holds (`holoterrain:CODE` for a session's card).
    pub text: String,
    /// Its centre, in the platform's space; +Y is the normal of its printed
    /// face (up, for a code lying on a table) and −Z points from its centre
    /// to the middle of its top edge (away from a reader at its bottom edge).
    pub pose: Pose,
    /// The length of its side, metres.
    pub size_m: f32,
    /// When it was last seen, on [`crate::app::FrameInput::display_time_ns`]'s clock.
    pub last_seen_ns: i64,
}

/// What a session's card holds before its code.
pub const CARD_PREFIX: &str = "holoterrain:";
/// Fresh sightings averaged into the card's place, which then holds (an
/// anchor does not wander with each new sighting's noise).
pub const SIGHTINGS_AVERAGED: usize = 5;
/// A sighting this far from the card's place (metres) means the card was
/// moved: its place is found again from new sightings.
pub const MOVED_M: f32 = 0.05;
/// Or turned this far (radians, about 10°).
pub const TURNED_RAD: f32 = 0.175;
/// A hologram shared further than this from the card (metres) is not at
/// the table: such a placement is not followed.
pub const MAX_REACH_M: f32 = 10.0;

/// The session's card as this headset sees it.
#[derive(Debug, Clone)]
pub struct Card {
    /// The text on the card: [`CARD_PREFIX`] and the session's code.
    text: String,
    /// The fresh sightings collected towards the card's frame: when each
    /// was made, and where.
    sightings: VecDeque<(i64, Pose)>,
    /// When the card was last seen.
    last_seen_ns: Option<i64>,
    /// The card's level frame from them, once there are enough.
    frame: Option<Pose>,
}

impl Card {
    /// The card of the session with `code`.
    pub fn for_code(code: &str) -> Self {
        Card {
            text: format!("{CARD_PREFIX}{code}"),
            sightings: VecDeque::with_capacity(SIGHTINGS_AVERAGED),
            last_seen_ns: None,
            frame: None,
        }
    }

    /// Takes the markers the headset sees; true when the card's frame is
    /// new or moved. Only a sighting newer than the last one counts (a
    /// marker kept in view without being seen again is not a fresh
    /// sighting), and other codes are not this card. Once
    /// [`SIGHTINGS_AVERAGED`] sightings made the card's frame, it holds
    /// until a sighting finds the card moved or turned away from it.
    pub fn see(&mut self, markers: &[Marker]) -> bool {
        let last = self.last_seen_ns;
        let fresh = markers.iter().find(|marker| {
            marker.text == self.text
                && last.is_none_or(|last| marker.last_seen_ns > last)
                && marker.pose.is_finite()
        });
        let Some(marker) = fresh else {
            return false;
        };
        self.last_seen_ns = Some(marker.last_seen_ns);
        // Where the card is known, a sighting that agrees keeps it there
        // (and drops a stray one that did not); one that does not starts
        // finding its new place, the frame holding until it is found.
        if let Some(frame) = self.frame
            && agrees(&frame, &marker.pose)
        {
            self.sightings.clear();
            return false;
        }
        self.sightings.push_back((marker.last_seen_ns, marker.pose));
        if self.sightings.len() < SIGHTINGS_AVERAGED {
            return false;
        }
        let frame = average_level_frame(self.sightings.iter().map(|(_, pose)| pose));
        self.sightings.clear();
        let changed = frame.is_some() && frame != self.frame;
        if frame.is_some() {
            self.frame = frame;
        }
        changed
    }

    /// The card's level frame in this headset's space, once known.
    pub fn frame(&self) -> Option<Pose> {
        self.frame
    }

    /// `placement` (in this headset's space) relative to the card.
    pub fn relative(&self, placement: &Placement) -> Option<Placement> {
        let frame = self.frame?;
        Some(Placement {
            pose: frame.inverse().compose(&placement.pose),
            scale: placement.scale,
        })
    }

    /// The placement `relative` to the card, in this headset's space.
    pub fn placed(&self, relative: &Placement) -> Option<Placement> {
        let frame = self.frame?;
        Some(Placement {
            pose: frame.compose(&relative.pose),
            scale: relative.scale,
        })
    }
}

/// Whether a sighting at `pose` is of the card still at `frame`.
fn agrees(frame: &Pose, pose: &Pose) -> bool {
    let Some(heading) = level_heading(pose) else {
        return false;
    };
    frame.position.distance(pose.position) <= MOVED_M
        && frame.forward().angle_between(heading) <= TURNED_RAD
}

/// How far above a person's head their marker floats, metres.
pub const HEAD_MARKER_ABOVE_M: f32 = 0.18;
/// Half the width of a head marker's ring, metres.
pub const HEAD_MARKER_HALF_M: f32 = 0.035;
/// The marker's colour: a light cyan that reads on an additive display.
const HEAD_MARKER_COLOR: [f32; 4] = [0.45, 0.85, 1.0, 0.9];

/// The rings and names that show where the other people at the table are:
/// `heads` (each person's number and head relative to the card) drawn
/// from `card`, facing `viewer`, each a ring over the head with its name
/// above; this headset's own number (`me`) is left out.
pub fn head_markers(
    card: &Pose,
    heads: &[(u32, Pose)],
    me: Option<u32>,
    viewer: &Pose,
) -> (Vec<UiQuad>, Vec<UiLabel>) {
    let mut quads = Vec::new();
    let mut labels = Vec::new();
    for (number, relative) in heads.iter().filter(|(number, _)| Some(*number) != me) {
        let head = card.compose(relative);
        let centre = head.position + Vec3::Y * HEAD_MARKER_ABOVE_M;
        // Upright, turned to the viewer about gravity only.
        let towards_viewer = Vec3::new(
            viewer.position.x - centre.x,
            0.0,
            viewer.position.z - centre.z,
        );
        let Some(towards_viewer) = towards_viewer.try_normalize() else {
            continue;
        };
        let right = Vec3::Y.cross(towards_viewer);
        quads.push(UiQuad {
            rect: UiRect {
                centre,
                right: right * HEAD_MARKER_HALF_M,
                up: Vec3::Y * HEAD_MARKER_HALF_M,
            },
            color: HEAD_MARKER_COLOR,
            fill: UiFill::Ring,
        });
        labels.push(UiLabel {
            rect: UiRect {
                centre: centre + Vec3::Y * (HEAD_MARKER_HALF_M * 1.8),
                right: right * (HEAD_MARKER_HALF_M * 2.0),
                up: Vec3::Y * (HEAD_MARKER_HALF_M * 0.5),
            },
            text: match number {
                0 => "host".into(),
                number => format!("peer {number}"),
            },
            color: HEAD_MARKER_COLOR,
        });
    }
    (quads, labels)
}

/// The level frame of sightings of one card: their mean centre, turned
/// about gravity only towards their mean heading. The heading is where
/// the card's top edge points, seen from above (a card on a table); for a
/// card standing upright (its top edge vertical), where its face looks.
fn average_level_frame<'a>(poses: impl Iterator<Item = &'a Pose>) -> Option<Pose> {
    let (mut centre, mut heading, mut count) = (Vec3::ZERO, Vec3::ZERO, 0.0);
    for pose in poses {
        centre += pose.position;
        heading += level_heading(pose)?;
        count += 1.0;
    }
    let heading = heading.try_normalize()?;
    // −Z along the heading, +Y up.
    let yaw = (-heading.x).atan2(-heading.z);
    Some(Pose::new(centre / count, Quat::from_rotation_y(yaw)))
}

/// Where one sighting's card points, level and unit length.
fn level_heading(pose: &Pose) -> Option<Vec3> {
    let level = |direction: Vec3| Vec3::new(direction.x, 0.0, direction.z).try_normalize();
    let top = pose.forward();
    // Mostly horizontal: the card lies flat, its top edge tells the way.
    if top.y.abs() < 0.7 {
        level(top)
    } else {
        level(pose.up())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(text: &str, pose: Pose, seen: i64) -> Marker {
        Marker {
            text: text.into(),
            pose,
            size_m: 0.067,
            last_seen_ns: seen,
        }
    }

    /// A card lying flat at `centre`, its top edge turned `yaw` radians
    /// from −Z about +Y.
    fn flat(centre: Vec3, yaw: f32) -> Pose {
        Pose::new(centre, Quat::from_rotation_y(yaw))
    }

    fn seen(card: &mut Card, pose: Pose, times: std::ops::Range<i64>) {
        for time in times {
            card.see(&[marker("holoterrain:7-guitar-orbit", pose, time)]);
        }
    }

    #[test]
    fn the_card_is_known_after_enough_fresh_sightings_of_its_own_code_and_then_holds() {
        let mut card = Card::for_code("7-guitar-orbit");
        let pose = flat(Vec3::new(0.2, 0.75, -0.6), 0.4);
        // Another session's card, and the same sighting again, do not count.
        assert!(!card.see(&[marker("holoterrain:8-other-code", pose, 1)]));
        seen(&mut card, pose, 1..2);
        seen(&mut card, pose, 1..2);
        assert_eq!(card.sightings.len(), 1);
        seen(&mut card, pose, 2..SIGHTINGS_AVERAGED as i64);
        assert!(card.frame().is_none());
        assert!(card.see(&[marker("holoterrain:7-guitar-orbit", pose, 10)]));
        let frame = card.frame().expect("known");
        assert!(frame.position.distance(pose.position) < 1e-6);
        assert!(frame.orientation.angle_between(pose.orientation) < 1e-4);
        // Noise within the bounds does not move it.
        let nudged = flat(pose.position + Vec3::splat(0.01), 0.45);
        seen(&mut card, nudged, 11..30);
        assert_eq!(card.frame(), Some(frame));
        // The card moved: found again from new sightings, then it holds there.
        let moved = flat(pose.position + Vec3::X * 0.3, 0.4);
        let changes: Vec<bool> = (30..40)
            .map(|time| card.see(&[marker("holoterrain:7-guitar-orbit", moved, time)]))
            .collect();
        assert_eq!(changes.iter().filter(|changed| **changed).count(), 1);
        assert!(changes[SIGHTINGS_AVERAGED - 1]);
        assert!(card.frame().unwrap().position.distance(moved.position) < 1e-6);
    }

    #[test]
    fn noisy_tilted_sightings_average_to_a_level_frame_near_the_card() {
        let mut card = Card::for_code("7-guitar-orbit");
        let centre = Vec3::new(-0.3, 0.72, -0.9);
        for (time, (offset, tilt)) in [
            (0.004, 0.05),
            (-0.003, -0.04),
            (0.001, 0.03),
            (0.0, -0.02),
            (-0.002, 0.01),
        ]
        .into_iter()
        .enumerate()
        {
            let pose = Pose::new(
                centre + Vec3::splat(offset),
                Quat::from_rotation_y(1.0) * Quat::from_rotation_x(tilt),
            );
            card.see(&[marker("holoterrain:7-guitar-orbit", pose, time as i64)]);
        }
        let frame = card.frame().expect("known");
        assert!(frame.position.distance(centre) < 0.003);
        // Level: its up is gravity's.
        assert!(frame.up().distance(Vec3::Y) < 1e-5);
        assert!((frame.orientation.to_euler(glam::EulerRot::YXZ).0 - 1.0).abs() < 0.01);
    }

    #[test]
    fn two_headsets_seeing_one_card_in_their_own_spaces_put_the_hologram_at_one_spot() {
        // The card on the table, as each headset's space has it: the second
        // headset's space is turned and moved against the first's.
        let card_in_first = flat(Vec3::new(0.1, 0.74, -0.8), 0.3);
        let second_from_first = Pose::new(Vec3::new(1.5, -0.2, 0.4), Quat::from_rotation_y(2.1));
        let card_in_second = second_from_first.inverse().compose(&card_in_first);
        let (mut first, mut second) = (
            Card::for_code("7-guitar-orbit"),
            Card::for_code("7-guitar-orbit"),
        );
        seen(&mut first, card_in_first, 0..5);
        seen(&mut second, card_in_second, 0..5);
        let hologram = Placement {
            pose: flat(Vec3::new(0.3, 0.74, -0.7), -0.5),
            scale: 1.25,
        };
        let relative = first.relative(&hologram).expect("the first sees the card");
        let there = second.placed(&relative).expect("the second sees the card");
        assert_eq!(there.scale, 1.25);
        let back_in_first = second_from_first.compose(&there.pose);
        assert!(back_in_first.position.distance(hologram.pose.position) < 1e-5);
        assert!(
            back_in_first
                .orientation
                .angle_between(hologram.pose.orientation)
                < 1e-4
        );
    }

    #[test]
    fn the_others_heads_are_rings_over_them_facing_the_viewer_not_ones_own() {
        let card = flat(Vec3::new(0.0, 0.75, -0.8), 0.7);
        let head_in_space = Pose::new(Vec3::new(0.6, 1.6, -1.4), Quat::from_rotation_y(2.0));
        let relative = card.inverse().compose(&head_in_space);
        let viewer = Pose::new(Vec3::new(0.0, 1.6, 0.0), Quat::IDENTITY);
        let heads = [(0, relative), (2, Pose::IDENTITY)];
        let (quads, labels) = head_markers(&card, &heads, Some(2), &viewer);
        assert_eq!(quads.len(), 1, "one's own head is not marked");
        let ring = quads[0];
        assert_eq!(ring.fill, UiFill::Ring);
        let above = head_in_space.position + Vec3::Y * HEAD_MARKER_ABOVE_M;
        assert!(ring.rect.centre.distance(above) < 1e-5);
        // It faces the viewer: its normal points at them, level.
        let normal = ring.rect.right.cross(ring.rect.up).normalize();
        let to_viewer = (viewer.position - above) * Vec3::new(1.0, 0.0, 1.0);
        assert!(normal.dot(to_viewer.normalize()) > 0.999, "{normal:?}");
        assert_eq!(labels[0].text, "host");
        assert!(labels[0].rect.centre.y > ring.rect.centre.y);
    }

    #[test]
    fn an_upright_card_takes_its_heading_from_its_face() {
        // Standing on its bottom edge, face towards +X: top edge straight up.
        let upright = Pose::new(
            Vec3::ZERO,
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_2)
                * Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        );
        assert!(upright.forward().y > 0.99, "{:?}", upright.forward());
        let heading = level_heading(&upright).expect("a heading");
        assert!(heading.distance(Vec3::X) < 1e-5, "{heading:?}");
    }
}
