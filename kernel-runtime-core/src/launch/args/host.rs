//! [`In`], [`Out`] and [`InOut`]: host slices passed straight to a kernel. The runtime copies
//! them to a temporary device buffer before the launch and back after it.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr, ValidAsZeroBits};

use crate::error::{DriverResultExt, Error};
use crate::launch::args::{ConstPtr, DeviceArg, MutPtr, PreparedArg};
use crate::memory::buffers::byte_len;

/// A host slice the kernel reads: copied to the device before the launch.
///
/// ```no_run
/// # use cuda_kernel_runtime::{In, Gpu};
/// let xs = vec![1.0f32; 1024];
/// let arg = In(&xs); // pass where a `const float*` is expected
/// ```
#[derive(Debug)]
pub struct In<'h, T>(pub &'h [T]);

/// A host slice the kernel writes: a zeroed device buffer is passed, then copied back after
/// the launch (which waits for the kernel).
///
/// ```no_run
/// # use cuda_kernel_runtime::Out;
/// let mut ys = vec![0.0f32; 1024];
/// let arg = Out(&mut ys); // pass where a `float*` is expected
/// ```
#[derive(Debug)]
pub struct Out<'h, T>(pub &'h mut [T]);

/// A host slice the kernel reads and writes: copied in before the launch and back after it.
///
/// ```no_run
/// # use cuda_kernel_runtime::InOut;
/// let mut ys = vec![1.0f32; 1024];
/// let arg = InOut(&mut ys);
/// ```
#[derive(Debug)]
pub struct InOut<'h, T>(pub &'h mut [T]);

/// A temporary device copy of a host slice.
pub struct PreparedHost<'a, T> {
    ptr: CUdeviceptr,
    buf: Option<CudaSlice<T>>,
    back: Option<&'a mut [T]>,
}

impl<T: DeviceRepr> PreparedHost<'_, T> {
    fn new(buf: Option<CudaSlice<T>>, stream: &Arc<CudaStream>) -> Self {
        let ptr = buf.as_ref().map_or(0, |b| b.device_ptr(stream).0);
        PreparedHost {
            ptr,
            buf,
            back: None,
        }
    }
}

impl<T: DeviceRepr> PreparedArg for PreparedHost<'_, T> {
    fn param_ptr(&self) -> *mut c_void {
        std::ptr::from_ref(&self.ptr).cast_mut().cast()
    }

    fn finish(self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        if let (Some(buf), Some(host)) = (self.buf.as_ref(), self.back) {
            // Pageable destination: the copy completes before this returns.
            stream.memcpy_dtoh(buf, host).call("cuMemcpyDtoHAsync")?;
        }
        // Dropping `buf` frees it in stream order, after the kernel.
        Ok(())
    }
}

fn upload<T: DeviceRepr>(
    host: &[T],
    stream: &Arc<CudaStream>,
) -> Result<Option<CudaSlice<T>>, Error> {
    byte_len::<T>("In/InOut argument", host.len())?;
    if host.is_empty() {
        return Ok(None);
    }
    stream.clone_htod(host).call("cuMemcpyHtoDAsync").map(Some)
}

impl<T: DeviceRepr> DeviceArg for In<'_, T> {
    type Prepared<'a>
        = PreparedHost<'a, T>
    where
        Self: 'a;

    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedHost<'a, T>, Error> {
        Ok(PreparedHost::new(upload(self.0, stream)?, stream))
    }
}

impl<T: DeviceRepr + ValidAsZeroBits> DeviceArg for Out<'_, T> {
    type Prepared<'a>
        = PreparedHost<'a, T>
    where
        Self: 'a;

    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedHost<'a, T>, Error> {
        byte_len::<T>("Out argument", self.0.len())?;
        let buf = if self.0.is_empty() {
            None
        } else {
            Some(stream.alloc_zeros(self.0.len()).call("cuMemAlloc")?)
        };
        let mut p = PreparedHost::new(buf, stream);
        p.back = Some(&mut *self.0);
        Ok(p)
    }
}

impl<T: DeviceRepr> DeviceArg for InOut<'_, T> {
    type Prepared<'a>
        = PreparedHost<'a, T>
    where
        Self: 'a;

    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedHost<'a, T>, Error> {
        let mut p = PreparedHost::new(upload(self.0, stream)?, stream);
        p.back = Some(&mut *self.0);
        Ok(p)
    }
}

impl<T: DeviceRepr> ConstPtr<T> for In<'_, T> {}
impl<T: DeviceRepr> ConstPtr<T> for InOut<'_, T> {}
impl<T: DeviceRepr> MutPtr<T> for InOut<'_, T> {}
impl<T: DeviceRepr + ValidAsZeroBits> MutPtr<T> for Out<'_, T> {}
