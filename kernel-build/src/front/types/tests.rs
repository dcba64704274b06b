//! Unit tests of the type model: vector layouts and C spellings.

use super::{c_spelling, header_type, size_align};
use crate::model::spelling::scalar_spelling;
use crate::model::{CType, Qualifiers, Scalar};

#[test]
fn vector_alignments_follow_cuda() {
    let cases = [
        ("char2", 2, 2),
        ("char3", 3, 1),
        ("short4", 8, 8),
        ("int4", 16, 16),
        ("float2", 8, 8),
        ("float3", 12, 4),
        ("double2", 16, 16),
        ("longlong4", 32, 16),
        ("double4_16a", 32, 16),
        ("__half2", 4, 4),
    ];
    for (name, size, align) in cases {
        assert_eq!(
            size_align(&header_type(name).unwrap(), &[]),
            Some((size, align)),
            "{name}"
        );
    }
    assert!(header_type("float5").is_none() && header_type("double4_32a").is_none());
}

#[test]
fn spelling_of_nested_pointers() {
    let f = CType::Scalar(Scalar::F32);
    let pcf = CType::Pointer {
        pointee: Box::new(f),
        pointee_quals: Qualifiers {
            is_const: true,
            is_volatile: false,
        },
    };
    let pp = CType::Pointer {
        pointee: Box::new(pcf),
        pointee_quals: Qualifiers {
            is_const: true,
            is_volatile: false,
        },
    };
    assert_eq!(c_spelling(&pp), "const float* const*");
    let nested = CType::Array {
        elem: Box::new(CType::Array {
            elem: Box::new(CType::Scalar(Scalar::I32)),
            len: 2,
        }),
        len: 3,
    };
    assert_eq!(c_spelling(&nested), "int[3][2]");
}

/// Reads `src` without nvcc and returns the model or the rendered errors.
fn read(src: &str) -> Result<crate::model::ModuleInfo, String> {
    crate::front::analyze(&crate::front::FrontInput::raw_only("k.cu", src))
        .map_err(|d| d.to_string())
}

#[test]
fn class_templates_lay_out_per_argument_list() {
    let info = read(
        "template <typename T, int N> struct vec { T v[N]; int used; };\n\
         template <typename T> using vec3 = vec<T, 3>;\n\
         extern \"C\" __global__ void k(vec<double, 2> a, vec3<char> b, vec< double ,1+1 >* c) {}",
    )
    .unwrap();
    let k = &info.kernels[0];
    let slots: Vec<(u64, u64)> = k
        .params
        .iter()
        .map(|p| (p.layout.offset, p.layout.size))
        .collect();
    assert_eq!(slots, [(0, 24), (24, 8), (32, 8)]);
    // One struct per argument list, whatever the spelling.
    let names: Vec<&str> = info.structs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["vec<double, 2>", "vec<char, 3>"]);
}

/// Why the front end left every kernel of `src` untyped (they stay in the module, typed
/// by the images alone).
fn untyped_why(src: &str) -> String {
    let info = read(src).unwrap();
    assert!(info.kernels.is_empty(), "{:?}", info.kernels);
    info.untyped
        .iter()
        .map(|u| format!("{}: {}", u.name, u.why))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn what_has_no_c_layout_leaves_the_kernel_untyped_naming_why() {
    let why = untyped_why(
        "struct Shape { virtual __device__ float area() const; float x; };\n\
         extern \"C\" __global__ void k(Shape* s) {}",
    );
    assert!(why.starts_with("k: unknown type `Shape`"), "{why}");
    assert!(
        why.contains("no C layout: it has virtual functions"),
        "{why}"
    );
    let why = untyped_why(
        "struct A { int a; };\nstruct B : virtual A { int b; };\n\
         extern \"C\" __global__ void k(B b) {}",
    );
    assert!(why.contains("it has a virtual base class"), "{why}");
}

#[test]
fn function_pointers_and_pointers_to_arrays_are_typed() {
    let info = read(
        "typedef float (*op_t)(float);\n\
         extern \"C\" __global__ void k(op_t f, int (*g)(int, int), float (*rows)[4], const float (*c)[2][3]) {}",
    )
    .unwrap();
    let tys: Vec<String> = info.kernels[0]
        .params
        .iter()
        .map(|p| c_spelling(&p.ty))
        .collect();
    assert_eq!(
        tys,
        [
            "void (*)(...)",
            "void (*)(...)",
            "float (*)[4]",
            "const float (*)[2][3]"
        ]
    );
}

#[test]
fn three_and_four_lane_vectors_lay_out_like_cuda() {
    assert_eq!(
        size_align(
            &CType::Vector {
                elem: Scalar::F32,
                lanes: 3
            },
            &[]
        ),
        Some((12, 4))
    );
    assert_eq!(
        size_align(
            &CType::Vector {
                elem: Scalar::F64,
                lanes: 4
            },
            &[]
        ),
        Some((32, 16))
    );
}

#[test]
fn a_pointer_to_const_is_spelled_const_first() {
    let t = CType::Pointer {
        pointee: Box::new(CType::Scalar(Scalar::F32)),
        pointee_quals: Qualifiers {
            is_const: true,
            is_volatile: false,
        },
    };
    assert_eq!(c_spelling(&t), "const float*");
}

#[test]
fn usize_is_spelled_size_t() {
    assert_eq!(scalar_spelling(Scalar::Usize), "size_t");
}

/// A name that starts like a packed narrow float and ends early, or goes on with a character of
/// several bytes, is no type (found by fuzzing: it was sliced inside a character).
#[test]
fn cut_short_narrow_float_names_are_no_type() {
    for name in [
        "__nv_fp",
        "__nv_fpé",
        "__nv_fp8",
        "__nv_fp8x",
        "__nv_fp8x2_",
    ] {
        assert_eq!(header_type(name), None, "{name}");
    }
    assert!(header_type("__nv_fp8x2_e4m3").is_some());
}
