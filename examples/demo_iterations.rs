//! Grows a demo terrain by a given number of iterations, for counting the
//! instructions an iteration costs with callgrind, which no load on the
//! machine can change (docs/performance.md):
//!
//!     cargo build --release --example demo_iterations
//!     valgrind --tool=callgrind --toggle-collect='holoterrain::terrain::generator::Generator::step' \
//!         target/release/examples/demo_iterations 257 20
//!
//! It steps 5 iterations, then the given number, so the count covers 5 more.
use std::process::ExitCode;

use holoterrain::terrain::{Generator, GeneratorConfig};

/// Iterations stepped before the counted ones.
const WARM_UP: usize = 5;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed: Option<Vec<usize>> = args.iter().map(|arg| arg.parse().ok()).collect();
    let Some([side, iterations]) = parsed
        .as_deref()
        .and_then(|p| <[usize; 2]>::try_from(p).ok())
    else {
        eprintln!("error: usage: demo_iterations SIDE ITERATIONS (two whole numbers, e.g. 257 20)");
        return ExitCode::FAILURE;
    };
    let config = GeneratorConfig {
        iterations: WARM_UP + iterations,
        ..GeneratorConfig::hololens_demo(side, side)
    };
    let mut generator = match Generator::new(config, 3) {
        Ok(generator) => generator,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    generator.step(WARM_UP);
    generator.step(iterations);
    println!("height range {:?}", generator.height_range());
    ExitCode::SUCCESS
}
