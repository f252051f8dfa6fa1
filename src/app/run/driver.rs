//! One frame driver for every platform (the simulator, the OpenXR session, the test runtime's wearer): the app, the scene it draws, the frame's sequence and record, replaying a command log, and the options every run takes.
//!
//! Per frame a platform builds the [`FrameInput`], calls
//! [`FrameDriver::update`] (the app's update, timed, noted in the run's
//! record and command log), answers the output's events its own way (and
//! keeps [`FrameOutput::placements_to_keep`]), then, when it draws,
//! [`FrameDriver::draw`] with its renderer.
use std::collections::VecDeque;
use std::time::Instant;

use thiserror::Error;

use std::path::PathBuf;

use super::log::{CommandLog, LogEntry, LogStart};
use super::recorder::RunRecorder;
use super::save;
use super::scene::SceneBuilder;
use crate::app::frame::{FrameInput, FrameOutput};
use crate::app::update::App;
use crate::app::world::AppError;
use crate::app::world::command::Command;
use crate::app::world::placement::{Placement, PlacementCause};
use crate::render::scene::{Display, FrameScene};
use crate::size::Size;
use crate::terrain::recipe::{Recipe, RecipeError};

/// The options `sim` and `xr` take alike: the world a run starts from.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct WorldArgs {
    /// What the terrain is made of: a built-in recipe (`holoterrain
    /// recipes` lists them) or a recipe file (a value with a / or ending in
    /// .toml) [default: demo].
    #[arg(long, value_name = "NAME|FILE")]
    pub recipe: Option<String>,
    /// The first terrain seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Heightmap size, WIDTHxHEIGHT samples.
    #[arg(long, value_name = "WxH", default_value = "257x257")]
    pub size: Size,
    /// Forget where the hologram was left (the kept placement.json and, on
    /// HoloLens, the persisted anchor) and place it afresh.
    #[arg(long)]
    pub forget_placement: bool,
    /// Go on from a save (a save-NNN folder "Save terrain" wrote): its
    /// recipe, seed, map and history, replayed bit for bit. A folder that
    /// is not one is one line, and the run grows its own world.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["recipe", "seed"])]
    pub open: Option<PathBuf>,
}

impl Default for WorldArgs {
    fn default() -> Self {
        WorldArgs {
            recipe: None,
            seed: 1,
            size: Size {
                width: 257,
                height: 257,
            },
            forget_placement: false,
            open: None,
        }
    }
}

impl WorldArgs {
    /// Where this world starts, as the command log says it: the recipe
    /// `--recipe` names, else `default` (a name or a file).
    pub fn log_start(&self, default: &str) -> Result<LogStart, RecipeError> {
        if let Some(dir) = &self.open {
            match save::open_save(dir) {
                Ok(log) => return Ok(LogStart::opening(&log)),
                Err(line) => ::log::warn!("{line}; growing a world of its own instead"),
            }
        }
        let name = self.recipe.as_deref().unwrap_or(default);
        Ok(LogStart {
            recipe: name.into(),
            values: Recipe::load(name)?,
            ..LogStart::demo(
                self.seed,
                self.size.width as usize,
                self.size.height as usize,
            )
        })
    }
}

/// The app a run starting from `start` grows.
pub fn app_for(start: &LogStart) -> Result<App, AppError> {
    App::new(start.app_config())
}

/// A replay that no longer follows its log.
#[derive(Debug, Error, Clone, PartialEq)]
#[error(
    "command log line {line}: it applied at iteration {logged} of its seed, here at {now}; replay with the flags the log was made with (--rate, --frames)"
)]
pub struct Diverged {
    /// The log line of the command.
    pub line: usize,
    /// The iteration the log has.
    pub logged: usize,
    /// The iteration it applied at here.
    pub now: usize,
}

/// A command log being replayed.
struct Replay {
    /// The commands not applied yet.
    entries: VecDeque<LogEntry>,
    /// The next update's frame.
    frame: u64,
}

/// The app, the scene builder, and the log being replayed, if one is.
pub struct FrameDriver {
    app: App,
    scenes: SceneBuilder,
    replay: Option<Replay>,
}

impl FrameDriver {
    /// A driver whose wearer's gestures and voice make the commands.
    pub fn new(app: App) -> Self {
        FrameDriver {
            app,
            scenes: SceneBuilder::new(),
            replay: None,
        }
    }

    /// A driver that applies `log`'s commands on the frames they applied
    /// in, and nothing the wearer does.
    pub fn replaying(log: &CommandLog) -> Result<Self, AppError> {
        Ok(FrameDriver {
            replay: Some(Replay {
                entries: log.entries.iter().cloned().collect(),
                frame: 0,
            }),
            ..Self::new(app_for(&log.start)?)
        })
    }

    /// The display the frames are drawn for from now on (the environment
    /// blend mode the runtime reports, or the simulator's `--blend`).
    pub fn set_display(&mut self, display: Display) {
        self.scenes.set_display(display);
    }

    /// The app.
    pub fn app(&self) -> &App {
        &self.app
    }

    /// The app grows the world of `start` from now on, in place of its own
    /// (a headset joining the session whose card it saw): nothing of the
    /// old world, its placement or its commands carries over.
    pub fn grow_world_from(&mut self, start: &LogStart) -> Result<(), AppError> {
        self.app.restart(start.app_config())?;
        // The renderer holds the old world's heights and colour range.
        let display = self.scenes.display();
        self.scenes = SceneBuilder::new();
        self.scenes.set_display(display);
        Ok(())
    }

    /// The hologram stays at `placement` in the world grown now: the next
    /// update settles it there, as a command the log keeps.
    pub fn keep_placement(&mut self, placement: Placement) {
        self.app.submit(Command::Place {
            cause: PlacementCause::Kept,
            placement,
        });
    }

    /// The app with its edits settled: the terrain its commands made,
    /// for what a run writes at its end (as `generate --replay` does).
    pub fn settled_app(&mut self) -> &App {
        self.app.settle_edits();
        &self.app
    }

    /// One update: the app takes in `input` (or the replayed commands of
    /// this frame), and `recorder` notes it with its CPU time.
    pub fn update(
        &mut self,
        input: &FrameInput,
        recorder: &mut RunRecorder,
    ) -> Result<FrameOutput, Diverged> {
        recorder.saw_markers(input.markers.as_deref());
        let started = Instant::now();
        let output = match &mut self.replay {
            None => self.app.update(input),
            Some(replay) => {
                let mut due = Vec::new();
                while let Some(entry) = replay.entries.front()
                    && entry.frame == replay.frame
                {
                    due.extend(replay.entries.pop_front());
                }
                replay.frame += 1;
                let commands: Vec<_> = due.iter().map(|entry| entry.command.clone()).collect();
                let output = self.app.replay(input, &commands);
                if let Some((entry, applied)) = due
                    .iter()
                    .zip(&output.commands)
                    .find(|(entry, applied)| entry.iteration != applied.iteration)
                {
                    return Err(Diverged {
                        line: entry.seq as usize + 2,
                        logged: entry.iteration,
                        now: applied.iteration,
                    });
                }
                output
            }
        };
        self.scenes.updated(&output);
        recorder.updated(input.display_time_ns, &output, milliseconds_since(started));
        Ok(output)
    }

    /// Draws `output` with `draw` when there is something to draw (the
    /// hologram is placed); the CPU milliseconds it took, for the record.
    pub fn draw<E>(
        &mut self,
        output: &FrameOutput,
        draw: impl FnOnce(&FrameScene<'_>) -> Result<(), E>,
    ) -> Result<Option<f64>, E> {
        let started = Instant::now();
        let Some(scene) = self.scenes.scene(output, self.app.heightmap().cells()) else {
            return Ok(None);
        };
        draw(&scene)?;
        self.scenes.drawn();
        Ok(Some(milliseconds_since(started)))
    }
}

impl FrameDriver {
    /// The scene of `output` with every height attached, for a renderer that
    /// draws only now and then (the simulator's capture camera) and so
    /// cannot count on having the last change; `None` before placement.
    pub fn scene_with_every_height<'a>(
        &'a self,
        output: &'a FrameOutput,
    ) -> Option<FrameScene<'a>> {
        let heights = self.app.heightmap().cells();
        self.scenes.scene(output, heights).map(|scene| FrameScene {
            heights: Some(heights),
            ..scene
        })
    }
}

/// Milliseconds since `start`.
fn milliseconds_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}
