//! Timing work on the device with events.

use std::time::Duration;

use cudarc::driver::sys::CUevent_flags;

use crate::device::gpu::Gpu;
use crate::error::{DriverResultExt, Error};

impl Gpu {
    /// Runs `work` between two events recorded on this handle's stream and returns its result
    /// with the device time between them (waits for the work to finish).
    ///
    /// `work` must queue on this handle's stream to be measured. Needs a driver for CUDA 12.8 or
    /// later with the default `cuda-13000` bindings.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut buf = gpu.zeros::<u8>(1 << 20)?;
    /// let ((), took) = gpu.time(|| gpu.memset(&mut buf, 1))?;
    /// println!("memset took {took:?}");
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn time<R>(&self, work: impl FnOnce() -> Result<R, Error>) -> Result<(R, Duration), Error> {
        let ctx = self.context();
        let start = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .call("cuEventCreate")?;
        let end = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .call("cuEventCreate")?;
        start.record(self.stream()).call("cuEventRecord")?;
        let out = work()?;
        end.record(self.stream()).call("cuEventRecord")?;
        end.synchronize().call("cuEventSynchronize")?;
        let ms = start.elapsed_ms(&end).call("cuEventElapsedTime")?;
        Ok((out, Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3)))
    }
}
