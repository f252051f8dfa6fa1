//! Tectonic plates grown a slice at a time (a physics step and its uplift), each slice timed beside the write-once floor.
//!
//! `cargo bench -p holoterrain-benches --bench algorithms_plates`; figures are recorded in
//! docs/performance.md ("Tectonic plates, per slice").
use criterion::{Criterion, criterion_group, criterion_main};
use holoterrain::terrain::{Heightmap, PlatesGrowth, PlatesParams};
use std::rc::Rc;

#[path = "support/slices.rs"]
mod slices;
use slices::*;

/// The plates job at 257×257 and 513×513 from a flat map, run whole with
/// every slice timed on its own (making the job, which lays out the
/// plates and builds the physics world, is not timed), beside a fill of
/// the map (the write-once floor of benches/terrain.rs). Two cones leave
/// the uplift almost nothing to do, so that job is the physics' own cost;
/// 256 cones is the most uplift work a step can have. Printed afterwards:
/// each job's median and worst slice (a slice's time is its median over
/// the runs) and both as multiples of the fill.
fn plates_slices(c: &mut Criterion) {
    const SAMPLES: usize = 10;
    let mut group = slice_group(c, "plates slices", SAMPLES);
    let mut results = Vec::new();
    for size in [257usize, 513] {
        let fill = bench_fill(&mut group, size, size);
        let start = Heightmap::flat(size, size).expect("valid size");
        let steps = 300;
        let job = |params: PlatesParams| -> MakeJob {
            Box::new(move || Box::new(PlatesGrowth::new(size, size, &params, 7).expect("valid")))
        };
        let jobs: Vec<(&str, MakeJob)> = vec![
            (
                "plates, default (8 plates, 160 cones)",
                job(PlatesParams {
                    steps,
                    ..PlatesParams::default()
                }),
            ),
            (
                "plates, 8 plates, 2 cones (the physics)",
                job(PlatesParams {
                    steps,
                    cones: 2,
                    ..PlatesParams::default()
                }),
            ),
            (
                "plates, 32 plates, 256 cones (the most of both)",
                job(PlatesParams {
                    steps,
                    plates: 32,
                    cones: 256,
                    drift: 0.2,
                    ..PlatesParams::default()
                }),
            ),
        ];
        for (name, make) in jobs {
            let times = bench_slices(&mut group, format!("{name}, {size}x{size}"), &start, &make);
            results.push((size, name.to_string(), Rc::clone(&fill), times));
        }
    }
    group.finish();
    print_slice_lines("plates slices", &results, SAMPLES);
}

criterion_group!(benches, plates_slices);
criterion_main!(benches);
