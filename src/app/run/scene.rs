//! The frame glue every platform shares: turns the app's [`FrameOutput`] and
//! heights into the renderer's backend-neutral [`FrameScene`], with the one
//! light, the colour bands eased towards the terrain's range, the base, the
//! water, the display's look, the fade near the eyes and the "upload
//! heights only when they changed" rule.
use glam::Vec3;

use crate::app::frame::{FrameOutput, MIN_BAND_SPAN, NEAR_FADE};
use crate::app::world::placement::{BASE_DEPTH_M, HOLOGRAM_SIZE_M, base_bottom_m};
use crate::render::scene::{
    ColorBands, Display, FrameScene, SurfaceMarks, UiLayer, ripple_seconds,
};

/// Direction towards the sun, in the room: high and from the front left.
pub const LIGHT_DIR: Vec3 = Vec3::new(-0.4, 1.0, 0.5);

/// The time constant, in seconds, with which the bands follow the terrain's
/// range (the gap shrinks as e^(−t / this)): a growing terrain's colours
/// move smoothly, and a reseed's drop to flat fades over a second or so.
pub const BAND_EASE_S: f32 = 0.4;

/// Builds each frame's [`FrameScene`]; remembers whether the renderer still
/// lacks the current heights, so a frame that is not drawn (not placed yet,
/// or the runtime said not to render) does not lose a change, and the
/// height range the bands are spread over, eased from frame to frame.
///
/// Per frame: [`Self::updated`] after `App::update`, then, when the platform
/// draws, [`Self::scene`] and, once the renderer took it, [`Self::drawn`].
#[derive(Debug, Clone)]
pub struct SceneBuilder {
    /// Whether the heights changed since the renderer last received them
    /// (true at the start: the renderer's heights start flat, the app's may not).
    heights_pending: bool,
    /// The display the frames are for.
    display: Display,
    /// The range the bands are spread over now, and the display time it was
    /// eased to; `None` before the first update.
    bands_range: Option<((f32, f32), i64)>,
}

impl Default for SceneBuilder {
    fn default() -> Self {
        SceneBuilder {
            heights_pending: true,
            display: Display::default(),
            bands_range: None,
        }
    }
}

impl SceneBuilder {
    /// A builder whose first scene carries the heights, for an additive display.
    pub fn new() -> Self {
        Self::default()
    }

    /// The display the frames are for from now on (the environment blend
    /// mode the runtime reports, or the simulator's `--blend`).
    pub fn set_display(&mut self, display: Display) {
        self.display = display;
    }

    /// The display the frames are for.
    pub fn display(&self) -> Display {
        self.display
    }

    /// Notes one `App::update`'s output (call it for every update, drawn or
    /// not): heights to upload, and the bands eased towards its range.
    pub fn updated(&mut self, output: &FrameOutput) {
        self.heights_pending |= output.heights_changed;
        let (low, high) = output.height_range;
        let target = (low, high.max(low + MIN_BAND_SPAN));
        let now = output.display_time_ns;
        let eased = match self.bands_range {
            None => target,
            Some(((eased_low, eased_high), then)) => {
                let seconds = (now.saturating_sub(then)).max(0) as f32 * 1e-9;
                let step = 1.0 - (-seconds / BAND_EASE_S).exp();
                (
                    eased_low + (target.0 - eased_low) * step,
                    eased_high + (target.1 - eased_high) * step,
                )
            }
        };
        self.bands_range = Some((eased, now));
    }

    /// What to draw for `output`, with `heights` (the app's heightmap cells)
    /// attached when the renderer lacks them; `None` until the hologram is
    /// placed (nothing to draw).
    pub fn scene<'a>(&self, output: &'a FrameOutput, heights: &'a [f32]) -> Option<FrameScene<'a>> {
        let model = output.model?;
        let (low, high) = self
            .bands_range
            .map(|(range, _)| range)
            .unwrap_or((0.0, MIN_BAND_SPAN));
        Some(FrameScene {
            model,
            views: output.views.map(|eye| eye.render_view()),
            heights: self.heights_pending.then_some(heights),
            light_dir: LIGHT_DIR,
            bands: ColorBands::spread_over(low, high),
            base_bottom: (base_bottom_m(output.height_range.0) - BASE_DEPTH_M) / HOLOGRAM_SIZE_M,
            sea_level: output.sea_level,
            time_s: ripple_seconds(output.display_time_ns),
            display: self.display,
            marks: SurfaceMarks {
                stroke: &output.marks.stroke,
                cursor: output.marks.cursor,
            },
            ui: UiLayer {
                quads: &output.ui.quads,
                labels: &output.ui.labels,
            },
            near_fade: NEAR_FADE,
        })
    }

    /// The renderer accepted the last scene: it now has the heights.
    pub fn drawn(&mut self) {
        self.heights_pending = false;
    }
}

#[cfg(test)]
mod tests {
    use glam::Mat4;

    use super::*;

    fn output(model: Option<Mat4>, heights_changed: bool) -> FrameOutput {
        FrameOutput {
            model,
            heights_changed,
            ..FrameOutput::empty()
        }
    }

    #[test]
    fn the_first_drawn_scene_carries_the_heights_even_unchanged() {
        let mut builder = SceneBuilder::new();
        let frame = output(Some(Mat4::IDENTITY), false);
        builder.updated(&frame);
        let heights = [0.0; 4];
        assert!(builder.scene(&frame, &heights).unwrap().heights.is_some());
        builder.drawn();
        assert!(builder.scene(&frame, &heights).unwrap().heights.is_none());
    }

    #[test]
    fn a_change_on_a_frame_not_drawn_reaches_the_next_drawn_one() {
        let mut builder = SceneBuilder::new();
        builder.drawn();
        builder.updated(&output(Some(Mat4::IDENTITY), true));
        builder.updated(&output(Some(Mat4::IDENTITY), false));
        let heights = [1.0; 4];
        let frame = output(Some(Mat4::IDENTITY), false);
        let scene = builder.scene(&frame, &heights).unwrap();
        assert_eq!(scene.heights, Some(&heights[..]));
    }

    #[test]
    fn nothing_is_drawn_before_placement() {
        let builder = SceneBuilder::new();
        assert!(builder.scene(&output(None, true), &[0.0; 4]).is_none());
    }

    #[test]
    fn every_scene_has_the_one_light() {
        let builder = SceneBuilder::new();
        let frame = output(Some(Mat4::IDENTITY), false);
        let scene = builder.scene(&frame, &[0.0; 4]).unwrap();
        assert_eq!(scene.light_dir, LIGHT_DIR);
    }

    fn ranged(range: (f32, f32), time_s: f32) -> FrameOutput {
        FrameOutput {
            height_range: range,
            display_time_ns: (time_s * 1e9) as i64,
            ..output(Some(Mat4::IDENTITY), false)
        }
    }

    #[test]
    fn the_bands_start_at_the_terrains_range_and_ease_towards_a_new_one() {
        let mut builder = SceneBuilder::new();
        let first = ranged((0.0, 0.2), 0.0);
        builder.updated(&first);
        let bands = builder.scene(&first, &[0.0; 4]).unwrap().bands;
        assert_eq!(bands, ColorBands::spread_over(0.0, 0.2));
        // A reseed drops the range to flat: one frame later the bands have
        // moved a little of the way, a few seconds later all of it.
        let flat = ranged((0.0, 0.0), 1.0 / 60.0);
        builder.updated(&flat);
        let next = builder.scene(&flat, &[0.0; 4]).unwrap().bands;
        assert!(next.rock_to_snow < bands.rock_to_snow);
        assert!(next.rock_to_snow > 0.9 * bands.rock_to_snow, "{next:?}");
        let later = ranged((0.0, 0.0), 5.0);
        builder.updated(&later);
        let settled = builder.scene(&later, &[0.0; 4]).unwrap().bands;
        let narrowest = ColorBands::spread_over(0.0, MIN_BAND_SPAN);
        assert!((settled.rock_to_snow - narrowest.rock_to_snow).abs() < 1e-4);
    }

    #[test]
    fn the_base_sits_under_the_land_and_the_sea_and_display_pass_through() {
        let mut builder = SceneBuilder::new();
        builder.set_display(Display::Opaque);
        let frame = FrameOutput {
            sea_level: Some(0.035),
            ..ranged((0.0, 0.2), 61.5)
        };
        builder.updated(&frame);
        let scene = builder.scene(&frame, &[0.0; 4]).unwrap();
        assert!((scene.base_bottom + BASE_DEPTH_M / HOLOGRAM_SIZE_M).abs() < 1e-6);
        assert_eq!(scene.sea_level, Some(0.035));
        assert_eq!(scene.display, Display::Opaque);
        assert!((scene.time_s - 1.5).abs() < 1e-5);
        // Faded out from 40 cm, gone at the eyes' near plane.
        assert_eq!(
            (scene.near_fade.start_m, scene.near_fade.end_m),
            (0.4, crate::app::frame::NEAR_M)
        );
        // Land dipping below the plate takes the underside down with it.
        let deep = ranged((-0.2, 0.2), 0.0);
        let deep_scene = builder.scene(&deep, &[0.0; 4]).unwrap();
        assert!(deep_scene.base_bottom < -0.2);
    }

    #[test]
    fn the_outputs_marks_reach_the_scene() {
        let builder = SceneBuilder::new();
        let frame = FrameOutput {
            marks: crate::app::frame::OwnedSurfaceMarks {
                stroke: vec![glam::Vec2::new(0.1, 0.2), glam::Vec2::new(0.3, 0.4)],
                cursor: Some(glam::Vec2::new(0.5, 0.5)),
            },
            ..output(Some(Mat4::IDENTITY), false)
        };
        let scene = builder.scene(&frame, &[0.0; 4]).unwrap();
        assert_eq!(scene.marks.stroke, &frame.marks.stroke[..]);
        assert_eq!(scene.marks.cursor, Some(glam::Vec2::new(0.5, 0.5)));
    }
}
