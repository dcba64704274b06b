//! `cuda-kernel-inspect`: what a fatbin, a CUDA source or a built binary holds.
//!
//! ```text
//! cuda-kernel-inspect fatbin FILE [--json]   entries, kernels and layouts of a fatbin
//! cuda-kernel-inspect binary PATH [--json]   the fatbins embedded in an executable or object
//! cuda-kernel-inspect decls FILE [--json] [-I DIR] [-D NAME=VALUE]   kernel declarations of a CUDA source
//! cuda-kernel-inspect toolkit                what toolkit discovery finds, and why
//! cuda-kernel-inspect toolkit install [--dir DIR] [--with curand,cublas,cutlass]
//!                                              NVIDIA's nvcc wheels (and libraries) into the per-user folder
//! ```
//!
//! The JSON output is described in `docs/INSPECT.md`.

mod binary;
mod build_cmd;
mod decls;
mod fatbin;
mod report;
mod toolkit_cmd;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage:
  cuda-kernel-inspect fatbin FILE [--json]   entries, kernels and layouts of a fatbin
  cuda-kernel-inspect binary PATH [--json]   the fatbins embedded in an executable or object
  cuda-kernel-inspect build FILE... [options] build and verify a module outside Cargo
  cuda-kernel-inspect decls FILE [--json] [-I DIR] [-D NAME=VALUE]
                                        kernel declarations of a CUDA source
  cuda-kernel-inspect toolkit                what toolkit discovery finds, and why
  cuda-kernel-inspect toolkit install [--dir DIR] [--with curand,cublas,cutlass]
                                        install NVIDIA's nvcc 13.0 wheels (per user by default),
                                        and the headers and libraries named";

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let command = args.first().map(|a| a.to_string_lossy().into_owned());
    let rest = args.get(1..).unwrap_or_default();
    let result = match command.as_deref() {
        Some("fatbin") => fatbin::run(rest),
        Some("binary") => binary::run(rest),
        Some("build") => build_cmd::run(rest),
        Some("decls") => decls::run(rest),
        Some("toolkit") => toolkit_cmd::run(rest),
        Some("-h" | "--help" | "help") => Ok(format!("{USAGE}\n")),
        Some(other) => Err(format!("unknown subcommand `{other}`\n{USAGE}")),
        None => Err(USAGE.to_owned()),
    };
    match result {
        Ok(text) => emit(&text),
        Err(message) => {
            eprintln!("cuda-kernel-inspect: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The arguments shared by the subcommands: one path and an optional `--json`.
pub(crate) struct Args {
    /// The file to read.
    pub(crate) path: PathBuf,
    /// Print JSON instead of text.
    pub(crate) json: bool,
}

impl Args {
    /// Parses `PATH [--json]` in any order.
    pub(crate) fn parse(args: &[OsString], what: &str) -> Result<Args, String> {
        let mut path = None;
        let mut json = false;
        for arg in args {
            if arg == "--json" {
                json = true;
            } else if arg.to_string_lossy().starts_with('-') {
                return Err(format!(
                    "unknown option `{}`\n{USAGE}",
                    arg.to_string_lossy()
                ));
            } else if path.replace(PathBuf::from(arg)).is_some() {
                return Err(format!("expected one {what}\n{USAGE}"));
            }
        }
        let path = path.ok_or_else(|| format!("missing {what}\n{USAGE}"))?;
        Ok(Args { path, json })
    }

    /// The whole file.
    pub(crate) fn read(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.path).map_err(|e| format!("cannot read `{}`: {e}", self.path.display()))
    }
}

/// A report as pretty JSON, newline-terminated.
pub(crate) fn to_json(value: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(value)
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}

/// Writes the output; a closed pipe (`| head`) is not an error.
fn emit(text: &str) -> ExitCode {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cuda-kernel-inspect: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}
