//! Seamless tiles (after "Matching Edge Altitudes of Different Fractal Squares"): faults fixed in world coordinates, seeded from world position.
//!
//! The world is cut into square cells; each cell's faults come from a random
//! stream seeded by the world seed and the cell's coordinates alone. A fault
//! is local: a line through a centre in its cell, raising the right side and
//! lowering the left by d·g(ρ), g(ρ) = (1 − ρ²)², ρ = distance to the centre
//! over the fault's radius, so it fades to nothing at its radius. A sample's
//! height is therefore a function of its world position only, and the sum is
//! taken in fixed point, so tiles made independently and in any order agree
//! bit for bit where they meet.
use super::error::TerrainError;
use super::fixed::{to_f32, to_fixed};
use super::heightmap::Heightmap;
use super::heightmap::check_size;
use super::rng::TerrainRng;

/// A seeded world of local faults.
#[derive(Debug, Clone, PartialEq)]
pub struct TileWorld {
    /// The world seed.
    pub seed: u64,
    /// Side of a world cell, in samples.
    pub cell: usize,
    /// Faults drawn in each cell.
    pub faults_per_cell: usize,
    /// Radius of each fault's influence, in samples.
    pub radius: f64,
    /// Largest displacement of a fault, in terrain units.
    pub displacement: f64,
}

impl TileWorld {
    /// A world with default cell size, fault count and radius.
    pub fn new(seed: u64, displacement: f64) -> Self {
        TileWorld {
            seed,
            cell: 64,
            faults_per_cell: 6,
            radius: 96.0,
            displacement,
        }
    }

    pub fn validate(&self) -> Result<(), TerrainError> {
        if !(1..=1 << 16).contains(&self.cell) {
            return Err(TerrainError::out_of_range(
                "tile cell",
                self.cell,
                "1 to 65536 samples",
            ));
        }
        if self.faults_per_cell > 1024 {
            return Err(TerrainError::out_of_range(
                "faults per cell",
                self.faults_per_cell,
                "at most 1024",
            ));
        }
        if !(self.radius.is_finite() && self.radius > 0.0 && self.radius <= 1e6) {
            return Err(TerrainError::out_of_range(
                "fault radius",
                self.radius,
                "0 to 1e6 samples",
            ));
        }
        if !(self.displacement.is_finite() && self.displacement.abs() <= 1e6) {
            return Err(TerrainError::out_of_range(
                "displacement",
                self.displacement,
                "a finite number of magnitude at most 1e6",
            ));
        }
        Ok(())
    }

    /// The world sample at the top-left of tile (i, j) of `width` × `height`:
    /// neighbouring tiles share their edge samples.
    pub fn tile_origin(i: i64, j: i64, width: usize, height: usize) -> [i64; 2] {
        [i * (width as i64 - 1), j * (height as i64 - 1)]
    }

    /// The faults of world cell (cx, cy).
    pub fn cell_faults(&self, cx: i64, cy: i64) -> Vec<LocalFault> {
        let mut rng = TerrainRng::at(self.seed, cx, cy);
        let size = self.cell as f64;
        (0..self.faults_per_cell)
            .map(|_| {
                let centre = [
                    (cx as f64 + rng.unit()) * size,
                    (cy as f64 + rng.unit()) * size,
                ];
                let angle = rng.range(0.0, std::f64::consts::TAU);
                LocalFault {
                    centre,
                    direction: [libm::cos(angle), libm::sin(angle)],
                    displacement: self.displacement * rng.range(0.25, 1.0),
                    radius: self.radius,
                }
            })
            .collect()
    }

    /// Every fault that can reach the world rectangle [x0, x1] × [y0, y1].
    pub fn faults_near(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> Vec<LocalFault> {
        let reach = self.radius.ceil() as i64 + 1;
        let cell = self.cell as i64;
        let mut faults = Vec::new();
        for cy in (y0 - reach).div_euclid(cell)..=(y1 + reach).div_euclid(cell) {
            for cx in (x0 - reach).div_euclid(cell)..=(x1 + reach).div_euclid(cell) {
                faults.extend(self.cell_faults(cx, cy));
            }
        }
        faults
    }

    /// Tile (i, j): `width` × `height` samples starting at [`TileWorld::tile_origin`].
    pub fn tile(
        &self,
        i: i64,
        j: i64,
        width: usize,
        height: usize,
    ) -> Result<Heightmap, TerrainError> {
        self.validate()?;
        check_size(width, height)?;
        let [x0, y0] = Self::tile_origin(i, j, width, height);
        let faults = self.faults_near(x0, y0, x0 + width as i64 - 1, y0 + height as i64 - 1);
        let mut acc = vec![0i64; width * height];
        for fault in &faults {
            fault.add_to(&mut acc, [x0, y0], width, height);
        }
        Heightmap::from_cells(width, height, acc.into_iter().map(to_f32).collect())
    }

    /// A fixed height range for exporting any tile of this world: ±4 standard
    /// deviations of the sum of overlapping faults. Tiles must never be
    /// normalised one by one, or their shared edges would disagree.
    pub fn export_range(&self) -> (f32, f32) {
        let area = std::f64::consts::PI * self.radius * self.radius;
        let overlap = self.faults_per_cell as f64 * area / (self.cell * self.cell) as f64;
        // E[u²] for u uniform in [0.25, 1] is 0.4375; E[g²] over the disc is 1/5.
        let sigma = self.displacement.abs() * (overlap * 0.4375 / 5.0).sqrt();
        let half = (4.0 * sigma).max(f64::MIN_POSITIVE) as f32;
        (-half, half)
    }
}

/// One local fault of a tile world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalFault {
    /// Centre, in world samples.
    pub centre: [f64; 2],
    /// Unit direction of the line through the centre.
    pub direction: [f64; 2],
    /// Displacement at the centre, in terrain units.
    pub displacement: f64,
    /// Radius of influence, in samples.
    pub radius: f64,
}

impl LocalFault {
    /// The fixed-point offset at world sample (x, y): the one per-sample rule.
    pub fn offset_at(&self, x: i64, y: i64) -> i64 {
        let (dx, dy) = (x as f64 - self.centre[0], y as f64 - self.centre[1]);
        let q = (dx * dx + dy * dy) / (self.radius * self.radius);
        if q >= 1.0 {
            return 0;
        }
        let g = (1.0 - q) * (1.0 - q);
        let right = dx * self.direction[1] - self.direction[0] * dy > 0.0;
        to_fixed(if right {
            self.displacement * g
        } else {
            -self.displacement * g
        })
    }

    /// Adds the fault to the rows of a tile whose top-left world sample is
    /// `origin`, visiting only the samples inside its disc.
    pub fn add_to(&self, acc: &mut [i64], origin: [i64; 2], width: usize, height: usize) {
        let r = self.radius;
        let cy = self.centre[1] - origin[1] as f64;
        let y_lo = (cy - r - 1.0).floor().clamp(0.0, height as f64) as usize;
        let y_hi = (cy + r + 2.0).ceil().clamp(0.0, height as f64) as usize;
        let cx = self.centre[0] - origin[0] as f64;
        for y in y_lo..y_hi {
            let dy = y as f64 - cy;
            let half = libm::sqrt((r * r - dy * dy).max(0.0));
            // One sample of margin for rounding: outside the disc the rule gives 0 anyway.
            let x_lo = (cx - half - 1.0).floor().clamp(0.0, width as f64) as usize;
            let x_hi = (cx + half + 2.0).ceil().clamp(0.0, width as f64) as usize;
            let row = &mut acc[y * width..(y + 1) * width];
            let wy = origin[1] + y as i64;
            for (x, cell) in row.iter_mut().enumerate().take(x_hi).skip(x_lo) {
                *cell += self.offset_at(origin[0] + x as i64, wy);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> TileWorld {
        TileWorld {
            cell: 16,
            faults_per_cell: 3,
            radius: 20.0,
            ..TileWorld::new(77, 1.0)
        }
    }

    #[test]
    fn a_tile_equals_the_per_sample_reference() {
        let world = world();
        let (w, h) = (33, 21);
        let tile = world.tile(-1, 2, w, h).unwrap();
        let [x0, y0] = TileWorld::tile_origin(-1, 2, w, h);
        let faults = world.faults_near(x0, y0, x0 + w as i64 - 1, y0 + h as i64 - 1);
        for y in 0..h {
            for x in 0..w {
                let sum: i64 = faults
                    .iter()
                    .map(|f| f.offset_at(x0 + x as i64, y0 + y as i64))
                    .sum();
                assert_eq!(
                    tile.get(x, y).to_bits(),
                    to_f32(sum).to_bits(),
                    "({x}, {y})"
                );
            }
        }
    }

    #[test]
    fn neighbouring_tiles_made_in_any_order_share_edges_exactly() {
        let world = world();
        let (w, h) = (25, 19);
        let order_a: Vec<Heightmap> = [(0, 0), (1, 0), (0, 1), (1, 1)]
            .iter()
            .map(|&(i, j)| world.tile(i, j, w, h).unwrap())
            .collect();
        let mut order_b: Vec<Heightmap> = [(1, 1), (0, 1), (1, 0), (0, 0)]
            .iter()
            .map(|&(i, j)| world.tile(i, j, w, h).unwrap())
            .collect();
        order_b.reverse();
        assert_eq!(order_a, order_b);
        let [t00, t10, t01, t11] = [&order_a[0], &order_a[1], &order_a[2], &order_a[3]];
        for y in 0..h {
            assert_eq!(t00.get(w - 1, y).to_bits(), t10.get(0, y).to_bits());
            assert_eq!(t01.get(w - 1, y).to_bits(), t11.get(0, y).to_bits());
        }
        for x in 0..w {
            assert_eq!(t00.get(x, h - 1).to_bits(), t01.get(x, 0).to_bits());
        }
        assert_eq!(t00.get(w - 1, h - 1).to_bits(), t11.get(0, 0).to_bits());
        assert!(t00.min_max().1 > t00.min_max().0, "the tile has relief");
    }

    #[test]
    fn four_tiles_tile_one_large_tile() {
        let world = world();
        let (w, h) = (17, 13);
        let big = world.tile(0, 0, 2 * w - 1, 2 * h - 1).unwrap();
        for (i, j) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let tile = world.tile(i, j, w, h).unwrap();
            for y in 0..h {
                for x in 0..w {
                    let (bx, by) = (i as usize * (w - 1) + x, j as usize * (h - 1) + y);
                    assert_eq!(tile.get(x, y).to_bits(), big.get(bx, by).to_bits());
                }
            }
        }
    }

    #[test]
    fn the_export_range_covers_typical_tiles() {
        let world = TileWorld::new(5, 1.0);
        let (lo, hi) = world.export_range();
        let tile = world.tile(3, -2, 129, 129).unwrap();
        let (min, max) = tile.min_max();
        assert!(lo < min && max < hi, "{lo}..{hi} vs {min}..{max}");
    }
}
