//! The packaged app (HoloLens 2): started from its tile with no command line
//! and no console, it runs the OpenXR session with the defaults of
//! `holoterrain xr`, logs to a file in its state folder (and to the debugger
//! output on Windows), writes its report there, and ends with the session.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use clap::Parser;

use super::args::XrArgs;
use super::entry::run;
use crate::xr::error::XrError;
use crate::xr::progress::Progress;
use crate::xr::run::state_folder::{StateFolder, state_folder};

/// The log of the latest launch, in the state folder.
pub const LOG_FILE: &str = "holoterrain.log";
/// The report of the latest session, in the state folder.
pub const REPORT_FILE: &str = "report.json";

/// Runs the packaged app; the value is the process's exit status: 0 when the
/// session ended properly, [`crate::xr::EXIT_RUNTIME_STOPPED`] when the runtime
/// stopped under it, 1 for any other failure (each said in the log; the
/// OpenXR loader's own messages go to the debugger output). When the
/// runtime stops answering the watchdog logs its line and ends the process
/// itself with [`crate::xr::EXIT_RUNTIME_UNRESPONSIVE`].
pub fn run_packaged() -> u8 {
    let folder = match state_folder() {
        Ok(folder) => folder,
        Err(error) => {
            // No file to log to: the debugger output is all there is.
            debugger_output(&format!("holoterrain: error: {error}\n"));
            return 1;
        }
    };
    let log_path = folder.path.join(LOG_FILE);
    if let Err(error) = start_logging(&log_path) {
        debugger_output(&format!(
            "holoterrain: error: cannot write the log {}: {error}\n",
            log_path.display()
        ));
        return 1;
    }
    log::info!(
        "holoterrain {} started; state folder {} ({:?})",
        env!("CARGO_PKG_VERSION"),
        folder.path.display(),
        folder.kind
    );
    let args = match session_args(&folder) {
        Ok(args) => args,
        Err(error) => {
            log::error!("error: the packaged app's session options: {error}");
            return 1;
        }
    };
    match run(&args, &mut log_progress, log_error) {
        Ok(report) => {
            log::info!(
                "session over: {} frames rendered, {} reseeds, ended: {}; report {}",
                report.run.frames,
                report.run.reseeds.len(),
                report.ended.describe(),
                folder.path.join(REPORT_FILE).display()
            );
            0
        }
        Err(error) => {
            log_error(&error);
            error.exit_status()
        }
    }
}

/// The packaged app's session options: those of `holoterrain xr --report
/// STATE/report.json`, parsed by the command line's own definition so the two
/// cannot drift apart.
#[derive(Debug, clap::Parser)]
struct PackagedSession {
    /// `holoterrain xr`'s options.
    #[command(flatten)]
    xr: XrArgs,
}

/// The session options with the report in `folder`.
fn session_args(folder: &StateFolder) -> Result<XrArgs, clap::Error> {
    let report = folder.path.join(REPORT_FILE);
    let args = [
        OsString::from("holoterrain"),
        "--report".into(),
        report.into(),
    ];
    PackagedSession::try_parse_from(args).map(|session| session.xr)
}

/// Logs an error's one line.
fn log_error(error: &XrError) {
    log::error!("error: {error}");
}

/// Logs what the session tells, but not every frame.
fn log_progress(progress: Progress) {
    if !matches!(
        progress,
        Progress::FrameDrawn(_)
            | Progress::SelectPressed(_)
            | Progress::MenuPressed(_)
            | Progress::RayOn { .. }
    ) {
        log::info!("{progress}");
    }
}

/// Logs at info level and above to `path` (replacing the previous launch's
/// log) and to the debugger output.
fn start_logging(path: &Path) -> io::Result<()> {
    let file = File::create(path)?;
    env_logger::Builder::new()
        .filter_level(log::LevelFilter::Info)
        .write_style(env_logger::WriteStyle::Never)
        .target(env_logger::Target::Pipe(Box::new(LogSink { file })))
        .try_init()
        .map_err(io::Error::other)
}

/// Where the packaged app's log lines go: its file, then the debugger.
struct LogSink {
    /// The log file in the state folder.
    file: File,
}

impl Write for LogSink {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        self.file.write_all(line)?;
        // A line at a time reaches the file, so a crash loses none before it.
        self.file.flush()?;
        debugger_output(&String::from_utf8_lossy(line));
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Shows `text` in an attached debugger (Visual Studio, the Device Portal's
/// debugging tools); without one Windows drops it.
#[cfg(windows)]
fn debugger_output(text: &str) {
    use windows_sys::Win32::System::Diagnostics::Debug::OutputDebugStringW;
    let wide: Vec<u16> = text.encode_utf16().chain(std::iter::once(0)).collect();
    // SAFETY: `wide` is a NUL-terminated UTF-16 string that outlives the call.
    unsafe { OutputDebugStringW(wide.as_ptr()) };
}

/// No debugger output outside Windows: the log file is all.
#[cfg(not(windows))]
fn debugger_output(_text: &str) {}
