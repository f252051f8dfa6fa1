//! The print files of a [`Solid`]: binary STL and 3MF, in millimetres.
//!
//! - STL (binary): an 80-byte header that does not begin with `solid` (a
//!   reader would take the file for ASCII STL), the triangle count, and per
//!   triangle its unit normal, its three corners and a zero attribute word,
//!   all little-endian. STL has no units: slicers read millimetres.
//! - 3MF (core specification 1.3): an OPC zip of `[Content_Types].xml`,
//!   `_rels/.rels` and `3D/3dmodel.model`, a `<model unit="millimeter">` of
//!   one mesh object, its vertices once each and its triangles by index,
//!   placed on the build plate as it is. The zip's entries carry a fixed
//!   date, so the same solid gives the same bytes.
use std::fmt::Write as _;
use std::io::{Cursor, Write as _};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use super::solid::Solid;

/// The STL header: what made the file, in the 80 bytes padded with spaces.
const STL_HEADER: &str = concat!(
    "holoterrain ",
    env!("CARGO_PKG_VERSION"),
    " diorama, binary STL, millimetres"
);

/// 3MF's core namespace.
const CORE_NAMESPACE: &str = "http://schemas.microsoft.com/3dmanufacturing/core/2015/02";

/// The OPC content types: relationships and the 3D model.
const CONTENT_TYPES: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8"?>"#,
    "\n",
    r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#,
    r#"<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>"#,
    r#"<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>"#,
    "</Types>\n"
);

/// The package's one relationship: its start part is the 3D model.
const RELATIONSHIPS: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8"?>"#,
    "\n",
    r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    r#"<Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>"#,
    "</Relationships>\n"
);

/// The solid as a binary STL.
pub fn stl(solid: &Solid) -> Vec<u8> {
    let count =
        u32::try_from(solid.triangles.len()).expect("a heightmap's solid has < 2³² triangles");
    let mut out = Vec::with_capacity(84 + 50 * solid.triangles.len());
    let mut header = [b' '; 80];
    header[..STL_HEADER.len()].copy_from_slice(STL_HEADER.as_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&count.to_le_bytes());
    for &triangle in &solid.triangles {
        let corners = triangle.map(|i| solid.positions[i as usize]);
        for vector in std::iter::once(solid.normal(triangle)).chain(corners) {
            out.extend(vector.iter().flat_map(|c| c.to_le_bytes()));
        }
        out.extend_from_slice(&0u16.to_le_bytes());
    }
    out
}

/// The solid as a 3MF package.
pub fn three_mf(solid: &Solid) -> Result<Vec<u8>, zip::result::ZipError> {
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default())
        .unix_permissions(0o644);
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let model = model_xml(solid);
    for (name, part) in [
        ("[Content_Types].xml", CONTENT_TYPES),
        ("_rels/.rels", RELATIONSHIPS),
        ("3D/3dmodel.model", model.as_str()),
    ] {
        zip.start_file(name, options)?;
        zip.write_all(part.as_bytes())?;
    }
    Ok(zip.finish()?.into_inner())
}

/// The 3D model part: one object of the solid's mesh, built as it is.
fn model_xml(solid: &Solid) -> String {
    // About 60 bytes a vertex and 45 a triangle.
    let mut xml =
        String::with_capacity(60 * solid.positions.len() + 45 * solid.triangles.len() + 1024);
    let _ = write!(
        xml,
        concat!(
            r#"<?xml version="1.0" encoding="UTF-8"?>"#,
            "\n",
            r#"<model unit="millimeter" xml:lang="en-US" xmlns="{}">"#,
            "\n",
            r#"<metadata name="Application">holoterrain {}</metadata>"#,
            "\n<resources>\n",
            r#"<object id="1" type="model" name="diorama">"#,
            "\n<mesh>\n<vertices>\n"
        ),
        CORE_NAMESPACE,
        env!("CARGO_PKG_VERSION")
    );
    // `{}` writes an f32 in the fewest digits that read back as the same
    // float, never with an exponent: what 3MF's numbers allow.
    for [x, y, z] in &solid.positions {
        let _ = writeln!(xml, r#"<vertex x="{x}" y="{y}" z="{z}"/>"#);
    }
    xml.push_str("</vertices>\n<triangles>\n");
    for [a, b, c] in &solid.triangles {
        let _ = writeln!(xml, r#"<triangle v1="{a}" v2="{b}" v3="{c}"/>"#);
    }
    xml.push_str(concat!(
        "</triangles>\n</mesh>\n</object>\n</resources>\n",
        r#"<build><item objectid="1"/></build>"#,
        "\n</model>\n"
    ));
    xml
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;
    use crate::render::solid::{PrintSize, solid};
    use crate::terrain::Heightmap;

    fn small_solid() -> Solid {
        let cells = (0..5 * 4).map(|i| ((i * 37) % 11) as f32 / 110.0).collect();
        solid(
            &Heightmap::from_cells(5, 4, cells).unwrap(),
            PrintSize::default(),
        )
        .unwrap()
    }

    fn f32s(bytes: &[u8]) -> Vec<f32> {
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn the_stl_holds_every_triangle_with_its_normal() {
        let solid = small_solid();
        let bytes = stl(&solid);
        assert_eq!(bytes.len(), 84 + 50 * solid.triangles.len());
        assert!(!bytes.starts_with(b"solid"), "would read as ASCII STL");
        let count = u32::from_le_bytes(bytes[80..84].try_into().unwrap());
        assert_eq!(count as usize, solid.triangles.len());
        for (record, &triangle) in bytes[84..].chunks_exact(50).zip(&solid.triangles) {
            let values = f32s(&record[..48]);
            assert_eq!(values[..3], solid.normal(triangle));
            let length: f32 = values[..3].iter().map(|c| c * c).sum::<f32>().sqrt();
            assert!((length - 1.0).abs() < 1e-6);
            for (k, &index) in triangle.iter().enumerate() {
                assert_eq!(
                    values[3 + 3 * k..6 + 3 * k],
                    solid.positions[index as usize]
                );
            }
            assert_eq!(&record[48..], &[0, 0]);
        }
    }

    #[test]
    fn the_3mf_is_a_package_of_a_millimetre_model_of_the_solid() {
        let solid = small_solid();
        let bytes = three_mf(&solid).unwrap();
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let names: Vec<String> = (0..archive.len())
            .map(|i| archive.by_index(i).unwrap().name().unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            ["[Content_Types].xml", "_rels/.rels", "3D/3dmodel.model"]
        );
        let mut model = String::new();
        archive
            .by_name("3D/3dmodel.model")
            .unwrap()
            .read_to_string(&mut model)
            .unwrap();
        let document = roxmltree::Document::parse(&model).unwrap();
        let root = document.root_element();
        assert_eq!(root.tag_name().name(), "model");
        assert_eq!(root.tag_name().namespace(), Some(CORE_NAMESPACE));
        assert_eq!(root.attribute("unit"), Some("millimeter"));
        let of = |name: &str| -> Vec<roxmltree::Node> {
            document
                .descendants()
                .filter(|n| n.has_tag_name(name))
                .collect()
        };
        let vertices: Vec<[f32; 3]> = of("vertex")
            .iter()
            .map(|v| ["x", "y", "z"].map(|a| v.attribute(a).unwrap().parse().unwrap()))
            .collect();
        assert_eq!(vertices, solid.positions);
        let triangles: Vec<[u32; 3]> = of("triangle")
            .iter()
            .map(|t| ["v1", "v2", "v3"].map(|a| t.attribute(a).unwrap().parse().unwrap()))
            .collect();
        assert_eq!(triangles, solid.triangles);
        assert_eq!(of("item")[0].attribute("objectid"), Some("1"));
        let mut relationships = String::new();
        archive
            .by_name("_rels/.rels")
            .unwrap()
            .read_to_string(&mut relationships)
            .unwrap();
        assert!(relationships.contains(r#"Target="/3D/3dmodel.model""#));
    }

    #[test]
    fn the_same_solid_gives_the_same_bytes() {
        let solid = small_solid();
        assert_eq!(stl(&solid), stl(&solid));
        assert_eq!(three_mf(&solid).unwrap(), three_mf(&solid).unwrap());
    }
}
