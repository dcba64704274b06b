//! Unit tests of launch validation: one per limit, each naming what it reports.

use super::*;
use crate::launch::config::MemSyncDomain;

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

fn check(cfg: Launch) -> Result<(), ConfigError> {
    validate(&cfg, &kernel(), &hopper())
}

#[test]
fn ordinary_configs_pass() {
    assert_eq!(check(Launch::for_num_elems(1 << 20)), Ok(()));
    assert_eq!(
        check(Launch::new((65535, 65535, 65535), (1024, 1, 1))),
        Ok(())
    );
    assert_eq!(check(Launch::new(8, 128).with_cluster(2)), Ok(()));
    assert_eq!(
        check(Launch::new(1, 32).with_shared_mem(200 * 1024)),
        Ok(())
    );
}

#[test]
fn zero_dims_are_named() {
    assert_eq!(
        check(Launch::new((1, 0), 32)),
        Err(ConfigError::ZeroDim { which: "grid.y" })
    );
    assert_eq!(
        check(Launch::new(1, (32, 1, 0))),
        Err(ConfigError::ZeroDim { which: "block.z" })
    );
}

#[test]
fn oversized_dims_name_the_axis_and_limit() {
    let e = check(Launch::new(1, (1, 1, 65))).unwrap_err();
    assert_eq!(
        e,
        ConfigError::BlockDimTooLarge {
            which: "block.z",
            requested: 65,
            limit: 64
        }
    );
    let e = check(Launch::new((1, 70000), 32)).unwrap_err();
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
    let e = check(Launch::new(1, (64, 32))).unwrap_err();
    assert!(
        matches!(e, ConfigError::TooManyThreads { requested: 2048, limit: 1024, by } if by.contains("device"))
    );
    let k = KernelLimits {
        max_threads: 1024,
        launch_bounds: 128,
        ..Default::default()
    };
    let e = validate(&Launch::new(1, 256), &k, &hopper()).unwrap_err();
    assert!(
        matches!(e, ConfigError::TooManyThreads { limit: 128, by, .. } if by.contains("__launch_bounds__"))
    );
    let k = KernelLimits {
        max_threads: 640,
        ..Default::default()
    };
    let e = validate(&Launch::new(1, 768), &k, &hopper()).unwrap_err();
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
    let cfg = Launch::new(1, 32).with_shared_mem(227 * 1024 - 4096);
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
    let e = validate(&Launch::new(8, 32).with_cluster(2), &kernel(), &old).unwrap_err();
    assert_eq!(
        e,
        ConfigError::ClusterUnsupported {
            arch: "sm_75".into()
        }
    );
    let e = check(Launch::new(9, 32).with_cluster(2)).unwrap_err();
    assert_eq!(
        e,
        ConfigError::ClusterNotDivisor {
            which: "cluster.x",
            cluster: 2,
            grid: 9
        }
    );
    let e = check(Launch::new(16, 32).with_cluster(16)).unwrap_err();
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
    let e = validate(&Launch::new(8, 32).with_cluster(2), &k, &hopper()).unwrap_err();
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
    let cfg = Launch::new(1, 32).with_cooperative(true);
    assert_eq!(
        validate(&cfg, &kernel(), &dev),
        Err(ConfigError::CooperativeUnsupported)
    );
}

#[test]
fn launch_attributes_of_current_gpus_are_checked_against_the_device() {
    let ampere = DeviceLimits {
        compute_capability: (8, 0),
        ..DeviceLimits::default()
    };
    let pdl = Launch::new(8, 128).with_programmatic(true);
    assert_eq!(check(pdl), Ok(()));
    let err = validate(&pdl, &kernel(), &ampere).unwrap_err();
    assert_eq!(
        err.to_string(),
        "programmatic dependent launch needs compute capability 9.0 or later; this device is sm_80"
    );
    let remote = Launch::new(8, 128).with_mem_sync_domain(MemSyncDomain::Remote);
    assert_eq!(check(remote), Ok(()));
    assert!(matches!(
        validate(&remote, &kernel(), &ampere),
        Err(ConfigError::MemSyncDomainUnsupported { .. })
    ));
    // Priorities: (least, greatest) = (0, -5).
    assert_eq!(check(Launch::new(8, 128).with_priority(-5)), Ok(()));
    let err = check(Launch::new(8, 128).with_priority(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "priority 1 is outside the device's range: -5 (highest) to 0 (lowest)"
    );
    assert!(check(Launch::new(8, 128).with_priority(-6)).is_err());
}

#[test]
fn a_preferred_cluster_needs_blackwell_a_cluster_and_a_multiple_of_it() {
    let blackwell = DeviceLimits {
        compute_capability: (10, 0),
        ..hopper()
    };
    let ok = Launch::new(16, 128)
        .with_cluster(2)
        .with_preferred_cluster(4);
    assert_eq!(validate(&ok, &kernel(), &blackwell), Ok(()));
    assert!(matches!(
        check(ok),
        Err(ConfigError::PreferredClusterUnsupported { .. })
    ));
    let alone = Launch::new(16, 128).with_preferred_cluster(4);
    assert_eq!(
        validate(&alone, &kernel(), &blackwell),
        Err(ConfigError::PreferredClusterWithoutCluster)
    );
    // The kernel's __cluster_dims__ count as its cluster shape.
    let compiled = KernelLimits {
        cluster_dims: Some([2, 1, 1]),
        ..kernel()
    };
    assert_eq!(validate(&alone, &compiled, &blackwell), Ok(()));
    let odd = Launch::new(16, 128)
        .with_cluster(2)
        .with_preferred_cluster(3);
    let err = validate(&odd, &kernel(), &blackwell).unwrap_err();
    assert_eq!(
        err.to_string(),
        "preferred_cluster.x = 3 of the preferred cluster is not a multiple of the cluster's 2"
    );
}

#[test]
fn launch_events_need_hopper_and_a_trigger_needs_its_event() {
    let ampere = DeviceLimits {
        compute_capability: (8, 6),
        ..hopper()
    };
    let key = crate::launch::event::EventKey::unregistered();
    let programmatic = Launch {
        programmatic_event: Some(key),
        ..Launch::new(8, 128)
    };
    let completion = Launch {
        completion_event: Some(key),
        ..Launch::new(8, 128)
    };
    for cfg in [programmatic, completion] {
        assert!(cfg.needs_ex());
        assert_eq!(check(cfg), Ok(()));
        let err = validate(&cfg, &kernel(), &ampere).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a programmatic or launch completion event needs compute capability 9.0 or later; \
             this device is sm_86"
        );
    }
    let at_start = programmatic.with_trigger_at_block_start(true);
    assert_eq!(check(at_start), Ok(()));
    assert_eq!(
        check(Launch::new(8, 128).with_trigger_at_block_start(true)),
        Err(ConfigError::TriggerWithoutEvent)
    );
}
