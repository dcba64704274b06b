//! The setters of [`Build`]: sources, targets, preprocessor and nvcc options, where
//! outputs go, and what is reported to Cargo.

use super::Build;
use crate::model::options::LinkMode;
use crate::model::request::RustTypesFile;
use crate::pipeline::RuntimeCompile;
use std::path::Path;

impl Build {
    /// Adds a `.cu` file (relative to the crate root). Several files form one module,
    /// each compiled as its own translation unit.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("kernels/a.cu").file("kernels/b.cu");
    /// ```
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.files.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds several `.cu` files (see [`Build::file`]).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().files(["kernels/a.cu", "kernels/b.cu"]);
    /// ```
    pub fn files<P: AsRef<Path>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Build {
        self.files
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// How the files' device code is joined: each file a whole program
    /// ([`LinkMode::Whole`], the default), device-linked per target by nvJitLink so that a
    /// kernel may call a `__device__` function or use a `__device__` variable of another
    /// file ([`LinkMode::Rdc`]), or also link-time optimised across files
    /// ([`LinkMode::Lto`]). `Rdc` and `Lto` need nvJitLink and nvFatbin beside nvcc
    /// (`cuda-kernel-inspect toolkit install` installs both).
    ///
    /// ```
    /// use cuda_kernel_build::{Build, LinkMode};
    /// Build::new().files(["a.cu", "b.cu"]).link(LinkMode::Rdc);
    /// ```
    pub fn link(&mut self, mode: LinkMode) -> &mut Build {
        self.req.link = mode;
        self
    }

    /// Also compiles the host side of the module's files — host functions next to the kernels,
    /// launchers calling `kernel<<<...>>>`, CUB, Thrust — with nvcc through `cc`, archives it as
    /// `lib<name>_host.a` and links it into the crate with the static CUDA runtime
    /// (`cudart_static`, from the toolkit) and the C++ runtime, so the binary still needs only
    /// the driver. Declare the host functions in Rust with `extern "C"` (C linkage in the
    /// `.cu`); the CUDA runtime works in the device's primary context, the one
    /// `cuda_kernel_runtime::Gpu` opens, so buffers and streams cross freely. Off by default;
    /// skipped without device code (`KERNEL_BUILD_NO_DEVICE_CODE`, docs.rs).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("kernels/sort.cu").host_code(true);
    /// ```
    pub fn host_code(&mut self, on: bool) -> &mut Build {
        self.host_code = on;
        self
    }

    /// The path the generated module names the runtime by, for a crate that reaches
    /// `cuda-kernel-runtime` through a crate of its own that re-exports it
    /// (`pub use cuda_kernel_runtime as runtime;` in `my_gpu`). By default the name this
    /// crate's `Cargo.toml` gives `cuda-kernel-runtime` is used, renamed or not; when the
    /// manifest lists no runtime, the generated module says so where `include_kernels!`
    /// includes it. A value that is not a Rust path fails the build.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("kernels/k.cu").runtime_crate("my_gpu::runtime");
    /// ```
    pub fn runtime_crate(&mut self, path: &str) -> &mut Build {
        self.runtime_crate = Some(path.to_owned());
        self
    }

    /// The most nvcc runs at once. By default a build script follows Cargo (`-j`, through
    /// its jobserver) and other callers use every core.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().jobs(4);
    /// ```
    pub fn jobs(&mut self, n: usize) -> &mut Build {
        self.jobs = Some(n.max(1));
        self
    }

    /// Runs nvcc's compilations through `wrapper` (`sccache`), as `wrapper nvcc args...`,
    /// instead of what `KERNEL_BUILD_NVCC_WRAPPER` (or an sccache `RUSTC_WRAPPER`) says. The
    /// build's own cache stays the first level: the wrapper sees only what it misses.
    /// Through a wrapper nvcc compiles a host object (`-c`, which sccache caches whole) and
    /// the build reads the fatbin back from it.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("k.cu").nvcc_wrapper("sccache");
    /// ```
    pub fn nvcc_wrapper(&mut self, wrapper: impl AsRef<Path>) -> &mut Build {
        self.nvcc_wrapper = Some(wrapper.as_ref().to_path_buf());
        self
    }

    /// Whether the module is compiled at run time by NVRTC:
    ///
    /// - [`RuntimeCompile::Off`] (the default): by nvcc now, into the embedded fatbin.
    /// - [`RuntimeCompile::Only`]: the build reads the declarations without nvcc and
    ///   generates the same typed stubs; the binary carries the source and the user's
    ///   headers it includes, and the generated `load` compiles them for the GPU it runs on
    ///   (cached on disk), checking each kernel's parameter layout against the stubs. The
    ///   module's flags become NVRTC options; the generated `load_with` compiles variants
    ///   with other defines.
    /// - [`RuntimeCompile::Fallback`]: built with nvcc as usual, and the source rides along:
    ///   on a GPU the fatbin has no image for (or whose driver is older than its PTX),
    ///   `load` compiles it with the NVRTC found at run time instead of failing.
    ///
    /// ```
    /// use cuda_kernel_build::{Build, RuntimeCompile};
    /// Build::new().file("kernels/tile.cu").runtime(RuntimeCompile::Only);
    /// ```
    pub fn runtime(&mut self, mode: RuntimeCompile) -> &mut Build {
        self.req.runtime = mode;
        self
    }

    /// Adds a target (`sm_90`, `sm_90a`, `compute_120`). Without any, `KERNEL_BUILD_ARCHS`
    /// or the default list (SASS for every major arch the toolkit supports + PTX for the
    /// newest) is used. The list given is exact: add a `compute_` target for PTX.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().arch("sm_90").arch("compute_90");
    /// ```
    pub fn arch(&mut self, target: &str) -> &mut Build {
        self.req
            .archs
            .get_or_insert_with(Vec::new)
            .push(target.to_string());
        self
    }

    /// Adds several targets (see [`Build::arch`]).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().archs(["sm_80", "sm_90", "compute_90"]);
    /// ```
    pub fn archs<S: AsRef<str>>(&mut self, targets: impl IntoIterator<Item = S>) -> &mut Build {
        for t in targets {
            self.arch(t.as_ref());
        }
        self
    }

    /// Adds an include directory (relative to the crate root).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().include("kernels/include");
    /// ```
    pub fn include(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.req.includes.push(dir.as_ref().to_path_buf());
        self
    }

    /// Defines a preprocessor macro (`-DNAME` or `-DNAME=VALUE`). A name that is not a
    /// preprocessor identifier makes [`Build::try_compile`] fail, naming it.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().define("BLOCK", "256").define("FAST_MATH", None);
    /// ```
    pub fn define<'a>(&mut self, name: &str, value: impl Into<Option<&'a str>>) -> &mut Build {
        if let Err(problem) = self.req.define(name, value.into()) {
            self.problems.push(problem);
        }
        self
    }

    /// Adds an nvcc flag (`-O3`, `--use_fast_math`, `-maxrregcount=64`).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().flag("--use_fast_math");
    /// ```
    pub fn flag(&mut self, flag: &str) -> &mut Build {
        self.req.flags.push(flag.to_string());
        self
    }

    /// Whether kernels carry line tables (nvcc's `-lineinfo`, on by default): with them
    /// compute-sanitizer, cuda-gdb and Nsight Compute name the `.cu` file and line of a
    /// fault or a hot spot instead of a byte offset. They add to the image's size, not to
    /// its machine code. Without a call, `KERNEL_BUILD_LINE_INFO` decides (`0` turns them off).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("kernels/k.cu").line_info(false);
    /// ```
    pub fn line_info(&mut self, on: bool) -> &mut Build {
        self.req.line_info = Some(on);
        self
    }

    /// Whether every fatbin entry is stored compressed (nvcc's `--compress-mode=size`,
    /// Zstandard; on by default): a quarter to a fifth of the bytes to embed, link and ship,
    /// decompressed by the driver at load. Off, entries are stored as nvcc stores them by
    /// default (PTX compressed, SASS as is). Without a call, `KERNEL_BUILD_COMPRESS` decides
    /// (`0` turns it off); a compression flag among [`Build::flag`]s is left alone.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("kernels/k.cu").compress(false);
    /// ```
    pub fn compress(&mut self, on: bool) -> &mut Build {
        self.req.compress = Some(on);
        self
    }

    /// Whether each cubin compiled with line tables keeps the PTX text ptxas embeds with
    /// them (the section `.nv_debug_ptx_txt`; off by default). Left out, the CUDA line
    /// tables the sanitizer, cuda-gdb and Nsight Compute read stay, and a compressed image
    /// is about half the size; only a tool's view of the PTX lines is lost. Without a call,
    /// `KERNEL_BUILD_PTX_TEXT` decides (`1` keeps it). Without line tables there is
    /// nothing to leave out.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("kernels/k.cu").ptx_text(true);
    /// ```
    pub fn ptx_text(&mut self, keep: bool) -> &mut Build {
        self.req.ptx_text = Some(keep);
        self
    }

    /// Builds the device code for debugging (nvcc's `-G`): unoptimised, with variables and
    /// stepping for cuda-gdb. Kernels run many times slower, so the build says so in a
    /// note; never the default, and not implied by Cargo's debug profile. An `lto` module
    /// is device-linked as `rdc` (nvcc cannot link-time optimise a `-G` build). Without a
    /// call, `KERNEL_BUILD_DEVICE_DEBUG` decides (`1` turns it on).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("kernels/k.cu").device_debug(true);
    /// ```
    pub fn device_debug(&mut self, on: bool) -> &mut Build {
        self.req.device_debug = Some(on);
        self
    }

    /// Uses this nvcc instead of searching for one.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().nvcc("/usr/local/cuda-13.0/bin/nvcc");
    /// ```
    pub fn nvcc(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.nvcc = Some(path.as_ref().to_path_buf());
        self
    }

    /// Writes outputs here instead of `$OUT_DIR`.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().out_dir("target/kernels");
    /// ```
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Uses this cache directory instead of the environment's.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().cache_dir("/tmp/kernel-cache");
    /// ```
    pub fn cache_dir(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.cache_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Whether to print `cargo:` lines (on by default; off outside build scripts).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().cargo_metadata(false);
    /// ```
    pub fn cargo_metadata(&mut self, on: bool) -> &mut Build {
        self.cargo_metadata = on;
        self
    }

    /// Requires every target's image to hold every kernel. By default a kernel declared
    /// inside `#if __CUDA_ARCH__ ...` may be compiled for some targets only: the build
    /// warns once per module, and calling it on a GPU whose image lacks it returns
    /// `Error::KernelNotInImage`. With this, its absence from an image is a build error.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().require_every_target(true);
    /// ```
    pub fn require_every_target(&mut self, on: bool) -> &mut Build {
        self.req.require_every_target = on;
        self
    }

    /// Whether to re-print nvcc's warnings as `cargo:warning=` (on by default).
    ///
    /// ```
    /// cuda_kernel_build::Build::new().warnings(false);
    /// ```
    pub fn warnings(&mut self, on: bool) -> &mut Build {
        self.warnings = on;
        self
    }

    /// Vouches that a kernel is safe to launch with any arguments its signature admits:
    /// its stub becomes a safe `fn` (see the safety model in the README). A name that is not
    /// a kernel of the module makes the build fail, naming the nearest kernel.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().safe_kernel("saxpy");
    /// ```
    pub fn safe_kernel(&mut self, rust_name: &str) -> &mut Build {
        self.req.safe_kernels.push(rust_name.to_string());
        self
    }

    /// Shares the `#[derive(CudaType)]` types of a Rust file (relative to the crate root)
    /// with the module's CUDA: their declarations are written to a header the sources
    /// include as `"<file>.cuh"` (a file outside the crate's folder: by its file name), and a
    /// kernel taking one of them takes the Rust type itself. The types are named by the path the file's place gives
    /// (`src/particles.rs` → `crate::particles`); [`rust_types_in`](Build::rust_types_in)
    /// names another. Editing the file rebuilds the module.
    ///
    /// ```
    /// cuda_kernel_build::Build::new()
    ///     .file("kernels/step.cu") // #include "src/particles.rs.cuh"
    ///     .rust_types("src/particles.rs");
    /// ```
    pub fn rust_types(&mut self, file: impl AsRef<Path>) -> &mut Build {
        self.req.rust_types.push(RustTypesFile {
            file: file.as_ref().to_path_buf(),
            module: None,
        });
        self
    }

    /// [`rust_types`](Build::rust_types) for a file whose module the crate names `module`
    /// (`"crate::model::particles"`), where the file's place does not say it (a `#[path]`
    /// attribute, an inline module around the `mod` item).
    ///
    /// ```
    /// cuda_kernel_build::Build::new()
    ///     .file("kernels/step.cu")
    ///     .rust_types_in("shared/particles.rs", "crate::particles");
    /// ```
    pub fn rust_types_in(&mut self, file: impl AsRef<Path>, module: &str) -> &mut Build {
        self.req.rust_types.push(RustTypesFile {
            file: file.as_ref().to_path_buf(),
            module: Some(module.to_string()),
        });
        self
    }

    /// Adds a derive for the structs and enums the CUDA code declares (they get `Clone`,
    /// `Copy`, `Debug`, `Default`, `PartialEq` and bytemuck's traits where they hold):
    /// `"serde::Serialize"`, `"Hash"`. The crate must depend on what it names. A text that is
    /// not a path makes the build fail.
    ///
    /// ```
    /// cuda_kernel_build::Build::new()
    ///     .file("kernels/step.cu")
    ///     .derive("serde::Serialize")
    ///     .derive("serde::Deserialize");
    /// ```
    pub fn derive(&mut self, path: &str) -> &mut Build {
        if let Err(problem) = self.req.derive_text(path) {
            self.problems.push(problem);
        }
        self
    }

    /// Exports an integer constant of the CUDA code (a `#define`, a `constexpr` variable, an
    /// enumerator, any constant expression) as a Rust `const` of the generated module,
    /// written `"NAME"` (an `i64`) or `"NAME: TYPE"` with a Rust integer type. The compiler
    /// evaluates it with the module's includes, definitions and flags, so a tile size a
    /// launch depends on is written once; a name the code does not define, or a value that
    /// does not fit the type, makes the build fail.
    ///
    /// ```
    /// cuda_kernel_build::Build::new()
    ///     .file("kernels/tiled.cu")
    ///     .export_constant("TILE: u32")
    ///     .export_constant("STEPS");
    /// // in the crate: `Launch::new((n / tiled::TILE, 1, 1), (tiled::TILE, 1, 1))`
    /// ```
    pub fn export_constant(&mut self, name_and_type: &str) -> &mut Build {
        if let Err(problem) = self.req.constant_text(name_and_type) {
            self.problems.push(problem);
        }
        self
    }

    /// Tunes a kernel over declared variants ([`Tune`](crate::Tune)): every variant is
    /// compiled into the module and the generated module gets `<kernel>_tuned(key, outputs,
    /// args...)`, which launches the fastest variant for each key on the GPU model it runs
    /// on. A declaration that is not one makes [`Build::try_compile`] fail, saying why; a
    /// variant the compiler refuses for a target is left out of it, with a warning.
    ///
    /// ```
    /// use cuda_kernel_build::{Build, Tune};
    /// Build::new().file("kernels/sum.cu").tune(
    ///     Tune::kernel("block_sum")
    ///         .values("BLOCK", [128, 256])
    ///         .block("BLOCK")
    ///         .grid("n.div_ceil(BLOCK)"),
    /// );
    /// ```
    pub fn tune(&mut self, tune: super::tune::Tune) -> &mut Build {
        if let Err(problem) = self.req.tune(tune.req) {
            self.problems.push(problem.message);
        }
        self
    }

    /// Generates launch stubs for these kernels only (their Rust names; a template family
    /// by its method name), for crates that use a few kernels of a large library: the
    /// generated module is smaller and compiles faster. Every kernel is still compiled and
    /// verified. Called several times, the lists add up. A name that is not a kernel of the
    /// module makes the build fail.
    ///
    /// ```
    /// cuda_kernel_build::Build::new().file("kernels/lib.cu").kernels(["softmax", "layer_norm"]);
    /// ```
    pub fn kernels<S: AsRef<str>>(
        &mut self,
        rust_names: impl IntoIterator<Item = S>,
    ) -> &mut Build {
        let list = self.req.kernels.get_or_insert_with(Vec::new);
        list.extend(rust_names.into_iter().map(|n| n.as_ref().to_owned()));
        self
    }
}
