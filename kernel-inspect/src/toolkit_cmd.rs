//! `kernel-inspect toolkit [install [--dir DIR]]`: what toolkit discovery finds and why, and
//! installing NVIDIA's nvcc wheels where it looks.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;

use kernel_build::__private::toolkit::{DiscoverOptions, Toolkit, install, user_toolkit_dir};

/// Runs `toolkit` or `toolkit install`.
pub(crate) fn run(args: &[OsString]) -> Result<String, String> {
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match words.first().map(String::as_str) {
        None => report(),
        Some("install") => {
            let dir = match words.get(1..).unwrap_or_default() {
                [] => user_toolkit_dir()
                    .ok_or("neither XDG_CACHE_HOME nor HOME is set: give --dir")?,
                [flag, dir] if flag == "--dir" => PathBuf::from(dir),
                _ => return Err("usage: kernel-inspect toolkit install [--dir DIR]".to_owned()),
            };
            let done = install(&dir, &mut |line| println!("{line}")).map_err(|e| e.to_string())?;
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
            "unknown `toolkit` argument `{other}`; usage: kernel-inspect toolkit [install [--dir DIR]]"
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
    for (name, file) in kernel_build::__private::link::companion_libraries(tk.nvcc()) {
        let at = file.map_or_else(
            || "not found beside nvcc".to_owned(),
            |f| f.display().to_string(),
        );
        let _ = writeln!(out, "{name:<9} {at}");
    }
    if let Some(dir) = user_toolkit_dir() {
        let _ = writeln!(
            out,
            "per-user  {} (`kernel-inspect toolkit install` fills it)",
            dir.display()
        );
    }
    Ok(out)
}
