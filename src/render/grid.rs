//! The static terrain mesh: one vertex per heightmap sample, two triangles per cell.
use bytemuck::{Pod, Zeroable};

use super::error::RenderError;

/// Largest vertex count that 16-bit indices can address.
const MAX_U16_VERTICES: usize = 65_535;

/// One grid vertex; its height comes from the streamed heights buffer, read by
/// vertex index, so the mesh itself never changes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GridVertex {
    /// Model-space x and z in [-0.5, 0.5]: x along heightmap columns, z along rows.
    pub position: [f32; 2],
    /// Texture coordinates in [0, 1]: u along columns, v along rows.
    pub uv: [f32; 2],
}

/// Triangle-list indices, 16-bit while the vertices fit.
#[derive(Clone, Debug, PartialEq)]
pub enum GridIndices {
    /// For grids of at most 65 535 vertices.
    U16(Vec<u16>),
    /// For larger grids.
    U32(Vec<u32>),
}

impl GridIndices {
    /// How many indices there are.
    pub fn len(&self) -> usize {
        match self {
            GridIndices::U16(indices) => indices.len(),
            GridIndices::U32(indices) => indices.len(),
        }
    }

    /// Whether there are none (never for a valid grid).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The indices as bytes, for upload.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            GridIndices::U16(indices) => bytemuck::cast_slice(indices),
            GridIndices::U32(indices) => bytemuck::cast_slice(indices),
        }
    }
}

/// The mesh of a `width` × `height` heightmap.
#[derive(Clone, Debug)]
pub struct TerrainGrid {
    /// Samples per row (heightmap columns).
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Row-major vertices: vertex `row * width + col` shows height sample (col, row).
    pub vertices: Vec<GridVertex>,
    /// Two counter-clockwise (seen from +y) triangles per cell.
    pub indices: GridIndices,
}

impl TerrainGrid {
    /// The grid for a heightmap of `width` × `height` samples (both at least 2).
    pub fn new(width: u32, height: u32) -> Result<Self, RenderError> {
        if width < 2 || height < 2 {
            return Err(RenderError::InvalidOptions(format!(
                "a terrain grid needs at least 2×2 samples, got {width}×{height}"
            )));
        }
        let last_col = (width - 1) as f32;
        let last_row = (height - 1) as f32;
        let vertices = (0..height)
            .flat_map(|row| {
                (0..width).map(move |col| {
                    let u = col as f32 / last_col;
                    let v = row as f32 / last_row;
                    GridVertex {
                        position: [u - 0.5, v - 0.5],
                        uv: [u, v],
                    }
                })
            })
            .collect::<Vec<_>>();
        let corners = (0..height - 1).flat_map(|row| {
            (0..width - 1).flat_map(move |col| {
                let top_left = row * width + col;
                let top_right = top_left + 1;
                let bottom_left = top_left + width;
                let bottom_right = bottom_left + 1;
                [
                    top_left,
                    bottom_left,
                    top_right,
                    top_right,
                    bottom_left,
                    bottom_right,
                ]
            })
        });
        let indices = if vertices.len() > MAX_U16_VERTICES {
            GridIndices::U32(corners.collect())
        } else {
            GridIndices::U16(corners.map(|index| index as u16).collect())
        };
        Ok(TerrainGrid {
            width,
            height,
            vertices,
            indices,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(grid: &TerrainGrid, index: usize) -> [f32; 2] {
        grid.vertices[index].position
    }

    #[test]
    fn corners_span_the_unit_square_centred_on_the_origin() {
        let grid = TerrainGrid::new(5, 3).unwrap();
        assert_eq!(position(&grid, 0), [-0.5, -0.5]);
        assert_eq!(position(&grid, 4), [0.5, -0.5]);
        assert_eq!(position(&grid, 10), [-0.5, 0.5]);
        assert_eq!(position(&grid, 14), [0.5, 0.5]);
        assert_eq!(grid.vertices[14].uv, [1.0, 1.0]);
    }

    #[test]
    fn columns_run_along_x_and_rows_along_z() {
        let grid = TerrainGrid::new(5, 3).unwrap();
        // Vertex (col 1, row 2) is index 2 * 5 + 1.
        assert_eq!(position(&grid, 11), [-0.25, 0.5]);
    }

    #[test]
    fn every_cell_gets_two_triangles_facing_up() {
        let grid = TerrainGrid::new(4, 3).unwrap();
        let GridIndices::U16(indices) = &grid.indices else {
            panic!("a small grid uses 16-bit indices");
        };
        assert_eq!(indices.len(), 3 * 2 * 6);
        for triangle in indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|i| position(&grid, triangle[i] as usize));
            // y of (b − a) × (c − a) with vectors (x, 0, z): positive means
            // counter-clockwise seen from above.
            let up = (b[1] - a[1]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[1] - a[1]);
            assert!(up > 0.0, "triangle {triangle:?} faces down");
        }
    }

    #[test]
    fn indices_switch_to_32_bits_past_65535_vertices() {
        // 256 × 256 = 65 536 vertices: one too many for 16 bits.
        assert!(matches!(
            TerrainGrid::new(256, 256).unwrap().indices,
            GridIndices::U32(_)
        ));
        // 255 × 257 = 65 535 vertices still fit.
        assert!(matches!(
            TerrainGrid::new(255, 257).unwrap().indices,
            GridIndices::U16(_)
        ));
    }

    #[test]
    fn indices_reach_the_last_vertex_of_large_grids() {
        let grid = TerrainGrid::new(300, 260).unwrap();
        let GridIndices::U32(indices) = &grid.indices else {
            panic!("a large grid uses 32-bit indices");
        };
        assert_eq!(indices.iter().max(), Some(&(300 * 260 - 1)));
    }

    #[test]
    fn a_grid_needs_two_samples_each_way() {
        assert!(TerrainGrid::new(1, 5).is_err());
        assert!(TerrainGrid::new(5, 1).is_err());
    }
}
