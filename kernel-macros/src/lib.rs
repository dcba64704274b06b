//! Procedural macros of the kernel framework. Use them through `kernel_runtime`.
