//! Codegen tests: the output parses as a Rust file and holds the key lines.

use super::*;
use crate::model::rust::rust_ident;
use crate::model::{
    CType, Field, Global, GlobalSpace, ImageFacts, Kernel, KernelAttrs, Layout, Linkage, Param,
    Scalar, SourceLoc, StructDef, TemplateArg,
};

fn param(name: &str, ty: CType, written: &str, offset: u64, size: u64) -> Param {
    Param {
        name: Some(name.into()),
        ty,
        written: written.into(),
        grid_constant: false,
        layout: Layout {
            offset,
            size,
            align: size.min(8),
        },
        loc: None,
    }
}

fn ptr(elem: CType, is_const: bool) -> CType {
    CType::pointer(elem, is_const)
}

fn kernel(name: &str, base: &str, args: Vec<TemplateArg>, params: Vec<Param>) -> Kernel {
    Kernel {
        name: name.into(),
        base_name: base.into(),
        namespace: vec![],
        template_args: args,
        symbol: format!("sym_{name}"),
        linkage: if name == base {
            Linkage::C
        } else {
            Linkage::Cxx
        },
        is_static: false,
        params,
        attrs: KernelAttrs::default(),
        doc: None,
        loc: Some(SourceLoc {
            file: "k.cu".into(),
            line: 3,
            column: 1,
        }),
        images: vec![ImageFacts {
            target: "sm_90".into(),
            registers: Some(12),
            max_threads: None,
        }],
    }
}

const F32: CType = CType::Scalar(Scalar::F32);
const F64: CType = CType::Scalar(Scalar::F64);
const I32: CType = CType::Scalar(Scalar::I32);

fn axpy(t: CType, written: &str, size: u64) -> Kernel {
    let name = format!("axpy<{written}>");
    kernel(
        &name,
        "axpy",
        vec![TemplateArg::Type(t.clone())],
        vec![
            param("a", t.clone(), written, 0, size),
            param(
                "x",
                ptr(t.clone(), true),
                &format!("const {written}*"),
                8,
                8,
            ),
            param("y", ptr(t, false), &format!("{written}*"), 16, 8),
            param("n", I32, "int", 24, 4),
        ],
    )
}

fn fixture() -> BuiltModule {
    let mut saxpy = kernel(
        "saxpy",
        "saxpy",
        vec![],
        vec![
            param("a", F32, "float", 0, 4),
            param("x", ptr(F32, true), "const float*", 8, 8),
            param("y", ptr(F32, false), "float*", 16, 8),
            param("n", I32, "int", 24, 4),
        ],
    );
    saxpy.doc = Some("y = a*x + y for `x[i]`, y[i]\n    indented\n```\nnot rust [i]\n```".into());
    let with_struct = kernel(
        "withstruct",
        "withstruct",
        vec![],
        vec![
            param("p", CType::Struct("P".into()), "P", 0, 24),
            param(
                "v",
                CType::Vector {
                    elem: Scalar::F32,
                    lanes: 2,
                },
                "float2",
                24,
                8,
            ),
            param("h", CType::Scalar(Scalar::F16), "__half", 32, 2),
            param("raw", ptr(CType::Void, false), "void*", 40, 8),
        ],
    );
    let p = StructDef {
        name: "P".into(),
        fields: vec![
            Field {
                name: "x".into(),
                ty: F32,
                layout: Layout {
                    offset: 0,
                    size: 4,
                    align: 4,
                },
            },
            Field {
                name: "y".into(),
                ty: F64,
                layout: Layout {
                    offset: 8,
                    size: 8,
                    align: 8,
                },
            },
            Field {
                name: "n".into(),
                ty: I32,
                layout: Layout {
                    offset: 16,
                    size: 4,
                    align: 4,
                },
            },
        ],
        size: 24,
        align: 8,
        rust_path: None,
        is_union: false,
        opaque: false,
        name_only: false,
        loc: None,
    };
    let coeffs = Global {
        name: "coeffs".into(),
        symbol: "coeffs".into(),
        space: GlobalSpace::Constant,
        ty: CType::Array {
            elem: Box::new(F32),
            len: 16,
        },
        size: 64,
        loc: None,
    };
    let info = ModuleInfo {
        kernels: vec![
            saxpy,
            axpy(F32, "float", 4),
            axpy(F64, "double", 8),
            kernel("noparams", "noparams", vec![], vec![]),
            with_struct,
        ],
        structs: vec![p],
        globals: vec![coeffs],
        preprocessed: true,
        notes: vec![],
        skipped: vec![],
        stopped: None,
        elsewhere: vec![],
        untyped: vec![],
        host_functions: vec![],
        enums: vec![],
        layout_problems: vec![],
        layouts_measured: vec![],
        left_out: vec![],
    };
    BuiltModule {
        name: "vecmath".into(),
        info,
        fatbin_path: Some("/cache/v.fatbin".into()),
        targets: vec!["sm_90".into(), "compute_120".into()],
        toolkit_version: Some("13.0".into()),
        tracked_files: vec!["/src/k.cu".into()],
        warnings: vec![],
        units: vec![],
        runtime_source: None,
        constants: Vec::new(),
        editor_files: Vec::new(),
        tuned: Vec::new(),
    }
}

/// Whether `out` contains `needle`, ignoring whitespace (the printer wraps lines).
fn has(out: &str, needle: &str) -> bool {
    let squash = |s: &str| s.split_whitespace().collect::<String>();
    squash(out).contains(&squash(needle))
}

fn render(parts: &BuiltModule, opts: &CodegenOptions) -> String {
    let tokens = generate(parts, opts);
    let file = syn::parse2::<syn::File>(tokens.clone())
        .unwrap_or_else(|e| panic!("generated code does not parse: {e}\n{tokens}"));
    prettyplease::unparse(&file)
}

#[test]
fn plain_stub_takes_exact_types_and_is_unsafe() {
    let out = render(&fixture(), &CodegenOptions::default());
    assert!(has(&out, "pub unsafe fn saxpy("), "{out}");
    assert!(has(&out, "a: impl __args::a<f32, __k::saxpy>,"), "{out}");
    // A value goes through `Exactly`, so that its trait names a missing argument.
    assert!(has(&out, "a.into_exact()"), "{out}");
    // Pointer parameters take a shared bound over ConstPtr / MutPtr whose diagnostic names
    // the parameter and its CUDA type, and the kernel through its marker type.
    assert!(has(&out, "x: impl __args::x<f32, __k::saxpy>"), "{out}");
    assert!(has(&out, "y: impl __args::y<f32, __k::saxpy>"), "{out}");
    // The body is one call: every argument in one tuple, scalars as they are.
    assert!(
        has(
            &out,
            "unsafe { self.inner.launch(0, cfg, (a.into_exact(), x, y, n.into_exact())) }"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "pub trait x<__E, __K>: ::cuda_kernel_runtime::__private::ConstPtr<__E> {}"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "message = \"`{Self}` cannot be passed for parameter `y` (`float*`) of kernel `{__K}`\""
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "pub mod __k { pub enum saxpy {} pub enum axpy {} pub enum withstruct {} }"
        ),
        "{out}"
    );
    assert!(has(&out, "/// # Safety"), "{out}");
    assert!(has(&out, "; 12 registers per thread on sm_90."), "{out}");
}

#[test]
fn texture_and_surface_parameters_take_the_runtime_objects() {
    let mut parts = fixture();
    parts.info.kernels.push(kernel(
        "sample",
        "sample",
        vec![],
        vec![
            param(
                "tex",
                CType::Scalar(Scalar::TexObject),
                "cudaTextureObject_t",
                0,
                8,
            ),
            param(
                "surf",
                CType::Scalar(Scalar::SurfObject),
                "cudaSurfaceObject_t",
                8,
                8,
            ),
            param("out", ptr(F32, false), "float*", 16, 8),
        ],
    ));
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        has(
            &out,
            "tex: &::cuda_kernel_runtime::TextureObject<impl ::core::marker::Sized>"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "surf: &::cuda_kernel_runtime::SurfaceObject<impl ::core::marker::Sized>"
        ),
        "{out}"
    );
    // The handle is passed by value.
    assert!(
        has(&out, "::cuda_kernel_runtime::ByValue(tex.handle())"),
        "{out}"
    );
    assert!(!has(&out, "__args::sample::tex"), "{out}");
}

#[test]
fn tensor_map_parameters_pass_the_map_itself() {
    let mut parts = fixture();
    parts.info.kernels.push(kernel(
        "tile",
        "tile",
        vec![],
        vec![
            param(
                "src",
                CType::Scalar(Scalar::TensorMap),
                "CUtensorMap",
                0,
                128,
            ),
            param("n", CType::Scalar(Scalar::I32), "int", 128, 4),
        ],
    ));
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        has(
            &out,
            "src: &::cuda_kernel_runtime::TensorMap<'_, impl ::core::marker::Sized>"
        ),
        "{out}"
    );
    // The map is the argument (it orders its buffer's uses), not its handle by value.
    assert!(has(&out, "cfg, (src, n.into_exact()))"), "{out}");
    assert!(!has(&out, "src.handle()"), "{out}");
}

#[test]
fn vouched_kernels_get_safe_stubs() {
    let mut opts = CodegenOptions::default();
    opts.safe_kernels.insert("saxpy".into());
    let out = render(&fixture(), &opts);
    assert!(has(&out, "pub fn saxpy("), "{out}");
    assert!(has(&out, "pub unsafe fn noparams("), "{out}");
}

#[test]
fn templates_become_one_generic_method() {
    let out = render(&fixture(), &CodegenOptions::default());
    assert!(
        has(&out, "pub unsafe fn axpy<T: templates::Axpy>("),
        "{out}"
    );
    assert!(
        has(
            &out,
            "a: impl __args::axpy_a<<T as templates::Axpy>::A, __k::axpy>"
        ),
        "{out}"
    );
    assert!(has(&out, "pub mod templates"), "{out}");
    assert!(has(&out, "impl Axpy for f32"), "{out}");
    assert!(has(&out, "impl Axpy for f64"), "{out}");
    assert!(has(&out, "const INDEX: usize = 2usize;"), "{out}");
    // `n` is `int` in every instantiation: no associated type for it.
    assert!(!has(&out, "type N"), "{out}");
}

#[test]
fn unnamed_or_colliding_template_parameters_are_positional() {
    let mut parts = fixture();
    parts.info.kernels[1].params[1].name = None;
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        has(
            &out,
            "a: impl __args::axpy_a<<T as templates::Axpy>::P0, __k::axpy>"
        ),
        "{out}"
    );
    assert!(has(&out, "type P2 = f64;"), "{out}");
    assert!(!has(&out, "type A"), "{out}");

    let mut parts = fixture();
    for k in &mut parts.info.kernels[1..3] {
        k.params[0].name = Some("X".into());
    }
    let out = render(&parts, &CodegenOptions::default());
    assert!(has(&out, "type P1 = f32;"), "{out}");
}

#[test]
fn template_trait_names_give_way_to_structs() {
    let mut parts = fixture();
    let mut clash = parts.info.structs[0].clone();
    clash.name = "Axpy".into();
    parts.info.structs.push(clash);
    let out = render(&parts, &CodegenOptions::default());
    assert!(has(&out, "pub trait axpy"), "{out}");
    assert!(
        has(&out, "pub unsafe fn axpy<T: templates::axpy>("),
        "{out}"
    );
}

#[test]
fn value_template_arguments_fall_back_to_named_methods() {
    let mut parts = fixture();
    for (k, v) in parts.info.kernels[1..3].iter_mut().zip(["4", "8"]) {
        k.template_args.push(TemplateArg::Value(v.into()));
    }
    let out = render(&parts, &CodegenOptions::default());
    assert!(has(&out, "pub unsafe fn axpy_f32_4("), "{out}");
    assert!(has(&out, "pub unsafe fn axpy_f64_8("), "{out}");
    assert!(!has(&out, "mod templates"), "{out}");
}

#[test]
fn structs_get_repr_c_and_layout_assertions() {
    let out = render(&fixture(), &CodegenOptions::default());
    assert!(has(&out, "#[repr(C)]"), "{out}");
    assert!(has(&out, "pub struct P {"), "{out}");
    assert!(
        has(&out, "::core::mem::offset_of!(P, y) == 8usize"),
        "{out}"
    );
    assert!(has(&out, "::core::mem::size_of::<P>() == 24usize"), "{out}");
    assert!(
        has(
            &out,
            "unsafe impl ::cuda_kernel_runtime::__private::cudarc::driver::DeviceRepr for P"
        ),
        "{out}"
    );
    assert!(has(&out, "p: impl __args::p<P, __k::withstruct>,"), "{out}");
    assert!(
        has(
            &out,
            "v: impl __args::v<::cuda_kernel_runtime::vector::Float2, __k::withstruct>"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "h: impl __args::h<::cuda_kernel_runtime::f16, __k::withstruct>"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "raw: impl __args::raw<::cuda_kernel_runtime::RawDevicePtr, __k::withstruct>"
        ),
        "{out}"
    );
}

#[test]
fn globals_metadata_and_image() {
    let out = render(&fixture(), &CodegenOptions::default());
    assert!(has(&out, "pub fn coeffs("), "{out}");
    assert!(has(&out, "Global<[f32; 16usize]>"), "{out}");
    assert!(has(&out, "include_bytes!(\"/cache/v.fatbin\")"), "{out}");
    assert!(has(&out, "archs: &[\"sm_90\", \"compute_120\"]"), "{out}");
    assert!(has(&out, "toolkit: \"13.0\""), "{out}");
    assert!(has(&out, "(\"saxpy\", \"sm_90\", 12u32)"), "{out}");
    assert!(
        has(
            &out,
            "K::new(\"saxpy\", \"sym_saxpy\", &[P::new(\"a\", \"float\", 0, 4), P::new(\"x\", \"const float*\", 8, 8)"
        ),
        "{out}"
    );
    assert!(has(&out, ".with_available(&[\"sm_90\"])"), "{out}");
    // A kernel with C linkage is found by its name.
    let mut parts = fixture();
    parts.info.kernels[0].symbol = parts.info.kernels[0].name.clone();
    let out = render(&parts, &CodegenOptions::default());
    assert!(has(&out, "K::extern_c(\"saxpy\", &[P::new("), "{out}");
}

#[test]
fn no_device_code_embeds_nothing_and_tracking_is_optional() {
    let mut parts = fixture();
    parts.fatbin_path = None;
    let out = render(&parts, &CodegenOptions::default());
    assert!(has(&out, "::core::option::Option::None"), "{out}");
    assert!(!has(&out, "include_bytes"), "{out}");
    let opts = CodegenOptions {
        track_inputs: Some(crate::env::tracked_names()),
        ..CodegenOptions::default()
    };
    let out = render(&parts, &opts);
    assert!(has(&out, "include_bytes!(\"/src/k.cu\")"), "{out}");
    // The macro's door tracks every variable the build reads.
    for var in crate::env::Var::ALL {
        let tracked = format!("option_env!(\"{}\")", var.name());
        assert!(has(&out, &tracked), "{} is not tracked: {out}", var.name());
    }
}

/// Inside a macro the build's warnings become compiler warnings (deprecation notes); a
/// build script's module carries none (it printed them as `cargo:warning=`).
#[test]
fn macro_modules_carry_the_build_warnings() {
    let mut parts = fixture();
    parts.warnings = (0..30).map(|i| format!("warning number {i}")).collect();
    let out = render(&parts, &CodegenOptions::default());
    assert!(!out.contains("deprecated"), "{out}");
    let opts = CodegenOptions {
        warn_in_code: true,
        ..CodegenOptions::default()
    };
    let out = render(&parts, &opts);
    assert!(
        has(&out, "#[deprecated(note = \"warning number 0\")]"),
        "{out}"
    );
    assert!(
        has(&out, "#[deprecated(note = \"warning number 23\")]"),
        "{out}"
    );
    assert!(!out.contains("warning number 24\""), "{out}");
    assert!(
        out.contains("6 more warnings of module `vecmath` (a build script prints them all)"),
        "{out}"
    );
}

#[test]
fn kernel_comments_cannot_become_doctests() {
    let out = render(&fixture(), &CodegenOptions::default());
    assert!(has(&out, "/// y = a*x + y"), "{out}");
    // Brackets are no intra-doc links, except inside code, where they stay as written.
    assert!(has(&out, r"for `x[i]`, y\[i\]"), "{out}");
    assert!(has(&out, "/// not rust [i]"), "{out}");
    assert!(has(&out, "/// indented"), "{out}");
    assert!(has(&out, "/// ```text"), "{out}");
}

#[test]
fn module_attributes_and_visibility_are_kept() {
    let opts = CodegenOptions {
        vis: syn::parse_quote!(pub(crate)),
        attrs: vec![syn::parse_quote!(#[doc = " My kernels."])],
        ..CodegenOptions::default()
    };
    let out = render(&fixture(), &opts);
    assert!(has(&out, "/// My kernels."), "{out}");
    assert!(has(&out, "/// # Launch contract"), "{out}");
    assert!(has(&out, "pub(crate) mod vecmath {"), "{out}");
}

/// C++ gives an empty struct size 1; the Rust twin gets a one-byte filler.
#[test]
fn empty_structs_get_a_filler_byte() {
    let mut parts = fixture();
    parts.info.structs.push(StructDef {
        name: "E".into(),
        fields: vec![],
        size: 1,
        align: 1,
        rust_path: None,
        is_union: false,
        opaque: false,
        name_only: false,
        loc: None,
    });
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        has(
            &out,
            "pub struct E { #[doc(hidden)] pub __reserved: [u8; 1usize], }"
        ),
        "{out}"
    );
}

/// A type the compiler measured but the front end cannot lay out is that many bytes at that
/// alignment, made from bytes, with its C++ name; a long C++ name is shortened with a hash.
#[test]
fn opaque_types_are_bytes_of_the_measured_size_and_alignment() {
    let mut parts = fixture();
    let long =
        "lib::gemm::Kernel<lib::gemm::Tile<128, 256, 64>, lib::epilogue::Linear<float, 8>>::Params";
    for (name, size, align) in [("lib::Axpy<float>::Params", 32, 8), (long, 48, 16)] {
        parts.info.structs.push(StructDef {
            name: name.into(),
            fields: vec![],
            size,
            align,
            rust_path: None,
            is_union: false,
            opaque: true,
            name_only: false,
            loc: None,
        });
    }
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        has(
            &out,
            "#[derive(Clone, Copy, PartialEq, Eq)] #[repr(C, align(8))] pub struct lib_Axpy_float_Params([u8; 32usize]);"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "pub const fn from_bytes(bytes: [u8; 32usize]) -> Self"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "pub const CUDA_TYPE: &'static str = \"lib::Axpy<float>::Params\";"
        ),
        "{out}"
    );
    assert!(out.contains("as nvcc lays the type out"), "{out}");
    let short = rust_ident(long).to_string();
    assert!(short.starts_with("lib_gemm_Kernel_Params_"), "{short}");
    assert!(
        has(
            &out,
            &format!("#[repr(C, align(16))] pub struct {short}([u8; 48usize]);")
        ),
        "{out}"
    );
}

/// A type only template arguments name is a Rust type with no value: it names the
/// instantiation it selects, with its C++ name, and claims no size.
#[test]
fn named_only_types_are_names_without_values() {
    let mut parts = fixture();
    parts.info.structs.push(StructDef {
        name: "lib::gemm::Op<4>".into(),
        fields: vec![],
        size: 0,
        align: 1,
        rust_path: None,
        is_union: false,
        opaque: true,
        name_only: true,
        loc: None,
    });
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        has(
            &out,
            "#[derive(Clone, Copy, Debug, PartialEq, Eq)] pub enum lib_gemm_Op_4 {}"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "pub const CUDA_TYPE: &'static str = \"lib::gemm::Op<4>\";"
        ),
        "{out}"
    );
    assert!(!out.contains("lib_gemm_Op_4([u8"), "{out}");
    assert!(out.contains("named only"), "{out}");
}

/// A C union becomes a Rust union (no field compares or prints as a whole), and a struct
/// holding one, even in an array, does not derive `PartialEq`.
#[test]
fn unions_become_rust_unions() {
    let field = |name: &str, ty: CType, size: u64| Field {
        name: name.into(),
        ty,
        layout: Layout {
            offset: 0,
            size,
            align: size,
        },
    };
    let mut parts = fixture();
    parts.info.structs.push(StructDef {
        name: "Word".into(),
        fields: vec![field("f", F32, 4), field("u", I32, 4)],
        size: 4,
        align: 4,
        rust_path: None,
        is_union: true,
        opaque: false,
        name_only: false,
        loc: None,
    });
    let words = CType::Array {
        elem: Box::new(CType::Struct("Word".into())),
        len: 2,
    };
    parts.info.structs.push(StructDef {
        name: "Pair".into(),
        fields: vec![field("w", words, 8)],
        size: 8,
        align: 4,
        rust_path: None,
        is_union: false,
        opaque: false,
        name_only: false,
        loc: None,
    });
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        has(
            &out,
            "#[derive(Clone, Copy)] pub union Word { /// `float` at offset 0. pub f: f32,"
        ),
        "{out}"
    );
    assert!(has(&out, "impl ::core::fmt::Debug for Word"), "{out}");
    assert!(
        has(&out, "#[derive(Clone, Copy, Debug)] pub struct Pair {"),
        "{out}"
    );
    assert!(out.contains("The CUDA union `Word` (4 bytes"), "{out}");
}

/// A kernel without a typed declaration is in `METADATA` with its image layout and in the
/// module docs with why, and gets no stub: `by_name` reaches it.
#[test]
fn untyped_kernels_are_listed_and_reached_by_name() {
    let mut parts = fixture();
    parts.info.untyped.push(crate::model::UntypedKernel {
        name: "apply".into(),
        symbol: "apply".into(),
        params: vec![
            Layout {
                offset: 0,
                size: 8,
                align: 1,
            },
            Layout {
                offset: 8,
                size: 4,
                align: 1,
            },
        ],
        param_types: vec![],
        param_names: vec![],
        why: "unknown type `Flags`".into(),
        loc: Some(SourceLoc {
            file: "k.cu".into(),
            line: 7,
            column: 1,
        }),
        images: vec![ImageFacts {
            target: "sm_90".into(),
            registers: Some(9),
            max_threads: None,
        }],
    });
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        has(
            &out,
            "K::new(\"apply\", \"apply\", &[P::new(\"arg0\", \"\", 0, 8), P::new(\"arg1\", \"\", 8, 4)],).with_available(&[\"sm_90\"])"
        ),
        "{out}"
    );
    assert!(out.contains("/// # Kernels without a typed stub"), "{out}");
    assert!(
        out.contains("/// - `apply` at `k.cu:7:1`: unknown type `Flags`"),
        "{out}"
    );
    assert!(has(&out, "pub fn by_name("), "{out}");
    assert!(!out.contains("fn apply("), "{out}");
    assert!(has(&out, "(\"apply\", \"sm_90\", 9u32)"), "{out}");
}

#[test]
fn template_docs_name_the_template_and_the_instantiated_types() {
    let as_written = |t: CType, size: u64| {
        let mut k = axpy(t, "T", size);
        for (p, written) in k.params.iter_mut().zip(["T", "const T*", "T*", "int"]) {
            p.written = written.into();
        }
        k
    };
    let mut float = as_written(F32, 4);
    let mut double = as_written(F64, 8);
    float.name = "axpy<float>".into();
    double.name = "axpy<double>".into();
    let mut parts = fixture();
    parts.info.kernels = vec![float, double];
    let out = render(&parts, &CodegenOptions::default());
    assert!(
        out.contains("The instantiations of CUDA template `axpy`:"),
        "{out}"
    );
    assert!(
        out.contains("Instantiations of CUDA template `axpy` (select"),
        "{out}"
    );
    assert!(
        out.contains("`__global__ void axpy<float>(float a, const float* x, float* y, int n)`"),
        "{out}"
    );
    assert!(
        out.contains("`__global__ void axpy<double>(double a, const double* x, double* y, int n)`"),
        "{out}"
    );
    assert!(!out.contains("(T a"), "{out}");
}

#[test]
fn stub_docs_say_what_each_argument_takes_and_whether_the_kernel_writes() {
    let opts = CodegenOptions {
        runtime: syn::parse_quote!(::kr),
        ..CodegenOptions::default()
    };
    let out = render(&fixture(), &opts);
    // Rendered as doc attributes: look for the text itself.
    assert!(has(&out, "# Arguments"), "{out}");
    assert!(
        has(
            &out,
            "- `x` (CUDA `const float* x`): device memory holding `f32`, which the kernel reads only. Pass"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "- `y` (CUDA `float* y`): device memory holding `f32`, which the kernel may write. Pass"
        ),
        "{out}"
    );
    assert!(
        has(&out, "- `a` (CUDA `float a`): `f32`, passed by value"),
        "{out}"
    );
    assert!(
        has(&out, "///   [`&TrackedBuffer<f32>`](kr::TrackedBuffer),"),
        "{out}"
    );
    assert!(has(&out, "///   `&mut CudaViewMut<f32>`,"), "{out}");
    // The generated module names the runtime by the path it was given, nowhere else.
    assert!(!out.contains("cuda_kernel_runtime"), "{out}");
}

#[test]
fn locations_and_images_name_no_path_of_the_build_machine() {
    let mut parts = fixture();
    parts.fatbin_path = Some("/build/target/out/v.fatbin".into());
    parts.info.structs.push(StructDef {
        name: "P".into(),
        fields: vec![],
        size: 0,
        align: 1,
        rust_path: None,
        is_union: false,
        opaque: false,
        name_only: false,
        loc: Some(SourceLoc {
            file: "/home/u/app/kernels/common.cuh".into(),
            line: 3,
            column: 1,
        }),
    });
    let opts = CodegenOptions {
        image_in_out_dir: true,
        source_root: Some("/home/u/app".into()),
        ..CodegenOptions::default()
    };
    let out = render(&parts, &opts);
    assert!(has(&out, "declared at `kernels/common.cuh:3:1`"), "{out}");
    assert!(
        has(
            &out,
            "include_bytes!(::core::concat!(::core::env!(\"OUT_DIR\"), \"/v.fatbin\"))"
        ),
        "{out}"
    );
    assert!(
        !out.contains("/home/u") && !out.contains("/build/target"),
        "{out}"
    );
    // The image sits behind the label naming its module.
    assert!(has(&out, "label_header::<32usize"), "{out}");
    assert!(has(&out, "(\"vecmath\", ::core::include_bytes!"), "{out}");
}

#[test]
fn a_failed_build_keeps_the_module_shape_and_the_declared_kernels() {
    let decl = Declared {
        sig: syn::parse_quote!(fn scale(x: &mut [f32], n: i32)),
        safe: false,
    };
    let opts = CodegenOptions {
        unbuilt: vec![decl],
        ..CodegenOptions::default()
    };
    let tokens = generate(&stand_in("k"), &opts).to_string();
    assert!(
        tokens.contains("fn load") && tokens.contains("fn scale"),
        "{tokens}"
    );
}

#[test]
fn host_code_error_names_are_per_module() {
    let (name, _) = error_name_functions("hosted");
    assert_eq!(name, "kernel_build_error_name_hosted");
    let tokens = host_bindings(
        "m",
        "/m.kernels.json",
        &[],
        &syn::parse_quote!(::cuda_kernel_runtime),
    );
    assert!(tokens.to_string().contains("include_bytes"), "{tokens}");
}

#[test]
fn options_default_to_the_runtime_by_name_and_follow_the_request() {
    let opts = CodegenOptions::default();
    assert!(opts.safe_kernels.is_empty());
    assert_eq!(opts.runtime.segments.len(), 1);
    let mut req = ModuleRequest::new(
        "m",
        crate::model::request::SourceInput::Inline {
            text: String::new(),
        },
    );
    req.safe_kernels.push("scale".into());
    assert!(
        CodegenOptions::for_request(&req)
            .safe_kernels
            .contains("scale")
    );
}

#[test]
fn an_empty_module_is_still_a_module() {
    let module = BuiltModule {
        name: "empty".into(),
        info: Default::default(),
        fatbin_path: None,
        targets: vec![],
        toolkit_version: None,
        tracked_files: vec![],
        warnings: vec![],
        units: vec![],
        runtime_source: None,
        constants: vec![],
        editor_files: vec![],
        tuned: Vec::new(),
    };
    let tokens = generate(&module, &CodegenOptions::default());
    assert!(tokens.to_string().contains("mod empty"));
}

#[test]
fn generated_text_names_files_relative_to_the_crate() {
    use std::path::Path;
    let root = Path::new("/c/app");
    assert_eq!(
        relative_name(Path::new("/c/app/kernels/a.h"), root),
        "kernels/a.h"
    );
    assert_eq!(
        relative_name(Path::new("kernels/a.cu"), root),
        "kernels/a.cu"
    );
    assert_eq!(relative_name(Path::new("/opt/inc/b.h"), root), "b.h");
}

/// The fixture with `scale<B>` instantiated for 128 and 256, tuned over `B` and a launch axis.
fn tuned_fixture() -> BuiltModule {
    use crate::model::{RuleOp, TunedKernel, TunedRule, TunedVariant};
    let mut parts = fixture();
    for b in ["128", "256"] {
        let mut k = kernel(
            &format!("scale<{b}>"),
            "scale",
            vec![TemplateArg::Value(b.into())],
            vec![
                param("y", ptr(F32, false), "float*", 0, 8),
                param("a", F32, "float", 8, 4),
                param("n", I32, "int", 12, 4),
            ],
        );
        k.linkage = Linkage::Cxx;
        parts.info.kernels.push(k);
    }
    let variant = |b: i64, t: i64| TunedVariant {
        name: format!("b{b}_threads{t}"),
        values: vec![b.to_string(), t.to_string()],
        ints: vec![b, t],
        kernel: Some(format!("scale<{b}>")),
        left_out: vec![],
    };
    let mut gone = variant(256, 512);
    gone.kernel = None;
    gone.left_out = vec![("compute_90".into(), "too much shared data".into())];
    parts.tuned.push(TunedKernel {
        name: "vecmath::scale".into(),
        kernel: "scale".into(),
        method: "scale".into(),
        axes: vec!["B".into(), "THREADS".into()],
        variants: vec![variant(128, 64), variant(256, 64), gone],
        grid: vec![TunedRule {
            text: "n.div_ceil(THREADS)".into(),
            ops: vec![RuleOp::Arg(0), RuleOp::Axis(1), RuleOp::DivCeil],
        }],
        block: vec![TunedRule {
            text: "THREADS - -1".into(),
            ops: vec![RuleOp::Axis(1), RuleOp::Const(-1), RuleOp::Sub],
        }],
        shared: None,
        ints: vec!["n".into()],
    });
    parts
}

#[test]
fn a_tuned_kernel_gets_a_typed_entry_point_and_its_variants_are_listed() {
    let out = render(&tuned_fixture(), &CodegenOptions::default());
    // The kernel's own arguments, bounded as a stub's, after the key and the data's choice.
    assert!(
        has(
            &out,
            "pub unsafe fn scale_tuned(&self, key: impl ::core::convert::Into<::cuda_kernel_runtime::tune::Key>, outputs: impl ::cuda_kernel_runtime::tune::Protection, y: impl __args::y<f32, __k::scale_tuned>,"
        ),
        "{out}"
    );
    assert!(
        has(&out, "let a = a.into_exact(); let n = n.into_exact();"),
        "{out}"
    );
    assert!(
        has(
            &out,
            "let ints = [::cuda_kernel_runtime::__private::tune::int(n)];"
        ),
        "{out}"
    );
    assert!(has(&out, "&mut (y, a, n)"), "{out}");
    // The variants with a kernel, each by its index; the one left out everywhere is not.
    assert!(
        has(
            &out,
            "names: &[\"b128_threads64\", \"b256_threads64\"], kernels: &[5usize, 6usize],"
        ),
        "{out}"
    );
    assert!(has(&out, "values: &[&[128, 64], &[256, 64]],"), "{out}");
    assert!(has(&out, "RuleOp::Const(-1)"), "{out}");
    assert!(has(&out, "written: &[0usize]"), "{out}");
    assert!(
        has(
            &out,
            "text: [\"n.div_ceil(THREADS)\", \"THREADS - -1\", \"\"]"
        ),
        "{out}"
    );
    assert!(has(&out, "&tuners::SCALE"), "{out}");
    assert!(
        has(
            &out,
            "pub static SCALE: ::cuda_kernel_runtime::tune::Tuner<"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "= ::cuda_kernel_runtime::tune::Tuner::new(\"vecmath::scale\").module(&super::METADATA);"
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "Left out of every target by the compiler: `b256_threads512`."
        ),
        "{out}"
    );
    assert!(
        has(
            &out,
            "tuned: &[::cuda_kernel_runtime::spec::TunedSpec { name: \"vecmath::scale\", axes: &[\"B\", \"THREADS\"], variants: &[::cuda_kernel_runtime::spec::VariantSpec { name: \"b128_threads64\", kernel: 5usize, values: &[\"128\", \"64\"], },"
        ),
        "{out}"
    );
    // Vouched for, it is safe.
    let mut opts = CodegenOptions::default();
    opts.safe_kernels.insert("scale".into());
    let out = render(&tuned_fixture(), &opts);
    assert!(has(&out, "pub fn scale_tuned("), "{out}");
}

#[test]
fn kernels_kept_by_name_keep_the_tuned_variants() {
    let opts = CodegenOptions {
        kernels: Some(["saxpy".to_owned()].into_iter().collect()),
        ..CodegenOptions::default()
    };
    let out = render(&tuned_fixture(), &opts);
    assert!(has(&out, "pub unsafe fn scale_tuned("), "{out}");
    assert!(has(&out, "kernels: &[1usize, 2usize]"), "{out}");
    assert!(!has(&out, "fn axpy"), "{out}");
}
