//! The world's history: every terrain command and growth step in order, copies of the terrain along it (checkpoints, a bounded number), and the moment the world shows: now, or one scrubbed back to.
//!
//! A moment counts what happened: each terrain command is one, each growth
//! step one. The terrain at any moment is the checkpoint before it, copied,
//! with the steps between applied again; commands and growth are
//! deterministic, so that is the terrain as it stood, bit for bit.
//! Checkpoints are taken by the work done since the last (time, not
//! steps: a step of erosion costs a hundred of faulting), so that
//! rebuilding costs about the same anywhere; past [`MAX_CHECKPOINTS`] every
//! other one goes and the spacing doubles.
use std::sync::Arc;
use std::time::Duration;

use super::command::Command;
use super::edits::EditLayer;
use super::undo::UndoStack;
use crate::terrain::recipe_growth::RecipeGrowth;

/// Most checkpoints a history keeps (besides its start).
pub const MAX_CHECKPOINTS: usize = 96;
/// The work between checkpoints at first: a rebuild replays at most about this much.
const FIRST_SPACING: Duration = Duration::from_millis(40);

/// Everything a terrain command or a growth step changes: what a
/// checkpoint copies.
#[derive(Clone)]
pub struct Terrain {
    /// The terrain being grown.
    pub growth: RecipeGrowth,
    /// The hand edits over it, and the heights that show.
    pub edits: EditLayer,
    /// What undo can take back.
    pub undo: UndoStack,
    /// How many times taller than it is the land is drawn.
    pub exaggeration: f32,
    /// What its recipe is called.
    pub recipe_name: String,
    /// Reseeds so far, an input to the next seed.
    pub reseed_count: u64,
}

impl Terrain {
    /// A copy for a checkpoint: without the heights the edits compose (a
    /// rebuild composes them again) or the growth's reusable buffers.
    fn kept(&self) -> Terrain {
        Terrain {
            growth: self.growth.without_scratch(),
            edits: self.edits.without_shown(),
            undo: self.undo.clone(),
            exaggeration: self.exaggeration,
            recipe_name: self.recipe_name.clone(),
            reseed_count: self.reseed_count,
        }
    }
}

/// One thing that happened to the terrain.
#[derive(Clone)]
pub enum Step {
    /// A terrain command, applied at this display time; made at an
    /// earlier moment, it carries the history it cut off (its undo's).
    Command {
        command: Command,
        time_ns: i64,
        branch: Option<Arc<Future>>,
    },
    /// Growth steps of the seed growing then (adjacent ones merged).
    Grew { steps: usize },
}

impl Step {
    /// The moments it spans.
    fn moments(&self) -> u64 {
        match self {
            Step::Command { .. } => 1,
            Step::Grew { steps } => *steps as u64,
        }
    }
}

/// What a world goes on from before its own commands: a saved run's
/// history, replayed as it was made.
#[derive(Debug, Clone, PartialEq)]
pub enum PastStep {
    /// Grow to `iteration` of the seed growing, then apply `command`.
    Apply {
        iteration: usize,
        command: Command,
        time_ns: i64,
    },
    /// Grow to this iteration of the seed growing.
    GrowTo(usize),
}

/// The terrain at one moment.
#[derive(Clone)]
struct Checkpoint {
    moment: u64,
    terrain: Arc<Terrain>,
}

/// What a change made at an earlier moment cut off: the history after it,
/// kept so that undoing the change gives it back.
#[derive(Clone)]
pub struct Future {
    /// The moment it was cut at.
    pub at: u64,
    steps: Vec<Step>,
    checkpoints: Vec<Checkpoint>,
}

/// What to do again, from a checkpoint to a moment.
pub enum Replay {
    /// Apply this command at this display time (marked as a change made
    /// in the past, cutting off this history).
    Command(Command, i64, Option<Arc<Future>>),
    /// Grow this many steps.
    Grow(usize),
}

/// The history of one world.
#[derive(Clone)]
pub struct History {
    steps: Vec<Step>,
    /// The moment each step begins at.
    starts: Vec<u64>,
    /// Moments in all: "now".
    length: u64,
    /// The moment shown, when scrubbed back; `None`: now.
    scrubbed: Option<u64>,
    /// Sorted by moment; the first is the start, always kept.
    checkpoints: Vec<Checkpoint>,
    /// Work since the last checkpoint, and the work between them.
    since: Duration,
    spacing: Duration,
}

impl History {
    /// A history that starts from `terrain`.
    pub fn new(terrain: &Terrain) -> Self {
        History {
            steps: Vec::new(),
            starts: Vec::new(),
            length: 0,
            scrubbed: None,
            checkpoints: vec![Checkpoint {
                moment: 0,
                terrain: Arc::new(terrain.kept()),
            }],
            since: Duration::ZERO,
            spacing: FIRST_SPACING,
        }
    }

    /// Moments in all.
    pub fn length(&self) -> u64 {
        self.length
    }

    /// The moment shown.
    pub fn shown(&self) -> u64 {
        self.scrubbed.unwrap_or(self.length)
    }

    /// Whether the world shows an earlier moment than now.
    pub fn is_scrubbed(&self) -> bool {
        self.scrubbed.is_some()
    }

    /// Takes checkpoints after `spacing` of work (tests and benchmarks
    /// that want many, or none).
    pub fn set_spacing(&mut self, spacing: Duration) {
        self.spacing = spacing;
    }

    /// Checkpoints kept, the start's included.
    pub fn checkpoints(&self) -> usize {
        self.checkpoints.len()
    }

    /// Notes a terrain command applied at `time_ns`, which took `work`
    /// (`branch`: made at an earlier moment, cutting off that history);
    /// `terrain` is the terrain after it.
    pub fn record_command(
        &mut self,
        command: &Command,
        time_ns: i64,
        work: Duration,
        terrain: &Terrain,
        branch: Option<Arc<Future>>,
    ) {
        debug_assert!(self.scrubbed.is_none(), "a change in the past cuts first");
        self.starts.push(self.length);
        self.steps.push(Step::Command {
            command: command.clone(),
            time_ns,
            branch,
        });
        self.length += 1;
        self.worked(work, terrain);
    }

    /// Notes `steps` growth steps, which took `work`.
    pub fn record_growth(&mut self, steps: usize, work: Duration, terrain: &Terrain) {
        if steps == 0 {
            return;
        }
        match self.steps.last_mut() {
            Some(Step::Grew { steps: grew }) => *grew += steps,
            _ => {
                self.starts.push(self.length);
                self.steps.push(Step::Grew { steps });
            }
        }
        self.length += steps as u64;
        self.worked(work, terrain);
    }

    /// Adds `work`, and takes a checkpoint when enough was done since the last.
    fn worked(&mut self, work: Duration, terrain: &Terrain) {
        self.since += work;
        if self.since >= self.spacing {
            self.keep(terrain);
        }
    }

    /// Keeps `terrain` as the checkpoint at now (the moment left when
    /// scrubbing back, so that coming back costs a copy).
    pub fn keep(&mut self, terrain: &Terrain) {
        self.since = Duration::ZERO;
        if self.checkpoints.last().map(|last| last.moment) == Some(self.length) {
            return;
        }
        self.checkpoints.push(Checkpoint {
            moment: self.length,
            terrain: Arc::new(terrain.kept()),
        });
        if self.checkpoints.len() > MAX_CHECKPOINTS + 1 {
            // Keep the start, the newest, and every other one between.
            let newest = self.checkpoints.len() - 1;
            let mut index = 0;
            self.checkpoints.retain(|_| {
                let keep = index == 0 || index == newest || index % 2 == 0;
                index += 1;
                keep
            });
            self.spacing *= 2;
        }
    }

    /// The terrain of the checkpoint at or before `moment`, and what to do
    /// again from it to reach `moment` (clamped to now).
    pub fn rebuild(&self, moment: u64) -> (Terrain, Vec<Replay>) {
        let moment = moment.min(self.length);
        let index = self
            .checkpoints
            .partition_point(|checkpoint| checkpoint.moment <= moment)
            - 1;
        let from = &self.checkpoints[index];
        let mut replays = Vec::new();
        let first = self.starts.partition_point(|&start| start <= from.moment);
        // The step the checkpoint falls in (or just after).
        let mut step = first.saturating_sub(1);
        let mut at = from.moment;
        while at < moment && step < self.steps.len() {
            let start = self.starts[step];
            let end = start + self.steps[step].moments();
            if end <= at {
                step += 1;
                continue;
            }
            match &self.steps[step] {
                Step::Command {
                    command,
                    time_ns,
                    branch,
                } => replays.push(Replay::Command(command.clone(), *time_ns, branch.clone())),
                Step::Grew { .. } => {
                    let until = end.min(moment);
                    replays.push(Replay::Grow((until - at) as usize));
                }
            }
            at = end.min(moment);
            step += 1;
        }
        ((*from.terrain).clone(), replays)
    }

    /// Shows `moment` from now on (now, when it is the length).
    pub fn show(&mut self, moment: u64) {
        self.scrubbed = (moment < self.length).then_some(moment);
    }

    /// Cuts the history at the moment shown, which becomes now: what came
    /// after it, for undo to give back.
    pub fn cut(&mut self) -> Future {
        let at = self.shown();
        let first_after = self.starts.partition_point(|&start| start < at);
        let mut steps = self.steps.split_off(first_after);
        self.starts.truncate(first_after);
        // A growth run the moment falls inside is split.
        if let Some(Step::Grew { steps: grew }) = self.steps.last_mut() {
            let start = *self.starts.last().expect("a start for every step");
            let inside = (at - start) as usize;
            if inside < *grew {
                steps.insert(
                    0,
                    Step::Grew {
                        steps: *grew - inside,
                    },
                );
                *grew = inside;
            }
        }
        let keep = self
            .checkpoints
            .partition_point(|checkpoint| checkpoint.moment <= at);
        let checkpoints = self.checkpoints.split_off(keep);
        self.length = at;
        self.scrubbed = None;
        self.since = Duration::ZERO;
        Future {
            at,
            steps,
            checkpoints,
        }
    }

    /// Puts back what [`History::cut`] cut off (the history since is
    /// dropped), showing the moment it was cut at.
    pub fn restore(&mut self, future: &Future) {
        self.cut_to(future.at);
        let mut start = self.length;
        for step in &future.steps {
            let moments = step.moments();
            match (step, self.steps.last_mut()) {
                (Step::Grew { steps }, Some(Step::Grew { steps: grew })) => *grew += steps,
                _ => {
                    self.starts.push(start);
                    self.steps.push(step.clone());
                }
            }
            start += moments;
        }
        self.length = start;
        self.checkpoints.extend(future.checkpoints.iter().cloned());
        self.show(future.at);
    }

    /// Drops everything after `moment`.
    fn cut_to(&mut self, moment: u64) {
        self.scrubbed = Some(moment.min(self.length));
        self.cut();
    }

    /// The moment just before the last command before the one shown (the
    /// start if none): where "back" goes.
    pub fn back(&self) -> u64 {
        let shown = self.shown();
        self.starts
            .iter()
            .zip(&self.steps)
            .rev()
            .find(|(start, step)| matches!(step, Step::Command { .. }) && **start < shown)
            .map_or(0, |(start, _)| *start)
    }

    /// The moment just after the next command after the one shown (now if
    /// none): where "forward" goes.
    pub fn forward(&self) -> u64 {
        let shown = self.shown();
        self.starts
            .iter()
            .zip(&self.steps)
            .find(|(start, step)| matches!(step, Step::Command { .. }) && **start >= shown)
            .map_or(self.length, |(start, _)| *start + 1)
    }

    /// The steps so far, oldest first.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }
}
