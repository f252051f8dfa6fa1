//! Mei's virtual-pipe erosion and particle erosion, a slice at a time, beside the write-once floor.
//!
//! `cargo bench -p holoterrain-benches --bench algorithms_erode`; figures are recorded in
//! docs/terrain-mei-particles.md.
use criterion::{Criterion, criterion_group, criterion_main};
use holoterrain::terrain::diamond_square::diamond_square;
use holoterrain::terrain::mei::MeiParams;
use holoterrain::terrain::particles::ParticleParams;
use holoterrain::terrain::{MeiErosion, ParticleErosion};
use std::rc::Rc;

#[path = "support/slices.rs"]
mod slices;
use slices::*;

/// Both jobs at 257×257 and 513×513 on a diamond-square map, each run
/// whole with every slice timed on its own (making the job and its map is
/// not timed), beside a fill of the map (the write-once floor of
/// benches/terrain.rs). Printed afterwards: each job's median and worst
/// slice (a slice's time is its median over the runs) and both as
/// multiples of the fill.
fn erode_slices(c: &mut Criterion) {
    const SAMPLES: usize = 10;
    let mut group = slice_group(c, "erode slices", SAMPLES);
    let mut results = Vec::new();
    for size in [257usize, 513] {
        let fill = bench_fill(&mut group, size, size);
        let start = diamond_square(size, size, 1.0, 5).expect("valid size");
        let mei = MeiParams {
            iterations: 10,
            ..MeiParams::default()
        };
        let particles = ParticleParams {
            particles: 2000,
            ..ParticleParams::default()
        };
        let jobs: Vec<(&str, MakeJob)> = vec![
            (
                "Mei erosion, 10 iterations",
                Box::new(move || Box::new(MeiErosion::new(size, size, &mei).expect("valid"))),
            ),
            (
                "particle erosion, 2000 particles",
                Box::new(move || {
                    Box::new(ParticleErosion::new(size, size, &particles, 3).expect("valid"))
                }),
            ),
        ];
        for (name, make) in jobs {
            let times = bench_slices(&mut group, format!("{name}, {size}x{size}"), &start, &make);
            results.push((size, name, Rc::clone(&fill), times));
        }
    }
    group.finish();
    for (size, name, fill, times) in results {
        let Some(fill) = sample_median(&fill, SAMPLES) else {
            continue;
        };
        let mut per_slice: Vec<f64> = times
            .borrow_mut()
            .iter_mut()
            .map(|runs| median_of(runs))
            .collect();
        let slices = per_slice.len();
        let (worst_slice, worst) = per_slice
            .iter()
            .copied()
            .enumerate()
            .fold((0, 0.0), |a, (i, t)| if t > a.1 { (i, t) } else { a });
        let median = median_of(&mut per_slice);
        println!(
            "erode slices {size}x{size}, {name}: {slices} slices, median {:.1} µs = {:.1}× the fill, worst {:.1} µs = {:.1}× the fill (slice {worst_slice}) ({:.2} µs)",
            median / 1e3,
            median / fill,
            worst / 1e3,
            worst / fill,
            fill / 1e3
        );
    }
}

criterion_group!(benches, erode_slices);
criterion_main!(benches);
