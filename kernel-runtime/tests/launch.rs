//! GPU tests of launches: generated-style stubs, by-name launches, host-slice arguments,
//! validation before the driver, dynamic shared memory, clusters, cooperative launches,
//! occupancy, globals, vector types, streams, timing and the per-context module cache.

mod common;

use common::{TestKernels, idx};
use cuda_kernel_runtime::vector::Float4;
use cuda_kernel_runtime::{ConfigError, Error, In, InOut, Launch, Out};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

fn saxpy_ref(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter().zip(y).map(|(x, y)| a * x + y).collect()
}

#[test]
fn stub_saxpy_matches_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu).unwrap();
    let mut rng = Rng::with_seed(10);
    let n = 1_000_003;
    let (a, xs, ys) = (rng.nonzero_f32(), rng.nonzero_f32s(n), rng.nonzero_f32s(n));
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.upload(&ys).unwrap();
    // SAFETY: both buffers hold n elements.
    unsafe {
        k.saxpy(&Launch::for_num_elems(n as u32), a, &x, &mut y, n as i32)
            .unwrap()
    };
    assert_close(&gpu.download(&y).unwrap(), &saxpy_ref(a, &xs, &ys), 1e-6);
}

#[test]
fn host_slices_as_arguments() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu).unwrap();
    let mut rng = Rng::with_seed(11);
    let n = 4099;
    let (a, xs, ys) = (rng.nonzero_f32(), rng.nonzero_f32s(n), rng.nonzero_f32s(n));
    let mut inout = ys.clone();
    let cfg = Launch::for_num_elems(n as u32);
    // SAFETY: both slices hold n elements.
    unsafe {
        k.saxpy(&cfg, a, In(&xs), InOut(&mut inout), n as i32)
            .unwrap()
    };
    assert_close(&inout, &saxpy_ref(a, &xs, &ys), 1e-6);
    // Out starts from zeros on the device: y = a*x + 0.
    let mut out = rng.nonzero_f32s(n);
    // SAFETY: as above.
    unsafe { k.saxpy(&cfg, a, In(&xs), Out(&mut out), n as i32).unwrap() };
    assert_close(&out, &saxpy_ref(a, &xs, &vec![0.0; n]), 1e-6);
}

#[test]
fn by_name_launch_with_views() {
    let Some(gpu) = gpu_or_skip() else { return };
    let m = TestKernels::load(&gpu).unwrap().0.module().clone();
    let saxpy = m.kernel("saxpy").unwrap();
    let mut rng = Rng::with_seed(12);
    let n = 10_000;
    let (a, xs, ys) = (rng.nonzero_f32(), rng.nonzero_f32s(n), rng.nonzero_f32s(n));
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.upload(&ys).unwrap();
    let half = n / 2;
    {
        let xv = x.slice(half..);
        let mut yv = y.slice_mut(half..);
        // SAFETY: saxpy(float, const float*, float*, int) on the upper halves.
        unsafe {
            saxpy
                .launch(
                    &Launch::for_num_elems(half as u32),
                    (a, &xv, &mut yv, half as i32),
                )
                .unwrap()
        };
    }
    let mut want = ys.clone();
    want[half..].copy_from_slice(&saxpy_ref(a, &xs[half..], &ys[half..]));
    assert_close(&gpu.download(&y).unwrap(), &want, 1e-6);
}

#[test]
fn invalid_configs_fail_before_the_driver() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu).unwrap();
    let mut y = gpu.upload(&Rng::with_seed(13).nonzero_f32s(4096)).unwrap();
    let x = gpu.duplicate(&y).unwrap();
    // SAFETY: never reaches the device.
    let e = unsafe { k.saxpy(&Launch::new(1, 2048), 1.0, &x, &mut y, 4096) }.unwrap_err();
    let want = ConfigError::BlockDimTooLarge {
        which: "block.x",
        requested: 2048,
        limit: 1024,
    };
    assert!(
        matches!(&e, Error::InvalidConfig { problem, .. } if *problem == want),
        "{e}"
    );
    // SAFETY: never reaches the device.
    let e = unsafe { k.saxpy(&Launch::new(1, (64, 32)), 1.0, &x, &mut y, 4096) }.unwrap_err();
    let want = ConfigError::TooManyThreads {
        requested: 2048,
        limit: 1024,
        by: "the device's maximum threads per block",
    };
    assert!(
        matches!(&e, Error::InvalidConfig { problem, .. } if *problem == want),
        "{e}"
    );
    // SAFETY: as above.
    let e = unsafe { k.bounded(&Launch::new(16, 256), &mut y, 4096) }.unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidConfig {
                problem: ConfigError::TooManyThreads { limit: 128, .. },
                ..
            }
        ),
        "{e}"
    );
    // SAFETY: as above.
    let e = unsafe { k.bounded(&Launch::new((1, 0), 32), &mut y, 4096) }.unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidConfig {
                problem: ConfigError::ZeroDim { which: "grid.y" },
                ..
            }
        ),
        "{e}"
    );
    let huge = gpu.limits().max_shared_per_block_optin + 1;
    // SAFETY: as above.
    let e =
        unsafe { k.bounded(&Launch::new(1, 32).with_shared_mem(huge), &mut y, 4096) }.unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidConfig {
                problem: ConfigError::SharedMemTooLarge { .. },
                ..
            }
        ),
        "{e}"
    );
    // Within the kernel's bound it runs and doubles.
    let before = gpu.download(&y).unwrap();
    // SAFETY: y holds 4096 elements.
    unsafe { k.bounded(&Launch::new(32, 128), &mut y, 4096).unwrap() };
    let want: Vec<f32> = before.iter().map(|v| v * 2.0).collect();
    assert_close(&gpu.download(&y).unwrap(), &want, 0.0);
}

#[test]
fn dynamic_shared_memory_above_48k_is_opted_in() {
    let Some(gpu) = gpu_or_skip() else { return };
    if gpu.limits().max_shared_per_block_optin < 64 * 1024 {
        println!("skipped: the device allows less than 64 KiB of shared memory per block");
        return;
    }
    let k = TestKernels::load(&gpu)
        .unwrap()
        .0
        .kernel(idx::REVERSE)
        .unwrap();
    let mut rng = Rng::with_seed(14);
    let (n, block) = (256 * 40 + 17, 256u32);
    let xs = rng.nonzero_f32s(n);
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.zeros::<f32>(n).unwrap();
    let smem = 64 * 1024u32;
    let offset = (smem / 4 - block) as i32; // use the far end of the allocation
    let cfg = Launch::new((n as u32).div_ceil(block), block).with_shared_mem(smem);
    // SAFETY: reverse_blocks(const float*, float*, int, int); the offset stays inside `smem`.
    unsafe { k.launch(&cfg, (&x, &mut y, n as i32, offset)).unwrap() };
    let got = gpu.download(&y).unwrap();
    let b = block as usize;
    for start in (0..n).step_by(b) {
        for t in 0..b {
            let (src, dst) = (start + t, start + (b - 1 - t));
            if dst < n {
                let want = if src < n { xs[src] } else { 0.0 };
                assert_eq!(got[dst], want, "block at {start}, thread {t}");
            }
        }
    }
}

#[test]
fn cooperative_grid_sum() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu)
        .unwrap()
        .0
        .kernel(idx::GRID_SUM)
        .unwrap();
    let mut rng = Rng::with_seed(15);
    let n = 1 << 20;
    let xs = rng.nonzero_f32s(n);
    let per_sm = k.max_active_blocks_per_sm(256, 0).unwrap();
    assert!(per_sm >= 1);
    let blocks = gpu.limits().multiprocessors * per_sm.min(2);
    let x = gpu.upload(&xs).unwrap();
    let mut partial = gpu.zeros::<f32>(blocks as usize + 1).unwrap();
    let cfg = Launch::new(blocks, 256).with_cooperative(true);
    // SAFETY: grid_sum(const float*, float*, int); partial holds blocks + 1 elements.
    unsafe { k.launch(&cfg, (&x, &mut partial, n as i32)).unwrap() };
    let got = gpu.download(&partial).unwrap()[blocks as usize];
    let want: f64 = xs.iter().map(|&v| f64::from(v)).sum();
    assert!(
        (f64::from(got) - want).abs() < 1e-2 * want.abs().max(1.0),
        "got {got}, want {want}"
    );
    // A grid that cannot be resident at once is refused before launch.
    let too_many =
        Launch::new(gpu.limits().multiprocessors * per_sm + 1, 256).with_cooperative(true);
    // SAFETY: refused before launch.
    let e = unsafe { k.launch(&too_many, (&x, &mut partial, n as i32)) }.unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidConfig {
                problem: ConfigError::CooperativeGridTooLarge { .. },
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn cluster_launch_reports_ranks() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu)
        .unwrap()
        .0
        .kernel(idx::CLUSTER_RANK)
        .unwrap();
    let blocks = 16u32;
    let mut out = gpu.upload(&vec![-7i32; blocks as usize]).unwrap();
    let cfg = Launch::new(blocks, 32).with_cluster(4);
    if !gpu.limits().cluster_launch {
        // SAFETY: refused before launch.
        let e = unsafe { k.launch(&cfg, (&mut out,)) }.unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidConfig {
                    problem: ConfigError::ClusterUnsupported { .. },
                    ..
                }
            ),
            "{e}"
        );
        return;
    }
    // SAFETY: cluster_rank(int*) writes one element per block.
    unsafe { k.launch(&cfg, (&mut out,)).unwrap() };
    let want: Vec<i32> = (0..blocks as i32).map(|b| b % 4).collect();
    assert_eq!(gpu.download(&out).unwrap(), want);
    let bad = Launch::new(18, 32).with_cluster(4);
    // SAFETY: refused before launch.
    let e = unsafe { k.launch(&bad, (&mut out,)) }.unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidConfig {
                problem: ConfigError::ClusterNotDivisor { .. },
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn occupancy_config_covers_the_input() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu)
        .unwrap()
        .0
        .kernel(idx::SAXPY)
        .unwrap();
    let n = 3_000_001u32;
    let cfg = k.occupancy_config(n, 0).unwrap();
    assert!(
        cfg.threads_per_block() >= 32
            && cfg.threads_per_block() <= u64::from(k.max_threads_per_block())
    );
    assert!(cfg.num_blocks() * cfg.threads_per_block() >= u64::from(n));
    let bounded = TestKernels::load(&gpu)
        .unwrap()
        .0
        .kernel(idx::BOUNDED)
        .unwrap();
    assert!(bounded.occupancy_config(n, 0).unwrap().threads_per_block() <= 128);
}

#[test]
fn constant_and_device_globals() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu).unwrap();
    let mut rng = Rng::with_seed(16);
    let c = [
        rng.nonzero_f32(),
        rng.nonzero_f32(),
        rng.nonzero_f32(),
        rng.nonzero_f32(),
    ];
    let coeffs = cuda_kernel_runtime::__private::global::<[f32; 4]>(&k.0, 0).unwrap();
    coeffs.write(&c).unwrap();
    assert_eq!(coeffs.read().unwrap(), c);
    let n = 50_000;
    let xs = rng.nonzero_f32s(n);
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.zeros::<f32>(n).unwrap();
    let poly = k.0.kernel(idx::POLY).unwrap();
    // SAFETY: poly(const float*, float*, int).
    unsafe {
        poly.launch(&Launch::for_num_elems(n as u32), (&x, &mut y, n as i32))
            .unwrap()
    };
    let want: Vec<f32> = xs
        .iter()
        .map(|x| c[0] + x * (c[1] + x * (c[2] + x * c[3])))
        .collect();
    assert_close(&gpu.download(&y).unwrap(), &want, 1e-5);

    assert!(matches!(
        cuda_kernel_runtime::__private::global::<u32>(&k.0, 1),
        Err(Error::Global { .. })
    ));
    let total = cuda_kernel_runtime::__private::global::<u64>(&k.0, 1).unwrap();
    total.write(&0).unwrap();
    let vals = rng.nonzero_u32s(n);
    let acc = k.0.kernel(idx::ACCUMULATE).unwrap();
    // SAFETY: accumulate(const unsigned*, int).
    unsafe {
        acc.launch(
            &Launch::for_num_elems(n as u32),
            (cuda_kernel_runtime::In(&vals), n as i32),
        )
        .unwrap()
    };
    assert_eq!(
        total.read().unwrap(),
        vals.iter().map(|&v| u64::from(v)).sum::<u64>()
    );
    assert!(matches!(
        cuda_kernel_runtime::__private::global::<u64>(&k.0, 2),
        Err(Error::BadIndex { .. })
    ));
}

#[test]
fn vector_type_arguments() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu)
        .unwrap()
        .0
        .kernel(idx::ADD4)
        .unwrap();
    let mut rng = Rng::with_seed(17);
    let n = 3001;
    let mk = |rng: &mut Rng| -> Vec<Float4> {
        (0..n)
            .map(|_| {
                Float4::new(
                    rng.nonzero_f32(),
                    rng.nonzero_f32(),
                    rng.nonzero_f32(),
                    rng.nonzero_f32(),
                )
            })
            .collect()
    };
    let (a, b) = (mk(&mut rng), mk(&mut rng));
    let mut c = vec![Float4::default(); n];
    // SAFETY: add4(const float4*, const float4*, float4*, int).
    unsafe {
        k.launch(
            &Launch::for_num_elems(n as u32),
            (In(&a), In(&b), Out(&mut c), n as i32),
        )
        .unwrap()
    };
    for i in 0..n {
        let w = Float4::new(
            a[i].x + b[i].x,
            a[i].y + b[i].y,
            a[i].z + b[i].z,
            a[i].w + b[i].w,
        );
        assert_eq!(c[i], w, "element {i}");
    }
}

#[test]
fn launches_on_another_stream_are_ordered() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu).unwrap();
    let side = gpu.with_stream(&gpu.new_stream().unwrap());
    let ks = k.0.with_stream(side.stream());
    let ks = TestKernels(ks);
    let mut rng = Rng::with_seed(18);
    let n = 1 << 18;
    let (a, xs, ys) = (rng.nonzero_f32(), rng.nonzero_f32s(n), rng.nonzero_f32s(n));
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.upload(&ys).unwrap();
    let cfg = Launch::for_num_elems(n as u32);
    // SAFETY: both hold n elements; the side stream waits on the uploads through cudarc's events.
    unsafe { ks.saxpy(&cfg, a, &x, &mut y, n as i32).unwrap() };
    // And the default stream waits for the side stream's write before downloading.
    assert_close(&gpu.download(&y).unwrap(), &saxpy_ref(a, &xs, &ys), 1e-6);
}

#[test]
fn timed_launch_reports_device_time() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu).unwrap();
    let n = 1 << 22;
    let mut rng = Rng::with_seed(19);
    let x = gpu.upload(&rng.nonzero_f32s(n)).unwrap();
    let mut y = gpu.upload(&rng.nonzero_f32s(n)).unwrap();
    let cfg = Launch::for_num_elems(n as u32);
    // SAFETY: both hold n elements.
    let ((), took) = gpu
        .time(|| unsafe { k.saxpy(&cfg, 2.0, &x, &mut y, n as i32) })
        .unwrap();
    assert!(took.as_nanos() > 0 && took.as_secs() < 5, "{took:?}");
}

#[test]
fn module_is_loaded_once_per_context_under_concurrency() {
    let Some(gpu) = gpu_or_skip() else { return };
    let handles: Vec<usize> = std::thread::scope(|s| {
        let joins: Vec<_> = (0..8)
            .map(|_| {
                let gpu = gpu.clone();
                s.spawn(move || {
                    let k = TestKernels::load(&gpu).unwrap();
                    k.0.kernel(idx::SAXPY).unwrap().cu_function() as usize
                })
            })
            .collect();
        joins.into_iter().map(|j| j.join().unwrap()).collect()
    });
    assert!(handles.iter().all(|&h| h == handles[0] && h != 0));
    let again = TestKernels::load(&cuda_kernel_runtime::Gpu::new(0).unwrap()).unwrap();
    assert_eq!(
        again.0.kernel(idx::SAXPY).unwrap().cu_function() as usize,
        handles[0]
    );
}
