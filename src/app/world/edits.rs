//! The hand-edit layer over the grown terrain: every settled edit's change summed in order, the edit in flight (rasterised a slice a frame, then eased in over half a second), a lift's live preview, and the heights the wearer sees.
//!
//! Edits are added after the recipe's growth and shaping, never fed to
//! them, so later growth neither smooths nor clamps an edit, an edit
//! changes nothing beyond its reach, and taking the layer back is exact.
//! The heights the world holds are `grown + layer` (summed in that order,
//! so a replay that settles every edit at once ends with the same bits as
//! a run that eased them in).
use std::sync::Arc;

use crate::terrain::Heightmap;
use crate::terrain::Sliced;
use crate::terrain::sculpt::{Edit, EditRaster, edit_change};

/// How long an edit takes to ease in once rasterised, nanoseconds of display time.
pub const EDIT_EASE_NS: i64 = 500_000_000;

/// Rows in one band of a [`BandedLayer`]: an edit's reach is a few
/// bands, so a snapshot shares the rest with the layer that goes on.
pub const BAND_ROWS: usize = 16;

/// Every settled edit's change summed in order, held in bands of
/// [`BAND_ROWS`] rows (the last one shorter), each shared until an edit
/// changes it: the undo steps and history checkpoints that keep the
/// layer as it was then hold only the bands edits have changed since.
#[derive(Debug, Clone)]
pub struct BandedLayer {
    width: usize,
    height: usize,
    bands: Vec<Arc<[f32]>>,
}

impl BandedLayer {
    /// All zeros on a `width`×`height` map, the full bands sharing one
    /// allocation until edited.
    fn zeros(width: usize, height: usize) -> Self {
        let full: Arc<[f32]> = vec![0.0; width * BAND_ROWS].into();
        let bands = (0..height)
            .step_by(BAND_ROWS)
            .map(|top| match (height - top).min(BAND_ROWS) {
                BAND_ROWS => full.clone(),
                rows => vec![0.0; width * rows].into(),
            })
            .collect();
        BandedLayer {
            width,
            height,
            bands,
        }
    }

    /// Adds `change` (one value a cell, row by row) cell by cell. A band
    /// the change leaves all zeros is not written, so it stays shared;
    /// the sums start at +0 and so never become -0, which makes adding
    /// a zero leave every bit as it was.
    fn add(&mut self, change: &[f32]) {
        assert_eq!(
            change.len(),
            self.width * self.height,
            "a change of this map"
        );
        let band_cells = self.width * BAND_ROWS;
        for (band, change) in self.bands.iter_mut().zip(change.chunks(band_cells)) {
            if change.iter().all(|&cell| cell == 0.0) {
                continue;
            }
            for (sum, change) in Arc::make_mut(band).iter_mut().zip(change) {
                *sum += change;
            }
        }
    }
}

/// An edit on its way in.
#[derive(Debug, Clone)]
struct InFlight {
    /// Rasterises the change, a band of rows a frame.
    raster: EditRaster,
    /// The change so far (whole once the raster is done).
    change: Heightmap,
    /// When easing in began (once the raster is done).
    easing_since_ns: Option<i64>,
    /// How much of the change shows, 0 to 1.
    shown: f32,
}

/// The edits over one map.
#[derive(Debug, Clone)]
pub struct EditLayer {
    width: usize,
    height: usize,
    /// Every settled edit's change, summed in order; `None` before the first.
    layer: Option<BandedLayer>,
    /// The edit easing in.
    in_flight: Option<InFlight>,
    /// A lift's change while the hand still holds it: shown, not applied.
    preview: Option<(Edit, Heightmap)>,
    /// The grown heights plus all of the above, kept when any is present.
    shown: Option<Heightmap>,
}

impl EditLayer {
    /// No edits on a `width`×`height` map.
    pub fn new(width: usize, height: usize) -> Self {
        EditLayer {
            width,
            height,
            layer: None,
            in_flight: None,
            preview: None,
            shown: None,
        }
    }

    /// Whether nothing is edited, easing in or previewed: the grown
    /// heights are what shows.
    pub fn is_empty(&self) -> bool {
        self.layer.is_none() && self.in_flight.is_none() && self.preview.is_none()
    }

    /// Starts `edit` (already checked) easing in, settling the one before.
    /// A lift whose preview shows at its point is already in view: it
    /// settles at once, so the hill the hand let go of does not sink and
    /// rise again.
    pub fn begin(&mut self, edit: &Edit) {
        self.settle();
        let previewed = match (edit, &self.preview) {
            (Edit::Lift { at, .. }, Some((Edit::Lift { at: shown, .. }, _))) => at == shown,
            _ => false,
        };
        self.in_flight = Some(InFlight {
            raster: EditRaster::new(edit, self.width, self.height),
            change: Heightmap::flat(self.width, self.height).expect("the map's own size"),
            easing_since_ns: None,
            shown: 0.0,
        });
        if previewed {
            self.settle();
        }
    }

    /// Moves the edit in flight on to `now`: one band of its raster, or its
    /// easing; whether what shows changed.
    pub fn advance(&mut self, now: i64) -> bool {
        let Some(flight) = self.in_flight.as_mut() else {
            return false;
        };
        if !flight.raster.is_done() {
            flight.raster.step(&mut flight.change);
            if !flight.raster.is_done() {
                return false;
            }
            flight.easing_since_ns = Some(now);
        }
        let since = now.saturating_sub(flight.easing_since_ns.unwrap_or(now));
        let t = (since as f32 / EDIT_EASE_NS as f32).clamp(0.0, 1.0);
        if t >= 1.0 {
            self.settle();
            return true;
        }
        let eased = t * t * (3.0 - 2.0 * t);
        let changed = eased != flight.shown;
        flight.shown = eased;
        changed
    }

    /// Finishes the edit in flight at once (its raster to the end, wholly
    /// added to the layer); whether there was one.
    pub fn settle(&mut self) -> bool {
        let Some(mut flight) = self.in_flight.take() else {
            return false;
        };
        flight.raster.run_to_end(&mut flight.change);
        self.layer
            .get_or_insert_with(|| BandedLayer::zeros(self.width, self.height))
            .add(flight.change.cells());
        true
    }

    /// Shows `edit` (a lift the hand still holds) without applying it, or
    /// nothing; whether what shows changed.
    pub fn preview(&mut self, edit: Option<&Edit>) -> bool {
        if self.preview.as_ref().map(|(shown, _)| shown) == edit {
            return false;
        }
        self.preview = edit.map(|edit| (edit.clone(), edit_change(edit, self.width, self.height)));
        true
    }

    /// Settles the edit in flight and hands over the layer (for undo),
    /// leaving none.
    pub fn take(&mut self) -> Option<BandedLayer> {
        self.settle();
        self.shown = None;
        self.layer.take()
    }

    /// The settled layer as it is now, after settling the edit in flight
    /// (for undo): it shares every band with the layer until an edit
    /// changes that band.
    pub fn snapshot(&mut self) -> Option<BandedLayer> {
        self.settle();
        self.layer.clone()
    }

    /// Puts back a layer [`Self::take`] or [`Self::snapshot`] handed out.
    pub fn restore(&mut self, layer: Option<BandedLayer>) {
        self.in_flight = None;
        self.layer = layer;
        if self.is_empty() {
            self.shown = None;
        }
    }

    /// Recomputes what shows over `grown`; its lowest and highest height,
    /// or `None` when nothing is edited (the grown heights show).
    pub fn compose(&mut self, grown: &Heightmap) -> Option<(f32, f32)> {
        if self.is_empty() {
            self.shown = None;
            return None;
        }
        let shown = self.shown.get_or_insert_with(|| grown.clone());
        let out = shown.cells_mut();
        out.copy_from_slice(grown.cells());
        if let Some(layer) = &self.layer {
            for (rows, band) in out.chunks_mut(self.width * BAND_ROWS).zip(&layer.bands) {
                for (height, change) in rows.iter_mut().zip(band.iter()) {
                    *height += change;
                }
            }
        }
        if let Some(flight) = &self.in_flight {
            let part = flight.shown;
            for (height, change) in out.iter_mut().zip(flight.change.cells()) {
                *height += change * part;
            }
        }
        if let Some((_, change)) = &self.preview {
            for (height, change) in out.iter_mut().zip(change.cells()) {
                *height += change;
            }
        }
        Some(shown.min_max())
    }

    /// The heights that show, once [`Self::compose`] made them.
    /// A copy without the heights that show, which the next composition
    /// makes again (a checkpoint keeps only what the edits are).
    pub fn without_shown(&self) -> EditLayer {
        EditLayer {
            layer: self.layer.clone(),
            in_flight: self.in_flight.clone(),
            preview: self.preview.clone(),
            shown: None,
            ..*self
        }
    }

    pub fn shown(&self) -> Option<&Heightmap> {
        self.shown.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lift(height: f32) -> Edit {
        Edit::Lift {
            at: [0.5, 0.5],
            height,
        }
    }

    /// The bits of every cell of `layer`, row by row.
    fn bits(layer: &BandedLayer) -> Vec<u32> {
        layer
            .bands
            .iter()
            .flat_map(|band| band.iter().map(|cell| cell.to_bits()))
            .collect()
    }

    #[test]
    fn a_snapshot_shares_the_bands_a_lift_leaves_alone() {
        let (width, height) = (65, 65);
        let mut layer = EditLayer::new(width, height);
        layer.begin(&Edit::Lift {
            at: [0.2, 0.2],
            height: 0.1,
        });
        let before = layer.snapshot().expect("one edit settled");
        assert_eq!(before.bands.len(), 5, "four bands of 16 rows and one of 1");
        assert_eq!(before.bands[4].len(), width);

        let small = Edit::Lift {
            at: [0.5, 0.9],
            height: 0.05,
        };
        let change = edit_change(&small, width, height);
        let touched: Vec<bool> = change
            .cells()
            .chunks(width * BAND_ROWS)
            .map(|band| band.iter().any(|&cell| cell != 0.0))
            .collect();
        let count = touched.iter().filter(|&&band| band).count();
        assert!(
            (1..touched.len()).contains(&count),
            "the lift reaches some bands, not all: {touched:?}"
        );
        layer.begin(&small);
        let after = layer.snapshot().expect("two edits settled");
        for (index, (old, new)) in before.bands.iter().zip(&after.bands).enumerate() {
            assert_eq!(
                Arc::ptr_eq(old, new),
                !touched[index],
                "band {index} is shared exactly when the lift leaves it alone"
            );
        }
        assert_ne!(bits(&before), bits(&after));

        let old_bits = bits(&before);
        layer.restore(Some(before));
        let restored = layer.snapshot().expect("the first edit's layer");
        assert_eq!(bits(&restored), old_bits, "restore gives the old bits back");
    }

    #[test]
    fn a_previewed_lift_settles_at_once_and_another_eases_in() {
        let grown = Heightmap::flat(17, 17).unwrap();
        let mut layer = EditLayer::new(17, 17);
        layer.preview(Some(&lift(0.09)));
        layer.begin(&lift(0.1));
        layer.preview(None);
        layer.compose(&grown);
        assert_eq!(layer.shown().unwrap().get(8, 8), 0.1, "the hill stays up");

        let mut fresh = EditLayer::new(17, 17);
        fresh.begin(&lift(0.1));
        fresh.advance(0);
        fresh.compose(&grown);
        assert_eq!(
            fresh.shown().unwrap().get(8, 8),
            0.0,
            "it eases in from nothing"
        );
        fresh.advance(EDIT_EASE_NS);
        fresh.compose(&grown);
        assert_eq!(fresh.shown().unwrap().get(8, 8), 0.1);
    }
}
