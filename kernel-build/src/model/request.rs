//! What a module's build is asked to do: its source, targets and options, as the build
//! script's `Build` and the macros fill them.

use super::options::{LinkMode, RuntimeCompile};
use std::path::PathBuf;

/// Where a module's CUDA source comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceInput {
    /// Source text (the `cuda_module!` string literal).
    Inline {
        /// The CUDA C text.
        text: String,
    },
    /// A `.cu` file; relative paths resolve against [`ModuleRequest::base_dir`].
    File {
        /// The file.
        path: PathBuf,
    },
    /// Several `.cu` files, each compiled as its own translation unit; their kernels form
    /// one module (see [`ModuleRequest::link`] for calls between files).
    Files {
        /// The files, in order.
        paths: Vec<PathBuf>,
    },
}

/// One module to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleRequest {
    /// Module name (used in messages, file names and the generated Rust module).
    pub name: String,
    /// The CUDA source.
    pub source: SourceInput,
    /// Targets (`sm_90`, `compute_120`); `None`: `KERNEL_BUILD_ARCHS`, else the default list.
    pub archs: Option<Vec<String>>,
    /// `-I` directories (relative ones resolve against `base_dir`).
    pub includes: Vec<PathBuf>,
    /// `-D` definitions.
    pub defines: Vec<(String, Option<String>)>,
    /// Extra nvcc flags.
    pub flags: Vec<String>,
    /// The crate root: relative paths resolve against it; inline sources include from it.
    pub base_dir: PathBuf,
    /// More folders whose files count as the user's (tracked, parsed), besides the
    /// source's own folder and the include directories.
    pub user_dirs: Vec<PathBuf>,
    /// Every target's image must hold every kernel: a kernel compiled for some targets
    /// only (declared inside `#if __CUDA_ARCH__ ...`) is an error instead of a warning.
    pub require_every_target: bool,
    /// How several files become one module's device code: each a whole program
    /// (default), device-linked (`rdc`), or link-time optimised (`lto`).
    pub link: LinkMode,
    /// Whether the module is compiled at run time by NVRTC, only or as a fallback.
    pub runtime: RuntimeCompile,
    /// Rust names of kernels the user vouched for: their stubs are safe `fn`s.
    pub safe_kernels: Vec<String>,
    /// Generate stubs for these kernels only (Rust names); `None`: every kernel.
    pub kernels: Option<Vec<String>>,
    /// Integer constants of the CUDA code to export as Rust `const`s: name and Rust type.
    pub constants: Vec<(String, String)>,
    /// Rust files whose `#[derive(CudaType)]` types the module shares with CUDA: their
    /// headers are written and can be included (`"src/particles.rs.cuh"`), and a kernel
    /// taking one of those types takes the Rust type itself.
    pub rust_types: Vec<RustTypesFile>,
    /// More derives for the structs and enums the CUDA code declares (`serde::Serialize`),
    /// each a path.
    pub derives: Vec<String>,
    /// Whether kernels carry line tables (nvcc's `-lineinfo`), so that compute-sanitizer,
    /// cuda-gdb and Nsight Compute name the source file and line; `None`:
    /// `KERNEL_BUILD_LINE_INFO`, else on.
    pub line_info: Option<bool>,
    /// Where inline text lies in the Rust file: the file (absolute) and the line of the
    /// value's first line, when every line of the value is a line of the file (a raw
    /// string, or one without `\n` escapes and line continuations). Compiled with line
    /// tables, the text then starts with a `#line` directive naming them, so that the
    /// tools reading line tables name the Rust file's lines. Set by `cuda_module!`.
    pub inline_origin: Option<(PathBuf, u32)>,
    /// Whether every fatbin entry is stored compressed (nvcc's `--compress-mode=size`);
    /// `None`: `KERNEL_BUILD_COMPRESS`, else on.
    pub compress: Option<bool>,
    /// Whether each cubin compiled with line tables keeps the PTX text ptxas embeds with
    /// them (`.nv_debug_ptx_txt`); `None`: `KERNEL_BUILD_PTX_TEXT`, else left out.
    pub ptx_text: Option<bool>,
    /// Whether device code is a debug build (nvcc's `-G`: no optimisation, variables and
    /// stepping in cuda-gdb); `None`: `KERNEL_BUILD_DEVICE_DEBUG`, else off.
    pub device_debug: Option<bool>,
    /// Kernels tuned over declared variants, each checked when it was added
    /// ([`ModuleRequest::tune`](crate::pipeline::ModuleRequest)).
    pub tuned: Vec<TuneRequest>,
}

/// A kernel to tune over declared variants (`tune NAME { ... }` in `cuda_module!`,
/// `Build::tune`): its variants, as every combination of the axes' values or as a list,
/// and the rules its launch shape follows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TuneRequest {
    /// The kernel as the source names it (`block_sum`, `ops::gemm`).
    pub kernel: String,
    /// The axes of a grid of variants (every combination of their values), in order, each
    /// value as written (`128`, `float`).
    pub axes: Vec<(String, Vec<String>)>,
    /// The variants of an explicit list, as written (`BLOCK=128 ITEMS=4`).
    pub listed: Vec<String>,
    /// The grid: an expression, or a tuple of up to three.
    pub grid: Option<String>,
    /// The block: an expression, or a tuple of up to three.
    pub block: Option<String>,
    /// The dynamic shared memory in bytes.
    pub shared: Option<String>,
}

/// A Rust file of types shared with CUDA, and the path of its module in the crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RustTypesFile {
    /// The file, relative to the crate root (`src/particles.rs`).
    pub file: PathBuf,
    /// The path its types are named by in the crate (`crate::particles`); `None`: told from
    /// the file's place (`src/particles.rs` and `src/particles/mod.rs` are
    /// `crate::particles`, `src/lib.rs` is `crate`).
    pub module: Option<String>,
}

impl RustTypesFile {
    /// The path the file's module has in the crate: the one given, else the one its place
    /// in the crate's folders says.
    pub fn module_path(&self) -> String {
        if let Some(m) = &self.module {
            return m.clone();
        }
        let mut parts: Vec<String> = self
            .file
            .with_extension("")
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if parts
            .first()
            .is_some_and(|f| ["src", "tests", "examples", "benches"].contains(&f.as_str()))
        {
            let top = parts.remove(0);
            // A file directly in `tests/`, `examples/`, `benches/` or `src/bin/` is a crate
            // root of its own.
            if (top != "src" && parts.len() == 1) || parts.first().is_some_and(|p| p == "bin") {
                parts.clear();
            }
        }
        if parts.last().is_some_and(|l| l == "mod") {
            parts.pop();
        }
        if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
            parts.clear();
        }
        std::iter::once("crate".to_string())
            .chain(parts)
            .collect::<Vec<_>>()
            .join("::")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rust_files_module_is_told_from_its_place() {
        let at = |f: &str| {
            RustTypesFile {
                file: f.into(),
                module: None,
            }
            .module_path()
        };
        assert_eq!(at("src/particles.rs"), "crate::particles");
        assert_eq!(at("src/sim/mod.rs"), "crate::sim");
        assert_eq!(at("src/sim/state.rs"), "crate::sim::state");
        assert_eq!(at("src/main.rs"), "crate");
        assert_eq!(at("src/bin/tool.rs"), "crate");
        assert_eq!(at("tests/gpu.rs"), "crate");
        assert_eq!(at("examples/common/mod.rs"), "crate::common");
        let given = RustTypesFile {
            file: "shared/p.rs".into(),
            module: Some("crate::p".into()),
        };
        assert_eq!(given.module_path(), "crate::p");
    }
}
