//! `cuda-kernel-inspect toolkit install`: NVIDIA's CUDA 13.0 pip wheels (nvcc and what the
//! build and the runtime use beside it) into a folder discovery searches: the per-user folder
//! by default (`$XDG_CACHE_HOME/kernel-build/cuda-toolkit`, else
//! `~/.cache/kernel-build/cuda-toolkit`), so that a crate anywhere builds with no
//! configuration. Build scripts never install anything: only this command does.
//!
//! The wheels are installed into a temporary folder beside the destination and moved into
//! place, so an interrupted install never leaves a half toolkit where discovery would find it;
//! a stamp file records what was installed, so a second run only checks that nvcc runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel_build::__private::{LIBRARIES, WHEEL_VERSION, WHEELS};

/// Installing the wheels failed at one step.
#[derive(Debug, thiserror::Error)]
#[error("installing the CUDA toolkit wheels failed while {step}: {detail}")]
pub(crate) struct InstallError {
    /// What was being done (`pip install`).
    step: String,
    /// What went wrong (pip's output).
    detail: String,
}

impl InstallError {
    /// The error of `step`, with what went wrong.
    pub(crate) fn new(step: &str, detail: String) -> InstallError {
        InstallError {
            step: step.to_owned(),
            detail,
        }
    }
}

/// What [`install_with`] did.
#[derive(Clone, Debug)]
pub(crate) struct Installed {
    /// Its nvcc.
    pub nvcc: PathBuf,
    /// True when the same wheels were there already (nothing was downloaded).
    pub already_installed: bool,
}

/// Installs the wheels and the libraries named in `with` (see [`LIBRARIES`]) into `dir`
/// (idempotent: libraries installed before are kept). With `show_pip`, pip's own progress
/// (each wheel collected, download bars on a terminal) is shown as it comes.
///
/// # Errors
///
/// [`InstallError`] naming the step that failed (no python3, no pip, pip's output, or an
/// nvcc that does not run); a name that is not one of [`LIBRARIES`] is an error naming them.
pub(crate) fn install_with(
    dir: &Path,
    with: &[&str],
    log: &mut dyn FnMut(&str),
    show_pip: bool,
) -> Result<Installed, InstallError> {
    let fail = InstallError::new;
    for w in with {
        if !LIBRARIES.iter().any(|(name, _, _)| name == w) {
            let known: Vec<&str> = LIBRARIES.iter().map(|l| l.0).collect();
            return Err(fail(
                "reading --with",
                format!("unknown library `{w}`; known: {}", known.join(", ")),
            ));
        }
    }
    let stamp = dir.join(".installed");
    let stamped = std::fs::read_to_string(&stamp).unwrap_or_default();
    let (base, had) = read_stamp(&stamped);
    // Libraries installed before stay; the new ones join them.
    let mut libraries: Vec<&str> = LIBRARIES
        .iter()
        .map(|l| l.0)
        .filter(|name| had.contains(name) || with.contains(name))
        .collect();
    libraries.dedup();
    let want = stamp_text_with(&libraries);
    if base == stamp_text()
        && with.iter().all(|w| had.contains(w))
        && let Some(nvcc) = runs(dir)
    {
        return Ok(Installed {
            nvcc,
            already_installed: true,
        });
    }
    let python = which::which("python3")
        .map_err(|_| fail("finding python3", "no python3 on PATH".to_owned()))?;
    let pip_ok = Command::new(&python)
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !pip_ok {
        return Err(fail(
            "finding pip",
            format!(
                "`{} -m pip` does not run (try `python3 -m ensurepip`)",
                python.display()
            ),
        ));
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| fail("creating the folder", e.to_string()))?;
    let staging = tempfile::Builder::new()
        .prefix(".cuda-toolkit.tmp.")
        .tempdir_in(parent)
        .map_err(|e| fail("creating a staging folder", e.to_string()))?;
    let mut specs: Vec<String> = WHEELS
        .iter()
        .map(|w| format!("{w}=={WHEEL_VERSION}"))
        .collect();
    for (_, wheel, _) in LIBRARIES.iter().filter(|l| libraries.contains(&l.0)) {
        specs.push((*wheel).to_owned());
    }
    log(&format!(
        "installing {} into {}",
        specs.join(" "),
        dir.display()
    ));
    let mut pip = Command::new(&python);
    pip.args(["-m", "pip", "install", "--disable-pip-version-check"]);
    if show_pip {
        // pip's own lines and download bars, as they come; its errors are still captured.
        pip.arg("--progress-bar=on")
            .stdout(std::process::Stdio::inherit());
    } else {
        pip.arg("--quiet");
    }
    let out = pip
        .arg("--no-warn-script-location")
        // Every wheel is named: the libraries' Python dependencies (CUTLASS's code generator)
        // are not needed for their headers.
        .args(if libraries.is_empty() {
            None
        } else {
            Some("--no-deps")
        })
        .arg("--target")
        .arg(staging.path())
        .args(&specs)
        .output()
        .map_err(|e| fail("running pip", e.to_string()))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        return Err(fail("pip install", text));
    }
    let nvcc = runs(staging.path()).ok_or_else(|| {
        fail(
            "checking nvcc",
            "the wheels installed no nvcc that runs".to_owned(),
        )
    })?;
    drop(nvcc);
    std::fs::write(staging.path().join(".installed"), format!("{want}\n"))
        .map_err(|e| fail("writing the stamp", e.to_string()))?;
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .map_err(|e| fail("removing the old install", e.to_string()))?;
    }
    let kept = staging.keep();
    std::fs::rename(&kept, dir).map_err(|e| fail("moving into place", e.to_string()))?;
    let nvcc = runs(dir).ok_or_else(|| fail("checking nvcc", "nvcc does not run".to_owned()))?;
    Ok(Installed {
        nvcc,
        already_installed: false,
    })
}

/// What the stamp says for the current wheel list and version.
fn stamp_text() -> String {
    format!("{} =={WHEEL_VERSION}", WHEELS.join(" "))
}

/// The stamp for the wheels and `libraries`: the first line, then `with NAME` per library.
fn stamp_text_with(libraries: &[&str]) -> String {
    let mut s = stamp_text();
    for l in libraries {
        s.push_str("\nwith ");
        s.push_str(l);
    }
    s
}

/// The first line of a stamp, and the libraries it lists.
fn read_stamp(text: &str) -> (&str, Vec<&str>) {
    let mut lines = text.lines();
    let base = lines.next().unwrap_or_default().trim();
    let with = lines
        .filter_map(|l| l.trim().strip_prefix("with "))
        .collect();
    (base, with)
}

/// The folder's nvcc, when it runs.
fn runs(dir: &Path) -> Option<PathBuf> {
    ["nvidia/cu13/bin/nvcc", "nvidia/cu12/bin/nvcc"]
        .iter()
        .map(|sub| dir.join(sub))
        .find(|nvcc| {
            Command::new(nvcc)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_installs_the_same_wheels() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/install-cuda-toolkit.sh"
        );
        let Ok(script) = std::fs::read_to_string(path) else {
            println!("skipped: no {path} (a packaged crate)");
            return;
        };
        let line = script
            .lines()
            .find(|l| l.starts_with("packages=("))
            .expect("the script lists its packages");
        let listed: Vec<&str> = line
            .trim_start_matches("packages=(")
            .trim_end_matches(')')
            .split_whitespace()
            .collect();
        assert_eq!(listed, WHEELS);
        assert!(script.contains(&format!(
            "\"${{KERNEL_CUDA_WHEEL_VERSION:-{WHEEL_VERSION}}}\""
        )));
        assert_eq!(
            stamp_text(),
            format!("{} =={WHEEL_VERSION}", listed.join(" ")),
            "the script's stamp"
        );
    }

    #[test]
    fn a_stamped_folder_whose_nvcc_runs_is_not_installed_again() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("nvidia/cu13/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let nvcc = bin.join("nvcc");
        std::fs::write(
            &nvcc,
            "#!/bin/sh\necho 'Cuda compilation tools, release 13.0'\n",
        )
        .unwrap();
        std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join(".installed"), format!("{}\n", stamp_text())).unwrap();
        let mut lines = Vec::new();
        let done = install_with(dir.path(), &[], &mut |l| lines.push(l.to_owned()), false).unwrap();
        assert!(done.already_installed);
        assert_eq!(done.nvcc, nvcc);
        // Nothing to say but the result (the caller says it once).
        assert!(lines.is_empty(), "{lines:?}");
        // A library installed before is enough for a request of it; an unknown one is named.
        std::fs::write(
            dir.path().join(".installed"),
            format!("{}\n", stamp_text_with(&["cutlass"])),
        )
        .unwrap();
        let done = install_with(dir.path(), &["cutlass"], &mut |_| {}, false).unwrap();
        assert!(done.already_installed);
        let err = install_with(dir.path(), &["cudnn"], &mut |_| {}, false).unwrap_err();
        assert!(
            err.to_string()
                .contains("unknown library `cudnn`; known: curand, cublas, cutlass"),
            "{err}"
        );
    }

    #[test]
    fn stamps_list_their_libraries() {
        let text = stamp_text_with(&["curand", "cutlass"]);
        let (base, with) = read_stamp(&text);
        assert_eq!(base, stamp_text());
        assert_eq!(with, ["curand", "cutlass"]);
    }
}
