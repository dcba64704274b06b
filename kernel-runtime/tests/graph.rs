//! GPU test of graph capture and replay (its own binary: capture needs cudarc's single-stream
//! mode, which another test switching streams would end).

mod common;

use common::TestKernels;
use cuda_kernel_runtime::Launch;
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

#[test]
fn captured_launches_replay() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut rng = Rng::with_seed(30);
    let n = 1 << 16;
    let (a, xs, ys) = (rng.nonzero_f32(), rng.nonzero_f32s(n), rng.nonzero_f32s(n));
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.upload(&ys).unwrap();
    let cfg = Launch::for_num_elems(n as u32);
    let graph = gpu
        .capture(|g| {
            let k = TestKernels::load(g)?;
            for _ in 0..3 {
                // SAFETY: both buffers hold n elements.
                unsafe { k.saxpy(&cfg, a, &x, &mut y, n as i32)? };
            }
            Ok(())
        })
        .unwrap();
    // Nothing ran during capture.
    assert_eq!(gpu.download(&y).unwrap(), ys);
    graph.upload().unwrap();
    let replays = 4;
    for _ in 0..replays {
        graph.launch().unwrap();
    }
    let mut want = ys.clone();
    for _ in 0..3 * replays {
        want = want.iter().zip(&xs).map(|(y, x)| a * x + y).collect();
    }
    assert_close(&gpu.download(&y).unwrap(), &want, 1e-4);
}

#[test]
fn failed_capture_is_an_error_and_ends_the_capture() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = gpu.capture(|_| {
        Err(cuda_kernel_runtime::Error::NoDriver {
            reason: "deliberate".into(),
        })
    });
    assert!(matches!(
        r,
        Err(cuda_kernel_runtime::Error::NoDriver { .. })
    ));
    // The device is still usable afterwards.
    let xs = Rng::with_seed(31).nonzero_u32s(100);
    assert_eq!(gpu.download(&gpu.upload(&xs).unwrap()).unwrap(), xs);
}
