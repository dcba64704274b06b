//! The events a launch fires, on the GPU against CPU references on random data of odd sizes:
//! a programmatic event that, captured into a graph, lets a kernel on another stream start
//! while the first still runs and read, after `griddepcontrol.wait`, what the first wrote
//! before and after its trigger; the same pair on plain streams, where the driver may fire
//! the event as late as the end of the first kernel; a launch completion event that another
//! stream waits on until every block has started; and the errors for an event dropped before
//! its launch and for a trigger without an event.
//!
//! The first stream of each test holds a kernel that runs for 20 ms before the pair, so a
//! wait that did not wait would be seen (stale results, blocks not started), and each kernel
//! that waits for the other stream gives up after a while and counts it, so an event that
//! fired late shows as a count rather than a hang.
//!
//! The streams are ordered by hand (this binary turns cudarc's buffer events off): those
//! events would make the second stream wait for the whole first kernel, the very thing the
//! launch events let it skip.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{ConfigError, CudaSlice, Error, Gpu, Launch, LaunchEvent, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_at_least_or_skip, two_gpus_or_skip};

cuda_module! {
    /// Kernels that fire and wait for launch events.
    mod events {
        file = "cuda/launch_events.cu";
        arch = ["sm_90"];
    }
}

/// How long `gate` holds the first stream, in nanoseconds.
const GATE_NS: u64 = 20_000_000;

/// Device 0 with its streams ordered by hand, if it is a Hopper or later. The kernels here
/// talk to each other through flags while running at the same time on two streams, which no
/// automatic ordering allows: the tests use cudarc's buffers with its events turned off, not
/// the runtime's ordered ones.
fn hopper_or_skip() -> Option<Gpu> {
    let gpu = gpu_at_least_or_skip(9, "a launch event")?;
    // SAFETY: every test here orders its streams itself: inputs are uploaded and synchronized
    // before any launch, the second stream uses the first's buffers only after waiting on an
    // event of the first, and results are read after both streams are synchronized.
    unsafe { gpu.order_streams_manually() };
    Some(gpu)
}

/// Buffers of one programmatic-event pair: `first` writes a (before its trigger) and b
/// (after it); `second` writes out = a + b + y.
struct Pair {
    a: CudaSlice<f32>,
    b: CudaSlice<f32>,
    out: CudaSlice<f32>,
    flag: CudaSlice<u32>,
    timed_out: CudaSlice<u32>,
}

impl Pair {
    fn new(gpu: &Gpu, n: usize, r: &mut Rng) -> Result<Pair, Error> {
        Ok(Pair {
            a: gpu.stream().clone_htod(&r.nonzero_f32s(n))?,
            b: gpu.stream().clone_htod(&r.nonzero_f32s(n))?,
            out: gpu.stream().clone_htod(&r.nonzero_f32s(n))?,
            flag: gpu.stream().alloc_zeros::<u32>(1)?,
            timed_out: gpu.stream().alloc_zeros::<u32>(1)?,
        })
    }

    /// Queues `gate` and `first` (firing `ready`) on `gpu`'s stream, and `second` on `side`'s
    /// after waiting on `ready`; `first`'s blocks wait up to `wait_ns` for `second` to start.
    #[allow(clippy::too_many_arguments)]
    fn queue(
        &mut self,
        gpu: &Gpu,
        side: &Gpu,
        ready: &LaunchEvent,
        (x, y): (&CudaSlice<f32>, &CudaSlice<f32>),
        epoch: u32,
        wait_ns: u64,
        at_block_start: bool,
    ) -> Result<(), Error> {
        let k = events::load(gpu)?.with_stream(gpu.stream());
        let k_side = k.with_stream(side.stream());
        let n = x.len() as i32;
        let first = Launch::new(32, 256)
            .with_programmatic_event(ready)
            .with_trigger_at_block_start(at_block_start);
        let p = self;
        // SAFETY: grid-stride loops over i < n; every buffer holds n floats, flag and
        // timed_out one word each. `second` reads a and b only after griddepcontrol.wait.
        unsafe {
            k.gate(&Launch::new(1, 32), GATE_NS)?;
            k.first(
                &first,
                &mut p.a,
                &mut p.b,
                x,
                n,
                &p.flag,
                epoch,
                wait_ns,
                &mut p.timed_out,
            )?;
            side.wait_for_event(ready)?;
            k_side.second(
                &Launch::new(64, 256),
                &mut p.out,
                &p.a,
                &p.b,
                y,
                n,
                &mut p.flag,
                epoch,
            )?;
        }
        Ok(())
    }
}

/// out = a + b + y as `first` and `second` compute it.
fn pair_on_cpu(xs: &[f32], ys: &[f32]) -> Vec<f32> {
    xs.iter()
        .zip(ys)
        .map(|(x, y)| 2.0 * x + (x + 1.0) + y)
        .collect()
}

/// Captured into a graph, the programmatic event becomes a programmatic edge: `second` starts
/// while `first` still runs (every block of `first` sees its flag), and still reads what
/// `first` wrote after its trigger.
#[test]
fn a_programmatic_event_in_a_graph_lets_another_stream_overlap_the_first_kernel()
-> Result<(), Error> {
    let Some(gpu) = hopper_or_skip() else {
        return Ok(());
    };
    let side_stream = gpu.new_stream()?;
    // Loaded before the capture, which then only finds it.
    events::load(&gpu)?;
    let n = 300_007usize;
    let mut r = Rng::with_seed(71);
    let mut pair = Pair::new(&gpu, n, &mut r)?;
    let ready = LaunchEvent::new(&gpu)?;
    for (epoch, at_block_start) in [(1u32, false), (2, true), (3, false)] {
        let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
        let (x, y) = (gpu.stream().clone_htod(&xs)?, gpu.stream().clone_htod(&ys)?);
        gpu.synchronize()?;
        let graph = gpu.capture(|g| {
            let side = g.with_stream(&side_stream);
            side.wait_for(g)?;
            pair.queue(
                g,
                &side,
                &ready,
                (&x, &y),
                epoch,
                1_000_000_000,
                at_block_start,
            )?;
            g.wait_for(&side)
        })?;
        graph.launch()?;
        gpu.synchronize()?;
        let late = gpu.download(&pair.timed_out)?[0];
        assert_eq!(
            late, 0,
            "epoch {epoch}: {late} blocks of `first` waited a second for `second` to start: the \
             programmatic edge let nothing overlap"
        );
        assert_close(&gpu.download(&pair.out)?, &pair_on_cpu(&xs, &ys), 1e-5);
    }
    Ok(())
}

/// On streams the driver may fire the event as late as the end of `first` (the attribute
/// allows overlap, it does not promise it); `second` still runs after the event and reads
/// what `first` wrote after its trigger.
#[test]
fn a_programmatic_event_on_streams_orders_the_second_kernel() -> Result<(), Error> {
    let Some(gpu) = hopper_or_skip() else {
        return Ok(());
    };
    let side = gpu.with_stream(&gpu.new_stream()?);
    let n = 300_007usize;
    let mut r = Rng::with_seed(74);
    let mut pair = Pair::new(&gpu, n, &mut r)?;
    let ready = LaunchEvent::new(&gpu)?;
    let mut overlapped = 0;
    for (epoch, at_block_start) in [(1u32, false), (2, true), (3, false)] {
        let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
        let (x, y) = (gpu.stream().clone_htod(&xs)?, gpu.stream().clone_htod(&ys)?);
        gpu.synchronize()?;
        pair.queue(
            &gpu,
            &side,
            &ready,
            (&x, &y),
            epoch,
            2_000_000,
            at_block_start,
        )?;
        gpu.synchronize()?;
        side.synchronize()?;
        if gpu.download(&pair.timed_out)?[0] == 0 {
            overlapped += 1;
        }
        pair.timed_out = gpu.stream().alloc_zeros::<u32>(1)?;
        gpu.synchronize()?;
        assert_close(&gpu.download(&pair.out)?, &pair_on_cpu(&xs, &ys), 1e-5);
    }
    eprintln!("note: on streams, `second` overlapped `first` in {overlapped} of 3 pairs");
    Ok(())
}

#[test]
fn a_completion_event_fires_once_every_block_has_started() -> Result<(), Error> {
    let Some(gpu) = hopper_or_skip() else {
        return Ok(());
    };
    let side = gpu.with_stream(&gpu.new_stream()?);
    let k = events::load(&gpu)?;
    let k_side = k.with_stream(side.stream());
    let (n, blocks) = (123_457usize, 48u32);
    let mut r = Rng::with_seed(72);
    let xs = r.nonzero_f32s(n);
    let x = gpu.stream().clone_htod(&xs)?;
    let mut out = gpu.stream().clone_htod(&r.nonzero_f32s(n))?;
    let mut started = gpu.stream().alloc_zeros::<u32>(blocks as usize)?;
    let mut flag = gpu.stream().alloc_zeros::<u32>(1)?;
    let mut timed_out = gpu.stream().alloc_zeros::<u32>(1)?;
    let mut missing = gpu.stream().alloc_zeros::<u32>(1)?;
    gpu.synchronize()?;
    let all_started = LaunchEvent::new(&gpu)?;
    for epoch in 1..=3u32 {
        let cfg = Launch::new(blocks, 256).with_completion_event(&all_started);
        // SAFETY: grid-stride loops over i < n; `started` holds one word per block of
        // `resident`, which is what `check_started` reads.
        unsafe {
            k.gate(&Launch::new(1, 32), GATE_NS)?;
            k.resident(
                &cfg,
                &mut out,
                &x,
                n as i32,
                &mut started,
                &flag,
                epoch,
                &mut timed_out,
            )?;
            side.wait_for_event(&all_started)?;
            k_side.check_started(
                &Launch::new(1, 64),
                &started,
                blocks as i32,
                &mut missing,
                &mut flag,
                epoch,
            )?;
        }
        gpu.synchronize()?;
        side.synchronize()?;
        let (late, absent) = (gpu.download(&timed_out)?[0], gpu.download(&missing)?[0]);
        assert_eq!(
            absent, 0,
            "epoch {epoch}: the waiting stream ran before {absent} blocks had started"
        );
        assert_eq!(
            late, 0,
            "epoch {epoch}: {late} blocks waited a second: the event fired only at the end"
        );
        let want: Vec<f32> = xs.iter().map(|v| 3.0 * v).collect();
        assert_close(&gpu.download(&out)?, &want, 1e-6);
    }
    Ok(())
}

#[test]
fn a_dropped_event_and_a_trigger_without_one_are_refused_before_launch() -> Result<(), Error> {
    let Some(gpu) = hopper_or_skip() else {
        return Ok(());
    };
    let k = events::load(&gpu)?;
    let event = LaunchEvent::new(&gpu)?;
    let cfg = Launch::new(1, 32).with_programmatic_event(&event);
    drop(event);
    // SAFETY: nothing runs: the launch is refused.
    let err = unsafe { k.gate(&cfg, 0) }.unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidConfig {
                problem: ConfigError::EventDropped,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("gate"), "{err}");
    let cfg = Launch::new(1, 32).with_trigger_at_block_start(true);
    // SAFETY: as above.
    let err = unsafe { k.gate(&cfg, 0) }.unwrap_err();
    assert!(err.to_string().contains("trigger_at_block_start"), "{err}");
    // A live event and a completion event launch.
    let event = LaunchEvent::new(&gpu)?;
    // SAFETY: `gate` touches no memory.
    unsafe { k.gate(&Launch::new(1, 32).with_completion_event(&event), 1000)? };
    gpu.synchronize()?;
    Ok(())
}

#[test]
fn an_event_of_another_device_is_refused_by_waits_and_launches() -> Result<(), Error> {
    let Some((a, b)) = two_gpus_or_skip() else {
        return Ok(());
    };
    if a.limits().compute_capability.0 < 9 {
        eprintln!("skipped: launch events need sm_90 (device is {})", a.arch());
        return Ok(());
    }
    let event = LaunchEvent::new(&a)?;
    let err = b.wait_for_event(&event).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the LaunchEvent belongs to another device's context than the stream that waits on it"
    );
    let k = events::load(&b)?;
    // SAFETY: nothing runs: the launch is refused.
    let err = unsafe { k.gate(&Launch::new(1, 32).with_completion_event(&event), 0) }.unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidConfig {
                problem: ConfigError::EventOfAnotherContext,
                ..
            }
        ),
        "{err}"
    );
    Ok(())
}
