//! Two GPUs: peer access queried and enabled (twice, harmlessly), buffers copied between the
//! devices synchronously and asynchronously (ordered with kernels on the destination), and a
//! kernel on one device reading the other's buffer directly, all against CPU references.
//!
//! Skips (with the reason) with fewer than two GPUs; fails when `KERNEL_REQUIRE_GPUS=2`.

use cuda_kernel_runtime::{Error, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, two_gpus_or_skip};

cuda_module! {
    mod peer {
        source = r#"
            extern "C" __global__ void scale(const float* x, float* y, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = s * x[i];
            }
        "#;
    }
}

#[test]
fn buffers_move_between_two_gpus() -> Result<(), Error> {
    let Some((a, b)) = two_gpus_or_skip() else {
        return Ok(());
    };
    let direct = a.can_access_peer(&b)? && b.can_access_peer(&a)?;
    println!("{} ↔ {}: direct peer access {direct}", a.name(), b.name());
    if direct {
        a.enable_peer_access(&b)?;
        b.enable_peer_access(&a)?;
        a.enable_peer_access(&b)?; // already enabled: not an error
    }
    let n = 1 << 20;
    let xs = Rng::with_seed(91).nonzero_f32s(n);
    let on_a = a.upload(&xs)?;
    let mut on_b = b.zeros::<f32>(n)?;
    b.copy_peer(&on_a, &mut on_b)?;
    assert_eq!(b.download(&on_b)?, xs);
    println!("step: synchronous copy checked");

    // Asynchronous copy, then a kernel on B over the copy, in B's stream order.
    let mb = peer::load(&b)?;
    let mut scaled = b.zeros::<f32>(n)?;
    b.copy_peer_async(&on_a, &mut on_b)?;
    let cfg = Launch::for_num_elems(n as u32);
    // SAFETY: scale reads on_b and writes scaled, n elements each.
    unsafe { mb.scale(&cfg, &on_b, &mut scaled, -2.0, n as i32)? };
    let mut back = a.zeros::<f32>(n)?;
    a.copy_peer_async(&scaled, &mut back)?;
    let want: Vec<f32> = xs.iter().map(|v| -2.0 * v).collect();
    assert_close(&a.download(&back)?, &want, 0.0);
    println!("step: asynchronous copies around a kernel checked");

    if direct {
        // A's kernel reads B's buffer through peer access.
        let ma = peer::load(&a)?;
        let mut out = a.zeros::<f32>(n)?;
        // SAFETY: as above; `scaled` lives on B, reachable from A.
        unsafe { ma.scale(&cfg, &scaled, &mut out, 0.5, n as i32)? };
        let want: Vec<f32> = xs.iter().map(|v| -v).collect();
        assert_close(&a.download(&out)?, &want, 0.0);
    }
    Ok(())
}

/// A buffer of one device dropped on a thread working on another: its free runs in its own
/// context, and the thread's stays current, so that what the thread does next for its device
/// (an allocation and a copy on the default stream, which follow the current context) lands
/// there. A left-over context once sent such an allocation to the other device, and the copy
/// into it failed (`cuMemcpyHtoDAsync`: `CUDA_ERROR_INVALID_VALUE`).
#[test]
fn dropping_another_devices_buffer_keeps_the_threads_context() -> Result<(), Error> {
    use cuda_kernel_runtime::cudarc::driver::result::ctx::get_current;
    let Some((a, b)) = two_gpus_or_skip() else {
        return Ok(());
    };
    let data = Rng::with_seed(91).nonzero_f32s(4096);
    for round in 0..4 {
        let on_a = a.upload(&data)?;
        let on_b = b.upload(&data)?;
        assert_eq!(
            get_current()?,
            Some(b.context().cu_ctx()),
            "round {round}: after b's upload"
        );
        drop(on_a);
        assert_eq!(
            get_current()?,
            Some(b.context().cu_ctx()),
            "round {round}: dropping a's buffer changed the thread's context"
        );
        assert_eq!(b.download(&on_b)?, data);
    }
    Ok(())
}
