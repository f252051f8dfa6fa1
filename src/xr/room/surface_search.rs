//! What the runtime says of a search for the room's surfaces, as each surface extension reports it.
use std::sync::Arc;

use crate::app::Surface;

/// What the runtime says of a search for the room's surfaces.
pub enum Search {
    /// Still searching.
    Running,
    /// It failed in passing: ask again.
    Retry,
    /// Over: the surfaces found, or `None` when the runtime cannot find them.
    Done(Option<Arc<[Surface]>>),
}
