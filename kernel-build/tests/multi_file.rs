//! Modules of several files through the whole pipeline with the real nvcc: whole-program
//! files side by side, `rdc` and `lto` device links (nvJitLink, nvFatbin), the errors of
//! each (a call into another file without `rdc`, one kernel name in two files, undefined
//! and duplicate device symbols), and per-file caching counted with the fake nvcc.

mod support;

use cuda_kernel_build::__private::{Context, ModuleRequest, SourceInput, build_module};
use cuda_kernel_build::BuiltModule;
use cuda_kernel_build::Error;
use cuda_kernel_build::LinkMode;
use cuda_kernel_objects::{self as fatbin, EntryKind};
use std::path::Path;
use support::{FakeNvcc, project, real_nvcc};

const COMMON: &str = "#pragma once\nstruct Affine { float a; float b; };\n\
    static __device__ float apply(Affine t, float v) { return t.a * v + t.b; }\n";
const SCALE: &str = "#include \"common.cuh\"\n\
    extern \"C\" __global__ void scale(float* x, Affine t, int n) {\n\
      int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
      if (i < n) x[i] = apply(t, x[i]);\n}\n";
const OFFSET: &str = "#include \"common.cuh\"\n\
    static __device__ float shift(float v, float b) { return v + b; }\n\
    extern \"C\" __global__ void offset(float* x, float b, int n) {\n\
      int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
      if (i < n) x[i] = shift(x[i], b);\n}\n";
const POLY: &str = "__device__ float poly(float x, float c);\n\
    extern __device__ unsigned int calls;\n\
    extern \"C\" __global__ void apply_poly(float* y, const float* x, float c, int n) {\n\
      int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
      if (i < n) { y[i] = poly(x[i], c); atomicAdd(&calls, 1u); }\n}\n";
const POLYDEF: &str = "__device__ unsigned int calls;\n\
    __device__ float poly(float x, float c) { return x * x + c * x + 1.0f; }\n\
    extern \"C\" __global__ void reset_calls() { calls = 0; }\n";

fn four_files() -> tempfile::TempDir {
    project(&[
        ("common.cuh", COMMON),
        ("scale.cu", SCALE),
        ("offset.cu", OFFSET),
        ("poly.cu", POLY),
        ("polydef.cu", POLYDEF),
    ])
}

fn request(dir: &Path, files: &[&str], link: LinkMode) -> ModuleRequest {
    let mut req = ModuleRequest::new(
        "multi",
        SourceInput::Files {
            paths: files.iter().map(Into::into).collect(),
        },
    );
    req.base_dir = dir.to_path_buf();
    req.archs = Some(vec!["sm_80".into(), "sm_90".into(), "compute_90".into()]);
    req.link = link;
    req
}

fn context(nvcc: &Path, cache: &Path) -> Context {
    Context {
        nvcc: Some(nvcc.to_path_buf()),
        cache_dir: Some(cache.to_path_buf()),
        jobs: Some(2),
        ..Context::default()
    }
}

fn kernels(m: &BuiltModule) -> Vec<&str> {
    m.info.kernels.iter().map(|k| k.name.as_str()).collect()
}

fn fatbin_of(m: &BuiltModule) -> fatbin::Fatbin {
    fatbin::parse(&std::fs::read(m.fatbin_path.as_ref().unwrap()).unwrap()).unwrap()
}

#[test]
fn whole_program_files_form_one_module_with_an_image_each() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = four_files();
    let cache = tempfile::tempdir().unwrap();
    let req = request(dir.path(), &["scale.cu", "offset.cu"], LinkMode::Whole);
    let m = build_module(&req, &context(&nvcc, cache.path())).unwrap();
    assert_eq!(kernels(&m), ["scale", "offset"]);
    // The struct both files see through the header is one struct.
    assert_eq!(m.info.structs.len(), 1, "{:?}", m.info.structs);
    assert_eq!(m.units.len(), 2);
    let bytes = std::fs::read(m.fatbin_path.as_ref().unwrap()).unwrap();
    for (unit, kernel) in m.units.iter().zip(["scale", "offset"]) {
        assert_eq!(unit.kernels, [kernel]);
        let (offset, len) = unit.image.unwrap();
        assert_eq!(offset % 8, 0);
        let own = fatbin::parse(&bytes[offset as usize..(offset + len) as usize]).unwrap();
        let mut targets: Vec<String> = own.entries.iter().map(|e| e.target()).collect();
        targets.sort();
        assert_eq!(targets, ["compute_90", "sm_80", "sm_90"], "{}", unit.file);
    }
    // Every image was verified: each kernel has its registers per SASS target.
    assert!(m.info.kernels.iter().all(|k| k.images.len() == 3));
}

#[test]
fn a_call_into_another_file_without_rdc_says_to_use_rdc() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = four_files();
    let cache = tempfile::tempdir().unwrap();
    let req = request(dir.path(), &["poly.cu", "polydef.cu"], LinkMode::Whole);
    let err = build_module(&req, &context(&nvcc, cache.path())).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::NeedsRdc { .. }), "{text}");
    assert!(
        text.starts_with("`poly.cu` calls the device function `poly(float, float)`"),
        "{text}"
    );
    assert!(text.contains("Build::link(LinkMode::Rdc)"), "{text}");
}

#[test]
fn rdc_links_calls_and_variables_across_files() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = four_files();
    let cache = tempfile::tempdir().unwrap();
    let files = ["scale.cu", "offset.cu", "poly.cu", "polydef.cu"];
    let m = build_module(
        &request(dir.path(), &files, LinkMode::Rdc),
        &context(&nvcc, cache.path()),
    )
    .unwrap();
    assert_eq!(
        kernels(&m),
        ["scale", "offset", "apply_poly", "reset_calls"]
    );
    let globals: Vec<&str> = m.info.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(globals, ["calls"]);
    assert!(m.units.iter().all(|u| u.image.is_none()));
    // One linked image per target holding every kernel.
    let fb = fatbin_of(&m);
    let targets: Vec<String> = fb.entries.iter().map(|e| e.target()).collect();
    assert_eq!(targets, ["sm_80", "sm_90", "compute_90"]);
    for e in fb.entries.iter().filter(|e| e.kind == EntryKind::Elf) {
        let image = e.image().unwrap();
        // The layout table's kernels (`kernel_build_layout_<…>`) are the build's own.
        let mut names: Vec<&str> = image
            .kernels()
            .iter()
            .map(|k| k.symbol.as_str())
            .filter(|s| !s.starts_with("_Z20kernel_build_layout_"))
            .collect();
        names.sort_unstable();
        assert_eq!(names, ["apply_poly", "offset", "reset_calls", "scale"]);
    }
    assert!(m.info.kernels.iter().all(|k| k.images.len() == 3));
}

#[test]
fn lto_links_and_optimises_across_files() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = four_files();
    let cache = tempfile::tempdir().unwrap();
    let files = ["scale.cu", "offset.cu", "poly.cu", "polydef.cu"];
    let cx = context(&nvcc, cache.path());
    let rdc = build_module(&request(dir.path(), &files, LinkMode::Rdc), &cx).unwrap();
    let lto = build_module(&request(dir.path(), &files, LinkMode::Lto), &cx).unwrap();
    assert_eq!(kernels(&lto), kernels(&rdc));
    let regs = |m: &BuiltModule| {
        m.info.kernels[2]
            .images
            .iter()
            .find(|i| i.target == "sm_90")
            .and_then(|i| i.registers)
            .unwrap()
    };
    // With the call into poly.cu inlined, apply_poly needs no call frame.
    assert!(
        regs(&lto) < regs(&rdc),
        "lto {} rdc {}",
        regs(&lto),
        regs(&rdc)
    );
    let targets: Vec<String> = fatbin_of(&lto).entries.iter().map(|e| e.target()).collect();
    assert_eq!(targets, ["sm_80", "sm_90", "compute_90"]);
}

#[test]
fn one_kernel_name_in_two_files_names_both() {
    let Some(nvcc) = real_nvcc() else { return };
    let again = "\n\nextern \"C\" __global__ void scale(float* x, int n) { x[0] = n; }\n";
    let dir = project(&[
        ("common.cuh", COMMON),
        ("scale.cu", SCALE),
        ("again.cu", again),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let req = request(dir.path(), &["scale.cu", "again.cu"], LinkMode::Whole);
    let text = build_module(&req, &context(&nvcc, cache.path()))
        .unwrap_err()
        .to_string();
    assert!(
        text.contains(
            "error: kernel `scale` is defined in two files of the module: scale.cu:2 and again.cu:3"
        ),
        "{text}"
    );
}

#[test]
fn undefined_and_duplicate_device_symbols_name_symbol_and_files() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = four_files();
    let copy = "__device__ float poly(float x, float c) { return x; }\n\
                extern \"C\" __global__ void other() {}\n";
    std::fs::write(dir.path().join("copy.cu"), copy).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let cx = context(&nvcc, cache.path());

    let err = build_module(&request(dir.path(), &["poly.cu"], LinkMode::Rdc), &cx).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DeviceLink { .. }), "{text}");
    assert!(
        text.contains(
            "device symbol `poly(float, float)` (`_Z4polyff`) is used in `poly.cu` but defined in no file of the module"
        ),
        "{text}"
    );
    // The linker's log says which of nvJitLink's calls refused the link.
    assert!(text.contains(": nvJitLinkComplete failed (code "), "{text}");

    let req = request(
        dir.path(),
        &["poly.cu", "polydef.cu", "copy.cu"],
        LinkMode::Rdc,
    );
    let text = build_module(&req, &cx).unwrap_err().to_string();
    assert!(
        text.contains(
            "device symbol `poly(float, float)` (`_Z4polyff`) is defined in more than one file: `polydef.cu`, `copy.cu`"
        ),
        "{text}"
    );
}

/// Each file compiles in one run per virtual architecture (`compute_80`, `compute_90`: 2
/// runs), whose images are joined without nvFatbin: also through a wrapper whose toolkit is
/// unknown, beside which no library is found.
#[test]
fn each_file_is_cached_alone() {
    let Some(real) = real_nvcc() else { return };
    cached_alone(&FakeNvcc::with_libraries("real", &real), 2);
    cached_alone(&FakeNvcc::new("untold", &real), 2);
}

fn cached_alone(fake: &FakeNvcc, runs_per_file: usize) {
    let dir = project(&[
        ("common.cuh", COMMON),
        ("scale.cu", SCALE),
        ("offset.cu", OFFSET),
        (
            "a.cu",
            "extern \"C\" __global__ void a(int* x) { x[0] = 1; }\n",
        ),
        (
            "b.cu",
            "extern \"C\" __global__ void b(int* x) { x[0] = 2; }\n",
        ),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let cx = context(&fake.path, cache.path());
    let req = request(
        dir.path(),
        &["scale.cu", "offset.cu", "a.cu", "b.cu"],
        LinkMode::Whole,
    );
    let compiles = || fake.runs().iter().filter(|l| l.contains("-fatbin")).count();
    let compiled = |name: &str| {
        fake.runs()
            .iter()
            .filter(|l| l.contains("-fatbin") && l.ends_with(name))
            .count()
    };
    build_module(&req, &cx).unwrap();
    assert_eq!(compiles(), 4 * runs_per_file, "{:?}", fake.runs());

    // Nothing changed: no nvcc run at all.
    let before = fake.runs().len();
    build_module(&req, &cx).unwrap();
    assert_eq!(fake.runs().len(), before, "{:?}", &fake.runs()[before..]);

    // Touched, same bytes: no nvcc run.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(
        dir.path().join("a.cu"),
        "extern \"C\" __global__ void a(int* x) { x[0] = 1; }\n",
    )
    .unwrap();
    build_module(&req, &cx).unwrap();
    assert_eq!(fake.runs().len(), before, "{:?}", &fake.runs()[before..]);

    // One file edited: that file only.
    std::fs::write(
        dir.path().join("a.cu"),
        "extern \"C\" __global__ void a(int* x) { x[0] = 3; }\n",
    )
    .unwrap();
    build_module(&req, &cx).unwrap();
    assert_eq!(
        compiles(),
        5 * runs_per_file,
        "{:?}",
        &fake.runs()[before..]
    );
    assert_eq!(compiled("a.cu"), 2 * runs_per_file);

    // The shared header edited: exactly the two files that include it.
    std::fs::write(
        dir.path().join("common.cuh"),
        format!("{COMMON}// edited\n"),
    )
    .unwrap();
    let m = build_module(&req, &cx).unwrap();
    assert_eq!(compiles(), 7 * runs_per_file, "{:?}", fake.runs());
    let twice = 2 * runs_per_file;
    assert_eq!(
        (compiled("scale.cu"), compiled("offset.cu")),
        (twice, twice)
    );
    assert_eq!(kernels(&m), ["scale", "offset", "a", "b"]);
    assert!(
        m.tracked_files.iter().any(|f| f.ends_with("common.cuh")),
        "{:?}",
        m.tracked_files
    );
}

#[test]
fn nvcc_failing_on_one_file_is_the_error_of_the_build() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = four_files();
    std::fs::write(
        dir.path().join("bad.cu"),
        "extern \"C\" __global__ void bad(int* x) { x[0] = }\n",
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let req = request(
        dir.path(),
        &["scale.cu", "bad.cu", "offset.cu"],
        LinkMode::Whole,
    );
    let err = build_module(&req, &context(&nvcc, cache.path())).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::NvccFailed { .. }), "{text}");
    assert!(text.starts_with("nvcc failed at bad.cu:1"), "{text}");
}
