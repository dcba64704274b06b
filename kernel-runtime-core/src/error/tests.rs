//! Unit tests of the runtime's errors: fault codes (a failed device `assert` apart), the
//! kernel a fault names, driver codes and messages.

use super::Error;
use super::driver::FAULTS;
use crate::driver::last_launch;
use cudarc::driver::{DriverError, sys::CUresult};

#[test]
fn faults_are_named() {
    for code in FAULTS {
        let e = Error::driver("cuStreamSynchronize", DriverError(code));
        if code == CUresult::CUDA_ERROR_ASSERT {
            assert!(
                matches!(
                    e,
                    Error::DeviceAssert {
                        call: "cuStreamSynchronize",
                        ..
                    }
                ),
                "{e:?}"
            );
        } else {
            assert!(
                matches!(
                    e,
                    Error::KernelFault {
                        call: "cuStreamSynchronize",
                        ..
                    }
                ),
                "{e:?}"
            );
        }
        assert_eq!(e.driver_code(), Some(code as u32));
    }
}

#[test]
fn a_failed_device_assert_names_the_kernel_and_says_what_is_lost() {
    // A thread of its own: the launch record is per thread.
    std::thread::spawn(|| {
        last_launch::record_kernel(&"`check_sorted` of module `checks`");
        let e = Error::driver(
            "cuStreamSynchronize",
            DriverError(CUresult::CUDA_ERROR_ASSERT),
        );
        assert_eq!(CUresult::CUDA_ERROR_ASSERT as u32, 710);
        let Error::DeviceAssert { call, kernel } = &e else {
            panic!("expected DeviceAssert, got {e:?}");
        };
        assert_eq!(*call, "cuStreamSynchronize");
        assert_eq!(kernel.as_deref(), Some("`check_sorted` of module `checks`"));
        let s = e.to_string();
        for want in [
            "device-side `assert` failed",
            "the kernel last launched from this thread: `check_sorted` of module `checks`",
            "reported by cuStreamSynchronize",
            "the assertion (file, line, block and thread) was printed to standard error",
            "the CUDA context is lost",
            "every later call on this GPU in this process fails",
            "restart the process",
        ] {
            assert!(s.contains(want), "`{want}` not in: {s}");
        }
    })
    .join()
    .unwrap();
}

#[test]
fn other_faults_name_the_kernel_too() {
    std::thread::spawn(|| {
        let e = Error::driver(
            "cuCtxSynchronize",
            DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS),
        );
        assert!(
            matches!(e, Error::KernelFault { kernel: None, .. }),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .contains("no kernel was launched from this thread, so none can be named"),
            "{e}"
        );
        last_launch::record_kernel(&"`poke` of module `m`");
        let e = Error::driver(
            "cuCtxSynchronize",
            DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS),
        );
        match &e {
            Error::KernelFault {
                name, code, kernel, ..
            } => {
                assert_eq!(name, "CUDA_ERROR_ILLEGAL_ADDRESS");
                assert_eq!(*code, 700);
                assert_eq!(kernel.as_deref(), Some("`poke` of module `m`"));
            }
            other => panic!("expected KernelFault, got {other:?}"),
        }
        let s = e.to_string();
        assert!(
            s.contains("the kernel last launched from this thread: `poke` of module `m`")
                && s.contains("CUDA_ERROR_ILLEGAL_ADDRESS")
                && s.contains("unusable"),
            "{s}"
        );
        // A graph replay is named as such, not as the kernel launched alone before it.
        last_launch::record_graph();
        let e = Error::driver(
            "cuCtxSynchronize",
            DriverError(CUresult::CUDA_ERROR_LAUNCH_FAILED),
        );
        assert!(e.to_string().contains("CUDA graph"), "{e}");
    })
    .join()
    .unwrap();
}

#[test]
fn other_codes_are_driver_errors_with_name() {
    let e = Error::driver(
        "cuMemAlloc",
        DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
    );
    match e {
        Error::Driver {
            call, code, name, ..
        } => {
            assert_eq!(call, "cuMemAlloc");
            assert_eq!(code, 2);
            assert_eq!(name, "CUDA_ERROR_OUT_OF_MEMORY");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn messages_name_the_problem() {
    let e = Error::NoBinaryForGpu {
        module: "vecmath".into(),
        device: "NVIDIA H200".into(),
        device_arch: "sm_90".into(),
        archs: vec!["sm_80".into(), "compute_80".into()],
    };
    let s = e.to_string();
    assert!(
        s.contains("sm_90") && s.contains("[sm_80, compute_80]"),
        "{s}"
    );
    let e = Error::UnsupportedPtxVersion {
        module: "m".into(),
        ptx_isa: Some("9.0".into()),
        toolkit: Some("13.0".into()),
        driver: "12.8".into(),
    };
    let s = e.to_string();
    assert!(
        s.contains("CUDA 12.8") && s.contains("PTX ISA 9.0") && s.contains("CUDA 13.0"),
        "{s}"
    );
}
