//! What outlives a session: `holoterrain xr`'s options and entry, the
//! packaged HoloLens app's entry with its state folder, the frame loop, the
//! watchdog beside it, the report, and (Windows) closing the console.

pub mod args;
#[cfg(windows)]
mod console_close;
pub mod entry;
mod frame_loop;
pub mod packaged;
pub mod report;
pub mod state_folder;
mod watchdog;
