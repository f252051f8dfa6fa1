//! Fixed-point height accumulation: integer sums make many faults order-independent and exact.
//!
//! A fault's displacement is rounded once to a multiple of 2^-32 terrain units
//! and summed as `i64`. Integer addition is associative, so a fast rasteriser
//! that adds spans in any order, a per-pixel reference, a batch of 500
//! iterations and 500 single steps all reach the same bits.

/// Fixed-point units per terrain unit.
pub const ONE: f64 = (1u64 << 32) as f64;

/// `value` in fixed-point units, rounded to nearest (ties away from zero).
pub fn to_fixed(value: f64) -> i64 {
    (value * ONE).round() as i64
}

/// A fixed-point sum back in terrain units.
pub fn to_f32(fixed: i64) -> f32 {
    (fixed as f64 / ONE) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_representable_values() {
        for v in [0.0, 1.25, -0.25, 0.005, 1024.5] {
            assert_eq!(to_f32(to_fixed(v)), v as f32);
        }
    }

    #[test]
    fn rounds_to_the_nearest_unit() {
        assert_eq!(to_fixed(1.4 / ONE), 1);
        assert_eq!(to_fixed(1.6 / ONE), 2);
        assert_eq!(to_fixed(-1.6 / ONE), -2);
    }
}
