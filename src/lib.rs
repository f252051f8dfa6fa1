//! holoterrain: a terrain hologram grown frame by frame by a BSP fault engine.
//!
//! Layers, dependencies pointing down: `generate` (the offline tool), `terrain` (the engine, pure).
pub mod app;
pub mod generate;
pub mod input;
pub mod render;
pub mod sim;
pub mod terrain;
