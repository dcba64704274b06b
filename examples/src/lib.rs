//! Shared helpers of the examples: seeded non-zero random data ([`Rng`] with [`NonZeroData`],
//! the workspace's test helpers), comparison against a CPU reference with a tolerance
//! ([`compare`]), a short printed report ([`Report`]), and the path taken when no GPU is usable
//! ([`run`], [`embedded!`]).
//!
//! Every example has the same shape:
//!
//! ```no_run
//! use std::process::ExitCode;
//! use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare};
//!
//! cuda_kernel_runtime::cuda_module! {
//!     mod scale {
//!         source = r#"
//!             extern "C" __global__ void twice(const float* x, float* y, int n) {
//!                 int i = blockIdx.x * blockDim.x + threadIdx.x;
//!                 if (i < n) y[i] = 2.0f * x[i];
//!             }
//!         "#;
//!     }
//! }
//!
//! fn main() -> ExitCode {
//!     kernel_examples::run("twice", &[kernel_examples::embedded!(scale)], |gpu| {
//!         let xs = Rng::with_seed(1).nonzero_f32s(1000);
//!         let mut ys = vec![0.0f32; xs.len()];
//!         let k = scale::load(gpu)?;
//!         let cfg = cuda_kernel_runtime::Launch::for_num_elems(1000);
//!         // SAFETY: `twice` touches x[i] and y[i] for i < n only; both hold n elements.
//!         unsafe { k.twice(&cfg, cuda_kernel_runtime::In(&xs), cuda_kernel_runtime::Out(&mut ys), 1000)? };
//!         let want: Vec<f32> = xs.iter().map(|x| 2.0 * x).collect();
//!         let mut report = Report::new("twice", gpu);
//!         report.check("y", compare(&ys, &want, Tolerance::EXACT));
//!         Ok::<_, cuda_kernel_runtime::Error>(report)
//!     })
//! }
//! ```
//!
//! Exit status: 0 when every check passes, 1 when one fails or the run hits an error, 2 when
//! no GPU can be opened (after printing what the binary embeds and what is missing).

mod compare;
mod embedded;
mod report;
mod run;
mod timing;

pub use compare::{Comparison, Tolerance, compare};
pub use embedded::Embedded;
pub use kernel_test_support::{NonZeroData, Rng};
pub use report::Report;
pub use run::{NO_GPU, run};
pub use timing::mean_time;
