//! The desktop OpenXR simulator as a person uses it: `scripts/desktop-sim.sh`
//! (Monado's qwerty driver with its windows, and `holoterrain xr`) on an Xvfb
//! X server, driven with xdotool's key and mouse events; and `holoterrain xr`
//! ending its session cleanly on SIGTERM.
//!
//! Needs root, the Debian mirror the first time (the Monado chroot is
//! cached), and Xvfb, xdotool and ImageMagick's `import` (scripts/install-deps.sh
//! test); without them the tests print why they are skipped, unless env CI
//! is set, when they fail instead. The desktop test keeps its screenshots and
//! the run's report in `target/tmp/xr desktop/` (a space in its name, so
//! desktop-sim.sh binds a path with one into the chroot).

// Shared with tests/xr_monado.rs; this file uses only part of it.
#[allow(dead_code)]
mod support;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::monado::{self, Mode};

/// How long any one condition may take to come true (the chroot's run lock
/// may first wait for another test's run; the machine may be busy).
const PATIENCE: Duration = Duration::from_secs(300);
/// The X screen: wide enough for Monado's 640×360 compositor window and,
/// beside it, its 1920×1080 debug window.
const SCREEN: &str = "2600x1100x24";
/// Where the debug window is moved to, clear of the compositor window at (0, 0).
const DEBUG_WINDOW_AT: (u32, u32) = (700, 0);
/// A point inside the debug window where no widget is (its panels sit at the
/// top left), so a click there only reaches the qwerty driver.
const EMPTY_DEBUG_POINT: (u32, u32) = (2000, 800);
/// A pixel channel brighter than this is not the app's black clear colour.
const CLEAR_THRESHOLD: u8 = 24;
/// Fewest terrain pixels each eye's half of the window must show.
const MIN_TERRAIN_PIXELS: usize = 200;
/// Fewest pixels the terrain must move right when the head turns left
/// (about 4° here; Left turns the qwerty head about 1.1° per Monado frame).
const MIN_TURN_SHIFT_PX: f64 = 15.0;

/// What the app has said so far, from its `--progress` lines.
#[derive(Debug, Default)]
struct Said {
    /// Every output line, stdout and stderr interleaved as read.
    lines: Vec<String>,
    /// The last "frame N" number.
    frames: u64,
    /// How many "reseed select SEED" lines.
    select_reseeds: usize,
    /// How many "select down right" lines: the app saw the trigger go down.
    right_selects: usize,
    /// A "state FOCUSED" line came.
    focused: bool,
}

/// A child's output, read by threads, with waiting for conditions on it.
struct Watched {
    /// What has been said, and the signal that more was.
    said: Arc<(Mutex<Said>, Condvar)>,
}

impl Watched {
    fn collect(child: &mut Child) -> Self {
        let said = Arc::new((Mutex::new(Said::default()), Condvar::new()));
        let readers: Vec<Box<dyn Read + Send>> = vec![
            Box::new(child.stdout.take().expect("piped stdout")),
            Box::new(child.stderr.take().expect("piped stderr")),
        ];
        for reader in readers {
            let said = Arc::clone(&said);
            std::thread::spawn(move || {
                for line in BufReader::new(reader).lines().map_while(Result::ok) {
                    let (state, changed) = &*said;
                    let mut state = state.lock().unwrap();
                    if let Some(frames) = line
                        .strip_prefix("frame ")
                        .and_then(|number| number.parse().ok())
                    {
                        state.frames = frames;
                    }
                    if line == "select down right" {
                        state.right_selects += 1;
                    }
                    if line.starts_with("reseed select ") {
                        state.select_reseeds += 1;
                    }
                    if line == "state FOCUSED" {
                        state.focused = true;
                    }
                    state.lines.push(line);
                    changed.notify_all();
                }
            });
        }
        Self { said }
    }

    /// Waits until `condition` holds and returns what was said then.
    fn wait_until<T>(&self, what: &str, condition: impl Fn(&Said) -> Option<T>) -> T {
        let (state, changed) = &*self.said;
        let deadline = Instant::now() + PATIENCE;
        let mut state = state.lock().unwrap();
        loop {
            if let Some(value) = condition(&state) {
                return value;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "gave up waiting for {what}; output:\n{}",
                state.lines.join("\n")
            );
            state = changed.wait_timeout(state, left).unwrap().0;
        }
    }

    fn frames(&self) -> u64 {
        self.said.0.lock().unwrap().frames
    }

    /// Waits until `count` more frames than now have been rendered; returns the frame count.
    fn wait_frames(&self, count: u64) -> u64 {
        let target = self.frames() + count;
        self.wait_until(&format!("frame {target}"), |said| {
            (said.frames >= target).then_some(said.frames)
        })
    }

    fn text(&self) -> String {
        self.said.0.lock().unwrap().lines.join("\n")
    }

    /// How many lines were `line` so far.
    fn count(&self, line: &str) -> usize {
        count_lines(&self.said.0.lock().unwrap(), line)
    }

    /// Waits until `line` has been said `times` times in all.
    fn wait_line(&self, line: &str, times: usize) {
        self.wait_until(&format!("{line:?} said {times} times"), |said| {
            (count_lines(said, line) >= times).then_some(())
        });
    }

    /// The last line starting with `prefix`, if any.
    fn last_starting(&self, prefix: &str) -> Option<String> {
        let said = self.said.0.lock().unwrap();
        said.lines
            .iter()
            .rev()
            .find(|line| line.starts_with(prefix))
            .cloned()
    }
}

/// An Xvfb server on a display number it picked itself; stopped on drop.
struct Xvfb {
    /// The server process.
    child: Child,
    /// ":N".
    display: String,
}

impl Xvfb {
    fn start(log: &Path) -> Self {
        let log_file = std::fs::File::create(log).expect("create the Xvfb log");
        // -displayfd: Xvfb picks a free display number and writes it there
        // once it accepts connections.
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-nolisten",
                "tcp",
                "-screen",
                "0",
                SCREEN,
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .expect("start Xvfb");
        let mut number = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut number)
            .expect("read Xvfb's display number");
        let number = number.trim();
        assert!(
            !number.is_empty(),
            "Xvfb did not start; its log is {}",
            log.display()
        );
        Self {
            child,
            display: format!(":{number}"),
        }
    }

    /// Runs xdotool with `args` on this display (at most PATIENCE) and returns its output.
    fn xdotool(&self, args: &[&str]) -> String {
        let output = Command::new("timeout")
            .arg(PATIENCE.as_secs().to_string())
            .arg("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .expect("run xdotool");
        assert!(
            output.status.success(),
            "xdotool {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// The first window whose name matches `pattern`, waiting until one is mapped.
    fn window(&self, pattern: &str) -> String {
        let found = self.xdotool(&["search", "--sync", "--onlyvisible", "--name", pattern]);
        found
            .lines()
            .next()
            .unwrap_or_else(|| panic!("no window named {pattern}"))
            .to_owned()
    }

    /// Writes a PNG screenshot of `window` to `path` and decodes it.
    fn screenshot(&self, window: &str, path: &Path) -> Image {
        let status = Command::new("import")
            .args(["-window", window])
            .arg(format!("PNG24:{}", path.display()))
            .env("DISPLAY", &self.display)
            .status()
            .expect("run import");
        assert!(status.success(), "import -window {window} failed");
        Image::read(path)
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An RGB screenshot.
struct Image {
    /// Width in pixels.
    width: usize,
    /// Height in pixels.
    height: usize,
    /// Row-major RGB bytes.
    rgb: Vec<u8>,
}

impl Image {
    fn read(path: &Path) -> Self {
        let mut decoder = png::Decoder::new(BufReader::new(
            std::fs::File::open(path).expect("open the screenshot"),
        ));
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().expect("screenshot is a PNG");
        let mut buffer = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader
            .next_frame(&mut buffer)
            .expect("decode the screenshot");
        let channels = info.color_type.samples();
        let rgb = buffer[..info.buffer_size()]
            .chunks(channels)
            .flat_map(|pixel| match channels {
                1 | 2 => [pixel[0]; 3],
                _ => [pixel[0], pixel[1], pixel[2]],
            })
            .collect();
        Self {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    /// The terrain (non-clear) pixels' count and mean x (relative to the
    /// half) in the left (0) or right (1) half: one eye each.
    fn terrain_in_half(&self, half: usize) -> (usize, f64) {
        let half_width = self.width / 2;
        let mut count = 0;
        let mut x_sum = 0.0;
        for y in 0..self.height {
            for x in 0..half_width {
                let at = (y * self.width + half * half_width + x) * 3;
                if self.rgb[at..at + 3].iter().any(|&c| c > CLEAR_THRESHOLD) {
                    count += 1;
                    x_sum += x as f64;
                }
            }
        }
        (count, if count > 0 { x_sum / count as f64 } else { 0.0 })
    }
}

/// The folder that keeps this test's screenshots and report, emptied first;
/// the script runs in it. Its name holds a space, which must reach the
/// chroot whole (desktop-sim.sh binds the current directory).
fn count_lines(said: &Said, line: &str) -> usize {
    said.lines.iter().filter(|said| *said == line).count()
}

/// Clicks the focused controller's trigger (select) with the left mouse
/// button: pressed until the app has seen it go down (the `nth` "select down
/// right" in the run), then at once released, well within the 0.35 s a click
/// may last (a fixed number of frames could miss the press, or on a loaded
/// machine outlast the click).
fn click_select(xvfb: &Xvfb, app: &Watched, nth: usize) {
    xvfb.xdotool(&["mousedown", "1"]);
    app.wait_until(&format!("select down {nth}"), |said| {
        (said.right_selects >= nth).then_some(())
    });
    xvfb.xdotool(&["mouseup", "1"]);
}

fn output_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("xr desktop");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the output folder");
    dir
}

/// Whether `tool` can be run (it is on PATH).
fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

fn read_report(path: &Path, output: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| {
        panic!(
            "no report at {} ({error}); output:\n{output}",
            path.display()
        )
    });
    serde_json::from_str(&text).expect("report is JSON")
}

fn states(report: &Value) -> Vec<&str> {
    report["session_states"]
        .as_array()
        .expect("session_states")
        .iter()
        .map(|state| state.as_str().unwrap())
        .collect()
}

/// Sends SIGTERM, as a desktop or a script stops a program, to `pid`.
fn terminate(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -TERM {pid} failed");
}

/// The child, stopped with SIGTERM and waited for if the test panics.
struct Stopping(Child);

impl Drop for Stopping {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            terminate(self.0.id());
            let _ = self.0.wait();
        }
    }
}

/// Asserts both eyes' halves of `image` show terrain; returns each half's (count, mean x).
fn assert_terrain_in_both_eyes(image: &Image, name: &str) -> [(usize, f64); 2] {
    let halves = [image.terrain_in_half(0), image.terrain_in_half(1)];
    for (eye, (count, _)) in ["left", "right"].iter().zip(halves) {
        assert!(
            count >= MIN_TERRAIN_PIXELS,
            "{name}: the {eye} eye shows {count} terrain pixels, fewer than {MIN_TERRAIN_PIXELS}"
        );
    }
    halves
}

/// Whether both eyes in `image` show terrain whose mean x lies at least
/// MIN_TURN_SHIFT_PX right of where `before` had it.
fn turned(before: &[(usize, f64); 2], image: &Image) -> bool {
    (0..2).all(|half| {
        let (count, x) = image.terrain_in_half(half);
        count >= MIN_TERRAIN_PIXELS && x - before[half].1 >= MIN_TURN_SHIFT_PX
    })
}

#[test]
fn desktop_simulator_window_keys_and_mouse_drive_the_app() {
    for tool in ["Xvfb", "xdotool", "import"] {
        if !have(tool) {
            monado::skip(&format!(
                "{tool} is missing (scripts/install-deps.sh test installs it)"
            ));
            return;
        }
    }
    if !monado::chroot_ready() {
        return;
    }
    let out = output_dir();
    let xvfb = Xvfb::start(&out.join("xvfb.log"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/desktop-sim.sh");
    let mut child = Command::new(&script)
        .args([
            "--",
            "--validation",
            "--progress",
            "--report",
            "report.json",
        ])
        .current_dir(&out)
        .env("DISPLAY", &xvfb.display)
        .env_remove("XAUTHORITY")
        .env("HOLOTERRAIN_BIN", monado::binary())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start scripts/desktop-sim.sh");
    let app = Watched::collect(&mut child);
    let mut run = Stopping(child);

    app.wait_until("state FOCUSED", |said| said.focused.then_some(()));
    let compositor = xvfb.window("^Monado$");
    let debug = xvfb.window("^Monado!");
    let (x, y) = DEBUG_WINDOW_AT;
    xvfb.xdotool(&[
        "windowmove",
        "--sync",
        &debug,
        &x.to_string(),
        &y.to_string(),
    ]);
    // Let the hologram be placed and drawn, and the window show it.
    app.wait_until("frame 10", |said| (said.frames >= 10).then_some(()));
    app.wait_frames(2);
    let before = xvfb.screenshot(&compositor, &out.join("before-turn.png"));
    let before_eyes = assert_terrain_in_both_eyes(&before, "before the head turned");

    // Turn the head left as a person does: hold Left over the focused debug
    // window until the view has turned, then let the window catch up.
    xvfb.xdotool(&["windowfocus", "--sync", &debug]);
    xvfb.xdotool(&["keydown", "Left"]);
    let deadline = Instant::now() + PATIENCE;
    let turning = out.join("turning.png");
    while !turned(&before_eyes, &xvfb.screenshot(&compositor, &turning)) {
        assert!(
            Instant::now() < deadline,
            "the view did not turn while Left was held; output:\n{}",
            app.text()
        );
    }
    xvfb.xdotool(&["keyup", "Left"]);
    app.wait_frames(3);
    let after = xvfb.screenshot(&compositor, &out.join("after-turn.png"));
    let after_eyes = assert_terrain_in_both_eyes(&after, "after the head turned");
    for (eye, ((_, x_before), (_, x_after))) in ["left", "right"]
        .iter()
        .zip(before_eyes.iter().zip(&after_eyes))
    {
        assert!(
            x_after - x_before >= MIN_TURN_SHIFT_PX,
            "turning the head left must move the terrain right in the {eye} eye: mean x {x_before:.1} -> {x_after:.1}"
        );
    }

    // Click the right controller's trigger (select) twice with the left
    // mouse button; each click reseeds on its release.
    let (x, y) = EMPTY_DEBUG_POINT;
    xvfb.xdotool(&["mousemove", "--sync", &x.to_string(), &y.to_string()]);
    let mut press_windows = Vec::new();
    for press in 1..=2 {
        let pressed_at = app.frames();
        click_select(&xvfb, &app, press);
        app.wait_until(&format!("select reseed {press}"), |said| {
            (said.select_reseeds >= press).then_some(())
        });
        let reseeded_at = app.frames();
        press_windows.push((pressed_at, reseeded_at));
        app.wait_frames(2);
    }
    // The controller's menu button (N on Monado 25's qwerty controllers,
    // which it presents as Windows Mixed Reality motion controllers) opens
    // the hand menu with its top button on the controller's ray, and select
    // presses it.
    xvfb.xdotool(&["keydown", "n"]);
    app.wait_line("menu down right", 1);
    xvfb.xdotool(&["keyup", "n"]);
    app.wait_line("ray right on New terrain", 1);
    app.wait_frames(2);
    xvfb.screenshot(&compositor, &out.join("controller-menu.png"));
    click_select(&xvfb, &app, 3);
    app.wait_line("pressed ray New terrain", 1);
    // Turn the controller right (right mouse button dragged while Left Alt
    // holds the right controller) a little at a time until its ray is on
    // the next button, beside it in the menu's second column, then press
    // that one: the landscapes panel opens.
    xvfb.xdotool(&["keydown", "Alt_L"]);
    xvfb.xdotool(&["mousedown", "3"]);
    let deadline = Instant::now() + PATIENCE;
    while app.count("ray right on Landscapes") == 0 {
        assert!(
            Instant::now() < deadline,
            "turning the controller right never brought its ray onto \"Landscapes\"; output:\n{}",
            app.text()
        );
        xvfb.xdotool(&["mousemove_relative", "--", "2", "0"]);
        app.wait_frames(1);
    }
    xvfb.xdotool(&["mouseup", "3"]);
    xvfb.xdotool(&["keyup", "Alt_L"]);
    app.wait_frames(2);
    assert_eq!(
        app.last_starting("ray right ").as_deref(),
        Some("ray right on Landscapes"),
        "the ray stays on the button once the controller is let go"
    );
    xvfb.xdotool(&["mousemove", "--sync", &x.to_string(), &y.to_string()]);
    click_select(&xvfb, &app, 4);
    app.wait_line("pressed ray Landscapes", 1);
    app.wait_frames(3);
    xvfb.screenshot(&compositor, &out.join("landscapes-panel.png"));

    // Kept for a developer to look at: the qwerty driver's panel and help.
    xvfb.screenshot(&debug, &out.join("debug-window.png"));

    terminate(run.0.id());
    let status = run.0.wait().expect("wait for desktop-sim.sh");
    let output = app.text();
    assert!(status.success(), "exit {status}; output:\n{output}");
    let report = read_report(&out.join("report.json"), &output);
    assert_eq!(
        report["system"], "Monado: Qwerty HMD",
        "the qwerty driver ran"
    );
    let reseeds = report["reseeds"].as_array().expect("reseeds");
    let causes: Vec<_> = reseeds.iter().map(|reseed| &reseed["cause"]).collect();
    assert_eq!(
        causes,
        ["select", "select", "menu"],
        "two clicks reseed, then \"New terrain\" on the menu does, and no select on a button does"
    );
    let ui: Vec<_> = report["ui"]
        .as_array()
        .expect("ui")
        .iter()
        .map(|press| (press["label"].as_str(), press["how"].as_str()))
        .collect();
    assert_eq!(
        ui,
        [
            (Some("New terrain"), Some("ray")),
            (Some("Landscapes"), Some("ray"))
        ],
        "the controller's ray pressed both buttons"
    );
    for (reseed, (pressed_at, released_at)) in reseeds.iter().zip(&press_windows) {
        assert_eq!(reseed["cause"], "select", "{reseed}");
        let frame = reseed["frame"].as_u64().expect("frame");
        assert!(
            (*pressed_at..=*released_at).contains(&frame),
            "reseed at frame {frame} outside its click, frames {pressed_at}..={released_at}"
        );
    }
    monado::assert_validation_silent(&report, &output);
    let states = states(&report);
    assert!(
        states.contains(&"STOPPING"),
        "ended through STOPPING: {states:?}"
    );
    assert_eq!(
        states.last(),
        Some(&"EXITING"),
        "ended by EXITING: {states:?}"
    );
}

#[test]
fn sigterm_ends_the_session_cleanly_and_writes_the_report() {
    if !monado::chroot_ready() {
        return;
    }
    let scratch = monado::scratch_dir();
    let report_path = scratch.path().join("report.json");
    let mut child = monado::spawn_xr(
        Mode::Simulated,
        scratch.path(),
        &["--progress", "--report", report_path.to_str().unwrap()],
    );
    let app = Watched::collect(&mut child);
    let mut run = Stopping(child);
    app.wait_until("state FOCUSED", |said| said.focused.then_some(()));
    let pid = monado::find_app_process(run.0.id()).expect("holoterrain runs in the chroot");
    terminate(pid);
    let status: ExitStatus = run.0.wait().expect("wait for the chroot run");
    let output = app.text();
    assert!(status.success(), "exit {status}; output:\n{output}");
    let report = read_report(&report_path, &output);
    let states = states(&report);
    assert!(
        states.contains(&"STOPPING"),
        "ended through STOPPING: {states:?}"
    );
    assert_eq!(
        states.last(),
        Some(&"EXITING"),
        "ended by EXITING: {states:?}"
    );
}
