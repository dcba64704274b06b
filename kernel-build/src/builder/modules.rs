//! The modules this run of the build script built, in `$OUT_DIR/kernel-build/modules.txt`:
//! `include_kernels!` and `host_functions!` accept only these, so that a module removed
//! from `build.rs` is an error naming the ones that exist rather than a leftover file of an
//! earlier build that works on one machine and fails on a clean one.
//!
//! Each build script is a fresh process: the first module it builds into an `OUT_DIR`
//! starts the list again, the next ones are added to it.

use std::path::{Path, PathBuf};
#[cfg(feature = "build")]
use std::{
    collections::HashSet,
    sync::{LazyLock, Mutex},
};

#[cfg(feature = "build")]
use crate::error::Error;

/// The list's file under `out_dir`.
pub(crate) fn list_path(out_dir: &Path) -> PathBuf {
    out_dir.join("kernel-build").join("modules.txt")
}

// Writing the list is the build script's side (the `build` feature); the macros only read.

/// The `OUT_DIR`s this process has started a list in.
#[cfg(feature = "build")]
static STARTED: LazyLock<Mutex<HashSet<PathBuf>>> = LazyLock::new(Mutex::default);

#[cfg(feature = "build")]
/// Records that this run built `name` into `out_dir`.
pub(crate) fn record(out_dir: &Path, name: &str) -> Result<(), Error> {
    let first = STARTED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(out_dir.to_path_buf());
    record_in(out_dir, name, first)
}

#[cfg(feature = "build")]
/// [`record`], told whether this is the run's first module in `out_dir`.
fn record_in(out_dir: &Path, name: &str, first: bool) -> Result<(), Error> {
    let path = list_path(out_dir);
    let mut names = if first { Vec::new() } else { read(out_dir) };
    if !names.iter().any(|n| n == name) {
        names.push(name.to_owned());
    }
    let mut text = names.join("\n");
    text.push('\n');
    super::outputs::write_if_changed(&path, text.as_bytes())
}

/// The modules the last run of the build script built into `out_dir` (none when it built
/// none).
pub(crate) fn read(out_dir: &Path) -> Vec<String> {
    std::fs::read_to_string(list_path(out_dir))
        .map(|t| {
            t.lines()
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(all(test, feature = "build"))]
mod tests {
    use super::*;

    #[test]
    fn a_new_run_forgets_the_modules_of_the_last() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("kernel-build")).unwrap();
        record_in(dir.path(), "old", true).unwrap();
        record_in(dir.path(), "new", false).unwrap();
        record_in(dir.path(), "new", false).unwrap();
        assert_eq!(read(dir.path()), ["old", "new"]);
        // build.rs no longer builds `old`.
        record_in(dir.path(), "new", true).unwrap();
        assert_eq!(read(dir.path()), ["new"]);
        assert!(read(&dir.path().join("elsewhere")).is_empty());
    }
}
