//! holoterrain: a terrain hologram grown frame by frame by a BSP fault engine.
//!
//! Layers, dependencies pointing down: `generate` (the offline tool),
//! `render` (Vulkan), `terrain` (the engine, pure).
pub mod generate;
pub mod render;
pub mod terrain;
