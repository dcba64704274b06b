//! [`KernelInfo`]: one kernel as the launch core needs it, resolved once when its module loads
//! (`code::module`): the function handle, the limits validation checks, its label (what a
//! fault's error and a profiler name it by), and what launches learn about it (dynamic shared
//! memory raised so far, the last cluster occupancy answer).

use std::sync::atomic::{AtomicU32, AtomicU64};

use cudarc::driver::sys;

use crate::launch::label::KernelLabel;
use crate::launch::validate::{KernelLimits, PlainLimits};

/// One resolved kernel.
pub(crate) struct KernelInfo {
    pub(crate) name: String,
    /// Module and kernel name, interned: what each launch records for error messages (and
    /// names its NVTX range by).
    pub(crate) label: &'static KernelLabel,
    pub(crate) function: sys::CUfunction,
    pub(crate) limits: KernelLimits,
    /// The same limits with the device's, folded for plain launches.
    pub(crate) plain: PlainLimits,
    /// Current `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, raised on demand.
    pub(crate) max_dynamic_shared: AtomicU32,
    /// The last cluster occupancy query: `(threads | shared << 16) << 8 | largest cluster`,
    /// 0 before any.
    pub(crate) cluster_fit: AtomicU64,
}

// SAFETY: a CUfunction is a driver handle usable from any thread with the context current.
unsafe impl Send for KernelInfo {}
// SAFETY: as above; only the atomic is mutated.
unsafe impl Sync for KernelInfo {}
