//! `holoterrain sim`: the headless simulator — a virtual clock, a simulated user and offscreen stereo rendering driving the same app core and run loop as the headset.
//!
//! Each frame: the simulated user ([`user::SimulatedUser`]) turns the
//! gesture script into head, eye and hand-joint poses and the voice command
//! said since the last frame, and the room (`--room`, [`room::Room`]) gives
//! the surfaces and the printed codes in sight ([`markers`]); the run loop
//! ([`crate::app::run::RunLoop`]) runs the real recognisers, placement,
//! growth and the shared session, and the offscreen renderer draws both
//! eyes (`platform.rs`). Every `--every` frames (and on the last) both eyes
//! are written side by side as a PNG (and, with `--capture`, the observer
//! camera's RGBA picture beside it, [`capture`]), the eyes and the camera
//! those of the `--device` ([`device`]); at the end,
//! `commands.jsonl` (the command log) and `report.json`. With `--state DIR`
//! the placement is kept in `DIR/placement.json` after every manipulation
//! and the next run with that folder starts from it. With `--replay FILE` a
//! command log drives the frames instead of a gesture script: the same
//! commands on the same frames. The simulated user acts on the script's
//! clock, which is the display's until a scripted `wait` holds it for
//! another headset ([`wait`]).
pub mod args;
pub mod capture;
pub mod clock;
pub mod device;
mod error;
pub mod markers;
pub mod output;
mod platform;
pub mod room;
pub mod script;
pub mod share;
mod start;
pub mod user;
pub mod wait;

use std::sync::Arc;
use std::time::Instant;

use crate::app::driver::FrameDriver;
use crate::app::recorder::RunRecorder;
use crate::app::run::SharedSession;
use crate::app::run::{Finished, Frame};
use crate::app::{FrameInput, Kept, Surface};
use crate::net::Session;
use crate::sound::Recording;
use crate::terrain::export::{self, Format};
pub use args::{EYE_SIDE_RANGE, MAX_FRAMES, MAX_MAP_SIDE, RATE_RANGE, SimArgs, validate};
pub use clock::{DisplayClock, WallClock, frame_time_ns, stalls};
pub use error::SimError;
pub use output::SimReport;
use platform::SimPlatform;
use script::Script;
use user::SimulatedUser;
use wait::{ScriptClock, Standing};

/// Runs the simulator; writes the images and, on success only, report.json.
pub fn run(args: &SimArgs) -> Result<SimReport, SimError> {
    validate(args)?;
    let replay = start::load_replay(args)?;
    let script = match replay {
        // A replay's commands are the log's: the user only looks on.
        Some(_) => Script::default(),
        None => start::load_script(args)?,
    };
    let room = start::load_room(args)?;
    let (mut run, start) = start::start_run(args, replay.as_ref(), &script)?;
    // Other headsets live in real time: a shared run's clock is the wall's.
    let mut wall_clock = run.session().map(|_| WallClock::start(args.rate));
    run.set_display(args.blend);
    let mut platform = SimPlatform::open(
        args,
        (start.width, start.height),
        start::placement_file(args),
    )?;
    // Bad input and a missing driver are found above, before the output
    // folder is touched; from here the last run's outputs are cleared so that
    // a run failing half way cannot leave an old report.json beside new frames.
    output::prepare_out_dir(&args.out)?;
    // A replay starts where its log does: its first placement is a command.
    let kept = match replay {
        Some(_) => Kept::None,
        None => start::kept_placement(args)?,
    };
    let surfaces: Option<Arc<[Surface]>> =
        (!room.surfaces.is_empty()).then(|| room.app_surfaces().into());
    let mut user = SimulatedUser::new(&script, args.resolution.width, args.resolution.height)
        .with_eye_fov(args.device.eye_fov(args.resolution));
    let mut sightings = markers::Sightings::new(&room.markers);
    let mut apng = platform::open_apng(args)?;
    let mut clock = DisplayClock::with_stalls(&start.stalls, args.rate);
    // The user acts on the script's clock, which a `wait` holds.
    let mut script_clock = ScriptClock::new(&script);
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
        let script_ns = script_clock
            .at(frame, time_ns, Instant::now(), |until| {
                wait::unmet(until, Standing::of(run.session()))
            })
            .map_err(|waited| SimError::Wait {
                path: args.script.clone().unwrap_or_default(),
                waited,
            })?;
        let app = run.app();
        user.see_buttons(app.buttons());
        let mut input = FrameInput {
            display_time_ns: time_ns,
            voice: user.heard(previous_ns, script_ns),
            surfaces: surfaces.clone(),
            kept,
            ..user.frame_input(script_ns, app.placement(), app.land())
        };
        input.markers = Some(sightings.look(&input));
        previous_ns = Some(script_ns);
        let head = input.head;
        let alone = run.session().is_none();
        platform.time_ns = time_ns;
        let Frame { output, drawn_ms } = run.frame(input, &mut platform)?;
        if alone && run.session().is_some() {
            // From here other headsets live with it: the wall's clock.
            wall_clock = Some(WallClock::after(args.rate, frame, time_ns));
        }
        // The simulated head is located from the first frame, so this only
        // skips frames if a platform change ever left the hologram unplaced.
        if drawn_ms.is_some()
            && platform::is_snapshot(frame, args.every, script_clock.frames_in_run(args.frames))
        {
            let drawn = (run.driver(), &output);
            platform::write_snapshot(
                args,
                frame,
                &mut platform.renderers,
                apng.as_mut(),
                drawn,
                head,
            )?;
        }
    }
    let sound = platform.sound.take();
    let validation_messages = platform::close(platform.renderers, apng)?;
    // The virtual display ran from frame 0 to the end of the last frame.
    let frames = script_clock
        .frames_in_run(args.frames)
        .unwrap_or(args.frames);
    let seconds = frames as f64 / args.rate + clock.stalled_ns() as f64 * 1e-9;
    let Finished {
        mut driver,
        recorder,
        session,
    } = run.finish();
    let ended = Ended {
        seconds,
        sound,
        session,
        validation_messages,
    };
    finish(args, &mut driver, recorder, ended)
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
        for line in session.take_notes() {
            eprintln!("share: {line}");
        }
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
