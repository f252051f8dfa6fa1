//! Lines and their row spans: where a fault line splits one row of samples.
//!
//! The side test is the perp-dot product of the fault sources, evaluated in f64. For a
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

    /// The splits of rows `first..first + splits.len()` of a `width`-wide
    /// map, each within its own span: `splits[i]` is
    /// `split(first + i, lo[i], hi[i]).0`, where `lo[i]` and `hi[i]` hold
    /// the span's bounds as f64 (integers up to the width, exact), and so
    /// does `splits[i]`. By monotonicity the split of a span is the row's
    /// whole-row split clamped to the span, which is how it is found.
    ///
    /// One branch-free loop of f64 arithmetic decides every row whose
    /// crossing lies clearly between two samples (or clearly outside the
    /// row), with the margin of [`RowSplitter::split`] (a million times the
    /// rounding error of the crossing, so the few roundings of the test
    /// itself do not matter), so the compiler can run it on vector
    /// registers; the few rows left undecided are settled by the side test
    /// afterwards.
    #[inline(always)]
    pub fn split_spans(
        &self,
        first: usize,
        width: usize,
        lo: &[f64],
        hi: &[f64],
        splits: &mut [f64],
    ) {
        let (lo, hi) = (&lo[..splits.len()], &hi[..splits.len()]);
        let end = width as f64;
        if self.horizontal {
            for (row, ((split, &lo), &hi)) in (first..).zip(splits.iter_mut().zip(lo).zip(hi)) {
                *split = within(self.split(row, 0, width).0 as f64, lo, hi);
            }
            return;
        }
        let (start_x, start_y) = (self.line.start[0], self.line.start[1]);
        let (run, margin) = (self.run_per_row, self.margin);
        // Adding and subtracting 2^52 rounds an f64 below 2^51 to an integer.
        const ROUNDER: f64 = (1u64 << 52) as f64;
        // Whether any row is undecided, as an integer: ORed in vector
        // registers, where a flag would be packed first.
        let mut undecided = 0u64;
        // Row numbers as i32 (maps have fewer than 2^28 rows) convert to f64
        // exactly and, unlike usize, on vector registers.
        for (row, ((split, &lo), &hi)) in (first as i32..).zip(splits.iter_mut().zip(lo).zip(hi)) {
            let crossing = start_x + (f64::from(row) - start_y) * run;
            // A crossing over half a sample beyond the row's first or last
            // sample puts the whole row on one side, as one at that half
            // sample does; clamped there, it stays in the range where the
            // rounding below is exact. A NaN stays NaN.
            let near = within(crossing, -0.5, end - 0.5);
            let shifted = near + 2.0;
            let nearest = (shifted + ROUNDER) - ROUNDER;
            // The first sample past `near`, floor(near) + 1 (or, when
            // `near + 2` rounds up to an integer, one more, which the margin
            // test below turns down).
            let past = if nearest > shifted {
                nearest - 2.0
            } else {
                nearest - 1.0
            };
            // Decided when the crossing lies further than the margin from
            // the samples on either side of it.
            let gap = past - near;
            let decided = (gap > margin) & (1.0 - gap > margin);
            // Clamped to the span (which lies within the row); NaN, which
            // the clamp keeps, when undecided.
            *split = within(if decided { past } else { f64::NAN }, lo, hi);
            undecided |= u64::from(!decided);
        }
        if undecided != 0 {
            for (row, ((split, &lo), &hi)) in (first..).zip(splits.iter_mut().zip(lo).zip(hi)) {
                if split.is_nan() {
                    let crossing = start_x + (row as f64 - start_y) * run;
                    let whole = self.split_by_side_test(row, 0, width, crossing).0 as f64;
                    *split = within(whole, lo, hi);
                }
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

/// `value` clamped to `lo..=hi`, a NaN `value` left NaN: each comparison
/// is one vector instruction (x86 `maxpd` and `minpd` give exactly this),
/// where `f64::clamp` would add NaN handling.
#[inline(always)]
fn within(value: f64, lo: f64, hi: f64) -> f64 {
    let raised = if value < lo { lo } else { value };
    if raised > hi { hi } else { raised }
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
    fn span_splits_equal_the_row_at_a_time_split() {
        // Random lines and lines through sample points (whose crossings sit
        // exactly on samples, the rows left to the side test), horizontal,
        // vertical and degenerate ones, nearly horizontal ones (a margin
        // wider than a sample), ones far off the map or with huge
        // coordinates, over bands that start anywhere, on whole rows,
        // random spans and empty ones.
        let mut rng = crate::terrain::rng::TerrainRng::new(6);
        let mut lines = vec![
            Line::new([4.0, 0.0], [4.0, 9.0]),
            Line::new([0.0, 3.0], [9.0, 3.0]),
            Line::new([2.5, 2.5], [2.5, 2.5]),
            Line::new([0.0, 3.0], [9.0, 3.0 + 1e-12]),
            Line::new([30.0, 7.5], [2.0, 7.5 - 1e-9]),
            Line::new([-1e6, 0.0], [-1e6 + 3.0, 20.0]),
            Line::new([1e6, 5.0], [1e6 - 4.0, 6.0]),
            Line::new([1e15, -1e15], [-1e15, 1e15]),
            Line::new([16.5, 1e300], [16.5, -1e300]),
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
                let count = 8.min(rows - first);
                let random_spans: Vec<(usize, usize)> = (0..count)
                    .map(|_| {
                        let (a, b) = (rng.below(width + 1), rng.below(width + 1));
                        (a.min(b) as usize, a.max(b) as usize)
                    })
                    .collect();
                for spans in [vec![(0, width as usize); count], random_spans] {
                    let lo: Vec<f64> = spans.iter().map(|&(lo, _)| lo as f64).collect();
                    let hi: Vec<f64> = spans.iter().map(|&(_, hi)| hi as f64).collect();
                    let mut splits = vec![f64::NAN; count];
                    splitter.split_spans(first, width as usize, &lo, &hi, &mut splits);
                    let expected: Vec<f64> = (0..count)
                        .map(|i| splitter.split(first + i, spans[i].0, spans[i].1).0 as f64)
                        .collect();
                    assert_eq!(
                        splits, expected,
                        "line {line:?} rows from {first}, spans {spans:?}"
                    );
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
