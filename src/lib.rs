//! holoterrain: a terrain hologram grown frame by frame by a BSP fault engine.
//!
//! Layers, dependencies pointing down: `cli` (the command-line definition);
//! `sim` (the headless platform) and `generate` (the offline tool); `app`
//! (the frame-loop core); `input` (gesture recognisers); `render` (Vulkan);
//! `terrain` (the engine); `xr` (the OpenXR platform, beside `sim`).
pub mod app;
pub mod atomic_file;
pub mod cli;
pub mod generate;
pub mod input;
pub mod render;
pub mod sim;
pub mod size;
pub mod terrain;
pub mod xr;
