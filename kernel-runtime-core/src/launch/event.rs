//! [`LaunchEvent`]: an event a kernel launch fires from the device, and [`EventKey`], the
//! copyable name a [`Launch`](crate::Launch) keeps of it.
//!
//! `cuLaunchKernelEx` takes two such events on compute capability 9.0 and later:
//!
//! - the **programmatic event** (`CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT`) fires once every
//!   block of the kernel has called `cudaTriggerProgrammaticLaunchCompletion()`
//!   (`griddepcontrol.launch_dependents`) or exited. A stream that waits on it
//!   ([`Gpu::wait_for_event`](crate::Gpu::wait_for_event)) may start its next kernel then,
//!   which must call `cudaGridDependencySynchronize()` (`griddepcontrol.wait`) before it reads
//!   what the first kernel wrote: programmatic dependent launch across streams;
//! - the **launch completion event** (`CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT`) fires once
//!   every block of the kernel has started.
//!
//! A `Launch` is `Copy`, so it cannot own the event: it holds an [`EventKey`], and the launch
//! looks the event up in a registry of live events. A key whose event was dropped, or that
//! belongs to another context, is an error before the launch, never a dangling handle given
//! to the driver.

use std::collections::BTreeMap;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use cudarc::driver::{CudaContext, CudaEvent, sys};

use crate::device::gpu::Gpu;
use crate::error::ConfigError;
use crate::error::{DriverResultExt, Error};

/// An event for a launch to fire from the device: the programmatic event of
/// [`Launch::with_programmatic_event`](crate::Launch::with_programmatic_event) or the
/// completion event of [`Launch::with_completion_event`](crate::Launch::with_completion_event).
/// Created without timing, as the driver requires for both.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, Launch, LaunchEvent};
/// let gpu = Gpu::new(0)?;
/// let ready = LaunchEvent::new(&gpu)?;
/// let first = Launch::for_num_elems(1 << 20).with_programmatic_event(&ready);
/// // ... launch a kernel with `first` on gpu's stream, then on another stream:
/// let side = gpu.with_stream(&gpu.new_stream()?);
/// side.wait_for_event(&ready)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Debug)]
pub struct LaunchEvent {
    key: EventKey,
    event: Arc<CudaEvent>,
}

/// The name a [`Launch`](crate::Launch) keeps of a [`LaunchEvent`]: copyable, and checked
/// against the live events when the launch happens.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let event = cuda_kernel_runtime::LaunchEvent::new(&gpu)?;
/// let cfg = cuda_kernel_runtime::Launch::new(4, 128).with_completion_event(&event);
/// assert_eq!(cfg.completion_event, Some(event.key()));
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKey(NonZeroU64);

#[cfg(test)]
impl EventKey {
    /// A key no live event has, for validation tests without a GPU.
    pub(crate) fn unregistered() -> EventKey {
        EventKey(NonZeroU64::MAX)
    }
}

/// Live events by key. An entry is removed when its `LaunchEvent` drops; a launch holds a
/// strong reference for the duration of `cuLaunchKernelEx`.
static LIVE: Mutex<BTreeMap<EventKey, Weak<CudaEvent>>> = Mutex::new(BTreeMap::new());
static NEXT: AtomicU64 = AtomicU64::new(1);

impl LaunchEvent {
    /// A new event in `gpu`'s context (`cuEventCreate` with `CU_EVENT_DISABLE_TIMING`).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let event = cuda_kernel_runtime::LaunchEvent::new(&gpu)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When the driver cannot create the event.
    pub fn new(gpu: &Gpu) -> Result<LaunchEvent, Error> {
        let event = gpu
            .context()
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .call("cuEventCreate")?;
        let event = Arc::new(event);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let key = EventKey(NonZeroU64::new(id).unwrap_or(NonZeroU64::MIN));
        registry().insert(key, Arc::downgrade(&event));
        Ok(LaunchEvent { key, event })
    }

    /// The key a [`Launch`](crate::Launch) keeps of this event.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let (a, b) = (cuda_kernel_runtime::LaunchEvent::new(&gpu)?, cuda_kernel_runtime::LaunchEvent::new(&gpu)?);
    /// assert_ne!(a.key(), b.key());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn key(&self) -> EventKey {
        self.key
    }

    /// cudarc's event, for its own calls (`CudaStream::wait`, `CudaEvent::synchronize`).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let event = cuda_kernel_runtime::LaunchEvent::new(&gpu)?;
    /// gpu.stream().wait(event.cuda_event()).unwrap();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn cuda_event(&self) -> &CudaEvent {
        &self.event
    }
}

impl Drop for LaunchEvent {
    fn drop(&mut self) {
        registry().remove(&self.key);
    }
}

impl Gpu {
    /// Makes this handle's stream wait, on the device, until `event` fires: for a programmatic
    /// event, until every block of the kernel that fires it has triggered its dependents; for a
    /// completion event, until every block has started. The host does not wait.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let event = cuda_kernel_runtime::LaunchEvent::new(&gpu)?;
    /// let side = gpu.with_stream(&gpu.new_stream()?);
    /// side.wait_for_event(&event)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When `event` belongs to another device's context, or the driver refuses the wait.
    pub fn wait_for_event(&self, event: &LaunchEvent) -> Result<(), Error> {
        if !same_context(event.event.context(), self.context()) {
            return Err(Error::ForeignContext {
                what: "the LaunchEvent",
                user: "stream that waits on it",
            });
        }
        self.stream().wait(&event.event).call("cuStreamWaitEvent")
    }
}

/// The live event of `key` in context `ctx`, held for the duration of a launch.
pub(crate) fn live_event(
    key: EventKey,
    ctx: &Arc<CudaContext>,
) -> Result<Arc<CudaEvent>, ConfigError> {
    let event = registry()
        .get(&key)
        .and_then(Weak::upgrade)
        .ok_or(ConfigError::EventDropped)?;
    if !same_context(event.context(), ctx) {
        return Err(ConfigError::EventOfAnotherContext);
    }
    Ok(event)
}

fn same_context(a: &Arc<CudaContext>, b: &Arc<CudaContext>) -> bool {
    a.cu_ctx() == b.cu_ctx()
}

/// The registry, even after a thread panicked holding it (a map of weak references cannot
/// be left half-updated in a way that matters).
fn registry() -> std::sync::MutexGuard<'static, BTreeMap<EventKey, Weak<CudaEvent>>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
