//! Unit tests of the runtime's errors: fault codes, driver codes and messages.

use super::Error;
use super::driver::FAULTS;
use cudarc::driver::{DriverError, sys::CUresult};

#[test]
fn faults_are_named() {
    for code in FAULTS {
        let e = Error::driver("cuStreamSynchronize", DriverError(code));
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
