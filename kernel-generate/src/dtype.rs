//! Element types a generated kernel works on, with their CUDA and Rust spellings, sizes and
//! headers from the workspace's table of CUDA types (`cuda_kernel_objects::ctypes`).

use std::fmt;

use cuda_kernel_objects::ctypes::Scalar;

/// An element type of a generated kernel.
///
/// ```
/// use cuda_kernel_generate::Dtype;
/// assert_eq!(Dtype::from_rust("f32"), Some(Dtype::F32));
/// assert_eq!(Dtype::F16.c_name(), "__half");
/// assert_eq!(Dtype::U64.size(), 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dtype {
    /// `half::f16`, CUDA `__half`.
    F16,
    /// `half::bf16`, CUDA `__nv_bfloat16`.
    Bf16,
    /// `f32`, CUDA `float`.
    F32,
    /// `f64`, CUDA `double`.
    F64,
    /// `i8`, CUDA `signed char`.
    I8,
    /// `i16`, CUDA `short`.
    I16,
    /// `i32`, CUDA `int`.
    I32,
    /// `i64`, CUDA `long long`.
    I64,
    /// `u8`, CUDA `unsigned char`.
    U8,
    /// `u16`, CUDA `unsigned short`.
    U16,
    /// `u32`, CUDA `unsigned int`.
    U32,
    /// `u64`, CUDA `unsigned long long`.
    U64,
}

impl Dtype {
    /// Every element type.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_generate::Dtype::ALL.len(), 12);
    /// ```
    pub const ALL: [Dtype; 12] = [
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F32,
        Dtype::F64,
        Dtype::I8,
        Dtype::I16,
        Dtype::I32,
        Dtype::I64,
        Dtype::U8,
        Dtype::U16,
        Dtype::U32,
        Dtype::U64,
    ];

    /// The row of the workspace's table of CUDA types.
    ///
    /// ```
    /// use cuda_kernel_generate::Dtype;
    /// use cuda_kernel_objects::ctypes::Scalar;
    /// assert_eq!(Dtype::I8.scalar(), Scalar::I8);
    /// ```
    pub fn scalar(self) -> Scalar {
        match self {
            Dtype::F16 => Scalar::F16,
            Dtype::Bf16 => Scalar::BF16,
            Dtype::F32 => Scalar::F32,
            Dtype::F64 => Scalar::F64,
            Dtype::I8 => Scalar::I8,
            Dtype::I16 => Scalar::I16,
            Dtype::I32 => Scalar::I32,
            Dtype::I64 => Scalar::I64,
            Dtype::U8 => Scalar::U8,
            Dtype::U16 => Scalar::U16,
            Dtype::U32 => Scalar::U32,
            Dtype::U64 => Scalar::U64,
        }
    }

    /// The CUDA C spelling.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_generate::Dtype::I64.c_name(), "long long");
    /// ```
    pub fn c_name(self) -> &'static str {
        self.scalar().c_name()
    }

    /// The Rust spelling (`half`'s types for the 16-bit floats).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_generate::Dtype::Bf16.rust_name(), "bf16");
    /// ```
    pub fn rust_name(self) -> &'static str {
        self.scalar().info().rust
    }

    /// The type a Rust name denotes (`f32`, `half::f16`, `bf16`...), if any.
    ///
    /// ```
    /// use cuda_kernel_generate::Dtype;
    /// assert_eq!(Dtype::from_rust("half::bf16"), Some(Dtype::Bf16));
    /// assert_eq!(Dtype::from_rust("usize"), None);
    /// ```
    pub fn from_rust(name: &str) -> Option<Dtype> {
        let last = name.rsplit("::").next().unwrap_or(name).trim();
        Dtype::ALL.into_iter().find(|d| d.rust_name() == last)
    }

    /// Size in bytes.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_generate::Dtype::Bf16.size(), 2);
    /// ```
    pub fn size(self) -> usize {
        self.scalar().size() as usize
    }

    /// The header that declares the type, for the 16-bit floats.
    pub(crate) fn header(self) -> Option<&'static str> {
        self.scalar().info().header
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}
