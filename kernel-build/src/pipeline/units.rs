//! A module of several files: every file its own translation unit, compiled concurrently
//! within the build's job budget and cached on its own (`queue`), then joined (`assemble`);
//! the module's tracked files, warnings and progress summary.

use super::request::Source;
use super::unit_inputs::Shared;
use crate::diagnostics::units as msg;
use crate::env::Reporting;
use crate::error::Error;
use crate::jobs::Jobs;
use crate::model::built::BuiltModule;
use std::path::PathBuf;
use std::time::Instant;

/// Builds a module of several files.
pub(crate) fn build_joined(
    shared: &Shared<'_>,
    sources: &[Source],
    jobs: &Jobs,
    reporting: Reporting,
) -> Result<BuiltModule, Error> {
    let started = Instant::now();
    let built = super::queue::compile_units(shared, sources, jobs)?;
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

    let entry = super::assemble::joined(shared, sources, &built, reporting)?;
    let elapsed = started.elapsed().as_secs_f64();
    let summary = msg::progress(&shared.req.name, elapsed, &timings);
    if shared.debug {
        eprintln!("cuda-kernel-build: {summary}");
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
    warnings.extend(super::warnings::module_warnings(
        &shared.req.name,
        &entry.meta.info,
        &entry.meta.targets,
    ));
    warnings.extend(built.iter().filter_map(|b| b.entry.note.clone()).take(1));
    if elapsed > 10.0 {
        // It depends on the machine's speed: a note, never a warning a `-D warnings` build
        // would fail on.
        crate::diagnostics::build::emit_note(&summary, reporting);
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
        runtime_source: None,
        constants: Vec::new(),
        editor_files: Vec::new(),
        tuned: Vec::new(),
    })
}
