//! Run-time half of the kernel framework.
