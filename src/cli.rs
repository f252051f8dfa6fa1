//! The `holoterrain` command-line definition (clap), shared by the binary and
//! by the generator of the packaged man pages and shell completions.
use clap::{Parser, Subcommand};

use crate::generate::GenerateArgs;
use crate::sim::SimArgs;
use crate::xr::XrArgs;

// The doc comment is the `--help` summary (no bare `about`, which would take
// Cargo.toml's description, written for the Debian package instead).
/// A terrain hologram grown frame by frame by a BSP fault engine.
#[derive(Debug, Parser)]
#[command(name = "holoterrain", version)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands, one per platform or tool.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the headless simulator: the whole frame loop, no headset, no GPU needed (runs on lavapipe).
    Sim(SimArgs),
    /// Run in an OpenXR session: a headset, or Monado (see docs/xr.md).
    #[command(after_help = crate::xr::EXIT_STATUS_HELP)]
    Xr(XrArgs),
    /// Write a heightmap file from the terrain engine.
    Generate(GenerateArgs),
    /// List the built-in recipes (landscapes), or print one as a file to copy and edit.
    Recipes(RecipesArgs),
    /// Write a shared session's code as a QR code to print (see docs/shared.md).
    ShareCard(ShareCardArgs),
}

/// Options of `holoterrain share-card`.
#[derive(Debug, clap::Args)]
pub struct ShareCardArgs {
    /// The session's code, NUMBER-word-word.
    pub code: String,
    /// The PNG to write.
    #[arg(long, default_value = "card.png")]
    pub out: std::path::PathBuf,
}

/// Options of `holoterrain recipes`.
#[derive(Debug, clap::Args)]
pub struct RecipesArgs {
    /// `show NAME`: print that recipe as a TOML file.
    #[command(subcommand)]
    pub show: Option<RecipesCommand>,
}

/// What `holoterrain recipes` can do besides listing.
#[derive(Debug, Subcommand)]
pub enum RecipesCommand {
    /// Print a built-in recipe as a TOML file: save it, edit it and pass it back with --recipe FILE.
    Show {
        /// The recipe's name.
        name: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn definition_passes_clap_consistency_checks() {
        Cli::command().debug_assert();
    }
}
