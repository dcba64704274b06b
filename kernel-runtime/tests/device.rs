//! GPU tests of the device handle and memory: properties, copies both ways, fills, pinned
//! buffers, length checks, use from many threads.

mod common;

use cuda_kernel_runtime::{Error, Gpu};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

#[test]
fn device_properties_are_sane() {
    let Some(gpu) = gpu_or_skip() else { return };
    let (major, _) = gpu.compute_capability();
    assert!(major >= 7, "compute capability {major}");
    assert_eq!(
        gpu.arch(),
        format!(
            "sm_{}{}",
            gpu.compute_capability().0,
            gpu.compute_capability().1
        )
    );
    assert!(!gpu.name().is_empty());
    let total = gpu.total_memory().unwrap();
    let free = gpu.free_memory().unwrap();
    assert!(free > 0 && free <= total, "free {free} total {total}");
    assert!(gpu.limits().max_threads_per_block >= 1024);
    assert!(Gpu::count().unwrap() >= 1);
    let (drv_major, _) = Gpu::driver_version().unwrap();
    assert!(drv_major >= 12);
}

#[test]
fn missing_ordinal_is_no_device() {
    let Some(_gpu) = gpu_or_skip() else { return };
    let count = Gpu::count().unwrap();
    match Gpu::new(count + 3) {
        Err(Error::NoDevice { ordinal, count: c }) => assert_eq!((ordinal, c), (count + 3, count)),
        other => panic!("expected NoDevice, got {other:?}"),
    }
}

#[test]
fn upload_download_roundtrip() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut rng = Rng::with_seed(1);
    let xs = rng.nonzero_f32s(100_003);
    let d = gpu.upload(&xs).unwrap();
    assert_eq!(gpu.download(&d).unwrap(), xs);
    let mut back = vec![0.0f32; xs.len()];
    gpu.download_into(&d, &mut back).unwrap();
    assert_eq!(back, xs);
    let ys = rng.nonzero_f32s(xs.len());
    let mut d2 = gpu.zeros::<f32>(xs.len()).unwrap();
    gpu.upload_into(&ys, &mut d2).unwrap();
    assert_eq!(gpu.download(&d2).unwrap(), ys);
}

#[test]
fn zeros_memset_copy_duplicate() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut rng = Rng::with_seed(2);
    let z = gpu.zeros::<u32>(4097).unwrap();
    assert!(gpu.download(&z).unwrap().iter().all(|&v| v == 0));
    let mut bytes = gpu.zeros::<u8>(1000).unwrap();
    gpu.memset(&mut bytes, 0xa5).unwrap();
    assert!(gpu.download(&bytes).unwrap().iter().all(|&b| b == 0xa5));
    let src_host = rng.nonzero_u32s(5000);
    let src = gpu.upload(&src_host).unwrap();
    let mut dst = gpu.zeros::<u32>(5000).unwrap();
    gpu.copy(&src, &mut dst).unwrap();
    assert_eq!(gpu.download(&dst).unwrap(), src_host);
    let dup = gpu.duplicate(&src.slice(100..200)).unwrap();
    assert_eq!(gpu.download(&dup).unwrap(), &src_host[100..200]);
    gpu.memset_zeros(&mut dst).unwrap();
    assert!(gpu.download(&dst).unwrap().iter().all(|&v| v == 0));
}

#[test]
fn length_mismatches_are_errors_not_panics() {
    let Some(gpu) = gpu_or_skip() else { return };
    let a = gpu.zeros::<f32>(10).unwrap();
    let mut b = gpu.zeros::<f32>(11).unwrap();
    assert!(matches!(
        gpu.copy(&a, &mut b),
        Err(Error::LengthMismatch {
            src: 10,
            dst: 11,
            ..
        })
    ));
    let mut host = vec![0.0f32; 9];
    assert!(matches!(
        gpu.download_into(&a, &mut host),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gpu.upload_into(&host, &mut b),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gpu.zeros::<u64>(usize::MAX / 2),
        Err(Error::SizeOverflow { .. })
    ));
}

#[test]
fn pinned_async_roundtrip() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut rng = Rng::with_seed(3);
    let n = 1 << 20;
    let mut host = gpu.pinned::<f32>(n).unwrap();
    assert!(host.as_slice().unwrap().iter().all(|&v| v == 0.0));
    let data = rng.nonzero_f32s(n);
    host.as_mut_slice().unwrap().copy_from_slice(&data);
    let mut dev = gpu.zeros::<f32>(n).unwrap();
    gpu.upload_async(&host, &mut dev).unwrap();
    let mut back = gpu.pinned::<f32>(n).unwrap();
    gpu.download_async(&dev, &mut back).unwrap();
    assert_eq!(back.as_slice().unwrap(), &data[..]);
    let wc = gpu.pinned_write_combined::<u8>(64).unwrap();
    assert_eq!(wc.len(), 64);
}

#[test]
fn handles_work_from_many_threads() {
    let Some(gpu) = gpu_or_skip() else { return };
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let gpu = gpu.clone();
            s.spawn(move || {
                let mut rng = Rng::with_seed(100 + t);
                let xs = rng.nonzero_u32s(10_000);
                let d = gpu.upload(&xs).unwrap();
                assert_eq!(gpu.download(&d).unwrap(), xs);
                // A second handle for the same device shares the context.
                let again = Gpu::new(0).unwrap();
                assert_eq!(again.context().cu_ctx(), gpu.context().cu_ctx());
            });
        }
    });
}
