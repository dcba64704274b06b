//! Host functions with C linkage: their parameters resolved into C types and layouts, so
//! that the Rust declarations of `host_functions!` can be checked against them.
//!
//! The CUDA runtime's handle types are known by name, with or without the runtime headers
//! read (a build without nvcc reads none): `cudaStream_t`/`CUstream` is a pointer to
//! `CUstream_st`, `cudaError_t` an `int`.

use std::collections::HashMap;

use crate::front::parse::{BaseSyn, KernelSyn, TypeSyn};
use crate::front::types::{TypeEnv, c_spelling, size_align};
use crate::model::{CType, HostFunction, Layout, ModuleInfo, Param, Qualifiers, Scalar};

/// The struct a stream handle points to.
pub(crate) const STREAM_STRUCT: &str = "CUstream_st";

/// True when `ty` is a stream handle (`cudaStream_t`, `CUstream`, `CUstream_st*`).
pub(crate) fn is_stream(ty: &CType) -> bool {
    matches!(ty, CType::Pointer { pointee, .. } if **pointee == CType::Struct(STREAM_STRUCT.into()))
}

/// The runtime's handle types, by the name they are written with.
fn known(ty: &TypeSyn) -> Option<CType> {
    let BaseSyn::Named(name) = &ty.base else {
        return None;
    };
    if !ty.ptrs.is_empty() {
        return None;
    }
    match name.trim_start_matches("::") {
        "cudaStream_t" | "CUstream" => Some(CType::Pointer {
            pointee: Box::new(CType::Struct(STREAM_STRUCT.into())),
            pointee_quals: Qualifiers::default(),
        }),
        "cudaError_t" | "cudaError" | "CUresult" => Some(CType::Scalar(Scalar::I32)),
        _ => None,
    }
}

fn resolve(env: &TypeEnv, ty: &TypeSyn, scope: &[String]) -> Result<CType, String> {
    if let Some(t) = known(ty) {
        return Ok(t);
    }
    env.resolve(ty, scope, &HashMap::new())
        .map(|(t, _)| t)
        .map_err(|d| d.message)
}

/// Adds the host function `f` to `info` (a later definition of the same name replaces an
/// earlier one); one whose types cannot be read is kept with why.
pub(super) fn add_host_fn(env: &TypeEnv, info: &mut ModuleInfo, f: &KernelSyn) {
    let mut out = HostFunction {
        name: f.name.clone(),
        params: Vec::new(),
        ret: CType::Void,
        ret_written: f.ret.written.clone(),
        loc: f.loc.clone(),
        unreadable: None,
    };
    let scope = &f.namespace;
    let mut why = Vec::new();
    match resolve(env, &f.ret, scope) {
        Ok(t) => out.ret = t,
        Err(e) => why.push(format!("its return type `{}`: {e}", f.ret.written)),
    }
    let mut offset = 0u64;
    for (i, p) in f.params.iter().enumerate() {
        let pname = p.name.clone().unwrap_or_else(|| format!("arg{i}"));
        let ty = match resolve(env, &p.ty, scope) {
            Ok(t) => t,
            Err(e) => {
                why.push(format!("parameter `{pname}` (`{}`): {e}", p.ty.written));
                continue;
            }
        };
        let (size, align) = if is_stream(&ty) {
            (8, 8)
        } else {
            match size_align(&ty, &env.structs) {
                Some(sa) => sa,
                None => {
                    why.push(format!(
                        "parameter `{pname}` (`{}`) cannot be passed by value",
                        c_spelling(&ty)
                    ));
                    continue;
                }
            }
        };
        let at = offset.div_ceil(align) * align;
        offset = at + size;
        out.params.push(Param {
            name: p.name.clone(),
            ty,
            written: p.ty.written.clone(),
            grid_constant: false,
            layout: Layout {
                offset: at,
                size,
                align,
            },
            loc: p.loc.clone(),
        });
    }
    if !why.is_empty() {
        out.params.clear();
        out.unreadable = Some(why.join("; "));
    }
    info.host_functions.retain(|h| h.name != out.name);
    info.host_functions.push(out);
}

#[cfg(test)]
mod tests {
    use crate::front::{FrontInput, analyze_parts};
    use crate::model::CType;

    fn host(text: &str) -> crate::model::ModuleInfo {
        let (info, d) = analyze_parts(&FrontInput {
            preprocessed: None,
            ..FrontInput::raw_only("k.cu", text)
        });
        assert!(d.is_empty(), "{d}");
        info
    }

    #[test]
    fn c_functions_with_a_body_are_host_functions() {
        let info = host(
            "struct P { float a; int b; };\n\
             extern \"C\" cudaError_t sum(const float* in, float* out, int n, P p, cudaStream_t s) { return cudaSuccess; }\n\
             extern \"C\" { void bump(unsigned* x) {} int declared_only(int); }\n\
             static void helper() {}\n\
             void cxx_linkage(float* x) {}\n\
             extern \"C\" __global__ void k(float* x) {}\n\
             extern \"C\" __device__ float dev(float x) { return x; }\n",
        );
        let names: Vec<&str> = info
            .host_functions
            .iter()
            .map(|h| h.name.as_str())
            .collect();
        assert_eq!(names, ["sum", "bump"]);
        let sum = &info.host_functions[0];
        assert!(sum.returns_cuda_error());
        assert_eq!(sum.params.len(), 5);
        assert!(super::is_stream(&sum.params[4].ty));
        assert_eq!(sum.params[3].ty, CType::Struct("P".into()));
        assert_eq!(sum.params[3].layout.offset, 20);
        assert_eq!(info.kernels.len(), 1);
    }

    #[test]
    fn an_unknown_type_is_kept_with_why() {
        let info = host("extern \"C\" void f(Mystery m, int n) {}\n");
        let f = &info.host_functions[0];
        assert!(f.params.is_empty());
        let why = f.unreadable.as_deref().unwrap_or_default();
        assert!(why.contains("`m`") && why.contains("Mystery"), "{why}");
    }
}
