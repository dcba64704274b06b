//! The whole build of one module, shared by `Build` (build.rs) and `cuda_module!`: the
//! sources resolved (`request`), then either read without nvcc (`raw`) or compiled
//! (`nvcc`: `targets`, one file in `unit`/`pending`, several in `units`/`queue`/`assemble`),
//! the exported constants evaluated (`constants`), and the model verified against every
//! image. This file only calls the steps in order.
//!
//! A warm build (nothing the module depends on changed) reads the cached result and
//! runs nvcc zero times; see [`crate::cache`] for how that is decided.

mod assemble;
mod cached;
mod combine;
mod constants;
pub(crate) mod debug_info;
mod editor;
mod estimate;
mod job;
mod layouts;
mod nvcc;
mod opaque;
mod pending;
mod queue;
mod raw;
mod renames;
mod request;
mod runtime;
mod shared;
mod targets;
pub(crate) mod tuned;
mod unit;
mod unit_inputs;
mod units;
mod warnings;

pub use crate::model::built::BuiltModule;
pub use crate::model::options::RuntimeCompile;
pub use crate::model::request::{ModuleRequest, SourceInput};
pub use editor::editor_folder;
pub use request::{Context, inline_display_name};

use crate::cache::Cache;
use crate::diagnostics;
use crate::error::Error;

/// Builds one module: parses its declarations, compiles it for every target, checks
/// every compiled image against the declarations, and returns the verified model with
/// the path of the fatbin.
///
/// A module of several files ([`SourceInput::Files`]) compiles each file as its own
/// translation unit, concurrently and cached per file, and joins them as
/// [`ModuleRequest::link`] says.
///
/// Without nvcc on purpose (`KERNEL_BUILD_NO_DEVICE_CODE=1`, `DOCS_RS`, or
/// [`Context::no_device_code`]) the raw source is parsed and no fatbin is produced.
pub fn build_module(req: &ModuleRequest, cx: &Context) -> Result<BuiltModule, Error> {
    let reporting = cx.reporting;
    let cache = match &cx.cache_dir {
        Some(dir) => Some(Cache::at(dir)),
        None if cx.use_cache => Cache::locate(reporting),
        None => None,
    };
    let debug = debug_info::choose(req, reporting);
    let mut sources = request::resolve_sources(req, cache.as_ref(), debug)?;
    let shared = shared::prepare(req, cache.as_ref(), &mut sources)?;
    let headers_copy = shared
        .staged
        .as_ref()
        .and_then(|(dir, names)| editor::copy_headers(cx, dir, names));
    if req.runtime != RuntimeCompile::Off && sources.len() != 1 {
        return Err(Error::InvalidOption(
            diagnostics::options::runtime_many_files(&req.name, sources.len()),
        ));
    }
    let runtime = match (req.runtime, sources.as_slice()) {
        (RuntimeCompile::Only | RuntimeCompile::Fallback, [source]) => {
            Some(runtime::runtime_source(req, source, req.runtime, debug)?)
        }
        _ => None,
    };
    let headers = runtime
        .as_ref()
        .map_or(&[][..], |(rt, _)| rt.headers.as_slice());
    let tuned = tuned::resolve(req, &sources)?;
    let mut built = match raw::without_nvcc(req, cx) {
        Some(why) => raw::read_module(req, &sources, headers, why, &tuned)?,
        None => nvcc::compile_module(req, cx, cache.as_ref(), &sources, debug, &tuned)?,
    };
    if let Some((rt, files)) = runtime {
        built.tracked_files.extend(files);
        built.runtime_source = Some(rt);
    }
    shared.finish(&mut built);
    built.editor_files.extend(headers_copy);
    req.check_kernel_names(&built.info)?;
    tuned::assemble(req, &tuned, &mut built)?;
    Ok(built)
}
