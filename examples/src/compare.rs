//! Comparing device results with a CPU reference.

use std::fmt;

/// How far a result may be from the reference: element `i` passes when
/// `|got[i] - want[i]| <= abs + rel * |want[i]|`.
///
/// ```
/// use kernel_examples::Tolerance;
/// let t = Tolerance::new(1e-6, 1e-5);
/// assert!(t.accepts(1.000_001, 1.0));
/// assert!(!t.accepts(1.1, 1.0));
/// assert!(!t.accepts(f64::NAN, 1.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute allowance.
    pub abs: f64,
    /// Allowance relative to the reference value.
    pub rel: f64,
}

impl Tolerance {
    /// Bit-for-bit agreement (integers, copies, single roundings done the same way on both sides).
    ///
    /// ```
    /// assert!(kernel_examples::Tolerance::EXACT.accepts(3.0, 3.0));
    /// ```
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// A tolerance of `abs` plus `rel` times the reference's magnitude.
    ///
    /// ```
    /// let t = kernel_examples::Tolerance::new(0.5, 0.0);
    /// assert!(t.accepts(1.4, 1.0));
    /// ```
    pub const fn new(abs: f64, rel: f64) -> Tolerance {
        Tolerance { abs, rel }
    }

    /// Whether `got` is close enough to `want` (never for NaN or infinities that differ).
    ///
    /// ```
    /// let t = kernel_examples::Tolerance::new(0.0, 1e-3);
    /// assert!(t.accepts(1000.5, 1000.0));
    /// ```
    pub fn accepts(&self, got: f64, want: f64) -> bool {
        #[allow(clippy::float_cmp)] // equal infinities are a match
        if got == want {
            return true;
        }
        (got - want).abs() <= self.abs + self.rel * want.abs()
    }
}

/// The outcome of [`compare`]: the largest errors and whether every element passed.
///
/// ```
/// let c = kernel_examples::compare(&[1.0f32, 2.0], &[1.0, 2.5], kernel_examples::Tolerance::EXACT);
/// assert!(!c.pass());
/// assert_eq!(c.mismatches, 1);
/// assert_eq!(c.max_abs, 0.5);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Elements compared.
    pub len: usize,
    /// Largest `|got - want|` (infinite when a result is NaN).
    pub max_abs: f64,
    /// Largest `|got - want| / |want|` over non-zero references.
    pub max_rel: f64,
    /// Elements outside the tolerance (or every element, when the lengths differ).
    pub mismatches: usize,
    /// The first element outside the tolerance: (index, got, want).
    pub first_mismatch: Option<(usize, f64, f64)>,
    /// `Some((got, want))` when the two slices differ in length.
    pub length_mismatch: Option<(usize, usize)>,
}

impl Comparison {
    /// Whether the lengths agree and every element is within the tolerance.
    ///
    /// ```
    /// use kernel_examples::{compare, Tolerance};
    /// assert!(compare(&[1.0f64], &[1.0], Tolerance::EXACT).pass());
    /// assert!(!compare(&[1.0f64], &[1.0, 2.0], Tolerance::EXACT).pass());
    /// ```
    pub fn pass(&self) -> bool {
        self.mismatches == 0 && self.length_mismatch.is_none()
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((got, want)) = self.length_mismatch {
            return write!(f, "length {got}, expected {want}");
        }
        write!(
            f,
            "{} values, max abs err {:.2e}, max rel err {:.2e}",
            self.len, self.max_abs, self.max_rel
        )?;
        if let Some((i, got, want)) = self.first_mismatch {
            write!(
                f,
                ", {} outside tolerance (first [{i}]: got {got}, want {want})",
                self.mismatches
            )?;
        }
        Ok(())
    }
}

/// Compares `got` with the reference `want`, element by element.
///
/// ```
/// use kernel_examples::{compare, Tolerance};
/// let c = compare(&[1.0f32, 2.0001], &[1.0, 2.0], Tolerance::new(0.0, 1e-3));
/// assert!(c.pass());
/// assert!(c.max_rel > 0.0);
/// ```
pub fn compare<T: Copy + Into<f64>>(got: &[T], want: &[T], tol: Tolerance) -> Comparison {
    let mut c = Comparison {
        len: got.len(),
        max_abs: 0.0,
        max_rel: 0.0,
        mismatches: 0,
        first_mismatch: None,
        length_mismatch: None,
    };
    if got.len() != want.len() {
        c.length_mismatch = Some((got.len(), want.len()));
        c.mismatches = got.len().max(want.len());
        return c;
    }
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w): (f64, f64) = (g.into(), w.into());
        let ok = tol.accepts(g, w);
        let diff = if ok && !(g - w).is_finite() {
            0.0 // equal infinities
        } else if (g - w).is_nan() {
            f64::INFINITY
        } else {
            (g - w).abs()
        };
        c.max_abs = c.max_abs.max(diff);
        if w != 0.0 {
            c.max_rel = c.max_rel.max(diff / w.abs());
        }
        if !ok {
            c.mismatches += 1;
            c.first_mismatch.get_or_insert((i, g, w));
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::{Tolerance, compare};

    #[test]
    fn nan_never_passes() {
        let c = compare(&[f32::NAN], &[1.0], Tolerance::new(1e9, 1e9));
        assert!(!c.pass());
        assert!(c.max_abs.is_infinite());
    }

    #[test]
    fn relative_error_is_against_the_reference() {
        let c = compare(&[1.5f64, 4.0], &[1.0, 4.0], Tolerance::new(0.0, 0.6));
        assert!(c.pass());
        assert!((c.max_rel - 0.5).abs() < 1e-12);
    }

    #[test]
    fn first_mismatch_is_reported_and_all_are_counted() {
        let c = compare(&[1i32, 5, 3, 9], &[1, 2, 3, 4], Tolerance::EXACT);
        assert_eq!(c.mismatches, 2);
        assert_eq!(c.first_mismatch, Some((1, 5.0, 2.0)));
        assert!(c.to_string().contains("first [1]"));
    }

    #[test]
    fn lengths_must_agree() {
        let c = compare::<f32>(&[], &[1.0], Tolerance::EXACT);
        assert_eq!(c.length_mismatch, Some((0, 1)));
        assert!(!c.pass());
    }
}
