//! The [`Sliced`] trait: whole-map terrain work done a bounded slice at a time, so an app can grow a landscape live a few slices per frame and end bit for bit where the whole-map function ends.
//!
//! The jobs live beside the functions they slice:
//! [`DiamondSquareGrowth`](super::diamond_square::DiamondSquareGrowth),
//! [`ThermalErosion`](super::erosion::ThermalErosion),
//! [`HydraulicErosion`](super::erosion::HydraulicErosion) and
//! [`SmoothingPass`](super::filter::SmoothingPass). Each whole-map function
//! is its job stepped to the end, so the two cannot drift apart; the tests
//! compare both with plain reference transcriptions.
use super::heightmap::Heightmap;

/// Cells of cheap per-cell work (a few arithmetic operations and loads
/// each) one slice may touch: a slice stays well under 1 ms on one core of
/// the project's machine (docs/performance.md, "Sliced steps"). Jobs whose
/// work grows with the map split by rows so that a slice stays near this;
/// erosion, 20–50 times dearer a cell, has budgets of its own
/// ([`THERMAL_BAND_CELLS`](super::erosion::THERMAL_BAND_CELLS),
/// [`HYDRAULIC_BAND_CELLS`](super::erosion::HYDRAULIC_BAND_CELLS)).
pub const SLICE_CELLS: usize = 70_000;

/// Work on a heightmap done a bounded slice at a time.
pub trait Sliced {
    /// Slices in the whole job (known when it is made).
    fn slices(&self) -> usize;
    /// Slices done so far.
    fn slices_done(&self) -> usize;
    /// Does the next slice on `map` (the same map every call, of the size the job was made for); does nothing once all are done.
    fn step(&mut self, map: &mut Heightmap);
    /// Whether every slice is done.
    fn is_done(&self) -> bool {
        self.slices_done() >= self.slices()
    }
    /// Does every slice still to do, as the whole-map function would.
    fn run_to_end(&mut self, map: &mut Heightmap) {
        while !self.is_done() {
            self.step(map);
        }
    }
}

/// Rows per band when `rows` rows of `width` cells, each costing `weight`
/// units of [`SLICE_CELLS`]'s cheap work, are split into bands of about
/// equal size within the budget (at least one row per band).
pub(crate) fn rows_per_band(rows: usize, width: usize, weight: usize) -> usize {
    let work = rows * width * weight.max(1);
    let bands = work.div_ceil(SLICE_CELLS).clamp(1, rows.max(1));
    rows.div_ceil(bands).max(1)
}

/// Rows per band when `rows` rows of `width` cells are split into bands of
/// about equal size of at most about `cells` cells (at least one row per band).
pub(crate) fn rows_per_band_within(rows: usize, width: usize, cells: usize) -> usize {
    let bands = (rows * width).div_ceil(cells.max(1)).clamp(1, rows.max(1));
    rows.div_ceil(bands).max(1)
}

/// Panics unless `map` is `width`×`height`: a job steps the map it was made for.
pub(crate) fn assert_map_size(map: &Heightmap, width: usize, height: usize) {
    assert_eq!(
        (map.width(), map.height()),
        (width, height),
        "the map the job was made for"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_cover_the_rows_within_the_budget() {
        assert_eq!(rows_per_band(257, 257, 1), 257);
        assert_eq!(rows_per_band(513, 513, 1), 129);
        assert_eq!(rows_per_band(2, 2, 1), 2);
        assert_eq!(rows_per_band(3, 1_000_000, 1), 1);
        for (rows, width, weight) in [(513, 513, 7), (100, 9000, 2), (1025, 1025, 1)] {
            let band = rows_per_band(rows, width, weight);
            assert!(band * width * weight <= SLICE_CELLS + width * weight * 4);
        }
    }
}
