//! Reading and writing the pipeline's cache entries: objects (fatbin + model),
//! direct-mode manifests (dependency stamps), and staging for fresh builds.

use super::request::Source;
use crate::cache::{Cache, hash_bytes};
use crate::error::Error;
use crate::model::ModuleInfo;
use crate::model::built::BuiltModule;
use crate::model::request::ModuleRequest;
use cuda_kernel_objects::KernelImage;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `module.json` of an object.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ObjectMeta {
    pub info: ModuleInfo,
    pub targets: Vec<String>,
    pub toolkit_version: String,
    /// blake3 of `module.fatbin`, checked on every read.
    pub fatbin_hash: String,
    /// Every file the source included (absolute), for manifests.
    #[serde(with = "path_bytes::list")]
    pub deps: Vec<PathBuf>,
    pub warnings: Vec<String>,
    /// The files of a module of several.
    #[serde(default)]
    pub units: Vec<crate::model::built::Unit>,
    /// For one file of a device-linked module: `(compute_XY, offset, length)` of each
    /// virtual architecture's container inside `module.fatbin`.
    #[serde(default)]
    pub groups: Vec<(String, u64, u64)>,
}

/// A direct-mode manifest: when every dependency still matches its stamp, `object` is
/// the result.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Manifest {
    object: String,
    deps: Vec<Stamp>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Stamp {
    #[serde(with = "path_bytes")]
    path: PathBuf,
    size: u64,
    mtime_ns: u128,
    hash: String,
}

/// A usable object: its folder and metadata.
pub(crate) struct Entry {
    pub dir: PathBuf,
    pub meta: ObjectMeta,
    pub deps: Vec<PathBuf>,
    pub note: Option<String>,
}

impl Entry {
    pub(crate) fn into_built(self, req: &ModuleRequest, source: &Source) -> BuiltModule {
        let tracked = self.tracked_files(source);
        let mut warnings = self.meta.warnings.clone();
        warnings.extend(super::warnings::module_warnings(
            &req.name,
            &self.meta.info,
            &self.meta.targets,
        ));
        warnings.extend(self.note);
        BuiltModule {
            name: req.name.clone(),
            info: self.meta.info,
            fatbin_path: Some(self.dir.join("module.fatbin")),
            targets: self.meta.targets,
            toolkit_version: Some(self.meta.toolkit_version),
            tracked_files: tracked,
            warnings,
            units: self.meta.units,
            runtime_source: None,
            constants: Vec::new(),
            editor_files: Vec::new(),
            tuned: Vec::new(),
        }
    }

    /// The source file and every user header it included.
    pub(crate) fn tracked_files(&self, source: &Source) -> Vec<PathBuf> {
        let mut tracked: Vec<PathBuf> = source.tracked_source().into_iter().collect();
        for d in &self.meta.deps {
            if is_user_file(d, &source.user_dirs) && !tracked.contains(d) && *d != source.path {
                tracked.push(d.clone());
            }
        }
        tracked
    }
}

/// A header counts as the user's when it lies in one of the user's folders; system and
/// toolkit headers are left to the toolkit identity in the cache key.
fn is_user_file(path: &Path, user_dirs: &[PathBuf]) -> bool {
    user_dirs
        .iter()
        .any(|d| !d.as_os_str().is_empty() && path.starts_with(d))
}

/// A fresh build waiting to be stored.
pub(crate) struct Fresh {
    pub staging: Staging,
    pub fatbin_hash: String,
    pub meta: ObjectMeta,
}

/// Where a fresh build writes: inside the cache when it is writable, else a
/// temporary folder that is kept (the fatbin must outlive this process's build step).
pub(crate) struct Staging {
    dir: tempfile::TempDir,
    in_cache: bool,
    note: Option<String>,
}

impl Staging {
    pub(crate) fn new(cache: Option<&Cache>) -> Result<Staging, Error> {
        let mut note = None;
        if let Some(cache) = cache {
            match cache.staging_dir() {
                Ok(dir) => {
                    return Ok(Staging {
                        dir,
                        in_cache: true,
                        note: None,
                    });
                }
                Err(e) => {
                    note = Some(format!(
                        "the cuda-kernel-build cache `{}` is not writable ({e}); building without it \
                         (set KERNEL_BUILD_CACHE_DIR to a writable folder)",
                        cache.root().display()
                    ));
                }
            }
        }
        let dir = tempfile::TempDir::with_prefix("kernel-build-").map_err(|e| {
            Error::io(
                "failed to create a build folder in",
                std::env::temp_dir(),
                e,
            )
        })?;
        Ok(Staging {
            dir,
            in_cache: false,
            note,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Reads the device views and the PTX entries nvcc kept, from each of `runs` (the
    /// folder under `keep` of one nvcc run, `""` for the only one, and the virtual
    /// architectures it compiled), and removes every intermediate file, so that only the
    /// fatbin and the model are stored.
    pub(crate) fn take_kept(
        &self,
        runs: &[(&str, &[String])],
    ) -> (Vec<crate::front::DeviceView>, Vec<KernelImage>) {
        let keep = self.dir.path().join("keep");
        let (mut views, mut ptx) = (Vec::new(), Vec::new());
        for (sub, archs) in runs {
            let dir = keep.join(sub);
            views.extend(crate::front::read_kept_views(&dir, archs));
            ptx.extend(crate::verify::kept_ptx::read_kept_ptx(&dir));
        }
        let _ = std::fs::remove_dir_all(&keep);
        (views, ptx)
    }
}

/// Direct mode: every dependency unchanged → the object (with its key), with no nvcc run.
pub(crate) fn lookup_direct(cache: &Cache, direct_key: &str) -> Option<(String, Entry)> {
    let manifest: Manifest = cache.read_json("manifests", direct_key)?;
    for stamp in &manifest.deps {
        if !stamp_matches(stamp) {
            return None;
        }
    }
    let entry = lookup_object(cache, &manifest.object)?;
    Some((manifest.object, entry))
}

fn stamp_matches(stamp: &Stamp) -> bool {
    let Ok(m) = std::fs::metadata(&stamp.path) else {
        return false;
    };
    if m.len() != stamp.size {
        return false;
    }
    if mtime_ns(&m) == Some(stamp.mtime_ns) {
        return true;
    }
    // Touched but maybe not changed: compare contents.
    std::fs::read(&stamp.path).is_ok_and(|b| hash_bytes(&b) == stamp.hash)
}

fn mtime_ns(m: &std::fs::Metadata) -> Option<u128> {
    Some(
        m.modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos(),
    )
}

/// An object by key, checked against its recorded fatbin hash (a corrupt entry is
/// evicted and reported as a miss).
pub(crate) fn lookup_object(cache: &Cache, key: &str) -> Option<Entry> {
    let dir = cache.object_dir(key);
    let meta: ObjectMeta =
        serde_json::from_slice(&std::fs::read(dir.join("module.json")).ok()?).ok()?;
    let fatbin = std::fs::read(dir.join("module.fatbin")).ok();
    if fatbin.as_deref().map(hash_bytes).as_deref() != Some(meta.fatbin_hash.as_str()) {
        cache.evict(key);
        return None;
    }
    let deps = meta.deps.clone();
    Some(Entry {
        dir,
        meta,
        deps,
        note: None,
    })
}

impl Manifest {
    /// Which object the raw inputs led to, with a stamp of every dependency; `None` when a
    /// dependency vanished (no manifest: the next build preprocesses again).
    fn of(object_key: &str, deps: &[PathBuf]) -> Option<Manifest> {
        let mut stamps = Vec::with_capacity(deps.len());
        for path in deps {
            let (Ok(m), Ok(bytes)) = (std::fs::metadata(path), std::fs::read(path)) else {
                return None;
            };
            stamps.push(Stamp {
                path: path.clone(),
                size: m.len(),
                mtime_ns: mtime_ns(&m)?,
                hash: hash_bytes(&bytes),
            });
        }
        Some(Manifest {
            object: object_key.to_string(),
            deps: stamps,
        })
    }
}

/// Records which object the raw inputs led to, with a stamp of every dependency.
pub(crate) fn record_manifest(cache: &Cache, direct_key: &str, object_key: &str, deps: &[PathBuf]) {
    if let Some(manifest) = Manifest::of(object_key, deps) {
        cache.write_json("manifests", direct_key, &manifest);
    }
}

/// Stores a fresh build: into the cache when possible, else keeps the staging folder.
pub(crate) fn store(
    cache: Option<&Cache>,
    object_key: &str,
    direct_key: Option<&str>,
    fresh: Fresh,
) -> Result<Entry, Error> {
    let Fresh {
        staging,
        fatbin_hash,
        mut meta,
    } = fresh;
    meta.fatbin_hash = fatbin_hash;
    let json = staging.path().join("module.json");
    serde_json::to_vec_pretty(&meta)
        .map_err(std::io::Error::other)
        .and_then(|bytes| std::fs::write(&json, bytes))
        .map_err(|e| Error::io("failed to write", &json, e))?;
    let deps = meta.deps.clone();
    let note = staging.note;
    if let (Some(cache), true) = (cache, staging.in_cache) {
        // The manifest is stamped before the object is published and written after it.
        let manifest = direct_key.and_then(|key| Some((key, Manifest::of(object_key, &deps)?)));
        let dir = cache.publish(staging.dir, object_key).map_err(|e| {
            Error::io(
                "failed to store the build in",
                cache.object_dir(object_key),
                e,
            )
        })?;
        if let Some((key, manifest)) = manifest {
            cache.write_json("manifests", key, &manifest);
        }
        return Ok(Entry {
            dir,
            meta,
            deps,
            note,
        });
    }
    let dir = staging.dir.keep();
    Ok(Entry {
        dir,
        meta,
        deps,
        note,
    })
}

/// Paths stored as their bytes, so that a path that is not UTF-8 round-trips exactly
/// (serde_json refuses such a `PathBuf`).
mod path_bytes {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    pub(super) fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
        path.as_os_str().as_bytes().serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        Vec::<u8>::deserialize(d).map(|b| PathBuf::from(OsStr::from_bytes(&b)))
    }

    pub(super) mod list {
        use super::*;

        pub(crate) fn serialize<S: Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
            let bytes: Vec<&[u8]> = paths.iter().map(|p| p.as_os_str().as_bytes()).collect();
            bytes.serialize(s)
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Vec<PathBuf>, D::Error> {
            let bytes = Vec::<Vec<u8>>::deserialize(d)?;
            Ok(bytes
                .iter()
                .map(|b| PathBuf::from(OsStr::from_bytes(b)))
                .collect())
        }
    }
}
