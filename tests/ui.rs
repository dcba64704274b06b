//! Compile-fail tests of `cuda_module!`: each case in `ui/` must fail to compile
//! with exactly the reviewed diagnostics in its `.stderr`.
//!
//! They compile real CUDA with the real nvcc (found like any build finds it).
//! Regenerate the expected output with `TRYBUILD=overwrite` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
