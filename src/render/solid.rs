//! The diorama as one closed solid to print: the land on top, the base's sides carried down from the land's edge profile, a flat bottom; in millimetres, Z up, indexed and welded.
//!
//! The triangles are the diorama's own ([`DioramaMesh`]'s solid, the mesh
//! the app draws), so the print is the object seen on the table. That mesh
//! gives each side its own vertices (a side has its own flat normal on
//! screen); a print file wants one vertex per point, so the land's edge and
//! the sides' tops are welded onto the land's samples, and the sides'
//! bottoms onto the bottom's rim. Every edge is then shared by exactly two
//! triangles, wound counter-clockwise seen from outside.
//!
//! Where things are, for a W×H heightmap printed `size` mm across:
//! sample (column c, row r) at x = c/(W-1)·size, y = (1 - r/(H-1))·size
//! (row 0, the far edge on the table, at the back of the print bed),
//! z = (height - lowest)·exaggeration·size + base; the bottom at z = 0. A
//! terrain unit of height is the land's width, as on the table.
use std::collections::HashMap;
use std::ops::RangeInclusive;

use super::diorama::{DioramaMesh, VertexKind};
use super::grid::GridIndices;
use crate::terrain::Heightmap;

/// The print sizes taken, mm across: a 1 mm speck to a 2 m table.
pub const PRINT_SIZE_MM: RangeInclusive<f32> = 1.0..=2000.0;
/// The print size when none is given, mm: what a hobby printer's bed fits.
pub const DEFAULT_PRINT_SIZE_MM: f32 = 100.0;
/// The vertical exaggerations taken: above zero (the land flat or upside
/// down is no solid), at most a hundredfold.
pub const EXAGGERATION: RangeInclusive<f32> = f32::MIN_POSITIVE..=100.0;
/// How far the bottom sits below the land's lowest point, mm: enough to
/// hold together, at most a metre.
pub const BASE_MM: RangeInclusive<f32> = 0.5..=1000.0;
/// The base when none is given, mm.
pub const DEFAULT_BASE_MM: f32 = 5.0;

/// How big the print is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrintSize {
    /// The land's width across, mm (x and y alike: the diorama is square).
    pub size_mm: f32,
    /// How many times taller than true the land stands.
    pub exaggeration: f32,
    /// How far the bottom sits below the land's lowest point, mm.
    pub base_mm: f32,
}

impl Default for PrintSize {
    fn default() -> Self {
        PrintSize {
            size_mm: DEFAULT_PRINT_SIZE_MM,
            exaggeration: 1.0,
            base_mm: DEFAULT_BASE_MM,
        }
    }
}

/// A quantity of [`PrintSize`], for saying which is out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// [`PrintSize::size_mm`].
    Size,
    /// [`PrintSize::exaggeration`].
    Exaggeration,
    /// [`PrintSize::base_mm`].
    Base,
}

impl std::fmt::Display for Quantity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Quantity::Size => "print size",
            Quantity::Exaggeration => "exaggeration",
            Quantity::Base => "base",
        })
    }
}

/// What can stop a solid from being built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolidError {
    /// A height that is NaN or infinite has no place in a solid.
    #[error("the height at column {column}, row {row} is {height}: a solid needs finite heights")]
    NotFinite {
        /// Its column.
        column: usize,
        /// Its row.
        row: usize,
        /// The height.
        height: f32,
    },
    /// A size outside [`PRINT_SIZE_MM`], [`EXAGGERATION`] or [`BASE_MM`].
    #[error("the {what} {value} is out of range: it takes {range}")]
    OutOfRange {
        /// Which quantity.
        what: Quantity,
        /// Its value.
        value: f32,
        /// What it takes, in words.
        range: &'static str,
    },
    /// The solid's highest point is not a number a print file can hold.
    #[error("the print would stand {height_mm} mm tall: lower the exaggeration")]
    TooTall {
        /// Its height, mm.
        height_mm: f32,
    },
}

impl PrintSize {
    /// Whether each quantity is in its range; the first that is not.
    pub fn check(&self) -> Result<(), SolidError> {
        let checks = [
            (
                Quantity::Size,
                self.size_mm,
                &PRINT_SIZE_MM,
                "1 to 2000 mm across",
            ),
            (
                Quantity::Exaggeration,
                self.exaggeration,
                &EXAGGERATION,
                "more than 0, at most 100",
            ),
            (Quantity::Base, self.base_mm, &BASE_MM, "0.5 to 1000 mm"),
        ];
        for (what, value, range, words) in checks {
            if !range.contains(&value) {
                return Err(SolidError::OutOfRange {
                    what,
                    value,
                    range: words,
                });
            }
        }
        Ok(())
    }
}

/// A closed, welded triangle mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Solid {
    /// Each point once, mm.
    pub positions: Vec<[f32; 3]>,
    /// Indices into `positions`, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// Where a welded point is: on a sample's top (the land), on the bottom
/// under an edge sample, or the bottom's centre, as the bits of its grid
/// u and v (the diorama computes them alike for every vertex on a sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Point {
    u: u32,
    v: u32,
    top: bool,
}

/// The diorama of `map` as a solid `size` big.
pub fn solid(map: &Heightmap, size: PrintSize) -> Result<Solid, SolidError> {
    size.check()?;
    let (width, height) = (map.width(), map.height());
    if let Some(index) = map.cells().iter().position(|h| !h.is_finite()) {
        return Err(SolidError::NotFinite {
            column: index % width,
            row: index / width,
            height: map.cells()[index],
        });
    }
    let side = |n: usize| u32::try_from(n).expect("a heightmap side fits in u32");
    let mesh = DioramaMesh::new(side(width), side(height)).expect("a heightmap is at least 2×2");
    let lowest = map.cells().iter().copied().fold(f32::INFINITY, f32::min);
    let (size_mm, exaggeration, base_mm) = (
        f64::from(size.size_mm),
        f64::from(size.exaggeration),
        f64::from(size.base_mm),
    );
    let sample_at = |u: f32, v: f32| {
        let column = (f64::from(u) * (width - 1) as f64).round() as usize;
        let row = (f64::from(v) * (height - 1) as f64).round() as usize;
        map.cells()[row * width + column]
    };

    let mut welded: HashMap<Point, u32> = HashMap::new();
    let mut positions = Vec::new();
    // Each diorama vertex's welded index, for the solid's vertices only.
    let mut index_of = vec![u32::MAX; mesh.vertices.len()];
    for (index, vertex) in mesh.vertices.iter().enumerate() {
        let top = match vertex.kind as u32 {
            kind if kind == VertexKind::Land as u32 || kind == VertexKind::SideTop as u32 => true,
            kind if kind == VertexKind::SideBottom as u32
                || kind == VertexKind::Underside as u32 =>
            {
                false
            }
            _ => continue,
        };
        let [u, v] = vertex.uv;
        let point = Point {
            u: u.to_bits(),
            v: v.to_bits(),
            top,
        };
        index_of[index] = *welded.entry(point).or_insert_with(|| {
            let z = if top {
                f64::from(sample_at(u, v) - lowest) * exaggeration * size_mm + base_mm
            } else {
                0.0
            };
            let x = f64::from(u) * size_mm;
            let y = (1.0 - f64::from(v)) * size_mm;
            positions.push([x as f32, y as f32, z as f32]);
            (positions.len() - 1) as u32
        });
    }
    let tallest = positions.iter().map(|p| p[2]).fold(0.0, f32::max);
    if !tallest.is_finite() {
        return Err(SolidError::TooTall { height_mm: tallest });
    }
    let indices = match &mesh.indices {
        GridIndices::U16(indices) => indices.iter().map(|&i| u32::from(i)).collect(),
        GridIndices::U32(indices) => indices.clone(),
    };
    let triangles = indices[mesh.solid.start as usize..mesh.solid.end as usize]
        .chunks_exact(3)
        .map(|corners| [0, 1, 2].map(|i| index_of[corners[i] as usize]))
        .collect();
    Ok(Solid {
        positions,
        triangles,
    })
}

impl Solid {
    /// A triangle's unit normal by the right-hand rule (outward, as the
    /// triangles are wound), computed in f64; zero for a degenerate one.
    pub fn normal(&self, triangle: [u32; 3]) -> [f32; 3] {
        let [a, b, c] = triangle.map(|i| self.positions[i as usize].map(f64::from));
        let (ab, ac) = (
            [0, 1, 2].map(|k| b[k] - a[k]),
            [0, 1, 2].map(|k| c[k] - a[k]),
        );
        let n = [
            ab[1] * ac[2] - ab[2] * ac[1],
            ab[2] * ac[0] - ab[0] * ac[2],
            ab[0] * ac[1] - ab[1] * ac[0],
        ];
        let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if length > 0.0 {
            n.map(|c| (c / length) as f32)
        } else {
            [0.0; 3]
        }
    }

    /// The enclosed volume, mm³, by the divergence theorem (the sum of the
    /// signed tetrahedra from the origin): positive when the triangles face
    /// outward.
    pub fn volume(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.positions[i as usize].map(f64::from));
                (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                    + a[2] * (b[0] * c[1] - b[1] * c[0]))
                    / 6.0
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uneven heights in [-0.05, 0.05), the same every time.
    fn rough_map(width: usize, height: usize) -> Heightmap {
        let cells = (0..width * height)
            .map(|i| ((i * 7919 + 13) % 101) as f32 / 1010.0 - 0.05)
            .collect();
        Heightmap::from_cells(width, height, cells).unwrap()
    }

    #[test]
    fn every_edge_is_shared_by_exactly_two_triangles_running_opposite_ways() {
        for (width, height) in [(2, 2), (3, 2), (5, 4), (33, 17)] {
            let solid = solid(&rough_map(width, height), PrintSize::default()).unwrap();
            let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
            for t in &solid.triangles {
                assert!(t[0] != t[1] && t[1] != t[2] && t[0] != t[2], "{t:?}");
                for k in 0..3 {
                    *directed.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
                }
            }
            for (&(from, to), &count) in &directed {
                assert_eq!(
                    count, 1,
                    "{width}×{height}: edge {from}->{to} used {count} times"
                );
                assert_eq!(
                    directed.get(&(to, from)),
                    Some(&1),
                    "{width}×{height}: edge {from}->{to} has no twin"
                );
            }
            // A closed surface of genus 0: V − E + F = 2.
            let (v, e, f) = (
                solid.positions.len() as i64,
                directed.len() as i64 / 2,
                solid.triangles.len() as i64,
            );
            assert_eq!(v - e + f, 2, "{width}×{height}");
        }
    }

    #[test]
    fn it_welds_to_one_point_per_sample_and_rim_point_and_the_centre() {
        let (width, height) = (7, 5);
        let solid = solid(&rough_map(width, height), PrintSize::default()).unwrap();
        let rim = 2 * (width - 1) + 2 * (height - 1);
        assert_eq!(solid.positions.len(), width * height + rim + 1);
        assert_eq!(
            solid.triangles.len(),
            2 * (width - 1) * (height - 1) + 2 * rim + rim
        );
    }

    #[test]
    fn it_stands_on_the_bed_print_size_across_with_the_base_under_the_lowest_land() {
        let map = Heightmap::from_cells(3, 2, vec![0.0, 0.1, -0.2, 0.3, 0.4, 0.06]).unwrap();
        let size = PrintSize {
            size_mm: 50.0,
            exaggeration: 2.0,
            base_mm: 4.0,
        };
        let solid = solid(&map, size).unwrap();
        // Sample (column 2, row 0): the far right corner, at the back.
        let z = (-0.2f32 - -0.2) * 2.0 * 50.0 + 4.0;
        assert!(solid.positions.contains(&[50.0, 50.0, z]));
        // Sample (column 1, row 1): (0.4 + 0.2) · 2 · 50 + 4 = 64 mm.
        let top = solid.positions[4];
        assert_eq!([top[0], top[1]], [25.0, 0.0]);
        assert!((top[2] - 64.0).abs() < 1e-4, "{top:?}");
        let lowest = solid
            .positions
            .iter()
            .map(|p| p[2])
            .fold(f32::MAX, f32::min);
        assert_eq!(lowest, 0.0);
        for axis in 0..2 {
            let (lo, hi) = solid
                .positions
                .iter()
                .fold((f32::MAX, f32::MIN), |(lo, hi), p| {
                    (lo.min(p[axis]), hi.max(p[axis]))
                });
            assert_eq!((lo, hi), (0.0, 50.0), "axis {axis}");
        }
    }

    #[test]
    fn a_flat_land_is_a_box_of_its_volume_with_outward_normals() {
        let map = Heightmap::from_cells(4, 3, vec![0.25; 12]).unwrap();
        let size = PrintSize {
            size_mm: 20.0,
            exaggeration: 1.0,
            base_mm: 3.0,
        };
        let solid = solid(&map, size).unwrap();
        assert!(
            (solid.volume() - 20.0 * 20.0 * 3.0).abs() < 1e-3,
            "{}",
            solid.volume()
        );
        for &t in &solid.triangles {
            let n = solid.normal(t);
            let centre = [0, 1, 2].map(|k| {
                t.iter()
                    .map(|&i| solid.positions[i as usize][k])
                    .sum::<f32>()
                    / 3.0
            });
            // The box's middle is (10, 10, 1.5): every face points away from it.
            let away = [centre[0] - 10.0, centre[1] - 10.0, centre[2] - 1.5];
            let dot: f32 = (0..3).map(|k| n[k] * away[k]).sum();
            assert!(dot > 0.0, "{t:?} faces inward: normal {n:?} at {centre:?}");
        }
    }

    #[test]
    fn the_same_heights_give_the_same_solid() {
        let map = rough_map(33, 17);
        assert_eq!(
            solid(&map, PrintSize::default()).unwrap(),
            solid(&map, PrintSize::default()).unwrap()
        );
    }

    #[test]
    fn sizes_out_of_range_and_heights_not_numbers_are_errors() {
        let map = rough_map(3, 3);
        for size in [
            PrintSize {
                size_mm: 0.0,
                ..PrintSize::default()
            },
            PrintSize {
                size_mm: 10_000.0,
                ..PrintSize::default()
            },
            PrintSize {
                size_mm: f32::NAN,
                ..PrintSize::default()
            },
            PrintSize {
                exaggeration: 0.0,
                ..PrintSize::default()
            },
            PrintSize {
                exaggeration: -1.0,
                ..PrintSize::default()
            },
            PrintSize {
                base_mm: 0.0,
                ..PrintSize::default()
            },
            PrintSize {
                base_mm: 5000.0,
                ..PrintSize::default()
            },
        ] {
            let error = solid(&map, size).unwrap_err();
            assert!(
                matches!(error, SolidError::OutOfRange { .. }),
                "{size:?}: {error}"
            );
        }
        let holed = Heightmap::from_cells(2, 2, vec![0.0, f32::INFINITY, 0.0, 0.0]).unwrap();
        assert!(matches!(
            solid(&holed, PrintSize::default()),
            Err(SolidError::NotFinite {
                column: 1,
                row: 0,
                ..
            })
        ));
    }
}
