//! Runs the built program: with a GPU it must check its results and exit 0; without one it
//! must print what it embeds and the reason, and exit 2, without a panic.
//!
//! With `KERNEL_REQUIRE_GPU=1`, a machine without a usable GPU fails this test.

use std::process::Command;

#[test]
fn the_program_reports_and_exits_with_the_documented_status() {
    let out = Command::new(env!("CARGO_BIN_EXE_buildrs"))
        .output()
        .expect("the program runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    match cuda_kernel_runtime::Gpu::new(0) {
        Ok(gpu) => {
            assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
            assert!(stdout.contains(gpu.name()), "{stdout}");
            assert!(stdout.contains("check transform") && stdout.ends_with("PASS\n"));
        }
        Err(e) => {
            assert!(
                !kernel_test_support::gpu_required(),
                "KERNEL_REQUIRE_GPU=1 but no GPU: {e}"
            );
            assert_eq!(
                out.status.code(),
                Some(i32::from(kernel_examples::NO_GPU)),
                "{stdout}"
            );
            assert!(
                stdout.contains("module `signal`: kernels transform, box_blur; targets"),
                "{stdout}"
            );
            let reason = format!("not run, no GPU is usable: {e}");
            assert!(stdout.contains(reason.trim_end_matches('.')), "{stdout}");
        }
    }
}
