//! Plain per-pixel versions of the fault algorithms, kept to prove the fast ones exact.
//!
//! The fault references test every sample against every line, as the fault
//! sources' listings do; the filter reference walks each column on its own; the
//! shaped-run reference does each step of an iteration over the whole map
//! before the next, as the demo's frame did.
//! The tests compare the span rasterisers with these bit for bit, and the
//! benchmarks time both in the same run.
use super::bsp::{BspTree, TreeStyle};
use super::fault::Fault;
use super::fixed::{to_f32, to_fixed};
use super::generator::Algorithm;
use super::generator::GeneratorConfig;
use super::generator::change_weight;
use super::heightmap::Heightmap;
use super::rng::TerrainRng;

/// Adds each fault to every sample by the side test (and, for faults with a
/// distance falloff, the weight) of that sample.
pub fn faults_per_pixel(faults: &[Fault], width: usize, height: usize, acc: &mut [i64]) {
    for fault in faults {
        if fault.falloff_radius.is_some() {
            for y in 0..height {
                for x in 0..width {
                    acc[y * width + x] += fault.displacement_at(x, y);
                }
            }
            continue;
        }
        let (raise, lower) = (to_fixed(fault.raise), to_fixed(fault.lower));
        for y in 0..height {
            for x in 0..width {
                acc[y * width + x] += if fault.line.is_right(x, y) {
                    raise
                } else {
                    lower
                };
            }
        }
    }
}

/// Adds a BSP tree's offsets by walking the tree from every sample.
pub fn bsp_per_pixel(tree: &BspTree, width: usize, height: usize, acc: &mut [i64]) {
    for y in 0..height {
        for x in 0..width {
            acc[y * width + x] += tree.offset_at(x, y);
        }
    }
}

/// The demo's `FIRFilter` transcribed loop for loop, walking each column
/// on its own, with the real width and height.
pub fn iir_two_tap_per_column(map: &mut Heightmap, k: f32) {
    let w = map.width();
    let h = map.height();
    let m = map.cells_mut();
    for y in 0..h {
        let mut prev = m[y * w];
        for x in 1..w {
            m[x + y * w] = k * prev + (1.0 - k) * m[x + y * w];
            prev = m[x + y * w];
        }
        prev = m[(w - 1) + y * w];
        for x in (0..w - 1).rev() {
            m[x + y * w] = k * prev + (1.0 - k) * m[x + y * w];
            prev = m[x + y * w];
        }
    }
    for x in 0..w {
        let mut prev = m[x];
        for y in 1..h {
            m[x + y * w] = k * prev + (1.0 - k) * m[x + y * w];
            prev = m[x + y * w];
        }
        prev = m[x + w * (h - 1)];
        for y in (0..h - 1).rev() {
            m[x + y * w] = k * prev + (1.0 - k) * m[x + y * w];
            prev = m[x + y * w];
        }
    }
}

/// The first `iterations` iterations of a run that shapes every iteration
/// (`config` has smoothing, edge falloff, clamping or a locked border), from
/// `seed`, one whole-map step at a time: the iteration's fault or tree by
/// the per-pixel rules above into a fixed-point map, then every height plus
/// its offset times the sample's change weight, then every height clamped,
/// then one pass of the per-column IIR loop, then the border zeroed.
pub fn shaped_iterations_per_pixel(
    config: &GeneratorConfig,
    seed: u64,
    iterations: usize,
) -> Heightmap {
    let (width, height) = (config.width, config.height);
    let mut rng = TerrainRng::new(seed);
    let mut tree = BspTree::unset(config.depth, f64::from(config.amplitude));
    let mut map = Heightmap::flat(width, height).expect("a validated size");
    for iteration in 0..iterations {
        let mut offsets = vec![0; width * height];
        match config.algorithm {
            Algorithm::Fault => {
                let fault = Fault::random(
                    &mut rng,
                    &config.fault,
                    iteration,
                    config.iterations,
                    width,
                    height,
                );
                faults_per_pixel(&[fault], width, height, &mut offsets);
            }
            Algorithm::Bsp | Algorithm::BspStructured => {
                let style = if config.algorithm == Algorithm::Bsp {
                    TreeStyle::Unstructured
                } else {
                    TreeStyle::Structured
                };
                tree.redraw(&mut rng, style, width, height);
                bsp_per_pixel(&tree, width, height, &mut offsets);
            }
        }
        let weighted = config.edge_falloff || config.lock_border;
        for y in 0..height {
            for x in 0..width {
                let change = to_f32(offsets[y * width + x]);
                let h = map.get(x, y);
                if weighted {
                    map.set(x, y, h + change * change_weight(config, x, y));
                } else {
                    map.set(x, y, h + change);
                }
            }
        }
        if config.clamp_non_negative {
            for h in map.cells_mut() {
                *h = h.max(0.0);
            }
        }
        if let Some(k) = config.smoothing {
            iir_two_tap_per_column(&mut map, k);
            if config.lock_border {
                for y in 0..height {
                    for x in 0..width {
                        if x == 0 || y == 0 || x == width - 1 || y == height - 1 {
                            map.set(x, y, 0.0);
                        }
                    }
                }
            }
        }
    }
    map
}
