//! Messages about kernels tuned over declared variants (`tune NAME { ... }` in
//! `cuda_module!`, `Build::tune`): the declaration itself, the kernel it names in the
//! source, the variants the compiler left out, and the signature they share. Every one
//! starts with ``tuned kernel `NAME` `` so that the macro reports it at the declaration.

/// The words every message starts with.
pub fn about(kernel: &str) -> String {
    format!("tuned kernel `{kernel}`")
}

/// What is wrong with a tuned kernel's declaration: found where it is given (`Build::tune`,
/// the macro's `tune` item) or once the source is read, and worded by
/// [`message`](TuneFault::message) once it is known, so that the checks hold data and this
/// catalog alone holds the words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TuneFault {
    /// A name that cannot name a kernel.
    BadKernel,
    /// One kernel declared twice.
    Twice,
    /// An axis whose name is not an identifier, or is one of the declaration's keys.
    BadAxis { axis: String },
    /// An axis given twice.
    AxisTwice { axis: String },
    /// An axis with no value.
    NoValues { axis: String },
    /// A value that cannot be a template argument or a launch value.
    BadValue { axis: String, value: String },
    /// A value given twice on one axis.
    ValueTwice { axis: String, value: String },
    /// A declaration with no variants.
    NoVariants,
    /// Axes with values and a list of variants in one declaration.
    BothForms,
    /// A listed variant that is not `AXIS=VALUE` pairs.
    BadListed { text: String },
    /// A listed variant whose axes differ from the first one's.
    ListedAxesDiffer { text: String, first: Vec<String> },
    /// Two variants with one name.
    VariantTwice { name: String },
    /// More variants than a declaration may have.
    TooMany { count: usize, max: usize },
    /// A launch rule missing.
    MissingRule { rule: &'static str },
    /// A rule that does not read as one.
    BadRule {
        rule: &'static str,
        text: String,
        why: String,
    },
    /// A rule naming what is neither an axis nor an integer parameter.
    UnknownName {
        rule: &'static str,
        text: String,
        name: String,
        params: Vec<String>,
    },
    /// The kernel is not in the source.
    NoKernel { module: String, near: Vec<String> },
    /// A template parameter no axis gives.
    MissingAxis { param: String },
    /// An axis neither a template parameter nor read by a rule.
    UnusedAxis { axis: String },
    /// Tuned kernels in a module compiled at run time.
    CompiledAtRunTime,
    /// A launch axis (no template parameter) whose value is no integer.
    LaunchValue { axis: String, value: String },
}

impl TuneFault {
    /// The message for this fault of the declaration of `kernel`.
    pub fn message(&self, kernel: &str) -> String {
        let about = about(kernel);
        match self {
            TuneFault::BadKernel => {
                format!("{about}: not a kernel name (an identifier, or one qualified by `::`)")
            }
            TuneFault::Twice => format!("{about} is declared twice"),
            TuneFault::BadAxis { axis } => format!(
                "{about}: `{axis}` cannot name an axis (an identifier other than `block`, `grid`, `shared` and `variants`)"
            ),
            TuneFault::AxisTwice { axis } => format!("{about}: axis `{axis}` is given twice"),
            TuneFault::NoValues { axis } => format!("{about}: axis `{axis}` lists no value"),
            TuneFault::BadValue { axis, value } => format!(
                "{about}: `{value}` for axis `{axis}` is neither an integer nor a type name"
            ),
            TuneFault::ValueTwice { axis, value } => {
                format!("{about}: axis `{axis}` lists `{value}` twice")
            }
            TuneFault::NoVariants => format!(
                "{about} declares no variant: give each axis its values (`BLOCK = [128, 256];`) or list the variants (`variants = [\"BLOCK=128 ITEMS=4\"];`)"
            ),
            TuneFault::BothForms => format!(
                "{about}: give the axes' values (every combination is a variant) or a list of variants, not both"
            ),
            TuneFault::BadListed { text } => format!(
                "{about}: `{text}` is not a variant: expected `AXIS=VALUE` pairs separated by spaces or commas"
            ),
            TuneFault::ListedAxesDiffer { text, first } => format!(
                "{about}: variant `{text}` does not give exactly the axes of the first variant ({})",
                first.join(", ")
            ),
            TuneFault::VariantTwice { name } => {
                format!("{about}: variant `{name}` is declared twice")
            }
            TuneFault::TooMany { count, max } => format!(
                "{about} has {count} variants, more than {max}: each is compiled into the module and timed"
            ),
            TuneFault::MissingRule { rule } => {
                let example = if *rule == "grid" {
                    "grid = \"n.div_ceil(BLOCK * ITEMS)\""
                } else {
                    "block = \"BLOCK\""
                };
                format!(
                    "{about} has no `{rule}` rule: give the launch's {rule} as an expression of the axes and the kernel's integer parameters (`{example}`)"
                )
            }
            TuneFault::BadRule { rule, text, why } => format!(
                "{about}: the `{rule}` rule `{text}` {why}; a rule takes integers, the axes, the kernel's integer parameters, `+ - * / %`, parentheses and `.div_ceil(..)`, `.min(..)`, `.max(..)`, and for `grid` and `block` a tuple of up to three dimensions"
            ),
            TuneFault::UnknownName {
                rule,
                text,
                name,
                params,
            } => {
                let params = if params.is_empty() {
                    "it has none".to_owned()
                } else {
                    format!("it has {}", quoted(params))
                };
                format!(
                    "{about}: the `{rule}` rule `{text}` reads `{name}`, which is neither an axis nor an integer parameter of the kernel ({params})"
                )
            }
            TuneFault::NoKernel { module, near } => {
                let near = if near.is_empty() {
                    String::new()
                } else {
                    format!("; its kernels: {}", quoted(near))
                };
                format!(
                    "{about} is not a kernel of module `{module}` as its source reads without preprocessing{near}"
                )
            }
            TuneFault::MissingAxis { param } => {
                format!("{about}: template parameter `{param}` has no axis: add `{param} = [...];`")
            }
            TuneFault::UnusedAxis { axis } => format!(
                "{about}: axis `{axis}` is neither a template parameter of the kernel nor read by a rule"
            ),
            TuneFault::CompiledAtRunTime => format!(
                "{about}: a module compiled at run time (`compile`/`fallback = \"runtime\"`, `Build::runtime`) cannot tune kernels over declared variants: they are instantiated and checked when nvcc builds the module"
            ),
            TuneFault::LaunchValue { axis, value } => format!(
                "{about}: axis `{axis}` is no template parameter of the kernel, so its values are launch values, and `{value}` is no integer"
            ),
        }
    }
}

/// A value of the macro's `tune` item that is none of the forms an axis takes.
pub fn value_form() -> String {
    "an axis's value is an integer, `true`, `false`, or a type's name in a string (`\"float\"`)"
        .to_owned()
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
    use super::TuneFault;

    #[test]
    fn every_message_names_the_kernel_first() {
        let k = "ops::sum";
        let grid = TuneFault::MissingRule { rule: "grid" };
        for m in [
            TuneFault::BadKernel.message(k),
            TuneFault::NoVariants.message(k),
            grid.message(k),
            TuneFault::UnknownName {
                rule: "grid",
                text: "m / B".into(),
                name: "m".into(),
                params: vec!["n".into()],
            }
            .message(k),
            super::left_out(k, "b1024", &["compute_80".into()], "too much shared data"),
        ] {
            assert!(m.starts_with("tuned kernel `ops::sum`"), "{m}");
        }
        assert!(grid.message(k).contains("grid = \"n.div_ceil"));
    }
}
