//! CUDA arrays: [`Array`] and its element format.

use std::sync::Arc;

use cudarc::driver::CudaContext;
use cudarc::driver::sys::{self, CUarray_format as F};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};

/// The channel type of an array's elements.
///
/// ```
/// use cuda_kernel_runtime::ArrayFormat;
/// assert_eq!(ArrayFormat::F32.bytes(), 4);
/// assert_eq!(ArrayFormat::U8.bytes(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayFormat {
    /// `unsigned char`
    U8,
    /// `char`
    I8,
    /// `unsigned short`
    U16,
    /// `short`
    I16,
    /// `unsigned int`
    U32,
    /// `int`
    I32,
    /// `__half`
    F16,
    /// `float`
    F32,
}

impl ArrayFormat {
    /// Bytes per channel.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::ArrayFormat::F16.bytes(), 2);
    /// ```
    pub fn bytes(self) -> usize {
        match self {
            ArrayFormat::U8 | ArrayFormat::I8 => 1,
            ArrayFormat::U16 | ArrayFormat::I16 | ArrayFormat::F16 => 2,
            ArrayFormat::U32 | ArrayFormat::I32 | ArrayFormat::F32 => 4,
        }
    }

    fn raw(self) -> F {
        match self {
            ArrayFormat::U8 => F::CU_AD_FORMAT_UNSIGNED_INT8,
            ArrayFormat::I8 => F::CU_AD_FORMAT_SIGNED_INT8,
            ArrayFormat::U16 => F::CU_AD_FORMAT_UNSIGNED_INT16,
            ArrayFormat::I16 => F::CU_AD_FORMAT_SIGNED_INT16,
            ArrayFormat::U32 => F::CU_AD_FORMAT_UNSIGNED_INT32,
            ArrayFormat::I32 => F::CU_AD_FORMAT_SIGNED_INT32,
            ArrayFormat::F16 => F::CU_AD_FORMAT_HALF,
            ArrayFormat::F32 => F::CU_AD_FORMAT_FLOAT,
        }
    }
}

/// A CUDA array ([`Gpu::array_1d`], [`Gpu::array_2d`], [`Gpu::array_3d`]): cheap to clone
/// (the texture and surface objects made from it keep it alive).
///
/// ```no_run
/// use cuda_kernel_runtime::ArrayFormat;
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let rgba = gpu.array_2d(ArrayFormat::U8, 4, 1920, 1080)?;
/// assert_eq!(rgba.element_size(), 4);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone)]
pub struct Array {
    inner: Arc<ArrayInner>,
}

struct ArrayInner {
    handle: sys::CUarray,
    format: ArrayFormat,
    channels: u32,
    /// Width, height (0 for 1D), depth (0 for 1D and 2D), as the driver takes them.
    extent: [usize; 3],
    ctx: Arc<CudaContext>,
}

// SAFETY: the handle is a driver object usable from any thread with its context current.
unsafe impl Send for ArrayInner {}
// SAFETY: as above; the handle is never mutated.
unsafe impl Sync for ArrayInner {}

impl Drop for ArrayInner {
    fn drop(&mut self) {
        // Work queued on the array must finish first: the driver does not defer the free.
        self.ctx.record_err(self.ctx.synchronize());
        // SAFETY: created by cuArray3DCreate; nothing references it any more (texture and
        // surface objects hold the `Arc`).
        let destroyed = unsafe { driver::texture::array_destroy(self.handle) };
        self.ctx.record_err(destroyed);
    }
}

impl Array {
    /// Elements per row.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let a = gpu.array_1d(cuda_kernel_runtime::ArrayFormat::F32, 1, 256)?;
    /// assert_eq!(a.width(), 256);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn width(&self) -> usize {
        self.inner.extent[0]
    }

    /// Rows (0 for a 1D array).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let a = gpu.array_1d(cuda_kernel_runtime::ArrayFormat::F32, 1, 256)?;
    /// assert_eq!(a.height(), 0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn height(&self) -> usize {
        self.inner.extent[1]
    }

    /// Planes (0 for 1D and 2D arrays).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let a = gpu.array_3d(cuda_kernel_runtime::ArrayFormat::F32, 1, 8, 8, 8)?;
    /// assert_eq!(a.depth(), 8);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn depth(&self) -> usize {
        self.inner.extent[2]
    }

    /// The channel format.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::ArrayFormat;
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.array_1d(ArrayFormat::U16, 2, 8)?.format(), ArrayFormat::U16);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn format(&self) -> ArrayFormat {
        self.inner.format
    }

    /// Channels per element (1, 2 or 4).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.array_1d(cuda_kernel_runtime::ArrayFormat::U8, 4, 8)?.channels(), 4);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn channels(&self) -> u32 {
        self.inner.channels
    }

    /// Bytes per element: channels × channel size (what a copy's element type must have).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// assert_eq!(gpu.array_1d(cuda_kernel_runtime::ArrayFormat::F32, 2, 8)?.element_size(), 8);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn element_size(&self) -> usize {
        self.inner.format.bytes() * self.inner.channels as usize
    }

    pub(crate) fn handle(&self) -> sys::CUarray {
        self.inner.handle
    }
}

impl Gpu {
    /// A 1D array of `width` elements.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let lut = gpu.array_1d(cuda_kernel_runtime::ArrayFormat::F32, 1, 1024)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for 0 elements or channels other than 1, 2, 4; a driver error
    /// beyond the device's array limits.
    pub fn array_1d(
        &self,
        format: ArrayFormat,
        channels: u32,
        width: usize,
    ) -> Result<Array, Error> {
        self.array([width, 0, 0], format, channels)
    }

    /// A 2D array of `width × height` elements.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let img = gpu.array_2d(cuda_kernel_runtime::ArrayFormat::F32, 1, 640, 480)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn array_2d(
        &self,
        format: ArrayFormat,
        channels: u32,
        width: usize,
        height: usize,
    ) -> Result<Array, Error> {
        self.array([width, height, 0], format, channels)
    }

    /// A 3D array of `width × height × depth` elements.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let vol = gpu.array_3d(cuda_kernel_runtime::ArrayFormat::F16, 1, 64, 64, 64)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn array_3d(
        &self,
        format: ArrayFormat,
        channels: u32,
        width: usize,
        height: usize,
        depth: usize,
    ) -> Result<Array, Error> {
        self.array([width, height, depth], format, channels)
    }

    fn array(
        &self,
        extent: [usize; 3],
        format: ArrayFormat,
        channels: u32,
    ) -> Result<Array, Error> {
        let bad = |problem: String| Error::OutOfRange {
            what: "array",
            problem,
        };
        if ![1, 2, 4].contains(&channels) {
            return Err(bad(format!("{channels} channels (1, 2 or 4)")));
        }
        let dims = extent.iter().filter(|&&e| e > 0).count();
        let expected = 1 + usize::from(extent[1] > 0 || extent[2] > 0) + usize::from(extent[2] > 0);
        if extent[0] == 0 || dims != expected {
            return Err(bad(format!("an empty extent {extent:?}")));
        }
        let desc = sys::CUDA_ARRAY3D_DESCRIPTOR {
            Width: extent[0],
            Height: extent[1],
            Depth: extent[2],
            Format: format.raw(),
            NumChannels: channels,
            // Every array can back a surface object.
            Flags: sys::CUDA_ARRAY3D_SURFACE_LDST,
        };
        let ctx = self.context().clone();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: a valid descriptor; the context is current.
        let handle = unsafe { driver::texture::array_3d_create(&desc) }.call("cuArray3DCreate")?;
        Ok(Array {
            inner: Arc::new(ArrayInner {
                handle,
                format,
                channels,
                extent,
                ctx,
            }),
        })
    }
}
