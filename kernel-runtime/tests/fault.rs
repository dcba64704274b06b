//! GPU test: a kernel fault surfaces as a named error on the next synchronizing call. Its own
//! binary, because a fault leaves the context unusable for the rest of the process.

mod common;

use common::{TestKernels, idx};
use cuda_kernel_runtime::{Error, Launch, RawDevicePtr};
use kernel_test_support::gpu_or_skip;

#[test]
fn illegal_address_is_reported_by_name() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu)
        .unwrap()
        .0
        .kernel(idx::POKE)
        .unwrap();
    // An address no allocation can have.
    let bad = RawDevicePtr::from_addr(0x10);
    // SAFETY: deliberately not: poke(int*) writes through an invalid address. The launch itself
    // succeeds; the fault is reported when the stream is synchronized.
    unsafe { k.launch(&Launch::new(1, 1), (bad,)).unwrap() };
    match gpu.synchronize() {
        Err(Error::KernelFault { name, .. }) => assert_eq!(name, "CUDA_ERROR_ILLEGAL_ADDRESS"),
        other => panic!("expected a KernelFault, got {other:?}"),
    }
}
