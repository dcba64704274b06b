//! How the tile of a generated scan was sized: the scan `scan!` writes for `f32`, compiled
//! by NVRTC with other elements per thread and blocks per SM (the source's `ITEMS` and
//! `__launch_bounds__`), on 2^26 floats; GPU time per call (status zeroing included), fastest
//! of 5 runs of 20. A variant whose last output differs from the CPU's sum is marked `_WRONG`.
//!
//! ```text
//! cargo bench -p kernel-tests --bench scan_variants
//! ```
// Every unsafe block launches the scan on buffers of N floats and a scratch sized for it.
#![allow(missing_docs, clippy::undocumented_unsafe_blocks)]
use cuda_kernel_runtime::{Dtype, Error, Generated, Launch, Program, RawDevicePtr};
use kernel_test_support::bench::report;
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

fn main() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let base = Generated::scan("cumsum", Dtype::F32).source()?;
    let n: usize = 1 << 26;
    let xs = Rng::with_seed(3).nonzero_f32s(n);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(n)?;
    for (items, minb) in [(32, 2), (32, 4), (40, 2), (44, 2), (28, 4), (16, 6)] {
        let items_line = format!(
            "constexpr int ITEMS = {};",
            cuda_kernel_runtime::__private::scan_items(Dtype::F32)
        );
        assert!(base.contains(&items_line) && base.contains("__launch_bounds__(256, 4) cumsum("));
        let src = base
            .replace(&items_line, &format!("constexpr int ITEMS = {items};"))
            .replace(
                "__launch_bounds__(256, 4) cumsum(",
                &format!("__launch_bounds__(256, {minb}) cumsum("),
            );
        let code = Program::new(src)
            .name(format!("v{items}_{minb}.cu"))
            .compile_for(&gpu)?;
        let m = code.load(&gpu)?;
        let k = m.kernel("cumsum")?;
        let tiles = n.div_ceil(256 * items);
        let words = 1 + tiles;
        let mut scratch = gpu.zeros::<u64>(words)?;
        let run = |scratch: &mut cuda_kernel_runtime::TrackedBuffer<u64>| -> Result<(), Error> {
            gpu.memset_zeros(&mut scratch.slice_mut(..1 + tiles))?;
            unsafe {
                k.launch(
                    &Launch::new(tiles as u32, 256u32),
                    (
                        RawDevicePtr::of(&x),
                        RawDevicePtr::of(&y),
                        RawDevicePtr::of(&*scratch),
                        n as i64,
                    ),
                )
            }
        };
        run(&mut scratch)?;
        let got = gpu.download(&y)?;
        let ok = (got[n - 1] as f64 - xs.iter().map(|v| *v as f64).sum::<f64>()).abs() < 1.0;
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let ((), t) = gpu.time(|| {
                for _ in 0..20 {
                    run(&mut scratch)?;
                }
                Ok(())
            })?;
            best = best.min(t.as_secs_f64() * 1e6 / 20.0);
        }
        report(
            &format!(
                "scan_variant.items{items}_minb{minb}{}",
                if ok { "" } else { "_WRONG" }
            ),
            best,
            "us",
        );
    }
    let _ = &mut y;
    Ok(())
}
