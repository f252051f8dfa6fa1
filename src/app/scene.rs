//! The frame glue every platform shares: turns the app's [`FrameOutput`] and
//! heights into the renderer's backend-neutral [`FrameScene`], with the one
//! light, the one set of colour bands and the "upload heights only when they
//! changed" rule.
use glam::Vec3;

use super::frame::{BAND_HEIGHTS, FrameOutput};
use crate::render::scene::{ColorBands, FrameScene};

/// Direction towards the sun, in the room: high and from the front left.
pub const LIGHT_DIR: Vec3 = Vec3::new(-0.4, 1.0, 0.5);

/// Builds each frame's [`FrameScene`]; remembers whether the renderer still
/// lacks the current heights, so a frame that is not drawn (not placed yet,
/// or the runtime said not to render) does not lose a change.
///
/// Per frame: [`Self::updated`] after `App::update`, then, when the platform
/// draws, [`Self::scene`] and, once the renderer took it, [`Self::drawn`].
#[derive(Debug, Clone)]
pub struct SceneBuilder {
    /// Whether the heights changed since the renderer last received them
    /// (true at the start: the renderer's heights start flat, the app's may not).
    heights_pending: bool,
}

impl Default for SceneBuilder {
    fn default() -> Self {
        SceneBuilder {
            heights_pending: true,
        }
    }
}

impl SceneBuilder {
    /// A builder whose first scene carries the heights.
    pub fn new() -> Self {
        Self::default()
    }

    /// Notes one `App::update`'s output (call it for every update, drawn or not).
    pub fn updated(&mut self, output: &FrameOutput) {
        self.heights_pending |= output.heights_changed;
    }

    /// What to draw for `output`, with `heights` (the app's heightmap cells)
    /// attached when the renderer lacks them; `None` until the hologram is
    /// placed (nothing to draw).
    pub fn scene<'a>(&self, output: &FrameOutput, heights: &'a [f32]) -> Option<FrameScene<'a>> {
        let model = output.model?;
        Some(FrameScene {
            model,
            views: output.views.map(|eye| eye.render_view()),
            heights: self.heights_pending.then_some(heights),
            light_dir: LIGHT_DIR,
            bands: ColorBands::spread_over(BAND_HEIGHTS.0, BAND_HEIGHTS.1),
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
        let scene = builder
            .scene(&output(Some(Mat4::IDENTITY), false), &heights)
            .unwrap();
        assert_eq!(scene.heights, Some(&heights[..]));
    }

    #[test]
    fn nothing_is_drawn_before_placement() {
        let builder = SceneBuilder::new();
        assert!(builder.scene(&output(None, true), &[0.0; 4]).is_none());
    }

    #[test]
    fn every_scene_has_the_one_light_and_bands() {
        let builder = SceneBuilder::new();
        let scene = builder
            .scene(&output(Some(Mat4::IDENTITY), false), &[0.0; 4])
            .unwrap();
        assert_eq!(scene.light_dir, LIGHT_DIR);
        assert_eq!(
            scene.bands,
            ColorBands::spread_over(BAND_HEIGHTS.0, BAND_HEIGHTS.1)
        );
    }
}
