//! Runtime benchmarks, comparable to the native anchors: launch cost (generated-stub path with
//! the default buffers and with cudarc's, by-name path, cudarc's builder, raw `cuLaunchKernel`,
//! all in one process on one stream, timed back to back and again as the host's cost in short
//! bursts),
//! module load against `cuModuleLoadData` of the same bytes, pinned 256 MiB copies against raw
//! driver copies, graph replay against a graph captured from raw launches, and launches
//! alternating between two streams (raw, with cudarc's event tracking, with `TrackedBuffer`s,
//! and with the streams ordered manually). The default buffers are what `Gpu::zeros` returns
//! (`TrackedBuffer`); cudarc's `CudaSlice`s are made on the stream directly.
//!
//! Each figure is the median of several repetitions; lines starting with `BENCH ` are JSON for
//! machines. An argument runs the sections whose name holds it alone (`launch`, `load`,
//! `copies`, `graph`, `streams`; `cargo bench --bench launch -- streams`). Without a GPU it prints why and exits successfully (unless `KERNEL_REQUIRE_GPU=1`).
// Every unsafe block here launches the argument-ignoring `empty4` kernel or calls the raw driver
// on buffers this file allocates; the comparisons need both.
#![allow(
    clippy::disallowed_methods,
    clippy::undocumented_unsafe_blocks,
    missing_docs
)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use common::{FATBIN, SPEC, TestKernels, idx};
use cuda_kernel_runtime::cudarc::driver::{PushKernelArg, result, sys};
use cuda_kernel_runtime::{Gpu, Launch, RawDevicePtr, RawModule};
use kernel_test_support::bench::{
    Empty4Args, fastest, interleaved_bursts, median, paired_ratio, per_call_us, report,
};

const LAUNCHES: usize = 200_000;
const REPS: usize = 9;
/// Launches per timed burst when the host's own cost is measured: few enough that the
/// device's queue never fills (a full queue would time the GPU's launch rate instead).
const BURST: usize = 256;
/// Launch paths compared on one stream.
const PATHS: usize = 7;

/// How a launch path is timed.
#[derive(Clone, Copy, PartialEq)]
enum Timing {
    /// Back to back, the queue drained at the end: bounded by the device's launch rate once
    /// its queue is full.
    BackToBack,
    /// In bursts of [`BURST`], one of each path per round, the device drained after each
    /// outside the timing: the host's cost per launch, compared round by round.
    Bursts,
}

fn ck(r: sys::CUresult) -> Result<(), cuda_kernel_runtime::Error> {
    r.result()
        .map_err(|e| cuda_kernel_runtime::Error::driver("raw copy", e))
}

/// Whether to run `section` (`launch`, `load`, `copies`, `graph`, `streams`): every section
/// unless an argument that is not a flag names part of one (`launch --bench streams`).
fn wanted(section: &str) -> bool {
    std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .is_none_or(|filter| section.contains(&filter))
}

fn main() {
    let Some(gpu) = kernel_test_support::gpu_or_skip() else {
        return;
    };
    println!(
        "device: {} ({}), driver CUDA {:?}",
        gpu.name(),
        gpu.arch(),
        Gpu::driver_version().unwrap()
    );
    let launch = wanted("launch").then(|| bench_launch(&gpu, Timing::BackToBack));
    let host = wanted("launch").then(|| bench_launch(&gpu, Timing::Bursts));
    let load = wanted("load").then(|| bench_load(&gpu));
    let copy = wanted("copies").then(|| bench_copies(&gpu));
    let graph = wanted("graph").then(|| bench_graph(&gpu));
    // Last: it turns the context's event tracking off for good.
    let streams = wanted("streams").then(|| bench_streams(&gpu));
    let (Some(launch), Some(host), Some(load), Some(copy), Some(graph), Some(streams)) =
        (launch, host, load, copy, graph, streams)
    else {
        return;
    };
    println!(
        "BENCH_SUMMARY {{\"stub_over_raw\":{:.4},\"stub_cuda_slice_over_raw\":{:.4},\"host_stub_over_raw\":{:.4},\"host_stub_cuda_slice_over_raw\":{:.4},\"load_over_raw\":{:.4},\"spec_load_over_raw\":{:.4},\"pinned_h2d_over_raw\":{:.4},\"pinned_d2h_over_raw\":{:.4},\"graph_over_raw\":{:.4},\"two_streams_default_over_raw\":{:.4},\"two_streams_cuda_slice_over_raw\":{:.4},\"two_streams_manual_over_raw\":{:.4}}}",
        launch.0,
        launch.1,
        host.0,
        host.1,
        load.0,
        load.1,
        copy.0,
        copy.1,
        graph,
        streams.0,
        streams.1,
        streams.2
    );
}

/// Returns (stub / raw with the default buffers, stub / raw with cudarc's).
fn bench_launch(gpu: &Gpu, timing: Timing) -> (f64, f64) {
    let k = TestKernels::load(gpu).unwrap();
    let by_name = k.0.kernel(idx::EMPTY4).unwrap();
    let func = by_name.cu_function();
    let a = gpu.zeros::<f32>(1 << 18).unwrap();
    let mut b = gpu.zeros::<f32>(1 << 18).unwrap();
    // cudarc's buffers, for its builder and for the stub path over them.
    let ca = gpu.stream().alloc_zeros::<f32>(1 << 18).unwrap();
    let mut cb = gpu.stream().alloc_zeros::<f32>(1 << 18).unwrap();
    let cfg = Launch::new(1, 32);
    let stream = gpu.stream().clone();
    let mut raw_args = Empty4Args::new(RawDevicePtr::of(&a), RawDevicePtr::of(&b));
    let cudarc_fn = load_cudarc_fn(gpu);
    let cudarc_cfg = cuda_kernel_runtime::cudarc::driver::LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };

    // Warm up every path.
    for _ in 0..2000 {
        // SAFETY: empty4 ignores its arguments.
        unsafe { k.empty4(&cfg, &a, &mut b, 0, 1.0).unwrap() };
    }
    gpu.synchronize().unwrap();
    // Paths: 0 stub, 1 by name, 2 cudarc builder, 3 raw, 4 stub over cudarc's buffers, 5 raw
    // after the context check every safe path makes (cudarc's `bind_to_thread`: one
    // `cuCtxGetCurrent`), 6 the runtime's launch core alone (`Kernel::launch_raw`: validation,
    // the context check, the launch; no argument handling), to show what each part costs.
    let ctx = gpu.context().clone();
    let mut launch = |path: usize| match path {
        // SAFETY (all seven): empty4(const float*, float*, int, float) ignores its arguments.
        0 => unsafe { k.empty4(&cfg, &a, &mut b, 0, 1.0).unwrap() },
        1 => unsafe { by_name.launch(&cfg, (&a, &mut b, 0i32, 1.0f32)).unwrap() },
        2 => unsafe {
            stream
                .launch_builder(&cudarc_fn)
                .arg(&ca)
                .arg(&mut cb)
                .arg(&raw_args.n)
                .arg(&raw_args.s)
                .launch(cudarc_cfg)
                .unwrap();
        },
        4 => unsafe { k.empty4(&cfg, &ca, &mut cb, 0, 1.0).unwrap() },
        6 => unsafe { by_name.launch_raw(&cfg, &mut raw_args.params()).unwrap() },
        _ => {
            if path == 5 {
                ctx.bind_to_thread().unwrap();
            }
            unsafe { raw_args.launch(func, stream.cu_stream()).unwrap() };
        }
    };
    let samples: Vec<Vec<f64>> = match timing {
        // Each repetition rotates the order, so that no path always runs first or right after
        // the same other path.
        Timing::BackToBack => {
            let mut samples = vec![Vec::new(); PATHS];
            for rep in 0..REPS {
                for turn in 0..PATHS {
                    let path = (rep + turn) % PATHS;
                    samples[path].push(per_call_us(gpu, LAUNCHES, &mut || launch(path)));
                }
            }
            samples
        }
        Timing::Bursts => {
            interleaved_bursts(gpu, LAUNCHES / BURST, BURST, PATHS, &mut |path, _| {
                launch(path)
            })
        }
    };
    let medians: [f64; PATHS] = std::array::from_fn(|p| median(samples[p].clone()));
    // Over raw: the ratio of the medians for whole repetitions, the median of the rounds'
    // ratios for interleaved bursts.
    let over = |path: usize| match timing {
        Timing::BackToBack => medians[path] / medians[3],
        Timing::Bursts => paired_ratio(&samples[path], &samples[3]),
    };
    let (stub_over, slice_over, builder_over) = (over(0), over(4), over(2));
    let (bind_over, core_over) = (over(5), over(6));
    // The fastest repetition (or burst) of each path: the least disturbed by other work.
    let [stub_min, named_min, builder_min, raw_min, slice_min, _, _]: [f64; PATHS] =
        std::array::from_fn(|p| fastest(&samples[p]));
    let [stub, named, builder, raw, slice, bind, core] = medians;
    let section = match timing {
        Timing::BackToBack => {
            println!(
                "-- launch: {LAUNCHES} back-to-back launches of empty4 (4 args), median of {REPS}"
            );
            "launch"
        }
        Timing::Bursts => {
            println!(
                "-- launch, host cost: {LAUNCHES} launches of empty4 (4 args) per path in interleaved bursts of {BURST} (each round one burst of every path, the device drained after each outside the timing), medians over rounds"
            );
            "launch_host"
        }
    };
    let r = |name: &str, value: f64, unit: &str| report(&format!("{section}.{name}"), value, unit);
    r("stub_us", stub, "us/launch");
    r("stub_cuda_slice_us", slice, "us/launch");
    r("by_name_us", named, "us/launch");
    r("cudarc_builder_us", builder, "us/launch");
    r("raw_cuLaunchKernel_us", raw, "us/launch");
    r("raw_after_context_check_us", bind, "us/launch");
    r("launch_core_us", core, "us/launch");
    r("stub_over_raw", stub_over, "x");
    r("stub_cuda_slice_over_raw", slice_over, "x");
    r("cudarc_builder_over_raw", builder_over, "x");
    r("raw_after_context_check_over_raw", bind_over, "x");
    r("launch_core_over_raw", core_over, "x");
    r("stub_min_us", stub_min, "us/launch");
    r("stub_cuda_slice_min_us", slice_min, "us/launch");
    r("by_name_min_us", named_min, "us/launch");
    r("cudarc_builder_min_us", builder_min, "us/launch");
    r("raw_cuLaunchKernel_min_us", raw_min, "us/launch");
    r("stub_over_raw_min", stub_min / raw_min, "x");
    (stub_over, slice_over)
}

fn load_cudarc_fn(gpu: &Gpu) -> cuda_kernel_runtime::cudarc::driver::CudaFunction {
    let ptx = cuda_kernel_runtime::cudarc::nvrtc::Ptx::from_binary(FATBIN.0.to_vec());
    gpu.context()
        .load_module(ptx)
        .unwrap()
        .load_function("empty4")
        .unwrap()
}

/// Returns (RawModule::load_bytes / raw load, first load of the spec with all kernels / raw load + get functions).
fn bench_load(gpu: &Gpu) -> (f64, f64) {
    const ITERS: usize = 100;
    let image = &FATBIN.0;
    let names: Vec<std::ffi::CString> = SPEC
        .kernels
        .iter()
        .map(|k| std::ffi::CString::new(k.symbol).unwrap())
        .collect();
    let (mut ours, mut raw, mut spec_ours, mut spec_raw) = (vec![], vec![], vec![], vec![]);
    for _ in 0..ITERS {
        let t = Instant::now();
        let m = RawModule::load_bytes(gpu, image).unwrap();
        ours.push(t.elapsed().as_secs_f64() * 1e6);
        drop(m);

        let t = Instant::now();
        // SAFETY: the image is a complete fatbin; the module is unloaded below.
        let m = unsafe { result::module::load_data(image.as_ptr().cast()) }.unwrap();
        raw.push(t.elapsed().as_secs_f64() * 1e6);
        // SAFETY: loaded above.
        unsafe { result::module::unload(m) }.unwrap();

        // A fresh spec each time, so the per-context cache misses: the first load as generated code sees it.
        let spec: &'static cuda_kernel_runtime::spec::ModuleSpec =
            Box::leak(Box::new(cuda_kernel_runtime::spec::ModuleSpec {
                name: SPEC.name,
                image: SPEC.image,
                archs: SPEC.archs,
                toolkit: SPEC.toolkit,
                kernels: SPEC.kernels,
                globals: SPEC.globals,
                units: SPEC.units,
                source: SPEC.source,
                tuned: SPEC.tuned,
            }));
        let t = Instant::now();
        let loaded = cuda_kernel_runtime::__private::load_module(gpu, spec).unwrap();
        spec_ours.push(t.elapsed().as_secs_f64() * 1e6);
        drop(loaded);

        let t = Instant::now();
        // SAFETY: as above.
        let m = unsafe { result::module::load_data(image.as_ptr().cast()) }.unwrap();
        for n in &names {
            // SAFETY: `m` is live.
            unsafe { result::module::get_function(m, n.clone()) }.unwrap();
        }
        spec_raw.push(t.elapsed().as_secs_f64() * 1e6);
        // SAFETY: loaded above.
        unsafe { result::module::unload(m) }.unwrap();
    }
    let (ours, raw, spec_ours, spec_raw) = (
        median(ours),
        median(raw),
        median(spec_ours),
        median(spec_raw),
    );
    println!(
        "-- module load: {} byte fatbin, median of {ITERS}",
        image.len()
    );
    report("load.module_load_bytes_us", ours, "us");
    report("load.raw_cuModuleLoadData_us", raw, "us");
    report("load.over_raw", ours / raw, "x");
    report("load.spec_first_load_us", spec_ours, "us");
    report("load.raw_load_and_get_functions_us", spec_raw, "us");
    report("load.spec_over_raw", spec_ours / spec_raw, "x");
    (ours / raw, spec_ours / spec_raw)
}

/// Returns (ours / raw) for pinned H2D and D2H bandwidth.
fn bench_copies(gpu: &Gpu) -> (f64, f64) {
    const BYTES: usize = 256 << 20;
    const ITERS: usize = 10;
    let mut host = gpu.pinned::<u8>(BYTES).unwrap();
    host.as_mut_slice().unwrap().fill(1);
    let mut dev = gpu.zeros::<u8>(BYTES).unwrap();
    let gbps = |d: std::time::Duration| BYTES as f64 / d.as_secs_f64() / 1e9;
    for _ in 0..3 {
        gpu.upload_async(&host, &mut dev).unwrap();
    }
    let (mut h2d, mut d2h) = (vec![], vec![]);
    for _ in 0..ITERS {
        h2d.push(gbps(
            gpu.time(|| gpu.upload_async(&host, &mut dev)).unwrap().1,
        ));
        d2h.push(gbps(
            gpu.time(|| gpu.download_async(&dev, &mut host)).unwrap().1,
        ));
    }
    // Raw: cuMemHostAlloc (not write-combined) and cuMemcpy*Async on the same stream, timed the same way.
    let dptr = RawDevicePtr::of(&dev).addr();
    // SAFETY: plain driver calls on buffers allocated here and freed at the end.
    let (raw_h2d, raw_d2h) = unsafe {
        let h = result::malloc_host(BYTES, 0).unwrap();
        std::ptr::write_bytes(h.cast::<u8>(), 1, BYTES);
        let s = gpu.stream().cu_stream();
        let (mut rh, mut rd) = (vec![], vec![]);
        for _ in 0..ITERS {
            rh.push(gbps(
                gpu.time(|| ck(sys::cuMemcpyHtoDAsync_v2(dptr, h, BYTES, s)))
                    .unwrap()
                    .1,
            ));
            rd.push(gbps(
                gpu.time(|| ck(sys::cuMemcpyDtoHAsync_v2(h, dptr, BYTES, s)))
                    .unwrap()
                    .1,
            ));
        }
        gpu.synchronize().unwrap();
        result::free_host(h).unwrap();
        (median(rh), median(rd))
    };
    let (h2d, d2h) = (median(h2d), median(d2h));
    println!("-- pinned copies: 256 MiB, median of {ITERS}");
    report("copy.pinned_h2d_gbps", h2d, "GB/s");
    report("copy.raw_pinned_h2d_gbps", raw_h2d, "GB/s");
    report("copy.pinned_d2h_gbps", d2h, "GB/s");
    report("copy.raw_pinned_d2h_gbps", raw_d2h, "GB/s");
    (h2d / raw_h2d, d2h / raw_d2h)
}

/// Returns ours / raw per replayed kernel.
fn bench_graph(gpu: &Gpu) -> f64 {
    const KERNELS: usize = 100;
    const REPLAYS: usize = 200;
    let a = gpu.zeros::<f32>(1024).unwrap();
    let mut b = gpu.zeros::<f32>(1024).unwrap();
    let cfg = Launch::new(1, 32);
    let graph = gpu
        .capture(|g| {
            let k = TestKernels::load(g)?;
            for _ in 0..KERNELS {
                // SAFETY: empty4 ignores its arguments.
                unsafe { k.empty4(&cfg, &a, &mut b, 0, 1.0)? };
            }
            Ok(())
        })
        .unwrap();
    graph.upload().unwrap();
    let func = TestKernels::load(gpu)
        .unwrap()
        .0
        .kernel(idx::EMPTY4)
        .unwrap()
        .cu_function();
    let mut raw_args = Empty4Args::new(RawDevicePtr::of(&a), RawDevicePtr::of(&b));
    // SAFETY: raw capture on a private stream; everything is destroyed at the end.
    let (raw_exec, raw_stream) = unsafe {
        let cs = result::stream::create(result::stream::StreamKind::NonBlocking).unwrap();
        result::stream::begin_capture(
            cs,
            sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        )
        .unwrap();
        for _ in 0..KERNELS {
            raw_args.launch(func, cs).unwrap();
        }
        let g = result::stream::end_capture(cs).unwrap();
        (
            result::graph::instantiate(g, sys::CUgraphInstantiate_flags(0)).unwrap(),
            cs,
        )
    };
    let stream = gpu.stream().cu_stream();
    let (mut ours, mut raw) = (vec![], vec![]);
    for _ in 0..REPS {
        let t = Instant::now();
        for _ in 0..REPLAYS {
            graph.launch().unwrap();
        }
        gpu.synchronize().unwrap();
        ours.push(t.elapsed().as_secs_f64() * 1e6 / (REPLAYS * KERNELS) as f64);
        let t = Instant::now();
        for _ in 0..REPLAYS {
            // SAFETY: the executable graph is live.
            unsafe { result::graph::launch(raw_exec, stream) }.unwrap();
        }
        gpu.synchronize().unwrap();
        raw.push(t.elapsed().as_secs_f64() * 1e6 / (REPLAYS * KERNELS) as f64);
    }
    // SAFETY: created above, no longer used.
    unsafe {
        result::graph::exec_destroy(raw_exec).unwrap();
        result::stream::destroy(raw_stream).unwrap();
    }
    let (ours, raw) = (median(ours), median(raw));
    println!(
        "-- graph replay: {KERNELS} empty4 kernels per graph, {REPLAYS} replays, median of {REPS}"
    );
    report("graph.replay_us_per_kernel", ours, "us/kernel");
    report("graph.raw_replay_us_per_kernel", raw, "us/kernel");
    report("graph.over_raw", ours / raw, "x");
    ours / raw
}

/// The host's time per launch alternating between two streams, each phase against raw
/// `cuLaunchKernel` in the same rounds: the stub on the default buffers, on `CudaSlice`s with
/// cudarc's event tracking, then after `order_streams_manually` (the tracking is the
/// context's: it cannot be measured after). Returns (default, cudarc's buffers, streams
/// ordered by hand) over raw.
fn bench_streams(gpu: &Gpu) -> (f64, f64, f64) {
    let k = TestKernels::load(gpu).unwrap();
    let func = k.0.kernel(idx::EMPTY4).unwrap().cu_function();
    let streams = [gpu.new_stream().unwrap(), gpu.new_stream().unwrap()];
    let on: Vec<TestKernels> = streams
        .iter()
        .map(|s| TestKernels(k.0.with_stream(s)))
        .collect();
    let cfg = Launch::new(1, 32);
    // cudarc's buffers, two per stream.
    let buffers = || -> Vec<_> {
        (0..2)
            .map(|_| {
                (
                    gpu.stream().alloc_zeros::<f32>(1 << 16).unwrap(),
                    gpu.stream().alloc_zeros::<f32>(1 << 16).unwrap(),
                )
            })
            .collect()
    };
    // One phase: raw launches and `stub` (launching on stream i) in interleaved bursts, the
    // launches of a burst alternating between the streams; (raw, stub) per round. The raw
    // launches pass the first pair of buffers' addresses.
    let phase = |mut raw_args: Empty4Args, stub: &mut dyn FnMut(usize)| -> (Vec<f64>, Vec<f64>) {
        let mut launch = |path: usize, i: usize| {
            if path == 1 {
                return stub(i & 1);
            }
            // SAFETY: empty4 ignores its arguments.
            unsafe { raw_args.launch(func, streams[i & 1].cu_stream()).unwrap() };
        };
        let mut t = interleaved_bursts(gpu, LAUNCHES / BURST, BURST, 2, &mut launch);
        let ours = t.pop().unwrap();
        (t.pop().unwrap(), ours)
    };
    // The default buffers (`Gpu::zeros`): one event per stream, none while each stream keeps
    // its own.
    let mut own: Vec<_> = (0..2)
        .map(|_| {
            (
                gpu.zeros::<f32>(1 << 16).unwrap(),
                gpu.zeros::<f32>(1 << 16).unwrap(),
            )
        })
        .collect();
    let first = Empty4Args::new(RawDevicePtr::of(&own[0].0), RawDevicePtr::of(&own[0].1));
    let (raw_own, own_us) = phase(first, &mut |i| {
        let (a, b) = &mut own[i];
        // SAFETY: empty4 ignores its arguments.
        unsafe { on[i].empty4(&cfg, &*a, b, 0, 1.0).unwrap() };
    });
    // cudarc's buffers with its per-buffer events.
    let mut slices = buffers();
    let first = Empty4Args::new(
        RawDevicePtr::of(&slices[0].0),
        RawDevicePtr::of(&slices[0].1),
    );
    let (raw_slices, slices_us) = phase(first, &mut |i| {
        let (a, b) = &mut slices[i];
        // SAFETY: empty4 ignores its arguments.
        unsafe { on[i].empty4(&cfg, &*a, b, 0, 1.0).unwrap() };
    });
    // SAFETY: each untracked buffer is used by launches of one stream only, and freed after
    // the device is synchronised.
    unsafe { gpu.order_streams_manually() };
    assert!(!gpu.tracks_buffer_events());
    let mut manual_bufs = buffers();
    let first = Empty4Args::new(
        RawDevicePtr::of(&manual_bufs[0].0),
        RawDevicePtr::of(&manual_bufs[0].1),
    );
    let (raw_manual, manual) = phase(first, &mut |i| {
        let (a, b) = &mut manual_bufs[i];
        // SAFETY: empty4 ignores its arguments.
        unsafe { on[i].empty4(&cfg, &*a, b, 0, 1.0).unwrap() };
    });
    let own_over = paired_ratio(&own_us, &raw_own);
    let slices_over = paired_ratio(&slices_us, &raw_slices);
    let manual_over = paired_ratio(&manual, &raw_manual);
    let (raw_a, own_us) = (median(raw_own), median(own_us));
    let (raw_c, slices_us) = (median(raw_slices), median(slices_us));
    let (raw_b, manual_us) = (median(raw_manual), median(manual));
    println!(
        "-- two streams: host time per launch of empty4 alternating between two streams, {LAUNCHES} launches per path in interleaved bursts of {BURST} (raw and ours each round), medians over rounds"
    );
    report(
        "streams.raw_cuLaunchKernel_us (phase 1)",
        raw_a,
        "us/launch",
    );
    report("streams.stub_default_us", own_us, "us/launch");
    report("streams.default_over_raw", own_over, "x");
    report(
        "streams.raw_cuLaunchKernel_us (phase 2)",
        raw_c,
        "us/launch",
    );
    report("streams.stub_cuda_slice_us", slices_us, "us/launch");
    report("streams.cuda_slice_over_raw", slices_over, "x");
    report(
        "streams.raw_cuLaunchKernel_us (phase 3)",
        raw_b,
        "us/launch",
    );
    report("streams.stub_manual_us", manual_us, "us/launch");
    report("streams.manual_over_raw", manual_over, "x");
    (own_over, slices_over, manual_over)
}
