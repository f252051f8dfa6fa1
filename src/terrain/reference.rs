//! Plain per-pixel versions of the fault algorithms, kept to prove the fast ones exact.
//!
//! Each tests every sample against every line, as the seeds' listings do.
//! The tests compare the span rasterisers with these bit for bit, and the
//! benchmarks time both in the same run.
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
