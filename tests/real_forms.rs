//! Forms of real kernel libraries on the GPU, each against a CPU reference on random
//! non-zero data: a struct whose array bound is a named constant, an instantiation by an
//! enumerator, a kernel without a typed stub (its parameter type has a bit-field) launched
//! by name with bytes built by hand, and null for optional pointer parameters (`Null`,
//! `None`), as candle's strided kernels take them.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use kernel_runtime::{CudaSlice, Error, Launch, Null, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// Reproductions of library forms.
    // `apply` has no typed stub on purpose: the build's warning saying so is expected.
    #[allow(deprecated)]
    mod forms {
        file = "cuda/real_forms.cu";
        arch = ["sm_80", "sm_90"];
    }
}

fn cfg(n: usize) -> Launch {
    Launch::for_num_elems(n as u32)
}

#[test]
fn every_kernel_is_in_the_module_the_untyped_one_with_its_image_layout() {
    let names: Vec<&str> = forms::METADATA.kernels.iter().map(|k| k.name).collect();
    assert_eq!(
        names,
        [
            "tab",
            "fill<(Op)2>",
            "scaled_iota<Params<float, int>>",
            "copy2",
            "apply"
        ]
    );
    let apply = &forms::METADATA.kernels[4];
    let layout: Vec<(u32, u32)> = apply.params.iter().map(|p| (p.offset, p.size)).collect();
    assert_eq!(layout, [(0, 8), (8, 4), (12, 4)]);
    assert_eq!(std::mem::size_of::<forms::Table>(), 24);
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
        out: kernel_runtime::RawDevicePtr::of(&out),
        n: n as i32,
        scale,
    };
    // SAFETY: `scaled_iota` writes out[i] for i < n through `p.out`; out holds n.
    unsafe { k.scaled_iota::<forms::Params_float_int>(&cfg(n), p)? };
    let want: Vec<f32> = (0..n).map(|i| scale * i as f32).collect();
    assert_close(&gpu.download(&out)?, &want, 1e-6);
    Ok(())
}

#[test]
fn a_kernel_without_a_typed_stub_launches_by_name() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = forms::load(&gpu)?;
    let n = 2049usize;
    let mut r = Rng::with_seed(52);
    let xs = r.nonzero_f32s(n);
    let mode = r.u32(1..8);
    // `Flags { unsigned mode : 3; unsigned on : 1; }` as the compiler packs it.
    let flags: u32 = mode | 1 << 3;
    let mut x = gpu.upload(&xs)?;
    let apply = k.by_name("apply")?;
    // SAFETY: `apply` takes (float*, Flags (4 bytes), int) and touches x[i] for i < n.
    unsafe { apply.launch(&cfg(n), (&mut x, flags, n as i32))? };
    let want: Vec<f32> = xs.iter().map(|v| v + mode as f32).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-6);
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
    let table: Option<&CudaSlice<usize>> = Some(&strides);
    // SAFETY: strides[i] < n; as above.
    unsafe { k.copy2(&cfg(n), n, table, &inp, &mut out)? };
    let want: Vec<f32> = reversed.iter().map(|&j| 2.0 * xs[j]).collect();
    assert_close(&gpu.download(&out)?, &want, 1e-6);

    // In place: a null input, and no stride table (`None`).
    let mut data = gpu.upload(&xs)?;
    let none: Option<&CudaSlice<usize>> = None;
    // SAFETY: `copy2` reads and writes data[i] for i < n.
    unsafe { k.copy2(&cfg(n), n, none, Null, &mut data)? };
    assert_close(&gpu.download(&data)?, &twice, 1e-6);
    Ok(())
}
