//! Context limits, cache preferences, pointer attributes, the profiler, device `printf`: a
//! kernel whose threads `malloc` more than the default device heap succeeds once the heap limit
//! is raised (checked against a CPU reference), a carveout set on a kernel is read back, the
//! attributes of a buffer's address are the driver's, and `printf` output reaches the host's
//! standard output after a synchronisation (in a child process whose output is read).
//!
//! The kernels are compiled with NVRTC (`Program`). Skips (with the reason) without a GPU;
//! fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::cudarc::driver::sys::CUfunction_attribute as F;
use cuda_kernel_runtime::{
    CachePreference, ContextLimit, Error, Gpu, Launch, MemoryType, Program, RawDevicePtr, RawModule,
};
use kernel_test_support::gpu_or_skip;

const SOURCE: &str = r#"
extern "C" __global__ void heap(unsigned long long* sums, int per_thread) {
    int t = threadIdx.x;
    int* p = (int*)malloc(per_thread * sizeof(int));
    if (p == nullptr) { sums[t] = 0; return; }
    for (int i = 0; i < per_thread; ++i) p[i] = t + i;
    unsigned long long s = 0;
    for (int i = 0; i < per_thread; ++i) s += p[i];
    free(p);
    sums[t] = s;
}
extern "C" __global__ void hello(int tag) {
    printf("device says %d from thread %d\n", tag, (int)threadIdx.x);
}
"#;

fn module(gpu: &Gpu) -> Result<RawModule, Error> {
    Program::new(SOURCE)
        .name("config.cu")
        .compile_for(gpu)?
        .load(gpu)
}

#[test]
fn a_raised_heap_limit_serves_device_malloc() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let threads = 32usize;
    let per_thread = (1usize << 20) / 4; // 1 MiB per thread: 32 MiB, beyond the default 8 MiB
    let heap = 96usize << 20;
    gpu.set_limit(ContextLimit::MallocHeapSize, heap)?;
    assert!(gpu.limit(ContextLimit::MallocHeapSize)? >= heap);
    let m = module(&gpu)?;
    let k = m.kernel("heap")?;
    let mut sums = gpu.zeros::<u64>(threads)?;
    // SAFETY: heap(unsigned long long* sums, int per_thread) writes sums[t] for t < 32.
    unsafe {
        k.launch(
            &Launch::new(1, threads as u32),
            (&mut sums, per_thread as i32),
        )?
    };
    let got = gpu.download(&sums)?;
    let want: Vec<u64> = (0..threads as u64)
        .map(|t| (0..per_thread as u64).map(|i| t + i).sum())
        .collect();
    assert_eq!(got, want);
    Ok(())
}

#[test]
fn limits_preferences_attributes_and_profiler() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    gpu.set_limit(ContextLimit::StackSize, 4096)?;
    assert!(gpu.limit(ContextLimit::StackSize)? >= 4096);
    gpu.set_cache_preference(CachePreference::Shared)?;
    let m = module(&gpu)?;
    let k = m.kernel("heap")?;
    k.set_cache_preference(CachePreference::L1)?;
    k.set_shared_carveout(100)?;
    assert_eq!(
        k.attribute(F::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)?,
        100
    );
    assert!(k.set_shared_carveout(101).is_err());

    let buf = gpu.zeros::<f32>(1000)?;
    let addr = RawDevicePtr::of(&buf).addr();
    let at = gpu.pointer_attributes(addr)?;
    assert_eq!(at.memory_type, MemoryType::Device);
    assert_eq!(at.device, gpu.ordinal());
    assert!(at.range_start <= addr && addr < at.range_start + at.range_size as u64);
    assert!(at.range_size >= 4000, "{at:?}");
    assert!(!at.managed);
    let inside = gpu.pointer_attributes(addr + 400)?;
    assert_eq!(inside.range_start, at.range_start);

    gpu.profiler_start()?;
    gpu.profiler_stop()?;
    Ok(())
}

#[test]
fn device_printf_reaches_standard_output_after_a_synchronisation() {
    if gpu_or_skip().is_none() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args(["printf_child", "--exact", "--ignored", "--nocapture"])
        .output()
        .expect("spawn");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for t in 0..4 {
        assert!(
            stdout.contains(&format!("device says 1234 from thread {t}")),
            "{stdout}"
        );
    }
}

/// Run by the test above in a process of its own (its standard output is the one read).
#[test]
#[ignore = "a child process of device_printf_reaches_standard_output_after_a_synchronisation"]
fn printf_child() -> Result<(), Error> {
    let gpu = Gpu::new(0)?;
    gpu.set_limit(ContextLimit::PrintfFifoSize, 1 << 20)?;
    let m = module(&gpu)?;
    // SAFETY: hello(int) only prints.
    unsafe { m.kernel("hello")?.launch(&Launch::new(1, 4), (1234i32,))? };
    gpu.synchronize()?;
    Ok(())
}
