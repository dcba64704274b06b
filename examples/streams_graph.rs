//! Streams, events and a captured CUDA graph.
//!
//! 1. A chain of small launches is captured once into a graph and replayed; the replays are
//!    timed with device events against the same launches issued one by one.
//! 2. The data is split between two streams forked from, and joined back into, a third; events
//!    time the whole fork/join.
//!
//! Capture comes first: it needs cudarc's single-stream mode, which the first new stream ends.

use std::process::ExitCode;

use cuda_kernel_runtime::{Error, Gpu, Launch, cuda_module};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// One relaxation step.
    mod relax {
        source = r#"
            // y = a*y + x for the first n elements.
            extern "C" __global__ void relax(float* y, const float* x, float a, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * y[i] + x[i];
            }
        "#;
        fn relax(y: &mut [f32], x: &[f32], a: f32, n: i32);
    }
}

const N: usize = 1 << 16;
const STEPS: usize = 20;
const REPLAYS: usize = 50;
const STREAMS: usize = 2;

fn main() -> ExitCode {
    kernel_examples::run("streams_graph", &[embedded!(relax)], streams_graph)
}

fn streams_graph(gpu: &Gpu) -> Result<Report, Error> {
    let mut rng = Rng::with_seed(7);
    let a = 0.5 + 0.4 * rng.f32();
    let (xs, ys) = (rng.nonzero_f32s(N), rng.nonzero_f32s(N));
    let want = reference(&xs, &ys, a, STEPS * REPLAYS);
    let tol = Tolerance::new(1e-5, 1e-5);
    let cfg = Launch::for_num_elems(N as u32);
    let n = N as i32;
    let k = relax::load(gpu)?;
    let x = gpu.upload(&xs)?;
    let mut report = Report::new("streams_graph", gpu);
    report
        .fact("elements", N)
        .fact("launches", format!("{REPLAYS} x {STEPS} of `relax`"));

    // 1. The same launches, replayed from a graph and issued one by one.
    let mut y_graph = gpu.upload(&ys)?;
    let graph = gpu.capture(|g| {
        let kg = k.with_stream(g.stream());
        // SAFETY: relax touches y[i] and x[i] for i < n only; both buffers hold n floats.
        (0..STEPS).try_for_each(|_| unsafe { kg.relax(&cfg, &mut y_graph, &x, a, n) })
    })?;
    graph.upload()?;
    let ((), replayed) = gpu.time(|| (0..REPLAYS).try_for_each(|_| graph.launch()))?;
    let mut y_plain = gpu.upload(&ys)?;
    let ((), issued) = gpu.time(|| {
        // SAFETY: as above.
        (0..STEPS * REPLAYS).try_for_each(|_| unsafe { k.relax(&cfg, &mut y_plain, &x, a, n) })
    })?;
    let launches = (STEPS * REPLAYS) as f64;
    report
        .time("graph replays", replayed, Some((launches, "launches/s")))
        .time("one by one", issued, Some((launches, "launches/s")))
        .check("y (graph)", compare(&gpu.download(&y_graph)?, &want, tol))
        .check(
            "y (one by one)",
            compare(&gpu.download(&y_plain)?, &want, tol),
        );

    // 2. Two streams forked from a third and joined back; events around the whole.
    let main = gpu.with_stream(&gpu.new_stream()?);
    let side = [gpu.new_stream()?, gpu.new_stream()?];
    let chunk = N / STREAMS;
    let mut halves = Vec::with_capacity(STREAMS);
    for part in ys.chunks(chunk) {
        halves.push(main.upload(part)?);
    }
    let ((), forked) = main.time(|| {
        for (i, (stream, y)) in side.iter().zip(&mut halves).enumerate() {
            let part = x.slice(i * chunk..(i + 1) * chunk);
            stream.join(main.stream())?;
            let on_stream = k.with_stream(stream);
            let cfg = Launch::for_num_elems(chunk as u32);
            for _ in 0..STEPS * REPLAYS {
                // SAFETY: both views hold `chunk` floats; relax stays below n = chunk.
                unsafe { on_stream.relax(&cfg, &mut *y, &part, a, chunk as i32)? };
            }
        }
        side.iter()
            .try_for_each(|stream| main.stream().join(stream).map_err(Error::from))
    })?;
    let mut joined = Vec::with_capacity(N);
    for y in &halves {
        joined.extend(main.download(y)?);
    }
    report
        .time(
            &format!("{STREAMS} streams"),
            forked,
            // Each stream made the whole chain on its half.
            Some((launches * STREAMS as f64, "launches/s")),
        )
        .check("y (streams)", compare(&joined, &want, tol));
    Ok(report)
}

/// `steps` relaxation steps on the CPU, with the device's fused multiply-add.
fn reference(xs: &[f32], ys: &[f32], a: f32, steps: usize) -> Vec<f32> {
    let mut y = ys.to_vec();
    for _ in 0..steps {
        for (y, x) in y.iter_mut().zip(xs) {
            *y = a.mul_add(*y, *x);
        }
    }
    y
}
