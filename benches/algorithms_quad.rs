//! Edge-matched quadtree tiles (seed 004) beside the floor of any map
//! producer: writing every height once.
//!
//! `cargo bench -p holoterrain-benches --bench algorithms_quad`; figures are recorded in
//! docs/performance.md, "Edge-matched quadtree tiles".
use criterion::{Criterion, criterion_group, criterion_main};
use holoterrain::terrain::Heightmap;
use holoterrain::terrain::quadtree::QuadtreeWorld;
use holoterrain::terrain::quadtree_growth::{QuadtreeGrowth, QuadtreeParams};
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

#[path = "support/slices.rs"]
mod slices;
use slices::*;

/// One tile of a fresh world (its neighbours' border expansions included,
/// as the first tile a viewer asks for costs), then the same tile asked of
/// a world that holds it already (the copy out), beside the floor: filling
/// a map of the same size once. Prints how many times the fill each costs.
fn quadtree_tile(c: &mut Criterion) {
    const SAMPLES: usize = 30;
    let mut group = c.benchmark_group("quadtree tile");
    group.sample_size(SAMPLES);
    let mut medians = Vec::new();
    for level in [8u32, 9] {
        let size = (1usize << level) + 1;
        let mut cells = vec![0.0f32; size * size];
        let fill = bench_recorded(&mut group, format!("fill {size}x{size} f32"), |iters| {
            let started = Instant::now();
            for i in 0..iters {
                cells.fill(black_box(i as f32));
                black_box(&mut cells);
            }
            started.elapsed()
        });
        let name = format!("tile level {level} ({size}x{size}), fresh world");
        let fresh = bench_recorded(&mut group, name, |iters| {
            let mut elapsed = Duration::ZERO;
            for _ in 0..iters {
                let mut world = QuadtreeWorld::new(1, 1.0).expect("valid roughness");
                let started = Instant::now();
                black_box(
                    world
                        .tile(black_box(3), black_box(-2), level)
                        .expect("valid level"),
                );
                elapsed += started.elapsed();
                // Dropping the world is not the tile's cost.
                drop(world);
            }
            elapsed
        });
        let mut world = QuadtreeWorld::new(1, 1.0).expect("valid roughness");
        world.tile(3, -2, level).expect("valid level");
        let name = format!("tile level {level} ({size}x{size}), already expanded");
        let held = bench_recorded(&mut group, name, |iters| {
            let started = Instant::now();
            for _ in 0..iters {
                black_box(
                    world
                        .tile(black_box(3), black_box(-2), level)
                        .expect("valid level"),
                );
            }
            started.elapsed()
        });
        medians.push((
            size,
            fill,
            [("fresh world", fresh), ("already expanded", held)],
        ));
    }
    group.finish();
    for (size, fill, timed) in medians {
        let median = |recorded: &Recorded| sample_median(recorded, SAMPLES);
        for (label, time) in timed {
            if let (Some(fill), Some(time)) = (median(&fill), median(&time)) {
                println!(
                    "quadtree tile {size}x{size}, {label}: {:.1} µs = {:.1}× the fill ({:.2} µs)",
                    time / 1e3,
                    time / fill,
                    fill / 1e3
                );
            }
        }
    }
}

/// A tile grown live (the `uplands` recipe's job), a level a slice, at
/// 257² and 513², every slice timed beside the fill of the same map.
fn quadtree_live(c: &mut Criterion) {
    const SAMPLES: usize = 10;
    let mut group = slice_group(c, "quadtree live", SAMPLES);
    let mut results = Vec::new();
    for size in [257usize, 513] {
        let fill = bench_fill(&mut group, size, size);
        let start = Heightmap::flat(size, size).expect("valid size");
        let params = QuadtreeParams {
            roughness: 0.75,
            amplitude: 0.035,
            tile: [0, 0],
        };
        let make: MakeJob =
            Box::new(move || Box::new(QuadtreeGrowth::new(size, size, &params, 1).expect("valid")));
        let name = "tile (0, 0), a level a slice".to_string();
        let times = bench_slices(&mut group, format!("{name}, {size}x{size}"), &start, &make);
        results.push((size, name, Rc::clone(&fill), times));
    }
    group.finish();
    print_slice_lines("quadtree live", &results, SAMPLES);
}

criterion_group!(benches, quadtree_tile, quadtree_live);
criterion_main!(benches);
