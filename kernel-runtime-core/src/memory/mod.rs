//! Memory, one kind per file, each adding its `Gpu` methods: device buffers (`buffers`:
//! uploads into existing memory, downloads, fills, copies), page-locked host memory (`pinned`,
//! `registered`), managed memory (`managed`), pitched allocations (`pitched`) and 2D/3D copies
//! between all of them (`copy3d`), memory shared between processes (`ipc`) and devices
//! (`peer`), what the driver knows of an address (`pointer`), and buffers whose uses on
//! several streams the runtime orders with one event per stream (`tracked`: the default kind,
//! what `Gpu::upload` and `Gpu::zeros` return, with its record of uses in `uses`), the
//! stream-ordered pools they are allocated from (`pool`: the device's, or made here) and pools
//! shared between processes (`pool_ipc` on Linux, with `fd_socket` passing a pool's file
//! descriptor over a Unix socket), the traits the `Gpu`'s copies take any of them through
//! (`device_memory`), and one use of a buffer on a stream, waited for and then recorded
//! (`prepared`), which copies and launches share. How a kernel takes each kind is the
//! launch's business (`launch::args`); memory knows nothing of kernels.
//!
//! The files import each other in one direction (a test, `tests/layers.rs`, fails on a
//! cycle): at the bottom the record of a tracked buffer's uses (`uses`), one prepared use
//! (`prepared`) and the traits with cudarc's kinds (`device_memory`), which name none of the
//! runtime's kinds; each kind implements the traits beside itself; the buffers are made from
//! a pool (`tracked` imports `pool`, never the other way).

pub(crate) mod buffers;
pub(crate) mod copy3d;
pub(crate) mod device_memory;
#[cfg(target_os = "linux")]
pub(crate) mod fd_socket;
pub(crate) mod ipc;
pub(crate) mod managed;
pub(crate) mod peer;
pub(crate) mod pinned;
pub(crate) mod pitched;
pub(crate) mod pointer;
pub(crate) mod pool;
#[cfg(target_os = "linux")]
pub(crate) mod pool_ipc;
pub(crate) mod prepared;
pub(crate) mod registered;
pub(crate) mod tracked;
pub(crate) mod uses;
