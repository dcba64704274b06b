//! Messages about kernels tuned over declared variants (`tune NAME { ... }` in
//! `cuda_module!`, `Build::tune`): the declaration itself, the kernel it names in the
//! source, the variants the compiler left out, and the signature they share. Every one
//! starts with ``tuned kernel `NAME` `` so that the macro reports it at the declaration.

/// The words every message starts with.
pub fn about(kernel: &str) -> String {
    format!("tuned kernel `{kernel}`")
}

/// A name that cannot name a kernel.
pub fn bad_kernel(kernel: &str) -> String {
    format!(
        "{}: not a kernel name (an identifier, or one qualified by `::`)",
        about(kernel)
    )
}

/// One kernel declared twice.
pub fn twice(kernel: &str) -> String {
    format!("{} is declared twice", about(kernel))
}

/// An axis whose name is not an identifier, or is one of the declaration's keys.
pub fn bad_axis(kernel: &str, axis: &str) -> String {
    format!(
        "{}: `{axis}` cannot name an axis (an identifier other than `block`, `grid`, `shared` and `variants`)",
        about(kernel)
    )
}

/// An axis given twice.
pub fn axis_twice(kernel: &str, axis: &str) -> String {
    format!("{}: axis `{axis}` is given twice", about(kernel))
}

/// An axis with no value.
pub fn no_values(kernel: &str, axis: &str) -> String {
    format!("{}: axis `{axis}` lists no value", about(kernel))
}

/// A value that cannot be a template argument or a launch value.
pub fn bad_value(kernel: &str, axis: &str, value: &str) -> String {
    format!(
        "{}: `{value}` for axis `{axis}` is neither an integer nor a type name",
        about(kernel)
    )
}

/// A value of the macro's `tune` item that is none of the forms an axis takes.
pub fn value_form() -> String {
    "an axis's value is an integer, `true`, `false`, or a type's name in a string (`\"float\"`)"
        .to_owned()
}

/// A value given twice on one axis.
pub fn value_twice(kernel: &str, axis: &str, value: &str) -> String {
    format!("{}: axis `{axis}` lists `{value}` twice", about(kernel))
}

/// A declaration with no variants.
pub fn no_variants(kernel: &str) -> String {
    format!(
        "{} declares no variant: give each axis its values (`BLOCK = [128, 256];`) or list the variants (`variants = [\"BLOCK=128 ITEMS=4\"];`)",
        about(kernel)
    )
}

/// Axes with values and a list of variants in one declaration.
pub fn both_forms(kernel: &str) -> String {
    format!(
        "{}: give the axes' values (every combination is a variant) or a list of variants, not both",
        about(kernel)
    )
}

/// A listed variant that is not `AXIS=VALUE` pairs.
pub fn bad_listed(kernel: &str, text: &str) -> String {
    format!(
        "{}: `{text}` is not a variant: expected `AXIS=VALUE` pairs separated by spaces or commas",
        about(kernel)
    )
}

/// A listed variant whose axes differ from the first one's.
pub fn listed_axes_differ(kernel: &str, text: &str, first: &[String]) -> String {
    format!(
        "{}: variant `{text}` does not give exactly the axes of the first variant ({})",
        about(kernel),
        first.join(", ")
    )
}

/// Two variants with one name.
pub fn variant_twice(kernel: &str, name: &str) -> String {
    format!("{}: variant `{name}` is declared twice", about(kernel))
}

/// More variants than a declaration may have.
pub fn too_many(kernel: &str, count: usize, max: usize) -> String {
    format!(
        "{} has {count} variants, more than {max}: each is compiled into the module and timed",
        about(kernel)
    )
}

/// A launch rule missing.
pub fn missing_rule(kernel: &str, rule: &str) -> String {
    let example = if rule == "grid" {
        "grid = \"n.div_ceil(BLOCK * ITEMS)\""
    } else {
        "block = \"BLOCK\""
    };
    format!(
        "{} has no `{rule}` rule: give the launch's {rule} as an expression of the axes and the kernel's integer parameters (`{example}`)",
        about(kernel)
    )
}

/// A rule that does not read as one.
pub fn bad_rule(kernel: &str, rule: &str, text: &str, why: &str) -> String {
    format!(
        "{}: the `{rule}` rule `{text}` {why}; a rule takes integers, the axes, the kernel's integer parameters, `+ - * / %`, parentheses and `.div_ceil(..)`, `.min(..)`, `.max(..)`, and for `grid` and `block` a tuple of up to three dimensions",
        about(kernel)
    )
}

/// A rule naming what is neither an axis nor an integer parameter.
pub fn unknown_name(kernel: &str, rule: &str, text: &str, name: &str, params: &[String]) -> String {
    let params = if params.is_empty() {
        "it has none".to_owned()
    } else {
        format!("it has {}", quoted(params))
    };
    format!(
        "{}: the `{rule}` rule `{text}` reads `{name}`, which is neither an axis nor an integer parameter of the kernel ({params})",
        about(kernel)
    )
}

/// The kernel is not in the source.
pub fn no_kernel(kernel: &str, module: &str, near: &[String]) -> String {
    let near = if near.is_empty() {
        String::new()
    } else {
        format!("; its kernels: {}", quoted(near))
    };
    format!(
        "{} is not a kernel of module `{module}` as its source reads without preprocessing{near}",
        about(kernel)
    )
}

/// A template parameter no axis gives.
pub fn missing_axis(kernel: &str, param: &str) -> String {
    format!(
        "{}: template parameter `{param}` has no axis: add `{param} = [...];`",
        about(kernel)
    )
}

/// An axis neither a template parameter nor read by a rule.
pub fn unused_axis(kernel: &str, axis: &str) -> String {
    format!(
        "{}: axis `{axis}` is neither a template parameter of the kernel nor read by a rule",
        about(kernel)
    )
}

/// Tuned kernels in a module compiled at run time.
pub fn compiled_at_run_time(kernel: &str) -> String {
    format!(
        "{}: a module compiled at run time (`compile`/`fallback = \"runtime\"`, `Build::runtime`) cannot tune kernels over declared variants: they are instantiated and checked when nvcc builds the module",
        about(kernel)
    )
}

/// A launch axis (no template parameter) whose value is no integer.
pub fn launch_value(kernel: &str, axis: &str, value: &str) -> String {
    format!(
        "{}: axis `{axis}` is no template parameter of the kernel, so its values are launch values, and `{value}` is no integer",
        about(kernel)
    )
}

/// A variant's values that make no instantiation the front end could type.
pub fn untyped_variant(kernel: &str, variant: &str, instance: &str) -> String {
    format!(
        "{}: variant `{variant}` has no typed kernel `{instance}` (the front end could not type the instantiation)",
        about(kernel)
    )
}

/// Variants whose kernels take different types.
pub fn signatures_differ(kernel: &str, a: &str, b: &str, param: &str) -> String {
    format!(
        "{}: variants `{a}` and `{b}` take different types for parameter `{param}`; the entry point takes one signature, so an axis may not change a parameter's type",
        about(kernel)
    )
}

/// A rule reading a parameter that is not an integer.
pub fn not_integer(kernel: &str, rule: &str, text: &str, param: &str, c_type: &str) -> String {
    format!(
        "{}: the `{rule}` rule `{text}` reads `{param}`, a `{c_type}`, not an integer",
        about(kernel)
    )
}

/// The entry point's name is taken.
pub fn method_taken(kernel: &str, method: &str) -> String {
    format!(
        "{}: its entry point `{method}` would have the name of another method of the module",
        about(kernel)
    )
}

/// No variant compiled for any target.
pub fn nothing_compiles(kernel: &str, why: &[String]) -> String {
    format!(
        "no variant of {} compiles for any target:\n  {}",
        about(kernel),
        why.join("\n  ")
    )
}

/// A variant left out of some targets: a warning of the build.
pub fn left_out(kernel: &str, variant: &str, archs: &[String], why: &str) -> String {
    format!(
        "{}: variant `{variant}` is left out of {} (it does not compile there: {why})",
        about(kernel),
        archs.join(", ")
    )
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_message_names_the_kernel_first() {
        let k = "ops::sum";
        for m in [
            super::bad_kernel(k),
            super::no_variants(k),
            super::missing_rule(k, "grid"),
            super::unknown_name(k, "grid", "m / B", "m", &["n".into()]),
            super::left_out(k, "b1024", &["compute_80".into()], "too much shared data"),
        ] {
            assert!(m.contains("tuned kernel `ops::sum`"), "{m}");
        }
        assert!(super::missing_rule(k, "grid").contains("grid = \"n.div_ceil"));
    }
}
