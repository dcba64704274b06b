//! [`NonZeroData`]: random test data that is never zero, from a seeded [`fastrand::Rng`].

use fastrand::Rng;

/// Non-zero values from a seeded generator: the same seed gives the same data on every
/// machine, and no value is zero, so a kernel that forgets an element or reads the wrong one
/// cannot match its CPU reference by accident.
///
/// Floats have either sign and a magnitude in [0.25, 2]: far enough from zero to be seen,
/// small enough that sums and short polynomials stay well inside `f32`.
///
/// ```
/// use kernel_test_support::{NonZeroData, Rng};
/// let v = Rng::with_seed(7).nonzero_f32s(4);
/// assert!(v.iter().all(|x| (0.25..=2.0).contains(&x.abs())));
/// assert_eq!(v, Rng::with_seed(7).nonzero_f32s(4));
/// ```
pub trait NonZeroData {
    /// One value of either sign with a magnitude in [0.25, 2).
    ///
    /// ```
    /// use kernel_test_support::{NonZeroData, Rng};
    /// assert!((0.25..2.0).contains(&Rng::with_seed(1).nonzero_f64().abs()));
    /// ```
    fn nonzero_f64(&mut self) -> f64;

    /// One value of either sign with a magnitude in [0.25, 2].
    ///
    /// ```
    /// use kernel_test_support::{NonZeroData, Rng};
    /// assert!((0.25..=2.0).contains(&Rng::with_seed(1).nonzero_f32().abs()));
    /// ```
    fn nonzero_f32(&mut self) -> f32 {
        self.nonzero_f64() as f32
    }

    /// `n` values as [`nonzero_f64`](NonZeroData::nonzero_f64) gives them.
    ///
    /// ```
    /// use kernel_test_support::{NonZeroData, Rng};
    /// assert_eq!(Rng::with_seed(1).nonzero_f64s(3).len(), 3);
    /// ```
    fn nonzero_f64s(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.nonzero_f64()).collect()
    }

    /// `n` values as [`nonzero_f32`](NonZeroData::nonzero_f32) gives them.
    ///
    /// ```
    /// use kernel_test_support::{NonZeroData, Rng};
    /// assert_eq!(Rng::with_seed(1).nonzero_f32s(3).len(), 3);
    /// ```
    fn nonzero_f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.nonzero_f32()).collect()
    }

    /// `n` integers in [1, 1000]: non-zero, and small enough that a million of them sum
    /// without overflowing a `u32`.
    ///
    /// ```
    /// use kernel_test_support::{NonZeroData, Rng};
    /// assert!(Rng::with_seed(1).nonzero_u32s(100).iter().all(|v| (1..=1000).contains(v)));
    /// ```
    fn nonzero_u32s(&mut self, n: usize) -> Vec<u32>;
}

impl NonZeroData for Rng {
    fn nonzero_f64(&mut self) -> f64 {
        let magnitude = 0.25 + 1.75 * self.f64();
        if self.bool() { magnitude } else { -magnitude }
    }

    fn nonzero_u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.u32(1..=1000)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_non_zero_and_in_range() {
        let mut r = Rng::with_seed(11);
        for _ in 0..100_000 {
            let x = r.nonzero_f32();
            assert!((0.25..=2.0).contains(&x.abs()), "{x}");
        }
    }

    #[test]
    fn both_signs_and_the_whole_range_occur() {
        let xs = Rng::with_seed(12).nonzero_f64s(10_000);
        assert!(xs.iter().any(|x| *x > 0.0) && xs.iter().any(|x| *x < 0.0));
        assert!(xs.iter().any(|x| x.abs() < 0.3) && xs.iter().any(|x| x.abs() > 1.9));
    }

    #[test]
    fn integers_cover_their_range_without_zero() {
        let vs = Rng::with_seed(13).nonzero_u32s(100_000);
        assert_eq!(vs.iter().min(), Some(&1));
        assert_eq!(vs.iter().max(), Some(&1000));
    }

    #[test]
    fn seeds_give_different_streams() {
        let a = Rng::with_seed(1).nonzero_f64s(8);
        assert_eq!(a, Rng::with_seed(1).nonzero_f64s(8));
        assert_ne!(a, Rng::with_seed(2).nonzero_f64s(8));
    }
}
