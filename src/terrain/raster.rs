//! Lines and their row spans: where a fault line splits one row of samples.
//!
//! The side test is the perp-dot product of the seeds, evaluated in f64. For a
//! fixed row its rounded value is monotone in x (each floating-point step is
//! a monotone rounding of a monotone function), so the samples on one side of
//! a line form one contiguous run of each row. [`Line::split_row`] finds where
//! the run ends from the line equation, and whenever that crossing lies within
//! rounding distance of a sample it confirms the split with the very same side
//! test, so the fast span rasteriser and a per-pixel walk agree exactly.

/// An infinite line through `start` towards `end`, in sample coordinates
/// (x = column, y = row). A line whose two points coincide has every sample
/// on its left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// A point on the line.
    pub start: [f64; 2],
    /// A second point, fixing the direction; may equal `start` (degenerate).
    pub end: [f64; 2],
}

impl Line {
    pub fn new(start: [f64; 2], end: [f64; 2]) -> Self {
        Line { start, end }
    }

    /// The perp-dot of (end − start) and (p − start): positive on the right.
    pub fn perp_dot(&self, x: f64, y: f64) -> f64 {
        let dx = self.end[0] - self.start[0];
        let dy = self.end[1] - self.start[1];
        (x - self.start[0]) * dy - dx * (y - self.start[1])
    }

    /// Whether sample (x, y) lies strictly on the right of the line.
    pub fn is_right(&self, x: usize, y: usize) -> bool {
        self.perp_dot(x as f64, y as f64) > 0.0
    }

    /// Splits the samples `lo..hi` of row `y` at `s`: samples `lo..s` are on
    /// one side and `s..hi` on the other. Returns `(s, right_first)`, where
    /// `right_first` tells whether `lo..s` is the right side.
    pub fn split_row(&self, y: usize, lo: usize, hi: usize) -> (usize, bool) {
        RowSplitter::new(*self, y + 1).split(y, lo, hi)
    }
}

/// A line prepared for splitting many rows: the per-line divisions and
/// error bounds are worked out once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowSplitter {
    /// The line whose side test is the ground truth.
    line: Line,
    /// dx / dy: how far the crossing moves per row; zero for horizontal lines.
    run_per_row: f64,
    /// Whether the right side comes first along a row (dy < 0).
    right_first: bool,
    /// Whether the line is horizontal (dy = 0): a row is all on one side.
    horizontal: bool,
    /// How close (in samples) a computed crossing may come to a sample
    /// before the side test must decide.
    margin: f64,
}

impl RowSplitter {
    /// Prepares `line` for rows `0..rows`.
    pub fn new(line: Line, rows: usize) -> Self {
        let dx = line.end[0] - line.start[0];
        let dy = line.end[1] - line.start[1];
        let run_per_row = if dy == 0.0 { 0.0 } else { dx / dy };
        // The crossing sx + (y − sy)·dx/dy and the side test are each off by
        // a few units in the last place of |sx| + |(y − sy)·dx/dy| (and of the
        // crossing itself), and |y − sy| ≤ |sy| + rows. A margin a million
        // times that error leaves no doubt.
        let far_run = run_per_row.abs() * (line.start[1].abs() + rows as f64);
        let margin = 1e-9 * (2.0 * line.start[0].abs() + 2.0 * far_run + 1.0);
        RowSplitter {
            line,
            run_per_row,
            right_first: dy < 0.0,
            horizontal: dy == 0.0,
            margin,
        }
    }

    /// As [`Line::split_row`].
    pub fn split(&self, y: usize, lo: usize, hi: usize) -> (usize, bool) {
        let right_first = self.right_first;
        if self.horizontal {
            let right = self.line.is_right(lo, y);
            return (if right == right_first { hi } else { lo }, right_first);
        }
        let crossing = self.line.start[0] + (y as f64 - self.line.start[1]) * self.run_per_row;
        // The split is the first sample past the crossing; decided without a
        // side test when the crossing is clearly between two samples or
        // clearly outside the span.
        if crossing < lo as f64 - 1.0 - self.margin {
            return (lo, right_first);
        }
        if crossing > hi as f64 + self.margin {
            return (hi, right_first);
        }
        if crossing >= lo as f64 - 1.0 {
            // Truncation is floor here: crossing + 1 ≥ 0.
            let below = (crossing + 1.0) as i64 as f64 - 1.0;
            if crossing - below > self.margin && below + 1.0 - crossing > self.margin {
                return (
                    (below + 1.0).clamp(lo as f64, hi as f64) as usize,
                    right_first,
                );
            }
        }
        self.split_by_side_test(y, lo, hi, crossing)
    }

    /// The splits of whole rows `first..first + splits.len()` of a `width`-wide
    /// map: `splits[i]` is `split(first + i, 0, width).0`, as an f64 (exact:
    /// it is an integer up to the width). By monotonicity the split of any
    /// span `lo..hi` of a row is that row's whole-row split clamped to `lo..=hi`.
    ///
    /// One branch-free loop of f64 arithmetic decides every row whose
    /// crossing lies clearly between two samples (or clearly outside the
    /// row), with the same margin as [`RowSplitter::split`], so the compiler
    /// can run it on vector registers; the few rows left undecided are
    /// settled by the side test.
    #[inline(always)]
    pub fn whole_row_splits(&self, first: usize, width: usize, splits: &mut [f64]) {
        if self.horizontal {
            for (i, split) in splits.iter_mut().enumerate() {
                *split = self.split(first + i, 0, width).0 as f64;
            }
            return;
        }
        let (start_x, start_y) = (self.line.start[0], self.line.start[1]);
        let (run, margin) = (self.run_per_row, self.margin);
        let end = width as f64;
        // Adding and subtracting 2^52 rounds an f64 below 2^51 to an integer.
        const ROUNDER: f64 = (1u64 << 52) as f64;
        // Row numbers as i32 (maps have fewer than 2^28 rows) convert to f64
        // exactly and, unlike usize, on vector registers.
        for (row, split) in (first as i32..).zip(splits.iter_mut()) {
            let crossing = start_x + (f64::from(row) - start_y) * run;
            // Kept within [-2, width + 2], where the rounding below is
            // exact; outside it the row is decided anyway, and a NaN
            // crossing never is.
            let near = crossing.max(-2.0).min(end + 2.0);
            let shifted = near + 2.0;
            let nearest = (shifted + ROUNDER) - ROUNDER;
            // The floor of `near` (or, when `near + 2` rounds up to an
            // integer, one more, which the margin test below turns down).
            let below = if nearest > shifted {
                nearest - 1.0
            } else {
                nearest
            } - 2.0;
            let between = (near >= -1.0) & (near - below > margin) & (below + 1.0 - near > margin);
            let decided = (crossing < -1.0 - margin) | (crossing > end + margin) | between;
            *split = if decided {
                (below + 1.0).max(0.0).min(end)
            } else {
                -1.0
            };
        }
        for (row, split) in (first..).zip(splits.iter_mut()) {
            if *split < 0.0 {
                let crossing = start_x + (row as f64 - start_y) * run;
                *split = self.split_by_side_test(row, 0, width, crossing).0 as f64;
            }
        }
    }

    /// Whether the right side comes first along a row.
    pub fn right_first(&self) -> bool {
        self.right_first
    }

    /// The exact split, starting from the crossing as a guess and moving it
    /// until the side test confirms it.
    fn split_by_side_test(&self, y: usize, lo: usize, hi: usize, crossing: f64) -> (usize, bool) {
        let right_first = self.right_first;
        let guess = if crossing.is_nan() {
            lo as f64
        } else {
            crossing.floor() + 1.0
        };
        let mut s = guess.clamp(lo as f64, hi as f64) as usize;
        let starts_other_side = |x: usize| self.line.is_right(x, y) != right_first;
        while s > lo && starts_other_side(s - 1) {
            s -= 1;
        }
        while s < hi && !starts_other_side(s) {
            s += 1;
        }
        (s, right_first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_against_per_pixel(line: Line, width: usize, height: usize) {
        for y in 0..height {
            let (s, right_first) = line.split_row(y, 0, width);
            for x in 0..width {
                let expected = line.is_right(x, y);
                let got = if x < s { right_first } else { !right_first };
                assert_eq!(got, expected, "line {line:?} row {y} sample {x} split {s}");
            }
        }
    }

    #[test]
    fn split_matches_the_side_test_for_many_lines() {
        let mut rng = crate::terrain::rng::TerrainRng::new(3);
        for _ in 0..500 {
            let line = Line::new(
                [rng.range(-5.0, 40.0), rng.range(-5.0, 30.0)],
                [rng.range(-5.0, 40.0), rng.range(-5.0, 30.0)],
            );
            check_against_per_pixel(line, 33, 21);
        }
    }

    #[test]
    fn lines_through_sample_points_split_like_the_side_test() {
        // Integer end points put many crossings exactly on samples, where the
        // split must come from the side test itself.
        let mut rng = crate::terrain::rng::TerrainRng::new(4);
        for _ in 0..500 {
            let mut p = || [rng.below(30) as f64, rng.below(20) as f64];
            let line = Line::new(p(), p());
            check_against_per_pixel(line, 30, 20);
        }
    }

    #[test]
    fn vertical_horizontal_and_degenerate_lines_split_like_the_side_test() {
        for line in [
            Line::new([4.0, 0.0], [4.0, 9.0]),
            Line::new([4.0, 9.0], [4.0, 0.0]),
            Line::new([0.0, 3.0], [9.0, 3.0]),
            Line::new([9.0, 3.0], [0.0, 3.0]),
            Line::new([2.5, 2.5], [2.5, 2.5]),
            Line::new([3.0, 3.0], [3.0 + 1e-300, 3.0 + 1e-300]),
        ] {
            check_against_per_pixel(line, 10, 7);
        }
    }

    #[test]
    fn whole_row_splits_equal_the_row_at_a_time_split() {
        // Random lines and lines through sample points (whose crossings sit
        // exactly on samples, the rows left to the side test), horizontal,
        // vertical and degenerate ones, over bands that start anywhere.
        let mut rng = crate::terrain::rng::TerrainRng::new(6);
        let mut lines = vec![
            Line::new([4.0, 0.0], [4.0, 9.0]),
            Line::new([0.0, 3.0], [9.0, 3.0]),
            Line::new([2.5, 2.5], [2.5, 2.5]),
        ];
        for _ in 0..300 {
            lines.push(Line::new(
                [rng.range(-5.0, 40.0), rng.range(-5.0, 30.0)],
                [rng.range(-5.0, 40.0), rng.range(-5.0, 30.0)],
            ));
            let mut p = || [rng.below(33) as f64, rng.below(21) as f64];
            lines.push(Line::new(p(), p()));
        }
        let (width, rows) = (33, 21);
        for line in lines {
            let splitter = RowSplitter::new(line, rows);
            for first in [0, 5, 13] {
                let mut splits = [0.0; 8];
                let count = splits.len().min(rows - first);
                splitter.whole_row_splits(first, width, &mut splits[..count]);
                for (i, &split) in splits[..count].iter().enumerate() {
                    let expected = splitter.split(first + i, 0, width).0;
                    assert_eq!(split, expected as f64, "line {line:?} row {}", first + i);
                }
            }
        }
    }

    #[test]
    fn a_degenerate_line_puts_everything_on_the_left() {
        let line = Line::new([1.0, 1.0], [1.0, 1.0]);
        assert!(!line.is_right(0, 0) && !line.is_right(5, 5));
    }

    #[test]
    fn split_respects_a_sub_span() {
        let line = Line::new([5.5, 0.0], [5.5, 10.0]);
        assert_eq!(line.split_row(2, 7, 9), (7, false));
        assert_eq!(line.split_row(2, 0, 3), (3, false));
        assert_eq!(line.split_row(2, 3, 9), (6, false));
    }
}
