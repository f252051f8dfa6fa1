//! How a menu looks from the eyes, in the terms Microsoft's HoloLens 2 guidance states its limits in: the angles the menu and its smallest text subtend, and the WCAG 2 contrast of its labels on their plates.
//!
//! Any platform that knows where the eyes are can measure what it shows:
//! the run's record does, for the report's `menus`.
use glam::Vec3;

use super::hit_test::Menu;
use crate::input::Pose;
use crate::render::scene::{UiLabel, UiRect};
use crate::render::ui::drawn_cap_height;

/// A menu or panel on show this frame, as drawn: which it is, its plates
/// (backplate, title bar, caption, buttons) and its labels.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownMenu {
    /// Which menu.
    pub menu: Menu,
    /// The rectangles it covers.
    pub plates: Vec<UiRect>,
    /// The text on them.
    pub labels: Vec<UiLabel>,
    /// The lowest contrast of a label on its plate over every look its
    /// plates can take, not only this frame's.
    pub min_contrast: f32,
}

/// A menu as the eyes see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MenuMeasure {
    /// The angle across it, degrees.
    pub width_deg: f32,
    /// The angle up it, degrees.
    pub height_deg: f32,
    /// The angle its smallest text's capitals subtend, degrees.
    pub min_text_deg: f32,
    /// The lowest WCAG 2 contrast ratio of a label on its plate.
    pub min_contrast: f32,
}

/// How `menu` looks from `eyes` (the point between them, turned as the head is).
pub fn measure(menu: &ShownMenu, eyes: &Pose) -> MenuMeasure {
    let (width_deg, height_deg) = subtended_deg(eyes, menu.plates.iter().flat_map(corners));
    let min_text_deg = menu
        .labels
        .iter()
        .map(|label| text_deg(eyes.position, label))
        .reduce(f32::min)
        .unwrap_or(0.0);
    MenuMeasure {
        width_deg,
        height_deg,
        min_text_deg,
        min_contrast: menu.min_contrast,
    }
}

/// The angles `points` span seen from `eyes`, in degrees: across (the
/// largest angle between two points' rays left to right in the head's
/// frame) and up (the same bottom to top). Each ray's angle is taken as a
/// display's field of view is, against the head's forward axis (atan of
/// right over ahead, and of up over ahead), so the two compare directly
/// with a headset's field (HoloLens 2: 43° × 29°). No points, no angle.
pub fn subtended_deg(eyes: &Pose, points: impl IntoIterator<Item = Vec3>) -> (f32, f32) {
    let to_head = eyes.orientation.conjugate();
    let (mut across, mut up) = ((f32::MAX, f32::MIN), (f32::MAX, f32::MIN));
    for point in points {
        let local = to_head * (point - eyes.position);
        let ahead = -local.z;
        let (yaw, pitch) = (local.x.atan2(ahead), local.y.atan2(ahead));
        across = (across.0.min(yaw), across.1.max(yaw));
        up = (up.0.min(pitch), up.1.max(pitch));
    }
    let span = |(low, high): (f32, f32)| (high - low).max(0.0).to_degrees();
    (span(across), span(up))
}

/// The angle the capitals of `label`, as drawn (shrunk to fit its width
/// when they must be), subtend from `eye`, in degrees.
pub fn text_deg(eye: Vec3, label: &UiLabel) -> f32 {
    let height = drawn_cap_height(label);
    let distance = eye.distance(label.rect.centre);
    (2.0 * (height / 2.0).atan2(distance)).to_degrees()
}

/// The four corners of `rect`.
fn corners(rect: &UiRect) -> [Vec3; 4] {
    let UiRect { centre, right, up } = *rect;
    [
        centre - right - up,
        centre + right - up,
        centre + right + up,
        centre - right + up,
    ]
}

/// WCAG 2's contrast ratio of two sRGB colours (channels 0 to 1), in
/// either order: from 1 (the same) to 21 (black and white).
pub fn contrast_ratio(a: [f32; 3], b: [f32; 3]) -> f32 {
    let (la, lb) = (relative_luminance(a), relative_luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// WCAG 2's relative luminance of an sRGB colour (channels 0 to 1).
pub fn relative_luminance([r, g, b]: [f32; 3]) -> f32 {
    // sRGB's own threshold (WCAG 2.0 printed 0.03928; no 8-bit value lies
    // between the two).
    let linear = |c: f32| {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// The sRGB encoding of a linear colour, as the display is sent it (the
/// controls' colours are linear; the render targets store sRGB).
pub fn srgb_from_linear(linear: [f32; 3]) -> [f32; 3] {
    linear.map(|c| {
        let c = c.clamp(0.0, 1.0);
        if c <= 0.0031308 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
    })
}

/// What a display shows of `color` (linear, with opacity) drawn over
/// `behind` (linear): blended as the controls are, source alpha over.
pub fn over(color: [f32; 4], behind: [f32; 3]) -> [f32; 3] {
    let alpha = color[3];
    [0, 1, 2].map(|channel| color[channel] * alpha + behind[channel] * (1.0 - alpha))
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;

    fn near(a: f32, b: f32, within: f32) -> bool {
        (a - b).abs() <= within
    }

    /// A `width` × `height` rectangle `distance` ahead of the origin,
    /// facing it, centred `(x, y)` off the forward axis.
    fn rect_ahead(distance: f32, (x, y): (f32, f32), (width, height): (f32, f32)) -> UiRect {
        UiRect {
            centre: Vec3::new(x, y, -distance),
            right: Vec3::X * width / 2.0,
            up: Vec3::Y * height / 2.0,
        }
    }

    #[test]
    fn a_10_cm_square_at_half_a_metre_subtends_11_42_degrees_each_way() {
        // 2 atan(0.05 / 0.5) = 11.421°.
        let square = rect_ahead(0.5, (0.0, 0.0), (0.1, 0.1));
        let (across, up) = subtended_deg(&Pose::IDENTITY, corners(&square));
        assert!(near(across, 11.421, 0.001), "{across}");
        assert!(near(up, 11.421, 0.001), "{up}");
    }

    #[test]
    fn the_angles_are_in_the_heads_frame_wherever_it_stands_and_looks() {
        // The head at (1, 1.6, 2) turned 90° left (looking down -x): a
        // square 0.5 m ahead of it, 20 cm wide and 10 cm tall, off to the
        // side by 10 cm. Across: atan(0.2/0.5) - atan(0/0.5) = 21.80°; up:
        // 2 atan(0.05/0.5) = 11.42°.
        let head = Pose::new(
            Vec3::new(1.0, 1.6, 2.0),
            Quat::from_rotation_y(90f32.to_radians()),
        );
        let local = rect_ahead(0.5, (0.1, 0.0), (0.2, 0.1));
        let world = UiRect {
            centre: head.transform_point(local.centre),
            right: head.orientation * local.right,
            up: head.orientation * local.up,
        };
        let (across, up) = subtended_deg(&head, corners(&world));
        assert!(near(across, 0.4f32.atan().to_degrees(), 0.001), "{across}");
        assert!(near(up, 11.421, 0.001), "{up}");
    }

    #[test]
    fn no_points_subtend_nothing() {
        assert_eq!(subtended_deg(&Pose::IDENTITY, []), (0.0, 0.0));
    }

    #[test]
    fn text_is_measured_by_its_capitals_as_drawn_at_its_distance() {
        let label = UiLabel {
            rect: rect_ahead(0.5, (0.0, 0.0), (1.0, 0.02)),
            text: "Undo".into(),
            color: [1.0; 4],
        };
        let capitals = drawn_cap_height(&label);
        assert!(capitals > 0.01 && capitals < 0.02, "{capitals}");
        let expected = (2.0 * (capitals / 2.0 / 0.5).atan()).to_degrees();
        assert!(near(text_deg(Vec3::ZERO, &label), expected, 1e-5));
        // Twice as far, about half the angle.
        let far = text_deg(Vec3::Z * 0.5, &label);
        assert!(near(far, expected / 2.0, 0.01), "{far}");
    }

    #[test]
    fn black_on_white_is_21_to_1_and_a_colour_on_itself_1_to_1() {
        assert!(near(contrast_ratio([0.0; 3], [1.0; 3]), 21.0, 1e-4));
        assert!(near(contrast_ratio([1.0; 3], [0.0; 3]), 21.0, 1e-4));
        let grey = [0.5; 3];
        assert_eq!(contrast_ratio(grey, grey), 1.0);
        // sRGB mid grey (#777777, 0.467) on white is WCAG's well-known 4.48.
        let g = 0x77 as f32 / 255.0;
        assert!(near(contrast_ratio([g; 3], [1.0; 3]), 4.48, 0.01));
    }

    #[test]
    fn linear_colours_are_encoded_as_srgb_before_wcag_decodes_them() {
        for linear in [0.0, 0.002, 0.1, 0.5, 1.0] {
            let luminance = relative_luminance(srgb_from_linear([linear; 3]));
            assert!(near(luminance, linear, 1e-5), "{linear}: {luminance}");
        }
    }

    #[test]
    fn a_translucent_plate_shows_blended_over_what_is_behind() {
        assert_eq!(over([1.0, 0.5, 0.0, 0.5], [0.0; 3]), [0.5, 0.25, 0.0]);
        assert_eq!(over([0.2, 0.2, 0.2, 1.0], [1.0; 3]), [0.2; 3]);
    }

    #[test]
    fn a_menu_is_measured_over_all_its_plates_and_its_smallest_label() {
        let big = rect_ahead(0.5, (0.0, 0.0), (0.1, 0.1));
        let small = rect_ahead(0.5, (0.0, 0.0), (0.1, 0.01));
        let label = |rect| UiLabel {
            rect,
            text: "New terrain".into(),
            color: [1.0; 4],
        };
        let menu = ShownMenu {
            menu: Menu::HandMenu,
            plates: vec![big, rect_ahead(0.5, (0.0, 0.1), (0.1, 0.1))],
            labels: vec![label(big), label(small)],
            min_contrast: 3.0,
        };
        let measured = measure(&menu, &Pose::IDENTITY);
        assert!(near(measured.width_deg, 11.421, 0.001));
        // From 5 cm below the axis to 15 cm above it.
        let up = (0.15f32.atan2(0.5) + 0.05f32.atan2(0.5)).to_degrees();
        assert!(near(measured.height_deg, up, 0.001));
        assert_eq!(measured.min_text_deg, text_deg(Vec3::ZERO, &label(small)));
        assert_eq!(measured.min_contrast, 3.0);
    }
}
