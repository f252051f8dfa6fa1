//! Edge-matched quadtree tiles (seed 004) beside the floor of any map
//! producer: writing every height once.
//!
//! `cargo bench --bench algorithms_quad`; figures are recorded in
//! docs/terrain-quadtree-bench.md.
use criterion::{Criterion, criterion_group, criterion_main};
use holoterrain::terrain::quadtree::QuadtreeWorld;
use std::hint::black_box;
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

criterion_group!(benches, quadtree_tile);
criterion_main!(benches);
