//! The base's legend: a scale bar along the side of the base facing the wearer, with its length in the land's own units, the height of the highest point and the vertical exaggeration, so "a hill or the Alps?" has an answer at a glance.
//!
//! A recipe says how wide its land is (`across_km`); the hologram's edge
//! stands for that width, so a bar of a round length (1, 2 or 5 × 10ⁿ)
//! takes its share of the edge, and the highest point is its height in
//! terrain units times that width (the exaggeration changes how tall the
//! land is drawn, never how high it is). The legend is drawn on the base's
//! side below the land's lowest point, where nothing of the land covers it,
//! a hair in front of the side so it never fights the base for depth.
use glam::{Mat4, Vec3};

use crate::app::world::placement::{
    BASE_DEPTH_M, HOLOGRAM_SIZE_M, MIN_BASE_UNDER_LAND_M, base_bottom_m, land_y_m,
};
use crate::render::scene::{UiFill, UiLabel, UiQuad, UiRect};

/// How far in front of the base's side the legend is drawn, m at 1×.
const STANDOFF_M: f32 = 0.0015;
/// The longest share of the edge the scale bar takes.
const MAX_BAR_SHARE: f32 = 0.4;
/// The scale bar's thickness, m at 1×.
const BAR_THICKNESS_M: f32 = 0.0015;
/// The tallest the legend's text is, m at 1× (1.1 cm: about 0.6° at 1 m).
const MAX_TEXT_M: f32 = 0.011;
/// The legend's colour: near white, as Microsoft's guidance asks of text
/// on a dark ground (235 of 255), bright on an additive display.
const INK: [f32; 4] = [0.83, 0.83, 0.83, 1.0];

/// What the legend reads from the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LandFacts {
    /// How wide the land is, km.
    pub across_km: f32,
    /// The lowest and highest height, terrain units.
    pub height_range: (f32, f32),
    /// How many times taller than it is the land is drawn.
    pub exaggeration: f32,
}

/// The round length of the scale bar for land `across_km` wide, km: the
/// longest 1, 2 or 5 × 10ⁿ that takes at most [`MAX_BAR_SHARE`] of the edge.
pub fn bar_km(across_km: f32) -> f32 {
    let most = across_km * MAX_BAR_SHARE;
    let decade = 10f32.powf(most.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|step| step * decade)
        .find(|&length| length <= most)
        .unwrap_or(decade)
}

/// A distance as a wearer reads it: metres under a kilometre, else
/// kilometres (one decimal under ten, none when it is whole).
pub fn distance_text(km: f32) -> String {
    if km.abs() < 1.0 {
        format!("{:.0} m", km * 1000.0)
    } else if km.abs() < 10.0 {
        format!("{} km", format!("{km:.1}").trim_end_matches(".0"))
    } else {
        format!("{km:.0} km")
    }
}

/// The transform from hologram space (metres at 1×) to the room, from the
/// mesh's `model` matrix drawn with `exaggeration` (see
/// `Placement::model_matrix`): the model's scale and base offset undone.
pub fn hologram_to_room(model: Mat4, exaggeration: f32) -> Mat4 {
    model
        * Mat4::from_scale(Vec3::new(1.0, exaggeration.recip(), 1.0))
        * Mat4::from_translation(Vec3::NEG_Y * (BASE_DEPTH_M / HOLOGRAM_SIZE_M))
        * Mat4::from_scale(Vec3::splat(HOLOGRAM_SIZE_M.recip()))
}

/// The legend's shapes and text, appended to `quads` and `labels`, for the
/// hologram whose space `to_room` maps into the room, on the side of its
/// base that faces `eye`.
pub fn draw(
    to_room: Mat4,
    facts: &LandFacts,
    eye: Vec3,
    quads: &mut Vec<UiQuad>,
    labels: &mut Vec<UiLabel>,
) {
    let half = HOLOGRAM_SIZE_M / 2.0;
    let outward = facing_side(to_room, eye);
    let along = Vec3::Y.cross(outward);
    // The band of the side that no land covers: the base's underside up to
    // the lowest land (at least MIN_BASE_UNDER_LAND_M of it).
    let bottom = base_bottom_m(facts.height_range.0 * facts.exaggeration);
    let top = land_y_m(facts.height_range.0 * facts.exaggeration).min(BASE_DEPTH_M);
    let band = (top - bottom).max(MIN_BASE_UNDER_LAND_M);
    let text = (band * 0.6).min(MAX_TEXT_M);
    let middle = bottom + band / 2.0;
    let face = outward * (half + STANDOFF_M);
    let at = |x: f32, y: f32| face + along * x + Vec3::Y * y;
    let rect = |centre: Vec3, half_width: f32, half_height: f32| UiRect {
        centre: to_room.transform_point3(centre),
        right: to_room.transform_vector3(along * half_width),
        up: to_room.transform_vector3(Vec3::Y * half_height),
    };
    let solid = |rect: UiRect| UiQuad {
        rect,
        color: INK,
        fill: UiFill::Solid,
    };
    let label = |rect: UiRect, text: String| UiLabel {
        rect,
        text,
        color: INK,
    };

    // The bar from near the left end of the side, with a tick at each end.
    let length_km = bar_km(facts.across_km);
    let bar_m = HOLOGRAM_SIZE_M * length_km / facts.across_km;
    let left = -half + 0.02;
    let bar_y = middle - text * 0.35;
    let tick = text * 0.35;
    quads.extend([
        solid(rect(
            at(left + bar_m / 2.0, bar_y),
            bar_m / 2.0,
            BAR_THICKNESS_M / 2.0,
        )),
        solid(rect(
            at(left, bar_y + tick / 2.0),
            BAR_THICKNESS_M / 2.0,
            tick / 2.0,
        )),
        solid(rect(
            at(left + bar_m, bar_y + tick / 2.0),
            BAR_THICKNESS_M / 2.0,
            tick / 2.0,
        )),
    ]);
    let highest_km = facts.height_range.1 * facts.across_km;
    let summary = format!(
        "highest {}, height x{}, {} across",
        distance_text(highest_km),
        exaggeration_text(facts.exaggeration),
        distance_text(facts.across_km)
    );
    let right_start = left + bar_m + 0.02;
    let right_width = half - 0.02 - right_start;
    labels.extend([
        label(
            rect(
                at(left + bar_m / 2.0, bar_y + text * 0.6),
                bar_m.max(0.04) / 2.0,
                text / 2.0,
            ),
            distance_text(length_km),
        ),
        label(
            rect(
                at(right_start + right_width / 2.0, middle),
                right_width / 2.0,
                text / 2.0,
            ),
            summary,
        ),
    ]);
}

/// The exaggeration as the legend writes it: "1", "1.5", "0.25".
fn exaggeration_text(exaggeration: f32) -> String {
    let text = format!("{exaggeration:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The outward normal (hologram space) of the base's side that faces `eye` most.
fn facing_side(to_room: Mat4, eye: Vec3) -> Vec3 {
    let towards = to_room.inverse().transform_point3(eye);
    if towards.x.abs() > towards.z.abs() {
        Vec3::X * towards.x.signum()
    } else {
        Vec3::Z * if towards.z < 0.0 { -1.0 } else { 1.0 }
    }
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;
    use crate::app::world::placement::Placement;
    use crate::input::Pose;

    fn drawn(placement: &Placement, facts: &LandFacts, eye: Vec3) -> (Vec<UiQuad>, Vec<UiLabel>) {
        let to_room = hologram_to_room(
            placement.model_matrix(facts.exaggeration),
            facts.exaggeration,
        );
        let (mut quads, mut labels) = (Vec::new(), Vec::new());
        draw(to_room, facts, eye, &mut quads, &mut labels);
        (quads, labels)
    }

    fn facts(across_km: f32, highest: f32, exaggeration: f32) -> LandFacts {
        LandFacts {
            across_km,
            height_range: (0.0, highest),
            exaggeration,
        }
    }

    #[test]
    fn the_bar_is_a_round_length_within_its_share_of_the_edge() {
        assert_eq!(bar_km(12.0), 2.0);
        assert_eq!(bar_km(10.0), 2.0);
        assert_eq!(bar_km(40.0), 10.0);
        assert_eq!(bar_km(2.0), 0.5);
        assert_eq!(bar_km(4.0), 1.0);
        assert_eq!(bar_km(0.05), 0.02);
        for across in [0.01, 0.3, 3.0, 7.0, 12.0, 99.0, 10_000.0] {
            let bar = bar_km(across);
            assert!(
                bar <= across * MAX_BAR_SHARE * 1.0001 && bar > across * 0.08,
                "{across}: {bar}"
            );
        }
    }

    #[test]
    fn distances_read_in_metres_or_kilometres() {
        assert_eq!(distance_text(0.111), "111 m");
        assert_eq!(distance_text(4.164), "4.2 km");
        assert_eq!(distance_text(40.0), "40 km");
        assert_eq!(distance_text(2.0), "2 km");
        assert_eq!(exaggeration_text(1.0), "1");
        assert_eq!(exaggeration_text(1.5), "1.5");
        assert_eq!(exaggeration_text(0.25), "0.25");
    }

    #[test]
    fn the_legend_says_the_highest_point_the_exaggeration_and_the_width() {
        let placement = Placement::at(Pose::new(Vec3::new(0.0, 0.8, -1.0), Quat::IDENTITY));
        let (quads, labels) = drawn(
            &placement,
            &facts(12.0, 0.347, 2.0),
            Vec3::new(0.0, 1.6, 0.0),
        );
        assert_eq!(labels[0].text, "2 km");
        assert_eq!(labels[1].text, "highest 4.2 km, height x2, 12 km across");
        // The bar is a sixth of the 0.5 m edge (2 of 12 km) and lies on the
        // side facing the eye (+z), below the land's zero.
        let bar = quads[0].rect;
        assert!((bar.right.length() * 2.0 - 0.5 / 6.0).abs() < 1e-5);
        let local = placement.to_local(bar.centre);
        assert!((local.z - (0.25 + STANDOFF_M)).abs() < 1e-5, "{local}");
        assert!(local.y > 0.0 && local.y < BASE_DEPTH_M, "{local}");
    }

    #[test]
    fn the_legend_turns_to_the_side_the_wearer_sees_and_grows_with_the_hologram() {
        let placement =
            Placement::at(Pose::new(Vec3::new(0.0, 0.8, -1.0), Quat::IDENTITY)).scaled(2.0);
        let (_, labels) = drawn(
            &placement,
            &facts(10.0, 0.1, 1.0),
            Vec3::new(-3.0, 1.6, -1.0),
        );
        let local = placement.to_local(labels[1].rect.centre);
        assert!((local.x + 0.25 + STANDOFF_M).abs() < 1e-5, "{local}");
        // Text 60 % of the 3 cm band, capped at 1.1 cm, twice that at 2×.
        assert!((labels[1].rect.up.length() * 2.0 - 2.0 * MAX_TEXT_M).abs() < 1e-5);
    }

    #[test]
    fn hologram_space_reaches_the_room_as_the_placement_puts_it() {
        let placement = Placement::at(Pose::new(
            Vec3::new(0.3, 0.8, -1.0),
            Quat::from_rotation_y(0.7),
        ))
        .scaled(1.5);
        for exaggeration in [0.5, 1.0, 3.0] {
            let to_room = hologram_to_room(placement.model_matrix(exaggeration), exaggeration);
            let point = Vec3::new(0.1, 0.02, -0.2);
            assert!(
                to_room
                    .transform_point3(point)
                    .abs_diff_eq(placement.to_room(point), 1e-5)
            );
        }
    }

    #[test]
    fn land_below_zero_takes_the_legend_down_with_the_base() {
        let placement = Placement::at(Pose::new(Vec3::new(0.0, 0.8, -1.0), Quat::IDENTITY));
        let deep = LandFacts {
            height_range: (-0.07, 0.05),
            ..facts(2.0, 0.05, 1.0)
        };
        let (quads, _) = drawn(&placement, &deep, Vec3::new(0.0, 1.6, 0.0));
        let y = placement.to_local(quads[0].rect.centre).y;
        assert!(y < land_y_m(-0.07) && y > base_bottom_m(-0.07), "{y}");
    }
}
