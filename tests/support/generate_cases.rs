//! The `holoterrain generate` argument lists that other builds (Windows
//! under Wine, ARM64 under qemu) must turn into the Linux x86-64 build's bytes.

/// A size that is neither square nor 2^n+1, to catch row-stride mistakes.
const NON_SQUARE: &str = "97x61";

/// The `generate` argument lists to compare: every algorithm in every
/// format, several seeds, and the post-processing that uses transcendental
/// maths (Gaussian weights, distance falloff) or long float chains (erosion,
/// tiles), the app's own growth, and every built-in recipe.
pub fn generate_cases() -> Vec<Vec<String>> {
    let mut cases = Vec::new();
    for algorithm in [
        "fault",
        "bsp",
        "bsp-structured",
        "diamond-square",
        "midpoint",
        "rmp",
        "plates",
    ] {
        for format in ["png16", "png8", "raw16", "pgm"] {
            cases.push(vec![
                "--algorithm",
                algorithm,
                "--format",
                format,
                "--size",
                NON_SQUARE,
                "--seed",
                "3",
            ]);
        }
        for seed in ["1", "42", "18446744073709551615"] {
            cases.push(vec![
                "--algorithm",
                algorithm,
                "--size",
                NON_SQUARE,
                "--seed",
                seed,
            ]);
        }
    }
    cases.push(vec![
        "--algorithm",
        "fault",
        "--line",
        "two-points",
        "--fault-radius",
        "20",
        "--gaussian",
        "1.5",
        "--size",
        NON_SQUARE,
    ]);
    cases.push(vec![
        "--algorithm",
        "bsp",
        "--filter",
        "0.3",
        "--fir",
        "--thermal",
        "30",
        "--hydraulic",
        "30",
        "--size",
        NON_SQUARE,
    ]);
    cases.push(vec!["--tile", "1,2", "--size", "65x65", "--seed", "9"]);
    cases.push(vec![
        "--tile",
        "-1,2",
        "--tile-method",
        "quadtree",
        "--size",
        "129x129",
        "--seed",
        "9",
        "--format",
        "raw16",
    ]);
    // What the app grows (the default flags are its demo run): at its size
    // after all 500 iterations and after 120 (two seconds at 60 Hz), and on
    // a larger map, where the engine's wider row groups all come into play.
    cases.push(vec!["--size", "257x257", "--seed", "1"]);
    cases.push(vec![
        "--size",
        "257x257",
        "--seed",
        "7",
        "--iterations",
        "120",
    ]);
    cases.push(vec!["--size", "513x385", "--seed", "2"]);
    // Every built-in recipe, grown to the end, its exact heights; the
    // recipes are listed here rather than asked of the build so that a new
    // one is added on purpose.
    for recipe in [
        "demo",
        "ridges",
        "mesas",
        "highlands",
        "ranges",
        "islands",
        "hillocks",
        "summits",
        "valleys",
        "badlands",
        "cordillera",
        "uplands",
    ] {
        cases.push(vec![
            "--recipe", recipe, "--size", NON_SQUARE, "--seed", "5", "--format", "f32",
        ]);
    }
    cases
        .into_iter()
        .map(|case| case.into_iter().map(str::to_owned).collect())
        .collect()
}
