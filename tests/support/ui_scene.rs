//! The controls layer's test scene, one definition for every backend: a
//! smooth hill, a blue plate with a white label, a yellow ring over the
//! land, a label in empty space, and a label sunk inside the land (hidden by
//! depth). tests/render.rs draws it with Vulkan; tests/hlsl-interface draws
//! it with Direct3D 11 under Wine (it includes this file by path), and
//! tests/windows_wine.rs compares the two.
use glam::{Mat3, Mat4, Quat, Vec3};
use holoterrain::render::camera::{perspective_from_fov, view_from_pose};
use holoterrain::render::palette::TEMPERATE;
use holoterrain::render::{
    Display, EyeView, FrameScene, NearFade, SurfaceMarks, UiFill, UiLabel, UiLayer, UiQuad, UiRect,
};

/// Eye image size: large enough that the text has pixels to be read by.
pub const UI_EYE_WIDTH: u32 = 480;
pub const UI_EYE_HEIGHT: u32 = 360;
/// Heightmap size.
pub const UI_GRID: u32 = 33;

/// The plate, a solid quad in front of the land (linear colour, opaque),
/// leaning back to face the head as a menu does.
pub const PLATE: UiRect = UiRect {
    centre: Vec3::new(-0.08, 0.14, 0.22),
    right: Vec3::new(0.07, 0.0, 0.0),
    up: Vec3::new(0.0, 0.03 * 0.794, -0.03 * 0.607),
};
pub const PLATE_COLOR: [f32; 4] = [0.05, 0.2, 0.6, 1.0];
/// The ring, over the land.
pub const RING: UiRect = UiRect {
    centre: Vec3::new(0.1, 0.12, 0.1),
    right: Vec3::new(0.03, 0.0, 0.0),
    up: Vec3::new(0.0, 0.03, 0.0),
};
pub const RING_COLOR: [f32; 4] = [1.0, 0.8, 0.0, 1.0];
/// A label on nothing, above the land (the background behind it is
/// clear), facing the head.
pub const FREE_LABEL: UiRect = UiRect {
    centre: Vec3::new(0.0, 0.3, 0.3),
    right: Vec3::new(0.08, 0.0, 0.0),
    up: Vec3::new(0.0, 0.015 * 0.933, -0.015 * 0.359),
};
/// A label inside the solid block, under the land's lowest point (0) and
/// above the base's underside (-3 cm): every eye sees land in front of it.
pub const SUNK_LABEL: UiRect = UiRect {
    centre: Vec3::new(0.0, -0.015, 0.0),
    right: Vec3::new(0.1, 0.0, 0.0),
    up: Vec3::new(0.0, 0.01, 0.0),
};

/// A smooth hill, heights 0 to 1 (terrain units).
pub fn ui_heights() -> Vec<f32> {
    let n = UI_GRID as usize;
    (0..n * n)
        .map(|i| {
            let (x, z) = (
                (i % n) as f32 / (n - 1) as f32 - 0.5,
                (i / n) as f32 / (n - 1) as f32 - 0.5,
            );
            (1.0 - 4.0 * (x * x + z * z)).max(0.0)
        })
        .collect()
}

/// The quads: the plate, then the ring.
pub fn ui_quads() -> Vec<UiQuad> {
    vec![
        UiQuad {
            rect: PLATE,
            color: PLATE_COLOR,
            fill: UiFill::Solid,
        },
        UiQuad {
            rect: RING,
            color: RING_COLOR,
            fill: UiFill::Ring,
        },
    ]
}

/// A white label on `rect`.
pub fn label(rect: UiRect, text: &str) -> UiLabel {
    UiLabel {
        rect,
        text: text.into(),
        color: [1.0, 1.0, 1.0, 1.0],
    }
}

/// The labels: on the plate (a little inside it), in empty space, and sunk.
pub fn ui_labels() -> Vec<UiLabel> {
    let on_plate = UiRect {
        right: PLATE.right * 0.85,
        up: PLATE.up * 0.7,
        ..PLATE
    };
    vec![
        label(on_plate, "New terrain"),
        label(FREE_LABEL, "Landscapes 123"),
        label(SUNK_LABEL, "Hidden"),
    ]
}

/// Where each eye sits: 0.69 m from the hologram, 0.4 m above it, looking
/// at its centre, eyes 63 mm apart.
pub fn ui_eye_views() -> [EyeView; 2] {
    let head = Vec3::new(0.0, 0.4, 0.56);
    let target = Vec3::new(0.0, 0.02, 0.0);
    let backward = (head - target).normalize();
    let right = Vec3::Y.cross(backward).normalize();
    let orientation = Quat::from_mat3(&Mat3::from_cols(right, backward.cross(right), backward));
    let offsets = [-0.0315, 0.0315];
    std::array::from_fn(|eye| EyeView {
        view: view_from_pose(
            head + orientation * Vec3::new(offsets[eye], 0.0, 0.0),
            orientation,
        ),
        projection: perspective_from_fov(-0.6, 0.6, 0.45, -0.45, 0.05, 20.0),
    })
}

/// The scene with `ui` over a 0.5 m hologram with 0.1 m of relief.
pub fn ui_scene<'a>(heights: &'a [f32], ui: UiLayer<'a>) -> FrameScene<'a> {
    FrameScene {
        model: Mat4::from_scale(Vec3::new(0.5, 0.1, 0.5)),
        views: ui_eye_views(),
        heights: Some(heights),
        light_dir: Vec3::new(-0.7, 0.6, -0.2),
        palette: TEMPERATE,
        contours: false,
        base_bottom: -0.3,
        sea_level: None,
        time_s: 0.0,
        display: Display::Additive,
        marks: SurfaceMarks::default(),
        ui,
        near_fade: NearFade::NONE,
    }
}

/// Where `point` shows in eye `eye` of `scene`, in pixels (x right, y down).
pub fn pixel_of(scene: &FrameScene<'_>, eye: usize, point: Vec3) -> (f32, f32) {
    let view = scene.views[eye];
    let ndc = (view.projection * view.view).project_point3(point);
    (
        (ndc.x + 1.0) / 2.0 * UI_EYE_WIDTH as f32,
        (ndc.y + 1.0) / 2.0 * UI_EYE_HEIGHT as f32,
    )
}

/// The pixel box (left, top, right, bottom) `rect` covers in eye `eye`.
pub fn pixel_box(scene: &FrameScene<'_>, eye: usize, rect: &UiRect) -> [f32; 4] {
    let corners = [
        rect.centre - rect.right - rect.up,
        rect.centre + rect.right - rect.up,
        rect.centre + rect.right + rect.up,
        rect.centre - rect.right + rect.up,
    ]
    .map(|corner| pixel_of(scene, eye, corner));
    let xs = corners.map(|(x, _)| x);
    let ys = corners.map(|(_, y)| y);
    [
        xs.into_iter().fold(f32::MAX, f32::min),
        ys.into_iter().fold(f32::MAX, f32::min),
        xs.into_iter().fold(f32::MIN, f32::max),
        ys.into_iter().fold(f32::MIN, f32::max),
    ]
}
