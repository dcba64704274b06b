//! Where nvcc is looked for, in order, and what was found at each place.
//!
//! 1. an explicit setting (`Build::nvcc`);
//! 2. `NVCC`;
//! 3. `CUDA_PATH`, then `CUDA_HOME`;
//! 4. `nvcc` on `PATH`;
//! 5. `/usr/local/cuda`;
//! 6. NVIDIA's pip wheels in the project-local folder (`KERNEL_CUDA_TOOLKIT_DIR`, else
//!    `.cuda-toolkit` in the crate directory or a parent);
//! 7. the wheels in the per-user folder `cuda-kernel-inspect toolkit install` fills
//!    (`$XDG_CACHE_HOME/kernel-build/cuda-toolkit`, else `~/.cache/kernel-build/cuda-toolkit`);
//! 8. the wheels in the site-packages of the `python3` on `PATH`.
//!
//! Settings the user made on purpose (1 and 2) are authoritative: when they name
//! something that is not an executable, discovery stops with an error instead of
//! silently using another nvcc.

use super::FoundVia;
use crate::env::{self, Reporting};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{LazyLock, Mutex};

/// Subfolders of a wheel installation (or a site-packages folder) that hold nvcc.
const WHEEL_BIN_DIRS: [&str; 3] = ["nvidia/cu13/bin", "nvidia/cu12/bin", "nvidia/cuda_nvcc/bin"];

/// The result of a search: the nvcc found, or every place tried.
pub(crate) enum Search {
    Found(PathBuf, FoundVia),
    NotFound { tried: Vec<String> },
}

pub(crate) fn find_nvcc(
    explicit: Option<&Path>,
    reporting: Reporting,
    search_from: &[PathBuf],
) -> Search {
    let mut tried = Vec::new();
    if let Some(p) = explicit {
        if is_executable(p) {
            return Search::Found(through_links(p.to_path_buf()), FoundVia::Explicit);
        }
        tried.push(format!(
            "builder setting: `{}` is not an executable file",
            p.display()
        ));
        return Search::NotFound { tried };
    }
    if let Some(p) = env::var(crate::env::Var::NVCC, reporting).map(PathBuf::from) {
        if let Some(found) = resolve_program(&p) {
            return Search::Found(through_links(found), FoundVia::NvccVar);
        }
        tried.push(format!("NVCC=`{}`: not an executable file", p.display()));
        return Search::NotFound { tried };
    }
    for v in [env::Var::CUDA_PATH, env::Var::CUDA_HOME] {
        let var = v.name();
        match env::var(v, reporting).map(PathBuf::from) {
            Some(root) => {
                let p = root.join("bin").join("nvcc");
                if is_executable(&p) {
                    return Search::Found(p, FoundVia::CudaPath(var));
                }
                tried.push(format!("{var}=`{}`: no `bin/nvcc` there", root.display()));
            }
            None => tried.push(format!("{var}: not set")),
        }
    }
    match env::path_var().and_then(|path| which::which_in("nvcc", Some(path), ".").ok()) {
        Some(p) => return Search::Found(through_links(p), FoundVia::Path),
        None => tried.push("PATH: no `nvcc`".to_string()),
    }
    let usr_local = Path::new("/usr/local/cuda/bin/nvcc");
    if is_executable(usr_local) {
        return Search::Found(usr_local.to_path_buf(), FoundVia::UsrLocalCuda);
    }
    tried.push(format!("`{}`: not there", usr_local.display()));

    let local_dirs = match env::var(crate::env::Var::TOOLKIT_DIR, reporting) {
        Some(d) => vec![PathBuf::from(d)],
        None => project_local_dirs(search_from),
    };
    for dir in &local_dirs {
        if let Some(p) = nvcc_in_wheel_dir(dir) {
            return Search::Found(p, FoundVia::ProjectWheels);
        }
    }
    tried.push(match local_dirs.as_slice() {
        [] => {
            "project-local wheels: no `.cuda-toolkit` folder in the crate directory or its parents"
                .to_string()
        }
        dirs => format!(
            "project-local wheels: no nvcc under {}",
            dirs.iter()
                .map(|d| format!("`{}`", d.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    });

    match user_toolkit_dir_reported(reporting) {
        Some(dir) => match nvcc_in_wheel_dir(&dir) {
            Some(p) => return Search::Found(p, FoundVia::UserWheels),
            None => tried.push(format!(
                "per-user wheels: no nvcc under `{}`",
                dir.display()
            )),
        },
        None => tried.push("per-user wheels: neither XDG_CACHE_HOME nor HOME is set".to_owned()),
    }

    let sites = python_site_dirs();
    for dir in &sites {
        if let Some(p) = nvcc_in_wheel_dir(dir) {
            return Search::Found(p, FoundVia::PythonWheels);
        }
    }
    tried.push(if sites.is_empty() {
        "python3 site-packages: no python3 on PATH (or it failed to run)".to_string()
    } else {
        format!(
            "python3 site-packages: no `nvidia/cu13/bin/nvcc` under {} folders",
            sites.len()
        )
    });
    Search::NotFound { tried }
}

/// `.cuda-toolkit` folders in each start directory or any of its parents, nearest first.
fn project_local_dirs(search_from: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for start in search_from {
        for dir in start.ancestors() {
            let candidate = dir.join(".cuda-toolkit");
            if candidate.is_dir() && !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

fn nvcc_in_wheel_dir(dir: &Path) -> Option<PathBuf> {
    WHEEL_BIN_DIRS
        .iter()
        .map(|sub| dir.join(sub).join("nvcc"))
        .find(|p| is_executable(p))
}

/// The site-packages folders of the `python3` on `PATH`.
fn python_site_dirs() -> Vec<PathBuf> {
    let Some(path) = env::path_var() else {
        return Vec::new();
    };
    let Ok(python) = which::which_in("python3", Some(path), ".") else {
        return Vec::new();
    };
    let script = "import site, sysconfig\n\
                  dirs = list(getattr(site, 'getsitepackages', lambda: [])())\n\
                  dirs.append(site.getusersitepackages())\n\
                  dirs.append(sysconfig.get_paths()['purelib'])\n\
                  print('\\n'.join(dirs))";
    match Command::new(python).arg("-c").arg(script).output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect(),
        _ => Vec::new(),
    }
}

/// nvcc finds its headers and tools relative to the path it was started by: a symbolic
/// link to it (`~/bin/nvcc -> /opt/cuda/bin/nvcc`) starts it without them
/// (`cuda_runtime.h: No such file`), so the link is followed to the real file.
fn through_links(p: PathBuf) -> PathBuf {
    if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::canonicalize(&p).unwrap_or(p)
    } else {
        p
    }
}

/// The root of the toolkit `nvcc` runs from, as nvcc itself reports it (`TOP` in
/// `nvcc -dryrun`): for an nvcc that is a wrapper script elsewhere (a ccache- or
/// sccache-style setup), whose companions (nvJitLink, nvFatbin, the CUDA runtime, library
/// headers) are not beside it. Asked once per nvcc per process.
pub(crate) fn reported_root(nvcc: &Path) -> Option<PathBuf> {
    ASKED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(nvcc.to_path_buf())
        .or_insert_with(|| {
            let out = Command::new(nvcc)
                .args(["-dryrun", "-E", "-x", "cu", "/dev/null"])
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&out.stderr).into_owned()
                + &String::from_utf8_lossy(&out.stdout);
            root_in_dryrun(&text)
        })
        .clone()
}

/// The roots of [`reported_root`], by nvcc, asked or read from the probe cache.
static ASKED: LazyLock<Mutex<HashMap<PathBuf, Option<PathBuf>>>> = LazyLock::new(Mutex::default);

/// Records the root a cached probe of `nvcc` found, so that it is not asked again.
pub(crate) fn remember_root(nvcc: &Path, root: Option<PathBuf>) {
    ASKED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(nvcc.to_path_buf(), root);
}

/// Whether `nvcc` sits in a toolkit's `bin` (the toolkit's `nvvm` beside that `bin`).
pub(crate) fn in_toolkit(nvcc: &Path) -> bool {
    nvcc.parent()
        .and_then(Path::parent)
        .is_some_and(|root| root.join("nvvm").is_dir())
}

/// The toolkit roots `nvcc` belongs to: the folder above its `bin`, the one above the
/// `bin` of the file a link leads to, and, when neither is a toolkit (a wrapper script),
/// the root nvcc reports ([`reported_root`]).
pub(crate) fn toolkit_roots(nvcc: &Path) -> Vec<PathBuf> {
    let real = std::fs::canonicalize(nvcc).unwrap_or_else(|_| nvcc.to_path_buf());
    let mut roots: Vec<PathBuf> = Vec::new();
    for n in [nvcc, real.as_path()] {
        if let Some(root) = n.parent().and_then(Path::parent)
            && !roots.iter().any(|r| r == root)
        {
            roots.push(root.to_path_buf());
        }
    }
    if !roots.iter().any(|r| r.join("nvvm").is_dir())
        && let Some(top) = reported_root(nvcc)
    {
        roots.push(top);
    }
    roots
}

/// `TOP` of an `nvcc -dryrun` listing, normalised (`.../bin/..` is `...`).
fn root_in_dryrun(text: &str) -> Option<PathBuf> {
    let top = text.lines().find_map(|l| l.strip_prefix("#$ TOP="))?.trim();
    let top = Path::new(top);
    let root = std::fs::canonicalize(top).unwrap_or_else(|_| top.to_path_buf());
    root.is_dir().then_some(root)
}

/// A path with a separator is taken as is; a bare name is searched on `PATH`.
fn resolve_program(p: &Path) -> Option<PathBuf> {
    if p.components().count() > 1 || p.is_absolute() {
        return is_executable(p).then(|| p.to_path_buf());
    }
    which::which_in(p, env::path_var(), ".").ok()
}

pub(crate) fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The per-user folder discovery searches after the project-local one:
/// `$XDG_CACHE_HOME/kernel-build/cuda-toolkit`, else `~/.cache/kernel-build/cuda-toolkit`.
pub fn user_toolkit_dir() -> Option<PathBuf> {
    user_toolkit_dir_reported(Reporting::Silent)
}

pub(crate) fn user_toolkit_dir_reported(reporting: Reporting) -> Option<PathBuf> {
    let base = match env::var(crate::env::Var::XDG_CACHE_HOME, reporting) {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(env::var(crate::env::Var::HOME, reporting)?).join(".cache"),
    };
    Some(base.join("kernel-build").join("cuda-toolkit"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_toolkit_dir_is_in_the_kernel_build_cache() {
        if let Some(dir) = user_toolkit_dir() {
            assert!(dir.ends_with("kernel-build/cuda-toolkit"));
        }
    }

    #[test]
    fn the_root_is_read_from_a_dryrun_listing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        let listing = format!(
            "#$ _NVVM_BRANCH_=nvvm\n#$ TOP={}/bin/..\n#$ CICC_PATH=x\n",
            dir.path().display()
        );
        assert_eq!(
            root_in_dryrun(&listing),
            Some(std::fs::canonicalize(dir.path()).unwrap())
        );
        assert_eq!(root_in_dryrun("#$ PATH=/bin\n"), None);
    }

    #[test]
    fn a_link_to_nvcc_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real-nvcc");
        std::fs::write(&real, "").unwrap();
        let link = dir.path().join("nvcc");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(through_links(link), std::fs::canonicalize(&real).unwrap());
        assert_eq!(through_links(real.clone()), real);
    }

    #[test]
    fn explicit_setting_that_is_missing_stops_the_search() {
        match find_nvcc(Some(Path::new("/nonexistent/nvcc")), Reporting::Silent, &[]) {
            Search::NotFound { tried } => {
                assert_eq!(tried.len(), 1);
                assert!(tried[0].contains("/nonexistent/nvcc"), "{tried:?}");
            }
            Search::Found(p, _) => panic!("found {}", p.display()),
        }
    }

    #[test]
    fn wheel_layout_is_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("nvidia/cu13/bin");
        std::fs::create_dir_all(&bin).unwrap();
        assert_eq!(nvcc_in_wheel_dir(dir.path()), None);
        let nvcc = bin.join("nvcc");
        std::fs::write(&nvcc, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(nvcc_in_wheel_dir(dir.path()), Some(nvcc));
    }

    #[test]
    fn project_local_dir_found_in_a_parent() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".cuda-toolkit")).unwrap();
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(
            project_local_dirs(&[deep]),
            vec![dir.path().join(".cuda-toolkit")]
        );
    }
}
