//! The words of every message about a Rust kernel declaration that does not match
//! its CUDA declaration.
//!
//! Each function returns a [`Diagnostic`]; the caller sets the CUDA location with
//! [`Diagnostic::at`] and renders it at the span of the Rust declaration.

use super::Diagnostic;

/// A kernel declared in Rust that the CUDA source does not define.
pub fn kernel_not_found(name: &str, available: &[String]) -> Diagnostic {
    let d = Diagnostic::error(format!(
        "kernel `{name}` is declared in Rust but not defined in the CUDA source"
    ));
    if available.is_empty() {
        d.note("the CUDA source defines no kernel")
    } else {
        let list: Vec<String> = available.iter().map(|k| format!("`{k}`")).collect();
        d.note(format!("the CUDA source defines: {}", list.join(", ")))
    }
}

/// Parameter counts differ.
pub fn param_count(kernel: &str, cuda: usize, rust: usize) -> Diagnostic {
    param_count_of(Callee::KERNEL, kernel, cuda, rust)
}

/// What a declaration declares, as the messages name it: a kernel (here) or a host function
/// (`host_functions!`, [`super::host`]); the messages of both are these.
#[derive(Clone, Copy)]
pub(super) struct Callee {
    /// `kernel`, `host function`.
    pub(super) what: &'static str,
    /// Who writes through a pointer: `the kernel`, `the function`.
    pub(super) who: &'static str,
}

impl Callee {
    pub(super) const KERNEL: Callee = Callee {
        what: "kernel",
        who: "the kernel",
    };
}

pub(super) fn param_count_of(c: Callee, name: &str, cuda: usize, rust: usize) -> Diagnostic {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    Diagnostic::error(format!(
        "{} `{name}` takes {cuda} parameter{} in CUDA but {rust} in the Rust declaration",
        c.what,
        plural(cuda)
    ))
}

/// `<what> `name`, parameter `param`: Rust type `rust` does not match CUDA type `cuda``, with no
/// note.
pub(super) fn differs_of(c: Callee, name: &str, param: &str, rust: &str, cuda: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "{} `{name}`, parameter `{param}`: Rust type `{rust}` does not match CUDA type `{cuda}`",
        c.what
    ))
}

/// A parameter's Rust type is not the one the CUDA type maps to.
pub fn type_mismatch(
    kernel: &str,
    param: &str,
    rust: &str,
    cuda: &str,
    expected: &str,
) -> Diagnostic {
    differs_of(Callee::KERNEL, kernel, param, rust, cuda)
        .note(format!("CUDA `{cuda}` is `{expected}` in Rust"))
}

/// Const-ness differs: a shared borrow for a pointer the kernel may write through,
/// or an exclusive borrow for a `const` pointer.
pub fn const_mismatch(
    kernel: &str,
    param: &str,
    rust: &str,
    cuda: &str,
    expected: &str,
) -> Diagnostic {
    const_mismatch_of(Callee::KERNEL, kernel, param, rust, cuda, expected)
}

pub(super) fn const_mismatch_of(
    c: Callee,
    name: &str,
    param: &str,
    rust: &str,
    cuda: &str,
    expected: &str,
) -> Diagnostic {
    let who = c.who;
    let why = if expected.starts_with("&mut") || expected.starts_with("*mut") {
        format!("`{rust}` is read-only but CUDA `{cuda}` is not const ({who} may write through it)")
    } else {
        format!("`{rust}` is exclusive but CUDA `{cuda}` is const ({who} only reads through it)")
    };
    Diagnostic::error(format!(
        "{} `{name}`, parameter `{param}`: const-ness differs: {why}",
        c.what
    ))
    .note(format!("declare it as `{expected}`"))
}

/// A struct parameter declared with a Rust type that is not the struct's.
pub fn struct_mismatch(kernel: &str, param: &str, rust: &str, cuda: &str) -> Diagnostic {
    not_struct_of(Callee::KERNEL, kernel, param, rust, cuda).note(format!(
        "use the generated `{}`, which has the CUDA layout",
        cuda.replace("::", "_")
    ))
}

/// `<what> `name`, parameter `param`: Rust type `rust` is not CUDA struct `cuda``, with no note.
pub(super) fn not_struct_of(
    c: Callee,
    name: &str,
    param: &str,
    rust: &str,
    cuda: &str,
) -> Diagnostic {
    Diagnostic::error(format!(
        "{} `{name}`, parameter `{param}`: Rust type `{rust}` is not CUDA struct `{cuda}`",
        c.what
    ))
}

/// A Rust type that no CUDA parameter maps to.
pub fn unsupported_rust_type(kernel: &str, param: &str, rust: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}`, parameter `{param}`: Rust type `{rust}` cannot be a kernel parameter"
    ))
    .note(
        "use a scalar (`f32`, `i32`, ...), `half::f16`, a vector type (`Float2`), a generated struct, \
         `&[T]` / `&mut [T]` for `const T*` / `T*`, or `RawDevicePtr` for `void*` and `T**`",
    )
}

/// A declaration with a return type.
pub fn returns_value(kernel: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}`: a kernel returns nothing; remove the return type"
    ))
}

/// Generic parameters that do not fit a template's arguments.
pub fn generics_mismatch(kernel: &str, rust: usize, instance: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` is declared with {rust} type parameter(s), which cannot name the CUDA instantiation `{instance}`"
    ))
    .note("declare one Rust type parameter per template type argument; templates with value arguments cannot be declared generically")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_not_found_lists_the_kernels_defined() {
        let d = kernel_not_found("sacpy", &["saxpy".into()]);
        assert_eq!(
            d.message,
            "kernel `sacpy` is declared in Rust but not defined in the CUDA source"
        );
        assert_eq!(d.notes, ["the CUDA source defines: `saxpy`"]);
    }

    #[test]
    fn param_count_compares_cuda_with_rust() {
        let d = param_count("saxpy", 4, 3);
        assert_eq!(
            d.message,
            "kernel `saxpy` takes 4 parameters in CUDA but 3 in the Rust declaration"
        );
    }

    #[test]
    fn type_mismatch_gives_the_rust_type_of_the_cuda_type() {
        let d = type_mismatch("saxpy", "a", "f64", "float", "f32");
        assert_eq!(
            d.message,
            "kernel `saxpy`, parameter `a`: Rust type `f64` does not match CUDA type `float`"
        );
        assert_eq!(d.notes, ["CUDA `float` is `f32` in Rust"]);
    }

    #[test]
    fn const_mismatch_says_the_kernel_may_write() {
        let d = const_mismatch("saxpy", "y", "&[f32]", "float*", "&mut [f32]");
        assert!(d.message.contains("read-only"));
        assert!(d.message.contains("may write through it"));
    }

    #[test]
    fn struct_mismatch_names_both_structs() {
        let d = struct_mismatch("k", "p", "Params", "P");
        assert_eq!(
            d.message,
            "kernel `k`, parameter `p`: Rust type `Params` is not CUDA struct `P`"
        );
    }

    #[test]
    fn unsupported_rust_type_names_the_type() {
        let d = unsupported_rust_type("k", "s", "String");
        assert!(d.message.contains("`String`"));
    }

    #[test]
    fn returns_value_mentions_the_return() {
        let d = returns_value("k");
        assert!(d.message.contains("return"));
    }

    #[test]
    fn generics_mismatch_names_the_instantiation() {
        let d = generics_mismatch("axpy", 1, "axpy<float, 4>");
        assert!(d.message.contains("axpy<float, 4>"));
    }
}
