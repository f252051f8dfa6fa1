//! What `holoterrain xr` prints when it fails before any runtime is
//! loaded: the OpenXR loader's own lines, which holoterrain leaves visible
//! (one may say why, e.g. XR_RUNTIME_JSON ignored in an elevated
//! process), then holoterrain's one line.

use std::process::Output;

/// Asserts that a run failed with nothing on stdout and, on stderr, lines
/// of the OpenXR loader's then exactly one line of holoterrain's, the
/// error; returns that line.
pub fn loader_lines_then_one_error(output: &Output, what: &str) -> String {
    assert!(!output.status.success(), "{what} succeeded");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "",
        "{what}: stdout"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let Some((last, before)) = lines.split_last() else {
        panic!("{what}: nothing on stderr");
    };
    for line in before {
        assert!(
            line.contains("OpenXR-Loader"),
            "{what}: a line that is neither the loader's nor the last:\n{stderr}"
        );
    }
    assert!(
        last.starts_with("error: "),
        "{what}: the last line:\n{stderr}"
    );
    (*last).to_owned()
}
