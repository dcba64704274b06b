//! The syntax of `cuda_module!` input.
//!
//! ```text
//! #[doc = "..."]*  VIS mod NAME {
//!     source = "CUDA text";  |  file = "kernels/k.cu";  |  files = ["a.cu", "b.cu"];
//!     arch = ["sm_80", "sm_90"];      include = ["include"];
//!     define = ["N=4", "FAST"];       flags = ["-O3"];
//!     require_every_target = true;    // a kernel missing from one target's image is an error
//!     rdc = true;  |  lto = true;     // device-link the files (calls between them)
//!     compile = "runtime";            // NVRTC at run time only (no nvcc at build time)
//!     fallback = "runtime";           // NVRTC at run time when the fatbin has nothing for the GPU
//!     kernels = ["saxpy"];            // stubs for these kernels only
//!     constants = ["TILE: u32"];      // CUDA constants as Rust consts
//!     crate = "my_gpu::runtime";      // the runtime's path, when a crate re-exports it
//!     fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: i32);          // checked, unsafe stub
//!     unsafe extern "CUDA" {
//!         safe fn fill(x: &mut [f32], v: f32, n: i32);              // checked, safe stub
//!     }
//!     tune block_sum {                  // variants of a kernel, and `m.block_sum_tuned(..)`
//!         BLOCK = [128, 256];           // an axis: a template parameter or a launch value
//!         ITEMS = [1, 4];               // (or `variants = ["BLOCK=128 ITEMS=4", ...];`)
//!         block = "BLOCK";              // the launch shape: rules over axes and int params
//!         grid = "n.div_ceil(BLOCK * ITEMS)";
//!         shared = "BLOCK * 4";         // optional: dynamic shared memory in bytes
//!     }
//! }
//! ```

use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, LitStr, Signature, Token, Visibility, braced, bracketed};

/// The whole macro input.
pub(crate) struct ModuleInput {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub source: Source,
    pub arch: Option<Vec<LitStr>>,
    pub include: Vec<LitStr>,
    pub define: Vec<LitStr>,
    pub flags: Vec<LitStr>,
    pub require_every_target: bool,
    /// `line_info = false;`: no line tables in the device code.
    pub line_info: Option<bool>,
    /// `device_debug = true;`: a debug build of the device code (`-G`).
    pub device_debug: Option<bool>,
    /// `compress = false;`: fatbin entries stored as nvcc stores them by default.
    pub compress: Option<bool>,
    /// `ptx_text = true;`: cubins keep the PTX text embedded with their line tables.
    pub ptx_text: Option<bool>,
    /// `rdc = true;` or `lto = true;`, with the key for spans.
    pub link: Option<(Ident, crate::model::options::LinkMode)>,
    /// `compile = "runtime";` or `fallback = "runtime";`.
    pub runtime: crate::model::options::RuntimeCompile,
    /// `kernels = [...]`: stubs only for these.
    pub kernels: Option<Vec<LitStr>>,
    /// `constants = ["TILE: u32"]`: constants exported as Rust `const`s.
    pub constants: Vec<LitStr>,
    /// `types = "src/particles.rs"`: Rust files of types shared with CUDA.
    pub types: Vec<LitStr>,
    /// `derive = ["serde::Serialize"]`: more derives for the CUDA-declared types.
    pub derive: Vec<LitStr>,
    /// `crate = "my_gpu::runtime"`: the path generated code names the runtime by.
    pub runtime_path: Option<LitStr>,
    pub decls: Vec<Decl>,
    /// `tune NAME { ... }`: kernels tuned over declared variants.
    pub tunes: Vec<Tune>,
}

/// A `tune NAME { ... }` item: the request it makes, and the spans its problems are shown at.
pub(crate) struct Tune {
    pub request: crate::model::request::TuneRequest,
    /// The kernel's name.
    pub name: proc_macro2::Span,
    /// Each axis's name, and each of its values.
    pub axes: Vec<(proc_macro2::Span, Vec<proc_macro2::Span>)>,
    /// Each listed variant.
    pub listed: Vec<proc_macro2::Span>,
    /// Each rule given: its key and its literal.
    pub rules: Vec<(&'static str, proc_macro2::Span)>,
}

/// Where the CUDA text comes from, with the literal for error spans.
pub(crate) enum Source {
    Inline(LitStr),
    File(LitStr),
    Files(Vec<LitStr>),
}

/// A Rust declaration of a kernel.
pub(crate) struct Decl {
    pub sig: Signature,
    /// Declared `safe fn` inside an `unsafe extern` block: the crate vouches for it.
    pub safe: bool,
}

impl Parse for ModuleInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![mod]>()?;
        let name: Ident = input.parse()?;
        let body;
        braced!(body in input);
        let mut source: Option<Source> = None;
        let (mut arch, mut include, mut define, mut flags) = (None, None, None, None);
        let mut kernels = None;
        let mut constants = None;
        let mut types = None;
        let mut derive = None;
        let mut runtime_path = None;
        let mut decls = Vec::new();
        let mut tunes = Vec::new();
        let mut every_target: Option<bool> = None;
        let mut compress: Option<bool> = None;
        let mut ptx_text: Option<bool> = None;
        let (mut line_info, mut device_debug): (Option<bool>, Option<bool>) = (None, None);
        let mut link: Option<(Ident, crate::model::options::LinkMode)> = None;
        let mut runtime: Option<crate::model::options::RuntimeCompile> = None;
        while !body.is_empty() {
            let item_attrs = body.call(Attribute::parse_outer)?;
            if body.peek(Token![unsafe]) && body.peek2(Token![extern]) {
                decls.extend(extern_block(&body)?);
            } else if body.peek(Token![fn]) || is_safe_fn(&body) {
                let decl = decl(&body)?;
                if decl.safe {
                    return Err(syn::Error::new(
                        decl.sig.ident.span(),
                        "`safe fn` is only allowed inside an `unsafe extern` block, where the crate vouches for the kernel",
                    ));
                }
                decls.push(decl);
            } else {
                if let Some(a) = item_attrs.first() {
                    return Err(syn::Error::new_spanned(
                        a,
                        "attributes are only allowed on kernel declarations",
                    ));
                }
                // `crate` is a keyword: keys are read as any identifier.
                let key: Ident = body.call(Ident::parse_any)?;
                if key == "tune" && !body.peek(Token![=]) {
                    tunes.push(tune(&body)?);
                    continue;
                }
                body.parse::<Token![=]>()?;
                let dup = || syn::Error::new(key.span(), format!("`{key}` is given twice"));
                match key.to_string().as_str() {
                    "source" | "file" | "files" => {
                        if source.is_some() {
                            return Err(syn::Error::new(
                                key.span(),
                                "give one of `source`, `file` and `files`, once",
                            ));
                        }
                        source = Some(match key.to_string().as_str() {
                            "source" => Source::Inline(body.parse()?),
                            "file" => Source::File(body.parse()?),
                            _ => {
                                let list = string_list(&body)?;
                                if list.is_empty() {
                                    return Err(syn::Error::new(
                                        key.span(),
                                        "`files` lists no file",
                                    ));
                                }
                                Source::Files(list)
                            }
                        });
                    }
                    "rdc" | "lto" => {
                        use crate::model::options::LinkMode;
                        let v: syn::LitBool = body.parse()?;
                        if link.is_some() {
                            return Err(syn::Error::new(
                                key.span(),
                                "give one of `rdc` and `lto`, once (`lto` implies `rdc`)",
                            ));
                        }
                        let mode = match (key == "lto", v.value) {
                            (_, false) => LinkMode::Whole,
                            (false, true) => LinkMode::Rdc,
                            (true, true) => LinkMode::Lto,
                        };
                        link = Some((key.clone(), mode));
                    }
                    "compile" | "fallback" => {
                        use crate::model::options::RuntimeCompile;
                        let v: LitStr = body.parse()?;
                        let (accepted, mode) = match key.to_string().as_str() {
                            "compile" => (
                                "`\"build\"` (the default) or `\"runtime\"`",
                                RuntimeCompile::Only,
                            ),
                            _ => ("`\"runtime\"`", RuntimeCompile::Fallback),
                        };
                        let mode = match v.value().as_str() {
                            "runtime" => mode,
                            "build" if key == "compile" => RuntimeCompile::Off,
                            _ => {
                                return Err(syn::Error::new(
                                    v.span(),
                                    format!("`{key}` takes {accepted}"),
                                ));
                            }
                        };
                        if runtime.is_some() {
                            return Err(syn::Error::new(
                                key.span(),
                                "give one of `compile` and `fallback`, once",
                            ));
                        }
                        runtime = Some(mode);
                    }
                    "arch" => set(&mut arch, string_list(&body)?).map_err(|()| dup())?,
                    "include" => set(&mut include, string_list(&body)?).map_err(|()| dup())?,
                    "define" => set(&mut define, string_list(&body)?).map_err(|()| dup())?,
                    "flags" => set(&mut flags, string_list(&body)?).map_err(|()| dup())?,
                    "kernels" => set(&mut kernels, string_list(&body)?).map_err(|()| dup())?,
                    "constants" => {
                        set(&mut constants, string_list(&body)?).map_err(|()| dup())?;
                    }
                    "types" => set(&mut types, string_list(&body)?).map_err(|()| dup())?,
                    "derive" => set(&mut derive, string_list(&body)?).map_err(|()| dup())?,
                    "crate" => set(&mut runtime_path, body.parse()?).map_err(|()| dup())?,
                    "require_every_target" => {
                        let v: syn::LitBool = body.parse()?;
                        set(&mut every_target, v.value).map_err(|()| dup())?;
                    }
                    "line_info" => {
                        let v: syn::LitBool = body.parse()?;
                        set(&mut line_info, v.value).map_err(|()| dup())?;
                    }
                    "device_debug" => {
                        let v: syn::LitBool = body.parse()?;
                        set(&mut device_debug, v.value).map_err(|()| dup())?;
                    }
                    "compress" => {
                        let v: syn::LitBool = body.parse()?;
                        set(&mut compress, v.value).map_err(|()| dup())?;
                    }
                    "ptx_text" => {
                        let v: syn::LitBool = body.parse()?;
                        set(&mut ptx_text, v.value).map_err(|()| dup())?;
                    }
                    other => {
                        return Err(syn::Error::new(
                            key.span(),
                            crate::diagnostics::options::unknown_key(other),
                        ));
                    }
                }
                body.parse::<Token![;]>()?;
            }
        }
        let source = source.ok_or_else(|| {
            syn::Error::new(
                name.span(),
                "missing CUDA source: add `source = \"...\";` (inline text) or `file = \"path/to/k.cu\";` (relative to the crate root)",
            )
        })?;
        Ok(ModuleInput {
            attrs,
            vis,
            name,
            source,
            arch,
            include: include.unwrap_or_default(),
            define: define.unwrap_or_default(),
            flags: flags.unwrap_or_default(),
            require_every_target: every_target.unwrap_or(false),
            line_info,
            device_debug,
            compress,
            ptx_text,
            link,
            runtime: runtime.unwrap_or_default(),
            kernels,
            constants: constants.unwrap_or_default(),
            types: types.unwrap_or_default(),
            derive: derive.unwrap_or_default(),
            runtime_path,
            decls,
            tunes,
        })
    }
}

/// `tune NAME { KEY = VALUE; ... }`, after `tune`.
fn tune(input: ParseStream<'_>) -> syn::Result<Tune> {
    let path = syn::Path::parse_mod_style(input)?;
    let kernel = quote::ToTokens::to_token_stream(&path)
        .to_string()
        .replace(' ', "");
    let content;
    braced!(content in input);
    let mut t = Tune {
        request: crate::model::request::TuneRequest {
            kernel,
            ..Default::default()
        },
        name: syn::spanned::Spanned::span(&path),
        axes: Vec::new(),
        listed: Vec::new(),
        rules: Vec::new(),
    };
    while !content.is_empty() {
        let key: Ident = content.call(Ident::parse_any)?;
        content.parse::<Token![=]>()?;
        let dup = || syn::Error::new(key.span(), format!("`{key}` is given twice"));
        match key.to_string().as_str() {
            which @ ("block" | "grid" | "shared") => {
                let v: LitStr = content.parse()?;
                let slot = match which {
                    "block" => &mut t.request.block,
                    "grid" => &mut t.request.grid,
                    _ => &mut t.request.shared,
                };
                set(slot, v.value()).map_err(|()| dup())?;
                let which = match which {
                    "block" => "block",
                    "grid" => "grid",
                    _ => "shared",
                };
                t.rules.push((which, v.span()));
            }
            "variants" => {
                if !t.listed.is_empty() {
                    return Err(dup());
                }
                for lit in string_list(&content)? {
                    t.request.listed.push(lit.value());
                    t.listed.push(lit.span());
                }
            }
            _ => {
                let (values, spans) = axis_values(&content)?;
                t.request.axes.push((key.to_string(), values));
                t.axes.push((key.span(), spans));
            }
        }
        content.parse::<Token![;]>()?;
    }
    Ok(t)
}

/// An axis's values: `[128, 256]`, `["float", "double"]`, `[true, false]`, or one of them.
fn axis_values(input: ParseStream<'_>) -> syn::Result<(Vec<String>, Vec<proc_macro2::Span>)> {
    let one = |p: ParseStream<'_>| -> syn::Result<(String, proc_macro2::Span)> {
        let negative = p.peek(Token![-]);
        if negative {
            p.parse::<Token![-]>()?;
        }
        let lit: syn::Lit = p.parse()?;
        let text = match &lit {
            syn::Lit::Int(i) if i.suffix().is_empty() => i.base10_digits().to_owned(),
            syn::Lit::Str(s) if !negative => s.value(),
            syn::Lit::Bool(b) if !negative => b.value.to_string(),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    crate::diagnostics::tune::value_form(),
                ));
            }
        };
        Ok((if negative { format!("-{text}") } else { text }, lit.span()))
    };
    if !input.peek(syn::token::Bracket) {
        let (v, s) = one(input)?;
        return Ok((vec![v], vec![s]));
    }
    let content;
    bracketed!(content in input);
    let list = content.parse_terminated(one, Token![,])?;
    Ok(list.into_iter().unzip())
}

fn set<T>(slot: &mut Option<T>, value: T) -> Result<(), ()> {
    match slot {
        Some(_) => Err(()),
        None => {
            *slot = Some(value);
            Ok(())
        }
    }
}

/// `"a"` or `["a", "b"]`.
fn string_list(input: ParseStream<'_>) -> syn::Result<Vec<LitStr>> {
    if input.peek(LitStr) {
        return Ok(vec![input.parse()?]);
    }
    let content;
    bracketed!(content in input);
    let list = content.parse_terminated(|p| p.parse::<LitStr>(), Token![,])?;
    Ok(list.into_iter().collect())
}

fn is_safe_fn(input: ParseStream<'_>) -> bool {
    input.fork().parse::<Ident>().is_ok_and(|i| i == "safe") && input.peek2(Token![fn])
}

/// `[safe] fn name(params);`
fn decl(input: ParseStream<'_>) -> syn::Result<Decl> {
    let safe = is_safe_fn(input);
    if safe {
        input.parse::<Ident>()?;
    }
    let sig: Signature = input.parse()?;
    input.parse::<Token![;]>()?;
    Ok(Decl { sig, safe })
}

/// `unsafe extern ["ABI"] { ([attrs] [safe] fn ...;)* }`
fn extern_block(input: ParseStream<'_>) -> syn::Result<Vec<Decl>> {
    input.parse::<Token![unsafe]>()?;
    input.parse::<Token![extern]>()?;
    if input.peek(LitStr) {
        input.parse::<LitStr>()?;
    }
    let content;
    braced!(content in input);
    let mut decls = Vec::new();
    while !content.is_empty() {
        content.call(Attribute::parse_outer)?;
        decls.push(decl(&content)?);
    }
    Ok(decls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_options_and_declarations() {
        let m: ModuleInput = syn::parse_quote! {
            /// Docs.
            pub mod vecmath {
                source = "extern \"C\" __global__ void k() {}";
                arch = ["sm_80", "sm_90"];
                define = "N=4";
                fn k();
                unsafe extern "CUDA" {
                    /// Vouched.
                    safe fn j(x: &mut [f32]);
                    fn l();
                }
            }
        };
        assert_eq!(m.name, "vecmath");
        assert_eq!(m.arch.unwrap().len(), 2);
        assert_eq!(m.define.len(), 1);
        let safe: Vec<bool> = m.decls.iter().map(|d| d.safe).collect();
        assert_eq!(safe, [false, true, false]);
    }

    #[test]
    fn the_runtime_path_is_a_key_given_once() {
        let m: ModuleInput = syn::parse_quote! {
            mod m { source = "x"; crate = "my_gpu::runtime"; }
        };
        assert_eq!(m.runtime_path.unwrap().value(), "my_gpu::runtime");
        let twice = quote::quote!(mod m { source = "x"; crate = "a"; crate = "b"; });
        let err = syn::parse2::<ModuleInput>(twice).err().expect("an error");
        assert!(err.to_string().contains("`crate` is given twice"), "{err}");
    }

    #[test]
    fn rejects_unknown_keys_duplicates_and_stray_safe() {
        let cases = [
            (
                quote::quote!(mod m { source = "x"; archs = ["sm_90"]; }),
                "unknown option `archs`",
            ),
            (
                quote::quote!(mod m { source = "x"; file = "k.cu"; }),
                "give one of `source`, `file` and `files`",
            ),
            (
                quote::quote!(mod m { arch = "sm_90"; }),
                "missing CUDA source",
            ),
            (
                quote::quote!(mod m { source = "x"; safe fn k(); }),
                "`safe fn` is only allowed",
            ),
            (
                quote::quote!(mod m { source = "x"; flags = []; flags = []; }),
                "`flags` is given twice",
            ),
        ];
        for (tokens, want) in cases {
            let err = syn::parse2::<ModuleInput>(tokens).err().expect("an error");
            assert!(err.to_string().contains(want), "{err}");
        }
    }
}
