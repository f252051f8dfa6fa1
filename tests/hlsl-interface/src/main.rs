//! `hlsl-interface`: compiles both variants of the Direct3D 11 terrain and
//! controls shaders with the system's d3dcompiler_47 (`D3DCompile`), reads
//! their interfaces back (`D3DReflect`), prints them as JSON on stdout and
//! checks that each one-pass variant is its per-eye one plus the
//! render-target layer index (`holoterrain::render::shader_interface`):
//! each problem one line on stderr, exit 1. The one-pass variant runs only
//! where the vertex shader may choose the layer (HoloLens 2, a Holographic
//! Remoting PC's GPU), not under Wine, so tests/windows_wine.rs runs this
//! instead.
//!
//! `hlsl-interface controls OUT` instead draws the controls layer's test
//! scene (tests/support/ui_scene.rs) with the Direct3D 11 renderer and
//! writes both eyes' RGBA pixels, left then right, to OUT, and their depth
//! (f32, little-endian, left then right) to OUT.depth, for
//! tests/windows_wine.rs to compare with the Vulkan renderer's image.
//! Windows builds only (scripts/build-windows.sh builds it).

#[cfg(windows)]
#[allow(dead_code)]
#[path = "../../support/ui_scene.rs"]
mod ui_scene;

#[cfg(windows)]
fn main() -> std::process::ExitCode {
    use holoterrain::render::d3d11::shaders::{
        compile_terrain_shaders, compile_ui_shaders, reflect_stages,
    };
    use holoterrain::render::shader_interface::one_pass_problems;

    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, out] = args.as_slice()
        && mode == "controls"
    {
        return match draw_controls(std::path::Path::new(out)) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {error}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    let terrain = |one_pass: bool| {
        compile_terrain_shaders(one_pass).and_then(|shaders| reflect_stages(&shaders))
    };
    let controls =
        |one_pass: bool| compile_ui_shaders(one_pass).and_then(|shaders| reflect_stages(&shaders));
    let stages = (
        terrain(false),
        terrain(true),
        controls(false),
        controls(true),
    );
    let (per_eye, one_pass, ui_per_eye, ui_one_pass) = match stages {
        (Ok(a), Ok(b), Ok(c), Ok(d)) => (a, b, c, d),
        (Err(error), ..) | (_, Err(error), ..) | (.., Err(error), _) | (.., Err(error)) => {
            eprintln!("error: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let interfaces = serde_json::json!({
        "per_eye": per_eye,
        "one_pass": one_pass,
        "ui_per_eye": ui_per_eye,
        "ui_one_pass": ui_one_pass,
    });
    println!("{interfaces:#}");
    let mut problems = one_pass_problems(&per_eye, &one_pass);
    problems.extend(
        one_pass_problems(&ui_per_eye, &ui_one_pass)
            .into_iter()
            .map(|problem| format!("controls: {problem}")),
    );
    for problem in &problems {
        eprintln!("error: {problem}");
    }
    if problems.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

/// Draws the controls test scene with Direct3D 11 into `out` (raw RGBA,
/// left eye then right) and its depth into `out`.depth (f32 LE, likewise).
#[cfg(windows)]
fn draw_controls(out: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    use holoterrain::render::d3d11::D3d11OffscreenRenderer;
    use holoterrain::render::{OffscreenOptions, StereoRenderer, UiLayer};

    let heights = ui_scene::ui_heights();
    let (quads, labels) = (ui_scene::ui_quads(), ui_scene::ui_labels());
    let mut renderer = D3d11OffscreenRenderer::new(OffscreenOptions {
        eye_width: ui_scene::UI_EYE_WIDTH,
        eye_height: ui_scene::UI_EYE_HEIGHT,
        grid_width: ui_scene::UI_GRID,
        grid_height: ui_scene::UI_GRID,
        validation: false,
    })?;
    let layer = UiLayer {
        quads: &quads,
        labels: &labels,
    };
    StereoRenderer::render(&mut renderer, &ui_scene::ui_scene(&heights, layer))?;
    let image = renderer.read_back()?;
    let mut bytes = image.left;
    bytes.extend_from_slice(&image.right);
    std::fs::write(out, bytes)?;
    let depth = renderer.read_back_depth()?;
    let depth_bytes: Vec<u8> = depth
        .left
        .iter()
        .chain(&depth.right)
        .flat_map(|value| value.to_le_bytes())
        .collect();
    let mut depth_path = out.as_os_str().to_owned();
    depth_path.push(".depth");
    std::fs::write(depth_path, depth_bytes)?;
    Ok(())
}

#[cfg(not(windows))]
fn main() -> std::process::ExitCode {
    eprintln!(
        "error: hlsl-interface needs Direct3D's shader compiler: build it for Windows (scripts/build-windows.sh) and run it there or under Wine"
    );
    std::process::ExitCode::from(2)
}
