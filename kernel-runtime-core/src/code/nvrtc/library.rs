//! Finding NVRTC without a panic, once per process.
//!
//! Under dynamic loading (the default) cudarc opens `libnvrtc` by name on its first NVRTC call
//! and panics when no name loads; under dynamic or static linking NVRTC is part of the program.
//! The runtime therefore looks first, in this order: NVRTC already in the program, the names
//! cudarc tries (the system's loader: `LD_LIBRARY_PATH`, the loader cache), then `KERNEL_NVRTC_LIBRARY`, then the toolkit's usual
//! places (`$CUDA_PATH`, `$CUDA_HOME`, `/usr/local/cuda`), then the per-user wheels of
//! `cuda-kernel-inspect toolkit install` (`$XDG_CACHE_HOME/kernel-build/cuda-toolkit`, else
//! `~/.cache/kernel-build/cuda-toolkit`). A library found by path is loaded
//! for good together with its `libnvrtc-builtins` (which NVRTC itself opens by name), so the
//! names cudarc asks for afterwards resolve to it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::api;
use crate::driver::load::reachable;
use crate::env;
use crate::error::Error;

/// Compilations NVRTC ran in this process (cache hits run none).
static COMPILES: AtomicU64 = AtomicU64::new(0);

/// The NVRTC this process uses: where it came from, its release and the targets it compiles
/// for.
///
/// ```no_run
/// let nvrtc = cuda_kernel_runtime::Nvrtc::load()?;
/// println!("NVRTC {}.{} compiles for {:?}", nvrtc.version().0, nvrtc.version().1, nvrtc.archs());
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Debug)]
pub struct Nvrtc {
    version: (u32, u32),
    path: Option<PathBuf>,
    archs: Vec<u32>,
    include: Option<PathBuf>,
}

static LOADED: OnceLock<Result<Nvrtc, Vec<String>>> = OnceLock::new();

impl Nvrtc {
    /// The process's NVRTC, found as the module docs say on first use. A process keeps the
    /// first NVRTC it loads.
    ///
    /// # Errors
    ///
    /// [`Error::NoNvrtc`] (with every place tried) when none loads.
    ///
    /// ```no_run
    /// match cuda_kernel_runtime::Nvrtc::load() {
    ///     Ok(n) => println!("NVRTC {:?}", n.version()),
    ///     Err(e) => eprintln!("{e}"), // says how to install it
    /// }
    /// ```
    pub fn load() -> Result<&'static Nvrtc, Error> {
        Self::get(None)
    }

    /// The process's NVRTC, loading the library at `path` if none is loaded yet (a process
    /// keeps the first it loads: compare [`path`](Self::path) to know which).
    ///
    /// ```no_run
    /// let n = cuda_kernel_runtime::Nvrtc::load_from("/opt/cuda/lib64/libnvrtc.so.13")?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn load_from(path: impl AsRef<Path>) -> Result<&'static Nvrtc, Error> {
        Self::get(Some(path.as_ref()))
    }

    fn get(first: Option<&Path>) -> Result<&'static Nvrtc, Error> {
        match LOADED.get_or_init(|| find(first)) {
            Ok(n) => Ok(n),
            Err(tried) => Err(Error::NoNvrtc {
                tried: tried.clone(),
            }),
        }
    }

    /// NVRTC's release, e.g. `(13, 0)`.
    ///
    /// ```no_run
    /// assert!(cuda_kernel_runtime::Nvrtc::load()?.version().0 >= 12);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn version(&self) -> (u32, u32) {
        self.version
    }

    /// The library's file when it was loaded by path; `None` when the system's loader found
    /// it by name.
    ///
    /// ```no_run
    /// println!("{:?}", cuda_kernel_runtime::Nvrtc::load()?.path());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The architectures it compiles for, as numbers (`90` for `sm_90`).
    ///
    /// ```no_run
    /// assert!(cuda_kernel_runtime::Nvrtc::load()?.archs().contains(&90));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn archs(&self) -> &[u32] {
        &self.archs
    }

    /// The toolkit's header directory beside the library (`cuda_fp16.h`, ...), when there is
    /// one: programs include from it unless told not to.
    ///
    /// ```no_run
    /// println!("{:?}", cuda_kernel_runtime::Nvrtc::load()?.include_dir());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn include_dir(&self) -> Option<&Path> {
        self.include.as_deref()
    }

    /// How many compilations NVRTC has run in this process; a program served from the disk
    /// cache adds none.
    ///
    /// ```
    /// let before = cuda_kernel_runtime::Nvrtc::compilations();
    /// assert!(cuda_kernel_runtime::Nvrtc::compilations() >= before);
    /// ```
    pub fn compilations() -> u64 {
        COMPILES.load(Ordering::Relaxed)
    }

    pub(crate) fn count_compilation() {
        COMPILES.fetch_add(1, Ordering::Relaxed);
    }
}

/// Searches, loads, and reads the version and targets.
fn find(first: Option<&Path>) -> Result<Nvrtc, Vec<String>> {
    let mut tried = Vec::new();
    let mut path = None;
    let by_name = match first {
        Some(_) => false,
        None => reachable("nvrtcVersion", &names()),
    };
    if by_name {
        tried.push("the system loader's libnvrtc".to_owned());
    } else {
        let mut files: Vec<PathBuf> = first.map(Path::to_path_buf).into_iter().collect();
        if first.is_none() {
            tried.push("libnvrtc by name (LD_LIBRARY_PATH, the loader cache): not found".into());
            files.extend(env::var_os("KERNEL_NVRTC_LIBRARY").map(PathBuf::from));
            files.extend(toolkit_dirs().into_iter().map(|d| d.join("libnvrtc.so.13")));
            files.extend(user_wheels().map(|d| d.join("nvidia/cu13/lib/libnvrtc.so.13")));
        }
        for file in files {
            match api::preload(&file) {
                Ok(()) => {
                    path = Some(file);
                    break;
                }
                Err(why) => tried.push(format!("{}: {why}", file.display())),
            }
        }
        // The library is now open by path: cudarc's open by name must find it.
        if path.is_none() || !reachable("nvrtcVersion", &names()) {
            return Err(tried);
        }
    }
    let version = version().map_err(|e| vec![e])?;
    let archs = supported_archs().map_err(|e| vec![e])?;
    let include = include_dir(path.as_deref());
    Ok(Nvrtc {
        version,
        path,
        archs,
        include,
    })
}

/// The names NVRTC is installed under that cudarc 0.19 tries too: the bindings' release first
/// (`libnvrtc.so.13` for the CUDA 13 bindings, `nvrtc64_130_0.dll`), then the older releases
/// cudarc also accepts, then the development link.
fn names() -> Vec<String> {
    let major = cudarc::driver::sys::CUDA_VERSION / 1000;
    if cfg!(windows) {
        return vec![format!("nvrtc64_{major}0_0.dll")];
    }
    let mut names = vec![format!("libnvrtc.so.{major}")];
    names.extend(
        [12, 11]
            .into_iter()
            .filter(|&m| m != major)
            .map(|m| format!("libnvrtc.so.{m}")),
    );
    names.push("libnvrtc.so".to_owned());
    names
}

/// `$CUDA_PATH/lib64`, `$CUDA_HOME/lib64`, `/usr/local/cuda`'s library folders.
fn toolkit_dirs() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["CUDA_PATH", "CUDA_HOME"]
        .iter()
        .filter_map(|v| env::var_os(v).map(PathBuf::from))
        .collect();
    roots.push(PathBuf::from("/usr/local/cuda"));
    let mut dirs = Vec::new();
    for root in roots {
        dirs.push(root.join("lib64"));
        dirs.push(root.join("targets/x86_64-linux/lib"));
        dirs.push(root.join("targets/sbsa-linux/lib"));
    }
    dirs
}

/// The per-user wheels folder of `cuda-kernel-inspect toolkit install`.
fn user_wheels() -> Option<PathBuf> {
    let base = match env::var_os("XDG_CACHE_HOME") {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(env::var_os("HOME")?).join(".cache"),
    };
    Some(base.join("kernel-build/cuda-toolkit"))
}

fn version() -> Result<(u32, u32), String> {
    // SAFETY: the library is loaded (checked by the caller).
    let (major, minor) =
        unsafe { api::version() }.map_err(|f| format!("{} failed: {:?}", f.call, f.code))?;
    Ok((
        u32::try_from(major).unwrap_or(0),
        u32::try_from(minor).unwrap_or(0),
    ))
}

fn supported_archs() -> Result<Vec<u32>, String> {
    // SAFETY: the library is loaded (checked by the caller).
    let archs = unsafe { api::supported_archs() }
        .map_err(|f| format!("{} failed: {:?}", f.call, f.code))?;
    Ok(archs
        .into_iter()
        .filter_map(|a| u32::try_from(a).ok())
        .collect())
}

/// The header directory beside the library, or the toolkit's.
fn include_dir(lib: Option<&Path>) -> Option<PathBuf> {
    let beside = lib
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(|root| root.join("include"));
    let mut candidates: Vec<PathBuf> = beside.into_iter().collect();
    candidates.extend(
        toolkit_dirs()
            .iter()
            .filter_map(|d| d.parent().map(|r| r.join("include"))),
    );
    candidates
        .into_iter()
        .find(|d| d.join("cuda_fp16.h").is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bindings_release_is_tried_first_and_once() {
        let names = names();
        let major = cudarc::driver::sys::CUDA_VERSION / 1000;
        assert!(names[0].contains(&format!("{major}")), "{names:?}");
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }
}
