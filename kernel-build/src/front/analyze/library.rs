//! Types a kernel takes from a library header: the runtime API's structs
//! (`cudaExtent`, `cudaPitchedPtr`), cuRAND's generator states, any struct, typedef or
//! enumeration of a toolkit or system header the source includes.
//!
//! Those headers are read only when a kernel meets a type the user's files do not define
//! (the common case costs nothing). Their declarations are known before the user's;
//! names the type model already knows (`size_t`, `__half`, `float4`) keep their meaning,
//! and what cannot be read there is dropped silently: it is not the user's code.

use std::collections::HashSet;

use super::{enumeration, qualify, struct_name, typedef};
use crate::front::parse::Item;
use crate::front::types::{TypeEnv, header_type};
use crate::model::{CType, ModuleInfo, StructDef};

/// Records the structs, typedefs and enumerations of `items` (a library's declarations).
pub(super) fn declare(env: &mut TypeEnv, items: Vec<Item>) {
    for item in items {
        // Errors are dropped: a declaration of a header the front end cannot lay out
        // only matters through a kernel, which then reports its type as unknown.
        match item {
            Item::Struct(s) => {
                let name = struct_name(env, &s);
                if header_type(&name).is_none() {
                    let _ = env.add_struct(&s, name);
                }
            }
            Item::StructTemplate { params, def } => {
                let name = qualify(&def.namespace, def.name.as_deref().unwrap_or_default());
                env.add_struct_template(name, params, def);
            }
            Item::AliasTemplate {
                name,
                namespace,
                params,
                target,
            } => env.add_alias_template(qualify(&namespace, &name), namespace, params, target),
            Item::Typedef(t) if header_type(&qualify(&t.namespace, &t.name)).is_none() => {
                let _ = typedef(env, t);
            }
            Item::Enum(e) if header_type(&qualify(&e.namespace, &e.name)).is_none() => {
                let _ = enumeration(env, e);
            }
            _ => {}
        }
    }
}

/// Leaves out of `info` the library's structs (`library`, as they were declared) that no
/// kernel, global or kept struct uses.
pub(super) fn keep_used(info: &mut ModuleInfo, library: &[StructDef]) {
    if library.is_empty() {
        return;
    }
    let is_library = |s: &StructDef| library.iter().any(|l| l == s);
    let mut used: HashSet<String> = HashSet::new();
    let mut todo: Vec<&CType> = Vec::new();
    for k in info.kernels.iter().chain(&info.elsewhere) {
        todo.extend(k.params.iter().map(|p| &p.ty));
    }
    todo.extend(info.globals.iter().map(|g| &g.ty));
    for s in info.structs.iter().filter(|s| !is_library(s)) {
        used.insert(s.name.clone());
        todo.extend(s.fields.iter().map(|f| &f.ty));
    }
    while let Some(ty) = todo.pop() {
        if let Some(name) = ty.struct_name()
            && used.insert(name.to_owned())
            && let Some(s) = info.structs.iter().find(|s| s.name == name)
        {
            todo.extend(s.fields.iter().map(|f| &f.ty));
        }
    }
    info.structs.retain(|s| used.contains(&s.name));
}
