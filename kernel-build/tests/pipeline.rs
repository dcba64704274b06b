//! The build pipeline with a fake nvcc that logs its runs and misbehaves on request:
//! missing nvcc, failing nvcc, bad arch names, missing headers, an unwritable cache,
//! warm rebuilds (no nvcc run), header edits (rebuild), garbage output, a killed nvcc,
//! and concurrent builds of the same module.

mod support;

use cuda_kernel_build::__private::{Context, ModuleRequest, SourceInput, build_module};
use cuda_kernel_build::BuiltModule;
use cuda_kernel_build::Error;
use std::path::Path;
use support::{FakeNvcc, project, real_nvcc};

const SAXPY: &str = r#"#include "real.h"
extern "C" __global__ void saxpy(real a, const real* x, real* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn request(dir: &Path) -> ModuleRequest {
    let mut req = ModuleRequest::new(
        "vecmath",
        SourceInput::File {
            path: "k.cu".into(),
        },
    );
    req.base_dir = dir.to_path_buf();
    req.archs = Some(vec!["sm_80".into(), "compute_80".into()]);
    req
}

fn context(nvcc: &Path, cache: &Path) -> Context {
    Context {
        nvcc: Some(nvcc.to_path_buf()),
        cache_dir: Some(cache.to_path_buf()),
        ..Context::default()
    }
}

fn param_sizes(m: &BuiltModule) -> Vec<u64> {
    m.info.kernels[0]
        .params
        .iter()
        .map(|p| p.layout.size)
        .collect()
}

#[test]
fn missing_nvcc_lists_every_place_tried() {
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    let cx = Context {
        nvcc: Some("/nonexistent/bin/nvcc".into()),
        ..Context::default()
    };
    let err = build_module(&request(dir.path()), &cx).unwrap_err();
    assert!(matches!(err, Error::NvccNotFound { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("/nonexistent/bin/nvcc"), "{msg}");
    // The nvcc was named on purpose: the fix is that setting, not an install.
    assert!(
        msg.contains("give `Build::nvcc` the path of an nvcc"),
        "{msg}"
    );
}

#[test]
fn failing_nvcc_reports_command_status_and_line() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("fail", &real);
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    let cache = tempfile::tempdir().unwrap();
    let err = build_module(&request(dir.path()), &context(&fake.path, cache.path())).unwrap_err();
    match &err {
        Error::NvccFailed {
            location,
            status,
            command,
            output,
            ..
        } => {
            assert_eq!(location.as_deref(), Some("k.cu:3"), "{err}");
            assert!(status.contains('2'), "{status}");
            assert!(
                command.contains("-fatbin") && command.contains("arch=compute_80,code=sm_80"),
                "{command}"
            );
            assert!(output.contains("simulated failure"), "{output}");
        }
        other => panic!("expected NvccFailed, got {other}"),
    }
    assert!(
        err.to_string().starts_with("nvcc failed at k.cu:3"),
        "{err}"
    );
}

#[test]
fn bad_arch_name_is_rejected_before_compiling() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    let cache = tempfile::tempdir().unwrap();
    let mut req = request(dir.path());
    for bad in ["sm_91", "sm_80x", "gfx90a"] {
        req.archs = Some(vec!["sm_80".into(), bad.into()]);
        let err = build_module(&req, &context(&fake.path, cache.path())).unwrap_err();
        match &err {
            Error::UnknownArch { arch, supported } => {
                assert_eq!(arch, bad);
                assert!(supported.contains(&"sm_90".to_string()), "{supported:?}");
            }
            other => panic!("expected UnknownArch for {bad}, got {other}"),
        }
    }
    assert_eq!(fake.work_runs(), 0, "{:?}", fake.runs());
}

#[test]
fn missing_header_names_file_and_line() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[("k.cu", SAXPY)]);
    let cache = tempfile::tempdir().unwrap();
    let err = build_module(&request(dir.path()), &context(&fake.path, cache.path())).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("real.h"), "{msg}");
    assert!(msg.contains("k.cu:1"), "{msg}");
}

#[test]
fn unwritable_cache_still_builds_and_warns() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    // A cache "directory" below a regular file cannot be created, even by root.
    let blocker = tempfile::NamedTempFile::new().unwrap();
    let cx = context(&fake.path, &blocker.path().join("cache"));
    let built = build_module(&request(dir.path()), &cx).unwrap();
    assert!(built.fatbin_path.as_ref().unwrap().is_file());
    assert_eq!(param_sizes(&built), [4, 8, 8, 4]);
    assert!(
        built.warnings.iter().any(|w| w.contains("not writable")),
        "{:?}",
        built.warnings
    );
}

#[test]
fn warm_rebuild_runs_nvcc_zero_times() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    let cache = tempfile::tempdir().unwrap();
    let cx = context(&fake.path, cache.path());
    let cold = build_module(&request(dir.path()), &cx).unwrap();
    assert_eq!(
        fake.work_runs(),
        1,
        "one compile, no preprocessing run of its own: {:?}",
        fake.runs()
    );
    let before = fake.runs().len();
    let warm = build_module(&request(dir.path()), &cx).unwrap();
    assert_eq!(
        fake.runs().len(),
        before,
        "warm build ran nvcc: {:?}",
        &fake.runs()[before..]
    );
    assert_eq!(cold, warm);
    assert!(
        warm.tracked_files.iter().any(|f| f.ends_with("real.h")),
        "{:?}",
        warm.tracked_files
    );
}

#[test]
fn header_edit_rebuilds_and_touch_does_not() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    let cache = tempfile::tempdir().unwrap();
    let cx = context(&fake.path, cache.path());
    assert_eq!(
        param_sizes(&build_module(&request(dir.path()), &cx).unwrap()),
        [4, 8, 8, 4]
    );

    // Same bytes, new mtime: still no nvcc run.
    let header = dir.path().join("real.h");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&header, "typedef float real;\n").unwrap();
    let runs = fake.work_runs();
    build_module(&request(dir.path()), &cx).unwrap();
    assert_eq!(fake.work_runs(), runs);

    std::fs::write(&header, "typedef double real;\n").unwrap();
    let rebuilt = build_module(&request(dir.path()), &cx).unwrap();
    assert_eq!(fake.work_runs(), runs + 1, "{:?}", fake.runs());
    assert_eq!(param_sizes(&rebuilt), [8, 8, 8, 4]);
}

#[test]
fn garbage_output_is_an_error_and_is_not_cached() {
    let Some(real) = real_nvcc() else { return };
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    let cache = tempfile::tempdir().unwrap();
    let bad = FakeNvcc::new("garbage", &real);
    let err = build_module(&request(dir.path()), &context(&bad.path, cache.path())).unwrap_err();
    assert!(matches!(err, Error::Fatbin { .. }), "{err}");
    let good = FakeNvcc::new("real", &real);
    let built = build_module(&request(dir.path()), &context(&good.path, cache.path())).unwrap();
    assert_eq!(param_sizes(&built), [4, 8, 8, 4]);
}

#[test]
fn killed_nvcc_is_reported_and_leaves_no_entry() {
    let Some(real) = real_nvcc() else { return };
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    let cache = tempfile::tempdir().unwrap();
    let killed = FakeNvcc::new("killed", &real);
    let err = build_module(&request(dir.path()), &context(&killed.path, cache.path())).unwrap_err();
    match &err {
        Error::NvccFailed { status, .. } => assert!(status.contains('9'), "{status}"),
        other => panic!("expected NvccFailed, got {other}"),
    }
    let objects = cache.path().join("v1/objects");
    assert!(!objects.exists() || std::fs::read_dir(&objects).unwrap().next().is_none());
    let good = FakeNvcc::new("real", &real);
    build_module(&request(dir.path()), &context(&good.path, cache.path())).unwrap();
}

#[test]
fn concurrent_builds_of_one_module_both_succeed() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[("k.cu", SAXPY), ("real.h", "typedef float real;\n")]);
    let cache = tempfile::tempdir().unwrap();
    let cx = context(&fake.path, cache.path());
    let req = request(dir.path());
    let results: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|_| s.spawn(|| build_module(&req, &cx)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results {
        assert_eq!(param_sizes(r.as_ref().unwrap()), [4, 8, 8, 4]);
    }
    let runs = fake.runs().len();
    let again = build_module(&req, &cx).unwrap();
    assert_eq!(
        fake.runs().len(),
        runs,
        "the cache must be valid after concurrent builds"
    );
    assert_eq!(&again, results[0].as_ref().unwrap());
}

#[test]
fn missing_library_header_names_the_install_command() {
    let Some(real) = real_nvcc() else { return };
    let has_curand = real
        .parent()
        .and_then(Path::parent)
        .is_some_and(|top| top.join("include/curand_kernel.h").exists());
    if has_curand {
        println!("skipped: this toolkit has cuRAND's headers");
        return;
    }
    let src = "#include <curand_kernel.h>\nextern \"C\" __global__ void k(curandState* s) {}\n";
    let dir = project(&[("k.cu", src)]);
    let cache = tempfile::tempdir().unwrap();
    let err = build_module(&request(dir.path()), &context(&real, cache.path())).unwrap_err();
    let Error::NvccFailed { output, hint, .. } = &err else {
        panic!("expected NvccFailed, got {err}")
    };
    let hint = hint.as_deref().unwrap_or_default();
    assert!(
        hint.starts_with("`curand_kernel.h` is a header of NVIDIA's curand library")
            && hint.contains("cuda-kernel-inspect toolkit install --with curand"),
        "{hint}"
    );
    // The fix comes first, then the command and nvcc's output, each diagnostic once.
    let text = err.to_string();
    let at = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
    assert!(at("hint: `curand_kernel.h`") < at("command:"), "{text}");
    assert!(
        at("command:") < at("fatal error: curand_kernel.h"),
        "{text}"
    );
    assert_eq!(
        output.matches("fatal error: curand_kernel.h").count(),
        1,
        "{output}"
    );
}

/// What `cargo check`/`cargo doc` without nvcc read: the user's headers (beside the file
/// and in its include folders, nested), for structs, typedefs and templates used by the
/// kernels of several files; system headers are left unread; a warning says device code
/// is missing; the headers are tracked.
#[test]
fn a_build_without_nvcc_reads_the_users_headers() {
    let common = "#pragma once\n#include \"inner.cuh\"\n\
                  struct HistParams { int bins; float lo, hi; Inner inner; };\n";
    let inner = "#pragma once\ntypedef float real;\nstruct Inner { real w; };\n";
    let a = "#include <cuda_fp16.h>\n#include \"common.cuh\"\n\
             extern \"C\" __global__ void hist(const real* x, int* out, HistParams p) {}\n";
    let b = "#include \"common.cuh\"\n\
             template <typename T> __global__ void fill(T* x, HistParams p) {}\n\
             template __global__ void fill<real>(real*, HistParams);\n";
    let dir = project(&[
        ("k/a.cu", a),
        ("k/b.cu", b),
        ("include/common.cuh", common),
        ("include/inner.cuh", inner),
    ]);
    let mut req = ModuleRequest::new(
        "hist",
        SourceInput::Files {
            paths: vec!["k/a.cu".into(), "k/b.cu".into()],
        },
    );
    req.base_dir = dir.path().to_path_buf();
    req.includes = vec!["include".into()];
    let cx = Context {
        nvcc: Some("/nonexistent/bin/nvcc".into()),
        no_device_code: true,
        use_cache: false,
        ..Context::default()
    };
    let built = build_module(&req, &cx).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = built.info.kernels.iter().map(|k| k.name.as_str()).collect();
    assert!(names.contains(&"hist"), "{names:?}");
    assert!(names.contains(&"fill<float>"), "{names:?}");
    assert!(built.fatbin_path.is_none());
    assert!(
        built
            .warnings
            .iter()
            .any(|w| w.contains("module `hist` was built without device code")),
        "{:?}",
        built.warnings
    );
    for header in ["common.cuh", "inner.cuh"] {
        assert!(
            built.tracked_files.iter().any(|f| f.ends_with(header)),
            "{header} not tracked: {:?}",
            built.tracked_files
        );
    }
}

/// `Build::safe_kernel("transpos")`: a name no kernel has is an error naming the kernels.
#[test]
fn a_safe_kernel_that_does_not_exist_is_an_error() {
    let src = "extern \"C\" __global__ void transpose(float* o, const float* i, int n) {}\n";
    let dir = project(&[("k.cu", src)]);
    let mut req = request(dir.path());
    req.safe_kernels = vec!["transpos".into()];
    let cx = Context {
        no_device_code: true,
        use_cache: false,
        ..Context::default()
    };
    let err = build_module(&req, &cx).unwrap_err().to_string();
    assert!(
        err.contains("`transpos`") && err.contains("`transpose`") && err.contains("safe_kernel"),
        "{err}"
    );
}

/// An nvcc that is a wrapper script elsewhere (ccache/sccache style), and one that is a
/// symbolic link elsewhere: device linking finds nvJitLink and nvFatbin through the toolkit
/// nvcc reports running from, and the link is followed so that nvcc finds its headers.
#[test]
fn a_wrapper_script_or_a_link_named_as_nvcc_finds_the_toolkit() {
    let Some(real) = real_nvcc() else { return };
    let a = "extern \"C\" __device__ float twice(float x);\n\
             extern \"C\" __global__ void k(float* x) { x[0] = twice(x[0]); }\n";
    let b = "extern \"C\" __device__ float twice(float x) { return 2.0f * x; }\n";
    let dir = project(&[
        ("a.cu", a),
        ("b.cu", b),
        (
            "one.cu",
            "#include <cuda_runtime.h>\nextern \"C\" __global__ void one(int* x) { *x = 1; }\n",
        ),
    ]);
    let mut req = ModuleRequest::new(
        "linked",
        SourceInput::Files {
            paths: vec!["a.cu".into(), "b.cu".into()],
        },
    );
    req.base_dir = dir.path().to_path_buf();
    req.archs = Some(vec!["sm_80".into()]);
    req.link = cuda_kernel_build::LinkMode::Rdc;
    let wrapper = FakeNvcc::new("real", &real);
    let cache = tempfile::tempdir().unwrap();
    let built = build_module(&req, &context(&wrapper.path, cache.path()))
        .unwrap_or_else(|e| panic!("through a wrapper script: {e}"));
    assert_eq!(built.info.kernels.len(), 1);
    // What made it work: a wrapper that does not say where its toolkit is finds no nvJitLink.
    let untold = FakeNvcc::new("untold", &real);
    let cache = tempfile::tempdir().unwrap();
    let err = build_module(&req, &context(&untold.path, cache.path())).unwrap_err();
    assert!(err.to_string().contains("nvJitLink"), "{err}");

    let links = tempfile::tempdir().unwrap();
    let link = links.path().join("nvcc");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut one = request(dir.path());
    one.source = SourceInput::File {
        path: "one.cu".into(),
    };
    let built = build_module(&one, &context(&link, cache.path()))
        .unwrap_or_else(|e| panic!("through a link: {e}"));
    assert_eq!(built.info.kernels.len(), 1);
}

/// Exported constants are cached with the module: a warm build runs nvcc zero times; a
/// build without nvcc evaluates the same constants from the raw text and headers.
#[test]
fn exported_constants_are_cached_and_read_without_nvcc_too() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[
        ("k.cu", SAXPY),
        (
            "real.h",
            "typedef float real;\n#define TILE 16\nconstexpr int STEPS = TILE * 4;\n",
        ),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let mut req = request(dir.path());
    req.constant_text("TILE: u32").unwrap();
    req.constant_text("STEPS").unwrap();
    let first = build_module(&req, &context(&fake.path, cache.path())).unwrap();
    let runs = fake.work_runs();
    let again = build_module(&req, &context(&fake.path, cache.path())).unwrap();
    assert_eq!(fake.work_runs(), runs, "{:?}", fake.runs());
    assert_eq!(first.constants, again.constants);
    let values: Vec<i128> = first.constants.iter().map(|c| c.value).collect();
    assert_eq!(values, [16, 64]);

    let cx = Context {
        no_device_code: true,
        use_cache: false,
        ..Context::default()
    };
    let raw = build_module(&req, &cx).unwrap();
    assert_eq!(raw.constants, first.constants);
}

/// The runtime header is found for the real nvcc, through a link to it and through a wrapper
/// that reports its toolkit; not for a wrapper that does not.
#[test]
fn the_runtime_header_is_found_as_nvcc_finds_it() {
    use cuda_kernel_build::__private::{DiscoverOptions, Toolkit};
    let Some(real) = real_nvcc() else { return };
    let discover = |nvcc: &Path| {
        Toolkit::discover_with(&DiscoverOptions {
            nvcc: Some(nvcc.to_path_buf()),
            ..DiscoverOptions::default()
        })
        .unwrap()
    };
    assert!(discover(&real).runtime_header().is_some());
    let links = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&real, links.path().join("nvcc")).unwrap();
    assert!(
        discover(&links.path().join("nvcc"))
            .runtime_header()
            .is_some()
    );
    let told = FakeNvcc::new("real", &real);
    assert!(discover(&told.path).runtime_header().is_some());
    let untold = FakeNvcc::new("untold", &real);
    assert_eq!(discover(&untold.path).runtime_header(), None);
}
