//! What a launch leaves behind for later messages: each kernel's [`KernelLabel`] (its module
//! and name, made once per distinct pair and kept for the life of the process), recorded as
//! the kernel launched most recently from the thread (`driver::last_launch`), which a kernel
//! fault's error names because the driver does not say which kernel faulted.
//!
//! Recording a launch stores one pointer in a thread-local cell: no allocation, no lock, no
//! reference count. The label lives as long as the process so that the cell may hold it after
//! its module is unloaded; labels are interned, so loading a module again (or into another
//! context) reuses them, and the memory kept is bounded by the distinct kernel names a process
//! loads.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// A kernel as messages and profilers name it: `` `poke` of module `m` ``, `m::poke`.
pub(crate) struct KernelLabel {
    /// The module's name.
    pub(crate) module: &'static str,
    /// The kernel's name as the runtime knows it.
    pub(crate) kernel: &'static str,
    /// The NVTX range pushed around each launch of this kernel, registered once.
    #[cfg(feature = "nvtx")]
    pub(crate) range: crate::profile::nvtx::LaunchRange,
}

impl std::fmt::Display for KernelLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` of module `{}`", self.kernel, self.module)
    }
}

/// Every label made so far, by (module, kernel).
static LABELS: Mutex<Option<HashMap<(&'static str, &'static str), &'static KernelLabel>>> =
    Mutex::new(None);

impl KernelLabel {
    /// The label of `kernel` in `module`: made (and, with the `nvtx` feature, registered with
    /// NVTX) the first time the pair is seen, the same one afterwards. Called when a module's
    /// kernels are resolved, never per launch.
    pub(crate) fn intern(module: &str, kernel: &str) -> &'static KernelLabel {
        let mut labels = LABELS.lock().unwrap_or_else(PoisonError::into_inner);
        let labels = labels.get_or_insert_with(HashMap::new);
        // The map is covariant in its keys: look up with the borrowed names.
        let shorter: &HashMap<(&str, &str), &'static KernelLabel> = labels;
        if let Some(&label) = shorter.get(&(module, kernel)) {
            return label;
        }
        let module: &'static str = Box::leak(module.into());
        let kernel: &'static str = Box::leak(kernel.into());
        let label: &'static KernelLabel = Box::leak(Box::new(KernelLabel {
            module,
            kernel,
            #[cfg(feature = "nvtx")]
            range: crate::profile::nvtx::LaunchRange::register(module, kernel),
        }));
        labels.insert((module, kernel), label);
        label
    }
}

/// Records a successful launch of `label`'s kernel from this thread (one thread-local store,
/// in the driver layer, where a fault's error reads it back).
#[inline(always)]
pub(crate) fn record(label: &'static KernelLabel) {
    crate::driver::last_launch::record_kernel(label);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_interned_and_name_module_and_kernel() {
        let a = KernelLabel::intern("label_test_m", "poke");
        let b = KernelLabel::intern(&String::from("label_test_m"), &String::from("poke"));
        assert!(std::ptr::eq(a, b));
        assert!(!std::ptr::eq(
            a,
            KernelLabel::intern("label_test_m", "peek")
        ));
        assert_eq!(a.to_string(), "`poke` of module `label_test_m`");
    }
}
