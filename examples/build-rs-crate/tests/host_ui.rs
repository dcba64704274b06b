//! Compile-fail tests of `host_functions!` and `include_kernels!`: each case in `ui/` must
//! fail to compile with exactly the reviewed diagnostics in its `.stderr`. The declarations
//! are checked against the metadata this crate's `build.rs` wrote (module `hosted`, built
//! with host code; module `signal`, built without), and modules must be ones it builds.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite` and review the diff.

#[test]
fn host_ui() {
    // The cases read the metadata of this crate's build: the macro finds it through `OUT_DIR`,
    // which the compilations trybuild runs inherit.
    // SAFETY: set before any other thread of this test process reads the environment.
    unsafe { std::env::set_var("OUT_DIR", env!("OUT_DIR")) };
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
