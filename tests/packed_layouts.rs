//! Structs whose layout comes from packing, alignment and bit-fields (`#pragma pack` with
//! push and pop, `_Pragma`, `__attribute__((packed))` and `aligned` before or after the body
//! and through macros, `alignas` and `__align__` on members, bit-fields), read through
//! pointers by a kernel on the GPU: each Rust struct has the size, alignment and offsets
//! nvcc gave (the build compares them with the compile's own table), and the kernel reads
//! every field from the bytes the Rust side wrote, against a CPU reference on random
//! non-zero data.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use std::mem::{align_of, offset_of, size_of};

use cuda_kernel_runtime::{Error, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

cuda_module! {
    /// Packed and aligned structs.
    mod packed {
        file = "cuda/packed_layouts.cu";
        arch = ["sm_80", "sm_90"];
    }
}

#[test]
fn every_kernel_is_typed_with_the_layouts_nvcc_gave() {
    let names: Vec<&str> = packed::METADATA.kernels.iter().map(|k| k.name).collect();
    assert_eq!(names, ["read_layouts"]);
    assert_eq!((size_of::<packed::P1>(), align_of::<packed::P1>()), (9, 1));
    assert_eq!(offset_of!(packed::P1, b), 1);
    assert_eq!((size_of::<packed::P2>(), align_of::<packed::P2>()), (14, 2));
    assert_eq!(offset_of!(packed::P2, c), 10);
    assert_eq!((size_of::<packed::Q1>(), align_of::<packed::Q1>()), (7, 1));
    assert_eq!((size_of::<packed::Q2>(), align_of::<packed::Q2>()), (9, 1));
    assert_eq!(
        (size_of::<packed::A1>(), align_of::<packed::A1>()),
        (32, 32)
    );
    assert_eq!(
        (size_of::<packed::M1>(), align_of::<packed::M1>()),
        (32, 16)
    );
    assert_eq!(offset_of!(packed::M1, x), 16);
    assert_eq!(offset_of!(packed::M1, y), 20);
    assert_eq!(offset_of!(packed::M2, s), 8);
    assert_eq!((size_of::<packed::B1>(), align_of::<packed::B1>()), (8, 4));
    assert_eq!(offset_of!(packed::B1, c), 2);
    assert_eq!((size_of::<packed::V>(), align_of::<packed::V>()), (12, 4));
}

/// `B1 { a : 3; b : 7; char c; d : 20 }`: `a` and `b` in the first two bytes, `d` in the
/// low 20 bits of the word at offset 4.
fn b1(a: u32, b: u32, c: i8, d: u32) -> packed::B1 {
    let low = (a | b << 3).to_le_bytes();
    let high = d.to_le_bytes();
    packed::B1 {
        __bits0: [low[0], low[1]],
        c,
        __bits1: [high[0], high[1], high[2]],
        ..Default::default()
    }
}

#[test]
fn a_kernel_reads_every_field_through_pointers() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = packed::load(&gpu)?;
    let n = 1021usize;
    let mut r = Rng::with_seed(50);
    let mut small = || r.i8(1..100);
    let mut r2 = Rng::with_seed(51);
    let xs = r2.nonzero_f32s(8 * n);
    let mut r3 = Rng::with_seed(52);
    let (mut p1, mut p2, mut q1, mut q2, mut a1) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut m1, mut m2, mut bits, mut v) = (vec![], vec![], vec![], vec![]);
    let mut want = Vec::with_capacity(8 * n);
    for i in 0..n {
        let x = |j: usize| f64::from(xs[8 * i + j]);
        let (c0, c1, c2, c3, c4, c5, c6, c7) = (
            small(),
            small(),
            small(),
            small(),
            small(),
            small(),
            small(),
            small(),
        );
        let int = r3.i32(1..1 << 20);
        let short = r3.i16(1..1000);
        let (ba, bb, bd) = (r3.u32(0..8), r3.u32(0..128), r3.u32(0..1 << 20));
        p1.push(packed::P1 { a: c0, b: x(0) });
        p2.push(packed::P2 {
            a: c1,
            b: x(1),
            c: int,
        });
        q1.push(packed::Q1 {
            a: c2,
            b: xs[8 * i + 2],
            c: short,
        });
        q2.push(packed::Q2 { a: c3, b: x(3) });
        a1.push(packed::A1 { x: xs[8 * i + 4] });
        m1.push(packed::M1 {
            c: c4,
            x: xs[8 * i + 5],
            y: int,
            ..Default::default()
        });
        m2.push(packed::M2 {
            c: c5,
            s: short,
            ..Default::default()
        });
        bits.push(b1(ba, bb, c6, bd));
        v.push(packed::V { c: c7, d: x(6) });
        want.extend([
            f64::from(c0) + x(0),
            f64::from(c1) + x(1) + f64::from(int),
            f64::from(c2) + f64::from(xs[8 * i + 2]) + f64::from(short),
            f64::from(c3) + x(3) + f64::from(xs[8 * i + 4]),
            f64::from(c4) + f64::from(xs[8 * i + 5]) + f64::from(int),
            f64::from(c5) + f64::from(short),
            f64::from(ba) + 8.0 * f64::from(bb) + 1024.0 * f64::from(c6) + 65536.0 * f64::from(bd),
            f64::from(c7) + x(6),
        ]);
    }
    let mut out = gpu.zeros::<f64>(8 * n)?;
    // SAFETY: `read_layouts` reads element i of each array and writes out[8 i .. 8 i + 8]
    // for i < n; every array holds n elements and out 8 n.
    unsafe {
        k.read_layouts(
            &Launch::for_num_elems(n as u32),
            &gpu.upload(&p1)?,
            &gpu.upload(&p2)?,
            &gpu.upload(&q1)?,
            &gpu.upload(&q2)?,
            &gpu.upload(&a1)?,
            &gpu.upload(&m1)?,
            &gpu.upload(&m2)?,
            &gpu.upload(&bits)?,
            &gpu.upload(&v)?,
            &mut out,
            n as i32,
        )?
    };
    let got = gpu.download(&out)?;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "out[{i}] (struct {} of element {}): {g} != {w}",
            i % 8,
            i / 8
        );
    }
    Ok(())
}
