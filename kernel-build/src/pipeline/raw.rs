//! A module read without nvcc: on purpose (`KERNEL_BUILD_NO_DEVICE_CODE`, `DOCS_RS`,
//! [`Context::no_device_code`](super::Context::no_device_code)), or because it is compiled at
//! run time only. The raw sources are parsed (conditionals read once per target), the
//! user's headers they include read for their types, and no fatbin is produced.

use std::path::PathBuf;

use super::combine;
use super::constants;
use super::request::{Context, Source};
use super::runtime;
use crate::diagnostics::{self, Diagnostics};
use crate::env;
use crate::error::Error;
use crate::front;
use crate::model::built::BuiltModule;
use crate::model::options::RuntimeCompile;
use crate::model::request::ModuleRequest;

/// Why a module is read without nvcc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Without {
    /// It is compiled at run time only: there is nothing for nvcc to do.
    RuntimeOnly,
    /// The build asked for no device code; the words say how (the build's note).
    Asked(&'static str),
}

/// Whether `req` is read without nvcc, and why; `None`: nvcc builds it.
pub(super) fn without_nvcc(req: &ModuleRequest, cx: &Context) -> Option<Without> {
    let reporting = cx.reporting;
    if req.runtime == RuntimeCompile::Only {
        Some(Without::RuntimeOnly)
    } else if cx.no_device_code {
        Some(Without::Asked("the build asked for none"))
    } else if env::flag(env::Var::NO_DEVICE_CODE, reporting) {
        Some(Without::Asked("`KERNEL_BUILD_NO_DEVICE_CODE` is set"))
    } else if env::var(env::Var::DOCS_RS, reporting).is_some() {
        Some(Without::Asked("`DOCS_RS` is set"))
    } else {
        None
    }
}

/// Parses the raw sources only (no nvcc); `headers` are the user's headers of a module of
/// one source, read for their types. A build that asked for no device code gets a note
/// saying so.
pub(super) fn read_module(
    req: &ModuleRequest,
    sources: &[Source],
    headers: &[(String, String)],
    why: Without,
    tuned: &super::tuned::Resolved,
) -> Result<BuiltModule, Error> {
    let archs = super::targets::raw_arch_numbers(req);
    let alone = sources.len() == 1;
    let mut infos = Vec::new();
    let mut diags = Diagnostics::new();
    let mut tracked: Vec<PathBuf> = sources.iter().filter_map(|s| s.tracked_source()).collect();
    // What exported constants are evaluated from: each file after its headers.
    let mut texts: Vec<String> = Vec::new();
    for source in sources {
        // The user's headers (beside the file or in its include folders) are read for
        // their declarations; system and toolkit headers are not.
        let here = source.is_file.then(|| source.path.parent()).flatten();
        let (found, files) = runtime::user_headers(&source.text, here, &source.includes)?;
        // Each header's declarations are placed at its path, as nvcc's line markers place
        // them (codegen shows both relative to the crate).
        let paths: Vec<(String, PathBuf)> = found
            .iter()
            .map(|(name, _)| name.clone())
            .zip(files.iter().cloned())
            .collect();
        let headers = if headers.is_empty() {
            for f in files {
                if !tracked.contains(&f) {
                    tracked.push(f);
                }
            }
            found.as_slice()
        } else {
            headers
        };
        let instances = tuned.instances(source);
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
            tuned: &instances,
        };
        let (mut info, d) = front::read_raw::read_targets(&input, &archs);
        info.for_each_location(|loc| {
            if let Some((_, path)) = paths.iter().find(|(name, _)| *name == loc.file) {
                loc.file = path.to_string_lossy().into_owned();
            }
        });
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
    let warnings = match why {
        Without::RuntimeOnly => Vec::new(),
        Without::Asked(why) => vec![diagnostics::build::no_device_code(&req.name, why)],
    };
    Ok(BuiltModule {
        name: req.name.clone(),
        info,
        fatbin_path: None,
        targets: Vec::new(),
        toolkit_version: None,
        tracked_files: tracked,
        warnings,
        units,
        runtime_source: None,
        constants,
        editor_files: Vec::new(),
        tuned: Vec::new(),
    })
}
