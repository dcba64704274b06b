//! The content-addressed build cache.
//!
//! ```text
//! $KERNEL_BUILD_CACHE_DIR (default $XDG_CACHE_HOME/kernel-build or ~/.cache/kernel-build)
//! ├── v1/
//! │   ├── objects/<key>/           one compiled file, or the joined module of several files;
//! │   │                            never modified once in place
//! │   │   ├── module.fatbin
//! │   │   └── module.json          model, targets, toolkit, fatbin hash
//! │   ├── manifests/<key>.json     direct-mode entries: inputs → dependencies → object key
//! │   ├── toolkits/<key>.json      nvcc probe results (version, supported targets)
//! │   ├── sources/<hash>.cu        inline macro sources, so nvcc sees a stable path
//! │   └── tmp/                     staging for write-then-rename
//! ```
//!
//! An object's key hashes what decides the compiled output: the preprocessed source
//! (so headers count), the flags, the targets, the nvcc version and this format's
//! version. Finding that key needs a preprocessor run, so a manifest keyed by the raw
//! inputs (source bytes, options, nvcc identity) remembers every file the source
//! included with its size, modification time and hash: when none changed, the object
//! is used without running nvcc at all.
//!
//! A module of several files has one object per file (so an edit recompiles that file only;
//! its key hashes the device-side preprocessed text of each target instead of the host
//! side's) and one for the joined module, keyed by how the files are joined, the targets
//! and every file's object key.
//!
//! Every file is written to `tmp/` first and renamed into place, so a reader never sees
//! a half-written entry, and objects are checked against their recorded hash when read.
//! Two processes building the same module both succeed: the first rename wins and the
//! other uses the entry already in place. A cache that cannot be written is not an
//! error: the build goes on without it and says so in a warning.

use crate::env::{self, Reporting};
use serde::{Serialize, de::DeserializeOwned};
use std::path::{Path, PathBuf};

/// Bumped whenever the layout or the meaning of entries changes. Keys also hold the
/// crate's version and a fingerprint of its sources (`build.rs`): a newer front end never
/// reuses what an older one read.
pub(crate) const FORMAT_VERSION: &str = "kernel-build-cache-v6";

/// A cache directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// The cache the environment asks for: `None` under `KERNEL_BUILD_NO_CACHE=1`, else
    /// `KERNEL_BUILD_CACHE_DIR`, `$XDG_CACHE_HOME/kernel-build`, `$HOME/.cache/kernel-build`.
    pub fn locate(reporting: Reporting) -> Option<Cache> {
        if env::flag(crate::env::Var::NO_CACHE, reporting) {
            return None;
        }
        let base = env::var(crate::env::Var::CACHE_DIR, reporting)
            .map(PathBuf::from)
            .or_else(|| {
                env::var(crate::env::Var::XDG_CACHE_HOME, reporting)
                    .map(|d| PathBuf::from(d).join("kernel-build"))
                    .or_else(|| {
                        env::var(crate::env::Var::HOME, reporting)
                            .map(|h| PathBuf::from(h).join(".cache").join("kernel-build"))
                    })
            })?;
        Some(Cache::at(base))
    }

    /// A cache rooted at `dir` (created on first write).
    pub fn at(dir: impl AsRef<Path>) -> Cache {
        Cache {
            root: dir.as_ref().join("v1"),
        }
    }

    /// The versioned root of the cache.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub(crate) fn object_dir(&self, key: &str) -> PathBuf {
        self.root.join("objects").join(key)
    }

    fn json_path(&self, kind: &str, key: &str) -> PathBuf {
        self.root.join(kind).join(format!("{key}.json"))
    }

    /// Reads a JSON entry; a missing or unreadable entry is a miss.
    pub(crate) fn read_json<T: DeserializeOwned>(&self, kind: &str, key: &str) -> Option<T> {
        let bytes = std::fs::read(self.json_path(kind, key)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Writes a JSON entry atomically; returns false when the cache is not writable.
    pub(crate) fn write_json<T: Serialize>(&self, kind: &str, key: &str, value: &T) -> bool {
        let Ok(bytes) = serde_json::to_vec_pretty(value) else {
            return false;
        };
        self.write_file(&self.json_path(kind, key), &bytes).is_ok()
    }

    /// Writes `bytes` to `path` through a temporary file in the cache's `tmp/`.
    pub(crate) fn write_file(&self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        let mut tmp = self.staging_file()?;
        tmp.write_all(bytes)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }

    fn staging_file(&self) -> std::io::Result<tempfile::NamedTempFile> {
        let tmp = self.root.join("tmp");
        std::fs::create_dir_all(&tmp)?;
        tempfile::NamedTempFile::new_in(tmp)
    }

    /// A fresh staging directory inside the cache, to be filled and then [`Cache::publish`]ed.
    pub(crate) fn staging_dir(&self) -> std::io::Result<tempfile::TempDir> {
        let tmp = self.root.join("tmp");
        std::fs::create_dir_all(&tmp)?;
        tempfile::TempDir::with_prefix_in("object-", tmp)
    }

    /// Moves a filled staging directory to `objects/<key>`. If another process put the
    /// same object there first, theirs is kept (both are the same content) and ours dropped.
    pub(crate) fn publish(&self, staged: tempfile::TempDir, key: &str) -> std::io::Result<PathBuf> {
        let dest = self.object_dir(key);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let staged_path = staged.keep();
        match std::fs::rename(&staged_path, &dest) {
            Ok(()) => Ok(dest),
            Err(_) if dest.join("module.json").is_file() => {
                let _ = std::fs::remove_dir_all(&staged_path);
                Ok(dest)
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&staged_path);
                Err(e)
            }
        }
    }

    /// Removes an object that failed its integrity check, so it is rebuilt.
    pub(crate) fn evict(&self, key: &str) {
        let dir = self.object_dir(key);
        if let Ok(tmp) = self.staging_dir() {
            // Rename first so no reader sees a half-deleted entry.
            let doomed = tmp.path().join("evicted");
            if std::fs::rename(&dir, &doomed).is_ok() {
                return; // `tmp` is dropped and deletes it
            }
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A hasher for cache keys: every field is length-prefixed, so no two different
/// sequences of fields hash alike.
///
/// ```ignore
/// let mut k = KeyHasher::new("object");
/// k.field(b"sm_90");
/// let key = k.finish();
/// ```
#[derive(Clone)]
pub(crate) struct KeyHasher(blake3::Hasher);

impl KeyHasher {
    pub(crate) fn new(domain: &str) -> Self {
        let mut h = blake3::Hasher::new();
        h.update(FORMAT_VERSION.as_bytes());
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update(env!("KERNEL_BUILD_SOURCE_FINGERPRINT").as_bytes());
        let mut k = KeyHasher(h);
        k.field(domain.as_bytes());
        k
    }

    pub(crate) fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    pub(crate) fn finish(&self) -> String {
        self.0.finalize().to_hex().to_string()
    }
}

/// The hash of a file's contents, as hex.
pub(crate) fn hash_bytes(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_and_miss() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path());
        assert_eq!(c.read_json::<Vec<u32>>("manifests", "k"), None);
        assert!(c.write_json("manifests", "k", &vec![1u32, 2]));
        assert_eq!(c.read_json::<Vec<u32>>("manifests", "k"), Some(vec![1, 2]));
        assert!(
            std::fs::read_dir(c.root().join("tmp"))
                .unwrap()
                .next()
                .is_none()
        );
    }

    #[test]
    fn publish_keeps_the_first_object() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path());
        for content in ["first", "second"] {
            let s = c.staging_dir().unwrap();
            std::fs::write(s.path().join("module.json"), content).unwrap();
            c.publish(s, "abc").unwrap();
        }
        let kept = std::fs::read_to_string(c.object_dir("abc").join("module.json")).unwrap();
        assert_eq!(kept, "first");
        assert!(
            std::fs::read_dir(c.root().join("tmp"))
                .unwrap()
                .next()
                .is_none()
        );
    }

    #[test]
    fn evicted_object_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path());
        let s = c.staging_dir().unwrap();
        std::fs::write(s.path().join("module.json"), "x").unwrap();
        c.publish(s, "k").unwrap();
        c.evict("k");
        assert!(!c.object_dir("k").exists());
    }

    #[test]
    fn key_fields_are_delimited() {
        let a = KeyHasher::new("t").field(b"ab").field(b"c").finish();
        let b = KeyHasher::new("t").field(b"a").field(b"bc").finish();
        assert_ne!(a, b);
    }

    #[test]
    fn unwritable_cache_reports_false() {
        let c = Cache::at("/proc/kernel-build-cannot-write-here");
        assert!(!c.write_json("manifests", "k", &1u32));
    }

    #[test]
    fn a_cache_at_a_folder_is_rooted_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::at(dir.path());
        assert!(cache.root().starts_with(dir.path()));
    }

    #[test]
    fn a_cache_root_is_the_versioned_subfolder() {
        let cache = Cache::at("/tmp/my-cache");
        assert!(cache.root().ends_with("v1"));
    }

    #[test]
    fn the_located_cache_follows_the_environment() {
        let located = Cache::locate(Reporting::Silent);
        if env::flag(env::Var::NO_CACHE, Reporting::Silent) {
            assert_eq!(located, None);
        } else if let Some(dir) = env::var(env::Var::CACHE_DIR, Reporting::Silent) {
            assert_eq!(located, Some(Cache::at(dir)));
        } else if let Some(cache) = located {
            assert!(
                cache.root().ends_with("kernel-build/v1"),
                "{}",
                cache.root().display()
            );
        }
    }
}
