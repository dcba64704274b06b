//! Updating one kernel node of an instantiated graph through a typed stub
//! (`Graph::update_kernel`) against what people do today, capturing and instantiating the
//! graph again: a graph of three launches, the middle one given a new coefficient each time,
//! then replayed. Host time per update (or re-capture) plus replay, synchronised at the end
//! of each batch of 200, median of 7 batches. Prints `BENCH {json}` lines. Without a GPU it
//! says why and exits successfully (unless `KERNEL_REQUIRE_GPU=1`).
//!
//! ```text
//! cargo bench -p kernel-tests --bench graph_update
//! ```
// Every unsafe block launches the kernels below on buffers of N floats made here.
#![allow(clippy::undocumented_unsafe_blocks, missing_docs)]

use std::time::Instant;

use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer, cuda_module};
use kernel_test_support::bench::{median, report};
use kernel_test_support::gpu_or_skip;

cuda_module! {
    /// y = a * x + y, and y = s * y (the kernels of the graph-update test).
    mod ops {
        file = "cuda/graph_update.cu";
    }
}

const N: usize = 4096;
const BATCH: usize = 200;
const BATCHES: usize = 7;

fn cfg() -> Launch {
    Launch::for_num_elems(N as u32)
}

fn record(
    g: &Gpu,
    a: f32,
    x: &TrackedBuffer<f32>,
    y: &mut TrackedBuffer<f32>,
) -> Result<(), Error> {
    let k = ops::load(g)?;
    unsafe {
        k.scale(&cfg(), &mut *y, 1.0, N as i32)?;
        k.axpy(&cfg(), a, x, &mut *y, N as i32)?;
        k.scale(&cfg(), &mut *y, 1.0, N as i32)?;
    }
    Ok(())
}

fn main() {
    let Some(gpu) = gpu_or_skip() else { return };
    let x = gpu.upload(&vec![1.0f32; N]).unwrap();
    let mut y = gpu.zeros::<f32>(N).unwrap();
    let graph = gpu.capture(|g| record(g, 0.5, &x, &mut y)).unwrap();
    graph.launch().unwrap();
    gpu.synchronize().unwrap();

    let (mut update, mut recapture) = (Vec::new(), Vec::new());
    for batch in 0..BATCHES {
        let t = Instant::now();
        for i in 0..BATCH {
            let a = (batch * BATCH + i) as f32 * 1e-3;
            graph
                .update_kernel(1, |g| {
                    let k = ops::load(g)?;
                    unsafe { k.axpy(&cfg(), a, &x, &mut y, N as i32) }
                })
                .unwrap();
            graph.launch().unwrap();
        }
        gpu.synchronize().unwrap();
        update.push(t.elapsed().as_secs_f64() * 1e6 / BATCH as f64);

        let t = Instant::now();
        for i in 0..BATCH {
            let a = (batch * BATCH + i) as f32 * 1e-3;
            let fresh = gpu.capture(|g| record(g, a, &x, &mut y)).unwrap();
            fresh.launch().unwrap();
        }
        gpu.synchronize().unwrap();
        recapture.push(t.elapsed().as_secs_f64() * 1e6 / BATCH as f64);
    }
    let (u, r) = (median(update), median(recapture));
    println!(
        "-- a graph of 3 launches, its middle launch changed {BATCH} times per batch, median of {BATCHES}"
    );
    report("graph.update_kernel_and_replay_us", u, "us");
    report("graph.recapture_instantiate_and_replay_us", r, "us");
    report("graph.recapture_over_update", r / u, "x");
}
