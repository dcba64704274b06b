//! One translation unit: a `.cu` file (or inline text) compiled by nvcc for every target,
//! its declarations read from nvcc's per-target device views, cached on its own.
//!
//! A module of one file compiles it with one nvcc run (`--threads` for its targets). A
//! file of a module of several compiles one nvcc run per virtual architecture ("group"),
//! so that the build can spread every file's targets over the cores (see
//! [`super::pending`]). A warm unit (nothing it depends on changed) is read from the cache
//! with no nvcc run. Its compile is a `job`, its runs `pending`.

use super::cached;
use super::job::{Job, UnitBuilt};
use super::request::Source;
use super::unit_inputs::Shared;
use crate::compile;
use crate::error::Error;
use crate::model::built::BuiltModule;
use std::time::Instant;

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
                    "cuda-kernel-build: cache hit for `{}` (no nvcc run)",
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

/// Builds a module of one file with one nvcc run (or none, from the cache) that compiles
/// up to `jobs` of its targets at once, and splits each target's optimizer and assembler
/// over the cores left when the targets are fewer (see [`compile::split`]).
pub(crate) fn build_alone(
    shared: &Shared<'_>,
    source: &Source,
    jobs: usize,
) -> Result<BuiltModule, Error> {
    let (direct_key, hit) = lookup(shared, source);
    let built = match hit {
        Some(hit) => hit,
        None => {
            // A miss: nvcc compiles, keeping the device-side preprocessed text of every
            // target for the parser (and for the object key and the dependencies).
            let pending = super::pending::Pending::new(shared, source, direct_key, false)?;
            let targets = shared.targets.len().max(1);
            let split = if shared.split {
                // Every target one share of the file's estimated work.
                let weights = vec![pending.estimate(); targets];
                compile::split::plan(&weights, jobs, false)[0]
            } else {
                1
            };
            let threads = compile::Threads {
                targets: jobs.min(targets).max(1),
                split,
            };
            let compiled = pending.run_group(0, threads);
            pending.finish(vec![compiled])?
        }
    };
    Ok(built.entry.into_built(shared.req, source))
}
