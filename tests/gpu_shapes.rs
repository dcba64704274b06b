//! Every stub shape of `cuda_module!` against a CPU reference on random non-zero
//! data: every scalar type, halves, vector types (64-bit and 16-bit lanes included),
//! a struct by value, const and mutable pointers, `__constant__`/`__device__`
//! globals, template instantiations, a kernel without parameters (vouched safe), and
//! host data through `In`, `Out` and `InOut`.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::vector::{BFloat162, Double2, Float2, Half2, Int4, LongLong2, ULongLong4};
use cuda_kernel_runtime::{Error, In, InOut, Launch, Out, bf16, cuda_module, f16};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

/// The module is loaded once per context, so its `counter` global is shared by every
/// test of this process: the tests that use it take turns.
static COUNTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

cuda_module! {
    /// The shapes test module.
    mod shapes {
        file = "cuda/shapes.cu";
        fn axpy<T>(a: T, x: &[T], y: &mut [T], n: i32);
        fn affine(p: Affine, x: &[f32], y: &mut [f32], n: i32);
        fn halves(h: f16, b: bf16, x: &[f16], y: &mut [f32], n: i32);
        unsafe extern "CUDA" {
            // Writes one `__device__` int from one thread: sound for any launch.
            safe fn noparams();
        }
    }
}

const N: usize = 3000;

fn cfg(n: usize) -> Launch {
    Launch::for_num_elems(n as u32)
}

#[test]
fn every_scalar_type() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = shapes::load(&gpu)?;
    let mut r = Rng::with_seed(1);
    let mut bits = || r.u64(..) | 1;
    let (c, sc, uc) = (bits() as i8, bits() as i8, bits() as u8);
    let (s, us, i, u) = (bits() as i16, bits() as u16, bits() as i32, bits() as u32);
    let (l, ll, ull) = (
        (bits() >> 12) as i64,
        -((bits() >> 12) as i64),
        bits() >> 12,
    );
    let (z, d) = ((bits() >> 12) as usize, -((bits() >> 12) as isize));
    let (f, g) = (
        Rng::with_seed(2).nonzero_f32(),
        Rng::with_seed(3).nonzero_f64(),
    );
    let mut out = gpu.zeros::<f64>(15)?;
    // SAFETY: `scalars` writes out[0..15] from every thread; out holds 15 doubles.
    unsafe {
        k.scalars(
            &cfg(1),
            true,
            c,
            sc,
            uc,
            s,
            us,
            i,
            u,
            l,
            ll,
            ull,
            z,
            d,
            f,
            g,
            &mut out,
        )?
    };
    let want = [
        1.0, c as f64, sc as f64, uc as f64, s as f64, us as f64, i as f64, u as f64, l as f64,
        ll as f64, ull as f64, z as f64, d as f64, f as f64, g,
    ];
    assert_eq!(gpu.download(&out)?, want);
    Ok(())
}

#[test]
fn halves_and_bfloat16() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = shapes::load(&gpu)?;
    let mut r = Rng::with_seed(4);
    let xs: Vec<f16> = r.nonzero_f32s(N).into_iter().map(f16::from_f32).collect();
    let (h, b) = (
        f16::from_f32(r.nonzero_f32()),
        bf16::from_f32(r.nonzero_f32()),
    );
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(N)?;
    // SAFETY: `halves` touches x[k] and y[k] for k < n only; both hold N elements.
    unsafe { k.halves(&cfg(N), h, b, &x, &mut y, N as i32)? };
    let want: Vec<f32> = xs
        .iter()
        .map(|x| x.to_f32() * h.to_f32() + b.to_f32())
        .collect();
    assert_close(&gpu.download(&y)?, &want, 1e-6);
    Ok(())
}

#[test]
fn vector_types() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = shapes::load(&gpu)?;
    let mut r = Rng::with_seed(5);
    let a = Float2::new(r.nonzero_f32(), r.nonzero_f32());
    let mut int = || (r.u64(..) | 1) as i32;
    let b = Int4::new(int(), int(), int(), int());
    let c = Double2::new(
        Rng::with_seed(6).nonzero_f64(),
        Rng::with_seed(7).nonzero_f64(),
    );
    let mut out = gpu.zeros::<f64>(8)?;
    // SAFETY: `vectors` writes out[0..8]; out holds 8 doubles.
    unsafe { k.vectors(&cfg(1), a, b, c, &mut out)? };
    let want = [
        a.x as f64, a.y as f64, b.x as f64, b.y as f64, b.z as f64, b.w as f64, c.x, c.y,
    ];
    assert_eq!(gpu.download(&out)?, want);
    Ok(())
}

#[test]
fn wide_and_half_vectors() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = shapes::load(&gpu)?;
    let mut r = Rng::with_seed(11);
    // Non-zero, either sign, and exact as doubles.
    let mut wide = || {
        let v = r.i64(1..1 << 52);
        if r.bool() { v } else { -v }
    };
    let (l, a) = (
        LongLong2::new(wide(), wide()),
        LongLong2::new(wide(), wide()),
    );
    let mut r = Rng::with_seed(12);
    let mut lane = || r.u64(1..1 << 52);
    let b = ULongLong4::new(lane(), lane(), lane(), lane());
    let mut r = Rng::with_seed(13);
    let h = Half2::new(
        f16::from_f32(r.nonzero_f32()),
        f16::from_f32(r.nonzero_f32()),
    );
    let e = BFloat162::new(
        bf16::from_f32(r.nonzero_f32()),
        bf16::from_f32(r.nonzero_f32()),
    );
    let mut out = gpu.zeros::<f64>(12)?;
    // SAFETY: `wide_vectors` writes out[0..12]; out holds 12 doubles.
    unsafe { k.wide_vectors(&cfg(1), l, a, b, h, e, &mut out)? };
    let want = [
        l.x as f64,
        l.y as f64,
        a.x as f64,
        a.y as f64,
        b.x as f64,
        b.y as f64,
        b.z as f64,
        b.w as f64,
        h.x.to_f64(),
        h.y.to_f64(),
        e.x.to_f64(),
        e.y.to_f64(),
    ];
    assert_eq!(gpu.download(&out)?, want);
    Ok(())
}

#[test]
fn struct_by_value_with_host_buffers() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = shapes::load(&gpu)?;
    let mut r = Rng::with_seed(8);
    let xs = r.nonzero_f32s(N);
    let p = shapes::Affine {
        scale: r.nonzero_f32(),
        offset: 3,
        bias: r.nonzero_f64(),
    };
    let mut ys = vec![0.0f32; N];
    // SAFETY: `affine` touches x[k] and y[k] for k < n only; both hold N elements.
    unsafe { k.affine(&cfg(N), p, In(&xs), Out(&mut ys), N as i32)? };
    let want: Vec<f32> = xs
        .iter()
        .map(|x| ((x * p.scale + p.offset as f32) as f64 + p.bias) as f32)
        .collect();
    assert_close(&ys, &want, 1e-6);
    Ok(())
}

#[test]
fn unions_by_value() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = shapes::load(&gpu)?;
    let mut r = Rng::with_seed(10);
    let (f, g) = (r.nonzero_f32(), r.nonzero_f32());
    let h = f16::from_f32(r.nonzero_f32());
    let tag = (r.u64(1..127)) as i8;
    let t = shapes::Tagged {
        tag,
        w: shapes::Word { f: g },
    };
    let mut out = gpu.zeros::<u32>(4)?;
    // SAFETY: `unions` writes out[0..4] from every thread; out holds 4 words.
    unsafe {
        k.unions(
            &Launch::for_num_elems(1),
            shapes::Word { f },
            shapes::HalfBits { h },
            t,
            &mut out,
        )?
    };
    let want = [f.to_bits(), u32::from(h.to_bits()), tag as u32, g.to_bits()];
    assert_eq!(gpu.download(&out)?, want);
    Ok(())
}

#[test]
fn globals_and_const_pointers() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let _turn = COUNTER.lock().unwrap_or_else(|e| e.into_inner());
    let k = shapes::load(&gpu)?;
    let mut r = Rng::with_seed(9);
    let c: [f32; 4] = [
        r.nonzero_f32(),
        r.nonzero_f32(),
        r.nonzero_f32(),
        r.nonzero_f32(),
    ];
    k.coeffs()?.write(&c)?;
    k.counter()?.write(&0)?;
    let xs = r.nonzero_f32s(N);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(N)?;
    // SAFETY: `poly` touches x[k] and y[k] for k < n only; both hold N elements.
    unsafe { k.poly(&cfg(N), &x, &mut y, N as i32)? };
    let want: Vec<f32> = xs
        .iter()
        .map(|v| c[0] + c[1] * v + c[2] * v * v + c[3] * v * v * v)
        .collect();
    assert_close(&gpu.download(&y)?, &want, 1e-5);
    assert_eq!(k.counter()?.read()?, N as i32);
    Ok(())
}

#[test]
fn vouched_kernel_without_parameters_is_safe_to_call() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let _turn = COUNTER.lock().unwrap_or_else(|e| e.into_inner());
    let k = shapes::load(&gpu)?;
    k.counter()?.write(&-1)?;
    k.noparams(&cfg(64))?;
    assert_eq!(k.counter()?.read()?, 42);
    Ok(())
}

#[test]
fn template_instantiations_as_generics_on_another_stream() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = shapes::load(&gpu)?;
    let mut r = Rng::with_seed(10);
    let (xs, ys) = (r.nonzero_f32s(N), r.nonzero_f32s(N));
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    // SAFETY: `axpy` touches x[k] and y[k] for k < n only; both hold N elements.
    unsafe { k.axpy::<f32>(&cfg(N), 2.5, &x, &mut y, N as i32)? };
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| 2.5 * x + y).collect();
    assert_close(&gpu.download(&y)?, &want, 1e-6);

    let stream = gpu.new_stream()?;
    let on_stream = k.with_stream(&stream);
    let (xd, mut yd) = (r.nonzero_f64s(N), r.nonzero_f64s(N));
    let before = yd.clone();
    // SAFETY: as above, for doubles; host buffers hold N elements.
    unsafe { on_stream.axpy::<f64>(&cfg(N), -1.5, In(&xd), InOut(&mut yd), N as i32)? };
    let want: Vec<f64> = xd.iter().zip(&before).map(|(x, y)| -1.5 * x + y).collect();
    for (g, w) in yd.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-12 * w.abs().max(1.0),
            "got {g}, want {w}"
        );
    }
    Ok(())
}

#[test]
fn metadata_describes_the_module() {
    let m = &shapes::METADATA;
    assert_eq!(m.name, "shapes");
    let names: Vec<&str> = m.kernels.iter().map(|k| k.name).collect();
    for k in [
        "scalars",
        "halves",
        "vectors",
        "affine",
        "poly",
        "noparams",
        "axpy<float>",
        "axpy<double>",
    ] {
        assert!(names.contains(&k), "{k} missing from {names:?}");
    }
    let affine = m
        .kernels
        .iter()
        .find(|k| k.name == "affine")
        .expect("affine");
    let layout: Vec<(u32, u32)> = affine.params.iter().map(|p| (p.offset, p.size)).collect();
    // The layout verified in every image starts with the generated struct, by value.
    let s = size_of::<shapes::Affine>() as u32;
    assert_eq!(layout, [(0, s), (s, 8), (s + 8, 8), (s + 16, 4)]);
    assert!(m.image.is_some() && !m.archs.is_empty() && !m.toolkit.is_empty());
}
