//! Memory, one kind per file, each adding its `Gpu` methods and, where kernels take it, its
//! kernel-argument impls beside the type: device buffers (`buffers`: upload, download,
//! fills, copies), page-locked host memory (`pinned`, `registered`), managed memory
//! (`managed`), pitched allocations (`pitched`) and 2D/3D copies between all of them
//! (`copy3d`), memory shared between processes (`ipc`) and devices (`peer`), what the
//! driver knows of an address (`pointer`), and buffers whose uses on several streams the
//! runtime orders with one event per stream (`tracked`: the default kind, what `Gpu::upload`
//! and `Gpu::zeros` return), and the traits the `Gpu`'s copies take any of them through
//! (`device_memory`).

pub(crate) mod buffers;
pub(crate) mod copy3d;
pub(crate) mod device_memory;
pub(crate) mod ipc;
pub(crate) mod managed;
pub(crate) mod peer;
pub(crate) mod pinned;
pub(crate) mod pitched;
pub(crate) mod pointer;
pub(crate) mod registered;
pub(crate) mod tracked;
