//! The whole build of one module, shared by `Build` (build.rs) and `cuda_module!`:
//! toolkit → preprocess → parse → nvcc (through the cache) → read the fatbin → verify.
//!
//! A warm build (nothing the module depends on changed) reads the cached result and
//! runs nvcc zero times; see [`crate::cache`] for how that is decided.

mod cached;
mod request;

pub use request::{BuiltModule, Context, ModuleRequest, SourceInput};

use crate::cache::{Cache, KeyHasher};
use crate::compile::{self, NvccJob};
use crate::diagnostics::Diagnostics;
use crate::env;
use crate::error::Error;
use crate::front;
use crate::toolkit::{DiscoverOptions, Target, Toolkit, parse_target_list};
use std::path::{Path, PathBuf};

/// Builds one module: parses its declarations, compiles it for every target, checks
/// every compiled image against the declarations, and returns the verified model with
/// the path of the fatbin.
///
/// Without nvcc on purpose (`KERNEL_BUILD_NO_DEVICE_CODE=1`, `DOCS_RS`, or
/// [`Context::no_device_code`]) the raw source is parsed and no fatbin is produced.
///
/// ```no_run
/// use kernel_build::pipeline::{build_module, Context, ModuleRequest, SourceInput};
/// let req = ModuleRequest::new("vecmath", SourceInput::File { path: "kernels/vecmath.cu".into() });
/// let built = build_module(&req, &Context::default())?;
/// println!("{} kernels in {:?}", built.info.kernels.len(), built.fatbin_path);
/// # Ok::<(), kernel_build::Error>(())
/// ```
pub fn build_module(req: &ModuleRequest, cx: &Context) -> Result<BuiltModule, Error> {
    let reporting = cx.reporting;
    let cache = match &cx.cache_dir {
        Some(dir) => Some(Cache::at(dir)),
        None if cx.use_cache => Cache::locate(reporting),
        None => None,
    };
    let source = request::resolve_source(req, cache.as_ref())?;
    let no_device = cx.no_device_code
        || env::flag("KERNEL_BUILD_NO_DEVICE_CODE", reporting)
        || env::var("DOCS_RS", reporting).is_some();
    if no_device {
        return parse_only(req, &source);
    }

    let opts = DiscoverOptions {
        nvcc: cx.nvcc.clone(),
        reporting,
        search_from: cx.search_from.clone(),
        cache: cache.clone(),
    };
    let toolkit = Toolkit::discover_with(&opts)?;
    let targets = choose_targets(req, &toolkit, reporting)?;
    let mut flags = req.flags.clone();
    if let Some(extra) = env::var("KERNEL_BUILD_NVCC_FLAGS", reporting) {
        flags.extend(extra.to_string_lossy().split_whitespace().map(String::from));
    }
    let debug = env::flag("KERNEL_BUILD_DEBUG", reporting);
    let job = Job {
        req,
        source: &source,
        toolkit: &toolkit,
        targets: &targets,
        flags: &flags,
        debug,
    };

    let direct_key = job.direct_key();
    if let Some(cache) = &cache {
        if let Some(hit) = cached::lookup_direct(cache, &direct_key) {
            if debug {
                eprintln!("kernel-build: cache hit for `{}` (no nvcc run)", req.name);
            }
            return Ok(hit.into_built(req, &source));
        }
    }
    // A miss: preprocess (for the object key and the parser) while nvcc compiles.
    let staging = cached::Staging::new(cache.as_ref())?;
    // A miss: preprocess (for the object key) while nvcc compiles, keeping the
    // device-side preprocessed text of every target for the parser.
    let (preprocessed, compiled) = std::thread::scope(|s| {
        let compiling = s.spawn(|| job.run_nvcc(&staging));
        let pre = front::preprocess(
            toolkit.nvcc(),
            &source.path,
            &source.includes,
            &req.defines,
            &flags,
        );
        let compiled = compiling
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (pre, compiled)
    });
    let mut archs: Vec<String> = targets.iter().map(Target::virtual_arch).collect();
    archs.sort();
    archs.dedup();
    let views = staging.take_views(&archs);
    // nvcc's own errors come first: they are the authority on what is valid CUDA.
    let ran = compiled?;
    let preprocessed = preprocessed.map_err(Error::Diagnostics)?;
    let object_key = job.object_key(&preprocessed);
    if let Some(cache) = &cache {
        if let Some(hit) = cached::lookup_object(cache, &object_key) {
            cached::record_manifest(cache, &direct_key, &object_key, &hit.deps);
            return Ok(hit.into_built(req, &source));
        }
    }
    let info = job
        .analyse(&views, &preprocessed)
        .map_err(Error::Diagnostics)?;
    let fresh = job.finish(info, ran, staging)?;
    let entry = cached::store(cache.as_ref(), &object_key, &direct_key, fresh)?;
    Ok(entry.into_built(req, &source))
}

/// Parses the raw source only (no nvcc).
fn parse_only(req: &ModuleRequest, source: &request::Source) -> Result<BuiltModule, Error> {
    let input = front::FrontInput {
        display_name: &source.display_name,
        raw: &source.text,
        preprocessed: None,
        main_file: &source.path,
        user_dirs: &source.user_dirs,
        host_stub: None,
    };
    let info =
        front::analyze_raw_targets(&input, &raw_arch_numbers(req)).map_err(Error::Diagnostics)?;
    Ok(BuiltModule {
        name: req.name.clone(),
        info,
        fatbin_path: None,
        targets: Vec::new(),
        toolkit_version: None,
        tracked_files: source.tracked_source().into_iter().collect(),
        warnings: Vec::new(),
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
) -> Result<Vec<Target>, Error> {
    if let Some(names) = &req.archs {
        return toolkit.check_targets(names);
    }
    if let Some(list) = env::var("KERNEL_BUILD_ARCHS", reporting) {
        let list = list.to_string_lossy();
        let names: Vec<String> = match parse_target_list(&list) {
            Ok(ts) => ts.iter().map(Target::to_string).collect(),
            Err(bad) => {
                return Err(Error::UnknownArch {
                    arch: bad.0,
                    supported: toolkit.supported_sass().to_vec(),
                });
            }
        };
        return toolkit.check_targets(&names);
    }
    Ok(toolkit.default_targets())
}

/// Everything one compile depends on.
struct Job<'a> {
    req: &'a ModuleRequest,
    source: &'a request::Source,
    toolkit: &'a Toolkit,
    targets: &'a [Target],
    flags: &'a [String],
    debug: bool,
}

impl Job<'_> {
    /// Options that change the output, in a fixed order, for both keys.
    fn hash_options(&self, k: &mut KeyHasher) {
        k.field(self.toolkit.version().to_string().as_bytes());
        for t in self.targets {
            k.field(t.to_string().as_bytes());
        }
        k.field(b"--flags");
        for f in self.flags {
            k.field(f.as_bytes());
        }
        k.field(b"--defines");
        for (n, v) in &self.req.defines {
            k.field(n.as_bytes())
                .field(v.as_deref().unwrap_or("\0").as_bytes());
        }
        if self.req.require_every_target {
            k.field(b"--require-every-target");
        }
    }

    /// The direct-mode key: raw inputs and the identity of nvcc.
    fn direct_key(&self) -> String {
        let mut k = KeyHasher::new("direct");
        k.field(self.toolkit.nvcc().as_os_str().as_encoded_bytes());
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
    fn object_key(&self, preprocessed: &str) -> String {
        let mut k = KeyHasher::new("object");
        k.field(self.source.display_name.as_bytes());
        k.field(preprocessed.as_bytes());
        self.hash_options(&mut k);
        k.finish()
    }

    /// Parses and types the declarations of every target's device view (the host
    /// view when nvcc left none, as a wrapper that drops `--keep` would).
    fn analyse(
        &self,
        views: &[front::DeviceView],
        host: &str,
    ) -> Result<crate::model::ModuleInfo, Diagnostics> {
        let input = front::FrontInput {
            display_name: &self.source.display_name,
            raw: &self.source.text,
            preprocessed: Some(host),
            main_file: &self.source.path,
            user_dirs: &self.source.user_dirs,
            host_stub: None,
        };
        if views.is_empty() {
            front::analyze(&input)
        } else {
            front::analyze_views(&input, views)
        }
    }

    /// Runs `nvcc -fatbin` into the staging folder.
    fn run_nvcc(&self, staging: &cached::Staging) -> Result<compile::Ran, Error> {
        let fatbin_path = staging.path().join("module.fatbin");
        let depfile = staging.path().join("module.d");
        let keep_dir = staging.keep_dir()?;
        let job = NvccJob {
            nvcc: self.toolkit.nvcc(),
            source: &self.source.path,
            output: &fatbin_path,
            depfile: &depfile,
            targets: self.targets,
            includes: &self.source.includes,
            defines: &self.req.defines,
            flags: self.flags,
            keep_dir: Some(&keep_dir),
        };
        compile::run(job.nvcc, &job.args(), self.debug).map_err(|e| self.source.rename_in_error(e))
    }

    /// Reads the fatbin nvcc wrote and verifies every image against the declarations.
    fn finish(
        &self,
        mut info: crate::model::ModuleInfo,
        ran: compile::Ran,
        staging: cached::Staging,
    ) -> Result<cached::Fresh, Error> {
        let fatbin_path = staging.path().join("module.fatbin");
        let bytes = std::fs::read(&fatbin_path)
            .map_err(|e| Error::io("failed to read the fatbin nvcc wrote", &fatbin_path, e))?;
        let fatbin = crate::fatbin::parse(&bytes).map_err(|source| Error::Fatbin {
            path: fatbin_path.clone(),
            source,
        })?;
        let opts = front::VerifyOptions {
            source: Some((self.source.display_name.as_str(), self.source.text.as_str())),
            require_every_target: self.req.require_every_target,
        };
        front::verify_with(&mut info, &fatbin, &opts).map_err(Error::Diagnostics)?;
        let deps = std::fs::read_to_string(staging.path().join("module.d"))
            .map(|t| compile::depfile::parse(&t))
            .unwrap_or_default();
        let mut warnings: Vec<String> = ran
            .warnings
            .iter()
            .map(|w| self.source.rename_in_text(&w.raw))
            .collect();
        warnings.extend(self.availability_warning(&info));
        Ok(cached::Fresh {
            staging,
            fatbin_hash: crate::cache::hash_bytes(&bytes),
            meta: cached::ObjectMeta {
                info,
                targets: self.targets.iter().map(Target::to_string).collect(),
                toolkit_version: self.toolkit.version().to_string(),
                fatbin_hash: String::new(),
                deps: absolute_deps(deps, &self.source.path),
                warnings,
            },
        })
    }
}

impl Job<'_> {
    /// The one warning of a module whose kernels are not all in every image.
    fn availability_warning(&self, info: &crate::model::ModuleInfo) -> Option<String> {
        let targets: Vec<String> = self.targets.iter().map(Target::to_string).collect();
        let missing: Vec<(String, Vec<String>)> = info
            .kernels
            .iter()
            .filter(|k| k.images.len() < targets.len())
            .map(|k| (k.name.clone(), k.targets()))
            .collect();
        (!missing.is_empty()).then(|| {
            crate::diagnostics::front::kernels_on_some_targets(
                &self.req.name,
                info.kernels.len(),
                &missing,
                &targets,
            )
        })
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

/// Diagnostics collected by the front end, as an error.
impl From<Diagnostics> for Error {
    fn from(d: Diagnostics) -> Self {
        Error::Diagnostics(d)
    }
}
