//! End-to-end runs of the headless simulator through `sim::run`: scripted gestures in, report.json out.
use std::path::{Path, PathBuf};

use holoterrain::app::driver::WorldArgs;
use holoterrain::sim::{self, SimArgs, SimError};
use holoterrain::size::Size;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/scripts")
        .join(name)
}

/// A small, quick run: 4 s at 60 Hz, tiny images, one PNG at the end.
fn small_run(out: &Path, script_name: &str) -> SimArgs {
    SimArgs {
        frames: 240,
        world: WorldArgs {
            size: Size {
                width: 65,
                height: 65,
            },
            ..WorldArgs::default()
        },
        resolution: Size {
            width: 64,
            height: 48,
        },
        script: Some(script(script_name)),
        out: out.to_path_buf(),
        every: 1000,
        ..SimArgs::default()
    }
}

fn read_report(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// An air-tap reseeds when the pinch opens again, 0.15 s (9 frames at
/// 60 Hz) after it closes at the scripted time; a tap when the fingertip
/// pushes in, at the scripted time.
#[test]
fn two_air_taps_and_a_tap_reseed_three_times_at_their_frames() {
    let out = tempfile::tempdir().unwrap();
    sim::run(&small_run(out.path(), "two-airtaps-one-tap.txt")).unwrap();
    let report = read_report(out.path());
    let reseeds = report["reseeds"].as_array().unwrap();
    let summary: Vec<(u64, &str)> = reseeds
        .iter()
        .map(|r| (r["frame"].as_u64().unwrap(), r["cause"].as_str().unwrap()))
        .collect();
    assert_eq!(summary, vec![(69, "airtap"), (120, "tap"), (189, "airtap")]);
    let times: Vec<f64> = reseeds
        .iter()
        .map(|r| r["time"].as_f64().unwrap())
        .collect();
    for (time, expected) in times.iter().zip([1.15, 2.0, 3.15]) {
        assert!(
            (time - expected).abs() < 1e-6,
            "reseed at {time} s, expected {expected} s"
        );
    }
    let seeds = report["seeds"].as_array().unwrap();
    assert_eq!(seeds.len(), 4);
    for (reseed, seed) in reseeds.iter().zip(&seeds[1..]) {
        assert_eq!(&reseed["seed"], seed);
    }
}

#[test]
fn at_90_hz_a_reseed_lands_on_the_first_frame_at_or_after_its_time() {
    let out = tempfile::tempdir().unwrap();
    let args = SimArgs {
        frames: 270,
        rate: 90.0,
        ..small_run(out.path(), "select-and-tap.txt")
    };
    let report = sim::run(&args).unwrap();
    let summary: Vec<(u64, &str)> = report
        .reseeds
        .iter()
        .map(|reseed| (reseed.frame, reseed.cause.name()))
        .collect();
    // A select click reseeds on its release: (0.505 + 0.15) s × 90 Hz =
    // frame 58.95 → 59; 2.5 s × 90 Hz = frame 225.
    assert_eq!(summary, vec![(59, "select"), (225, "tap")]);
}

#[test]
fn growth_restarts_at_the_last_reseed() {
    let out = tempfile::tempdir().unwrap();
    let report = sim::run(&small_run(out.path(), "two-airtaps-one-tap.txt")).unwrap();
    // Last reseed on frame 189 (the second air-tap's release), last frame
    // 239: 50 frames of growth at 60 Hz.
    assert_eq!(report.iterations, 50);
}

#[test]
fn an_air_tap_aimed_away_does_not_reseed() {
    let out = tempfile::tempdir().unwrap();
    let report = sim::run(&small_run(out.path(), "airtap-away.txt")).unwrap();
    assert!(report.reseeds.is_empty());
    assert_eq!(
        read_report(out.path())["seeds"].as_array().unwrap().len(),
        1
    );
}

#[test]
fn a_bad_script_line_fails_with_its_line_number_and_leaves_the_last_run_alone() {
    let out = tempfile::tempdir().unwrap();
    let previous = "{\"previous\": true}";
    std::fs::write(out.path().join("report.json"), previous).unwrap();
    let error = sim::run(&small_run(out.path(), "bad-line.txt")).unwrap_err();
    assert!(matches!(error, SimError::Script { .. }));
    assert!(
        error.to_string().contains("line 3: unknown event `wave`"),
        "{error}"
    );
    let kept = std::fs::read_to_string(out.path().join("report.json")).unwrap();
    assert_eq!(kept, previous, "bad input must not touch the output folder");
}

#[test]
fn the_last_frame_is_always_written() {
    let out = tempfile::tempdir().unwrap();
    let args = SimArgs {
        frames: 10,
        every: 4,
        ..small_run(out.path(), "airtap-away.txt")
    };
    sim::run(&args).unwrap();
    let mut frames: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("frame-"))
        .collect();
    frames.sort();
    assert_eq!(
        frames,
        vec![
            "frame-00000.png",
            "frame-00004.png",
            "frame-00008.png",
            "frame-00009.png"
        ]
    );
}

#[test]
fn validation_on_reports_zero_messages() {
    let out = tempfile::tempdir().unwrap();
    let args = SimArgs {
        frames: 30,
        validation: true,
        ..small_run(out.path(), "two-airtaps-one-tap.txt")
    };
    let report = sim::run(&args).unwrap();
    assert_eq!(report.validation_messages, Some(0));
    assert_eq!(read_report(out.path())["validation_messages"], 0);
}

#[test]
fn validation_off_reports_null() {
    let out = tempfile::tempdir().unwrap();
    let args = SimArgs {
        frames: 2,
        ..small_run(out.path(), "airtap-away.txt")
    };
    sim::run(&args).unwrap();
    assert!(read_report(out.path())["validation_messages"].is_null());
}

#[test]
fn a_missing_script_file_is_named_in_the_error() {
    let out = tempfile::tempdir().unwrap();
    let error = sim::run(&small_run(out.path(), "no-such-script.txt")).unwrap_err();
    assert!(matches!(error, SimError::ReadScript { .. }));
    assert!(error.to_string().contains("no-such-script.txt"), "{error}");
}

/// Decodes an RGB PNG: (width, height, pixels).
fn decode_rgb(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

#[test]
fn the_final_frame_shows_the_terrain_in_both_eyes_side_by_side() {
    let out = tempfile::tempdir().unwrap();
    // Half a second: before that script's glance away (from 0.7 s).
    let args = SimArgs {
        frames: 30,
        ..small_run(out.path(), "airtap-away.txt")
    };
    sim::run(&args).unwrap();
    let (width, height, pixels) = decode_rgb(&out.path().join("frame-00029.png"));
    assert_eq!((width, height), (128, 48));
    let eye = |x_range: std::ops::Range<u32>| -> Vec<[u8; 3]> {
        (0..height)
            .flat_map(|y| x_range.clone().map(move |x| (y * width + x) as usize * 3))
            .map(|i| [pixels[i], pixels[i + 1], pixels[i + 2]])
            .collect()
    };
    let (left, right) = (eye(0..64), eye(64..128));
    let lit = |pixels: &[[u8; 3]]| pixels.iter().filter(|p| **p != [0, 0, 0]).count();
    // The 0.5 m hologram 1 m away covers a good part of a 45° view.
    assert!(
        lit(&left) > left.len() / 10,
        "left eye shows {} lit pixels",
        lit(&left)
    );
    assert!(
        lit(&right) > right.len() / 10,
        "right eye shows {} lit pixels",
        lit(&right)
    );
    assert_ne!(left, right, "the eyes should differ by parallax");
}

#[test]
fn an_animated_png_holds_every_snapshot() {
    let out = tempfile::tempdir().unwrap();
    let args = SimArgs {
        frames: 25,
        every: 10,
        apng: true,
        ..small_run(out.path(), "airtap-away.txt")
    };
    sim::run(&args).unwrap();
    let file = std::fs::File::open(out.path().join("growth.png")).unwrap();
    let reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let animation = reader.info().animation_control.unwrap();
    // Frames 0, 10, 20 and the last, 24.
    assert_eq!(animation.num_frames, 4);
}

#[test]
fn after_a_stall_no_frame_grows_more_than_the_budget_and_growth_still_completes() {
    let out = tempfile::tempdir().unwrap();
    let args = SimArgs {
        frames: 300,
        ..small_run(out.path(), "stall.txt")
    };
    let report = sim::run(&args).unwrap();
    // Frame 60 shows at 11 s with all 500 iterations due; without the budget
    // it would apply 441 of them.
    assert_eq!(
        report.max_iterations_per_frame,
        holoterrain::app::MAX_ITERATIONS_PER_FRAME
    );
    assert_eq!(report.iterations, 500);
    assert!((report.seconds - 15.0).abs() < 1e-9, "{}", report.seconds);
    assert_eq!(read_report(out.path())["max_iterations_per_frame"], 4);
}

#[test]
fn without_a_stall_a_60_hz_frame_grows_one_iteration() {
    let out = tempfile::tempdir().unwrap();
    let report = sim::run(&small_run(out.path(), "two-airtaps-one-tap.txt")).unwrap();
    assert_eq!(report.max_iterations_per_frame, 1);
}

#[test]
fn saying_new_terrain_reseeds_with_cause_voice_on_the_first_frame_at_or_after_it() {
    let out = tempfile::tempdir().unwrap();
    let report = sim::run(&small_run(out.path(), "remote-voice.txt")).unwrap();
    let summary: Vec<(u64, &str)> = report
        .reseeds
        .iter()
        .map(|reseed| (reseed.frame, reseed.cause.name()))
        .collect();
    // "new terrain" at 1.2 s (frame 72); "something else" is no command;
    // the air-tap at 2.5 s reseeds on its release, 0.15 s later (frame 159).
    assert_eq!(summary, vec![(72, "voice"), (159, "airtap")]);
}

fn decode_rgba(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// A capture beside every written frame: the hologram opaque over a
/// transparent background, seen from the head's camera.
#[test]
fn a_capture_is_written_beside_every_frame_with_the_background_transparent() {
    let out = tempfile::tempdir().unwrap();
    let args = SimArgs {
        frames: 61,
        every: 30,
        capture: true,
        capture_size: Size {
            width: 160,
            height: 90,
        },
        validation: true,
        ..small_run(out.path(), "two-airtaps-one-tap.txt")
    };
    let report = sim::run(&args).unwrap();
    assert_eq!(report.validation_messages, Some(0));
    for frame in [0, 30, 60] {
        assert!(out.path().join(format!("frame-{frame:05}.png")).exists());
        let (width, height, pixels) =
            decode_rgba(&out.path().join(format!("capture-{frame:05}.png")));
        assert_eq!((width, height), (160, 90));
        let alphas: Vec<u8> = pixels.chunks(4).map(|p| p[3]).collect();
        // The corners are room, not hologram.
        for corner in [
            0,
            width as usize - 1,
            alphas.len() - width as usize,
            alphas.len() - 1,
        ] {
            assert_eq!(alphas[corner], 0, "frame {frame}: corner {corner}");
        }
        assert!(
            pixels
                .chunks(4)
                .filter(|p| p[3] == 0)
                .all(|p| p == [0, 0, 0, 0])
        );
        let opaque = alphas.iter().filter(|&&a| a == 255).count();
        let partial = alphas.iter().filter(|&&a| a != 0 && a != 255).count();
        assert!(
            opaque * 20 > alphas.len(),
            "frame {frame}: {opaque} opaque pixels"
        );
        // No water in the demo: land and base are all opaque; at 1 s the
        // hand raised to air-tap draws its see-through ray to its cursor.
        if frame == 60 {
            assert!(partial > 0, "frame {frame}: no ray");
        } else {
            assert_eq!(partial, 0, "frame {frame}");
        }
    }
    assert!(!out.path().join("capture-00001.png").exists());
}

#[test]
fn an_opaque_display_draws_the_same_terrain_darker_in_the_shade() {
    let additive_out = tempfile::tempdir().unwrap();
    let opaque_out = tempfile::tempdir().unwrap();
    let run = |out: &Path, blend| {
        let args = SimArgs {
            frames: 120,
            blend,
            ..small_run(out, "two-airtaps-one-tap.txt")
        };
        sim::run(&args).unwrap();
        decode_rgb(&out.join("frame-00119.png")).2
    };
    let additive = run(additive_out.path(), holoterrain::render::Display::Additive);
    let opaque = run(opaque_out.path(), holoterrain::render::Display::Opaque);
    let sum = |pixels: &[u8]| pixels.iter().map(|&c| u64::from(c)).sum::<u64>();
    assert!(sum(&opaque) < sum(&additive), "opaque is not darker");
    // The same pixels are covered: only the shading differs.
    let covered = |pixels: &[u8]| {
        pixels
            .chunks(3)
            .map(|p| p != [0, 0, 0])
            .collect::<Vec<bool>>()
    };
    assert_eq!(covered(&additive), covered(&opaque));
}

/// A 16-bit greyscale PNG's size and samples.
fn decode_grey16(path: &Path) -> (u32, u32, Vec<u16>) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut bytes = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut bytes).unwrap();
    assert_eq!(
        (info.color_type, info.bit_depth),
        (png::ColorType::Grayscale, png::BitDepth::Sixteen),
        "{}",
        path.display()
    );
    bytes.truncate(info.buffer_size());
    let samples = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
        .collect();
    (info.width, info.height, samples)
}

/// Beside every capture its depth: 16-bit grey of the capture's size, 0
/// exactly where the capture shows nothing, brighter nearer. The islands
/// (water) with the hand menu, the landscapes panel and a ray: every part
/// of the hologram and the controls has a depth.
#[test]
fn each_capture_has_its_depth_beside_it_where_it_shows_anything() {
    let out = tempfile::tempdir().unwrap();
    let mut args = SimArgs {
        frames: 200,
        every: 50,
        capture: true,
        capture_size: Size {
            width: 160,
            height: 90,
        },
        validation: true,
        ..small_run(out.path(), "menu-tour.txt")
    };
    args.world.recipe = Some("islands".into());
    let report = sim::run(&args).unwrap();
    assert_eq!(report.validation_messages, Some(0));
    for frame in [0, 50, 100, 150, 199] {
        let (width, height, pixels) =
            decode_rgba(&out.path().join(format!("capture-{frame:05}.png")));
        let (depth_width, depth_height, depth) =
            decode_grey16(&out.path().join(format!("depth-{frame:05}.png")));
        assert_eq!(
            (depth_width, depth_height),
            (width, height),
            "frame {frame}"
        );
        let shown: Vec<bool> = pixels.chunks(4).map(|p| p != [0, 0, 0, 0]).collect();
        let disagree = shown
            .iter()
            .zip(&depth)
            .filter(|&(&shown, &depth)| shown != (depth > 0))
            .count();
        assert_eq!(
            disagree, 0,
            "frame {frame}: pixels whose colour and depth disagree"
        );
        let drawn = depth.iter().filter(|&&sample| sample > 0).count();
        assert!(
            drawn * 10 > depth.len(),
            "frame {frame}: {drawn} pixels drawn"
        );
    }
    // The hand menu (frame 50) floats about 0.34 m from the eyes, the
    // land about a metre: a depth, not a mask, and the menu brighter.
    let (_, _, depth) = decode_grey16(&out.path().join("depth-00050.png"));
    let levels: std::collections::BTreeSet<u16> =
        depth.iter().copied().filter(|&sample| sample > 0).collect();
    assert!(levels.len() > 100, "{} depth levels", levels.len());
    let (farthest, nearest) = (levels.first().unwrap(), levels.last().unwrap());
    assert!(
        u32::from(*nearest) > 2 * u32::from(*farthest),
        "depth samples {farthest} to {nearest}"
    );
    assert!(!out.path().join("depth-00001.png").exists());
}

/// Six seconds of nothing after the hologram is placed (on the first
/// frame) show the air-tap coach; the air-tap makes it go on the frame it
/// reseeds; six seconds more show the palm-up coach, which goes when the
/// palm brings the hand menu.
#[test]
fn the_hand_coach_shows_after_six_idle_seconds_and_goes_once_its_gesture_is_done() {
    let out = tempfile::tempdir().unwrap();
    sim::run(&SimArgs {
        frames: 60 * 16,
        ..small_run(out.path(), "coach.txt")
    })
    .unwrap();
    let report = read_report(out.path());
    let coach: Vec<(u64, &str, &str)> = report["coach"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["frame"].as_u64().unwrap(),
                entry["event"].as_str().unwrap(),
                entry["what"].as_str().unwrap(),
            )
        })
        .collect();
    let events: Vec<(&str, &str)> = coach
        .iter()
        .map(|&(_, event, what)| (event, what))
        .collect();
    assert_eq!(
        events,
        [
            ("shown", "airtap"),
            ("gone", "airtap"),
            ("shown", "palm"),
            ("gone", "palm")
        ],
        "{coach:?}"
    );
    let reseeds = report["reseeds"].as_array().unwrap();
    assert_eq!(reseeds.len(), 1);
    let tapped = reseeds[0]["frame"].as_u64().unwrap();
    assert_eq!(coach[0].0, 360, "6 s after the first frame");
    assert_eq!(coach[1].0, tapped, "gone as the air-tap reseeds");
    assert_eq!(coach[2].0, tapped + 360, "6 s after the air-tap");
    // The palm is raised from 14.7 s; the menu opens on it.
    assert!((14 * 60..16 * 60).contains(&coach[3].0), "{coach:?}");
    let menus = report["menus"].as_array().unwrap();
    assert_eq!(menus[0]["frame"].as_u64(), Some(coach[3].0));
}
