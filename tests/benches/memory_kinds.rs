//! Memory kinds beside their raw driver baselines, in one process:
//!
//! - managed memory: a kernel over device buffers; over managed buffers the host has just
//!   written (pages migrate on fault); after prefetching them to the device (prefetch timed on
//!   its own); and the same sequence through raw `cuMemAllocManaged` / `cuMemPrefetchAsync` /
//!   `cuLaunchKernel`;
//! - registered host memory: upload and download bandwidth of pageable memory, a
//!   `PinnedBuffer`, a registered `Vec` (and the cost of registering it), and raw
//!   `cuMemHostRegister` + `cuMemcpy*Async`;
//! - peers (with two GPUs): device-to-device copy bandwidth before and after enabling peer
//!   access, raw `cuMemcpyPeerAsync`, and a copy staged through pinned host memory.
//!
//! Each figure is the median of 9 repetitions. Prints `BENCH {json}` lines. Without a GPU it
//! says why and exits successfully (unless `KERNEL_REQUIRE_GPU=1`).
//!
//! ```text
//! cargo bench -p kernel-tests --bench memory_kinds
//! ```
// The unsafe blocks launch `axpy` over buffers of N elements made here, or call the driver on
// allocations made here with their own sizes.
#![allow(clippy::undocumented_unsafe_blocks, missing_docs)]

use std::ffi::c_void;
use std::time::Instant;

use cuda_kernel_runtime::cudarc::driver::sys;
use cuda_kernel_runtime::{Gpu, Launch, Location, RawDevicePtr, RawModule, cuda_module};
use kernel_test_support::bench::{median, report};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

cuda_module! {
    mod kinds {
        source = r#"
            extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + y[i];
            }
        "#;
    }
}

const REPS: usize = 9;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn gbps(bytes: usize, ms: f64) -> f64 {
    bytes as f64 / (ms * 1e-3) / 1e9
}

fn check(r: sys::CUresult) {
    assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
}

fn main() {
    let Some(gpu) = gpu_or_skip() else { return };
    println!("device: {}", gpu.name());
    managed(&gpu);
    registered(&gpu);
    if let Ok(second) = Gpu::new(1) {
        peers(&gpu, &second);
    } else {
        println!("peer: skipped, one GPU");
    }
}

fn managed(gpu: &Gpu) {
    let n = 32usize << 20; // 128 MiB per buffer
    let m = kinds::load(gpu).unwrap();
    let cfg = Launch::for_num_elems(n as u32);
    let xs = Rng::with_seed(5).nonzero_f32s(n);
    let sync = || gpu.synchronize().unwrap();

    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.upload(&xs).unwrap();
    let mut device = vec![];
    for _ in 0..REPS {
        sync();
        let t = Instant::now();
        unsafe { m.axpy(&cfg, 1.0, &x, &mut y, n as i32).unwrap() };
        sync();
        device.push(ms(t));
    }
    report("managed.kernel_device_buffers_ms", median(device), "ms");

    let mx = gpu.managed_from(&xs).unwrap();
    let mut my = gpu.managed_from(&xs).unwrap();
    let (mut faulted, mut prefetch, mut prefetched) = (vec![], vec![], vec![]);
    for _ in 0..REPS {
        // The host touches every page: they are resident on the host again.
        my.as_mut_slice().unwrap().fill(1.0);
        gpu.prefetch(&mx, Location::Host).unwrap();
        sync();
        let t = Instant::now();
        unsafe { m.axpy(&cfg, 1.0, &mx, &mut my, n as i32).unwrap() };
        sync();
        faulted.push(ms(t));

        my.as_mut_slice().unwrap().fill(1.0);
        gpu.prefetch(&mx, Location::Host).unwrap();
        sync();
        let t = Instant::now();
        gpu.prefetch(&mx, Location::Device).unwrap();
        gpu.prefetch(&my, Location::Device).unwrap();
        sync();
        prefetch.push(ms(t));
        let t = Instant::now();
        unsafe { m.axpy(&cfg, 1.0, &mx, &mut my, n as i32).unwrap() };
        sync();
        prefetched.push(ms(t));
    }
    report("managed.kernel_after_host_writes_ms", median(faulted), "ms");
    report("managed.prefetch_to_device_ms", median(prefetch), "ms");
    report("managed.kernel_prefetched_ms", median(prefetched), "ms");

    // The same through the driver alone.
    let bytes = n * 4;
    let image = kinds::METADATA.image.expect("built with device code");
    let plain = RawModule::load_bytes(gpu, image).unwrap();
    let func = plain.kernel("axpy").unwrap().cu_function();
    let stream = gpu.stream().cu_stream();
    let (mut rx, mut ry) = (0u64, 0u64);
    unsafe {
        check(sys::cuMemAllocManaged(&mut rx, bytes, 1));
        check(sys::cuMemAllocManaged(&mut ry, bytes, 1));
        std::slice::from_raw_parts_mut(rx as *mut f32, n).copy_from_slice(&xs);
    }
    let device_loc = sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: gpu.ordinal() as i32,
    };
    let host_loc = sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST,
        id: 0,
    };
    let launch = |x: u64, y: u64| {
        let (mut a, mut x, mut y, mut nn) = (1.0f32, x, y, n as i32);
        let mut params: [*mut c_void; 4] = [
            (&raw mut a).cast(),
            (&raw mut x).cast(),
            (&raw mut y).cast(),
            (&raw mut nn).cast(),
        ];
        unsafe {
            check(sys::cuLaunchKernel(
                func,
                cfg.grid.0,
                1,
                1,
                cfg.block.0,
                1,
                1,
                0,
                stream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            ))
        };
    };
    let (mut faulted, mut prefetch, mut prefetched) = (vec![], vec![], vec![]);
    for _ in 0..REPS {
        unsafe {
            std::slice::from_raw_parts_mut(ry as *mut f32, n).fill(1.0);
            check(sys::cuMemPrefetchAsync_v2(rx, bytes, host_loc, 0, stream));
        }
        sync();
        let t = Instant::now();
        launch(rx, ry);
        sync();
        faulted.push(ms(t));

        unsafe {
            std::slice::from_raw_parts_mut(ry as *mut f32, n).fill(1.0);
            check(sys::cuMemPrefetchAsync_v2(rx, bytes, host_loc, 0, stream));
        }
        sync();
        let t = Instant::now();
        unsafe {
            check(sys::cuMemPrefetchAsync_v2(rx, bytes, device_loc, 0, stream));
            check(sys::cuMemPrefetchAsync_v2(ry, bytes, device_loc, 0, stream));
        }
        sync();
        prefetch.push(ms(t));
        let t = Instant::now();
        launch(rx, ry);
        sync();
        prefetched.push(ms(t));
    }
    unsafe {
        check(sys::cuMemFree_v2(rx));
        check(sys::cuMemFree_v2(ry));
    }
    report(
        "managed.raw_kernel_after_host_writes_ms",
        median(faulted),
        "ms",
    );
    report("managed.raw_prefetch_to_device_ms", median(prefetch), "ms");
    report("managed.raw_kernel_prefetched_ms", median(prefetched), "ms");
}

fn registered(gpu: &Gpu) {
    let n = 16usize << 20; // 64 MiB
    let bytes = n * 4;
    let data = Rng::with_seed(6).nonzero_f32s(n);
    let mut dev = gpu.zeros::<f32>(n).unwrap();
    let sync = || gpu.synchronize().unwrap();
    let time = |f: &mut dyn FnMut()| {
        let mut v = vec![];
        for _ in 0..REPS {
            sync();
            let t = Instant::now();
            f();
            sync();
            v.push(ms(t));
        }
        median(v)
    };

    let mut pageable = data.clone();
    let up = time(&mut || gpu.upload_into(&pageable, &mut dev).unwrap());
    let down = time(&mut || gpu.download_into(&dev, &mut pageable).unwrap());
    report("registered.pageable_upload_GBps", gbps(bytes, up), "GB/s");
    report(
        "registered.pageable_download_GBps",
        gbps(bytes, down),
        "GB/s",
    );

    let mut pinned = gpu.pinned::<f32>(n).unwrap();
    pinned.as_mut_slice().unwrap().copy_from_slice(&data);
    let up = time(&mut || gpu.upload_async(&pinned, &mut dev).unwrap());
    let down = time(&mut || gpu.download_async(&dev, &mut pinned).unwrap());
    report(
        "registered.pinned_buffer_upload_GBps",
        gbps(bytes, up),
        "GB/s",
    );
    report(
        "registered.pinned_buffer_download_GBps",
        gbps(bytes, down),
        "GB/s",
    );

    let mut vec = data.clone();
    let register = time(&mut || drop(gpu.register(&mut vec).unwrap()));
    report(
        "registered.register_and_unregister_64MiB_ms",
        register,
        "ms",
    );
    let mut guard = gpu.register(&mut vec).unwrap();
    let up = time(&mut || gpu.upload_async(&guard, &mut dev).unwrap());
    let down = time(&mut || gpu.download_async(&dev, &mut guard).unwrap());
    drop(guard);
    report("registered.registered_upload_GBps", gbps(bytes, up), "GB/s");
    report(
        "registered.registered_download_GBps",
        gbps(bytes, down),
        "GB/s",
    );

    let mut raw = data.clone();
    let ptr = raw.as_mut_ptr().cast::<c_void>();
    let stream = gpu.stream().cu_stream();
    let register = time(&mut || unsafe {
        check(sys::cuMemHostRegister_v2(ptr, bytes, 1));
        check(sys::cuMemHostUnregister(ptr));
    });
    report(
        "registered.raw_register_and_unregister_64MiB_ms",
        register,
        "ms",
    );
    unsafe { check(sys::cuMemHostRegister_v2(ptr, bytes, 1)) };
    let dptr = RawDevicePtr::of(&dev).addr();
    let up = time(&mut || unsafe { check(sys::cuMemcpyHtoDAsync_v2(dptr, ptr, bytes, stream)) });
    let down = time(&mut || unsafe { check(sys::cuMemcpyDtoHAsync_v2(ptr, dptr, bytes, stream)) });
    unsafe { check(sys::cuMemHostUnregister(ptr)) };
    report(
        "registered.raw_registered_upload_GBps",
        gbps(bytes, up),
        "GB/s",
    );
    report(
        "registered.raw_registered_download_GBps",
        gbps(bytes, down),
        "GB/s",
    );
}

fn peers(a: &Gpu, b: &Gpu) {
    let n = 64usize << 20; // 256 MiB
    let bytes = n * 4;
    println!(
        "peer: {} → {}, direct access {}",
        a.name(),
        b.name(),
        a.can_access_peer(b).unwrap()
    );
    let src = a.upload(&Rng::with_seed(7).nonzero_f32s(n)).unwrap();
    let mut dst = b.zeros::<f32>(n).unwrap();
    let time = |f: &mut dyn FnMut()| {
        let mut v = vec![];
        for _ in 0..REPS {
            a.synchronize().unwrap();
            b.synchronize().unwrap();
            let t = Instant::now();
            f();
            a.synchronize().unwrap();
            b.synchronize().unwrap();
            v.push(ms(t));
        }
        median(v)
    };
    let mut staging = a.pinned::<f32>(n).unwrap();
    let staged = time(&mut || {
        a.download_async(&src, &mut staging).unwrap();
        staging.wait().unwrap();
        b.upload_async(&staging, &mut dst).unwrap();
    });
    report(
        "peer.staged_through_pinned_host_GBps",
        gbps(bytes, staged),
        "GB/s",
    );
    let before = time(&mut || b.copy_peer_async(&src, &mut dst).unwrap());
    report(
        "peer.copy_before_enabling_GBps",
        gbps(bytes, before),
        "GB/s",
    );
    if a.can_access_peer(b).unwrap() {
        a.enable_peer_access(b).unwrap();
        b.enable_peer_access(a).unwrap();
    }
    let ours = time(&mut || b.copy_peer_async(&src, &mut dst).unwrap());
    report("peer.copy_peer_GBps", gbps(bytes, ours), "GB/s");
    let (s, d) = (RawDevicePtr::of(&src).addr(), RawDevicePtr::of(&dst).addr());
    let (sc, dc) = (a.context().cu_ctx(), b.context().cu_ctx());
    let stream = b.stream().cu_stream();
    let raw = time(&mut || unsafe { check(sys::cuMemcpyPeerAsync(d, dc, s, sc, bytes, stream)) });
    report("peer.raw_cuMemcpyPeerAsync_GBps", gbps(bytes, raw), "GB/s");
    // The same copy between plain `cuMemAlloc` allocations (not from the stream-ordered pools).
    let (mut ps, mut pd) = (0u64, 0u64);
    a.context().bind_to_thread().unwrap();
    unsafe { check(sys::cuMemAlloc_v2(&mut ps, bytes)) };
    b.context().bind_to_thread().unwrap();
    unsafe { check(sys::cuMemAlloc_v2(&mut pd, bytes)) };
    let plain =
        time(&mut || unsafe { check(sys::cuMemcpyPeerAsync(pd, dc, ps, sc, bytes, stream)) });
    report(
        "peer.raw_cuMemcpyPeerAsync_cuMemAlloc_GBps",
        gbps(bytes, plain),
        "GB/s",
    );
    let uva = time(&mut || unsafe { check(sys::cuMemcpyDtoDAsync_v2(pd, ps, bytes, stream)) });
    report(
        "peer.raw_cuMemcpyDtoDAsync_cuMemAlloc_GBps",
        gbps(bytes, uva),
        "GB/s",
    );
    unsafe {
        check(sys::cuMemFree_v2(pd));
        a.context().bind_to_thread().unwrap();
        check(sys::cuMemFree_v2(ps));
    }
    b.context().bind_to_thread().unwrap();
    let r = unsafe { sys::cuMemcpyDtoDAsync_v2(d, s, bytes, stream) };
    println!("peer: cuMemcpyDtoDAsync between pool allocations: {r:?}");
}
