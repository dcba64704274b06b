//! The launch attributes of current GPUs through typed stubs, on the GPU against CPU
//! references on random data of odd sizes: a pair chained by programmatic dependent launch
//! (repeated, each time on new data), launches with a priority, on a stream with a priority
//! and in the remote memory synchronization domain, a cluster launch that passes the
//! occupancy query; and the errors, before any launch, for a priority outside the device's
//! range and a preferred cluster shape on a device older than 10.0.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{ConfigError, Error, Launch, MemSyncDomain, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_at_least_or_skip};

cuda_module! {
    /// Kernels chained by programmatic dependent launch.
    mod pdl {
        file = "cuda/launch_attributes.cu";
        arch = ["sm_90"];
    }
}

fn cfg(n: usize) -> Launch {
    Launch::for_num_elems(n as u32)
}

#[test]
fn a_pair_chained_by_programmatic_dependent_launch() -> Result<(), Error> {
    let Some(gpu) = gpu_at_least_or_skip(9, "programmatic dependent launch") else {
        return Ok(());
    };
    let k = pdl::load(&gpu)?;
    let n = 1_000_003usize;
    let mut r = Rng::with_seed(61);
    let mut a = gpu.zeros::<f32>(n)?;
    let mut b = gpu.zeros::<f32>(n)?;
    for _ in 0..20 {
        let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
        let x = gpu.upload(&xs)?;
        let y = gpu.upload(&ys)?;
        // SAFETY: both kernels touch index i < n only; every buffer holds n.
        unsafe {
            k.produce(&cfg(n), &mut a, &x, n as i32)?;
            k.consume(&cfg(n).with_programmatic(true), &mut b, &a, &y, n as i32)?;
        }
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| 2.0 * x + y).collect();
        let got = gpu.download(&b)?;
        assert_close(&got, &want, 1e-6);
    }
    Ok(())
}

#[test]
fn priorities_domains_and_clusters_on_the_gpu() -> Result<(), Error> {
    let Some(gpu) = gpu_at_least_or_skip(9, "each of these attributes") else {
        return Ok(());
    };
    let k = pdl::load(&gpu)?;
    let (least, greatest) = gpu.limits().stream_priorities;
    assert!(greatest < least, "{greatest} {least}");
    let n = 77_777usize;
    let xs = Rng::with_seed(62).nonzero_f32s(n);
    let x = gpu.upload(&xs)?;
    let want: Vec<f32> = xs.iter().map(|v| 3.0 * v).collect();
    let block = 256u32;
    let staged = |c: Launch| c.with_shared_mem(block * 4);

    // A launch with the highest priority, and one in the remote domain.
    for c in [
        cfg(n).with_priority(greatest),
        cfg(n).with_mem_sync_domain(MemSyncDomain::Remote),
    ] {
        let mut out = gpu.zeros::<f32>(n)?;
        // SAFETY: `staged` touches i < n; out and x hold n; one float of shared per thread.
        unsafe { k.staged(&staged(c), &mut out, &x, n as i32)? };
        assert_close(&gpu.download(&out)?, &want, 1e-6);
    }

    // A stream with the highest priority.
    let urgent = gpu.with_stream(&gpu.new_stream_with_priority(greatest)?);
    let k2 = pdl::load(&urgent)?;
    let xu = urgent.upload(&xs)?;
    let mut out = urgent.zeros::<f32>(n)?;
    // SAFETY: as above.
    unsafe { k2.staged(&staged(cfg(n)), &mut out, &xu, n as i32)? };
    assert_close(&urgent.download(&out)?, &want, 1e-6);

    // A cluster of 2 with 200 KiB of shared memory per block: the occupancy query allows it.
    let big = 200 * 1024;
    let grid = (n as u32).div_ceil(block).next_multiple_of(2);
    let mut out = gpu.zeros::<f32>(n)?;
    let c = Launch::new(grid, block)
        .with_shared_mem(big)
        .with_cluster(2);
    // SAFETY: as above; the kernel uses the first `block` floats of its shared memory.
    unsafe { k.staged(&c, &mut out, &x, n as i32)? };
    assert_close(&gpu.download(&out)?, &want, 1e-6);

    // Refused before any launch, naming the limit.
    let mut out = gpu.zeros::<f32>(n)?;
    // SAFETY: nothing runs: validation refuses the configuration.
    let err =
        unsafe { k.staged(&staged(cfg(n).with_priority(least + 1)), &mut out, &x, 1) }.unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidConfig {
                problem: ConfigError::PriorityOutOfRange { .. },
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("staged"), "{err}");
    assert!(gpu.new_stream_with_priority(greatest - 1).is_err());
    if gpu.limits().compute_capability.0 < 10 {
        let c = Launch::new(2, 32).with_cluster(1).with_preferred_cluster(2);
        // SAFETY: nothing runs, as above.
        let err = unsafe { k.staged(&staged(c), &mut out, &x, 1) }.unwrap_err();
        assert!(err.to_string().contains("compute capability 10.0"), "{err}");
    }
    Ok(())
}
