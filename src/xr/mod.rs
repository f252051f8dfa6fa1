//! The OpenXR platform (`holoterrain xr`): runs the app inside an OpenXR
//! session on a runtime with Vulkan (XR_KHR_vulkan_enable2).

mod anchor;
mod convert;
mod error;
mod frames;
mod graphics;
mod input;
mod report;
mod runtime;
mod session;
mod swapchain;
mod validation;

use std::path::PathBuf;

pub use error::XrError;
pub use report::XrReport;

/// Options of `holoterrain xr`.
#[derive(Debug, Clone, clap::Args)]
pub struct XrArgs {
    /// Stop after this many rendered frames, ending the session properly.
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Write the run report (JSON) to this file when the session ends.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Turn on the OpenXR core validation layer and the Khronos Vulkan
    /// validation layer, and count their messages into the report.
    #[arg(long)]
    pub validation: bool,
    /// The first terrain seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Heightmap size, width x height samples.
    #[arg(long, value_name = "WxH", default_value = "257x257", value_parser = parse_size)]
    pub size: (usize, usize),
}

/// Parses "WxH" (e.g. "257x257") into (width, height).
fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let (width, height) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WxH such as 257x257, got {text:?}"))?;
    let parse = |part: &str| {
        part.trim()
            .parse::<usize>()
            .map_err(|error| format!("bad size {text:?}: {error}"))
    };
    Ok((parse(width)?, parse(height)?))
}

/// Runs the OpenXR session until the runtime, Ctrl-C or `--frames` ends it;
/// writes the report when asked and returns it.
pub fn run(args: &XrArgs) -> Result<XrReport, XrError> {
    let report = session::run_session(args)?;
    if let Some(path) = &args.report {
        report.write(path)?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_parses_width_and_height() {
        assert_eq!(parse_size("129x65"), Ok((129, 65)));
    }

    #[test]
    fn size_without_separator_is_rejected() {
        assert!(parse_size("257").is_err());
    }
}
