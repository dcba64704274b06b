//! [`Rng`]: a small deterministic generator of non-zero example data.

/// A deterministic xorshift64* generator: the same seed gives the same data on every machine.
///
/// Values are never zero, so a kernel that forgets to write an element, or reads the wrong
/// one, cannot pass by accident.
///
/// ```
/// let mut r = kernel_examples::Rng::new(7);
/// let v = r.f32s(4);
/// assert!(v.iter().all(|x| *x != 0.0 && x.abs() < 2.0 && x.abs() >= 0.25));
/// assert_eq!(v, kernel_examples::Rng::new(7).f32s(4));
/// ```
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from any seed.
    ///
    /// ```
    /// let mut r = kernel_examples::Rng::new(0);
    /// assert_ne!(r.next_u64(), 0);
    /// ```
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    ///
    /// ```
    /// let mut r = kernel_examples::Rng::new(3);
    /// assert_ne!(r.next_u64(), r.next_u64());
    /// ```
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in ±[0.25, 2), either sign.
    ///
    /// ```
    /// let x = kernel_examples::Rng::new(1).f64();
    /// assert!((0.25..2.0).contains(&x.abs()));
    /// ```
    pub fn f64(&mut self) -> f64 {
        let bits = self.next_u64();
        let unit = (bits >> 11) as f64 / (1u64 << 53) as f64;
        let magnitude = 0.25 + unit * 1.75;
        if bits & 1 == 0 { magnitude } else { -magnitude }
    }

    /// A value in [`lo`, `hi`).
    ///
    /// ```
    /// let x = kernel_examples::Rng::new(2).range(3.0, 4.0);
    /// assert!((3.0..4.0).contains(&x));
    /// ```
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + unit * (hi - lo)
    }

    /// An index in `0..n` (`n > 0`; 0 when `n` is 0).
    ///
    /// ```
    /// assert!(kernel_examples::Rng::new(5).below(10) < 10);
    /// ```
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// `n` values in ±[0.25, 2).
    ///
    /// ```
    /// assert_eq!(kernel_examples::Rng::new(1).f32s(3).len(), 3);
    /// ```
    pub fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f64() as f32).collect()
    }

    /// `n` values in ±[0.25, 2).
    ///
    /// ```
    /// assert_eq!(kernel_examples::Rng::new(1).f64s(3).len(), 3);
    /// ```
    pub fn f64s(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.f64()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn values_are_non_zero_and_in_range() {
        let mut r = Rng::new(11);
        for _ in 0..10_000 {
            let x = r.f64();
            assert!((0.25..2.0).contains(&x.abs()), "{x}");
        }
    }

    #[test]
    fn both_signs_occur() {
        let xs = Rng::new(12).f64s(1000);
        assert!(xs.iter().any(|x| *x > 0.0) && xs.iter().any(|x| *x < 0.0));
    }

    #[test]
    fn seeds_give_different_streams() {
        assert_ne!(Rng::new(1).f64s(8), Rng::new(2).f64s(8));
    }
}
