//! `cuda-kernel-inspect toolkit [install [--dir DIR] [--with LIB,...]]`: what toolkit discovery finds and why, and
//! installing NVIDIA's nvcc wheels where it looks.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;

use cuda_kernel_build::__private::toolkit::{
    DiscoverOptions, Toolkit, install_with, user_toolkit_dir,
};

/// Runs `toolkit` or `toolkit install`.
pub(crate) fn run(args: &[OsString]) -> Result<String, String> {
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match words.first().map(String::as_str) {
        None => report(),
        Some("install") => {
            const USAGE: &str = "usage: cuda-kernel-inspect toolkit install [--dir DIR] [--with LIB,...] (LIB: curand, cublas, cutlass)";
            let mut dir = None;
            let mut with: Vec<String> = Vec::new();
            let mut rest = words.get(1..).unwrap_or_default().iter();
            while let Some(w) = rest.next() {
                match w.as_str() {
                    "--dir" => dir = Some(PathBuf::from(rest.next().ok_or(USAGE)?)),
                    "--with" => with.extend(
                        rest.next()
                            .ok_or(USAGE)?
                            .split(',')
                            .filter(|s| !s.is_empty())
                            .map(str::to_owned),
                    ),
                    _ => return Err(USAGE.to_owned()),
                }
            }
            let dir = match dir {
                Some(d) => d,
                None => user_toolkit_dir()
                    .ok_or("neither XDG_CACHE_HOME nor HOME is set: give --dir")?,
            };
            let with: Vec<&str> = with.iter().map(String::as_str).collect();
            let done = install_with(&dir, &with, &mut |line| println!("{line}"))
                .map_err(|e| e.to_string())?;
            let mut out = String::new();
            let _ = writeln!(
                out,
                "{} nvcc at {}",
                if done.already_installed {
                    "kept"
                } else {
                    "installed"
                },
                done.nvcc.display()
            );
            out.push_str(&report()?);
            Ok(out)
        }
        Some(other) => Err(format!(
            "unknown `toolkit` argument `{other}`; usage: cuda-kernel-inspect toolkit [install [--dir DIR] [--with LIB,...]]"
        )),
    }
}

/// What discovery finds from the current folder, and the libraries beside it.
fn report() -> Result<String, String> {
    let tk = Toolkit::discover_with(&DiscoverOptions::default()).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "nvcc      {} (found via {})",
        tk.nvcc().display(),
        tk.found_via()
    );
    let _ = writeln!(out, "release   {}", tk.version());
    let _ = writeln!(out, "targets   {}", tk.supported_sass().join(" "));
    let defaults: Vec<String> = tk
        .default_targets()
        .iter()
        .map(ToString::to_string)
        .collect();
    let _ = writeln!(out, "default   {}", defaults.join(" "));
    for (name, file) in cuda_kernel_build::__private::link::companion_libraries(tk.nvcc()) {
        let at = file.map_or_else(
            || "not found beside nvcc".to_owned(),
            |f| f.display().to_string(),
        );
        let _ = writeln!(out, "{name:<9} {at}");
    }
    if let Some(dir) = user_toolkit_dir() {
        let _ = writeln!(
            out,
            "per-user  {} (`cuda-kernel-inspect toolkit install` fills it)",
            dir.display()
        );
    }
    Ok(out)
}
