//! Helpers shared by every GPU test and example of the workspace, so that each exists once:
//!
//! - [`gpu_or_skip`]: device 0, or `None` after printing `skipped: <reason>` to stderr; with
//!   `KERNEL_REQUIRE_GPU=1` a missing GPU is a failure instead.
//! - [`Rng`] (the `fastrand` generator, seeded per test) and [`NonZeroData`]: random test data
//!   that is never zero, so a kernel that skips an element or reads the wrong one cannot
//!   match a CPU reference by accident.
//! - [`assert_close`]: element-wise comparison with a relative tolerance.
//! - [`bench`](mod@bench): timing, median and fastest repetition, and the `BENCH {json}` report line.
//! - [`workspace_root`], [`cargo`] and [`outside_target`]: for tests that read the repository
//!   or build crates outside the workspace with cargo.
//!
//! ```
//! use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};
//!
//! let xs = Rng::with_seed(1).nonzero_f32s(256);
//! let want: Vec<f32> = xs.iter().map(|x| 2.0 * x).collect();
//! if let Some(gpu) = gpu_or_skip() {
//!     let x = gpu.upload(&xs).unwrap();
//!     let got: Vec<f32> = gpu.download(&x).unwrap().iter().map(|x| 2.0 * x).collect();
//!     assert_close(&got, &want, 0.0);
//! }
//! ```

pub mod bench;
mod compare;
mod data;
mod gpu;
mod workspace;

pub use compare::assert_close;
pub use data::NonZeroData;
pub use fastrand::Rng;
pub use gpu::{
    REQUIRE_GPU, REQUIRE_GPUS, gpu_at_least_or_skip, gpu_or_skip, gpu_required, two_gpus_or_skip,
};
pub use workspace::{cargo, outside_target, workspace_root};
