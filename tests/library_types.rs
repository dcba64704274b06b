//! Kernels whose parameter types come from library headers and from the C++ real kernel
//! libraries write, against a CPU reference on random non-zero data: the runtime API's
//! `cudaExtent` / `cudaPitchedPtr` / `cudaPos` by value, class templates by value and
//! behind pointers, `std::true_type` / `std::false_type` tags, device function pointers
//! read from a `__device__` table, and pointers to arrays.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, RawDevicePtr, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// Library types and C++ declarators in kernel signatures.
    mod lib_types {
        file = "cuda/library_types.cu";
    }
}

const N: usize = 1000;

fn cfg(n: usize) -> Launch {
    Launch::for_num_elems(n as u32)
}

#[test]
fn runtime_api_structs_by_value() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = lib_types::load(&gpu)?;
    let mut r = Rng::with_seed(21);
    let mut v = || r.u64(1..1 << 40) as usize;
    let e = lib_types::cudaExtent {
        width: v(),
        height: v(),
        depth: v(),
    };
    let p = lib_types::cudaPitchedPtr {
        ptr: RawDevicePtr::from_addr(v() as u64),
        pitch: v(),
        xsize: v(),
        ysize: v(),
    };
    let pos = lib_types::cudaPos {
        x: v(),
        y: v(),
        z: v(),
    };
    let mut out = gpu.zeros::<u64>(10)?;
    // SAFETY: `extents` writes out[0..10] from every thread; out holds 10 values.
    unsafe { k.extents(&cfg(1), &mut out, e, p, pos)? };
    let want = [
        e.width,
        e.height,
        e.depth,
        p.ptr.addr() as usize,
        p.pitch,
        p.xsize,
        p.ysize,
        pos.x,
        pos.y,
        pos.z,
    ]
    .map(|x| x as u64);
    assert_eq!(gpu.download(&out)?, want);
    Ok(())
}

#[test]
fn class_templates_by_value_and_behind_pointers() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = lib_types::load(&gpu)?;
    let mut r = Rng::with_seed(22);
    let input = lib_types::interval_double {
        lo: r.nonzero_f64(),
        hi: r.nonzero_f64(),
    };
    let extra = lib_types::small_vec_double_3 {
        v: [r.nonzero_f64(), r.nonzero_f64(), r.nonzero_f64()],
        used: 3,
    };
    let zero = lib_types::interval_double { lo: 0.0, hi: 0.0 };
    let mut out = gpu.upload(&vec![zero; N])?;
    // SAFETY: `widen` writes out[i] for i < n only; out holds N intervals.
    unsafe { k.widen::<f64>(&cfg(N), &mut out, input, extra, N as i32)? };
    let got = gpu.download(&out)?;
    for (i, g) in got.iter().enumerate() {
        let lo = input.lo - extra.v[i % 3];
        // nvcc contracts `hi + v * used` into one fused multiply-add.
        let hi = extra.v[(i + 1) % 3].mul_add(3.0, input.hi);
        assert_eq!((g.lo, g.hi), (lo, hi), "interval {i}");
    }

    let xs = r.nonzero_f32s(N);
    let data = gpu.upload(&xs)?;
    let span = lib_types::Span_float {
        data: RawDevicePtr::of(&data),
        n: N as i32,
    };
    let span = gpu.upload(&[span])?;
    let mut sum = gpu.zeros::<f32>(1)?;
    // SAFETY: `span_sum` reads the span's N elements, which `data` holds, and writes sum[0].
    unsafe { k.span_sum(&cfg(1), &span, &mut sum)? };
    let want: f32 = xs.iter().sum();
    assert_close(&gpu.download(&sum)?, &[want], 1e-4);
    Ok(())
}

#[test]
fn standard_library_tags_choose_the_instantiation() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = lib_types::load(&gpu)?;
    let mut r = Rng::with_seed(23);
    let (xs, bs) = (r.nonzero_f32s(N), r.nonzero_f32s(N));
    let bias = gpu.upload(&bs)?;
    let mut x = gpu.upload(&xs)?;
    let yes = lib_types::std_integral_constant_bool_true::default();
    // SAFETY: `bias_or_double` touches x[i] and bias[i] for i < n only; both hold N.
    unsafe { k.bias_or_double_true(&cfg(N), &mut x, &bias, N as i32, yes)? };
    let want: Vec<f32> = xs.iter().zip(&bs).map(|(x, b)| x + b).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-6);
    let no = lib_types::std_integral_constant_bool_false::default();
    // SAFETY: as above.
    unsafe { k.bias_or_double_false(&cfg(N), &mut x, &bias, N as i32, no)? };
    let twice: Vec<f32> = want.iter().map(|v| 2.0 * v).collect();
    assert_close(&gpu.download(&x)?, &twice, 1e-6);
    Ok(())
}

#[test]
fn device_function_pointers_from_a_device_table() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = lib_types::load(&gpu)?;
    let [add, mul] = k.ops()?.read()?;
    assert!(!add.is_null() && !mul.is_null() && add != mul);
    let mut r = Rng::with_seed(24);
    let (xs, ys) = (r.nonzero_f32s(N), r.nonzero_f32s(N));
    let (a, b) = (gpu.upload(&xs)?, gpu.upload(&ys)?);
    let mut out = gpu.zeros::<f32>(N)?;
    for (op, f) in [
        (add, (|x, y| x + y) as fn(f32, f32) -> f32),
        (mul, |x, y| x * y),
    ] {
        // SAFETY: `op` is the address of one of the module's own device functions, read
        // from its table; `apply_op` touches a, b, out at i < n only, all hold N.
        unsafe { k.apply_op(&cfg(N), op, &a, &b, &mut out, N as i32)? };
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| f(*x, *y)).collect();
        assert_close(&gpu.download(&out)?, &want, 1e-6);
    }
    Ok(())
}

#[test]
fn pointers_to_arrays() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = lib_types::load(&gpu)?;
    let mut r = Rng::with_seed(25);
    let flat = r.nonzero_f32s(2 * N);
    let xy = gpu.upload(&flat)?;
    let sums = gpu.zeros::<f32>(2 * N)?;
    // SAFETY: both buffers hold N pairs of floats; `pair_ops` touches pair i < n only.
    unsafe {
        k.pair_ops(
            &cfg(N),
            RawDevicePtr::of(&xy),
            RawDevicePtr::of(&sums),
            N as i32,
        )?
    };
    let want: Vec<f32> = flat
        .chunks(2)
        .flat_map(|p| [p[0] + p[1], p[0] * p[1]])
        .collect();
    assert_close(&gpu.download(&sums)?, &want, 1e-6);
    Ok(())
}
