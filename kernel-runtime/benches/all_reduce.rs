//! All-reduce bus bandwidth of 1 GiB of `f32` on every GPU of the machine: through the
//! runtime's collectives (`Communicator::for_gpus`, a `Group` of in-place all-reduces over
//! the default buffers, each ordered as a launch is) against NCCL called directly in the same
//! process (its own communicators from `ncclCommInitAll`, buffers from `cuMemAlloc`, a stream
//! per device, `ncclAllReduce` in a group). The two are timed in alternation, several rounds;
//! bus bandwidth is `bytes × 2(n−1)/n / time`, as NCCL's own tests report it.
//!
//! Needs the `nccl` feature, two GPUs or more and `libnccl.so.2`; otherwise it prints why and
//! exits successfully (unless `KERNEL_REQUIRE_GPU=1`). Lines starting with `BENCH ` are JSON.
#![allow(
    clippy::disallowed_methods,
    clippy::undocumented_unsafe_blocks,
    missing_docs
)]

use std::ffi::{c_int, c_void};
use std::time::Instant;

use cuda_kernel_objects::native::Library;
use cuda_kernel_runtime::cudarc::driver::{result, sys};
use cuda_kernel_runtime::{Communicator, Gpu, Group, ReduceOp, TrackedBuffer};
use kernel_test_support::bench::{median, report};

/// 1 GiB of `f32` per GPU.
const LEN: usize = 1 << 28;
const ITERS: usize = 10;
const ROUNDS: usize = 5;

type Comm = *mut c_void;

/// The NCCL entry points the direct path calls.
struct Nccl {
    _lib: Library,
    init_all: unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> c_int,
    group_start: unsafe extern "C" fn() -> c_int,
    group_end: unsafe extern "C" fn() -> c_int,
    all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        Comm,
        sys::CUstream,
    ) -> c_int,
    destroy: unsafe extern "C" fn(Comm) -> c_int,
}

impl Nccl {
    fn open() -> Option<Nccl> {
        let lib = Library::open("NCCL", &["libnccl.so.2", "libnccl.so"]).ok()?;
        unsafe {
            Some(Nccl {
                init_all: lib.function("ncclCommInitAll").ok()?,
                group_start: lib.function("ncclGroupStart").ok()?,
                group_end: lib.function("ncclGroupEnd").ok()?,
                all_reduce: lib.function("ncclAllReduce").ok()?,
                destroy: lib.function("ncclCommDestroy").ok()?,
                _lib: lib,
            })
        }
    }
}

fn ok(what: &str, code: c_int) {
    assert_eq!(code, 0, "{what} returned {code}");
}

/// NCCL called directly: its communicators, buffers and streams.
struct Direct {
    nccl: Nccl,
    comms: Vec<Comm>,
    bufs: Vec<sys::CUdeviceptr>,
    streams: Vec<sys::CUstream>,
}

impl Direct {
    fn new(gpus: &[Gpu], nccl: Nccl) -> Direct {
        let n = gpus.len();
        let mut comms = vec![std::ptr::null_mut(); n];
        let devs: Vec<c_int> = (0..n as c_int).collect();
        ok("ncclCommInitAll", unsafe {
            (nccl.init_all)(comms.as_mut_ptr(), n as c_int, devs.as_ptr())
        });
        let mut bufs = Vec::new();
        let mut streams = Vec::new();
        for g in gpus {
            g.context().bind_to_thread().unwrap();
            let p = unsafe { result::malloc_sync(LEN * 4) }.unwrap();
            // Bytes of 0x3c: every value a small positive float, not zero.
            unsafe { result::memset_d8_sync(p, 0x3c, LEN * 4) }.unwrap();
            bufs.push(p);
            streams.push(result::stream::create(result::stream::StreamKind::NonBlocking).unwrap());
        }
        Direct {
            nccl,
            comms,
            bufs,
            streams,
        }
    }

    fn all_reduce(&self) {
        ok("ncclGroupStart", unsafe { (self.nccl.group_start)() });
        for i in 0..self.comms.len() {
            let p = self.bufs[i] as *mut c_void;
            // ncclFloat32 = 7, ncclSum = 0.
            ok("ncclAllReduce", unsafe {
                (self.nccl.all_reduce)(p, p, LEN, 7, 0, self.comms[i], self.streams[i])
            });
        }
        ok("ncclGroupEnd", unsafe { (self.nccl.group_end)() });
    }

    fn wait(&self, gpus: &[Gpu]) {
        for (g, s) in gpus.iter().zip(&self.streams) {
            g.context().bind_to_thread().unwrap();
            unsafe { result::stream::synchronize(*s) }.unwrap();
        }
    }
}

impl Drop for Direct {
    fn drop(&mut self) {
        for c in &self.comms {
            unsafe { (self.nccl.destroy)(*c) };
        }
    }
}

fn runtime_all_reduce(comms: &[Communicator], bufs: &mut [TrackedBuffer<f32>]) {
    let mut group = Group::start().unwrap();
    for (c, b) in comms.iter().zip(bufs.iter_mut()) {
        group.all_reduce_in_place(c, b, &ReduceOp::Sum).unwrap();
    }
    group.end().unwrap();
}

fn wait_all(gpus: &[Gpu]) {
    for g in gpus {
        g.synchronize().unwrap();
    }
}

/// Seconds per all-reduce of `f`, `ITERS` back to back.
fn per_op(f: &mut dyn FnMut(), wait: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..ITERS {
        f();
    }
    wait();
    t.elapsed().as_secs_f64() / ITERS as f64
}

fn main() {
    let count = Gpu::count().unwrap_or(0);
    let required = kernel_test_support::gpu_required();
    if count < 2 {
        assert!(
            !required || count == 0,
            "{count} GPU: the all-reduce needs two"
        );
        if let Some(_gpu) = kernel_test_support::gpu_or_skip() {
            println!("skipped: one GPU; the all-reduce bench needs two or more");
        }
        return;
    }
    let Some(nccl) = Nccl::open() else {
        assert!(!required, "libnccl.so.2 could not be opened");
        println!("skipped: libnccl.so.2 could not be opened");
        return;
    };
    let gpus: Vec<Gpu> = (0..count).map(|i| Gpu::new(i).unwrap()).collect();
    let n = gpus.len();
    println!(
        "devices: {} x {} ({}), NCCL {:?}",
        n,
        gpus[0].name(),
        gpus[0].arch(),
        Communicator::nccl_version().unwrap()
    );
    let comms = Communicator::for_gpus(&gpus).unwrap();
    let mut bufs: Vec<TrackedBuffer<f32>> = gpus
        .iter()
        .map(|g| g.upload(&vec![1.0f32; LEN]).unwrap())
        .collect();
    let direct = Direct::new(&gpus, nccl);
    // Warm up both paths.
    for _ in 0..2 {
        runtime_all_reduce(&comms, &mut bufs);
        direct.all_reduce();
    }
    wait_all(&gpus);
    direct.wait(&gpus);

    let bytes = (LEN * 4) as f64;
    let bus = |t: f64| bytes * 2.0 * (n as f64 - 1.0) / n as f64 / t / 1e9;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ours.push(per_op(
            &mut || runtime_all_reduce(&comms, &mut bufs),
            &mut || wait_all(&gpus),
        ));
        theirs.push(per_op(&mut || direct.all_reduce(), &mut || {
            direct.wait(&gpus)
        }));
    }
    let (ours, theirs) = (median(ours), median(theirs));
    report("all_reduce.runtime_busbw", bus(ours), "GB/s");
    report("all_reduce.nccl_direct_busbw", bus(theirs), "GB/s");
    report(
        "all_reduce.runtime_over_direct",
        bus(ours) / bus(theirs),
        "x",
    );
    report("all_reduce.runtime_ms", ours * 1e3, "ms");
    report("all_reduce.nccl_direct_ms", theirs * 1e3, "ms");
    println!(
        "BENCH_SUMMARY {{\"gpus\":{n},\"runtime_busbw\":{:.2},\"direct_busbw\":{:.2},\"ratio\":{:.4}}}",
        bus(ours),
        bus(theirs),
        bus(ours) / bus(theirs)
    );
}
