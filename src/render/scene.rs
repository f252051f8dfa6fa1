//! What one frame draws: the hologram's transform, both eyes, new heights
//! (when they changed), the light, the palette and contours, the base and the
//! water, the display it is for, the marks on the land, the controls
//! (menus, buttons, pointers) floating beside it and where what comes too
//! near the eyes fades out.
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec2, Vec3};

use super::palette::{BOLD_EVERY, CONTOUR_INTERVAL, MAX_STOPS, Palette, srgb_to_linear};

/// Eyes per frame: view (and image array layer) 0 is the left eye, 1 the
/// right; every backend and the OpenXR swapchains use this one number.
pub const VIEW_COUNT: u32 = 2;

/// One eye's camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EyeView {
    /// World → eye (see `camera::view_from_pose`).
    pub view: Mat4,
    /// Eye → Vulkan clip space (see `camera::perspective_from_fov`).
    pub projection: Mat4,
}

/// Most stroke points a frame draws; points past these are ignored.
pub const MAX_STROKE_POINTS: usize = 64;

/// Marks drawn on the land, in the heightmap's uv (u along columns 0..1, v
/// along rows 0..1): a stroke as a bright line about 3 mm wide at scale 1,
/// and a cursor as a bright ring about 1 cm across.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SurfaceMarks<'a> {
    /// The polyline, its first [`MAX_STROKE_POINTS`] points drawn.
    pub stroke: &'a [Vec2],
    /// Where the ring is, when there is one.
    pub cursor: Option<Vec2>,
}

/// A flat rectangle in the world (metres, the reference space): its centre
/// and half its extent along its own right and up directions, so
/// `centre ± right ± up` are its corners and `right × up` faces the viewer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UiRect {
    /// The middle of the rectangle.
    pub centre: Vec3,
    /// Half the rectangle's width, along its left-to-right edge.
    pub right: Vec3,
    /// Half the rectangle's height, along its bottom-to-top edge.
    pub up: Vec3,
}

/// What fills a [`UiQuad`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UiFill {
    /// The whole rectangle (a button's plate, a ray's thin strip).
    Solid,
    /// A ring touching the rectangle's edges, about a sixth of its width
    /// thick (a cursor).
    Ring,
}

/// One coloured shape of the controls layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UiQuad {
    /// Where it is.
    pub rect: UiRect,
    /// Linear RGB and opacity (blended over what is behind it).
    pub color: [f32; 4],
    /// Its shape.
    pub fill: UiFill,
}

/// A line of text, centred in its rectangle: as tall as the rectangle's
/// height allows, shrunk to fit its width.
#[derive(Clone, Debug, PartialEq)]
pub struct UiLabel {
    /// Where it is written.
    pub rect: UiRect,
    /// What it says.
    pub text: String,
    /// Linear RGB and opacity.
    pub color: [f32; 4],
}

/// The controls drawn this frame over the world, with depth like the
/// terrain (in the projection layer, no extra composition layer): quads
/// first, in order, then the labels on them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UiLayer<'a> {
    /// The shapes, drawn in order.
    pub quads: &'a [UiQuad],
    /// The text, drawn after the shapes.
    pub labels: &'a [UiLabel],
}

/// How the display shows black: on an additive one (HoloLens 2, the test
/// runtime) black is see-through and dark slopes all but vanish, so the
/// shading has a floor, and so has an alpha-blended one (a headset showing
/// the room through its cameras), which sees through what has no alpha; an
/// opaque one (a VR headset) shows the scene with a normal ambient.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Display {
    /// Light is added to the world seen through the visor.
    #[default]
    Additive,
    /// The frame is laid over the world by its alpha.
    AlphaBlend,
    /// The frame covers the world.
    Opaque,
}

impl Display {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Display::Additive => "additive",
            Display::AlphaBlend => "alpha-blend",
            Display::Opaque => "opaque",
        }
    }

    /// Ambient light facing down, ambient facing up and the brightness
    /// floor (the least share of its colour a surface keeps, however it
    /// faces the light).
    pub fn lighting(self) -> [f32; 3] {
        match self {
            // Lifted so the shaded side of a ridge stays visible through the visor.
            Display::Additive | Display::AlphaBlend => [0.45, 0.6, 0.5],
            Display::Opaque => [0.1, 0.25, 0.0],
        }
    }

    /// Whether what fades out near the eyes ([`NearFade`]) loses its alpha
    /// (the colour premultiplied by it, as blending over nothing leaves
    /// it): what an alpha-blended display shows as see-through, and an
    /// opaque one as black. An additive display sees through black, so
    /// there the colour darkens instead and the alpha stays, keeping what
    /// is behind it in the hologram hidden, as its depth says.
    pub fn fades_by_alpha(self) -> bool {
        self != Display::Additive
    }
}

/// Where what comes near the eyes fades out (metres along each eye's view
/// axis, the depth the projection's near plane clips at): all of it shows
/// from `start_m` out, none at `end_m`, linearly between (in linear light).
/// Microsoft's comfort guidance for HoloLens: fade from 40 cm, clip at 30 cm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearFade {
    /// Nearer than this, content begins to fade.
    pub start_m: f32,
    /// Here it is gone; the projection's near plane should clip here.
    pub end_m: f32,
}

impl NearFade {
    /// No fade: everything the projection keeps shows whole.
    pub const NONE: NearFade = NearFade {
        start_m: 0.0,
        end_m: 0.0,
    };
}

/// Everything one stereo frame needs.
#[derive(Clone, Copy, Debug)]
pub struct FrameScene<'a> {
    /// Model → world: maps the grid's [-0.5, 0.5] square and its heights
    /// (terrain units) to metres in the reference space.
    pub model: Mat4,
    /// Left eye (view 0), then right eye (view 1).
    pub views: [EyeView; VIEW_COUNT as usize],
    /// New heights, row-major, grid width × height values; `Some` only on
    /// frames where they changed (the renderer keeps the last ones).
    pub heights: Option<&'a [f32]>,
    /// World-space direction from the surface towards the light; any
    /// non-zero length (it is normalised in the shader).
    pub light_dir: Vec3,
    /// The colours by height the land is painted with.
    pub palette: Palette,
    /// Whether contour lines are drawn.
    pub contours: bool,
    /// Model-space height (terrain units) of the base's flat underside:
    /// the land's edge profile is carried down to it.
    pub base_bottom: f32,
    /// Model-space height of the water, when there is some.
    pub sea_level: Option<f32>,
    /// Display time in seconds, for the water's ripple (only its phase
    /// matters: callers wrap it, see [`ripple_seconds`]).
    pub time_s: f32,
    /// The display the frame is for.
    pub display: Display,
    /// Marks drawn on the land.
    pub marks: SurfaceMarks<'a>,
    /// The controls beside the land (empty when none show).
    pub ui: UiLayer<'a>,
    /// Where what comes near the eyes fades out.
    pub near_fade: NearFade,
}

/// The ripple repeats every this many seconds: its frequencies are whole
/// multiples of 1 / this, so display time can be wrapped to it and keep
/// its precision in a float over a long run.
pub const RIPPLE_PERIOD_S: i64 = 60;

/// Display time `ns` as the shaders' ripple time: seconds within the period.
pub fn ripple_seconds(ns: i64) -> f32 {
    let period_ns = RIPPLE_PERIOD_S * 1_000_000_000;
    (ns.rem_euclid(period_ns) as f64 * 1e-9) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::palette::{DESERT, TEMPERATE};

    #[test]
    fn the_palette_and_contours_go_into_the_uniforms() {
        let mut scene = test_scene();
        scene.palette = DESERT;
        let uniforms = FrameUniforms::new(&scene, Mat4::IDENTITY, 2, 2);
        assert_eq!(uniforms.contours, [4.0, CONTOUR_INTERVAL, BOLD_EVERY, 0.0]);
        assert_eq!(uniforms.palette_color[2][3], DESERT.stops[2].from);
        assert_eq!(
            uniforms.palette_color[0][0],
            srgb_to_linear(DESERT.stops[0].srgb[0])
        );
        assert_eq!(uniforms.palette_cliff[3], DESERT.half_blend);
        scene.contours = false;
        assert_eq!(
            FrameUniforms::new(&scene, Mat4::IDENTITY, 2, 2).contours[1],
            0.0
        );
    }

    #[test]
    fn ripple_time_wraps_at_its_period() {
        assert_eq!(ripple_seconds(1_500_000_000), 1.5);
        assert_eq!(ripple_seconds(61_500_000_000), 1.5);
        assert_eq!(ripple_seconds(-500_000_000), 59.5);
    }

    #[test]
    fn marks_past_the_limit_are_left_out_and_pairs_packed() {
        let stroke: Vec<Vec2> = (0..MAX_STROKE_POINTS + 5)
            .map(|i| Vec2::new(i as f32, 0.5))
            .collect();
        let mut scene = test_scene();
        scene.marks = SurfaceMarks {
            stroke: &stroke,
            cursor: Some(Vec2::new(0.25, 0.75)),
        };
        let uniforms = FrameUniforms::new(&scene, Mat4::IDENTITY, 2, 2);
        assert_eq!(uniforms.marks, [MAX_STROKE_POINTS as f32, 1.0, 0.25, 0.75]);
        assert_eq!(uniforms.stroke[1], [2.0, 0.5, 3.0, 0.5]);
        assert_eq!(uniforms.stroke[MAX_STROKE_POINTS / 2 - 1][2], 63.0);
    }

    #[test]
    fn no_sea_and_no_marks_are_off_in_the_uniforms() {
        let uniforms = FrameUniforms::new(&test_scene(), Mat4::IDENTITY, 2, 2);
        assert_eq!(uniforms.surface[3], 0.0);
        assert_eq!(uniforms.marks[..2], [0.0, 0.0]);
        assert_eq!(uniforms.look[..3], Display::Additive.lighting());
    }

    #[test]
    fn the_fade_is_appended_with_whether_it_fades_by_alpha() {
        let mut scene = test_scene();
        scene.near_fade = NearFade {
            start_m: 0.4,
            end_m: 0.3,
        };
        let additive = FrameUniforms::new(&scene, Mat4::IDENTITY, 2, 2);
        assert_eq!(additive.fade, [0.4, 0.3, 0.0, 0.0]);
        scene.display = Display::AlphaBlend;
        assert_eq!(
            FrameUniforms::new(&scene, Mat4::IDENTITY, 2, 2).fade[2],
            1.0
        );
        scene.display = Display::Opaque;
        assert_eq!(
            FrameUniforms::new(&scene, Mat4::IDENTITY, 2, 2).fade[2],
            1.0
        );
        // The GLSL std140 block and the HLSL constant buffer put it last.
        assert_eq!(
            std::mem::offset_of!(FrameUniforms, fade),
            size_of::<FrameUniforms>() - 16
        );
        assert_eq!(Display::AlphaBlend.lighting(), Display::Additive.lighting());
    }

    fn test_scene() -> FrameScene<'static> {
        let eye = EyeView {
            view: Mat4::IDENTITY,
            projection: Mat4::IDENTITY,
        };
        FrameScene {
            model: Mat4::IDENTITY,
            views: [eye; VIEW_COUNT as usize],
            heights: None,
            light_dir: Vec3::Y,
            palette: TEMPERATE,
            contours: true,
            base_bottom: -0.06,
            sea_level: None,
            time_s: 0.0,
            display: Display::Additive,
            marks: SurfaceMarks::default(),
            ui: UiLayer::default(),
            near_fade: NearFade::NONE,
        }
    }
}

/// The shaders' `Frame` block as both backends upload it: the GLSL std140
/// uniform block and the HLSL constant buffer have this one layout (the
/// `d3d11_shaders` test holds the HLSL to it).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct FrameUniforms {
    /// Projection × view in the backend's clip space, left then right eye (column-major).
    pub view_projection: [[f32; 16]; VIEW_COUNT as usize],
    /// Model → world.
    pub model: [f32; 16],
    /// Towards the light, world space (w unused).
    pub light_dir: [f32; 4],
    /// The palette's stops: linear colour, and the height each takes over from.
    pub palette_color: [[f32; 4]; MAX_STOPS],
    /// The flatnesses over which the cliff gives way to each stop (z, w unused).
    pub palette_clings: [[f32; 4]; MAX_STOPS],
    /// The cliff's linear colour and the palette's half blend.
    pub palette_cliff: [f32; 4],
    /// Stops used, contour interval (0: none), bold every n-th line, unused.
    pub contours: [f32; 4],
    /// Grid width and height (z, w unused).
    pub grid: [u32; 4],
    /// The base's underside, the sea level, the ripple time (seconds) and
    /// whether there is water (1) or not (0).
    pub surface: [f32; 4],
    /// The display's lighting ([`Display::lighting`]; w unused).
    pub look: [f32; 4],
    /// Stroke points drawn, whether there is a cursor (1) or not (0), and
    /// the cursor's u and v.
    pub marks: [f32; 4],
    /// The stroke's points in uv, two to an element (xy, then zw).
    pub stroke: [[f32; 4]; MAX_STROKE_POINTS / 2],
    /// The near fade's start and end (metres of view depth), whether it
    /// fades by alpha (1) or darkens (0) ([`Display::fades_by_alpha`]);
    /// w unused. Appended last, so the members before keep their offsets.
    pub fade: [f32; 4],
}

impl FrameUniforms {
    /// The block for `scene` on a `grid_width`×`grid_height` grid; `clip`
    /// maps the eyes' Vulkan clip space to the backend's (identity for Vulkan).
    pub fn new(scene: &FrameScene<'_>, clip: Mat4, grid_width: u32, grid_height: u32) -> Self {
        let stroke = &scene.marks.stroke[..scene.marks.stroke.len().min(MAX_STROKE_POINTS)];
        let cursor = scene.marks.cursor.unwrap_or(Vec2::ZERO);
        FrameUniforms {
            view_projection: scene
                .views
                .map(|eye| (clip * eye.projection * eye.view).to_cols_array()),
            model: scene.model.to_cols_array(),
            light_dir: scene.light_dir.extend(0.0).to_array(),
            palette_color: scene.palette.stops.map(|stop| {
                let [r, g, b] = stop.srgb.map(srgb_to_linear);
                [r, g, b, stop.from]
            }),
            palette_clings: scene
                .palette
                .stops
                .map(|stop| [stop.clings[0], stop.clings[1], 0.0, 0.0]),
            palette_cliff: {
                let [r, g, b] = scene.palette.cliff_srgb.map(srgb_to_linear);
                [r, g, b, scene.palette.half_blend]
            },
            contours: [
                scene.palette.count as f32,
                if scene.contours {
                    CONTOUR_INTERVAL
                } else {
                    0.0
                },
                BOLD_EVERY,
                0.0,
            ],
            grid: [grid_width, grid_height, 0, 0],
            surface: [
                scene.base_bottom,
                scene.sea_level.unwrap_or(0.0),
                scene.time_s,
                if scene.sea_level.is_some() { 1.0 } else { 0.0 },
            ],
            look: {
                let [down, up, floor] = scene.display.lighting();
                [down, up, floor, 0.0]
            },
            marks: [
                stroke.len() as f32,
                if scene.marks.cursor.is_some() {
                    1.0
                } else {
                    0.0
                },
                cursor.x,
                cursor.y,
            ],
            stroke: std::array::from_fn(|pair| {
                let point = |index: usize| stroke.get(index).copied().unwrap_or(Vec2::ZERO);
                let (first, second) = (point(2 * pair), point(2 * pair + 1));
                [first.x, first.y, second.x, second.y]
            }),
            fade: [
                scene.near_fade.start_m,
                scene.near_fade.end_m,
                if scene.display.fades_by_alpha() {
                    1.0
                } else {
                    0.0
                },
                0.0,
            ],
        }
    }
}
