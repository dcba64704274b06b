//! Layouts measured by the compile that builds the images, with the real nvcc: the front end
//! follows packing, alignment and bit-fields as nvcc lays them out (every kernel typed, every
//! layout equal to the table the compile measured), and a kernel that passes or points to a
//! type laid out otherwise, or one the compiler cannot measure by name, goes by name with the
//! reason, in every link mode.

mod support;

use cuda_kernel_build::model::StructDef;
use cuda_kernel_build::{BuiltModule, LinkMode};

fn build(file: &str, link: LinkMode) -> Option<BuiltModule> {
    support::build_form(file, link, &[]).map(|(built, _)| built)
}

fn def<'a>(built: &'a BuiltModule, name: &str) -> &'a StructDef {
    built
        .info
        .structs
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no struct `{name}`"))
}

/// `(size, align, [(field, offset)])` of a struct of the model.
fn layout(built: &BuiltModule, name: &str) -> (u64, u64, Vec<(String, u64)>) {
    let s = def(built, name);
    (
        s.size,
        s.align,
        s.fields
            .iter()
            .map(|f| (f.name.clone(), f.layout.offset))
            .collect(),
    )
}

fn fields(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    list.iter().map(|(n, o)| ((*n).to_owned(), *o)).collect()
}

#[test]
fn packing_alignment_and_bit_fields_are_laid_out_as_nvcc_does() {
    for link in [LinkMode::Whole, LinkMode::Rdc, LinkMode::Lto] {
        let Some(built) = build("packing.cu", link) else {
            return;
        };
        let info = &built.info;
        assert!(
            info.layout_problems.is_empty(),
            "{link:?}: {:#?}",
            info.layout_problems
        );
        assert!(info.untyped.is_empty(), "{link:?}: {:#?}", info.untyped);
        let mut names: Vec<&str> = info.kernels.iter().map(|k| k.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["bf", "k", "m", "t<double>"], "{link:?}");
        assert_eq!(layout(&built, "P1"), (9, 1, fields(&[("a", 0), ("b", 1)])));
        assert_eq!(
            layout(&built, "P2"),
            (14, 2, fields(&[("a", 0), ("b", 2), ("c", 10)]))
        );
        assert_eq!(layout(&built, "P1b").0, 5);
        assert_eq!(
            layout(&built, "Q1"),
            (7, 1, fields(&[("a", 0), ("b", 1), ("c", 5)]))
        );
        assert_eq!(layout(&built, "Q3").0, 9);
        assert_eq!(layout(&built, "A1").1, 16);
        assert_eq!(layout(&built, "A2").1, 32);
        assert_eq!((layout(&built, "A3").0, layout(&built, "A3").1), (16, 16));
        assert_eq!(
            layout(&built, "M1"),
            (32, 16, fields(&[("c", 0), ("x", 16), ("y", 20)]))
        );
        assert_eq!(
            layout(&built, "M3"),
            (32, 16, fields(&[("c", 0), ("v", 16)]))
        );
        assert_eq!(
            layout(&built, "MP"),
            (8, 2, fields(&[("c", 0), ("x", 1), ("s", 6)]))
        );
        // a : 3, b : 7 in two bytes, c after them, then d : 20 in the next word, `: 0` moving
        // e to the word after: d, the zero-width field and e one run of bytes.
        assert_eq!(
            layout(&built, "B1"),
            (12, 4, fields(&[("__bits0", 0), ("c", 2), ("__bits1", 4)]))
        );
        assert_eq!(layout(&built, "B3").0, 3);
        assert_eq!(layout(&built, "V"), (12, 4, fields(&[("c", 0), ("d", 4)])));
        assert_eq!(layout(&built, "TP<double>").0, 9);
        assert_eq!(layout(&built, "TQ<double>").0, 9);
    }
}

#[test]
fn a_type_laid_out_otherwise_or_unmeasured_makes_its_kernels_go_by_name() {
    for link in [LinkMode::Whole, LinkMode::Rdc] {
        let Some(built) = build("layout_mismatch.cu", link) else {
            return;
        };
        let info = &built.info;
        let typed: Vec<&str> = info.kernels.iter().map(|k| k.name.as_str()).collect();
        // `P` under `#pragma pack(1)`, by value and behind a pointer: followed, so typed.
        assert_eq!(typed, ["byptr", "byval", "plain"], "{link:?}");
        let why = |name: &str| {
            &info
                .untyped
                .iter()
                .find(|u| u.name == name)
                .unwrap_or_else(|| panic!("{link:?}: `{name}` is not by name: {info:#?}"))
                .why
        };
        assert!(why("hidden").contains("`Hidden`"), "{}", why("hidden"));
        assert!(
            why("hidden").contains("`secret`") && why("hidden").contains("private"),
            "{}",
            why("hidden")
        );
        assert!(why("outer").contains("`Outer`"), "{}", why("outer"));
        assert!(why("outer").contains("size 8"), "{}", why("outer"));
        assert!(why("outer").contains("size 4"), "{}", why("outer"));
    }
}

/// Types defined once in Rust: their header included under `#pragma pack(1)` gives nvcc a
/// layout other than the Rust one, which the compile measures. The kernels that reach the
/// type go by name with both layouts (never typed over the Rust layout); the same header
/// included plainly keeps them typed over the Rust type.
#[test]
fn a_shared_rust_type_included_under_another_packing_is_caught() {
    use cuda_kernel_build::__private::{
        Context, ModuleRequest, RustTypesFile, SourceInput, build_module,
    };
    let Some(nvcc) = support::real_nvcc() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/model.rs"),
        "#[derive(CudaType, Clone, Copy)]\n#[repr(C)]\npub struct Sample {\n    pub tag: u8,\n    pub value: f64,\n}\n",
    )
    .unwrap();
    let kernel = "extern \"C\" __global__ void read(const Sample* s, double* out) {\n    out[threadIdx.x] = s[threadIdx.x].value;\n}\n";
    std::fs::write(
        dir.path().join("packed.cu"),
        format!(
            "#pragma pack(push, 1)\n#include \"src/model.rs.cuh\"\n#pragma pack(pop)\n{kernel}"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("plain.cu"),
        format!("#include \"src/model.rs.cuh\"\n{kernel}"),
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let cx = Context {
        nvcc: Some(nvcc),
        cache_dir: Some(cache.path().to_path_buf()),
        editor_dir: Some(dir.path().join("editor")),
        ..Context::default()
    };
    let build = |file: &str| {
        let mut req = ModuleRequest::new("m", SourceInput::File { path: file.into() });
        req.base_dir = dir.path().to_owned();
        req.archs = Some(vec!["sm_90".into()]);
        req.rust_types = vec![RustTypesFile {
            file: "src/model.rs".into(),
            module: None,
        }];
        build_module(&req, &cx).unwrap_or_else(|e| panic!("{file}: {e}"))
    };

    let plain = build("plain.cu");
    assert!(plain.info.untyped.is_empty(), "{:#?}", plain.info.untyped);
    assert_eq!(plain.info.kernels[0].name, "read");
    let sample = def(&plain, "Sample");
    assert_eq!((sample.size, sample.align), (16, 8));
    assert_eq!(sample.rust_path.as_deref(), Some("crate::model::Sample"));

    let packed = build("packed.cu");
    assert!(packed.info.kernels.is_empty(), "{:#?}", packed.info.kernels);
    let why = &packed.info.untyped[0].why;
    assert!(why.contains("`Sample`"), "{why}");
    assert!(why.contains("size 16") && why.contains("size 9"), "{why}");
    assert!(why.contains("crate::model::Sample"), "{why}");
    // The generated module declares a type of nvcc's layout rather than naming the Rust one.
    assert_eq!(def(&packed, "Sample").rust_path, None);
}
