//! Launching a kernel: the configuration ([`Launch`](crate::Launch): grid, block, shared
//! memory, cluster, cooperative, the attributes of current GPUs) with the events a launch
//! fires (`event`), and its validation against the kernel and the device
//! (`validate`), how each argument is passed (`args`: device buffers and the
//! `ConstPtr`/`MutPtr` markers, values, host slices copied in and out, tuples for launches
//! by name), and the allocation-free launch core (`core`, with the attributes of
//! `cuLaunchKernelEx` on the stack: `attributes`) with what it knows of a kernel
//! (`kernel_info`) and what each launch records (`label`: the kernel last launched from each
//! thread, which a kernel fault's error names).

pub(crate) mod args;
pub(crate) mod attributes;
pub(crate) mod config;
pub(crate) mod core;
pub(crate) mod event;
pub(crate) mod host_fn;
pub(crate) mod kernel_info;
pub(crate) mod label;
pub(crate) mod validate;
