//! The terrain mesh as a glTF 2.0 binary (.glb) for 3D viewers: the diorama the renderer draws (its land grid raised by the heights, its base's sides and underside), placed by a model matrix, with the shaders' normals and the palette's colours.
//!
//! [`land`] writes the diorama's solid, land and base, as it stands on the
//! table; [`encode`] the land's grid alone.
//!
//! What the file holds (glTF 2.0, GLB container version 2), and why:
//! - one scene of one node (no transform of its own) with one mesh of one
//!   indexed triangle list;
//! - `POSITION`: each sample where the vertex shader puts it, `model ·
//!   (x, height, z)` with the grid's x and z, with the `min` and `max` the
//!   specification requires; then, in [`land`], the base's vertices (each
//!   side's own, so its normal is its own, and the underside's);
//! - `NORMAL`: the surface's unit normals from central differences over
//!   the grid's spacing, as the vertex shader takes them, turned by the model;
//! - `COLOR_0`: linear RGB floats, the palette's colour before lighting (a
//!   viewer lights the mesh itself), clamped to [0, 1] as the specification
//!   requires of `COLOR_0`;
//! - the grid's own indices (in [`land`], the diorama mesh's solid's),
//!   16-bit while the vertices fit, else 32-bit, counter-clockwise seen
//!   from above (the base's seen from outside): glTF's front faces;
//! - a matte white material, so the vertex colours show as they are: glTF's
//!   default material is fully metallic, which most viewers draw dark;
//! - one buffer, the BIN chunk: positions, normals, colours, indices, each
//!   its own buffer view at a 4-byte boundary; the JSON chunk is padded with
//!   spaces and the BIN chunk with zeros to 4 bytes.
//!
//! The same heights, model and paint give the same bytes.
use glam::{Mat3, Mat4, Vec3};
use serde_json::json;

use super::diorama::{DioramaMesh, VertexKind};
use super::grid::{GridIndices, TerrainGrid};
use super::palette::{Palette, srgb_to_linear, terrain_color};
use crate::terrain::recipe::{PaletteName, Recipe};
use crate::terrain::{Heightmap, normals};

/// How the land is painted: its palette, and the sea its beaches lie above.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Paint {
    /// The colours by height.
    pub palette: PaletteName,
    /// The water's level, terrain units, when there is water.
    pub sea_level: Option<f32>,
}

impl Paint {
    /// How `recipe`'s land is painted.
    pub fn of(recipe: &Recipe) -> Self {
        Paint {
            palette: recipe.palette,
            sea_level: recipe.sea_level,
        }
    }
}

/// `glTF` read as a little-endian u32: the GLB header's magic.
pub const MAGIC: u32 = 0x4654_6C67;
/// The GLB container version this writes.
pub const VERSION: u32 = 2;
/// `JSON` read as a little-endian u32: the first chunk's type.
pub const CHUNK_JSON: u32 = 0x4E4F_534A;
/// `BIN\0` read as a little-endian u32: the second chunk's type.
pub const CHUNK_BIN: u32 = 0x004E_4942;

/// glTF's `componentType` of 32-bit floats.
const FLOAT: u32 = 5126;
/// glTF's `componentType` of 16-bit unsigned integers.
const UNSIGNED_SHORT: u32 = 5123;
/// glTF's `componentType` of 32-bit unsigned integers.
const UNSIGNED_INT: u32 = 5125;
/// A buffer view's `target` for vertex attributes (WebGL's ARRAY_BUFFER).
const ARRAY_BUFFER: u32 = 34962;
/// A buffer view's `target` for indices (WebGL's ELEMENT_ARRAY_BUFFER).
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// A primitive's `mode` for a triangle list.
const TRIANGLES: u32 = 4;
/// Bytes of one vertex's position, normal and colour (three VEC3 floats).
const VERTEX_BYTES: u64 = 3 * 12;
/// The 12-byte header and the two 8-byte chunk headers.
const CONTAINER_BYTES: u64 = 12 + 8 + 8;

/// What can stop a glb from being written.
#[derive(Debug, thiserror::Error)]
pub enum GlbError {
    /// A height that is NaN or infinite has no place in a mesh.
    #[error("the height at column {column}, row {row} is {height}: a mesh needs finite heights")]
    NotFinite {
        /// Its column.
        column: usize,
        /// Its row.
        row: usize,
        /// The height.
        height: f32,
    },
    /// A GLB counts its length in 32 bits.
    #[error(
        "the mesh of a {width}×{height} heightmap takes {bytes} bytes, more than the 4 GiB a glb can hold: use fewer samples"
    )]
    TooLarge {
        /// Samples per row.
        width: usize,
        /// Rows.
        height: usize,
        /// The size it would take (or its buffer's alone, when that is too large).
        bytes: u64,
    },
}

/// The vertex data of the mesh, one entry per vertex: the land's samples
/// first, row-major, then the base's.
struct Vertices {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    colors: Vec<[f32; 3]>,
}

/// The diorama as the app draws it, water aside: on the hologram's
/// footprint at 1× (`footprint_m` across, +Y up), the land at its true
/// heights with its height zero at the origin, and under it the base, its
/// sides carried down from the land's edge to a flat underside at height
/// `underside` (terrain units, below the lowest land), so a viewer shows the
/// solid block seen on the table. Painted as `paint` says (the palette's
/// colours are fixed by height, so neighbouring tiles agree at their
/// seams), the sides as the shaders paint them (the land's colour at their
/// height, level, darkened) and the underside the palette's cliff, darker.
pub fn land(
    map: &Heightmap,
    paint: Paint,
    footprint_m: f32,
    underside: f32,
) -> Result<Vec<u8>, GlbError> {
    let (width, height) = (map.width(), map.height());
    check_finite(map)?;
    if !underside.is_finite() {
        return Err(GlbError::NotFinite {
            column: 0,
            row: 0,
            height: underside,
        });
    }
    let (vertex_count, index_count) = diorama_counts(width, height);
    check_size(width, height, buffer_size(vertex_count, index_count))?;
    let side = |n: usize| u32::try_from(n).expect("a heightmap side fits in u32");
    let mesh = DioramaMesh::new(side(width), side(height)).expect("a heightmap is at least 2×2");
    let model = Mat4::from_scale(Vec3::splat(footprint_m));
    let (vertices, indices) = diorama_vertices(map, &mesh, model, paint, underside);
    file(map, &vertices, &indices)
}

/// The glb of `map`'s land alone, its grid placed by `model` (grid space:
/// x and z in [-0.5, 0.5], heights in terrain units along y) and painted
/// as `paint` says.
pub fn encode(map: &Heightmap, model: Mat4, paint: Paint) -> Result<Vec<u8>, GlbError> {
    let (width, height) = (map.width(), map.height());
    check_finite(map)?;
    let cells = (width as u64 - 1) * (height as u64 - 1);
    check_size(
        width,
        height,
        buffer_size((width * height) as u64, 6 * cells),
    )?;
    let side = |n: usize| u32::try_from(n).expect("a heightmap side fits in u32");
    let grid = TerrainGrid::new(side(width), side(height)).expect("a heightmap is at least 2×2");
    let vertices = vertices(map, &grid, model, paint);
    file(map, &vertices, &grid.indices)
}

/// An error for the first height of `map` that is NaN or infinite.
fn check_finite(map: &Heightmap) -> Result<(), GlbError> {
    match map.cells().iter().position(|h| !h.is_finite()) {
        Some(index) => Err(GlbError::NotFinite {
            column: index % map.width(),
            row: index / map.width(),
            height: map.cells()[index],
        }),
        None => Ok(()),
    }
}

/// An error when a buffer of `buffer_bytes` makes too large a glb: checked
/// before anything is built, as the buffer alone may be gigabytes.
fn check_size(width: usize, height: usize, buffer_bytes: u64) -> Result<(), GlbError> {
    if buffer_bytes + CONTAINER_BYTES > u64::from(u32::MAX) {
        return Err(GlbError::TooLarge {
            width,
            height,
            bytes: buffer_bytes,
        });
    }
    Ok(())
}

/// The glb of a mesh of `map`: its vertices and triangle-list indices.
fn file(map: &Heightmap, vertices: &Vertices, indices: &GridIndices) -> Result<Vec<u8>, GlbError> {
    let (width, height) = (map.width(), map.height());
    let buffer_bytes = buffer_size(vertices.positions.len() as u64, indices.len() as u64);
    let mut bin = Vec::with_capacity(buffer_bytes as usize);
    for attribute in [&vertices.positions, &vertices.normals, &vertices.colors] {
        bin.extend(attribute.iter().flatten().flat_map(|c| c.to_le_bytes()));
    }
    let indices_at = bin.len();
    let index_type = match indices {
        GridIndices::U16(indices) => {
            bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
            UNSIGNED_SHORT
        }
        GridIndices::U32(indices) => {
            bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
            UNSIGNED_INT
        }
    };
    let index_bytes = bin.len() - indices_at;
    bin.resize(padded(bin.len() as u64) as usize, 0);

    let attribute_bytes = vertices.positions.len() * 12;
    let (min, max) = bounds(&vertices.positions);
    let json = json!({
        "asset": {
            "version": "2.0",
            "generator": concat!("holoterrain ", env!("CARGO_PKG_VERSION")),
        },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "mesh": 0, "name": "terrain" }],
        "meshes": [{
            "name": "terrain",
            "primitives": [{
                "attributes": { "POSITION": 0, "NORMAL": 1, "COLOR_0": 2 },
                "indices": 3,
                "material": 0,
                "mode": TRIANGLES,
            }],
        }],
        "materials": [{
            "name": "terrain",
            "pbrMetallicRoughness": {
                "baseColorFactor": [1.0, 1.0, 1.0, 1.0],
                "metallicFactor": 0.0,
                "roughnessFactor": 1.0,
            },
            "doubleSided": false,
        }],
        "accessors": [
            {
                "bufferView": 0,
                "componentType": FLOAT,
                "count": vertices.positions.len(),
                "type": "VEC3",
                "min": min,
                "max": max,
            },
            { "bufferView": 1, "componentType": FLOAT, "count": vertices.normals.len(), "type": "VEC3" },
            { "bufferView": 2, "componentType": FLOAT, "count": vertices.colors.len(), "type": "VEC3" },
            { "bufferView": 3, "componentType": index_type, "count": indices.len(), "type": "SCALAR" },
        ],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": attribute_bytes, "target": ARRAY_BUFFER },
            { "buffer": 0, "byteOffset": attribute_bytes, "byteLength": attribute_bytes, "target": ARRAY_BUFFER },
            { "buffer": 0, "byteOffset": 2 * attribute_bytes, "byteLength": attribute_bytes, "target": ARRAY_BUFFER },
            { "buffer": 0, "byteOffset": indices_at, "byteLength": index_bytes, "target": ELEMENT_ARRAY_BUFFER },
        ],
        "buffers": [{ "byteLength": bin.len() }],
    });
    let mut json = serde_json::to_vec(&json).expect("the glTF JSON is plain data");
    json.resize(padded(json.len() as u64) as usize, b' ');
    let total = CONTAINER_BYTES + json.len() as u64 + bin.len() as u64;
    if total > u64::from(u32::MAX) {
        return Err(GlbError::TooLarge {
            width,
            height,
            bytes: total,
        });
    }
    Ok(container(&json, &bin))
}

/// The bytes of the buffer of a mesh of `vertex_count` vertices and
/// `index_count` indices: three VEC3 floats per vertex, indices 32-bit past
/// 65 535 vertices as in [`TerrainGrid`], padded.
fn buffer_size(vertex_count: u64, index_count: u64) -> u64 {
    let index_size = if vertex_count > u64::from(u16::MAX) {
        4
    } else {
        2
    };
    VERTEX_BYTES * vertex_count + padded(index_size * index_count)
}

/// How many vertices and indices a `width` × `height` diorama's solid
/// has ([`DioramaMesh`]'s, counted without building it): the land's
/// samples and two triangles per cell; along each of the four sides a top
/// and a bottom per sample and two triangles per edge; the underside's
/// centre, a point per rim sample and a triangle per rim edge.
fn diorama_counts(width: usize, height: usize) -> (u64, u64) {
    let (w, h) = (width as u64, height as u64);
    let rim = 2 * (w - 1) + 2 * (h - 1);
    let vertices = w * h + 2 * (2 * w + 2 * h) + 1 + rim;
    let indices = 6 * (w - 1) * (h - 1) + 6 * rim + 3 * rim;
    (vertices, indices)
}

/// Each vertex where the vertex shader puts it, its normal and its colour.
fn vertices(map: &Heightmap, grid: &TerrainGrid, model: Mat4, paint: Paint) -> Vertices {
    let palette = Palette::named(paint.palette);
    let (width, height) = (map.width(), map.height());
    // The grid spans 1 along x and z whatever its sample counts: the shader's `cell`.
    let model_normals =
        normals::normals_xz(map, 1.0 / (width - 1) as f32, 1.0 / (height - 1) as f32)
            .expect("the grid's spacings are finite and positive");
    // Normals turn by the inverse transpose, which keeps them perpendicular
    // to the surface under any scale; the shader's cross product of
    // transformed tangents points the same way.
    let normal_matrix = Mat3::from_mat4(model).inverse().transpose();
    let terrain_up = model.y_axis.truncate().normalize();
    let mut out = Vertices {
        positions: Vec::with_capacity(grid.vertices.len()),
        normals: Vec::with_capacity(grid.vertices.len()),
        colors: Vec::with_capacity(grid.vertices.len()),
    };
    for ((vertex, &h), normal) in grid.vertices.iter().zip(map.cells()).zip(model_normals) {
        let [x, z] = vertex.position;
        out.positions
            .push(model.transform_point3(Vec3::new(x, h, z)).to_array());
        let normal = (normal_matrix * Vec3::from(normal)).normalize();
        out.normals.push(normal.to_array());
        let flatness = normal.dot(terrain_up).abs();
        out.colors
            .push(terrain_color(h, flatness, palette, paint.sea_level).map(|c| c.clamp(0.0, 1.0)));
    }
    out
}

/// The diorama's solid as the shaders place and paint it, water aside: its
/// vertices (a prefix of the mesh's: the water's come last) and indices.
fn diorama_vertices(
    map: &Heightmap,
    mesh: &DioramaMesh,
    model: Mat4,
    paint: Paint,
    underside: f32,
) -> (Vertices, GridIndices) {
    let palette = Palette::named(paint.palette);
    let width = map.width();
    let grid_len = width * map.height();
    let land = {
        let side = |n: usize| u32::try_from(n).expect("a heightmap side fits in u32");
        let grid = TerrainGrid::new(side(width), side(map.height())).expect("at least 2×2");
        vertices(map, &grid, model, paint)
    };
    let normal_matrix = Mat3::from_mat4(model).inverse().transpose();
    let turned = |n: Vec3| (normal_matrix * n).normalize().to_array();
    let sample_at = |[u, v]: [f32; 2]| {
        let column = (u * (width - 1) as f32).round() as usize;
        let row = (v * (map.height() - 1) as f32).round() as usize;
        map.cells()[row * width + column]
    };
    // The shaders' sides: the land's colour at their height, level, at 0.7;
    // the underside: the cliff colour at 0.4.
    let side_color =
        |h: f32| terrain_color(h, 1.0, palette, paint.sea_level).map(|c| (c * 0.7).clamp(0.0, 1.0));
    let underside_color = palette
        .cliff_srgb
        .map(|c| (srgb_to_linear(c) * 0.4).clamp(0.0, 1.0));
    let solid_count = mesh
        .vertices
        .iter()
        .take_while(|vertex| vertex.kind as u32 <= VertexKind::Underside as u32)
        .count();
    let mut out = land;
    for vertex in &mesh.vertices[grid_len..solid_count] {
        let [x, z] = vertex.position;
        let outward = Vec3::new(vertex.outward[0], 0.0, vertex.outward[1]);
        let (y, normal, color) = match vertex.kind as u32 {
            kind if kind == VertexKind::SideTop as u32 => {
                let h = sample_at(vertex.uv);
                (h, turned(outward), side_color(h))
            }
            kind if kind == VertexKind::SideBottom as u32 => {
                (underside, turned(outward), side_color(underside))
            }
            _ => (underside, turned(Vec3::NEG_Y), underside_color),
        };
        out.positions
            .push(model.transform_point3(Vec3::new(x, y, z)).to_array());
        out.normals.push(normal);
        out.colors.push(color);
    }
    let all = match &mesh.indices {
        GridIndices::U16(indices) => indices.iter().map(|&i| u32::from(i)).collect(),
        GridIndices::U32(indices) => indices.clone(),
    };
    let solid = all[mesh.solid.start as usize..mesh.solid.end as usize].to_vec();
    let indices = if solid_count > usize::from(u16::MAX) {
        GridIndices::U32(solid)
    } else {
        GridIndices::U16(solid.into_iter().map(|i| i as u16).collect())
    };
    (out, indices)
}

/// Per-component minimum and maximum of `points`.
fn bounds(points: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    points.iter().fold(
        ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]),
        |(min, max), p| {
            (
                [0, 1, 2].map(|i| min[i].min(p[i])),
                [0, 1, 2].map(|i| max[i].max(p[i])),
            )
        },
    )
}

/// `len` rounded up to a multiple of 4, glTF's alignment of chunks and buffer views.
fn padded(len: u64) -> u64 {
    len.next_multiple_of(4)
}

/// The GLB container: header, JSON chunk, BIN chunk; both already padded.
fn container(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let total = CONTAINER_BYTES as usize + json.len() + bin.len();
    let length = |n: usize| {
        u32::try_from(n)
            .expect("checked against 4 GiB")
            .to_le_bytes()
    };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&length(total));
    out.extend_from_slice(&length(json.len()));
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(json);
    out.extend_from_slice(&length(bin.len()));
    out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    out.extend_from_slice(bin);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// The hologram's model matrix at 1×, placed at the origin: 0.5 m
    /// across (tests/glb.rs holds `generate` to the app's own matrix).
    fn hologram() -> Mat4 {
        Mat4::from_scale(Vec3::splat(0.5))
    }

    /// Uneven heights in [0, 1), the same every time.
    fn rough_map(width: usize, height: usize) -> Heightmap {
        let cells = (0..width * height)
            .map(|i| ((i * 7919 + 13) % 101) as f32 / 101.0)
            .collect();
        Heightmap::from_cells(width, height, cells).unwrap()
    }

    fn glb_of(map: &Heightmap) -> Glb {
        Glb::parse(&encode(map, hologram(), Paint::default()).unwrap())
    }

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    /// A glb's two chunks, read after checking the container.
    struct Glb {
        json: Value,
        bin: Vec<u8>,
    }

    impl Glb {
        /// Checks the header and the chunks (types, order, lengths, 4-byte
        /// alignment, JSON padded with spaces) and splits them.
        fn parse(bytes: &[u8]) -> Glb {
            assert_eq!(&bytes[..4], b"glTF");
            assert_eq!(u32_at(bytes, 0), MAGIC);
            assert_eq!(u32_at(bytes, 4), 2, "GLB version");
            assert_eq!(u32_at(bytes, 8) as usize, bytes.len(), "total length");
            let json_length = u32_at(bytes, 12) as usize;
            assert_eq!(&bytes[16..20], b"JSON");
            assert_eq!(json_length % 4, 0, "JSON chunk length");
            let json = std::str::from_utf8(&bytes[20..20 + json_length]).unwrap();
            let unpadded = json.trim_end_matches(' ');
            assert!(json.len() - unpadded.len() < 4, "more padding than needed");
            let bin_at = 20 + json_length;
            let bin_length = u32_at(bytes, bin_at) as usize;
            assert_eq!(&bytes[bin_at + 4..bin_at + 8], b"BIN\0");
            assert_eq!(bin_length % 4, 0, "BIN chunk length");
            assert_eq!(
                bin_at + 8 + bin_length,
                bytes.len(),
                "BIN is the last chunk"
            );
            Glb {
                json: serde_json::from_str(unpadded).unwrap(),
                bin: bytes[bin_at + 8..].to_vec(),
            }
        }

        fn accessor(&self, index: usize) -> &Value {
            &self.json["accessors"][index]
        }

        fn count(&self, accessor: usize) -> usize {
            self.accessor(accessor)["count"].as_u64().unwrap() as usize
        }

        /// The bytes of accessor `index`'s buffer view.
        fn view_bytes(&self, accessor: usize) -> &[u8] {
            let view = &self.json["bufferViews"]
                [self.accessor(accessor)["bufferView"].as_u64().unwrap() as usize];
            let at = view["byteOffset"].as_u64().unwrap() as usize;
            &self.bin[at..at + view["byteLength"].as_u64().unwrap() as usize]
        }

        /// The elements of VEC3 float accessor `index`.
        fn vec3s(&self, accessor: usize) -> Vec<[f32; 3]> {
            assert_eq!(self.accessor(accessor)["componentType"], FLOAT);
            assert_eq!(self.accessor(accessor)["type"], "VEC3");
            let floats: Vec<f32> = self
                .view_bytes(accessor)
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            assert_eq!(floats.len(), 3 * self.count(accessor));
            floats.chunks_exact(3).map(|v| [v[0], v[1], v[2]]).collect()
        }

        /// The primitive's indices, whatever their size.
        fn indices(&self) -> Vec<u32> {
            let bytes = self.view_bytes(3);
            let indices: Vec<u32> = match self.accessor(3)["componentType"].as_u64().unwrap() {
                5123 => bytes
                    .chunks_exact(2)
                    .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
                    .collect(),
                5125 => bytes
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
                    .collect(),
                other => panic!("index component type {other}"),
            };
            assert_eq!(indices.len(), self.count(3));
            indices
        }
    }

    #[test]
    fn the_container_is_a_glb_with_its_chunks_aligned() {
        // Sizes whose JSON needs each amount of padding in turn.
        for (width, height) in [(2, 2), (3, 2), (5, 4), (65, 33), (97, 61)] {
            let bytes = encode(&rough_map(width, height), hologram(), Paint::default()).unwrap();
            let glb = Glb::parse(&bytes);
            let buffer_length = glb.json["buffers"][0]["byteLength"].as_u64().unwrap();
            assert_eq!(buffer_length as usize, glb.bin.len());
            assert_eq!(buffer_length, grid_buffer_size(width, height));
            assert!(glb.json["buffers"][0].get("uri").is_none());
        }
    }

    #[test]
    fn one_scene_holds_one_node_with_one_mesh_of_one_primitive() {
        let glb = glb_of(&rough_map(4, 3));
        let json = &glb.json;
        assert_eq!(json["asset"]["version"], "2.0");
        assert_eq!(json["scene"], 0);
        assert_eq!(json["scenes"], serde_json::json!([{ "nodes": [0] }]));
        assert_eq!(json["nodes"].as_array().unwrap().len(), 1);
        assert_eq!(json["nodes"][0]["mesh"], 0);
        assert_eq!(json["meshes"].as_array().unwrap().len(), 1);
        let primitives = json["meshes"][0]["primitives"].as_array().unwrap();
        assert_eq!(primitives.len(), 1);
        assert_eq!(
            primitives[0]["attributes"],
            serde_json::json!({ "POSITION": 0, "NORMAL": 1, "COLOR_0": 2 })
        );
        assert_eq!(primitives[0]["indices"], 3);
        assert_eq!(primitives[0]["mode"], TRIANGLES);
        let material = &json["materials"][primitives[0]["material"].as_u64().unwrap() as usize];
        assert_eq!(
            material["pbrMetallicRoughness"]["baseColorFactor"],
            serde_json::json!([1.0, 1.0, 1.0, 1.0])
        );
        assert_eq!(material["pbrMetallicRoughness"]["metallicFactor"], 0.0);
        assert_eq!(material["doubleSided"], false);
    }

    #[test]
    fn accessors_count_every_sample_and_every_triangle_corner() {
        let (width, height) = (7, 4);
        let glb = glb_of(&rough_map(width, height));
        for attribute in 0..3 {
            assert_eq!(glb.count(attribute), width * height);
        }
        assert_eq!(glb.count(3), 6 * (width - 1) * (height - 1));
        let indices = glb.indices();
        assert_eq!(
            indices.iter().max(),
            Some(&(width as u32 * height as u32 - 1))
        );
        for (index, view) in glb.json["bufferViews"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            assert_eq!(view["buffer"], 0);
            assert_eq!(view["byteOffset"].as_u64().unwrap() % 4, 0, "view {index}");
            assert!(
                view.get("byteStride").is_none(),
                "view {index} is tightly packed"
            );
            let target = if index < 3 {
                ARRAY_BUFFER
            } else {
                ELEMENT_ARRAY_BUFFER
            };
            assert_eq!(view["target"], target, "view {index}");
        }
    }

    #[test]
    fn positions_are_the_samples_on_the_footprint_within_their_bounds() {
        let map = Heightmap::from_cells(3, 2, vec![0.0, 0.1, -0.2, 0.3, 0.4, 0.06]).unwrap();
        let glb = glb_of(&map);
        let positions = glb.vec3s(0);
        for row in 0..2 {
            for column in 0..3 {
                let h = map.cells()[row * 3 + column];
                let want = [
                    (column as f32 / 2.0 - 0.5) * 0.5,
                    h * 0.5,
                    (row as f32 - 0.5) * 0.5,
                ];
                assert_eq!(positions[row * 3 + column], want, "({column}, {row})");
            }
        }
        let (min, max) = bounds(&positions);
        assert_eq!(min, [-0.25, -0.1, -0.25]);
        assert_eq!(max, [0.25, 0.2, 0.25]);
        let as_floats = |v: &Value| -> Vec<f32> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_f64().unwrap() as f32)
                .collect()
        };
        assert_eq!(as_floats(&glb.accessor(0)["min"]), min);
        assert_eq!(as_floats(&glb.accessor(0)["max"]), max);
    }

    #[test]
    fn normals_are_unit_length_and_face_up() {
        for normal in glb_of(&rough_map(17, 9)).vec3s(1) {
            let length = Vec3::from(normal).length();
            assert!((length - 1.0).abs() < 1e-6, "{normal:?}");
            assert!(normal[1] > 0.0, "{normal:?}");
        }
        let flat = Heightmap::from_cells(3, 3, vec![0.5; 9]).unwrap();
        assert!(glb_of(&flat).vec3s(1).iter().all(|&n| n == [0.0, 1.0, 0.0]));
    }

    #[test]
    fn normals_follow_the_grid_spacing_of_a_non_square_map() {
        // h rises 0.25 a column over a grid 1 wide in 4 columns: slope 1
        // along x (rows do not change it), so the normal is ∝ (−1, 1, 0)
        // however many rows there are.
        let cells = (0..3)
            .flat_map(|_| (0..5).map(|column| 0.25 * column as f32))
            .collect();
        let map = Heightmap::from_cells(5, 3, cells).unwrap();
        let half_root = 0.5f32.sqrt();
        for normal in glb_of(&map).vec3s(1) {
            assert!((normal[0] + half_root).abs() < 1e-6, "{normal:?}");
            assert!((normal[1] - half_root).abs() < 1e-6, "{normal:?}");
            assert_eq!(normal[2], 0.0);
        }
    }

    #[test]
    fn colours_are_the_palettes_by_height_and_slope() {
        // Heights over the palettes' stops: 0 to 0.3 terrain units.
        let map = Heightmap::from_cells(
            9,
            5,
            rough_map(9, 5).cells().iter().map(|h| h * 0.3).collect(),
        )
        .unwrap();
        let paint = Paint {
            palette: PaletteName::Desert,
            sea_level: Some(0.05),
        };
        let glb = Glb::parse(&encode(&map, hologram(), paint).unwrap());
        let normals = glb.vec3s(1);
        let mut distinct = Vec::new();
        for ((color, normal), &h) in glb.vec3s(2).into_iter().zip(normals).zip(map.cells()) {
            assert!(color.iter().all(|c| (0.0..=1.0).contains(c)), "{color:?}");
            let want = terrain_color(
                h,
                normal[1].abs(),
                &super::super::palette::DESERT,
                Some(0.05),
            )
            .map(|c| c.clamp(0.0, 1.0));
            assert_eq!(color, want);
            if !distinct.contains(&color) {
                distinct.push(color);
            }
        }
        assert!(distinct.len() > 3, "{distinct:?}");
    }

    #[test]
    fn the_same_map_gives_the_same_bytes() {
        let map = rough_map(33, 17);
        assert_eq!(
            encode(&map, hologram(), Paint::default()).unwrap(),
            encode(&map, hologram(), Paint::default()).unwrap()
        );
    }

    #[test]
    fn indices_are_32_bit_past_65535_vertices() {
        let glb = glb_of(&Heightmap::flat(256, 256).unwrap());
        assert_eq!(glb.accessor(3)["componentType"], UNSIGNED_INT);
        assert_eq!(glb.indices().iter().max(), Some(&(256 * 256 - 1)));
        let glb = glb_of(&Heightmap::flat(255, 257).unwrap());
        assert_eq!(glb.accessor(3)["componentType"], UNSIGNED_SHORT);
        // 65 535 itself would restart primitives: it must never be an index.
        assert_eq!(glb.indices().iter().max(), Some(&(255 * 257 - 1)));
    }

    #[test]
    fn a_height_that_is_not_a_number_is_an_error() {
        let map = Heightmap::from_cells(2, 2, vec![0.0, 0.0, f32::NAN, 0.0]).unwrap();
        let error = encode(&map, hologram(), Paint::default()).unwrap_err();
        assert!(
            matches!(
                error,
                GlbError::NotFinite {
                    column: 0,
                    row: 1,
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn a_mesh_past_4_gib_is_refused_before_it_is_built() {
        assert_eq!(grid_buffer_size(2, 2), 4 * 36 + 6 * 2);
        // 8193² samples still fit (≈ 4.03 GB), 9000² do not (≈ 4.86 GB).
        assert!(grid_buffer_size(8193, 8193) < u64::from(u32::MAX));
        assert!(grid_buffer_size(9000, 9000) > u64::from(u32::MAX));
        // The base adds a little: 8193² still fits.
        let (vertices, indices) = diorama_counts(8193, 8193);
        assert!(buffer_size(vertices, indices) < u64::from(u32::MAX));
        let map = Heightmap::flat(2, 2).unwrap();
        let huge = diorama_counts(9000, 9000);
        assert!(matches!(
            check_size(9000, 9000, buffer_size(huge.0, huge.1)),
            Err(GlbError::TooLarge { .. })
        ));
        assert!(land(&map, Paint::default(), 0.5, -0.1).is_ok());
    }

    /// The buffer of a `width` × `height` grid's land alone.
    fn grid_buffer_size(width: usize, height: usize) -> u64 {
        let cells = (width as u64 - 1) * (height as u64 - 1);
        buffer_size((width * height) as u64, 6 * cells)
    }

    fn diorama_of(map: &Heightmap, underside: f32) -> Glb {
        Glb::parse(&land(map, Paint::default(), 0.5, underside).unwrap())
    }

    #[test]
    fn the_diorama_counts_are_the_diorama_meshs_solid() {
        for (width, height) in [(2, 2), (5, 3), (33, 17)] {
            let mesh = DioramaMesh::new(width as u32, height as u32).unwrap();
            let glb = diorama_of(&rough_map(width, height), -0.1);
            let (vertices, indices) = diorama_counts(width, height);
            assert_eq!(glb.count(0) as u64, vertices, "{width}×{height}");
            assert_eq!(glb.count(3) as u64, indices, "{width}×{height}");
            assert_eq!(indices, u64::from(mesh.solid.end - mesh.solid.start));
            let buffer = glb.json["buffers"][0]["byteLength"].as_u64().unwrap();
            assert_eq!(buffer, buffer_size(vertices, indices));
        }
    }

    #[test]
    fn the_diorama_is_the_land_then_a_closed_base_down_to_the_underside() {
        let (width, height) = (6, 4);
        let map = rough_map(width, height);
        let glb = diorama_of(&map, -0.2);
        let positions = glb.vec3s(0);
        let land_alone = glb_of(&map).vec3s(0);
        assert_eq!(positions[..width * height], land_alone[..]);
        // Every vertex past the land is on the rim or the underside (y = −0.1 m at 0.5 m).
        for p in &positions[width * height..] {
            let on_rim = p[0].abs() == 0.25 || p[2].abs() == 0.25;
            assert!(on_rim || p[1] == -0.2 * 0.5, "{p:?}");
            assert!(p[1] >= -0.1 - 1e-7, "{p:?}");
        }
        // Closed: every directed edge (by where its ends are) has its twin.
        let key = |i: u32| positions[i as usize].map(f32::to_bits);
        let mut edges = std::collections::HashMap::new();
        for t in glb.indices().chunks(3) {
            for k in 0..3 {
                *edges.entry((key(t[k]), key(t[(k + 1) % 3]))).or_insert(0) += 1;
            }
        }
        for (&(from, to), &count) in &edges {
            assert_eq!(count, 1);
            assert_eq!(edges.get(&(to, from)), Some(&1), "a hole or a flipped face");
        }
        // Its normals are unit length; the base's face out or down.
        let normals = glb.vec3s(1);
        for (p, n) in positions.iter().zip(&normals).skip(width * height) {
            assert!((Vec3::from(*n).length() - 1.0).abs() < 1e-6);
            let outward = Vec3::new(p[0], 0.0, p[2]).dot(Vec3::from(*n)) > 0.0;
            assert!(outward || *n == [0.0, -1.0, 0.0], "{p:?} {n:?}");
        }
        // The same heights, the same bytes.
        assert_eq!(
            land(&map, Paint::default(), 0.5, -0.2).unwrap(),
            land(&map, Paint::default(), 0.5, -0.2).unwrap()
        );
    }
}
