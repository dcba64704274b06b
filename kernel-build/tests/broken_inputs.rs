//! The broken-input corpus (`tests/broken/`), each file named for what it breaks, built
//! through the real pipeline with the real nvcc.
//!
//! Every case must come back as an `Err` (never a panic) naming the file and line where the
//! problem is, leave the cache valid (no staging leftovers, every object readable and
//! matching its hash), fail the same way when built again, and let a good module build in
//! the same cache afterwards (see `broken_support`). Generated inputs (a very large file, a
//! very long line), hostile paths, an unwritable cache, a misbehaving nvcc and two processes
//! building at once are below the corpus cases.

mod broken_support;
mod support;

use broken_support::{
    assert_cache_valid, build_no_panic, context, corpus_dir, expect_failure, expect_failure_then,
    location, request,
};
use cuda_kernel_build::Error;
use std::path::Path;
use support::{FakeNvcc, real_nvcc};

/// Builds `tests/broken/<file>` for `archs` and checks its failure is located at `at`.
fn case_at(file: &str, archs: &[&str], at: Option<&str>) -> Option<Error> {
    let nvcc = real_nvcc()?;
    let err = expect_failure(&nvcc, &request(&corpus_dir(), file, archs));
    assert_eq!(location(&err).as_deref(), at, "{err}");
    if let Some(at) = at {
        assert!(
            err.to_string().contains(at),
            "the message does not name {at}: {err}"
        );
    }
    Some(err)
}

/// A corpus case located at `file:line` of the input itself, compiled for sm_80.
macro_rules! located {
    ($($name:ident: $line:expr;)*) => {$(
        #[test]
        fn $name() {
            let file = concat!(stringify!($name), ".cu");
            case_at(file, &["sm_80"], Some(&format!("{file}:{}", $line)));
        }
    )*};
}

located! {
    syntax_missing_semicolon: 4;
    unknown_param_type: 4;
    unknown_type_in_body: 4;
    missing_include: 2;
    include_recursion: 2;
    unterminated_comment: 3;
    unterminated_string: 3;
    unbalanced_if: 2;
    error_directive: 4;
    static_assert_fails: 3;
    non_void_kernel: 2;
    variadic_kernel: 2;
    host_call_from_kernel: 4;
    incomplete_struct_param: 3;
    oversized_param_struct: 3;
    duplicate_kernel_definition: 4;
    duplicate_extern_c_overload: 4;
    conflicting_template_instantiation: 4;
    template_instantiation_mismatch: 4;
    specialization_after_use: 4;
    crlf_line_endings: 4;
    nul_byte: 3;
    // The first of nvcc's errors in the committed random bytes.
    binary_garbage: 6;
}

/// The header's own location, as nvcc names it (the path it was given).
fn header_at(header: &str, line: u32) -> String {
    format!("{}:{line}", corpus_dir().join(header).display())
}

#[test]
fn missing_include_in_header() {
    let at = header_at("include/includes_missing.h", 3);
    case_at("missing_include_in_header.cu", &["sm_80"], Some(&at));
}

#[test]
fn error_in_header() {
    let at = header_at("include/broken_typedef.h", 2);
    case_at("error_in_header.cu", &["sm_80"], Some(&at));
}

#[test]
fn arch_gated_signature() {
    let Some(err) = case_at(
        "arch_gated_signature.cu",
        &["sm_80", "sm_90"],
        Some("arch_gated_signature.cu:7"),
    ) else {
        return;
    };
    let text = err.to_string();
    assert!(
        text.contains("kernel `scale` has different parameters for compute_80 and compute_90"),
        "{text}"
    );
    assert!(
        text.contains("compute_80: (float a @ 0+4, float* x @ 8+8, int n @ 16+4)"),
        "{text}"
    );
    assert!(
        text.contains("compute_90: (double a @ 0+8, double* x @ 8+8, int n @ 16+4)"),
        "{text}"
    );
}

/// nvcc reports this error "At end of source" and names the unmatched brace only in the
/// note that follows; the error takes the note's location.
#[test]
fn syntax_unbalanced_brace() {
    case_at(
        "syntax_unbalanced_brace.cu",
        &["sm_80"],
        Some("syntax_unbalanced_brace.cu:2"),
    );
}

/// `only_hopper` is declared for `__CUDA_ARCH__ >= 900` only. With
/// `require_every_target` its absence from the sm_80 image is an error at its declaration.
#[test]
fn arch_gated_kernel_required_everywhere() {
    let Some(nvcc) = real_nvcc() else { return };
    let mut req = request(&corpus_dir(), "arch_gated_kernel.cu", &["sm_80", "sm_90"]);
    req.require_every_target = true;
    let err = expect_failure(&nvcc, &req);
    assert_eq!(
        location(&err).as_deref(),
        Some("arch_gated_kernel.cu:4"),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("`only_hopper` (symbol `only_hopper`) is missing from the sm_80 image"),
        "{text}"
    );
}

/// Without `require_every_target` the same source builds: every target's device pass is
/// parsed, `only_hopper` is in the sm_90 image only, and one warning says so.
#[test]
fn arch_gated_kernel_builds_for_its_targets() {
    let Some(nvcc) = real_nvcc() else { return };
    let cache = tempfile::tempdir().unwrap();
    let req = request(&corpus_dir(), "arch_gated_kernel.cu", &["sm_80", "sm_90"]);
    let built = build_no_panic(&req, &context(&nvcc, cache.path())).expect("it must build");
    let on: Vec<(&str, Vec<String>)> = built
        .info
        .kernels
        .iter()
        .map(|k| (k.name.as_str(), k.targets()))
        .collect();
    assert_eq!(
        on,
        [
            ("everywhere", vec!["sm_80".to_string(), "sm_90".to_string()]),
            ("only_hopper", vec!["sm_90".to_string()]),
        ]
    );
    let summary: Vec<&String> = built
        .warnings
        .iter()
        .filter(|w| w.contains("not in every image"))
        .collect();
    assert_eq!(summary.len(), 1, "{:?}", built.warnings);
    assert!(
        summary[0].contains("1 of 2 kernels") && summary[0].contains("only_hopper (only sm_90)"),
        "{}",
        summary[0]
    );
    assert_cache_valid(cache.path());
}

/// No kernel at all (an empty file, a file of comments, a template never instantiated):
/// an error at the start of the file that says so, not a module with nothing to launch.
macro_rules! no_kernels {
    ($($name:ident;)*) => {$(
        #[test]
        fn $name() {
            let file = concat!(stringify!($name), ".cu");
            let Some(err) = case_at(file, &["sm_80"], Some(&format!("{file}:1"))) else {
                return;
            };
            let text = err.to_string();
            assert!(text.contains("declares no `__global__` kernel"), "{text}");
        }
    )*};
}

no_kernels! {
    empty;
    comments_only;
    template_never_instantiated;
}

/// Writes a generated input into a fresh project folder.
fn generated(name: &str, text: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    dir
}

#[test]
fn very_large_file() {
    let Some(nvcc) = real_nvcc() else { return };
    // About 12 MB: 100,000 comment lines, 20,000 device functions, then an error.
    let mut text = String::from("// A very large file with an error on its last line.\n");
    for i in 0..100_000 {
        text.push_str(&format!("// padding line {i:06} ........................................................................\n"));
    }
    for i in 0..20_000 {
        text.push_str(&format!(
            "__device__ float f{i}(float x) {{ return x * {i}.0f; }}\n"
        ));
    }
    text.push_str("extern \"C\" __global__ void scale(float* x, int n) {}\n");
    text.push_str("extern \"C\" __global__ void broken(float* x, int n) { x[0] = missing; }\n");
    let last = text.lines().count();
    let dir = generated("very_large.cu", text.as_bytes());
    let err = expect_failure(&nvcc, &request(dir.path(), "very_large.cu", &["sm_80"]));
    assert_eq!(
        location(&err),
        Some(format!("very_large.cu:{last}")),
        "{err}"
    );
}

#[test]
fn very_long_line() {
    let Some(nvcc) = real_nvcc() else { return };
    // One 2 MB line of declarations ending in an error.
    let mut line = String::new();
    for i in 0..50_000 {
        line.push_str(&format!("__device__ int g{i} = {i}; "));
    }
    line.push_str("extern \"C\" __global__ void k(int* x) { x[0] = missing; }");
    let text = format!("// One very long line.\n{line}\n");
    let dir = generated("very_long_line.cu", text.as_bytes());
    let err = expect_failure(&nvcc, &request(dir.path(), "very_long_line.cu", &["sm_80"]));
    assert_eq!(
        location(&err).as_deref(),
        Some("very_long_line.cu:2"),
        "{err}"
    );
}

#[test]
fn error_in_a_path_with_spaces_and_non_utf8_bytes() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let sub = hostile_folder(dir.path());
    std::fs::copy(
        corpus_dir().join("syntax_missing_semicolon.cu"),
        sub.join("k.cu"),
    )
    .unwrap();
    let rel = sub.strip_prefix(dir.path()).unwrap().join("k.cu");
    let err = expect_failure(&nvcc, &request(dir.path(), &rel, &["sm_80"]));
    // The path as written, with the byte that is not UTF-8 shown as U+FFFD.
    let want = format!("{}:4", rel.display());
    assert_eq!(location(&err).as_deref(), Some(want.as_str()), "{err}");
}

/// `<base>/with space/caf\xe9 dir`: a space and a byte that is not UTF-8 (Latin-1 é).
fn hostile_folder(base: &Path) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9 dir");
    let sub = base.join("with space").join(name);
    std::fs::create_dir_all(&sub).unwrap();
    sub
}

/// Builds the good module from `<project>/<folder>/good kernels.cu` into a cache in a folder
/// with a space and a byte that is not UTF-8, twice (cold, then warm from the cache).
fn build_good_in(folder: &Path) {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join(folder);
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("good kernels.cu"), broken_support::GOOD).unwrap();
    let cache = hostile_folder(&dir.path().join("cache"));
    let req = request(dir.path(), folder.join("good kernels.cu"), &["sm_80"]);
    let cx = context(&nvcc, &cache);
    let built = build_no_panic(&req, &cx).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(built.info.kernels[0].name, "scale");
    let loc = built.info.kernels[0].loc.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        (&*folder.join("good kernels.cu").to_string_lossy(), 1)
    );
    assert!(built.fatbin_path.as_ref().unwrap().starts_with(&cache));
    assert_cache_valid(&cache);
    assert_eq!(build_no_panic(&req, &cx).unwrap(), built);
}

#[test]
fn good_module_in_a_path_with_spaces() {
    build_good_in(Path::new("with space/more spaces"));
}

#[test]
fn good_module_in_a_path_with_a_non_utf8_byte() {
    use std::os::unix::ffi::OsStrExt;
    build_good_in(Path::new(std::ffi::OsStr::from_bytes(
        b"with space/caf\xe9 dir",
    )));
}

#[test]
fn unwritable_cache_keeps_the_located_error() {
    let Some(nvcc) = real_nvcc() else { return };
    // A cache below a regular file cannot be created, even by root.
    let blocker = tempfile::NamedTempFile::new().unwrap();
    let cache = blocker.path().join("cache");
    let req = request(&corpus_dir(), "syntax_missing_semicolon.cu", &["sm_80"]);
    let err = build_no_panic(&req, &context(&nvcc, &cache)).unwrap_err();
    assert_eq!(
        location(&err).as_deref(),
        Some("syntax_missing_semicolon.cu:4"),
        "{err}"
    );
    let project = generated("good.cu", broken_support::GOOD.as_bytes());
    let good = request(project.path(), "good.cu", &["sm_80"]);
    let built = build_no_panic(&good, &context(&nvcc, &cache)).unwrap();
    assert!(
        built.warnings.iter().any(|w| w.contains("not writable")),
        "{:?}",
        built.warnings
    );
}

#[test]
fn nvcc_killed_mid_run() {
    let Some(real) = real_nvcc() else { return };
    let killed = FakeNvcc::new("killed", &real);
    let req = request(&corpus_dir(), "../cuda/small.cu", &["sm_80"]);
    let err = expect_failure_then(&killed.path, &real, &req);
    assert!(
        matches!(&err, Error::NvccFailed { status, .. } if status.contains("signal: 9")),
        "{err}"
    );
}

#[test]
fn nvcc_writing_garbage_instead_of_a_fatbin() {
    let Some(real) = real_nvcc() else { return };
    let garbage = FakeNvcc::new("garbage", &real);
    let req = request(&corpus_dir(), "../cuda/small.cu", &["sm_80"]);
    let err = expect_failure_then(&garbage.path, &real, &req);
    assert!(matches!(err, Error::Fatbin { .. }), "{err}");
}

#[test]
fn nvcc_printing_binary_garbage_still_builds() {
    let Some(real) = real_nvcc() else { return };
    let noisy = FakeNvcc::new("noisy", &real);
    let cache = tempfile::tempdir().unwrap();
    let req = request(&corpus_dir(), "../cuda/small.cu", &["sm_80"]);
    let built = build_no_panic(&req, &context(&noisy.path, cache.path())).unwrap();
    let reference = tempfile::tempdir().unwrap();
    let want = build_no_panic(&req, &context(&real, reference.path())).unwrap();
    assert_eq!(built.info, want.info);
    assert_cache_valid(cache.path());
}

#[test]
fn two_processes_build_one_module_into_one_cache() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let project = generated("k.cu", broken_support::GOOD.as_bytes());
    let cache = tempfile::tempdir().unwrap();
    // Each build is this test binary again, running only the ignored child below.
    let child = |nvcc: &Path| {
        std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_build_into_shared_cache",
                "--ignored",
                "--nocapture",
            ])
            .env("KERNEL_TEST_CHILD_PROJECT", project.path())
            .env("KERNEL_TEST_CHILD_CACHE", cache.path())
            .env("KERNEL_TEST_CHILD_NVCC", nvcc)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let kernels = |child: std::process::Child| {
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}{}",
            text,
            String::from_utf8_lossy(&out.stderr)
        );
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("kernels: "))
            .unwrap_or_else(|| panic!("the child printed no kernels: {text}"));
        line.to_owned()
    };
    let (a, b) = (child(&fake.path), child(&fake.path));
    let (a, b) = (kernels(a), kernels(b));
    assert_eq!(a, b);
    assert_eq!(a, "scale");
    assert_cache_valid(cache.path());
    let runs = fake.work_runs();
    println!("nvcc ran {runs} times for the two concurrent builds");
    assert!(runs >= 2, "{:?}", fake.runs());
    assert_eq!(kernels(child(&fake.path)), a);
    assert_eq!(
        fake.work_runs(),
        runs,
        "the third build ran nvcc: {:?}",
        fake.runs()
    );
}

/// One build of the test above, in a process of its own: the project, cache and nvcc come
/// from the variables the parent sets; prints the kernels' names.
#[test]
#[ignore = "a child process of two_processes_build_one_module_into_one_cache"]
fn child_build_into_shared_cache() {
    #[allow(
        clippy::disallowed_methods,
        reason = "set by the parent test for this child"
    )]
    let var = |name: &str| std::env::var_os(name).map(std::path::PathBuf::from);
    let (Some(project), Some(cache), Some(nvcc)) = (
        var("KERNEL_TEST_CHILD_PROJECT"),
        var("KERNEL_TEST_CHILD_CACHE"),
        var("KERNEL_TEST_CHILD_NVCC"),
    ) else {
        panic!("run by two_processes_build_one_module_into_one_cache only");
    };
    let built = build_no_panic(
        &request(&project, "k.cu", &["sm_80"]),
        &context(&nvcc, &cache),
    )
    .unwrap();
    let names: Vec<&str> = built.info.kernels.iter().map(|k| k.name.as_str()).collect();
    println!("kernels: {}", names.join(","));
}

/// Without nvcc (`cargo doc`, docs.rs) the raw source is read once per target, so the
/// module has the same kernels as a real build: `only_hopper` is there for sm_90.
#[test]
fn arch_gated_kernel_without_nvcc_has_the_same_kernels() {
    let mut req = request(&corpus_dir(), "arch_gated_kernel.cu", &["sm_80", "sm_90"]);
    let cx = cuda_kernel_build::__private::Context {
        no_device_code: true,
        use_cache: false,
        ..Default::default()
    };
    let built = build_no_panic(&req, &cx).expect("it must parse");
    let names: Vec<&str> = built.info.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["everywhere", "only_hopper"]);
    // With sm_80 only, the Hopper kernel is not declared.
    req.archs = Some(vec!["sm_80".into()]);
    let built = build_no_panic(&req, &cx).expect("it must parse");
    assert_eq!(built.info.kernels.len(), 1);
}
