//! [`Launch`]: grid, block, dynamic shared memory, cluster shape, cooperative launch, and the
//! launch attributes of current GPUs (programmatic dependent launch, within a stream or across
//! streams through a programmatic event, the launch completion event, priority, preferred
//! cluster shape, memory synchronization domain).

use crate::launch::event::{EventKey, LaunchEvent};

/// How a kernel is launched.
///
/// ```
/// use cuda_kernel_runtime::Launch;
/// let cfg = Launch::new((64, 2), 256).with_shared_mem(4096);
/// assert_eq!(cfg.grid, (64, 2, 1));
/// assert_eq!(cfg.threads_per_block(), 256);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Launch {
    /// Blocks in the grid `(x, y, z)`.
    pub grid: (u32, u32, u32),
    /// Threads in a block `(x, y, z)`.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes (`extern __shared__`).
    pub shared_mem_bytes: u32,
    /// Thread-block cluster shape (compute capability 9.0 and later); `None` for none, or for the
    /// shape the kernel was compiled with (`__cluster_dims__`).
    pub cluster: Option<(u32, u32, u32)>,
    /// Launch cooperatively (grid-wide synchronization with `cooperative_groups::this_grid()`).
    pub cooperative: bool,
    /// Programmatic dependent launch (compute capability 9.0 and later): this kernel may start
    /// while the previous kernel of its stream is still running, once every block of that one
    /// has called `cudaTriggerProgrammaticLaunchCompletion()` (or exited); it must call
    /// `cudaGridDependencySynchronize()` before reading what that kernel wrote.
    pub programmatic: bool,
    /// Scheduling priority of this launch, in the device's range
    /// ([`DeviceLimits::stream_priorities`](crate::DeviceLimits::stream_priorities): lower
    /// numbers are higher priorities); `None` for the stream's own.
    pub priority: Option<i32>,
    /// Preferred cluster shape (compute capability 10.0 and later): the hardware uses it where
    /// it fits and [`cluster`](Self::cluster) elsewhere, so each dimension must be a multiple
    /// of the cluster's.
    pub preferred_cluster: Option<(u32, u32, u32)>,
    /// The memory synchronization domain of the kernel's fences; `None` for the default.
    pub mem_sync_domain: Option<MemSyncDomain>,
    /// The programmatic event this launch fires (compute capability 9.0 and later): once
    /// every block has called `cudaTriggerProgrammaticLaunchCompletion()` or exited, streams
    /// waiting on the event ([`Gpu::wait_for_event`](crate::Gpu::wait_for_event)) go on, and
    /// their next kernel reads this one's results after `cudaGridDependencySynchronize()`.
    pub programmatic_event: Option<EventKey>,
    /// With [`programmatic_event`](Self::programmatic_event): each block triggers the event
    /// as it starts, as though its first instruction were `griddepcontrol.launch_dependents`.
    pub trigger_at_block_start: bool,
    /// The event this launch fires once every one of its blocks has started (compute
    /// capability 9.0 and later).
    pub completion_event: Option<EventKey>,
}

/// Which memory synchronization domain a kernel's memory fences order (compute capability
/// 9.0 and later): kernels that only talk to each other through memory on this GPU use
/// `Default`; communication kernels (NCCL-style, ordering with other devices) use `Remote`,
/// so their fences do not wait on the compute kernels' traffic and the other way round.
///
/// ```
/// use cuda_kernel_runtime::{Launch, MemSyncDomain};
/// let cfg = Launch::new(8, 128).with_mem_sync_domain(MemSyncDomain::Remote);
/// assert_eq!(cfg.mem_sync_domain, Some(MemSyncDomain::Remote));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSyncDomain {
    /// The default domain.
    Default,
    /// The remote domain.
    Remote,
}

/// Block size [`Launch::for_num_elems`] uses.
pub const DEFAULT_BLOCK: u32 = 256;

/// Something that names a 1-, 2- or 3-dimensional extent: `u32`, `(u32, u32)`, `(u32, u32, u32)`.
///
/// ```
/// use cuda_kernel_runtime::IntoDim3;
/// assert_eq!((4u32, 2u32).into_dim3(), (4, 2, 1));
/// ```
pub trait IntoDim3 {
    /// The extent as `(x, y, z)`, missing dimensions set to 1.
    fn into_dim3(self) -> (u32, u32, u32);
}

impl IntoDim3 for u32 {
    fn into_dim3(self) -> (u32, u32, u32) {
        (self, 1, 1)
    }
}

impl IntoDim3 for (u32, u32) {
    fn into_dim3(self) -> (u32, u32, u32) {
        (self.0, self.1, 1)
    }
}

impl IntoDim3 for (u32, u32, u32) {
    fn into_dim3(self) -> (u32, u32, u32) {
        self
    }
}

impl Launch {
    /// A configuration with `grid` blocks of `block` threads, no dynamic shared memory.
    ///
    /// ```
    /// let cfg = cuda_kernel_runtime::Launch::new(10, (16, 16));
    /// assert_eq!(cfg.block, (16, 16, 1));
    /// ```
    pub fn new(grid: impl IntoDim3, block: impl IntoDim3) -> Self {
        Launch {
            grid: grid.into_dim3(),
            block: block.into_dim3(),
            shared_mem_bytes: 0,
            cluster: None,
            cooperative: false,
            programmatic: false,
            priority: None,
            preferred_cluster: None,
            mem_sync_domain: None,
            programmatic_event: None,
            trigger_at_block_start: false,
            completion_event: None,
        }
    }

    /// One thread per element: blocks of 256 threads, enough blocks to cover `n` (at least one).
    ///
    /// ```
    /// let cfg = cuda_kernel_runtime::Launch::for_num_elems(1000);
    /// assert_eq!((cfg.grid.0, cfg.block.0), (4, 256));
    /// ```
    pub const fn for_num_elems(n: u32) -> Self {
        let blocks = n.div_ceil(DEFAULT_BLOCK);
        Launch {
            grid: (if blocks == 0 { 1 } else { blocks }, 1, 1),
            block: (DEFAULT_BLOCK, 1, 1),
            shared_mem_bytes: 0,
            cluster: None,
            cooperative: false,
            programmatic: false,
            priority: None,
            preferred_cluster: None,
            mem_sync_domain: None,
            programmatic_event: None,
            trigger_at_block_start: false,
            completion_event: None,
        }
    }

    /// Sets the dynamic shared memory per block. Above 48 KiB the runtime opts the kernel in
    /// (up to the device's limit) before launching.
    ///
    /// ```
    /// let cfg = cuda_kernel_runtime::Launch::for_num_elems(64).with_shared_mem(1024);
    /// assert_eq!(cfg.shared_mem_bytes, 1024);
    /// ```
    pub const fn with_shared_mem(mut self, bytes: u32) -> Self {
        self.shared_mem_bytes = bytes;
        self
    }

    /// Sets the cluster shape (launches through `cuLaunchKernelEx`).
    ///
    /// ```
    /// let cfg = cuda_kernel_runtime::Launch::new(8, 128).with_cluster(2);
    /// assert_eq!(cfg.cluster, Some((2, 1, 1)));
    /// ```
    pub fn with_cluster(mut self, cluster: impl IntoDim3) -> Self {
        self.cluster = Some(cluster.into_dim3());
        self
    }

    /// Sets cooperative launch on or off.
    ///
    /// ```
    /// let cfg = cuda_kernel_runtime::Launch::new(8, 128).with_cooperative(true);
    /// assert!(cfg.cooperative);
    /// ```
    pub const fn with_cooperative(mut self, cooperative: bool) -> Self {
        self.cooperative = cooperative;
        self
    }

    /// Sets programmatic dependent launch on or off: the kernel may overlap the end of the
    /// previous kernel on its stream (see [`programmatic`](Self::programmatic)).
    ///
    /// ```
    /// let cfg = cuda_kernel_runtime::Launch::new(8, 128).with_programmatic(true);
    /// assert!(cfg.programmatic);
    /// ```
    pub const fn with_programmatic(mut self, programmatic: bool) -> Self {
        self.programmatic = programmatic;
        self
    }

    /// Sets the launch's scheduling priority (lower numbers are higher priorities).
    ///
    /// ```
    /// let cfg = cuda_kernel_runtime::Launch::new(8, 128).with_priority(-1);
    /// assert_eq!(cfg.priority, Some(-1));
    /// ```
    pub const fn with_priority(mut self, priority: i32) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Sets the preferred cluster shape (compute capability 10.0 and later; needs a cluster
    /// shape of which it is a multiple).
    ///
    /// ```
    /// let cfg = cuda_kernel_runtime::Launch::new(16, 128).with_cluster(2).with_preferred_cluster(4);
    /// assert_eq!(cfg.preferred_cluster, Some((4, 1, 1)));
    /// ```
    pub fn with_preferred_cluster(mut self, cluster: impl IntoDim3) -> Self {
        self.preferred_cluster = Some(cluster.into_dim3());
        self
    }

    /// Sets the memory synchronization domain.
    ///
    /// ```
    /// use cuda_kernel_runtime::{Launch, MemSyncDomain};
    /// let cfg = Launch::new(8, 128).with_mem_sync_domain(MemSyncDomain::Default);
    /// assert!(cfg.mem_sync_domain.is_some());
    /// ```
    pub const fn with_mem_sync_domain(mut self, domain: MemSyncDomain) -> Self {
        self.mem_sync_domain = Some(domain);
        self
    }

    /// Fires `event` as this launch's programmatic event: when every block has triggered its
    /// dependents (`griddepcontrol.launch_dependents`) or exited. Another stream that waits
    /// on it may then start a kernel that overlaps the end of this one.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let event = cuda_kernel_runtime::LaunchEvent::new(&gpu)?;
    /// let cfg = cuda_kernel_runtime::Launch::new(8, 128).with_programmatic_event(&event);
    /// assert_eq!(cfg.programmatic_event, Some(event.key()));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn with_programmatic_event(mut self, event: &LaunchEvent) -> Self {
        self.programmatic_event = Some(event.key());
        self
    }

    /// Sets whether each block triggers the programmatic event as it starts (see
    /// [`trigger_at_block_start`](Self::trigger_at_block_start)), for kernels that never
    /// trigger it themselves.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let event = cuda_kernel_runtime::LaunchEvent::new(&gpu)?;
    /// let cfg = cuda_kernel_runtime::Launch::new(8, 128)
    ///     .with_programmatic_event(&event)
    ///     .with_trigger_at_block_start(true);
    /// assert!(cfg.trigger_at_block_start);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub const fn with_trigger_at_block_start(mut self, at_start: bool) -> Self {
        self.trigger_at_block_start = at_start;
        self
    }

    /// Fires `event` once every block of this launch has started.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let event = cuda_kernel_runtime::LaunchEvent::new(&gpu)?;
    /// let cfg = cuda_kernel_runtime::Launch::new(8, 128).with_completion_event(&event);
    /// assert_eq!(cfg.completion_event, Some(event.key()));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn with_completion_event(mut self, event: &LaunchEvent) -> Self {
        self.completion_event = Some(event.key());
        self
    }

    /// Whether any attribute asks for `cuLaunchKernelEx` rather than `cuLaunchKernel`.
    pub(crate) const fn needs_ex(&self) -> bool {
        self.cluster.is_some()
            || self.cooperative
            || self.programmatic
            || self.priority.is_some()
            || self.preferred_cluster.is_some()
            || self.mem_sync_domain.is_some()
            || self.programmatic_event.is_some()
            || self.trigger_at_block_start
            || self.completion_event.is_some()
    }

    /// Threads in one block.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::Launch::new(1, (8, 8, 2)).threads_per_block(), 128);
    /// ```
    pub const fn threads_per_block(&self) -> u64 {
        self.block.0 as u64 * self.block.1 as u64 * self.block.2 as u64
    }

    /// Blocks in the grid.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::Launch::new((3, 2), 32).num_blocks(), 6);
    /// ```
    pub const fn num_blocks(&self) -> u64 {
        self.grid.0 as u64 * self.grid.1 as u64 * self.grid.2 as u64
    }
}

impl From<cudarc::driver::LaunchConfig> for Launch {
    /// Converts cudarc's configuration (grid, block, shared memory).
    fn from(c: cudarc::driver::LaunchConfig) -> Self {
        Launch::new(c.grid_dim, c.block_dim).with_shared_mem(c.shared_mem_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_num_elems_covers_every_element() {
        for n in [1u32, 255, 256, 257, 1 << 20, u32::MAX] {
            let c = Launch::for_num_elems(n);
            assert!(
                c.num_blocks() * c.threads_per_block() >= u64::from(n),
                "n = {n}"
            );
            assert!(
                (c.num_blocks() - 1) * c.threads_per_block() < u64::from(n),
                "n = {n}"
            );
        }
        assert_eq!(Launch::for_num_elems(0).grid, (1, 1, 1));
    }

    #[test]
    fn from_cudarc_keeps_dims() {
        let c: Launch = cudarc::driver::LaunchConfig {
            grid_dim: (3, 4, 5),
            block_dim: (32, 2, 1),
            shared_mem_bytes: 100,
        }
        .into();
        assert_eq!(
            (c.grid, c.block, c.shared_mem_bytes),
            ((3, 4, 5), (32, 2, 1), 100)
        );
    }
}
