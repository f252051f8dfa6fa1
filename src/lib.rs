//! holoterrain: a terrain hologram grown frame by frame by a BSP fault engine.
//!
//! Layers, dependencies pointing down: `cli` (the command-line definition);
//! `xr` (the OpenXR platform) and `sim` (the headless platform), with
//! `generate` (the offline tool); `net` (shared sessions: codes, the
//! handshake, sealed frames, the host and peer ends, turning bytes into the
//! app's values and back); `app` (the frame-loop core in rooms: `world`,
//! `intent`, `shared`, the `App` itself, and `run`, the one run loop every
//! platform runs, with the record, the command log and saving); `sound` (the
//! controls' clicks, placed and mixed, and the audio device); `input`
//! (gesture recognisers); `render` (the renderer seam and its backends);
//! `terrain` (the engine); `size` and `atomic_file` (small helpers
//! beneath them all). The layers, the seam, the frame path and where each
//! platform plugs in: docs/architecture.md.
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
