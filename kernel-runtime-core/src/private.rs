//! Not public API: what generated code uses. Names here change together with the code
//! generator, never for users.

use std::ffi::c_void;

pub use ::bytemuck;
pub use ::cudarc;
pub use ::half;

pub use crate::code::global::global;
pub use crate::code::module::spec::{Aligned, Labelled};
pub use crate::code::module::{
    LoadedModule, compile_module, library_module, load_library, load_module, load_module_with,
};
pub use crate::generators::launch::{
    SliceLen, check_output, common_len, elementwise_launch, read_one, reduction_launches,
    scan_launch, scan_scratch, scratch,
};
pub use crate::launch::args::host::PreparedHost;
pub use crate::launch::args::null::{PreparedNull, PreparedOption};
pub use crate::launch::args::tuple::{AnyArg, ArgTuple};
pub use crate::launch::args::values::PreparedValue;
pub use crate::launch::args::{ConstPtr, DeviceArg, Exactly, MutPtr, PreparedArg};
pub use crate::memory::prepared::PreparedBuffer;
pub use cuda_kernel_generate::Dtype;
pub use cuda_kernel_generate::geometry::scan_items;
pub use cuda_kernel_objects::label::{header as label_header, header_len as label_len};

use crate::error::Error;

/// The declared variants of a tuned kernel: what a generated `<kernel>_tuned` method calls.
pub mod tune {
    pub use crate::tune::declared::{Declared, launch};
    pub use crate::tune::rule::{RuleOp, Shape};

    /// A call's integer argument as a rule reads it (saturated to `i64`).
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::__private::tune::int(7u32), 7);
    /// assert_eq!(cuda_kernel_runtime::__private::tune::int(u64::MAX), i64::MAX);
    /// ```
    pub fn int<T: TryInto<i64>>(value: T) -> i64 {
        value.try_into().unwrap_or(i64::MAX)
    }
}

/// Calls of host functions from `host_functions!` bindings.
pub mod host {
    pub use crate::launch::host_fn::*;
}
use crate::launch::config::Launch;

/// Launches kernel number `kernel` of `module` on the module's stream. Allocates nothing; the
/// configuration is validated first. Not generic and not inlined: compiled once here, whatever
/// the number of stubs calling it.
///
/// # Safety
/// `params` must hold one pointer per parameter of the kernel, each to a value of exactly that
/// parameter's type, alive until this returns; device memory behind them must stay valid until
/// the kernel finishes. Generated stubs guarantee this by construction.
///
/// ```no_run
/// # use std::ffi::c_void;
/// # use cuda_kernel_runtime::__private::{launch, load_module}; use cuda_kernel_runtime::spec::ModuleSpec;
/// # static SPEC: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let m = load_module(&gpu, &SPEC)?;
/// let mut n = 0i32;
/// let mut params = [(&raw mut n).cast::<c_void>()];
/// // SAFETY: kernel 0 takes one `int`.
/// unsafe { launch(&m, 0, &cuda_kernel_runtime::Launch::for_num_elems(1), &mut params)? };
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub unsafe fn launch(
    module: &LoadedModule,
    kernel: usize,
    cfg: &Launch,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    // SAFETY: forwarded to the caller.
    unsafe { crate::code::module::launch_params(module, kernel, cfg, params) }
}
