//! Why a simulator run failed: one error type whose every message is one line naming the problem and what to do.
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::room::RoomError;
use super::script::ScriptError;
use super::wait::WaitTimedOut;
use crate::app::AppError;
use crate::app::driver::Diverged;
use crate::app::kept::KeptError;
use crate::app::log::LogError;
use crate::render::error::RenderError;
use crate::terrain::recipe::RecipeError;

/// Why a simulator run failed; each message is one line naming the problem.
#[derive(Debug, Error)]
pub enum SimError {
    /// A flag's value is out of range.
    #[error("--{flag}: {problem}")]
    InvalidArgument {
        /// The flag, without dashes.
        flag: &'static str,
        /// What is wrong with its value and what is allowed.
        problem: String,
    },
    /// The script file could not be read.
    #[error("cannot read the gesture script {path}: {source}")]
    ReadScript {
        /// The script's path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The script has a bad line.
    #[error("gesture script {path}, {source}")]
    Script {
        /// The script's path.
        path: PathBuf,
        /// The line and what is wrong with it.
        source: ScriptError,
    },
    /// The command log to replay could not be read.
    #[error("cannot read the command log {path}: {source}")]
    ReadLog {
        /// The log's path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The command log to replay has a bad line.
    #[error("command log {path}, {source}")]
    Log {
        /// The log's path.
        path: PathBuf,
        /// The line and what is wrong with it.
        source: LogError,
    },
    /// A scripted `wait` was not met in time.
    #[error("gesture script {path}, line {}: waited {} s for '{}'; {}", .waited.line, super::wait::MAX_WAIT.as_secs(), .waited.condition, .waited.why)]
    Wait {
        /// The script's path.
        path: PathBuf,
        /// The wait, and why its condition did not hold.
        waited: WaitTimedOut,
    },
    /// A shared session could not be hosted or joined (`--share`, `--join`).
    #[error("{0}")]
    Share(String),
    /// The recipe cannot be used.
    #[error("--recipe: {0}")]
    Recipe(#[from] RecipeError),
    /// The replay no longer follows its log.
    #[error(transparent)]
    Diverged(#[from] Diverged),
    /// The room file could not be read.
    #[error("cannot read the room {path}: {source}")]
    ReadRoom {
        /// The room's path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The room file has a bad line.
    #[error("room {path}, {source}")]
    Room {
        /// The room's path.
        path: PathBuf,
        /// The line and what is wrong with it.
        source: RoomError,
    },
    /// The kept placement could not be written (or forgotten).
    #[error(transparent)]
    State(KeptError),
    /// An output file or folder could not be written.
    #[error("cannot write {path}: {source}")]
    Output {
        /// What was being written.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A PNG could not be encoded.
    #[error("cannot encode {path}: {source}")]
    Png {
        /// The image being written.
        path: PathBuf,
        /// Why.
        source: png::EncodingError,
    },
    /// The app could not start.
    #[error(transparent)]
    App(#[from] AppError),
    /// Rendering failed (including: no Vulkan driver).
    #[error(transparent)]
    Render(#[from] RenderError),
}

impl SimError {
    pub(super) fn output(path: &Path, source: std::io::Error) -> Self {
        SimError::Output {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(super) fn png(path: &Path, source: png::EncodingError) -> Self {
        SimError::Png {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(super) fn invalid(flag: &'static str, problem: impl Into<String>) -> Self {
        SimError::InvalidArgument {
            flag,
            problem: problem.into(),
        }
    }
}
