//! Where the workspace is, and the cargo running the tests: for tests that read the
//! repository's files or build crates of their own with cargo.

use std::path::{Path, PathBuf};

/// The workspace's root folder.
///
/// ```
/// assert!(kernel_test_support::workspace_root().join("Cargo.lock").is_file());
/// ```
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
}

/// The cargo running the tests (`CARGO`), else `cargo` from `PATH`.
///
/// ```
/// assert!(!kernel_test_support::cargo().as_os_str().is_empty());
/// ```
pub fn cargo() -> PathBuf {
    #[allow(clippy::disallowed_methods, reason = "the cargo running the tests")]
    let cargo = std::env::var_os("CARGO");
    cargo.map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}
