//! The environment variables the runtime reads, read in one place.
//!
//! | variable | effect |
//! |---|---|
//! | `KERNEL_NCCL_LIBRARY` | the NCCL library (`libnccl.so.2`) collectives use, instead of the one the system's loader finds (the `nccl` feature) |
//! | `KERNEL_NVRTC_LIBRARY` | the NVRTC library (`libnvrtc.so.13`) to use when the system's loader finds none |
//! | `KERNEL_RUNTIME_CACHE_DIR` | where run-time compilations are cached (default `$XDG_CACHE_HOME/kernel-runtime`, else `~/.cache/kernel-runtime`) |
//! | `KERNEL_RUNTIME_NO_CACHE` | `1`: compile at run time without the disk cache |
//! | `XDG_CACHE_HOME`, `HOME` | the default cache location, and the per-user wheels of `cuda-kernel-inspect toolkit install` |

use std::ffi::OsString;

/// The value of `name`, if set and not empty.
#[allow(
    clippy::disallowed_methods,
    reason = "the runtime's documented variables are read here, and only here"
)]
pub(crate) fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// Whether `name` is set to a true value (`1`, `true`, `yes`, `on`).
pub(crate) fn flag(name: &str) -> bool {
    var_os(name).is_some_and(|v| {
        matches!(
            v.to_string_lossy().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}
