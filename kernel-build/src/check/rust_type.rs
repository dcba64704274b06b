//! What a Rust type written in a kernel declaration means for the check.

use syn::{GenericArgument, PathArguments, Type};

use crate::model::Scalar;
use crate::model::rust::{scalar_named, vector_named};

/// A Rust parameter type, reduced to what can be compared with a C type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RustType {
    /// `f32`, `i32`, `half::f16`, ...
    Scalar(Scalar),
    /// `Float2`, `Int4`, ...
    Vector(Scalar, u8),
    /// Any other single name: a struct, or a generic parameter of the declaration.
    Named(String),
    /// A pointer to elements: `&[T]`, `&CudaSlice<T>`, `In<T>`, `*const T` (read-only),
    /// or `&mut [T]`, `Out<T>`, `InOut<T>`, `*mut T` (exclusive).
    Ptr { mutable: bool, elem: Box<RustType> },
    /// `RawDevicePtr`, `*mut c_void`: an untyped device pointer.
    Raw,
    /// Anything else.
    Unsupported,
}

/// Classifies a type as written in a declaration.
pub(crate) fn classify(ty: &Type) -> RustType {
    match ty {
        Type::Paren(p) => classify(&p.elem),
        Type::Group(g) => classify(&g.elem),
        Type::Reference(r) => {
            // `&TextureObject<T>` / `&SurfaceObject<T>`: the handle a stub passes.
            if let Type::Path(p) = r.elem.as_ref()
                && let Some(last) = p.path.segments.last()
            {
                match last.ident.to_string().as_str() {
                    "TextureObject" => return RustType::Scalar(Scalar::TexObject),
                    "SurfaceObject" => return RustType::Scalar(Scalar::SurfObject),
                    "TensorMap" => return RustType::Scalar(Scalar::TensorMap),
                    "Condition" => return RustType::Scalar(Scalar::GraphCondition),
                    "DeviceGraph" => return RustType::Scalar(Scalar::GraphExec),
                    _ => {}
                }
            }
            let mutable = r.mutability.is_some();
            let elem = match r.elem.as_ref() {
                Type::Slice(s) => classify(&s.elem),
                Type::Path(p) => match wrapper(p) {
                    Some((name, inner)) if is_buffer(&name) => classify(inner),
                    _ => classify(&r.elem),
                },
                other => classify(other),
            };
            RustType::Ptr {
                mutable,
                elem: Box::new(elem),
            }
        }
        Type::Ptr(p) => match classify(&p.elem) {
            RustType::Named(n) if n == "c_void" => RustType::Raw,
            RustType::Ptr { .. } | RustType::Raw => RustType::Raw,
            elem => RustType::Ptr {
                mutable: p.mutability.is_some(),
                elem: Box::new(elem),
            },
        },
        Type::Path(p) => {
            if let Some((name, inner)) = wrapper(p) {
                return match name.as_str() {
                    "In" => ptr(false, classify(inner)),
                    "Out" | "InOut" => ptr(true, classify(inner)),
                    _ => RustType::Unsupported,
                };
            }
            let Some(last) = p.path.segments.last() else {
                return RustType::Unsupported;
            };
            let name = last.ident.to_string();
            if name == "RawDevicePtr" {
                return RustType::Raw;
            }
            if let Some(s) = scalar_named(&name) {
                return RustType::Scalar(s);
            }
            if let Some((s, lanes)) = vector_named(&name) {
                return RustType::Vector(s, lanes);
            }
            RustType::Named(name)
        }
        _ => RustType::Unsupported,
    }
}

fn ptr(mutable: bool, elem: RustType) -> RustType {
    RustType::Ptr {
        mutable,
        elem: Box::new(elem),
    }
}

/// The runtime's and cudarc's buffer types, which stand for their elements behind a
/// reference.
fn is_buffer(name: &str) -> bool {
    is_device_buffer(name)
        || matches!(
            name,
            "UnifiedSlice" | "UnifiedView" | "UnifiedViewMut" | "Pitched"
        )
}

/// The device buffers and views a host function may take: the runtime's and cudarc's.
pub(crate) fn is_device_buffer(name: &str) -> bool {
    matches!(
        name,
        "TrackedBuffer"
            | "TrackedView"
            | "TrackedViewMut"
            | "CudaSlice"
            | "CudaView"
            | "CudaViewMut"
    )
}

/// `Name<T>` → (`Name`, `T`) for a path whose last segment has one type argument.
pub(crate) fn wrapper(p: &syn::TypePath) -> Option<(String, &Type)> {
    let last = p.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    types
        .next()
        .is_none()
        .then(|| (last.ident.to_string(), first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(src: &str) -> RustType {
        classify(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn borrows_slices_and_wrappers_are_pointers() {
        let f32p = |mutable| ptr(mutable, RustType::Scalar(Scalar::F32));
        assert_eq!(c("&[f32]"), f32p(false));
        assert_eq!(c("&mut [f32]"), f32p(true));
        assert_eq!(c("&CudaSlice<f32>"), f32p(false));
        assert_eq!(c("&mut cudarc::driver::CudaViewMut<'_, f32>"), f32p(true));
        assert_eq!(c("In<f32>"), f32p(false));
        assert_eq!(c("InOut<f32>"), f32p(true));
        assert_eq!(c("*const f32"), f32p(false));
    }

    #[test]
    fn scalars_vectors_raw_and_names() {
        assert_eq!(c("half::f16"), RustType::Scalar(Scalar::F16));
        assert_eq!(c("Float2"), RustType::Vector(Scalar::F32, 2));
        assert_eq!(
            c("cuda_kernel_runtime::fp::F8E4M3"),
            RustType::Scalar(Scalar::Fp8E4M3)
        );
        assert_eq!(c("Fp8x4E5M2"), RustType::Vector(Scalar::Fp8E5M2, 4));
        assert_eq!(c("Fp4x4E2M1"), RustType::Vector(Scalar::Fp4x2E2M1, 2));
        assert_eq!(c("*mut core::ffi::c_void"), RustType::Raw);
        assert_eq!(c("RawDevicePtr"), RustType::Raw);
        assert_eq!(c("geo::Pt"), RustType::Named("Pt".into()));
        assert_eq!(c("(f32, f32)"), RustType::Unsupported);
    }
}
