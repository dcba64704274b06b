//! Autotuning: of several variants of a kernel (template instantiations, launch shapes), the
//! fastest for each problem key on the GPU the program runs on, chosen once and launched
//! after that at the cost of a lookup.
//!
//! Every variant is compiled ahead of time, like any kernel of a module: tuning times
//! machine code already in the binary and never needs a compiler where the program runs.
//!
//! - [`Variant`] is one way of running the kernel on the call's arguments (implement it, or
//!   make one from a closure with [`variant`]);
//! - a [`Tuner`], one per tuned kernel (a `static`), settles each key on the first call for it
//!   on a GPU model: a pin (`KERNEL_TUNE_PIN`), the [`Table`] embedded in the program, the disk
//!   cache, or else timing every variant with CUDA events on the call's stream (declared
//!   variants in replays of captured graphs);
//! - [`Outputs`] says how the call's data survives the timing runs: [`Idempotent`] (timed on
//!   the real buffers) or [`Restore`] (saved before, put back after);
//! - choices are [`Choice`] rows (kernel, [`GpuModel`], module hash, key, variant, time), the
//!   same in the cache, in an embedded table and in what [`read_cache`] and
//!   `cuda-kernel-inspect tune export` collect.
//!
//! A module declares its variants with a `tune` item of `cuda_module!` (or `Build::tune`)
//! and gets, per tuned kernel, `<kernel>_tuned(key, outputs, args...)`: the kernel's own
//! typed arguments after a [`Key`] and a [`Protection`] ([`Idempotent`] or
//! [`RestoreWritten`]), settled by the module's `static` tuner (`m::tuners::KERNEL`):
//!
//! ```no_run
//! use cuda_kernel_runtime::tune::RestoreWritten;
//!
//! cuda_kernel_runtime::cuda_module! {
//!     mod sums {
//!         source = r#"
//!             template <int BLOCK, int ITEMS>
//!             __global__ void __launch_bounds__(BLOCK) partial(const float* x, float* total, int n) {
//!                 __shared__ float s[BLOCK];
//!                 float v = 0;
//!                 for (int k = 0; k < ITEMS; ++k) {
//!                     int i = (blockIdx.x * ITEMS + k) * BLOCK + threadIdx.x;
//!                     if (i < n) v += x[i];
//!                 }
//!                 s[threadIdx.x] = v;
//!                 __syncthreads();
//!                 for (int w = BLOCK / 2; w > 0; w /= 2) {
//!                     if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
//!                     __syncthreads();
//!                 }
//!                 if (threadIdx.x == 0) atomicAdd(total, s[0]);
//!             }
//!         "#;
//!         tune partial {
//!             BLOCK = [128, 256];
//!             ITEMS = [4, 8];
//!             block = "BLOCK";
//!             grid = "n.div_ceil(BLOCK * ITEMS)";
//!         }
//!     }
//! }
//!
//! let gpu = cuda_kernel_runtime::Gpu::new(0)?;
//! let m = sums::load(&gpu)?;
//! let n = 1 << 24;
//! let x = gpu.upload(&vec![1.0f32; n as usize])?;
//! let mut total = gpu.zeros::<f32>(1)?;
//! // SAFETY: each thread reads x[i] for i < n and adds into total[0] only. The kernel adds
//! // into `total`: it is saved before the timing runs and put back after.
//! unsafe { m.partial_tuned(n, RestoreWritten, &x, &mut total, n)? };
//! assert_eq!(sums::tuners::PARTIAL.tunings(), 1);
//! # Ok::<(), cuda_kernel_runtime::Error>(())
//! ```
//!
//! A program can also list variants of its own (any [`Variant`], each launching what it
//! likes) and time them with a [`Tuner`] of its own:
//!
//! ```no_run
//! use cuda_kernel_runtime::{Error, Gpu, Launch, TrackedBuffer};
//! use cuda_kernel_runtime::tune::{Idempotent, Table, Tuner, Variant};
//!
//! cuda_kernel_runtime::cuda_module! {
//!     mod sums {
//!         source = r#"
//!             template <int BLOCK, int ITEMS>
//!             __global__ void __launch_bounds__(BLOCK) partial(const float* x, float* out, int n) {
//!                 __shared__ float s[BLOCK];
//!                 float v = 0;
//!                 for (int k = 0; k < ITEMS; ++k) {
//!                     int i = (blockIdx.x * ITEMS + k) * BLOCK + threadIdx.x;
//!                     if (i < n) v += x[i];
//!                 }
//!                 s[threadIdx.x] = v;
//!                 __syncthreads();
//!                 for (int w = BLOCK / 2; w > 0; w /= 2) {
//!                     if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
//!                     __syncthreads();
//!                 }
//!                 if (threadIdx.x == 0) out[blockIdx.x] = s[0];
//!             }
//!             template __global__ void partial<128, 4>(const float*, float*, int);
//!             template __global__ void partial<256, 8>(const float*, float*, int);
//!         "#;
//!     }
//! }
//!
//! struct Args<'a> { x: &'a TrackedBuffer<f32>, out: &'a mut TrackedBuffer<f32>, n: i32 }
//!
//! /// One instantiation and the shape it is launched with.
//! struct Shape { name: &'static str, block: u32, items: u32 }
//!
//! impl Variant<(&sums::Module, Args<'_>)> for Shape {
//!     fn name(&self) -> &str { self.name }
//!     fn launch(&self, _: &Gpu, (m, a): &mut (&sums::Module, Args<'_>)) -> Result<(), Error> {
//!         let cfg = Launch::new((a.n as u32).div_ceil(self.block * self.items), self.block);
//!         // SAFETY: each thread reads x[i] for i < n and writes out[blockIdx.x] only.
//!         unsafe {
//!             match self.block {
//!                 128 => m.partial__128_4(&cfg, &*a.x, &mut *a.out, a.n),
//!                 _ => m.partial__256_8(&cfg, &*a.x, &mut *a.out, a.n),
//!             }
//!         }
//!     }
//! }
//!
//! // What `cuda-kernel-inspect tune export` wrote; `include_str!("tuned.tsv")` in a program.
//! static TUNED: Table = Table::new("# cuda-kernel tuning table 1\n");
//! static PARTIAL: Tuner<i32> = Tuner::new("partial").module(&sums::METADATA).table(&TUNED);
//!
//! let gpu = Gpu::new(0)?;
//! let m = sums::load(&gpu)?;
//! let n = 1 << 24;
//! let x = gpu.upload(&vec![1.0f32; n as usize])?;
//! let mut out = gpu.zeros::<f32>(n as usize / 512)?;
//! let shapes = [
//!     Shape { name: "block128_items4", block: 128, items: 4 },
//!     Shape { name: "block256_items8", block: 256, items: 8 },
//! ];
//! // Writes out[] from x[] alone: the same after any number of runs.
//! PARTIAL.launch(&gpu, &n, &shapes, &mut (&m, Args { x: &x, out: &mut out, n }), Idempotent)?;
//! # Ok::<(), Error>(())
//! ```

mod cache;
pub(crate) mod declared;
mod key;
mod measure;
mod model;
mod outputs;
mod policy;
mod protection;
pub(crate) mod rule;
mod table;
mod tuner;
mod variant;

pub use cuda_kernel_objects::tuning::Choice;
pub use key::Key;
pub use model::GpuModel;
pub use outputs::{Idempotent, Outputs, Restore};
pub use protection::{Protection, RestoreWritten};
pub use table::Table;
pub use tuner::Tuner;
pub use variant::{FnVariant, Variant, variant};

use std::path::Path;

use crate::error::Error;

/// Every choice in a tuning cache folder (`dir`, or the default one: `KERNEL_TUNE_CACHE_DIR`,
/// else `tune/` in the runtime's cache folder), sorted; damaged entries are skipped. With
/// [`Table::render`], what a program writes to make the table it will embed
/// (`cuda-kernel-inspect tune export` does the same from the command line).
///
/// ```no_run
/// use cuda_kernel_runtime::tune::{Table, read_cache};
/// let rows = read_cache(None)?;
/// std::fs::write("tuned.tsv", Table::render(&rows)).expect("writable");
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub fn read_cache(dir: Option<&Path>) -> Result<Vec<Choice>, Error> {
    let dir = match dir {
        Some(d) => d.to_owned(),
        None => cache::default_dir().ok_or_else(|| Error::Tuning {
            kernel: "(cache)".into(),
            problem: "no cache folder: set KERNEL_TUNE_CACHE_DIR or HOME".into(),
        })?,
    };
    let mut rows = cache::read_all(&dir).map_err(|e| Error::Tuning {
        kernel: "(cache)".into(),
        problem: format!("cannot read `{}`: {e}", dir.display()),
    })?;
    rows.sort();
    Ok(rows)
}

#[cfg(test)]
mod tests;
