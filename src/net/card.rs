//! `holoterrain share-card CODE --out card.png`: the session's code as a QR code to print and lay on the table, its text `holoterrain:CODE`.
//!
//! The QR code comes from the `qrcode` crate (error correction level M,
//! 15 % of it may be lost to a crease or a glare); the PNG is 8-bit
//! grayscale with the quiet zone of 4 modules the standard asks for, each
//! module [`MODULE_PIXELS`] pixels, and a pHYs chunk saying
//! [`DOTS_PER_INCH`], so that it prints with modules of
//! [`MODULE_MM`] mm whatever the viewer. Nothing reads it yet: a headset
//! that sees it is not built (docs/shared.md).
use std::path::Path;

use qrcode::{Color, EcLevel, QrCode};
use thiserror::Error;

use super::code::ShareCode;

/// What a card's QR code says before the code.
pub const CARD_PREFIX: &str = "holoterrain:";
/// Print resolution written into the PNG.
pub const DOTS_PER_INCH: u32 = 300;
/// Pixels per module: 24 at 300 dpi is 2.032 mm, large enough for a
/// headset's camera at arm's length.
pub const MODULE_PIXELS: u32 = 24;
/// A module's printed side, millimetres.
pub const MODULE_MM: f64 = MODULE_PIXELS as f64 * 25.4 / DOTS_PER_INCH as f64;
/// Light modules around the code, as the QR standard asks.
pub const QUIET_ZONE: u32 = 4;

/// Why the card was not written.
#[derive(Debug, Error)]
pub enum CardError {
    /// The code makes no QR code (never for a valid code: they are short).
    #[error("cannot make a QR code of {0}")]
    Qr(String),
    /// The file could not be written.
    #[error("cannot write {path}: {error}")]
    Write { path: String, error: std::io::Error },
}

/// A written card: its side in pixels and in printed millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Card {
    /// Modules across, quiet zone included.
    pub modules: u32,
    /// Pixels across.
    pub pixels: u32,
    /// Millimetres across when printed at [`DOTS_PER_INCH`].
    pub millimetres: f64,
}

/// The PNG of `code`'s card, and its size.
pub fn encode(code: &ShareCode) -> Result<(Vec<u8>, Card), CardError> {
    let text = format!("{CARD_PREFIX}{code}");
    let qr = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M)
        .map_err(|error| CardError::Qr(format!("{text}: {error}")))?;
    let width = qr.width() as u32;
    let modules = width + 2 * QUIET_ZONE;
    let pixels = modules * MODULE_PIXELS;
    let colors = qr.to_colors();
    let mut image = vec![255u8; (pixels * pixels) as usize];
    for (index, color) in colors.iter().enumerate() {
        if *color != Color::Dark {
            continue;
        }
        let (x, y) = (index as u32 % width, index as u32 / width);
        for row in 0..MODULE_PIXELS {
            let top = ((y + QUIET_ZONE) * MODULE_PIXELS + row) * pixels;
            let left = (x + QUIET_ZONE) * MODULE_PIXELS;
            let start = (top + left) as usize;
            image[start..start + MODULE_PIXELS as usize].fill(0);
        }
    }
    let mut png = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut png, pixels, pixels);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Eight);
        // Dots per metre, rounded: 300 dpi is 11 811.
        let per_metre = (DOTS_PER_INCH as f64 / 0.0254).round() as u32;
        encoder.set_pixel_dims(Some(png::PixelDimensions {
            xppu: per_metre,
            yppu: per_metre,
            unit: png::Unit::Meter,
        }));
        // Writing into memory fails only on a bug in the sizes above.
        let mut writer = encoder.write_header().expect("a PNG header in memory");
        writer
            .write_image_data(&image)
            .expect("the card's pixels match its size");
    }
    let card = Card {
        modules,
        pixels,
        millimetres: modules as f64 * MODULE_MM,
    };
    Ok((png, card))
}

/// Writes `code`'s card to `path` (through a temp file, so no half-written
/// card is ever seen).
pub fn write(code: &ShareCode, path: &Path) -> Result<Card, CardError> {
    let (png, card) = encode(code)?;
    crate::atomic_file::write(path, &png).map_err(|error| CardError::Write {
        path: path.display().to_string(),
        error,
    })?;
    Ok(card)
}
