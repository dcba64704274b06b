//! Declaration-check tests on a hand-built module.

use super::*;
use crate::model::{Layout, Linkage, Param, Scalar, SourceLoc};

fn p(name: &str, ty: CType, written: &str) -> Param {
    Param {
        name: Some(name.into()),
        ty,
        written: written.into(),
        grid_constant: false,
        layout: Layout::default(),
        loc: Some(SourceLoc {
            file: "k.cu".into(),
            line: 7,
            column: 3,
        }),
    }
}

fn ptr(elem: CType, is_const: bool) -> CType {
    CType::pointer(elem, is_const)
}

fn k(name: &str, base: &str, args: Vec<TemplateArg>, params: Vec<Param>) -> Kernel {
    Kernel {
        name: name.into(),
        base_name: base.into(),
        namespace: vec![],
        template_args: args,
        symbol: name.into(),
        linkage: Linkage::C,
        is_static: false,
        params,
        attrs: Default::default(),
        doc: None,
        loc: Some(SourceLoc {
            file: "k.cu".into(),
            line: 6,
            column: 1,
        }),
        images: vec![],
    }
}

fn info() -> ModuleInfo {
    let f = CType::Scalar(Scalar::F32);
    let d = CType::Scalar(Scalar::F64);
    let i = CType::Scalar(Scalar::I32);
    let axpy = |t: &CType, w: &str| {
        k(
            &format!("axpy<{w}>"),
            "axpy",
            vec![TemplateArg::Type(t.clone())],
            vec![
                p("a", t.clone(), w),
                p("x", ptr(t.clone(), true), &format!("const {w}*")),
                p("y", ptr(t.clone(), false), &format!("{w}*")),
            ],
        )
    };
    ModuleInfo {
        kernels: vec![
            k(
                "saxpy",
                "saxpy",
                vec![],
                vec![
                    p("a", f.clone(), "float"),
                    p("x", ptr(f.clone(), true), "const float*"),
                    p("y", ptr(f.clone(), false), "float*"),
                    p("n", i, "int"),
                ],
            ),
            k(
                "withstruct",
                "withstruct",
                vec![],
                vec![
                    p("q", CType::Struct("P".into()), "P"),
                    p("raw", ptr(CType::Void, false), "void*"),
                ],
            ),
            axpy(&f, "float"),
            axpy(&d, "double"),
        ],
        structs: vec![crate::model::StructDef {
            name: "P".into(),
            fields: vec![],
            size: 4,
            align: 4,
            rust_path: None,
            is_union: false,
            opaque: false,
            name_only: false,
            loc: None,
        }],
        ..Default::default()
    }
}

fn check(decls: &[&str]) -> Result<(), Vec<String>> {
    let sigs: Vec<syn::Signature> = decls.iter().map(|d| syn::parse_str(d).unwrap()).collect();
    check_declarations(&info(), &sigs).map_err(|e| e.into_iter().map(|e| e.to_string()).collect())
}

#[test]
fn matching_declarations_pass() {
    check(&[
        "fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: i32)",
        "fn saxpy(alpha: f32, x: In<f32>, y: &mut CudaSlice<f32>, len: i32)",
        "fn withstruct(q: P, raw: RawDevicePtr)",
        "fn axpy<T>(a: T, x: &[T], y: &mut [T])",
    ])
    .unwrap();
}

#[test]
fn type_mismatch_names_kernel_param_types_and_location() {
    let errs = check(&["fn saxpy(a: f64, x: &[f32], y: &mut [f32], n: i32)"]).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert!(errs[0].starts_with(
        "kernel `saxpy`, parameter `a`: Rust type `f64` does not match CUDA type `float` (at k.cu:7:3)"
    ), "{errs:?}");
}

#[test]
fn const_mismatches_both_ways_are_all_reported() {
    let errs = check(&["fn saxpy(a: f32, x: &mut [f32], y: &[f32], n: i32)"]).unwrap_err();
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(
        errs[0].contains("parameter `x`: const-ness differs"),
        "{errs:?}"
    );
    assert!(errs[0].contains("declare it as `&[f32]`"), "{errs:?}");
    assert!(
        errs[1].contains("parameter `y`: const-ness differs"),
        "{errs:?}"
    );
    assert!(errs[1].contains("declare it as `&mut [f32]`"), "{errs:?}");
}

#[test]
fn count_missing_kernel_struct_and_unsupported() {
    let errs = check(&[
        "fn saxpy(a: f32, x: &[f32], y: &mut [f32])",
        "fn sacpy(a: f32)",
        "fn withstruct(q: Params, raw: String)",
    ])
    .unwrap_err();
    assert_eq!(errs.len(), 4, "{errs:?}");
    assert!(
        errs[0].contains("takes 4 parameters in CUDA but 3"),
        "{errs:?}"
    );
    assert!(
        errs[1].contains("kernel `sacpy` is declared in Rust but not defined"),
        "{errs:?}"
    );
    assert!(
        errs[2].contains("Rust type `Params` is not CUDA struct `P`"),
        "{errs:?}"
    );
    assert!(
        errs[3].contains("Rust type `String` cannot be a kernel parameter"),
        "{errs:?}"
    );
}

#[test]
fn generic_declarations_check_every_instantiation() {
    let errs = check(&["fn axpy<T>(a: T, x: &[f32], y: &mut [T])"]).unwrap_err();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("kernel `axpy<double>`, parameter `x`"),
        "{errs:?}"
    );
    let errs = check(&["fn axpy(a: f32, x: &[f32], y: &mut [f32])"]).unwrap_err();
    assert!(errs[0].contains("0 type parameter(s)"), "{errs:?}");
}

#[test]
fn a_declared_kernel_the_module_lacks_is_named() {
    let decl: syn::Signature = syn::parse_quote!(fn missing(n: i32));
    let err = check_declarations(&ModuleInfo::default(), &[decl]).unwrap_err();
    assert!(
        err.to_string()
            .contains("kernel `missing` is declared in Rust but not defined"),
        "{err}"
    );
}
