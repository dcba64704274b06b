//! `Build` with the real nvcc: outputs in OUT_DIR, the default target list, several
//! files in one module, headers tracked, metadata readable, generated Rust parseable.

mod support;

use cuda_kernel_build::__private::Toolkit;
use cuda_kernel_build::{Build, Metadata};
use cuda_kernel_objects::{self as fatbin, EntryKind};
use support::{project, real_nvcc};

const A: &str = r#"#include "common.h"
/// Scales a vector in place.
extern "C" __global__ void scale(real* x, real s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s * FACTOR;
}
"#;
const B: &str = r#"#include "common.h"
extern "C" __global__ void fill(real* x, real v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
"#;
const COMMON: &str = "#pragma once\ntypedef double real;\n";

#[test]
fn two_files_default_targets_and_outputs() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[("k/a.cu", A), ("k/b.cu", B), ("inc/common.h", COMMON)]);
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut b = Build::new();
    b.file(dir.path().join("k/a.cu"))
        .file(dir.path().join("k/b.cu"))
        .include(dir.path().join("inc"))
        .define("FACTOR", "2")
        .nvcc(&nvcc)
        .out_dir(out.path())
        .cache_dir(cache.path())
        .cargo_metadata(false);
    let built = b.try_compile("vec").unwrap();

    assert_eq!(built.fatbin, out.path().join("vec.fatbin"));
    assert_eq!(built.rust, out.path().join("kernel-build/vec.rs"));
    let names: Vec<&str> = built
        .module
        .info
        .kernels
        .iter()
        .map(|k| k.name.as_str())
        .collect();
    assert_eq!(names, ["scale", "fill"]);
    let sizes: Vec<u64> = built.module.info.kernels[0]
        .params
        .iter()
        .map(|p| p.layout.size)
        .collect();
    assert_eq!(sizes, [8, 8, 4]);

    let tk = Toolkit::discover_with(&cuda_kernel_build::__private::DiscoverOptions {
        nvcc: Some(nvcc.clone()),
        ..Default::default()
    })
    .unwrap();
    let expected: Vec<String> = tk.default_targets().iter().map(|t| t.to_string()).collect();
    assert_eq!(built.module.targets, expected);
    assert!(
        expected.iter().any(|t| t.starts_with("compute_")),
        "{expected:?}"
    );

    // Two whole-program files: one fatbin each, every target in each.
    let bytes = std::fs::read(&built.fatbin).unwrap();
    assert_eq!(built.module.units.len(), 2);
    for (unit, k) in built.module.units.iter().zip(["scale", "fill"]) {
        let (offset, len) = unit.image.unwrap();
        let fb = fatbin::parse(&bytes[offset as usize..(offset + len) as usize]).unwrap();
        let in_fatbin: Vec<String> = fb.entries.iter().map(|e| e.target()).collect();
        assert_eq!(in_fatbin.len(), expected.len(), "{in_fatbin:?}");
        for e in &fb.entries {
            let image = e.image().unwrap();
            assert!(
                image.kernels().iter().any(|ki| ki.symbol == k),
                "{k} missing in {}",
                e.target()
            );
        }
        assert_eq!(
            fb.entries
                .iter()
                .filter(|e| e.kind == EntryKind::Ptx)
                .count(),
            1
        );
    }

    let meta: Metadata = serde_json::from_slice(&std::fs::read(&built.metadata).unwrap()).unwrap();
    assert_eq!(meta.module.info, built.module.info);
    assert_eq!(
        meta.module.fatbin_path.as_deref(),
        Some(built.fatbin.as_path())
    );

    let rust = std::fs::read_to_string(&built.rust).unwrap();
    let body = rust
        .lines()
        .filter(|l| !l.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    syn::parse_file(&body).unwrap();
    assert!(rust.contains("scale") && rust.contains("fill"));

    for f in ["k/a.cu", "k/b.cu", "inc/common.h"] {
        let p = dir.path().join(f);
        assert!(
            built.module.tracked_files.contains(&p),
            "{f} untracked: {:?}",
            built.module.tracked_files
        );
    }
    assert!(
        built
            .module
            .tracked_files
            .iter()
            .all(|f| !f.starts_with(out.path()))
    );
}

#[test]
fn explicit_targets_are_exact() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[(
        "k.cu",
        "extern \"C\" __global__ void k(int* p) { *p = 1; }\n",
    )]);
    let out = tempfile::tempdir().unwrap();
    let built = Build::new()
        .file(dir.path().join("k.cu"))
        .arch("sm_90a")
        .arch("sm_80")
        .nvcc(&nvcc)
        .out_dir(out.path())
        .cargo_metadata(false)
        .try_compile("k")
        .unwrap();
    assert_eq!(built.module.targets, ["sm_90a", "sm_80"]);
    let fb = fatbin::parse(&std::fs::read(&built.fatbin).unwrap()).unwrap();
    let mut targets: Vec<String> = fb.entries.iter().map(|e| e.target()).collect();
    targets.sort();
    assert_eq!(targets, ["sm_80", "sm_90a"]);
}

#[test]
fn nvcc_warning_is_kept_with_its_line() {
    let Some(nvcc) = real_nvcc() else { return };
    let src = "extern \"C\" __global__ void k(int* p) {\n    int unused;\n    *p = 1;\n}\n";
    let dir = project(&[("w.cu", src)]);
    let out = tempfile::tempdir().unwrap();
    let built = Build::new()
        .file(dir.path().join("w.cu"))
        .arch("sm_80")
        .nvcc(&nvcc)
        .out_dir(out.path())
        .cargo_metadata(false)
        .try_compile("w")
        .unwrap();
    assert!(
        built
            .module
            .warnings
            .iter()
            .any(|w| w.contains("w.cu:2") && w.contains("unused")),
        "{:?}",
        built.module.warnings
    );
}

#[test]
fn a_warning_of_every_target_is_kept_once_naming_them() {
    let Some(nvcc) = real_nvcc() else { return };
    let src = "extern \"C\" __global__ void k(int* p) {\n    int unused;\n    *p = 1;\n}\n";
    let dir = project(&[("w3.cu", src)]);
    let out = tempfile::tempdir().unwrap();
    let built = Build::new()
        .file(dir.path().join("w3.cu"))
        .arch("sm_75")
        .arch("sm_80")
        .arch("sm_90")
        .nvcc(&nvcc)
        .out_dir(out.path())
        .cache_dir(out.path().join("cache"))
        .cargo_metadata(false)
        .try_compile("w3")
        .unwrap();
    let unused: Vec<&String> = built
        .module
        .warnings
        .iter()
        .filter(|w| w.contains("w3.cu:2"))
        .collect();
    assert_eq!(unused.len(), 1, "{:?}", built.module.warnings);
    assert!(
        unused[0].ends_with("[compute_75, compute_80, compute_90]"),
        "{}",
        unused[0]
    );
}

#[test]
fn nvcc_runs_through_the_wrapper_given() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[(
        "wr.cu",
        "extern \"C\" __global__ void k(int* p) { *p = 2; }\n",
    )]);
    let log = dir.path().join("wrapper.log");
    let wrapper = dir.path().join("wrapper.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = tempfile::tempdir().unwrap();
    let built = Build::new()
        .file(dir.path().join("wr.cu"))
        .arch("sm_90")
        .nvcc(&nvcc)
        .nvcc_wrapper(&wrapper)
        .out_dir(out.path())
        .cache_dir(out.path().join("cache"))
        .cargo_metadata(false)
        .try_compile("wr")
        .unwrap();
    let runs = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = runs.lines().collect();
    assert_eq!(lines.len(), 1, "{runs}");
    assert!(lines[0].starts_with(&nvcc.display().to_string()), "{runs}");
    // Through a wrapper the build compiles a host object (a run sccache caches whole) and
    // reads the fatbin back from it.
    assert!(lines[0].contains(" -c "), "{runs}");
    assert!(!lines[0].contains("-fatbin"), "{runs}");
    let fatbin = cuda_kernel_objects::parse(&std::fs::read(&built.fatbin).unwrap()).unwrap();
    let targets: Vec<String> = fatbin.entries.iter().map(|e| e.target()).collect();
    assert!(targets.contains(&"sm_90".to_string()), "{targets:?}");
}

/// Host code joins the cache: a cold build compiles each host file once (plus the file
/// naming CUDA errors), a warm one compiles nothing, and editing one file compiles that
/// file only; the archive is there each time.
#[test]
fn host_code_objects_are_cached_per_file() {
    let Some(nvcc) = real_nvcc() else { return };
    let fake = support::FakeNvcc::with_libraries("real", &nvcc);
    let a = "extern \"C\" __global__ void k(int* p) { *p = 1; }\n\
             extern \"C\" cudaError_t launch_k(int* p, cudaStream_t s) { k<<<1, 1, 0, s>>>(p); return cudaGetLastError(); }\n";
    let b = "extern \"C\" int twice(int x) { return 2 * x; }\n";
    let dir = project(&[("h/a.cu", a), ("h/b.cu", b)]);
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let build = || {
        Build::new()
            .file(dir.path().join("h/a.cu"))
            .file(dir.path().join("h/b.cu"))
            .arch("sm_90")
            .host_code(true)
            .nvcc(&fake.path)
            .out_dir(out.path())
            .cache_dir(cache.path())
            .cargo_metadata(false)
            .try_compile("hc")
            .unwrap()
    };
    let host_compiles = || {
        fake.runs()
            .iter()
            .filter(|l| l.split(' ').any(|w| w == "-c") && !l.contains("-fatbin"))
            .count()
    };
    let built = build();
    let names: Vec<&str> = built
        .module
        .info
        .host_functions
        .iter()
        .map(|h| h.name.as_str())
        .collect();
    assert_eq!(names, ["launch_k", "twice"]);
    assert_eq!(host_compiles(), 3, "{:#?}", fake.runs());
    assert!(out.path().join("libhc_host.a").is_file());

    let before = fake.runs().len();
    build();
    assert_eq!(host_compiles(), 3, "a warm build compiled host code");
    assert_eq!(
        fake.runs().len(),
        before,
        "a warm build ran nvcc: {:#?}",
        &fake.runs()[before..]
    );

    std::fs::write(dir.path().join("h/b.cu"), b.replace("2 * x", "3 * x")).unwrap();
    build();
    assert_eq!(host_compiles(), 4, "editing b.cu recompiles b.cu only");
    assert!(out.path().join("libhc_host.a").is_file());
}

/// `Build::export_constant`: macros, `-D` definitions, `constexpr` variables, enumerators and
/// negative values as the compiler evaluates them, typed as asked and emitted as Rust
/// `const`s; a name the code does not define and a value that does not fit are errors.
#[test]
fn constants_are_exported_as_the_compiler_sees_them() {
    let Some(nvcc) = real_nvcc() else { return };
    let src = "#include \"tile.h\"\n#define HALF (TILE / 2)\nconstexpr int STEPS = HALF * SCALE;\n\
               enum { LANES = 4 };\n#define NEG (-7)\n\
               extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = TILE; }\n";
    let dir = project(&[
        ("k.cu", src),
        ("inc/tile.h", "#pragma once\n#define TILE 32u\n"),
    ]);
    let build = |constants: &[&str]| {
        let out = tempfile::tempdir().unwrap();
        let mut b = Build::new();
        b.file(dir.path().join("k.cu"))
            .include(dir.path().join("inc"))
            .define("SCALE", "5")
            .arch("sm_80")
            .nvcc(&nvcc)
            .out_dir(out.path())
            .cargo_metadata(false);
        for c in constants {
            b.export_constant(c);
        }
        (b.try_compile("tiles"), out)
    };
    let (built, _out) = build(&["TILE: u32", "HALF", "STEPS: usize", "LANES: u8", "NEG: i32"]);
    let built = built.unwrap_or_else(|e| panic!("{e}"));
    let values: Vec<(&str, &str, i128)> = built
        .module
        .constants
        .iter()
        .map(|c| (c.name.as_str(), c.rust_type.as_str(), c.value))
        .collect();
    assert_eq!(
        values,
        [
            ("TILE", "u32", 32),
            ("HALF", "i64", 16),
            ("STEPS", "usize", 80),
            ("LANES", "u8", 4),
            ("NEG", "i32", -7)
        ]
    );
    let rust = std::fs::read_to_string(&built.rust).unwrap();
    let flat = rust.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("pub const TILE: u32 = 32;"), "{rust}");
    assert!(flat.contains("pub const NEG: i32 = -7;"), "{rust}");

    let (err, _out) = build(&["MISSING"]);
    let err = err.unwrap_err().to_string();
    assert!(
        err.contains("constant `MISSING` cannot be exported") && err.contains("MISSING"),
        "{err}"
    );
    let (err, _out) = build(&["NEG: u32"]);
    let err = err.unwrap_err().to_string();
    assert!(err.contains("which does not fit `u32`"), "{err}");
}

#[test]
fn rust_types_are_declared_for_cuda_and_named_by_the_generated_code() {
    let Some(nvcc) = real_nvcc() else { return };
    let types = "/// A sample.\n#[derive(Clone, Copy, cuda_kernel_runtime::CudaType)]\n#[repr(C)]\n\
                 pub struct Sample {\n    pub value: f32,\n    pub weight: [f64; 2],\n    pub tag: Tag,\n}\n\
                 #[derive(Clone, Copy, CudaType)]\n#[repr(u8)]\npub enum Tag { A, B = 7 }\n";
    // Outside the crate's folder, the header is included by the file's name.
    let kernel = "#include \"samples.rs.cuh\"\n\
                  extern \"C\" __global__ void k(Sample* s, Sample one, int n) {\n\
                  if ((int)threadIdx.x < n && one.tag == Tag::B) s[threadIdx.x] = one; }\n";
    let dir = project(&[("src/samples.rs", types), ("k.cu", kernel)]);
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let built = Build::new()
        .file(dir.path().join("k.cu"))
        .rust_types_in(dir.path().join("src/samples.rs"), "crate::data")
        .arch("sm_80")
        .nvcc(&nvcc)
        .out_dir(out.path())
        .cache_dir(cache.path())
        .cargo_metadata(false)
        .try_compile("samples")
        .unwrap_or_else(|e| panic!("{e}"));
    let sample = built
        .module
        .info
        .structs
        .iter()
        .find(|s| s.name == "Sample")
        .expect("Sample in the model");
    assert_eq!(sample.rust_path.as_deref(), Some("crate::data::Sample"));
    assert_eq!((sample.size, sample.align), (32, 8));
    let rust = std::fs::read_to_string(&built.rust).unwrap();
    let flat = rust.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("pub use crate :: data :: Sample;")
            || flat.contains("pub use crate::data::Sample;"),
        "{rust}"
    );
    assert!(!flat.contains("pub struct Sample"), "{rust}");
    // The Rust file is tracked: editing it rebuilds.
    assert!(
        built
            .module
            .tracked_files
            .iter()
            .any(|f| f.ends_with("src/samples.rs")),
        "{:?}",
        built.module.tracked_files
    );

    // A refused field: the error names the Rust file, line and column.
    let bad = project(&[
        (
            "src/bad.rs",
            "#[derive(CudaType)]\n#[repr(C)]\npub struct Bad {\n    pub n: usize,\n}\n",
        ),
        ("k.cu", "extern \"C\" __global__ void k(int n) {}\n"),
    ]);
    let err = Build::new()
        .file(bad.path().join("k.cu"))
        .rust_types(bad.path().join("src/bad.rs"))
        .arch("sm_80")
        .nvcc(&nvcc)
        .out_dir(out.path())
        .cargo_metadata(false)
        .try_compile("bad")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bad.rs:4:12: error: field `Bad.n` has type `usize`"),
        "{err}"
    );
}

#[test]
fn a_tuned_kernel_declared_in_the_build_gets_its_entry_point() {
    let Some(nvcc) = real_nvcc() else { return };
    let sum = "template <int BLOCK>\n\
        __global__ void __launch_bounds__(BLOCK) part(const float* x, float* out, int n) {\n\
            int i = blockIdx.x * BLOCK + threadIdx.x;\n\
            if (i < n) atomicAdd(out, x[i]);\n\
        }\n";
    let dir = project(&[("k/sum.cu", sum)]);
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut b = Build::new();
    b.file(dir.path().join("k/sum.cu"))
        .arch("sm_90")
        .nvcc(&nvcc)
        .out_dir(out.path())
        .cache_dir(cache.path())
        .cargo_metadata(false)
        .tune(
            cuda_kernel_build::Tune::kernel("part")
                .values("BLOCK", [128, 256])
                .block("BLOCK")
                .grid("n.div_ceil(BLOCK)"),
        );
    let built = b.try_compile("sums").unwrap();
    let tuned = &built.module.tuned[0];
    assert_eq!(tuned.name, "sums::part");
    let kernels: Vec<Option<&str>> = tuned.variants.iter().map(|v| v.kernel.as_deref()).collect();
    assert_eq!(kernels, [Some("part<128>"), Some("part<256>")]);
    let rust = std::fs::read_to_string(&built.rust).unwrap();
    assert!(rust.contains("pub unsafe fn part_tuned("), "{rust}");
    assert!(rust.contains("pub static PART:"), "{rust}");
    let json: Metadata =
        serde_json::from_str(&std::fs::read_to_string(&built.metadata).unwrap()).unwrap();
    assert_eq!(json.module.tuned, built.module.tuned);

    // A declaration that is not one: the build fails with the macro's words.
    let mut bad = Build::new();
    bad.file(dir.path().join("k/sum.cu"))
        .nvcc(&nvcc)
        .out_dir(out.path())
        .cargo_metadata(false)
        .tune(
            cuda_kernel_build::Tune::kernel("part")
                .values("BLOCK", [128])
                .block("BLOCK"),
        );
    let err = bad.try_compile("sums").unwrap_err().to_string();
    assert!(
        err.contains("tuned kernel `part` has no `grid` rule"),
        "{err}"
    );
}
