//! Device memory through a [`Gpu`]: typed upload, download, allocation, fills and device to
//! device copies, on the handle's stream.
//!
//! Buffers are cudarc's [`CudaSlice`]; views ([`CudaView`](cudarc::driver::CudaView),
//! [`CudaViewMut`](cudarc::driver::CudaViewMut)) work wherever a borrowed range is enough.
//! Lengths are checked here, so a mismatch is an [`Error::LengthMismatch`] rather than one of
//! cudarc's assertion panics.

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits, result};

use crate::device::gpu::Gpu;
use crate::error::{DriverResultExt, Error};

/// Checks that `len` elements of `T` fit in the address space.
pub(crate) fn byte_len<T>(what: &'static str, len: usize) -> Result<usize, Error> {
    let elem_size = std::mem::size_of::<T>();
    len.checked_mul(elem_size)
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or(Error::SizeOverflow {
            what,
            len,
            elem_size,
        })
}

/// Errors unless `src == dst`.
pub(crate) fn same_len(what: &'static str, src: usize, dst: usize) -> Result<(), Error> {
    if src == dst {
        Ok(())
    } else {
        Err(Error::LengthMismatch { what, src, dst })
    }
}

impl Gpu {
    /// Copies `host` into a new device buffer.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.upload(&[1.0f32, 2.0, 3.0])?;
    /// assert_eq!(x.len(), 3);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>, Error> {
        byte_len::<T>("upload", host.len())?;
        self.stream().clone_htod(host).call("cuMemcpyHtoDAsync")
    }

    /// Copies `host` into the existing device buffer `dst` (same length).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = gpu.zeros::<u32>(4)?;
    /// gpu.upload_into(&[1, 2, 3, 4], &mut x)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn upload_into<T: DeviceRepr, D: DevicePtrMut<T>>(
        &self,
        host: &[T],
        dst: &mut D,
    ) -> Result<(), Error> {
        same_len("upload_into", host.len(), dst.len())?;
        self.stream()
            .memcpy_htod(host, dst)
            .call("cuMemcpyHtoDAsync")
    }

    /// Copies a device buffer or view into a new `Vec` (waits for the copy).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.upload(&[1i32, 2, 3])?;
    /// assert_eq!(gpu.download(&x)?, [1, 2, 3]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn download<T: DeviceRepr, S: DevicePtr<T>>(&self, src: &S) -> Result<Vec<T>, Error> {
        let v = self.stream().clone_dtoh(src).call("cuMemcpyDtoHAsync")?;
        self.synchronize()?;
        Ok(v)
    }

    /// Copies a device buffer or view into `host` (same length; waits for the copy).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.upload(&[1u8, 2])?;
    /// let mut back = [0u8; 2];
    /// gpu.download_into(&x, &mut back)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn download_into<T: DeviceRepr, S: DevicePtr<T>>(
        &self,
        src: &S,
        host: &mut [T],
    ) -> Result<(), Error> {
        same_len("download_into", src.len(), host.len())?;
        self.stream()
            .memcpy_dtoh(src, host)
            .call("cuMemcpyDtoHAsync")?;
        self.synchronize()
    }

    /// A new device buffer of `len` zeroed elements.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let y = gpu.zeros::<f64>(1 << 20)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>, Error> {
        byte_len::<T>("zeros", len)?;
        self.stream().alloc_zeros(len).call("cuMemAlloc")
    }

    /// A new device buffer of `len` elements whose contents are unspecified.
    ///
    /// # Safety
    /// The contents must be written (by a kernel or a copy) before they are read as `T`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// // SAFETY: fully overwritten below before any read.
    /// let mut y = unsafe { gpu.alloc::<f32>(4)? };
    /// gpu.upload_into(&[0.5f32; 4], &mut y)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub unsafe fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>, Error> {
        byte_len::<T>("alloc", len)?;
        // SAFETY: the caller promises not to read before writing.
        unsafe { self.stream().alloc(len) }.call("cuMemAlloc")
    }

    /// Sets every byte of `dst` to zero.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = gpu.upload(&[1u16, 2])?;
    /// gpu.memset_zeros(&mut x)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn memset_zeros<T: DeviceRepr + ValidAsZeroBits, D: DevicePtrMut<T>>(
        &self,
        dst: &mut D,
    ) -> Result<(), Error> {
        self.stream().memset_zeros(dst).call("cuMemsetD8Async")
    }

    /// Sets every byte of a buffer of bytes to `value`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = gpu.zeros::<u8>(16)?;
    /// gpu.memset(&mut x, 0xff)?;
    /// assert_eq!(gpu.download(&x)?, [0xff; 16]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn memset<D: DevicePtrMut<u8>>(&self, dst: &mut D, value: u8) -> Result<(), Error> {
        let stream = self.stream();
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        let n = dst.num_bytes();
        let (ptr, _record) = dst.device_ptr_mut(stream);
        // SAFETY: `ptr` addresses `n` bytes owned by `dst`, which stays borrowed until `_record`
        // drops after the call is queued.
        unsafe { result::memset_d8_async(ptr, value, n, stream.cu_stream()) }
            .call("cuMemsetD8Async")
    }

    /// Copies device memory to device memory (same length; may cross devices).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let a = gpu.upload(&[1u32, 2, 3])?;
    /// let mut b = gpu.zeros::<u32>(3)?;
    /// gpu.copy(&a, &mut b)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn copy<T, S: DevicePtr<T>, D: DevicePtrMut<T>>(
        &self,
        src: &S,
        dst: &mut D,
    ) -> Result<(), Error> {
        same_len("copy", src.len(), dst.len())?;
        self.stream()
            .memcpy_dtod(src, dst)
            .call("cuMemcpyDtoDAsync")
    }

    /// A new device buffer holding a copy of `src`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let a = gpu.upload(&[1u32, 2, 3])?;
    /// let b = gpu.duplicate(&a)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn duplicate<T: DeviceRepr, S: DevicePtr<T>>(
        &self,
        src: &S,
    ) -> Result<CudaSlice<T>, Error> {
        self.stream().clone_dtod(src).call("cuMemcpyDtoDAsync")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_is_an_error() {
        assert!(matches!(
            byte_len::<u64>("zeros", usize::MAX / 4),
            Err(Error::SizeOverflow { .. })
        ));
        assert_eq!(byte_len::<u64>("zeros", 3).ok(), Some(24));
    }

    #[test]
    fn lengths_must_match() {
        assert!(same_len("copy", 3, 3).is_ok());
        let e = same_len("copy", 3, 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "copy: source has 3 element(s), destination has 4"
        );
    }
}
