//! `Heightmap`: a W×H grid of f32 heights, row-major, any size from 2×2 up.
use super::error::TerrainError;

/// Largest number of cells accepted, so that index arithmetic never overflows
/// and a typo in a size cannot ask for terabytes.
pub const MAX_CELLS: usize = 1 << 28;

/// A rectangular grid of heights; `cells[y * width + x]` is the sample at (x, y).
#[derive(Debug, Clone, PartialEq)]
pub struct Heightmap {
    /// Samples along x (columns).
    width: usize,
    /// Samples along y (rows).
    height: usize,
    /// Row-major heights.
    cells: Vec<f32>,
}

impl Heightmap {
    /// A flat map of zeros.
    pub fn flat(width: usize, height: usize) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        Ok(Heightmap {
            width,
            height,
            cells: vec![0.0; width * height],
        })
    }

    /// A map over the given row-major cells.
    pub fn from_cells(width: usize, height: usize, cells: Vec<f32>) -> Result<Self, TerrainError> {
        check_size(width, height)?;
        if cells.len() != width * height {
            return Err(TerrainError::WrongCellCount {
                width,
                height,
                expected: width * height,
                actual: cells.len(),
            });
        }
        Ok(Heightmap {
            width,
            height,
            cells,
        })
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Row-major heights, `width * height` of them.
    pub fn cells(&self) -> &[f32] {
        &self.cells
    }

    pub fn cells_mut(&mut self) -> &mut [f32] {
        &mut self.cells
    }

    /// The index of (x, y) in [`Heightmap::cells`].
    pub fn index(&self, x: usize, y: usize) -> usize {
        debug_assert!(x < self.width && y < self.height);
        y * self.width + x
    }

    pub fn get(&self, x: usize, y: usize) -> f32 {
        self.cells[self.index(x, y)]
    }

    pub fn set(&mut self, x: usize, y: usize, value: f32) {
        let i = self.index(x, y);
        self.cells[i] = value;
    }

    /// One row of heights.
    pub fn row(&self, y: usize) -> &[f32] {
        &self.cells[y * self.width..(y + 1) * self.width]
    }

    /// The smallest and largest height.
    pub fn min_max(&self) -> (f32, f32) {
        self.cells
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
                (lo.min(h), hi.max(h))
            })
    }

    /// Sets every height to zero, keeping the size.
    pub fn clear(&mut self) {
        self.cells.fill(0.0);
    }
}

/// Rejects sizes below 2×2 or above [`MAX_CELLS`].
pub fn check_size(width: usize, height: usize) -> Result<(), TerrainError> {
    if width < 2 || height < 2 {
        return Err(TerrainError::TooSmall { width, height });
    }
    match width.checked_mul(height) {
        Some(n) if n <= MAX_CELLS => Ok(()),
        _ => Err(TerrainError::TooLarge { width, height }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_a_side_below_two() {
        assert_eq!(
            Heightmap::flat(1, 5),
            Err(TerrainError::TooSmall {
                width: 1,
                height: 5
            })
        );
    }

    #[test]
    fn non_square_maps_index_row_major() {
        let mut map = Heightmap::flat(3, 2).unwrap();
        map.set(2, 1, 7.0);
        assert_eq!(map.cells()[5], 7.0);
        assert_eq!(map.row(1), &[0.0, 0.0, 7.0]);
    }

    #[test]
    fn from_cells_checks_the_count() {
        assert!(Heightmap::from_cells(2, 2, vec![0.0; 3]).is_err());
    }
}
