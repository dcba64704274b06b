//! GPU fault tests beyond the per-feature ones: no driver, absurd ordinals, running out of device
//! memory, block/grid/shared-memory limits at their exact boundary, what a context can still do
//! after a kernel wrote an illegal address (in a child process, since the fault poisons the
//! context), a fatbin with only sm_80 code, and the PTX-only path (`CUDA_FORCE_PTX_JIT=1`, in a
//! child process, since the driver reads it when it starts).
#![allow(clippy::disallowed_methods)] // tests read and pass environment variables

mod common;
mod reliability_common;

use std::process::Command;
use std::sync::Mutex;

use cuda_kernel_runtime::__private::load_module;
use cuda_kernel_runtime::{ConfigError, Error, Gpu, Launch, RawModule};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};
use reliability_common::{SM80_ONLY, SM80_SPEC, SPEC, STATIC_SMEM_BYTES, expected_sass_arch, idx};

/// The tests take turns: one fills device memory, and child processes share the device.
static DEVICE: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    DEVICE.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn without_a_driver_every_entry_point_says_so() {
    match Gpu::new(0) {
        Err(Error::NoDriver { reason }) => {
            assert!(!reason.is_empty());
            assert!(matches!(Gpu::count(), Err(Error::NoDriver { .. })));
            assert!(matches!(Gpu::driver_version(), Err(Error::NoDriver { .. })));
            assert!(matches!(Gpu::new(usize::MAX), Err(Error::NoDriver { .. })));
            println!("no driver here: {reason}");
        }
        Ok(_) | Err(Error::NoDevice { .. }) => {
            assert!(Gpu::count().is_ok());
            assert!(Gpu::driver_version().unwrap().0 >= 12);
        }
        Err(e) => panic!("unexpected error opening device 0: {e}"),
    }
}

#[test]
fn absurd_ordinals_are_no_device() {
    let Some(_gpu) = gpu_or_skip() else { return };
    let _device = lock();
    let count = Gpu::count().unwrap();
    for ordinal in [count, i32::MAX as usize, i32::MAX as usize + 1, usize::MAX] {
        match Gpu::new(ordinal) {
            Err(Error::NoDevice {
                ordinal: o,
                count: c,
            }) => assert_eq!((o, c), (ordinal, count)),
            other => panic!(
                "ordinal {ordinal}: expected NoDevice, got {:?}",
                other.err()
            ),
        }
    }
}

fn saxpy_checks_out(gpu: &Gpu, seed: u64) {
    let k = load_module(gpu, &SPEC).unwrap().kernel(idx::SAXPY).unwrap();
    let mut rng = Rng::with_seed(seed);
    let n = 100_003;
    let (a, xs, ys) = (rng.nonzero_f32(), rng.nonzero_f32s(n), rng.nonzero_f32s(n));
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.upload(&ys).unwrap();
    let cfg = Launch::for_num_elems(n as u32);
    // SAFETY: saxpy(float, const float*, float*, int) with n-element buffers.
    unsafe { k.launch(&cfg, (a, &x, &mut y, n as i32)).unwrap() };
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a * x + y).collect();
    assert_close(&gpu.download(&y).unwrap(), &want, 1e-6);
}

#[test]
fn out_of_memory_is_named_and_the_context_survives() {
    let Some(gpu) = gpu_or_skip() else { return };
    let _device = lock();
    let total = gpu.total_memory().unwrap();
    let is_oom =
        |e: &Error| matches!(e, Error::Driver { name, .. } if name == "CUDA_ERROR_OUT_OF_MEMORY");
    // One allocation larger than the device.
    let e = gpu.zeros::<u8>(total + (1 << 30)).unwrap_err();
    assert!(is_oom(&e), "{e}");
    // Fill the device in sixteenths until it refuses.
    let chunk = total / 16;
    let mut held = Vec::new();
    let refused = loop {
        // SAFETY: never read.
        match unsafe { gpu.alloc::<u8>(chunk) } {
            Ok(b) => held.push(b),
            Err(e) => break e,
        }
        assert!(
            held.len() <= 16,
            "more than the device's memory was allocated"
        );
    };
    assert!(is_oom(&refused), "{refused}");
    println!("{} chunks of {chunk} bytes before: {refused}", held.len());
    drop(held);
    gpu.synchronize().unwrap();
    // The context is intact: memory comes back and kernels run correctly.
    // SAFETY: never read.
    drop(unsafe { gpu.alloc::<u8>(chunk) }.unwrap());
    saxpy_checks_out(&gpu, 31);
}

#[test]
fn launch_limits_at_the_exact_boundary() {
    let Some(gpu) = gpu_or_skip() else { return };
    let _device = lock();
    let limits = *gpu.limits();
    let k = load_module(&gpu, &SPEC)
        .unwrap()
        .kernel(idx::ADD_U32)
        .unwrap();
    let mut x = gpu.upload(&[1u32; 1024]).unwrap();
    let max = limits.max_threads_per_block;
    // SAFETY: add_u32(unsigned*, int, unsigned) on 1024 elements; blocks cover at most 1024.
    unsafe {
        k.launch(&Launch::new(1, max), (&mut x, 1024i32, 2u32))
            .unwrap()
    };
    assert!(gpu.download(&x).unwrap().iter().all(|&v| v == 3));
    // SAFETY: rejected before the driver.
    let e = unsafe { k.launch(&Launch::new(1, max + 1), (&mut x, 1024i32, 2u32)) };
    assert!(
        matches!(e, Err(Error::InvalidConfig { .. })),
        "{:?}",
        e.err()
    );
    let (_, gy, gz) = limits.max_grid_dim;
    for (grid, which, limit) in [
        ((1, gy + 1, 1), "grid.y", gy),
        ((1, 1, gz + 1), "grid.z", gz),
    ] {
        // SAFETY: rejected before the driver.
        let e = unsafe { k.launch(&Launch::new(grid, 32), (&mut x, 1024i32, 2u32)) };
        let want = ConfigError::GridDimTooLarge {
            which,
            requested: limit + 1,
            limit,
        };
        assert!(
            matches!(&e, Err(Error::InvalidConfig { problem, .. }) if *problem == want),
            "{:?}",
            e.err()
        );
    }
    assert!(
        gpu.download(&x).unwrap().iter().all(|&v| v == 3),
        "a rejected launch ran"
    );
}

#[test]
fn static_plus_dynamic_shared_memory_at_and_over_the_limit() {
    let Some(gpu) = gpu_or_skip() else { return };
    let _device = lock();
    let k = load_module(&gpu, &SPEC)
        .unwrap()
        .kernel(idx::STATIC_SMEM)
        .unwrap();
    assert_eq!(k.static_shared_bytes(), STATIC_SMEM_BYTES);
    let limit = gpu.limits().max_shared_per_block_optin;
    let dynamic = limit - STATIC_SMEM_BYTES;
    let mut rng = Rng::with_seed(32);
    let n = 256 * 40;
    let xs = rng.nonzero_f32s(n);
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.zeros::<f32>(n).unwrap();
    let floats = (dynamic / 4) as i32;
    // Exactly at the limit: opted in and run; the kernel touches the last dynamic float.
    let cfg = Launch::new((n / 256) as u32, 256).with_shared_mem(dynamic);
    // SAFETY: static_smem(const float*, float*, int, int) with n-element buffers and
    // `floats` floats of dynamic shared memory.
    unsafe { k.launch(&cfg, (&x, &mut y, n as i32, floats)).unwrap() };
    let want: Vec<f32> = xs
        .chunks(256)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    assert_eq!(gpu.download(&y).unwrap(), want);
    // One byte over: rejected, naming both parts.
    let cfg = cfg.with_shared_mem(dynamic + 1);
    // SAFETY: rejected before the driver.
    let e = unsafe { k.launch(&cfg, (&x, &mut y, n as i32, floats)) }.unwrap_err();
    let want = ConfigError::SharedMemTooLarge {
        dynamic: dynamic + 1,
        static_bytes: STATIC_SMEM_BYTES,
        limit,
    };
    assert!(
        matches!(&e, Error::InvalidConfig { problem, .. } if *problem == want),
        "{e}"
    );
}

#[test]
fn sm80_only_fatbin_loads_only_on_sm_8x() {
    let Some(gpu) = gpu_or_skip() else { return };
    let _device = lock();
    let (major, _) = gpu.compute_capability();
    match load_module(&gpu, &SM80_SPEC) {
        Ok(m) if major == 8 => {
            let mut out = gpu.zeros::<i32>(1).unwrap();
            // SAFETY: arch_probe(int*) writes one element.
            unsafe {
                m.kernel(idx::ARCH_PROBE)
                    .unwrap()
                    .launch(&Launch::new(1, 1), (&mut out,))
                    .unwrap()
            };
            assert_eq!(gpu.download(&out).unwrap(), [800]);
        }
        Err(Error::NoBinaryForGpu {
            module,
            device_arch,
            archs,
            ..
        }) if major != 8 => {
            assert_eq!(
                (module.as_str(), archs.as_slice()),
                ("sm80_only", &["sm_80".to_string()][..])
            );
            assert_eq!(device_arch, gpu.arch());
            match RawModule::load_bytes(&gpu, &SM80_ONLY.0) {
                Err(Error::NoBinaryForGpu { archs, .. }) => assert_eq!(archs, ["sm_80"]),
                other => panic!(
                    "expected NoBinaryForGpu from the bytes, got {:?}",
                    other.err()
                ),
            }
        }
        other => panic!("sm_80-only image on {}: {:?}", gpu.arch(), other.err()),
    }
}

/// Runs this test binary again with `args` and extra environment, returning its output.
fn rerun_self(test: &str, extra_args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .args(extra_args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn ptx_jit_path_is_correct() {
    let Some(_gpu) = gpu_or_skip() else { return };
    let _device = lock();
    let (ok, out) = rerun_self(
        "arch_probe_and_saxpy",
        &[],
        &[("CUDA_FORCE_PTX_JIT", "1"), ("KERNEL_REQUIRE_GPU", "1")],
    );
    println!("{out}");
    assert!(ok && out.contains("1 passed"), "the child failed");
    assert!(
        out.contains("arch_probe: 750 (forced JIT: true)"),
        "the PTX was not used"
    );
}

/// With `CUDA_FORCE_PTX_JIT=1` (set by [`ptx_jit_path_is_correct`]) the compute_75 PTX must run,
/// JIT-compiled; without it the driver's cubin. Either way saxpy matches the CPU.
#[test]
fn arch_probe_and_saxpy() {
    let Some(gpu) = gpu_or_skip() else { return };
    let _device = lock();
    let forced = std::env::var("CUDA_FORCE_PTX_JIT").is_ok_and(|v| v == "1");
    let m = load_module(&gpu, &SPEC).unwrap();
    let mut out = gpu.zeros::<i32>(1).unwrap();
    // SAFETY: arch_probe(int*) writes one element.
    unsafe {
        m.kernel(idx::ARCH_PROBE)
            .unwrap()
            .launch(&Launch::new(1, 1), (&mut out,))
            .unwrap()
    };
    let arch = gpu.download(&out).unwrap()[0];
    println!("arch_probe: {arch} (forced JIT: {forced})");
    let want = if forced {
        750
    } else {
        expected_sass_arch(gpu.compute_capability())
    };
    assert_eq!(arch, want);
    saxpy_checks_out(&gpu, 33);
    if forced && gpu.compute_capability().0 < 12 {
        // The runtime tests' module has PTX only for compute_120: nothing can run here.
        match load_module(&gpu, &common::SPEC) {
            Err(Error::NoBinaryForGpu { .. }) => {}
            other => panic!(
                "expected NoBinaryForGpu under forced JIT, got {:?}",
                other.err()
            ),
        }
    }
}

#[test]
fn after_an_illegal_address_fault() {
    let Some(_gpu) = gpu_or_skip() else { return };
    let _device = lock();
    let (ok, out) = rerun_self(
        "fault_aftermath_child",
        &["--ignored"],
        &[("RELIABILITY_FAULT_CHILD", "1")],
    );
    println!("{out}");
    assert!(ok, "the child process failed or panicked");
    let outcome = |op: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("after-fault {op}: ")))
            .unwrap_or_else(|| panic!("no outcome for {op}"))
            .to_string()
    };
    assert_eq!(
        outcome("synchronize"),
        "KernelFault CUDA_ERROR_ILLEGAL_ADDRESS"
    );
    // The error is sticky: every later use of the context fails with the same code.
    for op in [
        "synchronize again",
        "alloc",
        "load another module",
        "launch",
    ] {
        assert_eq!(
            outcome(op),
            "KernelFault CUDA_ERROR_ILLEGAL_ADDRESS",
            "{op}"
        );
    }
}

/// The child of [`after_an_illegal_address_fault`]: faults, then tries everything once and prints
/// each outcome. Never run in the same process as other GPU tests.
#[test]
#[ignore = "run by after_an_illegal_address_fault in its own process"]
fn fault_aftermath_child() {
    if std::env::var("RELIABILITY_FAULT_CHILD").is_err() {
        println!("skipped: runs only as the child of after_an_illegal_address_fault");
        return;
    }
    let gpu = gpu_or_skip().expect("the parent saw a GPU");
    reliability_common::fault::fault_and_report(&gpu);
}
