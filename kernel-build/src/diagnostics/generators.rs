//! Messages of the generated-kernel macros (`elementwise!`, `reduction!`, `scan!`).

/// A parameter or result type the generators do not take.
pub fn unsupported_type(ty: &str) -> String {
    format!(
        "`{ty}` is not an element type of a generated kernel: use `f16`, `bf16`, `f32`, `f64`, `i8`..`i64`, `u8`..`u64` (or the function's type parameter), `&[T]` for a slice it reads, `&mut [T]` for one it writes"
    )
}

/// A part a generator needs is missing.
pub fn missing_part(function: &str, part: &str, macro_name: &str) -> String {
    format!("`{function}` needs `{part} = \"...\";` ({macro_name})")
}

/// A key a generator does not know.
pub fn unknown_part(function: &str, key: &str, known: &[&str]) -> String {
    let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    format!(
        "`{function}`: unknown part `{key}`; this macro takes {}",
        known.join(", ")
    )
}

/// The body has the wrong form for the macro.
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
pub fn signature(function: &str, problem: &str) -> String {
    format!("`{function}`: {problem}")
}

/// The compiler rejected a part of an expression.
pub fn compiler_rejects(function: &str, part: &str, output: &str) -> String {
    format!("the CUDA compiler rejects the {part} of `{function}`:\n{output}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_type_names_the_rust_type() {
        let m = unsupported_type("usize");
        assert!(m.contains("`usize`"));
    }

    #[test]
    fn missing_part_shows_the_part_to_add() {
        let m = missing_part("norm", "map", "reduction!");
        assert!(m.contains("`map = \"...\";`"));
    }

    #[test]
    fn unknown_part_lists_the_known_parts() {
        let m = unknown_part("k", "mapp", &["map", "reduce"]);
        assert!(m.contains("`mapp`") && m.contains("`map`, `reduce`"));
    }

    #[test]
    fn wrong_form_shows_the_string_form() {
        let m = wrong_form("k", "elementwise!");
        assert!(m.contains("= \""));
    }

    #[test]
    fn signature_starts_with_the_kernel_name() {
        let m = signature("k", "a reduction returns its value: `-> f32`");
        assert!(m.starts_with("`k`: "));
    }

    #[test]
    fn compiler_rejects_names_the_part_and_kernel() {
        let m = compiler_rejects("axpy", "body", "error: identifier \"z\" is undefined");
        assert!(m.contains("the body of `axpy`"));
    }
}
