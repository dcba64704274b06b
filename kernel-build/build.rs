//! Fingerprints this crate's sources for the build cache's keys: a changed front end,
//! check or code generator never reuses what an older one stored, even at the same version
//! (a path or git dependency).

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    println!("cargo:rerun-if-changed={}", src.display());
    let mut list = Vec::new();
    files(&src, &mut list);
    list.sort();
    let mut h = DefaultHasher::new();
    for path in &list {
        if let (Ok(rel), Ok(bytes)) = (path.strip_prefix(&src), std::fs::read(path)) {
            h.write(rel.to_string_lossy().as_bytes());
            h.write_usize(bytes.len());
            h.write(&bytes);
        }
    }
    println!(
        "cargo:rustc-env=KERNEL_BUILD_SOURCE_FINGERPRINT={:016x}",
        h.finish()
    );
    // The target this crate runs on: host code compiled outside a build script (no `TARGET`
    // from Cargo) is compiled for it.
    #[allow(clippy::disallowed_methods)] // Cargo-provided to build scripts, never tracked
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=KERNEL_BUILD_RUNS_ON={target}");
}
