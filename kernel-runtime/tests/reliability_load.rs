//! GPU load tests: 16 threads × 100,000 launches on 16 streams with every result checked, and
//! 100,000 module load/unload and alloc/free cycles with host memory (VmRSS) and device memory
//! flat. The tests take turns (one lock), so each measures only itself.
//!
//! `RELIABILITY_ITERATIONS=N` replaces the counts (for slow runs, e.g. under compute-sanitizer).

mod common;
mod reliability_common;

use std::sync::{Barrier, Mutex};

use cuda_kernel_runtime::__private::load_module;
use cuda_kernel_runtime::TrackedBuffer;
use cuda_kernel_runtime::{Gpu, Launch, RawModule};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};
use reliability_common::{RELIABILITY, SPEC, idx, iterations, rss_bytes};

static TURN: Mutex<()> = Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Host memory may grow by this much over a whole run (allocator caches, lazy statics); a leak of
/// 100 bytes per cycle would already exceed it.
const RSS_BOUND: u64 = 8 << 20;
/// Device memory may grow by this much (allocation granularity, driver pools).
const DEVICE_BOUND: usize = 64 << 20;

/// What a cycle-test measures before and after.
struct Snapshot {
    rss: u64,
    free: usize,
}

impl Snapshot {
    fn take(gpu: &Gpu) -> Snapshot {
        gpu.synchronize().unwrap();
        Snapshot {
            rss: rss_bytes(),
            free: gpu.free_memory().unwrap(),
        }
    }

    /// Asserts that neither host nor device memory grew past the bounds since `self`.
    fn assert_flat(&self, gpu: &Gpu, what: &str, cycles: usize) {
        let after = Snapshot::take(gpu);
        let rss_growth = after.rss.saturating_sub(self.rss);
        let device_growth = self.free.saturating_sub(after.free);
        println!(
            "{what}: {cycles} cycles, VmRSS {} -> {} KiB (+{} KiB), device free {} -> {} MiB",
            self.rss >> 10,
            after.rss >> 10,
            rss_growth >> 10,
            self.free >> 20,
            after.free >> 20
        );
        assert!(
            rss_growth <= RSS_BOUND,
            "{what}: host memory grew by {rss_growth} bytes"
        );
        assert!(
            device_growth <= DEVICE_BOUND,
            "{what}: device memory grew by {device_growth} bytes"
        );
    }
}

#[test]
fn sixteen_threads_launch_100k_times_each_on_16_streams() {
    let Some(gpu) = gpu_or_skip() else { return };
    let _turn = turn();
    let launches = iterations(100_000);
    let module = load_module(&gpu, &SPEC).unwrap();
    let n = 1000usize;
    let start = Barrier::new(16);
    std::thread::scope(|s| {
        for t in 0..16u64 {
            let (gpu, module, start) = (&gpu, &module, &start);
            s.spawn(move || {
                let stream = gpu.new_stream().unwrap();
                let on = gpu.with_stream(&stream);
                let k = module.with_stream(&stream).kernel(idx::ADD_U32).unwrap();
                let initial = Rng::with_seed(100 + t).nonzero_u32s(n);
                let mut x = on.upload(&initial).unwrap();
                let cfg = Launch::for_num_elems(n as u32);
                start.wait();
                let mut added = 0u32;
                for i in 0..launches {
                    let v = (i as u32 % 7) + t as u32 + 1;
                    added = added.wrapping_add(v);
                    // SAFETY: add_u32(unsigned*, int, unsigned) on an n-element buffer.
                    unsafe { k.launch(&cfg, (&mut x, n as i32, v)).unwrap() };
                }
                let got = on.download(&x).unwrap();
                let want: Vec<u32> = initial.iter().map(|v| v.wrapping_add(added)).collect();
                assert_eq!(got, want, "thread {t}");
            });
        }
    });
    println!("16 threads x {launches} launches checked");
}

#[test]
fn module_load_unload_cycles_keep_memory_flat() {
    let Some(gpu) = gpu_or_skip() else { return };
    let _turn = turn();
    let mut counter = gpu.zeros::<u32>(1).unwrap();
    let cfg = Launch::new(1, 1);
    let cycle = |counter: &mut TrackedBuffer<u32>| {
        let m = RawModule::load_bytes(&gpu, &RELIABILITY.0).unwrap();
        let k = m.kernel("add_u32").unwrap();
        // SAFETY: add_u32(unsigned*, int, unsigned) on a 1-element buffer.
        unsafe { k.launch(&cfg, (counter, 1i32, 1u32)).unwrap() };
        // The launch must finish before its module is unloaded.
        gpu.synchronize().unwrap();
    };
    let warm_up = 1000;
    for _ in 0..warm_up {
        cycle(&mut counter);
    }
    let cycles = iterations(100_000);
    let before = Snapshot::take(&gpu);
    for _ in 0..cycles {
        cycle(&mut counter);
    }
    before.assert_flat(&gpu, "module load/unload", cycles);
    assert_eq!(gpu.download(&counter).unwrap(), [(warm_up + cycles) as u32]);
}

#[test]
fn alloc_free_cycles_keep_memory_flat() {
    let Some(gpu) = gpu_or_skip() else { return };
    let _turn = turn();
    let mut rng = Rng::with_seed(200);
    // Sizes from 1 element to 4 Mi elements, so several allocation classes are exercised.
    let sizes: Vec<usize> = (0..64)
        .map(|i| 1 + (rng.usize(..4 << 20)) * (i % 2))
        .collect();
    let cycle = |i: usize| {
        let len = sizes[i % sizes.len()];
        let mut buf = gpu.zeros::<u32>(len).unwrap();
        let stamp = [i as u32];
        gpu.upload_into(&stamp, &mut buf.slice_mut(len - 1..))
            .unwrap();
        if i.is_multiple_of(1000) {
            let back = gpu.download(&buf.slice(len - 1..)).unwrap();
            assert_eq!(back, stamp, "cycle {i}");
        }
    };
    for i in 0..1000 {
        cycle(i);
    }
    let cycles = iterations(100_000);
    let before = Snapshot::take(&gpu);
    for i in 0..cycles {
        cycle(i);
    }
    before.assert_flat(&gpu, "alloc/free", cycles);
}
