//! The C types kernels take, one table for the whole workspace: each scalar's C spelling,
//! the Rust type that carries it, its size and alignment, the header that declares it, and
//! whether a type defined once in Rust (`#[derive(CudaType)]`) may hold it; each vector type
//! of `vector_types.h` (and the packed pairs of `cuda_fp16.h`, `cuda_bf16.h`, the narrow
//! floats) with its lanes, size and alignment.
//!
//! The build library spells, sizes and names types from here (its model's [`Scalar`] is
//! this one), the runtime checks every type it implements `CudaType` for against it, and
//! the kernel generators take their element types' spellings from it: what one side writes
//! the others read the same way. Sizes are those of the 64-bit hosts nvcc compiles for; the
//! two C types whose meaning depends on the host, plain `char` and `long`, are told by
//! [`plain_char`] and [`long_is_64_bits`].
//!
//! ```
//! use cuda_kernel_objects::ctypes::Scalar;
//! let half = Scalar::F16.info();
//! assert_eq!((half.c_name, half.rust, half.size), ("__half", "f16", 2));
//! assert_eq!(half.header, Some("cuda_fp16.h"));
//! assert_eq!(Scalar::I8.c_name(), "signed char");
//! ```

/// A scalar C type a kernel takes (64-bit hosts' sizes).
///
/// ```
/// use cuda_kernel_objects::ctypes::Scalar;
/// assert_eq!(Scalar::F16.size(), 2);
/// assert_eq!(Scalar::from_c_name("unsigned long long"), Some(Scalar::U64));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Scalar {
    /// `bool`
    Bool,
    /// `signed char`, `int8_t`
    I8,
    /// Plain `char`: a C++ type of its own (`vec<char>` is not `vec<signed char>`), laid out
    /// as the host's signed or unsigned byte ([`plain_char`]) and passed as that Rust integer.
    Char,
    /// `short`, `int16_t`
    I16,
    /// `int`, `int32_t`
    I32,
    /// `long long`, `int64_t` (and `long` where it has 64 bits)
    I64,
    /// `unsigned char`, `uint8_t`
    U8,
    /// `unsigned short`, `uint16_t`
    U16,
    /// `unsigned`, `uint32_t`
    U32,
    /// `unsigned long long`, `uint64_t` (and `unsigned long` where it has 64 bits)
    U64,
    /// `size_t`
    Usize,
    /// `ptrdiff_t`, `ssize_t`
    Isize,
    /// `float`
    F32,
    /// `double`
    F64,
    /// `__half`
    F16,
    /// `__nv_bfloat16`
    BF16,
    /// `__nv_fp8_e4m3` (1 byte)
    Fp8E4M3,
    /// `__nv_fp8_e5m2` (1 byte)
    Fp8E5M2,
    /// `__nv_fp8_e8m0` (1 byte, a power-of-two scale)
    Fp8E8M0,
    /// `__nv_fp6_e2m3` (one 6-bit value in 1 byte)
    Fp6E2M3,
    /// `__nv_fp6_e3m2` (one 6-bit value in 1 byte)
    Fp6E3M2,
    /// `__nv_fp4_e2m1` (one 4-bit value in 1 byte)
    Fp4E2M1,
    /// `__nv_fp4x2_e2m1` (two 4-bit values packed in 1 byte)
    Fp4x2E2M1,
    /// A pointer to a `__device__` function (`float (*op)(float)`): a device code
    /// address, 8 bytes.
    DeviceFn,
    /// `cudaTextureObject_t` / `CUtexObject`: a texture object's 8-byte handle.
    TexObject,
    /// `cudaSurfaceObject_t` / `CUsurfObject`: a surface object's 8-byte handle.
    SurfObject,
    /// `CUtensorMap`: a TMA descriptor, 128 bytes aligned to 128 (compute capability 9.0
    /// and later), passed as `const __grid_constant__ CUtensorMap`.
    TensorMap,
    /// `cudaGraphConditionalHandle` / `CUgraphConditionalHandle`: a conditional handle of the
    /// graph a kernel runs in, 8 bytes.
    GraphCondition,
    /// `cudaGraphExec_t` / `CUgraphExec`: an executable graph a kernel launches from device
    /// code (`cudaGraphLaunch`), 8 bytes.
    GraphExec,
}

/// What the table says of one scalar.
///
/// ```
/// use cuda_kernel_objects::ctypes::Scalar;
/// let fp8 = Scalar::Fp8E4M3.info();
/// assert_eq!((fp8.rust_path, fp8.header), ("fp::F8E4M3", Some("cuda_fp8.h")));
/// assert!(fp8.shared && !Scalar::Usize.info().shared);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalarInfo {
    /// The C spelling every generated text uses (`signed char`, `unsigned long long`).
    pub c_name: &'static str,
    /// The other spellings that mean the same type on every host (`int8_t`).
    pub also: &'static [&'static str],
    /// The Rust type's name: a primitive (`f32`) or the runtime's type (`f16`, `F8E4M3`).
    pub rust: &'static str,
    /// The Rust type's path from the runtime crate's root (`f32`, `fp::F8E4M3`).
    pub rust_path: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
    /// The header that declares the C type, if a toolkit header does.
    pub header: Option<&'static str>,
    /// Whether a field of a type defined once in Rust (`#[derive(CudaType)]`) may hold it:
    /// not `bool` (a byte that must be 0 or 1), host-sized integers or handles.
    pub shared: bool,
}

impl ScalarInfo {
    /// Whether the Rust type is a primitive (`f32`, `u8`) rather than the runtime's.
    ///
    /// ```
    /// use cuda_kernel_objects::ctypes::Scalar;
    /// assert!(Scalar::U8.info().is_primitive() && !Scalar::F16.info().is_primitive());
    /// ```
    pub fn is_primitive(&self) -> bool {
        const PRIMITIVES: [&str; 13] = [
            "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "usize", "isize", "f32",
            "f64",
        ];
        PRIMITIVES.contains(&self.rust_path)
    }
}

/// A table row: spelling, other spellings, Rust name and path, size, alignment, header,
/// shared.
const fn row(
    c_name: &'static str,
    also: &'static [&'static str],
    rust: &'static str,
    rust_path: &'static str,
    size: u64,
    header: Option<&'static str>,
    shared: bool,
) -> ScalarInfo {
    ScalarInfo {
        c_name,
        also,
        rust,
        rust_path,
        size,
        align: size,
        header,
        shared,
    }
}

const FP8: Option<&str> = Some("cuda_fp8.h");
const FP6: Option<&str> = Some("cuda_fp6.h");
const FP4: Option<&str> = Some("cuda_fp4.h");

impl Scalar {
    /// Every scalar of the table.
    ///
    /// ```
    /// use cuda_kernel_objects::ctypes::Scalar;
    /// assert!(Scalar::ALL.contains(&Scalar::TensorMap));
    /// ```
    pub const ALL: [Scalar; 29] = [
        Scalar::Bool,
        Scalar::I8,
        Scalar::Char,
        Scalar::I16,
        Scalar::I32,
        Scalar::I64,
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::Usize,
        Scalar::Isize,
        Scalar::F32,
        Scalar::F64,
        Scalar::F16,
        Scalar::BF16,
        Scalar::Fp8E4M3,
        Scalar::Fp8E5M2,
        Scalar::Fp8E8M0,
        Scalar::Fp6E2M3,
        Scalar::Fp6E3M2,
        Scalar::Fp4E2M1,
        Scalar::Fp4x2E2M1,
        Scalar::DeviceFn,
        Scalar::TexObject,
        Scalar::SurfObject,
        Scalar::TensorMap,
        Scalar::GraphCondition,
        Scalar::GraphExec,
    ];

    /// The table's row for this scalar.
    ///
    /// ```
    /// use cuda_kernel_objects::ctypes::Scalar;
    /// assert_eq!(Scalar::TensorMap.info().align, 128);
    /// ```
    pub const fn info(self) -> ScalarInfo {
        match self {
            Scalar::Bool => row("bool", &[], "bool", "bool", 1, None, false),
            Scalar::I8 => row("signed char", &["int8_t"], "i8", "i8", 1, None, true),
            Scalar::Char => {
                let host = plain_char().info();
                row("char", &[], host.rust, host.rust_path, 1, None, false)
            }
            Scalar::I16 => row("short", &["int16_t"], "i16", "i16", 2, None, true),
            Scalar::I32 => row("int", &["int32_t"], "i32", "i32", 4, None, true),
            Scalar::I64 => row("long long", &["int64_t"], "i64", "i64", 8, None, true),
            Scalar::U8 => row("unsigned char", &["uint8_t"], "u8", "u8", 1, None, true),
            Scalar::U16 => row("unsigned short", &["uint16_t"], "u16", "u16", 2, None, true),
            Scalar::U32 => row("unsigned int", &["uint32_t"], "u32", "u32", 4, None, true),
            Scalar::U64 => row(
                "unsigned long long",
                &["uint64_t"],
                "u64",
                "u64",
                8,
                None,
                true,
            ),
            Scalar::Usize => row("size_t", &[], "usize", "usize", 8, None, false),
            Scalar::Isize => row("ptrdiff_t", &["ssize_t"], "isize", "isize", 8, None, false),
            Scalar::F32 => row("float", &[], "f32", "f32", 4, None, true),
            Scalar::F64 => row("double", &[], "f64", "f64", 8, None, true),
            Scalar::F16 => row("__half", &[], "f16", "f16", 2, Some("cuda_fp16.h"), true),
            Scalar::BF16 => row(
                "__nv_bfloat16",
                &[],
                "bf16",
                "bf16",
                2,
                Some("cuda_bf16.h"),
                true,
            ),
            Scalar::Fp8E4M3 => row("__nv_fp8_e4m3", &[], "F8E4M3", "fp::F8E4M3", 1, FP8, true),
            Scalar::Fp8E5M2 => row("__nv_fp8_e5m2", &[], "F8E5M2", "fp::F8E5M2", 1, FP8, true),
            Scalar::Fp8E8M0 => row("__nv_fp8_e8m0", &[], "E8M0", "fp::E8M0", 1, FP8, true),
            Scalar::Fp6E2M3 => row("__nv_fp6_e2m3", &[], "F6E2M3", "fp::F6E2M3", 1, FP6, true),
            Scalar::Fp6E3M2 => row("__nv_fp6_e3m2", &[], "F6E3M2", "fp::F6E3M2", 1, FP6, true),
            Scalar::Fp4E2M1 => row("__nv_fp4_e2m1", &[], "F4E2M1", "fp::F4E2M1", 1, FP4, true),
            Scalar::Fp4x2E2M1 => row(
                "__nv_fp4x2_e2m1",
                &[],
                "F4E2M1x2",
                "fp::F4E2M1x2",
                1,
                FP4,
                true,
            ),
            Scalar::DeviceFn => row(
                "void (*)(...)",
                &[],
                "RawDevicePtr",
                "RawDevicePtr",
                8,
                None,
                false,
            ),
            Scalar::TexObject => row(
                "cudaTextureObject_t",
                &["CUtexObject"],
                "TextureHandle",
                "TextureHandle",
                8,
                Some("cuda_runtime.h"),
                false,
            ),
            Scalar::SurfObject => row(
                "cudaSurfaceObject_t",
                &["CUsurfObject"],
                "SurfaceHandle",
                "SurfaceHandle",
                8,
                Some("cuda_runtime.h"),
                false,
            ),
            Scalar::TensorMap => row(
                "CUtensorMap",
                &[],
                "TensorMapHandle",
                "TensorMapHandle",
                128,
                Some("cuda.h"),
                false,
            ),
            Scalar::GraphCondition => row(
                "cudaGraphConditionalHandle",
                &["CUgraphConditionalHandle"],
                "ConditionHandle",
                "ConditionHandle",
                8,
                Some("cuda_runtime.h"),
                false,
            ),
            Scalar::GraphExec => row(
                "cudaGraphExec_t",
                &["CUgraphExec"],
                "GraphExecHandle",
                "GraphExecHandle",
                8,
                Some("cuda_runtime.h"),
                false,
            ),
        }
    }

    /// Size in bytes (equal to the alignment for every scalar; a `CUtensorMap` is 128 and
    /// 128).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_objects::ctypes::Scalar::Usize.size(), 8);
    /// ```
    pub const fn size(self) -> u64 {
        self.info().size
    }

    /// The C spelling generated text uses.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_objects::ctypes::Scalar::U32.c_name(), "unsigned int");
    /// ```
    pub const fn c_name(self) -> &'static str {
        self.info().c_name
    }

    /// The scalar a C spelling of the table names (the one every text uses, or another of
    /// the same meaning on every host); `long`, whose size is the host's, is not among them
    /// (see [`long_is_64_bits`]).
    ///
    /// ```
    /// use cuda_kernel_objects::ctypes::Scalar;
    /// assert_eq!(Scalar::from_c_name("int8_t"), Some(Scalar::I8));
    /// assert_eq!(Scalar::from_c_name("char"), Some(Scalar::Char));
    /// assert_eq!(Scalar::from_c_name("long"), None);
    /// ```
    pub fn from_c_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| {
            let info = s.info();
            info.c_name == name || info.also.contains(&name)
        })
    }
}

/// The byte plain `char` is laid out and passed as on the host nvcc compiles for (the host
/// this code runs on): signed on x86-64, unsigned on Arm (the hosts of GH200 and GB200
/// machines).
///
/// ```
/// use cuda_kernel_objects::ctypes::{Scalar, plain_char};
/// assert!(matches!(plain_char(), Scalar::I8 | Scalar::U8));
/// ```
pub const fn plain_char() -> Scalar {
    if std::ffi::c_char::MIN == 0 {
        Scalar::U8
    } else {
        Scalar::I8
    }
}

/// Whether C's `long` has 64 bits on the host nvcc compiles for (64-bit Linux), rather than
/// 32 (Windows), where a `long` is no `i64`.
///
/// ```
/// assert_eq!(cuda_kernel_objects::ctypes::long_is_64_bits(), size_of::<std::ffi::c_long>() == 8);
/// ```
pub const fn long_is_64_bits() -> bool {
    size_of::<std::ffi::c_long>() == 8
}

/// A CUDA vector type: `float4`, `double4_32a`, `__half2`, `__nv_fp8x4_e4m3`.
///
/// ```
/// use cuda_kernel_objects::ctypes::vector;
/// let f3 = vector("float3").unwrap();
/// assert_eq!((f3.lanes, f3.size, f3.align, f3.rust), (3, 12, 4, "Float3"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vector {
    /// Its C name.
    pub c_name: &'static str,
    /// The runtime's type, in `vector`.
    pub rust: &'static str,
    /// Its lanes' scalar (`long` lanes are 64-bit: the table is for 64-bit Linux hosts).
    pub elem: Scalar,
    /// How many lanes.
    pub lanes: u8,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
}

/// A family `name1`..`name4` with the lanes' sizes and the four alignments.
macro_rules! family {
    ($c:literal, $r:literal, $elem:ident, $lane:literal, [$a1:literal $a2:literal $a3:literal $a4:literal]) => {
        [
            Vector {
                c_name: concat!($c, "1"),
                rust: concat!($r, "1"),
                elem: Scalar::$elem,
                lanes: 1,
                size: $lane,
                align: $a1,
            },
            Vector {
                c_name: concat!($c, "2"),
                rust: concat!($r, "2"),
                elem: Scalar::$elem,
                lanes: 2,
                size: 2 * $lane,
                align: $a2,
            },
            Vector {
                c_name: concat!($c, "3"),
                rust: concat!($r, "3"),
                elem: Scalar::$elem,
                lanes: 3,
                size: 3 * $lane,
                align: $a3,
            },
            Vector {
                c_name: concat!($c, "4"),
                rust: concat!($r, "4"),
                elem: Scalar::$elem,
                lanes: 4,
                size: 4 * $lane,
                align: $a4,
            },
        ]
    };
}

/// One vector type of explicit lanes, size and alignment.
macro_rules! one {
    ($c:literal, $r:literal, $elem:ident, $lanes:literal, $size:literal, $align:literal) => {
        [Vector {
            c_name: $c,
            rust: $r,
            elem: Scalar::$elem,
            lanes: $lanes,
            size: $size,
            align: $align,
        }]
    };
}

/// Every vector type, as CUDA 13's headers declare it on 64-bit Linux.
///
/// ```
/// use cuda_kernel_objects::ctypes::VECTORS;
/// assert!(VECTORS.iter().any(|v| v.c_name == "__nv_bfloat162" && v.rust == "BFloat162"));
/// ```
pub const VECTORS: &[Vector] = &concat_vectors();

const fn concat_vectors() -> [Vector; 71] {
    let parts: [&[Vector]; 24] = [
        &family!("char", "Char", I8, 1, [1 2 1 4]),
        &family!("uchar", "UChar", U8, 1, [1 2 1 4]),
        &family!("short", "Short", I16, 2, [2 4 2 8]),
        &family!("ushort", "UShort", U16, 2, [2 4 2 8]),
        &family!("int", "Int", I32, 4, [4 8 4 16]),
        &family!("uint", "UInt", U32, 4, [4 8 4 16]),
        &family!("float", "Float", F32, 4, [4 8 4 16]),
        &family!("long", "Long", I64, 8, [8 16 8 16]),
        &family!("ulong", "ULong", U64, 8, [8 16 8 16]),
        &family!("longlong", "LongLong", I64, 8, [8 16 8 16]),
        &family!("ulonglong", "ULongLong", U64, 8, [8 16 8 16]),
        &family!("double", "Double", F64, 8, [8 16 8 16]),
        &[
            one!("long4_16a", "Long4A16", I64, 4, 32, 16)[0],
            one!("long4_32a", "Long4A32", I64, 4, 32, 32)[0],
            one!("ulong4_16a", "ULong4A16", U64, 4, 32, 16)[0],
            one!("ulong4_32a", "ULong4A32", U64, 4, 32, 32)[0],
        ],
        &[
            one!("longlong4_16a", "LongLong4A16", I64, 4, 32, 16)[0],
            one!("longlong4_32a", "LongLong4A32", I64, 4, 32, 32)[0],
            one!("ulonglong4_16a", "ULongLong4A16", U64, 4, 32, 16)[0],
            one!("ulonglong4_32a", "ULongLong4A32", U64, 4, 32, 32)[0],
        ],
        &one!("double4_16a", "Double4A16", F64, 4, 32, 16),
        &one!("double4_32a", "Double4A32", F64, 4, 32, 32),
        &one!("__half2", "Half2", F16, 2, 4, 4),
        &one!("__nv_bfloat162", "BFloat162", BF16, 2, 4, 4),
        &[
            one!("__nv_fp8x2_e4m3", "Fp8x2E4M3", Fp8E4M3, 2, 2, 2)[0],
            one!("__nv_fp8x4_e4m3", "Fp8x4E4M3", Fp8E4M3, 4, 4, 4)[0],
        ],
        &[
            one!("__nv_fp8x2_e5m2", "Fp8x2E5M2", Fp8E5M2, 2, 2, 2)[0],
            one!("__nv_fp8x4_e5m2", "Fp8x4E5M2", Fp8E5M2, 4, 4, 4)[0],
        ],
        &[
            one!("__nv_fp8x2_e8m0", "Fp8x2E8M0", Fp8E8M0, 2, 2, 2)[0],
            one!("__nv_fp8x4_e8m0", "Fp8x4E8M0", Fp8E8M0, 4, 4, 4)[0],
        ],
        &[
            one!("__nv_fp6x2_e2m3", "Fp6x2E2M3", Fp6E2M3, 2, 2, 2)[0],
            one!("__nv_fp6x4_e2m3", "Fp6x4E2M3", Fp6E2M3, 4, 4, 4)[0],
        ],
        &[
            one!("__nv_fp6x2_e3m2", "Fp6x2E3M2", Fp6E3M2, 2, 2, 2)[0],
            one!("__nv_fp6x4_e3m2", "Fp6x4E3M2", Fp6E3M2, 4, 4, 4)[0],
        ],
        &one!("__nv_fp4x4_e2m1", "Fp4x4E2M1", Fp4x2E2M1, 2, 2, 2),
    ];
    let mut out = [parts[0][0]; 71];
    let (mut i, mut n) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[n] = parts[i][j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(n == out.len(), "the vector table's length");
    out
}

/// Whether two strings are equal, in a constant.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether the table has a type of C name `c_name` and Rust name `rust` (its name in the
/// runtime's `vector`, or a scalar's) laid out in `size` bytes aligned to `align`: what the
/// runtime asserts, at compile time, of every type it shares with CUDA.
///
/// ```
/// use cuda_kernel_objects::ctypes::agrees;
/// const _: () = assert!(agrees("float4", "Float4", 16, 16));
/// assert!(agrees("unsigned short", "u16", 2, 2));
/// assert!(!agrees("float3", "Float3", 12, 16));
/// ```
pub const fn agrees(c_name: &str, rust: &str, size: usize, align: usize) -> bool {
    let (size, align) = (size as u64, align as u64);
    let mut i = 0;
    while i < VECTORS.len() {
        let v = &VECTORS[i];
        if same(v.c_name, c_name) {
            return same(v.rust, rust) && v.size == size && v.align == align;
        }
        i += 1;
    }
    let mut i = 0;
    while i < Scalar::ALL.len() {
        let info = Scalar::ALL[i].info();
        if same(info.c_name, c_name) {
            return same(info.rust, rust) && info.size == size && info.align == align;
        }
        i += 1;
    }
    false
}

/// The vector type of a C name.
///
/// ```
/// assert_eq!(cuda_kernel_objects::ctypes::vector("double4_32a").unwrap().align, 32);
/// ```
pub fn vector(c_name: &str) -> Option<&'static Vector> {
    VECTORS.iter().find(|v| v.c_name == c_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_name_one_scalar_each() {
        for s in Scalar::ALL {
            let info = s.info();
            assert_eq!(Scalar::from_c_name(info.c_name), Some(s), "{info:?}");
            for other in info.also {
                assert_eq!(Scalar::from_c_name(other), Some(s), "{other}");
            }
            assert!(info.rust_path.ends_with(info.rust), "{info:?}");
            assert!(info.size >= 1 && info.align.is_power_of_two(), "{info:?}");
        }
        // Plain `char` shares the Rust type of the host's byte; every other scalar has its own.
        let mut names: Vec<&str> = Scalar::ALL
            .iter()
            .filter(|s| **s != Scalar::Char)
            .map(|s| s.info().rust)
            .collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Scalar::ALL.len() - 1, "a Rust name per scalar");
        assert_eq!(Scalar::Char.info().rust, plain_char().info().rust);
    }

    #[test]
    fn host_dependent_types_follow_this_host() {
        assert_eq!(plain_char() == Scalar::U8, cfg!(target_arch = "aarch64"));
        assert_eq!(
            long_is_64_bits(),
            cfg!(all(unix, target_pointer_width = "64"))
        );
    }

    #[test]
    fn vectors_are_their_lanes_aligned() {
        for v in VECTORS {
            assert!(v.align.is_power_of_two() && v.size % v.align == 0, "{v:?}");
            assert!(v.size >= u64::from(v.lanes) * v.elem.size(), "{v:?}");
            assert_eq!(vector(v.c_name), Some(v));
        }
        let mut names: Vec<&str> = VECTORS.iter().map(|v| v.rust).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), VECTORS.len());
    }
}
