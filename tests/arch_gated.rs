//! Kernels declared inside `#if __CUDA_ARCH__ ...` (half from sm_53, bfloat16 and FP8 from
//! sm_80, a cluster kernel from sm_90), built as real libraries write them, on the GPU:
//! every kernel of the loaded image against a CPU reference on random non-zero data, and
//! `Error::KernelNotInImage` (before any launch) for a kernel the loaded image lacks.
//!
//! `gated` is built for `sm_80, sm_90`: on an sm_90 GPU every kernel is there.
//! `gated_ptx80` is built for `compute_80, sm_100`: on an sm_90 GPU the driver JIT-compiles
//! the compute_80 PTX, which has no `cluster_rank` (only the sm_100 image has it).
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::fp::F8E4M3;
use cuda_kernel_runtime::{Error, Launch, bf16, cuda_module, f16};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// Arch-gated kernels for sm_80 and sm_90.
    // The build's warning that a kernel is on some targets only is what this test is about.
    #[allow(deprecated)]
    mod gated {
        file = "cuda/arch_gated.cu";
        arch = ["sm_80", "sm_90"];
    }
}

cuda_module! {
    /// The same source as PTX for compute_80 and SASS for sm_100.
    #[allow(deprecated)]
    mod gated_ptx80 {
        file = "cuda/arch_gated.cu";
        arch = ["compute_80", "sm_100"];
    }
}

const N: usize = 4099;

fn cfg(n: usize) -> Launch {
    Launch::for_num_elems(n as u32)
}

#[test]
fn metadata_lists_the_targets_of_each_kernel() {
    let on = |name: &str| {
        gated::METADATA
            .kernels
            .iter()
            .find(|k| k.name == name)
            .map(|k| k.available)
    };
    assert_eq!(on("scale_f32"), Some(None));
    assert_eq!(on("scale_bf16"), Some(None));
    assert_eq!(on("cluster_rank"), Some(Some(&["sm_90"][..])));
    let ptx = gated_ptx80::METADATA
        .kernels
        .iter()
        .find(|k| k.name == "cluster_rank");
    assert_eq!(ptx.map(|k| k.available), Some(Some(&["sm_100"][..])));
}

#[test]
fn every_kernel_of_the_sm90_image_runs() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    if gpu.limits().compute_capability.0 != 9 {
        eprintln!(
            "skipped: this test expects an sm_90 GPU, found {}",
            gpu.arch()
        );
        assert!(
            !kernel_test_support::gpu_required(),
            "KERNEL_REQUIRE_GPU=1 needs sm_90 here"
        );
        return Ok(());
    }
    let k = gated::load(&gpu)?;
    let mut r = Rng::with_seed(11);
    let x = r.nonzero_f32s(N);
    let s = 1.75f32;

    let mut y = gpu.zeros::<f32>(N)?;
    // SAFETY: one thread per element, guarded by n; x and y hold N elements.
    unsafe { k.scale_f32(&cfg(N), &gpu.upload(&x)?, &mut y, s, N as i32)? };
    let want: Vec<f32> = x.iter().map(|v| v * s).collect();
    assert_close(&gpu.download(&y)?, &want, 1e-6);

    let xh: Vec<f16> = x.iter().map(|v| f16::from_f32(*v)).collect();
    let mut yh = gpu.zeros::<f16>(N)?;
    // SAFETY: as above.
    unsafe { k.scale_f16(&cfg(N), &gpu.upload(&xh)?, &mut yh, s, N as i32)? };
    let got: Vec<f32> = gpu.download(&yh)?.iter().map(|v| v.to_f32()).collect();
    let want: Vec<f32> = xh
        .iter()
        .map(|v| f16::from_f32(v.to_f32() * s).to_f32())
        .collect();
    assert_close(&got, &want, 1e-3);

    let xb: Vec<bf16> = x.iter().map(|v| bf16::from_f32(*v)).collect();
    let mut yb = gpu.zeros::<bf16>(N)?;
    // SAFETY: as above.
    unsafe { k.scale_bf16(&cfg(N), &gpu.upload(&xb)?, &mut yb, s, N as i32)? };
    let got: Vec<f32> = gpu.download(&yb)?.iter().map(|v| v.to_f32()).collect();
    let want: Vec<f32> = xb
        .iter()
        .map(|v| bf16::from_f32(v.to_f32() * s).to_f32())
        .collect();
    assert_close(&got, &want, 1e-2);

    let x8: Vec<F8E4M3> = x.iter().map(|v| F8E4M3::from_f32(*v)).collect();
    let mut y8 = gpu.zeros::<f32>(N)?;
    // SAFETY: as above.
    unsafe { k.fp8_to_f32(&cfg(N), &gpu.upload(&x8)?, &mut y8, N as i32)? };
    let want: Vec<f32> = x8.iter().map(|v| v.to_f32()).collect();
    assert_eq!(
        gpu.download(&y8)?,
        want,
        "the GPU decodes E4M3 as the float8 crate does"
    );

    assert!(k.has_kernel("cluster_rank"));
    let mut ranks = gpu.zeros::<u32>(8)?;
    let two_clusters = Launch::new(8, 32).with_cluster(2);
    // SAFETY: thread 0 of each of the 8 blocks writes out[blockIdx.x]; out holds 8.
    unsafe { k.cluster_rank(&two_clusters, &mut ranks)? };
    assert_eq!(gpu.download(&ranks)?, [0, 1, 0, 1, 0, 1, 0, 1]);
    Ok(())
}

#[test]
fn a_kernel_missing_from_the_loaded_image_is_an_error_before_launch() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    if gpu.limits().compute_capability.0 != 9 {
        eprintln!(
            "skipped: this test expects an sm_90 GPU, found {}",
            gpu.arch()
        );
        assert!(
            !kernel_test_support::gpu_required(),
            "KERNEL_REQUIRE_GPU=1 needs sm_90 here"
        );
        return Ok(());
    }
    // The driver picks the compute_80 PTX (sm_100 SASS cannot run on sm_90).
    let k = gated_ptx80::load(&gpu)?;
    assert!(!k.has_kernel("cluster_rank"));
    assert!(k.has_kernel("scale_bf16"));
    let mut ranks = gpu.zeros::<u32>(8)?;
    let cfg2 = Launch::new(8, 32).with_cluster(2);
    // SAFETY: nothing launches: the kernel is not in the loaded image.
    let err = unsafe { k.cluster_rank(&cfg2, &mut ranks) }.unwrap_err();
    match &err {
        Error::KernelNotInImage {
            kernel,
            device_arch,
            available,
            ..
        } => {
            assert_eq!(kernel, "cluster_rank");
            assert_eq!(device_arch, &gpu.arch());
            assert_eq!(available, &["sm_100".to_string()]);
        }
        other => panic!("expected KernelNotInImage, got {other:?}"),
    }
    assert!(
        err.to_string().contains("compiled for sm_100 only"),
        "{err}"
    );
    assert_eq!(gpu.download(&ranks)?, [0; 8], "nothing ran");

    // The kernels the PTX holds still run (JIT-compiled for this GPU).
    let mut r = Rng::with_seed(12);
    let x = r.nonzero_f32s(N);
    let xb: Vec<bf16> = x.iter().map(|v| bf16::from_f32(*v)).collect();
    let mut yb = gpu.zeros::<bf16>(N)?;
    // SAFETY: one thread per element, guarded by n.
    unsafe { k.scale_bf16(&cfg(N), &gpu.upload(&xb)?, &mut yb, 3.0, N as i32)? };
    let got: Vec<f32> = gpu.download(&yb)?.iter().map(|v| v.to_f32()).collect();
    let want: Vec<f32> = xb
        .iter()
        .map(|v| bf16::from_f32(v.to_f32() * 3.0).to_f32())
        .collect();
    assert_close(&got, &want, 1e-2);
    Ok(())
}
