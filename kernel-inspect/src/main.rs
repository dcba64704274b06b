//! `cuda-kernel-inspect`: what a fatbin, a CUDA source or a built binary holds, building a
//! module outside Cargo, and NVIDIA's nvcc wheels.
//!
//! ```text
//! cuda-kernel-inspect fatbin FILE [--json]   entries, kernels and layouts of a fatbin
//! cuda-kernel-inspect binary PATH [--json]   the fatbins embedded in an executable or object
//! cuda-kernel-inspect build FILE.cu... [OPTIONS]   build and verify a module outside Cargo
//! cuda-kernel-inspect decls FILE [--json] [-I DIR] [-D NAME=VALUE]   kernel declarations of a CUDA source
//! cuda-kernel-inspect toolkit                what toolkit discovery finds, and why
//! cuda-kernel-inspect tune export [--cache-dir DIR] [--into FILE] [--kernel NAME]...
//!                                              tuned choices as the table a program embeds
//! cuda-kernel-inspect tune variants FILE.kernels.json
//!                                              a module's declared variants, and what was left out
//! cuda-kernel-inspect toolkit install [--dir DIR] [--with curand,cublas,cutlass] [--linkable]
//!                                              NVIDIA's nvcc wheels (and libraries) into the per-user folder
//! ```
//!
//! Every subcommand has `--help`. The JSON output is described in `docs/INSPECT.md`.

mod args;
mod binary;
mod build_cmd;
mod decls;
mod editor_cmd;
mod fatbin;
mod install;
mod linkable;
mod report;
mod toolkit_cmd;
mod tune_cmd;

use args::FileArgs;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// What compiled CUDA code holds, builds outside Cargo, and NVIDIA's nvcc wheels.
#[derive(Parser)]
#[command(name = "cuda-kernel-inspect", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Entries, kernels and parameter layouts of a fatbin.
    Fatbin(FileArgs),
    /// The fatbins embedded in an executable, library or object file.
    Binary(FileArgs),
    /// Build and verify a module outside Cargo (several files form one module) and report its
    /// kernels (typed, with opaque parameters, by name only), targets and warnings.
    Build(build_cmd::BuildArgs),
    /// The kernel declarations the front end reads from a CUDA source.
    ///
    /// A kernel whose signature cannot be typed (an unknown type, a closure) is listed as
    /// untyped with the reason; like `build`, which embeds such a kernel and reaches it by
    /// name, this is not an error and the exit status stays 0. The status is 1 when the
    /// source cannot be read: a missing file, a malformed declaration, a failed nvcc run.
    Decls(decls::DeclArgs),
    /// What toolkit discovery finds and why; `install` installs NVIDIA's nvcc wheels.
    Toolkit(toolkit_cmd::ToolkitArgs),
    /// Where a crate's builds write the files for editors (`compile_commands.json`, the
    /// headers written from shared Rust types), and what is there.
    Editor(editor_cmd::EditorArgs),
    /// Tuned choices: `export` writes a tuning cache folder's choices as the table a program
    /// embeds, so that it times nothing where it is deployed; `variants` lists a module's
    /// declared variants from its `<name>.kernels.json`.
    Tune(tune_cmd::TuneArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Fatbin(args) => fatbin::run(args),
        Command::Binary(args) => binary::run(args),
        Command::Build(args) => build_cmd::run(args),
        Command::Decls(args) => decls::run(args),
        Command::Editor(args) => editor_cmd::run(args),
        Command::Toolkit(args) => toolkit_cmd::run(args),
        Command::Tune(args) => tune_cmd::run(args),
    };
    match result {
        Ok(text) => emit(&text),
        Err(message) => {
            eprintln!("cuda-kernel-inspect: {message}");
            ExitCode::FAILURE
        }
    }
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
