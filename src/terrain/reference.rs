//! Plain per-pixel versions of the fault algorithms, kept to prove the fast ones exact.
//!
//! The fault references test every sample against every line, as the seeds'
//! listings do; the filter reference walks each column on its own.
//! The tests compare the span rasterisers with these bit for bit, and the
//! benchmarks time both in the same run.
use super::Heightmap;
use super::bsp::BspTree;
use super::fault::Fault;
use super::fixed::to_fixed;

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
