//! `holoterrain sim --device hololens2` end to end: the eyes' pictures and the capture take HoloLens 2's aspect, and the report's `menus` measures the hand menu and the landscapes panel as they open, the same whichever device's eyes look at them.
use std::path::Path;

use clap::Parser;
use holoterrain::cli::{Cli, Command};
use holoterrain::sim::{self, SimArgs};
use serde_json::Value;

/// The left palm up, then "Landscapes" pushed: the hand menu opens, then
/// the panel in its place.
const MENUS: &str = "1.0 palm left 1.5\n1.6 press landscapes poke\n";

/// `holoterrain sim ARGS` as the command line reads them: a 2.5 s run of
/// [`MENUS`] on a small map, writing only its last frame into `out`.
fn sim_args(dir: &Path, out: &str, args: &[&str]) -> SimArgs {
    let script = dir.join("menus.txt");
    std::fs::write(&script, MENUS).unwrap();
    let (script, out) = (script.to_str().unwrap(), dir.join(out));
    let base = [
        "holoterrain",
        "sim",
        "--frames",
        "150",
        "--size",
        "33x33",
        "--seed",
        "5",
        "--every",
        "1000",
        "--script",
        script,
        "--out",
        out.to_str().unwrap(),
    ];
    match Cli::try_parse_from([&base[..], args].concat())
        .unwrap()
        .command
    {
        Command::Sim(args) => args,
        _ => unreachable!("a sim command line"),
    }
}

/// A PNG's width and height.
fn png_size(path: &Path) -> (u32, u32) {
    let file = std::fs::File::open(path).unwrap();
    let info = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    (info.info().width, info.info().height)
}

/// The report.json in `out`.
fn read_report(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// The report's `menus` entry named `name`, its only one.
fn opened<'a>(report: &'a Value, name: &str) -> &'a Value {
    let menus: Vec<&Value> = report["menus"]
        .as_array()
        .expect("menus")
        .iter()
        .filter(|menu| menu["name"] == name)
        .collect();
    assert_eq!(menus.len(), 1, "{name} opened once: {}", report["menus"]);
    menus[0]
}

#[test]
fn hololens2_pictures_are_3_to_2_and_the_report_measures_each_menu_as_it_opens() {
    let dir = tempfile::tempdir().unwrap();
    let args = sim_args(
        dir.path(),
        "hololens2",
        &["--device", "hololens2", "--capture"],
    );
    sim::run(&args).unwrap();
    let out = dir.path().join("hololens2");
    // Both eyes side by side, each 320x210; the capture 1280x840: 43° × 29°.
    let (width, height) = png_size(&out.join("frame-00149.png"));
    assert_eq!((width, height), (640, 210));
    let (capture_width, capture_height) = png_size(&out.join("capture-00149.png"));
    for aspect in [
        width as f32 / 2.0 / height as f32,
        capture_width as f32 / capture_height as f32,
    ] {
        assert!((aspect - 1.5).abs() < 0.05, "{aspect}");
    }
    let report = read_report(&out);
    let hand_menu = opened(&report, "hand menu");
    let panel = opened(&report, "landscapes panel");
    // The hand menu shows while the palm is up (from 0.7 s), the panel
    // once "Landscapes" is pushed (its release, before 2.1 s).
    let frame = |menu: &Value| menu["frame"].as_u64().unwrap();
    assert!((40..96).contains(&frame(hand_menu)), "{hand_menu}");
    assert!((frame(hand_menu)..126).contains(&frame(panel)), "{panel}");
    let number = |menu: &Value, key: &str| menu[key].as_f64().unwrap();
    // Three rows of buttons 3.4 cm tall at 0.42 m: inside HoloLens 2's
    // 29° up and down, as Microsoft's hand menu guidance asks.
    let hand_height = number(hand_menu, "height_deg");
    assert!((10.0..=29.0).contains(&hand_height), "{hand_menu}");
    for menu in [hand_menu, panel] {
        assert!(number(menu, "height_deg") > 0.0, "{menu}");
        assert!(number(menu, "width_deg") > 0.0, "{menu}");
        assert!(number(menu, "width_deg") <= 43.0, "{menu}");
        // Every text at least 0.65° tall, every label 4.5 : 1 on its plate
        // in every look.
        let text = number(menu, "min_text_deg");
        assert!(text >= 0.65 && text < number(menu, "height_deg"), "{menu}");
        assert!(number(menu, "min_contrast") >= 4.5, "{menu}");
        assert!(number(menu, "min_contrast") <= 21.0, "{menu}");
    }
    println!("hololens2 menus: {}", report["menus"]);

    // The desktop's wider eyes see the same menus, opened on the same
    // frames and measured alike: the measure is of the world, not the display.
    sim::run(&sim_args(dir.path(), "desktop", &["--resolution", "64x36"])).unwrap();
    let desktop = read_report(&dir.path().join("desktop"));
    println!("desktop menus: {}", desktop["menus"]);
    assert_eq!(desktop["menus"], report["menus"]);
}
