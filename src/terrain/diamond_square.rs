//! Diamond-square terrain (Fournier et al. 1982, as the seed thesis §3.1 describes it), for any W×H ≥ 2×2.
//!
//! The algorithm needs a square grid of side 2^n + 1. We run it on the
//! smallest such grid whose side covers `max(width, height)` and keep its
//! top-left `width × height` corner. Following the thesis, the four grid
//! corners start at `roughness`, the first level's random offsets are drawn
//! uniformly from `[−roughness, roughness)`, and the offset range halves at
//! every level. Each level does all its diamond steps (square centres get
//! the mean of their 4 corners plus an offset), then all its square steps
//! (edge midpoints get the mean of their 2–4 existing diamond neighbours
//! plus an offset), both in row-major order; offsets come from one
//! [`TerrainRng`] seeded with `seed`, so a seed fixes every bit.
use super::heightmap::check_size;
use super::rng::TerrainRng;
use super::{Heightmap, TerrainError};

/// A diamond-square heightmap of `width × height` samples.
///
/// Heights stay within `±3 · roughness` (corners at `roughness`, offsets
/// summing to less than `2 · roughness`). `roughness` must be finite and ≥ 0.
pub fn diamond_square(
    width: usize,
    height: usize,
    roughness: f32,
    seed: u64,
) -> Result<Heightmap, TerrainError> {
    check_size(width, height)?;
    if !(roughness.is_finite() && roughness >= 0.0) {
        return Err(TerrainError::out_of_range(
            "roughness",
            roughness,
            "a finite number >= 0",
        ));
    }
    let side = grid_side(width.max(height));
    check_size(side, side)?;
    let grid = full_grid(side, roughness, seed);
    let mut cells = Vec::with_capacity(width * height);
    for row in grid.chunks_exact(side).take(height) {
        cells.extend_from_slice(&row[..width]);
    }
    Heightmap::from_cells(width, height, cells)
}

/// The smallest 2^n + 1 that is at least `min_side` (which is ≥ 2).
fn grid_side(min_side: usize) -> usize {
    let mut side = 2;
    while side < min_side {
        side = 2 * side - 1;
    }
    side
}

/// Runs diamond-square on a `side × side` grid, `side` = 2^n + 1.
fn full_grid(side: usize, roughness: f32, seed: u64) -> Vec<f32> {
    let mut rng = TerrainRng::new(seed);
    let mut grid = vec![0.0f32; side * side];
    let last = side - 1;
    for (x, y) in [(0, 0), (last, 0), (0, last), (last, last)] {
        grid[y * side + x] = roughness;
    }
    let mut amplitude = f64::from(roughness);
    let mut step = last;
    while step > 1 {
        let half = step / 2;
        for y in (0..last).step_by(step) {
            for x in (0..last).step_by(step) {
                let corners = grid[y * side + x]
                    + grid[y * side + x + step]
                    + grid[(y + step) * side + x]
                    + grid[(y + step) * side + x + step];
                let offset = random_offset(&mut rng, amplitude);
                grid[(y + half) * side + x + half] = corners / 4.0 + offset;
            }
        }
        for y in (0..side).step_by(half) {
            let first_x = if (y / half).is_multiple_of(2) {
                half
            } else {
                0
            };
            for x in (first_x..side).step_by(step) {
                let mut sum = 0.0f32;
                let mut count = 0u8;
                if x >= half {
                    sum += grid[y * side + x - half];
                    count += 1;
                }
                if x + half < side {
                    sum += grid[y * side + x + half];
                    count += 1;
                }
                if y >= half {
                    sum += grid[(y - half) * side + x];
                    count += 1;
                }
                if y + half < side {
                    sum += grid[(y + half) * side + x];
                    count += 1;
                }
                let offset = random_offset(&mut rng, amplitude);
                grid[y * side + x] = sum / f32::from(count) + offset;
            }
        }
        amplitude /= 2.0;
        step = half;
    }
    grid
}

/// Uniform in `[−amplitude, amplitude)`, the thesis' `roughness · (randomFloat(2) − 1)`.
fn random_offset(rng: &mut TerrainRng, amplitude: f64) -> f32 {
    (amplitude * (rng.range(0.0, 2.0) - 1.0)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(map: &Heightmap) -> Vec<u32> {
        map.cells().iter().map(|h| h.to_bits()).collect()
    }

    #[test]
    fn the_same_seed_gives_the_same_bits() {
        let a = diamond_square(33, 20, 1.0, 9).unwrap();
        let b = diamond_square(33, 20, 1.0, 9).unwrap();
        assert_eq!(bits(&a), bits(&b));
    }

    #[test]
    fn different_seeds_give_different_maps() {
        let a = diamond_square(17, 17, 1.0, 1).unwrap();
        let b = diamond_square(17, 17, 1.0, 2).unwrap();
        assert_ne!(bits(&a), bits(&b));
    }

    #[test]
    fn full_grid_corners_start_at_the_roughness() {
        let map = diamond_square(9, 9, 0.75, 3).unwrap();
        for (x, y) in [(0, 0), (8, 0), (0, 8), (8, 8)] {
            assert_eq!(map.get(x, y), 0.75);
        }
        assert_ne!(map.get(4, 4), 0.75, "the centre got a random offset");
    }

    #[test]
    fn a_2x2_map_is_just_the_corners() {
        let map = diamond_square(2, 2, 0.5, 4).unwrap();
        assert_eq!(map.cells(), &[0.5; 4]);
    }

    #[test]
    fn a_non_square_map_is_the_top_left_of_the_covering_grid() {
        // max(7, 3) = 7 is covered by the 9x9 grid, the same grid a 9x9 map uses.
        let crop = diamond_square(7, 3, 1.0, 5).unwrap();
        let full = diamond_square(9, 9, 1.0, 5).unwrap();
        assert_eq!((crop.width(), crop.height()), (7, 3));
        for y in 0..3 {
            assert_eq!(crop.row(y), &full.row(y)[..7]);
        }
    }

    #[test]
    fn heights_stay_within_three_times_the_roughness() {
        let map = diamond_square(65, 40, 2.0, 6).unwrap();
        let (lo, hi) = map.min_max();
        assert!(lo >= -6.0 && hi <= 6.0, "{lo}..{hi}");
        assert!(hi - lo > 0.5, "the map has relief");
    }

    #[test]
    fn zero_roughness_is_flat() {
        let map = diamond_square(5, 5, 0.0, 7).unwrap();
        assert!(map.cells().iter().all(|&h| h == 0.0));
    }

    #[test]
    fn bad_sizes_and_roughness_are_errors() {
        assert!(diamond_square(1, 5, 1.0, 0).is_err());
        assert!(diamond_square(5, 5, -1.0, 0).is_err());
        assert!(diamond_square(5, 5, f32::NAN, 0).is_err());
        assert!(matches!(
            diamond_square(16_385, 2, 1.0, 0),
            Err(TerrainError::TooLarge { .. })
        ));
    }
}
