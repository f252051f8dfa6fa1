//! A save's picture where the platform cannot read its frame back (an OpenXR session): the land seen from straight above, painted by its elevation palette and lit from the north-west, on the CPU.
use glam::Vec3;

use super::glb::Paint;
use super::palette::{Palette, terrain_color};
use crate::terrain::Heightmap;
use crate::terrain::normals::normals;

/// Pixels across and down of a relief picture: 3:2, as the simulator's
/// pictures of the moment are.
pub const RELIEF_SIZE: (u32, u32) = (240, 160);
/// Around the land: the panel's dark blue-grey.
const SURROUND: [u8; 3] = [28, 32, 44];

/// `map` seen from above as RGB rows, [`RELIEF_SIZE`]: the land fills a
/// square in the middle (a map that is not square is drawn on one, as the
/// hologram draws it), painted as `paint` says and shaded by the light.
pub fn relief(map: &Heightmap, paint: Paint) -> Vec<u8> {
    let (width, height) = RELIEF_SIZE;
    let side = height;
    let left = (width - side) / 2;
    // One unit of height is one map width of ground: the hologram's scale.
    let spacing = 1.0 / (map.width().max(2) - 1) as f32;
    let lit = normals(map, spacing).unwrap_or_else(|_| vec![[0.0, 1.0, 0.0]; map.cells().len()]);
    let palette: &Palette = Palette::named(paint.palette);
    let light = Vec3::new(-1.0, 2.0, -1.0).normalize();
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        for x in 0..width {
            if x < left || x >= left + side {
                rgb.extend_from_slice(&SURROUND);
                continue;
            }
            let column = ((x - left) as usize * map.width()) / side as usize;
            let row = (y as usize * map.height()) / side as usize;
            let index = row * map.width() + column;
            let normal = Vec3::from(lit[index]);
            let h = map.cells()[index];
            let color = Vec3::from(terrain_color(h, normal.y.abs(), palette, paint.sea_level));
            let shade = 0.35 + 0.65 * normal.dot(light).max(0.0);
            let under_sea = paint.sea_level.is_some_and(|sea| h < sea);
            let linear = if under_sea {
                Vec3::new(0.02, 0.08, 0.22)
            } else {
                color * shade
            };
            rgb.extend(linear.to_array().map(srgb_byte));
        }
    }
    rgb
}

/// A linear channel as an 8-bit sRGB byte.
fn srgb_byte(linear: f32) -> u8 {
    let c = linear.clamp(0.0, 1.0);
    let srgb = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * libm::powf(c, 1.0 / 2.4) - 0.055
    };
    (srgb * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::palette::PaletteName;

    #[test]
    fn the_land_fills_the_middle_square_and_higher_land_is_painted_otherwise() {
        let mut map = Heightmap::flat(33, 33).unwrap();
        for (index, h) in map.cells_mut().iter_mut().enumerate() {
            // Low in the west, high in the east.
            *h = (index % 33) as f32 / 32.0 * 0.25;
        }
        let paint = Paint {
            palette: PaletteName::Temperate,
            sea_level: None,
        };
        let rgb = relief(&map, paint);
        let (width, height) = RELIEF_SIZE;
        assert_eq!(rgb.len(), (width * height * 3) as usize);
        let pixel = |x: u32, y: u32| {
            let at = ((y * width + x) * 3) as usize;
            [rgb[at], rgb[at + 1], rgb[at + 2]]
        };
        assert_eq!(pixel(0, 80), SURROUND);
        assert_eq!(pixel(width - 1, 80), SURROUND);
        let (west, east) = (pixel(45, 80), pixel(194, 80));
        assert_ne!(west, SURROUND);
        assert_ne!(west, east, "the palette changes with height");
        // The same height is the same colour down a column.
        assert_eq!(pixel(45, 10), pixel(45, 150));
    }
}
