//! What was launched most recently from each thread, for the error of a kernel fault: the
//! driver reports a fault at a later call and does not say which kernel failed. A launch the
//! driver accepted stores its kernel's label here (one thread-local store of a pointer to a
//! label that lives as long as the process: no allocation, no lock, no reference count); a
//! fault's error reads it back. The label is anything that prints itself (the launch layer's
//! `` `poke` of module `m` ``), so that this layer knows nothing of the layers above it.

use std::cell::Cell;
use std::fmt::Display;

/// What was launched most recently from a thread.
#[derive(Clone, Copy)]
pub(crate) enum LastLaunch {
    /// Nothing yet.
    Nothing,
    /// One kernel, by its label.
    Kernel(&'static (dyn Display + Sync)),
    /// A CUDA graph's kernels (`Graph::launch`).
    Graph,
}

impl LastLaunch {
    /// For an error message: `` `poke` of module `m` ``, what a graph replay launched, or
    /// `None` when nothing was launched from this thread.
    pub(crate) fn describe(self) -> Option<String> {
        match self {
            LastLaunch::Nothing => None,
            LastLaunch::Kernel(label) => Some(label.to_string()),
            LastLaunch::Graph => {
                Some("one of the kernels of a CUDA graph replayed by `Graph::launch`".to_owned())
            }
        }
    }
}

thread_local! {
    /// The calling thread's last launch: a `const` cell of plain data, so an access is a
    /// thread-pointer offset, with no lazy initialization and no destructor to register.
    static LAST: Cell<LastLaunch> = const { Cell::new(LastLaunch::Nothing) };
}

/// Records a successful launch, from this thread, of the kernel `label` names.
#[inline(always)]
pub(crate) fn record_kernel(label: &'static (dyn Display + Sync)) {
    LAST.with(|last| last.set(LastLaunch::Kernel(label)));
}

/// Records a successful replay of a graph from this thread.
#[inline]
pub(crate) fn record_graph() {
    LAST.with(|last| last.set(LastLaunch::Graph));
}

/// What was launched most recently from this thread.
pub(crate) fn last() -> LastLaunch {
    LAST.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    static POKE: &str = "`poke` of module `last_launch_threads`";

    #[test]
    fn each_thread_keeps_its_own_last_launch() {
        std::thread::spawn(|| assert!(matches!(last(), LastLaunch::Nothing)))
            .join()
            .unwrap();
        record_kernel(&POKE);
        assert_eq!(last().describe().as_deref(), Some(POKE));
        std::thread::spawn(|| {
            assert_eq!(last().describe(), None);
            record_graph();
            assert!(matches!(last(), LastLaunch::Graph));
            assert!(last().describe().unwrap().contains("CUDA graph"));
        })
        .join()
        .unwrap();
        assert_eq!(last().describe().as_deref(), Some(POKE));
    }
}
