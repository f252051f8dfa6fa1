//! holoterrain: a terrain hologram grown frame by frame by a BSP fault engine.
//!
//! Layers, dependencies pointing down: `terrain` (the engine, pure).
pub mod app;
pub mod input;
pub mod render;
pub mod terrain;
pub mod xr;
