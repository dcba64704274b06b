//! Kernel nodes of an instantiated graph updated in place through the typed stubs, on the
//! GPU against a CPU reference: a graph of three launches replayed after 100 updates of its
//! middle launch, each with new random arguments and a new buffer, without re-capture or
//! re-instantiation; an update may switch the node to another kernel; updates that do not
//! make exactly one launch, or name a launch the graph lacks, are errors.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// Kernels for graph node updates.
    mod ops {
        file = "cuda/graph_update.cu";
        arch = ["sm_80", "sm_90"];
    }
}

const N: usize = 10_007;

fn cfg() -> Launch {
    Launch::for_num_elems(N as u32)
}

/// y = 2 * (a * x + y) * 0.5, launched as scale, axpy, scale.
fn record(
    g: &Gpu,
    a: f32,
    x: &TrackedBuffer<f32>,
    y: &mut TrackedBuffer<f32>,
) -> Result<(), Error> {
    let k = ops::load(g)?;
    // SAFETY: every kernel touches index i < N; x and y hold N.
    unsafe {
        k.scale(&cfg(), &mut *y, 2.0, N as i32)?;
        k.axpy(&cfg(), a, x, &mut *y, N as i32)?;
        k.scale(&cfg(), &mut *y, 0.5, N as i32)?;
    }
    Ok(())
}

#[test]
fn a_kernel_node_updated_100_times_without_re_instantiation() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let mut r = Rng::with_seed(81);
    let xs = r.nonzero_f32s(N);
    let x = gpu.upload(&xs)?;
    let ys = r.nonzero_f32s(N);
    let mut y = gpu.upload(&ys)?;
    let a0 = r.nonzero_f32();
    let graph = gpu.capture(|g| record(g, a0, &x, &mut y))?;
    assert_eq!(graph.kernel_count()?, 3);
    graph.launch()?;
    let want: Vec<f32> = xs
        .iter()
        .zip(&ys)
        .map(|(x, y)| 0.5 * (a0 * x + 2.0 * y))
        .collect();
    assert_close(&gpu.download(&y)?, &want, 1e-5);

    // The middle launch, 100 times with a new coefficient and a new input buffer each time.
    let mut inputs: Vec<(f32, Vec<f32>, TrackedBuffer<f32>)> = Vec::new();
    for _ in 0..100 {
        let a = r.nonzero_f32();
        let host = r.nonzero_f32s(N);
        let dev = gpu.upload(&host)?;
        inputs.push((a, host, dev));
    }
    let mut expect = gpu.download(&y)?;
    for (a, host, dev) in &inputs {
        graph.update_kernel(1, |g| {
            let k = ops::load(g)?;
            // SAFETY: as above; `dev` outlives every replay of the graph below.
            unsafe { k.axpy(&cfg(), *a, dev, &mut y, N as i32) }
        })?;
        graph.launch()?;
        expect = expect
            .iter()
            .zip(host)
            .map(|(y, x)| 0.5 * (a * x + 2.0 * y))
            .collect();
    }
    assert_close(&gpu.download(&y)?, &expect, 1e-4);

    // The middle node may become another kernel: y = 0.5 * (3 * (2 * y)).
    graph.update_kernel(1, |g| {
        let k = ops::load(g)?;
        // SAFETY: as above.
        unsafe { k.scale(&cfg(), &mut y, 3.0, N as i32) }
    })?;
    graph.launch()?;
    let want: Vec<f32> = expect.iter().map(|v| 3.0 * v).collect();
    assert_close(&gpu.download(&y)?, &want, 1e-4);

    // Not exactly one launch, or no such launch: errors, and the graph still replays.
    let err = graph.update_kernel(1, |_| Ok(())).unwrap_err();
    assert!(
        err.to_string().contains("exactly one kernel launch"),
        "{err}"
    );
    let err = graph
        .update_kernel(3, |g| {
            let k = ops::load(g)?;
            // SAFETY: as above.
            unsafe { k.scale(&cfg(), &mut y, 1.0, N as i32) }
        })
        .unwrap_err();
    assert!(err.to_string().contains("no launch 3"), "{err}");
    graph.launch()?;
    gpu.synchronize()?;
    Ok(())
}
