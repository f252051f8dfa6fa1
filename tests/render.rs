//! The Vulkan renderer on a real driver (Mesa lavapipe in CI): reference
//! images, stereo parallax, height streaming, format choice, error messages,
//! the controls layer (plates, rings, labels) over the land, a depth for
//! every pixel drawn, the fade near the eyes,
//! and shader sources that provably match the committed SPIR-V. Every GPU test
//! runs with the Khronos validation layer and allows no message at all,
//! teardown (leak checks) included.
mod support {
    pub mod ui_scene;
}

use std::path::{Path, PathBuf};
use std::process::Command;

use ash::vk;
use glam::{Mat3, Mat4, Quat, Vec3};
use holoterrain::render::camera::{perspective_from_fov, view_from_pose};
use holoterrain::render::palette::TEMPERATE;
use holoterrain::render::vulkan::{OffscreenRenderer, TargetFormats, VulkanError};
use holoterrain::render::{
    Display, EyeView, FrameScene, NearFade, OffscreenOptions, RenderError, StereoDepth,
    StereoImage, SurfaceMarks, UiFill, UiLayer, UiQuad, UiRect,
};
use support::ui_scene::{
    FREE_LABEL, PLATE, PLATE_COLOR, RING, RING_COLOR, SUNK_LABEL, UI_EYE_HEIGHT, UI_EYE_WIDTH,
    UI_GRID, label, pixel_box, pixel_of, ui_eye_views, ui_heights, ui_labels, ui_quads, ui_scene,
};

/// Eye image size of the reference renders.
const EYE_WIDTH: u32 = 160;
const EYE_HEIGHT: u32 = 120;
/// Heightmap size of the reference renders (under 65 536 vertices: 16-bit indices).
const GRID_WIDTH: u32 = 97;
const GRID_HEIGHT: u32 = 81;

/// A channel may differ by this much from the reference without counting as
/// a difference: covers rounding differences between lavapipe/LLVM versions
/// (sRGB encoding, interpolation) while any change of band colour, lighting
/// or geometry moves channels by far more.
const CHANNEL_TOLERANCE: u8 = 8;
/// At most this fraction of pixels may exceed `CHANNEL_TOLERANCE`: pixels
/// along silhouettes and band edges can flip when rasterisation rounds
/// differently, a shifted or recoloured terrain changes several percent.
const MAX_DIFFERING_FRACTION: f64 = 0.005;

/// Set to 1 to rewrite the reference images from the current output.
const BLESS_VAR: &str = "HOLOTERRAIN_BLESS";

/// Set in the child process of the missing-driver and missing-layer tests.
const CHILD_VAR: &str = "HOLOTERRAIN_RENDER_TEST_CHILD";

// ---------------------------------------------------------------- helpers --

/// SplitMix64: a tiny generator of its own, so the test terrain never
/// changes when the engine's generator does.
struct SplitMix(u64);

impl SplitMix {
    /// Uniform in [-1, 1).
    fn signed_unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// A fault-formation landscape on a dome, heights from 0 to 0.3 terrain units:
/// `FAULTS` soft-edged faults (random point and direction, one side up, the
/// other down, amplitude falling with each fault) defined on the continuous
/// square, so any grid size samples the same surface. Only +, −, ×, ÷ and
/// comparisons: the same bits on every platform.
fn fault_terrain(width: u32, height: u32, seed: u64) -> Vec<f32> {
    const FAULTS: usize = 150;
    let mut rng = SplitMix(seed);
    let faults: Vec<[f64; 4]> = (0..FAULTS)
        .map(|_| std::array::from_fn(|_| rng.signed_unit()))
        .collect();
    let mut heights = Vec::with_capacity((width * height) as usize);
    for row in 0..height {
        for col in 0..width {
            let x = col as f64 / (width - 1) as f64 * 2.0 - 1.0;
            let z = row as f64 / (height - 1) as f64 * 2.0 - 1.0;
            let dome = (1.0 - (x * x + z * z) * 0.7).max(0.0);
            let mut h = dome * 0.6;
            for (index, [px, pz, dx, dz]) in faults.iter().enumerate() {
                let amplitude = 0.1 * (1.0 - 0.8 * index as f64 / FAULTS as f64);
                let side = ((x - px) * dz - (z - pz) * dx) * 12.0;
                h += amplitude * side.clamp(-1.0, 1.0);
            }
            heights.push(h);
        }
    }
    let min = heights.iter().copied().fold(f64::INFINITY, f64::min);
    let max = heights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    heights
        .iter()
        // From 0 to 0.3 terrain units, as the built-in landscapes rise:
        // through every colour of the palette, snow on the highest peaks.
        .map(|h| ((h - min) / (max - min) * 0.3) as f32)
        .collect()
}

/// The seed of the reference landscape.
const SEED: u64 = 3;
/// Another landscape.
const OTHER_SEED: u64 = 4;

/// Where each eye sits: a head 0.69 m from the hologram's centre, 0.4 m above
/// it, eyes 0.063 m apart, looking at the centre.
fn eye_views() -> [EyeView; 2] {
    let head = Vec3::new(0.0, 0.4, 0.56);
    let target = Vec3::new(0.0, 0.02, 0.0);
    // The eye looks down its −Z axis, with +Y as close to world up as possible.
    let backward = (head - target).normalize();
    let right = Vec3::Y.cross(backward).normalize();
    let orientation = Quat::from_mat3(&Mat3::from_cols(right, backward.cross(right), backward));
    let half_ipd = 0.0315;
    // A slightly asymmetric field of view, as headsets report per eye.
    let fovs = [(-0.62, 0.56), (-0.56, 0.62)];
    let offsets = [-half_ipd, half_ipd];
    std::array::from_fn(|eye| {
        let position = head + orientation * Vec3::new(offsets[eye], 0.0, 0.0);
        let (left, right) = fovs[eye];
        EyeView {
            view: view_from_pose(position, orientation),
            projection: perspective_from_fov(left, right, 0.45, -0.45, 0.05, 20.0),
        }
    })
}

/// The hologram: 0.5 m square, 0.1 m of relief for 1 terrain unit.
fn model() -> Mat4 {
    Mat4::from_scale(Vec3::new(0.5, 0.1, 0.5))
}

fn scene(heights: Option<&[f32]>) -> FrameScene<'_> {
    FrameScene {
        model: model(),
        views: eye_views(),
        heights,
        light_dir: Vec3::new(-0.7, 0.6, -0.2),
        palette: TEMPERATE,
        contours: false,
        // 3 cm of base under the 0 to 10 cm of relief.
        base_bottom: -0.3,
        sea_level: None,
        time_s: 0.0,
        display: Display::Additive,
        marks: SurfaceMarks::default(),
        ui: UiLayer::default(),
        near_fade: NearFade::NONE,
    }
}

/// Routes the validation layer's messages (logged by the renderer) to the test output.
fn init_logging() {
    let _ = env_logger::builder().is_test(true).try_init();
}

fn options() -> OffscreenOptions {
    init_logging();
    OffscreenOptions {
        eye_width: EYE_WIDTH,
        eye_height: EYE_HEIGHT,
        grid_width: GRID_WIDTH,
        grid_height: GRID_HEIGHT,
        validation: true,
    }
}

/// Renders one frame of `heights` with a fresh renderer made from `options`,
/// and checks the validation layer stayed silent, teardown included.
fn render_once(options: OffscreenOptions, heights: &[f32]) -> StereoImage {
    render_once_into(options, TargetFormats::default(), heights)
}

/// As [`render_once`], into targets of `formats`.
fn render_once_into(
    options: OffscreenOptions,
    formats: TargetFormats,
    heights: &[f32],
) -> StereoImage {
    let mut renderer = OffscreenRenderer::with_formats(options, formats).unwrap();
    let counter = renderer.validation_counter().unwrap();
    renderer.render(&scene(Some(heights))).unwrap();
    let image = renderer.read_back().unwrap();
    drop(renderer);
    assert_eq!(counter.count(), 0, "validation messages (see the log)");
    image
}

/// Where the tests leave images to look at: in the target directory's
/// scratch folder, which is writable even where the source tree is not
/// (the clean-Debian check mounts it read-only).
fn output_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("render-test-output");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Both eyes side by side, left eye first.
fn side_by_side(image: &StereoImage) -> Vec<u8> {
    let row_bytes = image.width as usize * 4;
    let mut pixels = Vec::with_capacity(image.left.len() * 2);
    for (left, right) in image
        .left
        .chunks(row_bytes)
        .zip(image.right.chunks(row_bytes))
    {
        pixels.extend_from_slice(left);
        pixels.extend_from_slice(right);
    }
    pixels
}

fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(rgba)
        .unwrap();
}

fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// How many pixels differ by more than `CHANNEL_TOLERANCE` in some channel,
/// and a diff image (red where they do, grey elsewhere).
fn compare(actual: &[u8], expected: &[u8]) -> (usize, Vec<u8>) {
    let mut differing = 0;
    let mut diff = Vec::with_capacity(actual.len());
    for (a, e) in actual.chunks(4).zip(expected.chunks(4)) {
        let worst = a.iter().zip(e).map(|(a, e)| a.abs_diff(*e)).max().unwrap();
        if worst > CHANNEL_TOLERANCE {
            differing += 1;
            diff.extend_from_slice(&[255, 0, 0, 255]);
        } else {
            let grey = a[0] / 3 + a[1] / 3 + a[2] / 3;
            diff.extend_from_slice(&[grey / 2, grey / 2, grey / 2, 255]);
        }
    }
    (differing, diff)
}

/// Compares with `tests/data/render/<name>.png` (or rewrites it when
/// blessing); on failure writes the actual image and a diff under
/// target/tmp/render-test-output/.
fn assert_matches_reference(name: &str, image: &StereoImage) {
    let pixels = side_by_side(image);
    let (width, height) = (image.width * 2, image.height);
    let reference =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/render/{name}.png"));
    if std::env::var(BLESS_VAR).is_ok_and(|value| value == "1") {
        std::fs::create_dir_all(reference.parent().unwrap()).unwrap();
        write_png(&reference, width, height, &pixels);
        return;
    }
    assert!(
        reference.exists(),
        "{} is missing: run with {BLESS_VAR}=1 to create it",
        reference.display()
    );
    let (ref_width, ref_height, expected) = read_png(&reference);
    assert_eq!(
        (ref_width, ref_height),
        (width, height),
        "reference image size"
    );
    let (differing, diff) = compare(&pixels, &expected);
    let allowed = (MAX_DIFFERING_FRACTION * (width * height) as f64) as usize;
    if differing > allowed {
        let dir = output_dir();
        write_png(
            &dir.join(format!("{name}-actual.png")),
            width,
            height,
            &pixels,
        );
        write_png(&dir.join(format!("{name}-diff.png")), width, height, &diff);
        panic!(
            "{differing} pixels differ from {} by more than {CHANNEL_TOLERANCE} (allowed: {allowed}); \
             actual and diff images are in {}",
            reference.display(),
            dir.display()
        );
    }
}

/// Pixels the terrain covers (alpha 1; the clear colour has alpha 0).
fn covered(pixels: &[u8]) -> impl Iterator<Item = usize> + '_ {
    pixels
        .chunks(4)
        .enumerate()
        .filter(|(_, p)| p[3] == 255)
        .map(|(i, _)| i)
}

/// Mean column of the covered pixels.
fn horizontal_centroid(pixels: &[u8], width: u32) -> f64 {
    let columns: Vec<f64> = covered(pixels)
        .map(|i| (i % width as usize) as f64)
        .collect();
    assert!(!columns.is_empty(), "the terrain is not visible");
    columns.iter().sum::<f64>() / columns.len() as f64
}

/// Runs the test named `test` in a child process with `env` set, and returns
/// its combined output; the child does the real check.
fn run_child(test: &str, env: &[(&str, &str)]) -> String {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", test, "--nocapture", "--test-threads=1"]);
    command.env(CHILD_VAR, "1");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "child test failed:\n{text}");
    assert!(text.contains("1 passed"), "child test did not run:\n{text}");
    text
}

fn is_child() -> bool {
    std::env::var_os(CHILD_VAR).is_some()
}

// ------------------------------------------------------------------ tests --

#[test]
fn fixed_scene_matches_the_reference_image() {
    let image = render_once(options(), &fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED));
    assert_matches_reference("fault-terrain", &image);
}

#[test]
fn the_background_is_transparent_black() {
    let image = render_once(options(), &fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED));
    let background: Vec<_> = image.left.chunks(4).filter(|p| p[3] != 255).collect();
    assert!(!background.is_empty(), "the terrain fills the whole view");
    assert!(background.iter().all(|p| *p == [0, 0, 0, 0]));
    // Top-left corner: above the terrain's far edge.
    assert_eq!(&image.right[..4], &[0, 0, 0, 0]);
}

#[test]
fn the_eyes_differ_by_parallax() {
    let image = render_once(options(), &fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED));
    assert_ne!(image.left, image.right);
    // Seen from the left eye, the hologram sits further right in the image.
    let left = horizontal_centroid(&image.left, image.width);
    let right = horizontal_centroid(&image.right, image.width);
    assert!(
        left > right + 1.0,
        "left-eye centroid {left}, right-eye centroid {right}"
    );
}

#[test]
fn changing_the_heights_changes_the_image() {
    let first = render_once(options(), &fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED));
    let moved = render_once(
        options(),
        &fault_terrain(GRID_WIDTH, GRID_HEIGHT, OTHER_SEED),
    );
    let (differing, _) = compare(&side_by_side(&first), &side_by_side(&moved));
    let total = (first.width * first.height * 2) as usize;
    assert!(
        differing * 20 > total,
        "only {differing} of {total} pixels changed"
    );
}

#[test]
fn streamed_heights_match_a_fresh_renderer() {
    let first = fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED);
    let second = fault_terrain(GRID_WIDTH, GRID_HEIGHT, OTHER_SEED);
    let mut renderer = OffscreenRenderer::new(options()).unwrap();
    let counter = renderer.validation_counter().unwrap();
    renderer.render(&scene(Some(&first))).unwrap();
    renderer.render(&scene(Some(&second))).unwrap();
    let streamed = renderer.read_back().unwrap();
    drop(renderer);
    assert_eq!(counter.count(), 0, "validation messages (see the log)");
    assert_eq!(streamed, render_once(options(), &second));
}

#[test]
fn heights_persist_across_frames_without_new_ones() {
    let first = fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED);
    let second = fault_terrain(GRID_WIDTH, GRID_HEIGHT, OTHER_SEED);
    let mut renderer = OffscreenRenderer::new(options()).unwrap();
    let counter = renderer.validation_counter().unwrap();
    renderer.render(&scene(Some(&first))).unwrap();
    renderer.render(&scene(Some(&second))).unwrap();
    let expected = renderer.read_back().unwrap();
    // Go round the ring of frames in flight more than once.
    for _ in 0..3 {
        renderer.render(&scene(None)).unwrap();
    }
    let kept = renderer.read_back().unwrap();
    drop(renderer);
    assert_eq!(counter.count(), 0, "validation messages (see the log)");
    assert_eq!(kept, expected);
}

#[test]
fn bgra_unorm_and_d32_targets_give_the_same_picture() {
    let heights = fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED);
    let preferred = OffscreenRenderer::new(options()).unwrap();
    assert_eq!(preferred.color_format(), vk::Format::R8G8B8A8_SRGB);
    assert_eq!(preferred.depth_format(), vk::Format::D16_UNORM);
    drop(preferred);
    let forced = TargetFormats {
        color: Some(vk::Format::B8G8R8A8_UNORM),
        depth: Some(vk::Format::D32_SFLOAT),
    };
    let srgb = side_by_side(&render_once(options(), &heights));
    let unorm = side_by_side(&render_once_into(options(), forced, &heights));
    let (differing, _) = compare(&unorm, &srgb);
    let allowed = (MAX_DIFFERING_FRACTION * (srgb.len() / 4) as f64) as usize;
    assert!(
        differing <= allowed,
        "{differing} pixels differ (allowed {allowed})"
    );
}

#[test]
fn a_grid_with_32_bit_indices_draws_the_same_terrain() {
    // 300 × 257 samples: 77 100 vertices, past what 16-bit indices address.
    let large = OffscreenOptions {
        grid_width: 300,
        grid_height: 257,
        ..options()
    };
    let fine = render_once(large, &fault_terrain(300, 257, SEED));
    let coarse = render_once(options(), &fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED));
    let fine_coverage = covered(&fine.left).count() as f64;
    let coarse_coverage = covered(&coarse.left).count() as f64;
    assert!(
        (fine_coverage / coarse_coverage - 1.0).abs() < 0.02,
        "coverage {fine_coverage} vs {coarse_coverage}"
    );
    let shift = horizontal_centroid(&fine.left, fine.width)
        - horizontal_centroid(&coarse.left, coarse.width);
    assert!(shift.abs() < 0.5, "centroid moved by {shift} pixels");
}

#[test]
fn a_new_renderer_starts_flat() {
    let mut renderer = OffscreenRenderer::new(options()).unwrap();
    let counter = renderer.validation_counter().unwrap();
    renderer.render(&scene(None)).unwrap();
    let initial = renderer.read_back().unwrap();
    drop(renderer);
    assert_eq!(counter.count(), 0, "validation messages (see the log)");
    let flat = vec![0.0; (GRID_WIDTH * GRID_HEIGHT) as usize];
    assert_eq!(initial, render_once(options(), &flat));
    assert_ne!(
        initial,
        render_once(options(), &fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED))
    );
}

#[test]
fn reading_back_before_rendering_is_an_error() {
    let mut renderer = OffscreenRenderer::new(options()).unwrap();
    assert!(matches!(
        renderer.read_back(),
        Err(RenderError::NothingRendered)
    ));
}

#[test]
fn heights_of_the_wrong_size_are_rejected() {
    let mut renderer = OffscreenRenderer::new(options()).unwrap();
    let counter = renderer.validation_counter().unwrap();
    let too_few = vec![0.0; 10];
    let error = renderer.render(&scene(Some(&too_few))).unwrap_err();
    assert!(matches!(
        error,
        RenderError::HeightCountMismatch { expected, actual: 10 } if expected == (GRID_WIDTH * GRID_HEIGHT) as usize
    ));
    drop(renderer);
    assert_eq!(counter.count(), 0, "validation messages (see the log)");
}

#[test]
fn validation_messages_are_none_without_validation() {
    let renderer = OffscreenRenderer::new(OffscreenOptions {
        validation: false,
        ..options()
    })
    .unwrap();
    assert_eq!(renderer.validation_messages(), None);
}

#[test]
fn missing_vulkan_driver_names_the_package_to_install() {
    if is_child() {
        let error = OffscreenRenderer::new(options())
            .err()
            .expect("no driver, yet a renderer");
        assert!(
            matches!(error.backend_error(), Some(VulkanError::NoDriver { .. })),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("apt-get install mesa-vulkan-drivers"),
            "{message}"
        );
        assert!(!message.contains('\n'));
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    let no_icd = empty.path().join("none.json");
    let no_icd = no_icd.to_str().unwrap();
    run_child(
        "missing_vulkan_driver_names_the_package_to_install",
        &[("VK_ICD_FILENAMES", no_icd), ("VK_DRIVER_FILES", no_icd)],
    );
}

#[test]
fn missing_validation_layer_names_the_package_to_install() {
    if is_child() {
        let error = OffscreenRenderer::new(options())
            .err()
            .expect("no layer, yet a renderer");
        assert!(
            matches!(
                error.backend_error(),
                Some(VulkanError::ValidationLayerMissing)
            ),
            "{error}"
        );
        assert!(error.to_string().contains("vulkan-validationlayers"));
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    run_child(
        "missing_validation_layer_names_the_package_to_install",
        &[("VK_LAYER_PATH", empty.path().to_str().unwrap())],
    );
}

/// The shader stages committed as SPIR-V.
const SHADERS: [&str; 4] = ["terrain.vert", "terrain.frag", "ui.vert", "ui.frag"];

/// Whether `tool` runs; in CI a missing tool is a failure, not a skip.
fn tool_available(tool: &str) -> bool {
    let found = Command::new(tool).arg("--version").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} is missing in CI (Debian/Ubuntu: glslang-tools, spirv-tools)"
        );
        eprintln!("skipping: {tool} is not installed");
    }
    found
}

#[test]
fn committed_spirv_matches_the_shader_sources() {
    if !tool_available("glslangValidator") {
        return;
    }
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let fresh_dir = tempfile::tempdir().unwrap();
    for shader in SHADERS {
        let fresh = fresh_dir.path().join(format!("{shader}.spv"));
        let status = Command::new("glslangValidator")
            .args(["-V", "--target-env", "vulkan1.1", "-o"])
            .arg(&fresh)
            .arg(shaders.join(shader))
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{shader}: {}",
            String::from_utf8_lossy(&status.stdout)
        );
        let committed = std::fs::read(shaders.join(format!("{shader}.spv"))).unwrap();
        assert!(
            committed == std::fs::read(&fresh).unwrap(),
            "shaders/{shader}.spv is stale: run scripts/compile-shaders.sh"
        );
    }
}

#[test]
fn committed_spirv_passes_spirv_val() {
    if !tool_available("spirv-val") {
        return;
    }
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for shader in SHADERS {
        let output = Command::new("spirv-val")
            .args(["--target-env", "vulkan1.1"])
            .arg(shaders.join(format!("{shader}.spv")))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{shader}.spv: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

// ------------------------------------------------------- the diorama's look --

/// Renders `scene` once with a fresh renderer made from `options`, checking
/// the validation layer stayed silent.
fn render_scene(options: OffscreenOptions, scene: &FrameScene<'_>) -> StereoImage {
    let mut renderer = OffscreenRenderer::new(options).unwrap();
    let counter = renderer.validation_counter().unwrap();
    renderer.render(scene).unwrap();
    let image = renderer.read_back().unwrap();
    drop(renderer);
    assert_eq!(counter.count(), 0, "validation messages (see the log)");
    image
}

/// A pixel's brightness, the mean of its colour channels.
fn brightness(pixel: &[u8]) -> f64 {
    pixel[..3].iter().map(|&c| f64::from(c)).sum::<f64>() / 3.0
}

/// Where the land at (u, v) shows in the left eye of `scene`, as (column,
/// row), when in view.
fn land_pixel(
    scene: &FrameScene<'_>,
    heights: &[f32],
    u: f32,
    v: f32,
    size: (u32, u32),
) -> Option<(u32, u32)> {
    let col = (u * (GRID_WIDTH - 1) as f32).round() as usize;
    let row = (v * (GRID_HEIGHT - 1) as f32).round() as usize;
    let height = heights[row * GRID_WIDTH as usize + col];
    let world = scene
        .model
        .transform_point3(Vec3::new(u - 0.5, height, v - 0.5));
    let eye = scene.views[0];
    let ndc = (eye.projection * eye.view).project_point3(world);
    let x = (ndc.x + 1.0) / 2.0 * size.0 as f32;
    let y = (ndc.y + 1.0) / 2.0 * size.1 as f32;
    (x >= 0.0 && y >= 0.0 && x < size.0 as f32 && y < size.1 as f32).then_some((x as u32, y as u32))
}

#[test]
fn a_stroke_and_a_cursor_stand_out_on_the_land_along_them() {
    let heights = fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED);
    // Large enough that the 1 cm ring has a middle of its own.
    let options = OffscreenOptions {
        eye_width: 640,
        eye_height: 480,
        ..options()
    };
    let stroke: Vec<glam::Vec2> = (0..=20)
        .map(|i| glam::Vec2::new(0.2 + 0.03 * i as f32, 0.55 + 0.1 * (i as f32 * 0.4).sin()))
        .collect();
    let cursor = glam::Vec2::new(0.5, 0.3);
    let plain = scene(Some(&heights));
    let marked = FrameScene {
        marks: SurfaceMarks {
            stroke: &stroke,
            cursor: Some(cursor),
        },
        ..plain
    };
    let without = render_scene(options, &plain);
    let with = render_scene(options, &marked);
    // For a look when it fails.
    write_png(
        &output_dir().join("marks.png"),
        with.width * 2,
        with.height,
        &side_by_side(&with),
    );
    let size = (options.eye_width, options.eye_height);
    let pixel = |image: &StereoImage, (x, y): (u32, u32)| {
        let at = ((y * image.width + x) * 4) as usize;
        brightness(&image.left[at..at + 4])
    };
    // Halfway between stroke points, so the line (not only its joints) is drawn.
    let along: Vec<(u32, u32)> = stroke
        .windows(2)
        .filter_map(|pair| {
            let middle = (pair[0] + pair[1]) / 2.0;
            land_pixel(&plain, &heights, middle.x, middle.y, size)
        })
        .collect();
    assert!(along.len() >= 15, "the stroke is out of view: {along:?}");
    // Brighter than the land, or (over snow, as bright as cyan can be) a
    // clearly other colour.
    let rgb = |image: &StereoImage, (x, y): (u32, u32)| {
        let at = ((y * image.width + x) * 4) as usize;
        [0, 1, 2].map(|channel| f64::from(image.left[at + channel]))
    };
    let stands_out = |at: (u32, u32)| {
        let (a, b) = (rgb(&with, at), rgb(&without, at));
        let distance = (0..3).map(|c| (a[c] - b[c]).powi(2)).sum::<f64>().sqrt();
        pixel(&with, at) > pixel(&without, at) + 20.0 || distance > 60.0
    };
    let seen = along.iter().filter(|&&at| stands_out(at)).count();
    assert!(
        seen * 10 >= along.len() * 8,
        "only {seen} of {} points along the stroke stand out",
        along.len()
    );
    // The ring: bright on its rim, either side of the cursor.
    for side in [-0.01, 0.01] {
        let rim = land_pixel(&plain, &heights, cursor.x + side, cursor.y, size).unwrap();
        assert!(
            pixel(&with, rim) > pixel(&without, rim) + 20.0,
            "the ring's rim at {side}"
        );
    }
    // Away from both the land is as it was.
    let away = land_pixel(&plain, &heights, 0.85, 0.15, size).unwrap();
    assert_eq!(pixel(&with, away), pixel(&without, away));
}

/// Whether a pixel reads as blue: blue well above red, and above green.
fn is_blue(pixel: &[u8]) -> bool {
    pixel[3] > 0 && u16::from(pixel[2]) > u16::from(pixel[0]) + 30 && pixel[2] > pixel[1]
}

#[test]
fn water_is_blue_over_low_land_which_shows_through_and_ripples_in_time() {
    let heights = fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED);
    let dry = scene(Some(&heights));
    let wet = FrameScene {
        sea_level: Some(0.4),
        ..dry
    };
    let dry_image = render_scene(options(), &dry);
    let wet_image = render_scene(options(), &wet);
    // For a look when it fails.
    write_png(
        &output_dir().join("water.png"),
        wet_image.width * 2,
        wet_image.height,
        &side_by_side(&wet_image),
    );
    let blue = |image: &StereoImage| image.left.chunks(4).filter(|p| is_blue(p)).count();
    let covered = covered(&wet_image.left).count();
    assert!(blue(&dry_image) * 50 < covered, "dry land is not blue");
    assert!(
        blue(&wet_image) * 10 > covered,
        "only {} of {covered} pixels are blue under a sea",
        blue(&wet_image)
    );
    // The land under the water shows: the blue pixels are not all one colour,
    // and they follow the land they cover.
    let under: Vec<(&[u8], &[u8])> = wet_image
        .left
        .chunks(4)
        .zip(dry_image.left.chunks(4))
        .filter(|(wet, dry)| is_blue(wet) && dry[3] == 255)
        .collect();
    let mean_of = |values: Vec<f64>| values.iter().sum::<f64>() / values.len() as f64;
    let wet_green: Vec<f64> = under.iter().map(|(wet, _)| f64::from(wet[1])).collect();
    let dry_green: Vec<f64> = under.iter().map(|(_, dry)| f64::from(dry[1])).collect();
    let (wet_mean, dry_mean) = (mean_of(wet_green.clone()), mean_of(dry_green.clone()));
    let covariance = mean_of(
        wet_green
            .iter()
            .zip(&dry_green)
            .map(|(w, d)| (w - wet_mean) * (d - dry_mean))
            .collect(),
    );
    assert!(
        covariance > 20.0,
        "the land does not show through the water: {covariance}"
    );
    // Water over land leaves it opaque.
    assert!(under.iter().all(|(wet, _)| wet[3] == 255));
    // The ripple moves with time, and the same time draws the same water.
    let later = FrameScene { time_s: 2.0, ..wet };
    let later_image = render_scene(options(), &later);
    assert_ne!(later_image.left, wet_image.left);
    assert_eq!(render_scene(options(), &wet), wet_image);
}

#[test]
fn an_additive_display_keeps_shaded_slopes_visible_and_an_opaque_one_darker() {
    let heights = fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED);
    let additive = render_scene(options(), &scene(Some(&heights)));
    let opaque = render_scene(
        options(),
        &FrameScene {
            display: Display::Opaque,
            ..scene(Some(&heights))
        },
    );
    let darkest = |image: &StereoImage| {
        let mut values: Vec<f64> = image
            .left
            .chunks(4)
            .filter(|p| p[3] == 255)
            .map(brightness)
            .collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 50]
    };
    let (additive_dark, opaque_dark) = (darkest(&additive), darkest(&opaque));
    // sRGB 55 of 255 is about 4% of full light: dim but seen through a visor.
    assert!(
        additive_dark > 55.0,
        "additive: the darkest 2% are at {additive_dark}"
    );
    assert!(
        opaque_dark < additive_dark - 15.0,
        "opaque {opaque_dark}, additive {additive_dark}"
    );
}

#[test]
fn seen_from_below_the_underside_is_closed_and_the_land_culled() {
    let heights = fault_terrain(GRID_WIDTH, GRID_HEIGHT, SEED);
    // Both eyes under the table, looking up at the diorama's middle.
    let target = Vec3::new(0.0, -0.05, 0.0);
    let views: [EyeView; 2] = std::array::from_fn(|eye| {
        let position = Vec3::new(-0.03 + 0.06 * eye as f32, -0.6, 0.3);
        let forward = (target - position).normalize();
        let right = forward.cross(Vec3::Y).normalize();
        let orientation = Quat::from_mat3(&Mat3::from_cols(right, right.cross(forward), -forward));
        EyeView {
            view: view_from_pose(position, orientation),
            projection: perspective_from_fov(-0.6, 0.6, 0.45, -0.45, 0.05, 20.0),
        }
    });
    let image = render_scene(
        options(),
        &FrameScene {
            views,
            ..scene(Some(&heights))
        },
    );
    let shown: Vec<&[u8]> = image.left.chunks(4).filter(|p| p[3] == 255).collect();
    assert!(
        shown.len() > 1000,
        "the underside is not drawn: {}",
        shown.len()
    );
    // One flat colour (the underside's), not the land's bands seen through it.
    let first = shown[0];
    let same = shown
        .iter()
        .filter(|p| p.iter().zip(first).all(|(a, b)| a.abs_diff(*b) <= 3))
        .count();
    assert!(
        same * 10 >= shown.len() * 9,
        "{same} of {} pixels are the underside's",
        shown.len()
    );
}

// ------------------------------------------------------ the controls layer --

/// A linear colour channel as the sRGB target stores it.
fn srgb_byte(linear: f32) -> u8 {
    let encoded = if linear <= 0.003_130_8 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    };
    (encoded * 255.0).round() as u8
}

/// The left eye's RGBA pixel at `at` (pixels, x right, y down).
fn left_pixel(image: &StereoImage, (x, y): (f32, f32)) -> [u8; 4] {
    let index = (y as usize * image.width as usize + x as usize) * 4;
    image.left[index..index + 4].try_into().unwrap()
}

/// Whether two pixels' channels all lie within `tolerance`.
fn close(a: [u8; 4], b: [u8; 4], tolerance: u8) -> bool {
    a.iter().zip(&b).all(|(a, b)| a.abs_diff(*b) <= tolerance)
}

/// Pixels of the left eye that differ between two images, as (x, y).
fn changed_pixels(first: &StereoImage, second: &StereoImage) -> Vec<(usize, usize)> {
    first
        .left
        .chunks(4)
        .zip(second.left.chunks(4))
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, _)| (i % first.width as usize, i / first.width as usize))
        .collect()
}

/// Renders each of `layers` over the controls test scene with one renderer,
/// checking the validation layer stayed silent.
fn render_controls(layers: &[UiLayer<'_>]) -> Vec<StereoImage> {
    let heights = ui_heights();
    init_logging();
    let mut renderer = OffscreenRenderer::new(OffscreenOptions {
        eye_width: UI_EYE_WIDTH,
        eye_height: UI_EYE_HEIGHT,
        grid_width: UI_GRID,
        grid_height: UI_GRID,
        validation: true,
    })
    .unwrap();
    let counter = renderer.validation_counter().unwrap();
    let images = layers
        .iter()
        .map(|layer| {
            renderer.render(&ui_scene(&heights, *layer)).unwrap();
            renderer.read_back().unwrap()
        })
        .collect();
    drop(renderer);
    assert_eq!(counter.count(), 0, "validation messages (see the log)");
    images
}

#[test]
fn the_controls_layer_draws_a_plate_a_ring_and_labels_over_the_land() {
    let (quads, labels) = (ui_quads(), ui_labels());
    let layer = UiLayer {
        quads: &quads,
        labels: &labels,
    };
    let [without, with]: [StereoImage; 2] = render_controls(&[UiLayer::default(), layer])
        .try_into()
        .unwrap();
    // A picture to look at, as an additive display shows it (over black):
    // target/tmp/render-test-output/controls.png.
    let mut opaque = side_by_side(&with);
    opaque.chunks_mut(4).for_each(|pixel| pixel[3] = 255);
    write_png(
        &output_dir().join("controls.png"),
        with.width * 2,
        with.height,
        &opaque,
    );
    let heights = ui_heights();
    let scene = ui_scene(&heights, layer);

    // The plate's colour beside its label (which covers the middle 85 %).
    let plate_edge = pixel_of(&scene, 0, PLATE.centre - PLATE.right * 0.93);
    let plate = PLATE_COLOR.map(srgb_byte);
    let seen = left_pixel(&with, plate_edge);
    assert!(
        close(seen, [plate[0], plate[1], plate[2], 255], 3),
        "plate pixel {seen:?}, expected {plate:?}"
    );

    // The ring: its colour on the ring, the land through its middle.
    let on_ring = pixel_of(&scene, 0, RING.centre + RING.right * (5.0 / 6.0));
    let ring = RING_COLOR.map(srgb_byte);
    let seen = left_pixel(&with, on_ring);
    assert!(
        close(seen, [ring[0], ring[1], ring[2], 255], 8),
        "ring pixel {seen:?}, expected {ring:?}"
    );
    let middle = pixel_of(&scene, 0, RING.centre);
    let land = left_pixel(&without, middle);
    assert_eq!(land[3], 255, "the ring's middle is over the land");
    assert!(
        close(left_pixel(&with, middle), land, 2),
        "the ring's middle shows {:?}, the land is {land:?}",
        left_pixel(&with, middle)
    );

    // Text is white on the plate: some of its pixels are near white.
    let [left, top, right, bottom] = pixel_box(&scene, 0, &labels[0].rect);
    let white = (top as usize..=bottom as usize)
        .flat_map(|y| (left as usize..=right as usize).map(move |x| (x as f32, y as f32)))
        .filter(|&at| left_pixel(&with, at)[..3].iter().all(|&c| c > 230))
        .count();
    assert!(white > 40, "{white} white text pixels on the plate");
}

#[test]
fn a_labels_text_stays_inside_its_rectangle() {
    let labels = [label(FREE_LABEL, "Landscapes 123")];
    let layer = UiLayer {
        quads: &[],
        labels: &labels,
    };
    let [without, with]: [StereoImage; 2] = render_controls(&[UiLayer::default(), layer])
        .try_into()
        .unwrap();
    let heights = ui_heights();
    let [left, top, right, bottom] = pixel_box(&ui_scene(&heights, layer), 0, &FREE_LABEL);
    let changed = changed_pixels(&without, &with);
    // Text enough to read: a line of 14 characters some 15 pixels tall.
    assert!(changed.len() > 300, "{} text pixels", changed.len());
    let outside: Vec<_> = changed
        .iter()
        .filter(|&&(x, y)| {
            let (x, y) = (x as f32 + 0.5, y as f32 + 0.5);
            x < left - 1.0 || x > right + 1.0 || y < top - 1.0 || y > bottom + 1.0
        })
        .collect();
    assert!(
        outside.is_empty(),
        "{} text pixels outside the label's box {:?}, e.g. {:?}",
        outside.len(),
        [left, top, right, bottom],
        &outside[..outside.len().min(5)]
    );
    // Wider than tall, as a line of text is, and using most of the width.
    let xs = changed.iter().map(|&(x, _)| x as f32);
    let span = xs.clone().fold(f32::MIN, f32::max) - xs.fold(f32::MAX, f32::min);
    assert!(
        span > 0.8 * (right - left),
        "text spans {span} of {}",
        right - left
    );
}

#[test]
fn a_label_behind_the_land_is_hidden_and_in_front_shows() {
    let sunk = [label(SUNK_LABEL, "Hidden")];
    let raised_rect = UiRect {
        centre: SUNK_LABEL.centre + glam::Vec3::new(0.0, 0.2, 0.3),
        ..SUNK_LABEL
    };
    let raised = [label(raised_rect, "Hidden")];
    let layers = [
        UiLayer::default(),
        UiLayer {
            quads: &[],
            labels: &sunk,
        },
        UiLayer {
            quads: &[],
            labels: &raised,
        },
    ];
    let [without, behind, in_front]: [StereoImage; 3] =
        render_controls(&layers).try_into().unwrap();
    assert_eq!(changed_pixels(&without, &behind).len(), 0);
    assert_eq!(without.right, behind.right);
    assert!(changed_pixels(&without, &in_front).len() > 100);
}

#[test]
fn a_quad_drawn_later_covers_an_earlier_one_in_both_eyes() {
    // A panel's dark backplate, big and leaning back, then plates on it
    // 2 mm nearer the eyes, as the landscapes panel draws them.
    let up = Vec3::new(0.0, 0.794, -0.607);
    let backplate = UiRect {
        centre: Vec3::new(-0.33, 0.2, 0.3),
        right: Vec3::new(0.15, 0.0, 0.0),
        up: up * 0.11,
    };
    let normal = backplate.right.cross(backplate.up).normalize();
    let plates: Vec<UiRect> = (0..4)
        .flat_map(|row| (0..4).map(move |column| (row, column)))
        .map(|(row, column)| UiRect {
            centre: backplate.centre
                + Vec3::X * (-0.11 + 0.073 * column as f32)
                + up * (0.08 - 0.04 * row as f32)
                + normal * 0.002,
            right: Vec3::X * 0.035,
            up: up * 0.017,
        })
        .collect();
    let mut quads = vec![UiQuad {
        rect: backplate,
        color: [1.0, 0.0, 0.0, 0.75],
        fill: UiFill::Solid,
    }];
    quads.extend(plates.iter().map(|&rect| UiQuad {
        rect,
        color: [0.0, 0.0, 1.0, 1.0],
        fill: UiFill::Solid,
    }));
    let layer = UiLayer {
        quads: &quads,
        labels: &[],
    };
    // Frames before it with other controls, so each frame slot held others.
    let fewer = UiLayer {
        quads: &quads[..3],
        labels: &[],
    };
    let [_, _, _, image]: [StereoImage; 4] = render_controls(&[fewer, layer, fewer, layer])
        .try_into()
        .unwrap();
    let heights = ui_heights();
    let scene = ui_scene(&heights, layer);
    for (eye, pixels) in [(0, &image.left), (1, &image.right)] {
        for plate in &plates {
            let (x, y) = pixel_of(&scene, eye, plate.centre);
            if !(0.0..UI_EYE_WIDTH as f32).contains(&x) || !(0.0..UI_EYE_HEIGHT as f32).contains(&y)
            {
                continue;
            }
            let at = ((y as usize) * image.width as usize + x as usize) * 4;
            let seen = &pixels[at..at + 4];
            assert!(
                seen[2] > 200 && seen[0] < 40,
                "eye {eye}: the plate at {:?} shows {seen:?}, not blue",
                plate.centre
            );
        }
    }
}

#[test]
fn a_quad_across_one_eyes_edge_shows_in_each_eye_where_that_eye_sees_it() {
    // 0.4 m ahead of the head, from just inside the left eye's left edge to
    // the middle: whole in the left eye's view, across the right eye's left
    // edge (the right eye sees 63 mm further right), and past the top and
    // bottom of both. Lavapipe drew the GPU's
    // clipped parts of such a quad into the wrong eye; the layout clips it
    // per eye instead (render::ui::layout_ui).
    let views = ui_eye_views();
    let head_from_view = views[0].view.inverse();
    let (right, up, back) = (
        head_from_view.x_axis.truncate(),
        head_from_view.y_axis.truncate(),
        head_from_view.z_axis.truncate(),
    );
    let left_eye = head_from_view.w_axis.truncate();
    let head = left_eye + right * 0.0315;
    let half_view = 0.4 * 0.6f32.tan();
    let (from, to) = (-0.0315 - half_view + 0.01, -0.05);
    let quad = UiQuad {
        rect: UiRect {
            centre: head - back * 0.4 + right * ((from + to) / 2.0),
            right: right * ((to - from) / 2.0),
            // Past the top and bottom of both views as well.
            up: up * 0.5,
        },
        color: [1.0, 0.0, 1.0, 1.0],
        fill: UiFill::Solid,
    };
    let quads = [quad];
    let layer = UiLayer {
        quads: &quads,
        labels: &[],
    };
    let [image]: [StereoImage; 1] = render_controls(&[layer]).try_into().unwrap();
    let heights = ui_heights();
    let scene = ui_scene(&heights, layer);
    let magenta = [srgb_byte(1.0), 0, srgb_byte(1.0), 255];
    let pixel = |pixels: &[u8], (x, y): (f32, f32)| -> [u8; 4] {
        let index = (y as usize * image.width as usize + x as usize) * 4;
        pixels[index..index + 4].try_into().unwrap()
    };
    // Near the quad's right end and half way along what each eye sees of it.
    let inside_right = quad.rect.centre + quad.rect.right * 0.9;
    let right_eye_part = quad.rect.centre - quad.rect.right * 0.2;
    for (eye, pixels, point) in [
        (0, &image.left, inside_right),
        (0, &image.left, right_eye_part),
        (1, &image.right, inside_right),
        (1, &image.right, right_eye_part),
    ] {
        let at = pixel_of(&scene, eye, point);
        let seen = pixel(pixels, at);
        assert!(
            close(seen, magenta, 3),
            "eye {eye} at {at:?}: {seen:?}, not the quad's magenta"
        );
    }
    // Left of the quad's left end in the left eye: the land or nothing,
    // never the right eye's part of it.
    let (x, y) = pixel_of(&scene, 0, quad.rect.centre - quad.rect.right);
    if x >= 3.0 {
        let seen = pixel(&image.left, (x - 2.0, y));
        assert!(!close(seen, magenta, 40), "left of its end: {seen:?}");
    }
}

// ----------------------------------------------- depth and the near fade --

/// Land with water, the controls test scene's plate, ring and labels, and a
/// ray (a thin see-through strip) drawn once, with its colour and depth
/// read back, checking the validation layer stayed silent.
fn render_with_depth(scene: &FrameScene<'_>) -> (StereoImage, StereoDepth) {
    init_logging();
    let mut renderer = OffscreenRenderer::new(OffscreenOptions {
        eye_width: UI_EYE_WIDTH,
        eye_height: UI_EYE_HEIGHT,
        grid_width: UI_GRID,
        grid_height: UI_GRID,
        validation: true,
    })
    .unwrap();
    let counter = renderer.validation_counter().unwrap();
    renderer.render(scene).unwrap();
    let image = renderer.read_back().unwrap();
    let depth = renderer.read_back_depth().unwrap();
    drop(renderer);
    assert_eq!(counter.count(), 0, "validation messages (see the log)");
    (image, depth)
}

#[test]
fn every_pixel_drawn_has_a_depth_and_no_other_does() {
    let heights = ui_heights();
    let mut quads = ui_quads();
    // A ray, as the controls draw one (a strip across the ray and the
    // world's up, at opacity 0.6), 8 mm wide so that it covers whole
    // pixels, across the view over the plate and the land.
    let (from, to) = (Vec3::new(-0.3, 0.2, 0.15), Vec3::new(0.3, 0.1, 0.15));
    quads.push(UiQuad {
        rect: UiRect {
            centre: (from + to) / 2.0,
            right: (to - from).cross(Vec3::Y).normalize() * 0.004,
            up: (to - from) / 2.0,
        },
        color: [0.8, 0.9, 1.0, 0.6],
        fill: UiFill::Solid,
    });
    let labels = ui_labels();
    let scene = FrameScene {
        // Over the hill's foot, under its top.
        sea_level: Some(0.3),
        ..ui_scene(
            &heights,
            UiLayer {
                quads: &quads,
                labels: &labels,
            },
        )
    };
    let (image, depth) = render_with_depth(&scene);
    // For a look when it fails.
    write_png(
        &output_dir().join("depth.png"),
        image.width * 2,
        image.height,
        &side_by_side(&image),
    );
    let mut drawn = 0;
    for (eye, pixels, depths) in [
        ("left", &image.left, &depth.left),
        ("right", &image.right, &depth.right),
    ] {
        assert_eq!(depths.len() * 4, pixels.len());
        let wrong: Vec<(usize, [u8; 4], f32)> = pixels
            .chunks(4)
            .zip(depths.iter())
            .enumerate()
            .filter(|(_, (pixel, depth))| pixel.iter().any(|&c| c > 0) != (**depth < 1.0))
            .map(|(i, (pixel, depth))| (i, pixel.try_into().unwrap(), *depth))
            .collect();
        assert!(
            wrong.is_empty(),
            "{eye} eye: {} pixels whose colour and depth disagree, first (index, RGBA, depth): {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(5)]
        );
        drawn += depths.iter().filter(|&&depth| depth < 1.0).count();
    }
    assert!(drawn > 50_000, "{drawn} pixels drawn");
    // Each part was drawn and has the depth of what is nearest there: some
    // pixel around where it shows (the ray is about 2 pixels wide).
    let depths_around = |point: Vec3| {
        let (x, y) = pixel_of(&scene, 0, point);
        let mut around = Vec::new();
        for row in y as usize - 2..=y as usize + 2 {
            for column in x as usize - 2..=x as usize + 2 {
                around.push(depth.left[row * depth.width as usize + column]);
            }
        }
        around
    };
    let projected = |point: Vec3| {
        let view = scene.views[0];
        (view.projection * view.view).project_point3(point).z
    };
    let on_plate = PLATE.centre + PLATE.right * 0.9;
    let on_ray = from.lerp(to, 0.85);
    let over_water = Vec3::new(0.24, 0.03, 0.24);
    for (what, point) in [
        ("the plate", on_plate),
        ("the ray", on_ray),
        ("the water", over_water),
        ("a free label's letters", FREE_LABEL.centre),
    ] {
        let (seen, expected) = (depths_around(point), projected(point));
        assert!(
            seen.iter().any(|depth| (depth - expected).abs() < 2e-3),
            "{what}: depths {seen:?} around it, expected {expected}"
        );
    }
}

/// A flat land facing the eye `distance_m` ahead of it, or a grey plate
/// in the same place with the land out of sight, seen through an eye as
/// the app builds it (its near plane) with the app's near fade, for
/// `display`: the middle pixel's colour and depth.
fn faded_at(distance_m: f32, plate: bool, display: Display) -> ([u8; 4], f32) {
    use holoterrain::app::frame::{EyeView as AppEyeView, Fov, NEAR_FADE};
    use holoterrain::input::Pose;

    let eye = AppEyeView {
        pose: Pose::new(Vec3::ZERO, Quat::IDENTITY),
        fov: Fov {
            angle_left: -0.3,
            angle_right: 0.3,
            angle_up: 0.3,
            angle_down: -0.3,
        },
    }
    .render_view();
    let heights = vec![0.0; (UI_GRID * UI_GRID) as usize];
    // The land's up towards the eye; out of sight behind it with the plate.
    let along = if plate { 5.0 } else { -distance_m };
    let model = Mat4::from_translation(Vec3::new(0.0, 0.0, along))
        * Mat4::from_rotation_x(std::f32::consts::FRAC_PI_2)
        * Mat4::from_scale(Vec3::new(0.5, 0.1, 0.5));
    let quads = [UiQuad {
        rect: UiRect {
            centre: Vec3::new(0.0, 0.0, -distance_m),
            right: Vec3::X * 0.2,
            up: Vec3::Y * 0.2,
        },
        color: [0.5, 0.5, 0.5, 1.0],
        fill: UiFill::Solid,
    }];
    let scene = FrameScene {
        model,
        views: [eye; 2],
        light_dir: Vec3::Z,
        display,
        ui: UiLayer {
            quads: if plate { &quads } else { &[] },
            labels: &[],
        },
        near_fade: NEAR_FADE,
        ..ui_scene(&heights, UiLayer::default())
    };
    let (image, depth) = render_with_depth(&scene);
    let middle = (UI_EYE_HEIGHT / 2 * UI_EYE_WIDTH + UI_EYE_WIDTH / 2) as usize;
    (
        image.left[4 * middle..4 * middle + 4].try_into().unwrap(),
        depth.left[middle],
    )
}

/// An sRGB byte as linear light.
fn linear(byte: u8) -> f64 {
    let encoded = f64::from(byte) / 255.0;
    if encoded <= 0.040_45 {
        encoded / 12.92
    } else {
        ((encoded + 0.055) / 1.055).powf(2.4)
    }
}

#[test]
fn what_comes_near_the_eye_fades_from_40_cm_and_is_gone_by_30() {
    for plate in [false, true] {
        let what = if plate { "a plate" } else { "the land" };
        // Additive: the colour darkens, the alpha stays.
        let (full, full_depth) = faded_at(0.5, plate, Display::Additive);
        let (half, half_depth) = faded_at(0.35, plate, Display::Additive);
        let (gone, gone_depth) = faded_at(0.29, plate, Display::Additive);
        assert_eq!((full[3], half[3]), (255, 255), "{what}: {full:?}, {half:?}");
        assert!(
            full[..3].iter().all(|&c| c > 60),
            "{what} at 0.5 m: {full:?}"
        );
        for channel in 0..3 {
            let ratio = linear(half[channel]) / linear(full[channel]);
            assert!(
                (ratio - 0.5).abs() < 0.05,
                "{what} at 0.35 m: {half:?} is {ratio} of {full:?}"
            );
        }
        assert_eq!(gone, [0, 0, 0, 0], "{what} at 0.29 m");
        assert!(
            full_depth < 1.0 && half_depth < full_depth,
            "{what}: depth drawn"
        );
        assert_eq!(gone_depth, 1.0, "{what} at 0.29 m: no depth");
        // Alpha-blended: the alpha falls, the colour premultiplied by it.
        let (full, _) = faded_at(0.5, plate, Display::AlphaBlend);
        let (half, _) = faded_at(0.35, plate, Display::AlphaBlend);
        assert_eq!(full[3], 255, "{what}: {full:?}");
        assert!(half[3].abs_diff(128) <= 3, "{what} at 0.35 m: {half:?}");
        let ratio = linear(half[1]) / linear(full[1]);
        assert!(
            (ratio - 0.5).abs() < 0.05,
            "{what} at 0.35 m, alpha-blended: {half:?} is {ratio} of {full:?}"
        );
        assert_eq!(
            faded_at(0.29, plate, Display::AlphaBlend).0,
            [0, 0, 0, 0],
            "{what} at 0.29 m, alpha-blended"
        );
    }
}
