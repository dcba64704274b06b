//! Launch validation: every limit a configuration can break, checked before the driver sees it,
//! with errors that name the limit.
//!
//! The check is pure arithmetic over limits read once (device limits when the [`Gpu`] opens,
//! kernel attributes when its module loads), so it costs a few comparisons per launch.
//!
//! [`Gpu`]: crate::Gpu

mod cluster;
mod plain;
#[cfg(test)]
mod tests;

pub(crate) use plain::PlainLimits;

use crate::device::limits::DeviceLimits;
use crate::error::ConfigError;
use crate::launch::config::Launch;
use cluster::validate_cluster;

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

/// A dimension triple as an array, to index by axis.
fn dims(d: (u32, u32, u32)) -> [u32; 3] {
    [d.0, d.1, d.2]
}

/// Checks `cfg` against the kernel's and the device's limits.
pub(crate) fn validate(
    cfg: &Launch,
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
    if cfg.needs_ex() {
        validate_attributes(cfg, k, dev)?;
    }
    Ok(())
}

/// The attributes of current GPUs: programmatic dependent launch, memory synchronization
/// domain, launch events, priority, preferred cluster shape.
fn validate_attributes(
    cfg: &Launch,
    k: &KernelLimits,
    dev: &DeviceLimits,
) -> Result<(), ConfigError> {
    let major = dev.compute_capability.0;
    if cfg.programmatic && major < 9 {
        return Err(ConfigError::ProgrammaticUnsupported { arch: dev.arch() });
    }
    if cfg.mem_sync_domain.is_some() && major < 9 {
        return Err(ConfigError::MemSyncDomainUnsupported { arch: dev.arch() });
    }
    if cfg.trigger_at_block_start && cfg.programmatic_event.is_none() {
        return Err(ConfigError::TriggerWithoutEvent);
    }
    if (cfg.programmatic_event.is_some() || cfg.completion_event.is_some()) && major < 9 {
        return Err(ConfigError::LaunchEventUnsupported { arch: dev.arch() });
    }
    if let Some(p) = cfg.priority {
        let (least, greatest) = dev.stream_priorities;
        if p < greatest || p > least {
            return Err(ConfigError::PriorityOutOfRange {
                requested: p,
                greatest,
                least,
            });
        }
    }
    if let Some(preferred) = cfg.preferred_cluster {
        if major < 10 {
            return Err(ConfigError::PreferredClusterUnsupported { arch: dev.arch() });
        }
        let cluster = cfg
            .cluster
            .map(dims)
            .or(k.cluster_dims)
            .ok_or(ConfigError::PreferredClusterWithoutCluster)?;
        let p = dims(preferred);
        const PREFERRED: [&str; 3] = [
            "preferred_cluster.x",
            "preferred_cluster.y",
            "preferred_cluster.z",
        ];
        for i in 0..3 {
            if p[i] == 0 {
                return Err(ConfigError::ZeroDim {
                    which: PREFERRED[i],
                });
            }
            if !p[i].is_multiple_of(cluster[i].max(1)) {
                return Err(ConfigError::PreferredClusterNotMultiple {
                    which: PREFERRED[i],
                    preferred: p[i],
                    cluster: cluster[i],
                });
            }
        }
    }
    Ok(())
}
