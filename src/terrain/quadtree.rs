//! Edge-matched quadtree tiles ("Matching Edge Altitudes of Different
//! Fractal Squares"): fractal squares grown on demand that agree exactly
//! where they meet, whichever is grown first.
//!
//! The world is a lattice of coarse squares; square (i, j) has its corners at
//! world vertices (i, j) … (i + 1, j + 1). Each square is the root of a
//! quadtree expanded by midpoint displacement: expanding a node of depth `d`
//! (side 2^-d of a square) into four quadrants sets
//!
//! - each edge midpoint to the mean of the edge's two ends plus an offset,
//! - the centre to the mean of two opposing corners plus an offset, the
//!   diagonal alternating in a checkerboard over the world (top-left and
//!   bottom-right where the node's world coordinates sum to an even number,
//!   top-right and bottom-left where odd),
//!
//! an offset being `(2u − 1) · 2^(−a·l)` for the level `l = d + 1` of the new
//! point, `a` the roughness, and `u` in [0, 1) hashed from the seed, `l` and
//! the point's world coordinates at that level; the corners of the coarse
//! squares are offsets of level 0. So an edge midpoint's height depends on
//! the edge alone, and both squares that share the edge compute it alike.
//!
//! As "Matching Edge Altitudes" asks, a node is expanded only once its four
//! edge neighbours of the same depth exist (their parents really expanded,
//! in whichever square they lie), and each neighbour still a leaf is then
//! *pseudo-partitioned*: given four quadrants whose new points are plain
//! interpolations (the shared edge midpoint excepted, which takes the real
//! value), marked as not really expanded, and really expanded later only if
//! a deeper expansion needs it. The quadtree therefore stays balanced
//! (neighbouring leaves differ by at most one depth) and every pseudo
//! quadrant meets the real ones without a crack. A whole level of one square
//! is expanded at once, so pseudo-partitions are made only outside that
//! square, where the note's "swathe" rule allows skipping them.
use super::error::TerrainError;
use super::heightmap::Heightmap;
use super::rng::mix;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Deepest tile level: 4097 × 4097 samples.
pub const MAX_LEVEL: u32 = 12;

/// Largest roughness `a`: the offsets then shrink 16-fold per level.
pub const MAX_ROUGHNESS: f32 = 4.0;

/// Largest |i| and |j| of a square.
pub const MAX_INDEX: i64 = 1 << 32;

/// Salt of the per-point hash, so it never coincides with another stream of the same seed.
const SALT: u64 = 0x5155_4144_5452_4545;

/// How far a quadtree node has been expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum NodeState {
    /// A leaf.
    Unexpanded,
    /// Split into four quadrants of interpolated heights, not really expanded.
    Pseudo,
    /// Split into four quadrants with their random offsets.
    Expanded,
}

/// Side of a block of a sparse grid, in points.
const BLOCK: usize = 16;

/// A square's heights on its grid of (2^depth + 1)² points.
#[derive(Clone)]
enum Heights {
    /// Every point, row-major: a square built as a tile.
    Dense(Vec<f32>),
    /// Blocks of [`BLOCK`]² points, row-major, each allocated when a point
    /// of it is first written: a neighbour of which only a border strip
    /// and a few coarse points were expanded.
    Sparse(Vec<Option<Box<[f32; BLOCK * BLOCK]>>>),
}

/// One coarse square's quadtree: the heights of the points created so far,
/// on a grid at its deepest level, and the state of every node.
#[derive(Clone)]
struct Square {
    /// Depth of the grid: points (x, y), 0 ≤ x, y ≤ 2^depth.
    depth: u32,
    /// The heights; points not created yet are NaN.
    heights: Heights,
    /// `nodes[d][y · 2^d + x]` for every depth d < `depth`; deeper nodes are leaves.
    nodes: Vec<Vec<NodeState>>,
}

impl Square {
    /// A square of depth 0 holding its four corners.
    fn new(corners: [f32; 4]) -> Self {
        let mut square = Square {
            depth: 0,
            heights: Heights::Sparse(vec![None]),
            nodes: Vec::new(),
        };
        for (k, (x, y)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
            square.set(0, x, y, corners[k]);
        }
        square
    }

    fn side(&self) -> usize {
        (1 << self.depth) + 1
    }

    /// Every stored point of the grid, with its grid coordinates.
    fn points(&self) -> Vec<(usize, usize, f32)> {
        let side = self.side();
        match &self.heights {
            Heights::Dense(cells) => cells
                .iter()
                .enumerate()
                .filter(|(_, h)| !h.is_nan())
                .map(|(k, &h)| (k % side, k / side, h))
                .collect(),
            Heights::Sparse(blocks) => {
                let per_side = side.div_ceil(BLOCK);
                let mut out = Vec::new();
                for (b, block) in blocks.iter().enumerate() {
                    let Some(block) = block else { continue };
                    let (bx, by) = (b % per_side * BLOCK, b / per_side * BLOCK);
                    for (k, &h) in block.iter().enumerate() {
                        if !h.is_nan() {
                            out.push((bx + k % BLOCK, by + k / BLOCK, h));
                        }
                    }
                }
                out
            }
        }
    }

    /// Deepens the grid to `depth`, keeping every height (and the storage kind).
    fn grow(&mut self, depth: u32) {
        let before = self.depth;
        if depth <= before {
            return;
        }
        let side = (1usize << depth) + 1;
        let points = match &self.heights {
            Heights::Dense(old) => {
                let (old_side, stride) = (self.side(), 1 << (depth - before));
                let mut cells = vec![f32::NAN; side * side];
                for (y, row) in old.chunks_exact(old_side).enumerate() {
                    let new_row = &mut cells[y * stride * side..];
                    for (x, &h) in row.iter().enumerate() {
                        new_row[x * stride] = h;
                    }
                }
                self.heights = Heights::Dense(cells);
                Vec::new()
            }
            Heights::Sparse(_) => {
                let points = self.points();
                let per_side = side.div_ceil(BLOCK);
                self.heights = Heights::Sparse(vec![None; per_side * per_side]);
                points
            }
        };
        self.depth = depth;
        for (x, y, h) in points {
            self.set(before, x, y, h);
        }
        for d in before..depth {
            self.nodes.push(vec![NodeState::Unexpanded; 1 << (2 * d)]);
        }
    }

    /// Stores every point of the grid in one row-major array.
    fn make_dense(&mut self) {
        if matches!(self.heights, Heights::Dense(_)) {
            return;
        }
        let side = self.side();
        let mut cells = vec![f32::NAN; side * side];
        for (x, y, h) in self.points() {
            cells[y * side + x] = h;
        }
        self.heights = Heights::Dense(cells);
    }

    /// The height of point (x, y) of level `level` (≤ `depth`).
    fn get(&self, level: u32, x: usize, y: usize) -> f32 {
        let shift = self.depth - level;
        let (x, y) = (x << shift, y << shift);
        match &self.heights {
            Heights::Dense(cells) => cells[y * self.side() + x],
            Heights::Sparse(blocks) => {
                let per_side = self.side().div_ceil(BLOCK);
                match &blocks[y / BLOCK * per_side + x / BLOCK] {
                    Some(block) => block[y % BLOCK * BLOCK + x % BLOCK],
                    None => f32::NAN,
                }
            }
        }
    }

    /// Sets point (x, y) of level `level` (≤ `depth`).
    fn set(&mut self, level: u32, x: usize, y: usize, h: f32) {
        let shift = self.depth - level;
        let (x, y) = (x << shift, y << shift);
        let side = self.side();
        match &mut self.heights {
            Heights::Dense(cells) => cells[y * side + x] = h,
            Heights::Sparse(blocks) => {
                let per_side = side.div_ceil(BLOCK);
                let block = blocks[y / BLOCK * per_side + x / BLOCK]
                    .get_or_insert_with(|| Box::new([f32::NAN; BLOCK * BLOCK]));
                block[y % BLOCK * BLOCK + x % BLOCK] = h;
            }
        }
    }

    fn state(&self, depth: u32, x: usize, y: usize) -> NodeState {
        match self.nodes.get(depth as usize) {
            Some(level) => level[(y << depth) + x],
            None => NodeState::Unexpanded,
        }
    }

    fn set_state(&mut self, depth: u32, x: usize, y: usize, state: NodeState) {
        self.nodes[depth as usize][(y << depth) + x] = state;
    }
}

/// A seeded world of edge-matched fractal squares, expanded on demand.
#[derive(Clone)]
pub struct QuadtreeWorld {
    seed: u64,
    roughness: f32,
    /// `scales[l]` = 2^(−a·l), the offset bound of level l.
    scales: Vec<f64>,
    /// Where each square created so far is in `squares`.
    index: HashMap<(i64, i64), usize, BuildHasherDefault<SquareHasher>>,
    squares: Vec<Square>,
}

impl std::fmt::Debug for QuadtreeWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuadtreeWorld")
            .field("seed", &self.seed)
            .field("roughness", &self.roughness)
            .field("squares", &self.squares.len())
            .finish_non_exhaustive()
    }
}

impl QuadtreeWorld {
    /// An empty world; `roughness` is the note's `a` in 0 … [`MAX_ROUGHNESS`]:
    /// offsets of level l are bounded by 2^(−a·l), so they shrink by 2^a per level.
    pub fn new(seed: u64, roughness: f32) -> Result<Self, TerrainError> {
        if !(roughness.is_finite() && (0.0..=MAX_ROUGHNESS).contains(&roughness)) {
            return Err(TerrainError::out_of_range(
                "quadtree roughness",
                roughness,
                "0 to 4",
            ));
        }
        let scales = (0..=MAX_LEVEL)
            .map(|l| libm::exp2(-f64::from(roughness) * f64::from(l)))
            .collect();
        Ok(QuadtreeWorld {
            seed,
            roughness,
            scales,
            index: HashMap::default(),
            squares: Vec::new(),
        })
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn roughness(&self) -> f32 {
        self.roughness
    }

    /// The bound of the offsets of level `level`: 2^(−a·level).
    pub fn scale(&self, level: u32) -> f64 {
        self.scales[level as usize]
    }

    /// The random offset of the point created at `level` at world
    /// coordinates (x, y) of that level (units of 2^-level squares): a
    /// function of the seed and the point's place alone.
    pub fn offset(&self, level: u32, x: i64, y: i64) -> f64 {
        offset_of(mix(self.row_key(level, y), x as u64), self.scale(level))
    }

    /// The hash shared by every point of one row of one level.
    fn row_key(&self, level: u32, y: i64) -> u64 {
        mix(mix(self.seed ^ SALT, u64::from(level)), y as u64)
    }

    /// Squares created so far (the tiles asked for and the neighbours their
    /// expansion needed).
    pub fn squares_held(&self) -> usize {
        self.squares.len()
    }

    /// The state of node (x, y) of depth `depth` in square (i, j);
    /// `Unexpanded` for a square not created yet.
    pub fn node_state(&self, i: i64, j: i64, depth: u32, x: usize, y: usize) -> NodeState {
        match self.index.get(&(i, j)) {
            Some(&s) => self.squares[s].state(depth, x, y),
            None => NodeState::Unexpanded,
        }
    }

    /// A fixed height range for exporting any tile of this world: every
    /// height lies within it (an edge point of level l is a mean of heights
    /// of lower levels plus at most 2^(−a·l), and the corners are within ±1),
    /// so tiles are never normalised one by one and never clamped.
    pub fn export_range(&self) -> (f32, f32) {
        let bound: f64 = self.scales.iter().sum();
        // Margin for the rounding of each level's f32 heights.
        let half = (bound * (1.0 + 1e-5)) as f32;
        (-half, half)
    }

    /// Square (i, j) expanded to `level`: its (2^level + 1)² samples, row
    /// `y` of the result running along world y. The same whichever squares
    /// were built before, and sharing its edge samples exactly with its
    /// neighbours'.
    pub fn tile(&mut self, i: i64, j: i64, level: u32) -> Result<Heightmap, TerrainError> {
        if level > MAX_LEVEL {
            return Err(TerrainError::out_of_range(
                "quadtree level",
                level,
                "0 to 12 (2x2 to 4097x4097 samples)",
            ));
        }
        for index in [i, j] {
            if index.abs() >= MAX_INDEX {
                return Err(TerrainError::out_of_range(
                    "quadtree square index",
                    index,
                    "magnitude below 2^32",
                ));
            }
        }
        let s = self.square(i, j);
        let last = 1usize << level;
        // The whole square will be written: store all of it, at its depth.
        self.squares[s].grow(level);
        self.squares[s].make_dense();
        for depth in 0..level {
            self.expand_level(i, j, depth);
        }
        let square = &self.squares[s];
        let Heights::Dense(grid) = &square.heights else {
            unreachable!("made dense above");
        };
        let side = last + 1;
        if square.depth == level {
            return Heightmap::from_cells(side, side, grid.clone());
        }
        let stride = 1 << (square.depth - level);
        let mut cells = Vec::with_capacity(side * side);
        for row in grid.chunks_exact(square.side()).step_by(stride) {
            cells.extend(row.iter().step_by(stride));
        }
        Heightmap::from_cells(side, side, cells)
    }

    /// The index of square (i, j) in `squares`, creating it with its corners.
    fn square(&mut self, i: i64, j: i64) -> usize {
        if let Some(&s) = self.index.get(&(i, j)) {
            return s;
        }
        let corners =
            [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dy)| self.offset(0, i + dx, j + dy) as f32);
        self.squares.push(Square::new(corners));
        self.index.insert((i, j), self.squares.len() - 1);
        self.squares.len() - 1
    }

    /// The square holding node (X, Y) of depth `depth` (world coordinates),
    /// created if needed, and the node's coordinates in it.
    fn locate(&mut self, depth: u32, x: i64, y: i64) -> (usize, usize, usize) {
        let (i, j) = (x >> depth, y >> depth);
        let s = self.square(i, j);
        (s, (x - (i << depth)) as usize, (y - (j << depth)) as usize)
    }

    fn state(&self, depth: u32, x: i64, y: i64) -> NodeState {
        self.node_state(
            x >> depth,
            y >> depth,
            depth,
            (x - ((x >> depth) << depth)) as usize,
            (y - ((y >> depth) << depth)) as usize,
        )
    }

    /// Makes node (X, Y) of depth `depth` exist for real: its parent (and
    /// so every ancestor) really expanded, neighbours first as ever.
    fn ensure_real(&mut self, depth: u32, x: i64, y: i64) {
        if depth == 0 {
            self.square(x, y);
            return;
        }
        let (px, py) = (x >> 1, y >> 1);
        if self.state(depth - 1, px, py) != NodeState::Expanded {
            self.ensure_real(depth - 1, px, py);
            self.expand_node(depth - 1, px, py);
        }
    }

    /// Really expands one real node (X, Y) of depth `depth`: its four
    /// neighbours first, then its five new points, then the neighbours'
    /// pseudo-partitions.
    fn expand_node(&mut self, depth: u32, x: i64, y: i64) {
        for (nx, ny) in neighbours(x, y) {
            self.ensure_real(depth, nx, ny);
        }
        let (s, lx, ly) = self.locate(depth, x, y);
        self.squares[s].grow(depth + 1);
        let new = self.new_points(s, depth, x, y, [true; 4], true);
        self.write_points(s, depth, lx, ly, &new);
        self.squares[s].set_state(depth, lx, ly, NodeState::Expanded);
        for (side, (nx, ny)) in neighbours(x, y).into_iter().enumerate() {
            self.refresh_neighbour(depth, nx, ny, opposite(side));
        }
    }

    /// After a real expansion across side `side` of node (X, Y): a leaf
    /// is pseudo-partitioned, a pseudo-partitioned node takes the real
    /// height of the shared edge midpoint (its copy in its own square).
    fn refresh_neighbour(&mut self, depth: u32, x: i64, y: i64, side: usize) {
        let (s, lx, ly) = self.locate(depth, x, y);
        match self.squares[s].state(depth, lx, ly) {
            NodeState::Expanded => {}
            NodeState::Unexpanded => {
                self.squares[s].grow(depth + 1);
                let real = neighbours(x, y)
                    .map(|(nx, ny)| self.state(depth, nx, ny) == NodeState::Expanded);
                let new = self.new_points(s, depth, x, y, real, false);
                self.write_points(s, depth, lx, ly, &new);
                self.squares[s].set_state(depth, lx, ly, NodeState::Pseudo);
            }
            NodeState::Pseudo => {
                let mut real = [false; 4];
                real[side] = true;
                let new = self.new_points(s, depth, x, y, real, false);
                let (mx, my) = MIDPOINTS[side];
                self.squares[s].set(depth + 1, 2 * lx + mx, 2 * ly + my, new[side]);
            }
        }
    }

    /// The new points of node (X, Y) of depth `depth` in square `s`: the
    /// midpoints of its left, right, top and bottom edges, then its centre.
    /// An edge midpoint gets its offset where `real` says so, else the plain
    /// mean of its ends; the centre gets its offset when `centre` is true,
    /// else the mean of the four corners.
    fn new_points(
        &self,
        s: usize,
        depth: u32,
        x: i64,
        y: i64,
        real: [bool; 4],
        centre: bool,
    ) -> [f32; 5] {
        let sq = &self.squares[s];
        let (lx, ly) = (
            (x - ((x >> depth) << depth)) as usize,
            (y - ((y >> depth) << depth)) as usize,
        );
        let h = |cx: usize, cy: usize| sq.get(depth, lx + cx, ly + cy);
        let corners = [h(0, 0), h(1, 0), h(0, 1), h(1, 1)];
        let [tl, tr, bl, br] = corners;
        let ends = [(tl, bl), (tr, br), (tl, tr), (bl, br)];
        let level = depth + 1;
        let mut out = [0.0f32; 5];
        for side in 0..4 {
            let (a, b) = ends[side];
            let (mx, my) = MIDPOINTS[side];
            let offset = if real[side] {
                self.offset(level, 2 * x + mx as i64, 2 * y + my as i64)
            } else {
                0.0
            };
            out[side] = midpoint(a, b, offset);
        }
        out[4] = if centre {
            let (a, b) = diagonal(x, y, corners);
            midpoint(a, b, self.offset(level, 2 * x + 1, 2 * y + 1))
        } else {
            interpolated_centre(corners)
        };
        out
    }

    fn write_points(&mut self, s: usize, depth: u32, lx: usize, ly: usize, new: &[f32; 5]) {
        let sq = &mut self.squares[s];
        for (k, &(mx, my)) in MIDPOINTS.iter().chain([(1, 1)].iter()).enumerate() {
            sq.set(depth + 1, 2 * lx + mx, 2 * ly + my, new[k]);
        }
    }

    /// Really expands every node of depth `depth` of square (i, j), whose
    /// nodes of smaller depth are all expanded: the neighbouring squares'
    /// nodes along its border first, then the whole level in one sweep, then
    /// the pseudo-partitions across its border.
    fn expand_level(&mut self, i: i64, j: i64, depth: u32) {
        let s = self.square(i, j);
        let n = 1i64 << depth;
        if depth < self.squares[s].depth
            && self.squares[s].nodes[depth as usize]
                .iter()
                .all(|&state| state == NodeState::Expanded)
        {
            return;
        }
        let (x0, y0) = (i << depth, j << depth);
        let across = |k: i64| {
            [
                ((x0 - 1, y0 + k), 1),
                ((x0 + n, y0 + k), 0),
                ((x0 + k, y0 - 1), 3),
                ((x0 + k, y0 + n), 2),
            ]
        };
        for k in 0..n {
            for ((x, y), _) in across(k) {
                self.ensure_real(depth, x, y);
            }
        }
        self.sweep(s, i, j, depth);
        for k in 0..n {
            for ((x, y), side) in across(k) {
                self.refresh_neighbour(depth, x, y, side);
            }
        }
    }

    /// Computes every new point of level `depth + 1` of square `s` = (i, j)
    /// with its offset, and marks every node of depth `depth` expanded.
    fn sweep(&mut self, s: usize, i: i64, j: i64, depth: u32) {
        let level = depth + 1;
        let scale = self.scale(level);
        let level_key = mix(self.seed ^ SALT, u64::from(level));
        let points = 1usize << level;
        let sq = &mut self.squares[s];
        sq.grow(level);
        sq.make_dense();
        let side = sq.side();
        let stride = 1usize << (sq.depth - level);
        let (wx, wy) = (i << level, j << level);
        let Heights::Dense(heights) = &mut sq.heights else {
            unreachable!("made dense above");
        };
        let at = |x: usize, y: usize| y * stride * side + x * stride;
        for y in 0..=points {
            let row_key = mix(level_key, (wy + y as i64) as u64);
            let offset = |x: usize| offset_of(mix(row_key, (wx + x as i64) as u64), scale);
            if y % 2 == 0 {
                // Midpoints of horizontal edges.
                for x in (1..points).step_by(2) {
                    let (a, b) = (heights[at(x - 1, y)], heights[at(x + 1, y)]);
                    heights[at(x, y)] = midpoint(a, b, offset(x));
                }
                continue;
            }
            for x in 0..=points {
                heights[at(x, y)] = if x % 2 == 0 {
                    // Midpoint of a vertical edge.
                    let (a, b) = (heights[at(x, y - 1)], heights[at(x, y + 1)]);
                    midpoint(a, b, offset(x))
                } else {
                    let corners = [
                        heights[at(x - 1, y - 1)],
                        heights[at(x + 1, y - 1)],
                        heights[at(x - 1, y + 1)],
                        heights[at(x + 1, y + 1)],
                    ];
                    let (node_x, node_y) = ((wx + x as i64) >> 1, (wy + y as i64) >> 1);
                    let (a, b) = diagonal(node_x, node_y, corners);
                    midpoint(a, b, offset(x))
                };
            }
        }
        sq.nodes[depth as usize].fill(NodeState::Expanded);
    }

    #[cfg(test)]
    fn stored(&self, i: i64, j: i64, level: u32, x: usize, y: usize) -> f32 {
        let sq = &self.squares[self.index[&(i, j)]];
        sq.get(level, x, y)
    }
}

/// The hasher of square indices: the project's mixing function, far
/// cheaper than the default SipHash for two integers that no one chooses
/// to collide.
#[derive(Default)]
struct SquareHasher(u64);

impl Hasher for SquareHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0, u64::from(b));
        }
    }

    fn write_i64(&mut self, v: i64) {
        self.0 = mix(self.0, v as u64);
    }
}

/// Offsets of the left, right, top and bottom edge midpoints of a node, in
/// units of its quadrants.
const MIDPOINTS: [(usize, usize); 4] = [(0, 1), (2, 1), (1, 0), (1, 2)];

/// The left, right, top and bottom neighbours of node (X, Y).
fn neighbours(x: i64, y: i64) -> [(i64, i64); 4] {
    [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
}

/// The side facing back: left ↔ right, top ↔ bottom.
fn opposite(side: usize) -> usize {
    side ^ 1
}

/// `(2u − 1) · scale` for `u` the top 53 bits of `hash` over 2^53.
fn offset_of(hash: u64, scale: f64) -> f64 {
    let u = (hash >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    (2.0 * u - 1.0) * scale
}

/// The mean of `a` and `b` plus `offset`: the one rule of every real point.
fn midpoint(a: f32, b: f32, offset: f64) -> f32 {
    (0.5 * (f64::from(a) + f64::from(b)) + offset) as f32
}

/// The checkerboard's pair of opposing corners of node (X, Y) out of its
/// top-left, top-right, bottom-left and bottom-right corners.
fn diagonal(x: i64, y: i64, [tl, tr, bl, br]: [f32; 4]) -> (f32, f32) {
    if (x ^ y) & 1 == 0 { (tl, br) } else { (tr, bl) }
}

/// A pseudo-partition's centre: the mean of the four corners.
fn interpolated_centre([tl, tr, bl, br]: [f32; 4]) -> f32 {
    (0.25 * ((f64::from(tl) + f64::from(tr)) + (f64::from(bl) + f64::from(br)))) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(seed: u64, roughness: f32) -> QuadtreeWorld {
        QuadtreeWorld::new(seed, roughness).unwrap()
    }

    fn bits(map: &Heightmap) -> Vec<u32> {
        map.cells().iter().map(|h| h.to_bits()).collect()
    }

    /// Square (i, j) at `level` by a direct depth-first recursion over its
    /// quadrants, with the world's per-position offsets and nothing else of it.
    fn reference(world: &QuadtreeWorld, i: i64, j: i64, level: u32) -> Vec<f32> {
        let side = (1usize << level) + 1;
        let mut grid = vec![f32::NAN; side * side];
        let last = side - 1;
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            grid[dy * last * side + dx * last] =
                world.offset(0, i + dx as i64, j + dy as i64) as f32;
        }
        fn mean_plus(a: f32, b: f32, offset: f64) -> f32 {
            ((f64::from(a) + f64::from(b)) / 2.0 + offset) as f32
        }
        #[allow(clippy::too_many_arguments)]
        fn expand(
            world: &QuadtreeWorld,
            grid: &mut [f32],
            side: usize,
            level: u32,
            (i, j): (i64, i64),
            depth: u32,
            x: usize,
            y: usize,
        ) {
            if depth == level {
                return;
            }
            let span = 1usize << (level - depth);
            let half = span / 2;
            let (gx, gy) = (x * span, y * span);
            let g = |grid: &[f32], px: usize, py: usize| grid[py * side + px];
            let (tl, tr) = (g(grid, gx, gy), g(grid, gx + span, gy));
            let (bl, br) = (g(grid, gx, gy + span), g(grid, gx + span, gy + span));
            let new = depth + 1;
            // World coordinates of the new points, at their level.
            let (wx, wy) = ((i << new) + 2 * x as i64, (j << new) + 2 * y as i64);
            let off = |dx: i64, dy: i64| world.offset(new, wx + dx, wy + dy);
            grid[(gy + half) * side + gx] = mean_plus(tl, bl, off(0, 1));
            grid[(gy + half) * side + gx + span] = mean_plus(tr, br, off(2, 1));
            grid[gy * side + gx + half] = mean_plus(tl, tr, off(1, 0));
            grid[(gy + span) * side + gx + half] = mean_plus(bl, br, off(1, 2));
            let (node_x, node_y) = ((i << depth) + x as i64, (j << depth) + y as i64);
            let even = (node_x + node_y).rem_euclid(2) == 0;
            let (a, b) = if even { (tl, br) } else { (tr, bl) };
            grid[(gy + half) * side + gx + half] = mean_plus(a, b, off(1, 1));
            for (cx, cy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                expand(
                    world,
                    grid,
                    side,
                    level,
                    (i, j),
                    new,
                    2 * x + cx,
                    2 * y + cy,
                );
            }
        }
        expand(world, &mut grid, side, level, (i, j), 0, 0, 0);
        grid
    }

    #[test]
    fn a_tile_equals_the_direct_recursive_reference_bit_for_bit() {
        for roughness in [0.0, 1.0, 1.7] {
            let mut shared = world(11, roughness);
            for (i, j) in [(0, 0), (-3, 2), (5, -7), (-1, -1)] {
                for level in 0..=7 {
                    let expected: Vec<u32> = reference(&shared, i, j, level)
                        .iter()
                        .map(|h| h.to_bits())
                        .collect();
                    let fresh = world(11, roughness).tile(i, j, level).unwrap();
                    assert_eq!(
                        bits(&fresh),
                        expected,
                        "a={roughness} ({i}, {j}) level {level}"
                    );
                    let after = shared.tile(i, j, level).unwrap();
                    assert_eq!(bits(&after), expected, "after others, ({i}, {j}) {level}");
                }
            }
        }
        let mut w = world(3, 1.0);
        let tile = w.tile(2, -1, 8).unwrap();
        let expected: Vec<u32> = reference(&w, 2, -1, 8)
            .iter()
            .map(|h| h.to_bits())
            .collect();
        assert_eq!(bits(&tile), expected);
    }

    fn column(map: &Heightmap, x: usize) -> Vec<u32> {
        (0..map.height()).map(|y| map.get(x, y).to_bits()).collect()
    }

    fn row(map: &Heightmap, y: usize) -> Vec<u32> {
        map.row(y).iter().map(|h| h.to_bits()).collect()
    }

    /// Builds `squares` in order in a fresh world at `level`; the tiles in that order.
    fn build(seed: u64, squares: &[(i64, i64)], level: u32) -> Vec<Heightmap> {
        let mut w = world(seed, 1.0);
        squares
            .iter()
            .map(|&(i, j)| w.tile(i, j, level).unwrap())
            .collect()
    }

    #[test]
    fn left_and_right_neighbours_share_their_edge_whichever_is_built_first() {
        for level in 1..=8 {
            let last = 1 << level;
            let left_first = build(5, &[(-1, 3), (0, 3)], level);
            let right_first = build(5, &[(0, 3), (-1, 3)], level);
            let (left, right) = (&left_first[0], &left_first[1]);
            assert_eq!(column(left, last), column(right, 0), "level {level}");
            assert_eq!(left, &right_first[1], "the left square, level {level}");
            assert_eq!(right, &right_first[0], "the right square, level {level}");
        }
    }

    #[test]
    fn top_and_bottom_neighbours_share_their_edge_whichever_is_built_first() {
        for level in 1..=8 {
            let last = 1 << level;
            let top_first = build(6, &[(4, -2), (4, -1)], level);
            let bottom_first = build(6, &[(4, -1), (4, -2)], level);
            let (top, bottom) = (&top_first[0], &top_first[1]);
            assert_eq!(row(top, last), row(bottom, 0), "level {level}");
            assert_eq!(top, &bottom_first[1], "the top square, level {level}");
            assert_eq!(bottom, &bottom_first[0], "the bottom square, level {level}");
        }
    }

    /// Every order of `items`.
    fn permutations(items: &[(i64, i64)]) -> Vec<Vec<(i64, i64)>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut all = Vec::new();
        for k in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(k);
            for mut tail in permutations(&rest) {
                tail.insert(0, first);
                all.push(tail);
            }
        }
        all
    }

    #[test]
    fn four_squares_around_a_corner_agree_in_every_order() {
        let around = [(-1, -1), (0, -1), (-1, 0), (0, 0)];
        for level in 1..=8 {
            let last = 1 << level;
            let orders = permutations(&around);
            // Every order at the small levels, every fourth one above.
            let every = if level <= 5 { 1 } else { 4 };
            let mut first: Option<Vec<Heightmap>> = None;
            for order in orders.iter().step_by(every) {
                let built = build(9, order, level);
                let tile = |sq: (i64, i64)| &built[order.iter().position(|&s| s == sq).unwrap()];
                let [tl, tr, bl, br] = around.map(tile);
                let corner = tl.get(last, last).to_bits();
                assert_eq!(tr.get(0, last).to_bits(), corner);
                assert_eq!(bl.get(last, 0).to_bits(), corner);
                assert_eq!(br.get(0, 0).to_bits(), corner);
                assert_eq!(column(tl, last), column(tr, 0));
                assert_eq!(column(bl, last), column(br, 0));
                assert_eq!(row(tl, last), row(bl, 0));
                assert_eq!(row(tr, last), row(br, 0));
                let tiles: Vec<Heightmap> = around.iter().map(|&sq| tile(sq).clone()).collect();
                match &first {
                    None => first = Some(tiles),
                    Some(expected) => assert_eq!(&tiles, expected, "{order:?} level {level}"),
                }
            }
        }
    }

    #[test]
    fn a_square_is_the_same_whatever_was_built_before_it() {
        for level in [1, 4, 8] {
            let alone = world(21, 1.3).tile(0, 0, level).unwrap();
            // Its neighbours first, some deeper and some shallower than it.
            let mut w = world(21, 1.3);
            for (i, j, l) in [(1, 0, 9), (0, 1, 2), (-1, 0, level), (0, -1, 7), (1, 1, 8)] {
                w.tile(i, j, l).unwrap();
            }
            assert_eq!(w.tile(0, 0, level).unwrap(), alone, "level {level}");
            // Itself at another level first.
            let mut w = world(21, 1.3);
            w.tile(0, 0, level.saturating_sub(3)).unwrap();
            w.tile(0, 0, level + 1).unwrap();
            assert_eq!(w.tile(0, 0, level).unwrap(), alone, "level {level}");
        }
    }

    #[test]
    fn a_coarser_tile_is_every_other_sample_of_a_finer_one() {
        let fine = world(4, 1.0).tile(2, 3, 8).unwrap();
        let coarse = world(4, 1.0).tile(2, 3, 5).unwrap();
        for y in 0..=32 {
            for x in 0..=32 {
                assert_eq!(coarse.get(x, y).to_bits(), fine.get(8 * x, 8 * y).to_bits());
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_bits_and_another_seed_does_not() {
        let a = build(8, &[(0, 0), (3, -1)], 7);
        let b = build(8, &[(0, 0), (3, -1)], 7);
        assert_eq!(bits(&a[0]), bits(&b[0]));
        assert_eq!(bits(&a[1]), bits(&b[1]));
        let c = build(9, &[(0, 0)], 7);
        assert_ne!(bits(&a[0]), bits(&c[0]));
        assert_ne!(bits(&a[0]), bits(&a[1]), "squares differ");
    }

    #[test]
    fn corners_are_level_zero_offsets_within_plus_minus_one() {
        let mut w = world(13, 1.0);
        let tile = w.tile(-4, 9, 0).unwrap();
        assert_eq!((tile.width(), tile.height()), (2, 2));
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let h = w.offset(0, -4 + x as i64, 9 + y as i64);
            assert!((-1.0..1.0).contains(&h));
            assert_eq!(tile.get(x, y), h as f32);
        }
    }

    /// The offsets of the points of `level` in a tile of level `top`: each
    /// height less the mean its rule starts from.
    fn offsets_of(tile: &Heightmap, i: i64, j: i64, top: u32, level: u32) -> Vec<f64> {
        let step = 1usize << (top - level);
        let n = 1usize << level;
        let h = |x: usize, y: usize| f64::from(tile.get(x * step, y * step));
        let mut out = Vec::new();
        for y in 0..=n {
            for x in 0..=n {
                let base = match (x % 2, y % 2) {
                    (0, 0) => continue,
                    (1, 0) => (h(x - 1, y) + h(x + 1, y)) / 2.0,
                    (0, _) => (h(x, y - 1) + h(x, y + 1)) / 2.0,
                    _ => {
                        let node_x = (i << (level - 1)) + (x / 2) as i64;
                        let node_y = (j << (level - 1)) + (y / 2) as i64;
                        if (node_x + node_y) % 2 == 0 {
                            (h(x - 1, y - 1) + h(x + 1, y + 1)) / 2.0
                        } else {
                            (h(x + 1, y - 1) + h(x - 1, y + 1)) / 2.0
                        }
                    }
                };
                out.push(h(x, y) - base);
            }
        }
        out
    }

    #[test]
    fn offsets_stay_within_their_level_scale_which_shrinks_by_two_to_the_roughness() {
        for roughness in [0.5f32, 1.0, 1.5] {
            let (i, j, top) = (1, -2, 8);
            let tile = world(17, roughness).tile(i, j, top).unwrap();
            let mut rms = Vec::new();
            for level in 1..=top {
                let scale = libm::exp2(-f64::from(roughness) * f64::from(level));
                let offsets = offsets_of(&tile, i, j, top, level);
                // f32 heights round each offset by about 1e-7.
                for &o in &offsets {
                    assert!(
                        o.abs() <= scale + 1e-6,
                        "a={roughness} l={level}: {o} > {scale}"
                    );
                }
                let r = (offsets.iter().map(|o| o * o).sum::<f64>() / offsets.len() as f64).sqrt();
                if level >= 4 {
                    // Uniform in [−s, s): an RMS of s/√3.
                    let expected = scale / 3f64.sqrt();
                    assert!(
                        (r / expected - 1.0).abs() < 0.1,
                        "a={roughness} l={level}: rms {r}"
                    );
                }
                rms.push(r);
            }
            for level in 4..top as usize {
                let ratio = rms[level - 1] / rms[level];
                let expected = libm::exp2(f64::from(roughness));
                assert!(
                    (ratio / expected - 1.0).abs() < 0.15,
                    "a={roughness}: {ratio}"
                );
            }
        }
    }

    #[test]
    fn every_height_lies_in_the_export_range() {
        for roughness in [0.0, 1.0, 4.0] {
            let mut w = world(2, roughness);
            let (lo, hi) = w.export_range();
            for (i, j) in [(0, 0), (7, -3)] {
                let (min, max) = w.tile(i, j, 7).unwrap().min_max();
                assert!(lo <= min && max <= hi, "{lo}..{hi} vs {min}..{max}");
            }
        }
        let (lo, hi) = world(2, 1.0).export_range();
        assert!(
            (hi - 2.0).abs() < 1e-3 && lo == -hi,
            "a = 1: 1 + 1/2 + 1/4 + … < 2"
        );
    }

    #[test]
    fn roughness_and_level_out_of_range_are_refused() {
        for bad in [-0.1, 4.5, f32::NAN, f32::INFINITY] {
            assert!(QuadtreeWorld::new(1, bad).is_err(), "{bad}");
        }
        let mut w = world(1, 1.0);
        assert!(w.tile(0, 0, MAX_LEVEL + 1).is_err());
        assert!(w.tile(MAX_INDEX, 0, 1).is_err());
        assert_eq!(w.squares_held(), 0);
    }

    /// Checks the quadtree of every square held: an expanded node's four
    /// neighbours exist for real (the tree is balanced); a pseudo-partitioned
    /// node is real, borders an expanded node, has no deeper nodes, and its
    /// new points are the real heights on edges shared with expanded nodes
    /// (equal to the copy in the neighbour's own square) and plain
    /// interpolations elsewhere. Returns the count of pseudo nodes.
    fn check_tree(w: &QuadtreeWorld) -> usize {
        let mut pseudo = 0;
        for (&(i, j), &s) in &w.index {
            let sq = &w.squares[s];
            for depth in 0..sq.depth {
                let n = 1i64 << depth;
                for y in 0..n {
                    for x in 0..n {
                        let (wx, wy) = ((i << depth) + x, (j << depth) + y);
                        let real = |d: u32, px: i64, py: i64| {
                            d == 0 || w.state(d - 1, px >> 1, py >> 1) == NodeState::Expanded
                        };
                        let state = sq.state(depth, x as usize, y as usize);
                        if state == NodeState::Unexpanded {
                            continue;
                        }
                        assert!(real(depth, wx, wy), "({i}, {j}) d{depth} ({x}, {y})");
                        for (nx, ny) in neighbours(wx, wy) {
                            if state == NodeState::Expanded {
                                assert!(real(depth, nx, ny), "unbalanced at d{depth}");
                            }
                        }
                        if state != NodeState::Pseudo {
                            continue;
                        }
                        pseudo += 1;
                        if depth + 1 < sq.depth {
                            for (cx, cy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                                let child =
                                    sq.state(depth + 1, 2 * x as usize + cx, 2 * y as usize + cy);
                                assert_eq!(child, NodeState::Unexpanded);
                            }
                        }
                        let l = depth + 1;
                        let h = |px: i64, py: i64| w.stored(i, j, l, px as usize, py as usize);
                        let (x2, y2) = (2 * x, 2 * y);
                        let sides = [
                            (x2, y2 + 1),
                            (x2 + 2, y2 + 1),
                            (x2 + 1, y2),
                            (x2 + 1, y2 + 2),
                        ];
                        let ends = [
                            ((x2, y2), (x2, y2 + 2)),
                            ((x2 + 2, y2), (x2 + 2, y2 + 2)),
                            ((x2, y2), (x2 + 2, y2)),
                            ((x2, y2 + 2), (x2 + 2, y2 + 2)),
                        ];
                        let mut any_expanded = false;
                        for (side, (nx, ny)) in neighbours(wx, wy).into_iter().enumerate() {
                            let (px, py) = sides[side];
                            if w.state(depth, nx, ny) == NodeState::Expanded {
                                any_expanded = true;
                                // The copy in the expanded neighbour's square.
                                let (wpx, wpy) = ((i << l) + px, (j << l) + py);
                                let (oi, oj) = (nx >> depth, ny >> depth);
                                let theirs = w.stored(
                                    oi,
                                    oj,
                                    l,
                                    (wpx - (oi << l)) as usize,
                                    (wpy - (oj << l)) as usize,
                                );
                                assert_eq!(h(px, py).to_bits(), theirs.to_bits(), "a crack");
                            } else {
                                let ((ax, ay), (bx, by)) = ends[side];
                                assert_eq!(h(px, py), midpoint(h(ax, ay), h(bx, by), 0.0));
                            }
                        }
                        assert!(any_expanded, "a pseudo node beside no expanded node");
                        let corners = [h(x2, y2), h(x2 + 2, y2), h(x2, y2 + 2), h(x2 + 2, y2 + 2)];
                        assert_eq!(h(x2 + 1, y2 + 1), interpolated_centre(corners));
                    }
                }
            }
        }
        pseudo
    }

    #[test]
    fn neighbours_are_expanded_first_and_their_border_quadrants_pseudo_expanded() {
        let level = 6;
        let mut w = world(31, 1.0);
        let tile = w.tile(0, 0, level).unwrap();
        // Square (1, 0) along the shared edge: expanded to depth 4 (so its
        // nodes of depth 5 exist, neighbours first), those pseudo-partitioned,
        // and nothing deeper or further in.
        for y in 0..1usize << (level - 1) {
            assert_eq!(w.node_state(1, 0, level - 1, 0, y), NodeState::Pseudo);
            assert_eq!(w.node_state(1, 0, level - 1, 1, y), NodeState::Unexpanded);
            assert_eq!(w.node_state(1, 0, level - 2, 0, y / 2), NodeState::Expanded);
            // Expanding those pseudo-partitioned their leaf neighbours in turn.
            assert_eq!(w.node_state(1, 0, level - 2, 1, y / 2), NodeState::Pseudo);
            assert_eq!(
                w.node_state(1, 0, level - 2, 2, y / 2),
                NodeState::Unexpanded
            );
        }
        for y in 0..=1usize << level {
            // The pseudo quadrants' shared edge holds the real heights.
            assert_eq!(
                w.stored(1, 0, level, 0, y).to_bits(),
                tile.get(1 << level, y).to_bits()
            );
        }
        assert!(w.squares_held() > 5, "the neighbours' neighbours too");
        assert!(check_tree(&w) > 0);
        // A pseudo node of (1, 0) whose other neighbour, in (1, -1), is
        // expanded later takes that real height too (its copy in (1, 0)).
        let above = w.tile(1, -1, level).unwrap();
        assert_eq!(w.node_state(1, 0, level - 1, 0, 0), NodeState::Pseudo);
        assert_eq!(
            w.stored(1, 0, level, 1, 0).to_bits(),
            above.get(1, 1 << level).to_bits()
        );
        assert!(check_tree(&w) > 0);
        // Built for real, (1, 0) is what a fresh world makes.
        let right = w.tile(1, 0, level).unwrap();
        assert_eq!(right, world(31, 1.0).tile(1, 0, level).unwrap());
        check_tree(&w);
    }

    #[test]
    fn the_tree_stays_balanced_and_crack_free_over_many_builds() {
        let mut w = world(41, 0.8);
        for (i, j, l) in [
            (0, 0, 5),
            (2, 1, 7),
            (-1, 0, 3),
            (1, 1, 6),
            (0, 2, 4),
            (1, 0, 7),
        ] {
            w.tile(i, j, l).unwrap();
            check_tree(&w);
        }
    }
}
