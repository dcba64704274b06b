//! Forms of real kernel libraries on the GPU, each against a CPU reference on random
//! non-zero data: a struct whose array bound is a named constant, an instantiation by an
//! enumerator, a bit-field struct (its bit-fields as bytes, by value and behind a pointer),
//! kernels whose parameter types the front end cannot lay out (a library operator's
//! `typename Op::Params`, as CUTLASS's kernels take theirs) typed as opaque structs of the
//! size and alignment nvcc measured, with bytes built by hand, a kernel taking a closure launched by name, and null for optional pointer
//! parameters (`Null`, `None`), as candle's strided kernels take them.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, Null, RawDevicePtr, TrackedBuffer, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// Reproductions of library forms.
    // `each` takes a closure and has no typed stub on purpose: the build's warning saying
    // so is expected.
    #[allow(deprecated)]
    mod forms {
        file = "cuda/real_forms.cu";
        arch = ["sm_80", "sm_90"];
        flags = ["--extended-lambda"];
    }
}

fn cfg(n: usize) -> Launch {
    Launch::for_num_elems(n as u32)
}

#[test]
fn every_kernel_is_in_the_module_the_untyped_one_with_its_image_layout() {
    let names: Vec<&str> = forms::METADATA.kernels.iter().map(|k| k.name).collect();
    // The bit-field struct's kernels are typed in source order (its bit-fields as bytes);
    // the library operator's kernels come after them, typed with opaque parameters.
    assert_eq!(
        names[..7],
        [
            "tab",
            "fill<(Op)2>",
            "scaled_iota<Params<float, int>>",
            "halve",
            "apply",
            "copy2",
            "count_on",
        ]
    );
    let mut opaque = names[7..9].to_vec();
    opaque.sort_unstable();
    assert_eq!(
        opaque,
        [
            "lib::Kernel<lib::Axpy<double>>",
            "lib::Kernel<lib::Axpy<float>>"
        ]
    );
    // The closure's kernel comes last, by name only, with its image layout: the closure
    // holds the captured pointer.
    assert_eq!(names.len(), 10);
    let each = &forms::METADATA.kernels[9];
    assert!(
        each.name.starts_with("each<triple(float*, int)::{lambda"),
        "{}",
        each.name
    );
    let layout: Vec<(u32, u32)> = each.params.iter().map(|p| (p.offset, p.size)).collect();
    assert_eq!(layout, [(0, 8), (8, 4)]);
    assert_eq!(std::mem::size_of::<forms::Table>(), 24);
    // A bit-field struct: its bit-fields as bytes, in the struct nvcc lays out.
    assert_eq!(std::mem::size_of::<forms::Flags>(), 4);
    assert_eq!(std::mem::align_of::<forms::Flags>(), 4);
    // Opaque types: the size and alignment nvcc measured, made from bytes.
    assert_eq!(std::mem::align_of::<forms::lib_Axpy_float_Params>(), 8);
    assert_eq!(std::mem::size_of::<forms::lib_Axpy_double_Params>(), 32);
    assert_eq!(
        forms::lib_Axpy_float_Params::CUDA_TYPE,
        "lib::Axpy<float>::Params"
    );
}

#[test]
fn named_constants_and_enumerators_on_the_gpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = forms::load(&gpu)?;
    let mut r = Rng::with_seed(51);
    let mut word = || r.u32(1..1 << 20);
    let t = forms::Table {
        data: [word(), word(), word(), word(), word()],
        size: word(),
    };
    let mut out = gpu.zeros::<u32>(1)?;
    // SAFETY: `tab` writes out[0] only.
    unsafe { k.tab(&cfg(1), t, &mut out)? };
    let want = t.data.iter().sum::<u32>() + t.size;
    assert_eq!(gpu.download(&out)?, [want]);

    let n = 3001;
    let mut a = gpu.zeros::<f32>(n)?;
    // SAFETY: `fill` writes a[i] for i < n; a holds n.
    unsafe { k.fill_Op_2(&cfg(n), &mut a, n as i32)? };
    let want: Vec<f32> = (0..n).map(|i| 2.0 * i as f32 + 1.0).collect();
    assert_close(&gpu.download(&a)?, &want, 1e-6);

    // The same instantiation by its symbol, through its by-name handle.
    let symbol = forms::METADATA.kernels[1].symbol;
    assert!(symbol.starts_with("_Z"), "{symbol}");
    let mut b = gpu.zeros::<f32>(n)?;
    // SAFETY: `fill<(Op)2>` takes (float*, int) and writes b[i] for i < n; b holds n.
    unsafe { k.by_name(symbol)?.launch(&cfg(n), (&mut b, n as i32))? };
    assert_close(&gpu.download(&b)?, &want, 1e-6);
    Ok(())
}

#[test]
fn a_params_template_naming_its_member_types_is_typed_on_the_gpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = forms::load(&gpu)?;
    let n = 5003usize;
    let scale = Rng::with_seed(54).nonzero_f32();
    let out = gpu.zeros::<f32>(n)?;
    let p = forms::Params_float_int {
        out: cuda_kernel_runtime::RawDevicePtr::of(&out),
        n: n as i32,
        scale,
    };
    // SAFETY: `scaled_iota` writes out[i] for i < n through `p.out`; out holds n.
    unsafe { k.scaled_iota::<forms::Params_float_int>(&cfg(n), p)? };
    let want: Vec<f32> = (0..n).map(|i| scale * i as f32).collect();
    assert_close(&gpu.download(&out)?, &want, 1e-6);
    Ok(())
}

/// `Flags { unsigned mode : 3; unsigned on : 1; }` as the compiler packs it: both in the
/// low bits of its first byte.
fn flags(mode: u32, on: bool) -> forms::Flags {
    forms::Flags {
        __bits0: [(mode | u32::from(on) << 3) as u8],
    }
}

#[test]
fn a_bit_field_struct_is_a_typed_argument() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = forms::load(&gpu)?;
    let n = 2049usize;
    let mut r = Rng::with_seed(52);
    let xs = r.nonzero_f32s(n);
    let mode = r.u32(1..8);
    let mut x = gpu.upload(&xs)?;
    // SAFETY: `apply` touches x[i] for i < n; x holds n.
    unsafe { k.apply(&cfg(n), &mut x, flags(mode, true), n as i32)? };
    let want: Vec<f32> = xs.iter().map(|v| v + mode as f32).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-6);

    // A buffer of them: the sum of `mode` over the flags that are on.
    let m = 3001usize;
    let fs: Vec<(u32, bool)> = (0..m).map(|_| (r.u32(0..8), r.bool())).collect();
    let on = gpu.upload(&fs.iter().map(|&(mo, o)| flags(mo, o)).collect::<Vec<_>>())?;
    let mut total = gpu.zeros::<i32>(1)?;
    // SAFETY: `count_on` reads fs[i] for i < m and adds to total[0].
    unsafe { k.count_on(&cfg(m), &on, m as i32, &mut total)? };
    let want: i32 = fs.iter().filter(|f| f.1).map(|f| f.0 as i32).sum();
    assert_eq!(gpu.download(&total)?, [want]);
    Ok(())
}

#[test]
fn a_library_operators_params_are_an_opaque_argument() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = forms::load(&gpu)?;
    let n = 4099usize;
    let mut r = Rng::with_seed(55);
    let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
    let alpha = r.nonzero_f32();
    let x = gpu.upload(&xs)?;
    let y = gpu.upload(&ys)?;
    // `lib::Axpy<float>::Params { float alpha; const float* x; float* y; int n; }` laid out
    // by hand: 4 bytes, padding to 8, two pointers, an int, padding to 32.
    let mut bytes = [0u8; 32];
    bytes[0..4].copy_from_slice(&alpha.to_le_bytes());
    bytes[8..16].copy_from_slice(&RawDevicePtr::of(&x).addr().to_le_bytes());
    bytes[16..24].copy_from_slice(&RawDevicePtr::of(&y).addr().to_le_bytes());
    bytes[24..28].copy_from_slice(&(n as i32).to_le_bytes());
    let params = forms::lib_Axpy_float_Params::from_bytes(bytes);
    // SAFETY: the params point at x and y, which hold n floats each; the kernel writes y.
    unsafe { k.lib_Kernel::<forms::lib_Axpy_float>(&cfg(n), params)? };
    gpu.synchronize()?;
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(a, b)| alpha * a + b).collect();
    assert_close(&gpu.download(&y)?, &want, 1e-5);
    Ok(())
}

#[test]
fn a_static_kernel_launches() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = forms::load(&gpu)?;
    let n = 1025usize;
    let xs = Rng::with_seed(57).nonzero_f32s(n);
    let mut x = gpu.upload(&xs)?;
    // SAFETY: `halve` touches x[i] for i < n; x holds n.
    unsafe { k.halve(&cfg(n), &mut x, n as i32)? };
    let want: Vec<f32> = xs.iter().map(|v| 0.5 * v).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-6);
    Ok(())
}

#[test]
fn a_kernel_taking_a_closure_launches_by_name() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = forms::load(&gpu)?;
    let n = 2053usize;
    let xs = Rng::with_seed(56).nonzero_f32s(n);
    let p = gpu.upload(&xs)?;
    let each = forms::METADATA.kernels[9].name;
    let launched = k.by_name(each)?;
    // SAFETY: the closure is its captured `float* p` (8 bytes, as the image says); the
    // kernel multiplies p[i] by 3 for i < n, and p holds n.
    unsafe { launched.launch(&cfg(n), (RawDevicePtr::of(&p), n as i32))? };
    gpu.synchronize()?;
    let want: Vec<f32> = xs.iter().map(|v| 3.0 * v).collect();
    assert_close(&gpu.download(&p)?, &want, 1e-6);
    assert!(k.by_name("no_such_kernel").is_err());
    Ok(())
}

#[test]
fn null_and_none_for_optional_pointers() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = forms::load(&gpu)?;
    let n = 4097usize;
    let mut r = Rng::with_seed(53);
    let xs = r.nonzero_f32s(n);
    let inp = gpu.upload(&xs)?;
    let twice: Vec<f32> = xs.iter().map(|v| 2.0 * v).collect();

    // Contiguous: a null stride table.
    let mut out = gpu.zeros::<f32>(n)?;
    // SAFETY: `copy2` reads inp[i] and writes out[i] for i < n; both hold n.
    unsafe { k.copy2(&cfg(n), n, Null, &inp, &mut out)? };
    assert_close(&gpu.download(&out)?, &twice, 1e-6);

    // Strided through a table given as `Some`, reversed.
    let reversed: Vec<usize> = (0..n).rev().collect();
    let strides = gpu.upload(&reversed)?;
    let table: Option<&TrackedBuffer<usize>> = Some(&strides);
    // SAFETY: strides[i] < n; as above.
    unsafe { k.copy2(&cfg(n), n, table, &inp, &mut out)? };
    let want: Vec<f32> = reversed.iter().map(|&j| 2.0 * xs[j]).collect();
    assert_close(&gpu.download(&out)?, &want, 1e-6);

    // In place: a null input, and no stride table (`None`).
    let mut data = gpu.upload(&xs)?;
    let none: Option<&TrackedBuffer<usize>> = None;
    // SAFETY: `copy2` reads and writes data[i] for i < n.
    unsafe { k.copy2(&cfg(n), n, none, Null, &mut data)? };
    assert_close(&gpu.download(&data)?, &twice, 1e-6);
    Ok(())
}
