//! The problem key of a generated tuned entry point: a few integers, hashed as they are and
//! printed joined by `x`.

use std::fmt;

/// What a generated `<kernel>_tuned` method settles its choice for: up to four integers
/// (sizes, a flag), so that the tuner's `static` has one key type whatever the kernel.
///
/// Made from an integer, a tuple of up to four or an array of up to four; compared and
/// hashed as the integers, so a settled call costs one hash lookup, and printed joined by
/// `x` (`4096`, `1024x1024x512`), which is what the cache, the embedded table and
/// `cuda-kernel-inspect tune export` record. Values beyond `i64` are saturated.
///
/// ```
/// use cuda_kernel_runtime::tune::Key;
/// assert_eq!(Key::from(4096usize).to_string(), "4096");
/// assert_eq!(Key::from((1024u32, 1024u32, 512u32)).to_string(), "1024x1024x512");
/// assert_eq!(Key::from([3i64, -1]).values(), &[3, -1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    values: [i64; 4],
    len: u8,
}

impl Key {
    /// The key of `values`; only the first four are kept.
    ///
    /// ```
    /// let k = cuda_kernel_runtime::tune::Key::new(&[8, 16]);
    /// assert_eq!(k.values(), &[8, 16]);
    /// ```
    pub fn new(values: &[i64]) -> Key {
        let mut k = Key {
            values: [0; 4],
            len: 0,
        };
        for (slot, v) in k.values.iter_mut().zip(values) {
            *slot = *v;
            k.len += 1;
        }
        k
    }

    /// The key's integers.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::tune::Key::from(7i32).values(), &[7]);
    /// ```
    pub fn values(&self) -> &[i64] {
        &self.values[..usize::from(self.len)]
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.values().iter().enumerate() {
            if i > 0 {
                f.write_str("x")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

/// An integer a key holds.
trait Part {
    fn part(self) -> i64;
}

macro_rules! lossless_part {
    ($($t:ty),*) => {$(
        impl Part for $t {
            fn part(self) -> i64 {
                i64::from(self)
            }
        }
        impl From<$t> for Key {
            fn from(v: $t) -> Key {
                Key::new(&[v.part()])
            }
        }
    )*};
}

macro_rules! saturating_part {
    ($($t:ty),*) => {$(
        impl Part for $t {
            fn part(self) -> i64 {
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
        impl From<$t> for Key {
            fn from(v: $t) -> Key {
                Key::new(&[v.part()])
            }
        }
    )*};
}

lossless_part!(i8, i16, i32, i64, u8, u16, u32);
saturating_part!(u64, usize, isize);

impl<A: Part, B: Part> From<(A, B)> for Key {
    fn from((a, b): (A, B)) -> Key {
        Key::new(&[a.part(), b.part()])
    }
}

impl<A: Part, B: Part, C: Part> From<(A, B, C)> for Key {
    fn from((a, b, c): (A, B, C)) -> Key {
        Key::new(&[a.part(), b.part(), c.part()])
    }
}

impl<A: Part, B: Part, C: Part, D: Part> From<(A, B, C, D)> for Key {
    fn from((a, b, c, d): (A, B, C, D)) -> Key {
        Key::new(&[a.part(), b.part(), c.part(), d.part()])
    }
}

impl<T: Part + Copy, const N: usize> From<[T; N]> for Key {
    fn from(values: [T; N]) -> Key {
        let mut parts = [0i64; 4];
        for (slot, v) in parts.iter_mut().zip(values) {
            *slot = v.part();
        }
        Key::new(&parts[..N.min(4)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_as_their_integers_and_print_joined() {
        assert_eq!(Key::from(5u8), Key::from(5i64));
        assert_ne!(Key::from((5u32, 1u32)), Key::from(5u32));
        assert_eq!(Key::from(u64::MAX).values(), &[i64::MAX]);
        assert_eq!(Key::from([1i32, 2, 3, 4]).to_string(), "1x2x3x4");
        assert_eq!(Key::new(&[1, 2, 3, 4, 5]).values().len(), 4);
        assert_eq!(Key::new(&[]).to_string(), "");
    }
}
