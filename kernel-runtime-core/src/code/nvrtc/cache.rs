//! The disk cache of run-time compilations: one file per compilation, named by its key.
//!
//! An entry is written to a temporary file in the same folder and renamed into place, so a
//! reader (this process or another) sees a whole entry or none. Each entry carries a blake3
//! hash of its body: a truncated or altered file is detected on read, removed, and compiled
//! again.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::code::object_code::CodeKind;
use crate::env;

const MAGIC: &[u8; 8] = b"KRTNVRC1";
const HEADER: usize = 8 + 4 + 4 + 8 + 32;

/// Where (and whether) a program's compilations are cached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum CacheChoice {
    /// `KERNEL_RUNTIME_CACHE_DIR`, else `$XDG_CACHE_HOME/kernel-runtime`, else
    /// `~/.cache/kernel-runtime`; off under `KERNEL_RUNTIME_NO_CACHE=1`.
    #[default]
    Default,
    /// This folder.
    Dir(PathBuf),
    /// No cache.
    Off,
}

/// A cached compilation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub kind: CodeKind,
    pub code: Vec<u8>,
    pub symbols: Vec<(String, String)>,
}

/// The cache folder.
#[derive(Clone, Debug)]
pub(crate) struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// The cache `choice` names, or `None` when it is off or no folder is known.
    pub(crate) fn open(choice: &CacheChoice) -> Option<DiskCache> {
        let dir = match choice {
            CacheChoice::Off => return None,
            CacheChoice::Dir(d) => d.clone(),
            CacheChoice::Default => {
                if env::flag("KERNEL_RUNTIME_NO_CACHE") {
                    return None;
                }
                default_dir()?
            }
        };
        Some(DiskCache { dir })
    }

    /// The file of `key` (a hex digest).
    pub(crate) fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join("nvrtc")
            .join(&key[..2])
            .join(format!("{key}.entry"))
    }

    /// The entry under `key`, if there is a whole one; a damaged one is removed.
    pub(crate) fn get(&self, key: &str) -> Option<Entry> {
        let path = self.path(key);
        let bytes = std::fs::read(&path).ok()?;
        match decode(&bytes) {
            Some(e) => Some(e),
            None => {
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Stores `entry` under `key`: staged beside its place, then renamed into it.
    pub(crate) fn put(&self, key: &str, entry: &Entry) -> std::io::Result<()> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let path = self.path(key);
        let dir = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(dir)?;
        let staged = dir.join(format!(
            ".{key}.{}.{}.tmp",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let written = std::fs::File::create(&staged)
            .and_then(|mut f| f.write_all(&encode(entry)))
            .and_then(|()| std::fs::rename(&staged, &path));
        if written.is_err() {
            let _ = std::fs::remove_file(&staged);
        }
        written
    }
}

/// `$XDG_CACHE_HOME/kernel-runtime`, or `$HOME/.cache/kernel-runtime`.
fn default_dir() -> Option<PathBuf> {
    if let Some(d) = env::var_os("KERNEL_RUNTIME_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(x) = env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("kernel-runtime"));
    }
    env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kernel-runtime"))
}

fn kind_byte(kind: CodeKind) -> u8 {
    match kind {
        CodeKind::Cubin => 0,
        CodeKind::Ptx => 1,
        _ => 2,
    }
}

/// The entry's bytes: header (magic, kind, symbol count, code length, body hash), body
/// (symbols, code).
fn encode(entry: &Entry) -> Vec<u8> {
    let mut body = Vec::with_capacity(entry.code.len() + 64);
    for (expr, symbol) in &entry.symbols {
        for s in [expr, symbol] {
            body.extend_from_slice(&u32::try_from(s.len()).unwrap_or(0).to_le_bytes());
            body.extend_from_slice(s.as_bytes());
        }
    }
    body.extend_from_slice(&entry.code);
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[kind_byte(entry.kind), 0, 0, 0]);
    let n = u32::try_from(entry.symbols.len()).unwrap_or(0);
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(entry.code.len() as u64).to_le_bytes());
    out.extend_from_slice(blake3::hash(&body).as_bytes());
    out.extend_from_slice(&body);
    out
}

/// Reads an entry; `None` for anything but a whole, unaltered one.
fn decode(bytes: &[u8]) -> Option<Entry> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return None;
    }
    let kind = match bytes[8] {
        0 => CodeKind::Cubin,
        1 => CodeKind::Ptx,
        2 => CodeKind::LtoIr,
        _ => return None,
    };
    let n = u32::from_le_bytes(bytes[12..16].try_into().ok()?) as usize;
    let code_len = usize::try_from(u64::from_le_bytes(bytes[16..24].try_into().ok()?)).ok()?;
    let body = &bytes[HEADER..];
    if blake3::hash(body).as_bytes() != &bytes[24..56] || code_len > body.len() {
        return None;
    }
    let mut at = 0;
    let mut string = || -> Option<String> {
        let len = u32::from_le_bytes(body.get(at..at + 4)?.try_into().ok()?) as usize;
        let s = std::str::from_utf8(body.get(at + 4..at + 4 + len)?).ok()?;
        at += 4 + len;
        Some(s.to_owned())
    };
    let mut symbols = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        let expr = string()?;
        let symbol = string()?;
        symbols.push((expr, symbol));
    }
    if body.len() - at != code_len {
        return None;
    }
    Some(Entry {
        kind,
        code: body[at..].to_vec(),
        symbols,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            kind: CodeKind::Cubin,
            code: (0..=255u8).cycle().take(3000).collect(),
            symbols: vec![("axpy<float>".into(), "_Z4axpyIfEvT_PKS0_PS0_i".into())],
        }
    }

    #[test]
    fn entries_round_trip() {
        let e = entry();
        assert_eq!(decode(&encode(&e)), Some(e));
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_rejected() {
        let bytes = encode(&entry());
        for len in 0..bytes.len() {
            assert_eq!(decode(&bytes[..len]), None, "truncated to {len}");
        }
        for i in (0..bytes.len()).step_by(7) {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            assert_eq!(decode(&b), None, "byte {i} flipped");
        }
    }

    #[test]
    fn a_damaged_file_is_removed_and_misses() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(&CacheChoice::Dir(dir.path().to_owned())).unwrap();
        let key = "ab".repeat(32);
        cache.put(&key, &entry()).unwrap();
        assert_eq!(cache.get(&key), Some(entry()));
        let path = cache.path(&key);
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len - 10)
            .unwrap();
        assert_eq!(cache.get(&key), None);
        assert!(!path.exists(), "the damaged entry is evicted");
        let staged: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert!(staged.is_empty(), "no staged file is left behind");
    }

    #[test]
    fn off_means_no_cache() {
        assert!(DiskCache::open(&CacheChoice::Off).is_none());
    }
}
