//! The frame loop's record, kept the same way on every platform: the seeds
//! and reseeds, the placements, the menus as they opened, the most fault
//! iterations one frame applied, per-frame CPU times and the display time
//! covered, summarised into a [`RunReport`]; and the command log
//! ([`CommandLog`]).
//!
//! Per frame a platform calls [`RunRecorder::updated`] after `App::update`
//! and, when it drew the frame, [`RunRecorder::drawn`]; at the end
//! [`RunRecorder::finish`].
use std::collections::BTreeMap;

use super::log::{CommandLog, LogEnd, LogEntry, LogStart};
use super::report::{
    CoachRecord, CpuTimes, EditRecord, MarkerRecord, MenuRecord, OpenedRecord, PlacementRecord,
    PoseRecord, RedoRecord, ReseedRecord, RunReport, ScrubRecord, TimingStats, ToastRecord,
    UiRecord, UndoRecord,
};
use crate::app::controls::{Menu, measure};
use crate::app::frame::{AppEvent, EyeView, FrameOutput, Marker};
use crate::app::update::App;
use crate::app::world::placement::Placement;
use crate::input::Pose;
use crate::sound::Sound;
use crate::terrain::recipe::Recipe;

/// The app's world as a report needs it, kept where a report made away
/// from the app can read it.
#[derive(Debug, Clone, Default)]
pub struct WorldSummary {
    /// Growth steps on the current seed.
    pub iterations: usize,
    /// Whether they are all done.
    pub growth_complete: bool,
    /// Where the hologram is and how big.
    pub placement: Option<Placement>,
    /// What the recipe is called.
    pub recipe: String,
    /// Its every value.
    pub recipe_values: Option<Recipe>,
}

impl WorldSummary {
    /// Brings the summary up to `app`'s world (its recipe copied only when
    /// it changed, so a frame does not allocate).
    pub fn update_from(&mut self, app: &App) {
        let world = app.world();
        self.iterations = world.iterations_done();
        self.growth_complete = world.growth_complete();
        self.placement = app.placement();
        if self.recipe != world.recipe_name() || self.recipe_values.is_none() {
            self.recipe = world.recipe_name().into();
            self.recipe_values = Some(world.recipe().clone());
        }
    }
}

/// What happened so far in a run.
#[derive(Debug, Clone)]
pub struct RunRecorder {
    /// Every seed grown: the first, then one per reseed.
    seeds: Vec<u64>,
    /// The reseeds, in order.
    reseeds: Vec<ReseedRecord>,
    /// The settled placements, in order.
    placements: Vec<PlacementRecord>,
    /// The hand edits, applied or ignored, in order.
    edits: Vec<EditRecord>,
    /// The undos, in order.
    undos: Vec<UndoRecord>,
    /// The redos, in order.
    redos: Vec<RedoRecord>,
    /// The scrubs, in order.
    scrubs: Vec<ScrubRecord>,
    /// The saves opened, in order.
    opened: Vec<OpenedRecord>,
    /// The hand coach showing and going, in order.
    coach: Vec<CoachRecord>,
    /// The buttons pressed, in order.
    ui: Vec<UiRecord>,
    /// The menus as they opened, in order.
    menus: Vec<MenuRecord>,
    /// The menus the latest update showed.
    menus_on_show: Vec<Menu>,
    /// Clicks asked for: a press beginning or ending.
    clicks: u64,
    /// Sounds asked for, by name.
    sounds: BTreeMap<&'static str, u64>,
    /// The toasts begun, in order.
    toasts: Vec<ToastRecord>,
    /// Frames drawn.
    frames: u64,
    /// The most iterations any one update applied.
    max_iterations_per_frame: usize,
    /// CPU milliseconds of each update.
    update_ms: Vec<f64>,
    /// CPU milliseconds of each drawn frame.
    render_ms: Vec<f64>,
    /// Display time of the first update and of the latest, nanoseconds.
    display_ns: Option<(i64, i64)>,
    /// Updates so far (drawn or not).
    updates: u64,
    /// The update the command log's world started at (0, unless the world
    /// started over mid-run): its frames count from there, so that a replay
    /// of it shows each command on its own frame.
    log_from: u64,
    /// Iterations of the current seed as of the latest update.
    iterations: usize,
    /// Every command applied so far.
    log: CommandLog,
    /// The printed codes handed over, each once, as first handed over.
    markers_seen: Vec<MarkerRecord>,
}

impl RunRecorder {
    /// A record of a run starting from `start`, with room for
    /// `expected_frames` frames' timings (so recording them does not
    /// allocate; more frames are fine).
    pub fn new(start: LogStart, expected_frames: usize) -> Self {
        RunRecorder {
            seeds: vec![start.seed],
            reseeds: Vec::new(),
            placements: Vec::new(),
            edits: Vec::new(),
            undos: Vec::new(),
            redos: Vec::new(),
            scrubs: Vec::new(),
            opened: Vec::new(),
            coach: Vec::new(),
            ui: Vec::new(),
            menus: Vec::new(),
            menus_on_show: Vec::new(),
            clicks: 0,
            sounds: BTreeMap::new(),
            toasts: Vec::new(),
            frames: 0,
            max_iterations_per_frame: 0,
            update_ms: Vec::with_capacity(expected_frames),
            render_ms: Vec::with_capacity(expected_frames),
            display_ns: None,
            updates: 0,
            log_from: 0,
            iterations: 0,
            log: CommandLog::new(start),
            markers_seen: Vec::new(),
        }
    }

    /// Notes the printed codes a frame's input hands over (before its
    /// [`Self::updated`]): each new text once, on that update's frame.
    pub fn saw_markers(&mut self, markers: Option<&[Marker]>) {
        for marker in markers.unwrap_or_default() {
            if !self
                .markers_seen
                .iter()
                .any(|seen| seen.text == marker.text)
            {
                self.markers_seen.push(MarkerRecord {
                    frame: self.updates,
                    text: marker.text.clone(),
                    position: marker.pose.position.to_array(),
                    orientation: marker.pose.orientation.to_array(),
                    size_m: marker.size_m,
                });
            }
        }
    }

    /// Notes one `App::update` for the frame shown at `display_time_ns`,
    /// which took `update_ms` of CPU time: its reseeds (at the index of the
    /// next frame drawn, at their display time from the first update's), its
    /// placements (at that frame index too), the iterations it applied and
    /// the commands (at the update's own index).
    pub fn updated(&mut self, display_time_ns: i64, output: &FrameOutput, update_ms: f64) {
        for applied in &output.commands {
            self.log.entries.push(LogEntry::new(
                applied,
                self.updates - self.log_from,
                display_time_ns,
            ));
        }
        self.updates += 1;
        self.iterations = output.iterations_done;
        let (first_ns, _) = *self
            .display_ns
            .get_or_insert((display_time_ns, display_time_ns));
        self.display_ns = Some((first_ns, display_time_ns));
        self.update_ms.push(update_ms);
        self.max_iterations_per_frame =
            self.max_iterations_per_frame.max(output.iterations_applied);
        let time = (display_time_ns - first_ns) as f64 * 1e-9;
        self.note_menus(output);
        if let Some(text) = &output.toast {
            self.toasts.push(ToastRecord {
                frame: self.frames,
                text: text.clone(),
            });
        }
        for event in &output.events {
            match *event {
                AppEvent::Reseeded { seed, cause, .. } => {
                    self.seeds.push(seed);
                    self.reseeds.push(ReseedRecord {
                        frame: self.frames,
                        time,
                        cause,
                        seed,
                    });
                }
                AppEvent::Edited {
                    kind,
                    hand,
                    ignored,
                } => self.edits.push(EditRecord {
                    frame: self.frames,
                    time,
                    kind,
                    hand,
                    applied: ignored.is_none(),
                    ignored: ignored.map(|why| why.reason()),
                }),
                AppEvent::Undid { undone } => self.undos.push(UndoRecord {
                    frame: self.frames,
                    time,
                    undone,
                }),
                AppEvent::Redid { redone } => self.redos.push(RedoRecord {
                    frame: self.frames,
                    time,
                    redone,
                }),
                AppEvent::Scrubbed { to, length, ms } => self.scrubs.push(ScrubRecord {
                    frame: self.frames,
                    time,
                    to: if length == 0 {
                        1.0
                    } else {
                        to as f64 / length as f64
                    },
                    moment: to,
                    length,
                    ms,
                }),
                AppEvent::Placed { placement, cause } => self
                    .placements
                    .push(PlacementRecord::new(self.frames, &placement, cause)),
                AppEvent::Pressed(press) => self.ui.push(UiRecord {
                    frame: self.frames,
                    time,
                    label: press.label,
                    how: press.how,
                    did: press.action.did(),
                }),
                AppEvent::Sound { sound, .. } => {
                    if matches!(sound, Sound::Press | Sound::Release) {
                        self.clicks += 1;
                    }
                    *self.sounds.entry(sound.name()).or_default() += 1;
                }
                AppEvent::Heard(_) | AppEvent::UndoRefused => {}
                AppEvent::Coach { what, shown } => self.coach.push(CoachRecord {
                    frame: self.frames,
                    time,
                    event: if shown { "shown" } else { "gone" },
                    what: what.name(),
                }),
                AppEvent::Growth(_)
                | AppEvent::SaveAsked
                | AppEvent::OpenAsked(_)
                | AppEvent::ShareAsked
                | AppEvent::LeaveAsked
                | AppEvent::Weathered
                | AppEvent::Exaggerated { .. } => {}
            }
        }
    }

    /// Notes that the save the last "Save terrain" asked for failed: its
    /// press did `save failed`, not `save`.
    pub fn save_failed(&mut self) {
        // The press of this update (the frame it was drawn in, or the one
        // before that drawing counted): an older save's press stays as it went.
        let this_update = self.frames.saturating_sub(1);
        if let Some(press) = self
            .ui
            .iter_mut()
            .rev()
            .take_while(|press| press.frame >= this_update)
            .find(|press| press.did == "save")
        {
            press.did = "save failed";
        }
    }

    /// Measures each menu `output` shows that the update before did not,
    /// from the point between its eyes (at the index of the next frame
    /// drawn, as the reseeds are).
    fn note_menus(&mut self, output: &FrameOutput) {
        let eyes = between(&output.views);
        for shown in &output.ui.menus {
            if self.menus_on_show.contains(&shown.menu) {
                continue;
            }
            let measured = measure::measure(shown, &eyes);
            self.menus.push(MenuRecord {
                name: shown.menu.name(),
                frame: self.frames,
                height_deg: measured.height_deg,
                width_deg: measured.width_deg,
                min_text_deg: measured.min_text_deg,
                min_contrast: measured.min_contrast,
            });
        }
        self.menus_on_show.clear();
        self.menus_on_show
            .extend(output.ui.menus.iter().map(|shown| shown.menu));
    }

    /// Notes a frame drawn, which took `render_ms` of CPU time.
    pub fn drawn(&mut self, render_ms: f64) {
        self.render_ms.push(render_ms);
        self.frames += 1;
    }

    /// The printed codes handed over so far, each as first handed over.
    pub fn markers_seen(&self) -> &[MarkerRecord] {
        &self.markers_seen
    }

    /// The world starts over from `start` part way through the run (it
    /// joined a shared session by its card): the command log from here is
    /// that world's, and its seed is the next grown.
    pub fn grow_from(&mut self, start: LogStart) {
        self.seeds.push(start.seed);
        self.iterations = 0;
        self.log_from = self.updates;
        self.log = CommandLog::new(start);
    }

    /// A save in `folder` was opened: the world goes on from its history,
    /// `commands` long.
    pub fn opened(&mut self, folder: &std::path::Path, commands: usize) {
        let time = self
            .display_ns
            .map_or(0.0, |(first, last)| (last - first) as f64 * 1e-9);
        self.opened.push(OpenedRecord {
            frame: self.frames,
            time,
            folder: folder.display().to_string(),
            commands,
        });
    }

    /// Frames drawn so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The command log so far, ended at the latest update.
    pub fn command_log(&self) -> CommandLog {
        CommandLog {
            end: Some(LogEnd {
                frame: self.updates.saturating_sub(self.log_from + 1),
                iteration: self.iterations,
            }),
            ..self.log.clone()
        }
    }

    /// Seconds from the first update's display time to the latest's.
    pub fn display_seconds(&self) -> f64 {
        self.display_ns
            .map_or(0.0, |(first, last)| (last - first) as f64 * 1e-9)
    }

    /// The run's report: what was recorded, with `app`'s final state (the
    /// recipe, the iterations of its last seed, where the hologram is and
    /// how big) and `seconds` of display time covered, as the platform
    /// counts it. Validation is the platform's to fill in.
    pub fn finish(self, app: &App, seconds: f64) -> RunReport {
        let mut world = WorldSummary::default();
        world.update_from(app);
        self.report_so_far(&world, seconds)
    }

    /// The report [`Self::finish`] would give now, from a summary of the
    /// app's world instead of the app itself: for a report written while
    /// the app is out of reach (the OpenXR watchdog's, when the loop's
    /// thread is stuck).
    pub fn report_so_far(&self, world: &WorldSummary, seconds: f64) -> RunReport {
        let placement = world.placement;
        RunReport {
            frames: self.frames,
            seconds,
            seeds: self.seeds.clone(),
            reseeds: self.reseeds.clone(),
            recipe: world.recipe.clone(),
            recipe_values: world.recipe_values.clone(),
            iterations: world.iterations,
            growth_complete: world.growth_complete,
            max_iterations_per_frame: self.max_iterations_per_frame,
            placements: self.placements.clone(),
            edits: self.edits.clone(),
            undos: self.undos.clone(),
            redos: self.redos.clone(),
            scrubs: self.scrubs.clone(),
            opened: self.opened.clone(),
            coach: self.coach.clone(),
            ui: self.ui.clone(),
            menus: self.menus.clone(),
            clicks: self.clicks,
            sounds: self.sounds.clone(),
            toasts: self.toasts.clone(),
            hologram_pose: placement.map(|placement| PoseRecord::from(placement.pose)),
            hologram_scale: placement.map(|placement| placement.scale),
            cpu_ms: CpuTimes {
                update: TimingStats::of(&self.update_ms),
                render: TimingStats::of(&self.render_ms),
            },
            validation_messages: None,
            markers_seen: self.markers_seen.clone(),
        }
    }
}

/// The point between two eyes, turned halfway between them (as the head is).
fn between([left, right]: &[EyeView; 2]) -> Pose {
    Pose::new(
        left.pose.position.lerp(right.pose.position, 0.5),
        left.pose.orientation.slerp(right.pose.orientation, 0.5),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::world::command::ReseedCause;
    use crate::input::Hand;

    fn output(iterations_applied: usize, events: Vec<AppEvent>) -> FrameOutput {
        FrameOutput {
            iterations_applied,
            events,
            ..FrameOutput::empty()
        }
    }

    fn reseed(seed: u64) -> AppEvent {
        AppEvent::Reseeded {
            seed,
            cause: ReseedCause::Select,
            hand: Some(Hand::Right),
        }
    }

    #[test]
    fn a_reseed_is_recorded_at_the_next_drawn_frame_and_its_time_from_the_first() {
        let mut recorder = RunRecorder::new(LogStart::demo(7, 9, 9), 4);
        recorder.updated(5_000_000_000, &output(1, Vec::new()), 0.1);
        recorder.drawn(0.2);
        recorder.updated(5_500_000_000, &output(1, vec![reseed(9)]), 0.1);
        assert_eq!(recorder.seeds, [7, 9]);
        assert_eq!(
            recorder.reseeds,
            [ReseedRecord {
                frame: 1,
                time: 0.5,
                cause: ReseedCause::Select,
                seed: 9
            }]
        );
    }

    #[test]
    fn a_menu_is_measured_once_per_opening_on_the_frame_it_opened() {
        use crate::app::controls::ShownMenu;
        use crate::render::scene::UiRect;
        // A 10 cm square 0.5 m ahead of the eyes of FrameOutput::empty().
        let square = UiRect {
            centre: glam::Vec3::new(0.0, 0.0, -0.5),
            right: glam::Vec3::X * 0.05,
            up: glam::Vec3::Y * 0.05,
        };
        let showing = |menus: &[Menu]| FrameOutput {
            ui: crate::app::frame::OwnedUiLayer {
                menus: menus
                    .iter()
                    .map(|&menu| ShownMenu {
                        menu,
                        plates: vec![square],
                        labels: Vec::new(),
                        min_contrast: 2.0,
                    })
                    .collect(),
                ..Default::default()
            },
            ..FrameOutput::empty()
        };
        let mut recorder = RunRecorder::new(LogStart::demo(1, 9, 9), 8);
        let (hand, panel) = (Menu::HandMenu, Menu::LandscapesPanel);
        for (frame, menus) in [
            &[][..],
            &[hand],
            &[hand],
            &[panel],
            &[panel, hand],
            &[panel, hand],
        ]
        .into_iter()
        .enumerate()
        {
            recorder.updated(frame as i64 * 1_000_000, &showing(menus), 0.1);
            recorder.drawn(0.2);
        }
        let opened: Vec<(&str, u64)> = recorder
            .menus
            .iter()
            .map(|record| (record.name, record.frame))
            .collect();
        assert_eq!(
            opened,
            [("hand menu", 1), ("landscapes panel", 3), ("hand menu", 4)]
        );
        let first = recorder.menus[0];
        assert!((first.height_deg - 11.421).abs() < 1e-3, "{first:?}");
        assert!((first.width_deg - 11.421).abs() < 1e-3, "{first:?}");
        assert_eq!((first.min_text_deg, first.min_contrast), (0.0, 2.0));
    }

    #[test]
    fn frames_count_what_was_drawn_and_seconds_the_display_span() {
        let mut recorder = RunRecorder::new(LogStart::demo(1, 9, 9), 0);
        recorder.updated(1_000_000_000, &output(3, Vec::new()), 0.1);
        recorder.updated(1_250_000_000, &output(5, Vec::new()), 0.1);
        recorder.drawn(0.2);
        recorder.updated(2_000_000_000, &output(2, Vec::new()), 0.1);
        assert_eq!(recorder.frames(), 1);
        assert_eq!(recorder.display_seconds(), 1.0);
        assert_eq!(recorder.max_iterations_per_frame, 5);
        assert_eq!(recorder.update_ms.len(), 3);
        assert_eq!(recorder.render_ms.len(), 1);
    }
}
