//! Run-time linking (`Linker`, nvJitLink): LTO-IR of two files into one cubin without a GPU
//! (its kernel and layout read back), the undefined symbol of an incomplete link, a missing
//! nvJitLink; on the GPU, the LTO-IR pair and a relocatable cubin + PTX pair linked for the
//! device and checked against a CPU reference.
//!
//! nvJitLink is the project's (`scripts/install-cuda-toolkit.sh`) when installed, else the
//! system's. GPU tests skip (with the reason) without a GPU; they fail when
//! `KERNEL_REQUIRE_GPU=1`.

use std::path::{Path, PathBuf};

use cuda_kernel_runtime::{CodeKind, Error, Launch, LinkOptions, Linker, ObjectCode};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

const KERNEL_LTO: &[u8] = include_bytes!("cuda/objects/lto_kernel.ltoir");
const POLY_LTO: &[u8] = include_bytes!("cuda/objects/lto_poly.ltoir");
const KERNEL_PTX: &str = include_str!("cuda/objects/lto_kernel.ptx");
const POLY_RDC_SM90: &[u8] = include_bytes!("cuda/objects/lto_poly.sm_90.cubin");

/// A linker using the project's nvJitLink when there is one, else the system's.
fn linker() -> Linker {
    let local = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.cuda-toolkit/nvidia/cu13/lib/libnvJitLink.so.13");
    if local.is_file() {
        Linker::new().nvjitlink(local)
    } else {
        Linker::new()
    }
}

fn lto_pair() -> Result<Linker, Error> {
    Ok(linker()
        .input(ObjectCode::from_bytes(KERNEL_LTO)?.with_name("lto_kernel.ltoir"))
        .input(ObjectCode::from_bytes(POLY_LTO)?.with_name("lto_poly.ltoir")))
}

fn poly(x: f32) -> f32 {
    (0.5 * x * x - 2.0) * x + 1.0
}

#[test]
fn lto_ir_of_two_files_links_without_a_gpu() -> Result<(), Error> {
    let linked = match lto_pair()?.link_for("sm_90") {
        Err(Error::NvJitLinkMissing { tried }) => {
            println!("skipped: no nvJitLink ({})", tried.join("; "));
            return Ok(());
        }
        other => other?,
    };
    assert_eq!(linked.code.kind(), CodeKind::Cubin);
    assert_eq!(linked.code.targets()?, ["sm_90"]);
    let kernels = linked.code.kernels()?;
    let k = kernels.iter().find(|k| k.symbol == "apply_poly").unwrap();
    assert_eq!(k.params, [(0, 8), (8, 8), (16, 4)]);
    // Options reach the linker (the target; the others must be accepted). Whether the
    // verbose log has anything to say differs between nvJitLink builds: not checked.
    let verbose = lto_pair()?
        .options(LinkOptions {
            verbose: true,
            max_registers: Some(32),
            ..LinkOptions::default()
        })
        .link_for("sm_80")?;
    assert_eq!(verbose.code.targets()?, ["sm_80"]);
    Ok(())
}

#[test]
fn an_incomplete_link_names_the_undefined_symbol() -> Result<(), Error> {
    let result = linker()
        .input(ObjectCode::from_bytes(KERNEL_LTO)?.with_name("lto_kernel.ltoir"))
        .link_for("sm_90");
    match result {
        Err(Error::NvJitLinkMissing { .. }) => println!("skipped: no nvJitLink"),
        Err(Error::UndefinedSymbol { symbol, .. }) => assert!(symbol.contains("poly"), "{symbol}"),
        Err(other) => panic!("expected UndefinedSymbol, got {other}"),
        Ok(_) => panic!("linked without the definition of poly"),
    }
    Ok(())
}

#[test]
fn a_missing_nvjitlink_says_how_to_get_it() {
    let err = Linker::new()
        .nvjitlink(PathBuf::from("/nonexistent/libnvJitLink.so.13"))
        .input(ObjectCode::lto_ir(POLY_LTO.to_vec()))
        .link_for("sm_90")
        .unwrap_err();
    assert!(matches!(err, Error::NvJitLinkMissing { .. }));
    assert!(
        err.to_string().contains("pip install nvidia-nvjitlink"),
        "{err}"
    );
}

/// Launches `apply_poly` of `module` on random data and checks it.
fn check_apply_poly(
    gpu: &cuda_kernel_runtime::Gpu,
    module: &cuda_kernel_runtime::RawModule,
) -> Result<(), Error> {
    let n = 4096usize;
    let xs = Rng::with_seed(41).nonzero_f32s(n);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(n)?;
    let k = module.kernel("apply_poly")?;
    // SAFETY: apply_poly(const float* x, float* y, int n) touches x[i], y[i] for i < n.
    unsafe { k.launch(&Launch::for_num_elems(n as u32), (&x, &mut y, n as i32))? };
    let want: Vec<f32> = xs.iter().map(|&v| poly(v)).collect();
    assert_close(&gpu.download(&y)?, &want, 1e-5);
    Ok(())
}

#[test]
fn lto_ir_linked_for_the_gpu_runs() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let (module, linked) = lto_pair()?.link(&gpu)?;
    assert_eq!(linked.code.targets()?, [gpu.arch()]);
    check_apply_poly(&gpu, &module)
}

#[test]
fn a_relocatable_cubin_and_ptx_linked_for_the_gpu_run() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    if gpu.arch() != "sm_90" {
        println!(
            "skipped: the relocatable cubin fixture is for sm_90, this GPU is {}",
            gpu.arch()
        );
        return Ok(());
    }
    let rdc = ObjectCode::from_bytes(POLY_RDC_SM90)?;
    assert!(matches!(rdc.load(&gpu), Err(Error::NeedsLinking { .. })));
    let (module, _) = linker()
        .input(ObjectCode::from_bytes(KERNEL_PTX)?.with_name("lto_kernel.ptx"))
        .input(rdc.with_name("lto_poly.sm_90.cubin"))
        .link(&gpu)?;
    check_apply_poly(&gpu, &module)
}

#[test]
fn the_drivers_linker_links_what_is_not_lto_ir() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    // LTO-IR needs nvJitLink: the driver's linker says so.
    match lto_pair()?.driver_linker(true).link(&gpu) {
        Err(Error::Link { problem, .. }) => assert!(problem.contains("nvJitLink"), "{problem}"),
        Err(other) => panic!("expected Link, got {other}"),
        Ok(_) => panic!("the driver's linker linked LTO-IR"),
    }
    if gpu.arch() != "sm_90" {
        println!(
            "skipped: the relocatable cubin fixture is for sm_90, this GPU is {}",
            gpu.arch()
        );
        return Ok(());
    }
    let (module, linked) = Linker::new()
        .driver_linker(true)
        .options(LinkOptions {
            max_registers: Some(32),
            ..LinkOptions::default()
        })
        .input(ObjectCode::from_bytes(KERNEL_PTX)?.with_name("lto_kernel.ptx"))
        .input(ObjectCode::from_bytes(POLY_RDC_SM90)?.with_name("lto_poly.sm_90.cubin"))
        .link(&gpu)?;
    assert_eq!(linked.code.targets()?, ["sm_90"]);
    check_apply_poly(&gpu, &module)
}

#[test]
fn code_linked_for_another_target_says_which_targets_it_has() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let other = if gpu.arch() == "sm_80" {
        "sm_90"
    } else {
        "sm_80"
    };
    let linked = lto_pair()?.link_for(other)?;
    match linked.code.load(&gpu) {
        Err(Error::NoBinaryForGpu {
            archs, device_arch, ..
        }) => {
            assert_eq!(archs, [other]);
            assert_eq!(device_arch, gpu.arch());
        }
        Err(e) => panic!("expected NoBinaryForGpu, got {e}"),
        Ok(_) => panic!("a cubin for {other} loaded on {}", gpu.arch()),
    }
    Ok(())
}

#[test]
fn lto_ir_newer_than_the_linker_is_named() -> Result<(), Error> {
    // The LTO-IR container's version, raised past what this nvJitLink reads: what LTO-IR
    // from a newer toolkit looks like to it.
    let mut newer = POLY_LTO.to_vec();
    newer[5] = newer[5].wrapping_add(1);
    let result = linker()
        .input(ObjectCode::from_bytes(KERNEL_LTO)?)
        .input(ObjectCode::lto_ir(newer).with_name("newer.ltoir"))
        .link_for("sm_90");
    match result {
        Err(Error::NvJitLinkMissing { .. }) => println!("skipped: no nvJitLink"),
        Err(Error::LinkerTooOld { linker, log, .. }) => {
            assert!(linker >= (13, 0));
            assert!(log.contains("newer version of nvJitLink"), "{log}");
        }
        Err(other) => panic!("expected LinkerTooOld, got {other}"),
        Ok(_) => panic!("linked LTO-IR of an unknown version"),
    }
    Ok(())
}

/// Kernels launching kernels, compiled at run time with `-rdc=true` (NVRTC) and linked with
/// the CUDA device runtime (`libcudadevrt.a`, an archive input) by the runtime's `Linker`.
const TREE: &str = r#"
extern "C" __global__ void child(float* x, int from, int to) {
    int i = from + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < to) x[i] = 3.0f * x[i] - 1.0f;
}
extern "C" __global__ void parent(float* x, int n, int chunk) {
    int from = (blockIdx.x * blockDim.x + threadIdx.x) * chunk;
    if (from < n) child<<<(chunk + 127) / 128, 128>>>(x, from, min(n, from + chunk));
}
"#;

/// The device runtime of the project's toolkit or of a system one in `/usr/local/cuda`.
fn device_runtime() -> Option<PathBuf> {
    let dirs = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cuda-toolkit/nvidia/cu13/lib"),
        PathBuf::from("/usr/local/cuda/lib64"),
        PathBuf::from("/usr/local/cuda/targets/x86_64-linux/lib"),
    ];
    dirs.into_iter()
        .map(|d| d.join("libcudadevrt.a"))
        .find(|p| p.is_file())
}

#[test]
fn kernels_launching_kernels_link_the_device_runtime_at_run_time() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let Some(devrt) = device_runtime() else {
        println!("skipped: no libcudadevrt.a (a CUDA toolkit's) to link");
        return Ok(());
    };
    let arch = gpu.arch();
    // A relocatable cubin for this GPU.
    let rdc = cuda_kernel_runtime::Program::new(TREE)
        .name("tree.cu")
        .option("-rdc=true")
        .compile(&arch)?;
    let library = ObjectCode::from_file(&devrt)?;
    assert_eq!(library.kind(), CodeKind::Library);
    let (module, _) = linker().input(rdc).input(library).link(&gpu)?;
    let (n, chunk) = (50_001usize, 500usize);
    let xs = Rng::with_seed(101).nonzero_f32s(n);
    let mut x = gpu.upload(&xs)?;
    let threads = n.div_ceil(chunk) as u32;
    // SAFETY: parent(float* x, int n, int chunk): each thread launches a child over its chunk
    // of x[0..n); x holds n.
    unsafe {
        module.kernel("parent")?.launch(
            &Launch::new(threads.div_ceil(64), 64),
            (&mut x, n as i32, chunk as i32),
        )?
    };
    let want: Vec<f32> = xs.iter().map(|v| 3.0 * v - 1.0).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-5);
    Ok(())
}
