//! The type environment: typedefs and structs known so far, and resolution of types
//! as written against them, template parameters and the header names.

use std::collections::HashMap;

use super::header_type;
use crate::diagnostics::{Diagnostic, front as msg};
use crate::front::parse::{BaseSyn, TypeSyn};
use crate::model::{CType, Qualifiers, Scalar, StructDef};

/// A resolved type and the qualifiers of its top level.
pub type Resolved = (CType, Qualifiers);

/// Typedefs and structs known so far, in declaration order.
#[derive(Debug, Default)]
pub struct TypeEnv {
    typedefs: HashMap<String, Resolved>,
    /// Struct definitions with computed layouts.
    pub structs: super::Named<StructDef>,
    /// Class templates, laid out on demand.
    pub(super) templates: super::Named<super::templates::StructTemplate>,
    /// Alias templates, read when used.
    pub(super) aliases: super::Named<super::templates::AliasTemplate>,
    /// Template instances being laid out (a field naming its own struct stops here).
    pub(super) in_progress: Vec<String>,
    /// Named integer constants (enumerators, `constexpr` integers), qualified.
    constants: HashMap<String, i64>,
    /// Qualified names of the enumerations.
    enums: std::collections::HashSet<String>,
}

impl TypeEnv {
    /// Records constant `name` (declared in `namespace`) with the value of `value`, which
    /// may name constants recorded before; `false` when it does not evaluate.
    pub fn add_constant(&mut self, name: &str, namespace: &[String], value: &str) -> bool {
        match self.eval(value, namespace) {
            Some(v) => {
                let qualified = if namespace.is_empty() {
                    name.to_owned()
                } else {
                    format!("{}::{name}", namespace.join("::"))
                };
                self.constants.insert(qualified, v);
                true
            }
            None => false,
        }
    }

    /// Records that `qualified` names an enumeration (its values are shown as `(E)1`).
    pub fn add_enum(&mut self, qualified: String) {
        self.enums.insert(qualified);
    }

    /// The enumeration `name` stands for, seen inside `namespace`, qualified.
    pub fn enum_named(&self, name: &str, namespace: &[String]) -> Option<String> {
        let name = name.trim().trim_start_matches("::");
        let name = name.strip_prefix("enum ").unwrap_or(name).trim();
        (0..=namespace.len())
            .rev()
            .map(|n| qualified_in(&namespace[..n], name))
            .find(|q| self.enums.contains(q))
    }

    /// Evaluates an integer constant expression seen inside `namespace`: literals,
    /// operators, and the constants recorded so far (looked up from the innermost
    /// namespace outwards).
    pub fn eval(&self, text: &str, namespace: &[String]) -> Option<i64> {
        crate::front::expr::eval_pp(text, &mut |name, _| match name {
            "true" => Some(1),
            "false" => Some(0),
            _ => (0..=namespace.len())
                .rev()
                .find_map(|n| self.constants.get(&qualified_in(&namespace[..n], name)))
                .copied(),
        })
    }
    /// Resolves `ty` seen inside `namespace`; `tparams` binds template type parameters.
    pub fn resolve(
        &self,
        ty: &TypeSyn,
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
    ) -> Result<Resolved, Diagnostic> {
        let (mut cur, mut quals) = match &ty.base {
            BaseSyn::Void => (CType::Void, Qualifiers::default()),
            BaseSyn::Scalar(s) => (CType::Scalar(*s), Qualifiers::default()),
            BaseSyn::Named(name) => self.named(name, namespace, tparams).ok_or_else(|| {
                if let Some(e) = name.strip_prefix("enum ") {
                    msg::unsupported_type(
                        &format!("enum {e}"),
                        "enums have no fixed layout here; use a fixed-width integer type",
                    )
                } else {
                    msg::unknown_type(name)
                }
                .at(ty.loc.clone())
            })?,
            BaseSyn::FnPtr => (CType::Scalar(Scalar::DeviceFn), Qualifiers::default()),
            BaseSyn::Array { elem, extents } => {
                // The elements' qualifiers are the array's (`const float (*)[2]`).
                let (inner, quals) = self.resolve(elem, namespace, tparams)?;
                let arr =
                    self.with_extents(inner, extents, &ty.written, ty.loc.clone(), namespace)?;
                (arr, quals)
            }
            BaseSyn::Inline(def) => {
                let name = def
                    .name
                    .clone()
                    .unwrap_or_else(|| "(anonymous struct)".to_string());
                (CType::Struct(name), Qualifiers::default())
            }
        };
        quals.is_const |= ty.base_quals.is_const;
        quals.is_volatile |= ty.base_quals.is_volatile;
        for q in &ty.ptrs {
            cur = CType::Pointer {
                pointee: Box::new(cur),
                pointee_quals: quals,
            };
            quals = *q;
        }
        Ok((cur, quals))
    }

    /// The type `name` stands for: a template parameter, a typedef or struct of an
    /// enclosing namespace (innermost first), or a header name.
    fn named(
        &self,
        name: &str,
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
    ) -> Option<Resolved> {
        if let Some(r) = tparams.get(name) {
            return Some(r.clone());
        }
        let name = name.trim_start_matches("::");
        if let Some(text) = super::templates::demangled_type(name) {
            let ty = crate::front::parse::type_from_text(&text)?;
            return self.resolve(&ty, namespace, tparams).ok();
        }
        if let Some((owner, member)) = name.rsplit_once("::")
            && let Some((base, args)) = super::templates::split_args(owner)
        {
            // A member type of a template's instance: `vec4<float>::Type`.
            for depth in (0..=namespace.len()).rev() {
                let mut q = namespace[..depth].join("::");
                if !q.is_empty() {
                    q.push_str("::");
                }
                q.push_str(base.trim_start_matches("::"));
                let key = self.canonical(&q, &args, namespace, tparams);
                if let Some(r) = key.and_then(|k| self.typedefs.get(&format!("{k}::{member}"))) {
                    return Some(r.clone());
                }
            }
        }
        if let Some((base, args)) = super::templates::split_args(name) {
            let base = base.trim_start_matches("::");
            for depth in (0..=namespace.len()).rev() {
                let mut q = namespace[..depth].join("::");
                if !q.is_empty() {
                    q.push_str("::");
                }
                q.push_str(base);
                if let Some((target, scope)) = self.expand_alias(&q, &args) {
                    let ty = crate::front::parse::type_from_text(&target)?;
                    return self.resolve(&ty, &scope, tparams).ok();
                }
                let found = self
                    .canonical(&q, &args, namespace, tparams)
                    .filter(|key| self.structs.contains(key));
                if let Some(key) = found {
                    return Some((CType::Struct(key), Qualifiers::default()));
                }
            }
        }
        for depth in (0..=namespace.len()).rev() {
            let mut q = namespace[..depth].join("::");
            if !q.is_empty() {
                q.push_str("::");
            }
            q.push_str(name);
            if let Some(r) = self.typedefs.get(&q) {
                return Some(r.clone());
            }
            if self.structs.contains(&q) {
                return Some((CType::Struct(q), Qualifiers::default()));
            }
        }
        header_type(name).map(|t| (t, Qualifiers::default()))
    }

    /// An environment with only these structs (no typedefs).
    pub fn with_structs(structs: Vec<StructDef>) -> Self {
        TypeEnv {
            structs: structs.into(),
            ..TypeEnv::default()
        }
    }

    /// Records `typedef <ty> name<extents>` declared in `namespace`.
    pub fn add_typedef(&mut self, qualified: String, resolved: Resolved) {
        self.typedefs.insert(qualified, resolved);
    }
}

/// `name` inside `namespace` (`a::b::name`).
fn qualified_in(namespace: &[String], name: &str) -> String {
    if namespace.is_empty() {
        name.to_owned()
    } else {
        format!("{}::{name}", namespace.join("::"))
    }
}
