//! Class templates laid out for the argument lists kernels name: `pair<float>` is the
//! template's body with `T = float`, recorded as a struct of that name (full
//! specializations such as `template <> struct vec4<float>` are structs of their own
//! under the same kind of name, and win over the template).
//!
//! Names are canonical: `pair< float >`, `pair<float>` and, inside a template kernel
//! with `T = float`, `pair<T>` all name the struct `pair<float>`; value arguments are
//! evaluated (`arr<int, 2 * 2>` is `arr<int, 4>`).

use std::collections::HashMap;

use super::{Resolved, TypeEnv, c_spelling};
use crate::diagnostics::{Diagnostic, front as msg};
use crate::front::expr::eval_pp;
use crate::front::parse::{BaseSyn, StructSyn, TParam, TypeSyn, type_from_text};

/// How deep templates may name templates in their fields.
const MAX_NESTING: usize = 16;

/// A class template as written.
#[derive(Clone, Debug)]
pub struct StructTemplate {
    /// Its qualified name.
    name: String,
    params: Vec<TParam>,
    def: StructSyn,
}

/// An alias template as written.
#[derive(Clone, Debug)]
pub struct AliasTemplate {
    /// Its qualified name.
    name: String,
    namespace: Vec<String>,
    params: Vec<TParam>,
    target: String,
}

/// `text` with each identifier that `map` holds replaced by its value.
pub fn replace_words(text: &str, map: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match map.get(word.as_str()) {
            Some(v) => out.push_str(v),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The C++ spelling of a type nvcc's host stub writes mangled (`_Z11AsianOptionIfE`,
/// an instance of a class, alias or member template): demangled as the parameter of a
/// made-up function.
pub(crate) fn demangled_type(name: &str) -> Option<String> {
    let mangled = name.strip_prefix("_Z")?;
    let d = crate::front::demangle::demangle(&format!("_Z1f{mangled}"))?;
    match d.params.as_slice() {
        [text] => Some(text.clone()),
        _ => None,
    }
}

/// `base<a, b<c>>` split into `base` and the top-level arguments' texts.
pub(super) fn split_args(name: &str) -> Option<(&str, Vec<&str>)> {
    let open = name.find('<')?;
    let inner = name.strip_suffix('>')?.get(open + 1..)?;
    let mut args = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                args.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return None;
    }
    if !inner[start..].trim().is_empty() {
        args.push(inner[start..].trim());
    }
    Some((name[..open].trim(), args))
}

/// The spelling of a resolved type as a template argument.
fn type_key((ty, quals): &Resolved) -> String {
    let s = c_spelling(ty);
    if quals.is_const {
        format!("const {s}")
    } else {
        s
    }
}

impl super::named::HasName for StructTemplate {
    fn name(&self) -> &str {
        &self.name
    }
}

impl super::named::HasName for AliasTemplate {
    fn name(&self) -> &str {
        &self.name
    }
}

impl TypeEnv {
    /// Records a class template declared as `qualified`.
    pub fn add_struct_template(&mut self, qualified: String, params: Vec<TParam>, def: StructSyn) {
        self.templates.define(StructTemplate {
            name: qualified,
            params,
            def,
        });
    }

    /// Records an alias template declared as `qualified` in `namespace`.
    pub fn add_alias_template(
        &mut self,
        qualified: String,
        namespace: Vec<String>,
        params: Vec<TParam>,
        target: String,
    ) {
        self.aliases.define(AliasTemplate {
            name: qualified,
            namespace,
            params,
            target,
        });
    }

    /// What the alias template `qualified` stands for with `args`, and the namespace to
    /// read it in.
    pub(super) fn expand_alias(
        &self,
        qualified: &str,
        args: &[&str],
    ) -> Option<(String, Vec<String>)> {
        let a = self.aliases.get(qualified)?;
        let mut map = HashMap::new();
        for (i, tp) in a.params.iter().enumerate() {
            let arg = match (args.get(i), &tp.default) {
                (Some(arg), _) => arg.to_string(),
                (None, Some(d)) => d.text.clone(),
                (None, None) => return None,
            };
            map.insert(tp.name.clone(), arg);
        }
        Some((replace_words(&a.target, &map), a.namespace.clone()))
    }

    /// The canonical name a full specialization declared as `qualified`
    /// (`vec4<float>`, its arguments read in `namespace`) is known by.
    pub fn specialization_name(&self, qualified: &str, namespace: &[String]) -> Option<String> {
        let (base, args) = split_args(qualified)?;
        self.canonical(base, &args, namespace, &HashMap::new())
    }

    /// The canonical name of `base<args>` seen as `qualified_base` (`None` when an
    /// argument is neither a type nor a constant the front end can read).
    pub(super) fn canonical(
        &self,
        qualified_base: &str,
        args: &[&str],
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
    ) -> Option<String> {
        let keys: Option<Vec<String>> = args
            .iter()
            .map(|a| self.arg_key(a, namespace, tparams, &HashMap::new()))
            .collect();
        Some(format!("{qualified_base}<{}>", keys?.join(", ")))
    }

    /// One argument's canonical spelling: a type's C spelling or a constant's value.
    fn arg_key(
        &self,
        arg: &str,
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
        values: &HashMap<String, i64>,
    ) -> Option<String> {
        if let Some(v) = values.get(arg) {
            return Some(v.to_string());
        }
        if matches!(arg, "true" | "false") {
            return Some(arg.to_owned());
        }
        if let Some(ty) = type_from_text(arg)
            && let Ok(r) = self.resolve(&ty, namespace, tparams)
        {
            return Some(type_key(&r));
        }
        eval_pp(arg, &mut |name, _| match name {
            "true" => Some(1),
            "false" => Some(0),
            _ => values.get(name).copied(),
        })
        .map(|v| v.to_string())
    }

    /// Lays out every class template `ty` names (`pair<T>*` with `T` bound in
    /// `tparams`), so that resolving `ty` finds them; a template that cannot be laid out
    /// is left alone (resolving then reports the type as unknown).
    pub fn instantiate_in(
        &mut self,
        ty: &TypeSyn,
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
    ) {
        if let BaseSyn::Named(name) = &ty.base {
            let _ = self.instantiate_named(name, namespace, tparams, 0);
        }
    }

    /// [`instantiate_in`](Self::instantiate_in) for one name.
    fn instantiate_named(
        &mut self,
        name: &str,
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
        nesting: usize,
    ) -> Result<(), Diagnostic> {
        if let Some(text) = demangled_type(name) {
            return self.instantiate_named(&text, namespace, tparams, nesting + 1);
        }
        let Some((base, args)) = split_args(name.trim_start_matches("struct ")) else {
            return Ok(());
        };
        if nesting > MAX_NESTING {
            return Err(crate::diagnostics::front::templates_too_deep(name));
        }
        // Arguments that are templates themselves come first.
        for a in &args {
            if a.contains('<') {
                let _ = self.instantiate_named(a, namespace, tparams, nesting + 1);
            }
        }
        let base = base.trim_start_matches("::");
        for depth in (0..=namespace.len()).rev() {
            let mut q = namespace[..depth].join("::");
            if !q.is_empty() {
                q.push_str("::");
            }
            q.push_str(base);
            if let Some((target, scope)) = self.expand_alias(&q, &args) {
                return self.instantiate_named(&target, &scope, tparams, nesting + 1);
            }
            let Some(key) = self.canonical(&q, &args, namespace, tparams) else {
                continue;
            };
            if self.structs.contains(&key) || self.in_progress.contains(&key) {
                return Ok(());
            }
            let Some(t) = self.templates.get(&q).cloned() else {
                continue;
            };
            self.in_progress.push(key.clone());
            let out = self.lay_out(&t, key, &args, namespace, tparams, nesting);
            self.in_progress.pop();
            return out;
        }
        Ok(())
    }

    /// Binds `t`'s parameters to `args` (read at the use site) and lays out its body.
    fn lay_out(
        &mut self,
        t: &StructTemplate,
        key: String,
        args: &[&str],
        namespace: &[String],
        tparams: &HashMap<String, Resolved>,
        nesting: usize,
    ) -> Result<(), Diagnostic> {
        let mut bound: HashMap<String, Resolved> = HashMap::new();
        let mut values: HashMap<String, i64> = HashMap::new();
        let bad = |why: String| msg::template_args(&key, &why).at(t.def.loc.clone());
        for (i, tp) in t.params.iter().enumerate() {
            // An explicit argument is read where it is written, a default in the template.
            let (text, scope, binds) = match (args.get(i), &tp.default) {
                (Some(a), _) => (a.to_string(), namespace, tparams),
                (None, Some(d)) => (d.text.clone(), t.def.namespace.as_slice(), &bound),
                (None, None) => return Err(bad(format!("no argument for `{}`", tp.name))),
            };
            if tp.is_type {
                let ty = type_from_text(&text)
                    .ok_or_else(|| bad(format!("`{text}` is not a type for `{}`", tp.name)))?;
                let r = self.resolve(&ty, scope, binds)?;
                bound.insert(tp.name.clone(), r);
            } else {
                let v = self
                    .arg_key(&text, scope, binds, &values)
                    .and_then(|k| match k.as_str() {
                        "true" => Some(1),
                        "false" => Some(0),
                        k => k.parse().ok(),
                    })
                    .ok_or_else(|| bad(format!("`{text}` for `{}` is not a constant", tp.name)))?;
                values.insert(tp.name.clone(), v);
            }
        }
        // Member types the fields may name, in declaration order (one may name another).
        for (name, ty) in &t.def.member_types {
            if let Ok(r) = self.resolve(ty, &t.def.namespace, &bound) {
                bound.insert(name.clone(), r);
            }
        }
        let mut def = t.def.clone();
        def.name = Some(key.clone());
        for f in &mut def.fields {
            for e in &mut f.extents {
                if let Some(v) = eval_pp(e, &mut |name, _| values.get(name).copied()) {
                    *e = v.to_string();
                }
            }
            if let BaseSyn::Named(n) = &f.ty.base
                && n.contains('<')
            {
                let _ = self.instantiate_named(n, &def.namespace, &bound, nesting + 1);
            }
        }
        self.add_struct_with(&def, key, &bound)
    }
}

#[cfg(test)]
mod tests {
    use super::{TypeEnv, replace_words, split_args};

    #[test]
    fn arguments_split_at_the_top_level_only() {
        assert_eq!(
            split_args("pair<map<int, float>, 4>"),
            Some(("pair", vec!["map<int, float>", "4"]))
        );
        assert_eq!(split_args("plain"), None);
        assert_eq!(split_args("vec4<T>::Type"), None);
        assert_eq!(split_args("bad<(>"), None);
    }

    #[test]
    fn replace_words_replaces_whole_words_only() {
        use std::collections::HashMap;
        let map = HashMap::from([("B".to_string(), "true".to_string())]);
        assert_eq!(replace_words("flag<B, BB>", &map), "flag<true, BB>");
    }

    #[test]
    fn specialization_names_are_normalised_and_evaluated() {
        assert_eq!(
            TypeEnv::default()
                .specialization_name("v< unsigned int, 2*2 >", &[])
                .as_deref(),
            Some("v<unsigned int, 4>")
        );
    }
}
