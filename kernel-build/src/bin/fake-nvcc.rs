//! A stand-in for nvcc used by cuda-kernel-build's tests (not part of the public interface).
//!
//! Every invocation appends its arguments as one line to `$FAKE_NVCC_LOG`. Then,
//! depending on `$FAKE_NVCC_MODE`:
//!
//! | mode | behaviour |
//! |---|---|
//! | unset / `real` | runs the real nvcc `$FAKE_NVCC_REAL` with the same arguments |
//! | `fail` | probes (`--version`, `--list-gpu-code`) and `-E` go to the real nvcc; a compile prints `<source>(3): error: simulated failure` and exits 2 |
//! | `garbage` | a compile writes random-looking bytes as the fatbin and exits 0 |
//! | `killed` | a compile is killed by SIGKILL mid-run, leaving a partial output file |
//! | `noisy` | a compile runs the real nvcc, then prints binary garbage on stderr |
//! | `untold` | as `real`, but `-dryrun` prints nothing: the toolkit it runs from is unknown, so only what lies beside it is found (no nvFatbin, no nvJitLink) |
//!
//! A compile is a run with `-fatbin` or `-c` and none of `-E`, `-M`, `--dryrun`.
//!
//! Tests make a small shell wrapper that sets these variables and execs this program,
//! so no test changes its own process environment.

use std::ffi::OsString;
use std::io::Write;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if let Some(log) = var("FAKE_NVCC_LOG") {
        let line: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            // One write per line: concurrent runs (compile and preprocess) append to
            // the same log, and O_APPEND keeps a single write whole.
            let _ = f.write_all(format!("{}\n", line.join(" ")).as_bytes());
        }
    }
    let is_compile = args.iter().any(|a| a == "-fatbin" || a == "-c")
        && !args
            .iter()
            .any(|a| a == "-E" || a == "-M" || a == "--dryrun");
    let mode = var("FAKE_NVCC_MODE")
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_default();
    if mode == "untold" && args.iter().any(|a| a == "-dryrun") {
        return ExitCode::SUCCESS;
    }
    match (mode.as_str(), is_compile) {
        ("fail", true) => {
            let source = args
                .last()
                .map(|a| a.to_string_lossy().into_owned())
                .unwrap_or_default();
            eprintln!("{source}(3): error: simulated failure");
            eprintln!("1 error detected in the compilation of \"{source}\".");
            ExitCode::from(2)
        }
        ("garbage", true) => {
            if let Some(out) = output_path(&args) {
                let bytes: Vec<u8> = (0..4096u32)
                    .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                    .collect();
                let _ = std::fs::write(out, bytes);
            }
            ExitCode::SUCCESS
        }
        ("killed", true) => {
            if let Some(out) = output_path(&args) {
                let _ = std::fs::write(out, [0x50, 0xed, 0x55, 0xba, 1, 0]);
            }
            // SAFETY: raise only sends a signal to this process.
            unsafe { libc_raise_sigkill() };
            ExitCode::from(137)
        }
        ("noisy", true) => {
            let code = run_real(&args);
            let mut err = std::io::stderr();
            let _ = err.write_all(&[0xff, 0xfe, b'\n', 0x00, 0x1b, b'[', b'3', b'1', b'm', b'\n']);
            code
        }
        _ => run_real(&args),
    }
}

fn var(name: &str) -> Option<OsString> {
    #[allow(clippy::disallowed_methods)] // a test program configured by its environment
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn output_path(args: &[OsString]) -> Option<&OsString> {
    args.iter()
        .position(|a| a == "-o")
        .and_then(|i| args.get(i + 1))
}

fn run_real(args: &[OsString]) -> ExitCode {
    let Some(real) = var("FAKE_NVCC_REAL") else {
        eprintln!("fake-nvcc: FAKE_NVCC_REAL is not set");
        return ExitCode::from(3);
    };
    match Command::new(real).args(args).status() {
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("fake-nvcc: cannot run the real nvcc: {e}");
            ExitCode::from(3)
        }
    }
}

unsafe extern "C" {
    fn raise(sig: i32) -> i32;
}

/// Kills this process the way an OOM killer or a user's `kill -9` would.
unsafe fn libc_raise_sigkill() {
    const SIGKILL: i32 = 9;
    // SAFETY: `raise` is async-signal-safe and has no preconditions.
    unsafe {
        raise(SIGKILL);
    }
}
