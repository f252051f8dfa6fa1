//! Terrain engine benchmarks: each fast path beside its plain per-pixel reference, in one run.
//!
//! `cargo bench --bench terrain`; figures are recorded in docs/performance.md.
use criterion::{Criterion, criterion_group, criterion_main};
use holoterrain::terrain::bsp::{BspScratch, BspTree, TreeStyle};
use holoterrain::terrain::fault::{Fault, FaultParams, FaultRasterizer};
use holoterrain::terrain::rng::TerrainRng;
use holoterrain::terrain::{Generator, GeneratorConfig, Heightmap, filter, reference};
use std::hint::black_box;
use std::time::Duration;

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
    group.bench_function("columns swept a row at a time", |b| {
        b.iter(|| filter::iir_two_tap(black_box(&mut map), 0.1))
    });
    group.bench_function("per-column loop (the demo's)", |b| {
        b.iter(|| reference::iir_two_tap_per_column(black_box(&mut map), 0.1))
    });
    group.finish();
}

fn demo_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("demo frame");
    for size in [257usize, 513] {
        let config = GeneratorConfig {
            iterations: 1_000_000,
            ..GeneratorConfig::hololens_demo(size, size)
        };
        let mut generator = Generator::new(config, 3).expect("valid demo config");
        group.bench_function(format!("bsp depth 5 + IIR pass, {size}x{size}"), |b| {
            b.iter(|| generator.step(1))
        });
    }
    group.finish();
}

criterion_group!(benches, bsp_iteration, classic_faults, iir_pass, demo_frame);
criterion_main!(benches);
