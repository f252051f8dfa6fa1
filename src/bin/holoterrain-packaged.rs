//! `holoterrain-packaged`: the entry of the HoloLens 2 app package. Started
//! from its tile, with no command line and no console window, it runs the
//! OpenXR session with `holoterrain xr`'s defaults; its log and report are in
//! the package's LocalState (docs/hololens.md, "On the device").
#![windows_subsystem = "windows"]

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(holoterrain::xr::run_packaged())
}
