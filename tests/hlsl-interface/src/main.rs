//! `hlsl-interface`: compiles both variants of the Direct3D 11 terrain
//! shaders with the system's d3dcompiler_47 (`D3DCompile`), reads their
//! interfaces back (`D3DReflect`), prints them as JSON on stdout and checks
//! that the one-pass variant is the per-eye one plus the render-target
//! layer index (`holoterrain::render::shader_interface`): each problem one
//! line on stderr, exit 1. The one-pass variant runs only where the vertex
//! shader may choose the layer (HoloLens 2, a Holographic Remoting PC's
//! GPU), not under Wine, so tests/windows_wine.rs runs this instead.
//! Windows builds only (scripts/build-windows.sh builds it).

#[cfg(windows)]
fn main() -> std::process::ExitCode {
    use holoterrain::render::d3d11::shaders::{compile_terrain_shaders, reflect_stages};
    use holoterrain::render::shader_interface::one_pass_problems;

    let stages = |one_pass: bool| {
        compile_terrain_shaders(one_pass).and_then(|shaders| reflect_stages(&shaders))
    };
    let (per_eye, one_pass) = match (stages(false), stages(true)) {
        (Ok(per_eye), Ok(one_pass)) => (per_eye, one_pass),
        (Err(error), _) | (_, Err(error)) => {
            eprintln!("error: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let interfaces = serde_json::json!({ "per_eye": per_eye, "one_pass": one_pass });
    println!("{interfaces:#}");
    let problems = one_pass_problems(&per_eye, &one_pass);
    for problem in &problems {
        eprintln!("error: {problem}");
    }
    if problems.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

#[cfg(not(windows))]
fn main() -> std::process::ExitCode {
    eprintln!(
        "error: hlsl-interface needs Direct3D's shader compiler: build it for Windows (scripts/build-windows.sh) and run it there or under Wine"
    );
    std::process::ExitCode::from(2)
}
