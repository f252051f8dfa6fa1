//! Hand edits (a traced fault, a lifted hill) rasterised a slice per frame, and the per-frame composition of the edit layer over the grown terrain, beside the floor: writing every height once.
//!
//! `cargo bench -p holoterrain-benches --bench sculpt`; figures are recorded in docs/performance.md.
use criterion::{Criterion, criterion_group, criterion_main};
use holoterrain::app::edits::EditLayer;
use holoterrain::terrain::Heightmap;
use holoterrain::terrain::sculpt::{Edit, EditRaster, THIN_TOLERANCE, thin_path};
use std::hint::black_box;
use std::rc::Rc;
use std::time::Instant;

#[path = "support/slices.rs"]
mod slices;
use slices::*;

/// A wavy trace across the whole map, as a hand draws it, thinned as the
/// app thins it (the most points a trace keeps, the worst case).
fn wavy_trace() -> Edit {
    let drawn: Vec<[f32; 2]> = (0..=400)
        .map(|i| {
            let t = i as f32 / 400.0;
            let wave = if (i / 20) % 2 == 0 { 0.06 } else { -0.06 };
            [0.02 + 0.96 * t, 0.5 + wave * ((i % 20) as f32 / 20.0)]
        })
        .collect();
    Edit::Trace {
        points: thin_path(&drawn, THIN_TOLERANCE),
    }
}

/// Each edit's slices at 257² and 513², and one frame's composition of a
/// settled layer over the grown heights, beside the fill of the same map.
fn sculpt_slices(c: &mut Criterion) {
    const SAMPLES: usize = 10;
    let mut group = slice_group(c, "sculpt", SAMPLES);
    let mut results = Vec::new();
    let mut compositions = Vec::new();
    for size in [257usize, 513] {
        let fill = bench_fill(&mut group, size, size);
        let start = Heightmap::flat(size, size).expect("valid size");
        let trace = wavy_trace();
        let lift = Edit::Lift {
            at: [0.5, 0.5],
            height: 0.1,
        };
        let jobs: Vec<(String, MakeJob)> = vec![
            (
                format!("trace of {} points", trace_points(&trace)),
                Box::new(move || Box::new(EditRaster::new(&trace, size, size))),
            ),
            (
                "lift".into(),
                Box::new(move || Box::new(EditRaster::new(&lift, size, size))),
            ),
        ];
        for (name, make) in jobs {
            let times = bench_slices(&mut group, format!("{name}, {size}x{size}"), &start, &make);
            results.push((size, name, Rc::clone(&fill), times));
        }
        let mut layer = EditLayer::new(size, size);
        layer.begin(&wavy_trace());
        layer.settle();
        let grown = Heightmap::flat(size, size).expect("valid size");
        let compose = bench_recorded(&mut group, format!("compose {size}x{size}"), |iters| {
            let started = Instant::now();
            for _ in 0..iters {
                black_box(layer.compose(black_box(&grown)));
            }
            started.elapsed()
        });
        compositions.push((size, Rc::clone(&fill), compose));
    }
    group.finish();
    print_slice_lines("sculpt", &results, SAMPLES);
    for (size, fill, compose) in compositions {
        if let (Some(fill), Some(compose)) = (
            sample_median(&fill, SAMPLES),
            sample_median(&compose, SAMPLES),
        ) {
            println!(
                "sculpt {size}x{size}, composing the layer each frame: {:.1} µs = {:.1}× the fill ({:.2} µs)",
                compose / 1e3,
                compose / fill,
                fill / 1e3
            );
        }
    }
}

fn trace_points(edit: &Edit) -> usize {
    match edit {
        Edit::Trace { points } => points.len(),
        Edit::Lift { .. } => 1,
    }
}

criterion_group!(benches, sculpt_slices);
criterion_main!(benches);
