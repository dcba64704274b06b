//! The layout table of one unit: what the front end reads in the raw text before nvcc runs
//! becomes the table the compile measures ([`crate::compile::layouts`]), and the unit is
//! compiled through a wrapper that includes the user's file and then the table. The
//! wrapper keeps the file's name (nvcc names its kept files after it) in a folder of the
//! unit's staging folder.

use std::path::{Path, PathBuf};

use super::request::Source;
use super::runtime;
use super::unit_inputs::Shared;
use crate::compile::layouts::{Measurement, Plan, TABLE_FILE};
use crate::compile::probe::Probe;
use crate::error::Error;
use crate::front;
use crate::model::ModuleInfo;
use crate::model::options::LinkMode;

/// The user's headers `source` includes (each with its text), found beside it and in its
/// include folders; none when one cannot be read.
pub(crate) fn headers_of(source: &Source) -> Vec<(String, String)> {
    let here = source.is_file.then(|| source.path.parent()).flatten();
    runtime::user_headers(&source.text, here, &source.includes)
        .map(|(h, _)| h)
        .unwrap_or_default()
}

/// The plan of `source`: the user's types as the raw text and the user's `headers` it
/// includes declare them, read for the module's targets. Empty when the text cannot be
/// read (its kernels then find no measured layout and go by name).
pub(crate) fn plan_for(shared: &Shared<'_>, source: &Source, headers: &[(String, String)]) -> Plan {
    let mut archs: Vec<u32> = shared.targets.iter().map(|t| t.number).collect();
    archs.sort_unstable();
    archs.dedup();
    let input = front::FrontInput {
        display_name: &source.display_name,
        raw: &source.text,
        preprocessed: None,
        main_file: &source.path,
        user_dirs: &source.user_dirs,
        host_stub: None,
        headers,
        tuned: &[],
    };
    let (info, _) = front::read_raw::read_targets(&input, &archs);
    Plan::for_model(&info)
}

/// Writes the wrapper nvcc compiles for `source` under `dir` (`sub`: a folder per nvcc run
/// that left items out), the table without the items `left_out`, then `tuned` (the section
/// that instantiates the tuned kernels' variants, `pipeline::tuned`).
pub(crate) fn write_wrapper(
    dir: &Path,
    sub: &str,
    source: &Source,
    plan: &Plan,
    left_out: &[usize],
    tuned: &str,
) -> Result<PathBuf, Error> {
    let folder = dir.join("layout").join(sub);
    std::fs::create_dir_all(&folder)
        .map_err(|e| Error::io("failed to create the build folder", &folder, e))?;
    let name = source
        .path
        .file_name()
        .map_or_else(|| "unit.cu".into(), |n| n.to_owned());
    let path = folder.join(name);
    let mut text = plan.wrapper_text(&source.path, left_out);
    text.push_str(tuned);
    std::fs::write(&path, text).map_err(|e| Error::io("failed to write", &path, e))?;
    Ok(path)
}

/// A device view's text with the wrapper's line markers naming the table instead (the
/// wrapper's path differs from build to build, and its lines are not the user's).
pub(crate) fn unwrapped(text: &str, wrapper: &Path) -> String {
    crate::front::linemap::rename_markers(text, &wrapper.to_string_lossy(), TABLE_FILE, 0)
}

/// Whether a file a view names is the wrapper or its table (no dependency of the unit).
pub(crate) fn is_wrapper_file(dep: &Path, wrappers: &[PathBuf]) -> bool {
    wrappers.iter().any(|w| w == dep)
        || dep.file_name().is_some_and(|n| {
            n.to_string_lossy() == TABLE_FILE
                || n.to_string_lossy() == crate::front::linemap::TUNED_SECTION_FILE
        })
}

/// The layouts of the types of `info` that the unit's own compile (`first`) said nothing
/// of, measured by one more compile of the unit with the same table: a type the front end
/// found only in the compiled views (a class template instance a kernel template names),
/// or every type of a unit compiled to LTO-IR. `None` when nothing is missing.
pub(crate) fn measure_missing(
    shared: &Shared<'_>,
    source: &Source,
    info: &ModuleInfo,
    first: &Measurement,
) -> Option<Measurement> {
    let params = info
        .kernels
        .iter()
        .flat_map(|k| k.params.iter().map(|p| &p.ty));
    let used = crate::compile::layouts::types_reached(params, info);
    let wanted = Plan::for_model(info).only(|name| !first.answers(name) && used.contains(&name));
    if wanted.is_empty() {
        return None;
    }
    let mut archs: Vec<String> = shared.targets.iter().map(|t| t.virtual_arch()).collect();
    archs.dedup();
    let probe = Probe {
        nvcc: shared.toolkit.nvcc(),
        source: &source.path,
        includes: &source.includes,
        defines: &shared.req.defines,
        flags: shared.flags,
        archs,
        rdc: shared.mode != LinkMode::Whole,
        debug: shared.debug,
    };
    let (tables, rejected) = probe.measure_layouts(&wanted);
    if shared.debug {
        eprintln!(
            "cuda-kernel-build: `{}`: {} types measured by one more compile",
            source.display_name,
            wanted.items.len() - rejected.len()
        );
    }
    Some(Measurement {
        plan: wanted,
        tables,
        rejected,
    })
}
