//! The simulator's output folder: side-by-side stereo PNGs, the growth APNG and report.json, each written to a temp file and renamed into place.
use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use tempfile::TempPath;

use super::error::SimError;
use crate::app::report::RunReport;
use crate::atomic_file;
use crate::render::backend::StereoImage;

/// Name of the machine-readable report.
pub const REPORT_FILE: &str = "report.json";
pub use crate::app::log::COMMAND_LOG_FILE;

/// The terrain the run ends with, as `generate --format png16` writes it.
pub const TERRAIN_PNG_FILE: &str = "terrain.png";

/// The same heights exactly, as `generate --format f32` writes them.
pub const TERRAIN_F32_FILE: &str = "terrain.f32";

/// Name of the animated PNG.
pub const APNG_FILE: &str = "growth.png";

/// The run's clicks as heard (`--sound`).
pub const SOUND_FILE: &str = "clicks.wav";

/// The file name of the snapshot of `frame`.
pub fn frame_file_name(frame: u64) -> String {
    format!("frame-{frame:05}.png")
}

/// Whether `name` is a file this simulator writes.
fn is_sim_output(name: &str) -> bool {
    name == REPORT_FILE
        || name == COMMAND_LOG_FILE
        || name == TERRAIN_PNG_FILE
        || name == TERRAIN_F32_FILE
        || name == APNG_FILE
        || name == SOUND_FILE
        || ["frame-", "capture-", "depth-"].iter().any(|prefix| {
            name.strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(".png"))
                .is_some_and(|digits| {
                    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                })
        })
}

/// Creates the output folder and removes what an earlier run left there, so
/// a failed run cannot leave an old report.json or stale frames that look
/// like its own. Files the simulator did not write are left alone.
pub fn prepare_out_dir(dir: &Path) -> Result<(), SimError> {
    fs::create_dir_all(dir).map_err(|source| SimError::output(dir, source))?;
    let entries = fs::read_dir(dir).map_err(|source| SimError::output(dir, source))?;
    for entry in entries {
        let entry = entry.map_err(|source| SimError::output(dir, source))?;
        let name = entry.file_name();
        if name.to_str().is_some_and(is_sim_output) {
            let path = entry.path();
            fs::remove_file(&path).map_err(|source| SimError::output(&path, source))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `dir/name` through a temp file in the same folder.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, SimError> {
    let path = dir.join(name);
    atomic_file::write(&path, bytes).map_err(|source| SimError::output(&path, source))?;
    Ok(path)
}

/// Both eyes side by side, left eye on the left, as opaque RGB (the clear
/// colour is transparent black; black is what an additive display shows as see-through).
pub fn side_by_side_rgb(image: &StereoImage) -> Vec<u8> {
    let width = image.width as usize;
    let mut rgb = Vec::with_capacity(width * 2 * image.height as usize * 3);
    for (left_row, right_row) in image
        .left
        .chunks_exact(width * 4)
        .zip(image.right.chunks_exact(width * 4))
    {
        for pixel in left_row.chunks_exact(4).chain(right_row.chunks_exact(4)) {
            rgb.extend_from_slice(&pixel[..3]);
        }
    }
    rgb
}

/// Encodes an RGB8 image as PNG bytes.
pub fn encode_png(width: u32, height: u32, rgb: &[u8], path: &Path) -> Result<Vec<u8>, SimError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    let mut writer = encoder
        .write_header()
        .map_err(|source| SimError::png(path, source))?;
    writer
        .write_image_data(rgb)
        .map_err(|source| SimError::png(path, source))?;
    writer
        .finish()
        .map_err(|source| SimError::png(path, source))?;
    Ok(bytes)
}

/// An animated PNG being written frame by frame into a temp file, renamed
/// into place only when every frame is in.
pub struct ApngWriter {
    /// The encoder, writing into the temp file.
    writer: png::Writer<BufWriter<File>>,
    /// The temp file, deleted if the writer is dropped unfinished.
    temp: TempPath,
    /// Where it goes when finished.
    path: PathBuf,
}

impl ApngWriter {
    /// Starts `dir/APNG_FILE` with `frames` frames of `width`×`height` RGB,
    /// each shown for `delay_num / delay_den` seconds, looping forever.
    pub fn create(
        dir: &Path,
        width: u32,
        height: u32,
        frames: u32,
        (delay_num, delay_den): (u16, u16),
    ) -> Result<Self, SimError> {
        let path = dir.join(APNG_FILE);
        let (file, temp) = atomic_file::temp_file_in(dir)
            .map_err(|source| SimError::output(dir, source))?
            .into_parts();
        let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        encoder
            .set_animated(frames, 0)
            .and_then(|()| encoder.set_frame_delay(delay_num, delay_den))
            .map_err(|source| SimError::png(&path, source))?;
        let writer = encoder
            .write_header()
            .map_err(|source| SimError::png(&path, source))?;
        Ok(ApngWriter { writer, temp, path })
    }

    /// Appends one frame.
    pub fn add_frame(&mut self, rgb: &[u8]) -> Result<(), SimError> {
        self.writer
            .write_image_data(rgb)
            .map_err(|source| SimError::png(&self.path, source))
    }

    /// Finishes the file and renames it into place.
    pub fn finish(self) -> Result<PathBuf, SimError> {
        let ApngWriter { writer, temp, path } = self;
        writer
            .finish()
            .map_err(|source| SimError::png(&path, source))?;
        temp.persist(&path)
            .map_err(|error| SimError::output(&path, error.error))?;
        Ok(path)
    }
}

/// What a simulator run did: the content of report.json.
pub type SimReport = RunReport;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_simulator_files_count_as_outputs() {
        assert!(is_sim_output("frame-00030.png"));
        assert!(is_sim_output("capture-00030.png"));
        assert!(is_sim_output("depth-00030.png"));
        assert!(!is_sim_output("capture-x.png"));
        assert!(is_sim_output("report.json"));
        assert!(!is_sim_output("frame-.png"));
        assert!(!is_sim_output("notes.txt"));
    }

    #[test]
    fn preparing_removes_stale_outputs_only() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(REPORT_FILE), "{}").unwrap();
        fs::write(dir.path().join("frame-00001.png"), "x").unwrap();
        fs::write(dir.path().join("mine.txt"), "keep").unwrap();
        prepare_out_dir(dir.path()).unwrap();
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, vec!["mine.txt"]);
    }

    #[test]
    fn side_by_side_puts_the_left_eye_first_and_drops_alpha() {
        let image = StereoImage {
            width: 1,
            height: 2,
            left: vec![1, 2, 3, 255, 4, 5, 6, 255],
            right: vec![7, 8, 9, 0, 10, 11, 12, 0],
        };
        assert_eq!(
            side_by_side_rgb(&image),
            vec![1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12]
        );
    }
}
