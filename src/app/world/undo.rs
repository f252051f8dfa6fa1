//! Undo and redo: what each terrain command (reseed, landscape, edit, weather, exaggeration) replaced, newest last, the last [`UNDO_DEPTH`] of them.
use std::collections::VecDeque;
use std::sync::Arc;

use serde::Serialize;

use super::edits::BandedLayer;
use super::history::Future;
use crate::terrain::recipe_growth::RecipeGrowth;

/// Terrain commands that can be taken back, counting back from the last.
pub const UNDO_DEPTH: usize = 16;

/// Which terrain command an undo takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Undone {
    /// A new seed.
    Reseed,
    /// A new landscape.
    Landscape,
    /// A traced fault.
    Trace,
    /// A lifted hill.
    Lift,
    /// Erosion started early ("Weather").
    Weather,
    /// The land drawn taller or flatter.
    Exaggeration,
}

/// What one terrain command replaced.
#[derive(Clone)]
pub enum Replaced {
    /// An edit: the edit layer as it was before.
    Edit {
        /// Which edit.
        kind: Undone,
        /// The layer before it (`None`: no edits).
        layer: Option<BandedLayer>,
    },
    /// A new terrain: the growth it replaced, as it stood, with its edits.
    Terrain {
        /// A reseed or a landscape.
        kind: Undone,
        /// The growth, mid-way or done, ready to go on.
        growth: Box<RecipeGrowth>,
        /// What its recipe is called.
        recipe_name: String,
        /// Its edit layer.
        layer: Option<BandedLayer>,
    },
    /// A "Taller" or "Flatter": the exaggeration before it.
    Exaggeration {
        /// How many times taller the land was drawn.
        exaggeration: f32,
    },
    /// A "Weather": the growth before it, as the steps to grow it again
    /// (its own earlier weathers, and how far it had grown).
    Weather {
        /// Where earlier weathers started.
        weathered_at: Vec<usize>,
        /// How far it had grown.
        steps: usize,
    },
    /// A change made at an earlier moment (scrubbed back to): the history
    /// it cut off. Undoing it goes back to that moment with the history
    /// after it as it was; it cannot be redone.
    Branch {
        /// Which command made the change.
        kind: Undone,
        /// What it cut off.
        future: Arc<Future>,
    },
}

impl Replaced {
    /// Which command it was.
    pub fn kind(&self) -> Undone {
        match self {
            Replaced::Edit { kind, .. }
            | Replaced::Terrain { kind, .. }
            | Replaced::Branch { kind, .. } => *kind,
            Replaced::Weather { .. } => Undone::Weather,
            Replaced::Exaggeration { .. } => Undone::Exaggeration,
        }
    }
}

/// The commands that can still be taken back, and those undo took back
/// that can be done again. Shared, not copied, by the history's
/// checkpoints: what one command replaced can be a whole growth.
#[derive(Default, Clone)]
pub struct UndoStack {
    steps: VecDeque<Arc<Replaced>>,
    /// What each undo replaced, newest last: a redo's to put back. Any new
    /// change clears it, as a history that branched has nothing to redo.
    undone: Vec<Arc<Replaced>>,
    /// Commands noted so far.
    pushed: u64,
}

impl UndoStack {
    /// Notes what a new command replaced, forgetting the oldest beyond
    /// [`UNDO_DEPTH`]; nothing undone can be redone after it.
    pub fn push(&mut self, replaced: Replaced) {
        self.undone.clear();
        self.pushed += 1;
        self.push_undone(replaced);
    }

    /// How many commands [`UndoStack::push`] noted, ever: whether a command
    /// pushed one.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Marks the last command noted as made at an earlier moment: undoing
    /// it gives back `future`, the history it cut off.
    pub fn mark_branch(&mut self, future: Arc<Future>) {
        if let Some(last) = self.steps.pop_back() {
            self.steps.push_back(Arc::new(Replaced::Branch {
                kind: last.kind(),
                future,
            }));
        }
    }

    /// What the last command replaced, left where it is.
    pub fn last(&self) -> Option<&Replaced> {
        self.steps.back().map(Arc::as_ref)
    }

    /// Notes what a redo replaced: it can be undone again, and what else
    /// was undone can still be redone.
    pub fn push_undone(&mut self, replaced: Replaced) {
        if self.steps.len() == UNDO_DEPTH {
            self.steps.pop_front();
        }
        self.steps.push_back(Arc::new(replaced));
    }

    /// Notes what an undo replaced, for a redo.
    pub fn push_redo(&mut self, replaced: Replaced) {
        self.undone.push(Arc::new(replaced));
    }

    /// What the last undo replaced, if nothing new came since.
    pub fn pop_redo(&mut self) -> Option<Replaced> {
        self.undone.pop().map(Arc::unwrap_or_clone)
    }

    /// How many undos can be redone.
    pub fn redo_len(&self) -> usize {
        self.undone.len()
    }

    /// What the last command replaced, if any is left.
    pub fn pop(&mut self) -> Option<Replaced> {
        self.steps.pop_back().map(Arc::unwrap_or_clone)
    }

    /// How many commands can be taken back.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether none can.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}
