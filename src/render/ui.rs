//! The controls layer on the CPU, shared by every backend: the bundled font
//! (DejaVu Sans Bold, `fonts/`, with its licence beside it), its glyph atlas
//! (printable ASCII rasterised once per process with fontdue), the measure
//! of a label's text, and the layout of a [`UiLayer`] into the vertices the
//! backends' controls pipelines draw, written into a buffer of fixed size so
//! no frame allocates.
use std::sync::OnceLock;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use super::scene::{UiFill, UiLabel, UiLayer, UiQuad, UiRect};

/// The font every label is written in: DejaVu Sans Bold (Bitstream Vera
/// licence, `fonts/DejaVu-LICENSE.txt`); bold, because thin strokes fade
/// on an additive display.
pub const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans-Bold.ttf");

/// Pixels per em the glyphs are rasterised at. A 1.2 cm capital at 45 cm
/// covers about 25 pixels of a HoloLens 2 eye; 64 px per em (capitals
/// about 47 px tall) keeps the atlas above that with linear filtering.
pub const GLYPH_PX: f32 = 64.0;

/// Width of the atlas in texels: the shaders index it with this constant.
pub const ATLAS_WIDTH: u32 = 1024;

/// Empty texels around each glyph's bitmap in the atlas, so linear
/// filtering at a quad's edge fades to nothing instead of reading a
/// neighbour.
const PADDING: u32 = 2;

/// The first and last character in the atlas (printable ASCII); any other
/// character is drawn as `?`.
const FIRST_CHAR: u8 = b' ';
const LAST_CHAR: u8 = b'~';
const GLYPH_COUNT: usize = (LAST_CHAR - FIRST_CHAR + 1) as usize;

/// Most quads a frame draws; those past it are left out.
pub const MAX_UI_QUADS: usize = 64;
/// Most glyphs (characters with ink; spaces take none) a frame draws
/// across all its labels; glyphs past it are left out.
pub const MAX_UI_GLYPHS: usize = 1024;
/// Vertices a frame's controls can take: two triangles per quad and per glyph.
pub const MAX_UI_VERTICES: usize = (MAX_UI_QUADS + MAX_UI_GLYPHS) * VERTICES_PER_QUAD;
/// Two triangles, not indexed.
const VERTICES_PER_QUAD: usize = 6;

/// `UiVertex::kind` of a solid quad: its colour everywhere.
pub const KIND_SOLID: f32 = 0.0;
/// `UiVertex::kind` of a ring: `uv` runs from (-1, -1) to (1, 1) across the
/// rectangle, and the ring covers radii from 2/3 to 1.
pub const KIND_RING: f32 = 1.0;
/// `UiVertex::kind` of a glyph: `uv` is in atlas texels.
pub const KIND_GLYPH: f32 = 2.0;

/// One vertex of the controls layer, as both backends' vertex buffers hold it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct UiVertex {
    /// Where, in the reference space (metres).
    pub position: [f32; 3],
    /// [`KIND_SOLID`], [`KIND_RING`] or [`KIND_GLYPH`].
    pub kind: f32,
    /// The ring's coordinates or the glyph's atlas texel (see the kinds).
    pub uv: [f32; 2],
    /// Linear RGB and opacity.
    pub color: [f32; 4],
}

/// Where one character is in the atlas and how it sits on the line.
#[derive(Clone, Copy, Debug, Default)]
struct Glyph {
    /// Pen advance, in ems.
    advance: f32,
    /// The quad's left, bottom, right and top edges (padding included)
    /// from the pen on the baseline, in ems; y up.
    quad: [f32; 4],
    /// The same edges in atlas texels: left, bottom, right, top (y down,
    /// so bottom > top).
    texels: [f32; 4],
    /// Whether it has ink (a space has none).
    visible: bool,
}

/// The glyph atlas: one coverage byte per texel, rows of [`ATLAS_WIDTH`],
/// with each glyph's place and metrics.
pub struct GlyphAtlas {
    /// Rows of texels.
    height: u32,
    /// Coverage, 0 to 255, row by row.
    texels: Vec<u8>,
    /// Printable ASCII, from the space.
    glyphs: [Glyph; GLYPH_COUNT],
    /// The line's top above the baseline, in ems.
    ascent: f32,
    /// The line's bottom below the baseline, in ems (negative).
    descent: f32,
}

impl GlyphAtlas {
    /// Rasterises printable ASCII from [`FONT`] at [`GLYPH_PX`], packed in
    /// shelves of [`ATLAS_WIDTH`] texels.
    fn build() -> Self {
        let font = fontdue::Font::from_bytes(FONT, fontdue::FontSettings::default())
            .expect("the bundled font parses");
        let line = font
            .horizontal_line_metrics(GLYPH_PX)
            .expect("the bundled font has horizontal metrics");
        let bitmaps: Vec<(fontdue::Metrics, Vec<u8>)> = (FIRST_CHAR..=LAST_CHAR)
            .map(|byte| font.rasterize(char::from(byte), GLYPH_PX))
            .collect();
        // Shelf packing; a one-texel gap at the atlas' left and top edges
        // keeps every texel a quad's filtering reads inside the atlas.
        let mut places = Vec::with_capacity(GLYPH_COUNT);
        let (mut x, mut y, mut shelf) = (1, 1, 0);
        for (metrics, _) in &bitmaps {
            let (w, h) = (
                metrics.width as u32 + 2 * PADDING,
                metrics.height as u32 + 2 * PADDING,
            );
            if x + w + 1 > ATLAS_WIDTH {
                (x, y, shelf) = (1, y + shelf, 0);
            }
            places.push((x, y));
            x += w;
            shelf = shelf.max(h);
        }
        let height = y + shelf + 1;
        let mut texels = vec![0u8; (ATLAS_WIDTH * height) as usize];
        let mut glyphs = [Glyph::default(); GLYPH_COUNT];
        for (((metrics, bitmap), &(x, y)), glyph) in bitmaps.iter().zip(&places).zip(&mut glyphs) {
            let (w, h) = (metrics.width as u32, metrics.height as u32);
            for row in 0..h {
                let from = (row * w) as usize;
                let to = ((y + PADDING + row) * ATLAS_WIDTH + x + PADDING) as usize;
                texels[to..to + w as usize].copy_from_slice(&bitmap[from..from + w as usize]);
            }
            let pad = PADDING as f32;
            let em = |pixels: f32| pixels / GLYPH_PX;
            *glyph = Glyph {
                advance: em(metrics.advance_width),
                quad: [
                    em(metrics.xmin as f32 - pad),
                    em(metrics.ymin as f32 - pad),
                    em(metrics.xmin as f32 + w as f32 + pad),
                    em(metrics.ymin as f32 + h as f32 + pad),
                ],
                texels: [
                    x as f32,
                    (y + h + 2 * PADDING) as f32,
                    (x + w + 2 * PADDING) as f32,
                    y as f32,
                ],
                visible: w > 0 && h > 0,
            };
        }
        GlyphAtlas {
            height,
            texels,
            glyphs,
            ascent: line.ascent / GLYPH_PX,
            descent: line.descent / GLYPH_PX,
        }
    }

    /// Texels per row ([`ATLAS_WIDTH`]).
    pub fn width(&self) -> u32 {
        ATLAS_WIDTH
    }

    /// Rows of texels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The coverage bytes, row by row. Read as little-endian 32-bit words
    /// (texel `i` in bits `8 × (i mod 4)` of word `i / 4`, which is how the
    /// shaders read them), they are the GPU's copy: the width is a multiple
    /// of 4.
    pub fn texels(&self) -> &[u8] {
        &self.texels
    }

    /// The glyph `character` is drawn with.
    fn glyph(&self, character: char) -> &Glyph {
        let index = u8::try_from(character)
            .ok()
            .filter(|byte| (FIRST_CHAR..=LAST_CHAR).contains(byte))
            .unwrap_or(b'?');
        &self.glyphs[usize::from(index - FIRST_CHAR)]
    }

    /// The line's height (ascent to descent), in ems.
    fn line_ems(&self) -> f32 {
        self.ascent - self.descent
    }

    /// The text's advance, in ems.
    fn width_ems(&self, text: &str) -> f32 {
        text.chars()
            .map(|character| self.glyph(character).advance)
            .sum()
    }
}

/// The atlas, built the first time it is asked for (a few milliseconds).
pub fn atlas() -> &'static GlyphAtlas {
    static ATLAS: OnceLock<GlyphAtlas> = OnceLock::new();
    ATLAS.get_or_init(GlyphAtlas::build)
}

/// The width `text` takes written in a rectangle `height` tall (the line,
/// ascent to descent, fills the height), before any shrinking to fit: a
/// label whose rectangle is narrower than this is drawn smaller. For sizing
/// buttons and panels to their labels.
pub fn text_width(text: &str, height: f32) -> f32 {
    let atlas = atlas();
    atlas.width_ems(text) * height / atlas.line_ems()
}

/// The height of a capital letter in a label whose rectangle is `height`
/// tall and wide enough for its text (what a reader sees as the text's size).
pub fn cap_height(height: f32) -> f32 {
    let atlas = atlas();
    let h = atlas.glyph('H');
    (h.quad[3] - h.quad[1] - 2.0 * PADDING as f32 / GLYPH_PX) * height / atlas.line_ems()
}

/// Writes the vertices of `layer` into `out`: the quads in order, then the
/// labels' glyphs, each a line centred in its rectangle, as tall as its
/// height allows and shrunk to fit its width. Returns how many vertices
/// were written. Quads past [`MAX_UI_QUADS`], glyphs past
/// [`MAX_UI_GLYPHS`] and whatever would not fit in `out` are left out;
/// a rectangle with no area draws nothing. Never allocates.
pub fn layout_ui(layer: &UiLayer<'_>, out: &mut [UiVertex]) -> usize {
    let mut writer = Writer { out, written: 0 };
    for quad in layer.quads.iter().take(MAX_UI_QUADS) {
        write_quad(&mut writer, quad);
    }
    let atlas = atlas();
    let mut glyphs_left = MAX_UI_GLYPHS;
    for label in layer.labels {
        glyphs_left = write_label(&mut writer, atlas, label, glyphs_left);
    }
    writer.written
}

/// Fills a vertex slice two triangles at a time.
struct Writer<'a> {
    /// Where the vertices go.
    out: &'a mut [UiVertex],
    /// How many are written.
    written: usize,
}

impl Writer<'_> {
    /// Two triangles over the corners `[bottom left, bottom right, top
    /// right, top left]` with their uvs; false when `out` is full.
    fn quad(&mut self, corners: [Vec3; 4], uvs: [[f32; 2]; 4], kind: f32, color: [f32; 4]) -> bool {
        let Some(slots) = self
            .out
            .get_mut(self.written..self.written + VERTICES_PER_QUAD)
        else {
            return false;
        };
        for (slot, corner) in slots.iter_mut().zip([0, 1, 2, 0, 2, 3]) {
            *slot = UiVertex {
                position: corners[corner].to_array(),
                kind,
                uv: uvs[corner],
                color,
            };
        }
        self.written += VERTICES_PER_QUAD;
        true
    }
}

/// The corners of `rect` from its centre: bottom left, bottom right, top
/// right, top left.
fn corners(rect: &UiRect) -> [Vec3; 4] {
    let UiRect { centre, right, up } = *rect;
    [
        centre - right - up,
        centre + right - up,
        centre + right + up,
        centre - right + up,
    ]
}

fn write_quad(writer: &mut Writer<'_>, quad: &UiQuad) {
    let (kind, uvs) = match quad.fill {
        UiFill::Solid => (KIND_SOLID, [[0.0; 2]; 4]),
        UiFill::Ring => (
            KIND_RING,
            [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]],
        ),
    };
    writer.quad(corners(&quad.rect), uvs, kind, quad.color);
}

/// Writes `label`'s glyphs, at most `glyphs_left`; returns how many may
/// still follow.
fn write_label(
    writer: &mut Writer<'_>,
    atlas: &GlyphAtlas,
    label: &UiLabel,
    mut glyphs_left: usize,
) -> usize {
    let UiRect { centre, right, up } = label.rect;
    let (width, height) = (2.0 * right.length(), 2.0 * up.length());
    let text_ems = atlas.width_ems(&label.text);
    if width <= 0.0 || height <= 0.0 || text_ems <= 0.0 {
        return glyphs_left;
    }
    // Metres per em: the line fills the height unless the text is too wide.
    let size = (height / atlas.line_ems()).min(width / text_ems);
    let (along, upward) = (right / (width / 2.0), up / (height / 2.0));
    // The line box (descent to ascent) centred on the rectangle's middle.
    let baseline = -(atlas.ascent + atlas.descent) / 2.0 * size;
    let mut pen = -text_ems / 2.0 * size;
    for character in label.text.chars() {
        let glyph = atlas.glyph(character);
        if glyph.visible {
            if glyphs_left == 0 {
                break;
            }
            let [left, bottom, right_edge, top] = glyph.quad;
            let at =
                |x: f32, y: f32| centre + along * (pen + x * size) + upward * (baseline + y * size);
            let [u0, v0, u1, v1] = glyph.texels;
            let written = writer.quad(
                [
                    at(left, bottom),
                    at(right_edge, bottom),
                    at(right_edge, top),
                    at(left, top),
                ],
                [[u0, v0], [u1, v0], [u1, v1], [u0, v1]],
                KIND_GLYPH,
                label.color,
            );
            if !written {
                return 0;
            }
            glyphs_left -= 1;
        }
        pen += glyph.advance * size;
    }
    glyphs_left
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(width: f32, height: f32) -> UiRect {
        UiRect {
            centre: Vec3::new(0.0, 1.0, -0.5),
            right: Vec3::X * width / 2.0,
            up: Vec3::Y * height / 2.0,
        }
    }

    fn label(text: &str, width: f32, height: f32) -> UiLabel {
        UiLabel {
            rect: rect(width, height),
            text: text.into(),
            color: [1.0; 4],
        }
    }

    fn laid_out(layer: &UiLayer<'_>) -> Vec<UiVertex> {
        let mut out = vec![UiVertex::default(); MAX_UI_VERTICES];
        let count = layout_ui(layer, &mut out);
        out.truncate(count);
        out
    }

    #[test]
    fn the_atlas_holds_printable_ascii_sharp_enough_and_inside_its_bounds() {
        let atlas = atlas();
        assert_eq!(
            atlas.texels().len(),
            (ATLAS_WIDTH * atlas.height()) as usize
        );
        assert_eq!(atlas.texels().len() % 4, 0);
        assert!(atlas.height() <= 512, "{} rows", atlas.height());
        // Capitals at least 45 texels tall.
        let h = atlas.glyph('H');
        assert!((h.texels[1] - h.texels[3]) - 2.0 * PADDING as f32 >= 45.0);
        for byte in FIRST_CHAR..=LAST_CHAR {
            let glyph = atlas.glyph(char::from(byte));
            assert_eq!(glyph.visible, byte != b' ', "{}", char::from(byte));
            let [u0, v0, u1, v1] = glyph.texels;
            // Filtering reads half a texel beyond the quad's edge.
            assert!(u0 >= 1.0 && v1 >= 1.0, "{}", char::from(byte));
            assert!(u1 < ATLAS_WIDTH as f32 && v0 < atlas.height() as f32);
        }
        let ink: u32 = atlas.texels().iter().map(|&t| u32::from(t)).sum();
        assert!(ink > 0);
    }

    #[test]
    fn quads_come_first_in_order_then_labels_and_spaces_take_no_glyph() {
        let quads = [
            UiQuad {
                rect: rect(0.1, 0.05),
                color: [1.0, 0.0, 0.0, 1.0],
                fill: UiFill::Solid,
            },
            UiQuad {
                rect: rect(0.02, 0.02),
                color: [0.0, 1.0, 0.0, 1.0],
                fill: UiFill::Ring,
            },
        ];
        let labels = [label("A b", 0.1, 0.05)];
        let vertices = laid_out(&UiLayer {
            quads: &quads,
            labels: &labels,
        });
        assert_eq!(vertices.len(), 4 * 6);
        assert_eq!(vertices[0].kind, KIND_SOLID);
        assert_eq!(vertices[6].kind, KIND_RING);
        assert_eq!(vertices[12].kind, KIND_GLYPH);
        assert_eq!(vertices[23].kind, KIND_GLYPH);
    }

    /// The glyphs' extent along x and y, relative to the rectangle's centre.
    fn extent(vertices: &[UiVertex]) -> ([f32; 2], [f32; 2]) {
        let xs = vertices.iter().map(|v| v.position[0]);
        let ys = vertices.iter().map(|v| v.position[1] - 1.0);
        (
            [
                xs.clone().fold(f32::MAX, f32::min),
                xs.fold(f32::MIN, f32::max),
            ],
            [
                ys.clone().fold(f32::MAX, f32::min),
                ys.fold(f32::MIN, f32::max),
            ],
        )
    }

    #[test]
    fn a_label_is_centred_as_tall_as_its_rect_and_shrunk_to_fit_its_width() {
        // Wide: the height decides, and the text is centred.
        let labels = [label("Menu", 1.0, 0.04)];
        let wide = laid_out(&UiLayer {
            quads: &[],
            labels: &labels,
        });
        let ([left, right], [bottom, top]) = extent(&wide);
        assert!((left + right).abs() < 0.002, "{left} {right}");
        assert!(bottom >= -0.021 && top <= 0.021, "{bottom} {top}");
        assert!(top - bottom > 0.025, "{bottom} {top}");
        assert!((text_width("Menu", 0.04) - (right - left)).abs() < 0.01);
        // Narrow: the width decides.
        let labels = [label("New terrain", 0.05, 0.04)];
        let narrow = laid_out(&UiLayer {
            quads: &[],
            labels: &labels,
        });
        let ([left, right], [bottom, top]) = extent(&narrow);
        assert!(left >= -0.0255 && right <= 0.0255, "{left} {right}");
        assert!(top - bottom < 0.02, "shrunk: {bottom} {top}");
        assert!(text_width("New terrain", 0.04) > 0.05);
    }

    #[test]
    fn caps_and_a_full_buffer_leave_the_rest_out() {
        let long = "x".repeat(MAX_UI_GLYPHS + 10);
        let labels = [label(&long, 100.0, 0.01), label("more", 1.0, 0.01)];
        let vertices = laid_out(&UiLayer {
            quads: &[],
            labels: &labels,
        });
        assert_eq!(vertices.len(), MAX_UI_GLYPHS * 6);
        let mut small = [UiVertex::default(); 6 * 3];
        let labels = [label("abcdef", 1.0, 0.01)];
        let layer = UiLayer {
            quads: &[],
            labels: &labels,
        };
        assert_eq!(layout_ui(&layer, &mut small), 18);
    }

    #[test]
    fn characters_outside_printable_ascii_draw_a_question_mark() {
        let atlas = atlas();
        assert_eq!(atlas.glyph('é').texels, atlas.glyph('?').texels);
        assert_eq!(atlas.glyph('\t').texels, atlas.glyph('?').texels);
        assert_ne!(atlas.glyph('e').texels, atlas.glyph('?').texels);
    }

    #[test]
    fn cap_height_is_about_seven_tenths_of_the_ems() {
        // DejaVu's capitals are 0.73 em; the line is 1.16 em.
        let cap = cap_height(1.0);
        assert!((0.55..0.7).contains(&cap), "{cap}");
    }
}
