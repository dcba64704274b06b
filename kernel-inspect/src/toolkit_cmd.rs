//! `cuda-kernel-inspect toolkit [install [--dir DIR] [--with LIB,...] [--linkable]]`: what
//! toolkit discovery finds and why, and installing NVIDIA's nvcc wheels where it looks.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::install::install_with;
use crate::linkable::{self, make_linkable};
use cuda_kernel_build::__private::{DiscoverOptions, LIBRARIES, Toolkit, user_toolkit_dir};

/// The options of `cuda-kernel-inspect toolkit`.
#[derive(clap::Args)]
pub(crate) struct ToolkitArgs {
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Install NVIDIA's nvcc 13.0 wheels (per user by default), and the headers and
    /// libraries named; kept when already there.
    Install {
        /// The folder to install into (default: the per-user one that discovery searches).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Libraries to add beside nvcc, comma-separated.
        #[arg(
            long,
            value_name = "LIB,...",
            value_delimiter = ',',
            value_parser = clap::builder::PossibleValuesParser::new(LIBRARIES.map(|l| l.0)),
        )]
        with: Vec<String>,
        /// Also lay the folder out for crates that link the CUDA libraries (candle, cudarc's
        /// `dynamic-linking`): unversioned link names, a driver stub for linking only, and
        /// `link-env.sh` to source before such a build. Kept by later installs.
        #[arg(long)]
        linkable: bool,
    },
}

/// Runs `toolkit` or `toolkit install`.
pub(crate) fn run(args: &ToolkitArgs) -> Result<String, String> {
    let Some(Action::Install {
        dir,
        with,
        linkable,
    }) = &args.action
    else {
        return report();
    };
    let dir = match dir {
        Some(d) => d.clone(),
        None => user_toolkit_dir().ok_or("neither XDG_CACHE_HOME nor HOME is set: give --dir")?,
    };
    let stamp = dir.join(".installed");
    let stamped = |dir: &std::path::Path| {
        std::fs::read_to_string(dir.join(".installed"))
            .is_ok_and(|s| s.lines().any(|l| l.trim() == linkable::STAMP_LINE))
    };
    // A linkable install stays linkable when libraries are added later.
    let linkable = *linkable || stamped(&dir);
    let with: Vec<&str> = with.iter().map(String::as_str).collect();
    let done = install_with(&dir, &with, &mut |line| println!("{line}"), true)
        .map_err(|e| e.to_string())?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} nvcc at {}",
        if done.already_installed {
            "already installed:"
        } else {
            "installed:"
        },
        done.nvcc.display()
    );
    if linkable {
        let made = make_linkable(&dir).map_err(|e| e.to_string())?;
        if !stamped(&dir) {
            let mut text = std::fs::read_to_string(&stamp).map_err(|e| e.to_string())?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(linkable::STAMP_LINE);
            text.push('\n');
            std::fs::write(&stamp, text).map_err(|e| e.to_string())?;
        }
        let _ = writeln!(
            out,
            "linkable: {} and the driver stub lib/stubs/libcuda.so in {}\n\
             for crates that link the CUDA libraries (candle): . {}",
            made.names.join(", "),
            made.home.display(),
            made.env_file.display()
        );
    }
    out.push_str(&report()?);
    Ok(out)
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
    let _ = match tk.runtime_header() {
        Some(h) => writeln!(out, "headers   {}", h.display()),
        None => writeln!(
            out,
            "headers   cuda_runtime.h not found in this nvcc's toolkit: every compile will fail \
             (point NVCC or CUDA_PATH at a whole toolkit, or run `cuda-kernel-inspect toolkit install`)"
        ),
    };
    for (name, file) in cuda_kernel_build::__private::companion_libraries(tk.nvcc()) {
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
