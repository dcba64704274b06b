//! Generated kernels (`elementwise!`, `reduction!`, `scan!`, and `Generated` at run time)
//! against CPU references on random non-zero data, at odd lengths, over several types;
//! NaN and infinity in reductions as C has them; length errors before any launch.
//!
//! The GPU tests skip (with the reason) without a GPU; fail when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{
    Arg, Dtype, Error, Generated, Gpu, In, InOut, bf16, elementwise, f16, reduction, scan,
};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

elementwise! {
    /// Vector kernels written from one statement each.
    mod ew {
        preamble = "__device__ float sq(float v) { return v * v; }";
        /// y ← a·x + y
        pub fn axpy<T>(a: T, x: &[T], y: &mut [T]) for T in [f32, f64, f16] = "y[i] = a * x[i] + y[i]";
        /// Widens halves, scales, writes floats (mixed element types, output not read).
        pub fn widen(x: &[f16], s: f32, y: &mut [f32]) = "y[i] = s * __half2float(x[i])";
        /// Uses the index and a branch.
        pub fn ramp(y: &mut [i32]) = "if (i % 3 == 0) y[i] = (int)i; else y[i] += 1";
        /// Reads a neighbour: the launcher is unsafe.
        pub fn diff(x: &[f32], y: &mut [f32]) = "y[i] = (i + 1 < n ? x[i + 1] : 0.0f) - x[i]";
        /// Bytes: 16 per vector.
        pub fn bump(x: &mut [u8]) = "x[i] += (unsigned char)(i & 7)";
        /// Calls the preamble: unsafe too (the generator cannot see into `sq`).
        pub fn square(x: &mut [f32]) = "x[i] = sq(x[i])";
    }
}

reduction! {
    mod red {
        pub fn sum<T>(x: &[T]) -> T for T in [f32, f64, i32, u64] {
            map = "x[i]"; reduce = "a + b"; identity = "0";
        }
        pub fn max_abs(x: &[f32]) -> f32 {
            map = "fabsf(x[i])"; reduce = "fmaxf(a, b)"; identity = "0.0f";
        }
        pub fn dot(x: &[f32], y: &[f32]) -> f64 {
            map = "(double)x[i] * (double)y[i]"; reduce = "a + b"; identity = "0";
        }
        pub fn rms(x: &[f32], scale: f32) -> f32 {
            map = "scale * x[i] * x[i]"; reduce = "a + b"; identity = "0"; post = "sqrtf(r / n)";
        }
        pub fn min_bf16(x: &[bf16]) -> f32 {
            map = "__bfloat162float(x[i])"; reduce = "fminf(a, b)"; identity = "INFINITY";
        }
    }
}

scan! {
    mod sc {
        pub fn cumsum<T>(x: &[T], y: &mut [T]) for T in [i32, u32, f32, f64, i16, u8] {
            op = "a + b"; identity = "0";
        }
        pub fn offsets(x: &[u32], y: &mut [u32]) {
            op = "a + b"; identity = "0"; exclusive = true;
        }
        pub fn running_max(x: &[f32], y: &mut [f32]) {
            op = "fmaxf(a, b)"; identity = "-INFINITY";
        }
    }
}

const LENGTHS: [usize; 4] = [1, 31, 4099, (1 << 20) + 3];

fn close(got: f64, want: f64, scale: f64, what: &str) {
    let tol = 1e-5 * scale.max(1.0);
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (tol {tol})"
    );
}

#[test]
fn elementwise_axpy_over_types_and_odd_lengths() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = ew::load(&gpu)?;
    let mut r = Rng::with_seed(41);
    for n in LENGTHS {
        let (xs, ys, a) = (r.nonzero_f32s(n), r.nonzero_f32s(n), r.nonzero_f32());
        let x = gpu.upload(&xs)?;
        let mut y = gpu.upload(&ys)?;
        k.axpy(a, &x, &mut y)?;
        let got = gpu.download(&y)?;
        for i in 0..n {
            close(
                got[i] as f64,
                (a * xs[i] + ys[i]) as f64,
                4.0,
                &format!("f32 n={n} i={i}"),
            );
        }
        let (xd, yd): (Vec<f64>, Vec<f64>) = (r.nonzero_f64s(n), r.nonzero_f64s(n));
        let x = gpu.upload(&xd)?;
        let mut y = gpu.upload(&yd)?;
        k.axpy(0.5f64, &x, &mut y)?;
        let got = gpu.download(&y)?;
        assert!(
            got.iter()
                .zip(xd.iter().zip(&yd))
                .all(|(g, (x, y))| *g == 0.5 * x + y),
            "f64 n={n}"
        );
        let xh: Vec<f16> = r.nonzero_f32s(n).into_iter().map(f16::from_f32).collect();
        let yh: Vec<f16> = r.nonzero_f32s(n).into_iter().map(f16::from_f32).collect();
        let x = gpu.upload(&xh)?;
        let mut y = gpu.upload(&yh)?;
        k.axpy(f16::from_f32(2.0), &x, &mut y)?;
        let got = gpu.download(&y)?;
        for i in 0..n {
            let want = 2.0 * xh[i].to_f32() + yh[i].to_f32();
            assert!(
                (got[i].to_f32() - want).abs() <= 0.01 * want.abs().max(1.0),
                "f16 n={n} i={i}"
            );
        }
    }
    Ok(())
}

#[test]
fn elementwise_mixed_types_views_index_and_unsafe_kernels() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = ew::load(&gpu)?;
    let mut r = Rng::with_seed(42);
    let n = (1 << 16) + 5;
    let xs: Vec<f16> = r
        .nonzero_f32s(n + 1)
        .into_iter()
        .map(f16::from_f32)
        .collect();
    let x = gpu.upload(&xs)?;
    // A view one element in: not 16-byte aligned, so the scalar path runs.
    let xv = x.slice(1..);
    let mut y = gpu.upload(&vec![7.0f32; n])?;
    k.widen(&xv, 3.0, &mut y)?;
    let got = gpu.download(&y)?;
    assert!(
        got.iter()
            .zip(&xs[1..])
            .all(|(g, x)| *g == 3.0 * x.to_f32())
    );

    let start: Vec<i32> = (0..n as i32).map(|v| v * 7 + 1).collect();
    let mut y = gpu.upload(&start)?;
    k.ramp(&mut y)?;
    let got = gpu.download(&y)?;
    for i in 0..n {
        let want = if i % 3 == 0 { i as i32 } else { start[i] + 1 };
        assert_eq!(got[i], want, "ramp i={i}");
    }

    for len in LENGTHS {
        let bytes: Vec<u8> = r.nonzero_u32s(len).into_iter().map(|v| v as u8).collect();
        let mut b = gpu.upload(&bytes)?;
        k.bump(&mut b)?;
        let got = gpu.download(&b)?;
        for i in 0..len {
            assert_eq!(
                got[i],
                bytes[i].wrapping_add((i & 7) as u8),
                "bump n={len} i={i}"
            );
        }
    }

    let xs = r.nonzero_f32s(n);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(n)?;
    // SAFETY: `diff` reads x[i + 1] only when i + 1 < n.
    unsafe { k.diff(&x, &mut y)? };
    let got = gpu.download(&y)?;
    for i in 0..n {
        let want = if i + 1 < n { xs[i + 1] } else { 0.0 } - xs[i];
        assert_eq!(got[i], want, "diff i={i}");
    }
    let mut x = gpu.upload(&xs)?;
    // SAFETY: `sq` takes and returns a value.
    unsafe { k.square(&mut x)? };
    assert!(gpu.download(&x)?.iter().zip(&xs).all(|(g, v)| *g == v * v));
    Ok(())
}

#[test]
fn slices_of_different_lengths_are_an_error_naming_the_slice() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = ew::load(&gpu)?;
    let x = gpu.upload(&[1.0f32; 10])?;
    let mut y = gpu.upload(&[1.0f32; 9])?;
    let e = k.axpy(1.0f32, &x, &mut y).unwrap_err();
    assert!(
        matches!(
            e,
            Error::SliceLength {
                slice: "y",
                len: 9,
                expected: 10,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "generated kernel `axpy`: slice `y` has 9 element(s), but x has 10; every slice of the kernel holds the same count"
    );
    assert_eq!(gpu.download(&y)?, [1.0f32; 9], "nothing launched");
    Ok(())
}

#[test]
fn reductions_over_types_lengths_and_operators() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = red::load(&gpu)?;
    let mut r = Rng::with_seed(43);
    for n in LENGTHS {
        let xs = r.nonzero_f32s(n);
        let ys = r.nonzero_f32s(n);
        let x = gpu.upload(&xs)?;
        let y = gpu.upload(&ys)?;
        let exact: f64 = xs.iter().map(|v| *v as f64).sum();
        let abs: f64 = xs.iter().map(|v| v.abs() as f64).sum();
        close(
            k.sum(&x)? as f64,
            exact,
            abs * 1e-2,
            &format!("sum f32 n={n}"),
        );
        let xd = r.nonzero_f64s(n);
        let xdd = gpu.upload(&xd)?;
        close(
            k.sum(&xdd)?,
            xd.iter().sum(),
            1.0,
            &format!("sum f64 n={n}"),
        );
        let xi: Vec<i32> = r
            .nonzero_u32s(n)
            .into_iter()
            .map(|v| v as i32 - 500)
            .collect();
        assert_eq!(
            k.sum(&gpu.upload(&xi)?)?,
            xi.iter().sum::<i32>(),
            "sum i32 n={n}"
        );
        let xu: Vec<u64> = r
            .nonzero_u32s(n)
            .into_iter()
            .map(|v| (v as u64) << 33)
            .collect();
        assert_eq!(
            k.sum(&gpu.upload(&xu)?)?,
            xu.iter().sum::<u64>(),
            "sum u64 n={n}"
        );
        let max = xs.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        assert_eq!(k.max_abs(&x)?, max, "max_abs n={n}");
        let dot: f64 = xs.iter().zip(&ys).map(|(a, b)| *a as f64 * *b as f64).sum();
        close(k.dot(&x, &y)?, dot, 1.0, &format!("dot n={n}"));
        let rms = (xs
            .iter()
            .map(|v| 2.0 * (*v as f64) * (*v as f64))
            .sum::<f64>()
            / n as f64)
            .sqrt();
        close(k.rms(&x, 2.0)? as f64, rms, 1e2, &format!("rms n={n}"));
        let xb: Vec<bf16> = xs.iter().map(|v| bf16::from_f32(*v)).collect();
        let min = xb.iter().fold(f32::INFINITY, |m, v| m.min(v.to_f32()));
        assert_eq!(k.min_bf16(&gpu.upload(&xb)?)?, min, "min bf16 n={n}");
        // Device-resident result.
        let mut out = gpu.zeros::<f32>(1)?;
        k.max_abs_into(&x, &mut out)?;
        assert_eq!(gpu.download(&out)?, [max]);
    }
    Ok(())
}

#[test]
fn reductions_are_deterministic_and_propagate_nan_and_inf_as_c_does() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = red::load(&gpu)?;
    let mut r = Rng::with_seed(44);
    let n = (1 << 22) + 17;
    let x = gpu.upload(&r.nonzero_f32s(n))?;
    let first = k.sum(&x)?;
    for _ in 0..5 {
        assert_eq!(k.sum(&x)?.to_bits(), first.to_bits(), "same bits every run");
    }
    let mut xs = r.nonzero_f32s(1000);
    xs[517] = f32::NAN;
    let x = gpu.upload(&xs)?;
    assert!(k.sum(&x)?.is_nan(), "a + b propagates NaN");
    let max = xs
        .iter()
        .filter(|v| !v.is_nan())
        .fold(0.0f32, |m, v| m.max(v.abs()));
    assert_eq!(k.max_abs(&x)?, max, "fmaxf ignores NaN");
    // No elements: the identity (then the post-map, of `n` = 0).
    assert_eq!(k.sum(x.slice(0..0))?, 0.0f32);
    assert!(k.rms(x.slice(0..0), 1.0)?.is_nan(), "sqrtf(0 / 0)");
    xs[517] = f32::INFINITY;
    let x = gpu.upload(&xs)?;
    assert_eq!(k.sum(&x)?, f32::INFINITY);
    xs[3] = f32::NEG_INFINITY;
    let x = gpu.upload(&xs)?;
    assert!(k.sum(&x)?.is_nan(), "inf + -inf is NaN");
    assert_eq!(k.max_abs(&x)?, f32::INFINITY);
    Ok(())
}

#[test]
fn scans_inclusive_exclusive_and_user_operators() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = sc::load(&gpu)?;
    let mut r = Rng::with_seed(45);
    for n in LENGTHS.into_iter().chain([(1 << 23) + 11]) {
        let xi: Vec<i32> = r
            .nonzero_u32s(n)
            .into_iter()
            .map(|v| v as i32 - 500)
            .collect();
        let mut y = gpu.zeros::<i32>(n)?;
        k.cumsum(&gpu.upload(&xi)?, &mut y)?;
        let got = gpu.download(&y)?;
        let mut acc = 0i32;
        for i in 0..n {
            acc = acc.wrapping_add(xi[i]);
            assert_eq!(got[i], acc, "cumsum i32 n={n} i={i}");
        }
        // Two- and one-byte values share their status word with the flag.
        let xs16: Vec<i16> = r
            .nonzero_u32s(n)
            .into_iter()
            .map(|v| (v as i16) - 500)
            .collect();
        let mut y16 = gpu.zeros::<i16>(n)?;
        k.cumsum(&gpu.upload(&xs16)?, &mut y16)?;
        let got = gpu.download(&y16)?;
        let mut acc = 0i16;
        for i in 0..n {
            acc = acc.wrapping_add(xs16[i]);
            assert_eq!(got[i], acc, "cumsum i16 n={n} i={i}");
        }
        let xs8: Vec<u8> = r.nonzero_u32s(n).into_iter().map(|v| v as u8).collect();
        let mut y8 = gpu.zeros::<u8>(n)?;
        k.cumsum(&gpu.upload(&xs8)?, &mut y8)?;
        let got = gpu.download(&y8)?;
        let mut acc = 0u8;
        for i in 0..n {
            acc = acc.wrapping_add(xs8[i]);
            assert_eq!(got[i], acc, "cumsum u8 n={n} i={i}");
        }
        let xu = r.nonzero_u32s(n);
        let mut y = gpu.zeros::<u32>(n)?;
        k.offsets(&gpu.upload(&xu)?, &mut y)?;
        let got = gpu.download(&y)?;
        let mut acc = 0u32;
        for i in 0..n {
            assert_eq!(got[i], acc, "offsets n={n} i={i}");
            acc = acc.wrapping_add(xu[i]);
        }
        let mut y = gpu.zeros::<u32>(n)?;
        k.cumsum(&gpu.upload(&xu)?, &mut y)?;
        assert_eq!(
            gpu.download(&y)?.last().copied(),
            Some(acc),
            "cumsum u32 total n={n}"
        );
        let xf = r.nonzero_f32s(n);
        let mut y = gpu.zeros::<f32>(n)?;
        k.cumsum(&gpu.upload(&xf)?, &mut y)?;
        let got = gpu.download(&y)?;
        let (mut acc, mut mag) = (0.0f64, 0.0f64);
        for i in 0..n {
            acc += xf[i] as f64;
            mag += xf[i].abs() as f64;
            assert!(
                (got[i] as f64 - acc).abs() <= 1e-5 * mag.max(1.0) + 1e-3,
                "cumsum f32 n={n} i={i}: {} vs {acc}",
                got[i]
            );
        }
        let xd = r.nonzero_f64s(n);
        let mut y = gpu.zeros::<f64>(n)?;
        k.cumsum(&gpu.upload(&xd)?, &mut y)?;
        let got = gpu.download(&y)?;
        let mut acc = 0.0f64;
        for i in 0..n {
            acc += xd[i];
            assert!(
                (got[i] - acc).abs() <= 1e-9 * (i as f64 + 1.0),
                "cumsum f64 n={n} i={i}"
            );
        }
        let mut y = gpu.zeros::<f32>(n)?;
        k.running_max(&gpu.upload(&xf)?, &mut y)?;
        let got = gpu.download(&y)?;
        let mut m = f32::NEG_INFINITY;
        for i in 0..n {
            m = m.max(xf[i]);
            assert_eq!(got[i], m, "running max n={n} i={i}");
        }
    }
    let x = gpu.upload(&[1u32; 8])?;
    let mut y = gpu.zeros::<u32>(7)?;
    assert!(matches!(
        k.offsets(&x, &mut y),
        Err(Error::SliceLength { .. })
    ));
    // Empty slices: nothing to scan, nothing launched, nothing written.
    let mut y = gpu.upload(&[9u32; 8])?;
    k.offsets(x.slice(0..0), y.slice_mut(0..0))?;
    assert_eq!(gpu.download(&y)?, [9u32; 8]);
    Ok(())
}

#[test]
fn generated_at_run_time_by_nvrtc() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    run_time(&gpu)
}

fn run_time(gpu: &Gpu) -> Result<(), Error> {
    let mut r = Rng::with_seed(46);
    let n = (1 << 20) + 3;
    let xs = r.nonzero_f32s(n);
    let ys = r.nonzero_f32s(n);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    let axpy = Generated::elementwise("axpy_rt", "y[i] = a * x[i] + y[i]")
        .scalar("a", Dtype::F32)
        .input("x", Dtype::F32)
        .output("y", Dtype::F32)
        .build(gpu)?;
    assert_eq!(axpy.unsafe_reason(), None);
    axpy.launch(&mut [Arg::scalar(1.5f32), Arg::input(&x), Arg::output(&mut y)])?;
    let got = gpu.download(&y)?;
    for i in 0..n {
        // The GPU contracts a * x + y into one fma: compare with a tolerance.
        close(
            got[i] as f64,
            (1.5 * xs[i] + ys[i]) as f64,
            4.0,
            &format!("run-time axpy i={i}"),
        );
    }
    // Arguments checked before the launch.
    let e = axpy
        .launch(&mut [Arg::scalar(1.5f64), Arg::input(&x), Arg::output(&mut y)])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "generated kernel `axpy_rt`: `a` holds `f32`, given `f64`"
    );
    let mut short = gpu.zeros::<f32>(3)?;
    let e = axpy
        .launch(&mut [Arg::scalar(1.5f32), Arg::input(&x), Arg::output(&mut short)])
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("slice `y` has 3 element(s), but `x` has"),
        "{e}"
    );

    for dtype in [Dtype::F32, Dtype::F64] {
        let norm = Generated::reduction(&format!("norm_{dtype}"), dtype)
            .input("x", dtype)
            .map("x[i] * x[i]")
            .reduce("a + b")
            .identity("0")
            .post("sqrt(r)")
            .build(gpu)?;
        let want = xs
            .iter()
            .map(|v| (*v as f64) * (*v as f64))
            .sum::<f64>()
            .sqrt();
        let got = match dtype {
            Dtype::F32 => norm.reduce::<f32>(&mut [Arg::input(&x)])? as f64,
            _ => {
                let xd: Vec<f64> = xs.iter().map(|v| *v as f64).collect();
                norm.reduce::<f64>(&mut [Arg::input(&gpu.upload(&xd)?)])?
            }
        };
        close(got, want, 1e2, &format!("norm {dtype}"));
        assert!(
            norm.reduce::<i32>(&mut [Arg::input(&x)]).is_err(),
            "typed result"
        );
    }
    let scan = Generated::scan("cumsum_rt", Dtype::I64).build(gpu)?;
    let xi: Vec<i64> = r.nonzero_u32s(n).into_iter().map(|v| v as i64).collect();
    let mut yi = gpu.zeros::<i64>(n)?;
    scan.scan(&gpu.upload(&xi)?, &mut yi)?;
    let got = gpu.download(&yi)?;
    let mut acc = 0;
    for i in 0..n {
        acc += xi[i];
        assert_eq!(got[i], acc);
    }
    let stencil = Generated::elementwise("shift_rt", "y[i] = x[i + 1]")
        .input("x", Dtype::F32)
        .output("y", Dtype::F32)
        .build(gpu)?;
    assert!(
        stencil
            .unsafe_reason()
            .unwrap()
            .contains("`x` other than as `x[i]`")
    );
    let e = stencil
        .launch(&mut [Arg::input(&x), Arg::output(&mut y)])
        .unwrap_err();
    assert!(e.to_string().contains("launch_unchecked"), "{e}");
    Ok(())
}

#[test]
fn run_time_expression_errors_name_kernel_and_part_without_a_gpu() {
    let e = Generated::elementwise("bad", "x[i] = 1")
        .input("x", Dtype::F32)
        .source()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "generated kernel `bad`: in the body of `bad`: `x` is an input (`&[T]`) and cannot be written; declare it `&mut [T]` to write it"
    );
}

#[test]
fn run_time_compile_errors_name_kernel_and_part_without_a_gpu() -> Result<(), Error> {
    // NVRTC is the project's (`scripts/install-cuda-toolkit.sh`) or the system's.
    let e = Generated::elementwise("wrap", "y[i] = y[i] % 2.5f")
        .output("y", Dtype::F32)
        .compile("sm_90")
        .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("in the body of `wrap`: error: expression must have integral"),
        "{text}"
    );
    let ok = Generated::scan("prefix_max", Dtype::F32)
        .op("fmaxf(a, b)")
        .identity("-INFINITY")
        .compile("sm_90")?;
    assert!(ok.kernels()?.iter().any(|k| k.symbol == "prefix_max"));
    Ok(())
}

#[test]
fn launchers_on_another_stream_and_with_host_slices() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = ew::load(&gpu)?;
    let mut r = Rng::with_seed(47);
    let n = (1 << 20) + 3;
    let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    // Uploaded on the default stream, launched on another, read back on the default one:
    // the buffers order the three.
    let s = gpu.new_stream()?;
    k.with_stream(&s).axpy(2.0f32, &x, &mut y)?;
    let got = gpu.download(&y)?;
    for i in 0..n {
        close(
            got[i] as f64,
            (2.0 * xs[i] + ys[i]) as f64,
            4.0,
            &format!("other stream i={i}"),
        );
    }
    // Host slices: copied in (and back for `InOut`) around the launch.
    let mut host = ys.clone();
    k.axpy(2.0f32, In(&xs), InOut(&mut host))?;
    for i in 0..n {
        close(
            host[i] as f64,
            (2.0 * xs[i] + ys[i]) as f64,
            4.0,
            &format!("host i={i}"),
        );
    }
    let red = red::load(&gpu)?;
    let max = xs.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    assert_eq!(red.max_abs(In(&xs))?, max);
    Ok(())
}
