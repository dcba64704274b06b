//! From parsed declarations to the [`ModuleInfo`] model: typedefs and structs in
//! order, kernels with their parameter layouts, template instantiations, globals.

mod globals;
mod kernels;
mod templates;

use std::collections::HashMap;

use super::parse::{BaseSyn, Item, KernelSyn, TypedefSyn};
use super::types::TypeEnv;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::{GlobalSpace, ModuleInfo};
use globals::global;
use kernels::{add_kernel, make_kernel};
use templates::instantiate;

/// `name` qualified by `namespace` (`a::b::name`).
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

/// Records a typedef (and a struct defined in it) in `env`.
fn typedef(env: &mut TypeEnv, t: TypedefSyn) -> Result<(), Diagnostic> {
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
