//! Kernels launched from device code (dynamic parallelism) in a module built with `rdc`: the
//! build links the CUDA device runtime (libcudadevrt) by nvJitLink, the stubs launch the root
//! of a two-level launch tree, and every element and every branch's count is checked against
//! a CPU reference on random data of an odd size.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// A launch tree: root → branch → leaf.
    mod tree {
        file = "cuda/device_launch.cu";
        arch = ["sm_80", "sm_90"];
        rdc = true;
    }
}

#[test]
fn the_module_lists_its_own_kernels_only() {
    let names: Vec<&str> = tree::METADATA.kernels.iter().map(|k| k.name).collect();
    assert_eq!(names, ["leaf", "branch", "root"]);
}

#[test]
fn a_launch_tree_from_device_code() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = tree::load(&gpu)?;
    let (n, chunk) = (100_003usize, 1000usize);
    let branches = n.div_ceil(chunk);
    let xs = Rng::with_seed(91).nonzero_f32s(n);
    let mut x = gpu.upload(&xs)?;
    let mut visits = gpu.zeros::<i32>(branches)?;
    let cfg = Launch::new((branches as u32).div_ceil(64), 64);
    // SAFETY: root's thread t launches a branch over [t * chunk, min(n, (t + 1) * chunk)),
    // whose blocks launch leaves over slices of it; x holds n, visits one count per branch.
    unsafe { k.root(&cfg, &mut x, &mut visits, n as i32, chunk as i32)? };
    let want: Vec<f32> = xs.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-6);
    let counts: Vec<i32> = (0..branches)
        .map(|b| (n.min((b + 1) * chunk) - b * chunk) as i32)
        .collect();
    assert_eq!(gpu.download(&visits)?, counts);
    Ok(())
}
