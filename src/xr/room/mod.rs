//! The room around the wearer: its surfaces (scene understanding or plane
//! detection), the spatial anchor that holds the hologram, and keeping the
//! placement between runs.

pub mod anchor;
pub mod keeping;
mod plane_detection;
mod scene_understanding;
mod surface_search;
pub mod surfaces;
