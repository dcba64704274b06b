//! Native libraries opened at run time: the one way the build library and the runtime load
//! NVIDIA's shared libraries (the driver, NVRTC, NCCL, nvJitLink, nvFatbin).
//!
//! A [`Library`] is opened from its candidates (file names the system loader searches, or
//! paths), in order, the first that loads winning; each entry point is then resolved once with
//! [`Library::function`] and kept as a function pointer beside the library. A library that
//! does not load, or a symbol it lacks, is a [`LoadError`] naming the library, the symbol and
//! every place tried, never a panic. Each library's own module (its raw prototypes and the
//! checked calls over them) is the only caller; the rest of a crate calls that module.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

/// A native library, open until dropped (or for the life of the process, after
/// [`keep_loaded`](Library::keep_loaded)).
///
/// ```no_run
/// use cuda_kernel_objects::native::Library;
/// let lib = Library::open("the NVIDIA driver", &["libcuda.so.1", "libcuda.so"])?;
/// // SAFETY: the prototype of `cuInit` in cuda.h.
/// let init: unsafe extern "C" fn(u32) -> i32 = unsafe { lib.function("cuInit")? };
/// println!("cuInit returned {}", unsafe { init(0) });
/// # Ok::<(), cuda_kernel_objects::native::LoadError>(())
/// ```
pub struct Library {
    lib: libloading::Library,
    library: String,
    path: PathBuf,
}

impl fmt::Debug for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Library")
            .field("library", &self.library)
            .field("path", &self.path)
            .finish()
    }
}

/// A library that could not be used: none of its candidates loaded, or it lacks an entry
/// point.
///
/// ```
/// use cuda_kernel_objects::native::{Library, LoadError};
/// let err = Library::open("NCCL", &["libkernel-no-such-library.so.0"]).unwrap_err();
/// assert!(matches!(err, LoadError::NotLoaded { .. }));
/// assert!(err.to_string().contains("libkernel-no-such-library.so.0"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// No candidate loaded.
    #[error("cannot load {library}: {}", tried_text(.tried))]
    NotLoaded {
        /// The library's name in messages (`NVRTC`, `nvJitLink`).
        library: String,
        /// Each candidate tried, with the loader's reason.
        tried: Vec<(PathBuf, String)>,
    },
    /// The library loaded but has no such symbol.
    #[error("{library} `{}` has no function `{symbol}` ({detail})", .path.display())]
    MissingSymbol {
        /// The library's name in messages.
        library: String,
        /// The file it was loaded from (or the name the loader found).
        path: PathBuf,
        /// The entry point.
        symbol: String,
        /// The loader's reason.
        detail: String,
    },
}

fn tried_text(tried: &[(PathBuf, String)]) -> String {
    if tried.is_empty() {
        return "no file to try".to_owned();
    }
    tried
        .iter()
        .map(|(p, why)| format!("{} ({why})", p.display()))
        .collect::<Vec<_>>()
        .join(", ")
}

impl LoadError {
    /// The loader's reason for the last candidate tried (for [`LoadError::NotLoaded`]), or
    /// for the missing symbol.
    ///
    /// ```
    /// use cuda_kernel_objects::native::Library;
    /// let err = Library::open("NCCL", &["/nonexistent/libnccl.so.2"]).unwrap_err();
    /// assert!(!err.detail().is_empty());
    /// ```
    pub fn detail(&self) -> &str {
        match self {
            LoadError::NotLoaded { tried, .. } => tried.last().map_or("", |(_, why)| why),
            LoadError::MissingSymbol { detail, .. } => detail,
        }
    }
}

impl Library {
    /// Opens `library` (its name in messages) from the first of `candidates` that loads: a
    /// bare file name is searched where the system loader searches, a path is opened as it
    /// is.
    ///
    /// Loading runs the library's initialisers: the candidates must name the library meant
    /// (NVIDIA's own, or the file a user named for it).
    ///
    /// # Errors
    ///
    /// [`LoadError::NotLoaded`] with every candidate and the loader's reason.
    ///
    /// ```
    /// use cuda_kernel_objects::native::Library;
    /// assert!(Library::open("nothing", &[] as &[&str]).is_err());
    /// ```
    pub fn open<C: AsRef<OsStr>>(library: &str, candidates: &[C]) -> Result<Library, LoadError> {
        let mut tried = Vec::new();
        for candidate in candidates {
            let path = PathBuf::from(candidate.as_ref());
            // SAFETY: loading runs the library's initialisers; the caller names the library
            // it means (see above).
            match unsafe { libloading::Library::new(candidate.as_ref()) } {
                Ok(lib) => {
                    return Ok(Library {
                        lib,
                        library: library.to_owned(),
                        path,
                    });
                }
                Err(e) => tried.push((path, e.to_string())),
            }
        }
        Err(LoadError::NotLoaded {
            library: library.to_owned(),
            tried,
        })
    }

    /// The entry point `symbol`, as a function pointer of type `T`.
    ///
    /// # Safety
    ///
    /// `T` must be the function's true type, and the pointer must not be called after the
    /// library is dropped (keep both in one value, or [`keep_loaded`](Self::keep_loaded)).
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`] naming the library, its file and the symbol.
    ///
    /// ```no_run
    /// use cuda_kernel_objects::native::Library;
    /// let lib = Library::open("NVRTC", &["libnvrtc.so.13"])?;
    /// // SAFETY: the prototype of `nvrtcVersion` in nvrtc.h.
    /// let version: unsafe extern "C" fn(*mut i32, *mut i32) -> i32 =
    ///     unsafe { lib.function("nvrtcVersion")? };
    /// # Ok::<(), cuda_kernel_objects::native::LoadError>(())
    /// ```
    pub unsafe fn function<T: Copy>(&self, symbol: &str) -> Result<T, LoadError> {
        // SAFETY: the caller vouches for the type and for the pointer's lifetime.
        unsafe { self.lib.get::<T>(symbol) }
            .map(|s| *s)
            .map_err(|e| LoadError::MissingSymbol {
                library: self.library.clone(),
                path: self.path.clone(),
                symbol: symbol.to_owned(),
                detail: e.to_string(),
            })
    }

    /// The candidate it was opened from.
    ///
    /// ```no_run
    /// let lib = cuda_kernel_objects::native::Library::open("NCCL", &["libnccl.so.2"])?;
    /// assert_eq!(lib.path(), std::path::Path::new("libnccl.so.2"));
    /// # Ok::<(), cuda_kernel_objects::native::LoadError>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the library loaded for the life of the process, so that a later open of the
    /// same library by its name (another binding's, or the library's own open of a
    /// companion) finds this one.
    ///
    /// ```no_run
    /// let lib = cuda_kernel_objects::native::Library::open("NVRTC", &["/opt/cuda/lib64/libnvrtc.so.13"])?;
    /// lib.keep_loaded();
    /// # Ok::<(), cuda_kernel_objects::native::LoadError>(())
    /// ```
    pub fn keep_loaded(self) {
        std::mem::forget(self.lib);
    }
}

/// Whether `symbol` resolves in the program and the libraries it was linked with (or that
/// were loaded globally); libraries opened privately are not searched. Only the address is
/// looked up: nothing is called.
///
/// ```
/// // The C library is part of every program.
/// assert!(cuda_kernel_objects::native::in_process("malloc"));
/// assert!(!cuda_kernel_objects::native::in_process("kernel_no_such_symbol"));
/// ```
pub fn in_process(symbol: &str) -> bool {
    #[cfg(unix)]
    {
        let this = libloading::os::unix::Library::this();
        // SAFETY: only the symbol's address is looked up; nothing is called through it.
        unsafe { this.get::<*const ()>(symbol) }.is_ok()
    }
    #[cfg(windows)]
    {
        libloading::os::windows::Library::this().is_ok_and(|this| {
            // SAFETY: as above.
            unsafe { this.get::<*const ()>(symbol) }.is_ok()
        })
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = symbol;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_candidate_is_named_with_its_reason() {
        let err = Library::open("NVRTC", &["/nonexistent/a.so", "/nonexistent/b.so"]).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("cannot load NVRTC: "), "{text}");
        assert!(
            text.contains("/nonexistent/a.so (") && text.contains("/nonexistent/b.so ("),
            "{text}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_missing_symbol_names_the_library_and_the_symbol() {
        // The C library is installed wherever tests run.
        let lib = Library::open("the C library", &["libc.so.6"]).unwrap();
        // SAFETY: `strlen`'s prototype; the pointer is not called.
        let found: Result<unsafe extern "C" fn(*const i8) -> usize, _> =
            unsafe { lib.function("strlen") };
        assert!(found.is_ok());
        // SAFETY: never resolved.
        let missing: Result<unsafe extern "C" fn(), _> =
            unsafe { lib.function("kernel_no_such_symbol") };
        let err = missing.unwrap_err();
        assert!(matches!(
            &err,
            LoadError::MissingSymbol { library, symbol, .. }
                if library == "the C library" && symbol == "kernel_no_such_symbol"
        ));
        assert!(
            err.to_string()
                .starts_with("the C library `libc.so.6` has no function `kernel_no_such_symbol` ("),
            "{err}"
        );
    }
}
