//! Grows a demo terrain by a given number of iterations, for counting the
//! instructions an iteration costs with callgrind, which no load on the
//! machine can change (docs/performance.md):
//!
//!     cargo build --release --example demo_iterations
//!     valgrind --tool=callgrind --toggle-collect='holoterrain::terrain::generator::Generator::step' \
//!         target/release/examples/demo_iterations 257 20
//!
//! It steps 5 iterations, then the given number, so the count covers 5 more.
//! A third argument, 1 or 2, runs the iterations on one thread or shares
//! them between two, in place of the generator's choice by map size; a
//! fourth, 4, runs the smoothing pass on four-lane vectors (SSE2) in place
//! of the widest this processor has (eight lanes where it has AVX).
use std::process::ExitCode;

use holoterrain::terrain::filter::Vectors;
use holoterrain::terrain::{Generator, GeneratorConfig};

/// Iterations stepped before the counted ones.
const WARM_UP: usize = 5;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed: Option<Vec<usize>> = args.iter().map(|arg| arg.parse().ok()).collect();
    let (side, iterations, threads, vectors) = match parsed.as_deref() {
        Some(&[side, iterations]) => (side, iterations, None, Vectors::Widest),
        Some(&[side, iterations, threads @ (1 | 2)]) => {
            (side, iterations, Some(threads), Vectors::Widest)
        }
        Some(&[side, iterations, threads @ (1 | 2), 4]) => {
            (side, iterations, Some(threads), Vectors::Four)
        }
        _ => {
            eprintln!(
                "error: usage: demo_iterations SIDE ITERATIONS [THREADS [4]] (whole numbers, e.g. 257 20; THREADS 1 or 2; 4 for four-lane vectors)"
            );
            return ExitCode::FAILURE;
        }
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
    generator.set_vectors(vectors);
    if let Some(threads) = threads {
        generator.set_two_threads(threads == 2);
    }
    generator.step(WARM_UP);
    generator.step(iterations);
    println!("height range {:?}", generator.height_range());
    ExitCode::SUCCESS
}
