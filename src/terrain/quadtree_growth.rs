//! One edge-matched quadtree tile ("Matching Edge Altitudes of Different Fractal Squares") grown live: a level a step, each level's tile shown on the map by bilinear interpolation until the last, which is the tile itself (cropped to the map, heights scaled).
//!
//! The tile is square (i, j) of a [`QuadtreeWorld`], so the landscape a
//! recipe grows is one square of an endless world whose neighbours, built
//! with `generate --tile I,J --tile-method quadtree`, meet it exactly.
use super::diamond_square::grid_side;
use super::error::TerrainError;
use super::heightmap::{Heightmap, check_size};
use super::quadtree::{MAX_LEVEL, QuadtreeWorld};
use super::sliced::{Sliced, assert_map_size};

/// What a recipe asks of a quadtree tile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuadtreeParams {
    /// The roughness `a` of "Matching Edge Altitudes": level l's offsets are bounded by 2^(−a·l), 0 … 4.
    pub roughness: f32,
    /// Terrain units per unit of the world's heights (its corners lie within ±1).
    pub amplitude: f32,
    /// Which square of the world.
    pub tile: [i64; 2],
}

impl QuadtreeParams {
    /// One error naming the value out of range, if any.
    pub fn validate(&self) -> Result<(), TerrainError> {
        QuadtreeWorld::new(0, self.roughness)?;
        if !(self.amplitude.is_finite() && self.amplitude.abs() <= 1e3) {
            return Err(TerrainError::out_of_range(
                "quadtree amplitude",
                self.amplitude,
                "a finite number of magnitude at most 1000",
            ));
        }
        Ok(())
    }
}

/// The job: a tile's levels, from its corners (level 0), one a step.
#[derive(Clone, Debug)]
pub struct QuadtreeGrowth {
    width: usize,
    height: usize,
    world: QuadtreeWorld,
    params: QuadtreeParams,
    /// The deepest level: the tile's side, 2^levels + 1, covers the map.
    levels: u32,
    done: u32,
}

impl QuadtreeGrowth {
    /// The tile `params` names, from `seed`, on a `width`×`height` map.
    pub fn new(
        width: usize,
        height: usize,
        params: &QuadtreeParams,
        seed: u64,
    ) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        params.validate()?;
        let side = grid_side(width.max(height));
        let levels = (side - 1).trailing_zeros();
        if levels > MAX_LEVEL {
            return Err(TerrainError::out_of_range(
                "quadtree map side",
                side,
                "at most 4097 samples",
            ));
        }
        Ok(QuadtreeGrowth {
            width,
            height,
            world: QuadtreeWorld::new(seed, params.roughness)?,
            params: *params,
            levels,
            done: 0,
        })
    }
}

impl Sliced for QuadtreeGrowth {
    fn slices(&self) -> usize {
        self.levels as usize + 1
    }

    fn slices_done(&self) -> usize {
        self.done as usize
    }

    fn step(&mut self, map: &mut Heightmap) {
        if self.done > self.levels {
            return;
        }
        assert_map_size(map, self.width, self.height);
        let level = self.done;
        self.done += 1;
        let [i, j] = self.params.tile;
        let tile = self
            .world
            .tile(i, j, level)
            .expect("a level and square checked when the job was made");
        let amplitude = self.params.amplitude;
        let side = 1usize << self.levels;
        let cells = map.cells_mut();
        if level == self.levels {
            for (y, row) in cells.chunks_exact_mut(self.width).enumerate() {
                for (x, cell) in row.iter_mut().enumerate() {
                    *cell = tile.get(x, y) * amplitude;
                }
            }
            return;
        }
        // A coarser level: its samples spread over the map, in between interpolated.
        let per_sample = (1usize << level) as f32 / side as f32;
        let last = tile.width() - 1;
        for (y, row) in cells.chunks_exact_mut(self.width).enumerate() {
            let ty = y as f32 * per_sample;
            let y0 = (ty as usize).min(last);
            let (y1, fy) = ((y0 + 1).min(last), ty - y0 as f32);
            for (x, cell) in row.iter_mut().enumerate() {
                let tx = x as f32 * per_sample;
                let x0 = (tx as usize).min(last);
                let (x1, fx) = ((x0 + 1).min(last), tx - x0 as f32);
                let top = tile.get(x0, y0) * (1.0 - fx) + tile.get(x1, y0) * fx;
                let bottom = tile.get(x0, y1) * (1.0 - fx) + tile.get(x1, y1) * fx;
                *cell = (top * (1.0 - fy) + bottom * fy) * amplitude;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> QuadtreeParams {
        QuadtreeParams {
            roughness: 1.0,
            amplitude: 0.05,
            tile: [0, 0],
        }
    }

    #[test]
    fn the_last_level_is_the_worlds_tile_scaled_and_cropped() {
        for (width, height) in [(65, 65), (50, 33), (2, 2)] {
            let mut map = Heightmap::flat(width, height).unwrap();
            let mut job = QuadtreeGrowth::new(width, height, &params(), 9).unwrap();
            job.run_to_end(&mut map);
            let side = grid_side(width.max(height));
            let tile = QuadtreeWorld::new(9, 1.0)
                .unwrap()
                .tile(0, 0, (side - 1).trailing_zeros())
                .unwrap();
            for y in 0..height {
                for x in 0..width {
                    assert_eq!(
                        map.get(x, y).to_bits(),
                        (tile.get(x, y) * 0.05).to_bits(),
                        "({x}, {y}) on {width}×{height}"
                    );
                }
            }
        }
    }

    #[test]
    fn each_level_is_a_step_and_shows_the_tile_so_far() {
        let mut map = Heightmap::flat(65, 65).unwrap();
        let mut job = QuadtreeGrowth::new(65, 65, &params(), 2).unwrap();
        assert_eq!(job.slices(), 7, "levels 0 to 6");
        job.step(&mut map);
        job.step(&mut map);
        // Level 1: the tile's 3×3 samples land on every 32nd sample.
        let tile = QuadtreeWorld::new(2, 1.0).unwrap().tile(0, 0, 1).unwrap();
        for (x, y) in [(0, 0), (32, 0), (64, 32), (64, 64)] {
            assert_eq!(map.get(x, y), tile.get(x / 32, y / 32) * 0.05);
        }
        let (low, high) = map.min_max();
        assert!(high > low, "a coarse level is not flat");
    }

    #[test]
    fn neighbouring_tiles_grown_live_share_their_edge() {
        let grow = |tile: [i64; 2]| {
            let mut map = Heightmap::flat(33, 33).unwrap();
            let params = QuadtreeParams { tile, ..params() };
            QuadtreeGrowth::new(33, 33, &params, 4)
                .unwrap()
                .run_to_end(&mut map);
            map
        };
        let (left, right) = (grow([0, 0]), grow([1, 0]));
        for y in 0..33 {
            assert_eq!(
                left.get(32, y).to_bits(),
                right.get(0, y).to_bits(),
                "row {y}"
            );
        }
    }

    #[test]
    fn bad_parameters_are_one_error_naming_the_value() {
        let rough = QuadtreeParams {
            roughness: 5.0,
            ..params()
        };
        assert!(QuadtreeGrowth::new(33, 33, &rough, 1).is_err());
        let loud = QuadtreeParams {
            amplitude: f32::NAN,
            ..params()
        };
        let error = QuadtreeGrowth::new(33, 33, &loud, 1)
            .unwrap_err()
            .to_string();
        assert!(error.contains("quadtree amplitude"), "{error}");
    }
}
