//! Why a recipe cannot be used, in one line: an unknown name, a line of TOML that does not read, a file that cannot be read, a value out of its range.
use thiserror::Error;

/// A recipe that cannot be used, in one line.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum RecipeError {
    /// Not a built-in name.
    #[error(
        "no built-in recipe \"{name}\"; the built-in recipes are {known} (a file is a path with a / or ending in .toml)"
    )]
    Unknown {
        /// The name asked for.
        name: String,
        /// The built-in names, comma-separated.
        known: String,
    },
    /// The file is not TOML, or has an unknown key or a wrong type.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A recipe file that cannot be read.
    #[error("cannot read the recipe {path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// A recipe file with a bad line or value.
    #[error("recipe {path}, {source}")]
    InFile {
        /// The file.
        path: String,
        /// What is wrong in it.
        source: Box<RecipeError>,
    },
    /// A value outside its range.
    #[error("{key} = {value} is out of range: {range}")]
    OutOfRange {
        /// The key, with its table (`growth.depth`).
        key: String,
        /// The value given.
        value: String,
        /// What is allowed.
        range: String,
    },
}

impl RecipeError {
    /// `key = value` outside `range`.
    pub(super) fn out_of_range(key: &str, value: impl ToString, range: impl Into<String>) -> Self {
        RecipeError::OutOfRange {
            key: key.into(),
            value: value.to_string(),
            range: range.into(),
        }
    }
}
