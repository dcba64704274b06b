//! Launch validation: every limit a configuration can break, checked before the driver sees it,
//! with errors that name the limit.
//!
//! The check is pure arithmetic over limits read once (device limits when the [`Gpu`] opens,
//! kernel attributes when its module loads), so it costs a few comparisons per launch.
//!
//! [`Gpu`]: crate::Gpu

use crate::config::LaunchConfig;
use crate::limits::DeviceLimits;

/// Largest portable cluster (more needs a non-portable opt-in the runtime does not make).
pub const MAX_PORTABLE_CLUSTER: u64 = 8;

/// A broken launch limit.
///
/// ```
/// use kernel_runtime::ConfigError;
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

/// What validation needs to know about one kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KernelLimits {
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` (includes registers and `__launch_bounds__`).
    pub max_threads: u32,
    /// `__launch_bounds__` maximum from the build, 0 when unknown.
    pub launch_bounds: u32,
    /// Static shared memory.
    pub static_shared: u32,
    /// Shape from `__cluster_dims__`.
    pub cluster_dims: Option<[u32; 3]>,
}

const GRID: [&str; 3] = ["grid.x", "grid.y", "grid.z"];
const BLOCK: [&str; 3] = ["block.x", "block.y", "block.z"];
const CLUSTER: [&str; 3] = ["cluster.x", "cluster.y", "cluster.z"];

fn dims(d: (u32, u32, u32)) -> [u32; 3] {
    [d.0, d.1, d.2]
}

/// Checks `cfg` against the kernel's and the device's limits.
pub(crate) fn validate(
    cfg: &LaunchConfig,
    k: &KernelLimits,
    dev: &DeviceLimits,
) -> Result<(), ConfigError> {
    let (grid, block) = (dims(cfg.grid), dims(cfg.block));
    let max_grid = dims(dev.max_grid_dim);
    let max_block = dims(dev.max_block_dim);
    for i in 0..3 {
        if grid[i] == 0 {
            return Err(ConfigError::ZeroDim { which: GRID[i] });
        }
        if block[i] == 0 {
            return Err(ConfigError::ZeroDim { which: BLOCK[i] });
        }
        if block[i] > max_block[i] {
            return Err(ConfigError::BlockDimTooLarge {
                which: BLOCK[i],
                requested: block[i],
                limit: max_block[i],
            });
        }
        if grid[i] > max_grid[i] {
            return Err(ConfigError::GridDimTooLarge {
                which: GRID[i],
                requested: grid[i],
                limit: max_grid[i],
            });
        }
    }
    let threads = cfg.threads_per_block();
    if threads > u64::from(dev.max_threads_per_block) {
        let by = "the device's maximum threads per block";
        return Err(ConfigError::TooManyThreads {
            requested: threads,
            limit: dev.max_threads_per_block,
            by,
        });
    }
    if k.launch_bounds != 0 && threads > u64::from(k.launch_bounds) {
        let by = "the kernel's __launch_bounds__";
        return Err(ConfigError::TooManyThreads {
            requested: threads,
            limit: k.launch_bounds,
            by,
        });
    }
    if k.max_threads != 0 && threads > u64::from(k.max_threads) {
        let by = "the kernel's limit for its register use";
        return Err(ConfigError::TooManyThreads {
            requested: threads,
            limit: k.max_threads,
            by,
        });
    }
    if u64::from(cfg.shared_mem_bytes) + u64::from(k.static_shared)
        > u64::from(dev.max_shared_per_block_optin)
    {
        return Err(ConfigError::SharedMemTooLarge {
            dynamic: cfg.shared_mem_bytes,
            static_bytes: k.static_shared,
            limit: dev.max_shared_per_block_optin,
        });
    }
    if let Some(cluster) = cfg.cluster {
        validate_cluster(cluster, grid, k, dev)?;
    }
    if cfg.cooperative && !dev.cooperative_launch {
        return Err(ConfigError::CooperativeUnsupported);
    }
    Ok(())
}

fn validate_cluster(
    cluster: (u32, u32, u32),
    grid: [u32; 3],
    k: &KernelLimits,
    dev: &DeviceLimits,
) -> Result<(), ConfigError> {
    if !dev.cluster_launch {
        return Err(ConfigError::ClusterUnsupported { arch: dev.arch() });
    }
    match k.cluster_dims {
        Some(compiled) if compiled != dims(cluster) => {
            return Err(ConfigError::ClusterConflict {
                compiled,
                requested: cluster,
            });
        }
        _ => {}
    }
    let c = dims(cluster);
    for i in 0..3 {
        if c[i] == 0 {
            return Err(ConfigError::ZeroDim { which: CLUSTER[i] });
        }
        if grid[i] % c[i] != 0 {
            return Err(ConfigError::ClusterNotDivisor {
                which: CLUSTER[i],
                cluster: c[i],
                grid: grid[i],
            });
        }
    }
    let blocks = c.iter().map(|&d| u64::from(d)).product::<u64>();
    if blocks > MAX_PORTABLE_CLUSTER {
        return Err(ConfigError::ClusterTooLarge {
            blocks,
            limit: MAX_PORTABLE_CLUSTER,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hopper() -> DeviceLimits {
        DeviceLimits {
            compute_capability: (9, 0),
            max_shared_per_block_optin: 227 * 1024,
            cluster_launch: true,
            multiprocessors: 132,
            ..DeviceLimits::default()
        }
    }

    fn kernel() -> KernelLimits {
        KernelLimits {
            max_threads: 1024,
            ..Default::default()
        }
    }

    fn check(cfg: LaunchConfig) -> Result<(), ConfigError> {
        validate(&cfg, &kernel(), &hopper())
    }

    #[test]
    fn ordinary_configs_pass() {
        assert_eq!(check(LaunchConfig::for_num_elems(1 << 20)), Ok(()));
        assert_eq!(
            check(LaunchConfig::new((65535, 65535, 65535), (1024, 1, 1))),
            Ok(())
        );
        assert_eq!(check(LaunchConfig::new(8, 128).with_cluster(2)), Ok(()));
        assert_eq!(
            check(LaunchConfig::new(1, 32).with_shared_mem(200 * 1024)),
            Ok(())
        );
    }

    #[test]
    fn zero_dims_are_named() {
        assert_eq!(
            check(LaunchConfig::new((1, 0), 32)),
            Err(ConfigError::ZeroDim { which: "grid.y" })
        );
        assert_eq!(
            check(LaunchConfig::new(1, (32, 1, 0))),
            Err(ConfigError::ZeroDim { which: "block.z" })
        );
    }

    #[test]
    fn oversized_dims_name_the_axis_and_limit() {
        let e = check(LaunchConfig::new(1, (1, 1, 65))).unwrap_err();
        assert_eq!(
            e,
            ConfigError::BlockDimTooLarge {
                which: "block.z",
                requested: 65,
                limit: 64
            }
        );
        let e = check(LaunchConfig::new((1, 70000), 32)).unwrap_err();
        assert_eq!(
            e,
            ConfigError::GridDimTooLarge {
                which: "grid.y",
                requested: 70000,
                limit: 65535
            }
        );
    }

    #[test]
    fn thread_limits_say_whose_limit() {
        let e = check(LaunchConfig::new(1, (64, 32))).unwrap_err();
        assert!(
            matches!(e, ConfigError::TooManyThreads { requested: 2048, limit: 1024, by } if by.contains("device"))
        );
        let k = KernelLimits {
            max_threads: 1024,
            launch_bounds: 128,
            ..Default::default()
        };
        let e = validate(&LaunchConfig::new(1, 256), &k, &hopper()).unwrap_err();
        assert!(
            matches!(e, ConfigError::TooManyThreads { limit: 128, by, .. } if by.contains("__launch_bounds__"))
        );
        let k = KernelLimits {
            max_threads: 640,
            ..Default::default()
        };
        let e = validate(&LaunchConfig::new(1, 768), &k, &hopper()).unwrap_err();
        assert!(
            matches!(e, ConfigError::TooManyThreads { limit: 640, by, .. } if by.contains("register"))
        );
    }

    #[test]
    fn shared_memory_counts_static_bytes() {
        let k = KernelLimits {
            max_threads: 1024,
            static_shared: 4096,
            ..Default::default()
        };
        let cfg = LaunchConfig::new(1, 32).with_shared_mem(227 * 1024 - 4096);
        assert_eq!(validate(&cfg, &k, &hopper()), Ok(()));
        let e = validate(&cfg.with_shared_mem(227 * 1024), &k, &hopper()).unwrap_err();
        assert!(matches!(
            e,
            ConfigError::SharedMemTooLarge {
                static_bytes: 4096,
                ..
            }
        ));
    }

    #[test]
    fn cluster_rules() {
        let old = DeviceLimits::default();
        let e = validate(&LaunchConfig::new(8, 32).with_cluster(2), &kernel(), &old).unwrap_err();
        assert_eq!(
            e,
            ConfigError::ClusterUnsupported {
                arch: "sm_75".into()
            }
        );
        let e = check(LaunchConfig::new(9, 32).with_cluster(2)).unwrap_err();
        assert_eq!(
            e,
            ConfigError::ClusterNotDivisor {
                which: "cluster.x",
                cluster: 2,
                grid: 9
            }
        );
        let e = check(LaunchConfig::new(16, 32).with_cluster(16)).unwrap_err();
        assert_eq!(
            e,
            ConfigError::ClusterTooLarge {
                blocks: 16,
                limit: 8
            }
        );
        let k = KernelLimits {
            cluster_dims: Some([4, 1, 1]),
            ..kernel()
        };
        let e = validate(&LaunchConfig::new(8, 32).with_cluster(2), &k, &hopper()).unwrap_err();
        assert!(matches!(
            e,
            ConfigError::ClusterConflict {
                compiled: [4, 1, 1],
                ..
            }
        ));
    }

    #[test]
    fn cooperative_needs_support() {
        let dev = DeviceLimits {
            cooperative_launch: false,
            ..hopper()
        };
        let cfg = LaunchConfig::new(1, 32).with_cooperative(true);
        assert_eq!(
            validate(&cfg, &kernel(), &dev),
            Err(ConfigError::CooperativeUnsupported)
        );
    }
}
