//! [`ConfigError`]: each launch limit a configuration can break, with a message that
//! names the limit.

/// A broken launch limit.
///
/// ```
/// use cuda_kernel_runtime::ConfigError;
/// let e = ConfigError::ZeroDim { which: "grid.y" };
/// assert_eq!(e.to_string(), "grid.y is 0; every grid and block dimension must be at least 1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A grid or block dimension is zero.
    #[error("{which} is 0; every grid and block dimension must be at least 1")]
    ZeroDim {
        /// `grid.x` ... `block.z`.
        which: &'static str,
    },
    /// A block dimension exceeds the device's limit for that axis.
    #[error("{which} = {requested} exceeds the device's limit of {limit}")]
    BlockDimTooLarge {
        /// `block.x`, `block.y` or `block.z`.
        which: &'static str,
        /// The value asked for.
        requested: u32,
        /// The device's limit.
        limit: u32,
    },
    /// A grid dimension exceeds the device's limit for that axis.
    #[error("{which} = {requested} exceeds the device's limit of {limit}")]
    GridDimTooLarge {
        /// `grid.x`, `grid.y` or `grid.z`.
        which: &'static str,
        /// The value asked for.
        requested: u32,
        /// The device's limit.
        limit: u32,
    },
    /// More threads per block than the kernel or the device allows.
    #[error("a block of {requested} threads exceeds {limit}, {by}")]
    TooManyThreads {
        /// Threads per block asked for.
        requested: u64,
        /// The limit.
        limit: u32,
        /// Whose limit: the device's, or the kernel's (registers, `__launch_bounds__`).
        by: &'static str,
    },
    /// More shared memory per block than the device allows.
    #[error(
        "{dynamic} bytes of dynamic shared memory plus the kernel's {static_bytes} static bytes \
         exceed the device's limit of {limit} bytes per block"
    )]
    SharedMemTooLarge {
        /// Dynamic shared memory asked for.
        dynamic: u32,
        /// The kernel's static shared memory.
        static_bytes: u32,
        /// The device's opt-in limit per block.
        limit: u32,
    },
    /// Clusters need compute capability 9.0 or later.
    #[error("thread-block clusters need compute capability 9.0 or later; this device is {arch}")]
    ClusterUnsupported {
        /// The device's architecture.
        arch: String,
    },
    /// A cluster dimension does not divide the grid dimension.
    #[error("{which} = {cluster} does not divide the grid's {grid}")]
    ClusterNotDivisor {
        /// `cluster.x`, `cluster.y` or `cluster.z`.
        which: &'static str,
        /// The cluster dimension.
        cluster: u32,
        /// The grid dimension.
        grid: u32,
    },
    /// A cluster holds more blocks than the portable limit.
    #[error("a cluster of {blocks} blocks exceeds the portable limit of {limit}")]
    ClusterTooLarge {
        /// Blocks per cluster asked for.
        blocks: u64,
        /// The limit.
        limit: u64,
    },
    /// The kernel was compiled with `__cluster_dims__` and the launch asks for another shape.
    #[error(
        "the kernel was compiled with __cluster_dims__{compiled:?}, the launch asks for {requested:?}"
    )]
    ClusterConflict {
        /// The compiled shape.
        compiled: [u32; 3],
        /// The shape asked for.
        requested: (u32, u32, u32),
    },
    /// The cluster cannot be resident with this block size and shared memory.
    #[error(
        "a cluster of {blocks} blocks cannot be resident with this block size and shared memory: \
         the driver's occupancy query (cuOccupancyMaxPotentialClusterSize) allows at most {limit}"
    )]
    ClusterExceedsOccupancy {
        /// Blocks per cluster asked for.
        blocks: u64,
        /// What the occupancy query allows.
        limit: u64,
    },
    /// Programmatic dependent launch needs compute capability 9.0.
    #[error(
        "programmatic dependent launch needs compute capability 9.0 or later; this device is {arch}"
    )]
    ProgrammaticUnsupported {
        /// The device's architecture.
        arch: String,
    },
    /// A memory synchronization domain needs compute capability 9.0.
    #[error(
        "memory synchronization domains need compute capability 9.0 or later; this device is {arch}"
    )]
    MemSyncDomainUnsupported {
        /// The device's architecture.
        arch: String,
    },
    /// A priority outside the device's range.
    #[error(
        "priority {requested} is outside the device's range: {greatest} (highest) to {least} (lowest)"
    )]
    PriorityOutOfRange {
        /// The priority asked for.
        requested: i32,
        /// The highest priority (the lowest number).
        greatest: i32,
        /// The lowest priority (the highest number).
        least: i32,
    },
    /// A preferred cluster shape needs compute capability 10.0.
    #[error(
        "a preferred cluster shape needs compute capability 10.0 or later; this device is {arch}"
    )]
    PreferredClusterUnsupported {
        /// The device's architecture.
        arch: String,
    },
    /// A preferred cluster shape without a cluster shape.
    #[error(
        "a preferred cluster shape needs a cluster shape too (`Launch::with_cluster`, or the \
         kernel's __cluster_dims__)"
    )]
    PreferredClusterWithoutCluster,
    /// A preferred cluster dimension that is not a multiple of the cluster's.
    #[error(
        "{which} = {preferred} of the preferred cluster is not a multiple of the cluster's {cluster}"
    )]
    PreferredClusterNotMultiple {
        /// `preferred_cluster.x`, `.y` or `.z`.
        which: &'static str,
        /// The preferred dimension.
        preferred: u32,
        /// The cluster dimension.
        cluster: u32,
    },
    /// Launch events need compute capability 9.0.
    #[error(
        "a programmatic or launch completion event needs compute capability 9.0 or later; this \
         device is {arch}"
    )]
    LaunchEventUnsupported {
        /// The device's architecture.
        arch: String,
    },
    /// `trigger_at_block_start` without a programmatic event to trigger.
    #[error("trigger_at_block_start is set, but the launch has no programmatic_event to trigger")]
    TriggerWithoutEvent,
    /// The launch names a [`LaunchEvent`](crate::LaunchEvent) that no longer exists.
    #[error("the LaunchEvent this launch fires was dropped before the launch")]
    EventDropped,
    /// The event belongs to another device's context than the launch or the stream.
    #[error("the LaunchEvent belongs to another device's context than the stream that uses it")]
    EventOfAnotherContext,
    /// The device cannot launch cooperatively.
    #[error("this device does not support cooperative launches")]
    CooperativeUnsupported,
    /// A cooperative grid must fit on the device at once.
    #[error(
        "a cooperative grid of {blocks} blocks exceeds {limit}, the number of blocks that fit on \
         the device at once for this block size and shared memory"
    )]
    CooperativeGridTooLarge {
        /// Blocks asked for.
        blocks: u64,
        /// Blocks that can be resident at once.
        limit: u64,
    },
}
