//! The wearer's controls end to end in the simulator: a palm shows the hand menu, "Landscapes" opens the panel (its press clicking, in `--sound`'s clicks.wav from the side the button is on), a landscape picked by name grows, growth pauses and resumes, undo goes back, "Weather" starts erosion, "Save" writes a folder that `generate --replay` grows again byte for byte; labels said press buttons on show only; a `press` of a label the app never shows is a script error; "Leave session" ends a shared session and brings "Share session" back.
use std::path::{Path, PathBuf};
use std::process::Command;

use holoterrain::app::driver::WorldArgs;
use holoterrain::sim::{self, SimArgs};
use holoterrain::size::Size;

const TOUR: &str = include_str!("data/scripts/menu-tour.txt");

fn run(dir: &Path, name: &str, script: &str, frames: u64) -> PathBuf {
    run_with(dir, name, script, frames, false)
}

/// Like [`run`], with `--sound` when `sound` is set.
fn run_with(dir: &Path, name: &str, script: &str, frames: u64, sound: bool) -> PathBuf {
    let out = dir.join(name);
    let path = dir.join(format!("{name}.txt"));
    std::fs::write(&path, script).unwrap();
    let args = SimArgs {
        frames,
        world: WorldArgs {
            seed: 5,
            size: Size {
                width: 33,
                height: 33,
            },
            ..WorldArgs::default()
        },
        resolution: Size {
            width: 64,
            height: 36,
        },
        script: Some(path),
        out: out.clone(),
        every: 1000,
        sound,
        ..SimArgs::default()
    };
    sim::run(&args).unwrap();
    out
}

/// clicks.wav's stereo frames, after checking its header says 16-bit
/// stereo PCM at 48 kHz.
fn wav_frames(bytes: &[u8]) -> Vec<[i16; 2]> {
    assert_eq!(&bytes[..4], b"RIFF");
    assert_eq!(&bytes[8..16], b"WAVEfmt ");
    assert_eq!(u16::from_le_bytes([bytes[22], bytes[23]]), 2, "channels");
    assert_eq!(
        u32::from_le_bytes(bytes[24..28].try_into().unwrap()),
        48_000
    );
    assert_eq!(u16::from_le_bytes([bytes[34], bytes[35]]), 16, "bits");
    bytes[44..]
        .chunks_exact(4)
        .map(|f| {
            [
                i16::from_le_bytes([f[0], f[1]]),
                i16::from_le_bytes([f[2], f[3]]),
            ]
        })
        .collect()
}

/// Each sound in `frames` (sample runs apart by more than 10 ms of
/// silence): when it starts, seconds, and each ear's loudest sample.
fn sounds(frames: &[[i16; 2]]) -> Vec<(f64, [i16; 2])> {
    let mut found: Vec<(usize, usize, [i16; 2])> = Vec::new();
    for (index, frame) in frames.iter().enumerate() {
        if frame == &[0, 0] {
            continue;
        }
        match found.last_mut() {
            Some((_, last, peak)) if index - *last < 480 => {
                *last = index;
                for ear in 0..2 {
                    peak[ear] = peak[ear].max(frame[ear].saturating_abs());
                }
            }
            _ => found.push((index, index, frame.map(i16::saturating_abs))),
        }
    }
    found
        .into_iter()
        .map(|(start, _, peak)| (start as f64 / 48_000.0, peak))
        .collect()
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// The report's `ui` entries as (label, how, did).
fn presses(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["ui"]
        .as_array()
        .unwrap()
        .iter()
        .map(|press| {
            let text = |key: &str| press[key].as_str().unwrap().to_owned();
            (text("label"), text("how"), text("did"))
        })
        .collect()
}

#[test]
fn the_tour_opens_the_panel_picks_pauses_resumes_undoes_and_saves() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), "tour", TOUR, 540);
    let report = report(&out);
    let expected = [
        ("Landscapes", "poke", "open panel"),
        ("Badlands", "poke", "landscape"),
        ("Pause growth", "ray", "pause"),
        ("Resume growth", "voice", "resume"),
        ("Faster", "poke", "speed"),
        ("Undo", "poke", "undo"),
        ("Weather", "poke", "weather"),
        ("Save", "poke", "save"),
        ("Close", "ray", "close panel"),
    ]
    .map(|(label, how, did)| (label.to_owned(), how.to_owned(), did.to_owned()));
    assert_eq!(presses(&report), expected);
    // A fingertip's or a ray's press clicks as it begins and as it ends.
    let by_hand = expected.iter().filter(|(_, how, _)| how != "voice").count();
    assert_eq!(report["clicks"], 2 * by_hand as u64);
    let reseeds = report["reseeds"].as_array().unwrap();
    assert_eq!(reseeds.len(), 1, "{reseeds:?}");
    assert_eq!(reseeds[0]["cause"], "menu");
    assert_eq!(report["undos"][0]["undone"], "landscape");
    // Undo went back to the landscape before badlands.
    assert_eq!(report["recipe"], "demo");

    let commands = std::fs::read_to_string(out.join("commands.jsonl")).unwrap();
    // Every command is in the log, in the order pressed.
    let at: Vec<Option<usize>> = [
        "\"landscape\"",
        "\"pause\"",
        "\"resume\"",
        "\"speed\"",
        "\"undo\"",
        "\"weather\"",
    ]
    .into_iter()
    .map(|kind| commands.find(kind))
    .collect();
    assert!(
        at.iter().all(Option::is_some) && at.is_sorted(),
        "{at:?}: {commands}"
    );

    // The save holds every file, and its log grows its terrain again.
    let saved = out.join("save-001");
    for name in [
        "terrain.png",
        "terrain.glb",
        "terrain.3mf",
        "recipe.toml",
        "commands.jsonl",
        "picture.png",
    ] {
        assert!(saved.join(name).is_file(), "{name}");
    }
    let replayed = dir.path().join("replayed.png");
    let status = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["generate", "--replay"])
        .arg(saved.join("commands.jsonl"))
        .arg("--out")
        .arg(&replayed)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read(&replayed).unwrap(),
        std::fs::read(saved.join("terrain.png")).unwrap()
    );
}

#[test]
fn with_sound_each_press_clicks_as_it_begins_and_ends_heard_from_the_buttons_side() {
    let dir = tempfile::tempdir().unwrap();
    // The left palm shows the hand menu in front of the face; the right
    // index tip pushes "Landscapes" at 1.6 s, which opens the panel; the
    // head then turns to look 45° to the right, and at 2.8 s the fingertip
    // pushes "badlands" on the panel, now to the head's left.
    let script = "1.0 palm left 1.5\n1.6 press landscapes poke\n2.2 head 0 1.6 0 1 1.6 -1\n2.8 press badlands poke\n";
    let out = run_with(dir.path(), "sound", script, 240, true);
    let report = report(&out);
    assert_eq!(report["clicks"], 4);
    let bytes = std::fs::read(out.join("clicks.wav")).unwrap();
    let frames = wav_frames(&bytes);
    // As long as the run's display time: 240 frames at 60 Hz.
    assert_eq!(frames.len(), 4 * 48_000);
    let heard = sounds(&frames);
    assert_eq!(heard.len(), 4, "{heard:?}");
    // Each press's clicks after it was scripted (the fingertip takes a
    // moment to reach the button) and before the next event.
    for (start, _) in &heard[..2] {
        assert!((1.6..2.2).contains(start), "{heard:?}");
    }
    for (start, _) in &heard[2..] {
        assert!((2.8..3.5).contains(start), "{heard:?}");
    }
    let level = |peak: [i16; 2]| f64::from(peak[0]) / f64::from(peak[1]);
    // "Landscapes", in the hand menu's right-hand column, a little right
    // of straight ahead: the right ear louder, but not by much.
    for (_, peak) in &heard[..2] {
        assert!((0.8..0.97).contains(&level(*peak)), "{heard:?}");
    }
    // "badlands", to the left: the left ear louder.
    for (_, peak) in &heard[2..] {
        assert!(level(*peak) > 1.3, "{heard:?}");
    }
    // The same run writes the same sound, bit for bit.
    let again = run_with(dir.path(), "again", script, 240, true);
    assert_eq!(std::fs::read(again.join("clicks.wav")).unwrap(), bytes);
    // Without --sound there is no clicks.wav (and a stale one is cleared).
    let quiet = run_with(dir.path(), "again", script, 240, false);
    assert!(!quiet.join("clicks.wav").exists());
}

#[test]
fn labels_act_only_while_on_show() {
    let dir = tempfile::tempdir().unwrap();
    // No palm, no panel: neither the press nor the words do anything.
    let out = run(
        dir.path(),
        "hidden",
        "1.0 press pause growth poke\n1.5 say pause growth\n",
        150,
    );
    let report = report(&out);
    assert!(presses(&report).is_empty(), "{:?}", report["ui"]);
    let commands = std::fs::read_to_string(out.join("commands.jsonl")).unwrap();
    assert!(!commands.contains("pause"), "{commands}");
}

#[test]
fn a_press_of_a_label_never_shown_is_a_script_error_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.txt");
    std::fs::write(&script, "1.0 palm left 1\n2.0 press launch rockets poke\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args(["sim", "--frames", "2", "--script"])
        .arg(&script)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(
        stderr.contains("no button says `launch rockets`"),
        "{stderr}"
    );
    assert!(!dir.path().join("out").join("report.json").exists());
}

#[test]
fn leave_session_ends_this_headsets_part_and_the_hand_menu_offers_share_session_again() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    // Hosting from the start: the panel's "Leave session", then the palm
    // again, whose menu has "Share session" back in place of the code.
    let script = dir.path().join("leave.txt");
    std::fs::write(
        &script,
        "0.5 palm left 1.0\n0.9 press landscapes poke\n1.8 press leave session poke\n2.6 palm left 1.0\n3.0 press share session poke\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_holoterrain"))
        .args([
            "sim",
            "--resolution",
            "32x24",
            "--rate",
            "30",
            "--frames",
            "120",
        ])
        .args(["--size", "33x33", "--every", "100000", "--unlisted"])
        .args([
            "--share",
            "7-guitar-orbit",
            "--share-port",
            &port,
            "--script",
        ])
        .arg(&script)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("left session 7-guitar-orbit"), "{stderr}");
    let report = report(&out);
    let pressed: Vec<(String, String)> = presses(&report)
        .into_iter()
        .map(|(label, _, did)| (label, did))
        .collect();
    let expected = [
        ("Landscapes", "open panel"),
        ("Leave session", "leave session"),
        ("Share session", "share"),
    ]
    .map(|(label, did)| (label.to_owned(), did.to_owned()));
    assert_eq!(pressed, expected);
}

/// How many times `ear`'s samples change sign in the `seconds` from
/// `start`: twice the cycles a sound there holds.
fn sign_changes(frames: &[[i16; 2]], ear: usize, start: f64, seconds: f64) -> usize {
    let from = (start * 48_000.0) as usize;
    let to = from + (seconds * 48_000.0) as usize;
    frames[from..to]
        .windows(2)
        .filter(|pair| pair[0][ear] != 0 && (pair[0][ear] < 0) != (pair[1][ear] < 0))
        .count()
}

#[test]
fn a_release_clicks_higher_than_its_press_and_tracing_grabbing_and_letting_go_sound() {
    let dir = tempfile::tempdir().unwrap();
    // A press of "Landscapes" (its press and its release), then a fault
    // traced for a second, then the controller grabs the hologram and lets go.
    let script = "1.0 palm left 1.5\n1.6 press landscapes poke\n3.0 trace right 1.0 0.1 0.45 0.9 0.45\n5.0 grab right 0.5 0.1 0 0\n";
    let out = run_with(dir.path(), "feedback", script, 390, true);
    let report = report(&out);
    assert_eq!(report["clicks"], 2);
    let counted = &report["sounds"];
    assert_eq!(
        (&counted["press"], &counted["release"]),
        (&1.into(), &1.into())
    );
    assert_eq!(
        (&counted["grab"], &counted["let_go"]),
        (&1.into(), &1.into())
    );
    // One grain every 4 frames for about a second of tracing.
    let grains = counted["tracing"].as_u64().unwrap();
    assert!((12..=18).contains(&grains), "{grains} grains");

    let frames = wav_frames(&std::fs::read(out.join("clicks.wav")).unwrap());
    let heard = sounds(&frames);
    // Press, release, the loop (one sound: no silence between grains),
    // grab, let-go.
    assert_eq!(heard.len(), 5, "{heard:?}");
    let click = 0.004;
    let press = sign_changes(&frames, 1, heard[0].0, click);
    let release = sign_changes(&frames, 1, heard[1].0, click);
    assert!(
        release * 4 >= press * 5,
        "release {release} against press {press}"
    );
    let (loop_start, loop_peak) = heard[2];
    assert!((3.0..3.5).contains(&loop_start), "{heard:?}");
    let click_peak = heard[0].1[0].max(heard[0].1[1]);
    assert!(
        loop_peak[0].max(loop_peak[1]) * 3 < click_peak,
        "the loop is soft: {heard:?}"
    );
    let grab = sign_changes(&frames, 0, heard[3].0, 0.02);
    let let_go = sign_changes(&frames, 0, heard[4].0, 0.02);
    assert!((5.0..5.2).contains(&heard[3].0), "{heard:?}");
    assert!(
        let_go * 4 >= grab * 5,
        "let-go {let_go} against grab {grab}"
    );
}

/// The menu tour run with "Save terrain" writing into `state`.
fn tour_saving_into(dir: &Path, name: &str, state: PathBuf) -> PathBuf {
    let out = dir.join(name);
    let path = dir.join(format!("{name}.txt"));
    std::fs::write(&path, TOUR).unwrap();
    let args = SimArgs {
        frames: 540,
        world: WorldArgs {
            seed: 5,
            size: Size {
                width: 33,
                height: 33,
            },
            ..WorldArgs::default()
        },
        resolution: Size {
            width: 64,
            height: 36,
        },
        script: Some(path),
        out: out.clone(),
        every: 1000,
        state: Some(state),
        ..SimArgs::default()
    };
    sim::run(&args).unwrap();
    out
}

/// The report's toasts as (frame, text).
fn toasts(report: &serde_json::Value) -> Vec<(u64, String)> {
    report["toasts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|toast| {
            (
                toast["frame"].as_u64().unwrap(),
                toast["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_save_an_undo_and_words_heard_show_toasts_and_a_failed_save_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let out = tour_saving_into(dir.path(), "saved", state.clone());
    let saved = report(&out);
    let shown = toasts(&saved);
    let texts: Vec<&str> = shown.iter().map(|(_, text)| text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Heard: resume growth",
            "Undid the landscape",
            "Saved as save-001"
        ],
        "{shown:?}"
    );
    assert!(state.join("save-001").is_dir());
    // The save's toast shows on the frame after its press.
    let save_press = saved["ui"]
        .as_array()
        .unwrap()
        .iter()
        .find(|press| press["label"] == "Save")
        .unwrap();
    assert_eq!(save_press["did"], "save");
    assert_eq!(shown[2].0, save_press["frame"].as_u64().unwrap() + 1);

    // A state "folder" that is a file: the save cannot be written.
    let blocked = dir.path().join("blocked");
    std::fs::write(&blocked, "not a folder").unwrap();
    let out = tour_saving_into(dir.path(), "failed", blocked);
    let failed = report(&out);
    let shown = toasts(&failed);
    let last = &shown.last().unwrap().1;
    assert!(last.starts_with("Save failed: "), "{shown:?}");
    assert!(
        !last.contains("blocked"),
        "the reason, not the path: {last}"
    );
    let did: Vec<String> = presses(&failed)
        .into_iter()
        .filter(|(label, _, _)| label == "Save")
        .map(|(_, _, did)| did)
        .collect();
    assert_eq!(did, ["save failed"]);
}
