//! `TrackedBuffer` across streams: a read on one stream after writes on another, a write
//! after reads elsewhere, two writers, a buffer dropped while another stream still reads it,
//! a device-to-device copy between streams, views, the `Gpu`'s copies and fills on views, and
//! a graph captured while another stream still writes what it reads; each checked against a
//! CPU reference on random data. The writers queue 48 saxpy passes over 2^24 floats (milliseconds of work), so a
//! missing wait would let the other stream run before them and show in the result.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

mod common;

use common::TestKernels;
use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

const N: usize = 1 << 24;
const PASSES: usize = 48;

/// Two streams, each with the test kernels loaded on it.
fn two_streams(gpu: &Gpu) -> Result<[(Gpu, TestKernels); 2], Error> {
    let k = TestKernels::load(gpu)?;
    let make = || -> Result<(Gpu, TestKernels), Error> {
        let s = gpu.new_stream()?;
        Ok((gpu.with_stream(&s), TestKernels(k.0.with_stream(&s))))
    };
    Ok([make()?, make()?])
}

/// `y = a x + y`, `PASSES` times, as the GPU computes it (one fused multiply-add each).
fn passes(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter()
        .zip(y)
        .map(|(x, y)| (0..PASSES).fold(*y, |acc, _| a.mul_add(*x, acc)))
        .collect()
}

fn saxpy_passes(
    k: &TestKernels,
    a: f32,
    x: &TrackedBuffer<f32>,
    y: &mut TrackedBuffer<f32>,
) -> Result<(), Error> {
    let cfg = Launch::for_num_elems(N as u32);
    for _ in 0..PASSES {
        // SAFETY: saxpy touches x[i] and y[i] for i < N; both hold N.
        unsafe { k.saxpy(&cfg, a, x, &mut *y, N as i32)? };
    }
    Ok(())
}

#[test]
fn a_read_on_one_stream_waits_for_writes_on_another() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, a_k), (b_gpu, b_k)] = two_streams(&gpu)?;
    let mut r = Rng::with_seed(31);
    let (xs, ys, zs) = (r.nonzero_f32s(N), r.nonzero_f32s(N), r.nonzero_f32s(N));
    let (a, b) = (r.nonzero_f32() / 8.0, r.nonzero_f32());
    let x = TrackedBuffer::upload(&a_gpu, &xs)?;
    let mut y = TrackedBuffer::upload(&a_gpu, &ys)?;
    let mut z = TrackedBuffer::upload(&b_gpu, &zs)?;
    saxpy_passes(&a_k, a, &x, &mut y)?;
    // SAFETY: as above.
    unsafe { b_k.saxpy(&Launch::for_num_elems(N as u32), b, &y, &mut z, N as i32)? };
    // Read back on a third stream (the device's default one).
    let got = z.download(&gpu)?;
    let y_want = passes(a, &xs, &ys);
    let want: Vec<f32> = y_want
        .iter()
        .zip(&zs)
        .map(|(y, z)| b.mul_add(*y, *z))
        .collect();
    assert_close(&got, &want, 1e-5);
    assert_close(&y.download(&b_gpu)?, &y_want, 1e-5);
    Ok(())
}

#[test]
fn a_write_on_one_stream_waits_for_reads_on_another() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, _), (b_gpu, b_k)] = two_streams(&gpu)?;
    let mut r = Rng::with_seed(32);
    let (xs, ys, new_xs) = (r.nonzero_f32s(N), r.nonzero_f32s(N), r.nonzero_f32s(N));
    let a = r.nonzero_f32() / 8.0;
    let mut x = TrackedBuffer::upload(&a_gpu, &xs)?;
    let mut y = TrackedBuffer::upload(&b_gpu, &ys)?;
    saxpy_passes(&b_k, a, &x, &mut y)?; // reads x on b
    x.upload_from(&a_gpu, &new_xs)?; // must wait for those reads
    assert_close(&y.download(&a_gpu)?, &passes(a, &xs, &ys), 1e-5);
    assert_eq!(x.download(&b_gpu)?, new_xs);
    Ok(())
}

#[test]
fn two_writers_on_two_streams_keep_their_order() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, a_k), (b_gpu, _)] = two_streams(&gpu)?;
    let mut r = Rng::with_seed(33);
    let (xs, ys, last) = (r.nonzero_f32s(N), r.nonzero_f32s(N), r.nonzero_f32s(N));
    let x = TrackedBuffer::upload(&a_gpu, &xs)?;
    let mut y = TrackedBuffer::upload(&a_gpu, &ys)?;
    saxpy_passes(&a_k, 0.5, &x, &mut y)?;
    y.upload_from(&b_gpu, &last)?; // after the passes on a, not before
    assert_eq!(y.download(&gpu)?, last);
    Ok(())
}

#[test]
fn a_buffer_dropped_while_another_stream_reads_it_is_freed_after_the_reads() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, _), (b_gpu, b_k)] = two_streams(&gpu)?;
    let mut r = Rng::with_seed(34);
    let (xs, ys) = (r.nonzero_f32s(N), r.nonzero_f32s(N));
    let a = r.nonzero_f32() / 8.0;
    let x = TrackedBuffer::upload(&a_gpu, &xs)?;
    let mut y = TrackedBuffer::upload(&b_gpu, &ys)?;
    saxpy_passes(&b_k, a, &x, &mut y)?;
    drop(x); // freed on a once b's reads are done
    // The pool may hand the same memory out again at once: zeroing it must not reach b's reads.
    let again = TrackedBuffer::<f32>::zeros(&a_gpu, N)?;
    assert_close(&y.download(&gpu)?, &passes(a, &xs, &ys), 1e-5);
    assert!(again.download(&a_gpu)?.iter().all(|v| *v == 0.0));
    Ok(())
}

#[test]
fn empty_buffers_and_length_mismatches() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let empty = TrackedBuffer::<u32>::upload(&gpu, &[])?;
    assert!(empty.is_empty());
    assert!(empty.download(&gpu)?.is_empty());
    let mut three = TrackedBuffer::<u32>::zeros(&gpu, 3)?;
    match three.upload_from(&gpu, &[1, 2]) {
        Err(Error::LengthMismatch { src: 2, dst: 3, .. }) => {}
        other => panic!("expected a length mismatch, got {other:?}"),
    }
    three.upload_from(&gpu, &[4, 5, 6])?;
    assert_eq!(three.download(&gpu)?, [4, 5, 6]);
    Ok(())
}

#[test]
fn each_new_write_is_waited_for_again() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, a_k), (b_gpu, b_k)] = two_streams(&gpu)?;
    let mut r = Rng::with_seed(35);
    let (xs, ys, zs) = (r.nonzero_f32s(N), r.nonzero_f32s(N), r.nonzero_f32s(N));
    let (a, b) = (r.nonzero_f32() / 8.0, r.nonzero_f32() / 4.0);
    let x = TrackedBuffer::upload(&a_gpu, &xs)?;
    let mut y = TrackedBuffer::upload(&a_gpu, &ys)?;
    let mut z = TrackedBuffer::upload(&b_gpu, &zs)?;
    let (mut y_want, mut z_want) = (ys, zs);
    for _ in 0..3 {
        saxpy_passes(&a_k, a, &x, &mut y)?; // a new write of y on a
        // SAFETY: saxpy touches y[i] and z[i] for i < N; both hold N.
        unsafe { b_k.saxpy(&Launch::for_num_elems(N as u32), b, &y, &mut z, N as i32)? };
        y_want = passes(a, &xs, &y_want);
        z_want = y_want
            .iter()
            .zip(&z_want)
            .map(|(y, z)| b.mul_add(*y, *z))
            .collect();
    }
    assert_close(&z.download(&gpu)?, &z_want, 1e-4);
    Ok(())
}

#[test]
fn a_copy_waits_for_its_source_and_a_later_write_waits_for_the_copy() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, a_k), (b_gpu, _)] = two_streams(&gpu)?;
    let mut r = Rng::with_seed(37);
    let (xs, ys) = (r.nonzero_f32s(N), r.nonzero_f32s(N));
    let a = r.nonzero_f32() / 8.0;
    let x = TrackedBuffer::upload(&a_gpu, &xs)?;
    let mut y = TrackedBuffer::upload(&a_gpu, &ys)?;
    let mut copy = TrackedBuffer::upload(&b_gpu, &r.nonzero_f32s(N))?;
    saxpy_passes(&a_k, a, &x, &mut y)?;
    // On stream b, after the passes on stream a.
    copy.copy_from(&b_gpu, &y)?;
    // On stream a again, after the copy on stream b has read y.
    y.memset_zeros(&a_gpu)?;
    assert_close(&copy.download(&gpu)?, &passes(a, &xs, &ys), 1e-5);
    assert!(y.download(&b_gpu)?.iter().all(|v| *v == 0.0));
    let short = TrackedBuffer::<f32>::zeros(&gpu, N - 1)?;
    let err = copy.copy_from(&gpu, &short).unwrap_err();
    assert!(
        matches!(err, Error::LengthMismatch { src, dst, .. } if src == N - 1 && dst == N),
        "{err}"
    );
    Ok(())
}

#[test]
fn views_are_ordered_as_their_buffer() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, a_k), (b_gpu, b_k)] = two_streams(&gpu)?;
    let mut r = Rng::with_seed(41);
    let (xs, ys, zs) = (r.nonzero_f32s(N), r.nonzero_f32s(N), r.nonzero_f32s(N));
    let (a, b) = (r.nonzero_f32() / 8.0, r.nonzero_f32());
    let x = a_gpu.upload(&xs)?;
    let mut y = a_gpu.upload(&ys)?;
    let mut z = b_gpu.upload(&zs)?;
    saxpy_passes(&a_k, a, &x, &mut y)?;
    // On stream b, through views: z[..half] = b * y[half..] + z[..half].
    let half = N / 2;
    let cfg = Launch::for_num_elems(half as u32);
    // SAFETY: both views hold `half` values.
    unsafe { b_k.saxpy(&cfg, b, y.slice(half..), z.slice_mut(..half), half as i32)? };
    let y_want = passes(a, &xs, &ys);
    let mut z_want = zs.clone();
    for i in 0..half {
        z_want[i] = b.mul_add(y_want[half + i], zs[i]);
    }
    // Read back through a view on a third stream, and the whole buffer on stream a.
    assert_close(&gpu.download(&z.slice(..half))?, &z_want[..half], 1e-5);
    assert_close(&a_gpu.download(&z)?, &z_want, 1e-5);
    assert!(y.try_slice(half..N + 1).is_none());
    assert_eq!(y.slice(3..3).len(), 0);
    Ok(())
}

#[test]
fn gpu_copies_fills_and_downloads_take_views_across_streams() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, a_k), (b_gpu, _)] = two_streams(&gpu)?;
    let mut r = Rng::with_seed(43);
    let (xs, ys) = (r.nonzero_f32s(N), r.nonzero_f32s(N));
    let a = r.nonzero_f32() / 8.0;
    let x = a_gpu.upload(&xs)?;
    let mut y = a_gpu.upload(&ys)?;
    let mut w = b_gpu.zeros::<f32>(N)?;
    saxpy_passes(&a_k, a, &x, &mut y)?;
    let y_want = passes(a, &xs, &ys);
    // Stream b copies the second half after the passes on stream a, then overwrites the
    // first quarter from the host and zeroes the second quarter.
    let (half, quarter) = (N / 2, N / 4);
    b_gpu.copy(&y.slice(half..), &mut w.slice_mut(half..))?;
    let host: Vec<f32> = r.nonzero_f32s(quarter);
    b_gpu.upload_into(&host, &mut w.slice_mut(..quarter))?;
    b_gpu.memset_zeros(&mut w.slice_mut(quarter..half))?;
    // Stream a then writes y again: it must wait for stream b's copy to have read it.
    a_gpu.memset_zeros(&mut y)?;
    let mut want = host.clone();
    want.extend(std::iter::repeat_n(0.0, quarter));
    want.extend_from_slice(&y_want[half..]);
    let mut got = vec![0.0f32; N];
    gpu.download_into(&w, &mut got)?;
    assert_close(&got, &want, 1e-5);
    assert!(gpu.download(&y)?.iter().all(|v| *v == 0.0));
    // A duplicate made on stream b of a buffer last written on stream a.
    let dup = b_gpu.duplicate(&w.slice(half..))?;
    assert_close(&gpu.download(&dup)?, &y_want[half..], 1e-5);
    Ok(())
}

#[test]
fn a_graph_captured_after_writes_on_another_stream_reads_what_they_wrote() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let [(a_gpu, a_k), _] = two_streams(&gpu)?;
    let k = TestKernels::load(&gpu)?;
    let mut r = Rng::with_seed(47);
    let (xs, ys, zs) = (r.nonzero_f32s(N), r.nonzero_f32s(N), r.nonzero_f32s(N));
    let (a, b) = (r.nonzero_f32() / 8.0, r.nonzero_f32());
    let x = a_gpu.upload(&xs)?;
    let mut y = a_gpu.upload(&ys)?;
    let mut z = gpu.upload(&zs)?;
    saxpy_passes(&a_k, a, &x, &mut y)?;
    // Captured on the handle's stream while stream a may still be writing y: the capture
    // itself cannot wait for stream a, so the replay stream does, outside the capture.
    let cfg = Launch::for_num_elems(N as u32);
    let graph = gpu.capture(|g| {
        let on_g = TestKernels(k.0.with_stream(g.stream()));
        // SAFETY: y and z hold N values.
        unsafe { on_g.saxpy(&cfg, b, &y, &mut z, N as i32) }
    })?;
    graph.launch()?;
    graph.launch()?;
    let y_want = passes(a, &xs, &ys);
    let want: Vec<f32> = y_want
        .iter()
        .zip(&zs)
        .map(|(y, z)| b.mul_add(*y, b.mul_add(*y, *z)))
        .collect();
    assert_close(&gpu.download(&z)?, &want, 1e-5);
    Ok(())
}

#[test]
fn a_stream_joined_to_a_capture_waits_for_the_captured_writes() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = TestKernels::load(&gpu)?;
    let side_stream = gpu.new_stream()?;
    let mut r = Rng::with_seed(53);
    let (xs, ys, zs) = (r.nonzero_f32s(N), r.nonzero_f32s(N), r.nonzero_f32s(N));
    let (a, b) = (r.nonzero_f32() / 8.0, r.nonzero_f32());
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    let mut z = gpu.upload(&zs)?;
    // In the graph: the passes over y on the capture stream, then, on a stream joined to the
    // capture, z = b y + z, which must come after the passes through a captured event.
    let graph = gpu.capture(|g| {
        let side = g.with_stream(&side_stream);
        side.wait_for(g)?;
        saxpy_passes(&TestKernels(k.0.with_stream(g.stream())), a, &x, &mut y)?;
        let on_side = TestKernels(k.0.with_stream(&side_stream));
        // SAFETY: y and z hold N values.
        unsafe { on_side.saxpy(&Launch::for_num_elems(N as u32), b, &y, &mut z, N as i32)? };
        g.wait_for(&side)
    })?;
    graph.launch()?;
    let y_want = passes(a, &xs, &ys);
    let want: Vec<f32> = y_want
        .iter()
        .zip(&zs)
        .map(|(y, z)| b.mul_add(*y, *z))
        .collect();
    assert_close(&gpu.download(&z)?, &want, 1e-5);
    assert_close(&gpu.download(&y)?, &y_want, 1e-5);
    Ok(())
}
