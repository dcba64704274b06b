//! Streams ordered by the program (`Gpu::order_streams_manually`, `Gpu::wait_for`): data
//! uploaded on one stream, a kernel on a second that waits for it, the result downloaded on
//! the first after joining back, checked against a CPU reference. A file of its own: the
//! setting is the device context's, for the whole process.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

mod common;

use common::TestKernels;
use cuda_kernel_runtime::{Error, Launch};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

#[test]
fn a_fork_and_a_join_order_two_streams_without_buffer_events() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    assert!(gpu.tracks_buffer_events());
    // SAFETY: the buffers below are used on `main` and `side` only in the order the
    // `wait_for` calls set, and dropped after `main` is synchronised.
    unsafe { gpu.order_streams_manually() };
    assert!(!gpu.tracks_buffer_events());
    let main = gpu.with_stream(&gpu.new_stream()?);
    let side = gpu.with_stream(&gpu.new_stream()?);
    let n = 1 << 20;
    let mut r = Rng::with_seed(77);
    let (xs, ys, a) = (r.nonzero_f32s(n), r.nonzero_f32s(n), r.nonzero_f32());
    let x = main.upload(&xs)?;
    let mut y = main.upload(&ys)?;
    side.wait_for(&main)?; // fork: the kernel starts after the uploads
    let k = TestKernels(TestKernels::load(&gpu)?.0.with_stream(side.stream()));
    let cfg = Launch::for_num_elems(n as u32);
    for _ in 0..3 {
        // SAFETY: saxpy touches x[i] and y[i] for i < n; both hold n.
        unsafe { k.saxpy(&cfg, a, &x, &mut y, n as i32)? };
    }
    main.wait_for(&side)?; // join: the download waits for the kernels
    let got = main.download(&y)?;
    let want: Vec<f32> = xs
        .iter()
        .zip(&ys)
        .map(|(x, y)| (0..3).fold(*y, |acc, _| a.mul_add(*x, acc)))
        .collect();
    assert_close(&got, &want, 1e-5);
    main.synchronize()?;
    Ok(())
}
