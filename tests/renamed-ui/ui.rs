//! Compile-fail tests of `cuda_module!` in a crate that renames the runtime
//! (`gpu = { package = "cuda-kernel-runtime", .. }`): each case in `ui/` must fail to compile
//! with exactly the reviewed diagnostics in its `.stderr`, which name the user's path
//! (`gpu::Out`) and the kernel's parameters, and nothing of the runtime's insides (its
//! `__private` traits, the macros that implement them).
//!
//! They compile real CUDA with the real nvcc (found like any build finds it).
//! Regenerate the expected output with `TRYBUILD=overwrite` and review the diff.

#[test]
fn renamed_ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
