//! Source lines in NVIDIA's tools: kernels carry line tables by default, so compute-sanitizer's
//! report of an out-of-bounds write names the `.cu` file and line of a kernel from a file, and
//! the `.rs` file and line of a kernel written inline in `cuda_module!` (its text is compiled
//! after a `#line` directive naming the Rust file, by nvcc at build time or by NVRTC when the
//! program runs). A module built with `line_info = false` is reported by byte offset only,
//! which shows the default is what names the lines.
//!
//! The test runs compute-sanitizer on its own binary, whose ignored test `child_overrun`
//! launches the kernel named by `SANITIZER_LINES_CASE`. It skips (with the reason) without a
//! GPU or without compute-sanitizer (searched on `PATH`, in `$CUDA_PATH/bin` and in
//! `/usr/local/cuda/bin`); it fails without a GPU when `KERNEL_REQUIRE_GPU=1`.

use std::path::PathBuf;
use std::process::Command;

use cuda_kernel_runtime::{Error, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, gpu_or_skip};

cuda_module! {
    /// The overrunning kernel from a file.
    mod from_file {
        file = "cuda/out_of_bounds.cu";
    }
}

cuda_module! {
    /// The same mistake written inline: the report names this file's line.
    mod inline {
        source = r#"
            extern "C" __global__ void overrun_inline(float* out, const float* in, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i <= n) {
                    out[i] = in[i < n ? i : 0] + 1.0f; // WRITE-PAST-THE-END
                }
            }
        "#;
    }
}

cuda_module! {
    /// Inline again, built without line tables.
    mod no_lines {
        line_info = false;
        source = r#"
            extern "C" __global__ void overrun_bare(float* out, const float* in, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i <= n) {
                    out[i] = in[i < n ? i : 0] - 1.0f;
                }
            }
        "#;
    }
}

cuda_module! {
    /// Inline, compiled by NVRTC when the program runs: the report names this file's line too.
    mod at_run_time {
        compile = "runtime";
        source = r#"
            extern "C" __global__ void overrun_nvrtc(float* out, const float* in, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i <= n) {
                    out[i] = in[i < n ? i : 0] * 2.0f; // NVRTC-WRITE-PAST-THE-END
                }
            }
        "#;
    }
}

const CASE: &str = "SANITIZER_LINES_CASE";
const N: usize = 1000;

/// The kernel of `case` on `N` random elements, one thread writing past the end.
fn overrun(case: &str) -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let input = Rng::with_seed(43).nonzero_f32s(N);
    let x = gpu.upload(&input)?;
    let mut y = gpu.zeros::<f32>(N)?;
    let cfg = Launch::for_num_elems(N as u32 + 1);
    // SAFETY: deliberately not: each kernel writes `out[n]`, one past the end, for the
    // sanitizer to report. Nothing reads it.
    unsafe {
        match case {
            "file" => from_file::load(&gpu)?.overrun(&cfg, &mut y, &x, N as i32)?,
            "inline" => inline::load(&gpu)?.overrun_inline(&cfg, &mut y, &x, N as i32)?,
            "nvrtc" => at_run_time::load(&gpu)?.overrun_nvrtc(&cfg, &mut y, &x, N as i32)?,
            _ => no_lines::load(&gpu)?.overrun_bare(&cfg, &mut y, &x, N as i32)?,
        }
    }
    gpu.synchronize()
}

/// Run by the parent under compute-sanitizer; ignored otherwise.
#[test]
#[ignore = "run by the sanitizer tests as a child process"]
fn child_overrun() {
    #[allow(clippy::disallowed_methods)] // a test switch
    let Some(case) = std::env::var_os(CASE) else {
        return;
    };
    // The sanitizer may end the kernel: what matters is its report, not this result.
    let result = overrun(&case.to_string_lossy());
    println!("child result: {result:?}");
}

/// compute-sanitizer, where the toolkit puts it.
fn sanitizer() -> Option<PathBuf> {
    #[allow(clippy::disallowed_methods)] // a test's search, not a build input
    let cuda = std::env::var_os("CUDA_PATH").map(|p| PathBuf::from(p).join("bin"));
    #[allow(clippy::disallowed_methods)]
    let path = std::env::var_os("PATH");
    let dirs = path
        .iter()
        .flat_map(std::env::split_paths)
        .chain(cuda)
        .chain([PathBuf::from("/usr/local/cuda/bin")]);
    dirs.map(|d| d.join("compute-sanitizer"))
        .find(|p| p.is_file())
}

/// compute-sanitizer's memcheck report of the child running `case`, or `None` after
/// printing why it cannot run.
fn report(case: &str) -> Option<String> {
    // No GPU: `gpu_or_skip` prints why (or fails when a GPU is required).
    gpu_or_skip()?;
    let Some(tool) = sanitizer() else {
        eprintln!(
            "skipped: compute-sanitizer is not installed (PATH, $CUDA_PATH/bin, /usr/local/cuda/bin)"
        );
        return None;
    };
    let out = Command::new(tool)
        .args(["--tool", "memcheck", "--print-limit", "4"])
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_overrun",
            "--include-ignored",
            "--nocapture",
        ])
        .args(["--test-threads", "1"])
        .env(CASE, case)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("Invalid __global__ write of size 4 bytes"),
        "the sanitizer did not report the write:\n{text}"
    );
    Some(text)
}

/// The 1-based line of `file`'s text that holds `marker`.
fn line_of(text: &str, marker: &str) -> usize {
    1 + text
        .lines()
        .position(|l| l.contains(marker))
        .expect("the marker is in the file")
}

#[test]
fn the_report_of_a_kernel_from_a_file_names_its_cu_line() {
    let Some(text) = report("file") else { return };
    let line = line_of(
        include_str!("cuda/out_of_bounds.cu"),
        "// the write past the end",
    );
    let at = format!("out_of_bounds.cu:{line}");
    assert!(text.contains(&at), "no `{at}` in the report:\n{text}");
}

#[test]
fn the_report_of_an_inline_kernel_names_its_rs_line() {
    let Some(text) = report("inline") else { return };
    // Built from two halves, so that this line is not the one found.
    let marker = ["// WRITE-PAST", "-THE-END"].concat();
    let line = line_of(include_str!("sanitizer_lines.rs"), &marker);
    let at = format!("sanitizer_lines.rs:{line}");
    assert!(text.contains(&at), "no `{at}` in the report:\n{text}");
}

#[test]
fn the_report_of_an_inline_kernel_compiled_at_run_time_names_its_rs_line() {
    let Some(text) = report("nvrtc") else { return };
    let marker = ["// NVRTC-WRITE-PAST", "-THE-END"].concat();
    let line = line_of(include_str!("sanitizer_lines.rs"), &marker);
    let at = format!("sanitizer_lines.rs:{line}");
    assert!(text.contains(&at), "no `{at}` in the report:\n{text}");
}

#[test]
fn without_line_tables_the_report_has_no_line() {
    let Some(text) = report("none") else { return };
    let write = text
        .lines()
        .skip_while(|l| !l.contains("Invalid __global__ write"))
        .nth(1)
        .unwrap_or_default();
    assert!(write.contains("overrun_bare"), "{text}");
    assert!(!write.contains(".rs:") && !write.contains(".cu:"), "{text}");
}
