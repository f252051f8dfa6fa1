//! Recipes end to end: `holoterrain recipes` and `recipes show`, every built-in grown live by the simulator ending bit for bit where `generate --recipe` ends, a hand-written recipe file, `next landscape`, and bad recipes in every subcommand.
use std::path::Path;
use std::process::{Command, Output};

use holoterrain::terrain::recipe::Recipe;

/// A small map, so that a whole growth takes a few hundred frames.
const SIZE: &str = "33x29";
const SEED: &str = "7";

fn holoterrain(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `sim` long enough at 10 Hz for any built-in to finish growing (four
/// steps a frame), tiny eyes, and a wearer who does nothing (`quiet.txt`,
/// an empty script, in the test's folder: the default script reseeds).
fn sim_args<'a>(recipe: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "sim",
        "--recipe",
        recipe,
        "--script",
        "quiet.txt",
        "--size",
        SIZE,
        "--seed",
        SEED,
        "--rate",
        "10",
        "--frames",
        "260",
        "--resolution",
        "16x16",
        "--every",
        "1000",
        "--out",
        out,
    ]
}

/// Grows `recipe` live in the simulator and at once with `generate`; both
/// give the same terrain.png and terrain.f32 bytes, and the report says the
/// growth completed.
fn live_equals_generated(recipe: &str, dir: &Path) {
    std::fs::write(dir.join("quiet.txt"), "").unwrap();
    let out = format!("sim-{}", recipe.replace(['/', '.'], "-"));
    succeeded(&holoterrain(&sim_args(recipe, &out), dir));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(&out).join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["recipe"], recipe);
    assert_eq!(report["growth_complete"], true, "{recipe}: {report}");
    assert!(report["recipe_values"]["growth"]["algorithm"].is_string());
    for (file, format) in [("terrain.png", "png16"), ("terrain.f32", "f32")] {
        let generated = format!("{out}-generated.{format}");
        succeeded(&holoterrain(
            &[
                "generate", "--recipe", recipe, "--size", SIZE, "--seed", SEED, "--format", format,
                "--out", &generated,
            ],
            dir,
        ));
        let live = std::fs::read(dir.join(&out).join(file)).unwrap();
        assert!(
            live == std::fs::read(dir.join(&generated)).unwrap(),
            "{recipe}: the simulator's {file} differs from generate's"
        );
    }
}

#[test]
fn recipes_lists_every_built_in_with_its_description() {
    let dir = tempfile::tempdir().unwrap();
    let output = holoterrain(&["recipes"], dir.path());
    succeeded(&output);
    let text = String::from_utf8(output.stdout).unwrap();
    let names: Vec<&str> = text
        .lines()
        .map(|line| line.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, Recipe::built_in_names().collect::<Vec<_>>());
    assert!(names.len() >= 6);
    for line in text.lines() {
        let (name, description) = line.split_once("  ").unwrap();
        assert_eq!(
            description.trim(),
            Recipe::built_in(name.trim()).unwrap().description
        );
    }
}

#[test]
fn every_built_in_grows_live_to_what_generate_writes() {
    let dir = tempfile::tempdir().unwrap();
    for name in Recipe::built_in_names() {
        live_equals_generated(name, dir.path());
    }
}

#[test]
fn a_shown_recipe_edited_by_hand_grows_live_to_what_generate_writes() {
    let dir = tempfile::tempdir().unwrap();
    let shown = holoterrain(&["recipes", "show", "ranges"], dir.path());
    succeeded(&shown);
    let text = String::from_utf8(shown.stdout).unwrap();
    assert_eq!(
        Recipe::from_toml(&text).unwrap(),
        Recipe::built_in("ranges").unwrap()
    );
    let edited = text
        .replace("iterations = 360", "iterations = 90")
        .replace("depth = 6", "depth = 4")
        + "\n[[finish]]\nfilter = \"gaussian\"\nsigma = 1.5\n";
    std::fs::write(dir.path().join("mine.toml"), edited).unwrap();
    live_equals_generated("mine.toml", dir.path());
}

#[test]
fn next_landscape_said_grows_the_next_built_in_from_a_new_seed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("say.txt"), "1.0 say next landscape\n").unwrap();
    let output = holoterrain(
        &[
            "sim",
            "--script",
            "say.txt",
            "--size",
            SIZE,
            "--frames",
            "90",
            "--resolution",
            "16x16",
            "--out",
            "out",
        ],
        dir.path(),
    );
    succeeded(&output);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/report.json")).unwrap())
            .unwrap();
    assert_eq!(report["recipe"], "ridges", "the one after demo");
    assert_eq!(report["reseeds"][0]["cause"], "voice");
    assert_eq!(report["seeds"].as_array().unwrap().len(), 2);
    let log = std::fs::read_to_string(dir.path().join("out/commands.jsonl")).unwrap();
    assert!(
        log.contains(r#""command":{"landscape":{"cause":"voice","name":"ridges"}}"#),
        "{log}"
    );
    // The log replays to the same landscape.
    succeeded(&holoterrain(
        &[
            "sim",
            "--replay",
            "out/commands.jsonl",
            "--frames",
            "90",
            "--resolution",
            "16x16",
            "--out",
            "again",
        ],
        dir.path(),
    ));
    assert_eq!(
        std::fs::read(dir.path().join("out/terrain.f32")).unwrap(),
        std::fs::read(dir.path().join("again/terrain.f32")).unwrap()
    );
}

#[test]
fn a_bad_recipe_is_one_line_a_failure_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("typo.toml"), "description = \"x\"\n[growth]\nalgorithm = \"bsp\"\niterations = 10\ndepth = 3\namplitude = 0.1\ndpeth = 2\n").unwrap();
    std::fs::write(dir.path().join("steep.toml"), "description = \"x\"\n[growth]\nalgorithm = \"bsp\"\niterations = 10\ndepth = 30\namplitude = 0.1\n").unwrap();
    std::fs::write(dir.path().join("broken.toml"), "description = \"x\n").unwrap();
    std::fs::write(dir.path().join("still.toml"), "description = \"x\"\n[growth]\nalgorithm = \"plates\"\nplates = 0\nsteps = 10\ncones = 8\nuplift = 0.01\ndrift = 0.1\n").unwrap();
    let cases: [(&str, &str); 5] = [
        ("alps", "the built-in recipes are demo, ridges"),
        (
            "typo.toml",
            "recipe typo.toml, line 7, column 1: unknown field `dpeth`",
        ),
        ("steep.toml", "growth.depth = 30 is out of range: 1 to 20"),
        ("broken.toml", "recipe broken.toml, line 1, column"),
        (
            "still.toml",
            "growth.plates = 0 is out of range: 2 <= plates <= 32",
        ),
    ];
    for (recipe, says) in cases {
        for subcommand in [
            vec!["sim", "--recipe", recipe, "--out", "out"],
            vec!["generate", "--recipe", recipe, "--out", "out.png"],
            vec!["xr", "--recipe", recipe, "--report", "out.json"],
        ] {
            let output = holoterrain(&subcommand, dir.path());
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success(), "{subcommand:?}");
            assert_eq!(
                stderr.trim_end().lines().count(),
                1,
                "{subcommand:?}: {stderr}"
            );
            assert!(stderr.contains(says), "{subcommand:?}: {stderr}");
            for written in ["out", "out.png", "out.json"] {
                assert!(
                    !dir.path().join(written).exists(),
                    "{subcommand:?} wrote {written}"
                );
            }
        }
    }
}
