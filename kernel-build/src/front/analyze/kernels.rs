//! Kernels: resolving parameters into C layouts, and merging a declaration with a
//! later definition of the same kernel.

use std::collections::HashMap;

use super::qualify;
use crate::diagnostics::{Diagnostics, front as msg};
use crate::front::parse::KernelSyn;
use crate::front::types::{Resolved, TypeEnv, c_spelling, size_align};
use crate::model::{CType, Kernel, Layout, Linkage, ModuleInfo, Param, TemplateArg};

/// Merges a declaration and a later definition of the same kernel.
pub(super) fn add_kernel(info: &mut ModuleInfo, k: Kernel) -> Result<(), Diagnostics> {
    // The same instantiation seen twice (explicitly, and launched from host code).
    if !k.symbol.is_empty() && info.kernels.iter().any(|p| p.symbol == k.symbol) {
        return Ok(());
    }
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
        if prev.symbol.is_empty() {
            prev.symbol = k.symbol;
        }
        return Ok(());
    }
    info.kernels.push(k);
    Ok(())
}

/// Resolves a kernel's parameters (`decl` gives the parameters, `site` the name and location).
pub(super) fn make_kernel(
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
                let param = p.name.as_deref().unwrap_or("_");
                diags.push(d.note(format!("in parameter `{param}` of kernel `{name}`")));
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
    let symbol = match (&site.symbol, site.linkage) {
        (Some(s), _) => s.clone(),
        (None, Linkage::C) => site.name.clone(),
        (None, Linkage::Cxx) => String::new(),
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
