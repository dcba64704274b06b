//! One translation unit: a `.cu` file (or inline text) compiled by nvcc for every target,
//! its declarations read from nvcc's per-target device views, cached on its own.
//!
//! A module of one file compiles it with one nvcc run (`--threads` for its targets). A
//! file of a module of several compiles one nvcc run per virtual architecture ("group"),
//! so that the build can spread every file's targets over the cores; nvFatbin then puts
//! the groups' images into the file's fatbin (device-linked modules keep the groups side by
//! side for nvJitLink). A warm unit (nothing it depends on changed) is read from the cache
//! with no nvcc run.

use super::cached::{self, Entry};
use super::request::{ModuleRequest, Source};
use crate::cache::{Cache, KeyHasher};
use crate::compile::{self, NvccJob};
use crate::diagnostics::Diagnostics;
use crate::error::Error;
use crate::fatbin::EntryKind;
use crate::front;
use crate::link::{FatbinPart, LinkMode, NvFatbin};
use crate::model::ModuleInfo;
use crate::toolkit::{Target, Toolkit};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What every unit of one module shares.
pub(crate) struct Shared<'a> {
    pub req: &'a ModuleRequest,
    pub toolkit: &'a Toolkit,
    pub targets: &'a [Target],
    pub flags: &'a [String],
    pub debug: bool,
    pub cache: Option<&'a Cache>,
    pub mode: LinkMode,
    /// The module's only file: its images are the module's, so it is verified here and
    /// must declare a kernel.
    pub alone: bool,
}

/// A unit, built or read from the cache.
pub(crate) struct UnitBuilt {
    pub entry: Entry,
    /// The cache key of the unit's object.
    pub key: String,
    pub from_cache: bool,
    pub elapsed: Duration,
}

/// The unit from the cache when nothing it depends on changed (no nvcc run).
pub(crate) fn lookup(shared: &Shared<'_>, source: &Source) -> (String, Option<UnitBuilt>) {
    let started = Instant::now();
    let job = Job { shared, source };
    let direct_key = job.direct_key();
    let hit = shared
        .cache
        .and_then(|cache| cached::lookup_direct(cache, &direct_key))
        .map(|(key, entry)| {
            if shared.debug {
                eprintln!(
                    "kernel-build: cache hit for `{}` (no nvcc run)",
                    source.display_name
                );
            }
            UnitBuilt {
                entry,
                key,
                from_cache: true,
                elapsed: started.elapsed(),
            }
        });
    (direct_key, hit)
}

/// Builds one unit with one nvcc run using up to `threads` threads for its targets.
pub(crate) fn build(
    shared: &Shared<'_>,
    source: &Source,
    threads: usize,
) -> Result<UnitBuilt, Error> {
    let (direct_key, hit) = lookup(shared, source);
    if let Some(hit) = hit {
        return Ok(hit);
    }
    let pending = Pending::new(shared, source, direct_key, None)?;
    // A miss: preprocess (for the object key) while nvcc compiles, keeping the
    // device-side preprocessed text of every target for the parser.
    let (preprocessed, compiled) = std::thread::scope(|s| {
        let compiling = s.spawn(|| pending.run_group(0, threads));
        let pre = pending.preprocess();
        let compiled = compiling
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (pre, compiled)
    });
    pending.finish(Some(preprocessed), vec![compiled])
}

/// A unit that must be compiled: its staging folder and its nvcc runs.
pub(crate) struct Pending<'a> {
    job: Job<'a>,
    direct_key: String,
    /// The staging folder's path, and the folder itself until `finish` stores it.
    dir: PathBuf,
    staging: std::sync::Mutex<Option<cached::Staging>>,
    /// One nvcc run per entry: `(virtual arch or "all", nvcc arguments for the targets)`.
    groups: Vec<(String, Vec<String>)>,
    /// Set when the groups' images are assembled into one fatbin by nvFatbin.
    assembler: Option<&'a NvFatbin>,
    started: Instant,
}

impl<'a> Pending<'a> {
    /// A unit to compile in one nvcc run (`split: None`), or one run per virtual
    /// architecture whose images `split` assembles (or, for a device-linked module,
    /// keeps side by side).
    pub(crate) fn new(
        shared: &'a Shared<'a>,
        source: &'a Source,
        direct_key: String,
        split: Option<Option<&'a NvFatbin>>,
    ) -> Result<Pending<'a>, Error> {
        let groups = match split {
            Some(_) => shared.mode.unit_groups(shared.targets),
            None => vec![("all".to_owned(), shared.mode.unit_args(shared.targets))],
        };
        let staging = cached::Staging::new(shared.cache)?;
        Ok(Pending {
            job: Job { shared, source },
            direct_key,
            dir: staging.path().to_path_buf(),
            staging: std::sync::Mutex::new(Some(staging)),
            groups,
            assembler: split.flatten(),
            started: Instant::now(),
        })
    }

    /// How many nvcc runs this unit takes.
    pub(crate) fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// The source's length in bytes (a rough measure of how long it compiles).
    pub(crate) fn source_len(&self) -> usize {
        self.job.source.text.len()
    }

    /// How many images group `g` makes (each a pass of nvcc's back end).
    pub(crate) fn group_weight(&self, g: usize) -> usize {
        self.groups[g]
            .1
            .iter()
            .filter(|a| a.starts_with("arch="))
            .count()
            .max(1)
    }

    /// The source's host-side preprocessing (for the object key).
    pub(crate) fn preprocess(&self) -> Result<String, Diagnostics> {
        let s = self.job.shared;
        front::preprocess(
            s.toolkit.nvcc(),
            &self.job.source.path,
            &self.job.source.includes,
            &s.req.defines,
            s.flags,
        )
    }

    /// Runs nvcc for group `g` with `threads` threads.
    pub(crate) fn run_group(&self, g: usize, threads: usize) -> Result<compile::Ran, Error> {
        let (name, args) = &self.groups[g];
        let one = self.groups.len() == 1;
        let output = if one {
            self.dir.join("module.fatbin")
        } else {
            self.dir.join(format!("{name}.fatbin"))
        };
        let keep = self.dir.join("keep").join(if one { "" } else { name });
        std::fs::create_dir_all(&keep)
            .map_err(|e| Error::io("failed to create the build folder", &keep, e))?;
        let depfile = self.dir.join("module.d");
        self.job.run_nvcc(
            args.clone(),
            threads,
            &output,
            &keep,
            (g == 0).then_some(&*depfile),
        )
    }

    /// Reads the device views, parses them, puts the images together, verifies (a whole
    /// program), and stores the unit. `compiled` is in group order. Without
    /// `preprocessed` (a file of several), the object key hashes the device views, which
    /// cover every header as the host preprocessing would.
    pub(crate) fn finish(
        &self,
        preprocessed: Option<Result<String, Diagnostics>>,
        compiled: Vec<Result<compile::Ran, Error>>,
    ) -> Result<UnitBuilt, Error> {
        let (job, direct_key, groups, assembler, started) = (
            &self.job,
            &self.direct_key,
            &self.groups,
            self.assembler,
            self.started,
        );
        let staging = self
            .staging
            .lock()
            .ok()
            .and_then(|mut s| s.take())
            .ok_or_else(|| Error::InvalidOption("a unit was finished twice".into()))?;
        let s = job.shared;
        let finishing = Instant::now();
        let mut views = Vec::new();
        if groups.len() == 1 {
            let mut archs: Vec<String> = s.targets.iter().map(Target::virtual_arch).collect();
            archs.sort();
            archs.dedup();
            views = staging.take_views(&archs);
        } else {
            for (arch, _) in groups {
                let dir = staging.path().join("keep").join(arch);
                views.extend(front::read_kept_views(&dir, std::slice::from_ref(arch)));
            }
            let _ = std::fs::remove_dir_all(staging.path().join("keep"));
        }
        // nvcc's own errors come first: they are the authority on what is valid CUDA.
        let mut ran = compile::Ran::default();
        for r in compiled {
            ran.warnings.extend(r?.warnings);
        }
        ran.warnings.dedup_by(|a, b| a.raw == b.raw);
        let preprocessed = match preprocessed {
            Some(p) => p.map_err(Error::Diagnostics)?,
            // A wrapper that drops `--keep` leaves no views: read the host side.
            None if views.is_empty() => self.preprocess().map_err(Error::Diagnostics)?,
            None => String::new(),
        };
        let object_key = if preprocessed.is_empty() {
            let mut text = String::new();
            for v in &views {
                text.push_str(&v.arch);
                text.push('\0');
                text.push_str(&v.text);
                text.push('\0');
                text.push_str(&v.host_stub);
                text.push('\0');
            }
            job.object_key(&text)
        } else {
            job.object_key(&preprocessed)
        };
        let done = |entry: Entry, key: String, from_cache: bool| UnitBuilt {
            entry,
            key,
            from_cache,
            elapsed: started.elapsed(),
        };
        if let Some(cache) = s.cache {
            if let Some(hit) = cached::lookup_object(cache, &object_key) {
                cached::record_manifest(cache, direct_key, &object_key, &hit.deps);
                return Ok(done(hit, object_key, true));
            }
        }
        let group_index = if groups.len() > 1 {
            join_groups(&staging, groups, assembler)?
        } else {
            Vec::new()
        };
        let info = job
            .analyse(&views, &preprocessed)
            .map_err(Error::Diagnostics)?;
        let mut fresh = job.finish(info, ran, staging)?;
        fresh.meta.groups = group_index;
        let entry = cached::store(s.cache, &object_key, Some(direct_key), fresh)?;
        if s.debug {
            eprintln!(
                "kernel-build: `{}`: read, verified and stored in {:.0} ms after nvcc",
                job.source.display_name,
                finishing.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(done(entry, object_key, false))
    }
}

/// The groups' fatbins as the unit's `module.fatbin`: assembled into one container by
/// nvFatbin (a whole program, loaded by the driver as it is), or, for device linking, kept
/// one after another with an index of where each group's container lies.
fn join_groups(
    staging: &cached::Staging,
    groups: &[(String, Vec<String>)],
    assembler: Option<&NvFatbin>,
) -> Result<Vec<(String, u64, u64)>, Error> {
    let mut bytes = Vec::new();
    let mut index = Vec::new();
    for (arch, _) in groups {
        let path = staging.path().join(format!("{arch}.fatbin"));
        let one = std::fs::read(&path)
            .map_err(|e| Error::io("failed to read the fatbin nvcc wrote", &path, e))?;
        let _ = std::fs::remove_file(&path);
        index.push((arch.clone(), bytes.len() as u64, one.len() as u64));
        bytes.extend_from_slice(&one);
        bytes.resize(bytes.len().next_multiple_of(8), 0);
    }
    let out = staging.path().join("module.fatbin");
    if let Some(nvfatbin) = assembler {
        let fatbin = crate::fatbin::parse(&bytes).map_err(|source| Error::Fatbin {
            path: out.clone(),
            source,
        })?;
        let names: Vec<String> = fatbin.entries.iter().map(|e| e.target()).collect();
        let parts: Vec<FatbinPart<'_>> = fatbin
            .entries
            .iter()
            .zip(&names)
            .filter_map(|(e, name)| {
                let arch = format!("{}{}", e.arch, e.variant.suffix());
                match e.kind {
                    EntryKind::Elf => Some(FatbinPart::Cubin {
                        arch,
                        name,
                        bytes: &e.payload,
                    }),
                    EntryKind::Ptx => Some(FatbinPart::Ptx {
                        arch,
                        name,
                        text: ptx_text(&e.payload),
                    }),
                    EntryKind::Other(_) => None,
                }
            })
            .collect();
        bytes = nvfatbin.assemble(&parts)?;
        index.clear();
    }
    std::fs::write(&out, &bytes).map_err(|e| Error::io("failed to write", &out, e))?;
    Ok(index)
}

/// PTX text up to its first NUL, with one NUL (as nvFatbin takes it).
fn ptx_text(payload: &[u8]) -> &[u8] {
    match payload.iter().position(|&b| b == 0) {
        Some(i) => &payload[..=i],
        None => payload,
    }
}

/// One unit's compile.
struct Job<'a> {
    shared: &'a Shared<'a>,
    source: &'a Source,
}

impl Job<'_> {
    /// Options that change the output, in a fixed order, for both keys.
    fn hash_options(&self, k: &mut KeyHasher) {
        let s = self.shared;
        k.field(s.toolkit.version().to_string().as_bytes());
        for t in s.targets {
            k.field(t.to_string().as_bytes());
        }
        k.field(b"--flags");
        for f in s.flags {
            k.field(f.as_bytes());
        }
        k.field(b"--defines");
        for (n, v) in &s.req.defines {
            k.field(n.as_bytes())
                .field(v.as_deref().unwrap_or("\0").as_bytes());
        }
        if s.req.require_every_target {
            k.field(b"--require-every-target");
        }
        if s.mode != LinkMode::Whole || !s.alone {
            k.field(b"--link").field(s.mode.name().as_bytes());
            k.field(if s.alone { b"alone" } else { b"part" });
        }
    }

    /// The direct-mode key: raw inputs and the identity of nvcc.
    fn direct_key(&self) -> String {
        let mut k = KeyHasher::new("direct");
        k.field(self.shared.toolkit.nvcc().as_os_str().as_encoded_bytes());
        k.field(self.source.path.as_os_str().as_encoded_bytes());
        k.field(self.source.display_name.as_bytes());
        k.field(self.source.text.as_bytes());
        for dir in &self.source.includes {
            k.field(dir.as_os_str().as_encoded_bytes());
        }
        self.hash_options(&mut k);
        k.finish()
    }

    /// The object key: the preprocessed source, which covers every header.
    fn object_key(&self, preprocessed: &str) -> String {
        let mut k = KeyHasher::new("object");
        k.field(self.source.display_name.as_bytes());
        k.field(preprocessed.as_bytes());
        self.hash_options(&mut k);
        k.finish()
    }

    /// Parses and types the declarations of every target's device view (the host
    /// view when nvcc left none, as a wrapper that drops `--keep` would).
    fn analyse(&self, views: &[front::DeviceView], host: &str) -> Result<ModuleInfo, Diagnostics> {
        let input = front::FrontInput {
            display_name: &self.source.display_name,
            raw: &self.source.text,
            preprocessed: Some(host),
            main_file: &self.source.path,
            user_dirs: &self.source.user_dirs,
            host_stub: None,
        };
        let (info, diags) = if views.is_empty() {
            front::analyze_parts(&input)
        } else {
            front::read_views(&input, views)
        };
        front::finish(&self.source.display_name, info, diags, self.shared.alone)
    }

    /// Runs `nvcc -fatbin` with `code_args` into `output`, keeping its intermediate
    /// files (the device views) in `keep`.
    fn run_nvcc(
        &self,
        code_args: Vec<String>,
        threads: usize,
        output: &Path,
        keep: &Path,
        depfile: Option<&Path>,
    ) -> Result<compile::Ran, Error> {
        let s = self.shared;
        let job = NvccJob {
            nvcc: s.toolkit.nvcc(),
            source: &self.source.path,
            output,
            depfile,
            code_args,
            threads,
            includes: &self.source.includes,
            defines: &s.req.defines,
            flags: s.flags,
            keep_dir: Some(keep),
        };
        compile::run(job.nvcc, &job.args(), s.debug)
            .map_err(|e| self.source.rename_in_error(e))
            .map_err(|e| needs_rdc(e, &self.source.display_name, s.mode))
    }

    /// Reads the fatbin nvcc wrote and, for a module of one file, verifies every image
    /// against the declarations (a device-linked module is verified once linked).
    fn finish(
        &self,
        mut info: ModuleInfo,
        ran: compile::Ran,
        staging: cached::Staging,
    ) -> Result<cached::Fresh, Error> {
        let s = self.shared;
        let fatbin_path = staging.path().join("module.fatbin");
        let bytes = std::fs::read(&fatbin_path)
            .map_err(|e| Error::io("failed to read the fatbin nvcc wrote", &fatbin_path, e))?;
        if s.mode == LinkMode::Whole {
            let fatbin = crate::fatbin::parse(&bytes).map_err(|source| Error::Fatbin {
                path: fatbin_path.clone(),
                source,
            })?;
            let opts = front::VerifyOptions {
                source: Some((self.source.display_name.as_str(), self.source.text.as_str())),
                require_every_target: s.req.require_every_target,
                part_of_module: !s.alone,
            };
            front::verify_with(&mut info, &fatbin, &opts).map_err(Error::Diagnostics)?;
        }
        let deps = std::fs::read_to_string(staging.path().join("module.d"))
            .map(|t| compile::depfile::parse(&t))
            .unwrap_or_default();
        let mut warnings: Vec<String> = ran
            .warnings
            .iter()
            .map(|w| self.source.rename_in_text(&w.raw))
            .collect();
        if s.alone {
            warnings.extend(super::availability_warning(&s.req.name, s.targets, &info));
        }
        Ok(cached::Fresh {
            staging,
            fatbin_hash: crate::cache::hash_bytes(&bytes),
            meta: cached::ObjectMeta {
                info,
                targets: s.targets.iter().map(Target::to_string).collect(),
                toolkit_version: s.toolkit.version().to_string(),
                fatbin_hash: String::new(),
                deps: absolute_deps(deps, &self.source.path),
                warnings,
                units: Vec::new(),
                groups: Vec::new(),
            },
        })
    }
}

/// A call to a device function defined in another file, without device linking: ptxas
/// says `Unresolved extern function`; the error says how to allow it.
fn needs_rdc(e: Error, file: &str, mode: LinkMode) -> Error {
    let Error::NvccFailed { output, .. } = &e else {
        return e;
    };
    let marker = "Unresolved extern function '";
    let symbol = match output.find(marker) {
        Some(i) if mode == LinkMode::Whole => {
            let rest = &output[i + marker.len()..];
            rest[..rest.find('\'').unwrap_or(rest.len())].to_owned()
        }
        _ => return e,
    };
    let shown = front::names::demangle(&symbol)
        .map(|d| format!("{}({})", d.name, d.params.join(", ")))
        .unwrap_or_else(|| symbol.clone());
    Error::NeedsRdc {
        file: file.to_owned(),
        symbol: shown,
        source: Box::new(e),
    }
}

/// Makes dependency paths absolute (nvcc prints them as it was given them).
fn absolute_deps(deps: Vec<PathBuf>, source: &Path) -> Vec<PathBuf> {
    let base = std::env::current_dir().unwrap_or_default();
    let mut out: Vec<PathBuf> = deps
        .into_iter()
        .map(|d| if d.is_absolute() { d } else { base.join(d) })
        .collect();
    if !out.iter().any(|d| d == source) {
        out.insert(0, source.to_path_buf());
    }
    out
}
