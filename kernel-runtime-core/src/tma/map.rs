//! [`TensorMap`]: a TMA descriptor of a device buffer, tiled (`cuTensorMapEncodeTiled`) or
//! im2col (`cuTensorMapEncodeIm2col`), encoded after [`super::rules`] has checked it.

use std::sync::Arc;

use cudarc::driver::sys::{
    self, CUtensorMapDataType as D, CUtensorMapFloatOOBfill as Fill, CUtensorMapInterleave as I,
    CUtensorMapL2promotion as L2, CUtensorMapSwizzle as S,
};
use cudarc::driver::{CudaStream, DeviceRepr};

use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};

use super::rules::{Interleave, Layout, Shape, check, packed_strides};
use super::source::{Reads, Source, SourceUse, Writes};
use crate::driver;
use crate::error::{DriverResultExt, Error, Swizzle};
use crate::launch::args::{DeviceArg, PreparedArg};

/// An element type TMA can move, with its `CUtensorMapDataType`.
///
/// ```
/// fn takes<T: cuda_kernel_runtime::TmaElement>() {}
/// takes::<f32>();
/// takes::<cuda_kernel_runtime::bf16>();
/// ```
pub trait TmaElement: DeviceRepr {
    /// The driver's data type for it.
    #[doc(hidden)]
    const DATA_TYPE: D;
}

macro_rules! elements {
    ($($t:ty => $d:ident),* $(,)?) => {
        $(impl TmaElement for $t {
            const DATA_TYPE: D = D::$d;
        })*
    };
}

elements! {
    u8 => CU_TENSOR_MAP_DATA_TYPE_UINT8,
    u16 => CU_TENSOR_MAP_DATA_TYPE_UINT16,
    u32 => CU_TENSOR_MAP_DATA_TYPE_UINT32,
    i32 => CU_TENSOR_MAP_DATA_TYPE_INT32,
    u64 => CU_TENSOR_MAP_DATA_TYPE_UINT64,
    i64 => CU_TENSOR_MAP_DATA_TYPE_INT64,
    half::f16 => CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
    f32 => CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
    f64 => CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
    half::bf16 => CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
}

// `Swizzle` is defined beside `TensorMapError`, which names it; what TMA makes of it is here.
impl Swizzle {
    /// The span in bytes, `None` without swizzle.
    pub(super) fn span(self) -> Option<u64> {
        match self {
            Swizzle::None => None,
            Swizzle::B32 => Some(32),
            Swizzle::B64 => Some(64),
            Swizzle::B128 => Some(128),
        }
    }

    fn raw(self) -> S {
        match self {
            Swizzle::None => S::CU_TENSOR_MAP_SWIZZLE_NONE,
            Swizzle::B32 => S::CU_TENSOR_MAP_SWIZZLE_32B,
            Swizzle::B64 => S::CU_TENSOR_MAP_SWIZZLE_64B,
            Swizzle::B128 => S::CU_TENSOR_MAP_SWIZZLE_128B,
        }
    }
}

// `Interleave` is defined beside the rules that read it; what the driver makes of it is here.
impl Interleave {
    fn raw(self) -> I {
        match self {
            Interleave::None => I::CU_TENSOR_MAP_INTERLEAVE_NONE,
            Interleave::B16 => I::CU_TENSOR_MAP_INTERLEAVE_16B,
            Interleave::B32 => I::CU_TENSOR_MAP_INTERLEAVE_32B,
        }
    }
}

/// The choices of a tensor map (tiled or im2col) besides its shape; `Default` is contiguous
/// rows (strides from the dimensions), element strides of 1, no interleave, no swizzle, no L2
/// promotion, zeros outside the tensor.
///
/// ```
/// use cuda_kernel_runtime::{Swizzle, TensorMapOptions};
/// let o = TensorMapOptions { swizzle: Swizzle::B128, ..TensorMapOptions::default() };
/// assert!(o.strides.is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TensorMapOptions {
    /// Bytes between consecutive indices of dimensions 1 to rank - 1 (dimension 0 is
    /// contiguous); `None` packs the dimensions.
    pub strides: Option<Vec<u64>>,
    /// Every `n`-th element of each box dimension; `None` for 1s.
    pub element_strides: Option<Vec<u32>>,
    /// Interleave.
    pub interleave: Interleave,
    /// Swizzle of the shared memory tile.
    pub swizzle: Swizzle,
    /// Promote loads to 256-byte L2 sectors.
    pub l2_promotion_256: bool,
}

/// What one im2col copy loads, for [`TensorMap::im2col`]: a column of `pixels_per_column`
/// pixels with `channels_per_pixel` channels each, the pixels walked inside a box given by
/// its corner offsets. Spatial dimensions are listed W first (the order of the tensor's
/// dimensions after the channels). Along a spatial dimension of extent `E`, the box covers
/// coordinates `lower` to `E - 1 + upper`: for a forward convolution with padding `pad` and
/// a filter of `k` taps, `lower = -pad` and `upper = pad - (k - 1)`, so that the box holds
/// one pixel per output position and the copy's im2col offsets pick the filter tap.
///
/// ```
/// // A 3 x 3 convolution with padding 1 over an NHWC tensor (rank 4: C, W, H, N).
/// let shape = cuda_kernel_runtime::Im2colShape {
///     lower_corner: vec![-1, -1],
///     upper_corner: vec![-1, -1],
///     channels_per_pixel: 64,
///     pixels_per_column: 128,
/// };
/// assert_eq!(shape.lower_corner.len(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Im2colShape {
    /// The box's lower corner offsets (rank - 2 of them, W first).
    pub lower_corner: Vec<i32>,
    /// The box's upper corner offsets (rank - 2 of them, W first).
    pub upper_corner: Vec<i32>,
    /// Channels loaded per pixel (1 to 256; a multiple of 16 bytes without interleave).
    pub channels_per_pixel: u32,
    /// Pixels loaded per copy (1 to 1024).
    pub pixels_per_column: u32,
}

/// The 128-byte `CUtensorMap` a kernel takes as `const __grid_constant__ CUtensorMap`: what
/// the launch copies into the kernel's parameters, and the field type of a struct that holds
/// one.
///
/// ```
/// assert_eq!(std::mem::size_of::<cuda_kernel_runtime::TensorMapHandle>(), 128);
/// assert_eq!(std::mem::align_of::<cuda_kernel_runtime::TensorMapHandle>(), 128);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(128))]
pub struct TensorMapHandle([u64; 16]);

// SAFETY: the 128 bytes of a `CUtensorMap`, laid out as the driver writes them.
unsafe impl DeviceRepr for TensorMapHandle {}

/// A TMA descriptor of a device buffer of `T` (tiled, or im2col for convolutions), the buffer
/// borrowed for as long as the descriptor lives. Dimensions are innermost first (a row-major
/// `rows × cols` matrix is `[cols, rows]`); the box is the tile one copy moves to shared memory.
///
/// A launch that passes the map orders the buffer's uses across streams as a pointer argument
/// would: as a read for maps made by [`tiled`](Self::tiled), [`tiled_with`](Self::tiled_with)
/// and [`im2col`](Self::im2col), as a write for maps made by [`tiled_mut`](Self::tiled_mut).
/// (A map's [`handle`](Self::handle) passed by hand, or inside a struct, orders nothing.)
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// use cuda_kernel_runtime::TensorMap;
/// let (rows, cols) = (700u64, 1000u64);
/// let m = gpu.zeros::<f32>((rows * cols) as usize)?;
/// let map = TensorMap::tiled(&m, &[cols, rows], &[32, 32])?;
/// assert_eq!(map.rank(), 2);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct TensorMap<'a, T> {
    handle: TensorMapHandle,
    rank: usize,
    dims: Vec<u64>,
    box_dims: Vec<u32>,
    /// The buffer, borrowed for `'a`, prepared for each launch that passes the map.
    source: Box<dyn Source + 'a>,
    _values: std::marker::PhantomData<&'a T>,
}

impl<T> std::fmt::Debug for TensorMap<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorMap")
            .field("rank", &self.rank)
            .field("dims", &self.dims)
            .field("box_dims", &self.box_dims)
            .finish_non_exhaustive()
    }
}

impl<'a, T: TmaElement> TensorMap<'a, T> {
    /// A tiled map of `buffer` with `dims` (innermost first, packed) and tiles of `box_dims`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let v = gpu.zeros::<u16>(4096)?;
    /// let map = cuda_kernel_runtime::TensorMap::tiled(&v, &[4096], &[256])?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn tiled<M: DeviceMemory<T> + Sync + ?Sized>(
        buffer: &'a M,
        dims: &[u64],
        box_dims: &[u32],
    ) -> Result<Self, Error> {
        Self::tiled_with(buffer, dims, box_dims, &TensorMapOptions::default())
    }

    /// [`tiled`](Self::tiled) with strides, element strides, interleave, swizzle and L2
    /// promotion; every rule is checked before the driver sees it
    /// ([`TensorMapError`](crate::TensorMapError) names the one broken).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// use cuda_kernel_runtime::{Swizzle, TensorMap, TensorMapOptions};
    /// let m = gpu.zeros::<half::bf16>(64 * 1024)?;
    /// let opts = TensorMapOptions { swizzle: Swizzle::B128, ..TensorMapOptions::default() };
    /// let map = TensorMap::tiled_with(&m, &[1024, 64], &[64, 64], &opts)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn tiled_with<M: DeviceMemory<T> + Sync + ?Sized>(
        buffer: &'a M,
        dims: &[u64],
        box_dims: &[u32],
        opts: &TensorMapOptions,
    ) -> Result<Self, Error> {
        let encoded = encode(buffer, dims, Layout::Tiled { box_dims }, opts)?;
        Ok(encoded.into_map(Box::new(Reads::new(buffer))))
    }

    /// An im2col map of an image tensor in `buffer` (`dims` innermost first: channels, 1 to 3
    /// spatial dimensions W, H, D, then images, as in NHWC or NDHWC), for convolutions written
    /// as matrix products: one copy (`cp.async.bulk.tensor.Nd...im2col` with its im2col
    /// offsets) loads [`Im2colShape`]'s column of pixels, zeros where a pixel plus the offsets
    /// falls outside the tensor. Every rule of `cuTensorMapEncodeIm2col` is checked first.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// use cuda_kernel_runtime::{Im2colShape, TensorMap, TensorMapOptions};
    /// let (c, w, h, n) = (64u64, 28u64, 28u64, 8u64);
    /// let images = gpu.zeros::<half::bf16>((c * w * h * n) as usize)?;
    /// let shape = Im2colShape {
    ///     lower_corner: vec![-1, -1],
    ///     upper_corner: vec![-1, -1],
    ///     channels_per_pixel: 64,
    ///     pixels_per_column: 128,
    /// };
    /// let map = TensorMap::im2col(&images, &[c, w, h, n], &shape, &TensorMapOptions::default())?;
    /// assert_eq!(map.box_dims(), [64, 128]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn im2col<M: DeviceMemory<T> + Sync + ?Sized>(
        buffer: &'a M,
        dims: &[u64],
        shape: &Im2colShape,
        opts: &TensorMapOptions,
    ) -> Result<Self, Error> {
        let layout = Layout::Im2col {
            lower: &shape.lower_corner,
            upper: &shape.upper_corner,
            channels: shape.channels_per_pixel,
            pixels: shape.pixels_per_column,
        };
        let encoded = encode(buffer, dims, layout, opts)?;
        Ok(encoded.into_map(Box::new(Reads::new(buffer))))
    }
}

/// A descriptor encoded, before it keeps its buffer.
struct Encoded {
    handle: TensorMapHandle,
    dims: Vec<u64>,
    box_dims: Vec<u32>,
}

impl Encoded {
    fn into_map<'a, T>(self, source: Box<dyn Source + 'a>) -> TensorMap<'a, T> {
        TensorMap {
            handle: self.handle,
            rank: self.dims.len(),
            dims: self.dims,
            box_dims: self.box_dims,
            source,
            _values: std::marker::PhantomData,
        }
    }
}

/// Checks and encodes a map of `buffer`.
fn encode<T: TmaElement, M: DeviceMemory<T> + ?Sized>(
    buffer: &M,
    dims: &[u64],
    layout: Layout<'_>,
    opts: &TensorMapOptions,
) -> Result<Encoded, Error> {
    let elem = std::mem::size_of::<T>() as u64;
    let strides: Vec<u64> = match &opts.strides {
        Some(s) => s.clone(),
        None => packed_strides(elem, dims),
    };
    let element_strides = opts
        .element_strides
        .clone()
        .unwrap_or_else(|| vec![1; dims.len()]);
    let addr = buffer.address();
    let shape = Shape {
        addr,
        buffer_bytes: buffer.len() as u64 * elem,
        elem,
        dims,
        strides: &strides,
        layout,
        element_strides: &element_strides,
        interleave: opts.interleave,
        swizzle: opts.swizzle,
    };
    check(&shape)?;
    let mut raw = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
    let l2 = if opts.l2_promotion_256 {
        L2::CU_TENSOR_MAP_L2_PROMOTION_L2_256B
    } else {
        L2::CU_TENSOR_MAP_L2_PROMOTION_NONE
    };
    let rank = dims.len() as u32;
    let global = addr as *mut std::ffi::c_void;
    let fill = Fill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
    let box_dims = match shape.layout {
        Layout::Tiled { box_dims } => {
            // SAFETY: every array has the length the rank asks for (checked above); the
            // address is the live buffer's; `raw` is a writable, 64-byte aligned CUtensorMap.
            unsafe {
                driver::tensor_map::encode_tiled(
                    raw.as_mut_ptr(),
                    T::DATA_TYPE,
                    rank,
                    global,
                    dims,
                    &strides,
                    box_dims,
                    &element_strides,
                    opts.interleave.raw(),
                    opts.swizzle.raw(),
                    l2,
                    fill,
                )
            }
            .call("cuTensorMapEncodeTiled")?;
            box_dims.to_vec()
        }
        Layout::Im2col {
            lower,
            upper,
            channels,
            pixels,
        } => {
            // SAFETY: as above; the corners hold rank - 2 offsets each (checked above).
            unsafe {
                driver::tensor_map::encode_im2col(
                    raw.as_mut_ptr(),
                    T::DATA_TYPE,
                    rank,
                    global,
                    dims,
                    &strides,
                    lower,
                    upper,
                    channels,
                    pixels,
                    &element_strides,
                    opts.interleave.raw(),
                    opts.swizzle.raw(),
                    l2,
                    fill,
                )
            }
            .call("cuTensorMapEncodeIm2col")?;
            vec![channels, pixels]
        }
    };
    // SAFETY: the driver wrote the whole descriptor.
    let raw = unsafe { raw.assume_init() };
    // SAFETY: both are 128 bytes of plain data.
    let words: [u64; 16] = unsafe { std::mem::transmute_copy(&raw) };
    Ok(Encoded {
        handle: TensorMapHandle(words),
        dims: dims.to_vec(),
        box_dims,
    })
}

impl<'a, T: TmaElement> TensorMap<'a, T> {
    /// A map a kernel stores through (TMA `cp.async.bulk.tensor` from shared to global
    /// memory): the same descriptor as [`tiled_with`](Self::tiled_with), borrowing the
    /// buffer mutably so that nothing else reads or writes it while the map lives.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// use cuda_kernel_runtime::{TensorMap, TensorMapOptions};
    /// let mut out = gpu.zeros::<f32>(64 * 64)?;
    /// let map = TensorMap::tiled_mut(&mut out, &[64, 64], &[32, 32], &TensorMapOptions::default())?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn tiled_mut<M: DeviceMemoryMut<T> + Send + ?Sized>(
        buffer: &'a mut M,
        dims: &[u64],
        box_dims: &[u32],
        opts: &TensorMapOptions,
    ) -> Result<Self, Error> {
        let encoded = encode(&*buffer, dims, Layout::Tiled { box_dims }, opts)?;
        Ok(encoded.into_map(Box::new(Writes::new(buffer))))
    }
}

impl<T> TensorMap<'_, T> {
    /// The 128-byte descriptor, for passing by hand (`ByValue(map.handle())`, or as a field
    /// of a struct). A launch given the handle rather than the map does not order the map's
    /// buffer with other streams; stubs take the map itself.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let v = gpu.zeros::<f32>(64)?;
    /// # let map = cuda_kernel_runtime::TensorMap::tiled(&v, &[64], &[16])?;
    /// let h = map.handle();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn handle(&self) -> TensorMapHandle {
        self.handle
    }

    /// Number of dimensions.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let v = gpu.zeros::<f32>(64)?;
    /// let map = cuda_kernel_runtime::TensorMap::tiled(&v, &[64], &[16])?;
    /// assert_eq!(map.rank(), 1);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The tensor's dimensions, innermost first.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let v = gpu.zeros::<f32>(64)?;
    /// let map = cuda_kernel_runtime::TensorMap::tiled(&v, &[64], &[16])?;
    /// assert_eq!(map.dims(), [64]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn dims(&self) -> &[u64] {
        &self.dims
    }

    /// The box (tile) dimensions, innermost first; for an im2col map, channels per pixel and
    /// pixels per column.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let v = gpu.zeros::<f32>(64)?;
    /// let map = cuda_kernel_runtime::TensorMap::tiled(&v, &[64], &[16])?;
    /// assert_eq!(map.box_dims(), [16]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn box_dims(&self) -> &[u32] {
        &self.box_dims
    }
}

/// A map passed to a launch: its handle, and the prepared use of its buffer.
pub struct PreparedMap<'m> {
    handle: &'m TensorMapHandle,
    source: SourceUse<'m>,
}

impl<'m, T> DeviceArg for &'m TensorMap<'_, T> {
    type Prepared<'p>
        = PreparedMap<'p>
    where
        Self: 'p;

    #[inline]
    fn prepare<'p>(&'p mut self, stream: &Arc<CudaStream>) -> Result<PreparedMap<'p>, Error> {
        let map: &'m TensorMap<'_, T> = self;
        Ok(PreparedMap {
            handle: &map.handle,
            source: map.source.prepare(stream)?,
        })
    }
}

impl PreparedArg for PreparedMap<'_> {
    #[inline]
    fn param_ptr(&self) -> *mut std::ffi::c_void {
        std::ptr::from_ref(self.handle).cast_mut().cast()
    }

    #[inline]
    fn finish(self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        self.source.finish(stream)
    }
}
