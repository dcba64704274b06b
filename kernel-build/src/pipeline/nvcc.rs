//! A module built with nvcc: the toolkit found, the targets chosen, each file compiled
//! (one file alone, or several joined as the request's link mode says), its exported
//! constants evaluated, and the build's notes on how the targets were chosen.

use std::time::Instant;

use super::constants;
use super::debug_info;
use super::editor;
use super::request::{Context, Source};
use super::targets;
use super::unit;
use super::unit_inputs::Shared;
use super::units;
use crate::cache::Cache;
use crate::compile;
use crate::diagnostics;
use crate::env;
use crate::error::Error;
use crate::jobs::Jobs;
use crate::model::built::BuiltModule;
use crate::model::options::{DeviceDebug, LinkMode};
use crate::model::request::ModuleRequest;
use crate::toolkit::{DiscoverOptions, Target, Toolkit};

/// Builds `sources` with nvcc.
pub(super) fn compile_module(
    req: &ModuleRequest,
    cx: &Context,
    cache: Option<&Cache>,
    sources: &[Source],
    debug: DeviceDebug,
    tuned: &super::tuned::Resolved,
) -> Result<BuiltModule, Error> {
    let reporting = cx.reporting;
    let opts = DiscoverOptions {
        nvcc: cx.nvcc.clone(),
        reporting,
        search_from: cx.search_from.clone(),
        cache: cache.cloned(),
    };
    let toolkit = Toolkit::discover_with(&opts)?;
    // Libraries installed beside nvcc (CUTLASS) are searched after the module's own folders.
    let libraries = toolkit.library_includes();
    let with_libraries: Vec<Source>;
    let sources = if libraries.is_empty() {
        sources
    } else {
        with_libraries = sources
            .iter()
            .cloned()
            .map(|mut s| {
                s.includes.extend(libraries.iter().cloned());
                s
            })
            .collect();
        &with_libraries
    };
    let chosen = targets::choose(req, &toolkit, reporting)?;
    let mut flags = req.flags.clone();
    let env_flags = compile::flags_from_env(reporting);
    let compress = compile::compress::wanted(req.compress, reporting);
    flags = compile::compress::with_flag(flags, &env_flags, compress);
    flags.extend(env_flags);
    let flags = debug_info::with_flag(flags, debug);
    let mode = debug_info::link_mode(req.link, debug);
    let jobs = Jobs::new(cx.jobs, reporting);
    let wrapper = cx
        .nvcc_wrapper
        .clone()
        .or_else(|| compile::wrapper_from_env(reporting));
    let shared = Shared {
        req,
        toolkit: &toolkit,
        targets: &chosen.list,
        flags: &flags,
        debug: env::flag(env::Var::DEBUG, reporting),
        progress: cx.progress || reporting == env::Reporting::Cargo,
        wrapper: wrapper.as_deref(),
        cache,
        debug_info: debug,
        leave_out_ptx_text: crate::link::ptx_text::leave_out_wanted(req.ptx_text, debug, reporting),
        reporting,
        mode,
        alone: sources.len() == 1 && mode == LinkMode::Whole,
        tuned,
        split: compile::split::allowed(&flags, cx.split_compile, reporting),
        assembler: std::sync::OnceLock::new(),
    };
    // Before nvcc runs: an editor helps most with a file that does not compile yet.
    let commands = editor::Commands {
        nvcc: toolkit.nvcc(),
        targets: &chosen.list,
        defines: &req.defines,
        flags: &flags,
    };
    let database = editor::write_commands(cx, &commands, sources);
    let started = Instant::now();
    let mut built = if shared.alone {
        unit::build_alone(&shared, &sources[0], jobs.limit())?
    } else {
        units::build_joined(&shared, sources, &jobs, reporting)?
    };
    built.constants = constants::with_nvcc(&shared, sources, &built.tracked_files)?;
    built.editor_files.extend(database);
    let seconds = started.elapsed().as_secs_f64();
    if let Some(why) = &chosen.no_native {
        let warning = diagnostics::build::no_native_gpu(&req.name, why);
        built.warnings.push(warning);
    }
    if debug == DeviceDebug::Full {
        let lto_as_rdc = mode != req.link;
        built
            .warnings
            .push(diagnostics::build::device_debug(&req.name, lto_as_rdc));
    }
    if chosen.slow(seconds) {
        let names: Vec<String> = chosen.list.iter().map(Target::to_string).collect();
        let note = diagnostics::build::slow_build(&req.name, seconds, &names);
        diagnostics::build::emit_note(&note, reporting);
    }
    Ok(built)
}
