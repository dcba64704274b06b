//! The front end on a corpus of declaration forms, checked against what nvcc
//! compiles: each file is preprocessed and analyzed, compiled to a fatbin (sm_80,
//! sm_90, sm_120 SASS + compute_120 PTX), verified, and every predicted layout is
//! compared with every image; the same files read without nvcc give the same
//! kernels where no preprocessing is needed.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel_build::__private::{
    FrontInput, VerifyOptions, analyze, preprocess, verify, verify_with,
};
use cuda_kernel_build::model::{Linkage, ModuleInfo};
use cuda_kernel_objects::{self as fatbin, Fatbin};

const GENCODES: &[&str] = &[
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_120,code=[sm_120,compute_120]",
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/front_corpus")
}

fn nvcc() -> Option<PathBuf> {
    match cuda_kernel_build::__private::Toolkit::discover() {
        Ok(tk) => Some(tk.nvcc().to_path_buf()),
        Err(e) => {
            eprintln!("skipping: no nvcc found ({e})");
            None
        }
    }
}

/// Reads, preprocesses and analyzes a corpus file.
fn analyze_file(nvcc: &Path, name: &str) -> ModuleInfo {
    let path = corpus_dir().join(name);
    let raw = std::fs::read_to_string(&path).unwrap();
    let pre = preprocess(nvcc, &path, &[corpus_dir()], &[], &[]).unwrap();
    let dirs = [corpus_dir()];
    let input = FrontInput {
        display_name: name,
        raw: &raw,
        preprocessed: Some(&pre),
        main_file: &path,
        user_dirs: &dirs,
        host_stub: None,
        headers: &[],
        tuned: &[],
    };
    analyze(&input).unwrap_or_else(|d| panic!("{name}:\n{d}"))
}

fn analyze_raw(name: &str) -> Result<ModuleInfo, cuda_kernel_build::Diagnostics> {
    let raw = std::fs::read_to_string(corpus_dir().join(name)).unwrap();
    analyze(&FrontInput::raw_only(name, &raw))
}

fn compile(nvcc: &Path, src: &Path) -> Fatbin {
    let out = tempfile::tempdir().unwrap();
    let fatbin_path = out.path().join("out.fatbin");
    let status = Command::new(nvcc)
        .arg("-fatbin")
        .args(GENCODES)
        .arg("-I")
        .arg(corpus_dir())
        .arg("-o")
        .arg(&fatbin_path)
        .arg(src)
        .status()
        .unwrap();
    assert!(status.success(), "nvcc failed on {}", src.display());
    fatbin::parse(&std::fs::read(&fatbin_path).unwrap()).unwrap()
}

/// Every kernel's predicted layout equals what every image reports.
fn assert_layouts_match(info: &ModuleInfo, fatbin: &Fatbin) {
    let images: Vec<_> = fatbin
        .entries
        .iter()
        .map(|e| (e.target(), e.image().unwrap()))
        .collect();
    assert_eq!(images.len(), 4, "sm_80, sm_90, sm_120, compute_120");
    for k in &info.kernels {
        let predicted: Vec<(u64, u64)> = k
            .params
            .iter()
            .map(|p| (p.layout.offset, p.layout.size))
            .collect();
        for (target, image) in &images {
            let found = image.kernels().iter().find(|i| i.symbol == k.symbol);
            let found =
                found.unwrap_or_else(|| panic!("{} ({}) missing from {target}", k.name, k.symbol));
            let mut slots = found.params.clone();
            slots.sort_by_key(|s| s.ordinal);
            let actual: Vec<(u64, u64)> = slots
                .iter()
                .map(|s| (u64::from(s.offset), u64::from(s.size)))
                .collect();
            assert_eq!(predicted, actual, "{} in {target}", k.name);
        }
        assert_eq!(k.images.len(), 4, "{}", k.name);
    }
}

/// Analyze with nvcc's preprocessing, compile, verify, compare; returns the model.
fn check_file(name: &str) -> Option<ModuleInfo> {
    let nvcc = nvcc()?;
    let mut info = analyze_file(&nvcc, name);
    assert!(info.preprocessed);
    let fatbin = compile(&nvcc, &corpus_dir().join(name));
    verify(&mut info, &fatbin).unwrap_or_else(|d| panic!("{name}:\n{d}"));
    assert_layouts_match(&info, &fatbin);
    Some(info)
}

fn names(info: &ModuleInfo) -> Vec<&str> {
    info.kernels.iter().map(|k| k.name.as_str()).collect()
}

/// Same kernels (names, symbols of C kernels, types and layouts) from both readings.
fn assert_same_kernels(pre: &ModuleInfo, raw: &ModuleInfo) {
    assert_eq!(names(pre), names(raw));
    for (a, b) in pre.kernels.iter().zip(&raw.kernels) {
        let pa: Vec<_> = a
            .params
            .iter()
            .map(|p| (&p.name, &p.ty, p.layout))
            .collect();
        let pb: Vec<_> = b
            .params
            .iter()
            .map(|p| (&p.name, &p.ty, p.layout))
            .collect();
        assert_eq!(pa, pb, "{}", a.name);
        assert_eq!(
            a.loc.as_ref().map(|l| l.line),
            b.loc.as_ref().map(|l| l.line),
            "{}",
            a.name
        );
        if a.linkage == Linkage::C {
            assert_eq!(a.symbol, b.symbol);
        }
    }
    assert!(!raw.preprocessed && raw.notes.iter().any(|n| n.contains("without nvcc")));
}

#[test]
fn basics_match_the_compiled_images() {
    let Some(info) = check_file("basics.cu") else {
        return;
    };
    assert_eq!(
        names(&info),
        [
            "saxpy",
            "mixed",
            "spellings",
            "stdint_names",
            "unnamed",
            "const_const",
            "void_ptrs",
            "ptr_ptr",
            "volatile_ptr",
            "noparams",
            "voidparams",
            "multiline",
            "declared_then_defined",
            "bounded",
            "bounded1",
            "maxnreg_k",
            "in_block_a",
            "in_block_b",
            "array_param",
        ]
    );
    let k = |n: &str| info.kernels.iter().find(|k| k.name == n).unwrap();
    assert_eq!(k("saxpy").doc.as_deref(), Some("saxpy: y = a*x + y"));
    assert_eq!(k("bounded").attrs.launch_bounds, Some(vec![256, 2]));
    assert_eq!(k("maxnreg_k").attrs.maxnreg, Some(40));
    assert_eq!(k("multiline").params[1].written, "const float*");
    assert_eq!(
        k("declared_then_defined").params[0].name.as_deref(),
        Some("out")
    );
    assert!(k("unnamed").params.iter().all(|p| p.name.is_none()));
    let loc = k("multiline").params[2].loc.clone().unwrap();
    assert_eq!((loc.file.as_str(), loc.line), ("basics.cu", 41));
    let raw = analyze_raw("basics.cu").unwrap();
    assert_same_kernels(&info, &raw);
}

#[test]
fn types_match_the_compiled_images() {
    let Some(info) = check_file("types.cu") else {
        return;
    };
    assert_eq!(
        names(&info),
        [
            "halves",
            "vectors",
            "vector_ptrs",
            "withstruct",
            "struct_ptrs",
            "gridconst",
            "tagged",
            "bigstruct",
            "nested",
            "aligned16",
            "typedefd"
        ]
    );
    assert!(
        info.kernels
            .iter()
            .find(|k| k.name == "gridconst")
            .unwrap()
            .params[0]
            .grid_constant
    );
    let globals: Vec<(&str, u64)> = info
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.size))
        .collect();
    assert_eq!(
        globals,
        [
            ("coeffs", 64),
            ("counter", 4),
            ("const_p", 24),
            ("table", 64)
        ]
    );
    let raw = analyze_raw("types.cu").unwrap();
    assert_same_kernels(&info, &raw);
    assert_eq!(info.structs, raw.structs);
}

#[test]
fn cxx_kernels_resolve_to_their_symbols() {
    let Some(info) = check_file("cxx.cu") else {
        return;
    };
    assert_eq!(
        names(&info),
        [
            "cxx_plain",
            "wide",
            "overload",
            "overload",
            "ns::inns",
            "geo::k08",
            "a::b::k09",
            "axpy<float>",
            "axpy<double>",
            "tmpl2<float, 4>",
            "tmpl2<__half, -1>",
            "ops::k15<float>",
            "k17<true>",
            "k14<V>",
            "scale<float>",
            "defaulted<double, int>",
            "static_kern",
        ]
    );
    for k in &info.kernels {
        assert!(k.symbol.starts_with("_Z"), "{}: {}", k.name, k.symbol);
    }
    assert!(
        info.kernels
            .iter()
            .find(|k| k.name == "static_kern")
            .unwrap()
            .is_static
    );
    let raw = analyze_raw("cxx.cu").unwrap();
    assert_same_kernels(&info, &raw);
}

#[test]
fn macros_need_the_preprocessor() {
    let Some(info) = check_file("macros.cu") else {
        return;
    };
    assert_eq!(
        names(&info),
        ["via_macro", "fill_f32", "fill_f64", "under_cudacc", "lanes"]
    );
    let lanes = info.kernels.iter().find(|k| k.name == "lanes").unwrap();
    assert_eq!(
        lanes.params[1].layout.size, 40,
        "Acc from the user's header"
    );
    assert!(
        info.struct_def("Acc")
            .unwrap()
            .loc
            .as_ref()
            .unwrap()
            .file
            .ends_with("corpus_types.h")
    );
    // Without nvcc: the header is not read, so its types are unknown: the kernels that use
    // them stay untyped, with why, and notes say what was not read.
    let info = analyze_raw("macros.cu").unwrap();
    let lanes = info.untyped.iter().find(|u| u.name == "lanes").unwrap();
    assert_eq!(lanes.loc.as_ref().map(|l| l.line), Some(22), "{lanes:?}");
    assert!(lanes.why.contains("unknown type `Acc`"), "{lanes:?}");
    let notes = info.notes.join("\n");
    assert!(
        notes.contains("`#include \"corpus_types.h\"` was not read"),
        "{notes}"
    );
    assert!(notes.contains("macro `DECLARE_FILL`"), "{notes}");
}

#[test]
fn raw_reading_expands_object_like_macros_and_skips_disabled_code() {
    let src = std::fs::read_to_string(corpus_dir().join("macros.cu")).unwrap();
    let without_header = src.replace(
        "#include \"corpus_types.h\"",
        "typedef double acc_t; struct Acc { acc_t sum; float v[8]; };",
    );
    let info = analyze(&FrontInput::raw_only("macros.cu", &without_header)).unwrap();
    assert_eq!(names(&info), ["via_macro", "under_cudacc", "lanes"]);
    assert!(info.notes.iter().any(|n| n.contains("DECLARE_FILL")));
}

#[test]
fn a_kernel_missing_from_an_image_names_kernel_and_arch() {
    let Some(nvcc) = nvcc() else { return };
    let mut info = analyze_file(&nvcc, "gated.cu");
    assert_eq!(names(&info), ["everywhere", "clustered"]);
    let fatbin = compile(&nvcc, &corpus_dir().join("gated.cu"));
    // By default a kernel may be in some images only: the images say where.
    let mut lenient = info.clone();
    verify(&mut lenient, &fatbin).unwrap();
    let on: Vec<Vec<String>> = lenient.kernels.iter().map(|k| k.targets()).collect();
    assert_eq!(on[0], ["sm_80", "sm_90", "sm_120", "compute_120"], "{on:?}");
    assert_eq!(on[1], ["sm_90", "sm_120", "compute_120"], "{on:?}");
    let strict = VerifyOptions {
        require_every_target: true,
        ..Default::default()
    };
    let err = verify_with(&mut info, &fatbin, &strict).unwrap_err();
    assert_eq!(err.len(), 1, "{err}");
    let text = err.to_string();
    assert!(
        text.contains("kernel `clustered` (symbol `clustered`) is missing from the sm_80 image"),
        "{text}"
    );
    assert!(text.starts_with("gated.cu:4:"), "{text}");
}

#[test]
fn a_wrong_struct_definition_names_kernel_parameter_and_both_layouts() {
    let Some(nvcc) = nvcc() else { return };
    let fatbin = compile(&nvcc, &corpus_dir().join("types.cu"));
    let raw = std::fs::read_to_string(corpus_dir().join("types.cu")).unwrap();
    let wrong = raw.replace(
        "struct P { float x; double y; int z; };",
        "struct P { float x; float y; int z; };",
    );
    let mut info = analyze(&FrontInput::raw_only("types.cu", &wrong)).unwrap();
    // The kernel stays in the module, typed by the images alone, with why; the global of
    // that struct type is still an error (a global has no by-name fallback).
    let err = verify(&mut info, &fatbin).unwrap_err();
    assert!(
        err.iter()
            .all(|d| d.message.starts_with("global `const_p` is 12 bytes")),
        "{err}"
    );
    assert!(info.kernels.iter().all(|k| k.name != "withstruct"));
    let k = info
        .untyped
        .iter()
        .find(|u| u.name == "withstruct")
        .unwrap();
    let text = &k.why;
    assert!(
        text.contains("parameter `p` of kernel `withstruct` (type `P`) is at offset 0 with size 12 in the declaration but at offset 0 with size 24 in the sm_80 image"),
        "{text}"
    );
    assert!(
        text.contains("declared layout (offset, size): [(0, 12), (16, 8)]"),
        "{text}"
    );
    assert!(
        text.contains("sm_80 layout (offset, size): [(0, 24), (24, 8)]"),
        "{text}"
    );
    let slots: Vec<(u64, u64)> = k.params.iter().map(|l| (l.offset, l.size)).collect();
    assert_eq!(slots, [(0, 24), (24, 8)]);
    assert!(!k.images.is_empty());
}

#[test]
fn an_unknown_type_leaves_the_kernel_untyped_naming_type_and_line() {
    let src = "extern \"C\" __global__ void ok(int n) {}\n\nextern \"C\" __global__ void bad(float* x,\n    frobnicator_t f) {}\n";
    let info = analyze(&FrontInput::raw_only("u.cu", src)).unwrap();
    assert_eq!(names(&info), ["ok"]);
    let bad = &info.untyped[0];
    assert_eq!(bad.name, "bad");
    assert!(
        bad.why.starts_with("unknown type `frobnicator_t`"),
        "{bad:?}"
    );
    assert_eq!(bad.loc.as_ref().map(|l| (l.line, l.column)), Some((4, 5)));
}

#[test]
fn the_corpus_has_at_least_forty_forms() {
    let total: usize = ["basics.cu", "types.cu", "cxx.cu"]
        .iter()
        .map(|f| analyze_raw(f).unwrap().kernels.len())
        .sum();
    assert!(total + 5 >= 40, "{total}");
}
