//! The limits of a plain launch folded into one bound per quantity, computed when a kernel is
//! resolved, so that the common launch (no attributes) is admitted in a handful of comparisons.
//!
//! [`PlainLimits::admits`] accepts exactly the plain configurations that [`validate`] accepts;
//! anything it turns away goes through [`validate`], which finds the limit to name (or accepts
//! a launch with attributes). The unit tests hold the two to that on random configurations.
//!
//! [`validate`]: super::validate

use crate::device::limits::DeviceLimits;
use crate::launch::config::Launch;

use super::KernelLimits;

/// One bound per quantity for a launch without attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PlainLimits {
    grid: [u32; 3],
    block: [u32; 3],
    /// The least of the device's, `__launch_bounds__` and the register limit.
    threads: u64,
    /// Dynamic shared memory the block may ask for (the opt-in limit less the static shared
    /// memory; negative when the static alone is over).
    dynamic_shared: i64,
}

impl PlainLimits {
    /// The bounds of kernel `k` on device `dev`.
    pub(crate) fn new(k: &KernelLimits, dev: &DeviceLimits) -> Self {
        let bound = |limit: u32| {
            if limit == 0 {
                u64::MAX
            } else {
                u64::from(limit)
            }
        };
        PlainLimits {
            grid: [dev.max_grid_dim.0, dev.max_grid_dim.1, dev.max_grid_dim.2],
            block: [
                dev.max_block_dim.0,
                dev.max_block_dim.1,
                dev.max_block_dim.2,
            ],
            threads: u64::from(dev.max_threads_per_block)
                .min(bound(k.launch_bounds))
                .min(bound(k.max_threads)),
            dynamic_shared: i64::from(dev.max_shared_per_block_optin) - i64::from(k.static_shared),
        }
    }

    /// Whether `cfg` is a plain launch within every limit. Branch-free over the dimensions:
    /// `d - 1 < max` holds for `1 ..= max` alone.
    #[inline]
    pub(crate) fn admits(&self, cfg: &Launch) -> bool {
        let within = |d: u32, max: u32| d.wrapping_sub(1) < max;
        let dims = within(cfg.grid.0, self.grid[0])
            & within(cfg.grid.1, self.grid[1])
            & within(cfg.grid.2, self.grid[2])
            & within(cfg.block.0, self.block[0])
            & within(cfg.block.1, self.block[1])
            & within(cfg.block.2, self.block[2]);
        dims & (cfg.threads_per_block() <= self.threads)
            & (i64::from(cfg.shared_mem_bytes) <= self.dynamic_shared)
            & !cfg.needs_ex()
    }
}

#[cfg(test)]
mod tests {
    use super::super::validate;
    use super::*;

    /// Mostly near the interesting edges: 0, 1, the limit and just over it.
    fn around(rng: &mut fastrand::Rng, limit: u32) -> u32 {
        match rng.u8(0..6) {
            0 => 0,
            1 => 1,
            2 => limit,
            3 => limit.saturating_add(1),
            4 => rng.u32(0..=limit.saturating_add(1)),
            _ => rng.u32(0..64),
        }
    }

    fn devices() -> Vec<DeviceLimits> {
        let hopper = DeviceLimits {
            compute_capability: (9, 0),
            max_threads_per_block: 1024,
            max_block_dim: (1024, 1024, 64),
            max_grid_dim: (i32::MAX as u32, 65535, 65535),
            max_shared_per_block_optin: 227 * 1024,
            cooperative_launch: true,
            cluster_launch: true,
            multiprocessors: 132,
            ..DeviceLimits::default()
        };
        let small = DeviceLimits {
            max_threads_per_block: 512,
            max_block_dim: (512, 512, 64),
            max_grid_dim: (65535, 65535, 1),
            max_shared_per_block_optin: 48 * 1024,
            ..hopper
        };
        vec![hopper, small]
    }

    fn kernels() -> Vec<KernelLimits> {
        vec![
            KernelLimits::default(),
            KernelLimits {
                max_threads: 1024,
                ..Default::default()
            },
            KernelLimits {
                max_threads: 768,
                launch_bounds: 256,
                static_shared: 16 * 1024,
                cluster_dims: None,
            },
            KernelLimits {
                max_threads: 128,
                launch_bounds: 512,
                static_shared: 300 * 1024,
                cluster_dims: None,
            },
        ]
    }

    #[test]
    fn admits_exactly_the_plain_launches_validation_accepts() {
        // Seeded, so that a failure reproduces.
        let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
        let (mut admitted, mut turned_away) = (0, 0);
        for dev in devices() {
            for k in kernels() {
                let plain = PlainLimits::new(&k, &dev);
                for _ in 0..20_000 {
                    let cfg = Launch {
                        grid: (
                            around(&mut rng, dev.max_grid_dim.0),
                            around(&mut rng, dev.max_grid_dim.1),
                            around(&mut rng, dev.max_grid_dim.2),
                        ),
                        block: (
                            around(&mut rng, dev.max_block_dim.0),
                            around(&mut rng, dev.max_block_dim.1),
                            around(&mut rng, dev.max_block_dim.2),
                        ),
                        shared_mem_bytes: around(&mut rng, dev.max_shared_per_block_optin),
                        ..Launch::new(1, 1)
                    };
                    let valid = validate(&cfg, &k, &dev).is_ok();
                    assert_eq!(plain.admits(&cfg), valid, "{cfg:?} on {k:?}");
                    if valid {
                        admitted += 1;
                    } else {
                        turned_away += 1;
                    }
                }
            }
        }
        // Both sides were exercised, so the equality above says something.
        assert!(
            admitted > 1000 && turned_away > 1000,
            "{admitted} / {turned_away}"
        );
    }

    #[test]
    fn launches_with_attributes_go_to_validation() {
        let dev = devices()[0];
        let plain = PlainLimits::new(&KernelLimits::default(), &dev);
        let base = Launch::new(8, 128);
        assert!(plain.admits(&base));
        for cfg in [
            base.with_cluster(2),
            Launch {
                cooperative: true,
                ..base
            },
            Launch {
                programmatic: true,
                ..base
            },
            Launch {
                priority: Some(0),
                ..base
            },
        ] {
            assert!(!plain.admits(&cfg), "{cfg:?}");
        }
    }
}
