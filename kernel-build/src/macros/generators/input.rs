//! The syntax of `elementwise!`, `reduction!` and `scan!`:
//!
//! ```text
//! #[doc = "..."]*  VIS mod NAME {
//!     preamble = "device code";           // optional: functions the expressions call
//!     arch = ["sm_80", "sm_90"];          // optional, as in cuda_module!
//!     flags = ["--use_fast_math"];        // optional
//!     crate = "my_gpu::runtime";          // optional: the runtime's path, as in cuda_module!
//!     #[doc = "..."]* VIS fn axpy<T>(a: T, x: &[T], y: &mut [T]) for T in [f32, f64]
//!         = "y[i] = a * x[i] + y[i]";                                  // elementwise!
//!     VIS fn norm<T>(x: &[T]) -> T for T in [f32, f64] {
//!         map = "x[i] * x[i]"; reduce = "a + b"; identity = "0"; post = "sqrt(r)";
//!     }                                                                // reduction!
//!     VIS fn cumsum<T>(x: &[T], y: &mut [T]) for T in [f32, i32] {
//!         op = "a + b"; identity = "0"; exclusive = true;
//!     }                                                                // scan!
//! }
//! ```

use cuda_kernel_generate::{Access, Dtype};
use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitBool, LitStr, Token, Visibility, braced, bracketed};

/// Which macro.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratorKind {
    /// `elementwise!`
    Elementwise,
    /// `reduction!`
    Reduction,
    /// `scan!`
    Scan,
}

impl GeneratorKind {
    /// The macro's name.
    pub fn macro_name(self) -> &'static str {
        match self {
            GeneratorKind::Elementwise => "elementwise!",
            GeneratorKind::Reduction => "reduction!",
            GeneratorKind::Scan => "scan!",
        }
    }
}

/// The whole input.
pub(crate) struct GenModule {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub preamble: Option<LitStr>,
    pub arch: Option<Vec<LitStr>>,
    pub flags: Vec<LitStr>,
    /// `crate = "my_gpu::runtime"`: the path generated code names the runtime by.
    pub runtime_path: Option<LitStr>,
    pub fns: Vec<GenFn>,
}

/// One generated function.
pub(crate) struct GenFn {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    /// `<T>` and the types of `for T in [...]`.
    pub generic: Option<(Ident, Vec<(Dtype, Span)>)>,
    pub params: Vec<GenParam>,
    /// `-> R`: the element type or the generic.
    pub output: Option<ElemType>,
    pub output_span: Span,
    pub body: Body,
}

/// A parameter: its name, access and element type.
pub(crate) struct GenParam {
    pub name: Ident,
    pub access: Access,
    pub elem: ElemType,
    pub span: Span,
}

/// An element type as written: a concrete one or the generic parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ElemType {
    Concrete(Dtype),
    Generic,
}

impl ElemType {
    /// The type of one instantiation.
    pub fn with(self, generic: Option<Dtype>) -> Dtype {
        match self {
            ElemType::Concrete(d) => d,
            ElemType::Generic => generic.unwrap_or(Dtype::F32),
        }
    }
}

/// The CUDA text of a function.
pub(crate) enum Body {
    /// `= "statement";`
    Statement(LitStr),
    /// `{ key = "..."; ... }`
    Fields {
        brace: Span,
        fields: Vec<(Ident, FieldValue)>,
    },
}

/// A field value.
pub(crate) enum FieldValue {
    Text(LitStr),
    Flag(LitBool),
}

impl GenFn {
    /// A text field's literal.
    pub fn field(&self, key: &str) -> Option<&LitStr> {
        match &self.body {
            Body::Fields { fields, .. } => fields.iter().find_map(|(k, v)| match v {
                FieldValue::Text(lit) if k == key => Some(lit),
                _ => None,
            }),
            Body::Statement(_) => None,
        }
    }

    /// A flag field's value.
    pub fn flag(&self, key: &str) -> bool {
        match &self.body {
            Body::Fields { fields, .. } => fields.iter().any(|(k, v)| match v {
                FieldValue::Flag(b) => k == key && b.value,
                FieldValue::Text(_) => false,
            }),
            Body::Statement(_) => false,
        }
    }

    /// The instantiations: each generic type, or one `None`.
    pub fn instances(&self) -> Vec<Option<Dtype>> {
        match &self.generic {
            Some((_, types)) => types.iter().map(|(d, _)| Some(*d)).collect(),
            None => vec![None],
        }
    }
}

impl Parse for GenModule {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![mod]>()?;
        let name: Ident = input.parse()?;
        let content;
        braced!(content in input);
        let mut module = GenModule {
            attrs,
            vis,
            name,
            preamble: None,
            arch: None,
            flags: Vec::new(),
            runtime_path: None,
            fns: Vec::new(),
        };
        while !content.is_empty() {
            if content.peek(Token![crate]) && content.peek2(Token![=]) {
                let key: Token![crate] = content.parse()?;
                content.parse::<Token![=]>()?;
                if module.runtime_path.is_some() {
                    return Err(syn::Error::new(key.span, "`crate` is given twice"));
                }
                module.runtime_path = Some(content.parse()?);
                content.parse::<Token![;]>()?;
                continue;
            }
            if content.peek(Ident) && content.peek2(Token![=]) {
                let key: Ident = content.parse()?;
                content.parse::<Token![=]>()?;
                match key.to_string().as_str() {
                    "preamble" => module.preamble = Some(content.parse()?),
                    "arch" => module.arch = Some(lit_list(&content)?),
                    "flags" => module.flags = lit_list(&content)?,
                    other => {
                        return Err(syn::Error::new(
                            key.span(),
                            format!(
                                "unknown key `{other}`: a generated module takes `preamble`, `arch`, `flags` and `crate`, then `fn` items"
                            ),
                        ));
                    }
                }
                content.parse::<Token![;]>()?;
                continue;
            }
            module.fns.push(content.parse()?);
        }
        Ok(module)
    }
}

fn lit_list(input: ParseStream<'_>) -> syn::Result<Vec<LitStr>> {
    let list;
    bracketed!(list in input);
    Ok(list
        .parse_terminated(<LitStr as Parse>::parse, Token![,])?
        .into_iter()
        .collect())
}

impl Parse for GenFn {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![fn]>()?;
        let name: Ident = input.parse()?;
        let generic_ident = if input.peek(Token![<]) {
            input.parse::<Token![<]>()?;
            let t: Ident = input.parse()?;
            input.parse::<Token![>]>()?;
            Some(t)
        } else {
            None
        };
        let list;
        syn::parenthesized!(list in input);
        let mut params = Vec::new();
        while !list.is_empty() {
            let pname: Ident = list.parse()?;
            list.parse::<Token![:]>()?;
            let ty: syn::Type = list.parse()?;
            let (access, elem_ty) = match &ty {
                syn::Type::Reference(r) => match &*r.elem {
                    syn::Type::Slice(s) => (
                        if r.mutability.is_some() {
                            Access::Out
                        } else {
                            Access::In
                        },
                        (*s.elem).clone(),
                    ),
                    _ => return Err(type_error(&ty)),
                },
                other => (Access::Scalar, other.clone()),
            };
            let elem = elem_type(&elem_ty, generic_ident.as_ref())?;
            params.push(GenParam {
                name: pname,
                access,
                elem,
                span: ty.span(),
            });
            if !list.is_empty() {
                list.parse::<Token![,]>()?;
            }
        }
        let mut output_span = name.span();
        let output = if input.peek(Token![->]) {
            input.parse::<Token![->]>()?;
            let ty: syn::Type = input.parse()?;
            output_span = ty.span();
            Some(elem_type(&ty, generic_ident.as_ref())?)
        } else {
            None
        };
        let generic = match generic_ident {
            Some(t) => {
                input.parse::<Token![for]>().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        format!(
                            "a generic function names its element types: `for {t} in [f32, f64]`"
                        ),
                    )
                })?;
                let again: Ident = input.parse()?;
                if again != t {
                    return Err(syn::Error::new(
                        again.span(),
                        format!("expected `{t}`, the function's type parameter"),
                    ));
                }
                input.parse::<Token![in]>()?;
                let types;
                bracketed!(types in input);
                let list = types.parse_terminated(<syn::Type as Parse>::parse, Token![,])?;
                let mut dtypes = Vec::new();
                for ty in &list {
                    match elem_type(ty, None)? {
                        ElemType::Concrete(d) => dtypes.push((d, ty.span())),
                        ElemType::Generic => unreachable!("no generic given"),
                    }
                }
                if dtypes.is_empty() {
                    return Err(syn::Error::new(
                        t.span(),
                        "name at least one element type: `for T in [f32]`",
                    ));
                }
                Some((t, dtypes))
            }
            None => None,
        };
        let body = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            let lit: LitStr = input.parse()?;
            input.parse::<Token![;]>()?;
            Body::Statement(lit)
        } else {
            let content;
            let brace = braced!(content in input);
            let mut fields = Vec::new();
            while !content.is_empty() {
                let key: Ident = content.parse()?;
                content.parse::<Token![=]>()?;
                let value = if content.peek(LitBool) {
                    FieldValue::Flag(content.parse()?)
                } else {
                    FieldValue::Text(content.parse()?)
                };
                fields.push((key, value));
                if !content.is_empty() {
                    content.parse::<Token![;]>()?;
                }
            }
            Body::Fields {
                brace: brace.span.join(),
                fields,
            }
        };
        Ok(GenFn {
            attrs,
            vis,
            name,
            generic,
            params,
            output,
            output_span,
            body,
        })
    }
}

/// The element type a Rust type names.
fn elem_type(ty: &syn::Type, generic: Option<&Ident>) -> syn::Result<ElemType> {
    if let syn::Type::Path(p) = ty {
        if let Some(g) = generic
            && p.path.is_ident(g)
        {
            return Ok(ElemType::Generic);
        }
        let text = quote::quote!(#p).to_string().replace(' ', "");
        if let Some(d) = Dtype::from_rust(&text) {
            return Ok(ElemType::Concrete(d));
        }
    }
    Err(type_error(ty))
}

fn type_error(ty: &syn::Type) -> syn::Error {
    let text = quote::quote!(#ty).to_string();
    syn::Error::new(
        ty.span(),
        crate::diagnostics::generators::unsupported_type(&text),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_path_is_a_key() {
        let m: GenModule = syn::parse_quote! {
            pub mod ops {
                crate = "my_gpu::runtime";
                arch = ["sm_90"];
                pub fn relu(x: &mut [f32]) = "x[i] = fmaxf(x[i], 0.0f)";
            }
        };
        assert_eq!(m.runtime_path.unwrap().value(), "my_gpu::runtime");
        assert_eq!(m.fns.len(), 1);
        let twice = quote::quote!(mod m { crate = "a"; crate = "b"; });
        let err = syn::parse2::<GenModule>(twice).err().expect("an error");
        assert!(err.to_string().contains("`crate` is given twice"), "{err}");
    }
}
