//! Procedural macros of the kernel framework. Use them through `cuda_kernel_runtime`
//! (`cuda_kernel_runtime::cuda_module!`), which also provides the types the generated
//! code names.
//!
//! This crate holds the macros' documentation and hands each invocation's tokens to the
//! one backend in `cuda-kernel-build`, which parses them, builds (nvcc, the cache, the
//! front end, the declaration check, code generation: all shared with `build.rs` builds)
//! and turns every error into a `compile_error!`.

use cuda_kernel_build::__private::macros as backend;
use proc_macro::TokenStream;

/// Compiles CUDA C at build time and generates a typed Rust module for it.
///
/// ```ignore
/// use cuda_kernel_runtime::{cuda_module, Gpu, Launch};
///
/// cuda_module! {
///     /// Vector kernels.
///     pub mod vecmath {
///         source = r#"
///             // y = a*x + y
///             extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
///                 int i = blockIdx.x * blockDim.x + threadIdx.x;
///                 if (i < n) y[i] = a * x[i] + y[i];
///             }
///         "#;
///         arch = ["sm_80", "sm_90"];
///         // What this crate relies on, checked against the CUDA declaration:
///         fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: i32);
///     }
/// }
///
/// fn main() -> Result<(), cuda_kernel_runtime::Error> {
///     let gpu = Gpu::new(0)?;
///     let k = vecmath::load(&gpu)?;
///     let x = gpu.upload(&[1.0f32; 1024])?;
///     let mut y = gpu.upload(&[2.0f32; 1024])?;
///     // SAFETY: saxpy touches x[0..n] and y[0..n] only, and both hold n elements.
///     unsafe { k.saxpy(&Launch::for_num_elems(1024), 2.0, &x, &mut y, 1024)? };
///     Ok(())
/// }
/// ```
///
/// # Options
///
/// | option | meaning |
/// |---|---|
/// | `source = "..."` | the CUDA text (a raw string is convenient); it may `#include` headers relative to the crate root |
/// | `file = "kernels/k.cu"` | a CUDA file, relative to the crate root (the folder of `Cargo.toml`) |
/// | `files = ["a.cu", "b.cu"]` | several CUDA files forming one module, each its own translation unit |
/// | `arch = ["sm_80", "sm_90", "compute_90"]` | targets: SASS for `sm_*`, PTX for `compute_*`; default: SASS for every major arch the toolkit supports plus PTX for the newest (or `KERNEL_BUILD_ARCHS`) |
/// | `include = ["include"]` | `-I` folders, relative to the crate root |
/// | `define = ["N=4", "FAST"]` | `-D` definitions, `NAME` or `NAME=VALUE` |
/// | `flags = ["-O3", "--use_fast_math"]` | extra nvcc flags |
/// | `require_every_target = true` | `true`: a kernel missing from one target's image is an error, not a warning |
/// | `line_info = false` | `false`: kernels carry no line tables (by default they do, so compute-sanitizer, cuda-gdb and Nsight Compute name the source line, the `.rs` line for inline text; or `KERNEL_BUILD_LINE_INFO`) |
/// | `compress = false` | `false`: fatbin entries stored as nvcc stores them by default (SASS as is) instead of every entry compressed (`--compress-mode=size`; or `KERNEL_BUILD_COMPRESS`) |
/// | `ptx_text = true` | `true`: cubins with line tables keep the PTX text ptxas embeds with them (left out by default: about half of a compressed image; or `KERNEL_BUILD_PTX_TEXT`) |
/// | `device_debug = true` | `true`: a debug build of the device code (`-G`: variables and stepping in cuda-gdb; kernels run many times slower; or `KERNEL_BUILD_DEVICE_DEBUG`) |
/// | `rdc = true` | `true`: the files are device-linked, so kernels may call device functions of other files |
/// | `lto = true` | `true`: as `rdc`, with link-time optimisation across files |
/// | `compile = "runtime"` | `"runtime"`: compiled by NVRTC at run time only (no nvcc at build time); `"build"`: the default |
/// | `fallback = "runtime"` | `"runtime"`: built by nvcc, and compiled by NVRTC at run time on a GPU the fatbin has no image for |
/// | `kernels = ["saxpy"]` | stubs only for these kernels (Rust names), for a crate that uses a few kernels of a large library |
/// | `constants = ["TILE: u32", "STEPS"]` | integer constants of the CUDA code (`#define`, `constexpr`, enumerators) as Rust `const`s in the module, `"NAME"` (an `i64`) or `"NAME: u32"`; evaluated by the compiler, checked to fit |
/// | `types = ["src/particles.rs"]` | Rust files (relative to the crate root) whose `#[derive(CudaType)]` types the CUDA code shares: their declarations are a header the source includes as `"<file>.cuh"`, and a kernel taking one takes the Rust type |
/// | `derive = ["serde::Serialize"]` | more derives for the structs and enums the CUDA code declares (`["serde::Serialize"]`), beside the `Clone`, `Copy`, `Debug`, `Default`, `PartialEq` and bytemuck traits they get where they hold |
/// | `crate = "my_gpu::runtime"` | the path generated code names the runtime by, for a crate that reaches it through a crate of its own re-exporting it; default: the name this crate's `Cargo.toml` gives `cuda-kernel-runtime` (renamed or not) |
///
/// Doc comments and attributes on the `mod` are kept, and so is its visibility.
///
/// # Generated module
///
/// - `load(&Gpu) -> Result<Module, Error>`: loads the embedded fatbin into the
///   GPU's context and resolves every kernel.
/// - `Module`: one method per kernel taking `&Launch` then the kernel's
///   parameters with exact types: scalars by value (`f32`, `i32`, `half::f16`, ...),
///   vector types (`cuda_kernel_runtime::vector::Float2`, ...), generated `#[repr(C)]`
///   structs for C structs by value, `impl ConstPtr<T>` for `const T*` (`&CudaSlice<T>`,
///   `In<T>`, ...), `impl MutPtr<T>` for `T*` (`&mut CudaSlice<T>`, `Out<T>`,
///   `InOut<T>`, ...), `RawDevicePtr` for `void*` and `T**`. Rustdoc comes from the
///   comment above each kernel. `with_stream(&stream)` gives a handle launching on
///   another stream; one accessor per `__constant__`/`__device__` global.
/// - Template instantiations of one kernel become one generic method:
///   `k.axpy::<f32>(...)` launches `axpy<float>`.
/// - `METADATA` (kernels, parameter layouts, targets, toolkit version) and
///   `REGISTERS` (registers per thread per SASS image).
///
/// # Tuned variants
///
/// A `tune` item declares variants of one kernel, all compiled into the module, and gives the
/// module a typed entry point that launches the fastest for each problem key on the GPU the
/// program runs on:
///
/// ```ignore
/// tune block_sum {                       // the kernel: a template, or a plain kernel
///     BLOCK = [128, 256, 512];           // an axis named after a template parameter: its values
///     ITEMS = [1, 4];                    // every combination is a variant (6)
///     block = "BLOCK";                   // the launch shape: the axes, the kernel's integer
///     grid = "n.div_ceil(BLOCK * ITEMS)"; // parameters, + - * / %, .div_ceil/.min/.max
///     shared = "BLOCK * 4";              // optional: dynamic shared memory in bytes
/// }
/// ```
///
/// Instead of axes with values, `variants = ["BLOCK=128 ITEMS=4", "BLOCK=256 ITEMS=1"];` lists
/// them; an axis that is no template parameter is a launch value the rules read (`THREADS =
/// [128, 256]; block = "THREADS";`). Values are integers, `true`/`false`, or a type's name in a
/// string. A variant the compiler refuses for a target is left out of that target's image with
/// a warning. The module gets `block_sum_tuned(key, outputs, args...)`: a key
/// (`impl Into<tune::Key>`: an integer or a tuple of up to four), `tune::Idempotent` or
/// `tune::RestoreWritten` (how the call's buffers survive the timing runs of its first call),
/// then the kernel's own arguments; its tuner is the `static` `tuners::BLOCK_SUM`, and
/// `METADATA.tuned` lists the variants. `Build::tune` declares the same from `build.rs`.
///
/// # Declarations
///
/// `fn name(params);` items state what the crate relies on. Each is checked
/// against the CUDA declaration: number and order of parameters, each type, the
/// const-ness of each pointer (`&[T]` for `const T*`, `&mut [T]` for `T*`) and the
/// identity of each struct. A generic declaration `fn axpy<T>(a: T, ...)` is
/// checked against every instantiation. A mismatch is a compile error at the Rust
/// type, naming the kernel, the parameter, both types and the CUDA file:line.
///
/// # Safety model
///
/// A kernel can write anywhere in device memory its arguments lead it to, and
/// nothing in its C signature says how far (the element count of a `float*` is a
/// convention between the kernel and its caller). So every stub is an `unsafe fn`
/// by default: the caller vouches, at each launch, that the kernel stays in bounds
/// for that launch configuration and those arguments.
///
/// A crate that has read a kernel and knows it is sound for every argument its
/// signature allows (it checks its bounds against its own length parameters, for
/// instance) can say so once, in the spirit of Rust 2024's `unsafe extern` blocks
/// and cxx's `unsafe extern "C++"`:
///
/// ```ignore
/// unsafe extern "CUDA" {
///     safe fn saxpy(a: f32, x: &[f32], y: &mut [f32], n: i32);
/// }
/// ```
///
/// The `unsafe` on the block is where the promise is made and where a reviewer
/// looks; the declaration is checked like any other, and the stub of a `safe fn`
/// is a safe `fn`. A plain `fn` inside the block stays `unsafe`. What a safe stub
/// still relies on, and the runtime cannot check, is exactly what the crate
/// vouched for: that the kernel's accesses stay within the buffers it is given.
///
/// # Builds without nvcc
///
/// With `DOCS_RS` set, or `KERNEL_BUILD_NO_DEVICE_CODE=1`, nvcc is not run: the
/// declarations are parsed from the raw source and the same module is generated,
/// but the binary carries no device code and `load` returns an error saying so.
/// `cargo check` and `cargo doc` then work on machines without CUDA.
///
/// # Rebuilds
///
/// The macro runs nvcc through `cuda-kernel-build`'s content-addressed cache: an
/// expansion whose inputs did not change runs no nvcc. The source file and every
/// header it includes are tracked (`include_bytes!`), as are the environment
/// variables the build reads (`option_env!`), so editing any of them rebuilds the
/// crate.
///
/// # Errors
///
/// Every problem is a compile error at the place it concerns: an nvcc error at the
/// source literal (with nvcc's text and the CUDA line), a missing file at the path
/// literal, an unknown arch at its literal, a declaration mismatch at the Rust type.
#[proc_macro]
pub fn cuda_module(input: TokenStream) -> TokenStream {
    backend::cuda_module(input.into()).into()
}

/// Checked bindings of the host functions of a module built with host code in `build.rs`
/// (`cuda_kernel_build::Build::host_code`).
///
/// ```ignore
/// use std::sync::Arc;
/// use cuda_kernel_runtime::{CudaSlice, CudaStream, Error};
///
/// cuda_kernel_runtime::host_functions!(hosted {
///     /// Sorts `n` keys with CUB on `stream`.
///     pub fn sort_keys(keys: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: i32,
///                      stream: &Arc<CudaStream>) -> Result<(), Error>;
/// });
/// ```
///
/// Each declaration names a host function that a file of the module defines with C linkage
/// (`extern "C" cudaError_t sort_keys(const unsigned* keys, unsigned* out, int n,
/// cudaStream_t stream) { ... }`) and is checked against it: the number of parameters, each
/// type, the const-ness of each pointer, the identity of each struct, the return type. The
/// Rust side says which memory a pointer holds: `&CudaSlice<T>` / `&CudaView<T>` (device,
/// `const T*`), `&mut CudaSlice<T>` / `&mut CudaViewMut<T>` (device, `T*`), `&[T]` /
/// `&mut [T]` (host), `*const T` / `*mut T` (as they are); `cudaStream_t` is
/// `&Arc<CudaStream>`; a `cudaError_t` return is `Result<(), Error>` (the error names the
/// CUDA error); a function that takes device memory returns a `Result` (ordering its
/// buffers can fail). A mismatch is a compile error at the Rust type naming the function,
/// the parameter, both types and the C file:line.
///
/// The generated code names the runtime as this crate's `Cargo.toml` does (a renamed
/// dependency works); a crate that reaches the runtime through a crate of its own re-exporting
/// it names that path first: `host_functions!(hosted { crate = "my_gpu::runtime"; ... })`.
///
/// Each binding is an `unsafe fn` with the declared signature: the C function can do
/// anything with the addresses it is given. Device buffers are ordered on the call's stream
/// as a kernel launch orders them (the stream waits on their pending work, and their later
/// users wait on the call); a function without a `cudaStream_t` runs on the legacy default
/// stream, and its buffers are ordered there.
#[proc_macro]
pub fn host_functions(input: TokenStream) -> TokenStream {
    backend::host_functions(input.into()).into()
}

/// Includes the Rust module generated by `cuda_kernel_build::Build::compile("name")`
/// in this crate's `build.rs` (it lives at `$OUT_DIR/kernel-build/name.rs`).
///
/// ```ignore
/// // build.rs
/// fn main() {
///     cuda_kernel_build::Build::new().file("kernels/vecmath.cu").compile("vecmath");
/// }
///
/// // src/lib.rs
/// cuda_kernel_runtime::include_kernels!(vecmath);
///
/// fn run(gpu: &cuda_kernel_runtime::Gpu) -> Result<(), cuda_kernel_runtime::Error> {
///     let k = vecmath::load(gpu)?;
///     # let _ = k;
///     Ok(())
/// }
/// ```
///
/// The module is `pub`; wrap the invocation in a private module to narrow it. Only a module
/// that the build script built in its last run is included: a name it does not build (a
/// typo, or a module removed from `build.rs` whose file an earlier build left behind) is a
/// compile error listing the modules it builds.
#[proc_macro]
pub fn include_kernels(input: TokenStream) -> TokenStream {
    backend::include_kernels(input.into()).into()
}

/// Makes a Rust type one that kernels take, defined once in Rust and shared with CUDA.
///
/// ```ignore
/// use cuda_kernel_runtime::{CudaType, vector::Float3};
///
/// /// What a particle is, on both sides.
/// #[derive(Clone, Copy, Debug, Default, PartialEq, CudaType)]
/// #[repr(C)]
/// pub struct Particle {
///     /// Where it is.
///     pub pos: Float3,
///     pub vel: [f32; 3],
///     pub mass: f32,
///     pub kind: Kind,
/// }
///
/// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, CudaType)]
/// #[repr(u8)]
/// pub enum Kind { #[default] Gas = 0, Dust = 1 }
/// ```
///
/// On a `#[repr(C)]` struct with named fields or a fieldless enum with an integer `repr`
/// (`#[repr(i32)]` is C's `int`), the derive implements cudarc's `DeviceRepr` (the type is a
/// kernel argument by value and a buffer element), `ValidAsZeroBits` where all-zero bytes
/// are a value (every struct whose fields are; an enum with a variant `= 0`), and
/// [`CudaType`](../cuda_kernel_runtime/trait.CudaType.html). A field is a number, `f16` or
/// `bf16`, a narrow float of `fp`, a type of `vector`, a `RawDevicePtr` (a device address;
/// `#[cuda(c_type = "const float*")]` spells its pointer type in CUDA), an array of these, or
/// another `#[derive(CudaType)]` type. For `bytemuck`, derive its `Pod` and `Zeroable` beside
/// this one where they hold (bytemuck checks that the type has no padding; for `f16` and `bf16`
/// fields, turn on `half`'s `bytemuck` feature in your manifest: the runtime does not).
///
/// The CUDA declaration comes from the Rust one: list the file in a build script
/// (`Build::rust_types("src/particles.rs")`) or in `cuda_module!` (`types = "src/particles.rs"`),
/// include `"src/particles.rs.cuh"` in the CUDA source, and a kernel taking `Particle` gets a
/// stub taking this very type; its layout is still checked against the compiled image.
///
/// What cannot cross is a compile error at the field: `bool` (Rust's must be 0 or 1; use
/// `u8`), `usize`/`isize` (the host's size), `char`, references and raw pointers (host
/// addresses), tuples, generics, `#[repr(packed)]`, a struct that is not `#[repr(C)]`, an enum
/// without an integer `repr`. A crate reaching the runtime under another path names it with
/// `#[cuda(crate = "my_gpu::runtime")]`.
#[proc_macro_derive(CudaType, attributes(cuda))]
pub fn derive_cuda_type(input: TokenStream) -> TokenStream {
    backend::derive_cuda_type(input.into()).into()
}

/// Writes, compiles (at build time, through the same pipeline as [`cuda_module!`]) and
/// types elementwise kernels from one CUDA statement.
///
/// ```ignore
/// use cuda_kernel_runtime::{elementwise, Gpu};
///
/// elementwise! {
///     /// Element-wise vector kernels.
///     pub mod vec_ops {
///         /// y ← a·x + y
///         pub fn axpy<T>(a: T, x: &[T], y: &mut [T]) for T in [f32, f64]
///             = "y[i] = a * x[i] + y[i]";
///         pub fn relu(x: &mut [f32]) = "x[i] = fmaxf(x[i], 0.0f)";
///     }
/// }
///
/// fn main() -> Result<(), cuda_kernel_runtime::Error> {
///     let gpu = Gpu::new(0)?;
///     let k = vec_ops::load(&gpu)?;
///     let x = gpu.upload(&[1.0f32; 1000])?;
///     let mut y = gpu.upload(&[2.0f32; 1000])?;
///     k.axpy(3.0f32, &x, &mut y)?; // safe: the statement reads and writes at `[i]` only
///     Ok(())
/// }
/// ```
///
/// The statement runs for every `i < n`, where `n` is the common length of the slices
/// (checked before the launch: [`Error::SliceLength`](../cuda_kernel_runtime/enum.Error.html)
/// names the slice that differs). Scalars are the same for every element. `&[T]` is read
/// (`const T*`), `&mut [T]` read and written (`T*`). The kernel is a grid-stride loop with
/// 16-byte vector loads and stores when every slice is aligned for them.
///
/// `fn f<T>(...) for T in [f32, f64, f16]` instantiates the kernel for each listed type and
/// gives one generic method; types are `f16`, `bf16`, `f32`, `f64`, `i8`..`i64`,
/// `u8`..`u64`.
///
/// # Keys
///
/// `preamble = "..."` (device functions the statements may call), `arch = [...]`,
/// `flags = [...]` and `crate = "my_gpu::runtime"` (the runtime's path, for a crate that
/// reaches it through a re-export) as in [`cuda_module!`].
///
/// # Safety
///
/// The launcher is a safe `fn` when the statement touches every slice only as `name[i]`,
/// forms no pointer and calls only C/CUDA math functions; the kernel then stays within its
/// slices. Otherwise (`x[i + 1]`, a function of the preamble, ...) it is an `unsafe fn`
/// whose documentation gives the reason.
///
/// # Errors
///
/// A mistake found in the statement (an input written, unbalanced brackets, a reserved
/// name) and nvcc's errors about it are compile errors at the string literal.
#[proc_macro]
pub fn elementwise(input: TokenStream) -> TokenStream {
    backend::elementwise(input.into()).into()
}

/// Writes, compiles and types reductions: a map expression per index, an associative and
/// commutative operator on `a` and `b`, its identity, and an optional post-map of the
/// result `r` (which may use `n`).
///
/// ```ignore
/// cuda_kernel_runtime::reduction! {
///     pub mod stats {
///         pub fn sum_squares<T>(x: &[T]) -> T for T in [f32, f64] {
///             map = "x[i] * x[i]"; reduce = "a + b"; identity = "0";
///         }
///         pub fn max_abs(x: &[f32]) -> f32 {
///             map = "fabsf(x[i])"; reduce = "fmaxf(a, b)"; identity = "0.0f";
///         }
///         pub fn mean(x: &[f32]) -> f64 {
///             map = "x[i]"; reduce = "a + b"; identity = "0"; post = "r / n";
///         }
///     }
/// }
/// # fn main() -> Result<(), cuda_kernel_runtime::Error> {
/// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let k = stats::load(&gpu)?;
/// let x = gpu.upload(&[3.0f32, -4.0])?;
/// assert_eq!(k.sum_squares(&x)?, 25.0);
/// # Ok(()) }
/// ```
///
/// `f(...)` returns the value (waiting for it); `f_into(..., out)` leaves it in `out[0]` on
/// the device. The first launch reduces per block (grid-stride loop, vector loads, warp
/// shuffles), the second combines the blocks' partials; the grid depends on `n` alone, so a
/// float result has the same bits on every run and GPU. NaN and infinities propagate as the
/// operator does in C (`a + b` gives NaN, `fmaxf` ignores NaN).
#[proc_macro]
pub fn reduction(input: TokenStream) -> TokenStream {
    backend::reduction(input.into()).into()
}

/// Writes, compiles and types prefix scans with a user operator.
///
/// ```ignore
/// cuda_kernel_runtime::scan! {
///     pub mod prefix {
///         pub fn cumsum<T>(x: &[T], y: &mut [T]) for T in [f32, i32, u64] {
///             op = "a + b"; identity = "0";
///         }
///         pub fn offsets(x: &[u32], y: &mut [u32]) {
///             op = "a + b"; identity = "0"; exclusive = true;
///         }
///     }
/// }
/// ```
///
/// `op` combines `a` (earlier) and `b` (later) and must be associative; `identity` is its
/// identity (the first output of an exclusive scan). One pass over the data: each block
/// scans a tile and takes its prefix from its predecessors by decoupled look-back.
#[proc_macro]
pub fn scan(input: TokenStream) -> TokenStream {
    backend::scan(input.into()).into()
}

#[cfg(test)]
mod tests {
    /// The options table of `cuda_module!`'s documentation lists exactly the keys the
    /// library knows, in its order.
    #[test]
    fn the_documented_keys_are_the_librarys() {
        let docs = include_str!("lib.rs");
        let documented: Vec<&str> = docs
            .lines()
            .filter_map(|l| l.strip_prefix("/// | `"))
            .filter_map(|l| l.split([' ', '`']).next())
            .collect();
        let known: Vec<&str> = cuda_kernel_build::__private::MACRO_KEYS
            .iter()
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(documented, known);
    }
}
