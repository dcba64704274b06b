//! Modules of several `.cu` files on the GPU, against a CPU reference on random non-zero
//! data: whole-program files side by side (one driver module per file, one Rust module),
//! and the same kernels device-linked (`rdc`) and link-time optimised (`lto`), where a
//! kernel calls a `__device__` function and counts into a `__device__` variable of
//! another file.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// Two independent files.
    mod whole {
        files = ["cuda/multi/scale.cu", "cuda/multi/offset.cu"];
        arch = ["sm_80", "sm_90", "compute_90"];
    }
}

cuda_module! {
    /// Four files, one calling into another, device-linked.
    mod linked {
        files = ["cuda/multi/scale.cu", "cuda/multi/offset.cu", "cuda/multi/poly.cu", "cuda/multi/polydef.cu"];
        arch = ["sm_80", "sm_90", "compute_90"];
        rdc = true;
    }
}

cuda_module! {
    /// The same four files, link-time optimised.
    mod optimised {
        files = ["cuda/multi/scale.cu", "cuda/multi/offset.cu", "cuda/multi/poly.cu", "cuda/multi/polydef.cu"];
        arch = ["sm_80", "sm_90", "compute_90"];
        lto = true;
    }
}

const N: usize = 5003;

fn cfg() -> Launch {
    Launch::for_num_elems(N as u32)
}

#[test]
fn metadata_of_whole_program_files_has_an_image_per_file() {
    let units = whole::METADATA.units;
    assert_eq!(units.len(), 2);
    assert_eq!(units[0].file, "cuda/multi/scale.cu");
    assert_eq!(units[0].offset, 0);
    assert_eq!(units[1].offset % 8, 0);
    assert!(units[0].offset + units[0].len <= units[1].offset);
    assert!(linked::METADATA.units.is_empty());
}

#[test]
fn whole_program_files_run_as_one_module() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = whole::load(&gpu)?;
    let x = Rng::with_seed(21).nonzero_f32s(N);
    let t = whole::Affine { a: 1.5, b: -0.25 };
    let mut d = gpu.upload(&x)?;
    // SAFETY: one thread per element, guarded by n; d holds N elements.
    unsafe { m.affine(&cfg(), &mut d, t, N as i32)? };
    // SAFETY: as above.
    unsafe { m.offset(&cfg(), &mut d, 0.5, N as i32)? };
    let want: Vec<f32> = x.iter().map(|v| (1.5 * v - 0.25) + 0.5).collect();
    assert_close(&gpu.download(&d)?, &want, 1e-5);
    Ok(())
}

fn run_linked<M>(
    gpu: &Gpu,
    m: &M,
    affine: impl Fn(&M, &mut TrackedBuffer<f32>) -> Result<(), Error>,
    poly: impl Fn(&M, &mut TrackedBuffer<f32>, &TrackedBuffer<f32>) -> Result<(), Error>,
    reset: impl Fn(&M) -> Result<(), Error>,
    calls: impl Fn(&M) -> Result<u32, Error>,
) -> Result<(), Error> {
    let x = Rng::with_seed(22).nonzero_f32s(N);
    let c = 0.75f32;
    let mut d = gpu.upload(&x)?;
    affine(m, &mut d)?;
    let mut y = gpu.zeros::<f32>(N)?;
    reset(m)?;
    poly(m, &mut y, &d)?;
    let ax: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_close(&gpu.download(&d)?, &ax, 1e-5);
    let want: Vec<f32> = ax.iter().map(|v| v * v + c * v + 1.0).collect();
    assert_close(&gpu.download(&y)?, &want, 1e-4);
    assert_eq!(
        calls(m)?,
        N as u32,
        "one call per element, counted in polydef.cu's variable"
    );
    Ok(())
}

#[test]
fn rdc_module_calls_across_files() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = linked::load(&gpu)?;
    run_linked(
        &gpu,
        &m,
        |m, d| {
            // SAFETY: one thread per element, guarded by n; d holds N elements.
            unsafe { m.affine(&cfg(), d, linked::Affine { a: 2.0, b: 1.0 }, N as i32) }
        },
        |m, y, x| {
            // SAFETY: as above; x and y hold N elements.
            unsafe { m.apply_poly(&cfg(), y, x, 0.75, N as i32) }
        },
        |m| {
            // SAFETY: one thread writes the counter.
            unsafe { m.reset_calls(&Launch::new(1, 1)) }
        },
        |m| m.calls()?.read(),
    )
}

#[test]
fn lto_module_calls_across_files() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = optimised::load(&gpu)?;
    run_linked(
        &gpu,
        &m,
        |m, d| {
            // SAFETY: one thread per element, guarded by n; d holds N elements.
            unsafe { m.affine(&cfg(), d, optimised::Affine { a: 2.0, b: 1.0 }, N as i32) }
        },
        |m, y, x| {
            // SAFETY: as above; x and y hold N elements.
            unsafe { m.apply_poly(&cfg(), y, x, 0.75, N as i32) }
        },
        |m| {
            // SAFETY: one thread writes the counter.
            unsafe { m.reset_calls(&Launch::new(1, 1)) }
        },
        |m| m.calls()?.read(),
    )
}

/// What link-time optimisation changes in a kernel that calls into another file: the time
/// of `apply_poly` over 2^24 elements, median of 50 launches each, printed for the
/// benchmark notes (both must be correct; the numbers are not asserted).
#[test]
fn rdc_and_lto_kernel_times() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    const BIG: usize = 1 << 24;
    let x = gpu.upload(&Rng::with_seed(23).nonzero_f32s(BIG))?;
    let mut y = gpu.zeros::<f32>(BIG)?;
    let big = Launch::for_num_elems(BIG as u32);
    let rdc = linked::load(&gpu)?;
    let lto = optimised::load(&gpu)?;
    let mut time = |launch: &mut dyn FnMut(&mut TrackedBuffer<f32>) -> Result<(), Error>| {
        let mut ts = Vec::new();
        for _ in 0..50 {
            gpu.synchronize()?;
            let t = std::time::Instant::now();
            launch(&mut y)?;
            gpu.synchronize()?;
            ts.push(t.elapsed().as_secs_f64() * 1e6);
        }
        ts.sort_by(f64::total_cmp);
        Ok::<f64, Error>(ts[ts.len() / 2])
    };
    let t_rdc = time(&mut |y| {
        // SAFETY: one thread per element, guarded by n; x and y hold BIG elements.
        unsafe { rdc.apply_poly(&big, y, &x, 0.5, BIG as i32) }
    })?;
    let t_lto = time(&mut |y| {
        // SAFETY: as above.
        unsafe { lto.apply_poly(&big, y, &x, 0.5, BIG as i32) }
    })?;
    let regs = |m: &[(&str, &str, u32)]| {
        m.iter()
            .find(|(k, t, _)| *k == "apply_poly" && *t == "sm_90")
            .map(|r| r.2)
    };
    println!(
        "apply_poly over 2^24 floats, median of 50: rdc {t_rdc:.1} us ({:?} registers on sm_90), \
         lto {t_lto:.1} us ({:?} registers)",
        regs(linked::REGISTERS),
        regs(optimised::REGISTERS)
    );
    Ok(())
}
