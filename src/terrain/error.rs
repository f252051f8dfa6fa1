//! The error type of the terrain engine.
use thiserror::Error;

/// What can go wrong when a caller asks the engine for something impossible.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum TerrainError {
    /// A heightmap needs at least two samples along each axis.
    #[error("heightmap size {width}x{height} is too small: both sides must be at least 2")]
    TooSmall { width: usize, height: usize },
    /// The cell count does not fit in memory addressing.
    #[error("heightmap size {width}x{height} is too large")]
    TooLarge { width: usize, height: usize },
    /// A cell vector whose length does not match the stated size.
    #[error("heightmap of {width}x{height} needs {expected} cells, got {actual}")]
    WrongCellCount {
        width: usize,
        height: usize,
        expected: usize,
        actual: usize,
    },
    /// A parameter outside the range where the algorithm is defined.
    #[error("{name} = {value} is out of range: {expected}")]
    OutOfRange {
        name: &'static str,
        value: String,
        expected: &'static str,
    },
}

impl TerrainError {
    /// Builds an [`TerrainError::OutOfRange`] naming the parameter and its allowed range.
    pub fn out_of_range(name: &'static str, value: impl ToString, expected: &'static str) -> Self {
        TerrainError::OutOfRange {
            name,
            value: value.to_string(),
            expected,
        }
    }
}
