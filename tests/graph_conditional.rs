//! Graphs built step by step with conditional nodes, on the GPU against a CPU reference: a
//! WHILE node whose body runs until a device-computed counter reaches zero (the body's kernel
//! sets the condition with `cudaGraphSetConditional`), then an IF node whose condition a
//! kernel reads from a flag in device memory, replayed with the flag set and cleared; the
//! conditions pass to the kernels through their typed stubs.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// Kernels for conditional graph nodes.
    mod cond {
        file = "cuda/graph_conditional.cu";
        arch = ["sm_90"];
    }
}

#[test]
fn while_and_if_nodes_controlled_from_the_device() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let n = 5003usize;
    let iterations = 37;
    let xs = Rng::with_seed(95).nonzero_f32s(n);
    let mut x = gpu.upload(&xs)?;
    let mut counter = gpu.zeros::<i32>(1)?;
    let mut flag = gpu.upload(&[1i32])?;
    let all = Launch::for_num_elems(n as u32);
    let one = Launch::new(1, 32);
    let graph = gpu.build_graph(|b| {
        b.record(|g| {
            let k = cond::load(g)?;
            // SAFETY: writes counter[0].
            unsafe { k.set_counter(&one, &mut counter, iterations) }
        })?;
        let go = b.condition(1)?;
        b.while_loop(go, |g| {
            let k = cond::load(g)?;
            // SAFETY: bump touches x[i] for i < n; count_down counter[0].
            unsafe {
                k.bump(&all, &mut x, n as i32)?;
                k.count_down(&one, &mut counter, &go)
            }
        })?;
        let then = b.condition(0)?;
        b.record(|g| {
            let k = cond::load(g)?;
            // SAFETY: reads flag[0].
            unsafe { k.gate(&one, &flag, &then) }
        })?;
        b.if_then(then, |g| {
            let k = cond::load(g)?;
            // SAFETY: touches x[i] for i < n.
            unsafe { k.scale(&all, &mut x, 2.0, n as i32) }
        })
    })?;
    assert_eq!(
        graph.kernel_count()?,
        0,
        "the steps are child graphs and conditional nodes"
    );

    graph.launch()?;
    let mut want: Vec<f32> = xs.iter().map(|v| 2.0 * (v + iterations as f32)).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-5);
    assert_eq!(gpu.download(&counter)?, [0]);

    // The flag cleared: the IF's body does not run; the loop runs its 37 iterations again.
    gpu.upload_into(&[0i32], &mut flag)?;
    graph.launch()?;
    want = want.iter().map(|v| v + iterations as f32).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-5);
    Ok(())
}
