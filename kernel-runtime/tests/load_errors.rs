//! GPU tests of module loading failures: each must come back as the error that names its cause.

mod common;

use common::OLD_ARCH;
use cuda_kernel_runtime::__private::load_module;
use cuda_kernel_runtime::spec::ModuleSpec;
use cuda_kernel_runtime::{Error, RawModule};
use kernel_test_support::gpu_or_skip;

static OLD_SPEC: ModuleSpec = ModuleSpec {
    name: "old_arch",
    image: Some(&OLD_ARCH.0),
    archs: &["sm_75"],
    toolkit: "13.0",
    kernels: &[],
    globals: &[],
    units: &[],
    source: None,
    tuned: &[],
};

static NO_CODE: ModuleSpec = ModuleSpec {
    name: "docs_only",
    image: None,
    archs: &[],
    toolkit: "",
    kernels: &[],
    globals: &[],
    units: &[],
    source: None,
    tuned: &[],
};

#[test]
fn no_binary_for_gpu_names_device_and_archs() {
    let Some(gpu) = gpu_or_skip() else { return };
    if gpu.compute_capability().0 == 7 {
        println!("skipped: the device is sm_7x, where the sm_75 image loads");
        return;
    }
    match load_module(&gpu, &OLD_SPEC) {
        Err(Error::NoBinaryForGpu {
            module,
            device_arch,
            archs,
            ..
        }) => {
            assert_eq!(module, "old_arch");
            assert_eq!(device_arch, gpu.arch());
            assert_eq!(archs, ["sm_75"]);
        }
        Err(e) => panic!("expected NoBinaryForGpu, got {e}"),
        Ok(_) => panic!("an sm_75-only image loaded on {}", gpu.arch()),
    }
    // The same bytes from outside: the archs come from reading the image.
    match RawModule::load_bytes(&gpu, &OLD_ARCH.0) {
        Err(Error::NoBinaryForGpu { archs, .. }) => assert_eq!(archs, ["sm_75"]),
        Err(e) => panic!("expected NoBinaryForGpu, got {e}"),
        Ok(_) => panic!("loaded"),
    }
}

#[test]
fn ptx_newer_than_driver_is_explained() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = include_bytes!("kernels/too_new.ptx");
    match RawModule::load_bytes(&gpu, ptx) {
        Err(Error::UnsupportedPtxVersion {
            ptx_isa, driver, ..
        }) => {
            assert_eq!(ptx_isa.as_deref(), Some("99.0"));
            assert!(driver.contains('.'), "{driver}");
        }
        Err(e) => panic!("expected UnsupportedPtxVersion, got {e}"),
        Ok(_) => panic!("PTX ISA 99.0 loaded"),
    }
}

#[test]
fn module_without_device_code() {
    let Some(gpu) = gpu_or_skip() else { return };
    assert!(
        matches!(load_module(&gpu, &NO_CODE), Err(Error::NoDeviceCode { module }) if module == "docs_only")
    );
}

#[test]
fn unknown_kernel_and_missing_file() {
    let Some(gpu) = gpu_or_skip() else { return };
    let m = RawModule::load_bytes(&gpu, &common::FATBIN.0).unwrap();
    assert!(matches!(
        m.kernel("no_such_kernel"),
        Err(Error::KernelNotFound { .. })
    ));
    assert!(matches!(
        m.global::<f32>("no_such_global"),
        Err(Error::Global { .. })
    ));
    assert!(
        matches!(m.global::<f64>("coeffs"), Err(Error::Global { .. })),
        "coeffs is 16 bytes"
    );
    let e = RawModule::load_file(&gpu, "definitely/not/here.fatbin")
        .err()
        .unwrap();
    assert!(matches!(e, Error::Io { .. }), "{e}");
}

#[test]
fn external_ptx_loads_and_runs_through_jit() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = "
        .version 8.0
        .target sm_75
        .address_size 64
        .visible .entry store7(.param .u64 p)
        {
            .reg .b64 %rd<3>;
            .reg .b32 %r<2>;
            ld.param.u64 %rd1, [p];
            cvta.to.global.u64 %rd2, %rd1;
            mov.u32 %r1, 7;
            st.global.u32 [%rd2], %r1;
            ret;
        }";
    let m = RawModule::load_bytes(&gpu, ptx.as_bytes()).unwrap();
    let k = m.kernel("store7").unwrap();
    let mut out = gpu.zeros::<u32>(1).unwrap();
    // SAFETY: store7(unsigned* p) writes one element.
    unsafe {
        k.launch(&cuda_kernel_runtime::Launch::new(1, 1), (&mut out,))
            .unwrap()
    };
    assert_eq!(gpu.download(&out).unwrap(), [7]);
}
