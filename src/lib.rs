//! holoterrain: a terrain hologram grown frame by frame by a BSP fault engine.
//!
//! Layers, dependencies pointing down: `terrain` (the engine, pure).
pub mod terrain;
pub mod xr;
