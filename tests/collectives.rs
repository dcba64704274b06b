//! NCCL collectives on every GPU of the machine, through the runtime's buffers and views,
//! each against a CPU reference; their ordering with kernels on other streams (a collective
//! waits for a slow kernel that writes its input, and a kernel on another stream waits for a
//! collective that writes what it reads); and two processes (this binary run again as ranks 0
//! and 1) joined by a unique id passed through a file. Work on every GPU timed together
//! (`Gpu::time_all`, `Communicator::time`); communicators made with a timeout (non-blocking)
//! reducing eagerly and in captured graphs, and a rank whose peer never joins ending in the
//! timeout error (in a child process, on one GPU).
//!
//! Skips (with the reason) with fewer than two GPUs (one for the lone rank) or without
//! libnccl; fails when
//! `KERNEL_REQUIRE_GPUS` asks for at least two GPUs and fewer are there, and when
//! `KERNEL_REQUIRE_GPU=1`, a GPU is there and NCCL is not. Needs `--features nccl`.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Barrier, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cuda_kernel_runtime::{
    Communicator, DeviceMemoryMut, Error, Gpu, Group, Launch, ReduceOp, TrackedBuffer, UniqueId,
    cuda_module, f16,
};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip, gpu_required};

cuda_module! {
    mod slow {
        source = r#"
            // x[i] = v after every thread has spun `cycles` clock cycles: writes late.
            extern "C" __global__ void late_fill(
                float* x, float v, int n, unsigned long long cycles) {
                long long start = clock64();
                while ((unsigned long long)(clock64() - start) < cycles) {}
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = v;
            }

            // Spins `cycles` clock cycles: holds back what its stream queues after it.
            extern "C" __global__ void spin(unsigned long long cycles) {
                long long start = clock64();
                while ((unsigned long long)(clock64() - start) < cycles) {}
            }

            // y = s * x.
            extern "C" __global__ void scale(const float* x, float* y, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = s * x[i];
            }
        "#;
    }
}

/// About 25 ms of spinning on an H100 (1.98 GHz): far longer than queueing what follows.
const CYCLES: u64 = 50_000_000;

/// A call that fails before NCCL takes it (here a length mismatch on rank 1) makes its group
/// drop every collective, so that rank 0's does not wait forever for rank 1's; a group or a
/// collective cannot be opened inside a group; the communicators work on afterwards.
#[test]
fn a_failed_call_drops_its_group_whole_and_groups_do_not_nest() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let comms = Communicator::for_gpus(&gpus)?;
    connect(&gpus, &comms)?;
    let mut xs: Vec<_> = gpus
        .iter()
        .map(|g| g.upload(&vec![1.0f32; 1024]))
        .collect::<Result<_, _>>()?;
    let mut short = gpus[1].zeros::<f32>(512)?;
    let mut other = gpus[0].zeros::<f32>(1024)?;
    {
        let (first, rest) = xs.split_at_mut(1);
        let mut group = Group::start()?;
        assert!(matches!(Group::start(), Err(Error::Collective { .. })));
        assert!(matches!(
            comms[0].all_reduce_in_place(&mut other, &ReduceOp::Sum),
            Err(Error::Collective { .. })
        ));
        group.all_reduce_in_place(&comms[0], &mut first[0], &ReduceOp::Sum)?;
        let mismatch = group.all_reduce(&comms[1], &rest[0], &mut short, &ReduceOp::Sum);
        assert!(mismatch.is_err(), "{mismatch:?}");
        // Dropped without `end`, as `?` would: nothing of it may run.
    }
    for g in &gpus {
        g.synchronize()?;
    }
    assert_eq!(
        gpus[0].download(&xs[0])?[..4],
        [1.0; 4],
        "rank 0's collective ran alone"
    );
    sum_on_every_rank(&comms, &mut xs)?;
    let n = gpus.len() as f32;
    for (g, x) in gpus.iter().zip(&xs) {
        assert!(g.download(x)?.iter().all(|&v| v == n));
    }
    Ok(())
}

/// A rank whose peers never make the matching call: `wait` ends with an error naming the
/// rank instead of waiting forever, `abort` ends the collective and frees the stream, the
/// device works on, and new communicators reduce again (against the CPU).
#[test]
fn a_rank_left_waiting_ends_by_timeout_and_abort() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let comms = Communicator::for_gpus(&gpus)?;
    connect(&gpus, &comms)?;
    for c in &comms {
        c.async_error()?;
        c.wait(Duration::from_secs(10))?;
    }
    let mut alone = gpus[0].upload(&data(7, 0, 1 << 16))?;
    // Rank 0 only: the collective waits on the device for ranks that never join it.
    comms[0].all_reduce_in_place(&mut alone, &ReduceOp::Sum)?;
    let timeout = Duration::from_millis(300);
    let started = Instant::now();
    let waited = comms[0].wait(timeout);
    let elapsed = started.elapsed();
    match &waited {
        Err(Error::Collective { call, problem }) => {
            assert_eq!(*call, "Communicator::wait");
            assert!(problem.contains("rank 0 of"), "{problem}");
            assert!(problem.contains("300ms"), "{problem}");
        }
        other => panic!("expected the wait to time out: {other:?}"),
    }
    assert!(
        elapsed >= timeout && elapsed < Duration::from_secs(5),
        "{elapsed:?}"
    );
    // An absent peer is no NCCL error: only the timeout says something is wrong.
    comms[0].async_error()?;
    // A watchdog thread aborts rank 0 through its handle while this thread waits.
    let handle = comms[0].abort_handle();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        handle.abort();
    });
    let started = Instant::now();
    let waited = comms[0].wait(Duration::from_secs(60));
    let elapsed = started.elapsed();
    watchdog.join().expect("the watchdog");
    match &waited {
        Err(Error::Collective { problem, .. }) => {
            assert!(problem.contains("AbortHandle"), "{problem}")
        }
        other => panic!("expected the handle's abort: {other:?}"),
    }
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    println!("abort through the handle ended the wait after {elapsed:?}");
    // Rank 0 is gone: a collective on it is refused, not queued.
    let mut again = gpus[0].zeros::<f32>(16)?;
    assert!(matches!(
        comms[0].all_reduce_in_place(&mut again, &ReduceOp::Sum),
        Err(Error::Collective { .. })
    ));
    let started = Instant::now();
    for c in comms {
        c.abort()?;
    }
    println!("abort took {:?}", started.elapsed());
    gpus[0].synchronize()?;
    let probe = data(8, 0, 256);
    assert_eq!(gpus[0].download(&gpus[0].upload(&probe)?)?, probe);

    let comms = Communicator::for_gpus(&gpus)?;
    let parts: Vec<Vec<f32>> = (0..gpus.len()).map(|r| data(9, r, 4096)).collect();
    let mut xs: Vec<_> = gpus
        .iter()
        .zip(&parts)
        .map(|(g, p)| g.upload(p))
        .collect::<Result<_, _>>()?;
    sum_on_every_rank(&comms, &mut xs)?;
    let want = sum(&parts);
    for (got, c) in download_all(&gpus, &xs).iter().zip(&comms) {
        c.wait(Duration::from_secs(10))?;
        assert_close(got, &want, 1e-5);
    }
    Ok(())
}

/// Threads that each drive every GPU through communicators of their own, at once, on the
/// devices' default streams: each thread's groups of all-reduces (random data, against the
/// CPU) finish: the runtime queues whole groups in one order on every device, as NCCL asks
/// (it gives no forward-progress guarantee between communicators' kernels on one device). A
/// hang fails the test after 120 s instead of hanging the suite.
#[test]
fn threads_driving_every_gpu_at_once_do_not_wait_for_each_other() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    const THREADS: usize = 4;
    const ROUNDS: usize = 40;
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let gpus = gpus.clone();
            std::thread::spawn(move || -> Result<(), Error> {
                let comms = Communicator::for_gpus(&gpus)?;
                let parts: Vec<Vec<f32>> = (0..gpus.len())
                    .map(|r| data(20 + t as u64, r, 4096))
                    .collect();
                let want = sum(&parts);
                for round in 0..ROUNDS {
                    let mut xs: Vec<_> = gpus
                        .iter()
                        .zip(&parts)
                        .map(|(g, p)| g.upload(p))
                        .collect::<Result<_, _>>()?;
                    sum_on_every_rank(&comms, &mut xs)?;
                    if round % 8 == 7 {
                        for got in download_all(&gpus, &xs) {
                            assert_close(&got, &want, 1e-5 * gpus.len() as f32);
                        }
                    }
                }
                for g in &gpus {
                    g.synchronize()?;
                }
                Ok(())
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !workers.iter().all(|w| w.is_finished()) {
        assert!(
            Instant::now() < deadline,
            "{THREADS} threads of {ROUNDS} grouped all-reduces each did not finish in 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for w in workers {
        w.join().expect("a thread panicked")?;
    }
    println!(
        "{THREADS} threads × {ROUNDS} groups over {} GPUs: all sums checked",
        gpus.len()
    );
    Ok(())
}

/// A split by color (`ncclCommSplit`, every rank of one thread together): ranks of even and
/// odd rank form two communicators ranked in their old order, and on four or more GPUs the last
/// rank joins none; an all-reduce within each sums only its members' data (against the CPU).
/// A color count other than the ranks' and a split inside a group are refused.
#[test]
fn split_communicators_reduce_within_their_color() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let n = gpus.len();
    let world = Communicator::for_gpus(&gpus)?;
    assert!(matches!(
        Communicator::split_all(&world, &[Some(0)]),
        Err(Error::Collective { .. })
    ));
    {
        let _group = Group::start()?;
        assert!(matches!(
            Communicator::split_all(&world, &vec![Some(0); n]),
            Err(Error::Collective { .. })
        ));
    }
    let colors: Vec<Option<u32>> = (0..n)
        .map(|r| (n < 4 || r + 1 < n).then_some(r as u32 % 2))
        .collect();
    let split = Communicator::split_all(&world, &colors)?;
    let members =
        |color: u32| -> Vec<usize> { (0..n).filter(|&r| colors[r] == Some(color)).collect() };
    for (r, comm) in split.iter().enumerate() {
        match (colors[r], comm) {
            (None, None) => {}
            (Some(color), Some(comm)) => {
                let mine = members(color);
                assert_eq!(comm.ranks(), mine.len(), "rank {r}");
                assert_eq!(
                    comm.rank(),
                    mine.iter().position(|&m| m == r).unwrap(),
                    "rank {r}"
                );
                assert_eq!(comm.gpu().ordinal(), gpus[r].ordinal());
            }
            other => panic!("rank {r}: color {:?}, communicator {:?}", other.0, other.1),
        }
    }
    let parts: Vec<Vec<f32>> = (0..n).map(|r| data(11, r, 2048)).collect();
    let mut xs: Vec<_> = gpus
        .iter()
        .zip(&parts)
        .map(|(g, p)| g.upload(p))
        .collect::<Result<_, _>>()?;
    let mut group = Group::start()?;
    for (comm, x) in split.iter().zip(&mut xs) {
        if let Some(comm) = comm {
            group.all_reduce_in_place(comm, x, &ReduceOp::Sum)?;
        }
    }
    group.end()?;
    let got = download_all(&gpus, &xs);
    for r in 0..n {
        let want = match colors[r] {
            Some(color) => sum(&members(color)
                .iter()
                .map(|&m| parts[m].clone())
                .collect::<Vec<_>>()),
            None => parts[r].clone(),
        };
        assert_close(&got[r], &want, 1e-5);
    }
    println!("split {n} ranks by colors {colors:?}: each color's sum checked");
    Ok(())
}

/// One test at a time makes and drives communicators in this process; the others wait here
/// (the harness still runs them in its threads, and the tests that only start other processes
/// run beside them). NCCL's rule for several communicators on one device: a collective's
/// kernel waits on its device for its peers' kernels, and a call that waits for the whole
/// device (NCCL's own communicator setup and teardown free and map device memory) waits for
/// it; when two jobs share the devices, each can hold a device the other's next rank needs to
/// launch on, and both wait forever (docs/RUNTIME.md, "Several jobs, one set of devices").
static DEVICES: Mutex<()> = Mutex::new(());

/// The devices, alone, for communicators made in this process.
fn alone_on_the_devices() -> MutexGuard<'static, ()> {
    DEVICES.lock().unwrap_or_else(|p| p.into_inner())
}

/// A data-parallel step (a kernel scales each rank's input, an all-reduce sums it, a kernel
/// scales the sum) captured once into a graph per GPU and replayed, one thread per rank (each
/// owning its communicator; the collective goes into the graph through `on_stream` on the
/// capturing stream): the replay's result equals the eager step's and the CPU's; the mean
/// time of an eager step and of a replay are printed.
#[test]
fn a_data_parallel_step_captured_in_graphs_equals_the_eager_step() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let n = gpus.len();
    let comms = Communicator::for_gpus(&gpus)?;
    connect(&gpus, &comms)?;
    let len = 1 << 20;
    let parts: Vec<Vec<f32>> = (0..n).map(|r| data(30, r, len)).collect();
    let want: Vec<f32> = sum(&parts).iter().map(|v| 1.5 * v).collect();
    let results = std::thread::scope(|s| {
        let ranks: Vec<_> = comms
            .into_iter()
            .map(|comm| {
                let parts = &parts;
                s.spawn(move || graph_rank(comm, parts))
            })
            .collect();
        ranks
            .into_iter()
            .map(|r| r.join().expect("a rank's thread"))
            .collect::<Result<Vec<_>, Error>>()
    })?;
    for (r, (eager, replayed, eager_time, replay_time)) in results.iter().enumerate() {
        assert_close(eager, &want, 1e-5 * n as f32);
        assert_close(replayed, eager, 1e-6);
        let largest = replayed
            .iter()
            .zip(eager)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        println!(
            "rank {r}: graph replay equals the eager step (largest difference {largest:e}); \
             step of 2 kernels + an all-reduce of {len} f32 on {n} GPUs: eager {eager_time:?}, \
             graph replay {replay_time:?}"
        );
    }
    Ok(())
}

/// One rank of the test above: the step eagerly, then captured and replayed; then each timed.
fn graph_rank(
    comm: Communicator,
    parts: &[Vec<f32>],
) -> Result<(Vec<f32>, Vec<f32>, Duration, Duration), Error> {
    const TIMES: u32 = 50;
    let gpu = comm.gpu().clone();
    let m = slow::load(&gpu)?;
    let x = gpu.upload(&parts[comm.rank()])?;
    let len = x.len();
    let (mut y, mut z) = (gpu.zeros::<f32>(len)?, gpu.zeros::<f32>(len)?);
    let launch = Launch::for_num_elems(len as u32);
    // y = x / 2, y summed over the ranks, z = 3 y; on `on`'s stream.
    let step = |on: &Gpu, y: &mut TrackedBuffer<f32>, z: &mut TrackedBuffer<f32>| {
        let k = m.with_stream(on.stream());
        // SAFETY: scale reads its input and writes its output, len floats each.
        unsafe { k.scale(&launch, &x, &mut *y, 0.5, len as i32)? };
        comm.on_stream(on.stream())?
            .all_reduce_in_place(&mut *y, &ReduceOp::Sum)?;
        // SAFETY: as above.
        unsafe { k.scale(&launch, &*y, z, 3.0, len as i32) }
    };
    step(&gpu, &mut y, &mut z)?;
    let eager = z.download(&gpu)?;
    z.memset_zeros(&gpu)?;
    let graph = gpu.capture(|g| step(g, &mut y, &mut z))?;
    graph.launch()?;
    let replayed = z.download(&gpu)?;

    comm.wait(Duration::from_secs(60))?;
    let started = Instant::now();
    for _ in 0..TIMES {
        step(&gpu, &mut y, &mut z)?;
    }
    comm.wait(Duration::from_secs(60))?;
    let eager_time = started.elapsed() / TIMES;
    let started = Instant::now();
    for _ in 0..TIMES {
        graph.launch()?;
    }
    comm.wait(Duration::from_secs(60))?;
    let replay_time = started.elapsed() / TIMES;
    assert_eq!(z.download(&gpu)?, replayed, "the last replay");
    Ok((eager, replayed, eager_time, replay_time))
}

/// An in-place sum of `xs[r]` over every rank, rank `r` being `comms[r]`, in one group.
fn sum_on_every_rank(comms: &[Communicator], xs: &mut [TrackedBuffer<f32>]) -> Result<(), Error> {
    let mut group = Group::start()?;
    for (c, x) in comms.iter().zip(xs) {
        group.all_reduce_in_place(c, x, &ReduceOp::Sum)?;
    }
    group.end()
}

/// One all-reduce on every rank, waited for: NCCL's connections made before a test's
/// streams race.
fn connect(gpus: &[Gpu], comms: &[Communicator]) -> Result<(), Error> {
    let mut xs: Vec<_> = gpus
        .iter()
        .map(|g| g.zeros::<f32>(1024))
        .collect::<Result<_, _>>()?;
    sum_on_every_rank(comms, &mut xs)?;
    for g in gpus {
        g.synchronize()?;
    }
    Ok(())
}

/// Every GPU of the machine with NCCL, or `None` after printing why not.
#[track_caller]
fn gpus_or_skip() -> Option<Vec<Gpu>> {
    let first = gpu_or_skip()?;
    let test = std::thread::current()
        .name()
        .unwrap_or("collectives")
        .to_owned();
    let count = Gpu::count().expect("counting devices");
    #[allow(clippy::disallowed_methods)] // a test switch, not a build input Cargo must track
    let wanted: usize = std::env::var("KERNEL_REQUIRE_GPUS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if count < 2 {
        assert!(
            wanted < 2,
            "KERNEL_REQUIRE_GPUS={wanted} but the driver reports {count} device(s)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {test}: needs two GPUs (the driver reports {count})"
        );
        return None;
    }
    match Communicator::nccl_version() {
        Ok((major, minor, patch)) => println!("NCCL {major}.{minor}.{patch}, {count} GPUs"),
        Err(e @ Error::NoNccl { .. }) => {
            assert!(
                !gpu_required(),
                "KERNEL_REQUIRE_GPU=1 and a GPU is there, but: {e}"
            );
            let _ = writeln!(std::io::stderr(), "skipped: {test}: {e}");
            return None;
        }
        Err(e) => panic!("{e}"),
    }
    drop(first);
    Some(
        (0..count)
            .map(|i| Gpu::new(i).expect("opening a device"))
            .collect(),
    )
}

/// Random non-zero values for rank `rank`, `n` of them.
fn data(seed: u64, rank: usize, n: usize) -> Vec<f32> {
    Rng::with_seed(seed * 100 + rank as u64).nonzero_f32s(n)
}

/// Element-wise sum of `parts` in f64, rounded once.
fn sum(parts: &[Vec<f32>]) -> Vec<f32> {
    (0..parts[0].len())
        .map(|i| parts.iter().map(|p| f64::from(p[i])).sum::<f64>() as f32)
        .collect()
}

fn download_all<T: cuda_kernel_runtime::DeviceRepr + Default + Clone>(
    gpus: &[Gpu],
    bufs: &[TrackedBuffer<T>],
) -> Vec<Vec<T>> {
    gpus.iter()
        .zip(bufs)
        .map(|(g, b)| b.download(g).expect("download"))
        .collect()
}

#[test]
fn every_collective_matches_the_cpu_on_every_gpu() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let n = gpus.len();
    let comms = Communicator::for_gpus(&gpus)?;
    let len = 1 << 16;
    let tol = 1e-5 * n as f32;

    // All-reduce, out of place (sum of f32) and in place (max of i32, on a view).
    let xs: Vec<Vec<f32>> = (0..n).map(|r| data(1, r, len)).collect();
    let x: Vec<_> = gpus
        .iter()
        .zip(&xs)
        .map(|(g, v)| g.upload(v))
        .collect::<Result<_, _>>()?;
    let mut total: Vec<_> = gpus
        .iter()
        .map(|g| g.zeros::<f32>(len))
        .collect::<Result<_, _>>()?;
    let mut group = Group::start()?;
    for ((c, x), t) in comms.iter().zip(&x).zip(&mut total) {
        group.all_reduce(c, x, t, &ReduceOp::Sum)?;
    }
    group.end()?;
    for got in download_all(&gpus, &total) {
        assert_close(&got, &sum(&xs), tol);
    }
    println!("step: all-reduce (sum, f32) checked");

    let is: Vec<Vec<i32>> = (0..n)
        .map(|r| {
            (0..len)
                .map(|i| ((i * 7 + r * 13) % 1001) as i32 - 500)
                .collect()
        })
        .collect();
    let mut ib: Vec<_> = gpus
        .iter()
        .zip(&is)
        .map(|(g, v)| g.upload(v))
        .collect::<Result<_, _>>()?;
    let mut views: Vec<_> = ib.iter_mut().map(|b| b.slice_mut(1..len - 1)).collect();
    let mut group = Group::start()?;
    for (c, v) in comms.iter().zip(&mut views) {
        group.all_reduce_in_place(c, v, &ReduceOp::Max)?;
    }
    group.end()?;
    drop(views);
    for (r, got) in download_all(&gpus, &ib).into_iter().enumerate() {
        assert_eq!(got[0], is[r][0], "outside the view");
        assert_eq!(got[len - 1], is[r][len - 1], "outside the view");
        for i in 1..len - 1 {
            assert_eq!(got[i], is.iter().map(|v| v[i]).max().unwrap(), "index {i}");
        }
    }
    println!("step: all-reduce in place (max, i32, a view) checked");

    // f16 sum of small integers: exact.
    let hs: Vec<Vec<f16>> = (0..n)
        .map(|r| {
            (0..len)
                .map(|i| f16::from_f32(((i + r) % 7) as f32 + 1.0))
                .collect()
        })
        .collect();
    let mut hb: Vec<_> = gpus
        .iter()
        .zip(&hs)
        .map(|(g, v)| g.upload(v))
        .collect::<Result<_, _>>()?;
    let mut group = Group::start()?;
    for (c, b) in comms.iter().zip(&mut hb) {
        group.all_reduce_in_place(c, b, &ReduceOp::Sum)?;
    }
    group.end()?;
    for got in download_all(&gpus, &hb) {
        for i in 0..len {
            let want: f32 = hs.iter().map(|v| v[i].to_f32()).sum();
            assert_eq!(got[i].to_f32(), want, "index {i}");
        }
    }
    println!("step: all-reduce (sum, f16) checked");

    // Broadcast from the last rank; broadcast in place from rank 0.
    let root = n - 1;
    let mut copies: Vec<_> = gpus
        .iter()
        .map(|g| g.zeros::<f32>(len))
        .collect::<Result<_, _>>()?;
    let mut group = Group::start()?;
    for ((c, x), d) in comms.iter().zip(&x).zip(&mut copies) {
        group.broadcast(c, (c.rank() == root).then_some(x), d, root)?;
    }
    group.end()?;
    for got in download_all(&gpus, &copies) {
        assert_eq!(got, xs[root]);
    }
    let mut own: Vec<_> = gpus
        .iter()
        .zip(&xs)
        .map(|(g, v)| g.upload(v))
        .collect::<Result<_, _>>()?;
    let mut group = Group::start()?;
    for (c, b) in comms.iter().zip(&mut own) {
        group.broadcast_in_place(c, b, 0)?;
    }
    group.end()?;
    for got in download_all(&gpus, &own) {
        assert_eq!(got, xs[0]);
    }
    println!("step: broadcast (from rank {root}, and in place from 0) checked");

    // Reduce (sum of i64) to rank 1.
    let ls: Vec<Vec<i64>> = (0..n)
        .map(|r| {
            (0..len)
                .map(|i| (i as i64 + 1) * (r as i64 + 3) - 7)
                .collect()
        })
        .collect();
    let lb: Vec<_> = gpus
        .iter()
        .zip(&ls)
        .map(|(g, v)| g.upload(v))
        .collect::<Result<_, _>>()?;
    let mut at_root = gpus[1].zeros::<i64>(len)?;
    // One thread hands the root's destination out once; the other ranks pass `None`.
    let mut root_dst: Option<&mut dyn DeviceMemoryMut<i64>> = Some(&mut at_root);
    let mut group = Group::start()?;
    for (c, b) in comms.iter().zip(&lb) {
        // Only the root passes a destination.
        let dst = if c.rank() == 1 { root_dst.take() } else { None };
        group.reduce(c, b, dst, &ReduceOp::Sum, 1)?;
    }
    group.end()?;
    let want: Vec<i64> = (0..len).map(|i| ls.iter().map(|v| v[i]).sum()).collect();
    assert_eq!(at_root.download(&gpus[1])?, want);
    println!("step: reduce (sum, i64) to rank 1 checked");

    // All-gather and reduce-scatter.
    let mut gathered: Vec<_> = gpus
        .iter()
        .map(|g| g.zeros::<f32>(len * n))
        .collect::<Result<_, _>>()?;
    let mut group = Group::start()?;
    for ((c, x), d) in comms.iter().zip(&x).zip(&mut gathered) {
        group.all_gather(c, x, d)?;
    }
    group.end()?;
    let concatenated: Vec<f32> = xs.concat();
    for got in download_all(&gpus, &gathered) {
        assert_eq!(got, concatenated);
    }
    let mut scattered: Vec<_> = gpus
        .iter()
        .map(|g| g.zeros::<f32>(len / n))
        .collect::<Result<_, _>>()?;
    let whole: Vec<_> = xs.iter().map(|v| v[..len / n * n].to_vec()).collect();
    let wb: Vec<_> = gpus
        .iter()
        .zip(&whole)
        .map(|(g, v)| g.upload(v))
        .collect::<Result<_, _>>()?;
    let mut group = Group::start()?;
    for ((c, w), d) in comms.iter().zip(&wb).zip(&mut scattered) {
        group.reduce_scatter(c, w, d, &ReduceOp::Sum)?;
    }
    group.end()?;
    let reduced = sum(&whole);
    for (r, got) in download_all(&gpus, &scattered).into_iter().enumerate() {
        assert_close(&got, &reduced[r * (len / n)..(r + 1) * (len / n)], tol);
    }
    println!("step: all-gather and reduce-scatter checked");

    // Send and receive around the ring: rank r sends to r + 1.
    let mut received: Vec<_> = gpus
        .iter()
        .map(|g| g.zeros::<f32>(len))
        .collect::<Result<_, _>>()?;
    let mut group = Group::start()?;
    for ((c, x), d) in comms.iter().zip(&x).zip(&mut received) {
        let r = c.rank();
        group.send(c, x, (r + 1) % n)?;
        group.recv(c, d, (r + n - 1) % n)?;
    }
    group.end()?;
    for (r, got) in download_all(&gpus, &received).into_iter().enumerate() {
        assert_eq!(got, xs[(r + n - 1) % n]);
    }
    println!("step: send/recv around the ring checked");

    // Arguments that do not fit are errors naming the call.
    let (a, b) = received.split_at_mut(1);
    let mut group = Group::start()?;
    let e = group
        .broadcast_in_place(&comms[0], &mut a[0], n)
        .unwrap_err();
    assert!(e.to_string().contains("ncclBroadcast"), "{e}");
    let e = group.all_gather(&comms[1], &x[1], &mut b[0]).unwrap_err();
    assert!(e.to_string().contains("ncclAllGather"), "{e}");
    drop(group);
    Ok(())
}

#[test]
fn a_collective_waits_for_a_slow_kernel_writing_its_input_on_another_stream() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let comms = Communicator::for_gpus(&gpus)?;
    // NCCL connects the ranks at their first collective, synchronising the device on the
    // way (which would order the fill before the collective whatever the runtime does):
    // connect them first.
    connect(&gpus, &comms)?;
    let len = 1 << 20;
    let mut xs = Vec::new();
    let mut sides = Vec::new();
    for (r, gpu) in gpus.iter().enumerate() {
        let side = gpu.new_stream()?;
        let m = slow::load(gpu)?.with_stream(&side);
        let mut x = gpu.zeros::<f32>(len)?;
        gpu.synchronize()?;
        // SAFETY: late_fill writes x[i] for i < n; x holds n floats.
        unsafe {
            m.late_fill(
                &Launch::for_num_elems(len as u32),
                &mut x,
                r as f32 + 1.0,
                len as i32,
                CYCLES,
            )?
        };
        xs.push(x);
        sides.push(side);
    }
    // On each GPU's own stream, while the fills still spin on the side streams.
    sum_on_every_rank(&comms, &mut xs)?;
    let n = gpus.len() as f32;
    let want = n * (n + 1.0) / 2.0;
    for (gpu, x) in gpus.iter().zip(&xs) {
        let got = x.download(gpu)?;
        assert!(
            got.iter().all(|&v| v == want),
            "device {}: {:?}...",
            gpu.ordinal(),
            &got[..4]
        );
    }
    Ok(())
}

/// Communicators moved to streams of their own (`set_stream`): a collective there still waits
/// for a slow kernel writing its input on the default stream, and the sum is right.
#[test]
fn collectives_on_a_stream_set_later_wait_for_the_kernel_writing_their_input() -> Result<(), Error>
{
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let mut comms = Communicator::for_gpus(&gpus)?;
    connect(&gpus, &comms)?;
    for (c, g) in comms.iter_mut().zip(&gpus) {
        c.set_stream(&g.new_stream()?)?;
        assert!(!std::sync::Arc::ptr_eq(c.gpu().stream(), g.stream()));
    }
    let foreign = gpus[1].new_stream()?;
    assert!(matches!(
        comms[0].set_stream(&foreign),
        Err(Error::ForeignContext { .. })
    ));
    let len = 1 << 20;
    let mut xs = Vec::new();
    for (r, gpu) in gpus.iter().enumerate() {
        let m = slow::load(gpu)?;
        let mut x = gpu.zeros::<f32>(len)?;
        // SAFETY: late_fill writes x[i] for i < n; x holds n floats.
        unsafe {
            m.late_fill(
                &Launch::for_num_elems(len as u32),
                &mut x,
                r as f32 + 2.0,
                len as i32,
                CYCLES,
            )?
        };
        xs.push(x);
    }
    sum_on_every_rank(&comms, &mut xs)?;
    let n = gpus.len() as f32;
    let want = n * (n + 3.0) / 2.0;
    for (gpu, x) in gpus.iter().zip(&xs) {
        let got = x.download(gpu)?;
        assert!(got.iter().all(|&v| v == want), "{:?}", &got[..4]);
    }
    for c in &comms {
        c.wait(Duration::from_secs(30))?;
    }
    Ok(())
}

#[test]
fn a_kernel_on_another_stream_waits_for_the_collective_it_reads() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let comms = Communicator::for_gpus(&gpus)?;
    connect(&gpus, &comms)?;
    let len = 1 << 20;
    let parts: Vec<Vec<f32>> = (0..gpus.len()).map(|r| data(7, r, len)).collect();
    let mut xs = Vec::new();
    let mut sides = Vec::new();
    for (gpu, part) in gpus.iter().zip(&parts) {
        // Written last on the side stream, so that only the collective's recorded write orders
        // the side stream's read after it.
        let side = gpu.with_stream(&gpu.new_stream()?);
        xs.push(TrackedBuffer::upload(&side, part)?);
        let m = slow::load(gpu)?;
        // SAFETY: spin touches no memory. It holds back the collective queued after it.
        unsafe { m.spin(&Launch::new(1u32, 1u32), CYCLES)? };
        sides.push(side);
    }
    sum_on_every_rank(&comms, &mut xs)?;
    let want: Vec<f32> = sum(&parts).iter().map(|v| 2.0 * v).collect();
    for ((gpu, side), x) in gpus.iter().zip(&sides).zip(&xs) {
        let m = slow::load(gpu)?.with_stream(side.stream());
        let mut y = side.zeros::<f32>(len)?;
        // SAFETY: scale reads x and writes y, n floats each.
        unsafe {
            m.scale(
                &Launch::for_num_elems(len as u32),
                x,
                &mut y,
                2.0,
                len as i32,
            )?
        };
        assert_close(&y.download(side)?, &want, 1e-5 * gpus.len() as f32);
    }
    Ok(())
}

/// The rank a child process runs as, and the file the id passes through.
const RANK_VAR: &str = "KERNEL_TEST_NCCL_RANK";
const ID_VAR: &str = "KERNEL_TEST_NCCL_ID_FILE";
const CHILD: &str = "rank_of_two_processes";

#[test]
fn two_processes_all_reduce_through_an_id_in_a_file() {
    // Other processes' communicators: beside this process's, not waiting for them.
    let Some(gpus) = gpus_or_skip() else {
        return;
    };
    drop(gpus);
    let dir = tempfile::tempdir().expect("a temp dir");
    let id_file = dir.path().join("nccl-id");
    let exe = std::env::current_exe().expect("the test binary");
    let mut children: Vec<_> = (0..2)
        .map(|rank| {
            Command::new(&exe)
                .args([CHILD, "--exact", "--nocapture", "--test-threads=1"])
                .env(RANK_VAR, rank.to_string())
                .env(ID_VAR, &id_file)
                .spawn()
                .expect("starting a rank")
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(180);
    for (rank, child) in children.iter_mut().enumerate() {
        let status = loop {
            if let Some(status) = child.try_wait().expect("waiting for a rank") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "rank {rank} did not finish in 180 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "rank {rank} failed: {status}");
    }
}

/// One rank of [`two_processes_all_reduce_through_an_id_in_a_file`]; nothing when not run as
/// one.
#[test]
fn rank_of_two_processes() -> Result<(), Error> {
    #[allow(clippy::disallowed_methods)] // set by the parent test, not a build input
    let (Some(rank), Some(id_file)) = (std::env::var(RANK_VAR).ok(), std::env::var_os(ID_VAR))
    else {
        return Ok(());
    };
    let rank: usize = rank.parse().expect("a rank");
    let id_file = Path::new(&id_file);
    let id = if rank == 0 {
        let id = UniqueId::new()?;
        let partial = id_file.with_extension("partial");
        std::fs::write(&partial, id.to_bytes()).expect("writing the id");
        std::fs::rename(&partial, id_file).expect("publishing the id");
        id
    } else {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(bytes) = std::fs::read(id_file) {
                break UniqueId::from_bytes(&bytes).expect("128 bytes");
            }
            assert!(Instant::now() < deadline, "no id from rank 0 in 60 s");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let gpu = Gpu::new(rank)?;
    let comm = Communicator::for_rank(&gpu, &id, rank, 2)?;
    let len = 1 << 20;
    let parts: Vec<Vec<f32>> = (0..2).map(|r| data(11, r, len)).collect();
    let x = gpu.upload(&parts[rank])?;
    let mut total = gpu.zeros::<f32>(len)?;
    comm.all_reduce(&x, &mut total, &ReduceOp::Sum)?;
    assert_close(&total.download(&gpu)?, &sum(&parts), 2e-5);
    // Root-only arguments: the other rank passes a plain `None`.
    let mut w = gpu.zeros::<f32>(len)?;
    let mut at_root = gpu.zeros::<f32>(len)?;
    if rank == 0 {
        comm.broadcast(Some(&x), &mut w, 0)?;
        comm.reduce(&x, None, &ReduceOp::Sum, 1)?;
    } else {
        comm.broadcast(None, &mut w, 0)?;
        comm.reduce(&x, Some(&mut at_root), &ReduceOp::Sum, 1)?;
        assert_close(&at_root.download(&gpu)?, &sum(&parts), 2e-5);
    }
    assert_eq!(w.download(&gpu)?, parts[0]);
    let mut y = gpu.zeros::<f32>(len)?;
    if rank == 0 {
        comm.send(&x, 1)?;
    } else {
        comm.recv(&mut y, 0)?;
        assert_eq!(y.download(&gpu)?, parts[0]);
    }
    println!("rank {rank} of 2: all-reduce, broadcast, reduce and send/recv checked");
    Ok(())
}

/// Work on every GPU timed together, from one thread (`Gpu::time_all` over the communicators'
/// handles) and from one thread per rank (`Communicator::time`): each rank spins longer than
/// the one before, then all-reduce; the sums are checked against the CPU, every time is
/// positive, the span is the longest, every rank gets the same times, and four times the
/// spinning measures longer.
#[test]
fn work_on_every_gpu_is_timed_together_from_one_thread_and_from_each_rank() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let n = gpus.len();
    let comms = Communicator::for_gpus(&gpus)?;
    connect(&gpus, &comms)?;
    let len = 1 << 18;
    let parts: Vec<Vec<f32>> = (0..n).map(|r| data(50, r, len)).collect();
    let want = sum(&parts);
    let modules = gpus.iter().map(slow::load).collect::<Result<Vec<_>, _>>()?;

    let mut spans = Vec::new();
    for cycles in [CYCLES / 8, CYCLES / 2] {
        let mut xs: Vec<_> = gpus
            .iter()
            .zip(&parts)
            .map(|(g, p)| g.upload(p))
            .collect::<Result<_, _>>()?;
        let ((), times) = Gpu::time_all(comms.iter().map(Communicator::gpu), || {
            for (r, m) in modules.iter().enumerate() {
                // SAFETY: spin touches no memory.
                unsafe { m.spin(&Launch::new(1u32, 1u32), cycles * (r as u64 + 1))? };
            }
            sum_on_every_rank(&comms, &mut xs)
        })?;
        for got in download_all(&gpus, &xs) {
            assert_close(&got, &want, 1e-5 * n as f32);
        }
        check_times(times.per_device(), times.span(), n);
        println!(
            "one thread, spins of {cycles} × (rank + 1) cycles then an all-reduce: {:?}, span {:?}",
            times.per_device(),
            times.span()
        );
        spans.push(times.span());
    }
    assert!(spans[1] > spans[0] * 2, "{spans:?}");

    // One thread per rank, each timing its own.
    let ranks = std::thread::scope(|s| {
        let ranks: Vec<_> = comms
            .into_iter()
            .zip(modules)
            .map(|(comm, m)| {
                let parts = &parts;
                s.spawn(move || -> Result<_, Error> {
                    let r = comm.rank();
                    let mut spans = Vec::new();
                    for cycles in [CYCLES / 8, CYCLES / 2] {
                        let mut x = comm.gpu().upload(&parts[r])?;
                        let ((), times) = comm.time([], || {
                            // SAFETY: spin touches no memory.
                            unsafe { m.spin(&Launch::new(1u32, 1u32), cycles * (r as u64 + 1))? };
                            comm.all_reduce_in_place(&mut x, &ReduceOp::Sum)
                        })?;
                        spans.push((times, x.download(comm.gpu())?));
                    }
                    Ok(spans)
                })
            })
            .collect();
        ranks
            .into_iter()
            .map(|r| r.join().expect("a rank's thread"))
            .collect::<Result<Vec<_>, Error>>()
    })?;
    for (r, runs) in ranks.iter().enumerate() {
        for (run, (times, got)) in runs.iter().enumerate() {
            assert_close(got, &want, 1e-5 * n as f32);
            check_times(times.per_device(), times.span(), n);
            assert_eq!(
                times, &ranks[0][run].0,
                "rank {r} got other times than rank 0"
            );
        }
        assert!(runs[1].0.span() > runs[0].0.span() * 2, "rank {r}");
    }
    println!(
        "one thread per rank: {:?}, span {:?}; four times the cycles: span {:?}",
        ranks[0][0].0.per_device(),
        ranks[0][0].0.span(),
        ranks[0][1].0.span()
    );
    Ok(())
}

/// `n` positive times, none above the span, which is one of them.
#[track_caller]
fn check_times(times: &[Duration], span: Duration, n: usize) {
    assert_eq!(times.len(), n);
    assert!(times.iter().all(|&t| t > Duration::ZERO), "{times:?}");
    assert!(times.iter().all(|&t| t <= span), "{times:?}, span {span:?}");
    assert!(times.contains(&span), "{times:?}, span {span:?}");
}

/// Communicators made with a timeout (non-blocking, one thread per rank): an all-reduce
/// against the CPU, a group mixing one with a blocking communicator is refused and both work
/// on, `Communicator::time` works, and the data-parallel step captured in a graph equals the
/// eager step. The mean time of a small eager all-reduce on a blocking and on a non-blocking
/// communicator is printed (NCCL starts a thread at every group end of a non-blocking one).
/// A hang fails the test after 120 s.
#[test]
fn communicators_made_with_a_timeout_reduce_eagerly_and_in_graphs() -> Result<(), Error> {
    let _devices = alone_on_the_devices();
    let Some(gpus) = gpus_or_skip() else {
        return Ok(());
    };
    let n = gpus.len();
    let (id, blocking_id) = (UniqueId::new()?, UniqueId::new()?);
    let parts: Vec<Vec<f32>> = (0..n).map(|r| data(60, r, 1 << 20)).collect();
    let want = sum(&parts);
    let dropped = Arc::new(Barrier::new(n));
    let ranks: Vec<_> = gpus
        .iter()
        .enumerate()
        .map(|(r, gpu)| {
            let (gpu, id, blocking_id, parts) = (gpu.clone(), id, blocking_id, parts.clone());
            let dropped = Arc::clone(&dropped);
            std::thread::spawn(move || {
                timeout_rank(&gpu, r, n, &id, &blocking_id, &parts, &dropped)
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !ranks.iter().all(|r| r.is_finished()) {
        assert!(
            Instant::now() < deadline,
            "ranks of communicators made with a timeout did not finish in 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for (r, rank) in ranks.into_iter().enumerate() {
        let done = rank.join().expect("a rank's thread")?;
        assert_close(&done.reduced, &want, 1e-5 * n as f32);
        let step_want: Vec<f32> = want.iter().map(|v| 1.5 * v).collect();
        assert_close(&done.eager, &step_want, 1e-5 * n as f32);
        assert_close(&done.replayed, &done.eager, 1e-6);
        println!(
            "rank {r}: joined with a timeout in {:?}; graph replay equals the eager step (eager \
             {:?}, replay {:?}); a small all-reduce: {:?} blocking, {:?} non-blocking; timed \
             all-reduce: span {:?}",
            done.joined,
            done.eager_time,
            done.replay_time,
            done.blocking_call,
            done.non_blocking_call,
            done.timed_span
        );
    }
    Ok(())
}

/// What one rank of [`communicators_made_with_a_timeout_reduce_eagerly_and_in_graphs`] found.
struct TimeoutRank {
    joined: Duration,
    reduced: Vec<f32>,
    eager: Vec<f32>,
    replayed: Vec<f32>,
    eager_time: Duration,
    replay_time: Duration,
    blocking_call: Duration,
    non_blocking_call: Duration,
    timed_span: Duration,
}

fn timeout_rank(
    gpu: &Gpu,
    r: usize,
    n: usize,
    id: &UniqueId,
    blocking_id: &UniqueId,
    parts: &[Vec<f32>],
    dropped: &Barrier,
) -> Result<TimeoutRank, Error> {
    let started = Instant::now();
    let comm = Communicator::for_rank_timeout(gpu, id, r, n, Duration::from_secs(60))?;
    let joined = started.elapsed();
    let blocking = Communicator::for_rank(gpu, blocking_id, r, n)?;
    let x = gpu.upload(&parts[r])?;
    let mut total = gpu.zeros::<f32>(x.len())?;
    comm.all_reduce(&x, &mut total, &ReduceOp::Sum)?;
    let reduced = total.download(gpu)?;

    // A group of a blocking and a non-blocking communicator is refused before NCCL sees the
    // second; NCCL drops the group (on every rank alike), and both work on.
    {
        let (mut a, mut b) = (gpu.zeros::<f32>(64)?, gpu.zeros::<f32>(64)?);
        let mut group = Group::start()?;
        group.all_reduce_in_place(&blocking, &mut a, &ReduceOp::Sum)?;
        match group.all_reduce_in_place(&comm, &mut b, &ReduceOp::Sum) {
            Err(Error::Collective { problem, .. }) => {
                assert!(problem.contains("non-blocking"), "{problem}")
            }
            other => panic!("a mixed group was not refused: {other:?}"),
        }
    }
    comm.async_error()?;
    blocking.async_error()?;

    // The mean time of a small eager all-reduce, waited for, on each.
    let per_call = |c: &Communicator| -> Result<Duration, Error> {
        const CALLS: u32 = 200;
        let mut small = gpu.upload(&[1.0f32; 256])?;
        for _ in 0..10 {
            c.all_reduce_in_place(&mut small, &ReduceOp::Sum)?;
        }
        c.wait(Duration::from_secs(60))?;
        let started = Instant::now();
        for _ in 0..CALLS {
            c.all_reduce_in_place(&mut small, &ReduceOp::Sum)?;
        }
        c.wait(Duration::from_secs(60))?;
        Ok(started.elapsed() / CALLS)
    };
    let blocking_call = per_call(&blocking)?;
    let non_blocking_call = per_call(&comm)?;
    // Dropped at the same point on every rank: NCCL's teardown waits for every device of the
    // process, so a rank that went on to the next collective would wait on its device for
    // this rank, which waits for that device (docs/RUNTIME.md, "Dropping a communicator").
    drop(blocking);
    dropped.wait();

    let mut big = gpu.upload(&parts[r])?;
    let ((), times) = comm.time([], || comm.all_reduce_in_place(&mut big, &ReduceOp::Sum))?;
    check_times(times.per_device(), times.span(), n);
    comm.wait(Duration::from_secs(60))?;

    let (eager, replayed, eager_time, replay_time) = graph_rank(comm, parts)?;
    Ok(TimeoutRank {
        joined,
        reduced,
        eager,
        replayed,
        eager_time,
        replay_time,
        blocking_call,
        non_blocking_call,
        timed_span: times.span(),
    })
}

/// Set in the child process of [`a_rank_whose_peers_never_join_ends_in_the_timeout_error`].
const LONE_VAR: &str = "KERNEL_TEST_NCCL_LONE_RANK";
const LONE_CHILD: &str = "lone_rank_of_two";

/// Rank 0 of a communicator of two, made with a 2 s timeout, whose rank 1 never comes: it ends
/// with the timeout error within bounds, and NCCL works on afterwards. It runs in a child
/// process (this binary again), which the test kills after 90 s, so that an initialisation the
/// abort did not end fails the test instead of hanging the suite. Needs one GPU.
#[test]
fn a_rank_whose_peers_never_join_ends_in_the_timeout_error() {
    // Another process's communicator: beside this process's, not waiting for them.
    if !one_gpu_with_nccl_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let (out, err) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args([LONE_CHILD, "--exact", "--nocapture", "--test-threads=1"])
        .env(LONE_VAR, "1")
        .stdout(std::fs::File::create(&out).expect("a file"))
        .stderr(std::fs::File::create(&err).expect("a file"))
        .spawn()
        .expect("starting the lone rank");
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the lone rank") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the lone rank did not end within 90 s: the timeout did not end NCCL's \
                 initialisation\n{}",
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&out).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err).unwrap_or_default();
    assert!(status.success(), "{status}\n{stdout}\n{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.contains("=timed out"))
        .unwrap_or_else(|| panic!("{stdout}\n{stderr}"));
    println!("{line}");
}

/// The child of [`a_rank_whose_peers_never_join_ends_in_the_timeout_error`]; nothing when not
/// run as one.
#[test]
fn lone_rank_of_two() -> Result<(), Error> {
    #[allow(clippy::disallowed_methods)] // set by the parent test, not a build input
    if std::env::var_os(LONE_VAR).is_none() {
        return Ok(());
    }
    let gpu = Gpu::new(0)?;
    let timeout = Duration::from_secs(2);
    let started = Instant::now();
    let e = Communicator::for_rank_timeout(&gpu, &UniqueId::new()?, 0, 2, timeout)
        .expect_err("rank 1 never joins");
    let waited = started.elapsed();
    match &e {
        Error::Collective { call, problem } => {
            assert_eq!(*call, "ncclCommInitRankConfig");
            assert!(problem.contains("rank 0 of 2"), "{problem}");
            assert!(problem.contains("within 2s"), "{problem}");
        }
        other => panic!("expected the timeout error: {other:?}"),
    }
    assert!(
        waited >= timeout && waited < timeout + Duration::from_secs(30),
        "{waited:?}"
    );
    println!("=timed out after {waited:?} (a timeout of {timeout:?}): {e}");
    // NCCL and the device work on: a communicator of one rank all-reduces.
    let comm = Communicator::for_rank_timeout(&gpu, &UniqueId::new()?, 0, 1, timeout * 10)?;
    let values = data(80, 0, 4096);
    let mut x = gpu.upload(&values)?;
    comm.all_reduce_in_place(&mut x, &ReduceOp::Sum)?;
    assert_eq!(x.download(&gpu)?, values);
    Ok(())
}

/// Whether device 0 and NCCL are there; prints why not (a failure under
/// `KERNEL_REQUIRE_GPU=1` when the GPU is there and NCCL is not).
#[track_caller]
fn one_gpu_with_nccl_or_skip() -> bool {
    if gpu_or_skip().is_none() {
        return false;
    }
    match Communicator::nccl_version() {
        Ok(_) => true,
        Err(e) => {
            assert!(
                !gpu_required(),
                "KERNEL_REQUIRE_GPU=1 and a GPU is there, but: {e}"
            );
            let test = std::thread::current()
                .name()
                .unwrap_or("collectives")
                .to_owned();
            let _ = writeln!(std::io::stderr(), "skipped: {test}: {e}");
            false
        }
    }
}
