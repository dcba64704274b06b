//! Module globals: `__constant__` and `__device__` variables with their types,
//! sizes and symbols.

use std::collections::HashMap;

use super::qualify;
use crate::diagnostics::{Diagnostics, front as msg};
use crate::front::parse::VarSyn;
use crate::front::types::{TypeEnv, size_align};
use crate::model::{Global, GlobalSpace, Linkage};

/// Resolves a module global; its symbol is mangled unless it has C linkage or no namespace.
pub(super) fn global(env: &TypeEnv, v: &VarSyn, space: GlobalSpace) -> Result<Global, Diagnostics> {
    let (ty, _) = env.resolve(&v.ty, &v.namespace, &HashMap::new())?;
    let ty = env.with_extents(ty, &v.extents, &v.name, v.loc.clone(), &v.namespace)?;
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
