//! Template kernels: explicit instantiations, with template arguments given,
//! defaulted or deduced from the instantiation's parameter types.

use std::collections::HashMap;

use super::kernels::make_kernel;
use super::qualify;
use crate::diagnostics::{Diagnostics, front as msg};
use crate::front::parse::{BaseSyn, KernelSyn, TypeSyn};
use crate::front::types::{Resolved, TypeEnv, c_spelling, replace_words};
use crate::model::{CType, Kernel, TemplateArg};

/// One explicit instantiation of a template kernel.
pub(super) fn instantiate(
    env: &mut TypeEnv,
    templates: &[KernelSyn],
    inst: &KernelSyn,
) -> Result<Kernel, Diagnostics> {
    let display = qualify(&inst.namespace, &inst.name);
    let tmpl = templates
        .iter()
        .rev()
        .filter(|t| t.name == inst.name && t.params.len() == inst.params.len())
        // A variadic template's parameter list depends on the pack: only a launched
        // instantiation (typed from the host stub) can give it.
        .filter(|t| !t.params.iter().any(|p| p.pack))
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
    let mut values: HashMap<String, String> = HashMap::new();
    let mut args = Vec::new();
    // Deduce what the explicit list leaves out from the instantiation's parameter types.
    let mut deduced: HashMap<String, Resolved> = HashMap::new();
    for ip in &inst.params {
        env.instantiate_in(&ip.ty, &inst.namespace, &HashMap::new());
    }
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
            // An enumeration's value is shown as the compiler's demangler shows it, `(Op)1`.
            let enum_type = tp
                .value_type
                .as_deref()
                .and_then(|t| env.enum_named(t, &tmpl.namespace));
            let evaluated = env
                .eval(&text, &inst.namespace)
                .or_else(|| env.eval(&text, &tmpl.namespace));
            let shown = match evaluated {
                _ if matches!(text.as_str(), "true" | "false") => text.clone(),
                Some(value) => {
                    values.insert(tp.name.clone(), value.to_string());
                    let shown = match &enum_type {
                        Some(e) => format!("({e}){value}"),
                        None => value.to_string(),
                    };
                    args.push((shown.clone(), TemplateArg::Value(shown)));
                    continue;
                }
                // An instantiation whose symbol is known (launched from host code):
                // any argument (a function, an enumerator) is kept as written.
                None if inst.symbol.is_some() => {
                    canonical_cast(text.trim_start_matches('&').trim().trim_start_matches("::"))
                }
                None => {
                    return Err(err(format!(
                        "`{text}` for `{}` is not an integer constant",
                        tp.name
                    )));
                }
            };
            values.insert(tp.name.clone(), shown.clone());
            args.push((shown.clone(), TemplateArg::Value(shown)));
        }
    }
    // Value parameters inside the parameters' types (`flag<B>`) take their values.
    let tmpl = &with_values(tmpl, &values);
    for p in &tmpl.params {
        env.instantiate_in(&p.ty, &tmpl.namespace, &bound);
    }
    let mut kernel = make_kernel(env, tmpl, inst, args, &bound, &tmpl.namespace)?;
    kernel.namespace = tmpl.namespace.clone();
    let base = qualify(&tmpl.namespace, &tmpl.name);
    if let Some(rest) = kernel.name.find('<').map(|i| kernel.name[i..].to_string()) {
        kernel.name = format!("{base}{rest}");
    }
    kernel.loc = inst.loc.clone().or_else(|| tmpl.loc.clone());
    kernel.attrs = tmpl.attrs.clone();
    Ok(kernel)
}

/// `tmpl` with the names of template value parameters in its parameters' types
/// replaced by their values.
fn with_values(tmpl: &KernelSyn, values: &HashMap<String, String>) -> KernelSyn {
    let mut out = tmpl.clone();
    if values.is_empty() {
        return out;
    }
    for p in &mut out.params {
        if let BaseSyn::Named(name) = &mut p.ty.base
            && name.contains('<')
        {
            *name = replace_words(name, values);
        }
    }
    out
}

/// A launched instantiation typed from its own parameter list (the concrete types nvcc's
/// host stub spells), named after the template with the arguments as written there.
pub(super) fn from_stub(
    env: &mut TypeEnv,
    templates: &[KernelSyn],
    inst: &KernelSyn,
) -> Result<Kernel, Diagnostics> {
    let tmpl = templates
        .iter()
        .rev()
        .find(|t| t.name == inst.name && t.namespace.starts_with(&inst.namespace));
    let typed = tmpl.map(|t| with_pack_types(t, inst));
    let inst_typed = typed.as_ref().unwrap_or(inst);
    for p in &inst_typed.params {
        env.instantiate_in(&p.ty, &inst.namespace, &HashMap::new());
    }
    let mut kernel = make_kernel(
        env,
        inst_typed,
        inst_typed,
        Vec::new(),
        &HashMap::new(),
        &inst.namespace,
    )?;
    let args: Vec<(String, TemplateArg)> = inst
        .args
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|a| {
            let resolved =
                a.ty.as_ref()
                    .and_then(|t| env.resolve(t, &inst.namespace, &HashMap::new()).ok());
            match resolved {
                Some((ty, _)) => (c_spelling(&ty), TemplateArg::Type(ty)),
                None => {
                    let v = canonical_cast(
                        a.text
                            .trim_start_matches('&')
                            .trim()
                            .trim_start_matches("::"),
                    );
                    let v = v.as_str();
                    let v = env
                        .eval(v, &inst.namespace)
                        .map_or_else(|| v.to_owned(), |n| n.to_string());
                    (v.clone(), TemplateArg::Value(v))
                }
            }
        })
        .collect();
    let shown: Vec<&str> = args.iter().map(|(s, _)| s.as_str()).collect();
    let namespace = tmpl.map_or_else(|| inst.namespace.clone(), |t| t.namespace.clone());
    kernel.name = format!("{}<{}>", qualify(&namespace, &inst.name), shown.join(", "));
    kernel.namespace = namespace;
    kernel.template_args = args.into_iter().map(|(_, a)| a).collect();
    if let Some(t) = tmpl {
        kernel.loc = t.loc.clone();
        kernel.attrs = t.attrs.clone();
        kernel.is_static |= t.is_static;
        // Names of the parameters before a pack (its expansion has none).
        for (p, q) in kernel
            .params
            .iter_mut()
            .zip(t.params.iter().take_while(|q| !q.pack))
        {
            p.name = q.name.clone();
        }
    }
    Ok(kernel)
}

/// The stub spells the expansion of a parameter pack with an alias template as a mangled
/// name the front end cannot read; the pack's template arguments give those types.
fn with_pack_types(tmpl: &KernelSyn, inst: &KernelSyn) -> KernelSyn {
    let mut out = inst.clone();
    let Some(at) = tmpl.params.iter().position(|p| p.pack) else {
        return out;
    };
    let BaseSyn::Named(pack) = &tmpl.params[at].ty.base else {
        return out;
    };
    let tparams = tmpl.template.as_deref().unwrap_or(&[]);
    let Some(first) = tparams.iter().position(|t| t.name == *pack) else {
        return out;
    };
    let args = inst.args.as_deref().unwrap_or(&[]);
    let expanded = (inst.params.len() + 1).saturating_sub(tmpl.params.len());
    for i in 0..expanded {
        let (Some(p), Some(ty)) = (
            out.params.get_mut(at + i),
            args.get(first + i).and_then(|a| a.ty.clone()),
        ) else {
            continue;
        };
        if p.ty.written.starts_with("_Z") {
            p.ty = ty;
        }
    }
    out
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

/// A value argument the host stub spells as a cast, `(::Op) 1`, as the demangler shows it,
/// `(Op)1`; any other text as it is.
fn canonical_cast(text: &str) -> String {
    let cast = text.strip_prefix('(').and_then(|rest| rest.split_once(')'));
    match cast {
        Some((ty, value))
            if !ty.is_empty()
                && ty
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                && value.trim().parse::<i64>().is_ok() =>
        {
            format!("({}){}", ty.trim_start_matches("::"), value.trim())
        }
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod cast_tests {
    use super::canonical_cast;

    #[test]
    fn stub_casts_read_as_the_demangler_writes_them() {
        assert_eq!(canonical_cast("(::Op) 1"), "(Op)1");
        assert_eq!(canonical_cast("(::cfg::Mode) 4"), "(cfg::Mode)4");
        assert_eq!(canonical_cast("(int)-3"), "(int)-3");
        assert_eq!(canonical_cast("(a + b)"), "(a + b)");
        assert_eq!(canonical_cast("16"), "16");
    }
}
