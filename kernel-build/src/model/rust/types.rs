//! How each C type is passed and spelled in Rust: one mapping, which codegen turns into
//! tokens under the runtime's path, and the declaration check, the reports and
//! `cuda-kernel-inspect decls` print.
//!
//! | CUDA C | stub parameter ([`Passing`]) | stored by value ([`RustType`]) |
//! |---|---|---|
//! | scalars | `f32`, `i32`, `usize`, `bool`, ... | same |
//! | `__half`, `__nv_bfloat16` | `f16`, `bf16` (the `half` crate's, re-exported by the runtime) | same |
//! | the narrow floats (`__nv_fp8_e4m3`, ...) | `fp::F8E4M3`, ... | same |
//! | `float2`, `int4`, `longlong2`, ... | `vector::Float2`, `vector::Int4`, `vector::LongLong2`, ... | same |
//! | `struct S` | the generated `S` | same |
//! | `const T*` | `impl ConstPtr<T>` | `RawDevicePtr` |
//! | `T*` | `impl MutPtr<T>` | `RawDevicePtr` |
//! | `void*`, `T**`, pointers to arrays | `RawDevicePtr` | `RawDevicePtr` |
//! | `cudaTextureObject_t` | `&TextureObject<impl Sized>` | `TextureHandle` |
//! | `cudaSurfaceObject_t` | `&SurfaceObject<impl Sized>` | `SurfaceHandle` |
//! | `CUtensorMap` | `&TensorMap<'_, impl Sized>` | `TensorMapHandle` |
//! | `cudaGraphConditionalHandle` | `&Condition<'_>` | `ConditionHandle` |
//! | `cudaGraphExec_t` | `&DeviceGraph<'_>` | `GraphExecHandle` |
//! | `T[N]` | (not a parameter) | `[T; N]` |

use std::fmt;

use super::names::rust_ident;
use crate::model::{CType, EnumDef, Kernel, Param, Scalar, TemplateArg};

/// The Rust type a C type is stored as: a struct field, a global, a by-value parameter,
/// a pointee, a template argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RustType {
    /// A Rust primitive (`f32`, `usize`, `bool`).
    Primitive(&'static str),
    /// A type of the runtime, by its path under the runtime crate (`f16`, `fp::F8E4M3`,
    /// `vector::Float2`, `RawDevicePtr`, `TextureHandle`).
    Runtime(String),
    /// A type of the module by its Rust name: the `#[repr(C)]` type of a C struct, the Rust
    /// enum of a C enumeration (generated, or the user's, re-exported).
    Struct(String),
    /// `[T; N]`.
    Array(Box<RustType>, u64),
    /// `()`: `void` by value, which the front end never gives a parameter.
    Unit,
}

/// How a kernel's stub takes a parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Passing {
    /// By value: the stub takes the type itself.
    Value(RustType),
    /// `const T*`: device memory the kernel only reads (`impl ConstPtr<T>`).
    ConstPtr(RustType),
    /// `T*`: device memory the kernel may write (`impl MutPtr<T>`).
    MutPtr(RustType),
    /// An object of the runtime whose handle the kernel takes.
    Object(RuntimeObject),
}

/// A runtime object a stub takes by reference, passing its handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeObject {
    /// `cudaTextureObject_t`: a `TextureObject`.
    Texture,
    /// `cudaSurfaceObject_t`: a `SurfaceObject`.
    Surface,
    /// `CUtensorMap`: a `TensorMap`, itself the kernel argument.
    TensorMap,
    /// `cudaGraphConditionalHandle`: a graph's `Condition`.
    Condition,
    /// `cudaGraphExec_t`: a `DeviceGraph`.
    DeviceGraph,
}

impl RuntimeObject {
    /// The type of the object's handle, as stored by value.
    pub fn handle(self) -> RustType {
        RustType::Runtime(
            match self {
                RuntimeObject::Texture => "TextureHandle",
                RuntimeObject::Surface => "SurfaceHandle",
                RuntimeObject::TensorMap => "TensorMapHandle",
                RuntimeObject::Condition => "ConditionHandle",
                RuntimeObject::DeviceGraph => "GraphExecHandle",
            }
            .to_owned(),
        )
    }

    /// The object is the kernel argument itself, which orders the memory it describes
    /// across streams (a tensor map); the others pass their handle by value.
    pub fn ordered(self) -> bool {
        self == RuntimeObject::TensorMap
    }
}

/// The Rust name of a scalar type: a primitive (`f32`, `usize`), or the name of the
/// runtime's type (`f16`, `F8E4M3`, `TextureHandle`).
pub fn scalar_name(s: Scalar) -> &'static str {
    s.info().rust
}

/// The name of the runtime's `vector` type for a CUDA vector type: CUDA's own name in
/// UpperCamel case (`float2` → `Float2`, `uchar4` → `UChar4`, `__half2` → `Half2`).
///
/// 64-bit lanes are named after `longlong`/`ulonglong` (`LongLong2`, `ULongLong4`), as the
/// front end spells them in C: on 64-bit Linux `long2` and `longlong2` have one layout, and
/// the model keeps one lane type for both. Four 64-bit lanes are the 16-byte aligned
/// `longlong4` (what `vector_types.h` declares for `longlong4` and `longlong4_16a`).
pub fn vector_name(elem: Scalar, lanes: u8) -> String {
    let base = match elem {
        Scalar::Bool | Scalar::I8 | Scalar::Char => "Char",
        Scalar::U8 => "UChar",
        Scalar::I16 => "Short",
        Scalar::U16 => "UShort",
        Scalar::I32 => "Int",
        Scalar::U32 => "UInt",
        Scalar::I64 | Scalar::Isize => "LongLong",
        Scalar::U64 | Scalar::Usize => "ULongLong",
        Scalar::F32 => "Float",
        Scalar::F64 => "Double",
        Scalar::F16 => "Half",
        Scalar::BF16 => "BFloat16",
        // Packed narrow floats: `Fp8x2E4M3`, `Fp6x4E2M3`, `Fp4x4E2M1`.
        Scalar::Fp4x2E2M1 => return format!("Fp4x{}E2M1", 2 * lanes),
        narrow => {
            let name = scalar_name(narrow);
            let bits = match narrow {
                Scalar::Fp6E2M3 | Scalar::Fp6E3M2 => "6",
                Scalar::Fp4E2M1 => "4",
                _ => "8",
            };
            let format = name.strip_prefix('F').map_or(name, |r| &r[1..]);
            return format!("Fp{bits}x{lanes}{format}");
        }
    };
    format!("{base}{lanes}")
}

/// Every scalar a Rust name stands for, in the order names are looked up (a device
/// function's `RawDevicePtr` is a pointer's too, and plain `char`'s integer is the host's
/// byte's: they name none).
const SCALARS: &[Scalar] = &{
    let mut out = [Scalar::Bool; Scalar::ALL.len() - 2];
    let (mut i, mut n) = (0, 0);
    while i < Scalar::ALL.len() {
        if !matches!(Scalar::ALL[i], Scalar::DeviceFn | Scalar::Char) {
            out[n] = Scalar::ALL[i];
            n += 1;
        }
        i += 1;
    }
    out
};

/// The scalar a Rust type name stands for (`f32`, `f16`, `F8E4M3`, `TextureHandle`): the
/// mapping of [`scalar_name`] read backwards.
pub fn scalar_named(name: &str) -> Option<Scalar> {
    SCALARS.iter().copied().find(|s| scalar_name(*s) == name)
}

/// The lanes and their number of a runtime vector type's name (`Float4`): the mapping of
/// [`vector_name`] read backwards. Single 4-bit floats have no vectors: their packed form is
/// `__nv_fp4x2_e2m1`.
pub fn vector_named(name: &str) -> Option<(Scalar, u8)> {
    SCALARS
        .iter()
        .filter(|s| **s != Scalar::Fp4E2M1)
        .find_map(|s| {
            (1..=4)
                .find(|&lanes| vector_name(*s, lanes) == name)
                .map(|l| (*s, l))
        })
}

/// The Rust type of a scalar.
fn scalar_type(s: Scalar) -> RustType {
    let info = s.info();
    if info.is_primitive() {
        RustType::Primitive(info.rust)
    } else {
        RustType::Runtime(info.rust_path.to_owned())
    }
}

/// The Rust type a C type is stored as (a pointer as a raw device address).
pub fn stored(ty: &CType) -> RustType {
    match ty {
        CType::Scalar(s) => scalar_type(*s),
        CType::Vector { elem, lanes } => {
            RustType::Runtime(format!("vector::{}", vector_name(*elem, *lanes)))
        }
        CType::Struct(name) => RustType::Struct(rust_ident(name).to_string()),
        CType::Array { elem, len } => RustType::Array(Box::new(stored(elem)), *len),
        CType::Pointer { .. } => RustType::Runtime("RawDevicePtr".to_owned()),
        CType::Void => RustType::Unit,
    }
}

/// How a stub takes a parameter of C type `ty` (top-level qualifiers already dropped).
pub fn passing(ty: &CType) -> Passing {
    match ty {
        CType::Pointer {
            pointee,
            pointee_quals,
        } => match pointee.as_ref() {
            CType::Void | CType::Pointer { .. } | CType::Array { .. } => {
                Passing::Value(RustType::Runtime("RawDevicePtr".to_owned()))
            }
            elem if pointee_quals.is_const => Passing::ConstPtr(stored(elem)),
            elem => Passing::MutPtr(stored(elem)),
        },
        CType::Scalar(Scalar::TexObject) => Passing::Object(RuntimeObject::Texture),
        CType::Scalar(Scalar::SurfObject) => Passing::Object(RuntimeObject::Surface),
        CType::Scalar(Scalar::TensorMap) => Passing::Object(RuntimeObject::TensorMap),
        CType::Scalar(Scalar::GraphCondition) => Passing::Object(RuntimeObject::Condition),
        CType::Scalar(Scalar::GraphExec) => Passing::Object(RuntimeObject::DeviceGraph),
        other => Passing::Value(stored(other)),
    }
}

/// The enumeration of `enums` a by-value parameter of type `ty`, written `written`, is of
/// (`Mode`, `const Mode`, `enum Mode`, `ns::Mode`): the stub takes the Rust enum, whose values
/// are the C enum's, instead of the integer it is stored as.
pub fn enum_param<'a>(ty: &CType, written: &str, enums: &'a [EnumDef]) -> Option<&'a EnumDef> {
    let CType::Scalar(s) = ty else {
        return None;
    };
    let name: String = written
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "enum" | "class" | "struct"))
        .collect::<Vec<_>>()
        .join(" ");
    let name = name.trim_start_matches("::");
    enums.iter().find(|e| e.underlying == *s && e.name == name)
}

/// How a kernel's stub takes `param`: [`passing`], or the Rust enum of the enumeration it is
/// of ([`enum_param`]); and whether the runtime takes it as it is ([`passes_bare`]; an enum
/// goes wrapped in `ByValue`).
pub fn passing_param(param: &Param, enums: &[EnumDef]) -> (Passing, bool) {
    match enum_param(&param.ty, &param.written, enums) {
        Some(e) => (
            Passing::Value(RustType::Struct(rust_ident(&e.name).to_string())),
            false,
        ),
        None => (passing(&param.ty), passes_bare(&param.ty)),
    }
}

/// Whether the runtime takes a by-value parameter of type `ty` as it is: scalars, vector
/// types and raw device pointers are kernel arguments of their own; structs and texture or
/// surface handles go wrapped in `ByValue`.
pub fn passes_bare(ty: &CType) -> bool {
    match ty {
        CType::Scalar(
            Scalar::TexObject
            | Scalar::SurfObject
            | Scalar::TensorMap
            | Scalar::GraphCondition
            | Scalar::GraphExec,
        ) => false,
        CType::Scalar(_) | CType::Vector { .. } => true,
        CType::Pointer { pointee, .. } => matches!(
            pointee.as_ref(),
            CType::Void | CType::Pointer { .. } | CType::Array { .. }
        ),
        CType::Struct(_) | CType::Array { .. } | CType::Void => false,
    }
}

impl RustType {
    /// The type's name without the runtime's module path (`Float2`, `F8E4M3`), as a
    /// declaration in `cuda_module!` writes it.
    pub fn short(&self) -> String {
        match self {
            RustType::Primitive(name) => (*name).to_owned(),
            RustType::Runtime(path) => path.rsplit("::").next().unwrap_or(path).to_owned(),
            RustType::Struct(name) => name.clone(),
            RustType::Array(elem, len) => format!("[{}; {len}]", elem.short()),
            RustType::Unit => "()".to_owned(),
        }
    }
}

impl fmt::Display for RustType {
    /// The type as the runtime's re-exports spell it (`f32`, `vector::Float2`, `[f16; 4]`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RustType::Primitive(name) => f.write_str(name),
            RustType::Runtime(path) => f.write_str(path),
            RustType::Struct(name) => f.write_str(name),
            RustType::Array(elem, len) => write!(f, "[{elem}; {len}]"),
            RustType::Unit => f.write_str("()"),
        }
    }
}

impl Passing {
    /// 0 = by value, 1 = `const T*`, 2 = `T*`, 3 = a runtime object: instantiations of
    /// a template family must agree on it to share one generic method.
    pub fn shape(&self) -> u8 {
        match self {
            Passing::Value(_) => 0,
            Passing::ConstPtr(_) => 1,
            Passing::MutPtr(_) => 2,
            Passing::Object(_) => 3,
        }
    }

    /// The Rust type the parameter is about: the value's, the pointee's, or the object's
    /// handle.
    pub fn rust_type(&self) -> RustType {
        match self {
            Passing::Value(t) | Passing::ConstPtr(t) | Passing::MutPtr(t) => t.clone(),
            Passing::Object(o) => o.handle(),
        }
    }

    /// The type a declaration in `cuda_module!` gives the parameter (`&[f32]`,
    /// `&mut [Pt]`, `Float2`, `TextureHandle`).
    pub fn declared(&self) -> String {
        match self {
            Passing::Value(t) => t.short(),
            Passing::ConstPtr(t) => format!("&[{}]", t.short()),
            Passing::MutPtr(t) => format!("&mut [{}]", t.short()),
            Passing::Object(o) => o.handle().short(),
        }
    }
}

impl fmt::Display for Passing {
    /// The parameter's type in the stub's signature (`impl ConstPtr<f32>`,
    /// `&TextureObject<impl Sized>`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Passing::Value(t) => write!(f, "{t}"),
            Passing::ConstPtr(t) => write!(f, "impl ConstPtr<{t}>"),
            Passing::MutPtr(t) => write!(f, "impl MutPtr<{t}>"),
            Passing::Object(RuntimeObject::Texture) => f.write_str("&TextureObject<impl Sized>"),
            Passing::Object(RuntimeObject::Surface) => f.write_str("&SurfaceObject<impl Sized>"),
            Passing::Object(RuntimeObject::TensorMap) => f.write_str("&TensorMap<'_, impl Sized>"),
            Passing::Object(RuntimeObject::Condition) => f.write_str("&Condition<'_>"),
            Passing::Object(RuntimeObject::DeviceGraph) => f.write_str("&DeviceGraph<'_>"),
        }
    }
}

/// The word a template instance adds to its method's name when its family has no generic
/// method: `f32_4` for `<float, 4>`; the ordinal for a non-template overload.
pub(super) fn suffix(kernel: &Kernel, ordinal: usize) -> String {
    if kernel.template_args.is_empty() {
        return ordinal.to_string();
    }
    let parts: Vec<String> = kernel
        .template_args
        .iter()
        .map(|a| match a {
            TemplateArg::Type(t) => type_word(t),
            // `(Op)2` → `Op_2`, `(cfg::Mode)4` → `cfg_Mode_4`, `-3` → `m3`.
            TemplateArg::Value(v) => v
                .replace('-', "m")
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join("_"),
        })
        .collect();
    rust_ident(&parts.join("_"))
        .to_string()
        .trim_start_matches("r#")
        .to_owned()
}

/// A word for a type in a method name (`f32`, `Float2`, `P`, `ptr`).
fn type_word(ty: &CType) -> String {
    match ty {
        CType::Scalar(s) => scalar_name(*s).to_owned(),
        CType::Vector { elem, lanes } => vector_name(*elem, *lanes),
        CType::Struct(name) => name.replace("::", "_"),
        CType::Array { elem, len } => format!("{}x{len}", type_word(elem)),
        CType::Pointer { .. } => "ptr".to_owned(),
        CType::Void => "void".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_of_an_enumeration_takes_its_rust_enum() {
        let mode = EnumDef {
            name: "ns::Mode".into(),
            underlying: Scalar::U8,
            variants: vec![("A".into(), 0)],
            rust_path: None,
            loc: None,
        };
        let enums = std::slice::from_ref(&mode);
        let u8_ty = CType::Scalar(Scalar::U8);
        for written in ["ns::Mode", "const ns::Mode", "enum ns::Mode", "::ns::Mode"] {
            assert!(enum_param(&u8_ty, written, enums).is_some(), "{written}");
        }
        // Another integer, another name, a pointer: not the enum.
        assert!(enum_param(&CType::Scalar(Scalar::I32), "ns::Mode", enums).is_none());
        assert!(enum_param(&u8_ty, "unsigned char", enums).is_none());
        let param = Param {
            name: Some("m".into()),
            ty: u8_ty,
            written: "const ns::Mode".into(),
            grid_constant: false,
            layout: Default::default(),
            loc: None,
        };
        assert_eq!(
            passing_param(&param, enums),
            (Passing::Value(RustType::Struct("ns_Mode".into())), false)
        );
        assert_eq!(
            passing_param(&param, &[]),
            (Passing::Value(RustType::Primitive("u8")), true)
        );
    }

    fn ptr(elem: CType, is_const: bool) -> CType {
        CType::pointer(elem, is_const)
    }

    #[test]
    fn pointers_pass_by_constness_and_pointee() {
        let f = CType::Scalar(Scalar::F32);
        assert_eq!(
            passing(&ptr(f.clone(), true)).to_string(),
            "impl ConstPtr<f32>"
        );
        assert_eq!(
            passing(&ptr(f.clone(), false)).to_string(),
            "impl MutPtr<f32>"
        );
        assert_eq!(
            passing(&ptr(ptr(f.clone(), false), false)).to_string(),
            "RawDevicePtr"
        );
        assert_eq!(passing(&ptr(CType::Void, true)).to_string(), "RawDevicePtr");
        let rows = CType::Array {
            elem: Box::new(f),
            len: 3,
        };
        assert_eq!(passing(&ptr(rows, true)).to_string(), "RawDevicePtr");
    }

    #[test]
    fn objects_pass_by_reference_and_store_their_handle() {
        let tex = CType::Scalar(Scalar::TexObject);
        assert_eq!(passing(&tex).to_string(), "&TextureObject<impl Sized>");
        assert_eq!(stored(&tex).to_string(), "TextureHandle");
        assert_eq!(passing(&tex).declared(), "TextureHandle");
        let map = passing(&CType::Scalar(Scalar::TensorMap));
        assert_eq!(map.to_string(), "&TensorMap<'_, impl Sized>");
        assert!(matches!(map, Passing::Object(o) if o.ordered()));
    }

    #[test]
    fn stored_types_name_the_runtime_module() {
        let v = CType::Vector {
            elem: Scalar::I64,
            lanes: 2,
        };
        assert_eq!(stored(&v).to_string(), "vector::LongLong2");
        assert_eq!(stored(&v).short(), "LongLong2");
        let a = CType::Array {
            elem: Box::new(CType::Array {
                elem: Box::new(CType::Scalar(Scalar::F16)),
                len: 2,
            }),
            len: 3,
        };
        assert_eq!(stored(&a).to_string(), "[[f16; 2]; 3]");
        assert_eq!(
            stored(&CType::Scalar(Scalar::Fp8E4M3)).to_string(),
            "fp::F8E4M3"
        );
        assert_eq!(
            stored(&CType::Struct("geo::Pt".into())).to_string(),
            "geo_Pt"
        );
    }

    #[test]
    fn declarations_spell_pointers_as_slices() {
        let pt = CType::Struct("Pt".into());
        assert_eq!(passing(&ptr(pt.clone(), false)).declared(), "&mut [Pt]");
        assert_eq!(passing(&ptr(pt, true)).declared(), "&[Pt]");
        let half2 = CType::Vector {
            elem: Scalar::F16,
            lanes: 2,
        };
        assert_eq!(passing(&half2).declared(), "Half2");
    }

    #[test]
    fn vector_names_follow_cuda() {
        assert_eq!(vector_name(Scalar::F32, 2), "Float2");
        assert_eq!(vector_name(Scalar::U64, 4), "ULongLong4");
        assert_eq!(vector_name(Scalar::Fp8E4M3, 4), "Fp8x4E4M3");
        assert_eq!(vector_name(Scalar::Fp4x2E2M1, 2), "Fp4x4E2M1");
    }
}
