//! Peer access between GPUs: whether one device can reach another's memory, enabling it, and
//! copies between buffers of two devices (`cuMemcpyPeerAsync`).
//!
//! With peer access enabled, a peer copy moves data over NVLink or PCIe directly; without it,
//! the driver stages the copy through host memory. Kernels may also dereference a peer's
//! buffers once access is enabled (unified addressing).

use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaStream, DeviceRepr, DriverError};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::memory::buffers::same_len;
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};

/// Makes `waiter` wait for the work queued so far on `on` (nothing when they are one stream).
pub(crate) fn join(waiter: &Arc<CudaStream>, on: &Arc<CudaStream>) -> Result<(), Error> {
    if Arc::ptr_eq(waiter, on) {
        return Ok(());
    }
    let event = on.record_event(None).call("cuEventRecord")?;
    waiter.wait(&event).call("cuStreamWaitEvent")
}

impl Gpu {
    /// Whether this device can access `peer`'s memory directly.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::Gpu;
    /// let (a, b) = (Gpu::new(0)?, Gpu::new(1)?);
    /// println!("0 → 1 direct: {}", a.can_access_peer(&b)?);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn can_access_peer(&self, peer: &Gpu) -> Result<bool, Error> {
        if peer.ordinal() == self.ordinal() {
            return Ok(true);
        }
        // SAFETY: ordinals of open devices.
        let can = unsafe {
            driver::device::can_access_peer(self.ordinal() as i32, peer.ordinal() as i32)
        }
        .call("cuDeviceCanAccessPeer")?;
        Ok(can != 0)
    }

    /// Lets this device's context access `peer`'s memory (one direction; call it on both for
    /// both): peer access between the contexts, and access to the peer's memory pool, which
    /// the buffers of [`Gpu::zeros`] and [`Gpu::upload`] come from (stream-ordered
    /// allocations are reachable from another device only once their pool grants it).
    /// Enabling twice is not an error.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::Gpu;
    /// let (a, b) = (Gpu::new(0)?, Gpu::new(1)?);
    /// if a.can_access_peer(&b)? {
    ///     a.enable_peer_access(&b)?;
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the devices cannot access each other; a driver error
    /// otherwise.
    pub fn enable_peer_access(&self, peer: &Gpu) -> Result<(), Error> {
        if peer.ordinal() == self.ordinal() {
            return Ok(());
        }
        if !self.can_access_peer(peer)? {
            return Err(self.unsupported(
                "peer access",
                &format!(
                    "no direct path to device {} ({})",
                    peer.ordinal(),
                    peer.name()
                ),
            ));
        }
        self.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the peer's live context; flags must be 0.
        match unsafe { driver::device::enable_peer_access(peer.context().cu_ctx(), 0) } {
            Ok(()) | Err(DriverError(sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)) => {}
            Err(other) => return Err(other).call("cuCtxEnablePeerAccess"),
        }
        // SAFETY: the peer's ordinal.
        let pool = unsafe { driver::device::get_mem_pool(peer.ordinal() as i32) }
            .call("cuDeviceGetMemPool")?;
        let access = sys::CUmemAccessDesc {
            location: sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: self.ordinal() as i32,
            },
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        // SAFETY: the peer's live pool and one access descriptor.
        unsafe { driver::memory::pool_set_access(pool, std::slice::from_ref(&access)) }
            .call("cuMemPoolSetAccess")
    }

    /// Queues a copy of `src` (a buffer on any device) into `dst` (a buffer of this handle's
    /// device) on this handle's stream, and returns at once. The copy waits for the work
    /// queued on both buffers' streams (an allocation or a kernel on the other device), and
    /// their streams wait for the copy before anything queued on them later.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::Gpu;
    /// let (a, b) = (Gpu::new(0)?, Gpu::new(1)?);
    /// let src = a.upload(&[1.0f32; 1024])?;
    /// let mut dst = b.zeros::<f32>(1024)?;
    /// b.copy_peer_async(&src, &mut dst)?;
    /// assert_eq!(b.download(&dst)?, vec![1.0; 1024]);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn copy_peer_async<
        T: DeviceRepr,
        S: DeviceMemory<T> + ?Sized,
        D: DeviceMemoryMut<T> + ?Sized,
    >(
        &self,
        src: &S,
        dst: &mut D,
    ) -> Result<(), Error> {
        same_len("copy_peer", src.len(), dst.len())?;
        let bytes = src.len() * std::mem::size_of::<T>();
        let stream = self.stream();
        // cudarc's buffers' own streams (on other devices) may still be allocating or
        // writing them: the copy waits for both, and both wait for the copy before their next
        // use. The runtime's buffers record the copy as a use instead.
        let (src_stream, dst_stream) = (src.own_stream().cloned(), dst.own_stream().cloned());
        for own in [&src_stream, &dst_stream].into_iter().flatten() {
            join(stream, own)?;
        }
        let (src_ctx, dst_ctx) = (src.context().cu_ctx(), dst.context().cu_ctx());
        self.context().bind_to_thread().call("cuCtxSetCurrent")?;
        if bytes > 0 {
            let s = src.prepare_read(stream)?;
            let d = dst.prepare_write(stream)?;
            // SAFETY: both ranges hold `bytes` bytes and stay borrowed until their uses are
            // recorded.
            unsafe {
                driver::memory::memcpy_peer_async(
                    dst_ctx,
                    d.addr(),
                    src_ctx,
                    s.addr(),
                    bytes,
                    stream.cu_stream(),
                )
            }
            .call("cuMemcpyPeerAsync")?;
            d.finish(stream)?;
            s.finish(stream)?;
        }
        for own in [&src_stream, &dst_stream].into_iter().flatten() {
            join(own, stream)?;
        }
        Ok(())
    }

    /// [`Gpu::copy_peer_async`], then waits for the copy.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::Gpu;
    /// let (a, b) = (Gpu::new(0)?, Gpu::new(1)?);
    /// let src = a.upload(&[3u32; 16])?;
    /// let mut dst = b.zeros::<u32>(16)?;
    /// b.copy_peer(&src, &mut dst)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn copy_peer<T: DeviceRepr, S: DeviceMemory<T> + ?Sized, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        src: &S,
        dst: &mut D,
    ) -> Result<(), Error> {
        self.copy_peer_async(src, dst)?;
        self.stream().synchronize().call("cuStreamSynchronize")
    }
}
