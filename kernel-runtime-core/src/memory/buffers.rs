//! Device memory through a [`Gpu`]: typed uploads into existing memory, downloads, fills and
//! device to device copies, on the handle's stream, and the sizes and lengths every kind
//! checks (`byte_len`, `same_len`).
//!
//! Every operation here takes any device memory ([`DeviceMemory`], [`DeviceMemoryMut`]): the
//! runtime's [`TrackedBuffer`](crate::TrackedBuffer)s (which `tracked` makes, with
//! [`Gpu::upload`] and [`Gpu::zeros`]) and their views, and cudarc's buffers and views, each
//! ordered by its own rules. Lengths are checked here, so a mismatch is an
//! [`Error::LengthMismatch`] rather than an assertion panic.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};

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
    /// Copies `host` into the existing device memory `dst` (same length).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = gpu.zeros::<u32>(4)?;
    /// gpu.upload_into(&[1, 2, 3, 4], &mut x)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn upload_into<T: DeviceRepr, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        host: &[T],
        dst: &mut D,
    ) -> Result<(), Error> {
        same_len("upload_into", host.len(), dst.len())?;
        if host.is_empty() {
            return Ok(());
        }
        let stream = self.stream();
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        let d = dst.prepare_write(stream)?;
        // SAFETY: both hold `host.len()` values; from pageable memory the call returns once
        // `host` has been read.
        unsafe { driver::memory::memcpy_htod_async(d.addr(), host, stream.cu_stream()) }
            .call("cuMemcpyHtoDAsync")?;
        d.finish(stream)
    }

    /// Copies device memory (a buffer or a view) into a new `Vec` (waits for the copy).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.upload(&[1i32, 2, 3])?;
    /// assert_eq!(gpu.download(&x)?, [1, 2, 3]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn download<T: DeviceRepr, S: DeviceMemory<T> + ?Sized>(
        &self,
        src: &S,
    ) -> Result<Vec<T>, Error> {
        let len = src.len();
        let mut host = Vec::<T>::with_capacity(len);
        // SAFETY: the Vec has room for `len` values; they are all written by the copy and the
        // copy has finished when `download_into` returns Ok (on an error it is never read).
        let dst = unsafe { std::slice::from_raw_parts_mut(host.as_mut_ptr(), len) };
        self.download_into(src, dst)?;
        // SAFETY: as above.
        unsafe { host.set_len(len) };
        Ok(host)
    }

    /// Copies device memory (a buffer or a view) into `host` (same length; waits for the
    /// copy).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.upload(&[1u8, 2])?;
    /// let mut back = [0u8; 2];
    /// gpu.download_into(&x, &mut back)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn download_into<T: DeviceRepr, S: DeviceMemory<T> + ?Sized>(
        &self,
        src: &S,
        host: &mut [T],
    ) -> Result<(), Error> {
        same_len("download_into", src.len(), host.len())?;
        if host.is_empty() {
            return Ok(());
        }
        let stream = self.stream();
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        let s = src.prepare_read(stream)?;
        // SAFETY: both hold `host.len()` values; the stream is synchronised before `host` is
        // used again.
        unsafe { driver::memory::memcpy_dtoh_async(host, s.addr(), stream.cu_stream()) }
            .call("cuMemcpyDtoHAsync")?;
        s.finish(stream)?;
        self.synchronize()
    }

    /// Sets every byte of `dst` to zero.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut x = gpu.upload(&[1u16, 2])?;
    /// gpu.memset_zeros(&mut x)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn memset_zeros<T: DeviceRepr + ValidAsZeroBits, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        dst: &mut D,
    ) -> Result<(), Error> {
        let bytes = dst.len() * std::mem::size_of::<T>();
        self.fill_bytes(dst, bytes, 0)
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
    pub fn memset<D: DeviceMemoryMut<u8> + ?Sized>(
        &self,
        dst: &mut D,
        value: u8,
    ) -> Result<(), Error> {
        let bytes = dst.len();
        self.fill_bytes(dst, bytes, value)
    }

    /// Sets the first `bytes` bytes of `dst` to `value` on this handle's stream.
    fn fill_bytes<T, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        dst: &mut D,
        bytes: usize,
        value: u8,
    ) -> Result<(), Error> {
        if bytes == 0 {
            return Ok(());
        }
        let stream = self.stream();
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        let d = dst.prepare_write(stream)?;
        // SAFETY: `d` addresses `bytes` bytes of `dst`, which stays borrowed until the write
        // is recorded.
        unsafe { driver::memory::memset_d8_async(d.addr(), value, bytes, stream.cu_stream()) }
            .call("cuMemsetD8Async")?;
        d.finish(stream)
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
    pub fn copy<T, S: DeviceMemory<T> + ?Sized, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut D,
    ) -> Result<(), Error> {
        same_len("copy", src.len(), dst.len())?;
        let bytes = src.len() * std::mem::size_of::<T>();
        if bytes == 0 {
            return Ok(());
        }
        let stream = self.stream();
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        let s = src.prepare_read(stream)?;
        let d = dst.prepare_write(stream)?;
        // SAFETY: both ranges hold `bytes` bytes and stay borrowed until the uses are
        // recorded; unified addressing lets the copy cross devices.
        unsafe { driver::memory::memcpy_dtod_async(d.addr(), s.addr(), bytes, stream.cu_stream()) }
            .call("cuMemcpyDtoDAsync")?;
        d.finish(stream)?;
        s.finish(stream)
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
