//! When a kernel misbehaves: a failed device `assert` comes back as `Error::DeviceAssert`, an
//! illegal address as `Error::KernelFault`, both naming the kernel launched last from the
//! thread, and what the kernel printed (device `printf` on standard output, the assertion's
//! message on standard error) is out before the error is returned.
//!
//! A fault loses the CUDA context for the rest of the process, so each case runs in a child
//! process: this test binary again, running only the ignored `fault_child` with
//! `DEVICE_FAULT_CHILD` naming the case. The child prints the error with `println!` and exits
//! normally. Its standard output is a pipe, whose C buffer would hold what the device printed
//! with `printf` until the child exits, were it not flushed: the device's line must come
//! before the child's error line. (The runtime flushes C's streams before returning a fault's
//! error; the R580 driver, seen on an H200, already flushes `stdout` itself during the
//! synchronizing call, so there the order would hold without the runtime's flush too.) The
//! driver prints the assertion's message to standard error, which C does not buffer.
//!
//! GPU tests skip (with the reason) without a GPU; fail when `KERNEL_REQUIRE_GPU=1`.
#![allow(clippy::disallowed_methods)] // the child reads its case from the environment

use std::io::Read as _;
use std::process::Command;
use std::sync::Mutex;

use cuda_kernel_runtime::{Error, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

cuda_module! {
    /// Kernels that fail on purpose.
    mod failing {
        source = r#"
            #undef NDEBUG
            #include <cassert>
            #include <cstdio>

            // y = 2x; thread `bad` says how far it got, then fails its assertion (x is never
            // zero, so every other thread's holds).
            extern "C" __global__ void checked(const unsigned* x, unsigned* y, int n, int bad) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i >= n) return;
                y[i] = 2u * x[i];
                if (i == bad) printf("checked %d before the assert\n", i);
                assert(i != bad || x[i] == 0u);
            }

            // Writes `v` through `addr`.
            extern "C" __global__ void poke(unsigned long long addr, unsigned v) {
                *(unsigned*)addr = v;
            }
        "#;
    }
}

/// The variable that makes `fault_child` play a case.
const CASE: &str = "DEVICE_FAULT_CHILD";
/// The thread that fails its assertion.
const BAD: i32 = 777;
/// What starts the child's line with the error's message.
const ERROR_LINE: &str = "child error: ";

/// The children take turns on the device.
static DEVICE: Mutex<()> = Mutex::new(());

/// How the child's standard streams come back.
#[derive(Clone, Copy, PartialEq)]
enum Streams {
    /// Both into one pipe, in the order they were written.
    Merged,
    /// Each into a pipe of its own.
    Apart,
}

/// Runs `fault_child` in a process of its own, playing `case`: its standard output, and its
/// standard error (empty when they come back merged).
fn run_child(case: &str, streams: Streams) -> (String, String) {
    let _device = DEVICE.lock().unwrap_or_else(|p| p.into_inner());
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "fault_child",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CASE, case)
    .env(kernel_test_support::REQUIRE_GPU, "1");
    let (status, stdout, stderr) = match streams {
        Streams::Apart => {
            let out = cmd.output().unwrap();
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (out.status, text(&out.stdout), text(&out.stderr))
        }
        Streams::Merged => {
            let (mut reader, writer) = std::io::pipe().unwrap();
            cmd.stdout(writer.try_clone().unwrap()).stderr(writer);
            let mut child = cmd.spawn().unwrap();
            // The command holds the pipe's write ends: without dropping it, no end of file.
            drop(cmd);
            let mut all = String::new();
            reader.read_to_string(&mut all).unwrap();
            (child.wait().unwrap(), all, String::new())
        }
    };
    println!("child stdout:\n{stdout}\nchild stderr:\n{stderr}");
    // Exited by itself, with success: no crash, no abort, no panic.
    assert!(
        status.success(),
        "the child failed ({status}); see its output above"
    );
    assert!(stdout.contains("1 passed"), "the child's test did not run");
    (stdout, stderr)
}

/// Where `needle` starts in `text`, or a failure that says what is missing.
fn position(text: &str, needle: &str, what: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("{what} (`{needle}`) is not in the child's output"))
}

/// The child's error line.
fn error_line(stdout: &str) -> &str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(ERROR_LINE))
        .expect("the child printed no error line")
}

/// The driver's line for the failed assertion: `FILE:LINE: void checked(...): block: [..],
/// thread: [..] Assertion `...` failed.`
fn assertion_line(text: &str) -> Option<&str> {
    text.lines()
        .find(|l| l.contains("Assertion") && l.contains("failed") && l.contains("checked"))
}

#[test]
fn a_failed_assert_names_the_kernel_after_what_it_printed() {
    let Some(_gpu) = gpu_or_skip() else { return };
    // Both streams in one pipe, in the order they were written: the device's printf line
    // (C's stdout) and the driver's assertion line (C's stderr) must come before the child's
    // error line.
    let (all, _) = run_child("assert", Streams::Merged);
    let error_at = position(&all, ERROR_LINE, "the error line");
    let printed_at = position(
        &all,
        &format!("checked {BAD} before the assert"),
        "the device's printf line",
    );
    let assertion = assertion_line(&all).expect("the driver printed no `Assertion ... failed`");
    let assertion_at = position(&all, assertion, "the assertion line");
    assert!(
        printed_at < error_at && assertion_at < error_at,
        "what the device printed comes after the error: it was not flushed before the error was returned"
    );
    // Each stream apart: the printf line on stdout, the assertion on stderr, as the error says.
    let (stdout, stderr) = run_child("assert", Streams::Apart);
    assert!(stdout.contains(&format!("checked {BAD} before the assert")));
    assert!(
        assertion_line(&stderr).is_some(),
        "the assertion is not on standard error, where the error says it is"
    );
    let error = error_line(&stdout);
    for want in [
        "device-side `assert` failed",
        &format!(
            "the kernel last launched from this thread: `checked` of module `{}`",
            failing::METADATA.name
        ),
        "reported by cuStreamSynchronize",
        "printed to standard error",
        "the CUDA context is lost",
        "restart the process",
    ] {
        assert!(error.contains(want), "`{want}` is not in: {error}");
    }
    assert!(
        stdout.contains("child variant: DeviceAssert Some(710)"),
        "the error is not Error::DeviceAssert with code 710"
    );
    // The context stays lost: the next call fails the same way.
    assert!(
        stdout.contains("child again: DeviceAssert"),
        "a second synchronize did not fail with DeviceAssert"
    );
}

#[test]
fn an_illegal_address_names_the_kernel() {
    let Some(_gpu) = gpu_or_skip() else { return };
    let (stdout, _) = run_child("illegal-address", Streams::Apart);
    let error = error_line(&stdout);
    for want in [
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        &format!(
            "the kernel last launched from this thread: `poke` of module `{}`",
            failing::METADATA.name
        ),
        "unusable",
    ] {
        assert!(error.contains(want), "`{want}` is not in: {error}");
    }
    assert!(
        stdout.contains("child variant: KernelFault Some(700)"),
        "the error is not Error::KernelFault with code 700"
    );
}

/// The name of the error's variant, and its driver code.
fn variant(e: &Error) -> String {
    let name = match e {
        Error::DeviceAssert { .. } => "DeviceAssert",
        Error::KernelFault { .. } => "KernelFault",
        _ => "another variant",
    };
    format!("{name} {:?}", e.driver_code())
}

/// The child of the tests above: makes the kernel of its case fail, then prints the error.
/// Never run in a process with other GPU tests.
#[test]
#[ignore = "run by the tests above, each in a process of its own"]
fn fault_child() {
    let Ok(case) = std::env::var(CASE) else {
        println!("skipped: runs only as a child of this file's tests ({CASE} is not set)");
        return;
    };
    let gpu = gpu_or_skip().expect("the parent saw a GPU");
    let m = failing::load(&gpu).unwrap();
    let err = match case.as_str() {
        "assert" => {
            let n = 1000usize;
            let xs = Rng::with_seed(710).nonzero_u32s(n);
            let x = gpu.upload(&xs).unwrap();
            let mut y = gpu.zeros::<u32>(n).unwrap();
            gpu.synchronize().unwrap();
            let cfg = Launch::for_num_elems(n as u32);
            // SAFETY: `checked` touches x[0..n) and y[0..n) only, and both hold n values.
            unsafe { m.checked(&cfg, &x, &mut y, n as i32, BAD) }.unwrap();
            gpu.synchronize().unwrap_err()
        }
        "illegal-address" => {
            // SAFETY: deliberately not: `poke` writes through an address no allocation can
            // have. The launch succeeds; the fault is reported when the stream is synchronized.
            unsafe { m.poke(&Launch::new(1, 1), 0x10, 7) }.unwrap();
            gpu.synchronize().unwrap_err()
        }
        other => panic!("unknown case `{other}`"),
    };
    println!("child variant: {}", variant(&err));
    println!("{ERROR_LINE}{err}");
    println!("child again: {}", variant(&gpu.synchronize().unwrap_err()));
}
