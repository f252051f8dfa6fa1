//! The vectors the IIR pass's row filters run on: four rows a vector anywhere (SSE2, NEON), eight with AVX where the processor has it.
//!
//! The row passes filter a block of rows side by side, one row per lane, so
//! a block is as many rows as a vector has lanes. Each lane performs the
//! same IEEE single-precision multiply, add and maximum as the scalar loop,
//! in the same order and never fused, so every vector width gives the same
//! bits; only how many rows share an instruction differs.
use std::ops::{Add, Mul};

use wide::f32x4;

/// Most rows a vector holds, over every [`Lanes`] type.
pub(crate) const MAX_ROWS: usize = 8;

/// Rows the IIR row passes filter side by side, as [`Lanes::BLOCKS`]
/// blocks of [`Lanes::ROWS`]: their recurrences are independent, so the
/// processor overlaps their multiply-add chains. Sixteen rows of a
/// 257-wide map, with their columns, stay in the first-level cache.
pub(crate) const ROW_LANES: usize = 16;

/// Per sample of a row, the blocks of a group's rows at that column, for
/// each vector type; kept so that a pass every frame allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct ColumnBuffers {
    four: Vec<f32x4>,
    #[cfg(target_arch = "x86_64")]
    eight: Vec<Avx8>,
}

/// `[item(0), …, item(3)]`; unlike `std::array::from_fn`, always inlined,
/// so that code compiled for AVX stays in one function.
#[inline(always)]
pub(crate) fn array4<T>(mut item: impl FnMut(usize) -> T) -> [T; 4] {
    [item(0), item(1), item(2), item(3)]
}

/// `[item(0), …, item(7)]`, as [`array4`].
#[inline(always)]
pub(crate) fn array8<T>(mut item: impl FnMut(usize) -> T) -> [T; MAX_ROWS] {
    [
        item(0),
        item(1),
        item(2),
        item(3),
        item(4),
        item(5),
        item(6),
        item(7),
    ]
}

/// One vector of a block's rows, a sample of each.
pub(crate) trait Lanes: Copy + Add<Output = Self> + Mul<Output = Self> {
    /// Rows a vector holds, at most [`MAX_ROWS`].
    const ROWS: usize;

    /// Blocks of [`Lanes::ROWS`] rows in a group of [`ROW_LANES`].
    const BLOCKS: usize = ROW_LANES / Self::ROWS;

    fn splat(value: f32) -> Self;

    /// Lane by lane, `self` where it is below `other`, else `other` (x86
    /// `minps`); the same as `f32::min` for numbers that are not NaN.
    fn min(self, other: Self) -> Self;

    /// Lane by lane, `self` where it is above `other`, else `other` (x86
    /// `maxps`); the same as `f32::max` for numbers that are not NaN.
    fn max(self, other: Self) -> Self;

    /// `max(self, 0)` as x86 `maxps` gives it: zero when `self` is not
    /// greater than zero. For the heights of a run, which are never NaN,
    /// that is `f32::max(self, 0.0)`.
    fn max_zero(self) -> Self;

    /// The first [`Lanes::ROWS`] of `samples`, one a lane.
    fn load(samples: &[f32]) -> Self;

    /// Writes the lanes to the first [`Lanes::ROWS`] of `samples`.
    fn store(self, samples: &mut [f32]);

    /// Samples `x..x + 4` of each row of `block` ([`Lanes::ROWS`] rows of
    /// `width`, row-major), as four vectors that [`Lanes::transpose`] turns
    /// into the four columns.
    fn load_rows(block: &[f32], width: usize, x: usize) -> [Self; 4];

    /// Writes four vectors laid out as [`Lanes::load_rows`] reads them.
    fn store_rows(vectors: [Self; 4], block: &mut [f32], width: usize, x: usize);

    /// Four vectors from [`Lanes::load_rows`] as four columns (column `i`
    /// holds sample `x + i` of every row, row `j` in lane `j`), and back.
    fn transpose(vectors: [Self; 4]) -> [Self; 4];

    /// A column from its samples, row `j`'s from `sample(j)`.
    fn gather(sample: impl Fn(usize) -> f32) -> Self;

    /// The samples of a column, row `j`'s at `j`.
    fn lanes(self) -> [f32; MAX_ROWS];

    /// This vector type's buffer in `buffers`.
    fn buffer(buffers: &mut ColumnBuffers) -> &mut Vec<Self>;

    /// Runs `work` with this vector type's instructions enabled: code
    /// inlined into `work` may use them.
    fn with_instructions<R>(work: impl FnOnce() -> R) -> R;
}

impl Lanes for f32x4 {
    const ROWS: usize = 4;

    #[inline(always)]
    fn splat(value: f32) -> Self {
        f32x4::splat(value)
    }

    #[inline(always)]
    fn min(self, other: Self) -> Self {
        self.fast_min(other)
    }

    #[inline(always)]
    fn max(self, other: Self) -> Self {
        self.fast_max(other)
    }

    #[inline(always)]
    fn max_zero(self) -> Self {
        self.fast_max(f32x4::ZERO)
    }

    #[inline(always)]
    fn load(samples: &[f32]) -> Self {
        f32x4::new(*samples.first_chunk::<4>().unwrap())
    }

    #[inline(always)]
    fn store(self, samples: &mut [f32]) {
        samples[..4].copy_from_slice(self.as_array());
    }

    #[inline(always)]
    fn load_rows(block: &[f32], stride: usize, x: usize) -> [Self; 4] {
        // One bounds check for the four rows' quads, the last row's the
        // furthest, rather than one per quad.
        let end = 3 * stride + x + 4;
        assert!(end <= block.len(), "four rows of {stride} from {x}");
        let samples = block.as_ptr();
        array4(
            #[inline(always)]
            |j| {
                // SAFETY: the 4 floats of row j from x end by `end`, within
                // `block` (asserted above); the read needs no alignment.
                f32x4::new(unsafe {
                    samples
                        .add(j * stride + x)
                        .cast::<[f32; 4]>()
                        .read_unaligned()
                })
            },
        )
    }

    #[inline(always)]
    fn store_rows(vectors: [Self; 4], block: &mut [f32], stride: usize, x: usize) {
        let end = 3 * stride + x + 4;
        assert!(end <= block.len(), "four rows of {stride} from {x}");
        let samples = block.as_mut_ptr();
        for (j, vector) in vectors.into_iter().enumerate() {
            // SAFETY: the 4 floats of row j from x end by `end`, within
            // `block` (asserted above); the write needs no alignment.
            unsafe {
                samples
                    .add(j * stride + x)
                    .cast::<[f32; 4]>()
                    .write_unaligned(vector.to_array())
            };
        }
    }

    #[inline(always)]
    fn transpose(vectors: [Self; 4]) -> [Self; 4] {
        f32x4::transpose(vectors)
    }

    #[inline(always)]
    fn gather(sample: impl Fn(usize) -> f32) -> Self {
        f32x4::new(array4(sample))
    }

    #[inline(always)]
    fn lanes(self) -> [f32; MAX_ROWS] {
        let quad = self.to_array();
        array8(
            #[inline(always)]
            |j| if j < 4 { quad[j] } else { 0.0 },
        )
    }

    fn buffer(buffers: &mut ColumnBuffers) -> &mut Vec<Self> {
        &mut buffers.four
    }

    #[inline(always)]
    fn with_instructions<R>(work: impl FnOnce() -> R) -> R {
        work()
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use avx::Avx8;

#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::*;
    use std::ops::{Add, Mul};

    use super::{ColumnBuffers, Lanes, MAX_ROWS, array4, array8};

    /// Eight rows a vector, in one AVX register: lanes 0–3 hold rows 0–3
    /// and lanes 4–7 rows 4–7, so the 4 × 4 transposes of SSE work on
    /// both halves at once.
    ///
    /// Only made where the processor has AVX ([`Avx8::available`]): the
    /// pass asks before choosing it, and [`Lanes::with_instructions`]
    /// asserts it. That is what makes each `unsafe` block below sound;
    /// every method is inlined into code compiled with AVX enabled.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Avx8(__m256);

    impl Avx8 {
        /// Whether this processor runs AVX instructions (detected once, then cached).
        pub(crate) fn available() -> bool {
            is_x86_feature_detected!("avx")
        }
    }

    /// Runs `work` compiled with AVX enabled.
    ///
    /// # Safety
    /// The processor must have AVX.
    #[target_feature(enable = "avx")]
    unsafe fn with_avx<R>(work: impl FnOnce() -> R) -> R {
        work()
    }

    impl Add for Avx8 {
        type Output = Self;
        #[inline(always)]
        fn add(self, other: Self) -> Self {
            // SAFETY: an Avx8 exists only where AVX is (type docs).
            Avx8(unsafe { _mm256_add_ps(self.0, other.0) })
        }
    }

    impl Mul for Avx8 {
        type Output = Self;
        #[inline(always)]
        fn mul(self, other: Self) -> Self {
            // SAFETY: an Avx8 exists only where AVX is (type docs).
            Avx8(unsafe { _mm256_mul_ps(self.0, other.0) })
        }
    }

    impl Lanes for Avx8 {
        const ROWS: usize = 8;

        #[inline(always)]
        fn splat(value: f32) -> Self {
            // SAFETY: called only where AVX is (type docs).
            Avx8(unsafe { _mm256_set1_ps(value) })
        }

        #[inline(always)]
        fn min(self, other: Self) -> Self {
            // SAFETY: an Avx8 exists only where AVX is (type docs).
            Avx8(unsafe { _mm256_min_ps(self.0, other.0) })
        }

        #[inline(always)]
        fn max(self, other: Self) -> Self {
            // SAFETY: an Avx8 exists only where AVX is (type docs).
            Avx8(unsafe { _mm256_max_ps(self.0, other.0) })
        }

        #[inline(always)]
        fn max_zero(self) -> Self {
            // SAFETY: an Avx8 exists only where AVX is (type docs).
            Avx8(unsafe { _mm256_max_ps(self.0, _mm256_setzero_ps()) })
        }

        #[inline(always)]
        fn load(samples: &[f32]) -> Self {
            let samples = &samples[..8];
            // SAFETY: AVX is there (type docs); the unaligned load reads
            // the 8 floats of `samples`.
            Avx8(unsafe { _mm256_loadu_ps(samples.as_ptr()) })
        }

        #[inline(always)]
        fn store(self, samples: &mut [f32]) {
            let samples = &mut samples[..8];
            // SAFETY: AVX is there (type docs); the unaligned store writes
            // the 8 floats of `samples`.
            unsafe { _mm256_storeu_ps(samples.as_mut_ptr(), self.0) }
        }

        #[inline(always)]
        fn load_rows(block: &[f32], stride: usize, x: usize) -> [Self; 4] {
            // One bounds check for the eight rows' quads, the last row's
            // the furthest, rather than one per quad.
            let end = 7 * stride + x + 4;
            assert!(end <= block.len(), "eight rows of {stride} from {x}");
            let samples = block.as_ptr();
            array4(
                #[inline(always)]
                |j| {
                    // SAFETY: AVX is there (type docs); the loads read 4
                    // floats from row j and from row j + 4, both ending by
                    // `end`, within `block` (asserted above).
                    Avx8(unsafe {
                        let low = _mm_loadu_ps(samples.add(j * stride + x));
                        let high = _mm_loadu_ps(samples.add((j + 4) * stride + x));
                        _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(low), high)
                    })
                },
            )
        }

        #[inline(always)]
        fn store_rows(vectors: [Self; 4], block: &mut [f32], stride: usize, x: usize) {
            let end = 7 * stride + x + 4;
            assert!(end <= block.len(), "eight rows of {stride} from {x}");
            let samples = block.as_mut_ptr();
            for (j, vector) in vectors.into_iter().enumerate() {
                // SAFETY: AVX is there (type docs); the stores write 4
                // floats to row j and to row j + 4, both ending by `end`,
                // within `block` (asserted above).
                unsafe {
                    let (low, high) = (
                        samples.add(j * stride + x),
                        samples.add((j + 4) * stride + x),
                    );
                    _mm_storeu_ps(low, _mm256_castps256_ps128(vector.0));
                    _mm_storeu_ps(high, _mm256_extractf128_ps::<1>(vector.0));
                }
            }
        }

        #[inline(always)]
        fn transpose([a, b, c, d]: [Self; 4]) -> [Self; 4] {
            // Within each 128-bit half, as SSE's 4 × 4 transpose.
            // SAFETY: an Avx8 exists only where AVX is (type docs).
            unsafe {
                let ab_low = _mm256_unpacklo_ps(a.0, b.0);
                let cd_low = _mm256_unpacklo_ps(c.0, d.0);
                let ab_high = _mm256_unpackhi_ps(a.0, b.0);
                let cd_high = _mm256_unpackhi_ps(c.0, d.0);
                [
                    Avx8(_mm256_shuffle_ps::<0b01_00_01_00>(ab_low, cd_low)),
                    Avx8(_mm256_shuffle_ps::<0b11_10_11_10>(ab_low, cd_low)),
                    Avx8(_mm256_shuffle_ps::<0b01_00_01_00>(ab_high, cd_high)),
                    Avx8(_mm256_shuffle_ps::<0b11_10_11_10>(ab_high, cd_high)),
                ]
            }
        }

        #[inline(always)]
        fn gather(sample: impl Fn(usize) -> f32) -> Self {
            Self::load(&array8(sample))
        }

        #[inline(always)]
        fn lanes(self) -> [f32; MAX_ROWS] {
            let mut samples = [0.0; MAX_ROWS];
            self.store(&mut samples);
            samples
        }

        fn buffer(buffers: &mut ColumnBuffers) -> &mut Vec<Self> {
            &mut buffers.eight
        }

        #[inline(always)]
        fn with_instructions<R>(work: impl FnOnce() -> R) -> R {
            assert!(Avx8::available(), "AVX vectors are made only where AVX is");
            // SAFETY: checked just above.
            unsafe { with_avx(work) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every vector type loads, transposes, stores and gathers as the
    /// row-per-lane layout says.
    fn check_layout<V: Lanes>() {
        V::with_instructions(|| {
            let width = 8;
            let cells: Vec<f32> = (0..V::ROWS * width).map(|i| i as f32).collect();
            let columns = V::transpose(V::load_rows(&cells, width, 4));
            for (i, column) in columns.iter().enumerate() {
                let lanes = column.lanes();
                for j in 0..V::ROWS {
                    assert_eq!(lanes[j], cells[j * width + 4 + i], "column {i} row {j}");
                }
                let gathered = V::gather(|j| cells[j * width + 4 + i]).lanes();
                assert_eq!(gathered, lanes);
            }
            let mut out = vec![0.0; V::ROWS * width];
            V::store_rows(V::transpose(columns), &mut out, width, 4);
            for j in 0..V::ROWS {
                assert_eq!(out[j * width..][4..8], cells[j * width..][4..8], "row {j}");
                assert_eq!(out[j * width..][..4], [0.0; 4], "row {j} left alone");
            }
            let mut copy = vec![0.0; V::ROWS + 1];
            V::load(&cells[3..]).store(&mut copy[1..]);
            assert_eq!(copy[1..], cells[3..3 + V::ROWS]);
            assert_eq!(copy[0], 0.0);
            let signed = V::gather(|j| j as f32 - 2.0);
            let one = V::splat(1.0);
            let (clamped, low, high) = (signed.max_zero(), signed.min(one), signed.max(one));
            for j in 0..V::ROWS {
                let sample = j as f32 - 2.0;
                assert_eq!(clamped.lanes()[j].to_bits(), sample.max(0.0).to_bits());
                assert_eq!(low.lanes()[j], sample.min(1.0));
                assert_eq!(high.lanes()[j], sample.max(1.0));
            }
        });
    }

    #[test]
    fn four_lane_vectors_keep_one_row_per_lane() {
        check_layout::<f32x4>();
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx_vectors_keep_one_row_per_lane() {
        if Avx8::available() {
            check_layout::<Avx8>();
        } else {
            eprintln!("no AVX on this processor: its vectors are not used, nor tested");
        }
    }
}
