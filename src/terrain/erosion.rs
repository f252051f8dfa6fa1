//! Thermal and hydraulic erosion as cellular automata (Olsen 2004, with the material hardness of the seed thesis §3.4, §3.5.1).
//!
//! Both run on the 4-neighbourhood (von Neumann) and update every cell from
//! the state at the start of the iteration (all transfers are computed, then
//! applied), so the result does not depend on the order cells are visited.
//! Material only moves between cells: the sum of heights (plus sediment in
//! suspension, for the hydraulic model) stays constant up to f32 rounding.
use super::heightmap::check_size;
use super::metrics::for_each_slope;
use super::sliced::Sliced;
use super::{Heightmap, TerrainError};

/// Most iterations one call accepts, a guard against a typo that would run for hours.
pub const MAX_EROSION_ITERATIONS: u32 = 100_000;

/// How easily material erodes as a function of height: the thesis' material
/// hardness, here ground that gets harder (or softer) linearly with altitude.
///
/// A cell at height `h` moves `factor(h)` times the material Olsen's rule
/// gives, with `factor(h) = at_lowest + t · (at_highest − at_lowest)` and
/// `t = (h − min) / (max − min)` over the map's heights at the start of the
/// iteration (`t = 0` on a flat map). Both factors lie in [0, 1]; 1 is loose
/// material (Olsen's rule unchanged), 0 is rock that never moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hardness {
    /// Share of the movement that happens at the map's lowest height.
    pub at_lowest: f32,
    /// Share of the movement that happens at the map's highest height.
    pub at_highest: f32,
}

impl Hardness {
    /// The same factor 1 everywhere: Olsen's rule without material properties.
    pub const UNIFORM: Hardness = Hardness {
        at_lowest: 1.0,
        at_highest: 1.0,
    };
}

impl Default for Hardness {
    /// Soft sediment in the valleys, rock twice as hard on the peaks.
    fn default() -> Self {
        Hardness {
            at_lowest: 1.0,
            at_highest: 0.5,
        }
    }
}

/// Parameters of [`thermal`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThermalParams {
    /// Number of iterations, at most [`MAX_EROSION_ITERATIONS`].
    pub iterations: u32,
    /// Talus threshold T: the largest height difference to a neighbour that
    /// stays in place, in height units per cell; finite and ≥ 0.
    pub talus: f32,
    /// Share c of the excess over talus moved per iteration, in [0, 0.5]
    /// (above 0.5 simultaneous transfers can overshoot and oscillate).
    pub rate: f32,
    /// Height-dependent scaling of the moved material.
    pub hardness: Hardness,
}

impl Default for ThermalParams {
    /// Olsen's values for heights in [0, 1] on a 256-cell map: T = 4/256, c = 0.5.
    fn default() -> Self {
        ThermalParams {
            iterations: 50,
            talus: 4.0 / 256.0,
            rate: 0.5,
            hardness: Hardness::default(),
        }
    }
}

/// Parameters of [`hydraulic`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HydraulicParams {
    /// Number of iterations, at most [`MAX_EROSION_ITERATIONS`].
    pub iterations: u32,
    /// Kr: water added to every cell per iteration; finite and ≥ 0.
    pub rain: f32,
    /// Ks: material dissolved per unit of water per iteration, in [0, 1].
    pub solubility: f32,
    /// Ke: share of the water evaporating per iteration, in [0, 1].
    pub evaporation: f32,
    /// Kc: sediment one unit of water can carry; finite and ≥ 0.
    pub capacity: f32,
    /// How much harder the steepest ground of the map is to dissolve, in
    /// [0, 1]: Ks is scaled by `1 − steep_hardness · s / s_max`, where s is a
    /// cell's largest height difference to its 4 neighbours (bare rock on
    /// cliffs, loose soil on flats).
    pub steep_hardness: f32,
}

impl Default for HydraulicParams {
    /// Olsen's constants: Kr = 0.01, Ks = 0.01, Ke = 0.5, Kc = 0.01.
    fn default() -> Self {
        HydraulicParams {
            iterations: 100,
            rain: 0.01,
            solubility: 0.01,
            evaporation: 0.5,
            capacity: 0.01,
            steep_hardness: 0.5,
        }
    }
}

/// Olsen's thermal erosion with height-dependent hardness.
///
/// For a cell of height h with 4-neighbour differences dᵢ = h − hᵢ, let
/// d_max be the largest and d_total the sum of those above the talus T. If
/// d_max > T, neighbour i (with dᵢ > T) receives
/// `c · (d_max − T) · factor(h) · dᵢ / d_total` from the cell.
///
/// This is [`ThermalErosion`] stepped to the end.
pub fn thermal(map: &mut Heightmap, params: &ThermalParams) -> Result<(), TerrainError> {
    ThermalErosion::new(params)?.run_to_end(map);
    Ok(())
}

/// [`thermal`] a bounded slice at a time: each slice is one iteration, so
/// the job has `params.iterations` slices; the map after slice `n` is the
/// map after `n` iterations, and after the last it is [`thermal`]'s bit for
/// bit.
#[derive(Debug, Clone)]
pub struct ThermalErosion {
    params: ThermalParams,
    /// Net transfer of the current iteration, kept to avoid allocating.
    delta: Vec<f32>,
    /// Iterations done.
    done: usize,
}

impl ThermalErosion {
    /// The job of `thermal(map, params)`, with the same validation.
    pub fn new(params: &ThermalParams) -> Result<Self, TerrainError> {
        check_iterations(params.iterations)?;
        check_non_negative("talus", params.talus)?;
        check_within("rate", params.rate, 0.0, 0.5, "between 0 and 0.5")?;
        check_unit("hardness.at_lowest", params.hardness.at_lowest)?;
        check_unit("hardness.at_highest", params.hardness.at_highest)?;
        Ok(ThermalErosion {
            params: *params,
            delta: Vec::new(),
            done: 0,
        })
    }

    /// One iteration of Olsen's rule on `map`.
    fn iterate(&mut self, map: &mut Heightmap) {
        let params = &self.params;
        let width = map.width();
        let delta = &mut self.delta;
        delta.clear();
        delta.resize(map.cells().len(), 0.0);
        let (lo, hi) = map.min_max();
        let inv_range = if hi > lo { 1.0 / (hi - lo) } else { 0.0 };
        let hardness = params.hardness;
        let cells = map.cells();
        for (i, x) in (0..cells.len()).zip((0..width).cycle()) {
            let h = cells[i];
            let neighbours = neighbour_indices(i, x, width, cells.len());
            let mut d_max = 0.0f32;
            let mut d_total = 0.0f32;
            for &n in neighbours.iter().flatten() {
                let d = h - cells[n];
                d_max = d_max.max(d);
                if d > params.talus {
                    d_total += d;
                }
            }
            if d_max <= params.talus {
                continue;
            }
            let t = (h - lo) * inv_range;
            let factor = hardness.at_lowest + t * (hardness.at_highest - hardness.at_lowest);
            let moved = params.rate * (d_max - params.talus) * factor;
            for &n in neighbours.iter().flatten() {
                let d = h - cells[n];
                if d > params.talus {
                    let amount = moved * d / d_total;
                    delta[n] += amount;
                    delta[i] -= amount;
                }
            }
        }
        for (h, d) in map.cells_mut().iter_mut().zip(delta.iter()) {
            *h += d;
        }
    }
}

impl Sliced for ThermalErosion {
    fn slices(&self) -> usize {
        self.params.iterations as usize
    }

    fn slices_done(&self) -> usize {
        self.done
    }

    fn step(&mut self, map: &mut Heightmap) {
        if self.is_done() {
            return;
        }
        self.iterate(map);
        self.done += 1;
    }
}

/// Olsen's hydraulic erosion; each iteration runs his four steps:
///
/// 1. rain: `w += Kr` on every cell;
/// 2. dissolve: `amount = Ks · (1 − steep_hardness · s / s_max) · w`,
///    `h −= amount`, `m += amount`;
/// 3. transport: with total level a = h + w, the lower neighbours
///    (dᵢ = a − aᵢ > 0) share `Δw = min(w, a − ā)` in proportion to dᵢ,
///    where ā is the mean level of the cell and those neighbours; the
///    sediment follows its water, `Δmᵢ = m · Δwᵢ / w`;
/// 4. evaporate and deposit: `w *= 1 − Ke`; sediment above the capacity
///    `Kc · w` is deposited, `h += m − Kc · w`, `m = Kc · w`.
///
/// After the last iteration the remaining water evaporates and all sediment
/// still in suspension is deposited where it is, so the sum of heights is
/// conserved and a later call starts dry.
///
/// This is [`HydraulicErosion`] stepped to the end.
pub fn hydraulic(map: &mut Heightmap, params: &HydraulicParams) -> Result<(), TerrainError> {
    HydraulicErosion::new(map.width(), map.height(), params)?.run_to_end(map);
    Ok(())
}

/// [`hydraulic`] a bounded slice at a time, keeping the water and the
/// sediment in suspension between slices: one slice per iteration, then a
/// last slice that deposits what is still in suspension (so
/// `params.iterations + 1` slices). Between slices the map shows the ground
/// without the suspended sediment, as [`hydraulic`]'s loop has it; after the
/// last slice it is [`hydraulic`]'s map bit for bit.
#[derive(Debug, Clone)]
pub struct HydraulicErosion {
    width: usize,
    height: usize,
    params: HydraulicParams,
    state: HydraulicState,
    /// Slices done.
    done: usize,
}

impl HydraulicErosion {
    /// The job of `hydraulic(map, params)` on a `width × height` map, with
    /// the same validation.
    pub fn new(
        width: usize,
        height: usize,
        params: &HydraulicParams,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        check_iterations(params.iterations)?;
        check_non_negative("rain", params.rain)?;
        check_unit("solubility", params.solubility)?;
        check_unit("evaporation", params.evaporation)?;
        check_non_negative("capacity", params.capacity)?;
        check_unit("steep_hardness", params.steep_hardness)?;
        Ok(HydraulicErosion {
            width,
            height,
            params: *params,
            state: HydraulicState::new(width * height),
            done: 0,
        })
    }

    /// Water depth per cell, row-major.
    pub fn water(&self) -> &[f32] {
        &self.state.water
    }

    /// Sediment in suspension per cell, row-major.
    pub fn sediment(&self) -> &[f32] {
        &self.state.sediment
    }
}

impl Sliced for HydraulicErosion {
    fn slices(&self) -> usize {
        self.params.iterations as usize + 1
    }

    fn slices_done(&self) -> usize {
        self.done
    }

    fn step(&mut self, map: &mut Heightmap) {
        if self.is_done() {
            return;
        }
        assert_eq!(
            (map.width(), map.height()),
            (self.width, self.height),
            "the map the job was made for"
        );
        if self.done < self.params.iterations as usize {
            self.state.iterate(map, &self.params);
        } else {
            for (h, m) in map.cells_mut().iter_mut().zip(&self.state.sediment) {
                *h += m;
            }
            // The water evaporates and the sediment is in the ground now.
            self.state.water.fill(0.0);
            self.state.sediment.fill(0.0);
        }
        self.done += 1;
    }
}

/// Water and suspended sediment of a hydraulic run, plus scratch buffers
/// kept across iterations to avoid allocating in the loop.
#[derive(Debug, Clone)]
struct HydraulicState {
    /// Water depth per cell.
    water: Vec<f32>,
    /// Dissolved material carried per cell.
    sediment: Vec<f32>,
    /// Net water transfer of the current transport step.
    water_delta: Vec<f32>,
    /// Net sediment transfer of the current transport step.
    sediment_delta: Vec<f32>,
    /// Each cell's slope s for the dissolve step.
    slopes: Vec<f32>,
}

impl HydraulicState {
    fn new(len: usize) -> Self {
        HydraulicState {
            water: vec![0.0; len],
            sediment: vec![0.0; len],
            water_delta: vec![0.0; len],
            sediment_delta: vec![0.0; len],
            slopes: Vec::with_capacity(len),
        }
    }

    fn iterate(&mut self, map: &mut Heightmap, params: &HydraulicParams) {
        let width = map.width();

        self.slopes.clear();
        for_each_slope(map, |s| self.slopes.push(s));
        let max_slope = self.slopes.iter().fold(0.0f32, |a, &s| a.max(s));
        let inv_max_slope = if max_slope > 0.0 {
            1.0 / max_slope
        } else {
            0.0
        };

        let cells = map.cells_mut();
        let dissolving = cells
            .iter_mut()
            .zip(&mut self.water)
            .zip(&mut self.sediment)
            .zip(&self.slopes);
        for (((h, water), sediment), &slope) in dissolving {
            *water += params.rain;
            let softness = 1.0 - params.steep_hardness * slope * inv_max_slope;
            let amount = params.solubility * softness * *water;
            *h -= amount;
            *sediment += amount;
        }

        self.water_delta.fill(0.0);
        self.sediment_delta.fill(0.0);
        for (i, x) in (0..cells.len()).zip((0..width).cycle()) {
            let water = self.water[i];
            if water <= 0.0 {
                continue;
            }
            let level = cells[i] + water;
            let neighbours = neighbour_indices(i, x, width, cells.len());
            let mut d_total = 0.0f32;
            let mut level_sum = level;
            let mut lower = 0u8;
            for &n in neighbours.iter().flatten() {
                let d = level - (cells[n] + self.water[n]);
                if d > 0.0 {
                    d_total += d;
                    level_sum += cells[n] + self.water[n];
                    lower += 1;
                }
            }
            if lower == 0 {
                continue;
            }
            let mean_level = level_sum / f32::from(lower + 1);
            let moved = water.min(level - mean_level);
            if moved <= 0.0 {
                continue;
            }
            let sediment_per_water = self.sediment[i] / water;
            for &n in neighbours.iter().flatten() {
                let d = level - (cells[n] + self.water[n]);
                if d > 0.0 {
                    let water_out = moved * d / d_total;
                    let sediment_out = sediment_per_water * water_out;
                    self.water_delta[n] += water_out;
                    self.water_delta[i] -= water_out;
                    self.sediment_delta[n] += sediment_out;
                    self.sediment_delta[i] -= sediment_out;
                }
            }
        }

        let keep = 1.0 - params.evaporation;
        let settling = cells
            .iter_mut()
            .zip(&mut self.water)
            .zip(&mut self.sediment)
            .zip(&self.water_delta)
            .zip(&self.sediment_delta);
        for ((((h, water), sediment), &water_delta), &sediment_delta) in settling {
            // Rounding can leave a cell that sent everything a hair below zero.
            let new_water = ((*water + water_delta) * keep).max(0.0);
            let new_sediment = (*sediment + sediment_delta).max(0.0);
            let deposit = (new_sediment - params.capacity * new_water).max(0.0);
            *h += deposit;
            *sediment = new_sediment - deposit;
            *water = new_water;
        }
    }
}

/// Indices of the left, right, upper and lower neighbours of cell `i` (in
/// column `x`), when inside the map.
fn neighbour_indices(i: usize, x: usize, width: usize, len: usize) -> [Option<usize>; 4] {
    [
        (x > 0).then(|| i - 1),
        (x + 1 < width).then(|| i + 1),
        (i >= width).then(|| i - width),
        (i + width < len).then(|| i + width),
    ]
}

fn check_iterations(iterations: u32) -> Result<(), TerrainError> {
    if iterations <= MAX_EROSION_ITERATIONS {
        Ok(())
    } else {
        Err(TerrainError::out_of_range(
            "iterations",
            iterations,
            "at most 100000",
        ))
    }
}

fn check_non_negative(name: &'static str, value: f32) -> Result<(), TerrainError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(TerrainError::out_of_range(
            name,
            value,
            "a finite number >= 0",
        ))
    }
}

fn check_unit(name: &'static str, value: f32) -> Result<(), TerrainError> {
    check_within(name, value, 0.0, 1.0, "between 0 and 1")
}

fn check_within(
    name: &'static str,
    value: f32,
    lo: f32,
    hi: f32,
    expected: &'static str,
) -> Result<(), TerrainError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(TerrainError::out_of_range(name, value, expected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::diamond_square::diamond_square;
    use crate::terrain::metrics::metrics;

    fn total(map: &Heightmap) -> f64 {
        map.cells().iter().map(|&h| f64::from(h)).sum()
    }

    fn rough_map() -> Heightmap {
        diamond_square(33, 33, 1.0, 17).unwrap()
    }

    fn thermal_params(iterations: u32, talus: f32) -> ThermalParams {
        ThermalParams {
            iterations,
            talus,
            rate: 0.5,
            hardness: Hardness::default(),
        }
    }

    #[test]
    fn thermal_conserves_the_sum_of_heights() {
        // Each transfer subtracts and adds the same f32 amount; only the
        // final additions round, so the sum moves by far less than 1e-4.
        let mut map = rough_map();
        let before = total(&map);
        thermal(&mut map, &thermal_params(40, 0.01)).unwrap();
        assert!(
            (total(&map) - before).abs() < 1e-4,
            "{} vs {before}",
            total(&map)
        );
        assert_ne!(map, rough_map(), "material moved");
    }

    #[test]
    fn thermal_leaves_a_slope_under_talus_alone() {
        let cells = (0..4)
            .flat_map(|_| (0..6).map(|x| 0.1 * x as f32))
            .collect();
        let mut map = Heightmap::from_cells(6, 4, cells).unwrap();
        let before = map.clone();
        thermal(&mut map, &thermal_params(10, 0.11)).unwrap();
        assert_eq!(map, before);
    }

    #[test]
    fn thermal_flattens_a_spike_down_to_the_talus_slope() {
        // A unit spike on flat ground with T = 0.05: material slides off
        // until no difference to a neighbour exceeds the talus (the excess
        // shrinks geometrically, so 100 iterations leave < 1e-4 of it).
        let mut map = Heightmap::flat(7, 7).unwrap();
        map.set(3, 3, 1.0);
        let params = ThermalParams {
            hardness: Hardness::UNIFORM,
            ..thermal_params(100, 0.05)
        };
        thermal(&mut map, &params).unwrap();
        assert!(map.get(3, 3) < 0.2, "spike still at {}", map.get(3, 3));
        assert!(map.get(3, 2) > 0.0 && map.get(2, 3) > 0.0);
        for_each_slope(&map, |s| assert!(s < 0.05 + 1e-4, "slope {s}"));
    }

    #[test]
    fn thermal_hardness_zero_freezes_the_map() {
        let mut map = rough_map();
        let before = map.clone();
        let params = ThermalParams {
            hardness: Hardness {
                at_lowest: 0.0,
                at_highest: 0.0,
            },
            ..thermal_params(5, 0.0)
        };
        thermal(&mut map, &params).unwrap();
        assert_eq!(map, before);
    }

    #[test]
    fn harder_peaks_keep_more_of_their_height() {
        let mut soft = rough_map();
        let mut hard = rough_map();
        let peak = soft.min_max().1;
        thermal(
            &mut soft,
            &ThermalParams {
                hardness: Hardness::UNIFORM,
                ..thermal_params(10, 0.0)
            },
        )
        .unwrap();
        thermal(
            &mut hard,
            &ThermalParams {
                hardness: Hardness {
                    at_lowest: 1.0,
                    at_highest: 0.1,
                },
                ..thermal_params(10, 0.0)
            },
        )
        .unwrap();
        assert!(hard.min_max().1 > soft.min_max().1);
        assert!(hard.min_max().1 <= peak);
    }

    #[test]
    fn thermal_does_not_raise_the_erosion_score_of_a_rough_map() {
        let mut map = rough_map();
        let before = metrics(&map).erosion_score;
        thermal(&mut map, &thermal_params(50, 0.02)).unwrap();
        let after = metrics(&map).erosion_score;
        assert!(after <= before, "{after} > {before}");
    }

    #[test]
    fn thermal_iterations_compose() {
        let mut once = rough_map();
        let mut twice = rough_map();
        thermal(&mut once, &thermal_params(6, 0.01)).unwrap();
        thermal(&mut twice, &thermal_params(3, 0.01)).unwrap();
        thermal(&mut twice, &thermal_params(3, 0.01)).unwrap();
        assert_eq!(once, twice);
    }

    #[test]
    fn hydraulic_iterations_conserve_height_plus_sediment() {
        // Transfers are exact negatives of each other and deposits move
        // material between h and m, so only f32 rounding changes the total.
        let mut map = rough_map();
        let params = HydraulicParams::default();
        let before = total(&map);
        let mut state = HydraulicState::new(map.cells().len());
        for _ in 0..30 {
            state.iterate(&mut map, &params);
        }
        let suspended: f64 = state.sediment.iter().map(|&m| f64::from(m)).sum();
        assert!(suspended > 0.0, "water carried sediment");
        let after = total(&map) + suspended;
        assert!((after - before).abs() < 1e-3, "{after} vs {before}");
    }

    #[test]
    fn hydraulic_conserves_the_sum_of_heights_and_changes_the_map() {
        let mut map = rough_map();
        let before = total(&map);
        hydraulic(&mut map, &HydraulicParams::default()).unwrap();
        assert!((total(&map) - before).abs() < 1e-3);
        assert_ne!(map, rough_map());
    }

    #[test]
    fn hydraulic_moves_material_downhill() {
        // A ramp rising along x: water flows to x = 0, carrying sediment
        // dissolved uphill, so the low edge gains height overall.
        let cells = (0..8)
            .flat_map(|_| (0..8).map(|x| 0.2 * x as f32))
            .collect();
        let mut map = Heightmap::from_cells(8, 8, cells).unwrap();
        let low_before: f32 = (0..8).map(|y| map.get(0, y)).sum();
        let high_before: f32 = (0..8).map(|y| map.get(7, y)).sum();
        hydraulic(
            &mut map,
            &HydraulicParams {
                iterations: 50,
                ..HydraulicParams::default()
            },
        )
        .unwrap();
        let low_after: f32 = (0..8).map(|y| map.get(0, y)).sum();
        let high_after: f32 = (0..8).map(|y| map.get(7, y)).sum();
        assert!(low_after > low_before, "{low_after} <= {low_before}");
        assert!(high_after < high_before, "{high_after} >= {high_before}");
    }

    /// Olsen's thermal rule written the plain way, cell by cell with
    /// (x, y) indices, in the same order and arithmetic as the engine's.
    fn thermal_reference(map: &mut Heightmap, params: &ThermalParams) {
        let (w, h) = (map.width(), map.height());
        for _ in 0..params.iterations {
            let (lo, hi) = map.min_max();
            let inv_range = if hi > lo { 1.0 / (hi - lo) } else { 0.0 };
            let mut delta = vec![0.0f32; w * h];
            let m = map.cells();
            for y in 0..h {
                for x in 0..w {
                    let i = y * w + x;
                    let mut neighbours = Vec::new();
                    if x > 0 {
                        neighbours.push(i - 1);
                    }
                    if x + 1 < w {
                        neighbours.push(i + 1);
                    }
                    if y > 0 {
                        neighbours.push(i - w);
                    }
                    if y + 1 < h {
                        neighbours.push(i + w);
                    }
                    let mut d_max = 0.0f32;
                    let mut d_total = 0.0f32;
                    for &n in &neighbours {
                        let d = m[i] - m[n];
                        d_max = d_max.max(d);
                        if d > params.talus {
                            d_total += d;
                        }
                    }
                    if d_max <= params.talus {
                        continue;
                    }
                    let t = (m[i] - lo) * inv_range;
                    let hard = params.hardness;
                    let factor = hard.at_lowest + t * (hard.at_highest - hard.at_lowest);
                    let moved = params.rate * (d_max - params.talus) * factor;
                    for &n in &neighbours {
                        let d = m[i] - m[n];
                        if d > params.talus {
                            let amount = moved * d / d_total;
                            delta[n] += amount;
                            delta[i] -= amount;
                        }
                    }
                }
            }
            for (h, d) in map.cells_mut().iter_mut().zip(&delta) {
                *h += d;
            }
        }
    }

    /// Olsen's four hydraulic steps written the plain way, each over the
    /// whole map with (x, y) indices, then the final deposit.
    fn hydraulic_reference(map: &mut Heightmap, p: &HydraulicParams) {
        let (w, h) = (map.width(), map.height());
        let mut water = vec![0.0f32; w * h];
        let mut sediment = vec![0.0f32; w * h];
        let neighbours = |x: usize, y: usize| {
            let i = y * w + x;
            let mut n = Vec::new();
            if x > 0 {
                n.push(i - 1);
            }
            if x + 1 < w {
                n.push(i + 1);
            }
            if y > 0 {
                n.push(i - w);
            }
            if y + 1 < h {
                n.push(i + w);
            }
            n
        };
        for _ in 0..p.iterations {
            let m = map.cells().to_vec();
            let slopes: Vec<f32> = (0..w * h)
                .map(|i| {
                    neighbours(i % w, i / w)
                        .iter()
                        .fold(0.0f32, |s, &n| s.max((m[i] - m[n]).abs()))
                })
                .collect();
            let max_slope = slopes.iter().fold(0.0f32, |a, &s| a.max(s));
            let inv = if max_slope > 0.0 {
                1.0 / max_slope
            } else {
                0.0
            };
            let m = map.cells_mut();
            for i in 0..w * h {
                water[i] += p.rain;
                let amount = p.solubility * (1.0 - p.steep_hardness * slopes[i] * inv) * water[i];
                m[i] -= amount;
                sediment[i] += amount;
            }
            let mut dw = vec![0.0f32; w * h];
            let mut ds = vec![0.0f32; w * h];
            for i in 0..w * h {
                if water[i] <= 0.0 {
                    continue;
                }
                let level = m[i] + water[i];
                let around = neighbours(i % w, i / w);
                let lower: Vec<(usize, f32)> = around
                    .iter()
                    .map(|&n| (n, level - (m[n] + water[n])))
                    .filter(|&(_, d)| d > 0.0)
                    .collect();
                if lower.is_empty() {
                    continue;
                }
                let mut d_total = 0.0f32;
                let mut level_sum = level;
                for &(n, d) in &lower {
                    d_total += d;
                    level_sum += m[n] + water[n];
                }
                let mean = level_sum / (lower.len() + 1) as f32;
                let moved = water[i].min(level - mean);
                if moved <= 0.0 {
                    continue;
                }
                let per_water = sediment[i] / water[i];
                for &(n, d) in &lower {
                    let out = moved * d / d_total;
                    dw[n] += out;
                    dw[i] -= out;
                    ds[n] += per_water * out;
                    ds[i] -= per_water * out;
                }
            }
            for i in 0..w * h {
                let new_water = ((water[i] + dw[i]) * (1.0 - p.evaporation)).max(0.0);
                let new_sediment = (sediment[i] + ds[i]).max(0.0);
                let deposit = (new_sediment - p.capacity * new_water).max(0.0);
                m[i] += deposit;
                sediment[i] = new_sediment - deposit;
                water[i] = new_water;
            }
        }
        for (h, s) in map.cells_mut().iter_mut().zip(&sediment) {
            *h += s;
        }
    }

    fn bits(map: &Heightmap) -> Vec<u32> {
        map.cells().iter().map(|h| h.to_bits()).collect()
    }

    /// Rough starting maps: diamond-square on sizes that are square, not,
    /// not 2^n + 1, tiny, plus one with a flat plateau.
    fn start_maps() -> Vec<Heightmap> {
        let mut maps: Vec<Heightmap> =
            [(2, 2, 1), (3, 2, 2), (20, 33, 3), (65, 40, 4), (100, 7, 5)]
                .into_iter()
                .map(|(w, h, seed)| {
                    // Tilted, so that even the flat 2x2 map has slopes.
                    let mut map = diamond_square(w, h, 1.0, seed).unwrap();
                    for y in 0..h {
                        for x in 0..w {
                            map.set(x, y, map.get(x, y) + 0.3 * x as f32 + 0.2 * y as f32);
                        }
                    }
                    map
                })
                .collect();
        let mut plateau = diamond_square(30, 17, 0.5, 6).unwrap();
        for y in 4..10 {
            for x in 5..20 {
                plateau.set(x, y, 0.75);
            }
        }
        maps.push(plateau);
        maps
    }

    /// Steps `job` to the end on `map`, checking that every slice left
    /// changes the map and leaves it finite, and that a step after the end
    /// changes nothing.
    fn step_to_end(mut job: impl Sliced, map: &mut Heightmap) {
        let left = job.slices() - job.slices_done();
        let mut changing = 0;
        while !job.is_done() {
            let before = map.clone();
            job.step(map);
            assert!(map.cells().iter().all(|h| h.is_finite()));
            if *map != before {
                changing += 1;
            }
        }
        assert_eq!(changing, left, "{}x{}", map.width(), map.height());
        let end = map.clone();
        job.step(map);
        assert_eq!(bits(map), bits(&end));
        assert_eq!(job.slices_done(), job.slices());
    }

    #[test]
    fn thermal_sliced_ends_at_the_plain_rule_bit_for_bit() {
        let params = [
            thermal_params(12, 0.0),
            thermal_params(7, 0.02),
            ThermalParams {
                hardness: Hardness::UNIFORM,
                ..thermal_params(5, 0.01)
            },
        ];
        for start in start_maps() {
            for params in &params {
                let mut expected = start.clone();
                thermal_reference(&mut expected, params);
                let mut sliced = start.clone();
                step_to_end(ThermalErosion::new(params).unwrap(), &mut sliced);
                assert_eq!(bits(&sliced), bits(&expected), "{params:?}");
                let mut whole = start.clone();
                thermal(&mut whole, params).unwrap();
                assert_eq!(bits(&whole), bits(&expected));
            }
        }
    }

    #[test]
    fn thermal_sliced_on_257x257_is_the_plain_rule() {
        let start = diamond_square(257, 257, 1.0, 8).unwrap();
        let params = thermal_params(3, 0.01);
        let mut expected = start.clone();
        thermal_reference(&mut expected, &params);
        let mut sliced = start;
        step_to_end(ThermalErosion::new(&params).unwrap(), &mut sliced);
        assert_eq!(bits(&sliced), bits(&expected));
    }

    #[test]
    fn hydraulic_sliced_ends_at_the_plain_steps_bit_for_bit() {
        let params = [
            HydraulicParams {
                iterations: 9,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                iterations: 4,
                rain: 0.05,
                solubility: 0.1,
                evaporation: 0.2,
                capacity: 0.02,
                steep_hardness: 0.0,
            },
        ];
        for start in start_maps() {
            for params in &params {
                let mut expected = start.clone();
                hydraulic_reference(&mut expected, params);
                let mut sliced = start.clone();
                let job = HydraulicErosion::new(start.width(), start.height(), params).unwrap();
                assert_eq!(job.slices(), params.iterations as usize + 1);
                step_to_end(job, &mut sliced);
                assert_eq!(bits(&sliced), bits(&expected), "{params:?}");
                let mut whole = start.clone();
                hydraulic(&mut whole, params).unwrap();
                assert_eq!(bits(&whole), bits(&expected));
            }
        }
    }

    #[test]
    fn hydraulic_sliced_on_257x257_is_the_plain_steps_and_keeps_its_water() {
        let start = diamond_square(257, 257, 1.0, 9).unwrap();
        let params = HydraulicParams {
            iterations: 3,
            ..HydraulicParams::default()
        };
        let mut expected = start.clone();
        hydraulic_reference(&mut expected, &params);
        let mut job = HydraulicErosion::new(257, 257, &params).unwrap();
        let mut sliced = start;
        job.step(&mut sliced);
        assert!(job.water().iter().any(|&w| w > 0.0), "it rained");
        assert!(
            job.sediment().iter().any(|&m| m > 0.0),
            "water carries sediment"
        );
        step_to_end(job.clone(), &mut sliced);
        assert_eq!(bits(&sliced), bits(&expected));
    }

    #[test]
    fn erosion_jobs_validate_as_the_functions_do() {
        assert!(ThermalErosion::new(&thermal_params(1, -1.0)).is_err());
        let bad = HydraulicParams {
            solubility: 2.0,
            ..HydraulicParams::default()
        };
        assert!(HydraulicErosion::new(8, 8, &bad).is_err());
        assert!(HydraulicErosion::new(1, 8, &HydraulicParams::default()).is_err());
        let none = ThermalErosion::new(&thermal_params(0, 0.0)).unwrap();
        assert!(none.is_done());
    }

    #[test]
    fn out_of_range_parameters_are_errors() {
        let mut map = Heightmap::flat(4, 4).unwrap();
        let thermal_cases = [
            ThermalParams {
                talus: -1.0,
                ..ThermalParams::default()
            },
            ThermalParams {
                rate: 0.6,
                ..ThermalParams::default()
            },
            ThermalParams {
                iterations: MAX_EROSION_ITERATIONS + 1,
                ..ThermalParams::default()
            },
            ThermalParams {
                hardness: Hardness {
                    at_lowest: 1.5,
                    at_highest: 1.0,
                },
                ..ThermalParams::default()
            },
        ];
        for params in thermal_cases {
            assert!(thermal(&mut map, &params).is_err(), "{params:?}");
        }
        let hydraulic_cases = [
            HydraulicParams {
                rain: f32::NAN,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                solubility: 2.0,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                evaporation: -0.5,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                capacity: f32::INFINITY,
                ..HydraulicParams::default()
            },
            HydraulicParams {
                steep_hardness: 1.1,
                ..HydraulicParams::default()
            },
        ];
        for params in hydraulic_cases {
            assert!(hydraulic(&mut map, &params).is_err(), "{params:?}");
        }
    }
}
