//! The command line end to end: `generate`'s outputs and determinism, and bad input to every subcommand.
use std::path::Path;
use std::process::{Command, Output};

fn holoterrain(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn same_arguments_give_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["generate", "--size", "65x40", "--seed", "9", "--out"];
    for name in ["a.png", "b.png"] {
        let out = holoterrain(&[&args[..], &[name]].concat(), dir.path());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let a = std::fs::read(dir.path().join("a.png")).unwrap();
    assert_eq!(a, std::fs::read(dir.path().join("b.png")).unwrap());
    let out = holoterrain(
        &[&args[..3], &["--seed", "10", "--out", "c.png"]].concat(),
        dir.path(),
    );
    assert!(out.status.success());
    assert_ne!(a, std::fs::read(dir.path().join("c.png")).unwrap());
}

#[test]
fn every_format_and_algorithm_writes_a_file_of_the_right_size() {
    let dir = tempfile::tempdir().unwrap();
    for (algorithm, format, name, len) in [
        ("fault", "raw16", "f.raw", Some(33 * 17 * 2)),
        ("bsp", "pgm", "b.pgm", None),
        ("bsp-structured", "png8", "s.png", None),
        ("diamond-square", "png16", "d.png", None),
        ("fault", "f32", "f.f32", Some(33 * 17 * 4)),
        ("bsp-structured", "glb", "s.glb", None),
        // 2·32·16 land triangles, and on each of the 96 rim edges two
        // side triangles and one of the bottom: 50 bytes each after 84.
        (
            "bsp",
            "stl",
            "b.stl",
            Some(84 + 50 * (2 * 32 * 16 + 3 * 96)),
        ),
        ("bsp", "3mf", "b.3mf", None),
        ("plates", "f32", "p.f32", Some(33 * 17 * 4)),
    ] {
        let out = holoterrain(
            &[
                "generate",
                "--algorithm",
                algorithm,
                "--size",
                "33x17",
                "--iterations",
                "50",
                "--format",
                format,
                "--out",
                name,
            ],
            dir.path(),
        );
        assert!(
            out.status.success(),
            "{algorithm}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        if let Some(len) = len {
            assert_eq!(bytes.len(), len);
        }
        if format == "pgm" {
            assert!(bytes.starts_with(b"P5"));
        }
        if format == "glb" {
            assert!(bytes.starts_with(b"glTF"));
        }
        if format == "3mf" {
            assert!(bytes.starts_with(b"PK\x03\x04"), "a zip");
        }
    }
}

#[test]
fn generate_help_names_the_plates_algorithm_and_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(&["generate", "--help"], dir.path());
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("plates") && help.to_lowercase().contains("tectonic plates"),
        "{help}"
    );
    assert!(help.contains("uplift per step"), "{help}");
    // Its flags reach it: more steps and more uplift raise higher ranges.
    let highest = |extra: &[&str]| {
        let args = [
            &[
                "generate",
                "--algorithm",
                "plates",
                "--size",
                "40x40",
                "--stats",
            ][..],
            extra,
            &["--out", "p.png"],
        ]
        .concat();
        let out = holoterrain(&args, dir.path());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .find_map(|line| line.strip_prefix("max "))
            .unwrap()
            .trim()
            .parse::<f64>()
            .unwrap()
    };
    let low = highest(&["--iterations", "60", "--amplitude", "0.001"]);
    let high = highest(&["--iterations", "60", "--amplitude", "0.004"]);
    assert!(low > 0.0 && (high / low - 4.0).abs() < 1e-3, "{low} {high}");
    assert!(highest(&["--iterations", "240", "--amplitude", "0.001"]) > low);
}

#[test]
fn stats_json_has_the_documented_keys() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(
        &[
            "generate",
            "--size",
            "40x40",
            "--stats",
            "--stats-json",
            "s.json",
            "--out",
            "h.png",
        ],
        dir.path(),
    );
    assert!(out.status.success());
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("s.json")).unwrap()).unwrap();
    for key in [
        "min",
        "max",
        "mean",
        "erosion_score",
        "hypsometric_integral",
    ] {
        assert!(json[key].is_number(), "{key} missing from {json}");
    }
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("hypsometric integral"), "{printed}");
    assert!(json["max"].as_f64().unwrap() > json["min"].as_f64().unwrap());
}

#[test]
fn neighbouring_tiles_written_as_raw16_share_their_edge() {
    let dir = tempfile::tempdir().unwrap();
    for (tile, name) in [("1,0", "b.raw"), ("0,0", "a.raw")] {
        let out = holoterrain(
            &[
                "generate", "--tile", tile, "--size", "20x10", "--format", "raw16", "--out", name,
            ],
            dir.path(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let read = |name: &str| -> Vec<u16> {
        std::fs::read(dir.path().join(name))
            .unwrap()
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect()
    };
    let (a, b) = (read("a.raw"), read("b.raw"));
    for y in 0..10 {
        assert_eq!(a[y * 20 + 19], b[y * 20], "row {y}");
    }
}

/// Quadtree tiles (1,0), (0,0) and (0,1), written in that order, share
/// their edges sample for sample; the fault method stays the default.
#[test]
fn quadtree_tiles_written_as_raw16_share_their_edges() {
    let dir = tempfile::tempdir().unwrap();
    let n = 33;
    for (tile, name) in [("1,0", "b.raw"), ("0,0", "a.raw"), ("0,1", "c.raw")] {
        let out = holoterrain(
            &[
                "generate",
                "--tile",
                tile,
                "--tile-method",
                "quadtree",
                "--size",
                "33x33",
                "--amplitude",
                "1.2",
                "--seed",
                "4",
                "--format",
                "raw16",
                "--out",
                name,
            ],
            dir.path(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let read = |name: &str| -> Vec<u16> {
        std::fs::read(dir.path().join(name))
            .unwrap()
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect()
    };
    let (a, b, c) = (read("a.raw"), read("b.raw"), read("c.raw"));
    assert_eq!(a.len(), n * n);
    for k in 0..n {
        assert_eq!(a[k * n + n - 1], b[k * n], "row {k}");
        assert_eq!(a[(n - 1) * n + k], c[k], "column {k}");
    }
    assert!(a.iter().min() < a.iter().max(), "the tile has relief");
    // Without --tile-method, and with --tile-method fault, the fault tile.
    for (args, name) in [
        (&["--tile-method", "fault"][..], "fault.raw"),
        (&[][..], "default.raw"),
    ] {
        let mut all = vec!["generate", "--tile", "0,0", "--size", "33x33"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--format", "raw16", "--out", name]);
        assert!(holoterrain(&all, dir.path()).status.success());
    }
    assert_eq!(read("fault.raw"), read("default.raw"));
    assert_ne!(read("fault.raw"), a);
}

/// Each bad invocation: one line on stderr, a non-zero exit, no file left behind.
#[test]
fn bad_input_gets_one_error_line_and_leaves_no_file() {
    let cases: &[&[&str]] = &[
        &["generate", "--size", "1x5"],
        &["generate", "--size", "big"],
        &["generate", "--depth", "0"],
        &["generate", "--depth", "64"],
        &["generate", "--iterations", "0"],
        &["generate", "--format", "jpeg"],
        &["generate", "--algorithm", "perlin"],
        &["generate", "--filter", "1.5"],
        &["generate", "--gaussian", "-1"],
        &["generate", "--amplitude", "nan"],
        &["generate", "--tile", "0,0", "--gaussian", "2"],
        &["generate", "--tile", "0,0", "--algorithm", "bsp"],
        &["generate", "--tile", "x"],
        &[
            "generate",
            "--tile",
            "0,0",
            "--tile-method",
            "quadtree",
            "--size",
            "100x100",
        ],
        &[
            "generate",
            "--tile",
            "0,0",
            "--tile-method",
            "quadtree",
            "--size",
            "33x17",
        ],
        &[
            "generate",
            "--tile",
            "0,0",
            "--tile-method",
            "quadtree",
            "--size",
            "8193x8193",
        ],
        &[
            "generate",
            "--tile",
            "0,0",
            "--tile-method",
            "quadtree",
            "--amplitude",
            "5",
        ],
        &[
            "generate",
            "--tile",
            "0,0",
            "--tile-method",
            "quadtree",
            "--algorithm",
            "fault",
        ],
        &[
            "generate",
            "--tile",
            "0,0",
            "--tile-method",
            "quadtree",
            "--thermal",
            "3",
        ],
        &["generate", "--tile", "0,0", "--tile-method", "hexagons"],
        &["generate", "--tile-method", "quadtree"],
        &["generate", "--thermal", "1", "--talus", "-1"],
        &["generate", "--out", "missing-dir/h.png"],
        &["generate", "--format", "glb", "--out", "missing-dir/t.glb"],
        &["generate", "--format", "stl", "--print-size", "0"],
        &["generate", "--format", "stl", "--print-size", "10000"],
        &["generate", "--format", "3mf", "--print-size", "nan"],
        &["generate", "--format", "3mf", "--exaggeration", "0"],
        &["generate", "--format", "stl", "--exaggeration", "-2"],
        &["generate", "--format", "stl", "--base-mm", "0"],
        &["generate", "--format", "3mf", "--base-mm", "5000"],
        &["generate", "--format", "stl", "--base-mm", "-1"],
        &["generate", "--print-size", "100"],
        &["generate", "--format", "glb", "--exaggeration", "2"],
        &["generate", "--format", "f32", "--base-mm", "5"],
        &["generate", "--format", "stl", "--out", "missing-dir/t.stl"],
        &["generate", "--format", "3mf", "--out", "missing-dir/t.3mf"],
        &[
            "generate",
            "--out",
            "h.png",
            "--stats-json",
            "missing-dir/s.json",
        ],
        &["sim", "--frames", "0"],
        &["sim", "--size", "1x64"],
        &["sim", "--resolution", "wide"],
        &["sim", "--rate", "0"],
        &["sim", "--blend", "translucent"],
        &["sim", "--device", "hololens3"],
        &["sim", "--device", "hololens2", "--resolution", "320x240"],
        &[
            "sim",
            "--device",
            "hololens2",
            "--capture",
            "--capture-size",
            "1280x720",
        ],
        &["sim", "--capture", "--capture-size", "wide"],
        &["sim", "--capture", "--capture-size", "8x8"],
        &["sim", "--script", "no-such-script.txt", "--out", "."],
        &["sim", "--share", "7-guitar"],
        &["sim", "--share", "7-Guitar-orbit"],
        &["sim", "--join", "7-guitar-orbit"],
        &["sim", "--join", "7-guitar-orbit@host:http"],
        &["sim", "--share", "--join", "7-guitar-orbit@localhost"],
        &["sim", "--join", "7-guitar-orbit@localhost", "--seed", "3"],
        &["xr", "--frames", "0"],
        &["xr", "--runtime-timeout", "-1"],
        &["xr", "--runtime-timeout", "1.5"],
        &["xr", "--runtime-timeout", "86401"],
        &["xr", "--runtime-timeout", "soon"],
        &["frobnicate"],
    ];
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let out = holoterrain(case, dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{case:?} succeeded");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{case:?}: {stderr}");
        assert!(stderr.starts_with("error:"), "{case:?}: {stderr}");
        assert!(
            files_in(dir.path()).is_empty(),
            "{case:?} left {:?}",
            files_in(dir.path())
        );
    }
}

#[test]
fn a_bad_script_line_is_one_line_naming_the_line_and_writes_no_report() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.txt"),
        "# fine\n1.0 airtap right\n2.0 jump right\n",
    )
    .unwrap();
    let out = holoterrain(&["sim", "--script", "s.txt", "--out", "out"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("line 3"), "{stderr}");
    assert_eq!(
        stderr.matches("jump").count(),
        1,
        "the cause is said once: {stderr}"
    );
    assert!(!dir.path().join("out/report.json").exists());
}

#[test]
fn sim_help_documents_the_device_and_its_picture_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(&["sim", "--help"], dir.path());
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--device <DEVICE>"), "{help}");
    assert!(help.contains("hololens2"), "{help}");
    assert!(help.contains("43° × 29°"), "{help}");
    assert!(help.contains("320x210"), "{help}");
}

#[test]
fn a_bad_device_is_one_line_listing_the_devices() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(&["sim", "--device", "hololens3"], dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("'hololens3' for '--device <DEVICE>'")
            && stderr.contains("desktop, hololens2"),
        "{stderr}"
    );
}

#[test]
fn xr_help_documents_the_runtime_stopped_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(&["xr", "--help"], dir.path());
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("3 when the OpenXR runtime stopped"), "{help}");
}

#[test]
fn xr_help_documents_the_runtime_timeout_and_the_unresponsive_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(&["xr", "--help"], dir.path());
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--runtime-timeout <SECONDS>"), "{help}");
    assert!(help.contains("[default: 10]"), "{help}");
    assert!(
        help.contains("4 when the runtime stopped answering"),
        "{help}"
    );
}

#[test]
fn a_runtime_timeout_out_of_range_is_a_usage_error_naming_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(&["xr", "--runtime-timeout", "86401"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: invalid value '86401' for '--runtime-timeout <SECONDS>': 86401 is not in 0..=86400"),
        "{stderr}"
    );
}

/// `holoterrain xr ARGS` in `dir` with `XR_RUNTIME_JSON` as given (or unset).
fn xr_with_runtime_json(dir: &Path, runtime_json: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_holoterrain"));
    command
        .arg("xr")
        .args(args)
        .env_remove("XR_RUNTIME_JSON")
        .env_remove("RUST_LOG")
        .current_dir(dir);
    if let Some(path) = runtime_json {
        command.env("XR_RUNTIME_JSON", path);
    }
    command.output().expect("the binary runs")
}

/// The one line on stderr of a failed run with nothing on stdout.
fn only_error_line(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(1), "exit status");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "", "stdout");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line, got:\n{stderr}");
    lines[0].to_owned()
}

/// `xr --remote` with no remoting runtime named or found (as on a Linux
/// machine, which has none): one line saying it runs on Windows and the
/// three ways to name RemotingXR.json, and a failing exit.
#[test]
fn xr_remote_without_a_remoting_runtime_fails_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let line = only_error_line(&xr_with_runtime_json(
        dir.path(),
        None,
        &["--remote", "127.0.0.1"],
    ));
    assert!(
        line.starts_with("error: --remote: no Holographic Remoting runtime"),
        "{line}"
    );
    for needed in [
        "RemotingXR.json",
        "--remote-runtime",
        "XR_RUNTIME_JSON",
        "Windows",
    ] {
        assert!(line.contains(needed), "{needed:?} missing: {line}");
    }
}

/// `xr --remote` where XR_RUNTIME_JSON names no file: the app loads the
/// runtime itself, so the one line names the manifest and why it failed.
#[test]
fn xr_remote_with_a_manifest_that_is_not_there_names_it_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("RemotingXR.json");
    let line = only_error_line(&xr_with_runtime_json(
        dir.path(),
        Some(&missing),
        &["--remote", "127.0.0.1"],
    ));
    assert!(
        line.starts_with(&format!(
            "error: the OpenXR runtime manifest {} cannot be used: cannot read it",
            missing.display()
        )),
        "{line}"
    );
}

/// `--remote-retries` and `--remote-runtime` belong to remoting, and
/// `--listen` is the other way round from `--remote`: usage errors.
#[test]
fn remoting_options_without_remoting_or_both_ways_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["xr", "--remote-retries", "3"],
        vec!["xr", "--remote-runtime", "RemotingXR.json"],
        vec!["xr", "--listen", "--remote", "192.168.1.20"],
        vec!["xr", "--listen", ":65535"],
    ] {
        let out = holoterrain(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

/// `--codec` takes only the remoting codecs there are, and only with
/// remoting: anything else is one usage line.
#[test]
fn xr_codec_other_than_any_h264_h265_or_without_remoting_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (
            &["xr", "--remote", "hololens", "--codec", "vp9"][..],
            "error: invalid value 'vp9' for '--codec <CODEC>' [possible values: any, h264, h265]",
        ),
        (
            &["xr", "--codec", "h264"][..],
            "error: the following required arguments were not provided: <--remote <HOST[:PORT]>|--listen",
        ),
    ] {
        let out = holoterrain(args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "one line for {args:?}: {stderr}");
        assert!(stderr.starts_with(says), "{args:?}: {stderr}");
    }
}

#[test]
fn xr_remote_with_a_bad_port_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(&["xr", "--remote", "hololens:99999"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("must be 1 to 65535"), "{stderr}");
}

/// Direct3D 11 exists only in the Windows build: asking for it elsewhere is
/// one line naming the flag and what to use, before anything is written.
#[cfg(not(windows))]
#[test]
fn sim_renderer_d3d11_outside_windows_is_one_line_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(
        &[
            "sim",
            "--renderer",
            "d3d11",
            "--frames",
            "2",
            "--out",
            "out",
        ],
        dir.path(),
    );
    assert!(!out.status.success(), "sim --renderer d3d11 succeeded");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --renderer: d3d11 exists only in the Windows build (holoterrain.exe); use --renderer vulkan\n"
    );
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}

/// `xr --graphics d3d11` outside Windows: one line naming the flag and what
/// to use, said before looking for a runtime (none is needed to say it).
#[cfg(not(windows))]
#[test]
fn xr_graphics_d3d11_outside_windows_is_one_line_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["xr", "--graphics", "d3d11", "--frames", "1"])
        .env("XR_RUNTIME_JSON", dir.path().join("no-runtime.json"))
        .env_remove("RUST_LOG")
        .current_dir(dir.path())
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(1), "exit status");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "", "stdout");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: --graphics: d3d11 exists only in the Windows build (holoterrain.exe); use --graphics vulkan\n"
    );
}

/// `--graphics` takes only the APIs there are: anything else is a usage error.
#[test]
fn xr_graphics_with_an_unknown_api_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = holoterrain(&["xr", "--graphics", "metal"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid value 'metal' for '--graphics"),
        "{stderr}"
    );
}
