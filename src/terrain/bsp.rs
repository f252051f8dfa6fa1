//! BSP fault trees (Traagen, "HoloLens Terrain Generation Demo Part 4 – Fault Formation"): a tree of fault lines cuts the map into cells of constant offset.
//!
//! Each sample walks the tree from the root: on the right of a node's line it
//! gains the level's amplitude and goes right, otherwise it loses it and goes
//! left; the amplitude halves with depth. Two ways to draw the tree: every
//! node a random segment (unstructured), or children that leave their
//! parent's segment between 0.25 and 0.75 of its length, perpendicular to it
//! turned by up to ±45°, and end at the map border or at the first ancestor
//! they meet (structured).
use std::ops::Range;

use super::fixed::{to_f32, to_fixed};
use super::raster::{Line, RowSplitter};
use super::rng::TerrainRng;

/// Which of the demo blog's two tree builders to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeStyle {
    /// A random segment per node.
    Unstructured,
    /// Children grow off their parent's segment.
    Structured,
}

/// A complete binary tree of fault lines stored level by level: node `i` has
/// children `2i + 1` (left) and `2i + 2` (right).
#[derive(Debug, Clone, PartialEq)]
pub struct BspTree {
    /// Number of levels (1 = a single line).
    depth: u32,
    /// The segments, `2^depth − 1` of them.
    nodes: Vec<Line>,
    /// Fixed-point amplitude of each level: `amplitude / 2^level`.
    level_amplitude: Vec<i64>,
}

impl BspTree {
    /// Draws a tree for a `width` × `height` map. Nodes are drawn in pre-order
    /// (a node, then its left subtree, then its right), as the demo blog does.
    pub fn random(
        rng: &mut TerrainRng,
        style: TreeStyle,
        depth: u32,
        amplitude: f64,
        width: usize,
        height: usize,
    ) -> Self {
        let mut tree = BspTree::unset(depth, amplitude);
        tree.redraw(rng, style, width, height);
        tree
    }

    /// A tree of `depth` levels whose lines are all still to be drawn
    /// ([`BspTree::redraw`]); until then every line is degenerate.
    pub fn unset(depth: u32, amplitude: f64) -> Self {
        assert!(
            (1..=MAX_DEPTH).contains(&depth),
            "depth is validated by the caller"
        );
        BspTree {
            depth,
            nodes: vec![Line::new([0.0; 2], [0.0; 2]); (1usize << depth) - 1],
            level_amplitude: (0..depth)
                .map(|level| to_fixed(amplitude / (1u64 << level) as f64))
                .collect(),
        }
    }

    /// Draws new lines into this tree (same depth and amplitude), reusing
    /// its storage: the frame loop grows one tree a frame without allocating.
    pub fn redraw(&mut self, rng: &mut TerrainRng, style: TreeStyle, width: usize, height: usize) {
        let bounds = [(width - 1) as f64, (height - 1) as f64];
        self.build(rng, style, 0, bounds);
    }

    /// A tree with the given segments (level order) and amplitude.
    pub fn from_lines(nodes: Vec<Line>, amplitude: f64) -> Self {
        let depth = (nodes.len() + 1).trailing_zeros();
        assert_eq!(
            nodes.len() + 1,
            1 << depth,
            "a complete tree has 2^d - 1 nodes"
        );
        BspTree {
            depth,
            level_amplitude: (0..depth)
                .map(|level| to_fixed(amplitude / (1u64 << level) as f64))
                .collect(),
            nodes,
        }
    }

    fn build(&mut self, rng: &mut TerrainRng, style: TreeStyle, index: usize, bounds: [f64; 2]) {
        self.nodes[index] = if index == 0 || style == TreeStyle::Unstructured {
            Line::new(random_point(rng, bounds), random_point(rng, bounds))
        } else {
            self.grow_child(rng, index, bounds)
        };
        let left = 2 * index + 1;
        if left < self.nodes.len() {
            self.build(rng, style, left, bounds);
            self.build(rng, style, left + 1, bounds);
        }
    }

    /// The structured child `index`: starts on its parent between 0.25 and
    /// 0.75 of the way, leaves perpendicular to it turned by ±45°, and ends at
    /// the border or at the nearest ancestor segment (not the parent) it meets.
    fn grow_child(&self, rng: &mut TerrainRng, index: usize, bounds: [f64; 2]) -> Line {
        let parent_index = (index - 1) / 2;
        let parent = self.nodes[parent_index];
        let (px, py) = (
            parent.end[0] - parent.start[0],
            parent.end[1] - parent.start[1],
        );
        let along = rng.range(0.25, 0.75);
        let start = [parent.start[0] + along * px, parent.start[1] + along * py];
        // The right child leaves towards the parent's right (positive perp-dot).
        let (nx, ny) = if index % 2 == 1 { (-py, px) } else { (py, -px) };
        let theta = rng.range(-45.0, 45.0).to_radians();
        let (sin, cos) = (libm::sin(theta), libm::cos(theta));
        let dir = [nx * cos - ny * sin, nx * sin + ny * cos];
        if dir == [0.0, 0.0] {
            return Line::new(start, start);
        }
        let mut reach = border_exit(start, dir, bounds);
        let mut ancestor = parent_index;
        while ancestor > 0 {
            ancestor = (ancestor - 1) / 2;
            if let Some(t) = ray_hits_segment(start, dir, &self.nodes[ancestor])
                && t < reach
            {
                reach = t;
            }
        }
        Line::new(
            start,
            [start[0] + reach * dir[0], start[1] + reach * dir[1]],
        )
    }

    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The segments in level order.
    pub fn lines(&self) -> &[Line] {
        &self.nodes
    }

    /// Fixed-point amplitude of `level` (0 = root).
    pub fn level_amplitude(&self, level: u32) -> i64 {
        self.level_amplitude[level as usize]
    }

    /// The fixed-point offset of sample (x, y) found by walking the tree: the
    /// demo blog's per-pixel rule, kept for the reference and for single samples.
    pub fn offset_at(&self, x: usize, y: usize) -> i64 {
        let mut node = 0;
        let mut offset = 0;
        for level in 0..self.depth {
            let amp = self.level_amplitude[level as usize];
            if self.nodes[node].is_right(x, y) {
                offset += amp;
                node = 2 * node + 2;
            } else {
                offset -= amp;
                node = 2 * node + 1;
            }
        }
        offset
    }

    /// Adds the tree's offsets to a row-major fixed-point map. Each node's
    /// line splits the span its parent handed it, on every row, into its two
    /// children's spans; the leaves then add their constant offset to their
    /// spans. A row costs at most 2^depth − 1 splits and one pass of additions.
    pub fn add_to(&self, acc: &mut [i64], width: usize) {
        self.add_to_with(&mut BspScratch::default(), acc, width);
    }

    /// [`BspTree::add_to`] with buffers kept from call to call.
    pub fn add_to_with(&self, scratch: &mut BspScratch, acc: &mut [i64], width: usize) {
        scratch.prepare(self, width, acc.len() / width);
        let band_rows = scratch.band_rows();
        for (band, block) in acc.chunks_mut(band_rows * width).enumerate() {
            scratch.band(band * band_rows, block.len() / width);
            for (i, row) in block.chunks_exact_mut(width).enumerate() {
                for (span, offset) in scratch.row_spans(i) {
                    for cell in &mut row[span] {
                        *cell += offset;
                    }
                }
            }
        }
    }

    /// The offset every sample reaching `leaf` (an index past the internal
    /// nodes, in the same numbering) collects on its way down.
    fn path_offset(&self, leaf: usize) -> i64 {
        let mut offset = 0;
        let mut node = leaf;
        let mut level = self.depth;
        while node > 0 {
            level -= 1;
            let amp = self.level_amplitude[level as usize];
            offset += if node.is_multiple_of(2) { amp } else { -amp };
            node = (node - 1) / 2;
        }
        offset
    }
}

/// Most rows whose boundaries [`BspScratch::band`] works out at once: a
/// 257-row map in one block, as each block costs a little per node;
/// longer blocks save little more, and in a sweep shared between two
/// threads would work out rows past the half a thread needs.
const BLOCK_ROWS: usize = 320;

/// Boundaries kept at once: blocks get fewer rows as trees get deeper, so
/// the boundary table stays within this many entries (256 KiB) until, from
/// depth 14 on, a block is a single row and the table one entry per node,
/// as the row-at-a-time walk needed too.
const BLOCK_BOUND_BUDGET: usize = 1 << 15;

/// Where the boundary table keeps the row's first sample (0), and its end
/// (the width); node `n`'s split follows at `FIRST_SPLIT + n`.
const ROW_START: usize = 0;
const ROW_END: usize = 1;
const FIRST_SPLIT: usize = 2;

/// Samples a store of [`BspScratch::write_band_change`] writes.
const STORE: usize = 32;

/// A tree prepared for working out, a band of rows at a time, which samples
/// of each row reach each leaf; its buffers are kept so that a tree a frame
/// costs no allocation.
///
/// Along a row the leaves' spans come in the same order on every row (each
/// node's two children keep their order), so a row is cut by one boundary
/// per internal node: where that node splits the span between two earlier
/// boundaries (its ancestors' splits, or the row's ends) into its two
/// children's. The boundaries are worked out for a block of rows ahead of
/// the bands that use them, node by node from the root rather than row by
/// row: each node only over the rows from the first to the last that has
/// samples reaching it (a node's samples lie in a convex cell, so few rows
/// in between have none), in one loop over its line equation that runs on
/// vector registers ([`RowSplitter::split_spans`]). Boundaries are kept as
/// f64 (integers, exact) so that the loop stays in vector registers.
#[derive(Clone, Debug, Default)]
pub struct BspScratch {
    /// Map width.
    width: usize,
    /// Map rows.
    rows: usize,
    /// Internal nodes of the prepared tree; the leaves follow them.
    internal: usize,
    /// Rows per block, [`BLOCK_ROWS`] or fewer for deep trees.
    block_rows: usize,
    /// The first map row of the block the boundary table holds.
    block_first: usize,
    /// Rows in that block; none before the first band of a tree.
    block_len: usize,
    /// Rows in the current band.
    band_len: usize,
    /// One prepared splitter per internal node.
    splitters: Vec<RowSplitter>,
    /// For each internal node, the boundaries its span lies between.
    node_spans: Vec<(usize, usize)>,
    /// Every leaf, in the order their spans come along a row.
    leaves_along_row: Vec<LeafSpan>,
    /// For each node, the block's rows from the first to the last whose
    /// span of the node has samples; empty when there are none.
    node_rows: Vec<(usize, usize)>,
    /// `bounds[b * block_rows + i]`: boundary `b` on the block's row `i`,
    /// numbered as [`ROW_START`], [`ROW_END`] and [`FIRST_SPLIT`] say, for
    /// the rows of its node's `node_rows`; outside them stale, and read by
    /// no node or leaf.
    bounds: Vec<f64>,
    /// The leaves some sample of the block reaches, in the order of
    /// `leaves_along_row`, with their boundaries as offsets in `bounds`
    /// and their rows in the block.
    block_leaves: Vec<LeafSpan>,
    /// Those of them some sample of the current band may reach, with their
    /// boundaries as offsets in `bounds` of the band's first row and their
    /// rows in the band.
    band_leaves: Vec<LeafSpan>,
    /// For [`BspScratch::write_band_change`]: where each band leaf's span
    /// starts on each row of the band, `band_len` entries a leaf.
    first_samples: Vec<u32>,
    /// And how many stores of [`STORE`] samples it takes.
    store_counts: Vec<u32>,
}

/// A leaf, the two boundaries of its span and the rows where it has samples.
#[derive(Debug, Clone, Copy, Default)]
struct LeafSpan {
    /// The leaf's node index.
    leaf: usize,
    /// The boundary its span starts at.
    start: usize,
    /// The boundary its span ends at (exclusive).
    end: usize,
    /// Rows (of a block or a band) outside which its span has no samples.
    rows: (usize, usize),
    /// The fixed-point offset of its samples.
    offset: i64,
    /// The same offset in terrain units.
    change: f32,
}

/// Samples past the width that [`BspScratch::write_band_change`] may write.
pub const ROW_CHANGE_PADDING: usize = STORE - 1;

impl BspScratch {
    /// Prepares `tree` for a `width` × `rows` map.
    pub fn prepare(&mut self, tree: &BspTree, width: usize, rows: usize) {
        let internal = tree.nodes.len();
        self.width = width;
        self.rows = rows;
        self.internal = internal;
        self.block_rows = (BLOCK_BOUND_BUDGET / (FIRST_SPLIT + internal)).clamp(1, BLOCK_ROWS);
        self.block_first = 0;
        self.block_len = 0;
        self.band_len = 0;
        self.splitters.clear();
        self.splitters
            .extend(tree.nodes.iter().map(|&line| RowSplitter::new(line, rows)));
        self.node_spans.resize(internal, (ROW_START, ROW_END));
        self.leaves_along_row.clear();
        self.lay_out(tree, 0, ROW_START, ROW_END);
        let stride = self.block_rows;
        self.bounds.resize((FIRST_SPLIT + internal) * stride, 0.0);
        self.bounds[ROW_START * stride..][..stride].fill(0.0);
        self.bounds[ROW_END * stride..][..stride].fill(width as f64);
        self.node_rows.resize(2 * internal + 1, (0, 0));
        self.block_leaves.reserve(internal + 1);
        self.band_leaves.reserve(internal + 1);
    }

    /// Records the span of `node`, between boundaries `start` and `end`,
    /// and lays out its subtree within it: the child whose span comes first
    /// along the row (the right one when the node's right side comes
    /// first) between `start` and the node's split, the other after it.
    fn lay_out(&mut self, tree: &BspTree, node: usize, start: usize, end: usize) {
        if node >= self.internal {
            let offset = tree.path_offset(node);
            self.leaves_along_row.push(LeafSpan {
                leaf: node,
                start,
                end,
                rows: (0, 0),
                offset,
                change: to_f32(offset),
            });
            return;
        }
        self.node_spans[node] = (start, end);
        let (left, right) = (2 * node + 1, 2 * node + 2);
        let (first, second) = if self.splitters[node].right_first() {
            (right, left)
        } else {
            (left, right)
        };
        let split = FIRST_SPLIT + node;
        self.lay_out(tree, first, start, split);
        self.lay_out(tree, second, split, end);
    }

    /// Rows per band: what [`BspScratch::band`] takes at most.
    pub fn band_rows(&self) -> usize {
        self.block_rows
    }

    /// Works out the spans of rows `first..first + count` (`count` at most
    /// [`BspScratch::band_rows`]) for [`BspScratch::row_spans`] and
    /// [`BspScratch::write_band_change`]; bands that go down the map use
    /// the boundaries of a block worked out ahead.
    #[inline(always)]
    pub fn band(&mut self, first: usize, count: usize) {
        assert!(
            count <= self.block_rows && first + count <= self.rows,
            "a band has at most band_rows rows, all on the map"
        );
        if first < self.block_first || first + count > self.block_first + self.block_len {
            self.work_out_block(first, self.block_rows.min(self.rows - first));
        }
        let offset = first - self.block_first;
        self.band_len = count;
        // Every block leaf is written, and those with rows in the band
        // kept, without a branch to mispredict.
        let leaves = &mut self.band_leaves;
        leaves.resize(self.block_leaves.len(), LeafSpan::default());
        let mut kept = 0;
        for leaf in &self.block_leaves {
            let rows = (
                leaf.rows.0.max(offset) - offset,
                leaf.rows.1.min(offset + count).saturating_sub(offset),
            );
            leaves[kept] = LeafSpan {
                start: leaf.start + offset,
                end: leaf.end + offset,
                rows,
                ..*leaf
            };
            kept += usize::from(rows.0 < rows.1);
        }
        leaves.truncate(kept);
    }

    /// Works out the boundaries of rows `first..first + count` (`count` at
    /// most `block_rows`), node by node from the root, each over its rows.
    #[inline(always)]
    fn work_out_block(&mut self, first: usize, count: usize) {
        let stride = self.block_rows;
        self.block_first = first;
        self.block_len = count;
        self.node_rows[0] = (0, count);
        for (node, splitter) in self.splitters.iter().enumerate() {
            let rows = self.node_rows[node];
            if rows.0 == rows.1 {
                self.node_rows[2 * node + 1] = (0, 0);
                self.node_rows[2 * node + 2] = (0, 0);
                continue;
            }
            // A node's span lies between its ancestors' boundaries or the
            // row's ends, which all come before its own in the table.
            let (start, end) = self.node_spans[node];
            let (known, own) = self.bounds.split_at_mut((FIRST_SPLIT + node) * stride);
            let starts = &known[start * stride..][rows.0..rows.1];
            let ends = &known[end * stride..][rows.0..rows.1];
            let splits = &mut own[rows.0..rows.1];
            splitter.split_spans(first + rows.0, self.width, starts, ends, splits);
            let before = rows_with_samples(rows.0, starts, splits);
            let after = rows_with_samples(rows.0, splits, ends);
            let (left, right) = if splitter.right_first() {
                (after, before)
            } else {
                (before, after)
            };
            self.node_rows[2 * node + 1] = left;
            self.node_rows[2 * node + 2] = right;
        }
        self.block_leaves.clear();
        for leaf in &self.leaves_along_row {
            let rows = self.node_rows[leaf.leaf];
            if rows.0 < rows.1 {
                self.block_leaves.push(LeafSpan {
                    start: leaf.start * stride,
                    end: leaf.end * stride,
                    rows,
                    ..*leaf
                });
            }
        }
    }

    /// The leaves reached by samples of row `i` of the current band: the
    /// samples that reach each, and the fixed-point offset they receive.
    pub fn row_spans(&self, i: usize) -> impl Iterator<Item = (Range<usize>, i64)> {
        self.band_leaves.iter().filter_map(move |leaf| {
            if !(leaf.rows.0..leaf.rows.1).contains(&i) {
                return None;
            }
            let (start, end) = (self.bounds[leaf.start + i], self.bounds[leaf.end + i]);
            (start < end).then(|| (sample_index(start)..sample_index(end), leaf.offset))
        })
    }

    /// Writes the change of every sample of the current band, its leaf's
    /// offset in terrain units: row `i`'s at `change[i * stride..][..width]`,
    /// where `stride` is at least the width plus [`ROW_CHANGE_PADDING`],
    /// samples the rows may overwrite.
    ///
    /// The leaves' spans tile each row in the order of `band_leaves`, so each
    /// span is written [`STORE`] samples at a time, its last store running on
    /// into the spans after it, which are written later: one short loop of
    /// whole vector stores per span, with no tail (most spans take one or
    /// two). Where each span starts and how many stores it takes come first,
    /// for the band's rows at once, from a vector loop per leaf; then the
    /// stores go leaf by leaf over the band's rows, where a span's length
    /// changes little from one row to the next, which helps the processor
    /// predict where each loop ends.
    #[inline(always)]
    pub fn write_band_change(&mut self, change: &mut [f32], stride: usize) {
        assert!(
            stride >= self.width + ROW_CHANGE_PADDING && change.len() >= self.band_len * stride,
            "the change rows have room for the band and the padding"
        );
        let rows = self.band_len;
        let (first_samples, store_counts) = (&mut self.first_samples, &mut self.store_counts);
        first_samples.resize(self.band_leaves.len() * rows, 0);
        store_counts.resize(self.band_leaves.len() * rows, 0);
        for ((leaf, firsts), counts) in self
            .band_leaves
            .iter()
            .zip(first_samples.chunks_exact_mut(rows))
            .zip(store_counts.chunks_exact_mut(rows))
        {
            let (a, b) = leaf.rows;
            let starts = &self.bounds[leaf.start..][a..b];
            let ends = &self.bounds[leaf.end..][a..b];
            for ((first, count), (&start, &end)) in firsts[a..b]
                .iter_mut()
                .zip(&mut counts[a..b])
                .zip(starts.iter().zip(ends))
            {
                *first = sample_index(start) as u32;
                *count = sample_index(end - start + (STORE - 1) as f64) as u32 / STORE as u32;
            }
        }
        for ((leaf, firsts), counts) in self
            .band_leaves
            .iter()
            .zip(first_samples.chunks_exact(rows))
            .zip(store_counts.chunks_exact(rows))
        {
            let run = [leaf.change; STORE];
            let (a, b) = leaf.rows;
            for (i, (&first, &count)) in (a..b).zip(firsts[a..b].iter().zip(&counts[a..b])) {
                let span = &mut change[i * stride + first as usize..][..count as usize * STORE];
                for samples in span.chunks_exact_mut(STORE) {
                    samples.copy_from_slice(&run);
                }
            }
        }
    }
}

/// The rows, numbered from `first`, from the first to past the last where
/// `low < high`: those whose span from `low` to `high` has samples; empty
/// when none has.
#[inline(always)]
fn rows_with_samples(first: usize, low: &[f64], high: &[f64]) -> (usize, usize) {
    let rows = low.len();
    let mut start = 0;
    while start < rows && low[start] >= high[start] {
        start += 1;
    }
    if start == rows {
        return (0, 0);
    }
    let mut end = rows;
    while low[end - 1] >= high[end - 1] {
        end -= 1;
    }
    (first + start, first + end)
}

/// A span bound (an integer from 0 to the width, held in an f64) as an
/// index. Adding 2^52 puts the integer in the low bits of the f64's
/// encoding, which is exact below 2^32 and cheaper than a saturating
/// conversion.
#[inline(always)]
fn sample_index(bound: f64) -> usize {
    const INTEGER_BITS: f64 = (1u64 << 52) as f64;
    (bound + INTEGER_BITS).to_bits() as u32 as usize
}

/// Deepest tree accepted: 2^20 nodes is far past any useful terrain.
pub const MAX_DEPTH: u32 = 20;

fn random_point(rng: &mut TerrainRng, bounds: [f64; 2]) -> [f64; 2] {
    [rng.range(0.0, bounds[0]), rng.range(0.0, bounds[1])]
}

/// How far along `dir` a ray from `start` (inside the map) leaves the
/// rectangle [0, bx] × [0, by].
fn border_exit(start: [f64; 2], dir: [f64; 2], bounds: [f64; 2]) -> f64 {
    let mut reach = f64::INFINITY;
    for axis in 0..2 {
        let t = if dir[axis] > 0.0 {
            (bounds[axis] - start[axis]) / dir[axis]
        } else if dir[axis] < 0.0 {
            -start[axis] / dir[axis]
        } else {
            continue;
        };
        reach = reach.min(t.max(0.0));
    }
    reach
}

/// The ray parameter where a ray from `start` along `dir` crosses `segment`,
/// if it does so ahead of the start.
fn ray_hits_segment(start: [f64; 2], dir: [f64; 2], segment: &Line) -> Option<f64> {
    let e = [
        segment.end[0] - segment.start[0],
        segment.end[1] - segment.start[1],
    ];
    let denom = dir[0] * e[1] - dir[1] * e[0];
    if denom == 0.0 {
        return None;
    }
    let q = [segment.start[0] - start[0], segment.start[1] - start[1]];
    let t = (q[0] * e[1] - q[1] * e[0]) / denom;
    let u = (q[0] * dir[1] - q[1] * dir[0]) / denom;
    (t > 1e-9 && (0.0..=1.0).contains(&u)).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::reference;

    fn both(tree: &BspTree, width: usize, height: usize) -> (Vec<i64>, Vec<i64>) {
        let mut fast = vec![0; width * height];
        tree.add_to(&mut fast, width);
        let mut slow = vec![0; width * height];
        reference::bsp_per_pixel(tree, width, height, &mut slow);
        (fast, slow)
    }

    #[test]
    fn unstructured_spans_equal_the_per_pixel_walk() {
        let mut rng = TerrainRng::new(21);
        for (w, h) in [(65, 65), (30, 11), (2, 2), (7, 64)] {
            for depth in 1..=6 {
                let tree = BspTree::random(&mut rng, TreeStyle::Unstructured, depth, 0.005, w, h);
                let (fast, slow) = both(&tree, w, h);
                assert_eq!(fast, slow, "{w}x{h} depth {depth}");
            }
        }
    }

    #[test]
    fn structured_spans_equal_the_per_pixel_walk() {
        let mut rng = TerrainRng::new(22);
        for (w, h) in [(65, 65), (80, 33), (3, 90)] {
            for _ in 0..20 {
                let tree = BspTree::random(&mut rng, TreeStyle::Structured, 5, 0.005, w, h);
                let (fast, slow) = both(&tree, w, h);
                assert_eq!(fast, slow);
            }
        }
    }

    #[test]
    fn band_changes_are_each_samples_leaf_offset_in_terrain_units() {
        // Widths under, at and past the 32-sample stores, trees deep enough
        // for bands of fewer rows, both styles, bands as they come down the
        // map.
        let mut rng = TerrainRng::new(23);
        for (w, h) in [(3, 40), (32, 17), (33, 21), (100, 37)] {
            for (style, depth) in [
                (TreeStyle::Structured, 5),
                (TreeStyle::Unstructured, 3),
                (TreeStyle::Unstructured, 12),
            ] {
                let tree = BspTree::random(&mut rng, style, depth, 0.005, w, h);
                let mut scratch = BspScratch::default();
                scratch.prepare(&tree, w, h);
                let band_rows = scratch.band_rows();
                for first in (0..h).step_by(band_rows) {
                    check_band(&tree, &mut scratch, w, first, band_rows.min(h - first));
                }
            }
        }
    }

    /// Checks the spans and the change rows of the band of rows
    /// `first..first + count` against the per-pixel walk; the padding
    /// starts as a NaN marker the stores may overwrite but no sample of a
    /// row may keep.
    fn check_band(tree: &BspTree, scratch: &mut BspScratch, w: usize, first: usize, count: usize) {
        scratch.band(first, count);
        let stride = w + ROW_CHANGE_PADDING;
        let mut change = vec![f32::NAN; count * stride];
        scratch.write_band_change(&mut change, stride);
        for (i, row) in change.chunks(stride).enumerate() {
            let y = first + i;
            let mut offsets = vec![0; w];
            for (span, offset) in scratch.row_spans(i) {
                offsets[span].fill(offset);
            }
            let expected: Vec<i64> = (0..w).map(|x| tree.offset_at(x, y)).collect();
            assert_eq!(offsets, expected, "spans of row {y}, band from {first}");
            let expected: Vec<u32> = expected.iter().map(|&o| to_f32(o).to_bits()).collect();
            let got: Vec<u32> = row[..w].iter().map(|c| c.to_bits()).collect();
            assert_eq!(got, expected, "change of row {y}, band from {first}");
        }
    }

    #[test]
    fn bands_asked_for_in_any_order_and_size_give_each_samples_leaf() {
        // As the sweeps ask (groups of 16 rows, each in bands of at most
        // band_rows), then backwards, then bands that start inside a block
        // and run past its end; trees shallow enough for one block per map
        // and deep enough for blocks of a few rows.
        let mut rng = TerrainRng::new(24);
        for (w, h) in [(41, 57), (100, 37), (5, 90)] {
            for (style, depth) in [
                (TreeStyle::Structured, 5),
                (TreeStyle::Unstructured, 2),
                (TreeStyle::Unstructured, 12),
            ] {
                let tree = BspTree::random(&mut rng, style, depth, 0.005, w, h);
                let mut scratch = BspScratch::default();
                scratch.prepare(&tree, w, h);
                let band_rows = scratch.band_rows();
                for group in (0..h).step_by(16) {
                    let rows = 16.min(h - group);
                    for first in (group..group + rows).step_by(band_rows) {
                        let count = band_rows.min(group + rows - first);
                        check_band(&tree, &mut scratch, w, first, count);
                    }
                }
                for first in (0..h).rev().step_by(7) {
                    check_band(
                        &tree,
                        &mut scratch,
                        w,
                        first,
                        band_rows.min(h - first).min(3),
                    );
                }
                let mut first = 0;
                while first < h {
                    let count = band_rows.min(h - first);
                    check_band(&tree, &mut scratch, w, first, count);
                    first += count / 2 + 1;
                }
            }
        }
    }

    #[test]
    fn structured_children_start_on_their_parent_and_stay_inside_the_map() {
        let (w, h) = (120usize, 50usize);
        let mut rng = TerrainRng::new(5);
        for _ in 0..50 {
            let tree = BspTree::random(&mut rng, TreeStyle::Structured, 5, 1.0, w, h);
            for (i, line) in tree.lines().iter().enumerate().skip(1) {
                let parent = tree.lines()[(i - 1) / 2];
                let pd = parent.perp_dot(line.start[0], line.start[1]);
                let plen = ((parent.end[0] - parent.start[0]).powi(2)
                    + (parent.end[1] - parent.start[1]).powi(2))
                .sqrt();
                assert!(
                    pd.abs() <= 1e-9 * plen.max(1.0) * plen.max(1.0),
                    "child {i} starts off its parent"
                );
                for p in [line.start, line.end] {
                    assert!((-1e-9..=(w - 1) as f64 + 1e-9).contains(&p[0]));
                    assert!((-1e-9..=(h - 1) as f64 + 1e-9).contains(&p[1]));
                }
                // The right child (even index) leaves to the parent's right.
                let side = parent.perp_dot(line.end[0], line.end[1]);
                if line.start != line.end {
                    assert_eq!(side > 0.0, i % 2 == 0, "child {i} leaves on the wrong side");
                }
            }
        }
    }

    #[test]
    fn structured_child_stops_at_the_first_ancestor_it_meets() {
        // Root: horizontal across the map at y = 10. Its left child starts on
        // it and heads towards -y ... set up by hand: a grandchild heading
        // back across the root must end on the root.
        let root = Line::new([0.0, 10.0], [40.0, 10.0]);
        let hit = ray_hits_segment([20.0, 2.0], [0.0, 1.0], &root);
        assert_eq!(hit, Some(8.0));
        assert_eq!(ray_hits_segment([20.0, 2.0], [0.0, -1.0], &root), None);
        assert_eq!(border_exit([20.0, 2.0], [0.0, -1.0], [40.0, 20.0]), 2.0);
    }

    #[test]
    fn vertical_parent_lines_are_handled() {
        // The demo blog's listing divides by dx; a vertical parent must still give
        // children that start on it.
        let tree_lines = vec![Line::new([10.0, 0.0], [10.0, 30.0])];
        let mut tree = BspTree::from_lines(
            [tree_lines, vec![Line::new([0.0; 2], [0.0; 2]); 2]].concat(),
            1.0,
        );
        let mut rng = TerrainRng::new(1);
        for child in 1..3 {
            let line = tree.grow_child(&mut rng, child, [40.0, 30.0]);
            assert_eq!(line.start[0], 10.0);
            assert!((7.5..=22.5).contains(&line.start[1]));
            let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
            assert!(
                near(line.end[0], 0.0)
                    || near(line.end[0], 40.0)
                    || near(line.end[1], 0.0)
                    || near(line.end[1], 30.0)
            );
            tree.nodes[child] = line;
        }
        // Along +y, the left side (negative perp-dot) is -x.
        assert!(
            tree.nodes[1].end[0] < 10.0,
            "left child goes to the parent's left"
        );
        assert!(
            tree.nodes[2].end[0] > 10.0,
            "right child goes to the parent's right"
        );
    }

    #[test]
    fn degenerate_segments_send_everything_left() {
        let p = [3.0, 3.0];
        let tree = BspTree::from_lines(vec![Line::new(p, p)], 1.0);
        let (fast, slow) = both(&tree, 5, 4);
        assert_eq!(fast, slow);
        assert!(fast.iter().all(|&v| v == -to_fixed(1.0)));
    }

    #[test]
    fn amplitude_halves_with_depth() {
        let mut rng = TerrainRng::new(2);
        let tree = BspTree::random(&mut rng, TreeStyle::Unstructured, 3, 0.5, 9, 9);
        assert_eq!(tree.level_amplitude(0), to_fixed(0.5));
        assert_eq!(tree.level_amplitude(1), to_fixed(0.25));
        assert_eq!(tree.level_amplitude(2), to_fixed(0.125));
        let mut acc = vec![0; 81];
        tree.add_to(&mut acc, 9);
        for v in acc {
            let mag = v.unsigned_abs();
            assert!(
                [0.125, 0.375, 0.625, 0.875]
                    .iter()
                    .any(|&m| mag == to_fixed(m) as u64)
            );
        }
    }
}
