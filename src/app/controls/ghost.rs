//! The hand coach's ghost hand: a translucent right hand of a few quads, seen from the back, animated through the air-tap beside the hologram or turning palm to the face with a ghost of the hand menu, with a line saying what it shows.
use glam::{Vec2, Vec3};

use super::hit_test::Plane;
use super::ramp::{TextSize, text_in};
use crate::app::intent::coach::Coached;
use crate::render::scene::{UiFill, UiLabel, UiQuad, UiRect};

/// The ghost hand: a pale see-through blue, as the system's own coach.
const GHOST: [f32; 4] = [0.45, 0.75, 1.0, 0.35];
/// The ring where the fingers meet, and the ghost menu's plates.
const GLOW: [f32; 4] = [0.8, 0.95, 1.0, 0.7];
/// Its line of text.
const LINE: [f32; 4] = [0.83, 0.83, 0.83, 1.0];
/// How wide the finger bones are drawn, at full size.
const FINGER_M: f32 = 0.014;
/// The ghost's size to a real hand's: small enough to stay in view beside
/// what it points to, large enough to read as a hand.
const GHOST_SCALE: f32 = 0.6;
/// Seconds one showing of the air-tap takes, then again.
const AIR_TAP_CYCLE_S: f32 = 2.0;
/// Seconds one turn of the palm to the face takes, then again.
const PALM_CYCLE_S: f32 = 2.4;

/// Where the fingers start and end on the hand's own flat frame (metres,
/// x to the right as seen from behind, y up), the thumb on the left.
struct Pose2 {
    index: Vec2,
    thumb: Vec2,
    /// Middle, ring and little fingers' tips.
    others: [Vec2; 3],
}

/// The knuckles of the index, middle, ring and little fingers, and the
/// thumb's root.
const KNUCKLES: [Vec2; 4] = [
    Vec2::new(-0.027, 0.045),
    Vec2::new(-0.009, 0.047),
    Vec2::new(0.009, 0.046),
    Vec2::new(0.027, 0.042),
];
const THUMB_ROOT: Vec2 = Vec2::new(-0.038, -0.015);

/// Draws the coach for `what`, `seconds` after it showed, on a frame at
/// `centre` facing `eye`: quads for the hand and labels for its line.
pub fn draw_coach(
    what: Coached,
    seconds: f32,
    centre: Vec3,
    eye: Vec3,
    quads: &mut Vec<UiQuad>,
    labels: &mut Vec<UiLabel>,
) {
    let plane = Plane::facing(centre, eye);
    let shrunk = |point: Vec2| point * GHOST_SCALE;
    let (hand, flip, text) = match what {
        Coached::AirTap => {
            let closed = pinch_closed(seconds % AIR_TAP_CYCLE_S);
            let hand = Pose2 {
                index: Vec2::new(-0.03, 0.13).lerp(Vec2::new(-0.058, 0.072), closed),
                thumb: Vec2::new(-0.09, 0.035).lerp(Vec2::new(-0.062, 0.066), closed),
                // Curled in a loose fist, as an air-tap is made.
                others: [
                    Vec2::new(-0.009, 0.072),
                    Vec2::new(0.009, 0.07),
                    Vec2::new(0.027, 0.064),
                ],
            };
            if closed > 0.95 {
                // The tap itself: a ring where index and thumb meet, widening.
                let tip = shrunk(hand.index);
                let at = plane.rect(tip.x, tip.y, 0.0, 0.0).centre;
                let grow =
                    (0.012 + 0.02 * ((seconds % AIR_TAP_CYCLE_S) - 0.85).max(0.0)) * GHOST_SCALE;
                quads.push(ring(&plane, at, grow));
            }
            (hand, 1.0, "Air-tap: new terrain")
        }
        Coached::Palm => {
            let phase = seconds % PALM_CYCLE_S;
            // Turned about the arm from the back (1) to the palm (-1).
            let turn = ((phase - 0.6) / 0.6).clamp(0.0, 1.0);
            let flip = (turn * std::f32::consts::PI).cos();
            let hand = Pose2 {
                index: Vec2::new(-0.03, 0.13),
                thumb: Vec2::new(-0.085, 0.03),
                others: [
                    Vec2::new(-0.01, 0.14),
                    Vec2::new(0.011, 0.132),
                    Vec2::new(0.03, 0.112),
                ],
            };
            if turn >= 1.0 {
                // The menu it brings, beside the little finger.
                for row in 0..3 {
                    let y = (0.07 - 0.035 * row as f32) * GHOST_SCALE;
                    let (width, height) = (0.06 * GHOST_SCALE, 0.028 * GHOST_SCALE);
                    let mut plate = plane.rect(0.085 * flip * GHOST_SCALE, y, width, height);
                    plate.centre += plane.normal() * 0.001;
                    quads.push(UiQuad {
                        rect: plate,
                        color: GLOW,
                        fill: UiFill::Ring,
                    });
                }
            }
            (hand, flip, "Palm up: the menu")
        }
    };
    let at = |point: Vec2| shrunk(Vec2::new(point.x * flip, point.y));
    let palm_width = 0.08 * flip.abs().max(0.15) * GHOST_SCALE;
    quads.push(UiQuad {
        rect: plane.rect(0.0, 0.0, palm_width, 0.09 * GHOST_SCALE),
        color: GHOST,
        fill: UiFill::Solid,
    });
    for (knuckle, tip) in
        KNUCKLES
            .into_iter()
            .zip([hand.index, hand.others[0], hand.others[1], hand.others[2]])
    {
        quads.push(bone(&plane, at(knuckle), at(tip)));
    }
    quads.push(bone(&plane, at(THUMB_ROOT), at(hand.thumb)));
    // Over the hand: under it lies what it points to.
    let slot = plane.rect(0.0, 0.16 * GHOST_SCALE, 0.3, 0.02);
    labels.push(text_in(&slot, text, TextSize::Large, LINE));
}

/// How far closed an air-tap is `phase` seconds into its showing: open,
/// closing, held shut for a moment, opening, open.
fn pinch_closed(phase: f32) -> f32 {
    let ramp = |from: f32, to: f32| ((phase - from) / (to - from)).clamp(0.0, 1.0);
    ramp(0.6, 0.85) - ramp(1.15, 1.4)
}

/// A finger from `from` to `to` on `plane`, [`FINGER_M`] wide.
fn bone(plane: &Plane, from: Vec2, to: Vec2) -> UiQuad {
    let along = to - from;
    let middle = (from + to) / 2.0;
    let across = along.perp().normalize_or(Vec2::X) * (FINGER_M * GHOST_SCALE / 2.0);
    let in_room = |v: Vec2| plane.right * v.x + plane.up * v.y;
    UiQuad {
        rect: UiRect {
            centre: plane.centre + in_room(middle) + plane.normal() * 0.001,
            right: in_room(across),
            up: in_room(along / 2.0),
        },
        color: GHOST,
        fill: UiFill::Solid,
    }
}

/// A ring of `radius` at `at`, lying on `plane`.
fn ring(plane: &Plane, at: Vec3, radius: f32) -> UiQuad {
    UiQuad {
        rect: UiRect {
            centre: at + plane.normal() * 0.002,
            right: plane.right * radius,
            up: plane.up * radius,
        },
        color: GLOW,
        fill: UiFill::Ring,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_air_tap_closes_index_and_thumb_and_the_palm_turns_to_bring_a_menu() {
        let draw = |what, seconds| {
            let (mut quads, mut labels) = (Vec::new(), Vec::new());
            let eye = Vec3::new(0.0, 1.6, 0.0);
            draw_coach(
                what,
                seconds,
                Vec3::new(0.0, 1.4, -0.7),
                eye,
                &mut quads,
                &mut labels,
            );
            (quads, labels)
        };
        let (open, labels) = draw(Coached::AirTap, 0.2);
        let (shut, _) = draw(Coached::AirTap, 1.0);
        // Palm, four fingers and a thumb; shut, the ring where they meet.
        assert_eq!(open.len(), 6);
        assert_eq!(shut.len(), 7);
        assert!(open.iter().all(|quad| quad.color[3] < 1.0), "see-through");
        let tips = |quads: &[UiQuad]| {
            let tip = |quad: &UiQuad| quad.rect.centre + quad.rect.up;
            (tip(&quads[quads.len() - 5]) - tip(&quads[quads.len() - 1])).length()
        };
        assert!(
            tips(&open) > 0.03 && tips(&shut) < 0.006,
            "{} {}",
            tips(&open),
            tips(&shut)
        );
        assert_eq!(labels[0].text, "Air-tap: new terrain");
        let (back, _) = draw(Coached::Palm, 0.1);
        let (palm, labels) = draw(Coached::Palm, 1.5);
        assert_eq!(palm.len(), back.len() + 3, "the ghost menu's three plates");
        assert!(labels[0].text.contains("Palm"));
        // Turned over: the thumb is on the other side.
        let thumb_x = |quads: &[UiQuad]| quads[quads.len() - 1].rect.centre.x;
        assert!(thumb_x(&back) < -0.02 && thumb_x(&palm) > 0.02);
    }
}
