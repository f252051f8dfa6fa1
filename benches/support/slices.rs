//! What the benches share: a benchmark that records each call's time, medians, the write-once floor, and timing a sliced job slice by slice.
// Each bench uses the part it needs.
#![allow(dead_code)]
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};
use holoterrain::terrain::{Heightmap, Sliced};
use std::cell::RefCell;
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Per-iteration times of one benchmark, in nanoseconds, one entry per
/// `iter_custom` call: criterion's warm-up calls first, then one per sample.
pub type Recorded = Rc<RefCell<Vec<f64>>>;

/// Each slice's time of every run of a sliced job, in nanoseconds:
/// `times[i]` holds slice `i`'s times, one per run.
pub type SliceTimes = Rc<RefCell<Vec<Vec<f64>>>>;

/// Makes a fresh sliced job.
pub type MakeJob<'a> = Box<dyn Fn() -> Box<dyn Sliced> + 'a>;

/// A group of `samples` samples with a short warm-up and measurement, for
/// jobs timed slice by slice (each sample runs whole jobs).
pub fn slice_group<'a>(
    c: &'a mut Criterion,
    name: &str,
    samples: usize,
) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(samples)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    group
}

/// Benchmarks `routine` (given an iteration count, it returns the time they
/// took) and records what each call measured.
pub fn bench_recorded(
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
pub fn sample_median(recorded: &Recorded, samples: usize) -> Option<f64> {
    let recorded = recorded.borrow();
    let first = recorded.len().checked_sub(samples)?;
    let mut last = recorded[first..].to_vec();
    Some(median_of(&mut last))
}

/// The median of `times`, sorted in place.
pub fn median_of(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    (times[(n - 1) / 2] + times[n / 2]) / 2.0
}

/// The write-once floor: filling a `width`×`height` map of f32 once.
pub fn bench_fill(
    group: &mut BenchmarkGroup<'_, WallTime>,
    width: usize,
    height: usize,
) -> Recorded {
    let mut cells = vec![0.0f32; width * height];
    bench_recorded(group, format!("fill {width}x{height} f32"), |iters| {
        let started = Instant::now();
        for i in 0..iters {
            cells.fill(black_box(i as f32));
            black_box(&mut cells);
        }
        started.elapsed()
    })
}

/// Benchmarks a job `make` makes, run whole on a copy of `start`, with
/// every slice timed on its own (making the job and the copy is not timed).
pub fn bench_slices(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: String,
    start: &Heightmap,
    make: &MakeJob<'_>,
) -> SliceTimes {
    let times = SliceTimes::default();
    let sink = Rc::clone(&times);
    group.bench_function(name, |b| {
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
    times
}

/// A sliced job's slice count and its median and worst slice (a slice's
/// time is its median over the runs), nanoseconds; `None` when it did not run.
pub fn slice_summary(times: &SliceTimes) -> Option<(usize, f64, f64)> {
    let mut per_slice: Vec<f64> = times
        .borrow_mut()
        .iter_mut()
        .map(|runs| median_of(runs))
        .collect();
    let slices = per_slice.len();
    if slices == 0 {
        return None;
    }
    let worst = per_slice.iter().copied().fold(0.0, f64::max);
    Some((slices, median_of(&mut per_slice), worst))
}

/// Prints one line per job of `results` ((size, name, fill, slice times)):
/// its slices, median and worst slice, each also as a multiple of the fill
/// of the same map; `what` starts each line. Jobs that did not run are skipped.
pub fn print_slice_lines(
    what: &str,
    results: &[(usize, String, Recorded, SliceTimes)],
    samples: usize,
) {
    for (size, name, fill, times) in results {
        let (Some(fill), Some((slices, median, worst))) =
            (sample_median(fill, samples), slice_summary(times))
        else {
            continue;
        };
        println!(
            "{what} {size}x{size}, {name}: {slices} slices, median {:.1} µs = {:.1}× the fill, worst {:.1} µs = {:.1}× the fill ({:.2} µs)",
            median / 1e3,
            median / fill,
            worst / 1e3,
            worst / fill,
            fill / 1e3
        );
    }
}
