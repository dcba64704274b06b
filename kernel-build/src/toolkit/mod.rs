//! Finding nvcc, its version and the GPU targets it supports.
//!
//! Probing nvcc (`--version`, `--list-gpu-code`) costs two process starts, so the
//! answers are remembered in the cache, keyed by nvcc's path, size and modification
//! time: a warm build runs nvcc zero times.

mod archs;
mod discover;
mod invoke;
mod native;
mod version;

pub use crate::wheels::library_for_header;
pub use archs::{Target, TargetKind, default_targets, parse_target_list};
pub(crate) use discover::toolkit_roots;
pub use discover::user_toolkit_dir;
pub(crate) use invoke::{Invoked, invoke};
pub(crate) use native::{native_capabilities, native_targets};
pub use version::NvccVersion;

use crate::cache::Cache;
use crate::env::Reporting;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How nvcc was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FoundVia {
    /// The builder's explicit setting.
    Explicit,
    /// The `NVCC` variable.
    NvccVar,
    /// `CUDA_PATH` or `CUDA_HOME` (the name is kept).
    CudaPath(&'static str),
    /// `nvcc` on `PATH`.
    Path,
    /// `/usr/local/cuda`.
    UsrLocalCuda,
    /// NVIDIA's pip wheels in the project-local folder.
    ProjectWheels,
    /// NVIDIA's pip wheels in the per-user folder (`cuda-kernel-inspect toolkit install`).
    UserWheels,
    /// NVIDIA's pip wheels in the site-packages of `python3`.
    PythonWheels,
}

impl std::fmt::Display for FoundVia {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FoundVia::Explicit => write!(f, "the builder's nvcc setting"),
            FoundVia::NvccVar => write!(f, "the NVCC environment variable"),
            FoundVia::CudaPath(var) => write!(f, "{var}"),
            FoundVia::Path => write!(f, "PATH"),
            FoundVia::UsrLocalCuda => write!(f, "/usr/local/cuda"),
            FoundVia::ProjectWheels => write!(f, "the project-local nvcc wheels"),
            FoundVia::UserWheels => write!(f, "the per-user nvcc wheels"),
            FoundVia::PythonWheels => write!(f, "the nvcc wheels of python3"),
        }
    }
}

/// Where to look for nvcc.
#[derive(Clone, Debug)]
pub struct DiscoverOptions {
    /// An explicit nvcc (authoritative when set).
    pub nvcc: Option<PathBuf>,
    /// Whether environment reads are reported to Cargo.
    pub reporting: Reporting,
    /// Folders from which to walk up looking for a project-local `.cuda-toolkit`.
    pub search_from: Vec<PathBuf>,
    /// Where probe results are remembered (none: probe every time).
    pub cache: Option<Cache>,
}

impl Default for DiscoverOptions {
    fn default() -> Self {
        let mut search_from = Vec::new();
        if let Some(dir) = crate::env::cargo_var("CARGO_MANIFEST_DIR") {
            search_from.push(PathBuf::from(dir));
        }
        if let Ok(dir) = std::env::current_dir() {
            search_from.push(dir);
        }
        DiscoverOptions {
            nvcc: None,
            reporting: Reporting::Silent,
            search_from,
            cache: Cache::locate(Reporting::Silent),
        }
    }
}

/// A found nvcc and what it supports.
#[derive(Clone, Debug)]
pub struct Toolkit {
    nvcc: PathBuf,
    found_via: FoundVia,
    probe: Probe,
}

/// What probing an nvcc tells (cached).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Probe {
    version: NvccVersion,
    supported_sass: Vec<String>,
    /// The toolkit nvcc reports running from, for an nvcc outside a toolkit's `bin` (a
    /// wrapper script); `None` for one in its toolkit.
    #[serde(default)]
    root: Option<PathBuf>,
}

impl Toolkit {
    /// Finds nvcc with the default options (see [`DiscoverOptions`]).
    pub fn discover() -> Result<Toolkit, Error> {
        Self::discover_with(&DiscoverOptions::default())
    }

    /// Finds nvcc as `opts` says; the error lists every place tried and how to install one.
    pub fn discover_with(opts: &DiscoverOptions) -> Result<Toolkit, Error> {
        match discover::find_nvcc(opts.nvcc.as_deref(), opts.reporting, &opts.search_from) {
            discover::Search::Found(nvcc, found_via) => {
                let probe = probe_cached(&nvcc, opts.cache.as_ref())?;
                discover::remember_root(&nvcc, probe.root.clone());
                Ok(Toolkit {
                    nvcc,
                    found_via,
                    probe,
                })
            }
            discover::Search::NotFound { tried, .. } => Err(Error::NvccNotFound { tried }),
        }
    }

    /// The nvcc executable.
    pub fn nvcc(&self) -> &Path {
        &self.nvcc
    }

    /// Header folders of libraries installed beside nvcc that nvcc does not search itself:
    /// CUTLASS and CuTe from the `nvidia-cutlass` wheel (`toolkit install --with cutlass`).
    /// Every compile of a module gets them after its own `-I` folders.
    pub fn library_includes(&self) -> Vec<PathBuf> {
        library_includes_beside(&self.nvcc)
    }

    /// The CUDA runtime's header `cuda_runtime.h` this nvcc compiles with: in its toolkit's
    /// `include` folder (beside it, beside the file a link leads to, or in the toolkit a
    /// wrapper reports). `None` when there is none: every compile would fail.
    pub fn runtime_header(&self) -> Option<PathBuf> {
        discover::toolkit_roots(&self.nvcc)
            .into_iter()
            .flat_map(|root| {
                [
                    root.join("include"),
                    root.join("targets/x86_64-linux/include"),
                    root.join("targets/sbsa-linux/include"),
                ]
            })
            .map(|dir| dir.join("cuda_runtime.h"))
            .find(|h| h.is_file())
    }

    /// How it was found.
    pub fn found_via(&self) -> FoundVia {
        self.found_via
    }

    /// Its release.
    pub fn version(&self) -> NvccVersion {
        self.probe.version
    }

    /// The SASS targets `nvcc --list-gpu-code` lists (`sm_75`, ...).
    pub fn supported_sass(&self) -> &[String] {
        &self.probe.supported_sass
    }

    /// The default target list for this nvcc: SASS for the lowest supported arch of every major
    /// generation, plus PTX for the newest one.
    pub fn default_targets(&self) -> Vec<Target> {
        default_targets(&self.probe.supported_sass)
    }

    /// Parses and checks target names against what this nvcc supports.
    pub fn check_targets(&self, names: &[String]) -> Result<Vec<Target>, Error> {
        let unknown = |arch: &str| Error::UnknownArch {
            arch: arch.to_string(),
            supported: self.probe.supported_sass.clone(),
        };
        let mut out = Vec::new();
        for name in names {
            let t: Target = name.parse().map_err(|_| unknown(name))?;
            if !t.is_supported(&self.probe.supported_sass) {
                return Err(unknown(name));
            }
            if !out.contains(&t) {
                out.push(t);
            }
        }
        if out.is_empty() {
            return Err(Error::InvalidOption(
                "the list of GPU targets is empty".into(),
            ));
        }
        Ok(out)
    }
}

/// Runs `nvcc ARG` and returns its combined output, or an error naming nvcc.
fn run_probe(nvcc: &Path, arg: &str) -> Result<String, Error> {
    let ran = invoke(None, nvcc, &[arg.into()], false)?;
    if !ran.status.success() {
        return Err(Error::NvccFailed {
            location: None,
            status: ran.status.to_string(),
            command: ran.command,
            output: ran.text,
            hint: None,
        });
    }
    Ok(ran.text)
}

fn probe(nvcc: &Path) -> Result<Probe, Error> {
    let text = run_probe(nvcc, "--version")?;
    let version = NvccVersion::parse(&text).ok_or_else(|| Error::NvccVersion {
        nvcc: nvcc.to_path_buf(),
        output: text.clone(),
    })?;
    let codes = run_probe(nvcc, "--list-gpu-code")?;
    let supported_sass: Vec<String> = codes
        .split_whitespace()
        .filter(|s| {
            s.parse::<Target>()
                .is_ok_and(|t| t.kind == TargetKind::Sass)
        })
        .map(String::from)
        .collect();
    if supported_sass.is_empty() {
        return Err(Error::NvccFailed {
            location: None,
            status: "no GPU targets listed".into(),
            command: format!("{} --list-gpu-code", nvcc.display()),
            output: codes,
            hint: None,
        });
    }
    Ok(Probe {
        version,
        supported_sass,
        root: if discover::in_toolkit(nvcc) {
            None
        } else {
            discover::reported_root(nvcc)
        },
    })
}

fn probe_cached(nvcc: &Path, cache: Option<&Cache>) -> Result<Probe, Error> {
    let key = std::fs::metadata(nvcc).ok().and_then(|m| {
        let mtime = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        let mut h = blake3::Hasher::new();
        h.update(nvcc.as_os_str().as_encoded_bytes());
        h.update(&m.len().to_le_bytes());
        h.update(&mtime.as_nanos().to_le_bytes());
        Some(h.finalize().to_hex().to_string())
    });
    if let (Some(cache), Some(key)) = (cache, &key)
        && let Some(p) = cache.read_json::<Probe>("toolkits-v2", key)
    {
        return Ok(p);
    }
    let p = probe(nvcc)?;
    if let (Some(cache), Some(key)) = (cache, &key) {
        cache.write_json("toolkits-v2", key, &p);
    }
    Ok(p)
}

/// The library header folders of the wheel folder holding `nvcc` (`<root>/nvidia/cu13/bin/nvcc`).
fn library_includes_beside(nvcc: &Path) -> Vec<PathBuf> {
    // The wheels' folder: `<dir>/nvidia/cu13/bin/nvcc`, or what a wrapper runs.
    let wheels = |n: &Path| n.ancestors().nth(4).map(Path::to_path_buf);
    let reported =
        || discover::reported_root(nvcc).and_then(|r| r.ancestors().nth(2).map(Path::to_path_buf));
    let cutlass_in = |dir: PathBuf| dir.join("cutlass_library").join("source");
    let has = |c: &PathBuf| c.join("include/cutlass/cutlass.h").is_file();
    let cutlass = match wheels(nvcc).map(cutlass_in).filter(has) {
        Some(c) => c,
        None if discover::in_toolkit(nvcc) => return Vec::new(),
        None => match reported().map(cutlass_in).filter(has) {
            Some(c) => c,
            None => return Vec::new(),
        },
    };
    [cutlass.join("include"), cutlass.join("tools/util/include")]
        .into_iter()
        .filter(|d| d.is_dir())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_via_names_the_nvcc_variable() {
        assert_eq!(
            FoundVia::NvccVar.to_string(),
            "the NVCC environment variable"
        );
    }

    #[test]
    fn default_discovery_has_no_explicit_nvcc() {
        let opts = DiscoverOptions::default();
        assert!(opts.nvcc.is_none());
    }

    /// A toolkit folder whose `bin/nvcc` is a script answering the two probes.
    fn fake_toolkit() -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        for dir in ["bin", "nvvm", "include"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let nvcc = root.path().join("bin/nvcc");
        std::fs::write(
            &nvcc,
            "#!/bin/sh\n\
             case \"$1\" in\n\
             --version) echo 'Cuda compilation tools, release 13.0, V13.0.88' ;;\n\
             --list-gpu-code) printf 'sm_75\\nsm_80\\nsm_90\\n' ;;\n\
             *) exit 1 ;;\n\
             esac\n",
        )
        .unwrap();
        std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(root.path().join("include/cuda_runtime.h"), "").unwrap();
        root
    }

    /// The toolkit of `fake_toolkit`, named explicitly and probed without a cache.
    fn discover_fake(root: &Path) -> Toolkit {
        let opts = DiscoverOptions {
            nvcc: Some(root.join("bin/nvcc")),
            reporting: Reporting::Silent,
            search_from: Vec::new(),
            cache: None,
        };
        Toolkit::discover_with(&opts).unwrap()
    }

    #[test]
    fn an_explicit_nvcc_is_probed_for_its_version_and_targets() {
        let root = fake_toolkit();
        let tk = discover_fake(root.path());
        assert_eq!(tk.nvcc(), root.path().join("bin/nvcc"));
        assert_eq!(tk.found_via(), FoundVia::Explicit);
        assert_eq!(tk.version().to_string(), "13.0.88");
        assert_eq!(tk.supported_sass(), ["sm_75", "sm_80", "sm_90"]);
    }

    #[test]
    fn default_discovery_finds_a_cuda_12_nvcc_or_says_where_it_looked() {
        match Toolkit::discover() {
            Ok(tk) => assert!(tk.version().major >= 12, "nvcc {}", tk.version()),
            Err(e) => assert!(matches!(e, Error::NvccNotFound { .. }), "{e}"),
        }
    }

    #[test]
    fn the_runtime_header_is_found_in_the_toolkit_include_folder() {
        let root = fake_toolkit();
        let tk = discover_fake(root.path());
        let header = root.path().join("include/cuda_runtime.h");
        assert_eq!(tk.runtime_header(), Some(header.clone()));
        std::fs::remove_file(&header).unwrap();
        assert_eq!(tk.runtime_header(), None);
    }

    #[test]
    fn check_targets_accepts_listed_sass_and_its_ptx() {
        let root = fake_toolkit();
        let tk = discover_fake(root.path());
        let targets = tk
            .check_targets(&["sm_90".to_string(), "compute_90".to_string()])
            .unwrap();
        assert_eq!(targets.len(), 2);
        assert!(tk.check_targets(&["sm_100".to_string()]).is_err());
    }
}
