//! The diorama's static mesh: the land grid, the base under it (the land's edge profile carried down to a flat underside) and the water, as one vertex and index buffer every backend draws.
//!
//! Heights never live in the mesh: each vertex names its heightmap sample
//! (its uv, as in [`TerrainGrid`]) and what it is ([`VertexKind`]), and
//! the vertex shader places it: land at the sample's height, a side's top
//! at the edge sample's height and its bottom at the base's underside, the
//! water at the sea level. So the mesh is made once per grid size and a
//! growing terrain only streams heights.
//!
//! The solid (land, sides, underside) comes first and is closed, every
//! triangle counter-clockwise seen from outside, so back faces can be
//! culled; the water follows, drawn after it with blending.
#[cfg(test)]
use std::collections::HashMap;
use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use super::error::RenderError;
use super::grid::{GridIndices, TerrainGrid};

/// What a vertex is; the shaders switch on these numbers (`kind` in
/// shaders/terrain.vert and src/render/d3d11/terrain.hlsl).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum VertexKind {
    /// The land: at its sample's height, normal from the neighbours.
    Land = 0,
    /// A side's top: at the edge sample's height, normal outward.
    SideTop = 1,
    /// A side's bottom: at the base's underside, normal outward.
    SideBottom = 2,
    /// The underside: flat at the base's bottom, normal down.
    Underside = 3,
    /// The water's surface: at the sea level, normal up.
    Water = 4,
    /// A water side's top: at the sea level or the edge's land, whichever is higher.
    WaterSideTop = 5,
    /// A water side's bottom: at the edge's land.
    WaterSideBottom = 6,
}

/// One vertex of the diorama.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct DioramaVertex {
    /// Model-space x and z in [-0.5, 0.5], as [`TerrainGrid`]'s.
    pub position: [f32; 2],
    /// The heightmap sample it stands on, as [`TerrainGrid`]'s uv.
    pub uv: [f32; 2],
    /// The horizontal outward normal (x, z) of a side; zero elsewhere.
    pub outward: [f32; 2],
    /// Its [`VertexKind`], as a float (a vertex attribute every API reads alike).
    pub kind: f32,
}

/// The mesh of a `width` × `height` heightmap's diorama.
#[derive(Clone, Debug)]
pub struct DioramaMesh {
    /// Land vertices first (row-major, as [`TerrainGrid`]'s), then the base's and the water's.
    pub vertices: Vec<DioramaVertex>,
    /// Triangle-list indices, 16-bit while the vertices fit.
    pub indices: GridIndices,
    /// The indices of the closed solid, drawn opaque with back faces culled.
    pub solid: Range<u32>,
    /// The indices of the water, drawn after the solid, blended.
    pub water: Range<u32>,
}

/// A side: the edge samples in order, and which way the side faces.
struct Side {
    /// (column, row) of each sample along it.
    samples: Vec<(u32, u32)>,
    /// Its outward normal (x, z).
    outward: [f32; 2],
}

impl DioramaMesh {
    /// The diorama of a `width` × `height` heightmap (both at least 2).
    pub fn new(width: u32, height: u32) -> Result<Self, RenderError> {
        let grid = TerrainGrid::new(width, height)?;
        let mut builder = Builder {
            width,
            height,
            vertices: grid
                .vertices
                .iter()
                .map(|vertex| DioramaVertex {
                    position: vertex.position,
                    uv: vertex.uv,
                    outward: [0.0; 2],
                    kind: VertexKind::Land as u32 as f32,
                })
                .collect(),
            indices: match &grid.indices {
                GridIndices::U16(indices) => indices.iter().map(|&i| u32::from(i)).collect(),
                GridIndices::U32(indices) => indices.clone(),
            },
        };
        let (last_col, last_row) = (width - 1, height - 1);
        // Around the edge, each side's samples in turn.
        let sides = [
            Side {
                samples: (0..width).map(|col| (col, 0)).collect(),
                outward: [0.0, -1.0],
            },
            Side {
                samples: (0..height).map(|row| (last_col, row)).collect(),
                outward: [1.0, 0.0],
            },
            Side {
                samples: (0..width).rev().map(|col| (col, last_row)).collect(),
                outward: [0.0, 1.0],
            },
            Side {
                samples: (0..height).rev().map(|row| (0, row)).collect(),
                outward: [-1.0, 0.0],
            },
        ];
        let mut perimeter = Vec::new();
        for side in &sides {
            builder.strip(side, VertexKind::SideTop, VertexKind::SideBottom);
            // Each side's last sample is the next one's first.
            perimeter.extend_from_slice(&side.samples[..side.samples.len() - 1]);
        }
        // The underside: a fan from its centre to every bottom sample of the
        // sides, so it meets them edge for edge.
        let centre = builder.vertex((0.5, 0.5), [0.0; 2], VertexKind::Underside);
        let rim: Vec<u32> = perimeter
            .iter()
            .map(|&sample| builder.sample_vertex(sample, [0.0; 2], VertexKind::Underside))
            .collect();
        for (index, &a) in rim.iter().enumerate() {
            let b = rim[(index + 1) % rim.len()];
            builder.facing([centre, a, b], [0.0, -1.0, 0.0]);
        }
        let solid_end = builder.indices.len() as u32;

        let corners = [(0, 0), (last_col, 0), (last_col, last_row), (0, last_row)]
            .map(|sample| builder.sample_vertex(sample, [0.0; 2], VertexKind::Water));
        builder.facing([corners[0], corners[1], corners[2]], [0.0, 1.0, 0.0]);
        builder.facing([corners[0], corners[2], corners[3]], [0.0, 1.0, 0.0]);
        for side in &sides {
            builder.strip(side, VertexKind::WaterSideTop, VertexKind::WaterSideBottom);
        }
        let end = builder.indices.len() as u32;

        let indices = if builder.vertices.len() > usize::from(u16::MAX) {
            GridIndices::U32(builder.indices)
        } else {
            GridIndices::U16(builder.indices.iter().map(|&i| i as u16).collect())
        };
        Ok(DioramaMesh {
            vertices: builder.vertices,
            indices,
            solid: 0..solid_end,
            water: solid_end..end,
        })
    }
}

/// The mesh as it is being built.
struct Builder {
    /// Heightmap samples per row.
    width: u32,
    /// Heightmap rows.
    height: u32,
    /// The vertices so far.
    vertices: Vec<DioramaVertex>,
    /// The indices so far.
    indices: Vec<u32>,
}

impl Builder {
    /// A new vertex at `uv` (position from it), returning its index.
    fn vertex(&mut self, (u, v): (f32, f32), outward: [f32; 2], kind: VertexKind) -> u32 {
        self.vertices.push(DioramaVertex {
            position: [u - 0.5, v - 0.5],
            uv: [u, v],
            outward,
            kind: kind as u32 as f32,
        });
        (self.vertices.len() - 1) as u32
    }

    /// A new vertex on sample (column, row).
    fn sample_vertex(
        &mut self,
        (col, row): (u32, u32),
        outward: [f32; 2],
        kind: VertexKind,
    ) -> u32 {
        let uv = (
            col as f32 / (self.width - 1) as f32,
            row as f32 / (self.height - 1) as f32,
        );
        self.vertex(uv, outward, kind)
    }

    /// Quads between `top` and `bottom` vertices of each pair of
    /// neighbouring samples along `side`, facing outward.
    fn strip(&mut self, side: &Side, top: VertexKind, bottom: VertexKind) {
        let columns: Vec<[u32; 2]> = side
            .samples
            .iter()
            .map(|&sample| {
                [
                    self.sample_vertex(sample, side.outward, top),
                    self.sample_vertex(sample, side.outward, bottom),
                ]
            })
            .collect();
        let outward = [side.outward[0], 0.0, side.outward[1]];
        for pair in columns.windows(2) {
            let ([a_top, a_bottom], [b_top, b_bottom]) = (pair[0], pair[1]);
            self.facing([a_top, a_bottom, b_top], outward);
            self.facing([b_top, a_bottom, b_bottom], outward);
        }
    }

    /// Adds `triangle`, wound counter-clockwise seen from `facing` (with
    /// tops one unit above bottoms, the shape every real height keeps).
    fn facing(&mut self, triangle: [u32; 3], facing: [f32; 3]) {
        let [a, b, c] = triangle.map(|index| nominal_position(&self.vertices[index as usize]));
        if dot(cross(sub(b, a), sub(c, a)), facing) < 0.0 {
            self.indices
                .extend_from_slice(&[triangle[0], triangle[2], triangle[1]]);
        } else {
            self.indices.extend_from_slice(&triangle);
        }
    }
}

/// Where a vertex is with the land and the sides' tops at 1 and the
/// bottoms at 0: enough to tell which way a triangle faces.
fn nominal_position(vertex: &DioramaVertex) -> [f32; 3] {
    let y = match vertex.kind as u32 {
        kind if kind == VertexKind::SideBottom as u32
            || kind == VertexKind::Underside as u32
            || kind == VertexKind::WaterSideBottom as u32 =>
        {
            0.0
        }
        _ => 1.0,
    };
    [vertex.position[0], y, vertex.position[1]]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
/// Each directed edge of the triangles in `range`, keyed by where its ends
/// are (uv and whether at the top or bottom), counted.
fn directed_edges(mesh: &DioramaMesh, range: Range<u32>) -> HashMap<(Key, Key), u32> {
    let indices: Vec<u32> = match &mesh.indices {
        GridIndices::U16(indices) => indices.iter().map(|&i| u32::from(i)).collect(),
        GridIndices::U32(indices) => indices.clone(),
    };
    let key = |index: u32| {
        let vertex = &mesh.vertices[index as usize];
        let top = nominal_position(vertex)[1] > 0.5;
        (
            (vertex.uv[0] * 1e5).round() as i64,
            (vertex.uv[1] * 1e5).round() as i64,
            top,
        )
    };
    let mut edges = HashMap::new();
    for triangle in indices[range.start as usize..range.end as usize].chunks(3) {
        for corner in 0..3 {
            let edge = (key(triangle[corner]), key(triangle[(corner + 1) % 3]));
            *edges.entry(edge).or_insert(0) += 1;
        }
    }
    edges
}

/// Where a vertex is, for [`directed_edges`].
#[cfg(test)]
type Key = (i64, i64, bool);

#[cfg(test)]
mod tests {
    use super::*;

    fn triangles(mesh: &DioramaMesh, range: Range<u32>) -> Vec<[DioramaVertex; 3]> {
        let indices: Vec<u32> = match &mesh.indices {
            GridIndices::U16(indices) => indices.iter().map(|&i| u32::from(i)).collect(),
            GridIndices::U32(indices) => indices.clone(),
        };
        indices[range.start as usize..range.end as usize]
            .chunks(3)
            .map(|t| [0, 1, 2].map(|i| mesh.vertices[t[i] as usize]))
            .collect()
    }

    /// The way a triangle faces at nominal heights.
    fn normal(triangle: &[DioramaVertex; 3]) -> [f32; 3] {
        let [a, b, c] = triangle.map(|vertex| nominal_position(&vertex));
        cross(sub(b, a), sub(c, a))
    }

    #[test]
    fn the_solid_is_closed_and_wound_one_way() {
        let mesh = DioramaMesh::new(5, 4).unwrap();
        let edges = directed_edges(&mesh, mesh.solid.clone());
        for (&(from, to), &count) in &edges {
            // Zero-length edges do not occur: every key pair differs.
            assert_ne!(from, to);
            assert_eq!(count, 1, "edge {from:?} -> {to:?} is used {count} times");
            assert_eq!(
                edges.get(&(to, from)),
                Some(&1),
                "edge {from:?} -> {to:?} has no twin: the solid has a hole or a flipped face"
            );
        }
    }

    #[test]
    fn land_faces_up_sides_out_and_the_underside_down() {
        let mesh = DioramaMesh::new(6, 3).unwrap();
        let mut seen = [0; 7];
        for triangle in triangles(&mesh, mesh.solid.clone()) {
            let kind = triangle[0].kind as usize;
            seen[kind] += 1;
            let n = normal(&triangle);
            match kind {
                0 => assert!(n[1] > 0.0, "land faces down"),
                1 | 2 => {
                    let outward = triangle[0].outward;
                    assert!(
                        n[0] * outward[0] + n[2] * outward[1] > 0.0,
                        "a side faces in"
                    );
                    assert_eq!(n[1], 0.0);
                }
                3 => assert!(n[1] < 0.0, "the underside faces up"),
                other => panic!("kind {other} in the solid"),
            }
        }
        // 5 × 2 cells × 2; sides of 5, 2, 5, 2 quads; a fan of 14 rim samples.
        assert_eq!(seen[0], 20);
        assert_eq!(seen[1] + seen[2], 2 * (5 + 2 + 5 + 2));
        assert_eq!(seen[3], 14);
    }

    #[test]
    fn the_water_is_a_top_facing_up_and_sides_facing_out() {
        let mesh = DioramaMesh::new(4, 4).unwrap();
        let water = triangles(&mesh, mesh.water.clone());
        assert_eq!(water.len(), 2 + 4 * 3 * 2);
        for triangle in &water {
            let n = normal(triangle);
            match triangle[0].kind as u32 {
                4 => assert!(n[1] > 0.0),
                5 | 6 => {
                    let outward = triangle[0].outward;
                    assert!(n[0] * outward[0] + n[2] * outward[1] > 0.0);
                }
                other => panic!("kind {other} in the water"),
            }
        }
        assert_eq!(mesh.water.end as usize, mesh.indices.len());
    }

    #[test]
    fn land_vertices_come_first_as_the_grids() {
        let mesh = DioramaMesh::new(7, 5).unwrap();
        let grid = TerrainGrid::new(7, 5).unwrap();
        for (vertex, grid_vertex) in mesh.vertices.iter().zip(&grid.vertices) {
            assert_eq!(
                (vertex.position, vertex.uv),
                (grid_vertex.position, grid_vertex.uv)
            );
            assert_eq!(vertex.kind, 0.0);
        }
    }

    #[test]
    fn large_grids_get_32_bit_indices() {
        assert!(matches!(
            DioramaMesh::new(256, 255).unwrap().indices,
            GridIndices::U32(_)
        ));
        assert!(matches!(
            DioramaMesh::new(97, 81).unwrap().indices,
            GridIndices::U16(_)
        ));
        assert!(DioramaMesh::new(1, 4).is_err());
    }
}
