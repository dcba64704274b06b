//! Stream-ordered memory pools: buffers from the device's default pool and from a pool made
//! here, checked against the CPU through a kernel; the statistics (used up and down, the
//! high-water mark staying, reset); the release threshold keeping memory reserved after a free
//! and trimming giving it back; a pool made current serving the default buffers; a pool's
//! buffer used on two streams, freed while the other stream still reads it; and a pool shared
//! with a second process (this test binary again, running the ignored `pool_ipc_child`): the
//! parent fills a pool buffer through a kernel, sends the pool's file descriptor over a Unix
//! socket with the buffers' descriptions, and the child imports them, checks one against the
//! CPU and writes the other through its own kernel, which the parent checks.
//!
//! The tests take turns (the current pool and the default pool's statistics are the device's);
//! they skip (with the reason) without a GPU or on a GPU without memory pools, and fail
//! without a GPU when `KERNEL_REQUIRE_GPU=1`.

use std::io::Write as _;
use std::sync::{Mutex, MutexGuard};

use cuda_kernel_runtime::cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cuda_kernel_runtime::{Error, Gpu, Launch, MemoryPool, PoolOptions, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    mod pooled {
        source = r#"
            extern "C" __global__ void affine(const float* x, float* y, float a, float b, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + b;
            }

            // affine, after every thread has spun `cycles` clock cycles: reads `x` late.
            extern "C" __global__ void late_affine(
                const float* x, float* y, float a, float b, int n, unsigned long long cycles) {
                long long start = clock64();
                while ((unsigned long long)(clock64() - start) < cycles) {}
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + b;
            }
        "#;
    }
}

const N: usize = 1 << 18;
const MIB: u64 = 1 << 20;

/// The tests take turns on the device's pools.
static DEVICE: Mutex<()> = Mutex::new(());

fn turn() -> MutexGuard<'static, ()> {
    DEVICE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Device 0 when it has memory pools; otherwise `None` after printing why.
fn pools_or_skip() -> Option<Gpu> {
    let gpu = gpu_or_skip()?;
    let supported = gpu
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
        .expect("the attribute");
    if supported == 0 {
        let test = std::thread::current()
            .name()
            .unwrap_or("memory_pools")
            .to_owned();
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {test}: {} has no stream-ordered memory pools",
            gpu.name()
        );
        return None;
    }
    Some(gpu)
}

/// `a * x + b` for every x, as the kernel computes it.
fn affine(xs: &[f32], a: f32, b: f32) -> Vec<f32> {
    xs.iter().map(|x| a * x + b).collect()
}

fn cfg(n: usize) -> Launch {
    Launch::for_num_elems(n as u32)
}

/// Puts the default pool back as the device's current pool when dropped, pass or fail.
struct RestoreDefault(Gpu);

impl Drop for RestoreDefault {
    fn drop(&mut self) {
        // Errors are left to the test's own checks (a panic here would abort a failing test).
        if let Ok(default) = self.0.default_memory_pool() {
            let _ = self.0.set_memory_pool(&default);
        }
    }
}

#[test]
fn the_default_pool_serves_buffers_and_counts_them() -> Result<(), Error> {
    let _turn = turn();
    let Some(gpu) = pools_or_skip() else {
        return Ok(());
    };
    let m = pooled::load(&gpu)?;
    let default = gpu.default_memory_pool()?;
    assert_eq!(gpu.memory_pool()?, default, "the default pool is current");
    assert!(!default.is_shareable());

    let xs = Rng::with_seed(11).nonzero_f32s(N);
    // The same data through the default buffers and through the default pool by name.
    let x = gpu.upload(&xs)?;
    let x_pool = default.upload(&gpu, &xs)?;
    let mut y = default.zeros::<f32>(&gpu, N)?;
    let mut y_default = gpu.zeros::<f32>(N)?;
    // SAFETY: affine reads x and writes y, N elements each.
    unsafe {
        m.affine(&cfg(N), &x_pool, &mut y, 2.5, -1.0, N as i32)?;
        m.affine(&cfg(N), &x, &mut y_default, 2.5, -1.0, N as i32)?;
    }
    let want = affine(&xs, 2.5, -1.0);
    assert_close(&y.download(&gpu)?, &want, 1e-6);
    assert_close(&gpu.download(&y_default)?, &want, 1e-6);

    gpu.synchronize()?;
    let before = default.usage()?;
    let big = default.zeros::<u8>(&gpu, 16 << 20)?;
    gpu.synchronize()?;
    let during = default.usage()?;
    assert!(
        during.used >= before.used + 16 * MIB,
        "used grows by the allocation: {before:?} then {during:?}"
    );
    assert!(
        during.reserved >= during.used && during.used_high >= during.used,
        "{during:?}"
    );
    drop(big);
    gpu.synchronize()?;
    let after = default.usage()?;
    assert!(
        after.used + 16 * MIB <= during.used,
        "used falls once the free has run: {during:?} then {after:?}"
    );
    assert!(
        after.used_high >= during.used,
        "the high-water mark stays: {after:?}"
    );
    Ok(())
}

#[test]
fn a_pool_made_here_serves_buffers_and_counts_them() -> Result<(), Error> {
    let _turn = turn();
    let Some(gpu) = pools_or_skip() else {
        return Ok(());
    };
    let m = pooled::load(&gpu)?;
    let pool = MemoryPool::new(&gpu, PoolOptions::new().release_threshold(u64::MAX))?;
    assert_ne!(pool, gpu.default_memory_pool()?);
    assert_eq!(pool.release_threshold()?, u64::MAX);
    let fresh = pool.usage()?;
    assert_eq!(
        (fresh.used, fresh.used_high),
        (0, 0),
        "a new pool: {fresh:?}"
    );

    let xs = Rng::with_seed(12).nonzero_f32s(N);
    let x = pool.upload(&gpu, &xs)?;
    let mut y = pool.zeros::<f32>(&gpu, N)?;
    // SAFETY: affine reads x and writes y, N elements each.
    unsafe { m.affine(&cfg(N), &x, &mut y, -0.75, 3.0, N as i32)? };
    assert_close(&y.download(&gpu)?, &affine(&xs, -0.75, 3.0), 1e-6);

    let bytes = (N * 4) as u64;
    let both = pool.usage()?;
    assert!(both.used >= 2 * bytes, "two buffers in use: {both:?}");
    assert!(both.reserved >= both.used, "{both:?}");
    drop(x);
    gpu.synchronize()?;
    let one = pool.usage()?;
    assert!(
        one.used + bytes <= both.used,
        "used falls: {both:?} then {one:?}"
    );
    assert!(
        one.used_high >= both.used,
        "the high-water mark stays: {one:?}"
    );
    pool.reset_high_water()?;
    let reset = pool.usage()?;
    assert!(reset.used_high < both.used, "reset: {one:?} then {reset:?}");
    let z = pool.zeros::<f32>(&gpu, N)?;
    gpu.synchronize()?;
    let again = pool.usage()?;
    assert!(
        again.used_high >= again.used && again.used >= 2 * bytes,
        "{again:?}"
    );
    drop((y, z));
    gpu.synchronize()?;
    assert_eq!(pool.usage()?.used, 0, "every buffer freed");
    Ok(())
}

#[test]
fn a_pool_is_held_to_its_maximum_size() -> Result<(), Error> {
    let _turn = turn();
    let Some(gpu) = pools_or_skip() else {
        return Ok(());
    };
    if Gpu::driver_version()? < (12, 2) {
        eprintln!("skipped: a pool's maximum size needs a CUDA 12.2 driver");
        return Ok(());
    }
    let pool = MemoryPool::new(&gpu, PoolOptions::new().max_size(64 << 20))?;
    let small = pool.zeros::<u8>(&gpu, 16 << 20)?;
    let refused = pool.zeros::<u8>(&gpu, 128 << 20);
    let out_of_memory = CUresult::CUDA_ERROR_OUT_OF_MEMORY as u32;
    assert!(
        matches!(&refused, Err(e) if e.driver_code() == Some(out_of_memory)),
        "past the maximum size: {refused:?}"
    );
    drop(small);
    gpu.synchronize()
}

#[test]
fn the_release_threshold_keeps_memory_and_trimming_gives_it_back() -> Result<(), Error> {
    let _turn = turn();
    let Some(gpu) = pools_or_skip() else {
        return Ok(());
    };
    let size = 64 << 20;
    let pool = MemoryPool::new(&gpu, PoolOptions::new().release_threshold(u64::MAX))?;
    drop(pool.zeros::<u8>(&gpu, size)?);
    gpu.synchronize()?;
    let kept = pool.usage()?;
    assert_eq!(kept.used, 0, "{kept:?}");
    assert!(
        kept.reserved >= size as u64,
        "kept past the synchronisation: {kept:?}"
    );
    pool.trim_to(0)?;
    let trimmed = pool.usage()?;
    assert!(
        trimmed.reserved < size as u64,
        "trimmed: {kept:?} then {trimmed:?}"
    );

    // With no threshold, a synchronisation gives the unused memory back.
    pool.set_release_threshold(0)?;
    assert_eq!(pool.release_threshold()?, 0);
    drop(pool.zeros::<u8>(&gpu, size)?);
    gpu.synchronize()?;
    let released = pool.usage()?;
    assert!(
        released.reserved < size as u64,
        "released at the synchronisation: {released:?}"
    );
    Ok(())
}

#[test]
fn a_pool_made_current_serves_the_default_buffers() -> Result<(), Error> {
    let _turn = turn();
    let Some(gpu) = pools_or_skip() else {
        return Ok(());
    };
    let m = pooled::load(&gpu)?;
    let default = gpu.default_memory_pool()?;
    let pool = MemoryPool::new(&gpu, PoolOptions::new().release_threshold(u64::MAX))?;
    let _restore = RestoreDefault(gpu.clone());
    gpu.set_memory_pool(&pool)?;
    assert_eq!(gpu.memory_pool()?, pool);

    let xs = Rng::with_seed(13).nonzero_f32s(N);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.zeros::<f32>(N)?;
    gpu.synchronize()?;
    assert!(
        pool.usage()?.used >= 2 * (N * 4) as u64,
        "{:?}",
        pool.usage()?
    );
    // SAFETY: affine reads x and writes y, N elements each.
    unsafe { m.affine(&cfg(N), &x, &mut y, 1.5, 0.25, N as i32)? };
    assert_close(&gpu.download(&y)?, &affine(&xs, 1.5, 0.25), 1e-6);

    // The device keeps its current pool alive without the program's handle.
    let raw = pool.cu_pool();
    drop(pool);
    let current = gpu.memory_pool()?;
    assert_eq!(current.cu_pool(), raw);
    let z = gpu.upload(&xs)?;
    assert_eq!(z.download(&gpu)?, xs);
    drop((x, y, z));

    gpu.set_memory_pool(&default)?;
    assert_eq!(gpu.memory_pool()?, default);
    Ok(())
}

#[test]
fn a_pool_buffer_freed_while_another_stream_reads_it_stays_ordered() -> Result<(), Error> {
    let _turn = turn();
    let Some(gpu) = pools_or_skip() else {
        return Ok(());
    };
    let m = pooled::load(&gpu)?;
    let m_side = m.with_stream(&gpu.new_stream()?);
    // Keeps freed memory, so that the next allocation reuses it at once.
    let pool = MemoryPool::new(&gpu, PoolOptions::new().release_threshold(u64::MAX))?;
    let mut rng = Rng::with_seed(14);
    let xs = rng.nonzero_f32s(N);
    let other = rng.nonzero_f32s(N);
    let x = pool.upload(&gpu, &xs)?;
    let mut y = pool.zeros::<f32>(&gpu, N)?;
    // The side stream reads x some milliseconds from now.
    // SAFETY: late_affine reads x and writes y, N elements each.
    unsafe { m_side.late_affine(&cfg(N), &x, &mut y, 4.0, 0.5, N as i32, 50_000_000)? };
    // Freed on its stream after the side stream's read; the next allocation on this stream
    // may take the same memory and is written before that read has run.
    let x_addr = cuda_kernel_runtime::RawDevicePtr::of(&x);
    drop(x);
    let z = pool.upload(&gpu, &other)?;
    println!(
        "the memory was {}reused",
        if cuda_kernel_runtime::RawDevicePtr::of(&z) == x_addr {
            ""
        } else {
            "not "
        }
    );
    assert_close(&y.download(&gpu)?, &affine(&xs, 4.0, 0.5), 1e-6);
    assert_eq!(z.download(&gpu)?, other);
    Ok(())
}

#[cfg(target_os = "linux")]
mod between_processes {
    use std::io::{Read as _, Write as _};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use cuda_kernel_runtime::cudarc::driver::sys::{CUdevice_attribute, CUmemAllocationHandleType};
    use cuda_kernel_runtime::{Error, Gpu, MemoryPool, PoolOptions, PoolPointer};
    use kernel_test_support::{NonZeroData, Rng, assert_close};

    use super::{N, affine, cfg, pooled, pools_or_skip, turn};

    const SEED: u64 = 15;
    /// The socket's path, for the child.
    const SOCKET: &str = "KERNEL_POOL_IPC_SOCKET";

    /// Whether the device exports pools as POSIX file descriptors.
    fn shares_fds(gpu: &Gpu) -> bool {
        let types = gpu
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES)
            .expect("the attribute");
        types as u32 & CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR.0 != 0
    }

    #[test]
    fn a_second_process_imports_a_pool_buffer() -> Result<(), Error> {
        let _turn = turn();
        let Some(gpu) = pools_or_skip() else {
            return Ok(());
        };
        if !shares_fds(&gpu) {
            eprintln!(
                "skipped: a_second_process_imports_a_pool_buffer: {} cannot export pools as \
                 file descriptors",
                gpu.name()
            );
            return Ok(());
        }
        let m = pooled::load(&gpu)?;
        let pool = MemoryPool::new(&gpu, PoolOptions::new().shareable(true))?;
        assert!(pool.is_shareable());
        let xs = Rng::with_seed(SEED).nonzero_f32s(N);
        let x = gpu.upload(&xs)?;
        let mut y = pool.zeros::<f32>(&gpu, N)?;
        let back = pool.zeros::<f32>(&gpu, N)?;
        // SAFETY: affine reads x and writes y, N elements each.
        unsafe { m.affine(&cfg(N), &x, &mut y, 3.0, 1.0, N as i32)? };
        // The child touches the buffers only once they exist and y is written.
        gpu.synchronize()?;
        let pointers = [pool.export_pointer(&y)?, pool.export_pointer(&back)?];
        assert!(
            pool.export_pointer(&x).is_err(),
            "a buffer of another pool is refused"
        );

        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("pool.sock");
        let listener = UnixListener::bind(&path).expect("the socket");
        listener.set_nonblocking(true).expect("non-blocking accept");
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "between_processes::pool_ipc_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SOCKET, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the child starts");
        let started = Instant::now();
        let mut socket = loop {
            match listener.accept() {
                Ok((socket, _)) => break socket,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let exited = child.try_wait().expect("the child's status").is_some();
                    if exited || started.elapsed() > Duration::from_secs(120) {
                        let _ = child.kill();
                        let out = child.wait_with_output().expect("its output");
                        panic!(
                            "the child never connected:\n{}{}",
                            String::from_utf8_lossy(&out.stdout),
                            String::from_utf8_lossy(&out.stderr)
                        );
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => panic!("accepting the child: {e}"),
            }
        };
        socket.set_nonblocking(false).expect("a blocking socket");
        pool.send_handle(&socket)?;
        for p in &pointers {
            socket.write_all(&p.to_bytes()).expect("the pointers sent");
        }
        let out = child.wait_with_output().expect("the child runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "the child failed:\n{text}");
        assert!(
            text.contains(&format!("child: checked {N} values")),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "child: refused: the PoolPointer describes {}",
                4 * N
            )),
            "{text}"
        );
        if let Some(refusal) = text.lines().find(|l| l.contains("child: refused")) {
            println!("{refusal}");
        }
        // The child wrote back = 0.5 y - 2 through its import, and freed its imports first.
        let want = affine(&affine(&xs, 3.0, 1.0), 0.5, -2.0);
        assert_close(&back.download(&gpu)?, &want, 1e-6);
        Ok(())
    }

    /// The child's half, run by the test above in another process.
    #[test]
    #[ignore = "run in a child process by a_second_process_imports_a_pool_buffer"]
    fn pool_ipc_child() -> Result<(), Error> {
        #[allow(clippy::disallowed_methods)] // set by the parent test, not a build input
        let Some(path) = std::env::var_os(SOCKET) else {
            eprintln!(
                "skipped: pool_ipc_child runs only under a_second_process_imports_a_pool_buffer"
            );
            return Ok(());
        };
        let gpu = Gpu::new(0)?;
        let m = pooled::load(&gpu)?;
        let mut socket = UnixStream::connect(path).expect("the parent listens");
        let pool = MemoryPool::receive_handle(&gpu, &socket)?;
        let mut bytes = [0u8; PoolPointer::<f32>::BYTES];
        socket.read_exact(&mut bytes).expect("y's description");
        let y_at = PoolPointer::<f32>::from_bytes(&bytes)?;
        assert!(
            PoolPointer::<f64>::from_bytes(&bytes).is_err(),
            "the element size is checked"
        );
        socket.read_exact(&mut bytes).expect("back's description");
        let back_at = PoolPointer::<f32>::from_bytes(&bytes)?;
        assert!(
            pool.zeros::<f32>(&gpu, 4).is_err(),
            "an imported pool does not allocate"
        );
        assert!(
            pool.export_handle().is_err(),
            "an imported pool is not exported again"
        );

        // A description claiming more elements than the allocation holds is refused (the
        // length came from another process), and the mapping it made is let go.
        let mut too_long = y_at.to_bytes();
        too_long[72..].copy_from_slice(&(4 * N as u64).to_le_bytes());
        match pool.import_pointer(&gpu, &PoolPointer::<f32>::from_bytes(&too_long)?) {
            Err(Error::OutOfRange { problem, .. }) => println!("child: refused: {problem}"),
            other => panic!("a description longer than its allocation: {other:?}"),
        }
        gpu.synchronize()?;

        let y = pool.import_pointer(&gpu, &y_at)?;
        let mut back = pool.import_pointer(&gpu, &back_at)?;
        let got = y.download(&gpu)?;
        let xs = Rng::with_seed(SEED).nonzero_f32s(N);
        assert_close(&got, &affine(&xs, 3.0, 1.0), 1e-6);
        // SAFETY: affine reads y and writes back, N elements each (both the parent's).
        unsafe { m.affine(&cfg(N), &y, &mut back, 0.5, -2.0, N as i32)? };
        // The imports are freed, and the frees done, before the parent frees the buffers.
        drop((y, back));
        gpu.synchronize()?;
        println!("child: checked {} values", got.len());
        Ok(())
    }
}
