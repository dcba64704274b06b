//! The harness of the broken-input corpus: builds one input through the real pipeline
//! under `catch_unwind`, then checks what the failure left behind.
//!
//! After every failed build the cache must hold no half-written or unreadable object and
//! no staging leftovers, the same input must fail the same way again, and a good module
//! must then build in the same cache.

#![allow(dead_code)]

use cuda_kernel_build::__private::{Context, ModuleRequest, SourceInput, build_module};
use cuda_kernel_build::BuiltModule;
use cuda_kernel_build::Error;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// A small module that must always build.
pub const GOOD: &str = r#"extern "C" __global__ void scale(float* x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}
"#;

/// The committed corpus folder.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken")
}

/// A request for `file` (relative to `base`), compiled for `archs`.
pub fn request(base: &Path, file: impl Into<PathBuf>, archs: &[&str]) -> ModuleRequest {
    let file = file.into();
    let stem = file
        .file_stem()
        .map(|s| {
            s.to_string_lossy()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        })
        .unwrap_or_default();
    let mut req = ModuleRequest::new(stem, SourceInput::File { path: file });
    req.base_dir = base.to_path_buf();
    req.archs = Some(archs.iter().map(|a| a.to_string()).collect());
    req
}

/// A context with an explicit nvcc and cache.
pub fn context(nvcc: &Path, cache: &Path) -> Context {
    Context {
        nvcc: Some(nvcc.to_path_buf()),
        cache_dir: Some(cache.to_path_buf()),
        ..Context::default()
    }
}

/// Runs the pipeline, turning a panic into a test failure that says which input caused it.
pub fn build_no_panic(req: &ModuleRequest, cx: &Context) -> Result<BuiltModule, Error> {
    match catch_unwind(AssertUnwindSafe(|| build_module(req, cx))) {
        Ok(result) => result,
        Err(p) => {
            let why = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("build_module panicked on `{}`: {why}", req.name)
        }
    }
}

/// Where an error says the problem is, as `file:line`.
pub fn location(err: &Error) -> Option<String> {
    match err {
        Error::NvccFailed { location, .. } => location.clone(),
        Error::Diagnostics(d) => d
            .iter()
            .find_map(|d| d.loc.as_ref().map(|l| format!("{}:{}", l.file, l.line))),
        _ => None,
    }
}

/// The first line of an error's message, with the random part of staging folder names
/// (`object-XXXXXX`) blanked so that two runs compare equal.
pub fn headline(err: &Error) -> String {
    let text = err.to_string();
    let first = text.lines().next().unwrap_or_default();
    let mut out = String::new();
    let mut rest = first;
    while let Some(pos) = rest.find("object-") {
        out.push_str(&rest[..pos + "object-".len()]);
        out.push('*');
        rest =
            rest[pos + "object-".len()..].trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    }
    out.push_str(rest);
    out
}

/// Builds a broken input and checks everything the corpus promises about its failure:
/// an error (never a panic), a valid cache, the same error on a second try, and a good
/// build in the same cache afterwards. Returns the error for case-specific checks.
pub fn expect_failure(nvcc: &Path, req: &ModuleRequest) -> Error {
    expect_failure_then(nvcc, nvcc, req)
}

/// [`expect_failure`] with `nvcc` for the broken builds and `good_nvcc` for the good one.
pub fn expect_failure_then(nvcc: &Path, good_nvcc: &Path, req: &ModuleRequest) -> Error {
    let cache = tempfile::tempdir().unwrap();
    let cx = context(nvcc, cache.path());
    let err = match build_no_panic(req, &cx) {
        Err(e) => e,
        Ok(built) => panic!("`{}` built: {:?}", req.name, built.info.kernels),
    };
    assert_cache_valid(cache.path());
    let again = build_no_panic(req, &cx).expect_err("the second build succeeded");
    assert_eq!(
        headline(&again),
        headline(&err),
        "the same input failed differently"
    );
    assert_cache_valid(cache.path());
    assert_good_build(good_nvcc, cache.path());
    err
}

/// A good module builds in `cache` (and its object is then valid).
pub fn assert_good_build(nvcc: &Path, cache: &Path) {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("good.cu"), GOOD).unwrap();
    let req = request(project.path(), "good.cu", &["sm_80"]);
    let built = build_no_panic(&req, &context(nvcc, cache)).expect("the good module must build");
    assert_eq!(built.info.kernels.len(), 1);
    assert_cache_valid(cache);
    assert!(
        objects(cache).count() >= 1,
        "the good build left no object in the cache"
    );
}

fn objects(cache: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(cache.join("v1/objects"))
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().path())
}

/// No staging leftovers, and every object's model and fatbin read back and agree.
pub fn assert_cache_valid(cache: &Path) {
    let tmp = cache.join("v1/tmp");
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        let left: Vec<_> = entries.map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "staging leftovers in the cache: {left:?}");
    }
    for dir in objects(cache) {
        let json = std::fs::read(dir.join("module.json"))
            .unwrap_or_else(|e| panic!("{}: no module.json: {e}", dir.display()));
        let meta: serde_json::Value = serde_json::from_slice(&json)
            .unwrap_or_else(|e| panic!("{}: module.json does not parse: {e}", dir.display()));
        let fatbin = std::fs::read(dir.join("module.fatbin"))
            .unwrap_or_else(|e| panic!("{}: no module.fatbin: {e}", dir.display()));
        assert_eq!(
            meta["fatbin_hash"].as_str(),
            Some(blake3::hash(&fatbin).to_hex().as_str()),
            "{}: module.fatbin does not match its recorded hash",
            dir.display()
        );
        cuda_kernel_objects::parse(&fatbin)
            .unwrap_or_else(|e| panic!("{}: module.fatbin does not read: {e}", dir.display()));
    }
}
