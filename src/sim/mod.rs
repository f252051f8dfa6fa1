//! `holoterrain sim`: the headless simulator — a virtual clock, a simulated user and offscreen stereo rendering driving the same app core as the headset.
//!
//! Each frame: the simulated user ([`user::SimulatedUser`]) turns the
//! gesture script into head, eye and hand-joint poses and the voice command
//! said since the last frame, and the room (`--room`, [`room::Room`]) gives
//! the surfaces and the printed codes in sight ([`markers`]); [`App::update`] runs the real recognisers, placement and
//! growth; the offscreen renderer draws
//! both eyes. Every `--every` frames (and on the last) both eyes are written
//! side by side as a PNG (and, with `--capture`, the observer camera's
//! RGBA picture beside it, [`capture`]); at the end, `commands.jsonl` (the command log)
//! and `report.json`. With `--state DIR` the placement is kept in
//! `DIR/placement.json` after every manipulation and the next run with that
//! folder starts from it. With `--replay FILE` a command log drives the
//! frames instead of a gesture script: the same commands on the same frames.
//! The simulated user acts on the script's clock, which is the display's
//! until a scripted `wait` holds it for another headset ([`wait`]).
pub mod capture;
mod error;
pub mod markers;
pub mod output;
pub mod room;
pub mod script;
pub mod share;
pub mod user;
pub mod wait;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::app::driver::{self, FrameDriver, WorldArgs};
use crate::app::kept::{self, KeptIn, KeptPlacement};
use crate::app::log::{CommandLog, LogError, LogStart};
use crate::app::recorder::RunRecorder;
use crate::app::{AppEvent, FrameInput, FrameOutput, Kept, Surface};
use crate::input::Pose;
use crate::net::Session;
use crate::render::backend::{Backend, OffscreenOptions, StereoImage, StereoRenderer};
use crate::render::offscreen;
use crate::render::scene::Display;
use crate::render::scene::FrameScene;
use crate::size::Size;
use crate::sound::Recording;
use crate::terrain::export::{self, Format};
pub use error::SimError;
use output::ApngWriter;
pub use output::SimReport;
use room::Room;
use script::{Action, Script};
use user::SimulatedUser;
use wait::{ScriptClock, Standing};

/// Largest heightmap side the simulator accepts.
pub const MAX_MAP_SIDE: usize = 8193;
/// Smallest and largest per-eye image side.
pub const EYE_SIDE_RANGE: (u32, u32) = (16, 4096);
/// Frame rates the simulator accepts, Hz.
pub const RATE_RANGE: (f64, f64) = (10.0, 1000.0);
/// Most frames one run may simulate.
pub const MAX_FRAMES: u64 = 1_000_000;

/// Options of `holoterrain sim`; with none it runs a short demo (growth,
/// one air-tap reseed half way, more growth) into `sim-out/`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct SimArgs {
    /// Frames to simulate (and as many more as the script's waits take).
    #[arg(long, default_value_t = 360)]
    pub frames: u64,
    /// Virtual display rate, Hz.
    #[arg(long, default_value_t = 60.0)]
    pub rate: f64,
    /// The world the run starts from.
    #[command(flatten)]
    pub world: WorldArgs,
    /// Image size of each eye, WIDTHxHEIGHT pixels.
    #[arg(long, default_value = "320x240")]
    pub resolution: Size,
    /// Gesture script (see docs/simulator.md); default: one air-tap at half time.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Replay a command log (an earlier run's commands.jsonl) instead of a
    /// gesture script: its seed, size and commands, on the frames they
    /// applied in; give the run's other flags (--frames, --rate) again.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["script", "recipe", "seed", "size"])]
    pub replay: Option<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "sim-out")]
    pub out: PathBuf,
    /// Write a PNG every N frames (the last frame is always written).
    #[arg(long, default_value_t = 30)]
    pub every: u64,
    /// Also write growth.png, an animated PNG of the snapshots.
    #[arg(long)]
    pub apng: bool,
    /// Also write clicks.wav: the controls' clicks as the wearer hears
    /// them (16-bit stereo, 48 kHz) on the display clock, each placed from
    /// its button relative to the head (docs/simulator.md).
    #[arg(long)]
    pub sound: bool,
    /// Turn on the Vulkan validation layer (with d3d11: the Direct3D 11
    /// debug layer) and count its messages.
    #[arg(long)]
    pub validation: bool,
    /// Graphics API that draws the frames; d3d11 only in the Windows build.
    #[arg(long, value_enum, default_value_t = Backend::Vulkan)]
    pub renderer: Backend,
    /// The room's surfaces, one `surface X Y Z W D` a line (see
    /// docs/simulator.md); without it the room has none.
    #[arg(long, value_name = "FILE")]
    pub room: Option<PathBuf>,
    /// Keep the hologram's placement in DIR/placement.json after every
    /// move, turn or scale, and start from it next time; without it every
    /// run starts afresh.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// The display the frames are drawn for: additive (see-through, as
    /// HoloLens 2 and the test runtime) lifts the shaded slopes; opaque (a
    /// VR headset) has a normal ambient.
    #[arg(long, value_enum, default_value_t = Display::Additive)]
    pub blend: Display,
    /// Also write capture-NNNNN.png beside every frame-NNNNN.png: the
    /// hologram from a photo camera at the head (about 64° across), RGBA
    /// with the background transparent.
    #[arg(long)]
    pub capture: bool,
    /// The capture's size, WIDTHxHEIGHT pixels.
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    pub capture_size: Size,
    /// Host a shared session (docs/shared.md): with a code of your own
    /// (NUMBER-word-word), or without one to have one made; peers join
    /// with it. Display time then follows the wall clock.
    #[arg(long, value_name = "CODE", num_args = 0..=1, default_missing_value = "",
          conflicts_with_all = ["replay", "join"])]
    pub share: Option<String>,
    /// The port a shared session listens on.
    #[arg(long, value_name = "PORT", default_value_t = crate::net::DEFAULT_SHARE_PORT)]
    pub share_port: u16,
    /// Host without advertising the session's number on the local network
    /// (DNS-SD): peers then join with CODE@HOST. With --share, or for the
    /// session a script's press of "Share session" hosts.
    #[arg(long)]
    pub unlisted: bool,
    /// Join the shared session CODE hosted at HOST (PORT: the default of
    /// --share-port), or without @HOST wherever the local network says its
    /// host is (DNS-SD); the host's recipe, seed and size are grown.
    #[arg(long, value_name = "CODE[@HOST[:PORT]]",
          conflicts_with_all = ["replay", "recipe", "seed", "size"])]
    pub join: Option<String>,
}

impl Default for SimArgs {
    fn default() -> Self {
        SimArgs {
            frames: 360,
            rate: 60.0,
            world: WorldArgs::default(),
            resolution: Size {
                width: 320,
                height: 240,
            },
            script: None,
            replay: None,
            out: PathBuf::from("sim-out"),
            every: 30,
            apng: false,
            sound: false,
            validation: false,
            renderer: Backend::Vulkan,
            room: None,
            state: None,
            blend: Display::Additive,
            capture: false,
            capture_size: Size {
                width: capture::DEFAULT_CAPTURE_SIZE.0,
                height: capture::DEFAULT_CAPTURE_SIZE.1,
            },
            share: None,
            share_port: crate::net::DEFAULT_SHARE_PORT,
            unlisted: false,
            join: None,
        }
    }
}

/// Checks every flag, naming the first that is out of range.
pub fn validate(args: &SimArgs) -> Result<(), SimError> {
    if !(1..=MAX_FRAMES).contains(&args.frames) {
        return Err(SimError::invalid(
            "frames",
            format!("must be 1 to {MAX_FRAMES}, got {}", args.frames),
        ));
    }
    if !(RATE_RANGE.0..=RATE_RANGE.1).contains(&args.rate) {
        return Err(SimError::invalid(
            "rate",
            format!(
                "must be {} to {} Hz, got {}",
                RATE_RANGE.0, RATE_RANGE.1, args.rate
            ),
        ));
    }
    if let Some(problem) = map_size_problem(args.world.size) {
        return Err(SimError::invalid("size", problem));
    }
    let eye_sides = EYE_SIDE_RANGE.0..=EYE_SIDE_RANGE.1;
    if !eye_sides.contains(&args.resolution.width) || !eye_sides.contains(&args.resolution.height) {
        return Err(SimError::invalid(
            "resolution",
            format!(
                "each side must be {} to {} pixels, got {}",
                EYE_SIDE_RANGE.0, EYE_SIDE_RANGE.1, args.resolution
            ),
        ));
    }
    if !eye_sides.contains(&args.capture_size.width)
        || !eye_sides.contains(&args.capture_size.height)
    {
        return Err(SimError::invalid(
            "capture-size",
            format!(
                "each side must be {} to {} pixels, got {}",
                EYE_SIDE_RANGE.0, EYE_SIDE_RANGE.1, args.capture_size
            ),
        ));
    }
    if args.every == 0 {
        return Err(SimError::invalid("every", "must be at least 1"));
    }
    if args.world.forget_placement && args.state.is_none() {
        return Err(SimError::invalid(
            "forget-placement",
            "needs --state DIR: without it the simulator keeps no placement to forget",
        ));
    }
    #[cfg(not(windows))]
    if args.renderer == Backend::D3d11 {
        return Err(SimError::invalid(
            "renderer",
            "d3d11 exists only in the Windows build (holoterrain.exe); use --renderer vulkan",
        ));
    }
    Ok(())
}

/// What is wrong with a heightmap of `size`, if anything.
fn map_size_problem(size: Size) -> Option<String> {
    let map_sides = 2..=MAX_MAP_SIDE as u32;
    (!map_sides.contains(&size.width) || !map_sides.contains(&size.height))
        .then(|| format!("each side must be 2 to {MAX_MAP_SIDE} samples, got {size}"))
}

/// Display time of `frame` at `rate` Hz in nanoseconds, rounded up so the
/// frame at a scripted time t is the first whose time is at or after t.
pub fn frame_time_ns(frame: u64, rate: f64) -> i64 {
    (frame as f64 * 1e9 / rate).ceil() as i64
}

/// The simulator's display clock: frame n is shown at n / rate seconds, plus
/// every scripted stall that began before it. The test runtime
/// (tests/testrt) paces its frames with the same clock.
#[derive(Debug, Clone)]
pub struct DisplayClock {
    /// Virtual display rate, Hz.
    rate: f64,
    /// Stalls not reached yet, in time order: (display time at which the
    /// clock jumps, nanoseconds it jumps).
    stalls: VecDeque<(i64, i64)>,
    /// Nanoseconds the clock has jumped so far.
    stalled_ns: i64,
}

impl DisplayClock {
    /// The clock for `script`'s stalls at `rate` Hz.
    pub fn new(script: &Script, rate: f64) -> Self {
        Self::with_stalls(&stalls(script), rate)
    }

    /// The clock at `rate` Hz with `stalls`: (display time at which the
    /// clock jumps, nanoseconds it jumps), in time order.
    pub fn with_stalls(stalls: &[(i64, i64)], rate: f64) -> Self {
        DisplayClock {
            rate,
            stalls: stalls.iter().copied().collect(),
            stalled_ns: 0,
        }
    }

    /// Display time of `frame`, asked for in increasing frame order. A stall
    /// moves the first frame at or after its time, and every later frame, its
    /// length ahead; a stall whose time falls inside an earlier one's jump
    /// starts when that one ends.
    pub fn frame_time_ns(&mut self, frame: u64) -> i64 {
        loop {
            let time_ns = frame_time_ns(frame, self.rate).saturating_add(self.stalled_ns);
            match self.stalls.front() {
                Some(&(at_ns, jump_ns)) if at_ns <= time_ns => {
                    self.stalled_ns = self.stalled_ns.saturating_add(jump_ns);
                    self.stalls.pop_front();
                }
                _ => return time_ns,
            }
        }
    }
}

/// `script`'s stalls: (display time at which the clock jumps, nanoseconds
/// it jumps), in time order.
pub fn stalls(script: &Script) -> Vec<(i64, i64)> {
    script
        .events
        .iter()
        .filter_map(|event| match event.action {
            Action::Stall { seconds } => Some((
                user::seconds_to_ns(event.time_s),
                user::seconds_to_ns(seconds),
            )),
            _ => None,
        })
        .collect()
}

/// Whether `frame` is written as a PNG (and into the APNG): every
/// `every`th, and the last of a run of `frames` (none while a wait holds).
fn is_snapshot(frame: u64, every: u64, frames: Option<u64>) -> bool {
    frame.is_multiple_of(every) || frames == Some(frame + 1)
}

/// Loads the script named by `--script`, or the demo's single air-tap at
/// half time. With `--apng`, a script that waits is refused: the APNG
/// says how many frames it has before the first, and a wait lengthens the
/// run by as many frames as it takes.
fn load_script(args: &SimArgs) -> Result<Script, SimError> {
    let Some(path) = &args.script else {
        return Ok(Script::single_air_tap(args.frames as f64 / args.rate / 2.0));
    };
    let text = std::fs::read_to_string(path).map_err(|source| SimError::ReadScript {
        path: path.clone(),
        source,
    })?;
    let script = Script::parse(&text).map_err(|source| SimError::Script {
        path: path.clone(),
        source,
    })?;
    if args.apng
        && let Some(wait) = script.first_wait()
    {
        return Err(SimError::invalid(
            "apng",
            format!(
                "{} waits (line {}), so the run's frames are counted only at its end; leave out --apng",
                path.display(),
                wait.line
            ),
        ));
    }
    Ok(script)
}

/// Reads the command log named by `--replay`, when it is given.
fn load_replay(args: &SimArgs) -> Result<Option<CommandLog>, SimError> {
    let Some(path) = &args.replay else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).map_err(|source| SimError::ReadLog {
        path: path.clone(),
        source,
    })?;
    let bad_line = |problem: String| SimError::Log {
        path: path.clone(),
        source: LogError { line: 1, problem },
    };
    let log = CommandLog::parse(&text).map_err(|source| SimError::Log {
        path: path.clone(),
        source,
    })?;
    let size = Size {
        width: u32::try_from(log.start.width).unwrap_or(u32::MAX),
        height: u32::try_from(log.start.height).unwrap_or(u32::MAX),
    };
    if let Some(problem) = map_size_problem(size) {
        return Err(bad_line(format!("the map size: {problem}")));
    }
    if let Some(end) = log.end
        && end.frame >= args.frames
    {
        return Err(SimError::invalid(
            "frames",
            format!(
                "the command log runs {} frames; replay it with --frames {} (as its run had) or more",
                end.frame + 1,
                end.frame + 1
            ),
        ));
    }
    Ok(Some(log))
}

/// Loads the room named by `--room`, or an empty one.
fn load_room(args: &SimArgs) -> Result<Room, SimError> {
    let Some(path) = &args.room else {
        return Ok(Room::default());
    };
    let text = std::fs::read_to_string(path).map_err(|source| SimError::ReadRoom {
        path: path.clone(),
        source,
    })?;
    Room::parse(&text).map_err(|source| SimError::Room {
        path: path.clone(),
        source,
    })
}

/// The placement kept in `--state`'s folder, as the app takes it: forgotten
/// first with `--forget-placement`; a file that cannot be used is one
/// warning and a fresh start.
fn kept_placement(args: &SimArgs) -> Result<Kept, SimError> {
    let Some(path) = placement_file(args) else {
        return Ok(Kept::None);
    };
    if args.world.forget_placement {
        kept::forget(&path).map_err(SimError::State)?;
        return Ok(Kept::None);
    }
    kept::load_kept(&path, KeptIn::SimulatorRoom).or_else(|warning| {
        log::warn!("{warning}");
        Ok(Kept::None)
    })
}

/// `--state`'s placement.json, when `--state` is given.
fn placement_file(args: &SimArgs) -> Option<PathBuf> {
    args.state
        .as_ref()
        .map(|dir| dir.join(kept::PLACEMENT_FILE))
}

/// "Save terrain": `save-NNN/` in `--state`'s folder, else `--out`'s, with
/// `image` as its picture; a failure is one line and the run goes on.
fn save(args: &SimArgs, recorder: &RunRecorder, image: &StereoImage) {
    let folder = args.state.as_deref().unwrap_or(&args.out);
    let rgb = output::side_by_side_rgb(image);
    let picture = crate::save::Picture {
        width: image.width * 2,
        height: image.height,
        rgb: &rgb,
    };
    match crate::save::save_terrain(folder, &recorder.command_log(), Some(picture)) {
        Ok(saved) => log::info!("saved the terrain into {}", saved.display()),
        Err(error) => log::warn!("{error}"),
    }
}

/// The app's frame driver, the world the run starts from and the shared
/// session it starts in: the host's world (`--join`), the command log's
/// (`--replay`), or the flags' (hosted with `--share`).
fn start_world(
    args: &SimArgs,
    replay: Option<&CommandLog>,
    script: &Script,
) -> Result<(FrameDriver, LogStart, Option<Session>), SimError> {
    let share_code = share::share_code(args)?;
    // A joiner grows the host's world: it must be there before anything else.
    if let Some((session, start)) = share::join(args)? {
        let mut app = driver::app_for(&start)?;
        app.share(session.role());
        app.co_locate_by(&session.code());
        return Ok((FrameDriver::new(app), start, Some(session)));
    }
    if let Some(log) = replay {
        return Ok((FrameDriver::replaying(log)?, log.start.clone(), None));
    }
    let start = LogStart {
        // A shared run's clock is the wall's: no scripted stalls.
        stalls: match share_code {
            Some(_) => Vec::new(),
            None => stalls(script),
        },
        ..args.world.log_start("demo")?
    };
    let mut driver = FrameDriver::new(driver::app_for(&start)?);
    let session = match share_code {
        Some(code) => {
            let session = share::host(args, code, &start)?;
            driver.app_mut().share(session.role());
            driver.app_mut().co_locate_by(&session.code());
            Some(session)
        }
        None => None,
    };
    Ok((driver, start, session))
}

/// The renderers a run draws with: the eyes', and with `--capture` the
/// observer camera's, which has its own images (both "eyes" are its one
/// view).
type Renderers = (Box<dyn StereoRenderer>, Option<Box<dyn StereoRenderer>>);

/// Opens the [`Renderers`] for a map of `grid` samples.
fn open_renderers(args: &SimArgs, grid: (usize, usize)) -> Result<Renderers, SimError> {
    let options = OffscreenOptions {
        eye_width: args.resolution.width,
        eye_height: args.resolution.height,
        grid_width: grid.0 as u32,
        grid_height: grid.1 as u32,
        validation: args.validation,
    };
    let renderer = offscreen::open(args.renderer, options)?;
    let capture_renderer = if args.capture {
        Some(offscreen::open(
            args.renderer,
            OffscreenOptions {
                eye_width: args.capture_size.width,
                eye_height: args.capture_size.height,
                ..options
            },
        )?)
    } else {
        None
    };
    Ok((renderer, capture_renderer))
}

/// `growth.png`'s writer, with `--apng`.
fn open_apng(args: &SimArgs) -> Result<Option<ApngWriter>, SimError> {
    if !args.apng {
        return Ok(None);
    }
    let snapshots = (0..args.frames)
        .filter(|&frame| is_snapshot(frame, args.every, Some(args.frames)))
        .count();
    let delay = (
        args.every.min(u16::MAX as u64) as u16,
        args.rate.round() as u16,
    );
    ApngWriter::create(
        &args.out,
        args.resolution.width * 2,
        args.resolution.height,
        u32::try_from(snapshots).unwrap_or(u32::MAX),
        delay,
    )
    .map(Some)
}

/// Writes `frame`, just drawn, as frame-NNNNN.png (and into the APNG),
/// and with `--capture` the observer camera's picture from `head` beside it.
fn write_snapshot(
    args: &SimArgs,
    frame: u64,
    (renderer, capture_renderer): &mut Renderers,
    apng: Option<&mut ApngWriter>,
    (driver, output): (&FrameDriver, &FrameOutput),
    head: Option<Pose>,
) -> Result<(), SimError> {
    let image = renderer.read_back()?;
    let rgb = output::side_by_side_rgb(&image);
    let name = output::frame_file_name(frame);
    let png = output::encode_png(image.width * 2, image.height, &rgb, &args.out.join(&name))?;
    output::write_atomically(&args.out, &name, &png)?;
    if let Some(apng) = apng {
        apng.add_frame(&rgb)?;
    }
    let (Some(capture_renderer), Some(head)) = (capture_renderer.as_mut(), head) else {
        return Ok(());
    };
    let camera = capture::observer_view(&head, args.capture_size.width, args.capture_size.height)
        .render_view();
    if let Some(scene) = driver.scene_with_every_height(output) {
        capture_renderer.render(&FrameScene {
            views: [camera; 2],
            ..scene
        })?;
        let image = capture_renderer.read_back()?;
        let name = capture::capture_file_name(frame);
        let png = capture::encode_rgba_png(
            image.width,
            image.height,
            &image.left,
            &args.out.join(&name),
        )?;
        output::write_atomically(&args.out, &name, &png)?;
    }
    Ok(())
}

/// Runs the simulator; writes the images and, on success only, report.json.
pub fn run(args: &SimArgs) -> Result<SimReport, SimError> {
    validate(args)?;
    let replay = load_replay(args)?;
    let script = match replay {
        // A replay's commands are the log's: the user only looks on.
        Some(_) => Script::default(),
        None => load_script(args)?,
    };
    let room = load_room(args)?;
    let (mut driver, start, mut session) = start_world(args, replay.as_ref(), &script)?;
    // Other headsets live in real time: a shared run's clock is the wall's.
    let mut wall_clock = session.as_ref().map(|_| share::WallClock::start(args.rate));
    // Alone, a session's printed card in view joins that session.
    let mut card_join = crate::net::card_join::CardJoin::default();
    let grid = (start.width, start.height);
    driver.set_display(args.blend);
    let mut renderers = open_renderers(args, grid)?;
    // Bad input and a missing driver are found above, before the output
    // folder is touched; from here the last run's outputs are cleared so that
    // a run failing half way cannot leave an old report.json beside new frames.
    output::prepare_out_dir(&args.out)?;
    // A replay starts where its log does: its first placement is a command.
    let kept = match replay {
        Some(_) => Kept::None,
        None => kept_placement(args)?,
    };
    let surfaces: Option<Arc<[Surface]>> =
        (!room.surfaces.is_empty()).then(|| room.app_surfaces().into());
    let mut user = SimulatedUser::new(&script, args.resolution.width, args.resolution.height);
    let mut sightings = markers::Sightings::new(&room.markers);
    let mut apng = open_apng(args)?;

    let mut sound = args.sound.then(Recording::default);
    let mut clock = DisplayClock::with_stalls(&start.stalls, args.rate);
    // The user acts on the script's clock, which a `wait` holds.
    let mut script_clock = ScriptClock::new(&script);
    let mut recorder = RunRecorder::new(start, args.frames as usize);
    let mut previous_ns = None;
    for frame in 0.. {
        // The scripted frames and those its waits took (none known while one holds).
        let frames = script_clock.frames_in_run(args.frames);
        if frames.is_some_and(|frames| frame >= frames) {
            break;
        }
        let time_ns = match &wall_clock {
            Some(wall) => match wall.frame_time_ns(frame, frames == Some(frame + 1)) {
                Some(time_ns) => time_ns,
                None => continue,
            },
            None => {
                script_clock.pace(frame, args.rate);
                clock.frame_time_ns(frame)
            }
        };
        if let Some(session) = session.as_mut() {
            session.before_frame(driver.app_mut());
        }
        let script_ns = script_clock
            .at(frame, time_ns, Instant::now(), |until| {
                wait::unmet(until, Standing::of(session.as_ref()))
            })
            .map_err(|waited| SimError::Wait {
                path: args.script.clone().unwrap_or_default(),
                waited,
            })?;
        let app = driver.app();
        user.see_buttons(app.buttons());
        let mut input = FrameInput {
            display_time_ns: time_ns,
            voice: user.heard(previous_ns, script_ns),
            surfaces: surfaces.clone(),
            kept,
            ..user.frame_input(script_ns, app.placement(), app.heightmap())
        };
        input.markers = Some(sightings.look(&input));
        if session.is_none()
            && replay.is_none()
            && let Some(line) = card_join.look(input.markers.as_deref().unwrap_or_default())
        {
            eprintln!("share: {line}");
        }
        previous_ns = Some(script_ns);
        let output = driver.update(&input, &mut recorder)?;
        if let Some(sound) = sound.as_mut() {
            for event in &output.events {
                if let AppEvent::Click { at } = *event {
                    sound.click(time_ns, at, input.head);
                }
            }
        }
        if let Some(session) = session.as_mut() {
            session.after_frame(driver.app_mut(), &output);
            share::print_notes(session);
        }
        if session.is_none() && replay.is_none() {
            session = if let Some(joined) = card_join.finished() {
                share::join_by_card(args, joined, grid, &mut driver, &mut recorder)
            } else if output.events.contains(&AppEvent::ShareAsked) {
                share::host_from_here(args, driver.app_mut(), &recorder.command_log())
            } else {
                None
            };
            if session.is_some() {
                // From here other headsets live with it: the wall's clock.
                wall_clock = Some(share::WallClock::after(args.rate, frame, time_ns));
            }
        }
        keep_placements(args, &output)?;
        // The simulated head is located from the first frame, so this only
        // skips frames if a platform change ever left the hologram unplaced.
        let Some(render_ms) = driver.draw(&output, |scene| renderers.0.render(scene))? else {
            continue;
        };
        recorder.drawn(render_ms);
        if output.events.contains(&AppEvent::SaveAsked) {
            let image = renderers.0.read_back()?;
            save(args, &recorder, &image);
        }
        if is_snapshot(frame, args.every, script_clock.frames_in_run(args.frames)) {
            let drawn = (&driver, &output);
            write_snapshot(
                args,
                frame,
                &mut renderers,
                apng.as_mut(),
                drawn,
                input.head,
            )?;
        }
    }
    let validation_messages = close(renderers, apng)?;
    // The virtual display ran from frame 0 to the end of the last frame.
    let frames = script_clock
        .frames_in_run(args.frames)
        .unwrap_or(args.frames);
    let seconds = frames as f64 / args.rate + clock.stalled_ns as f64 * 1e-9;
    let ended = Ended {
        seconds,
        sound,
        session,
        validation_messages,
    };
    finish(args, &mut driver, recorder, ended)
}

/// With `--state`, keeps the placements `output` settled.
fn keep_placements(args: &SimArgs, output: &FrameOutput) -> Result<(), SimError> {
    for placement in output.placements_to_keep() {
        if let Some(path) = placement_file(args) {
            kept::save(&path, &KeptPlacement::of(placement, KeptIn::SimulatorRoom))
                .map_err(SimError::State)?;
        }
    }
    Ok(())
}

/// Drops the renderers and finishes the APNG; the validation messages
/// (with `--validation`), counted once the renderers are dropped, so that
/// messages of the teardown count too.
fn close(renderers: Renderers, apng: Option<ApngWriter>) -> Result<Option<u64>, SimError> {
    let (renderer, capture_renderer) = renderers;
    let validation = renderer.validation_counter();
    let capture_validation = capture_renderer
        .as_ref()
        .and_then(|renderer| renderer.validation_counter());
    drop(renderer);
    drop(capture_renderer);
    if let Some(apng) = apng {
        apng.finish()?;
    }
    Ok(validation
        .map(|counter| counter.count() + capture_validation.map_or(0, |capture| capture.count())))
}

/// How a run's frames ended, for [`finish`].
struct Ended {
    /// How long the virtual display ran.
    seconds: f64,
    /// The clicks heard, with `--sound`.
    sound: Option<Recording>,
    /// The shared session it ended in.
    session: Option<Session>,
    /// Validation messages, with `--validation`.
    validation_messages: Option<u64>,
}

/// Writes what a run ends with: the terrain, clicks.wav, the command log
/// and report.json (with the session and who took part, when shared).
fn finish(
    args: &SimArgs,
    driver: &mut FrameDriver,
    recorder: RunRecorder,
    ended: Ended,
) -> Result<SimReport, SimError> {
    // The terrain it ends with, as `generate` writes the same map (an
    // edit still easing in counts whole, as its command applied).
    let heights = driver.settled_app().heightmap();
    for (name, format) in [
        (output::TERRAIN_PNG_FILE, Format::Png16),
        (output::TERRAIN_F32_FILE, Format::F32),
    ] {
        let path = args.out.join(name);
        let bytes = export::encode(heights, format, None)
            .map_err(|error| SimError::output(&path, std::io::Error::other(error)))?;
        output::write_atomically(&args.out, name, &bytes)?;
    }
    if let Some(sound) = ended.sound {
        output::write_atomically(&args.out, output::SOUND_FILE, &sound.finish(ended.seconds))?;
    }
    let shared = ended.session.map(|mut session| {
        share::print_notes(&mut session);
        session.finish()
    });
    output::write_atomically(
        &args.out,
        output::COMMAND_LOG_FILE,
        recorder.command_log().to_jsonl().as_bytes(),
    )?;
    let report = SimReport {
        validation_messages: ended.validation_messages,
        ..recorder.finish(driver.app(), ended.seconds)
    };
    let json = match shared {
        Some((share, peers)) => serde_json::to_vec_pretty(&share::SharedSimReport {
            run: &report,
            share,
            peers,
        }),
        None => serde_json::to_vec_pretty(&report),
    }
    .map_err(|error| {
        SimError::output(
            &args.out.join(output::REPORT_FILE),
            std::io::Error::other(error),
        )
    })?;
    output::write_atomically(&args.out, output::REPORT_FILE, &json)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_frames_are_rejected_naming_the_flag() {
        let args = SimArgs {
            frames: 0,
            ..SimArgs::default()
        };
        assert!(
            validate(&args)
                .unwrap_err()
                .to_string()
                .starts_with("--frames:")
        );
    }

    #[test]
    fn a_one_sample_map_side_is_rejected() {
        let args = SimArgs {
            world: WorldArgs {
                size: Size {
                    width: 1,
                    height: 64,
                },
                ..WorldArgs::default()
            },
            ..SimArgs::default()
        };
        assert!(
            validate(&args)
                .unwrap_err()
                .to_string()
                .starts_with("--size:")
        );
    }

    #[test]
    fn an_absurd_rate_is_rejected() {
        for rate in [0.0, 5000.0, f64::NAN] {
            let args = SimArgs {
                rate,
                ..SimArgs::default()
            };
            assert!(
                validate(&args)
                    .unwrap_err()
                    .to_string()
                    .starts_with("--rate:")
            );
        }
    }

    #[test]
    fn a_huge_resolution_is_rejected() {
        let args = SimArgs {
            resolution: Size {
                width: 10_000,
                height: 240,
            },
            ..SimArgs::default()
        };
        assert!(
            validate(&args)
                .unwrap_err()
                .to_string()
                .starts_with("--resolution:")
        );
    }

    #[test]
    fn a_tiny_capture_is_rejected_naming_the_flag() {
        let args = SimArgs {
            capture: true,
            capture_size: Size {
                width: 8,
                height: 720,
            },
            ..SimArgs::default()
        };
        assert!(
            validate(&args)
                .unwrap_err()
                .to_string()
                .starts_with("--capture-size:")
        );
    }

    #[test]
    fn defaults_are_valid() {
        assert!(validate(&SimArgs::default()).is_ok());
    }

    #[test]
    fn a_stall_moves_its_frame_and_every_later_one() {
        let script = Script::parse("1.0 stall 10\n5.0 stall 2\n").unwrap();
        let mut clock = DisplayClock::new(&script, 60.0);
        let times: Vec<i64> = [58, 59, 60, 61]
            .into_iter()
            .map(|frame| clock.frame_time_ns(frame))
            .collect();
        // Frame 60 would show at 1.0 s; the first stall moves it to 11 s, and
        // the second, due at 5 s inside that jump, starts when it ends: 13 s.
        assert_eq!(
            times,
            vec![
                frame_time_ns(58, 60.0),
                frame_time_ns(59, 60.0),
                13_000_000_000,
                frame_time_ns(61, 60.0) + 12_000_000_000
            ]
        );
        assert_eq!(clock.stalled_ns, 12_000_000_000);
    }

    #[test]
    fn the_frame_at_a_scripted_time_is_the_first_at_or_after_it() {
        let frame_of = |seconds: f64, rate: f64| {
            (0..).find(|&frame| frame_time_ns(frame, rate) >= user::seconds_to_ns(seconds))
        };
        assert_eq!(frame_of(1.0, 60.0), Some(60));
        assert_eq!(frame_of(2.5, 90.0), Some(225));
        assert_eq!(frame_of(0.01, 60.0), Some(1));
    }
}
