//! A module of several files: every file its own translation unit, compiled concurrently
//! within the build's job budget and cached on its own; then the files' models united
//! and their device code joined, either side by side (each file its own image, as nvcc's
//! whole-program compiles are) or device-linked per target with nvJitLink (`rdc`, `lto`)
//! and assembled with nvFatbin. The joined result is cached too, keyed by the units'
//! keys, so a build where nothing changed runs neither nvcc nor the linker.

use super::cached::{self, Fresh, ObjectMeta, Staging};
use super::combine::{self, Part};
use super::request::{BuiltModule, Source, Unit};
use super::unit::{self, Shared, UnitBuilt};
use crate::cache::{KeyHasher, hash_bytes};
use crate::diagnostics::{Diagnostics, units as msg};
use crate::env::Reporting;
use crate::error::Error;
use crate::front;
use crate::jobs::Jobs;
use crate::link::{DeviceLink, LinkMode, NvFatbin, UnitCode};
use crate::toolkit::Target;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Builds a module of several files.
pub(crate) fn build(
    shared: &Shared<'_>,
    sources: &[Source],
    jobs: &Jobs,
    reporting: Reporting,
) -> Result<BuiltModule, Error> {
    let started = Instant::now();
    let built = compile_units(shared, sources, jobs, reporting)?;
    let timings: Vec<(String, f64, bool)> = sources
        .iter()
        .zip(&built)
        .map(|(s, b)| {
            (
                s.display_name.clone(),
                b.elapsed.as_secs_f64(),
                b.from_cache,
            )
        })
        .collect();

    let key = assembly_key(shared, sources, &built);
    let entry = match shared.cache.and_then(|c| cached::lookup_object(c, &key)) {
        Some(hit) => hit,
        None => {
            let fresh = assemble(shared, sources, &built, reporting)?;
            cached::store(shared.cache, &key, None, fresh)?
        }
    };
    let elapsed = started.elapsed().as_secs_f64();
    let summary = msg::progress(&shared.req.name, elapsed, &timings);
    if shared.debug {
        eprintln!("kernel-build: {summary}");
    }
    let mut tracked: Vec<PathBuf> = Vec::new();
    for (source, b) in sources.iter().zip(&built) {
        for f in b.entry.tracked_files(source) {
            if !tracked.contains(&f) {
                tracked.push(f);
            }
        }
    }
    let mut warnings = entry.meta.warnings.clone();
    warnings.extend(built.iter().filter_map(|b| b.entry.note.clone()).take(1));
    if elapsed > 10.0 {
        warnings.push(summary);
    }
    Ok(BuiltModule {
        name: shared.req.name.clone(),
        info: entry.meta.info,
        fatbin_path: Some(entry.dir.join("module.fatbin")),
        targets: entry.meta.targets,
        toolkit_version: Some(entry.meta.toolkit_version),
        tracked_files: tracked,
        warnings,
        units: entry.meta.units,
    })
}

/// Every file's unit: from the cache, or compiled. The nvcc runs of all files that must be
/// compiled (one per file and virtual architecture, and one preprocessing each) share one
/// queue, so the cores stay busy until the last target of the last file.
fn compile_units(
    shared: &Shared<'_>,
    sources: &[Source],
    jobs: &Jobs,
    reporting: Reporting,
) -> Result<Vec<UnitBuilt>, Error> {
    let looked: Vec<(String, Option<UnitBuilt>)> =
        sources.iter().map(|s| unit::lookup(shared, s)).collect();
    if looked.iter().all(|(_, hit)| hit.is_some()) {
        return Ok(looked.into_iter().filter_map(|(_, hit)| hit).collect());
    }
    // nvFatbin joins a file's per-architecture images; without it (a whole-program
    // module only) each file compiles in one nvcc run.
    let nvfatbin = NvFatbin::load(shared.toolkit.nvcc(), shared.mode.purpose(), reporting);
    let split = match (&nvfatbin, shared.mode) {
        (Ok(lib), LinkMode::Whole) => Some(Some(lib)),
        (Err(_), LinkMode::Whole) => None,
        (_, LinkMode::Rdc | LinkMode::Lto) => Some(None),
    };
    let mut slots: Vec<Option<UnitBuilt>> = Vec::with_capacity(sources.len());
    let mut pending: Vec<(usize, unit::Pending<'_>)> = Vec::new();
    for (i, (source, (direct_key, hit))) in sources.iter().zip(looked).enumerate() {
        if hit.is_none() {
            pending.push((i, unit::Pending::new(shared, source, direct_key, split)?));
        }
        slots.push(hit);
    }
    // Every group of every pending file in one queue, longest first (estimated by the
    // file's size and the group's number of images), so that no long run starts last.
    // The worker that ends a file's last group finishes that file (views, parse, images,
    // cache) while the others go on compiling.
    let mut tasks: Vec<(usize, usize)> = Vec::new();
    for (n, (_, p)) in pending.iter().enumerate() {
        tasks.extend((0..p.group_count()).map(|g| (n, g)));
    }
    let weight = |&(n, g): &(usize, usize)| {
        let p = &pending[n].1;
        (p.source_len() as u64).saturating_mul(p.group_weight(g) as u64)
    };
    tasks.sort_by_key(|t| std::cmp::Reverse(weight(t)));
    let threads = if split.is_some() {
        1
    } else {
        shared.targets.len()
    };
    let state: Vec<FileState> = pending
        .iter()
        .map(|(_, p)| FileState {
            left: AtomicUsize::new(p.group_count()),
            dropped: AtomicBool::new(false),
            runs: Mutex::new(Vec::new()),
            done: Mutex::new(None),
        })
        .collect();
    // Once nvcc fails on one file, the runs not yet started are dropped: the build fails
    // anyway, and a library's other files could take minutes.
    let failed = AtomicBool::new(false);
    let failure: Mutex<Option<(usize, Error)>> = Mutex::new(None);
    jobs.run(&tasks, threads, |&(n, g), threads| {
        let p = &pending[n].1;
        let st = &state[n];
        if failed.load(Ordering::SeqCst) {
            st.dropped.store(true, Ordering::SeqCst);
            st.left.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        let ran = match p.run_group(g, threads) {
            Ok(ran) => Ok(ran),
            Err(e) => {
                // nvcc's error is the build's (the earliest file's, when several fail).
                failed.store(true, Ordering::SeqCst);
                st.dropped.store(true, Ordering::SeqCst);
                if let Ok(mut f) = failure.lock() {
                    if f.as_ref().is_none_or(|(m, _)| n < *m) {
                        *f = Some((n, e));
                    }
                }
                st.left.fetch_sub(1, Ordering::SeqCst);
                return;
            }
        };
        if let Ok(mut runs) = st.runs.lock() {
            runs.push((g, ran));
        }
        if st.left.fetch_sub(1, Ordering::SeqCst) == 1 && !st.dropped.load(Ordering::SeqCst) {
            let mut runs = st
                .runs
                .lock()
                .map(|mut r| std::mem::take(&mut *r))
                .unwrap_or_default();
            runs.sort_by_key(|(g, _)| *g);
            // The single-run path (no nvFatbin) has no device views to key the object by.
            let pre = (split.is_none()).then(|| p.preprocess());
            let r = p.finish(pre, runs.into_iter().map(|(_, r)| r).collect());
            if let Ok(mut d) = st.done.lock() {
                *d = Some(r);
            }
        }
    });
    if let Some((_, e)) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut results: Vec<Result<UnitBuilt, Error>> = Vec::new();
    for ((i, _), st) in pending.iter().zip(state) {
        match st.done.into_inner().ok().flatten() {
            Some(Ok(b)) => slots[*i] = Some(b),
            Some(Err(e)) => results.push(Err(e)),
            None => results.push(Err(Error::InvalidOption(format!(
                "the build of `{}` did not finish",
                sources[*i].display_name
            )))),
        }
    }
    results.extend(slots.into_iter().flatten().map(Ok));
    collect(results)
}

/// The progress of one file's nvcc runs.
struct FileState {
    left: AtomicUsize,
    /// Some run was dropped after a failure elsewhere: the file is not finished.
    dropped: AtomicBool,
    runs: Mutex<Vec<(usize, Result<crate::compile::Ran, Error>)>>,
    done: Mutex<Option<Result<UnitBuilt, Error>>>,
}

/// The units, or every file's declaration errors together (other errors: the first).
fn collect(results: Vec<Result<UnitBuilt, Error>>) -> Result<Vec<UnitBuilt>, Error> {
    let mut built = Vec::new();
    let mut diags = Diagnostics::new();
    let mut other = None;
    for r in results {
        match r {
            Ok(b) => built.push(b),
            Err(Error::Diagnostics(d)) => diags.append(d),
            Err(e) => {
                other.get_or_insert(e);
            }
        }
    }
    if let Some(e) = other {
        return Err(e);
    }
    if !diags.is_empty() {
        return Err(Error::Diagnostics(diags));
    }
    Ok(built)
}

/// The key of the joined module: how it is joined and every unit's object.
fn assembly_key(shared: &Shared<'_>, sources: &[Source], built: &[UnitBuilt]) -> String {
    let mut k = KeyHasher::new("assembly");
    k.field(shared.mode.name().as_bytes());
    k.field(shared.toolkit.version().to_string().as_bytes());
    for t in shared.targets {
        k.field(t.to_string().as_bytes());
    }
    if shared.req.require_every_target {
        k.field(b"--require-every-target");
    }
    for (s, b) in sources.iter().zip(built) {
        k.field(s.display_name.as_bytes()).field(b.key.as_bytes());
    }
    k.finish()
}

/// Unites the models, joins the device code, verifies a linked result.
fn assemble(
    shared: &Shared<'_>,
    sources: &[Source],
    built: &[UnitBuilt],
    reporting: Reporting,
) -> Result<Fresh, Error> {
    let parts: Vec<Part<'_>> = sources
        .iter()
        .zip(built)
        .map(|(s, b)| Part {
            file: &s.display_name,
            info: &b.entry.meta.info,
        })
        .collect();
    let whole = shared.mode == LinkMode::Whole;
    let (mut info, mut units) =
        combine::combine(&parts, shared.mode, whole).map_err(Error::Diagnostics)?;
    let fatbins: Vec<Vec<u8>> = built
        .iter()
        .map(|b| {
            let path = b.entry.dir.join("module.fatbin");
            std::fs::read(&path).map_err(|e| Error::io("failed to read", &path, e))
        })
        .collect::<Result<_, _>>()?;
    let mut warnings: Vec<String> = Vec::new();
    let bytes = if whole {
        side_by_side(&fatbins, &mut units)
    } else {
        let code: Vec<UnitCode<'_>> = sources
            .iter()
            .zip(&fatbins)
            .zip(built)
            .map(|((s, f), b)| UnitCode {
                name: &s.display_name,
                fatbin: f,
                groups: &b.entry.meta.groups,
            })
            .collect();
        let (linked, notes) = DeviceLink {
            nvcc: shared.toolkit.nvcc(),
            nvcc_version: (
                shared.toolkit.version().major,
                shared.toolkit.version().minor,
            ),
            mode: shared.mode,
            targets: shared.targets,
            units: &code,
            reporting,
        }
        .run()?;
        let fatbin = crate::fatbin::parse(&linked).map_err(|source| Error::Fatbin {
            path: PathBuf::from(format!("<{} linked by nvJitLink>", shared.req.name)),
            source,
        })?;
        let opts = front::VerifyOptions {
            require_every_target: shared.req.require_every_target,
            ..front::VerifyOptions::default()
        };
        front::verify_with(&mut info, &fatbin, &opts).map_err(Error::Diagnostics)?;
        warnings.extend(notes);
        linked
    };
    if info.kernels.is_empty() {
        let names: Vec<&str> = sources.iter().map(|s| s.display_name.as_str()).collect();
        return Err(Error::Diagnostics(Diagnostics::from(
            crate::diagnostics::front::no_kernels(&names.join(", ")),
        )));
    }
    let mut deps: Vec<PathBuf> = Vec::new();
    for b in built {
        for w in &b.entry.meta.warnings {
            if !warnings.contains(w) {
                warnings.push(w.clone());
            }
        }
        for d in &b.entry.meta.deps {
            if !deps.contains(d) {
                deps.push(d.clone());
            }
        }
    }
    warnings.extend(super::availability_warning(
        &shared.req.name,
        shared.targets,
        &info,
    ));
    let staging = Staging::new(shared.cache)?;
    let path = staging.path().join("module.fatbin");
    std::fs::write(&path, &bytes).map_err(|e| Error::io("failed to write", &path, e))?;
    Ok(Fresh {
        staging,
        fatbin_hash: hash_bytes(&bytes),
        meta: ObjectMeta {
            info,
            targets: shared.targets.iter().map(Target::to_string).collect(),
            toolkit_version: shared.toolkit.version().to_string(),
            fatbin_hash: String::new(),
            deps,
            warnings,
            units,
            groups: Vec::new(),
        },
    })
}

/// Whole-program files: their fatbins one after another (each 8-byte aligned, as the
/// driver wants), each file loaded as a module of its own at run time.
fn side_by_side(fatbins: &[Vec<u8>], units: &mut [Unit]) -> Vec<u8> {
    let mut out = Vec::new();
    for (f, u) in fatbins.iter().zip(units.iter_mut()) {
        u.image = Some((out.len() as u64, f.len() as u64));
        out.extend_from_slice(f);
        out.resize(out.len().next_multiple_of(8), 0);
    }
    out
}
