//! The room around the wearer: its surfaces (scene understanding or plane
//! detection), the printed QR codes in sight (scene markers), the spatial anchor that holds the hologram, and keeping the
//! placement between runs.

pub mod anchor;
pub mod keeping;
pub mod markers;
mod plane_detection;
mod scene_understanding;
mod surface_search;
pub mod surfaces;
