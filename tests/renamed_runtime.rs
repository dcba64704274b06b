//! Crates of the user's own, outside this workspace, that reach the runtime under another
//! name: one renames the dependency (`kr = { package = "cuda-kernel-runtime", ... }`), one
//! reaches it only through a crate of its own that re-exports it (`facade::runtime`, named
//! with `crate = "..."` in the macro and `Build::runtime_crate` in build.rs); the renamed one
//! also depends on cudarc the way candle does (`dynamic-linking`, the version from the build
//! system), which the build unifies into the runtime's cudarc. Both doors
//! (a build.rs module through `include_kernels!`, an inline `cuda_module!`) must compile in
//! both; a crate that names no path while its manifest lists no runtime gets one error that
//! says how to name it. The renamed crate's rendered docs must say what each argument of a
//! stub takes and whether the kernel writes through it. The renamed crate also defines its
//! data types once, in Rust (`#[derive(kr::CudaType)]`), and both doors' CUDA includes the
//! header written from them (`Build::rust_types`, the macro's `types`).
//!
//! The crates are libraries, which nothing links: `cargo check` says whether they compile
//! (their build scripts run and their macros expand as in a build), and the checked
//! dependencies are the ones `cargo doc` needs next.
//!
//! Builds into the target folder that the tests' outside crates share
//! ([`kernel_test_support::outside_target`], kept between runs), offline, with this
//! workspace's lock file and the project's toolkit; skipped with a reason when either is
//! missing.

use std::path::Path;
use std::process::Command;

use kernel_test_support::{outside_target, workspace_root};

const KERNEL_CU: &str = r#"/// Scales `x[0..n)` by `a`.
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"#;

const WORKSPACE: &str = r#"[workspace]
resolver = "3"
members = ["renamed", "facade", "through-facade", "unnamed"]
"#;

const RENAMED_TOML: &str = r#"[package]
name = "renamed"
version = "0.1.0"
edition = "2024"

[dependencies]
kr = { package = "cuda-kernel-runtime", path = "@ROOT@/kernel-runtime" }
# cudarc as candle-core 0.11 asks for it: linked, not loaded, and versioned by the toolkit.
cudarc = { version = "0.19.10", default-features = false, features = ["std", "cublas", "cublaslt", "curand", "driver", "nvrtc", "f16", "cuda-version-from-build-system", "dynamic-linking"] }

[build-dependencies]
cuda-kernel-build = { path = "@ROOT@/kernel-build" }
"#;

const BUILD_RS: &str = r#"fn main() {
    cuda_kernel_build::Build::new().file("kernels/scale.cu").arch("sm_80").compile("ops");
    cuda_kernel_build::Build::new()
        .file("kernels/drift.cu")
        .rust_types("src/model.rs")
        .arch("sm_80")
        .compile("sim");
}
"#;

/// Types the renamed crate defines once, in Rust, and shares with both doors' CUDA.
const MODEL_RS: &str = r#"//! The data the kernels take.

/// A body.
#[derive(Clone, Copy, Debug, Default, PartialEq, kr::CudaType)]
#[repr(C)]
pub struct Body {
    pub pos: [f32; 2],
    pub vel: [f32; 2],
    pub tag: Tag,
}

/// What a body is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, kr::CudaType)]
#[repr(i32)]
pub enum Tag {
    #[default]
    Free = 0,
    Fixed = 1,
}
"#;

const DRIFT_CU: &str = r#"#include "src/model.rs.cuh"
extern "C" __global__ void drift(Body* b, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && b[i].tag == Tag::Free) { b[i].pos[0] += dt * b[i].vel[0]; b[i].pos[1] += dt * b[i].vel[1]; }
}
"#;

const FACADE_BUILD_RS: &str = r#"fn main() {
    cuda_kernel_build::Build::new()
        .file("kernels/scale.cu")
        .arch("sm_80")
        .runtime_crate("facade::runtime")
        .compile("ops");
}
"#;

/// Both doors, under the renamed dependency.
const RENAMED_LIB: &str = r##"//! Kernels under a renamed runtime.

kr::include_kernels!(ops);

kr::cuda_module! {
    /// Inline kernels.
    pub mod inline {
        source = r#"
            extern "C" __global__ void add(const float* x, float* y, float b, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = x[i] + b;
            }
        "#;
        arch = ["sm_80"];
    }
}

pub mod model;

kr::include_kernels!(sim);

kr::cuda_module! {
    /// Inline kernels over the shared types.
    pub mod inline_sim {
        types = "src/model.rs";
        source = r#"
            #include "src/model.rs.cuh"
            extern "C" __global__ void fix(Body* b, int n) { if ((int)threadIdx.x < n) b[threadIdx.x].tag = Tag::Fixed; }
        "#;
        arch = ["sm_80"];
    }
}

/// Both doors' stubs take the crate's own `Body`.
pub fn drift_then_fix(gpu: &kr::Gpu, bodies: &[model::Body]) -> Result<Vec<model::Body>, kr::Error> {
    let mut b = gpu.upload(bodies)?;
    let n = bodies.len() as i32;
    let cfg = kr::Launch::for_num_elems(n as u32);
    // SAFETY: both kernels touch b[0..n) only, and b holds n bodies.
    unsafe {
        sim::load(gpu)?.drift(&cfg, &mut b, 0.5, n)?;
        inline_sim::load(gpu)?.fix(&cfg, &mut b, n)?;
    }
    gpu.download(&b)
}

/// A cudarc buffer of the application's own passes straight into a stub.
pub fn scale_own(gpu: &kr::Gpu, x: &mut cudarc::driver::CudaSlice<f32>, n: i32) -> Result<(), kr::Error> {
    // SAFETY: `scale` touches `x[0..n)` only; the caller's buffer holds `n`.
    unsafe { ops::load(gpu)?.scale(&kr::Launch::for_num_elems(n as u32), x, 2.0, n) }
}

/// Runs both kernels when there is a GPU.
pub fn run(gpu: &kr::Gpu) -> Result<Vec<f32>, kr::Error> {
    let x = gpu.upload(&[1.0f32, 2.0])?;
    let mut y = gpu.zeros::<f32>(2)?;
    let cfg = kr::Launch::for_num_elems(2);
    // SAFETY: both kernels touch index 0 and 1 only, and both buffers hold 2.
    unsafe {
        inline::load(gpu)?.add(&cfg, &x, &mut y, 1.0, 2)?;
        ops::load(gpu)?.scale(&cfg, &mut y, 3.0, 2)?;
    }
    gpu.download(&y)
}
"##;

const FACADE_TOML: &str = r#"[package]
name = "facade"
version = "0.1.0"
edition = "2024"

[dependencies]
cuda-kernel-runtime = { path = "@ROOT@/kernel-runtime" }
"#;

const FACADE_LIB: &str = "//! A crate of the user's that re-exports the runtime.\npub use cuda_kernel_runtime as runtime;\n";

const THROUGH_TOML: &str = r#"[package]
name = "through-facade"
version = "0.1.0"
edition = "2024"

[dependencies]
facade = { path = "../facade" }

[build-dependencies]
cuda-kernel-build = { path = "@ROOT@/kernel-build" }
"#;

/// Both doors, through the facade only.
const THROUGH_LIB: &str = r##"//! Kernels through a facade.

facade::runtime::include_kernels!(ops);

facade::runtime::cuda_module! {
    pub mod inline {
        source = r#"extern "C" __global__ void add(float* y, float b, int n) { if ((int)threadIdx.x < n) y[threadIdx.x] += b; }"#;
        arch = ["sm_80"];
        crate = "facade::runtime";
    }
}

/// The modules' kernels, by name.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&str> = ops::METADATA.kernels.iter().map(|k| k.name).collect();
    names.extend(inline::METADATA.kernels.iter().map(|k| k.name));
    names
}
"##;

const UNNAMED_TOML: &str = r#"[package]
name = "unnamed"
version = "0.1.0"
edition = "2024"

[dependencies]
facade = { path = "../facade" }
"#;

/// The facade's macro without `crate = ...`: this crate's manifest lists no runtime.
const UNNAMED_LIB: &str = r##"facade::runtime::cuda_module! {
    pub mod inline {
        source = r#"extern "C" __global__ void k(int n) {}"#;
        arch = ["sm_80"];
    }
}
"##;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The cargo running this test, in the temporary workspace.
fn cargo(dir: &Path, root: &Path, args: &[&str]) -> Option<std::process::Output> {
    let mut c = Command::new(kernel_test_support::cargo());
    c.args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", outside_target())
        .env("KERNEL_CUDA_TOOLKIT_DIR", root.join(".cuda-toolkit"))
        // Set for this test by cargo; the child crates have their own.
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("KERNEL_BUILD_NO_DEVICE_CODE");
    c.output().ok()
}

#[test]
fn renamed_and_re_exported_runtimes_build_through_both_doors() {
    let root = workspace_root();
    if !root.join(".cuda-toolkit/nvidia/cu13/bin/nvcc").exists() {
        println!("skipped: no project toolkit at .cuda-toolkit (scripts/test.sh installs it)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    let at_root = |t: &str| t.replace("@ROOT@", &root.display().to_string());
    write(&ws.join("Cargo.toml"), WORKSPACE);
    std::fs::copy(root.join("Cargo.lock"), ws.join("Cargo.lock")).unwrap();
    write(&ws.join("renamed/Cargo.toml"), &at_root(RENAMED_TOML));
    write(&ws.join("renamed/build.rs"), BUILD_RS);
    write(&ws.join("renamed/kernels/scale.cu"), KERNEL_CU);
    write(&ws.join("renamed/src/lib.rs"), RENAMED_LIB);
    write(&ws.join("renamed/src/model.rs"), MODEL_RS);
    write(&ws.join("renamed/kernels/drift.cu"), DRIFT_CU);
    write(&ws.join("facade/Cargo.toml"), &at_root(FACADE_TOML));
    write(&ws.join("facade/src/lib.rs"), FACADE_LIB);
    write(
        &ws.join("through-facade/Cargo.toml"),
        &at_root(THROUGH_TOML),
    );
    write(&ws.join("through-facade/build.rs"), FACADE_BUILD_RS);
    write(&ws.join("through-facade/kernels/scale.cu"), KERNEL_CU);
    write(&ws.join("through-facade/src/lib.rs"), THROUGH_LIB);
    write(&ws.join("unnamed/Cargo.toml"), &at_root(UNNAMED_TOML));
    write(&ws.join("unnamed/src/lib.rs"), UNNAMED_LIB);

    let Some(out) = cargo(
        ws,
        &root,
        &[
            "check",
            "--offline",
            "-p",
            "renamed",
            "-p",
            "through-facade",
        ],
    ) else {
        println!("skipped: cargo cannot be run here");
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");

    // The header written from `src/model.rs` is also where a user and an editor find it,
    // under the target folder, a copy of what nvcc included; the compilation database there
    // has `drift.cu`'s command.
    let target = outside_target();
    let editor = target.join("cuda-kernel-build");
    let header = editor.join("renamed/include/src/model.rs.cuh");
    let text =
        std::fs::read_to_string(&header).unwrap_or_else(|e| panic!("{}: {e}", header.display()));
    assert!(text.contains("struct"), "{text}");
    let database = std::fs::read_to_string(editor.join("compile_commands.json")).unwrap();
    assert!(database.contains("renamed/kernels/drift.cu"), "{database}");

    // No path: one error, at the module's name, saying how to name the runtime.
    let out = cargo(ws, &root, &["check", "--offline", "-p", "unnamed"]).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("`unnamed/Cargo.toml` lists no `cuda-kernel-runtime`")
            && stderr.contains("crate = \"my_gpu::runtime\";"),
        "{stderr}"
    );
    assert!(stderr.contains("src/lib.rs:2:13"), "{stderr}");

    // Without the dependencies' pages (`cargo doc --no-deps`) every link to the runtime's
    // types still leads to a page (the published one, through the runtime's
    // `html_root_url`, or the local one a run before made); none is left as the unresolved
    // path `kr::TrackedBuffer`.
    let out = cargo(
        ws,
        &root,
        &["doc", "--offline", "--no-deps", "-p", "renamed"],
    )
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = target.join("doc/renamed");
    for page in ["ops/struct.Module.html", "inline/struct.Module.html"] {
        let text = std::fs::read_to_string(docs.join(page)).unwrap();
        assert!(
            !text.contains("href=\"kr::") && text.contains("struct.TrackedBuffer.html"),
            "{page} (--no-deps) has a dead link to the runtime"
        );
    }

    // The rendered page of the build.rs module's stub says what each argument takes.
    // With the runtime's own pages made beside it, as `cargo doc` makes a dependency's:
    // rustdoc links a type of another crate only to pages it made. (The runtime's, not every
    // dependency's: those are not what this tests, and making them all took about a minute.)
    let out = cargo(
        ws,
        &root,
        &[
            "doc",
            "--offline",
            "--no-deps",
            "-p",
            "renamed",
            "-p",
            "cuda-kernel-runtime",
        ],
    )
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = target.join("doc/renamed");
    let page = std::fs::read_to_string(docs.join("ops/struct.Module.html")).unwrap();
    for want in [
        "Arguments",
        "which the kernel may write",
        "TrackedBuffer",
        "Out(&amp;mut [f32])",
    ] {
        assert!(
            page.contains(want),
            "`{want}` not in the page of ops::Module"
        );
    }
    // Each runtime type is a link to its page (rustdoc resolved `kr::TrackedBuffer`).
    assert!(
        page.contains("struct.TrackedBuffer.html"),
        "no link to TrackedBuffer in the page of ops::Module"
    );
    let inline = std::fs::read_to_string(docs.join("inline/struct.Module.html")).unwrap();
    // cudarc's buffers are named without a link (their pages are cudarc's).
    assert!(
        inline.contains("which the kernel reads only")
            && inline.contains("In(&amp;[f32])")
            && inline.contains("struct.TrackedView.html")
            && inline.contains("&amp;CudaSlice&lt;f32&gt;")
            && !inline.contains("href=\"kr::"),
        "the inline module's stub does not say what `x` takes"
    );
    // The inline kernel is declared at its line of the Rust file, not of the literal's value.
    assert!(
        inline.contains("src/lib.rs:9:13") && !inline.contains("&lt;inline"),
        "the inline kernel's docs do not name its line in src/lib.rs"
    );
    // Neither the generated code nor its docs name a path of the build machine.
    let generated = std::fs::read_dir(target.join("debug/build"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path().join("out/kernel-build/ops.rs"))
        .filter(|p| p.is_file())
        .collect::<Vec<_>>();
    assert!(!generated.is_empty());
    for file in generated {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains(&*root.to_string_lossy()) && !text.contains(&*ws.to_string_lossy()),
            "{} names a path of this machine",
            file.display()
        );
    }
    assert!(!page.contains(&*ws.to_string_lossy()));
}
