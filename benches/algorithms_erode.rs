//! Mei's virtual-pipe erosion and particle erosion, a slice at a time, beside the write-once floor.
//!
//! `cargo bench --bench algorithms_erode`; figures are recorded in
//! docs/terrain-mei-particles.md.
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use holoterrain::terrain::diamond_square::diamond_square;
use holoterrain::terrain::mei::MeiParams;
use holoterrain::terrain::particles::ParticleParams;
use holoterrain::terrain::{MeiErosion, ParticleErosion, Sliced};
use std::cell::RefCell;
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Per-iteration times of one benchmark, in nanoseconds, one entry per
/// `iter_custom` call: criterion's warm-up calls first, then one per sample.
type Recorded = Rc<RefCell<Vec<f64>>>;

/// Each slice's time of every run of a sliced job, in nanoseconds:
/// `times[i]` holds slice `i`'s times, one per run.
type SliceTimes = Rc<RefCell<Vec<Vec<f64>>>>;

/// Benchmarks `routine` (given an iteration count, it returns the time they
/// took) and records what each call measured.
fn bench_recorded(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: String,
    mut routine: impl FnMut(u64) -> Duration,
) -> Recorded {
    let recorded = Recorded::default();
    let sink = Rc::clone(&recorded);
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let elapsed = routine(iters);
            sink.borrow_mut()
                .push(elapsed.as_nanos() as f64 / iters as f64);
            elapsed
        })
    });
    recorded
}

/// The median of the last `samples` recorded calls (criterion's samples);
/// `None` when the benchmark did not run its samples (filtered out, `--test`).
fn sample_median(recorded: &Recorded, samples: usize) -> Option<f64> {
    let recorded = recorded.borrow();
    let first = recorded.len().checked_sub(samples)?;
    let mut last = recorded[first..].to_vec();
    Some(median_of(&mut last))
}

/// The median of `times`, sorted in place.
fn median_of(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    (times[(n - 1) / 2] + times[n / 2]) / 2.0
}

/// Both jobs at 257×257 and 513×513 on a diamond-square map, each run
/// whole with every slice timed on its own (making the job and its map is
/// not timed), beside a fill of the map (the write-once floor of
/// benches/terrain.rs). Printed afterwards: each job's median and worst
/// slice (a slice's time is its median over the runs) and both as
/// multiples of the fill.
fn erode_slices(c: &mut Criterion) {
    const SAMPLES: usize = 10;
    let mut group = c.benchmark_group("erode slices");
    group
        .sample_size(SAMPLES)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let mut results = Vec::new();
    for size in [257usize, 513] {
        let mut cells = vec![0.0f32; size * size];
        let fill = bench_recorded(&mut group, format!("fill {size}x{size} f32"), |iters| {
            let started = Instant::now();
            for i in 0..iters {
                cells.fill(black_box(i as f32));
                black_box(&mut cells);
            }
            started.elapsed()
        });
        let start = diamond_square(size, size, 1.0, 5).expect("valid size");
        let mei = MeiParams {
            iterations: 10,
            ..MeiParams::default()
        };
        let particles = ParticleParams {
            particles: 2000,
            ..ParticleParams::default()
        };
        type MakeJob<'a> = Box<dyn Fn() -> Box<dyn Sliced> + 'a>;
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
            let times = SliceTimes::default();
            let sink = Rc::clone(&times);
            group.bench_function(format!("{name}, {size}x{size}"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut map = start.clone();
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
