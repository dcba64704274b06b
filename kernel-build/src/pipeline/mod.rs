//! The whole build of one module, shared by `Build` (build.rs) and `cuda_module!`:
//! toolkit → preprocess → parse → nvcc (through the cache) → read the fatbin → verify.
//!
//! A warm build (nothing the module depends on changed) reads the cached result and
//! runs nvcc zero times; see [`crate::cache`] for how that is decided.

mod cached;
mod combine;
mod constants;
mod opaque;
mod pending;
mod queue;
mod renames;
mod request;
mod runtime;
mod unit;
mod units;

pub use crate::model::built::BuiltModule;
pub use crate::model::options::RuntimeCompile;
pub use crate::model::request::{ModuleRequest, SourceInput};
pub use request::{Context, inline_display_name};

use std::path::PathBuf;

use crate::cache::Cache;
use crate::compile;
use crate::env;
use crate::error::Error;
use crate::front;
use crate::jobs::Jobs;
use crate::model::options::LinkMode;
use crate::toolkit::{DiscoverOptions, Target, Toolkit, parse_target_list};

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
    let sources = request::resolve_sources(req, cache.as_ref())?;
    if req.runtime != RuntimeCompile::Off && sources.len() != 1 {
        return Err(Error::InvalidOption(
            crate::diagnostics::options::runtime_many_files(&req.name, sources.len()),
        ));
    }
    let runtime = match (req.runtime, sources.as_slice()) {
        (RuntimeCompile::Only | RuntimeCompile::Fallback, [source]) => {
            Some(runtime::runtime_source(req, source, req.runtime)?)
        }
        _ => None,
    };
    let headers = runtime
        .as_ref()
        .map_or(&[][..], |(rt, _)| rt.headers.as_slice());
    let mut built = build_sources(req, cx, cache.as_ref(), &sources, headers)?;
    if let Some((rt, files)) = runtime {
        built.tracked_files.extend(files);
        built.runtime_source = Some(rt);
    }
    req.check_kernel_names(&built.info)?;
    Ok(built)
}

/// Builds `sources`: with nvcc, or by parsing alone (no nvcc on purpose, or a module
/// compiled at run time only).
fn build_sources(
    req: &ModuleRequest,
    cx: &Context,
    cache: Option<&Cache>,
    sources: &[request::Source],
    headers: &[(String, String)],
) -> Result<BuiltModule, Error> {
    let reporting = cx.reporting;
    if req.runtime == RuntimeCompile::Only {
        return parse_only(req, sources, headers);
    }
    let asked = if cx.no_device_code {
        Some("the build asked for none")
    } else if env::flag(crate::env::Var::NO_DEVICE_CODE, reporting) {
        Some("`KERNEL_BUILD_NO_DEVICE_CODE` is set")
    } else if env::var(crate::env::Var::DOCS_RS, reporting).is_some() {
        Some("`DOCS_RS` is set")
    } else {
        None
    };
    if let Some(why) = asked {
        let mut built = parse_only(req, sources, headers)?;
        built
            .warnings
            .push(crate::diagnostics::build::no_device_code(&req.name, why));
        return Ok(built);
    }

    let opts = DiscoverOptions {
        nvcc: cx.nvcc.clone(),
        reporting,
        search_from: cx.search_from.clone(),
        cache: cache.cloned(),
    };
    let toolkit = Toolkit::discover_with(&opts)?;
    // Libraries installed beside nvcc (CUTLASS) are searched after the module's own folders.
    let libraries = toolkit.library_includes();
    let with_libraries: Vec<request::Source>;
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
    let chosen = choose_targets(req, &toolkit, reporting)?;
    let targets = chosen.list;
    let mut flags = req.flags.clone();
    if let Some(extra) = env::var(crate::env::Var::NVCC_FLAGS, reporting) {
        flags.extend(extra.to_string_lossy().split_whitespace().map(String::from));
    }
    let jobs = Jobs::new(cx.jobs, reporting);
    let wrapper = cx
        .nvcc_wrapper
        .clone()
        .or_else(|| compile::wrapper_from_env(reporting));
    let shared = unit::Shared {
        req,
        toolkit: &toolkit,
        targets: &targets,
        flags: &flags,
        debug: env::flag(crate::env::Var::DEBUG, reporting),
        progress: cx.progress || reporting == env::Reporting::Cargo,
        wrapper: wrapper.as_deref(),
        cache,
        mode: req.link,
        alone: sources.len() == 1 && req.link == LinkMode::Whole,
    };
    let started = std::time::Instant::now();
    let mut built = if shared.alone {
        let threads = jobs.limit().min(targets.len());
        let built = unit::build(&shared, &sources[0], threads)?;
        built.entry.into_built(req, &sources[0])
    } else {
        units::build(&shared, sources, &jobs, reporting)?
    };
    built.constants = constants::with_nvcc(&shared, sources, &built.tracked_files)?;
    built.warnings.extend(chosen.warning);
    let seconds = started.elapsed().as_secs_f64();
    built.warnings.extend(slow_build_note(
        &req.name,
        chosen.default,
        &targets,
        seconds,
    ));
    Ok(built)
}

/// The note of a build of the default targets that took long (naming the faster mode).
fn slow_build_note(
    module: &str,
    default: bool,
    targets: &[Target],
    seconds: f64,
) -> Option<String> {
    (default && targets.len() > 1 && seconds > SLOW_BUILD_SECONDS).then(|| {
        let names: Vec<String> = targets.iter().map(Target::to_string).collect();
        crate::diagnostics::build::slow_build(module, seconds, &names)
    })
}

/// A build of the default targets slower than this gets a note naming
/// `KERNEL_BUILD_ARCHS=native`.
const SLOW_BUILD_SECONDS: f64 = 10.0;

/// Parses the raw sources only (no nvcc); `headers` are the user's headers of a module of
/// one source, read for their types.
fn parse_only(
    req: &ModuleRequest,
    sources: &[request::Source],
    headers: &[(String, String)],
) -> Result<BuiltModule, Error> {
    let archs = raw_arch_numbers(req);
    let alone = sources.len() == 1;
    let mut infos = Vec::new();
    let mut diags = crate::diagnostics::Diagnostics::new();
    let mut tracked: Vec<PathBuf> = sources.iter().filter_map(|s| s.tracked_source()).collect();
    // What exported constants are evaluated from: each file after its headers.
    let mut texts: Vec<String> = Vec::new();
    for source in sources {
        // The user's headers (beside the file or in its include folders) are read for
        // their declarations; system and toolkit headers are not.
        let found;
        let headers = if headers.is_empty() {
            let here = source.is_file.then(|| source.path.parent()).flatten();
            let (h, files) = runtime::user_headers(&source.text, here, &source.includes)?;
            for f in files {
                if !tracked.contains(&f) {
                    tracked.push(f);
                }
            }
            found = h;
            found.as_slice()
        } else {
            headers
        };
        if !req.constants.is_empty() {
            texts.extend(headers.iter().map(|(_, body)| body.clone()));
            texts.push(source.text.clone());
        }
        let input = front::FrontInput {
            display_name: &source.display_name,
            raw: &source.text,
            preprocessed: None,
            main_file: &source.path,
            user_dirs: &source.user_dirs,
            host_stub: None,
            headers,
        };
        let (info, d) = front::read_raw_targets(&input, &archs);
        match front::finish(&source.display_name, info, d, alone) {
            Ok(info) => infos.push(info),
            Err(d) => diags.append(d),
        }
    }
    if !diags.is_empty() {
        return Err(Error::Diagnostics(diags));
    }
    let (info, units) = if alone {
        (infos.pop().unwrap_or_default(), Vec::new())
    } else {
        let parts: Vec<combine::Part<'_>> = sources
            .iter()
            .zip(&infos)
            .map(|(s, info)| combine::Part {
                file: &s.display_name,
                info,
            })
            .collect();
        combine::combine(&parts, req.link, false).map_err(Error::Diagnostics)?
    };
    let constants = constants::without_nvcc(req, &texts)?;
    Ok(BuiltModule {
        name: req.name.clone(),
        info,
        fatbin_path: None,
        targets: Vec::new(),
        toolkit_version: None,
        tracked_files: tracked,
        warnings: Vec::new(),
        units,
        runtime_source: None,
        constants,
    })
}

/// The architectures a build without nvcc reads `#if __CUDA_ARCH__` for: the module's
/// targets, else the default list of nvcc 13 (the toolkit that would be used is unknown).
fn raw_arch_numbers(req: &ModuleRequest) -> Vec<u32> {
    let mut numbers: Vec<u32> = match &req.archs {
        Some(names) => names
            .iter()
            .filter_map(|n| n.parse::<Target>().ok())
            .map(|t| t.number)
            .collect(),
        None => vec![75, 80, 90, 100, 110, 120],
    };
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

fn choose_targets(
    req: &ModuleRequest,
    toolkit: &Toolkit,
    reporting: env::Reporting,
) -> Result<Targets, Error> {
    let given = |list| Targets {
        list,
        default: false,
        warning: None,
    };
    if let Some(names) = &req.archs {
        return toolkit.check_targets(names).map(given);
    }
    if let Some(list) = env::var(crate::env::Var::ARCHS, reporting) {
        let list = list.to_string_lossy();
        if list.trim().eq_ignore_ascii_case("native") {
            return match crate::toolkit::native_capabilities() {
                Ok(ccs) => toolkit
                    .check_targets(&crate::toolkit::native_targets(&ccs))
                    .map(given),
                Err(why) => Ok(Targets {
                    list: toolkit.default_targets(),
                    default: false,
                    warning: Some(crate::diagnostics::build::no_native_gpu(&req.name, &why)),
                }),
            };
        }
        let names: Vec<String> = match parse_target_list(&list) {
            Ok(ts) => ts.iter().map(Target::to_string).collect(),
            Err(bad) => {
                return Err(Error::UnknownArch {
                    arch: bad.0,
                    supported: toolkit.supported_sass().to_vec(),
                });
            }
        };
        return toolkit.check_targets(&names).map(given);
    }
    Ok(Targets {
        list: toolkit.default_targets(),
        default: true,
        warning: None,
    })
}

/// The targets a module is built for, and how they were chosen.
struct Targets {
    list: Vec<Target>,
    /// The toolkit's default list (nothing asked for).
    default: bool,
    /// Said when `native` found no GPU.
    warning: Option<String>,
}

/// The warnings that name the module (kernels missing from some images, kernels without a
/// typed stub), made for each build from its cached result instead of stored with it, so
/// that a file built again under another module name is reported under the new name.
pub(crate) fn module_warnings(module: &str, meta: &cached::ObjectMeta) -> Vec<String> {
    let mut warnings: Vec<String> = availability_warning(module, &meta.targets, &meta.info)
        .into_iter()
        .collect();
    warnings.extend(untyped_warnings(module, &meta.info));
    warnings
}

/// The one warning of a module whose kernels are not all in every image.
pub(crate) fn availability_warning(
    module: &str,
    targets: &[String],
    info: &crate::model::ModuleInfo,
) -> Option<String> {
    let missing: Vec<(String, Vec<String>)> = info
        .kernels
        .iter()
        .filter(|k| k.images.len() < targets.len())
        .map(|k| (k.name.clone(), k.targets()))
        .collect();
    (!missing.is_empty()).then(|| {
        crate::diagnostics::front::kernels_on_some_targets(
            module,
            info.kernels.len(),
            &missing,
            targets,
        )
    })
}

/// The warnings of a module's kernels without a typed stub; the kernels the front end did
/// not reach, when it stopped reading, are named in the one warning that says where.
pub(crate) fn untyped_warnings(module: &str, info: &crate::model::ModuleInfo) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut after_stop = None;
    if let Some(stopped) = &info.stopped {
        let why = crate::diagnostics::front::stopped_before(stopped);
        let names: Vec<String> = info
            .untyped
            .iter()
            .filter(|k| k.why == why)
            .map(|k| k.name.clone())
            .collect();
        warnings.push(crate::diagnostics::front::reading_stopped(
            module, stopped, &names,
        ));
        after_stop = Some(why);
    }
    let kernels: Vec<(String, String, Option<String>)> = info
        .untyped
        .iter()
        .filter(|k| after_stop.as_ref() != Some(&k.why))
        .map(|k| {
            (
                k.name.clone(),
                k.why.clone(),
                k.loc.as_ref().map(ToString::to_string),
            )
        })
        .collect();
    warnings.extend(crate::diagnostics::front::kernels_untyped(module, &kernels));
    warnings
}

/// Diagnostics collected by the front end, as an error.
impl From<crate::diagnostics::Diagnostics> for Error {
    fn from(d: crate::diagnostics::Diagnostics) -> Self {
        Error::Diagnostics(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kernels the front end did not reach are named in the one warning that says where it
    /// stopped, not each in a warning of its own; other untyped kernels keep theirs.
    #[test]
    fn a_stopped_reading_is_one_warning() {
        let stopped = "k.cu:3:5: error: expected `}` to close a block, found end of input";
        let untyped = |name: &str, why: String| crate::model::UntypedKernel {
            name: name.into(),
            symbol: name.into(),
            params: vec![],
            param_types: vec![],
            param_names: vec![],
            why,
            loc: None,
            images: vec![],
        };
        let info = crate::model::ModuleInfo {
            stopped: Some(stopped.into()),
            untyped: vec![
                untyped("late", crate::diagnostics::front::stopped_before(stopped)),
                untyped("closure", "it takes a closure".into()),
            ],
            ..Default::default()
        };
        let w = untyped_warnings("ops", &info);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].contains("stopped reading at k.cu:3:5") && w[0].ends_with("`late`"),
            "{w:?}"
        );
        assert!(w[1].contains("kernel `closure` has no typed stub"), "{w:?}");
    }

    #[test]
    fn only_slow_builds_of_the_default_targets_get_the_note() {
        let targets: Vec<Target> = ["sm_80", "sm_90"]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        let note = slow_build_note("m", true, &targets, 46.0).unwrap();
        assert!(
            note.contains("KERNEL_BUILD_ARCHS=native") && note.contains("sm_80, sm_90"),
            "{note}"
        );
        assert!(slow_build_note("m", true, &targets, 9.0).is_none());
        assert!(slow_build_note("m", false, &targets, 46.0).is_none());
        assert!(slow_build_note("m", true, &targets[..1], 46.0).is_none());
    }
}
