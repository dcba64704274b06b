//! The queue of a multi-file build: every file's nvcc runs (one per virtual architecture)
//! in one longest-first queue within the build's job budget, the largest split over the
//! cores the others leave, each file finished by the worker that ends its last run, and the
//! first nvcc failure stopping what has not started.

use super::job::UnitBuilt;
use super::pending;
use super::request::Source;
use super::unit;
use super::unit_inputs::Shared;
use crate::compile::split;
use crate::diagnostics::Diagnostics;
use crate::error::Error;
use crate::jobs::Jobs;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Every file's unit: from the cache, or compiled. The nvcc runs of all files that must be
/// compiled (one per file and virtual architecture) share one queue, so the cores stay
/// busy until the last target of the last file.
pub(crate) fn compile_units(
    shared: &Shared<'_>,
    sources: &[Source],
    jobs: &Jobs,
) -> Result<Vec<UnitBuilt>, Error> {
    let looked: Vec<(String, Option<UnitBuilt>)> =
        sources.iter().map(|s| unit::lookup(shared, s)).collect();
    if looked.iter().all(|(_, hit)| hit.is_some()) {
        return Ok(looked.into_iter().filter_map(|(_, hit)| hit).collect());
    }
    let mut slots: Vec<Option<UnitBuilt>> = Vec::with_capacity(sources.len());
    let mut pending: Vec<(usize, pending::Pending<'_>)> = Vec::new();
    for (i, (source, (direct_key, hit))) in sources.iter().zip(looked).enumerate() {
        if hit.is_none() {
            pending.push((i, pending::Pending::new(shared, source, direct_key, true)?));
        }
        slots.push(hit);
    }
    // Every group of every pending file in one queue, longest first (estimated by the
    // file's expanded tokens and the group's number of images), so that no long run starts
    // last; the largest runs split over the cores the others leave (`compile::split`).
    // The worker that ends a file's last group finishes that file (views, parse, images,
    // cache) while the others go on compiling.
    let mut tasks: Vec<(usize, usize)> = Vec::new();
    for (n, (_, p)) in pending.iter().enumerate() {
        tasks.extend((0..p.group_count()).map(|g| (n, g)));
    }
    let weight = |&(n, g): &(usize, usize)| {
        let p = &pending[n].1;
        p.estimate().saturating_mul(p.group_weight(g) as u64)
    };
    tasks.sort_by_key(|t| std::cmp::Reverse(weight(t)));
    let weights: Vec<u64> = tasks.iter().map(weight).collect();
    let splits = if shared.split {
        split::plan(&weights, jobs.limit(), pending.len() > 1)
    } else {
        vec![1; tasks.len()]
    };
    let tasks: Vec<(usize, usize, usize)> = tasks
        .into_iter()
        .zip(splits)
        .map(|((n, g), s)| (n, g, s))
        .collect();
    if shared.debug {
        for (&(n, g, s), w) in tasks.iter().zip(&weights) {
            let p = &pending[n].1;
            eprintln!(
                "cuda-kernel-build: queued `{}` {} (weight {w}, {s} thread{})",
                p.display_name(),
                p.group_name(g),
                if s == 1 { "" } else { "s" }
            );
        }
    }
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
    jobs.run(
        &tasks,
        |&(_, _, s)| s,
        |&(n, g, _), split| {
            let p = &pending[n].1;
            let st = &state[n];
            if failed.load(Ordering::SeqCst) {
                st.dropped.store(true, Ordering::SeqCst);
                st.left.fetch_sub(1, Ordering::SeqCst);
                return;
            }
            let threads = crate::compile::Threads { targets: 1, split };
            let ran = match p.run_group(g, threads) {
                Ok(ran) => Ok(ran),
                Err(e) => {
                    // nvcc's error is the build's (the earliest file's, when several fail).
                    failed.store(true, Ordering::SeqCst);
                    st.dropped.store(true, Ordering::SeqCst);
                    if let Ok(mut f) = failure.lock()
                        && f.as_ref().is_none_or(|(m, _)| n < *m)
                    {
                        *f = Some((n, e));
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
                let r = p.finish(runs.into_iter().map(|(_, r)| r).collect());
                if let Ok(mut d) = st.done.lock() {
                    *d = Some(r);
                }
            }
        },
    );
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
    gather(results)
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
fn gather(results: Vec<Result<UnitBuilt, Error>>) -> Result<Vec<UnitBuilt>, Error> {
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
