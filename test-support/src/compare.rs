//! [`assert_close`]: results against a CPU reference, with a relative tolerance.

/// Asserts that `got` and `want` have the same length and that every element is within
/// `tol × max(|want|, 1)` of the reference (so `tol` is relative for large values and
/// absolute below 1; `0.0` asks for equality).
///
/// # Panics
///
/// On a length mismatch, or naming the first element out of tolerance with both values.
///
/// ```
/// kernel_test_support::assert_close(&[1.0, 100.0], &[1.0 + 1e-7, 100.0 + 1e-5], 1e-6);
/// ```
/// ```should_panic
/// kernel_test_support::assert_close(&[1.0, 2.0], &[1.0, 2.5], 1e-3);
/// ```
#[track_caller]
pub fn assert_close(got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "lengths differ");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "element {i}: got {g}, want {w}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::assert_close;

    #[test]
    fn tolerance_is_relative_above_one_and_absolute_below() {
        assert_close(&[1000.5], &[1000.0], 1e-3);
        assert!(std::panic::catch_unwind(|| assert_close(&[0.0025], &[0.0005], 1e-3)).is_err());
    }

    #[test]
    fn nan_never_passes() {
        assert!(std::panic::catch_unwind(|| assert_close(&[f32::NAN], &[1.0], 1.0)).is_err());
    }

    #[test]
    fn lengths_must_match() {
        assert!(std::panic::catch_unwind(|| assert_close(&[1.0], &[1.0, 1.0], 1.0)).is_err());
    }
}
