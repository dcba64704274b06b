//! One unit's compile (`Job`): its cache keys (the direct key of its raw inputs, the object
//! key of its preprocessed text), nvcc's run, the declarations read from the device views,
//! and the finished entry with its layouts measured and opaque types typed; what a unit's
//! build gives back (`UnitBuilt`).

use super::cached::{self, Entry};
use super::request::Source;
use super::unit_inputs::Shared;
use crate::cache::KeyHasher;
use crate::compile::{self, NvccJob};
use crate::diagnostics::Diagnostics;
use crate::error::Error;
use crate::front;
use crate::model::ModuleInfo;
use crate::model::options::LinkMode;
use crate::toolkit::Target;
use cuda_kernel_objects::KernelImage;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A unit, built or read from the cache.
pub(crate) struct UnitBuilt {
    pub entry: Entry,
    /// The cache key of the unit's object.
    pub key: String,
    pub from_cache: bool,
    pub elapsed: Duration,
}
/// One unit's compile.
pub(crate) struct Job<'a> {
    pub(crate) shared: &'a Shared<'a>,
    pub(crate) source: &'a Source,
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
        if s.leave_out_ptx_text {
            k.field(b"--no-ptx-text");
        }
        // A split build's images differ from build to build (`compile::split`): kept apart.
        if s.split {
            k.field(b"--split-allowed");
        }
        // The model records the layouts the compile measured (`verify::layouts`).
        k.field(b"--layouts-measured");
        // The instantiations the build adds to this file.
        for inst in s.tuned.instances(self.source) {
            k.field(b"--tuned").field(inst.line().as_bytes());
        }
        if s.mode != LinkMode::Whole || !s.alone {
            k.field(b"--link").field(s.mode.name().as_bytes());
            k.field(if s.alone { b"alone" } else { b"part" });
        }
    }

    /// The direct-mode key: raw inputs and the identity of nvcc.
    pub(crate) fn direct_key(&self) -> String {
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
    pub(crate) fn object_key(&self, preprocessed: &str) -> String {
        let mut k = KeyHasher::new("object");
        k.field(self.source.display_name.as_bytes());
        k.field(preprocessed.as_bytes());
        self.hash_options(&mut k);
        k.finish()
    }

    /// Parses and types the declarations of every target's device view (the host
    /// view when nvcc left none, as a wrapper that drops `--keep` would).
    pub(crate) fn analyse(
        &self,
        views: &[front::DeviceView],
        host: &str,
        tuned: &[front::tuned::Instance],
        left_out_everywhere: bool,
    ) -> Result<ModuleInfo, Diagnostics> {
        // An inline source's `#line` directive names the Rust file: its markers are put
        // back to the value's lines, which every message and the model count.
        let unaliased: Vec<front::DeviceView>;
        let (views, host) = match self.source.line_origin {
            Some(_) => {
                unaliased = views
                    .iter()
                    .map(|v| front::DeviceView {
                        text: self.source.unaliased(&v.text),
                        ..v.clone()
                    })
                    .collect();
                (&unaliased[..], self.source.unaliased(host))
            }
            None => (views, host.to_owned()),
        };
        let input = front::FrontInput {
            display_name: &self.source.display_name,
            raw: &self.source.text,
            preprocessed: Some(&host),
            main_file: &self.source.path,
            user_dirs: &self.source.user_dirs,
            host_stub: None,
            headers: &[],
            tuned,
        };
        let (info, diags) = if views.is_empty() {
            front::analyze_parts(&input)
        } else {
            front::read_views(&input, views)
        };
        // Tuned variants the compiler refused for every target may leave no kernel: the
        // build says that of the tuned kernel instead.
        let require_kernel = self.shared.alone && !left_out_everywhere;
        front::finish(&self.source.display_name, info, diags, require_kernel)
    }

    /// Runs `nvcc -fatbin` with `code_args` and the module's `flags` (or others the caller
    /// derived from them) into `output` (through a wrapper: `nvcc -c`, the fatbin read back
    /// from the object), keeping its intermediate files (the device views) in `keep`.
    pub(crate) fn run_nvcc(
        &self,
        input: &Path,
        code_args: Vec<String>,
        threads: compile::Threads,
        flags: &[String],
        output: &Path,
        keep: &Path,
    ) -> Result<compile::Ran, Error> {
        let s = self.shared;
        // Through a wrapper, a host object: sccache caches `-c` whole, `-fatbin` not at all.
        // Its key hashes the arguments, so no split there: a split count follows the
        // machine's cores, and machines of other sizes would miss each other's entries.
        let host_object = s.wrapper.is_some();
        let object = output.with_extension("o");
        let job = NvccJob {
            nvcc: s.toolkit.nvcc(),
            source: input,
            output: if host_object { &object } else { output },
            code_args,
            threads: threads.targets,
            split: if host_object { 1 } else { threads.split },
            includes: &self.source.includes,
            defines: &s.req.defines,
            flags,
            keep_dir: Some(keep),
            host_object,
        };
        let ran = compile::run_through(s.wrapper, job.nvcc, &job.args(), s.debug)
            .map_err(|e| unwrap_in_error(e, input, &self.source.path))
            .map_err(|e| self.source.rename_in_error(e))
            .map_err(|e| needs_rdc(e, &self.source.display_name, s.mode))?;
        if host_object {
            compile::fatbin_from_object(&object, output)?;
        }
        Ok(ran)
    }

    /// Reads the fatbin nvcc wrote and, for a module of one file, verifies every image
    /// against the declarations (a device-linked module is verified once linked). `ptx`:
    /// the PTX entries nvcc kept, which lay out opaque types passed by value; `deps`: the
    /// files the unit was read from, as nvcc named them.
    pub(crate) fn finish(
        &self,
        mut info: ModuleInfo,
        ran: compile::Ran,
        staging: cached::Staging,
        ptx: &[KernelImage],
        deps: Vec<PathBuf>,
        measured: &Measured<'_>,
    ) -> Result<cached::Fresh, Error> {
        let s = self.shared;
        let fatbin_path = staging.path().join("module.fatbin");
        let bytes = std::fs::read(&fatbin_path)
            .map_err(|e| Error::io("failed to read the fatbin nvcc wrote", &fatbin_path, e))?;
        // Every layout a stub relies on is the compiler's: the table this compile measured,
        // read from its images (and the PTX it kept), before anything is typed.
        let parsed = cuda_kernel_objects::parse(&bytes);
        let mut tables = match &parsed {
            Ok(fatbin) => crate::compile::layouts::tables_of(fatbin),
            Err(_) => Vec::new(),
        };
        let kept = crate::compile::layouts::table_of(ptx);
        if !kept.is_empty() {
            tables.push(("kept PTX".to_owned(), kept));
        }
        let first = crate::compile::layouts::Measurement {
            plan: measured.plan.clone(),
            tables,
            rejected: measured.rejected.to_vec(),
        };
        let tables = first.tables.len();
        let mut all = vec![first];
        all.extend(super::layouts::measure_missing(
            s,
            self.source,
            &info,
            &all[0],
        ));
        crate::verify::layouts::measure(&mut info, &all);
        let mut moved = crate::verify::layouts::untype(&mut info);
        if s.mode == LinkMode::Whole {
            let fatbin = parsed.map_err(|source| Error::Fatbin {
                path: fatbin_path.clone(),
                source,
            })?;
            let opts = crate::verify::VerifyOptions {
                source: Some((self.source.display_name.as_str(), self.source.text.as_str())),
                require_every_target: s.req.require_every_target,
                part_of_module: !s.alone,
            };
            crate::verify::verify_with(&mut info, &fatbin, &opts).map_err(Error::Diagnostics)?;
            super::opaque::type_opaque(s, &[self.source], &mut info, Some(ptx));
            moved += crate::verify::layouts::untype(&mut info);
        }
        if s.debug {
            eprintln!(
                "cuda-kernel-build: `{}`: {} types measured by the compile in {} images, {} with a problem, {} kernels by name for their layouts",
                self.source.display_name,
                measured.plan.items.len() - measured.rejected.len(),
                tables,
                info.layout_problems.len(),
                moved
            );
        }
        let warnings: Vec<String> = ran
            .warnings
            .iter()
            .filter(|w| !crate::compile::layouts::is_table_message(w.file.as_deref()))
            .map(|w| self.source.rename_in_text(&w.raw))
            .collect();
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

/// The layout table a unit's compile measured: the plan, and the items nvcc refused.
pub(crate) struct Measured<'a> {
    pub plan: &'a crate::compile::layouts::Plan,
    pub rejected: &'a [(usize, String)],
}

/// nvcc's messages about the wrapper `input` told of the user's file `source`.
fn unwrap_in_error(e: Error, input: &Path, source: &Path) -> Error {
    if input == source {
        return e;
    }
    let (from, to) = (input.to_string_lossy(), source.to_string_lossy());
    super::request::retell_nvcc_error(e, &|text| text.replace(&*from, &to))
}

/// A call to a device function defined in another file, without device linking: ptxas
/// says `Unresolved extern function`; the error says how to allow it.
fn needs_rdc(e: Error, file: &str, mode: LinkMode) -> Error {
    let Error::NvccFailed {
        output, location, ..
    } = &e
    else {
        return e;
    };
    if mode == LinkMode::Whole
        && output.contains("kernel launch from __device__ or __global__ functions requires separate compilation mode")
    {
        let at = location.clone().unwrap_or_else(|| file.to_owned());
        return Error::NeedsDeviceRuntime {
            file: file.to_owned(),
            at,
            source: Box::new(e),
        };
    }
    let marker = "Unresolved extern function '";
    let symbol = match output.find(marker) {
        Some(i) if mode == LinkMode::Whole => {
            let rest = &output[i + marker.len()..];
            rest[..rest.find('\'').unwrap_or(rest.len())].to_owned()
        }
        _ => return e,
    };
    let shown = front::demangle::demangle(&symbol)
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
