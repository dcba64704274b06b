//! What the reader reports of one image's contents: each kernel (`KernelImage`, with its
//! parameters' slots) and each module global (`GlobalImage`), whether the image is a cubin
//! or PTX.

/// One kernel as compiled into an image.
///
/// ```
/// use cuda_kernel_objects::parse_ptx;
/// let ptx = parse_ptx(".version 9.0\n.target sm_90\n\
///     .visible .entry k(.param .f32 k_param_0, .param .u64 k_param_1)\n.maxntid 128\n{ ret; }")?;
/// let k = &ptx.kernels[0];
/// assert_eq!(k.params.iter().map(|p| (p.offset, p.size)).collect::<Vec<_>>(), [(0, 4), (8, 8)]);
/// assert_eq!(k.max_threads, Some([128, 1, 1]));
/// # Ok::<(), cuda_kernel_objects::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct KernelImage {
    /// The symbol (`saxpy`, `_Z5scaleIfEvPT_S0_j`).
    pub symbol: String,
    /// Parameters in ordinal order.
    pub params: Vec<ParamSlot>,
    /// Total parameter bytes (end of the last parameter); `None` when there are no parameters.
    pub param_size: Option<u32>,
    /// Registers per thread (cubins only).
    pub registers: Option<u32>,
    /// Maximum block shape (`__launch_bounds__` / `.maxntid`).
    pub max_threads: Option<[u32; 3]>,
    /// Required block shape (`.reqntid`).
    pub reqntid: Option<[u32; 3]>,
    /// Compile-time cluster shape (`__cluster_dims__` / `.reqnctapercluster`).
    pub cluster_dims: Option<[u32; 3]>,
    /// Register limit the compiler worked under (cubin: 255 unless limited; PTX: `.maxnreg`).
    pub maxreg_count: Option<u32>,
    /// Internal linkage (`static` kernels): `STB_LOCAL` in a cubin, no `.visible` in PTX.
    pub is_local: bool,
}

/// Where one parameter sits in the parameter buffer.
///
/// ```
/// let p = cuda_kernel_objects::ParamSlot { ordinal: 1, offset: 8, size: 8, align: None };
/// assert_eq!(p.offset + p.size, 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ParamSlot {
    /// 0-based position in the parameter list.
    pub ordinal: u32,
    /// Byte offset from the start of the parameter buffer.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// The parameter's alignment, where the image declares it: PTX does
    /// (`.param .align 8 .b8 p[24]`, a scalar's own size), a cubin's parameter table does not.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub align: Option<u32>,
}

/// A module-scope variable that `cuModuleGetGlobal` can find.
///
/// ```
/// let g = cuda_kernel_objects::GlobalImage { symbol: "coeffs".into(), size: 64, constant: true };
/// assert!(g.constant);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GlobalImage {
    /// The symbol.
    pub symbol: String,
    /// Size in bytes.
    pub size: u64,
    /// `__constant__` (true) or `__device__` (false).
    pub constant: bool,
}
