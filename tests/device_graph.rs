//! A graph launched from device code: a graph of one kernel instantiated for device launch
//! (`Graph::for_device`) is passed through a typed stub (`cudaGraphExec_t` takes
//! `&DeviceGraph`) to a kernel that runs inside another graph and launches it with
//! `cudaGraphLaunch`, when a flag in device memory says so; checked against the CPU with the
//! flag set and cleared.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// Device graph launch (needs the device runtime: rdc).
    mod dg {
        file = "cuda/device_graph.cu";
        arch = ["sm_90"];
        rdc = true;
    }
}

#[test]
fn a_kernel_in_a_graph_launches_another_graph() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let n = 3001usize;
    let xs = Rng::with_seed(99).nonzero_f32s(n);
    let mut x = gpu.upload(&xs)?;
    let mut flag = gpu.upload(&[1i32])?;
    let inner = gpu.capture(|g| {
        let k = dg::load(g)?;
        // SAFETY: bump touches x[i] for i < n; x holds n.
        unsafe { k.bump(&Launch::for_num_elems(n as u32), &mut x, n as i32) }
    })?;
    let on_device = inner.for_device()?;
    let outer = gpu.capture(|g| {
        let k = dg::load(g)?;
        // SAFETY: launch_graph reads flag[0] and launches the uploaded graph.
        unsafe { k.launch_graph(&Launch::new(1, 32), &on_device, &flag) }
    })?;
    outer.launch()?;
    gpu.synchronize_device()?;
    let once: Vec<f32> = xs.iter().map(|v| v + 1.0).collect();
    assert_close(&gpu.download(&x)?, &once, 1e-6);

    gpu.upload_into(&[0i32], &mut flag)?;
    outer.launch()?;
    gpu.synchronize_device()?;
    assert_close(&gpu.download(&x)?, &once, 1e-6);
    Ok(())
}
