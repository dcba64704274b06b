//! Sharing device memory and an event between two processes: this test's process writes a
//! buffer with a kernel, records an interprocess event and passes the handles (as hex in an
//! environment variable) to a child process running `ipc_child` from this same binary. The
//! child waits on the event, reads the buffer and checks it against a CPU reference, then
//! writes a second buffer of the parent's through its own kernel launch; the parent checks
//! that after the child exits.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use std::process::Command;

use cuda_kernel_runtime::{Error, IpcEventHandle, IpcMemHandle, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    mod shared {
        source = r#"
            extern "C" __global__ void scale(const float* x, float* y, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = s * x[i];
            }
        "#;
    }
}

const N: usize = 1 << 18;
const SEED: u64 = 81;
const VAR: &str = "KERNEL_IPC_TEST_HANDLES";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn a_second_process_reads_and_writes_shared_buffers() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = shared::load(&gpu)?;
    let xs = Rng::with_seed(SEED).nonzero_f32s(N);
    let x = gpu.upload(&xs)?;
    let mut a = gpu.ipc_alloc::<f32>(N)?;
    let b = gpu.ipc_alloc::<f32>(N)?;
    let cfg = Launch::for_num_elems(N as u32);
    // SAFETY: scale reads x and writes a, N elements each.
    unsafe { m.scale(&cfg, &x, &mut a, 3.0, N as i32)? };
    let written = gpu.ipc_event()?;
    written.record(&gpu)?;
    let handles = [
        hex(&gpu.ipc_handle(&a)?.to_bytes()),
        hex(&gpu.ipc_handle(&b)?.to_bytes()),
        hex(&written.handle()?.to_bytes()),
    ]
    .join(":");
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "ipc_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(VAR, handles)
        .output()
        .expect("the child runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "the child failed:\n{text}");
    assert!(text.contains("child: checked 262144 elements"), "{text}");
    assert!(
        text.contains(&format!(
            "child: refused: the IpcMemHandle describes {}",
            4 * N
        )),
        "{text}"
    );
    if let Some(refusal) = text.lines().find(|l| l.contains("child: refused")) {
        println!("{refusal}");
    }
    // The child wrote b = 0.5 * a = 1.5 x through its mapping.
    let want: Vec<f32> = xs.iter().map(|v| 1.5 * v).collect();
    assert_close(&gpu.download(&b)?, &want, 1e-6);
    Ok(())
}

/// The child's half, run by the test above in another process.
#[test]
#[ignore = "run in a child process by a_second_process_reads_and_writes_shared_buffers"]
fn ipc_child() -> Result<(), Error> {
    #[allow(clippy::disallowed_methods)] // set by the parent test, not a build input
    let handles = std::env::var(VAR).expect("started by the parent test");
    let parts: Vec<Vec<u8>> = handles.split(':').map(unhex).collect();
    let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    let m = shared::load(&gpu)?;
    // A handle claiming more elements than its allocation holds is refused (the length came
    // from another process), and its mapping closed again.
    let mut too_long = parts[0].clone();
    too_long[72..].copy_from_slice(&(4 * N as u64).to_le_bytes());
    match gpu.open_ipc(&IpcMemHandle::<f32>::from_bytes(&too_long)?) {
        Err(Error::OutOfRange { problem, .. }) => println!("child: refused: {problem}"),
        Err(other) => panic!("a handle longer than its allocation: {other}"),
        Ok(_) => panic!("a handle longer than its allocation was opened"),
    }
    let a = gpu.open_ipc(&IpcMemHandle::<f32>::from_bytes(&parts[0])?)?;
    let mut b = gpu.open_ipc(&IpcMemHandle::<f32>::from_bytes(&parts[1])?)?;
    assert!(
        IpcMemHandle::<f64>::from_bytes(&parts[0]).is_err(),
        "element size checked"
    );
    assert!(
        gpu.ipc_handle(&a).is_err(),
        "an opened buffer is not re-exported"
    );
    let written = gpu.open_ipc_event(&IpcEventHandle::from_bytes(&parts[2])?)?;
    written.wait_on(&gpu)?;
    let xs = Rng::with_seed(SEED).nonzero_f32s(N);
    let want: Vec<f32> = xs.iter().map(|v| 3.0 * v).collect();
    assert_close(&gpu.download(&a)?, &want, 1e-6);
    // SAFETY: scale reads a and writes b, N elements each (both the parent's).
    unsafe { m.scale(&Launch::for_num_elems(N as u32), &a, &mut b, 0.5, N as i32)? };
    gpu.synchronize()?;
    println!("child: checked {} elements", a.len());
    Ok(())
}
