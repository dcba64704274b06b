//! The tuning cache on disk: one file per choice, under a folder per kernel and per (GPU
//! model, driver, module), named by a hash of the key.
//!
//! ```text
//! <dir>/<kernel>/<hash of gpu, cc, driver, module>/<hash of key>.entry
//! ```
//!
//! As in the NVRTC cache, an entry is written to a temporary file beside its place and renamed
//! into it, so a reader in this process or another sees a whole entry or none, and two
//! processes tuning the same key at once each leave a whole entry (the last rename wins).
//! Each entry ends with a checksum line (`cuda_kernel_objects::tuning::encode_entry`): a
//! damaged file is removed and the key timed again. A cache that cannot be written costs the
//! next process a timing run, nothing more.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cuda_kernel_objects::tuning::{Choice, decode_entry, encode_entry};

use crate::env;

/// Where (and whether) a tuner caches its choices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum CacheChoice {
    /// `KERNEL_TUNE_CACHE_DIR`, else `tune/` in the runtime's cache folder.
    #[default]
    Default,
    /// This folder.
    Dir(PathBuf),
    /// No cache.
    Off,
}

impl CacheChoice {
    /// The folder, or `None` when off or when no folder is known.
    pub(crate) fn dir(&self) -> Option<PathBuf> {
        match self {
            CacheChoice::Default => default_dir(),
            CacheChoice::Dir(d) => Some(d.clone()),
            CacheChoice::Off => None,
        }
    }
}

/// `KERNEL_TUNE_CACHE_DIR`, else `tune` in `KERNEL_RUNTIME_CACHE_DIR`, else in
/// `$XDG_CACHE_HOME/kernel-runtime`, else in `~/.cache/kernel-runtime`.
pub(crate) fn default_dir() -> Option<PathBuf> {
    if let Some(d) = env::var_os("KERNEL_TUNE_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    let runtime = if let Some(d) = env::var_os("KERNEL_RUNTIME_CACHE_DIR") {
        PathBuf::from(d)
    } else if let Some(x) = env::var_os("XDG_CACHE_HOME") {
        PathBuf::from(x).join("kernel-runtime")
    } else {
        PathBuf::from(env::var_os("HOME")?).join(".cache/kernel-runtime")
    };
    Some(runtime.join("tune"))
}

/// The file of the choice for `c`'s kernel, GPU model, driver, module and key.
pub(crate) fn path(dir: &Path, c: &Choice) -> PathBuf {
    let (major, minor) = c.compute_capability;
    let scope = blake3::Hasher::new()
        .update(c.gpu.as_bytes())
        .update(format!("\0{major}.{minor}\0").as_bytes())
        .update(c.driver.as_bytes())
        .update(b"\0")
        .update(c.module.as_bytes())
        .finalize();
    let key = blake3::hash(c.key.as_bytes());
    dir.join(folder_name(&c.kernel))
        .join(&scope.to_hex()[..16])
        .join(format!("{}.entry", &key.to_hex()[..32]))
}

/// The kernel's name as a folder name: letters, digits, `_` and `-` kept, others `_`.
fn folder_name(kernel: &str) -> String {
    kernel
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .collect()
}

/// The cached choice at `want`'s place (its variant and time are ignored), if a whole one is
/// there; a damaged file is removed.
pub(crate) fn get(dir: &Path, want: &Choice) -> Option<Choice> {
    let path = path(dir, want);
    let text = std::fs::read_to_string(&path).ok()?;
    match decode_entry(&text) {
        Some(c) if c.same_place(want) && c.driver == want.driver => Some(c),
        Some(_) => None,
        None => {
            let _ = std::fs::remove_file(&path);
            None
        }
    }
}

/// Stores `c`: staged beside its place, then renamed into it.
pub(crate) fn put(dir: &Path, c: &Choice) -> std::io::Result<()> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let path = path(dir, c);
    let parent = path.parent().unwrap_or(dir);
    std::fs::create_dir_all(parent)?;
    let staged = parent.join(format!(
        ".{}.{}.{}.tmp",
        path.file_stem().and_then(|s| s.to_str()).unwrap_or("entry"),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let written =
        std::fs::write(&staged, encode_entry(c)).and_then(|()| std::fs::rename(&staged, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&staged);
    }
    written
}

/// Every whole choice under `dir`, in no particular order; damaged or foreign files are
/// skipped (and staged files, which start with a dot).
pub(crate) fn read_all(dir: &Path) -> std::io::Result<Vec<Choice>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if d == dir => return Err(e),
            Err(_) => continue,
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "entry")
                && let Ok(text) = std::fs::read_to_string(&p)
                && let Some(c) = decode_entry(&text)
            {
                out.push(c);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(key: &str, variant: &str) -> Choice {
        Choice {
            kernel: "sum<float>".into(),
            gpu: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            driver: "13.0".into(),
            module: "0123456789abcdef".into(),
            key: key.into(),
            variant: variant.into(),
            nanos: 1_000,
        }
    }

    #[test]
    fn put_then_get_and_read_all() {
        let dir = tempfile::tempdir().unwrap();
        put(dir.path(), &choice("n=1", "a")).unwrap();
        put(dir.path(), &choice("n=2", "b")).unwrap();
        assert_eq!(get(dir.path(), &choice("n=1", "?")).unwrap().variant, "a");
        assert!(get(dir.path(), &choice("n=3", "?")).is_none());
        let other_driver = Choice {
            driver: "13.1".into(),
            ..choice("n=1", "?")
        };
        assert!(
            get(dir.path(), &other_driver).is_none(),
            "a new driver times again"
        );
        let mut all = read_all(dir.path()).unwrap();
        all.sort();
        assert_eq!(all.len(), 2);
        assert!(path(dir.path(), &all[0]).starts_with(dir.path().join("sum_float_")));
    }

    #[test]
    fn a_damaged_entry_is_removed_and_misses() {
        let dir = tempfile::tempdir().unwrap();
        let c = choice("n=1", "a");
        put(dir.path(), &c).unwrap();
        let p = path(dir.path(), &c);
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, text.replace("\ta\t", "\tz\t")).unwrap();
        assert!(get(dir.path(), &c).is_none());
        assert!(!p.exists());
    }

    #[test]
    fn threads_writing_one_entry_at_once_leave_a_whole_one() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|s| {
            for t in 0..8 {
                let d = dir.path();
                s.spawn(move || {
                    for i in 0..50 {
                        let v = format!("variant{t}_{i}");
                        put(d, &choice("n=1", &v)).unwrap();
                        let got = get(d, &choice("n=1", "?")).expect("a whole entry");
                        assert!(got.variant.starts_with("variant"), "{got:?}");
                    }
                });
            }
        });
        let files: Vec<_> =
            std::fs::read_dir(path(dir.path(), &choice("n=1", "a")).parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
        assert_eq!(files.len(), 1, "no staged file is left behind: {files:?}");
    }
}
