//! The frame glue every platform shares: turns the app's [`FrameOutput`] and
//! heights into the renderer's backend-neutral [`FrameScene`], with the one
//! light, the recipe's palette, the contours, the base under the land as
//! exaggerated, the water, the display's look, the fade near the eyes and
//! the "upload heights only when they changed" rule.
use glam::Vec3;

use crate::app::controls::legend::{self, LandFacts};
use crate::app::frame::{FrameOutput, NEAR_FADE};
use crate::app::world::placement::{BASE_DEPTH_M, HOLOGRAM_SIZE_M, base_bottom_m};
use crate::render::palette::Palette;
use crate::render::scene::{
    Display, FrameScene, SurfaceMarks, UiLabel, UiLayer, UiQuad, ripple_seconds,
};

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
    /// The display the frames are for.
    display: Display,
    /// The controls layer to draw while the base's legend shows: the app's
    /// controls and the legend, rebuilt by every update into buffers kept
    /// from frame to frame (the legend is the platform's to draw, so the
    /// app's update allocates nothing for it); empty otherwise.
    ui_quads: Vec<UiQuad>,
    /// The text of the layer.
    ui_labels: Vec<UiLabel>,
}

impl Default for SceneBuilder {
    fn default() -> Self {
        SceneBuilder {
            heights_pending: true,
            display: Display::default(),
            ui_quads: Vec::new(),
            ui_labels: Vec::new(),
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
    /// not): heights to upload, and the controls and legend to draw.
    pub fn updated(&mut self, output: &FrameOutput) {
        self.heights_pending |= output.heights_changed;
        self.ui_quads.clear();
        self.ui_labels.clear();
        // The controls layer draws its shapes, then its text, without
        // depth between them: a legend behind an open menu would show
        // through it, so it waits until the menus are closed. Only then
        // are the controls (a ray, a cursor: no text) copied beside it.
        let menus_open = !output.ui.labels.is_empty();
        if let Some(model) = output.model.filter(|_| !menus_open) {
            self.ui_quads.extend_from_slice(&output.ui.quads);
            let eye = (output.views[0].pose.position + output.views[1].pose.position) / 2.0;
            let facts = LandFacts {
                across_km: output.across_km,
                height_range: output.height_range,
                exaggeration: output.exaggeration,
            };
            let to_room = legend::hologram_to_room(model, output.exaggeration);
            legend::draw(
                to_room,
                &facts,
                eye,
                &mut self.ui_quads,
                &mut self.ui_labels,
            );
        }
    }

    /// What to draw for `output`, with `heights` (the app's heightmap cells)
    /// attached when the renderer lacks them; `None` until the hologram is
    /// placed (nothing to draw).
    pub fn scene<'a>(
        &'a self,
        output: &'a FrameOutput,
        heights: &'a [f32],
    ) -> Option<FrameScene<'a>> {
        let model = output.model?;
        // The model draws heights `exaggeration` times taller; the base's
        // underside stays where the hologram's space puts it.
        let exaggeration = output.exaggeration;
        let base_bottom_m = base_bottom_m(output.height_range.0 * exaggeration);
        Some(FrameScene {
            model,
            views: output.views.map(|eye| eye.render_view()),
            heights: self.heights_pending.then_some(heights),
            light_dir: LIGHT_DIR,
            palette: *Palette::named(output.palette),
            contours: output.contours,
            base_bottom: (base_bottom_m - BASE_DEPTH_M) / (HOLOGRAM_SIZE_M * exaggeration),
            sea_level: output.sea_level,
            time_s: ripple_seconds(output.display_time_ns),
            display: self.display,
            marks: SurfaceMarks {
                stroke: &output.marks.stroke,
                cursor: output.marks.cursor,
            },
            // With no legend (menus open, or nothing placed) the app's own
            // controls, as they are.
            ui: if self.ui_labels.is_empty() {
                UiLayer {
                    quads: &output.ui.quads,
                    labels: &output.ui.labels,
                }
            } else {
                UiLayer {
                    quads: &self.ui_quads,
                    labels: &self.ui_labels,
                }
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
    fn the_palette_is_the_recipes_whatever_the_range_and_contours_follow_the_output() {
        let builder = SceneBuilder::new();
        let low = ranged((0.0, 0.05), 0.0);
        let high = FrameOutput {
            contours: false,
            ..ranged((0.0, 0.35), 1.0)
        };
        let [low_scene, high_scene] =
            [&low, &high].map(|frame| builder.scene(frame, &[0.0; 4]).unwrap());
        assert_eq!(low_scene.palette, high_scene.palette);
        assert!(low_scene.contours && !high_scene.contours);
        let desert = FrameOutput {
            palette: crate::terrain::recipe::PaletteName::Desert,
            ..low.clone()
        };
        assert_eq!(
            builder.scene(&desert, &[0.0; 4]).unwrap().palette,
            crate::render::palette::DESERT
        );
    }

    #[test]
    fn an_exaggerated_land_keeps_its_base_where_the_hologram_has_it() {
        let builder = SceneBuilder::new();
        for exaggeration in [0.5, 1.0, 3.0] {
            let frame = FrameOutput {
                exaggeration,
                ..ranged((-0.1, 0.2), 0.0)
            };
            let scene = builder.scene(&frame, &[0.0; 4]).unwrap();
            // The underside, drawn through the exaggerated model, lands where
            // the hologram's space puts it for the land as drawn.
            let drawn_m = BASE_DEPTH_M + scene.base_bottom * exaggeration * HOLOGRAM_SIZE_M;
            assert!(
                (drawn_m - base_bottom_m(-0.1 * exaggeration)).abs() < 1e-6,
                "{exaggeration}"
            );
        }
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
    fn the_legend_shows_on_the_base_unless_a_menu_is_open() {
        let mut builder = SceneBuilder::new();
        let placed = ranged((0.0, 0.2), 0.0);
        builder.updated(&placed);
        let texts: Vec<String> = builder
            .scene(&placed, &[0.0; 4])
            .unwrap()
            .ui
            .labels
            .iter()
            .map(|label| label.text.clone())
            .collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[1].starts_with("highest 2 km"), "{texts:?}");
        let with_menu = FrameOutput {
            ui: crate::app::frame::OwnedUiLayer {
                quads: Vec::new(),
                menus: Vec::new(),
                labels: vec![crate::render::scene::UiLabel {
                    rect: crate::render::scene::UiRect {
                        centre: Vec3::ZERO,
                        right: Vec3::X,
                        up: Vec3::Y,
                    },
                    text: "Undo".into(),
                    color: [1.0; 4],
                }],
            },
            ..placed
        };
        builder.updated(&with_menu);
        let scene = builder.scene(&with_menu, &[0.0; 4]).unwrap();
        assert_eq!(scene.ui.labels.len(), 1);
        assert!(scene.ui.quads.is_empty());
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
