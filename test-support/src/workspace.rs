//! Where the workspace is, the cargo running the tests, and the target folder of the crates
//! they build outside the workspace: for tests that read the repository's files or build
//! crates of their own with cargo.

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

/// The target folder shared by every crate that a test builds outside the workspace with
/// [`cargo`] (`target/outside-crates` under [`workspace_root`], kept between runs).
///
/// One folder for all of them, so that what they have in common (syn, the build library,
/// the runtime and cudarc where their features agree, and the pages of those) is compiled
/// once per run of the test command instead of once per test: Cargo keeps builds of other
/// features side by side, and builds again what a changed variable touches (one a build
/// script watches, `RUSTFLAGS`). The folder's lock makes two builds into it take turns.
/// Never the workspace's own `target/debug`: the `cargo test` running the tests holds its
/// lock while they run. The crates built into it need names of their own, since their pages
/// and binaries lie under `doc/<name>` and `debug/<name>`.
///
/// ```
/// let target = kernel_test_support::outside_target();
/// assert!(target.starts_with(kernel_test_support::workspace_root().join("target")));
/// assert_ne!(target, kernel_test_support::workspace_root().join("target/debug"));
/// ```
pub fn outside_target() -> PathBuf {
    workspace_root().join("target/outside-crates")
}
