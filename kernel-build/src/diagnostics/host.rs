//! The words of every message about a Rust declaration of a host function (`host_functions!`)
//! that does not match the C declaration, or names a module or function that is not there.
//!
//! Each function returns a [`Diagnostic`]; the caller sets the CUDA location with
//! [`Diagnostic::at`] and renders it at the span of the Rust declaration.

use super::Diagnostic;
use super::check::{Callee, const_mismatch_of, differs_of, not_struct_of, param_count_of};

const HOST: Callee = Callee {
    what: "host function",
    who: "the function",
};

/// A host function declared in Rust that the module's files do not define with C linkage.
pub fn not_found(name: &str, module: &str, available: &[String]) -> Diagnostic {
    let d = Diagnostic::error(format!(
        "host function `{name}` is declared in Rust but module `{module}` does not define it"
    ));
    let d = if available.is_empty() {
        d.note(format!("module `{module}` defines no host function"))
    } else {
        let list: Vec<String> = available.iter().map(|k| format!("`{k}`")).collect();
        d.note(format!("module `{module}` defines: {}", list.join(", ")))
    };
    d.note("a host function is bindable when a file of the module defines it (with a body) with C linkage: `extern \"C\" cudaError_t name(...) { ... }`")
}

/// A host function whose C declaration the front end could not read.
pub fn unreadable(name: &str, why: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "host function `{name}`: its C declaration could not be read: {why}"
    ))
}

/// Parameter counts differ.
pub fn param_count(name: &str, cuda: usize, rust: usize) -> Diagnostic {
    param_count_of(HOST, name, cuda, rust)
}

/// A parameter's Rust type is not one the CUDA type maps to.
pub fn type_mismatch(
    name: &str,
    param: &str,
    rust: &str,
    cuda: &str,
    expected: &str,
) -> Diagnostic {
    differs_of(HOST, name, param, rust, cuda).note(format!("CUDA `{cuda}` is `{expected}` in Rust"))
}

/// A pointer parameter declared with a Rust type that is no memory.
pub fn memory_mismatch(
    name: &str,
    param: &str,
    rust: &str,
    cuda: &str,
    device: &str,
    host: &str,
) -> Diagnostic {
    differs_of(HOST, name, param, rust, cuda).note(format!(
        "CUDA `{cuda}` is `{device}` (device memory) or `{host}` (host memory) in Rust"
    ))
}

/// Const-ness differs between a borrow and the pointer it stands for.
pub fn const_mismatch(
    name: &str,
    param: &str,
    rust: &str,
    cuda: &str,
    expected: &str,
) -> Diagnostic {
    const_mismatch_of(HOST, name, param, rust, cuda, expected)
}

/// A struct parameter declared with a Rust type that is not the struct's.
pub fn struct_mismatch(name: &str, param: &str, rust: &str, cuda: &str) -> Diagnostic {
    not_struct_of(HOST, name, param, rust, cuda).note(format!(
        "use the generated `{}` of the module, which has the CUDA layout",
        cuda.replace("::", "_")
    ))
}

/// A Rust type that no parameter of a host function can have.
pub fn unsupported_rust_type(name: &str, param: &str, rust: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "host function `{name}`, parameter `{param}`: Rust type `{rust}` cannot be passed to a host function"
    ))
    .note(
        "use a scalar, a vector type, a generated struct, `&TrackedBuffer<T>` / `&mut TrackedBuffer<T>` \
         (or their views, or cudarc's `CudaSlice` and views) \
         for device memory, `&[T]` / `&mut [T]` for host memory, `*const T` / `*mut T` as is, \
         or `&Arc<CudaStream>` for `cudaStream_t`",
    )
}

/// The return types differ.
pub fn return_mismatch(name: &str, rust: &str, cuda: &str, expected: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "host function `{name}` returns `{cuda}` in CUDA but `{rust}` in the Rust declaration"
    ))
    .note(format!("declare it as `-> {expected}`"))
}

/// The module's metadata is not where the build writes it.
pub fn no_module(module: &str, path: &str) -> Diagnostic {
    let file = std::path::Path::new(path)
        .file_name()
        .map_or(path.into(), |f| f.to_string_lossy());
    Diagnostic::error(format!(
        "no module `{module}` was built for this crate (its `OUT_DIR` has no `{file}`)"
    ))
    .note(format!(
        "build it in build.rs: `cuda_kernel_build::Build::new().file(\"kernels/{module}.cu\").host_code(true).compile(\"{module}\")`"
    ))
}

/// A module built without host code.
pub fn no_host_code(module: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "module `{module}` was built without host code: its host functions are not linked into the crate"
    ))
    .note(format!(
        "add `.host_code(true)` to the `Build` that compiles `{module}` in build.rs"
    ))
}

/// A binding taking device memory declared without `Result`: ordering its buffers on the
/// stream (waiting on their pending work, recording its use) may fail.
pub fn needs_result(name: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "host function `{name}` takes device memory: declare it to return `Result<(), Error>` (or `Result<T, Error>` for a C function returning `T`)"
    ))
    .note("its binding orders the buffers on the stream (waiting on their pending work, recording its own), which can fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_lists_the_functions_of_the_module() {
        let d = not_found("sort", "hosted", &["sort_pairs".into()]);
        assert_eq!(
            d.message,
            "host function `sort` is declared in Rust but module `hosted` does not define it"
        );
        assert_eq!(d.notes[0], "module `hosted` defines: `sort_pairs`");
    }

    #[test]
    fn unreadable_names_the_function() {
        let d = unreadable("f", "parameter `m` (`Mystery`): unknown type `Mystery`");
        assert!(d.message.contains("`f`"));
    }

    #[test]
    fn param_count_compares_cuda_with_rust() {
        let d = param_count("sum", 4, 3);
        assert_eq!(
            d.message,
            "host function `sum` takes 4 parameters in CUDA but 3 in the Rust declaration"
        );
    }

    #[test]
    fn type_mismatch_gives_the_rust_type_of_the_cuda_type() {
        let d = type_mismatch("sum", "n", "u32", "int", "i32");
        assert_eq!(
            d.message,
            "host function `sum`, parameter `n`: Rust type `u32` does not match CUDA type `int`"
        );
        assert_eq!(d.notes, ["CUDA `int` is `i32` in Rust"]);
    }

    #[test]
    fn memory_mismatch_gives_device_and_host_rust_types() {
        let d = memory_mismatch(
            "sort",
            "out",
            "u64",
            "float*",
            "&mut CudaSlice<f32>",
            "&mut [f32]",
        );
        assert_eq!(
            d.message,
            "host function `sort`, parameter `out`: Rust type `u64` does not match CUDA type `float*`"
        );
        assert_eq!(
            d.notes,
            [
                "CUDA `float*` is `&mut CudaSlice<f32>` (device memory) or `&mut [f32]` (host memory) in Rust"
            ]
        );
    }

    #[test]
    fn const_mismatch_says_the_function_may_write() {
        let d = const_mismatch(
            "sort",
            "out",
            "&CudaSlice<u32>",
            "unsigned int*",
            "&mut CudaSlice<u32>",
        );
        assert!(d.message.contains("may write through it"), "{}", d.message);
    }

    #[test]
    fn struct_mismatch_names_both_structs() {
        let d = struct_mismatch("f", "p", "Params", "P");
        assert_eq!(
            d.message,
            "host function `f`, parameter `p`: Rust type `Params` is not CUDA struct `P`"
        );
    }

    #[test]
    fn unsupported_rust_type_names_the_type() {
        let d = unsupported_rust_type("f", "s", "String");
        assert!(d.message.contains("`String`"));
    }

    #[test]
    fn return_mismatch_gives_the_declaration_to_write() {
        let d = return_mismatch("sum", "()", "cudaError_t", "Result<(), Error>");
        assert_eq!(
            d.message,
            "host function `sum` returns `cudaError_t` in CUDA but `()` in the Rust declaration"
        );
        assert_eq!(d.notes, ["declare it as `-> Result<(), Error>`"]);
    }

    #[test]
    fn no_module_names_the_module() {
        let d = no_module("hosted", "target/out/hosted.kernels.json");
        assert!(d.message.contains("`hosted`"));
    }

    #[test]
    fn no_host_code_says_the_module_has_none() {
        let d = no_host_code("signal");
        assert!(d.message.contains("without host code"));
    }

    #[test]
    fn needs_result_asks_for_a_result() {
        let d = needs_result("fill");
        assert_eq!(
            d.message,
            "host function `fill` takes device memory: declare it to return `Result<(), Error>` (or `Result<T, Error>` for a C function returning `T`)"
        );
    }
}
