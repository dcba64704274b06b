//! A launch overlapping a collective: on every GPU of the machine, a kernel that spins on a
//! stream of its own while an all-reduce of 256 MiB of `f32` runs on the GPU's stream, timed
//! against each alone and against the two one after the other on one stream. Overlap is
//! `(kernel + all-reduce − both) / min(kernel, all-reduce)`: 1 when the shorter one hides
//! entirely behind the longer, 0 when they run one after the other. The spinning kernel is a
//! few blocks, so that it leaves NCCL the SMs it needs, and is sized to last about as long as
//! the all-reduce.
//!
//! Needs the `nccl` feature, two GPUs or more and `libnccl.so.2`; otherwise it prints why and
//! exits successfully (unless `KERNEL_REQUIRE_GPU=1`). Lines starting with `BENCH ` are JSON.
#![allow(clippy::disallowed_methods, missing_docs)]

use std::time::Instant;

use cuda_kernel_runtime::{Communicator, Error, Gpu, Group, Launch, ReduceOp, cuda_module};
use kernel_test_support::bench::{median, report};

cuda_module! {
    mod busy {
        source = r#"
            // Spins `cycles` clock cycles.
            extern "C" __global__ void spin(unsigned long long cycles) {
                long long start = clock64();
                while ((unsigned long long)(clock64() - start) < cycles) {}
            }
        "#;
    }
}

/// 256 MiB of `f32` per GPU.
const LEN: usize = 1 << 26;
const REPS: usize = 15;

fn sync_all(gpus: &[Gpu]) -> Result<(), Error> {
    for g in gpus {
        g.synchronize_device()?;
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let count = Gpu::count().unwrap_or(0);
    if count < 2 {
        if kernel_test_support::gpu_or_skip().is_some() {
            assert!(
                !kernel_test_support::gpu_required() || count >= 2,
                "one GPU: the overlap bench needs two"
            );
            println!("skipped: one GPU; the overlap bench needs two or more");
        }
        return Ok(());
    }
    let gpus: Vec<Gpu> = (0..count).map(Gpu::new).collect::<Result<_, _>>()?;
    let comms = Communicator::for_gpus(&gpus)?;
    let mut bufs: Vec<_> = gpus
        .iter()
        .map(|g| g.upload(&vec![1.0f32; LEN]))
        .collect::<Result<_, _>>()?;
    let sides: Vec<Gpu> = gpus
        .iter()
        .map(|g| Ok(g.with_stream(&g.new_stream()?)))
        .collect::<Result<_, Error>>()?;
    let on_side: Vec<_> = sides.iter().map(busy::load).collect::<Result<_, _>>()?;
    let on_main: Vec<_> = gpus.iter().map(busy::load).collect::<Result<_, _>>()?;
    let small = Launch::new(8, 32);

    let all_reduce = |bufs: &mut Vec<_>| -> Result<(), Error> {
        let mut group = Group::start()?;
        for (c, b) in comms.iter().zip(bufs.iter_mut()) {
            group.all_reduce_in_place(c, b, &ReduceOp::Sum)?;
        }
        group.end()
    };
    // Connect the ranks and warm up.
    for _ in 0..3 {
        all_reduce(&mut bufs)?;
    }
    sync_all(&gpus)?;
    let time = |f: &mut dyn FnMut() -> Result<(), Error>| -> Result<f64, Error> {
        let mut samples = Vec::new();
        for _ in 0..REPS {
            let t = Instant::now();
            f()?;
            sync_all(&gpus)?;
            samples.push(t.elapsed().as_secs_f64());
        }
        Ok(median(samples))
    };
    let t_ar = time(&mut || all_reduce(&mut bufs))?;
    // Size the spin to the all-reduce: time a known number of cycles first.
    let probe = 10_000_000u64;
    let t_probe = time(&mut || {
        for k in &on_side {
            // SAFETY: spin reads nothing and writes nothing.
            unsafe { k.spin(&small, probe)? };
        }
        Ok(())
    })?;
    let cycles = (probe as f64 * t_ar / t_probe) as u64;
    let spin_all = |ks: &Vec<busy::Module>| -> Result<(), Error> {
        for k in ks {
            // SAFETY: as above.
            unsafe { k.spin(&small, cycles)? };
        }
        Ok(())
    };
    let t_k = time(&mut || spin_all(&on_side))?;
    let t_both = time(&mut || {
        spin_all(&on_side)?;
        all_reduce(&mut bufs)
    })?;
    let t_serial = time(&mut || {
        spin_all(&on_main)?;
        all_reduce(&mut bufs)
    })?;
    let overlap = (t_k + t_ar - t_both) / t_k.min(t_ar);
    println!(
        "devices: {} x {} ({})",
        count,
        gpus[0].name(),
        gpus[0].arch()
    );
    report("overlap.all_reduce_ms", t_ar * 1e3, "ms");
    report("overlap.kernel_ms", t_k * 1e3, "ms");
    report("overlap.both_on_two_streams_ms", t_both * 1e3, "ms");
    report("overlap.one_after_the_other_ms", t_serial * 1e3, "ms");
    report("overlap.fraction_hidden", overlap, "x");
    Ok(())
}
