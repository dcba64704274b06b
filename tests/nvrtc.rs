//! Run-time compilation (`Program`, NVRTC): targets, name expressions, headers, defines and
//! compile errors without a GPU; a compiled program launched on the GPU.
//!
//! NVRTC is the project's (`scripts/install-cuda-toolkit.sh`, found through
//! `KERNEL_NVRTC_LIBRARY` set in `.cargo/config.toml`) or the system's. The GPU test skips
//! (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{CodeKind, Error, Launch, Nvrtc, ObjectCode, Program};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

const AXPY: &str = r#"
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn program() -> Program {
    Program::new(AXPY)
        .name("axpy.cu")
        .name_expression("axpy<float>")
        .name_expression("axpy<double>")
        .no_cache()
}

#[test]
fn compiles_each_kind_of_output_without_a_gpu() -> Result<(), Error> {
    let nvrtc = Nvrtc::load()?;
    assert!(nvrtc.version().0 >= 12, "{:?}", nvrtc.version());
    assert!(nvrtc.archs().contains(&90), "{:?}", nvrtc.archs());
    let cubin = program().compile("sm_90")?;
    assert_eq!(cubin.kind(), CodeKind::Cubin);
    assert_eq!(CodeKind::detect(cubin.bytes()), Some(CodeKind::Cubin));
    assert_eq!(cubin.targets()?, ["sm_90"]);
    let float = cubin.symbol("axpy<float>").to_owned();
    assert!(float.starts_with("_Z4axpyIfEv"), "{float}");
    let kernels = cubin.kernels()?;
    let k = kernels
        .iter()
        .find(|k| k.symbol == float)
        .expect("axpy<float>");
    assert_eq!(k.params, [(0, 4), (8, 8), (16, 8), (24, 4)]);
    let double = kernels
        .iter()
        .find(|k| k.symbol == cubin.symbol("axpy<double>"))
        .expect("axpy<double>");
    assert_eq!(double.params, [(0, 8), (8, 8), (16, 8), (24, 4)]);

    let ptx = program().compile("compute_90")?;
    assert_eq!(ptx.kind(), CodeKind::Ptx);
    assert_eq!(CodeKind::detect(ptx.bytes()), Some(CodeKind::Ptx));
    assert!(ptx.kernels()?.iter().any(|k| k.symbol == float));

    let lto = program().compile("lto_90")?;
    assert_eq!(lto.kind(), CodeKind::LtoIr);
    assert_eq!(CodeKind::detect(lto.bytes()), Some(CodeKind::LtoIr));
    assert_eq!(lto.symbol("axpy<float>"), float);
    Ok(())
}

#[test]
fn headers_and_defines_reach_the_compiler() -> Result<(), Error> {
    let src = "#include \"tile.h\"\nextern \"C\" __global__ void k(Tile t, float* out) { out[0] = t.v[0]; }\n";
    let tile = "struct Tile { float v[TILE]; };\n";
    let size_with = |n: u32| -> Result<u32, Error> {
        let code = Program::new(src)
            .header("tile.h", tile)
            .define("TILE", n)
            .no_cache()
            .compile("sm_90")?;
        Ok(code.kernels()?[0].params[0].1)
    };
    assert_eq!(size_with(4)?, 16);
    assert_eq!(size_with(32)?, 128);
    Ok(())
}

#[test]
fn a_compile_error_carries_the_log_and_the_options() {
    let src =
        "extern \"C\" __global__ void k(float* x) {\n    x[0] = 1.0f;\n    undeclared(x);\n}\n";
    let err = Program::new(src)
        .name("broken.cu")
        .define("TILE", 16)
        .no_cache()
        .compile("sm_90")
        .unwrap_err();
    match &err {
        Error::Compile {
            program,
            log,
            options,
        } => {
            assert_eq!(program, "broken.cu");
            assert!(log.contains("broken.cu(3)"), "{log}");
            assert!(log.contains("undeclared"), "{log}");
            assert!(options.iter().any(|o| o == "-DTILE=16"), "{options:?}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    assert!(err.to_string().contains("-DTILE=16"), "{err}");
}

#[test]
fn targets_are_checked_before_compiling() {
    for target in ["sm90", "gfx_90"] {
        let err = program().compile(target).unwrap_err();
        assert!(matches!(err, Error::UnsupportedTarget { .. }), "{err:?}");
    }
    let err = program().compile("sm_10").unwrap_err();
    assert!(err.to_string().contains("sm_90"), "{err}");
}

#[test]
fn a_program_runs_on_the_gpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let code: ObjectCode = program().compile_for(&gpu)?;
    assert_eq!(code.kind(), CodeKind::Cubin);
    assert_eq!(code.targets()?, [gpu.arch()]);
    let module = code.load(&gpu)?;
    let axpy = module.kernel("axpy<float>")?;
    let n = 10_000usize;
    let mut r = Rng::with_seed(14);
    let (xs, ys, a) = (r.nonzero_f32s(n), r.nonzero_f32s(n), r.nonzero_f32());
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    // SAFETY: axpy<float>(float a, const float* x, float* y, int n); x and y hold n.
    unsafe { axpy.launch(&Launch::for_num_elems(n as u32), (a, &x, &mut y, n as i32))? };
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a * x + y).collect();
    assert_close(&gpu.download(&y)?, &want, 1e-5);
    Ok(())
}

#[test]
fn a_missing_nvrtc_is_an_error_not_a_panic() {
    // NVRTC is opened once per process: the child is a process of its own.
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args(["missing_nvrtc_child", "--exact", "--ignored", "--nocapture"])
        .output()
        .expect("spawn");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
}

/// Run by the test above in a process of its own.
#[test]
#[ignore = "a child process of a_missing_nvrtc_is_an_error_not_a_panic"]
fn missing_nvrtc_child() {
    let err = Nvrtc::load_from("/nonexistent/libnvrtc.so.13").unwrap_err();
    assert!(matches!(err, Error::NoNvrtc { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("/nonexistent/libnvrtc.so.13"), "{text}");
    assert!(text.contains("pip install nvidia-cuda-nvrtc"), "{text}");
    // Every later use says the same, without a panic.
    let err = program().compile("sm_90").unwrap_err();
    assert!(matches!(err, Error::NoNvrtc { .. }), "{err:?}");
}
