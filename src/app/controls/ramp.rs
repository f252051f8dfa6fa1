//! The one type ramp: the three text sizes every label of the controls is written in, as the height of their capitals, and the rectangles that hold a label whole at its size (a label is never shrunk to fit its button: the button is made wide enough, or its words short enough).
//!
//! The smallest size is chosen from the farthest a menu opens: the panel,
//! about 0.51 m from the eyes, where 0.65° (above Microsoft's 0.4° least
//! for legible text on HoloLens 2) takes capitals of 5.8 mm.
use crate::render::scene::{UiLabel, UiRect};
use crate::render::ui::{cap_height, text_width};

/// A size of text on the ramp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextSize {
    /// Group headings and the growth readout.
    Small,
    /// Button labels.
    Medium,
    /// The panel's title and the session's code, which is read aloud.
    Large,
}

impl TextSize {
    /// Every size, smallest first.
    pub const ALL: [TextSize; 3] = [TextSize::Small, TextSize::Medium, TextSize::Large];

    /// The height of its capitals, metres.
    pub fn cap_m(self) -> f32 {
        match self {
            TextSize::Small => 0.0062,
            TextSize::Medium => 0.0069,
            TextSize::Large => 0.0092,
        }
    }

    /// The height of a label's rectangle at this size: the line (ascent to
    /// descent) whose capitals are [`Self::cap_m`] tall.
    pub fn line_m(self) -> f32 {
        self.cap_m() / cap_height(1.0)
    }

    /// How wide `text` is at this size, metres.
    pub fn width_m(self, text: &str) -> f32 {
        text_width(text, self.line_m())
    }
}

/// `text` at `size` in the middle of `slot`, as wide as `slot`: whole
/// when `slot` is at least [`TextSize::width_m`] wide.
pub(super) fn text_in(
    slot: &UiRect,
    text: impl Into<String>,
    size: TextSize,
    color: [f32; 4],
) -> UiLabel {
    UiLabel {
        rect: UiRect {
            up: slot.up.normalize_or_zero() * (size.line_m() / 2.0),
            ..*slot
        },
        text: text.into(),
        color,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_distinct_sizes_each_at_least_0_65_degrees_at_the_panels_distance() {
        let distance = (0.5f32.powi(2) + 0.12f32.powi(2)).sqrt();
        let mut previous = 0.0;
        for size in TextSize::ALL {
            let degrees = (2.0 * (size.cap_m() / 2.0).atan2(distance)).to_degrees();
            assert!(degrees >= 0.65, "{size:?}: {degrees}");
            assert!(size.cap_m() > previous * 1.1, "{size:?}");
            previous = size.cap_m();
            let line = size.line_m();
            assert!((cap_height(line) - size.cap_m()).abs() < 1e-7);
        }
    }
}
