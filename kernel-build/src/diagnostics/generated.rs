//! Messages of the generated-kernel macros (`elementwise!`, `reduction!`, `scan!`).

/// A parameter or result type the generators do not take.
///
/// ```
/// let m = cuda_kernel_build::__private::diagnostics::generated::unsupported_type("usize");
/// assert!(m.contains("`usize`"));
/// ```
pub fn unsupported_type(ty: &str) -> String {
    format!(
        "`{ty}` is not an element type of a generated kernel: use `f16`, `bf16`, `f32`, `f64`, `i8`..`i64`, `u8`..`u64` (or the function's type parameter), `&[T]` for a slice it reads, `&mut [T]` for one it writes"
    )
}

/// A part a generator needs is missing.
///
/// ```
/// let m = cuda_kernel_build::__private::diagnostics::generated::missing_part("norm", "map", "reduction!");
/// assert!(m.contains("`map = \"...\";`"));
/// ```
pub fn missing_part(function: &str, part: &str, macro_name: &str) -> String {
    format!("`{function}` needs `{part} = \"...\";` ({macro_name})")
}

/// A key a generator does not know.
///
/// ```
/// let m = cuda_kernel_build::__private::diagnostics::generated::unknown_part("k", "mapp", &["map", "reduce"]);
/// assert!(m.contains("`mapp`") && m.contains("`map`, `reduce`"));
/// ```
pub fn unknown_part(function: &str, key: &str, known: &[&str]) -> String {
    let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    format!(
        "`{function}`: unknown part `{key}`; this macro takes {}",
        known.join(", ")
    )
}

/// The body has the wrong form for the macro.
///
/// ```
/// let m = cuda_kernel_build::__private::diagnostics::generated::wrong_form("k", "elementwise!");
/// assert!(m.contains("= \""));
/// ```
pub fn wrong_form(function: &str, macro_name: &str) -> String {
    match macro_name {
        "elementwise!" => format!(
            "`{function}`: an elementwise kernel is one statement: `fn {function}(...) = \"y[i] = ...\";`"
        ),
        _ => format!(
            "`{function}`: {macro_name} takes its parts in braces: `fn {function}(...) {{ key = \"...\"; ... }}`"
        ),
    }
}

/// Something about the signature does not fit the macro.
///
/// ```
/// let m = cuda_kernel_build::__private::diagnostics::generated::signature("k", "a reduction returns its value: `-> f32`");
/// assert!(m.starts_with("`k`: "));
/// ```
pub fn signature(function: &str, problem: &str) -> String {
    format!("`{function}`: {problem}")
}

/// The compiler rejected a part of an expression.
///
/// ```
/// let m = cuda_kernel_build::__private::diagnostics::generated::compiler_rejects("axpy", "body", "error: identifier \"z\" is undefined");
/// assert!(m.contains("the body of `axpy`"));
/// ```
pub fn compiler_rejects(function: &str, part: &str, output: &str) -> String {
    format!("the CUDA compiler rejects the {part} of `{function}`:\n{output}")
}
