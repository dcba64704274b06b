//! 2D and 3D copies between host memory, device buffers, [`Pitched`] buffers and CUDA
//! [`Array`]s (`cuMemcpy3DAsync`), with every side's bounds checked before the driver sees them.
//!
//! A side is a [`Region`] (read) or a [`RegionMut`] (written): memory seen as rows of
//! `row_len` elements, `rows_per_plane` rows per plane, and an origin `(x, y, z)` in elements,
//! rows and planes. The copy moves `width × height × depth` elements. Host memory is plain
//! slices (the copy has finished when the call returns); device to device copies are queued on
//! the handle's stream and ordered with the buffers' other uses.

use std::marker::PhantomData;

use cudarc::driver::DeviceRepr;
use cudarc::driver::sys::{self, CUmemorytype as M};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};
use crate::memory::pitched::Pitched;
use crate::texture::Array;

/// Where a side's memory is.
enum Mem<'a, T> {
    Host(&'a [T]),
    HostMut(&'a mut [T]),
    Device(&'a dyn DeviceMemory<T>),
    DeviceMut(&'a mut dyn DeviceMemoryMut<T>),
    Pitched(&'a Pitched<T>),
    Array(&'a Array),
}

/// One side of a copy: memory, its shape, and where the copy starts in it.
struct Side<'a, T> {
    mem: Mem<'a, T>,
    /// Elements per row (the pitch, in elements).
    row_len: usize,
    /// Rows per plane; `None`: as many as the memory holds (a 2D side).
    rows_per_plane: Option<usize>,
    origin: [usize; 3],
}

/// The source of a 2D/3D copy.
///
/// ```no_run
/// use cuda_kernel_runtime::{Region, RegionMut};
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let host = vec![1.0f32; 640 * 480];
/// let mut img = gpu.pitched::<f32>(640, 480)?;
/// gpu.copy_2d(Region::host(&host, 640), RegionMut::pitched(&mut img), 640, 480)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct Region<'a, T>(Side<'a, T>);

/// The destination of a 2D/3D copy.
///
/// ```no_run
/// use cuda_kernel_runtime::{Region, RegionMut};
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let img = gpu.pitched::<u8>(64, 64)?;
/// let mut host = vec![0u8; 32 * 32];
/// // The 32 × 32 block at (16, 16) of the image, packed into `host`.
/// gpu.copy_2d(Region::pitched(&img).at(16, 16), RegionMut::host(&mut host, 32), 32, 32)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct RegionMut<'a, T>(Side<'a, T>, PhantomData<&'a mut T>);

fn side<T>(mem: Mem<'_, T>, row_len: usize) -> Side<'_, T> {
    Side {
        mem,
        row_len,
        rows_per_plane: None,
        origin: [0; 3],
    }
}

impl<'a, T> Region<'a, T> {
    /// Host memory of rows of `row_len` elements.
    ///
    /// ```
    /// let data = [0u32; 12];
    /// let _rows_of_four = cuda_kernel_runtime::Region::host(&data, 4);
    /// ```
    pub fn host(data: &'a [T], row_len: usize) -> Self {
        Region(side(Mem::Host(data), row_len))
    }

    /// Device memory (a buffer or a view, the runtime's or cudarc's, managed memory) of rows of `row_len` elements.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let buf = gpu.zeros::<f32>(16 * 16)?;
    /// let _rows = cuda_kernel_runtime::Region::device(&buf, 16);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn device(buf: &'a dyn DeviceMemory<T>, row_len: usize) -> Self {
        Region(side(Mem::Device(buf), row_len))
    }

    /// A pitched buffer (its own rows, pitch and planes).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let vol = gpu.pitched_3d::<f32>(8, 8, 8)?;
    /// let _plane_two = cuda_kernel_runtime::Region::pitched(&vol).at_3d(0, 0, 2);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn pitched(buf: &'a Pitched<T>) -> Self {
        Region(Side {
            rows_per_plane: Some(buf.height()),
            ..side(Mem::Pitched(buf), buf.pitch_elems())
        })
    }

    /// A CUDA array (elements of its format; see [`Array`]).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{ArrayFormat, Region};
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let arr = gpu.array_2d(ArrayFormat::F32, 1, 64, 64)?;
    /// let _all = Region::<f32>::array(&arr);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn array(arr: &'a Array) -> Self {
        Region(Side {
            rows_per_plane: Some(arr.height().max(1)),
            ..side(Mem::Array(arr), arr.width())
        })
    }

    /// Starts the copy at element `x` of row `y`.
    ///
    /// ```
    /// let data = [0u8; 100];
    /// let _block = cuda_kernel_runtime::Region::host(&data, 10).at(2, 3);
    /// ```
    pub fn at(self, x: usize, y: usize) -> Self {
        self.at_3d(x, y, 0)
    }

    /// Starts the copy at element `x` of row `y` of plane `z`.
    ///
    /// ```
    /// let data = [0u8; 1000];
    /// let _ = cuda_kernel_runtime::Region::host(&data, 10).rows_per_plane(10).at_3d(1, 2, 3);
    /// ```
    pub fn at_3d(mut self, x: usize, y: usize, z: usize) -> Self {
        self.0.origin = [x, y, z];
        self
    }

    /// Sets the rows per plane of host or device memory seen as 3D.
    ///
    /// ```
    /// let data = [0u16; 4 * 3 * 2];
    /// let _volume = cuda_kernel_runtime::Region::host(&data, 4).rows_per_plane(3);
    /// ```
    pub fn rows_per_plane(mut self, rows: usize) -> Self {
        self.0.rows_per_plane = Some(rows);
        self
    }
}

impl<'a, T> RegionMut<'a, T> {
    /// Host memory of rows of `row_len` elements.
    ///
    /// ```
    /// let mut data = [0u32; 12];
    /// let _rows_of_four = cuda_kernel_runtime::RegionMut::host(&mut data, 4);
    /// ```
    pub fn host(data: &'a mut [T], row_len: usize) -> Self {
        RegionMut(side(Mem::HostMut(data), row_len), PhantomData)
    }

    /// A device buffer of rows of `row_len` elements.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut buf = gpu.zeros::<f32>(16 * 16)?;
    /// let _rows = cuda_kernel_runtime::RegionMut::device(&mut buf, 16);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn device(buf: &'a mut dyn DeviceMemoryMut<T>, row_len: usize) -> Self {
        RegionMut(side(Mem::DeviceMut(buf), row_len), PhantomData)
    }

    /// A pitched buffer.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut img = gpu.pitched::<f32>(8, 8)?;
    /// let _corner = cuda_kernel_runtime::RegionMut::pitched(&mut img).at(4, 4);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn pitched(buf: &'a mut Pitched<T>) -> Self {
        RegionMut(
            Side {
                rows_per_plane: Some(buf.height()),
                ..side(Mem::Pitched(buf), buf.pitch_elems())
            },
            PhantomData,
        )
    }

    /// A CUDA array.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{ArrayFormat, RegionMut};
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut arr = gpu.array_2d(ArrayFormat::F32, 1, 64, 64)?;
    /// let _all = RegionMut::<f32>::array(&mut arr);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn array(arr: &'a mut Array) -> Self {
        RegionMut(
            Side {
                rows_per_plane: Some(arr.height().max(1)),
                ..side(Mem::Array(arr), arr.width())
            },
            PhantomData,
        )
    }

    /// Starts the copy at element `x` of row `y`.
    ///
    /// ```
    /// let mut data = [0u8; 100];
    /// let _block = cuda_kernel_runtime::RegionMut::host(&mut data, 10).at(2, 3);
    /// ```
    pub fn at(self, x: usize, y: usize) -> Self {
        self.at_3d(x, y, 0)
    }

    /// Starts the copy at element `x` of row `y` of plane `z`.
    ///
    /// ```
    /// let mut data = [0u8; 1000];
    /// let _ = cuda_kernel_runtime::RegionMut::host(&mut data, 10).rows_per_plane(10).at_3d(1, 2, 3);
    /// ```
    pub fn at_3d(mut self, x: usize, y: usize, z: usize) -> Self {
        self.0.origin = [x, y, z];
        self
    }

    /// Sets the rows per plane of host or device memory seen as 3D.
    ///
    /// ```
    /// let mut data = [0u16; 4 * 3 * 2];
    /// let _volume = cuda_kernel_runtime::RegionMut::host(&mut data, 4).rows_per_plane(3);
    /// ```
    pub fn rows_per_plane(mut self, rows: usize) -> Self {
        self.0.rows_per_plane = Some(rows);
        self
    }
}

impl Gpu {
    /// Copies `width × height` elements from `src` to `dst`.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Region, RegionMut};
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let host: Vec<f32> = (0..100 * 50).map(|i| i as f32).collect();
    /// let mut img = gpu.pitched::<f32>(100, 50)?;
    /// gpu.copy_2d(Region::host(&host, 100), RegionMut::pitched(&mut img), 100, 50)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when the block does not fit a side (naming the side and the
    /// numbers); a driver error otherwise.
    pub fn copy_2d<T: DeviceRepr>(
        &self,
        src: Region<'_, T>,
        dst: RegionMut<'_, T>,
        width: usize,
        height: usize,
    ) -> Result<(), Error> {
        self.copy_3d(src, dst, [width, height, 1])
    }

    /// Copies `width × height × depth` elements (`extent`) from `src` to `dst`.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Region, RegionMut};
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let host = vec![1u8; 32 * 32 * 8];
    /// let mut vol = gpu.pitched_3d::<u8>(32, 32, 8)?;
    /// let src = Region::host(&host, 32).rows_per_plane(32);
    /// gpu.copy_3d(src, RegionMut::pitched(&mut vol), [32, 32, 8])?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn copy_3d<T: DeviceRepr>(
        &self,
        src: Region<'_, T>,
        mut dst: RegionMut<'_, T>,
        extent: [usize; 3],
    ) -> Result<(), Error> {
        let size = std::mem::size_of::<T>();
        if extent.contains(&0) {
            return Ok(());
        }
        check(&src.0, extent, size, "source")?;
        check(&dst.0, extent, size, "destination")?;
        let stream = self.stream();
        let mut p = blank();
        p.WidthInBytes = extent[0] * size;
        p.Height = extent[1];
        p.Depth = extent[2];
        let s = &src.0;
        let d = &mut dst.0;
        let mut events = Vec::with_capacity(2);
        let host = matches!(s.mem, Mem::Host(_)) || matches!(d.mem, Mem::HostMut(_));
        // Device sides: the stream waits on their pending work; the prepared sides record this
        // copy once it is queued.
        let mut prepared = Vec::with_capacity(2);
        p.srcXInBytes = s.origin[0] * size;
        p.srcY = s.origin[1];
        p.srcZ = s.origin[2];
        p.srcPitch = s.row_len * size;
        // A 2D side's "plane" is every row the copy reaches.
        p.srcHeight = s.rows_per_plane.unwrap_or(s.origin[1] + extent[1]);
        match &s.mem {
            Mem::Host(h) => {
                p.srcMemoryType = M::CU_MEMORYTYPE_HOST;
                p.srcHost = h.as_ptr().cast();
            }
            Mem::Device(b) => {
                let side = b.prepare_read(stream)?;
                p.srcMemoryType = M::CU_MEMORYTYPE_DEVICE;
                p.srcDevice = side.addr();
                prepared.push(side);
            }
            Mem::Pitched(b) => {
                stream.wait(&b.event).call("cuStreamWaitEvent")?;
                events.push(&b.event);
                p.srcMemoryType = M::CU_MEMORYTYPE_DEVICE;
                p.srcDevice = b.device_ptr();
            }
            Mem::Array(a) => {
                p.srcMemoryType = M::CU_MEMORYTYPE_ARRAY;
                p.srcArray = a.handle();
                p.srcPitch = 0;
                p.srcHeight = 0;
            }
            Mem::HostMut(_) | Mem::DeviceMut(_) => unreachable!("a source is never mutable"),
        }
        p.dstXInBytes = d.origin[0] * size;
        p.dstY = d.origin[1];
        p.dstZ = d.origin[2];
        p.dstPitch = d.row_len * size;
        p.dstHeight = d.rows_per_plane.unwrap_or(d.origin[1] + extent[1]);
        match &mut d.mem {
            Mem::HostMut(h) => {
                p.dstMemoryType = M::CU_MEMORYTYPE_HOST;
                p.dstHost = h.as_mut_ptr().cast();
            }
            Mem::DeviceMut(b) => {
                let side = b.prepare_write(stream)?;
                p.dstMemoryType = M::CU_MEMORYTYPE_DEVICE;
                p.dstDevice = side.addr();
                prepared.push(side);
            }
            Mem::Pitched(b) => {
                stream.wait(&b.event).call("cuStreamWaitEvent")?;
                events.push(&b.event);
                p.dstMemoryType = M::CU_MEMORYTYPE_DEVICE;
                p.dstDevice = b.device_ptr();
            }
            Mem::Array(a) => {
                p.dstMemoryType = M::CU_MEMORYTYPE_ARRAY;
                p.dstArray = a.handle();
                p.dstPitch = 0;
                p.dstHeight = 0;
            }
            Mem::Host(_) | Mem::Device(_) => unreachable!("a destination is always mutable"),
        }
        self.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: both sides were checked to hold the whole block; host slices and device
        // buffers are borrowed for this call, and a host side is waited for below.
        unsafe { driver::memory::memcpy_3d_async(&p, stream.cu_stream()) }
            .call("cuMemcpy3DAsync")?;
        for event in events {
            event.record(stream).call("cuEventRecord")?;
        }
        for side in prepared {
            side.finish(stream)?;
        }
        if host {
            // The host slices are only borrowed for this call.
            stream.synchronize().call("cuStreamSynchronize")?;
        }
        Ok(())
    }
}

/// A copy description with every field in its "unused" state (memory types are set per side).
fn blank() -> sys::CUDA_MEMCPY3D {
    sys::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: M::CU_MEMORYTYPE_HOST,
        srcHost: std::ptr::null(),
        srcDevice: 0,
        srcArray: std::ptr::null_mut(),
        reserved0: std::ptr::null_mut(),
        srcPitch: 0,
        srcHeight: 0,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: M::CU_MEMORYTYPE_HOST,
        dstHost: std::ptr::null_mut(),
        dstDevice: 0,
        dstArray: std::ptr::null_mut(),
        reserved1: std::ptr::null_mut(),
        dstPitch: 0,
        dstHeight: 0,
        WidthInBytes: 0,
        Height: 0,
        Depth: 0,
    }
}

/// Whether `extent` elements from the side's origin lie within its memory.
fn check<T>(s: &Side<'_, T>, extent: [usize; 3], size: usize, which: &str) -> Result<(), Error> {
    let err = |problem: String| Error::OutOfRange {
        what: "copy_3d",
        problem: format!("the {which}: {problem}"),
    };
    let [x, y, z] = s.origin;
    let [w, h, d] = extent;
    if s.row_len == 0 {
        return Err(err("a row length of 0 elements".into()));
    }
    if s.row_len.checked_mul(size).is_none() {
        return Err(err(format!("rows of {} elements overflow", s.row_len)));
    }
    if x.saturating_add(w) > s.row_len {
        return Err(err(format!(
            "elements {x}..{} do not fit a row of {} elements",
            x.saturating_add(w),
            s.row_len
        )));
    }
    if let Mem::Array(a) = &s.mem {
        let (ah, ad) = (a.height().max(1), a.depth().max(1));
        if y.saturating_add(h) > ah || z.saturating_add(d) > ad {
            return Err(err(format!(
                "rows {y}..{} of planes {z}..{} do not fit a {}×{ah}×{ad} array",
                y.saturating_add(h),
                z.saturating_add(d),
                a.width()
            )));
        }
        if a.element_size() != size {
            return Err(err(format!(
                "elements of {size} bytes copied to or from an array of {}-byte elements",
                a.element_size()
            )));
        }
        return Ok(());
    }
    let rows_per_plane = s.rows_per_plane.unwrap_or(usize::MAX);
    if let Some(p) = s.rows_per_plane
        && (d > 1 || z > 0)
        && y.saturating_add(h) > p
    {
        return Err(err(format!(
            "rows {y}..{} do not fit a plane of {p} rows",
            y.saturating_add(h)
        )));
    }
    let len_bytes = match &s.mem {
        Mem::Host(b) => b.len() * size,
        Mem::HostMut(b) => b.len() * size,
        Mem::Device(b) => b.len() * size,
        Mem::DeviceMut(b) => b.len() * size,
        Mem::Pitched(b) => b.byte_len(),
        Mem::Array(_) => unreachable!("checked above"),
    };
    let plane_rows = if d > 1 || z > 0 { rows_per_plane } else { 0 };
    // `d` and `h` are at least 1 here (an empty copy returns before the checks).
    let last_row = z
        .checked_add(d - 1)
        .and_then(|p| p.checked_mul(plane_rows))
        .and_then(|r| r.checked_add(y.checked_add(h - 1)?));
    let end = last_row
        .and_then(|r| r.checked_mul(s.row_len * size))
        .and_then(|b| b.checked_add((x + w) * size));
    match end {
        Some(end) if end <= len_bytes => Ok(()),
        _ => Err(err(format!(
            "the block ends beyond the memory's {len_bytes} bytes (rows of {} elements, block \
             {w}×{h}×{d} at ({x}, {y}, {z}))",
            s.row_len
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(data: &[f32], row_len: usize) -> Side<'_, f32> {
        Region::host(data, row_len).0
    }

    #[test]
    fn blocks_inside_host_memory_pass() {
        let data = [0.0f32; 10 * 4];
        assert!(check(&host(&data, 10), [10, 4, 1], 4, "source").is_ok());
        let block = Region::host(&data, 10).at(6, 1).0;
        assert!(check(&block, [4, 3, 1], 4, "source").is_ok());
        let vol = Region::host(&data, 10).rows_per_plane(2).at_3d(0, 0, 1).0;
        assert!(check(&vol, [10, 2, 1], 4, "source").is_ok());
    }

    #[test]
    fn blocks_outside_are_named_with_their_numbers() {
        let data = [0.0f32; 10 * 4];
        let e = check(&Region::host(&data, 10).at(7, 0).0, [4, 1, 1], 4, "source").unwrap_err();
        assert!(
            e.to_string()
                .contains("the source: elements 7..11 do not fit a row of 10"),
            "{e}"
        );
        let e = check(&host(&data, 10), [10, 5, 1], 4, "destination").unwrap_err();
        assert!(
            e.to_string().contains("beyond the memory's 160 bytes"),
            "{e}"
        );
        let planes = Region::host(&data, 10).rows_per_plane(2).0;
        let e = check(&planes, [10, 3, 2], 4, "source").unwrap_err();
        assert!(
            e.to_string()
                .contains("rows 0..3 do not fit a plane of 2 rows"),
            "{e}"
        );
        let e = check(&host(&data, 0), [1, 1, 1], 4, "source").unwrap_err();
        assert!(e.to_string().contains("a row length of 0"), "{e}");
    }

    #[test]
    fn huge_numbers_are_errors_not_overflows() {
        let data = [0.0f32; 8];
        let far = Region::host(&data, usize::MAX)
            .at_3d(usize::MAX, usize::MAX, 1)
            .0;
        assert!(check(&far, [usize::MAX, usize::MAX, usize::MAX], 4, "source").is_err());
        let wide = Region::host(&data, 8).at_3d(0, usize::MAX, usize::MAX).0;
        assert!(check(&wide, [8, 2, 2], 4, "source").is_err());
    }
}
