//! `cuda-kernel-inspect editor [DIR]`: where the builds of the crate in DIR (default: the
//! current folder) write the files for editors, and what is there: the compilation database
//! (`compile_commands.json`, one entry per `.cu` file compiled) and the headers written from
//! shared Rust types (`<package>/include/src/x.rs.cuh`).
//!
//! ```text
//! $ cuda-kernel-inspect editor
//! target/cuda-kernel-build/compile_commands.json: 2 files
//!   kernels/step.cu
//!   kernels/init.cu
//! target/cuda-kernel-build/particles/include (-I for editors):
//!   src/particles.rs.cuh
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use cuda_kernel_build::__private::editor_folder;

/// The options of `cuda-kernel-inspect editor`.
#[derive(clap::Args)]
pub(crate) struct EditorArgs {
    /// The crate's folder (default: the current one).
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Runs the subcommand: the report, or why there is none.
pub(crate) fn run(args: &EditorArgs) -> Result<String, String> {
    let dir = match &args.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    let folder = editor_folder(&dir).ok_or_else(|| {
        format!(
            "no Cargo target folder above `{}` (no `target/CACHEDIR.TAG`): build the crate \
             first, or set KERNEL_BUILD_EDITOR_DIR (or CARGO_TARGET_DIR) as the build had it",
            dir.display()
        )
    })?;
    let mut text = String::new();
    let database = folder.join("compile_commands.json");
    match std::fs::read(&database) {
        Ok(bytes) => {
            let entries: Vec<serde_json::Value> = serde_json::from_slice(&bytes).map_err(|e| {
                format!(
                    "`{}` is not a compilation database: {e}",
                    database.display()
                )
            })?;
            let _ = writeln!(text, "{}: {} files", database.display(), entries.len());
            for e in &entries {
                let _ = writeln!(text, "  {}", e["file"].as_str().unwrap_or("?"));
            }
        }
        Err(_) => {
            let _ = writeln!(
                text,
                "{}: not written yet (no build compiled a .cu file here)",
                database.display()
            );
        }
    }
    let mut packages: Vec<PathBuf> = std::fs::read_dir(&folder)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("include").is_dir())
                .collect()
        })
        .unwrap_or_default();
    packages.sort();
    for package in packages {
        let include = package.join("include");
        let _ = writeln!(text, "{} (-I for editors):", include.display());
        for header in files_below(&include) {
            let shown = header.strip_prefix(&include).unwrap_or(&header);
            let _ = writeln!(text, "  {}", shown.display());
        }
    }
    Ok(text)
}

/// Every file below `dir`, sorted.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
