//! From parsed declarations to the [`ModuleInfo`] model: typedefs and structs in
//! order, kernels with their parameter layouts, template instantiations, globals.

use std::collections::HashMap;

use super::expr::eval_const;
use super::parse::{BaseSyn, Item, KernelSyn, TypeSyn};
use super::types::{Resolved, TypeEnv, c_spelling, size_align};
use crate::diagnostics::{Diagnostic, Diagnostics, front as msg};
use crate::model::{
    CType, Global, GlobalSpace, Kernel, Layout, Linkage, ModuleInfo, Param, TemplateArg,
};

fn qualify(namespace: &[String], name: &str) -> String {
    if namespace.is_empty() {
        name.to_string()
    } else {
        format!("{}::{name}", namespace.join("::"))
    }
}

/// Builds the module model from `items`, pushing every problem into `diags`.
pub(super) fn build(items: Vec<Item>, diags: &mut Diagnostics) -> ModuleInfo {
    let mut env = TypeEnv::default();
    let mut templates: Vec<KernelSyn> = Vec::new();
    let mut info = ModuleInfo::default();
    for item in items {
        let result = match item {
            Item::Struct(s) => {
                let name = qualify(&s.namespace, s.name.as_deref().unwrap_or("(anonymous)"));
                env.add_struct(&s, name).map_err(Diagnostics::from)
            }
            Item::Typedef(t) => typedef(&mut env, t).map_err(Diagnostics::from),
            Item::Var(v) => {
                let space = if v.constant {
                    GlobalSpace::Constant
                } else {
                    GlobalSpace::Device
                };
                global(&env, &v, space).map(|g| {
                    info.globals.retain(|x| x.name != g.name);
                    info.globals.push(g);
                })
            }
            Item::Kernel(k) if k.template.is_some() && !k.is_instantiation => {
                templates.retain(|t| {
                    !(t.name == k.name
                        && t.namespace == k.namespace
                        && t.params.len() == k.params.len())
                });
                templates.push(k);
                Ok(())
            }
            Item::Kernel(k) if k.is_instantiation => {
                instantiate(&env, &templates, &k).and_then(|kernel| add_kernel(&mut info, kernel))
            }
            Item::Kernel(k) => make_kernel(&env, &k, &k, Vec::new(), &HashMap::new(), &k.namespace)
                .and_then(|kernel| add_kernel(&mut info, kernel)),
        };
        if let Err(d) = result {
            diags.append(d);
        }
    }
    info.structs = env.structs;
    info
}

fn typedef(env: &mut TypeEnv, t: super::parse::TypedefSyn) -> Result<(), Diagnostic> {
    let qname = qualify(&t.namespace, &t.name);
    let mut ty = t.ty.clone();
    if let BaseSyn::Inline(def) = &t.ty.base {
        let sname = def
            .name
            .as_ref()
            .map_or_else(|| qname.clone(), |n| qualify(&t.namespace, n));
        env.add_struct(def, sname.clone())?;
        ty.base = BaseSyn::Named(sname);
    }
    let (cty, quals) = env.resolve(&ty, &t.namespace, &HashMap::new())?;
    let cty = TypeEnv::with_extents(cty, &t.extents, &t.name, t.loc.clone())?;
    env.add_typedef(qname, (cty, quals));
    Ok(())
}

fn global(
    env: &TypeEnv,
    v: &super::parse::VarSyn,
    space: GlobalSpace,
) -> Result<Global, Diagnostics> {
    let (ty, _) = env.resolve(&v.ty, &v.namespace, &HashMap::new())?;
    let ty = TypeEnv::with_extents(ty, &v.extents, &v.name, v.loc.clone())?;
    let size = size_align(&ty, &env.structs)
        .map(|(s, _)| s)
        .ok_or_else(|| {
            msg::unsupported_type(&v.ty.written, &format!("global `{}` has no size", v.name))
                .at(v.loc.clone())
        })?;
    let symbol = if v.linkage == Linkage::C || v.namespace.is_empty() {
        v.name.clone()
    } else {
        let parts: String = v
            .namespace
            .iter()
            .chain([&v.name])
            .map(|p| format!("{}{p}", p.len()))
            .collect();
        format!("_ZN{parts}E")
    };
    Ok(Global {
        name: qualify(&v.namespace, &v.name),
        symbol,
        space,
        ty,
        size,
        loc: v.loc.clone(),
    })
}

/// Merges a declaration and a later definition of the same kernel.
fn add_kernel(info: &mut ModuleInfo, k: Kernel) -> Result<(), Diagnostics> {
    let same_sig = |a: &Kernel| {
        a.params.len() == k.params.len()
            && a.params.iter().zip(&k.params).all(|(x, y)| x.ty == y.ty)
    };
    if let Some(prev) = info
        .kernels
        .iter_mut()
        .find(|p| p.name == k.name && (same_sig(p) || k.linkage == Linkage::C))
    {
        if prev.params.len() != k.params.len()
            || !prev.params.iter().zip(&k.params).all(|(x, y)| x.ty == y.ty)
        {
            return Err(msg::conflicting_kernel(&k.name).at(k.loc.clone()).into());
        }
        for (p, q) in prev.params.iter_mut().zip(k.params) {
            if p.name.is_none() {
                p.name = q.name;
            }
        }
        return Ok(());
    }
    info.kernels.push(k);
    Ok(())
}

/// Resolves a kernel's parameters (`decl` gives the parameters, `site` the name and location).
fn make_kernel(
    env: &TypeEnv,
    decl: &KernelSyn,
    site: &KernelSyn,
    template_args: Vec<(String, TemplateArg)>,
    tparams: &HashMap<String, Resolved>,
    scope: &[String],
) -> Result<Kernel, Diagnostics> {
    let mut diags = Diagnostics::new();
    let mut name = qualify(&site.namespace, &site.name);
    if decl.template.is_some() {
        let shown: Vec<String> = template_args.iter().map(|(s, _)| s.clone()).collect();
        name = format!("{name}<{}>", shown.join(", "));
    }
    match env.resolve(&decl.ret, scope, tparams) {
        Ok((CType::Void, _)) => {}
        Ok((other, _)) => {
            diags.push(msg::kernel_not_void(&name, &c_spelling(&other)).at(decl.ret.loc.clone()))
        }
        Err(d) => diags.push(d),
    }
    let mut params = Vec::new();
    let mut offset = 0u64;
    for p in &decl.params {
        let ty = match env.resolve(&p.ty, scope, tparams) {
            Ok((ty, _)) => ty,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        let Some((size, align)) = size_align(&ty, &env.structs) else {
            let why = format!(
                "parameter `{}` of kernel `{name}` cannot be passed by value",
                p.name.as_deref().unwrap_or("_")
            );
            diags.push(msg::unsupported_type(&p.ty.written, &why).at(p.loc.clone()));
            continue;
        };
        let at = offset.div_ceil(align) * align;
        offset = at + size;
        params.push(Param {
            name: p.name.clone(),
            ty,
            written: p.ty.written.clone(),
            grid_constant: p.grid_constant,
            layout: Layout {
                offset: at,
                size,
                align,
            },
            loc: p.loc.clone(),
        });
    }
    diags.into_result()?;
    let symbol = if site.linkage == Linkage::C {
        site.name.clone()
    } else {
        String::new()
    };
    Ok(Kernel {
        name,
        base_name: site.name.clone(),
        namespace: site.namespace.clone(),
        template_args: template_args.into_iter().map(|(_, a)| a).collect(),
        symbol,
        linkage: site.linkage,
        is_static: site.is_static || decl.is_static,
        params,
        attrs: if site.attrs == Default::default() {
            decl.attrs.clone()
        } else {
            site.attrs.clone()
        },
        doc: None,
        loc: site.loc.clone(),
        images: Vec::new(),
    })
}

/// One explicit instantiation of a template kernel.
fn instantiate(
    env: &TypeEnv,
    templates: &[KernelSyn],
    inst: &KernelSyn,
) -> Result<Kernel, Diagnostics> {
    let display = qualify(&inst.namespace, &inst.name);
    let tmpl = templates
        .iter()
        .rev()
        .filter(|t| t.name == inst.name && t.params.len() == inst.params.len())
        .find(|t| t.namespace == inst.namespace || t.namespace.starts_with(&inst.namespace))
        .ok_or_else(|| msg::no_such_template(&display).at(inst.loc.clone()))?;
    let tparams = tmpl.template.as_deref().unwrap_or(&[]);
    let explicit = inst.args.as_deref().unwrap_or(&[]);
    if explicit.len() > tparams.len() {
        return Err(msg::template_args(
            &display,
            &format!(
                "{} arguments for {} parameters",
                explicit.len(),
                tparams.len()
            ),
        )
        .at(inst.loc.clone())
        .into());
    }
    let mut bound: HashMap<String, Resolved> = HashMap::new();
    let mut args = Vec::new();
    // Deduce what the explicit list leaves out from the instantiation's parameter types.
    let mut deduced: HashMap<String, Resolved> = HashMap::new();
    for (tp, ip) in tmpl.params.iter().zip(&inst.params) {
        deduce(env, &tp.ty, &ip.ty, &inst.namespace, &mut deduced);
    }
    for (i, tp) in tparams.iter().enumerate() {
        let arg = explicit.get(i).or(tp.default.as_ref());
        let err = |why: String| {
            Diagnostics::from(msg::template_args(&display, &why).at(inst.loc.clone()))
        };
        if tp.is_type {
            let resolved = match arg.and_then(|a| a.ty.as_ref()) {
                Some(ty) => env.resolve(ty, &inst.namespace, &bound)?,
                None if arg.is_some() => {
                    return Err(err(format!(
                        "`{}` is not a type for `{}`",
                        arg.map(|a| a.text.as_str()).unwrap_or(""),
                        tp.name
                    )));
                }
                None => deduced
                    .get(&tp.name)
                    .cloned()
                    .ok_or_else(|| err(format!("no argument for `{}`", tp.name)))?,
            };
            let shown = c_spelling(&resolved.0);
            let shown = if resolved.1.is_const {
                format!("const {shown}")
            } else {
                shown
            };
            args.push((shown, TemplateArg::Type(resolved.0.clone())));
            bound.insert(tp.name.clone(), resolved);
        } else {
            let text = arg
                .map(|a| a.text.clone())
                .ok_or_else(|| err(format!("no argument for `{}`", tp.name)))?;
            let value = eval_const(&text).ok_or_else(|| {
                err(format!(
                    "`{text}` for `{}` is not an integer constant",
                    tp.name
                ))
            })?;
            let shown = if matches!(text.as_str(), "true" | "false") {
                text.clone()
            } else {
                value.to_string()
            };
            args.push((shown.clone(), TemplateArg::Value(shown)));
        }
    }
    let mut kernel = make_kernel(env, tmpl, inst, args, &bound, &tmpl.namespace)?;
    kernel.namespace = tmpl.namespace.clone();
    let base = qualify(&tmpl.namespace, &tmpl.name);
    if let Some(rest) = kernel.name.find('<').map(|i| kernel.name[i..].to_string()) {
        kernel.name = format!("{base}{rest}");
    }
    kernel.loc = inst.loc.clone();
    kernel.attrs = tmpl.attrs.clone();
    Ok(kernel)
}

/// Binds a template type parameter by matching a declared type (`const T*`) against
/// the instantiation's type (`const float*`).
fn deduce(
    env: &TypeEnv,
    decl: &TypeSyn,
    inst: &TypeSyn,
    scope: &[String],
    out: &mut HashMap<String, Resolved>,
) {
    let BaseSyn::Named(tname) = &decl.base else {
        return;
    };
    let Ok((mut ty, mut quals)) = env.resolve(inst, scope, &HashMap::new()) else {
        return;
    };
    for _ in &decl.ptrs {
        let CType::Pointer {
            pointee,
            pointee_quals,
        } = ty
        else {
            return;
        };
        ty = *pointee;
        quals = pointee_quals;
    }
    quals.is_const &= !decl.base_quals.is_const;
    quals.is_volatile &= !decl.base_quals.is_volatile;
    if decl.ptrs.is_empty() {
        quals = Default::default();
    }
    out.entry(tname.clone()).or_insert((ty, quals));
}
