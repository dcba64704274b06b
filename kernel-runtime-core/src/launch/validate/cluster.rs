//! Thread-block cluster checks: device support, the compiled `__cluster_dims__`,
//! divisibility of the grid and the portable cluster size.

use super::{ConfigError, KernelLimits, dims};
use crate::device::limits::DeviceLimits;

/// Largest portable cluster (more needs a non-portable opt-in the runtime does not make).
pub const MAX_PORTABLE_CLUSTER: u64 = 8;

const CLUSTER: [&str; 3] = ["cluster.x", "cluster.y", "cluster.z"];

/// Checks a cluster shape against the grid, the kernel and the device.
pub(super) fn validate_cluster(
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
        if !grid[i].is_multiple_of(c[i]) {
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
