//! The `holoterrain` command line: parse arguments, pick a platform, run.
use anyhow::Result;
use clap::Parser;
use holoterrain::cli::{Cli, Command, RecipesArgs, RecipesCommand, ShareCardArgs};
use holoterrain::generate::{self, LazyProgress};
use holoterrain::sim;
use holoterrain::terrain::recipe::Recipe;
use holoterrain::xr;
use std::process::ExitCode;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Every message already names its cause, so the chain is not repeated.
            print_error(&e);
            exit_code(&e)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Sim(args) => {
            let report = sim::run(&args)?;
            eprintln!(
                "simulated {} frames ({:.1} s), {} reseeds; wrote {}",
                report.frames,
                report.seconds,
                report.reseeds.len(),
                args.out.display()
            );
        }
        Command::Xr(args) => {
            let report = xr::run(
                &args,
                &mut |progress| show_progress(&args, progress),
                print_error::<xr::XrError>,
            )?;
            eprintln!(
                "xr: {} frames rendered, {} reseeds, session states {}",
                report.run.frames,
                report.run.reseeds.len(),
                report.session_states.join(" ")
            );
        }
        Command::Generate(args) => {
            let mut progress = LazyProgress::default();
            let result = generate::run(&args, &mut |done, total| progress.update(done, total));
            progress.finish();
            let generated = result?;
            if args.stats {
                println!("{}", generate::stats_text(&generated.metrics));
            }
            eprintln!("wrote {}", generated.out.display());
        }
        Command::Recipes(RecipesArgs { show: None }) => {
            let names: Vec<_> = Recipe::built_in_names().collect();
            let width = names.iter().map(|name| name.len()).max().unwrap_or(0);
            for name in names {
                let recipe = Recipe::built_in(name)?;
                println!("{name:width$}  {}", recipe.description);
            }
        }
        Command::Recipes(RecipesArgs {
            show: Some(RecipesCommand::Show { name }),
        }) => print!("{}", Recipe::built_in_text(&name)?),
        Command::ShareCard(ShareCardArgs { code, out }) => {
            let code = holoterrain::net::ShareCode::parse(&code)?;
            let card = holoterrain::net::card::write(&code, &out)?;
            eprintln!(
                "wrote {}: {} mm square when printed at {} dpi ({} modules of {:.2} mm)",
                out.display(),
                card.millimetres.round(),
                holoterrain::net::card::DOTS_PER_INCH,
                card.modules,
                holoterrain::net::card::MODULE_MM
            );
        }
    }
    Ok(())
}

/// Prints what the OpenXR session tells: the Holographic Remoting
/// connection always (on stderr, for the person at the PC), and every
/// event on stdout with `--progress` (for scripts).
fn show_progress(args: &xr::XrArgs, progress: xr::Progress) {
    if let Some(line) = progress.console_line() {
        eprintln!("{line}");
    }
    if args.progress {
        println!("{progress}");
    }
}

/// The one line of an error, on stderr (also the OpenXR watchdog's, which
/// then ends the process itself).
fn print_error<E: std::fmt::Display + ?Sized>(e: &E) {
    eprintln!("error: {e}");
}

/// The OpenXR error's status (3 when the runtime stopped under the session
/// or a remoting connection was lost for good, 4 when it stopped
/// answering), else 1.
fn exit_code(e: &anyhow::Error) -> ExitCode {
    e.downcast_ref::<xr::XrError>()
        .map_or(ExitCode::FAILURE, |error| {
            ExitCode::from(error.exit_status())
        })
}

/// Help and version go to stdout as usual; a usage error is cut to its one
/// line, with where to look for more.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    // clap continues some messages on indented lines (the arguments missing,
    // say) before a blank line and the usage: they join into the one line.
    let rendered = e.render().to_string();
    let message: Vec<&str> = rendered
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    let message = match message.join(" ") {
        joined if joined.is_empty() => "error: invalid arguments".to_owned(),
        joined => joined,
    };
    eprintln!("{message} (see holoterrain --help)");
    ExitCode::from(2)
}
