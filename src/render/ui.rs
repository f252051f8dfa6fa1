//! The controls layer on the CPU, shared by every backend: the bundled font
//! (DejaVu Sans Bold, `src/render/font/`, with its licence beside it), its glyph atlas
//! (printable ASCII rasterised once per process with fontdue), the measure
//! of a label's text, and the layout of a [`UiLayer`] into the vertices the
//! backends' controls pipelines draw, written into a buffer of fixed size so
//! no frame allocates.
use std::sync::OnceLock;

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};

use super::scene::{FrameScene, UiFill, UiLabel, UiLayer, UiQuad, UiRect};

/// The font every label is written in: DejaVu Sans Bold (Bitstream Vera
/// licence, `src/render/font/DejaVu-LICENSE.txt`); bold, because thin strokes fade
/// on an additive display.
pub const FONT: &[u8] = include_bytes!("font/DejaVuSans-Bold.ttf");

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

/// Most quads a frame draws (the panel's history page, with four saves'
/// pictures of 54 cells each, takes about 240); those past it are left out.
pub const MAX_UI_QUADS: usize = 384;
/// Most glyphs (characters with ink; spaces take none) a frame draws
/// across all its labels; glyphs past it are left out.
pub const MAX_UI_GLYPHS: usize = 1024;
/// Vertices a frame's controls can take: for every quad and glyph, its own
/// copy for each eye, each clipped to that eye's view (a quad clipped by
/// six planes has at most ten corners: eight triangles).
pub const MAX_UI_VERTICES: usize = (MAX_UI_QUADS + MAX_UI_GLYPHS) * 2 * MAX_CLIPPED_VERTICES;
/// Vertices of a quad clipped by the view's six planes: a fan of at most
/// ten corners' triangles.
const MAX_CLIPPED_VERTICES: usize = 3 * (MAX_POLYGON - 2);
/// Corners a quad can have once clipped: four, and one more per plane.
const MAX_POLYGON: usize = 10;
/// `UiVertex::kind` carries which eye a vertex is for in its multiples of
/// this: 0 both, 1 the left only, 2 the right only.
pub const KIND_EYE_STEP: f32 = 4.0;

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
    /// [`KIND_SOLID`], [`KIND_RING`] or [`KIND_GLYPH`], plus
    /// [`KIND_EYE_STEP`] times the eye it is for (0: both; 1 left, 2 right).
    pub kind: f32,
    /// The ring's coordinates or the glyph's atlas texel (see the kinds).
    pub uv: [f32; 2],
    /// Linear RGB and opacity.
    pub color: [f32; 4],
}

/// Each eye's projection × view as [`layout_ui`] clips with: the scene's,
/// in Vulkan's clip space (a backend's own differs at most by y's sign,
/// which clipping within ±w does not see).
pub fn eye_clips(scene: &FrameScene<'_>) -> [Mat4; 2] {
    scene.views.map(|eye| eye.projection * eye.view)
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

    /// A capital letter's height, in ems.
    fn cap_ems(&self) -> f32 {
        let h = self.glyph('H');
        h.quad[3] - h.quad[1] - 2.0 * PADDING as f32 / GLYPH_PX
    }

    /// Metres per em of a text `text_ems` wide written in a rectangle
    /// `width` × `height`: the line fills the height unless the text is
    /// too wide, then it shrinks to fit the width.
    fn em_size(&self, text_ems: f32, width: f32, height: f32) -> f32 {
        (height / self.line_ems()).min(width / text_ems)
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
    atlas.cap_ems() * height / atlas.line_ems()
}

/// The height of the capitals of `label` as [`layout_ui`] draws them: as
/// [`cap_height`] of its rectangle, or smaller when its text is shrunk to
/// fit the rectangle's width; 0 when it draws nothing.
pub fn drawn_cap_height(label: &UiLabel) -> f32 {
    let atlas = atlas();
    let (width, height) = (
        2.0 * label.rect.right.length(),
        2.0 * label.rect.up.length(),
    );
    let text_ems = atlas.width_ems(&label.text);
    if width <= 0.0 || height <= 0.0 || text_ems <= 0.0 {
        return 0.0;
    }
    atlas.cap_ems() * atlas.em_size(text_ems, width, height)
}

/// Writes the vertices of `layer` into `out`: the quads in order, then the
/// labels' glyphs, each a line centred in its rectangle, as tall as its
/// height allows and shrunk to fit its width. Returns how many vertices
/// were written. Quads past [`MAX_UI_QUADS`], glyphs past
/// [`MAX_UI_GLYPHS`] and whatever would not fit in `out` are left out;
/// a rectangle with no area draws nothing. Never allocates.
///
/// `eyes` are the eyes' projection × view (clip space with x and y within
/// ±w and z within 0..w). A quad inside both eyes' views is written once for
/// both; one that crosses a view's edge is written once per eye, clipped on
/// the CPU to that eye's view, so the GPU never clips a controls triangle:
/// Mesa's lavapipe (Debian 12) drew the clipped parts of the right eye's
/// triangles into the left eye's image under multiview.
pub fn layout_ui(layer: &UiLayer<'_>, eyes: &[Mat4; 2], out: &mut [UiVertex]) -> usize {
    let mut writer = Writer {
        out,
        written: 0,
        eyes,
    };
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

/// Fills a vertex slice two triangles at a time (or a clipped quad's fan).
struct Writer<'a> {
    /// Where the vertices go.
    out: &'a mut [UiVertex],
    /// How many are written.
    written: usize,
    /// Each eye's projection × view.
    eyes: &'a [Mat4; 2],
}

/// A corner of a quad being clipped: where it is, in clip space and in the
/// room, and its uv.
#[derive(Clone, Copy, Default)]
struct Corner {
    clip: Vec4,
    position: Vec3,
    uv: [f32; 2],
}

impl Corner {
    /// The point `t` of the way from `self` to `other`.
    fn lerp(self, other: Corner, t: f32) -> Corner {
        Corner {
            clip: self.clip.lerp(other.clip, t),
            position: self.position.lerp(other.position, t),
            uv: [
                self.uv[0] + (other.uv[0] - self.uv[0]) * t,
                self.uv[1] + (other.uv[1] - self.uv[1]) * t,
            ],
        }
    }
}

/// How far inside each of the view's six planes a clip-space point is
/// (negative: outside). The planes sit a thousandth of the view inside
/// its edges (a third of a pixel on a 640-pixel eye), so that a corner the
/// CPU put on an edge is inside for the GPU too, whatever its rounding.
fn plane_distances(clip: Vec4) -> [f32; 6] {
    let w = clip.w * (1.0 - CLIP_MARGIN);
    [
        w + clip.x,
        w - clip.x,
        w + clip.y,
        w - clip.y,
        clip.z - clip.w * CLIP_MARGIN,
        w - clip.z,
    ]
}

/// How far inside the view's edges [`plane_distances`] puts its planes, in
/// units of w.
const CLIP_MARGIN: f32 = 1e-3;

/// A convex polygon of at most [`MAX_POLYGON`] corners, on the stack.
#[derive(Clone, Copy)]
struct Polygon {
    corners: [Corner; MAX_POLYGON],
    len: usize,
}

impl Polygon {
    /// The part of `self` inside plane `plane` (Sutherland–Hodgman).
    fn clipped(&self, plane: usize) -> Polygon {
        let mut out = Polygon {
            corners: [Corner::default(); MAX_POLYGON],
            len: 0,
        };
        let mut push = |corner: Corner| {
            if out.len < MAX_POLYGON {
                out.corners[out.len] = corner;
                out.len += 1;
            }
        };
        for index in 0..self.len {
            let (from, to) = (self.corners[index], self.corners[(index + 1) % self.len]);
            let (d_from, d_to) = (
                plane_distances(from.clip)[plane],
                plane_distances(to.clip)[plane],
            );
            if d_from >= 0.0 {
                push(from);
            }
            if (d_from >= 0.0) != (d_to >= 0.0) {
                push(from.lerp(to, d_from / (d_from - d_to)));
            }
        }
        out
    }
}

impl Writer<'_> {
    /// Two triangles over the corners `[bottom left, bottom right, top
    /// right, top left]` with their uvs, for both eyes when inside both
    /// views, else clipped for each; false when `out` is full.
    fn quad(&mut self, corners: [Vec3; 4], uvs: [[f32; 2]; 4], kind: f32, color: [f32; 4]) -> bool {
        let inside = |eye: usize| {
            corners.iter().all(|corner| {
                plane_distances(self.eyes[eye] * corner.extend(1.0))
                    .iter()
                    .all(|&distance| distance >= 0.0)
            })
        };
        if inside(0) && inside(1) {
            return self.fan(&corners, &uvs, kind, color);
        }
        for eye in 0..2 {
            let mut polygon = Polygon {
                corners: [Corner::default(); MAX_POLYGON],
                len: 4,
            };
            for (slot, (&position, &uv)) in polygon.corners.iter_mut().zip(corners.iter().zip(&uvs))
            {
                *slot = Corner {
                    clip: self.eyes[eye] * position.extend(1.0),
                    position,
                    uv,
                };
            }
            for plane in 0..6 {
                if polygon.len < 3 {
                    break;
                }
                polygon = polygon.clipped(plane);
            }
            if polygon.len < 3 {
                continue;
            }
            let clipped = &polygon.corners[..polygon.len];
            let positions: [Vec3; MAX_POLYGON] =
                std::array::from_fn(|i| clipped.get(i).map_or(Vec3::ZERO, |c| c.position));
            let clipped_uvs: [[f32; 2]; MAX_POLYGON] =
                std::array::from_fn(|i| clipped.get(i).map_or([0.0; 2], |c| c.uv));
            let eye_kind = kind + KIND_EYE_STEP * (eye + 1) as f32;
            if !self.fan(
                &positions[..polygon.len],
                &clipped_uvs[..polygon.len],
                eye_kind,
                color,
            ) {
                return false;
            }
        }
        true
    }

    /// The triangle fan over a convex polygon; false when `out` is full.
    fn fan(&mut self, positions: &[Vec3], uvs: &[[f32; 2]], kind: f32, color: [f32; 4]) -> bool {
        let count = 3 * (positions.len() - 2);
        let Some(slots) = self.out.get_mut(self.written..self.written + count) else {
            return false;
        };
        let order = (1..positions.len() - 1).flat_map(|i| [0, i, i + 1]);
        for (slot, corner) in slots.iter_mut().zip(order) {
            *slot = UiVertex {
                position: positions[corner].to_array(),
                kind,
                uv: uvs[corner],
                color,
            };
        }
        self.written += count;
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
    let size = atlas.em_size(text_ems, width, height);
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

    /// Eyes that see everything within a kilometre: nothing is clipped.
    const SEE_ALL: [Mat4; 2] = [Mat4::from_cols_array(&[
        0.001, 0.0, 0.0, 0.0, 0.0, 0.001, 0.0, 0.0, 0.0, 0.0, 0.0001, 0.0, 0.0, 0.0, 0.5, 1.0,
    ]); 2];

    fn laid_out(layer: &UiLayer<'_>) -> Vec<UiVertex> {
        let mut out = vec![UiVertex::default(); MAX_UI_VERTICES];
        let count = layout_ui(layer, &SEE_ALL, &mut out);
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
    fn a_labels_drawn_capitals_are_its_rects_unless_its_text_is_shrunk_to_fit() {
        let wide = label("Menu", 1.0, 0.04);
        assert!((drawn_cap_height(&wide) - cap_height(0.04)).abs() < 1e-7);
        let narrow = label("New terrain", 0.05, 0.04);
        let shrunk = 0.05 / text_width("New terrain", 0.04);
        assert!(shrunk < 1.0);
        assert!((drawn_cap_height(&narrow) - cap_height(0.04) * shrunk).abs() < 1e-7);
        assert_eq!(drawn_cap_height(&label("", 1.0, 0.04)), 0.0);
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
        assert_eq!(layout_ui(&layer, &SEE_ALL, &mut small), 18);
    }

    #[test]
    fn a_quad_across_one_eyes_edge_is_clipped_for_each_eye_and_never_leaves_a_view() {
        // Eyes looking down -z; the left eye sees x within ±z·1, the right
        // the same shifted 0.4 m right.
        let eye = |x: f32| {
            crate::render::camera::perspective_from_fov(-0.785, 0.785, 0.785, -0.785, 0.1, 10.0)
                * Mat4::from_translation(Vec3::new(-x, 0.0, 0.0))
        };
        let eyes = [eye(0.0), eye(0.4)];
        // 1 m away, from x = -0.8 to 0.8: inside the left view, across the
        // right view's left edge (x = -0.6 there).
        let quads = [UiQuad {
            rect: UiRect {
                centre: Vec3::new(0.0, 0.0, -1.0),
                right: Vec3::X * 0.8,
                up: Vec3::Y * 0.2,
            },
            color: [1.0; 4],
            fill: UiFill::Solid,
        }];
        let mut out = vec![UiVertex::default(); MAX_UI_VERTICES];
        let count = layout_ui(
            &UiLayer {
                quads: &quads,
                labels: &[],
            },
            &eyes,
            &mut out,
        );
        let vertices = &out[..count];
        let for_eye = |code: f32| -> Vec<&UiVertex> {
            vertices
                .iter()
                .filter(|vertex| (vertex.kind / KIND_EYE_STEP).floor() == code)
                .collect()
        };
        assert!(for_eye(0.0).is_empty(), "not shared: it crosses an edge");
        assert_eq!(for_eye(1.0).len(), 6, "whole in the left eye");
        let right = for_eye(2.0);
        assert!(right.len() >= 6);
        for vertex in &right {
            let clip = eyes[1] * Vec3::from_array(vertex.position).extend(1.0);
            assert!(
                plane_distances(clip).iter().all(|&d| d >= -1e-4),
                "{clip:?} is outside the right eye's view"
            );
        }
        let lowest_x = right.iter().map(|v| v.position[0]).fold(f32::MAX, f32::min);
        assert!(
            (lowest_x - -0.6).abs() < 3e-3,
            "cut at the right eye's edge: {lowest_x}"
        );
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
