//! Unit vertex normals of a heightmap surface, y up.
//!
//! Convention: sample (x, y) of the map sits at world position
//! `(x · spacing, height, y · spacing)`, so map columns run along +x, map rows
//! along +z and heights along +y. The surface `Y = h(X, Z)` has the normal
//! `normalize(−∂h/∂X, 1, −∂h/∂Z)`, with the derivatives taken by central
//! differences `(h[i+1] − h[i−1]) / (2 · spacing)` inside the map and
//! one-sided differences `(h[1] − h[0]) / spacing` (and its mirror) on the
//! border. [`normals_xz`] spaces columns and rows apart differently: a
//! non-square map drawn on a square, as the renderer's grid draws it.
use super::error::TerrainError;
use super::heightmap::Heightmap;

/// The unit normal of every sample, row-major like [`Heightmap::cells`].
pub fn normals(map: &Heightmap, horizontal_spacing: f32) -> Result<Vec<[f32; 3]>, TerrainError> {
    let mut out = Vec::new();
    normals_into(map, horizontal_spacing, &mut out)?;
    Ok(out)
}

/// [`normals`] with columns `spacing_x` apart along x and rows `spacing_z`
/// apart along z.
pub fn normals_xz(
    map: &Heightmap,
    spacing_x: f32,
    spacing_z: f32,
) -> Result<Vec<[f32; 3]>, TerrainError> {
    let mut out = Vec::new();
    fill_normals(map, spacing_x, spacing_z, &mut out)?;
    Ok(out)
}

/// [`normals`] into a caller's buffer (resized to the cell count), so a frame
/// loop can reuse one allocation.
pub fn normals_into(
    map: &Heightmap,
    horizontal_spacing: f32,
    out: &mut Vec<[f32; 3]>,
) -> Result<(), TerrainError> {
    fill_normals(map, horizontal_spacing, horizontal_spacing, out)
}

/// The normals of samples `spacing_x` apart along x and `spacing_z` along z, into `out`.
fn fill_normals(
    map: &Heightmap,
    spacing_x: f32,
    spacing_z: f32,
    out: &mut Vec<[f32; 3]>,
) -> Result<(), TerrainError> {
    for (name, spacing) in [("spacing_x", spacing_x), ("spacing_z", spacing_z)] {
        if !(spacing.is_finite() && spacing > 0.0) {
            return Err(TerrainError::out_of_range(
                name,
                spacing,
                "a finite number > 0",
            ));
        }
    }
    let width = map.width();
    let height = map.height();
    let cells = map.cells();
    out.clear();
    out.reserve(cells.len());
    for y in 0..height {
        let (up, down) = neighbours(y, height);
        let dz = (down - up) as f32 * spacing_z;
        for x in 0..width {
            let (left, right) = neighbours(x, width);
            let dx = (right - left) as f32 * spacing_x;
            let slope_x = (cells[y * width + right] - cells[y * width + left]) / dx;
            let slope_z = (cells[down * width + x] - cells[up * width + x]) / dz;
            let length = (slope_x * slope_x + 1.0 + slope_z * slope_z).sqrt();
            out.push([-slope_x / length, 1.0 / length, -slope_z / length]);
        }
    }
    Ok(())
}

/// The lower and upper sample used for the difference at `i`: both
/// neighbours inside, the sample itself and its one neighbour on a border.
fn neighbours(i: usize, len: usize) -> (usize, usize) {
    (i.saturating_sub(1), (i + 1).min(len - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_map_points_straight_up() {
        let map = Heightmap::from_cells(4, 3, vec![1.5; 12]).unwrap();
        let n = normals(&map, 0.25).unwrap();
        assert_eq!(n.len(), 12);
        assert!(n.iter().all(|&v| v == [0.0, 1.0, 0.0]));
    }

    #[test]
    fn a_ramp_along_x_tilts_the_normal_against_the_slope() {
        // h = 0.5 x with spacing 2: slope 0.25, normal ∝ (−0.25, 1, 0),
        // at the borders (one-sided) as well as inside.
        let cells = (0..3)
            .flat_map(|_| (0..5).map(|x| 0.5 * x as f32))
            .collect();
        let map = Heightmap::from_cells(5, 3, cells).unwrap();
        let n = normals(&map, 2.0).unwrap();
        let length = (1.0f32 + 0.0625).sqrt();
        for v in n {
            assert!((v[0] + 0.25 / length).abs() < 1e-6, "{v:?}");
            assert!((v[1] - 1.0 / length).abs() < 1e-6, "{v:?}");
            assert_eq!(v[2], 0.0);
        }
    }

    #[test]
    fn a_ramp_along_rows_tilts_toward_minus_z() {
        // h = y (rows run along +z), spacing 1: normal ∝ (0, 1, −1).
        let cells = (0..4).flat_map(|y| [y as f32; 3]).collect();
        let map = Heightmap::from_cells(3, 4, cells).unwrap();
        let n = normals(&map, 1.0).unwrap();
        let half_root = 0.5f32.sqrt();
        for v in n {
            assert_eq!(v[0], 0.0);
            assert!((v[1] - half_root).abs() < 1e-6 && (v[2] + half_root).abs() < 1e-6);
        }
    }

    #[test]
    fn normals_have_unit_length() {
        let map = Heightmap::from_cells(3, 3, vec![0.0, 3.0, -1.0, 2.0, 7.0, 0.5, -4.0, 1.0, 2.0])
            .unwrap();
        for v in normals(&map, 0.7).unwrap() {
            let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            assert!((length - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn spacing_must_be_positive() {
        let map = Heightmap::flat(2, 2).unwrap();
        assert!(normals(&map, 0.0).is_err());
        assert!(normals(&map, f32::NAN).is_err());
        assert!(normals_xz(&map, 1.0, -1.0).is_err());
    }

    #[test]
    fn columns_and_rows_may_be_spaced_apart_differently() {
        // h = x + y: slope 1 / 0.5 = 2 along x and 1 / 0.25 = 4 along z,
        // so the normal is ∝ (−2, 1, −4) everywhere.
        let cells = (0..3)
            .flat_map(|y| (0..4).map(move |x| (x + y) as f32))
            .collect();
        let map = Heightmap::from_cells(4, 3, cells).unwrap();
        let length = 21.0f32.sqrt();
        for v in normals_xz(&map, 0.5, 0.25).unwrap() {
            for (got, want) in v.into_iter().zip([-2.0, 1.0, -4.0]) {
                assert!((got - want / length).abs() < 1e-6, "{v:?}");
            }
        }
        // Equal spacings give exactly what `normals` gives.
        assert_eq!(
            normals_xz(&map, 0.7, 0.7).unwrap(),
            normals(&map, 0.7).unwrap()
        );
    }
}
