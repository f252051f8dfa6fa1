//! Terrain engine and growth benchmarks: each fast path beside its plain reference, in one run.
//!
//! `cargo bench -p holoterrain-benches --bench terrain`; figures are recorded in docs/performance.md.
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use holoterrain::app::{App, AppConfig, EyeView, Fov, FrameInput, HandInput, Kept};
use holoterrain::input::Pose;
use holoterrain::terrain::bsp::{BspScratch, BspTree, TreeStyle};
use holoterrain::terrain::fault::{Fault, FaultParams, FaultRasterizer};
use holoterrain::terrain::filter::Vectors;
use holoterrain::terrain::rng::TerrainRng;
use holoterrain::terrain::{Generator, GeneratorConfig, Heightmap, filter, reference};
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

#[path = "support/slices.rs"]
mod slices;
use slices::{
    MakeJob, Recorded, SliceTimes, bench_fill, bench_recorded, bench_slices, median_of,
    sample_median, slice_group, slice_summary,
};
use std::cell::RefCell;

fn bsp_iteration(c: &mut Criterion) {
    let (w, h) = (513, 513);
    let mut rng = TerrainRng::new(1);
    let tree = BspTree::random(&mut rng, TreeStyle::Structured, 5, 0.005, w, h);
    let mut acc = vec![0i64; w * h];
    let mut group = c.benchmark_group("bsp depth 5, 513x513");
    let mut scratch = BspScratch::default();
    group.bench_function("row spans", |b| {
        b.iter(|| tree.add_to_with(&mut scratch, black_box(&mut acc), w))
    });
    group.bench_function("per-pixel tree walk", |b| {
        b.iter(|| reference::bsp_per_pixel(&tree, w, h, black_box(&mut acc)))
    });
    group.finish();
}

fn classic_faults(c: &mut Criterion) {
    let (w, h, count) = (1025, 1025, 4000);
    let params = FaultParams::default();
    let mut rng = TerrainRng::new(2);
    let faults: Vec<Fault> = (0..count)
        .map(|i| Fault::random(&mut rng, &params, i, count, w, h))
        .collect();
    let mut acc = vec![0i64; w * h];
    let mut group = c.benchmark_group("4000 classic faults, 1025x1025");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("row spans + prefix sums", |b| {
        let mut raster = FaultRasterizer::new(w, h);
        b.iter(|| {
            for f in &faults {
                raster.add(f, &mut acc);
            }
            raster.resolve_into(black_box(&mut acc));
        })
    });
    group.bench_function("per-pixel side test", |b| {
        b.iter(|| reference::faults_per_pixel(&faults, w, h, black_box(&mut acc)))
    });
    group.finish();
}

fn iir_pass(c: &mut Criterion) {
    let (w, h) = (257, 257);
    let mut rng = TerrainRng::new(4);
    let cells = (0..w * h).map(|_| rng.unit() as f32).collect();
    let mut map = Heightmap::from_cells(w, h, cells).expect("valid size");
    let mut group = c.benchmark_group("IIR two-tap pass, 257x257");
    for (vectors, label) in [(Vectors::Widest, ""), (Vectors::Four, ", four lanes")] {
        let mut scratch = filter::IirScratch::on(vectors);
        let name = format!("columns swept a row at a time{label}");
        group.bench_function(name, |b| {
            b.iter(|| filter::iir_two_tap_with(&mut scratch, black_box(&mut map), 0.1))
        });
    }
    group.bench_function("per-column loop (the demo's)", |b| {
        b.iter(|| reference::iir_two_tap_per_column(black_box(&mut map), 0.1))
    });
    group.finish();
}

/// A sum of every height that reads memory as fast as it can: sixteen
/// independent partial sums let the loop use full vector loads, where one
/// running sum would wait on each addition.
fn lane_sum(cells: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 16];
    let chunks = cells.chunks_exact(16);
    let rest: f32 = chunks.remainder().iter().sum();
    for chunk in chunks {
        for (lane, &h) in lanes.iter_mut().zip(chunk) {
            *lane += h;
        }
    }
    lanes.iter().sum::<f32>() + rest
}

/// One demo iteration (what `App::update` does per iteration through the
/// generator) beside the floor of any pass over the same map: writing every
/// height once (a fill) and reading every height once (a sum). The
/// iteration runs on one thread on the widest vectors this processor has
/// (eight lanes where it has AVX), then on four lanes (the SSE2 and NEON
/// every processor has, `Generator::set_vectors`), then shares its down
/// sweep between two threads (`Generator::set_two_threads`); last comes the
/// iteration's smoothing pass on its own (the tree and its change are the
/// rest). Prints how many times the floor each costs, from this run's
/// medians.
fn demo_frame(c: &mut Criterion) {
    const SAMPLES: usize = 50;
    let mut group = c.benchmark_group("demo frame");
    group.sample_size(SAMPLES);
    let mut medians = Vec::new();
    for size in [257usize, 513, 1025] {
        let fill = bench_fill(&mut group, size, size);
        let cells = vec![1.0f32; size * size];
        let sum = bench_recorded(&mut group, format!("sum {size}x{size} f32"), |iters| {
            let started = Instant::now();
            for _ in 0..iters {
                black_box(lane_sum(black_box(&cells)));
            }
            started.elapsed()
        });
        let config = GeneratorConfig {
            iterations: 10_000_000,
            ..GeneratorConfig::hololens_demo(size, size)
        };
        let runs = [
            (false, Vectors::Widest, ""),
            (false, Vectors::Four, ", four lanes"),
            (true, Vectors::Widest, ", two threads"),
        ];
        let iterations = runs.map(|(two, vectors, label)| {
            let mut generator = Generator::new(config.clone(), 3).expect("valid demo config");
            generator.set_vectors(vectors);
            generator.set_two_threads(two);
            let name = format!("bsp depth 5 + IIR pass, {size}x{size}{label}");
            let iteration = bench_recorded(&mut group, name, |iters| {
                let started = Instant::now();
                for _ in 0..iters {
                    generator.step(1);
                }
                started.elapsed()
            });
            (label, "iteration", iteration)
        });
        let mut map = {
            let mut generator = Generator::new(config.clone(), 3).expect("valid demo config");
            generator.step(50);
            generator.into_heightmap()
        };
        let k = config.smoothing.expect("the demo smooths");
        let mut scratch = filter::IirScratch::default();
        let name = format!("IIR pass alone, {size}x{size}");
        let smoothing = bench_recorded(&mut group, name, |iters| {
            let started = Instant::now();
            for _ in 0..iters {
                filter::iir_two_tap_with(&mut scratch, black_box(&mut map), k)
                    .expect("the demo's constant");
            }
            started.elapsed()
        });
        let mut timed = iterations.to_vec();
        timed.push((", IIR pass alone", "pass", smoothing));
        medians.push((size, fill, sum, timed));
    }
    group.finish();
    for (size, fill, sum, timed) in medians {
        let median = |recorded: &Recorded| sample_median(recorded, SAMPLES);
        for (label, what, time) in timed {
            if let (Some(fill), Some(sum), Some(time)) =
                (median(&fill), median(&sum), median(&time))
            {
                println!(
                    "demo frame {size}x{size}{label}: {what} {:.1} µs = {:.1}× the fill ({:.2} µs), {:.1}× the sum ({:.2} µs)",
                    time / 1e3,
                    time / fill,
                    fill / 1e3,
                    time / sum,
                    sum / 1e3
                );
            }
        }
    }
}

/// The app's input for a frame at `time_ns` with the head located and the hands idle.
fn idle_frame(time_ns: i64) -> FrameInput {
    let view = EyeView {
        pose: Pose::IDENTITY,
        fov: Fov {
            angle_left: -0.4,
            angle_right: 0.4,
            angle_up: 0.4,
            angle_down: -0.4,
        },
    };
    FrameInput {
        display_time_ns: time_ns,
        head: Some(Pose::IDENTITY),
        hands: [HandInput::default(); 2],
        views: [view; 2],
        hologram_located: None,
        visible: true,
        surfaces: None,
        markers: None,
        kept: Kept::None,
        voice: None,
        shared: Vec::new(),
        saves: None,
        saved: None,
    }
}

/// The first `App::update` after the display clock jumped 10 s, following 1 s
/// of growth at 60 Hz: with the app's per-frame budget, and with none (all
/// 441 iterations due at once, as before the budget).
fn frame_after_stall(c: &mut Criterion) {
    const FRAME_NS: i64 = 1_000_000_000 / 60;
    let grown_one_second = |max_iterations_per_frame: usize| {
        let config = AppConfig {
            max_iterations_per_frame,
            ..AppConfig::hololens_demo(257, 257, 3)
        };
        let mut app = App::new(config).expect("valid demo config");
        for frame in 0..60 {
            app.update(&idle_frame(frame * FRAME_NS));
        }
        app
    };
    let after_stall = idle_frame(60 * FRAME_NS + 10_000_000_000);
    let mut group = c.benchmark_group("frame after a 10 s stall, 257x257");
    group.sample_size(20);
    for (name, budget) in [
        (
            "budgeted (4 iterations)",
            holoterrain::app::MAX_ITERATIONS_PER_FRAME,
        ),
        ("unbudgeted catch-up", usize::MAX),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || grown_one_second(budget),
                |mut app| {
                    black_box(app.update(&after_stall));
                    // Returned, so dropping it is not part of the time.
                    app
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// Every whole-map job the recipe runner grows a slice at a time
/// (`holoterrain::terrain::sliced`), at 257×257 and 513×513, beside the
/// write-once floor (a fill of the map, as in "demo frame"). Each benchmark
/// runs the whole job, timing every slice on its own (making the job and
/// its starting map is not timed); criterion reports the time of a whole
/// job. Printed afterwards: for each job the median slice and the worst
/// slice, where a slice's time is its median over the runs, and both as
/// multiples of the fill.
fn sliced_steps(c: &mut Criterion) {
    use holoterrain::terrain::diamond_square::diamond_square;
    use holoterrain::terrain::erosion::{HydraulicParams, ThermalParams};
    use holoterrain::terrain::{
        DiamondSquareGrowth, HydraulicErosion, Smoothing, SmoothingPass, ThermalErosion,
    };
    const SAMPLES: usize = 10;
    let mut group = slice_group(c, "sliced steps", SAMPLES);
    let mut results = Vec::new();
    for size in [257usize, 513] {
        let fill = bench_fill(&mut group, size, size);
        let start = diamond_square(size, size, 1.0, 5).expect("valid size");
        let thermal = ThermalParams {
            iterations: 10,
            ..ThermalParams::default()
        };
        let hydraulic = HydraulicParams {
            iterations: 10,
            ..HydraulicParams::default()
        };
        let jobs: Vec<(&str, MakeJob)> = vec![
            (
                "diamond-square growth",
                Box::new(move || {
                    Box::new(DiamondSquareGrowth::new(size, size, 1.0, 7).expect("valid"))
                }),
            ),
            (
                "thermal erosion, 10 iterations",
                Box::new(move || {
                    Box::new(ThermalErosion::banded(size, size, &thermal).expect("valid"))
                }),
            ),
            (
                "hydraulic erosion, 10 iterations",
                Box::new(move || {
                    Box::new(HydraulicErosion::new(size, size, &hydraulic).expect("valid"))
                }),
            ),
            (
                "IIR pass, k = 0.1",
                Box::new(move || {
                    let smoothing = Smoothing::Iir { k: 0.1 };
                    Box::new(SmoothingPass::new(smoothing, size, size).expect("valid"))
                }),
            ),
            (
                "FIR pass, k = 0.1",
                Box::new(move || {
                    let smoothing = Smoothing::Fir { k: 0.1 };
                    Box::new(SmoothingPass::new(smoothing, size, size).expect("valid"))
                }),
            ),
            (
                "Gaussian pass, sigma = 2",
                Box::new(move || {
                    let smoothing = Smoothing::Gaussian { sigma: 2.0 };
                    Box::new(SmoothingPass::new(smoothing, size, size).expect("valid"))
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
        let Some((slices, median, worst)) = slice_summary(&times) else {
            continue;
        };
        println!(
            "sliced steps {size}x{size}, {name}: {slices} slices, median {:.1} µs = {:.1}× the fill, worst {:.1} µs = {:.1}× the fill ({:.2} µs)",
            median / 1e3,
            median / fill,
            worst / 1e3,
            worst / fill,
            fill / 1e3
        );
    }
}

/// Every built-in recipe grown live with `RecipeGrowth` at 257×257 and
/// 513×513, one step (`growth.step(1)`, what the app does a frame at steady
/// state) timed at a time, beside the write-once floor (a fill of the map,
/// as in "sliced steps"). Each benchmark grows the whole recipe from a flat
/// map (making the growth is not timed); criterion reports the time of a
/// whole growth. Printed afterwards: for each recipe and size the median
/// step and the worst step over the growth, where a step's time is its
/// median over the runs, both as multiples of the fill, which step is the
/// worst, the largest of the steps' fastest runs (the worst step without
/// preemptions), and the whole growth (the sum of the steps, median over
/// the runs).
fn live_recipes(c: &mut Criterion) {
    use criterion::SamplingMode;
    use holoterrain::terrain::recipe::Recipe;
    use holoterrain::terrain::recipe_growth::RecipeGrowth;
    const SAMPLES: usize = 10;
    let mut group = c.benchmark_group("live recipes");
    group
        .sample_size(SAMPLES)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let mut results = Vec::new();
    for size in [257usize, 513] {
        let fill = bench_fill(&mut group, size, size);
        for name in Recipe::built_in_names() {
            let recipe = Recipe::built_in(name).expect("a built-in recipe");
            let times = SliceTimes::default();
            let totals = Rc::new(RefCell::new(Vec::new()));
            let (sink, total_sink) = (Rc::clone(&times), Rc::clone(&totals));
            group.bench_function(format!("{name}, {size}x{size}"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut growth =
                            RecipeGrowth::new(recipe.clone(), size, size, 11).expect("valid");
                        let mut step = 0;
                        let mut growth_time = Duration::ZERO;
                        while !growth.is_complete() {
                            let started = Instant::now();
                            black_box(growth.step(1));
                            let elapsed = started.elapsed();
                            growth_time += elapsed;
                            let mut sink = sink.borrow_mut();
                            if sink.len() <= step {
                                sink.push(Vec::new());
                            }
                            sink[step].push(elapsed.as_nanos() as f64);
                            step += 1;
                        }
                        black_box(growth.heightmap());
                        total_sink.borrow_mut().push(growth_time.as_nanos() as f64);
                        total += growth_time;
                    }
                    total
                })
            });
            results.push((size, name, Rc::clone(&fill), times, totals));
        }
    }
    group.finish();
    for (size, name, fill, times, totals) in results {
        let Some(fill) = sample_median(&fill, SAMPLES) else {
            continue;
        };
        // The largest of each step's fastest run: what the worst step costs
        // when nothing else takes the core (the medians of a busy machine
        // pick up preemptions of a few ms on some steps).
        let worst_fastest = times
            .borrow()
            .iter()
            .map(|runs| runs.iter().copied().fold(f64::INFINITY, f64::min))
            .fold(0.0, f64::max);
        let mut per_step: Vec<f64> = times
            .borrow_mut()
            .iter_mut()
            .map(|runs| median_of(runs))
            .collect();
        let steps = per_step.len();
        if steps == 0 {
            continue;
        }
        let (worst_step, worst) =
            per_step
                .iter()
                .copied()
                .enumerate()
                .fold(
                    (0, 0.0),
                    |best, (i, t)| if t > best.1 { (i, t) } else { best },
                );
        let median = median_of(&mut per_step);
        let growth = median_of(&mut totals.borrow_mut());
        println!(
            "live recipes {size}x{size}, {name}: {steps} steps, median {:.1} µs = {:.1}× the fill, worst {:.1} µs = {:.1}× the fill (step {worst_step}), worst fastest run {:.1} µs = {:.1}× the fill, fill {:.2} µs, growth {:.1} ms",
            median / 1e3,
            median / fill,
            worst / 1e3,
            worst / fill,
            worst_fastest / 1e3,
            worst_fastest / fill,
            fill / 1e3,
            growth / 1e6
        );
    }
}

criterion_group!(
    benches,
    bsp_iteration,
    classic_faults,
    iir_pass,
    demo_frame,
    frame_after_stall,
    sliced_steps,
    live_recipes
);
criterion_main!(benches);
