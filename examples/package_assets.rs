//! Writes the files the Debian package ships beside the binary that are made
//! from the command-line definition: one man page per (sub)command and the
//! bash, zsh and fish completions. Run by scripts/build-deb.sh:
//!
//!     cargo run --example package_assets -- OUT_DIR
//!
//! An example rather than a build script because the definition
//! (`holoterrain::cli::Cli`) lives in the library, which a build script of the
//! same package cannot use; and rather than a subcommand so that the shipped
//! binary neither changes nor carries the generators.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;
use holoterrain::cli::Cli;

/// The shells whose completions the package installs.
const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(out_dir), None) = (args.next(), args.next()) else {
        eprintln!(
            "error: give exactly one output directory: cargo run --example package_assets -- OUT_DIR"
        );
        return ExitCode::from(2);
    };
    match write_assets(&PathBuf::from(out_dir)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `OUT_DIR/man/*.1` and `OUT_DIR/completions/*`.
fn write_assets(out_dir: &std::path::Path) -> Result<(), String> {
    let man_dir = out_dir.join("man");
    let completions_dir = out_dir.join("completions");
    for dir in [&man_dir, &completions_dir] {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    // Built as a whole so each subcommand's page is titled `holoterrain-NAME`;
    // no page for clap's `help` subcommand, which `--help` already covers.
    let mut root = Cli::command().disable_help_subcommand(true);
    root.build();
    let source = format!("holoterrain {}", env!("CARGO_PKG_VERSION"));
    let pages = std::iter::once(root.clone()).chain(root.get_subcommands().cloned());
    for page in pages {
        clap_mangen::Man::new(page)
            .source(source.clone())
            .manual("holoterrain manual")
            .generate_to(&man_dir)
            .map_err(|e| format!("cannot write a man page into {}: {e}", man_dir.display()))?;
    }
    let mut command = Cli::command();
    let name = command.get_name().to_owned();
    for shell in SHELLS {
        clap_complete::generate_to(shell, &mut command, &name, &completions_dir).map_err(|e| {
            format!(
                "cannot write {shell} completions into {}: {e}",
                completions_dir.display()
            )
        })?;
    }
    Ok(())
}
