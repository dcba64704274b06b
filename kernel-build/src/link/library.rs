//! Finding and opening one of NVIDIA's shared libraries beside nvcc, and the errors that
//! say what is missing and how to install it.

use crate::env::{self, Reporting};
use crate::error::LinkLibraryError;
use cuda_kernel_objects::native::Library;
use std::path::{Path, PathBuf};

/// What a build needs from one library.
pub(crate) struct LibrarySpec {
    /// Its name in messages (`nvJitLink`).
    pub name: &'static str,
    /// File names to look for, preferred first.
    pub files: &'static [&'static str],
    /// The variable naming the file explicitly (none for a library the build only reports).
    pub env: Option<env::Var>,
    /// The pip wheel providing it.
    pub wheel: &'static str,
}

/// An opened library and where it came from.
pub(crate) struct Opened {
    pub lib: Library,
    pub path: PathBuf,
}

/// Opens `spec` from the environment's override or from the toolkit `nvcc` belongs to.
pub(crate) fn open(
    spec: &LibrarySpec,
    nvcc: &Path,
    needed_for: &str,
    reporting: Reporting,
) -> Result<Opened, LinkLibraryError> {
    let path = locate(spec, nvcc, needed_for, reporting)?;
    // Loading runs the library's initialisers; these are NVIDIA's own libraries from the
    // toolkit the build already runs nvcc from (or the file the user named).
    let lib = Library::open(spec.name, &[&path]).map_err(|e| LinkLibraryError::Unusable {
        library: spec.name,
        path: path.clone(),
        detail: e.detail().to_owned(),
    })?;
    Ok(Opened { lib, path })
}

/// nvJitLink: device linking of relocatable code and LTO-IR.
pub(super) const NVJITLINK: LibrarySpec = LibrarySpec {
    name: "nvJitLink",
    files: &["libnvJitLink.so.13", "libnvJitLink.so"],
    env: Some(crate::env::Var::NVJITLINK),
    wheel: "nvidia-nvjitlink==13.0.*",
};

/// nvFatbin: the module's fatbin assembled from images.
pub(super) const NVFATBIN: LibrarySpec = LibrarySpec {
    name: "nvFatbin",
    files: &["libnvfatbin.so.13", "libnvfatbin.so"],
    env: Some(crate::env::Var::NVFATBIN),
    wheel: "nvidia-nvfatbin==13.0.*",
};

/// NVRTC: what the runtime compiles with; the build only says where it is.
const NVRTC: LibrarySpec = LibrarySpec {
    name: "NVRTC",
    files: &["libnvrtc.so.13", "libnvrtc.so"],
    env: None,
    wheel: "nvidia-cuda-nvrtc==13.0.*",
};

/// The libraries beside the toolkit `nvcc` belongs to that the build (nvJitLink, nvFatbin)
/// and the runtime (NVRTC) use, each with the file found, if any.
pub fn companion_libraries(nvcc: &Path) -> Vec<(&'static str, Option<PathBuf>)> {
    [&NVJITLINK, &NVFATBIN, &NVRTC]
        .into_iter()
        .map(|spec| (spec.name, find(spec, nvcc, &mut Vec::new())))
        .collect()
}

/// Where `spec`'s library is: the file its variable names, or the first found beside
/// `nvcc`; an error listing where it looked and how to install it.
pub(crate) fn locate(
    spec: &LibrarySpec,
    nvcc: &Path,
    needed_for: &str,
    reporting: Reporting,
) -> Result<PathBuf, LinkLibraryError> {
    let mut tried = Vec::new();
    match spec.env.and_then(|v| env::var(v, reporting)) {
        Some(p) => Ok(PathBuf::from(p)),
        None => find(spec, nvcc, &mut tried).ok_or_else(|| LinkLibraryError::NotFound {
            library: spec.name,
            needed_for: needed_for.to_owned(),
            tried,
            wheel: spec.wheel,
            env: spec.env.map_or("", env::Var::name),
        }),
    }
}

/// The library folders of the toolkit that `nvcc` belongs to (`<root>/bin/nvcc`); for an
/// nvcc that is not in a toolkit's `bin` (a wrapper script), those of the toolkit it
/// reports running from too.
pub(crate) fn library_dirs(nvcc: &Path) -> Vec<PathBuf> {
    let roots = crate::toolkit::toolkit_roots(nvcc);
    let mut dirs = Vec::new();
    for root in roots {
        for sub in [
            "lib",
            "lib64",
            "targets/x86_64-linux/lib",
            "targets/sbsa-linux/lib",
        ] {
            let d = root.join(sub);
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs
}

fn find(spec: &LibrarySpec, nvcc: &Path, tried: &mut Vec<String>) -> Option<PathBuf> {
    for dir in library_dirs(nvcc) {
        for file in spec.files {
            let p = dir.join(file);
            if p.is_file() {
                return Some(p);
            }
        }
        tried.push(format!("{} (no {})", dir.display(), spec.files.join(", ")));
    }
    None
}

/// Reads a symbol as a function pointer of type `T`.
///
/// # Safety
/// `T` must be the function's true signature.
pub(crate) unsafe fn function<T: Copy>(
    opened: &Opened,
    library: &'static str,
    name: &str,
) -> Result<T, LinkLibraryError> {
    // SAFETY: the caller vouches for the signature; the pointer is used only while `opened`
    // (kept by the wrapper) is alive.
    unsafe { opened.lib.function::<T>(name) }.map_err(|e| LinkLibraryError::Unusable {
        library,
        path: opened.path.clone(),
        detail: format!(
            "no function `{name}` ({}); a CUDA 13 release of {library} is needed",
            e.detail()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_beside_nvcc_are_searched_and_reported() {
        let spec = LibrarySpec {
            name: "nvJitLink",
            files: &["libnvJitLink.so.13"],
            env: Some(crate::env::TEST_UNSET),
            wheel: "nvidia-nvjitlink==13.0.*",
        };
        let dir = tempfile::tempdir().unwrap();
        let nvcc = dir.path().join("bin/nvcc");
        let err = open(&spec, &nvcc, "device linking (rdc)", Reporting::Silent)
            .err()
            .unwrap();
        let text = err.to_string();
        assert!(text.contains("device linking (rdc)"), "{text}");
        assert!(
            text.contains(&dir.path().join("lib").display().to_string()),
            "{text}"
        );
        assert!(text.contains("lib64"), "{text}");
        assert!(
            text.contains("pip install nvidia-nvjitlink==13.0.*"),
            "{text}"
        );
    }

    #[test]
    fn companion_libraries_are_found_beside_nvcc() {
        let root = tempfile::tempdir().unwrap();
        for dir in ["bin", "nvvm", "lib", "lib64"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let nvcc = root.path().join("bin/nvcc");
        std::fs::write(&nvcc, "").unwrap();
        std::fs::write(root.path().join("lib64/libnvJitLink.so.13"), "").unwrap();
        std::fs::write(root.path().join("lib/libnvrtc.so"), "").unwrap();
        assert_eq!(
            companion_libraries(&nvcc),
            [
                (
                    "nvJitLink",
                    Some(root.path().join("lib64/libnvJitLink.so.13"))
                ),
                ("nvFatbin", None),
                ("NVRTC", Some(root.path().join("lib/libnvrtc.so"))),
            ]
        );
    }
}
