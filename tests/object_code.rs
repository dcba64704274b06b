//! Compiled code given at run time (`ObjectCode`): kind detection, inspection without a
//! GPU, loading with a C++ name expression mapped to its symbol, eager loading and the
//! driver's loading mode, and the error for code that must be linked first.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{CodeKind, Error, Launch, LoadingMode, ObjectCode, loading_mode};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

const PTX: &str = include_str!("cuda/objects/scale_float.ptx");
const SYMBOL: &str = "_Z5scaleIfEvPT_S0_i";

#[test]
fn ptx_is_inspected_without_a_gpu() -> Result<(), Error> {
    let code = ObjectCode::from_bytes(PTX)?.with_symbol("scale<float>", SYMBOL);
    assert_eq!(code.kind(), CodeKind::Ptx);
    assert_eq!(code.targets()?, ["sm_80"]);
    let kernels = code.kernels()?;
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels[0].symbol, SYMBOL);
    assert_eq!(kernels[0].params, [(0, 8), (8, 4), (12, 4)]);
    Ok(())
}

#[test]
fn a_name_expression_reaches_its_symbol_on_the_gpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let code = ObjectCode::from_bytes(PTX)?
        .with_name("scale_float.ptx")
        .with_symbol("scale<float>", SYMBOL);
    let module = code.load(&gpu)?;
    assert_eq!(module.name(), "scale_float.ptx");
    assert!(module.load_eager()? >= 1);
    let scale = module.kernel("scale<float>")?;
    let n = 5000usize;
    let mut r = Rng::with_seed(31);
    let xs = r.nonzero_f32s(n);
    let s = r.nonzero_f32();
    let mut x = gpu.upload(&xs)?;
    // SAFETY: `scale<float>(float* x, float s, int n)` touches x[i] for i < n; x holds n.
    unsafe { scale.launch(&Launch::for_num_elems(n as u32), (&mut x, s, n as i32))? };
    let want: Vec<f32> = xs.iter().map(|v| v * s).collect();
    assert_close(&gpu.download(&x)?, &want, 0.0);
    // The symbol itself still works.
    assert!(module.kernel(SYMBOL).is_ok());
    Ok(())
}

#[test]
fn code_to_link_is_refused_by_load_and_the_mode_is_reported() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let lto = ObjectCode::lto_ir(vec![0xed, 0x43, 0x4e, 0x7f, 1, 2, 3, 4]).with_name("k.ltoir");
    match lto.load(&gpu) {
        Err(Error::NeedsLinking { name, kind }) => {
            assert_eq!((name.as_str(), kind), ("k.ltoir", CodeKind::LtoIr));
        }
        Err(other) => panic!("expected NeedsLinking, got {other}"),
        Ok(_) => panic!("LTO-IR loaded without linking"),
    }
    let mode = loading_mode()?;
    // The driver's own variable, read here only to know what the driver was told.
    #[allow(clippy::disallowed_methods)]
    let told = std::env::var("CUDA_MODULE_LOADING");
    let expected = match told.as_deref() {
        Ok("EAGER") => LoadingMode::Eager,
        // Lazy is the driver's default since CUDA 12.2.
        _ => LoadingMode::Lazy,
    };
    assert_eq!(mode, expected);
    Ok(())
}
