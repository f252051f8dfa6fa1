//! Seeded, portable randomness: one u64 seed gives the same numbers on every run and platform.
//!
//! The generator is PCG-64 (a named algorithm whose output is fixed by its
//! specification), and every conversion from its integers to floats is written
//! here with exact arithmetic, so no library's sampling code can change a map.
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The generator every terrain algorithm draws from.
#[derive(Clone)]
pub struct TerrainRng(Pcg64);

impl TerrainRng {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Self {
        TerrainRng(Pcg64::seed_from_u64(seed))
    }

    /// The generator for a position in a seeded world, so that what happens at
    /// a place depends only on the seed and the place, never on the order in
    /// which places are visited.
    pub fn at(seed: u64, x: i64, y: i64) -> Self {
        TerrainRng::new(mix(mix(seed ^ 0x9E37_79B9_7F4A_7C15, x as u64), y as u64))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in [0, n); `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        // Multiply-high keeps it portable and free of modulo bias beyond 2^-64.
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.next_u64() >> 63 == 1
    }
}

/// SplitMix64's finaliser over `a + b`: a cheap, well-mixed hash of two words.
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.wrapping_add(b.wrapping_mul(0xBF58_476D_1CE4_E5B9));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_stream() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = TerrainRng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = TerrainRng::new(7);
        assert_eq!(a, (0..4).map(|_| r.next_u64()).collect::<Vec<_>>());
        assert_ne!(a[0], TerrainRng::new(8).next_u64());
    }

    #[test]
    fn pcg64_stream_is_pinned() {
        // Pins the named generator and its seeding: if a dependency update
        // changed either, every seed's terrain would change with it.
        let mut r = TerrainRng::new(42);
        let first = r.next_u64();
        let mut again = TerrainRng::new(42);
        assert_eq!(first, again.next_u64());
        assert_eq!(first, PCG64_SEED_42_FIRST);
    }

    const PCG64_SEED_42_FIRST: u64 = 4_178_418_447_715_145_737;

    #[test]
    fn unit_stays_in_range() {
        let mut r = TerrainRng::new(1);
        for _ in 0..10_000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn places_get_distinct_streams() {
        assert_ne!(
            TerrainRng::at(1, 0, 1).next_u64(),
            TerrainRng::at(1, 1, 0).next_u64()
        );
    }
}
