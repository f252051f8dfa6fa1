//! Where the live water comes from: rain over a disc or over the whole map and springs, as plain data a command can carry, and how each runs step by step.
use crate::terrain::erosion::{check_non_negative, check_positive, check_unit, check_within};
use crate::terrain::error::TerrainError;

/// Most sources running at once: the list is allocated once, so adding
/// one never allocates while the water runs.
pub const MAX_SOURCES: usize = 64;

/// Longest duration a source may be given, in simulated seconds (a day):
/// its step count stays far inside `u64`.
pub const MAX_SOURCE_SECONDS: f32 = 86_400.0;

/// Radius, in cells, under which a rain disc still covers its nearest
/// cell: the nearest cell is at most √½ ≈ 0.707 cells from any point, so a
/// drop of rain asked for is never lost between cells.
const MIN_DISC_CELLS: f32 = 0.75;

/// A way water enters the map. Positions are map fractions: `u` along x
/// (columns, 0 = first, 1 = last), `v` along y (rows); rates are water
/// depth, in terrain height units, added per simulated second to each cell
/// the source covers.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum WaterSource {
    /// Rain over the cells within `radius` of `centre`; the radius is a
    /// fraction of the map's longer side (at least 0.75 cells, so it
    /// always covers the nearest cell).
    RainDisc {
        centre: [f32; 2],
        radius: f32,
        rate: f32,
    },
    /// Rain over every cell.
    RainEverywhere { rate: f32 },
    /// A spring: water welling up in the one cell nearest `at`.
    Spring { at: [f32; 2], rate: f32 },
}

impl WaterSource {
    /// Checks positions are in [0, 1], the radius in [0, 1] and the rate
    /// finite and ≥ 0; the error names the first field out of range.
    pub fn validate(&self) -> Result<(), TerrainError> {
        match *self {
            WaterSource::RainDisc {
                centre,
                radius,
                rate,
            } => {
                check_unit("u", centre[0])?;
                check_unit("v", centre[1])?;
                check_unit("radius", radius)?;
                check_non_negative("rate", rate)
            }
            WaterSource::RainEverywhere { rate } => check_non_negative("rate", rate),
            WaterSource::Spring { at, rate } => {
                check_unit("u", at[0])?;
                check_unit("v", at[1])?;
                check_non_negative("rate", rate)
            }
        }
    }
}

/// Names a running source, to stop it; ids count up from 0 in the order
/// sources were added, so two peers that add the same sources agree.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct SourceId(pub u64);

/// Steps a source of `seconds` runs at Δt = `dt`: the nearest whole number,
/// at least 1.
pub(super) fn steps_for(seconds: f32, dt: f32) -> Result<u64, TerrainError> {
    check_positive("seconds", seconds)?;
    check_within("seconds", seconds, 0.0, MAX_SOURCE_SECONDS, "at most 86400")?;
    Ok(((seconds / dt).round() as u64).max(1))
}

/// The cells a source covers, fixed when it is added.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Footprint {
    /// Every cell.
    Everywhere,
    /// Cells of the rectangle `x0..x1 × y0..y1` within `radius` cells of
    /// `centre` (in cells).
    Disc {
        x: [usize; 2],
        y: [usize; 2],
        centre: [f32; 2],
        radius: f32,
    },
    /// One cell.
    Cell(usize),
}

/// A source as it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct RunningSource {
    pub id: SourceId,
    pub source: WaterSource,
    /// Steps still to run; `None` until stopped.
    pub steps_left: Option<u64>,
    footprint: Footprint,
    /// Depth added to each covered cell per step: rate · Δt.
    per_step: f32,
}

impl RunningSource {
    /// `source` on a `width × height` map at Δt = `dt` (already validated).
    pub fn new(
        id: SourceId,
        source: WaterSource,
        steps_left: Option<u64>,
        (width, height): (usize, usize),
        dt: f32,
    ) -> Self {
        let cell_of = |[u, v]: [f32; 2]| {
            let x = (u * (width - 1) as f32).round() as usize;
            let y = (v * (height - 1) as f32).round() as usize;
            y * width + x
        };
        let (footprint, rate) = match source {
            WaterSource::RainEverywhere { rate } => (Footprint::Everywhere, rate),
            WaterSource::Spring { at, rate } => (Footprint::Cell(cell_of(at)), rate),
            WaterSource::RainDisc {
                centre,
                radius,
                rate,
            } => {
                let cx = centre[0] * (width - 1) as f32;
                let cy = centre[1] * (height - 1) as f32;
                let r = (radius * (width.max(height) - 1) as f32).max(MIN_DISC_CELLS);
                let span = |c: f32, n: usize| {
                    let lo = (c - r).floor().max(0.0) as usize;
                    let hi = ((c + r).ceil() as usize + 1).min(n);
                    [lo, hi]
                };
                let footprint = Footprint::Disc {
                    x: span(cx, width),
                    y: span(cy, height),
                    centre: [cx, cy],
                    radius: r,
                };
                (footprint, rate)
            }
        };
        RunningSource {
            id,
            source,
            steps_left,
            footprint,
            per_step: rate * dt,
        }
    }

    /// Adds one step of water to `depth` (row-major, `width` wide) and
    /// returns what was added, summed exactly from the f32 depths before
    /// and after so that the ledger matches the map to the bit.
    pub fn rain_into(&self, depth: &mut [f32], width: usize) -> f64 {
        let add = self.per_step;
        let mut added = 0.0f64;
        let mut rain = |d: &mut f32| {
            let before = *d;
            *d = before + add;
            added += f64::from(*d) - f64::from(before);
        };
        match self.footprint {
            Footprint::Everywhere => depth.iter_mut().for_each(&mut rain),
            Footprint::Cell(i) => rain(&mut depth[i]),
            Footprint::Disc {
                x,
                y,
                centre,
                radius,
            } => {
                for row in y[0]..y[1] {
                    let dy = row as f32 - centre[1];
                    for column in x[0]..x[1] {
                        let dx = column as f32 - centre[0];
                        if dx * dx + dy * dy <= radius * radius {
                            rain(&mut depth[row * width + column]);
                        }
                    }
                }
            }
        }
        added
    }
}
