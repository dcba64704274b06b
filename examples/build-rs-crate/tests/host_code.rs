//! Host C++ compiled into the crate (`Build::host_code`), called through its checked
//! bindings (`host_functions!`) on the runtime's buffers and stream, on the GPU against CPU
//! references on random data of awkward sizes: a launcher calling `kernel<<<...>>>` on our
//! stream, CUB's radix sort of pairs, sum, exclusive scan and segmented sum, Thrust's
//! sort_by_key; the same kernel through its typed stub on the same buffer (one primary
//! context for both); host memory and the legacy default stream; a CUDA error named; a host
//! function and a kernel sharing a buffer on two streams, ordered by the buffer's events.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

use kernel_example_buildrs::host::{
    hosted, hosted_clear, hosted_exclusive_scan, hosted_runtime_version, hosted_scale,
    hosted_segmented_sum, hosted_select_device, hosted_sort_pairs, hosted_sum,
    hosted_thrust_sort_by_key, hosted_upload_scaled,
};

#[test]
fn host_code_and_stubs_share_buffers_and_streams() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let stream = gpu.stream();
    let mut r = Rng::with_seed(111);

    // A launcher in host C++, then the same kernel through its typed stub.
    let n = 100_003usize;
    let xs = r.nonzero_f32s(n);
    let mut x = gpu.upload(&xs)?;
    // SAFETY: hosted_scale launches scale over x[0..n) on our stream; x holds n floats.
    unsafe { hosted_scale(&mut x, 2.0, n as i32, stream)? };
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
    let (mut ko, mut vo) = (gpu.zeros::<u32>(m)?, gpu.zeros::<f32>(m)?);
    // SAFETY: every buffer holds m elements; the sort runs on our stream.
    unsafe { hosted_sort_pairs(&ki, &mut ko, &vi, &mut vo, m as i32, stream)? };
    let mut pairs: Vec<(u32, f32)> = keys.iter().copied().zip(values.iter().copied()).collect();
    pairs.sort_by_key(|p| p.0); // stable, as CUB's radix sort is
    let (want_k, want_v): (Vec<u32>, Vec<f32>) = pairs.into_iter().unzip();
    assert_eq!(gpu.download(&ko)?, want_k);
    assert_eq!(gpu.download(&vo)?, want_v);

    // CUB: sum.
    let s = r.nonzero_f32s(m);
    let input = gpu.upload(&s)?;
    let mut out = gpu.zeros::<f32>(1)?;
    // SAFETY: input holds m floats, out one.
    unsafe { hosted_sum(&input, &mut out, m as i32, stream)? };
    let want: f64 = s.iter().map(|&v| f64::from(v)).sum();
    let got = f64::from(gpu.download(&out)?[0]);
    assert!(
        (got - want).abs() <= 1e-3 * want.abs().max(1.0),
        "{got} vs {want}"
    );

    // CUB: exclusive scan of integers (exact).
    let ints: Vec<i32> = (0..m).map(|_| r.i32(-1000..1000)).collect();
    let (si, mut so) = (gpu.upload(&ints)?, gpu.zeros::<i32>(m)?);
    // SAFETY: both hold m ints.
    unsafe { hosted_exclusive_scan(&si, &mut so, m as i32, stream)? };
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
    let (off, mut seg_out) = (gpu.upload(&offsets)?, gpu.zeros::<f32>(segments)?);
    // SAFETY: input holds m floats, offsets segments + 1 ascending ints <= m, out segments.
    unsafe { hosted_segmented_sum(&input, &mut seg_out, segments as i32, &off, stream)? };
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
    let (mut tk, mut tv) = (gpu.upload(&keys)?, gpu.upload(&values)?);
    // SAFETY: both hold m elements; sorted in place on our stream.
    unsafe { hosted_thrust_sort_by_key(&mut tk, &mut tv, m as i32, stream)? };
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

#[test]
fn host_memory_default_stream_errors_and_values() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let mut r = Rng::with_seed(112);
    let n = 4099usize;
    let xs = r.nonzero_f32s(n);
    let mut dev = gpu.zeros::<f32>(n)?;
    // SAFETY: xs and dev hold n floats; the copy and the launch run on the default stream,
    // which the binding orders dev on.
    unsafe { hosted_upload_scaled(&xs, &mut dev, -0.5, n as i32)? };
    let want: Vec<f32> = xs.iter().map(|v| -0.5 * v).collect();
    assert_close(&gpu.download(&dev)?, &want, 1e-6);
    // A function returning nothing, bound as `Result<(), Error>` (its buffer is ordered).
    // SAFETY: dev holds n floats.
    unsafe { hosted_clear(&mut dev, n as i32 - 1, gpu.stream())? };
    let got = gpu.download(&dev)?;
    assert!(got[..n - 1].iter().all(|&v| v == 0.0));
    assert_eq!(got[n - 1], want[n - 1]);

    // SAFETY: no memory involved.
    let version = unsafe { hosted_runtime_version() };
    assert!(version >= 13_000, "runtime version {version}");

    // A CUDA error comes back as an `Error` naming it.
    // SAFETY: as above.
    let err = unsafe { hosted_select_device(1 << 20) }.unwrap_err();
    match &err {
        Error::HostFunction { function, name, .. } => {
            assert_eq!(*function, "hosted_select_device");
            assert_eq!(name, "cudaErrorInvalidDevice");
        }
        other => panic!("unexpected error {other}"),
    }
    assert!(
        err.to_string()
            .contains("host function `hosted_select_device` failed: cudaErrorInvalidDevice"),
        "{err}"
    );
    Ok(())
}

/// A slow kernel writes a buffer on one stream; a host function (CUB's sum) reads it on
/// another stream right after, with no ordering by the test: the binding makes its stream
/// wait on the buffer's last write, so the sum sees the written values.
#[test]
fn a_host_function_waits_for_a_kernel_on_another_stream() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = hosted::load(&gpu)?;
    let (writer, reader) = (gpu.new_stream()?, gpu.new_stream()?);
    let n = 1 << 16;
    let mut r = Rng::with_seed(113);
    let v = r.nonzero_f32();
    for round in 0..3 {
        let mut x = gpu.upload(&vec![0.0f32; n])?;
        let mut sum = gpu.zeros::<f32>(1)?;
        // SAFETY: x holds n floats; about 20 ms of spinning (at ~2 GHz) before the stores.
        unsafe {
            k.with_stream(&writer).spin_then_fill(
                &Launch::for_num_elems(n as u32),
                &mut x,
                v,
                n as i32,
                40_000_000,
            )?
        };
        // SAFETY: x holds n floats, sum one.
        unsafe { hosted_sum(&x, &mut sum, n as i32, &reader)? };
        let got = gpu.download(&sum)?[0];
        let want = v * n as f32;
        assert!(
            (got - want).abs() <= 1e-4 * want.abs(),
            "round {round}: sum {got}, want {want} (the reader did not wait for the writer)"
        );
    }
    Ok(())
}

/// CUTLASS's products (host functions of module `gemm`) against cuBLAS in the same process and
/// against the CPU (f32 accumulation of the same rounded inputs), f16 and bf16, on sizes that
/// are multiples of 8 but of no tile; then `relu_f16` through its typed stub on the product.
#[test]
fn cutlass_gemm_matches_cublas_and_the_cpu() -> Result<(), Error> {
    use cuda_kernel_runtime::{bf16, f16};
    use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys::cublasOperation_t};
    use kernel_example_buildrs::gemm::{self, gemm_bf16, gemm_f16};

    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let (m, n, k) = (520usize, 264usize, 136usize);
    let mut r = Rng::with_seed(114);
    let a32: Vec<f32> = (0..m * k).map(|_| r.f32() * 2.0 - 1.0).collect();
    let b32: Vec<f32> = (0..k * n).map(|_| r.f32() * 2.0 - 1.0).collect();
    // Column-major: element (i, j) of an m-row matrix is at i + j * m.
    let reference = |a: &[f32], b: &[f32]| -> Vec<f32> {
        let mut c = vec![0.0f32; m * n];
        for j in 0..n {
            for p in 0..k {
                let bv = b[p + j * k];
                for i in 0..m {
                    c[i + j * m] += a[i + p * m] * bv;
                }
            }
        }
        c
    };
    let blas = CudaBlas::new(gpu.stream().clone()).expect("cuBLAS loads");
    fn column_major<T>(m: usize, n: usize, k: usize, alpha: T, beta: T) -> GemmConfig<T> {
        GemmConfig {
            transa: cublasOperation_t::CUBLAS_OP_N,
            transb: cublasOperation_t::CUBLAS_OP_N,
            m: m as i32,
            n: n as i32,
            k: k as i32,
            alpha,
            lda: m as i32,
            ldb: k as i32,
            beta,
            ldc: m as i32,
        }
    }
    let cfg = |alpha, beta| column_major(m, n, k, alpha, beta);
    let cfg_bf16 = |alpha, beta| column_major(m, n, k, alpha, beta);
    let close = |got: &[f32], want: &[f32], what: &str| {
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                (g - w).abs() <= 2e-2 * w.abs().max(1.0),
                "{what}: element {i}: {g} vs {w}"
            );
        }
    };

    // f16.
    let (a, b): (Vec<f16>, Vec<f16>) = (
        a32.iter().map(|&v| f16::from_f32(v)).collect(),
        b32.iter().map(|&v| f16::from_f32(v)).collect(),
    );
    let want = reference(
        &a.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
        &b.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
    );
    // cudarc's buffers, which cuBLAS (through cudarc) takes as the bindings do.
    let s = gpu.stream();
    let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let (mut cutlass_c, mut cublas_c) =
        (s.alloc_zeros::<f16>(m * n)?, s.alloc_zeros::<f16>(m * n)?);
    // SAFETY: a is m x k, b k x n, c m x n, column-major; m, n, k are multiples of 8.
    unsafe {
        gemm_f16(
            m as i32,
            n as i32,
            k as i32,
            1.0,
            &da,
            &db,
            0.0,
            &mut cutlass_c,
            gpu.stream(),
        )?;
        blas.gemm(cfg(f16::ONE, f16::ZERO), &da, &db, &mut cublas_c)
            .expect("cuBLAS gemm");
    }
    let got: Vec<f32> = gpu
        .download(&cutlass_c)?
        .iter()
        .map(|v| v.to_f32())
        .collect();
    let blas_got: Vec<f32> = gpu
        .download(&cublas_c)?
        .iter()
        .map(|v| v.to_f32())
        .collect();
    close(&got, &want, "CUTLASS f16 vs CPU");
    close(&blas_got, &want, "cuBLAS f16 vs CPU");
    close(&got, &blas_got, "CUTLASS f16 vs cuBLAS");

    // Our kernel on CUTLASS's product, on the same stream.
    let g = gemm::gemm::load(&gpu)?;
    // SAFETY: c holds m * n halves.
    unsafe {
        g.relu_f16(
            &Launch::for_num_elems((m * n) as u32),
            &mut cutlass_c,
            (m * n) as i32,
        )?
    };
    let relu: Vec<f32> = gpu
        .download(&cutlass_c)?
        .iter()
        .map(|v| v.to_f32())
        .collect();
    let want_relu: Vec<f32> = got.iter().map(|&v| v.max(0.0)).collect();
    assert_eq!(relu, want_relu);

    // bf16, with beta: c = 0.5 * a * b + 2 * c.
    let (a, b): (Vec<bf16>, Vec<bf16>) = (
        a32.iter().map(|&v| bf16::from_f32(v)).collect(),
        b32.iter().map(|&v| bf16::from_f32(v)).collect(),
    );
    let c0: Vec<bf16> = (0..m * n)
        .map(|_| bf16::from_f32(r.f32() * 2.0 - 1.0))
        .collect();
    let prod = reference(
        &a.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
        &b.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
    );
    let want: Vec<f32> = prod
        .iter()
        .zip(&c0)
        .map(|(p, c)| 0.5 * p + 2.0 * c.to_f32())
        .collect();
    let s = gpu.stream();
    let (da, db) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let (mut cutlass_c, mut cublas_c) = (s.clone_htod(&c0)?, s.clone_htod(&c0)?);
    // SAFETY: as above.
    unsafe {
        gemm_bf16(
            m as i32,
            n as i32,
            k as i32,
            0.5,
            &da,
            &db,
            2.0,
            &mut cutlass_c,
            gpu.stream(),
        )?;
        blas.gemm(
            cfg_bf16(bf16::from_f32(0.5), bf16::from_f32(2.0)),
            &da,
            &db,
            &mut cublas_c,
        )
        .expect("cuBLAS gemm");
    }
    let got: Vec<f32> = gpu
        .download(&cutlass_c)?
        .iter()
        .map(|v| v.to_f32())
        .collect();
    let blas_got: Vec<f32> = gpu
        .download(&cublas_c)?
        .iter()
        .map(|v| v.to_f32())
        .collect();
    close(&got, &want, "CUTLASS bf16 vs CPU");
    close(&blas_got, &want, "cuBLAS bf16 vs CPU");

    // A size CUTLASS cannot do (k not a multiple of 8) is an error naming it, not a fault.
    // SAFETY: rejected before any access.
    let err = unsafe {
        gemm_f16(
            8,
            8,
            7,
            1.0,
            &gpu.stream().alloc_zeros::<f16>(64)?,
            &gpu.stream().alloc_zeros::<f16>(64)?,
            0.0,
            &mut gpu.stream().alloc_zeros::<f16>(64)?,
            gpu.stream(),
        )
    }
    .unwrap_err();
    assert!(err.to_string().contains("cudaErrorInvalidValue"), "{err}");
    Ok(())
}
