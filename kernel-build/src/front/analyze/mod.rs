//! From parsed declarations to the [`ModuleInfo`] model: typedefs and structs in
//! order, kernels with their parameter layouts, template instantiations, globals.

mod globals;
mod host;
pub(crate) use host::is_stream;
mod kernels;
mod templates;

mod library;

use std::collections::HashMap;

use super::parse::{BaseSyn, EnumSyn, Item, KernelSyn, TypeSyn, TypedefSyn};
use super::types::TypeEnv;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::{
    CType, EnumDef, GlobalSpace, ModuleInfo, Qualifiers, Scalar, StructDef, UntypedKernel,
};
use globals::global;
use kernels::{add_kernel, make_kernel};
use templates::{from_stub, instantiate};

/// `name` qualified by `namespace` (`a::b::name`).
fn qualify(namespace: &[String], name: &str) -> String {
    if namespace.is_empty() {
        name.to_string()
    } else {
        format!("{}::{name}", namespace.join("::"))
    }
}

/// Builds the module model from `items`.
///
/// Nothing here is an error: a struct, typedef, enumeration or global that cannot be laid
/// out is skipped (kept in [`ModuleInfo::skipped`]), and a kernel whose signature cannot
/// be read is kept in [`ModuleInfo::untyped`] with why (a note says why a type it uses
/// was skipped); verification finds its symbol and layout in the images.
///
/// `library` holds the declarations of the toolkit and system headers the source
/// includes (empty unless a kernel needs a type only they define): they are known
/// before the user's, and the structs among them that nothing of the module uses are
/// left out of it.
pub(super) fn build(items: Vec<Item>, library: Vec<Item>) -> ModuleInfo {
    let mut env = TypeEnv::default();
    library::declare(&mut env, library);
    let from_library: Vec<StructDef> = env.structs.to_vec();
    let mut templates: Vec<KernelSyn> = Vec::new();
    let mut info = ModuleInfo::default();
    // Names whose declaration was skipped, with why.
    let mut broken: Vec<(String, Diagnostic)> = Vec::new();
    let mut kernel_diags = Diagnostics::new();
    // The kernel (qualified name, location, parameter names) each of `kernel_diags` is about.
    type About = (
        String,
        Option<crate::model::SourceLoc>,
        Vec<Option<String>>,
        Vec<String>,
    );
    let mut about: Vec<About> = Vec::new();
    for item in items {
        let soft = match item {
            Item::Skipped { name, why } => Err((name, why)),
            Item::Struct(s) => {
                let name = struct_name(&env, &s);
                env.add_struct(&s, name.clone())
                    .map_err(|d| (Some(name), d))
            }
            Item::StructTemplate { params, def } => {
                let name = qualify(&def.namespace, def.name.as_deref().unwrap_or_default());
                env.add_struct_template(name, params, def);
                Ok(())
            }
            Item::AliasTemplate {
                name,
                namespace,
                params,
                target,
            } => {
                env.add_alias_template(qualify(&namespace, &name), namespace, params, target);
                Ok(())
            }
            Item::Typedef(t) => {
                let name = qualify(&t.namespace, &t.name);
                typedef(&mut env, t).map_err(|d| (Some(name), d))
            }
            Item::Enum(e) => {
                let name = qualify(&e.namespace, &e.name);
                env.add_enum(name.clone());
                enumeration(&mut env, e)
                    .map(|def| {
                        if let Some(def) = def {
                            info.enums.retain(|d| d.name != def.name);
                            info.enums.push(def);
                        }
                    })
                    .map_err(|d| (Some(name), d))
            }
            Item::Constant(c) => {
                // One that does not evaluate (a `sizeof`, a call) is simply not known.
                env.add_constant(&c.name, &c.namespace, &c.value);
                Ok(())
            }
            Item::Var(v) => {
                let space = if v.constant {
                    GlobalSpace::Constant
                } else {
                    GlobalSpace::Device
                };
                env.instantiate_in(&v.ty, &v.namespace, &HashMap::new());
                match global(&env, &v, space) {
                    Ok(g) => {
                        info.globals.retain(|x| x.name != g.name);
                        info.globals.push(g);
                        Ok(())
                    }
                    Err(d) => Err((
                        None,
                        d.into_iter().next().unwrap_or_else(|| {
                            crate::diagnostics::front::global_unreadable(&v.name)
                        }),
                    )),
                }
            }
            Item::HostFn(f) => {
                host::add_host_fn(&env, &mut info, &f);
                Ok(())
            }
            Item::Kernel(k) => {
                // An instantiation read from the host stub is not the user's declaration:
                // one that cannot be typed leaves the kernel out instead of failing.
                let implicit = k.symbol.clone();
                // An `extern "C"` symbol names no types: the declaration's spellings
                // stand in for the demangled ones.
                let written: Vec<String> =
                    if k.linkage == crate::model::Linkage::C && k.template.is_none() {
                        k.params.iter().map(|p| p.ty.written.clone()).collect()
                    } else {
                        Vec::new()
                    };
                let (base, base_ns) = (k.name.clone(), k.namespace.clone());
                let declared = (
                    qualify(&k.namespace, &k.name),
                    k.loc.clone(),
                    k.params.iter().map(|p| p.name.clone()).collect(),
                    written,
                );
                match (
                    kernel_item(&mut env, &mut templates, &mut info, k),
                    implicit,
                ) {
                    (Ok(()), _) => Ok(()),
                    (Err(d), None) => {
                        for d in d {
                            kernel_diags.push(d);
                            about.push(declared.clone());
                        }
                        Ok(())
                    }
                    (Err(d), Some(symbol)) => {
                        let why = d.into_iter().next();
                        let d = crate::diagnostics::front::launched_left_out(&symbol, why);
                        // Its template's parameter names, and why, for the kernel the
                        // images hold under this symbol.
                        let tmpl = templates
                            .iter()
                            .rev()
                            .find(|t| t.name == base && t.namespace.starts_with(&base_ns));
                        if let Some(t) = tmpl.filter(|t| !t.params.iter().any(|p| p.pack)) {
                            let mut u =
                                unread(qualify(&t.namespace, &t.name), symbol, &d, t.loc.clone());
                            u.why = readable(&u.why);
                            u.param_names = t.params.iter().map(|p| p.name.clone()).collect();
                            info.untyped.push(u);
                        }
                        Err((None, d))
                    }
                }
            }
        };
        if let Err((name, d)) = soft {
            info.skipped.push(d.to_string());
            if let Some(name) = name {
                broken.push((name, d));
            }
        }
    }
    // A kernel the front end cannot read is not an error: it stays in the module untyped
    // (verification finds it in the images), with why.
    for (d, (name, loc, names, written)) in kernel_diags.into_iter().zip(about) {
        let d = explain_unknown(d, &broken, &info.skipped);
        if info.untyped.iter().any(|u| u.name == name) {
            continue;
        }
        let mut u = unread(name, String::new(), &d, loc);
        u.param_names = names;
        u.param_types = written;
        info.untyped.push(u);
    }
    info.structs = env.structs.into_vec();
    library::keep_used(&mut info, &from_library);
    info
}

/// Whether a kernel of `info` (or one launched from host code) failed on a type the
/// user's files do not define: the library headers may.
pub(super) fn met_unknown_type(info: &ModuleInfo) -> bool {
    let unknown = |m: &str| m.contains("unknown type `");
    info.skipped.iter().any(|s| unknown(s)) || info.untyped.iter().any(|u| unknown(&u.why))
}

/// A kernel whose declaration could not be typed, with why (`d`) and where (`d`'s location,
/// else `loc`); verification gives it its layout and images from the compiled code.
pub(crate) fn unread(
    name: String,
    symbol: String,
    d: &Diagnostic,
    loc: Option<crate::model::SourceLoc>,
) -> UntypedKernel {
    UntypedKernel {
        name,
        symbol,
        params: Vec::new(),
        param_types: Vec::new(),
        param_names: Vec::new(),
        why: reason(d),
        loc: d.loc.clone().or(loc),
        images: Vec::new(),
    }
}

/// Why the front end left out a kernel host code launches, from its message: the reason
/// alone, with the type names the host stub spells mangled demangled.
pub(crate) fn readable(line: &str) -> String {
    let why = line.split_once(" left out: ").map_or(line, |(_, why)| why);
    why.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 && part.starts_with("_Z") {
                super::types::demangled_type(part).unwrap_or_else(|| part.to_owned())
            } else {
                part.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// A diagnostic as one line of why: its message and its specific notes (not the general
/// list of supported types).
pub(crate) fn reason(d: &Diagnostic) -> String {
    let mut why = d.message.clone();
    for note in d
        .notes
        .iter()
        .filter(|n| !n.starts_with("kernel parameters, struct fields and globals need"))
    {
        why.push_str("; ");
        why.push_str(note);
    }
    why
}

/// An `unknown type` of a kernel, with why its declaration was skipped (when it was).
fn explain_unknown(
    d: Diagnostic,
    broken: &[(String, Diagnostic)],
    skipped: &[String],
) -> Diagnostic {
    let Some(name) = d
        .message
        .strip_prefix("unknown type `")
        .and_then(|r| r.strip_suffix('`'))
        .map(str::to_owned)
    else {
        return d;
    };
    let name = name.as_str();
    let bare = name.rsplit("::").next().unwrap_or(name);
    if let Some((_, why)) = broken
        .iter()
        .find(|(n, _)| n == name || n.rsplit("::").next() == Some(bare))
    {
        let loc = why
            .loc
            .as_ref()
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        return d.note(format!(
            "the declaration of `{name}`{loc} was skipped: {}",
            why.message
        ));
    }
    if skipped.is_empty() {
        return d;
    }
    let first: Vec<&str> = skipped
        .iter()
        .take(3)
        .map(|s| s.lines().next().unwrap_or_default())
        .collect();
    d.note(format!(
        "{} declaration(s) the front end could not read were skipped, among them: {}",
        skipped.len(),
        first.join("; ")
    ))
}

/// The name a struct is known by: qualified, and canonical for a specialization.
fn struct_name(env: &TypeEnv, s: &super::parse::StructSyn) -> String {
    let name = qualify(&s.namespace, s.name.as_deref().unwrap_or("(anonymous)"));
    if name.contains('<') {
        return env.specialization_name(&name, &s.namespace).unwrap_or(name);
    }
    name
}

/// A kernel, a template kernel or an explicit instantiation.
fn kernel_item(
    env: &mut TypeEnv,
    templates: &mut Vec<KernelSyn>,
    info: &mut ModuleInfo,
    k: KernelSyn,
) -> Result<(), Diagnostics> {
    match k {
        k if k.template.is_some() && !k.is_instantiation => {
            templates.retain(|t| {
                !(t.name == k.name
                    && t.namespace == k.namespace
                    && t.params.len() == k.params.len())
            });
            templates.push(k);
            Ok(())
        }
        k if k.is_instantiation => {
            let kernel = match instantiate(env, templates, &k) {
                Ok(kernel) => kernel,
                // A launched instantiation the template cannot give (a variadic
                // template, a parameter the definition spells in a way the front end
                // does not follow): the stub's own parameter types are exact.
                Err(_) if k.symbol.is_some() => from_stub(env, templates, &k)?,
                // An explicit instantiation spells its parameters' types: where the
                // template's cannot be followed (`typename vec4<T>::Type*`), they give them.
                Err(d) => from_stub(env, templates, &k).map_err(|_| d)?,
            };
            add_kernel(info, kernel)
        }
        k => {
            for p in &k.params {
                env.instantiate_in(&p.ty, &k.namespace, &HashMap::new());
            }
            make_kernel(env, &k, &k, Vec::new(), &HashMap::new(), &k.namespace)
                .and_then(|kernel| add_kernel(info, kernel))
        }
    }
}

/// Records an enumeration in `env` as its underlying integer type, and returns it with its
/// enumerators' values (`None` when its type is no integer or a value does not evaluate).
fn enumeration(env: &mut TypeEnv, e: EnumSyn) -> Result<Option<EnumDef>, Diagnostic> {
    let syn = TypeSyn {
        base: e.underlying,
        base_quals: Qualifiers::default(),
        ptrs: Vec::new(),
        written: e.name.clone(),
        loc: e.loc.clone(),
    };
    let resolved = env.resolve(&syn, &e.namespace, &HashMap::new())?;
    let name = qualify(&e.namespace, &e.name);
    let underlying = match &resolved.0 {
        CType::Scalar(
            s @ (Scalar::I8
            | Scalar::Char
            | Scalar::I16
            | Scalar::I32
            | Scalar::I64
            | Scalar::U8
            | Scalar::U16
            | Scalar::U32
            | Scalar::U64
            | Scalar::Usize
            | Scalar::Isize),
        ) => Some(*s),
        _ => None,
    };
    env.add_typedef(name.clone(), resolved);
    let variants: Option<Vec<(String, i64)>> = e
        .enumerators
        .iter()
        .map(|v| {
            env.eval(&format!("{}::{v}", e.name), &e.namespace)
                .map(|value| (v.clone(), value))
        })
        .collect();
    Ok(underlying
        .zip(variants)
        .map(|(underlying, variants)| EnumDef {
            name,
            underlying,
            variants,
            rust_path: None,
            loc: e.loc,
        }))
}

/// Records a typedef (and a struct defined in it) in `env`.
fn typedef(env: &mut TypeEnv, mut t: TypedefSyn) -> Result<(), Diagnostic> {
    // A member type of a specialization (`vec4<float>::Type`) under its canonical name.
    for part in &mut t.namespace {
        if part.contains('<')
            && let Some(canonical) = env.specialization_name(part, &[])
        {
            *part = canonical;
        }
    }
    let qname = qualify(&t.namespace, &t.name);
    let mut ty = t.ty.clone();
    env.instantiate_in(&ty, &t.namespace, &HashMap::new());
    if let BaseSyn::Inline(def) = &t.ty.base {
        let sname = def
            .name
            .as_ref()
            .map_or_else(|| qname.clone(), |n| qualify(&t.namespace, n));
        env.add_struct(def, sname.clone())?;
        ty.base = BaseSyn::Named(sname);
    }
    let (cty, quals) = env.resolve(&ty, &t.namespace, &HashMap::new())?;
    let cty = env.with_extents(cty, &t.extents, &t.name, t.loc.clone(), &t.namespace)?;
    env.add_typedef(qname, (cty, quals));
    Ok(())
}
