//! Live water benchmarks: a step and a frame of steps of the water layer on a 257² map while it rains, beside the write-once floor, in one run.
//!
//! `cargo bench -p holoterrain-benches --bench water`; figures are recorded in docs/performance.md.
use criterion::{Criterion, criterion_group, criterion_main};
use holoterrain::terrain::diamond_square::diamond_square;
use holoterrain::terrain::{WaterLayer, WaterParams, WaterSource};
use std::hint::black_box;
use std::time::Instant;

#[path = "support/slices.rs"]
mod slices;
use slices::{Recorded, bench_fill, bench_recorded, sample_median};

const SAMPLES: usize = 50;
const SIZE: usize = 257;
/// Steps of a frame at the top of the 1–4 a frame the water is meant for.
const FRAME_STEPS: u32 = 4;

/// A recipe-like 257² ground (heights 0 to 0.25) and a layer on it that has
/// rained for 300 steps and keeps raining, so that water stands and runs
/// on most cells when the timing starts.
fn raining_layer(rain: WaterSource, carving: bool) -> (Vec<f32>, Vec<f32>, WaterLayer) {
    let map = diamond_square(SIZE, SIZE, 1.0, 7).expect("valid size");
    let (lo, hi) = map.min_max();
    let ground: Vec<f32> = map
        .cells()
        .iter()
        .map(|&h| 0.25 * (h - lo) / (hi - lo))
        .collect();
    let mut carved = vec![0.0; SIZE * SIZE];
    let mut water = WaterLayer::new(SIZE, SIZE, &WaterParams::default()).expect("valid parameters");
    water.set_sea_level(Some(0.05)).expect("finite");
    water.set_carving(carving, &mut carved);
    water.add_source(rain, None).expect("a valid source");
    water.steps(300, &ground, &mut carved);
    (ground, carved, water)
}

/// The rain of the whole map (every cell wet: the dearest case) and a
/// palm's disc, each a step and a frame, water alone and carving.
fn water_steps(c: &mut Criterion) {
    let mut group = c.benchmark_group("live water, 257x257");
    group.sample_size(SAMPLES);
    let fill = bench_fill(&mut group, SIZE, SIZE);
    let everywhere = WaterSource::RainEverywhere { rate: 0.05 };
    let palm = WaterSource::RainDisc {
        centre: [0.5, 0.5],
        radius: 0.1,
        rate: 0.5,
    };
    let cases = [
        ("rain everywhere", everywhere, false),
        ("rain from a palm", palm, false),
        ("rain everywhere, carving", everywhere, true),
    ];
    let mut timed: Vec<(String, Recorded)> = Vec::new();
    for (label, rain, carving) in cases {
        for steps in [1, FRAME_STEPS] {
            let (ground, mut carved, mut water) = raining_layer(rain, carving);
            let name = format!("{label}, {steps} step(s)");
            let recorded = bench_recorded(&mut group, name.clone(), |iters| {
                let started = Instant::now();
                for _ in 0..iters {
                    water.steps(steps, black_box(&ground), &mut carved);
                }
                started.elapsed()
            });
            timed.push((name, recorded));
        }
    }
    group.finish();
    let Some(fill) = sample_median(&fill, SAMPLES) else {
        return;
    };
    for (name, recorded) in timed {
        if let Some(time) = sample_median(&recorded, SAMPLES) {
            println!(
                "live water 257x257, {name}: {:.1} µs = {:.0}× the fill ({:.2} µs)",
                time / 1e3,
                time / fill,
                fill / 1e3
            );
        }
    }
}

criterion_group!(benches, water_steps);
criterion_main!(benches);
