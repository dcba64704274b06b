//! Texture and surface objects over [`Array`]s, and their handles as kernel values.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUaddress_mode as Am, CUfilter_mode as Fm};
use cudarc::driver::{CudaContext, DeviceRepr};

use super::array::Array;
use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};

/// What a coordinate outside `[0, size)` reads.
///
/// ```
/// assert_ne!(cuda_kernel_runtime::AddressMode::Clamp, cuda_kernel_runtime::AddressMode::Wrap);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    /// The nearest edge element.
    Clamp,
    /// Wraps around (normalised coordinates only).
    Wrap,
    /// Mirrors at every edge (normalised coordinates only).
    Mirror,
    /// Zero.
    Border,
}

/// How a coordinate between elements is read.
///
/// ```
/// assert_ne!(cuda_kernel_runtime::FilterMode::Point, cuda_kernel_runtime::FilterMode::Linear);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterMode {
    /// The nearest element.
    Point,
    /// Linear interpolation of the neighbours (floating-point reads only), with the
    /// texture unit's 9-bit fixed-point weights.
    Linear,
}

/// How a [`TextureObject`] reads its array.
///
/// ```
/// use cuda_kernel_runtime::{AddressMode, FilterMode, TextureDesc};
/// let desc = TextureDesc::new()
///     .address(AddressMode::Clamp)
///     .filter(FilterMode::Linear)
///     .normalized_coords(true);
/// assert_eq!(desc.filter_mode(), FilterMode::Linear);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureDesc {
    address: [AddressMode; 3],
    filter: FilterMode,
    normalized_coords: bool,
    normalized_float: bool,
    border: [f32; 4],
}

impl Default for TextureDesc {
    fn default() -> Self {
        TextureDesc {
            address: [AddressMode::Clamp; 3],
            filter: FilterMode::Point,
            normalized_coords: false,
            normalized_float: false,
            border: [0.0; 4],
        }
    }
}

impl TextureDesc {
    /// Clamped, point-sampled, unnormalised coordinates, elements read as they are stored.
    ///
    /// ```
    /// let d = cuda_kernel_runtime::TextureDesc::new();
    /// assert_eq!(d.filter_mode(), cuda_kernel_runtime::FilterMode::Point);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The same address mode in every dimension.
    ///
    /// ```
    /// let d = cuda_kernel_runtime::TextureDesc::new().address(cuda_kernel_runtime::AddressMode::Border);
    /// # let _ = d;
    /// ```
    pub fn address(mut self, mode: AddressMode) -> Self {
        self.address = [mode; 3];
        self
    }

    /// An address mode per dimension (x, y, z).
    ///
    /// ```
    /// use cuda_kernel_runtime::AddressMode::{Clamp, Wrap};
    /// let d = cuda_kernel_runtime::TextureDesc::new().address_per_dim([Wrap, Clamp, Clamp]);
    /// # let _ = d;
    /// ```
    pub fn address_per_dim(mut self, modes: [AddressMode; 3]) -> Self {
        self.address = modes;
        self
    }

    /// The filter mode.
    ///
    /// ```
    /// let d = cuda_kernel_runtime::TextureDesc::new().filter(cuda_kernel_runtime::FilterMode::Linear);
    /// # let _ = d;
    /// ```
    pub fn filter(mut self, mode: FilterMode) -> Self {
        self.filter = mode;
        self
    }

    /// The filter mode set.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::TextureDesc::new().filter_mode(), cuda_kernel_runtime::FilterMode::Point);
    /// ```
    pub fn filter_mode(&self) -> FilterMode {
        self.filter
    }

    /// Coordinates in `[0, 1)` instead of `[0, size)`.
    ///
    /// ```
    /// let d = cuda_kernel_runtime::TextureDesc::new().normalized_coords(true);
    /// # let _ = d;
    /// ```
    pub fn normalized_coords(mut self, on: bool) -> Self {
        self.normalized_coords = on;
        self
    }

    /// Integer elements read as floats in `[0, 1]` (`[-1, 1]` signed), which linear filtering
    /// of integer arrays needs; the kernel then reads `float` channels.
    ///
    /// ```
    /// let d = cuda_kernel_runtime::TextureDesc::new().normalized_float(true);
    /// # let _ = d;
    /// ```
    pub fn normalized_float(mut self, on: bool) -> Self {
        self.normalized_float = on;
        self
    }

    /// The value read outside the array with [`AddressMode::Border`].
    ///
    /// ```
    /// let d = cuda_kernel_runtime::TextureDesc::new().border_color([1.0, 0.0, 0.0, 1.0]);
    /// # let _ = d;
    /// ```
    pub fn border_color(mut self, rgba: [f32; 4]) -> Self {
        self.border = rgba;
        self
    }

    fn raw(&self) -> sys::CUDA_TEXTURE_DESC {
        let mode = |m: AddressMode| match m {
            AddressMode::Clamp => Am::CU_TR_ADDRESS_MODE_CLAMP,
            AddressMode::Wrap => Am::CU_TR_ADDRESS_MODE_WRAP,
            AddressMode::Mirror => Am::CU_TR_ADDRESS_MODE_MIRROR,
            AddressMode::Border => Am::CU_TR_ADDRESS_MODE_BORDER,
        };
        let filter = match self.filter {
            FilterMode::Point => Fm::CU_TR_FILTER_MODE_POINT,
            FilterMode::Linear => Fm::CU_TR_FILTER_MODE_LINEAR,
        };
        let mut flags = 0;
        if self.normalized_coords {
            flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
        }
        if !self.normalized_float {
            flags |= sys::CU_TRSF_READ_AS_INTEGER;
        }
        sys::CUDA_TEXTURE_DESC {
            addressMode: self.address.map(mode),
            filterMode: filter,
            flags,
            maxAnisotropy: 0,
            mipmapFilterMode: Fm::CU_TR_FILTER_MODE_POINT,
            mipmapLevelBias: 0.0,
            minMipmapLevelClamp: 0.0,
            maxMipmapLevelClamp: 0.0,
            borderColor: self.border,
            reserved: [0; 12],
        }
    }
}

/// A texture object's handle as a value (`cudaTextureObject_t`), for struct fields and
/// globals; a kernel parameter takes the [`TextureObject`] itself.
///
/// ```
/// let h = cuda_kernel_runtime::TextureHandle::default();
/// assert_eq!(h.raw(), 0);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TextureHandle(u64);

/// A surface object's handle as a value (`cudaSurfaceObject_t`).
///
/// ```
/// let h = cuda_kernel_runtime::SurfaceHandle::default();
/// assert_eq!(h.raw(), 0);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SurfaceHandle(u64);

// SAFETY: `repr(transparent)` over `u64`, the C type of both handles.
unsafe impl DeviceRepr for TextureHandle {}
// SAFETY: as above.
unsafe impl DeviceRepr for SurfaceHandle {}

impl TextureHandle {
    /// The driver's handle.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::TextureHandle::default().raw(), 0);
    /// ```
    pub fn raw(self) -> u64 {
        self.0
    }
}

impl SurfaceHandle {
    /// The driver's handle.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::SurfaceHandle::default().raw(), 0);
    /// ```
    pub fn raw(self) -> u64 {
        self.0
    }
}

/// A texture object reading an [`Array`] as elements of `T` ([`Gpu::texture`]); destroyed when
/// dropped. The kernel reads it with `tex1D<T>`, `tex2D<T>`, `tex3D<T>`.
///
/// ```no_run
/// use cuda_kernel_runtime::{ArrayFormat, FilterMode, TextureDesc};
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let arr = gpu.array_2d(ArrayFormat::F32, 1, 256, 256)?;
/// let tex = gpu.texture::<f32>(&arr, &TextureDesc::new().filter(FilterMode::Linear))?;
/// // m.sample(&cfg, &tex, &mut out, ...) for `sample(cudaTextureObject_t tex, float* out, ...)`
/// # let _ = tex;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct TextureObject<T> {
    handle: u64,
    _array: Array,
    ctx: Arc<CudaContext>,
    marker: PhantomData<fn() -> T>,
}

/// A surface object reading and writing an [`Array`] as elements of `T` ([`Gpu::surface`]);
/// the kernel uses `surf2Dread` / `surf2Dwrite` (byte offsets in x).
///
/// ```no_run
/// use cuda_kernel_runtime::ArrayFormat;
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let arr = gpu.array_2d(ArrayFormat::F32, 1, 64, 64)?;
/// let surf = gpu.surface::<f32>(&arr)?;
/// # let _ = surf;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct SurfaceObject<T> {
    handle: u64,
    _array: Array,
    ctx: Arc<CudaContext>,
    marker: PhantomData<fn() -> T>,
}

impl<T> TextureObject<T> {
    /// The handle a kernel receives.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let arr = gpu.array_1d(cuda_kernel_runtime::ArrayFormat::F32, 1, 8)?;
    /// let tex = gpu.texture::<f32>(&arr, &cuda_kernel_runtime::TextureDesc::new())?;
    /// assert_ne!(tex.handle().raw(), 0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn handle(&self) -> TextureHandle {
        TextureHandle(self.handle)
    }
}

impl<T> SurfaceObject<T> {
    /// The handle a kernel receives.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let arr = gpu.array_1d(cuda_kernel_runtime::ArrayFormat::F32, 1, 8)?;
    /// let surf = gpu.surface::<f32>(&arr)?;
    /// assert_ne!(surf.handle().raw(), 0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn handle(&self) -> SurfaceHandle {
        SurfaceHandle(self.handle)
    }
}

impl<T> Drop for TextureObject<T> {
    fn drop(&mut self) {
        // SAFETY: created by cuTexObjectCreate and destroyed once.
        let done = unsafe { driver::texture::tex_object_destroy(self.handle) };
        self.ctx.record_err(done);
    }
}

impl<T> Drop for SurfaceObject<T> {
    fn drop(&mut self) {
        // SAFETY: created by cuSurfObjectCreate and destroyed once.
        let done = unsafe { driver::texture::surf_object_destroy(self.handle) };
        self.ctx.record_err(done);
    }
}

fn resource(array: &Array) -> sys::CUDA_RESOURCE_DESC {
    // SAFETY: plain data; zero is the "unused" state of every field.
    let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
    res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array.handle();
    res
}

fn element_check<T>(array: &Array, expected: usize, what: &'static str) -> Result<(), Error> {
    let size = std::mem::size_of::<T>();
    if size == expected {
        return Ok(());
    }
    Err(Error::OutOfRange {
        what,
        problem: format!(
            "`{}` has {size} bytes, but reading this {:?}×{} array gives {expected}-byte elements",
            std::any::type_name::<T>(),
            array.format(),
            array.channels()
        ),
    })
}

impl Gpu {
    /// A texture object over `array`, read as `T` (`size_of::<T>()` must be the element's
    /// size: channels × channel size, or channels × 4 with
    /// [`TextureDesc::normalized_float`]).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{AddressMode, ArrayFormat, FilterMode, TextureDesc};
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let arr = gpu.array_2d(ArrayFormat::U8, 1, 64, 64)?;
    /// let desc = TextureDesc::new().normalized_float(true).filter(FilterMode::Linear);
    /// let tex = gpu.texture::<f32>(&arr, &desc)?; // u8 texels read as f32 in [0, 1]
    /// # let _ = tex;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when `T` does not match the elements read; a driver error for a
    /// description the array cannot take (linear filtering of integers read as integers).
    pub fn texture<T>(&self, array: &Array, desc: &TextureDesc) -> Result<TextureObject<T>, Error> {
        let is_float = matches!(
            array.format(),
            super::ArrayFormat::F32 | super::ArrayFormat::F16
        );
        let expected = if desc.normalized_float || is_float {
            4 * array.channels() as usize
        } else {
            array.element_size()
        };
        element_check::<T>(array, expected, "texture")?;
        let res = resource(array);
        let tex = desc.raw();
        self.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: valid descriptors; no view descriptor; the array outlives the object (held).
        let handle =
            unsafe { driver::texture::tex_object_create(&res, &tex) }.call("cuTexObjectCreate")?;
        Ok(TextureObject {
            handle,
            _array: array.clone(),
            ctx: self.context().clone(),
            marker: PhantomData,
        })
    }

    /// A surface object over `array`, read and written as `T` (the element's size).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::ArrayFormat;
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let arr = gpu.array_2d(ArrayFormat::F32, 4, 32, 32)?;
    /// let surf = gpu.surface::<[f32; 4]>(&arr)?;
    /// # let _ = surf;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn surface<T>(&self, array: &Array) -> Result<SurfaceObject<T>, Error> {
        element_check::<T>(array, array.element_size(), "surface")?;
        let res = resource(array);
        self.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: a valid descriptor; the array outlives the object (held).
        let handle =
            unsafe { driver::texture::surf_object_create(&res) }.call("cuSurfObjectCreate")?;
        Ok(SurfaceObject {
            handle,
            _array: array.clone(),
            ctx: self.context().clone(),
            marker: PhantomData,
        })
    }
}
