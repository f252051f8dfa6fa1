//! Midpoint displacement and RMP grown a slice at a time, each slice timed beside the write-once floor.
//!
//! `cargo bench -p holoterrain-benches --bench algorithms_mid`; figures are recorded in
//! docs/terrain-midpoint-rmp.md. Same method as the "sliced steps" group of
//! benches/terrain.rs.
use criterion::{Criterion, criterion_group, criterion_main};
use holoterrain::terrain::{
    Heightmap, MidpointGrowth, MidpointParams, RmpGrowth, RmpParams, Sliced,
};
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

#[path = "support/slices.rs"]
mod slices;
use slices::*;

/// Midpoint displacement and RMP at 257×257 and 513×513, beside the
/// write-once floor (a fill of the map). Each benchmark runs the whole job,
/// timing every slice on its own (making the job is not timed); criterion
/// reports the whole job. Printed afterwards: each job's slice count, its
/// median slice and worst slice (a slice's time being its median over the
/// runs), and both as multiples of the fill.
fn sliced_steps(c: &mut Criterion) {
    const SAMPLES: usize = 10;
    let mut group = slice_group(c, "midpoint and rmp slices", SAMPLES);
    let mut results = Vec::new();
    for size in [257usize, 513] {
        let fill = bench_fill(&mut group, size, size);
        type MakeJob = Box<dyn Fn() -> Box<dyn Sliced>>;
        let rmp = |params: RmpParams| -> MakeJob {
            Box::new(move || Box::new(RmpGrowth::new(size, size, &params, 7).expect("valid")))
        };
        let jobs: Vec<(&str, MakeJob)> = vec![
            (
                "midpoint growth, roughness 0.5",
                Box::new(move || {
                    let params = MidpointParams::default();
                    Box::new(MidpointGrowth::new(size, size, &params, 7).expect("valid"))
                }),
            ),
            (
                "rmp, default (3 peaks, 16 cones, 200 rounds)",
                rmp(RmpParams::default()),
            ),
            (
                "rmp, 16 peaks, 2 cones, 50 rounds (largest cells)",
                rmp(RmpParams {
                    peaks: 16,
                    cones: 2,
                    iterations: 50,
                    ..RmpParams::default()
                }),
            ),
            (
                "rmp, 16 peaks, 1024 cones, 50 rounds (most probing)",
                rmp(RmpParams {
                    peaks: 16,
                    cones: 1024,
                    iterations: 50,
                    ..RmpParams::default()
                }),
            ),
        ];
        for (name, make) in jobs {
            let times = SliceTimes::default();
            let sink = Rc::clone(&times);
            group.bench_function(format!("{name}, {size}x{size}"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut map = Heightmap::flat(size, size).expect("valid size");
                        let mut job = make();
                        let mut slice = 0;
                        while !job.is_done() {
                            let started = Instant::now();
                            job.step(black_box(&mut map));
                            let elapsed = started.elapsed();
                            total += elapsed;
                            let mut sink = sink.borrow_mut();
                            if sink.len() <= slice {
                                sink.push(Vec::new());
                            }
                            sink[slice].push(elapsed.as_nanos() as f64);
                            slice += 1;
                        }
                        black_box(&map);
                    }
                    total
                })
            });
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
        let worst = per_slice.iter().copied().fold(0.0, f64::max);
        let median = median_of(&mut per_slice);
        println!(
            "{size}x{size}, {name}: {slices} slices, median {:.1} µs = {:.1}× the fill, worst {:.1} µs = {:.1}× the fill ({:.2} µs)",
            median / 1e3,
            median / fill,
            worst / 1e3,
            worst / fill,
            fill / 1e3
        );
    }
}

criterion_group!(benches, sliced_steps);
criterion_main!(benches);
