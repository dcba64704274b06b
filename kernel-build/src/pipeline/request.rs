//! What a build is asked to do ([`ModuleRequest`], [`Context`]), what it returns
//! ([`BuiltModule`](crate::model::built::BuiltModule)), and the resolved source text nvcc is given.

use crate::cache::Cache;
use crate::env::Reporting;
use crate::error::Error;
use crate::model::ModuleInfo;
use crate::model::options::{DeviceDebug, LinkMode};
use crate::model::request::{ModuleRequest, SourceInput};
use std::path::{Path, PathBuf};

impl ModuleRequest {
    /// A request with no options, resolving paths against `CARGO_MANIFEST_DIR` (or the
    /// current directory).
    pub fn new(name: impl Into<String>, source: SourceInput) -> Self {
        let base_dir = crate::env::cargo_var("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        ModuleRequest {
            name: name.into(),
            source,
            archs: None,
            includes: Vec::new(),
            defines: Vec::new(),
            flags: Vec::new(),
            base_dir,
            user_dirs: Vec::new(),
            require_every_target: false,
            link: LinkMode::Whole,
            runtime: crate::model::options::RuntimeCompile::Off,
            safe_kernels: Vec::new(),
            kernels: None,
            constants: Vec::new(),
            rust_types: Vec::new(),
            derives: Vec::new(),
            line_info: None,
            inline_origin: None,
            device_debug: None,
            compress: None,
            ptx_text: None,
            tuned: Vec::new(),
        }
    }

    /// Adds a derive for the structs and enums the CUDA code declares (`serde::Serialize`);
    /// the text must be a path.
    pub fn derive_text(&mut self, path: &str) -> Result<(), String> {
        if syn::parse_str::<syn::Path>(path).is_err() {
            return Err(crate::diagnostics::options::bad_derive(path));
        }
        self.derives.push(path.to_string());
        Ok(())
    }

    /// Adds a constant to export, written `NAME` (an `i64`) or `NAME: TYPE` with `TYPE` a
    /// Rust integer type (the macro's `constants = [...]`, `Build::export_constant`).
    pub fn constant_text(&mut self, text: &str) -> Result<(), String> {
        let (name, ty) = match text.split_once(':') {
            Some((n, t)) => (n.trim(), t.trim()),
            None => (text.trim(), "i64"),
        };
        if !is_identifier(name) || !INTEGER_TYPES.contains(&ty) {
            return Err(crate::diagnostics::options::bad_constant(text));
        }
        if !self.constants.iter().any(|(n, _)| n == name) {
            self.constants.push((name.to_owned(), ty.to_owned()));
        }
        Ok(())
    }

    /// Adds a definition given as `NAME` or `NAME=VALUE` (the macro's `define = [...]`).
    pub fn define_text(&mut self, text: &str) -> Result<(), String> {
        match text.split_once('=') {
            Some((name, value)) => self.define(name.trim(), Some(value)),
            None => self.define(text.trim(), None),
        }
        .map_err(|_| crate::diagnostics::options::bad_define(text))
    }

    /// Adds a definition `NAME` or `NAME=VALUE` (`Build::define`); the name must be a
    /// preprocessor identifier.
    pub fn define(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        if !is_identifier(name) {
            let text = match value {
                Some(v) => format!("{name}={v}"),
                None => name.to_owned(),
            };
            return Err(crate::diagnostics::options::bad_define(&text));
        }
        self.defines
            .push((name.to_owned(), value.map(str::to_owned)));
        Ok(())
    }

    /// Sets the module name, which names the generated Rust module.
    pub fn set_name(&mut self, name: &str) -> Result<(), String> {
        if !is_identifier(name) {
            return Err(crate::diagnostics::options::bad_module_name(name));
        }
        self.name = name.to_owned();
        Ok(())
    }

    /// What the options say about a built module's kernels: every name given to
    /// `safe_kernels` and `kernels` must be a kernel (its Rust name) of `info`.
    pub(crate) fn check_kernel_names(&self, info: &ModuleInfo) -> Result<(), Error> {
        let names: Vec<String> = crate::model::rust::method_names(info);
        let mut problems = Vec::new();
        let given = self
            .safe_kernels
            .iter()
            .map(|k| ("safe_kernel", k))
            .chain(self.kernels.iter().flatten().map(|k| ("kernels", k)));
        for (option, name) in given {
            if !names.contains(name) {
                problems.push(crate::diagnostics::options::unknown_kernel(
                    option, name, &self.name, &names,
                ));
            }
        }
        match problems.is_empty() {
            true => Ok(()),
            false => Err(Error::InvalidOption(problems.join("\n"))),
        }
    }
}

/// The Rust types a constant can be exported as.
pub(crate) const INTEGER_TYPES: [&str; 10] = [
    "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize",
];

/// True for an identifier of Rust and of the C preprocessor (ASCII letters, digits and
/// `_`, not starting with a digit).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How and where a build runs.
#[derive(Clone, Debug)]
pub struct Context {
    /// Whether environment reads are reported to Cargo (build scripts) or not (macros).
    pub reporting: Reporting,
    /// An explicit nvcc (authoritative when set).
    pub nvcc: Option<PathBuf>,
    /// An explicit cache directory (instead of the environment's).
    pub cache_dir: Option<PathBuf>,
    /// Whether to use a cache at all when `cache_dir` is not set.
    pub use_cache: bool,
    /// Build without nvcc: parse only, no fatbin.
    pub no_device_code: bool,
    /// Folders to walk up from when looking for a project-local toolkit.
    pub search_from: Vec<PathBuf>,
    /// The most compiles at once; `None`: Cargo's jobserver and `NUM_JOBS` in a build
    /// script, the number of cores elsewhere.
    pub jobs: Option<usize>,
    /// A program nvcc's compilations run through (`sccache`): `wrapper nvcc args...`.
    /// `None`: `KERNEL_BUILD_NVCC_WRAPPER`, else `RUSTC_WRAPPER` when it is sccache.
    pub nvcc_wrapper: Option<PathBuf>,
    /// Print a line per finished nvcc run on stderr (always on in a build script, where
    /// Cargo shows the lines with `-vv`).
    pub progress: bool,
    /// Where the files for editors go (`compile_commands.json`, shared types' headers);
    /// `None`: `KERNEL_BUILD_EDITOR_DIR`, else `cuda-kernel-build/` in Cargo's target folder.
    pub editor_dir: Option<PathBuf>,
    /// Whether the largest runs may be split over idle cores (nvcc's `--split-compile`,
    /// `compile::split`); `None`: `KERNEL_BUILD_SPLIT_COMPILE` (off unless set on).
    pub split_compile: Option<bool>,
}

impl Default for Context {
    fn default() -> Self {
        let d = crate::toolkit::DiscoverOptions::default();
        Context {
            reporting: Reporting::Silent,
            nvcc: None,
            cache_dir: None,
            use_cache: true,
            no_device_code: false,
            search_from: d.search_from,
            jobs: None,
            nvcc_wrapper: None,
            progress: false,
            editor_dir: None,
            split_compile: None,
        }
    }
}

/// The source as nvcc sees it.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    /// What nvcc compiles (absolute).
    pub path: PathBuf,
    /// The name used in messages (the path as written, or `<inline NAME>`).
    pub display_name: String,
    /// The text.
    pub text: String,
    /// Folders whose headers count as the user's.
    pub user_dirs: Vec<PathBuf>,
    /// `-I` folders given to nvcc (absolute; the crate root first for inline text).
    pub includes: Vec<PathBuf>,
    /// True for a user's file (tracked), false for inline text.
    pub is_file: bool,
    /// Inline text compiled with line tables: the Rust file and line its first line sits
    /// on, which the staged file's `#line` directive names so that compute-sanitizer,
    /// cuda-gdb and Nsight Compute point into the Rust file. The build's own messages and
    /// model still count the value's lines (see [`Source::unaliased`]).
    pub line_origin: Option<(String, u32)>,
}

impl Source {
    pub(crate) fn tracked_source(&self) -> Option<PathBuf> {
        self.is_file.then(|| self.path.clone())
    }

    /// Replaces nvcc's path of the source by its display name, and its `file(line)`
    /// locations by `file:line`.
    pub(crate) fn rename_in_text(&self, text: &str) -> String {
        crate::compile::messages::colon_locations(&self.renamed(text))
    }

    /// A preprocessed text of the source with the line markers its `#line` directive
    /// gave (naming the Rust file, counting its lines) naming the staged file and counting
    /// the value's lines, as the front end reads an inline source.
    pub(crate) fn unaliased(&self, preprocessed: &str) -> String {
        match &self.line_origin {
            Some((file, line)) => crate::front::linemap::rename_markers(
                preprocessed,
                file,
                &self.path.to_string_lossy(),
                line - 1,
            ),
            None => preprocessed.to_owned(),
        }
    }

    /// Whether `dep` (a file the source was read from) is the Rust file its `#line`
    /// directive names, which is no dependency of the device code.
    pub(crate) fn is_line_origin(&self, dep: &Path) -> bool {
        self.line_origin
            .as_ref()
            .is_some_and(|(file, _)| dep == Path::new(file))
    }

    /// Replaces nvcc's path of the source by its display name (and a location in the Rust
    /// file its `#line` directive names by the value's line).
    fn renamed(&self, text: &str) -> String {
        let text = match &self.line_origin {
            Some((file, line)) => value_locations(text, file, *line, &self.display_name),
            None => text.to_owned(),
        };
        let lossy = self.path.to_string_lossy();
        let renamed = text.replace(&*lossy, &self.display_name);
        // nvcc's front end prints a byte that is not UTF-8 as `?`.
        let questioned = lossy.replace(char::REPLACEMENT_CHARACTER, "?");
        if questioned == lossy {
            return renamed;
        }
        renamed.replace(&questioned, &self.display_name)
    }

    pub(crate) fn rename_in_error(&self, e: Error) -> Error {
        retell_nvcc_error(e, &|text| self.rename_in_text(text))
    }
}

/// An nvcc failure with its location and output told through `retell`; other errors as
/// they are.
pub(crate) fn retell_nvcc_error(e: Error, retell: &dyn Fn(&str) -> String) -> Error {
    match e {
        Error::NvccFailed {
            location,
            status,
            command,
            output,
            hint,
        } => Error::NvccFailed {
            location: location.map(|l| retell(&l)),
            status,
            command,
            output: retell(&output),
            hint,
        },
        other => other,
    }
}

/// `text` with every location in `file` (nvcc's `file(LINE)`, or `file:LINE`) told in
/// `display` at the value's line, where the value's first line is `first` of `file`.
fn value_locations(text: &str, file: &str, first: u32, display: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // The whole of a path only: `/mnt/c/src/main.rs` names another file than `/c/src/main.rs`.
    let path_byte = |b: u8| b.is_ascii_alphanumeric() || b"/\\._-~+".contains(&b);
    while let Some(at) = rest.find(file) {
        let after = &rest[at + file.len()..];
        let before = match at {
            0 => out.as_bytes().last(),
            _ => rest.as_bytes().get(at - 1),
        };
        let whole = !before.is_some_and(|&b| path_byte(b));
        let (open, close) = match after.as_bytes().first() {
            Some(b'(') if whole => ("(", ")"),
            Some(b':') if whole => (":", ""),
            _ => {
                out.push_str(&rest[..at + file.len()]);
                rest = after;
                continue;
            }
        };
        let digits_at = &after[open.len()..];
        let digits = digits_at.bytes().take_while(u8::is_ascii_digit).count();
        let number: Option<u32> = digits_at[..digits].parse().ok();
        let tail = &digits_at[digits..];
        match number {
            Some(n) if n >= first && tail.starts_with(close) => {
                out.push_str(&rest[..at]);
                out.push_str(&format!("{display}{open}{}{close}", n - first + 1));
                rest = &tail[close.len()..];
            }
            _ => {
                out.push_str(&rest[..at + file.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The display name of inline source text, in every message about it.
pub fn inline_display_name(module: &str) -> String {
    format!("<inline {module}>")
}

/// The sources of a request: one, or one per file of [`SourceInput::Files`].
pub(crate) fn resolve_sources(
    req: &ModuleRequest,
    cache: Option<&Cache>,
    debug: DeviceDebug,
) -> Result<Vec<Source>, Error> {
    match &req.source {
        SourceInput::Files { paths } if paths.is_empty() => Err(Error::InvalidOption(
            crate::diagnostics::options::no_files(&req.name),
        )),
        SourceInput::Files { paths } => {
            let mut seen = std::collections::HashSet::new();
            let mut out = Vec::new();
            for path in paths {
                let full = req.base_dir.join(path);
                if !seen.insert(full) {
                    return Err(Error::InvalidOption(
                        crate::diagnostics::options::file_twice(
                            &req.name,
                            &path.display().to_string(),
                        ),
                    ));
                }
                out.push(resolve_file(req, path)?);
            }
            Ok(out)
        }
        SourceInput::File { path } => Ok(vec![resolve_file(req, path)?]),
        SourceInput::Inline { text } => Ok(vec![resolve_inline(req, text, cache, debug)?]),
    }
}

fn resolve_file(req: &ModuleRequest, path: &Path) -> Result<Source, Error> {
    let includes: Vec<PathBuf> = req.includes.iter().map(|d| req.base_dir.join(d)).collect();
    let full = req.base_dir.join(path);
    let text =
        std::fs::read(&full).map_err(|e| Error::io("failed to read the CUDA source", &full, e))?;
    let mut user_dirs = vec![full.parent().map(Path::to_path_buf).unwrap_or_default()];
    user_dirs.extend(includes.iter().cloned());
    user_dirs.extend(req.user_dirs.iter().map(|d| req.base_dir.join(d)));
    Ok(Source {
        display_name: path.display().to_string(),
        path: full,
        text: String::from_utf8_lossy(&text).into_owned(),
        user_dirs,
        includes,
        is_file: true,
        line_origin: None,
    })
}

/// Inline text, staged; with line tables and a known place in the Rust file, after a
/// `#line` directive naming it.
fn resolve_inline(
    req: &ModuleRequest,
    text: &str,
    cache: Option<&Cache>,
    debug: DeviceDebug,
) -> Result<Source, Error> {
    let includes: Vec<PathBuf> = req.includes.iter().map(|d| req.base_dir.join(d)).collect();
    let line_origin = req
        .inline_origin
        .as_ref()
        .filter(|_| debug != DeviceDebug::None)
        .map(|(file, line)| (file.to_string_lossy().into_owned(), (*line).max(1)));
    let path = match &line_origin {
        Some((file, line)) => {
            let quoted = crate::front::linemap::quoted(file);
            stage_inline(&format!("#line {line} {quoted}\n{text}"), cache)?
        }
        None => stage_inline(text, cache)?,
    };
    let mut user_dirs = vec![req.base_dir.clone()];
    user_dirs.extend(includes.iter().cloned());
    user_dirs.extend(req.user_dirs.iter().map(|d| req.base_dir.join(d)));
    Ok(Source {
        path,
        display_name: inline_display_name(&req.name),
        text: text.to_owned(),
        includes: user_dirs.clone(),
        user_dirs,
        is_file: false,
        line_origin,
    })
}

/// Writes inline text to a file named by its hash, so nvcc always sees the same path
/// for the same text (which keeps cache keys stable).
fn stage_inline(text: &str, cache: Option<&Cache>) -> Result<PathBuf, Error> {
    let name = format!("{}.cu", &crate::cache::hash_bytes(text.as_bytes())[..32]);
    let dir = stage_files(
        Path::new("sources"),
        Path::new("kernel-build-sources"),
        &[(name.as_str(), text)],
        cache,
        "failed to stage the inline CUDA source",
    )?;
    Ok(dir.join(name))
}

/// Writes `files` (names below the folder, and texts) into a folder of the cache (`in_cache`
/// below its root), else of the temporary folder (`in_temp`), leaving a file that already
/// holds its text as it is; returns the folder. A folder named by its files' content keeps
/// their paths, and so the cache's keys, stable.
pub(super) fn stage_files(
    in_cache: &Path,
    in_temp: &Path,
    files: &[(&str, &str)],
    cache: Option<&Cache>,
    action: &'static str,
) -> Result<PathBuf, Error> {
    let same = |path: &Path, text: &str| std::fs::read(path).is_ok_and(|b| b == text.as_bytes());
    if let Some(cache) = cache {
        let dir = cache.root().join(in_cache);
        let written = files.iter().all(|(name, text)| {
            let path = dir.join(name);
            same(&path, text) || cache.write_file(&path, text.as_bytes()).is_ok()
        });
        if written {
            return Ok(dir);
        }
    }
    let dir = std::env::temp_dir().join(in_temp);
    for (name, text) in files {
        let path = dir.join(name);
        if !same(&path, text) {
            path.parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, text))
                .map_err(|e| Error::io(action, &path, e))?;
        }
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> ModuleRequest {
        ModuleRequest::new(
            "m",
            SourceInput::Inline {
                text: String::new(),
            },
        )
    }

    #[test]
    fn constants_are_integers_named_once() {
        let mut req = request();
        assert!(req.includes.is_empty());
        req.constant_text("TILE: u32").unwrap();
        req.constant_text("STEPS").unwrap();
        assert!(req.constant_text("TILE: f32").is_err());
        assert!(req.constant_text("2X").is_err());
        assert_eq!(req.constants[1], ("STEPS".to_owned(), "i64".to_owned()));
    }

    #[test]
    fn definitions_and_names_must_be_identifiers() {
        let mut req = request();
        req.define_text("N=4").unwrap();
        assert!(req.define_text("4N").is_err());
        assert_eq!(req.defines, [("N".to_owned(), Some("4".to_owned()))]);
        assert!(req.define("BLOCK", Some("256")).is_ok());
        assert!(req.define("BAD NAME", None).is_err());
        assert!(req.set_name("my-mod").is_err());
        assert!(req.set_name("my_mod").is_ok());
    }

    #[test]
    fn locations_in_the_rust_file_are_told_as_the_values_lines() {
        let nvcc = "/c/src/main.rs(14): error: x\n/c/src/main.rs(9x) /c/src/main.rs(3): y";
        assert_eq!(
            value_locations(nvcc, "/c/src/main.rs", 12, "<inline k>"),
            "<inline k>(3): error: x\n/c/src/main.rs(9x) /c/src/main.rs(3): y"
        );
        assert_eq!(
            value_locations(
                "at /c/src/main.rs:15 and /c/src/main.rs",
                "/c/src/main.rs",
                12,
                "<i>"
            ),
            "at <i>:4 and /c/src/main.rs"
        );
        assert_eq!(
            value_locations(
                "/mnt/c/src/main.rs(14) x/c/src/main.rs:13 \"/c/src/main.rs\", line 13",
                "/c/src/main.rs",
                12,
                "<i>"
            ),
            "/mnt/c/src/main.rs(14) x/c/src/main.rs:13 \"/c/src/main.rs\", line 13",
            "another file's path that ends in the Rust file's is left alone"
        );
        assert_eq!(
            value_locations("(/c/src/main.rs:13)", "/c/src/main.rs", 12, "<i>"),
            "(<i>:2)"
        );
    }

    #[test]
    fn an_inline_source_with_line_tables_names_its_rust_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut req = ModuleRequest::new(
            "k",
            SourceInput::Inline {
                text: "__global__ void k() {}".into(),
            },
        );
        req.base_dir = dir.path().to_path_buf();
        req.inline_origin = Some((dir.path().join("src/main.rs"), 12));
        let cache = Cache::at(dir.path());
        let sources = resolve_sources(&req, Some(&cache), DeviceDebug::Lines).unwrap();
        let staged = std::fs::read_to_string(&sources[0].path).unwrap();
        let rs = dir.path().join("src/main.rs").display().to_string();
        assert_eq!(
            staged,
            format!("#line 12 \"{rs}\"\n__global__ void k() {{}}")
        );
        assert!(sources[0].is_line_origin(Path::new(&rs)));
        let without = resolve_sources(&req, Some(&cache), DeviceDebug::None).unwrap();
        assert_eq!(
            std::fs::read_to_string(&without[0].path).unwrap(),
            "__global__ void k() {}"
        );
        assert_eq!(without[0].line_origin, None);
    }

    #[test]
    fn a_context_caches_by_default_and_inline_text_has_a_display_name() {
        let cx = Context {
            reporting: Reporting::Cargo,
            ..Context::default()
        };
        assert!(cx.use_cache);
        assert_eq!(inline_display_name("k"), "<inline k>");
    }
}
