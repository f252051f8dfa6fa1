//! What a run reports, on either platform: reseeds, placements, the hologram's pose and scale, per-frame CPU times.
//!
//! The simulator's report.json and `holoterrain xr --report` share these
//! records, so one reader understands both.
use std::collections::BTreeMap;

use serde::Serialize;

use crate::terrain::recipe::Recipe;

use crate::app::controls::PressedBy;
use crate::app::world::command::ReseedCause;
use crate::app::world::placement::{Placement, PlacementCause};
use crate::app::world::undo::Undone;
use crate::input::Hand;
use crate::input::Pose;

/// Spread of a set of per-frame timings, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TimingStats {
    /// Half the frames took at most this long.
    pub median: f64,
    /// 95 % of the frames took at most this long.
    pub p95: f64,
    /// The slowest frame.
    pub max: f64,
}

impl TimingStats {
    /// Statistics of `samples` (milliseconds), nearest-rank percentiles; all
    /// zero when there are none.
    pub fn of(samples: &[f64]) -> Self {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank = |fraction: f64| {
            let index = ((fraction * sorted.len() as f64).ceil() as usize)
                .clamp(1, sorted.len().max(1))
                - 1;
            sorted.get(index).copied().unwrap_or(0.0)
        };
        TimingStats {
            median: rank(0.5),
            p95: rank(0.95),
            max: sorted.last().copied().unwrap_or(0.0),
        }
    }
}

/// CPU time per frame of the two halves of the loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CpuTimes {
    /// `App::update`: gestures, placement, growth.
    pub update: TimingStats,
    /// Recording and submitting the frame (including any wait for its slot).
    pub render: TimingStats,
}

/// One reseed as the report lists it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ReseedRecord {
    /// Frame index (0-based) on which it happened.
    pub frame: u64,
    /// That frame's display time, seconds from the first frame.
    pub time: f64,
    /// What caused it.
    pub cause: ReseedCause,
    /// The new seed.
    pub seed: u64,
}

/// The hand coach showing or going.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CoachRecord {
    /// The frame it showed or went on.
    pub frame: u64,
    /// Display seconds since the run's first frame.
    pub time: f64,
    /// `"shown"`, or `"gone"` (its gesture done).
    pub event: &'static str,
    /// The gesture it shows: `"airtap"` or `"palm"`.
    pub what: &'static str,
}

/// A button pressed: when, which, how and what it did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct UiRecord {
    /// The frame it acted on.
    pub frame: u64,
    /// Display seconds since the run's first frame.
    pub time: f64,
    /// The button's label.
    pub label: &'static str,
    /// A fingertip, a ray or the label said.
    pub how: PressedBy,
    /// What it did.
    pub did: &'static str,
}

/// A toast as it began.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToastRecord {
    /// The frame it began on.
    pub frame: u64,
    /// What it says.
    pub text: String,
}

/// A menu or panel as it opened: how big it and its smallest text look
/// from the eyes on that frame, and how its labels stand out
/// (`controls::measure`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MenuRecord {
    /// "hand menu" or "landscapes panel".
    pub name: &'static str,
    /// The frame it was first seen on.
    pub frame: u64,
    /// The angle up it from the point between the eyes, degrees.
    pub height_deg: f32,
    /// The angle across it, degrees.
    pub width_deg: f32,
    /// The angle its smallest label's capitals subtend, degrees.
    pub min_text_deg: f32,
    /// The lowest WCAG 2 contrast ratio of a label on its plate, over
    /// every look the plates take.
    pub min_contrast: f32,
}

/// A hand edit: when, which, by which hand, and whether it applied (if
/// not, why).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EditRecord {
    /// The frame it showed from.
    pub frame: u64,
    /// Display seconds since the run's first frame.
    pub time: f64,
    /// A trace or a lift.
    pub kind: Undone,
    /// The hand that made it.
    pub hand: Option<Hand>,
    /// Whether it changed the terrain.
    pub applied: bool,
    /// Why it did not.
    pub ignored: Option<&'static str>,
}

/// An undo: when, and what it took back (none when nothing was left).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct UndoRecord {
    /// The frame it showed from.
    pub frame: u64,
    /// Display seconds since the run's first frame.
    pub time: f64,
    /// What it took back.
    pub undone: Option<Undone>,
}

/// A redo: when, and what it did again (none when nothing could be redone).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RedoRecord {
    /// The frame it showed from.
    pub frame: u64,
    /// Display seconds since the run's first frame.
    pub time: f64,
    /// What it did again.
    pub redone: Option<Undone>,
}

/// A scrub of the history: when, where to and what rebuilding it took.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScrubRecord {
    /// The frame it showed from.
    pub frame: u64,
    /// Display seconds since the run's first frame.
    pub time: f64,
    /// Where in the history it went: 0 its start, 1 now.
    pub to: f64,
    /// The moment shown, of `length` (each terrain command and growth step is one).
    pub moment: u64,
    /// The history's moments in all.
    pub length: u64,
    /// CPU milliseconds rebuilding the terrain at that moment took.
    pub ms: f64,
}

/// A save opened: when, which, and the commands its history holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenedRecord {
    /// The frame it showed from.
    pub frame: u64,
    /// Display seconds since the run's first frame.
    pub time: f64,
    /// The save's folder.
    pub folder: String,
    /// The commands it replayed.
    pub commands: usize,
}

/// A pose as the report lists it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PoseRecord {
    /// Position in metres, x y z.
    pub position: [f32; 3],
    /// Orientation quaternion, x y z w.
    pub orientation: [f32; 4],
}

impl From<Pose> for PoseRecord {
    fn from(pose: Pose) -> Self {
        PoseRecord {
            position: pose.position.to_array(),
            orientation: pose.orientation.to_array(),
        }
    }
}

/// One settled change of the hologram's placement as the report lists it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlacementRecord {
    /// Frame index (0-based) on which it happened.
    pub frame: u64,
    /// What placed it there.
    pub cause: PlacementCause,
    /// Centre of the base, metres, x y z.
    pub position: [f32; 3],
    /// Orientation quaternion, x y z w.
    pub orientation: [f32; 4],
    /// Size relative to the 0.5 m default.
    pub scale: f32,
}

impl PlacementRecord {
    /// `placement`, placed by `cause` on `frame`.
    pub fn new(frame: u64, placement: &Placement, cause: PlacementCause) -> Self {
        PlacementRecord {
            frame,
            cause,
            position: placement.pose.position.to_array(),
            orientation: placement.pose.orientation.to_array(),
            scale: placement.scale,
        }
    }
}

/// What a run did, on either platform: the simulator's report.json, and the
/// first fields of `holoterrain xr --report`; made by
/// `recorder::RunRecorder`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunReport {
    /// Frames drawn (in the simulator, every simulated frame is; in an
    /// OpenXR session, those submitted with a projection layer).
    pub frames: u64,
    /// Display seconds the run covered (in the simulator: frames / rate,
    /// plus the scripted stalls).
    pub seconds: f64,
    /// Every seed grown, the first one then one per reseed.
    pub seeds: Vec<u64>,
    /// The reseeds in order.
    pub reseeds: Vec<ReseedRecord>,
    /// The recipe grown last: a built-in name or its file.
    pub recipe: String,
    /// Its every value.
    pub recipe_values: Option<Recipe>,
    /// Growth steps (fault iterations, then slices of smoothing and
    /// weathering) applied to the last seed by the final frame.
    pub iterations: usize,
    /// Whether every growth step of the last seed was done: the terrain is
    /// then what `generate` writes for the same recipe, seed and size.
    pub growth_complete: bool,
    /// The most fault iterations any one frame applied (the app's per-frame
    /// budget caps it, however long a stall was).
    pub max_iterations_per_frame: usize,
    /// Every settled change of the hologram's placement, in order.
    pub placements: Vec<PlacementRecord>,
    /// Hand edits, applied or ignored (with why), in order.
    pub edits: Vec<EditRecord>,
    /// Undos and what each took back, in order.
    pub undos: Vec<UndoRecord>,
    /// Redos and what each did again, in order.
    pub redos: Vec<RedoRecord>,
    /// Scrubs of the history, in order.
    pub scrubs: Vec<ScrubRecord>,
    /// Saves opened, in order.
    pub opened: Vec<OpenedRecord>,
    /// Buttons pressed, in order.
    pub ui: Vec<UiRecord>,
    /// The hand coach showing and going, in order.
    pub coach: Vec<CoachRecord>,
    /// Each opening of a menu or panel, in order.
    pub menus: Vec<MenuRecord>,
    /// Clicks the controls sounded (or, with no audio device, would have):
    /// one as each press begins and one as it ends.
    pub clicks: u64,
    /// Every sound asked for, by name (`press`, `release`, `grab`,
    /// `let_go`, `tracing`: the tracing loop's grains), with how many times.
    pub sounds: BTreeMap<&'static str, u64>,
    /// The toasts shown, in order: on which frame each began, and its line.
    pub toasts: Vec<ToastRecord>,
    /// Where the hologram was at the end (null if it never was placed).
    pub hologram_pose: Option<PoseRecord>,
    /// Its scale at the end (1 = 0.5 m across; null if never placed).
    pub hologram_scale: Option<f32>,
    /// Per-frame CPU times.
    pub cpu_ms: CpuTimes,
    /// Validation messages (Vulkan's layer, Direct3D 11's debug layer and,
    /// in an OpenXR session, the OpenXR core validation layer); null when
    /// validation was off.
    pub validation_messages: Option<u64>,
    /// The printed codes the platform handed over, each once, on the frame
    /// it first did (`FrameInput.markers`), in that order.
    pub markers_seen: Vec<MarkerRecord>,
}

/// A printed code as the platform first handed it over.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkerRecord {
    /// Frame index (0-based) of the update that first had it.
    pub frame: u64,
    /// The text it holds.
    pub text: String,
    /// Its centre in the platform's space, metres, x y z.
    pub position: [f32; 3],
    /// Its orientation, quaternion x y z w (+Y out of its face).
    pub orientation: [f32; 4],
    /// Its side, metres.
    pub size_m: f32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_stats_take_median_p95_and_max() {
        let samples: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let stats = TimingStats::of(&samples);
        assert_eq!(
            stats,
            TimingStats {
                median: 50.0,
                p95: 95.0,
                max: 100.0
            }
        );
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let samples: Vec<f64> = (1..=20).map(f64::from).collect();
        let stats = TimingStats::of(&samples);
        assert_eq!((stats.median, stats.p95, stats.max), (10.0, 19.0, 20.0));
    }

    #[test]
    fn timing_stats_of_no_samples_are_zero() {
        assert_eq!(TimingStats::of(&[]), TimingStats::default());
    }
}
