//! Element types a generated kernel works on, with their CUDA and Rust spellings.

use std::fmt;

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

    /// The CUDA C spelling.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_generate::Dtype::I64.c_name(), "long long");
    /// ```
    pub fn c_name(self) -> &'static str {
        match self {
            Dtype::F16 => "__half",
            Dtype::Bf16 => "__nv_bfloat16",
            Dtype::F32 => "float",
            Dtype::F64 => "double",
            Dtype::I8 => "signed char",
            Dtype::I16 => "short",
            Dtype::I32 => "int",
            Dtype::I64 => "long long",
            Dtype::U8 => "unsigned char",
            Dtype::U16 => "unsigned short",
            Dtype::U32 => "unsigned int",
            Dtype::U64 => "unsigned long long",
        }
    }

    /// The Rust spelling (`half`'s types for the 16-bit floats).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_generate::Dtype::Bf16.rust_name(), "bf16");
    /// ```
    pub fn rust_name(self) -> &'static str {
        match self {
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
            Dtype::I8 => "i8",
            Dtype::I16 => "i16",
            Dtype::I32 => "i32",
            Dtype::I64 => "i64",
            Dtype::U8 => "u8",
            Dtype::U16 => "u16",
            Dtype::U32 => "u32",
            Dtype::U64 => "u64",
        }
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
        match self {
            Dtype::I8 | Dtype::U8 => 1,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 | Dtype::U16 => 2,
            Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
            Dtype::F64 | Dtype::I64 | Dtype::U64 => 8,
        }
    }

    /// The header that declares the type, for the 16-bit floats.
    pub(crate) fn header(self) -> Option<&'static str> {
        match self {
            Dtype::F16 => Some("cuda_fp16.h"),
            Dtype::Bf16 => Some("cuda_bf16.h"),
            _ => None,
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}
