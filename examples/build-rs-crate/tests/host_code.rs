//! Host C++ compiled into the crate (`Build::host_code`) working on the runtime's buffers
//! and stream, on the GPU against CPU references on random data of awkward sizes: a
//! launcher calling `kernel<<<...>>>` on our stream, CUB's radix sort of pairs, sum,
//! exclusive scan and segmented sum, Thrust's sort_by_key; the same kernel through its typed
//! stub on the same buffer (one primary context for both).
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use kernel_runtime::{Error, Launch, RawDevicePtr};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

use kernel_example_buildrs::host::{
    hosted, hosted_exclusive_scan, hosted_scale, hosted_segmented_sum, hosted_sort_pairs,
    hosted_sum, hosted_thrust_sort_by_key,
};

#[test]
fn host_code_and_stubs_share_buffers_and_streams() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let stream = gpu.stream().cu_stream();
    let mut r = Rng::with_seed(111);

    // A launcher in host C++, then the same kernel through its typed stub.
    let n = 100_003usize;
    let xs = r.nonzero_f32s(n);
    let mut x = gpu.upload(&xs)?;
    // SAFETY: hosted_scale launches scale over x[0..n) on our stream; x holds n floats.
    let rc = unsafe { hosted_scale(RawDevicePtr::of(&x).addr(), 2.0, n as i32, stream) };
    assert_eq!(rc, 0, "cudaError_t {rc}");
    let k = hosted::load(&gpu)?;
    // SAFETY: as above, through the stub.
    unsafe { k.scale(&Launch::for_num_elems(n as u32), &mut x, 1.5, n as i32)? };
    let want: Vec<f32> = xs.iter().map(|v| 3.0 * v).collect();
    assert_close(&gpu.download(&x)?, &want, 1e-6);

    // CUB: radix sort of pairs.
    let m = 77_777usize;
    let keys: Vec<u32> = (0..m).map(|_| r.u32(..)).collect();
    let values = r.nonzero_f32s(m);
    let (ki, vi) = (gpu.upload(&keys)?, gpu.upload(&values)?);
    let (ko, vo) = (gpu.zeros::<u32>(m)?, gpu.zeros::<f32>(m)?);
    // SAFETY: every buffer holds m elements; the sort runs on our stream.
    let rc = unsafe {
        hosted_sort_pairs(
            RawDevicePtr::of(&ki).addr(),
            RawDevicePtr::of(&ko).addr(),
            RawDevicePtr::of(&vi).addr(),
            RawDevicePtr::of(&vo).addr(),
            m as i32,
            stream,
        )
    };
    assert_eq!(rc, 0, "cudaError_t {rc}");
    let mut pairs: Vec<(u32, f32)> = keys.iter().copied().zip(values.iter().copied()).collect();
    pairs.sort_by_key(|p| p.0); // stable, as CUB's radix sort is
    let (want_k, want_v): (Vec<u32>, Vec<f32>) = pairs.into_iter().unzip();
    assert_eq!(gpu.download(&ko)?, want_k);
    assert_eq!(gpu.download(&vo)?, want_v);

    // CUB: sum.
    let s = r.nonzero_f32s(m);
    let input = gpu.upload(&s)?;
    let out = gpu.zeros::<f32>(1)?;
    // SAFETY: input holds m floats, out one.
    let rc = unsafe {
        hosted_sum(
            RawDevicePtr::of(&input).addr(),
            RawDevicePtr::of(&out).addr(),
            m as i32,
            stream,
        )
    };
    assert_eq!(rc, 0, "cudaError_t {rc}");
    let want: f64 = s.iter().map(|&v| f64::from(v)).sum();
    let got = f64::from(gpu.download(&out)?[0]);
    assert!(
        (got - want).abs() <= 1e-3 * want.abs().max(1.0),
        "{got} vs {want}"
    );

    // CUB: exclusive scan of integers (exact).
    let ints: Vec<i32> = (0..m).map(|_| r.i32(-1000..1000)).collect();
    let (si, so) = (gpu.upload(&ints)?, gpu.zeros::<i32>(m)?);
    // SAFETY: both hold m ints.
    let rc = unsafe {
        hosted_exclusive_scan(
            RawDevicePtr::of(&si).addr(),
            RawDevicePtr::of(&so).addr(),
            m as i32,
            stream,
        )
    };
    assert_eq!(rc, 0, "cudaError_t {rc}");
    let want: Vec<i32> = ints
        .iter()
        .scan(0i32, |acc, &v| {
            let before = *acc;
            *acc += v;
            Some(before)
        })
        .collect();
    assert_eq!(gpu.download(&so)?, want);

    // CUB: segmented sum over segments of random lengths (some empty).
    let mut offsets = vec![0i32];
    while (*offsets.last().unwrap() as usize) < m {
        let next = (*offsets.last().unwrap() as usize + r.usize(0..300)).min(m);
        offsets.push(next as i32);
    }
    let segments = offsets.len() - 1;
    let (off, seg_out) = (gpu.upload(&offsets)?, gpu.zeros::<f32>(segments)?);
    // SAFETY: input holds m floats, offsets segments + 1 ascending ints <= m, out segments.
    let rc = unsafe {
        hosted_segmented_sum(
            RawDevicePtr::of(&input).addr(),
            RawDevicePtr::of(&seg_out).addr(),
            segments as i32,
            RawDevicePtr::of(&off).addr(),
            stream,
        )
    };
    assert_eq!(rc, 0, "cudaError_t {rc}");
    let want: Vec<f32> = offsets
        .windows(2)
        .map(|w| {
            s[w[0] as usize..w[1] as usize]
                .iter()
                .map(|&v| f64::from(v))
                .sum::<f64>() as f32
        })
        .collect();
    assert_close(&gpu.download(&seg_out)?, &want, 1e-3);

    // Thrust: sort_by_key in place.
    let (tk, tv) = (gpu.upload(&keys)?, gpu.upload(&values)?);
    // SAFETY: both hold m elements; sorted in place on our stream.
    let rc = unsafe {
        hosted_thrust_sort_by_key(
            RawDevicePtr::of(&tk).addr(),
            RawDevicePtr::of(&tv).addr(),
            m as i32,
            stream,
        )
    };
    assert_eq!(rc, 0, "cudaError_t {rc}");
    assert_eq!(gpu.download(&tk)?, want_k);
    // Thrust's sort_by_key need not be stable: the values per key as multisets.
    let got_v = gpu.download(&tv)?;
    let mut got_pairs: Vec<(u32, u32)> = want_k
        .iter()
        .copied()
        .zip(got_v.iter().map(|v| v.to_bits()))
        .collect();
    let mut want_pairs: Vec<(u32, u32)> = want_k
        .iter()
        .copied()
        .zip(want_v.iter().map(|v| v.to_bits()))
        .collect();
    got_pairs.sort_unstable();
    want_pairs.sort_unstable();
    assert_eq!(got_pairs, want_pairs);
    Ok(())
}
