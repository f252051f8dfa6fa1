//! Comparing the RGB PNGs two runs wrote of the same frame: mean absolute
//! difference, the share of pixels within a tolerance, and how much of the
//! image is terrain rather than the black clear colour.

use std::path::Path;

/// An RGB PNG as the simulator (and the test runtime) writes them: width,
/// height, pixels.
pub fn rgb_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).expect("PNG written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("PNG pixels");
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// How far two images of one frame are apart.
#[derive(Debug)]
pub struct ImageDifference {
    /// Mean absolute difference over every channel of every pixel, in 1/255.
    pub mean: f64,
    /// Share of pixels whose channels all differ by at most 8/255.
    pub within_8: f64,
    /// Share of pixels that are not black (the terrain) in the first image.
    pub terrain: f64,
}

/// How far `second` is from `first`, both RGB pixels of one image size.
pub fn image_difference(first: &[u8], second: &[u8]) -> ImageDifference {
    assert_eq!(first.len(), second.len(), "image sizes");
    let pixels = first.len() / 3;
    let total: u64 = first
        .iter()
        .zip(second)
        .map(|(a, b)| u64::from(a.abs_diff(*b)))
        .sum();
    let close = first
        .chunks_exact(3)
        .zip(second.chunks_exact(3))
        .filter(|(a, b)| a.iter().zip(*b).all(|(x, y)| x.abs_diff(*y) <= 8))
        .count();
    let terrain = first
        .chunks_exact(3)
        .filter(|pixel| pixel.iter().any(|&channel| channel > 0))
        .count();
    ImageDifference {
        mean: total as f64 / first.len() as f64,
        within_8: close as f64 / pixels as f64,
        terrain: terrain as f64 / pixels as f64,
    }
}
