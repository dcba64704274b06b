//! Shared helpers of the end-to-end tests: a GPU or a reasoned skip, and random data.

use kernel_runtime::Gpu;

/// Device 0, or `None` (with the reason printed) when no driver or device is present.
///
/// # Panics
///
/// When `KERNEL_REQUIRE_GPU=1` and no GPU can be opened: on the GPU machine a
/// missing device is a failure, not a skip.
///
/// ```
/// if let Some(gpu) = kernel_tests::gpu_or_skip("doc example") {
///     assert!(!gpu.name().is_empty());
/// }
/// ```
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            #[allow(clippy::disallowed_methods)] // tests read their own switch directly
            let required = std::env::var("KERNEL_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(!required, "{test}: KERNEL_REQUIRE_GPU=1 but no GPU: {e}");
            // Straight to stderr (not the harness's capture), so the reason shows in CI logs.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "skipping {test}: no GPU ({e})");
            None
        }
    }
}

/// A deterministic generator of non-zero test data (xorshift64*).
///
/// ```
/// let mut r = kernel_tests::Rng::new(7);
/// let v = r.f32s(4);
/// assert!(v.iter().all(|x| *x != 0.0 && x.abs() <= 2.0));
/// ```
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in ±[0.25, 2).
    pub fn f64(&mut self) -> f64 {
        let bits = self.next_u64();
        let magnitude = 0.25 + (bits >> 11) as f64 / (1u64 << 53) as f64 * 1.75;
        if bits & 1 == 0 { magnitude } else { -magnitude }
    }

    /// `n` values in ±[0.25, 2).
    pub fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f64() as f32).collect()
    }

    /// `n` values in ±[0.25, 2).
    pub fn f64s(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.f64()).collect()
    }
}
