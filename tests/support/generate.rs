//! Running `holoterrain generate` from a test, for the tests that hold its files to an outside reader (the glTF validator, the mesh checker).

use std::path::Path;
use std::process::Command;

/// Runs `holoterrain generate ARGS` in `dir`, which must succeed.
pub fn generate(dir: &Path, args: &[&str]) {
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .arg("generate")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "generate {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
