//! holoterrain: a terrain hologram grown frame by frame by a BSP fault engine.
//!
//! Layers, dependencies pointing down: `cli` (the command-line definition);
//! `xr` (the OpenXR platform) and `sim` (the headless platform), with
//! `generate` (the offline tool); `app` (the frame-loop core and the frame
//! glue both platforms share); `sound` (the controls' clicks, placed and
//! mixed, and the audio device); `input` (gesture recognisers); `render`
//! (the renderer seam and its backends); `terrain` (the engine). The
//! layers, the seam, the frame path and where each platform plugs in:
//! docs/architecture.md.
pub mod app;
pub mod atomic_file;
pub mod cli;
pub mod generate;
pub mod input;
pub mod net;
pub mod render;
pub mod sim;
pub mod size;
pub mod sound;
pub mod terrain;
pub mod xr;
