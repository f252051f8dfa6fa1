//! Heightmap export: normalisation to 8/16-bit integers, the file formats (PNG, RAW, PGM, raw floats; the glb, STL and 3MF meshes by name) and atomic file writes.
//!
//! Normalisation maps a height range `[lo, hi]` linearly onto `0..=max`
//! with rounding to nearest: by default the map's own `[min, max]`; for
//! seamless tiles a fixed range given by the caller (heights outside it are
//! clamped), since normalising each tile on its own would break the seams.
//! `f32` is the heights themselves, not normalised. `glb`, `stl` and `3mf`
//! are named here with the others, but they are meshes of the diorama the
//! renderer draws, so `render::glb` and `render::print` write them (the
//! terrain engine knows nothing of rendering).
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use thiserror::Error;

use super::heightmap::Heightmap;

/// What can go wrong when exporting a heightmap.
#[derive(Debug, Error)]
pub enum ExportError {
    /// A format name that is not one of [`Format::ALL`].
    #[error(
        "unknown format `{name}`: valid formats are png16, png8, raw16, pgm, f32, glb, stl, 3mf"
    )]
    UnknownFormat {
        /// The name as given.
        name: String,
    },
    /// A format that is not a heightmap's samples ([`Format::is_mesh`]).
    #[error("{format} is a mesh, not heightmap samples: render::glb or render::print writes it")]
    NotSamples {
        /// The format asked for.
        format: Format,
    },
    /// A fixed normalisation range that is empty or not finite.
    #[error("height range {lo}..{hi} is invalid: both ends must be finite with lo < hi")]
    InvalidRange {
        /// Height mapped to 0.
        lo: f32,
        /// Height mapped to the largest value.
        hi: f32,
    },
    /// The PNG encoder refused the image.
    #[error("PNG encoding failed: {0}")]
    Png(String),
    /// The directory the output file should go in does not exist.
    #[error("directory {} does not exist: create it first", .path.display())]
    MissingDirectory {
        /// The missing directory.
        path: PathBuf,
    },
    /// Creating, writing or renaming the output file failed.
    #[error("cannot write {}: {error}", .path.display())]
    Io {
        /// The file being written.
        path: PathBuf,
        /// What the operating system reported.
        error: std::io::Error,
    },
}

/// An output file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// 16-bit grayscale PNG.
    #[default]
    Png16,
    /// 8-bit grayscale PNG.
    Png8,
    /// Headerless 16-bit little-endian samples, row-major.
    Raw16,
    /// Binary PGM (P5) with maxval 65535: 16-bit samples, most significant
    /// byte first, as the Netpbm specification requires for maxval ≥ 256.
    Pgm,
    /// Headerless 32-bit little-endian floats, row-major: the heights
    /// themselves, bit for bit, not normalised.
    F32,
    /// A glTF 2.0 binary of the terrain mesh as the hologram shows it,
    /// written by `render::glb`, not by [`encode`].
    Glb,
    /// A binary STL of the diorama as one solid to print, millimetres,
    /// written by `render::print`, not by [`encode`].
    Stl,
    /// A 3MF package of the same solid, written by `render::print`.
    ThreeMf,
}

impl Format {
    /// Every format, in the order the help text lists them.
    pub const ALL: [Format; 8] = [
        Format::Png16,
        Format::Png8,
        Format::Raw16,
        Format::Pgm,
        Format::F32,
        Format::Glb,
        Format::Stl,
        Format::ThreeMf,
    ];

    /// Whether it is a mesh (written by the renderer), not the heights' samples.
    pub fn is_mesh(self) -> bool {
        matches!(self, Format::Glb | Format::Stl | Format::ThreeMf)
    }

    /// Whether it is a solid to print (STL or 3MF).
    pub fn is_print(self) -> bool {
        matches!(self, Format::Stl | Format::ThreeMf)
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Png16 => "png16",
            Format::Png8 => "png8",
            Format::Raw16 => "raw16",
            Format::Pgm => "pgm",
            Format::F32 => "f32",
            Format::Glb => "glb",
            Format::Stl => "stl",
            Format::ThreeMf => "3mf",
        }
    }

    /// The usual file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png16 | Format::Png8 => "png",
            Format::Raw16 => "raw",
            Format::Pgm => "pgm",
            Format::F32 => "f32",
            Format::Glb => "glb",
            Format::Stl => "stl",
            Format::ThreeMf => "3mf",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = ExportError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| ExportError::UnknownFormat {
                name: name.to_string(),
            })
    }
}

/// Heights mapped onto `0..=65535`; see the module documentation. A flat
/// map, or a range with `hi <= lo`, gives all zeros.
pub fn normalize_u16(map: &Heightmap, range: Option<(f32, f32)>) -> Vec<u16> {
    let mut out = Vec::with_capacity(map.cells().len());
    normalize_with(map, range, f64::from(u16::MAX), |v| out.push(v as u16));
    out
}

/// Heights mapped onto `0..=255`; see [`normalize_u16`].
pub fn normalize_u8(map: &Heightmap, range: Option<(f32, f32)>) -> Vec<u8> {
    let mut out = Vec::with_capacity(map.cells().len());
    normalize_with(map, range, f64::from(u8::MAX), |v| out.push(v as u8));
    out
}

/// Calls `push` with each cell's normalised value, already rounded and within `0..=top`.
fn normalize_with(map: &Heightmap, range: Option<(f32, f32)>, top: f64, mut push: impl FnMut(f64)) {
    let (lo, hi) = range.unwrap_or_else(|| map.min_max());
    let (lo, hi) = (f64::from(lo), f64::from(hi));
    // False for a flat map, an inverted range and NaN ends alike.
    let has_relief = hi > lo;
    if !has_relief {
        map.cells().iter().for_each(|_| push(0.0));
        return;
    }
    let scale = top / (hi - lo);
    for &h in map.cells() {
        // NaN heights fall through clamp and become 0 when cast.
        push(((f64::from(h) - lo) * scale).clamp(0.0, top).round());
    }
}

/// The file contents of `map` in `format`, normalised over `range` (the
/// map's own min..max when `None`; `f32` ignores it); an error for
/// the meshes ([`Format::is_mesh`]), which are not samples.
pub fn encode(
    map: &Heightmap,
    format: Format,
    range: Option<(f32, f32)>,
) -> Result<Vec<u8>, ExportError> {
    if let Some((lo, hi)) = range
        && !(lo.is_finite() && hi.is_finite() && lo < hi)
    {
        return Err(ExportError::InvalidRange { lo, hi });
    }
    match format {
        Format::Png16 => {
            let samples = normalize_u16(map, range);
            let bytes: Vec<u8> = samples.iter().flat_map(|v| v.to_be_bytes()).collect();
            encode_png(map, png::BitDepth::Sixteen, &bytes)
        }
        Format::Png8 => encode_png(map, png::BitDepth::Eight, &normalize_u8(map, range)),
        Format::Raw16 => Ok(normalize_u16(map, range)
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()),
        Format::Pgm => {
            let header = format!("P5\n{} {}\n65535\n", map.width(), map.height());
            let mut bytes = Vec::with_capacity(header.len() + 2 * map.cells().len());
            bytes.extend_from_slice(header.as_bytes());
            for v in normalize_u16(map, range) {
                bytes.extend_from_slice(&v.to_be_bytes());
            }
            Ok(bytes)
        }
        Format::F32 => Ok(map.cells().iter().flat_map(|h| h.to_le_bytes()).collect()),
        Format::Glb | Format::Stl | Format::ThreeMf => Err(ExportError::NotSamples { format }),
    }
}

/// A grayscale PNG of `map`'s size from already packed big-endian samples.
fn encode_png(
    map: &Heightmap,
    depth: png::BitDepth,
    samples: &[u8],
) -> Result<Vec<u8>, ExportError> {
    let side =
        |n: usize| u32::try_from(n).map_err(|_| ExportError::Png(format!("side {n} exceeds u32")));
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, side(map.width())?, side(map.height())?);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(depth);
    let png_error = |e: png::EncodingError| ExportError::Png(e.to_string());
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(samples).map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    Ok(out)
}

/// Writes `bytes` to `path` so that the file is either absent (or as it
/// was) or complete: the data goes to a temporary file in the same
/// directory, which is then renamed over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    write_all_atomically(&[(path, bytes)])
}

/// Writes several files so that either all of them are complete or none is
/// touched (bar a failure of the final renames themselves).
pub fn write_all_atomically(files: &[(&Path, &[u8])]) -> Result<(), ExportError> {
    for (path, _) in files {
        let dir = crate::atomic_file::folder_of(path);
        if !dir.is_dir() {
            return Err(ExportError::MissingDirectory {
                path: dir.to_path_buf(),
            });
        }
    }
    crate::atomic_file::write_all(files).map_err(|(path, error)| ExportError::Io {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// Heights -1, 0, 0.5, 1, 3 plus one more, so min -1 and max 3.
    fn sample_map() -> Heightmap {
        Heightmap::from_cells(3, 2, vec![-1.0, 0.0, 0.5, 1.0, 3.0, 2.0]).unwrap()
    }

    fn decode_png(bytes: &[u8]) -> (png::OutputInfo, Vec<u8>) {
        let decoder = png::Decoder::new(Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info, buf)
    }

    #[test]
    fn normalisation_spans_min_to_max_with_rounding() {
        // (h + 1) / 4 · 65535: 0, 16383.75 → 16384, 24575.625 → 24576,
        // 32767.5 → 32768 (half away from zero), 65535, 49151.25 → 49151.
        assert_eq!(
            normalize_u16(&sample_map(), None),
            [0, 16384, 24576, 32768, 65535, 49151]
        );
        // · 255: 0, 63.75 → 64, 95.625 → 96, 127.5 → 128, 255, 191.25 → 191.
        assert_eq!(
            normalize_u8(&sample_map(), None),
            [0, 64, 96, 128, 255, 191]
        );
    }

    #[test]
    fn a_fixed_range_clamps_heights_outside_it() {
        // Range 0..2: -1 clamps to 0, 3 clamps to the top.
        assert_eq!(
            normalize_u8(&sample_map(), Some((0.0, 2.0))),
            [0, 0, 64, 128, 255, 255]
        );
    }

    #[test]
    fn a_flat_map_normalises_to_zero() {
        let map = Heightmap::from_cells(2, 2, vec![5.0; 4]).unwrap();
        assert_eq!(normalize_u16(&map, None), [0; 4]);
        assert_eq!(normalize_u8(&map, None), [0; 4]);
    }

    #[test]
    fn png16_decodes_to_the_normalised_samples() {
        let map = sample_map();
        let (info, buf) = decode_png(&encode(&map, Format::Png16, None).unwrap());
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(info.color_type, png::ColorType::Grayscale);
        assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
        let samples: Vec<u16> = buf
            .chunks_exact(2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(samples, normalize_u16(&map, None));
    }

    #[test]
    fn png8_decodes_to_the_normalised_samples() {
        let map = sample_map();
        let (info, buf) = decode_png(&encode(&map, Format::Png8, None).unwrap());
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        assert_eq!(info.color_type, png::ColorType::Grayscale);
        assert_eq!(buf, normalize_u8(&map, None));
    }

    #[test]
    fn raw16_is_little_endian_row_major() {
        let bytes = encode(&sample_map(), Format::Raw16, None).unwrap();
        assert_eq!(bytes.len(), 2 * 6);
        // Sample 1 is 16384 = 0x4000, sample 4 is 65535.
        assert_eq!(&bytes[2..4], &[0x00, 0x40]);
        assert_eq!(&bytes[8..10], &[0xFF, 0xFF]);
    }

    #[test]
    fn pgm_has_a_p5_header_and_big_endian_samples() {
        let bytes = encode(&sample_map(), Format::Pgm, None).unwrap();
        let header = b"P5\n3 2\n65535\n";
        assert_eq!(&bytes[..header.len()], header);
        assert_eq!(bytes.len(), header.len() + 2 * 6);
        // Sample 1 is 16384 = 0x4000, most significant byte first.
        assert_eq!(&bytes[header.len() + 2..header.len() + 4], &[0x40, 0x00]);
    }

    #[test]
    fn f32_reads_back_as_the_heights_bit_for_bit() {
        // Negative zero, a subnormal, the extremes and a NaN keep their bits.
        let cells = vec![
            -1.0,
            0.1,
            -0.0,
            1e-40,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::from_bits(0x7FC0_1234),
            3.0,
        ];
        let map = Heightmap::from_cells(4, 2, cells.clone()).unwrap();
        let bytes = encode(&map, Format::F32, Some((0.0, 1.0))).unwrap();
        assert_eq!(bytes.len(), 4 * cells.len());
        let read: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_bits())
            .collect();
        let want: Vec<u32> = cells.iter().map(|h| h.to_bits()).collect();
        assert_eq!(read, want);
        // 0.1 is 0x3DCCCCCD, least significant byte first.
        assert_eq!(&bytes[4..8], &[0xCD, 0xCC, 0xCC, 0x3D]);
    }

    #[test]
    fn meshes_are_not_encoded_as_samples() {
        for format in [Format::Glb, Format::Stl, Format::ThreeMf] {
            assert!(format.is_mesh());
            assert!(matches!(
                encode(&sample_map(), format, None),
                Err(ExportError::NotSamples { format: f }) if f == format
            ));
        }
        assert!(
            Format::ALL
                .iter()
                .filter(|f| f.is_print())
                .eq([Format::Stl, Format::ThreeMf].iter())
        );
        assert_eq!(Format::Glb.extension(), "glb");
        assert_eq!("3mf".parse::<Format>().unwrap(), Format::ThreeMf);
        assert_eq!(Format::ThreeMf.extension(), "3mf");
        assert_eq!(Format::Stl.extension(), "stl");
        assert_eq!(Format::F32.extension(), "f32");
    }

    #[test]
    fn an_invalid_fixed_range_is_an_error() {
        for range in [(1.0, 1.0), (2.0, 1.0), (f32::NAN, 1.0)] {
            assert!(matches!(
                encode(&sample_map(), Format::Raw16, Some(range)),
                Err(ExportError::InvalidRange { .. })
            ));
        }
    }

    #[test]
    fn format_names_round_trip() {
        for format in Format::ALL {
            assert_eq!(format.name().parse::<Format>().unwrap(), format);
            assert_eq!(format.to_string(), format.name());
        }
    }

    #[test]
    fn an_unknown_format_lists_the_valid_names() {
        let message = "tiff".parse::<Format>().unwrap_err().to_string();
        assert!(message.contains("`tiff`"), "{message}");
        for format in Format::ALL {
            assert!(message.contains(format.name()), "{message}");
        }
    }

    #[test]
    fn write_atomically_into_a_missing_directory_fails_and_leaves_nothing() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("missing").join("map.png");
        let error = write_atomically(&path, b"data").unwrap_err();
        assert!(
            matches!(error, ExportError::MissingDirectory { .. }),
            "{error}"
        );
        assert!(!path.exists());
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
    }

    #[test]
    fn write_atomically_leaves_only_the_target_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.raw");
        std::fs::write(&path, b"old contents, longer than the new").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["map.raw"]);
    }

    #[test]
    fn write_atomically_over_a_directory_fails_without_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("taken");
        std::fs::create_dir(&target).unwrap();
        assert!(matches!(
            write_atomically(&target, b"data"),
            Err(ExportError::Io { .. })
        ));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["taken"]);
    }
}
