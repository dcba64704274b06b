//! NCCL's one checked layer: the library opened once (`library`: `libnccl.so.2` or
//! `KERNEL_NCCL_LIBRARY`, through `cuda_kernel_objects::native`, every entry point resolved
//! up front, a missing library or symbol [`Error::NoNccl`](crate::Error::NoNccl) naming it),
//! and every NCCL call of the runtime made here, one checked method per entry point
//! (`calls`: communicators and groups; `collectives`: the collectives), each returning
//! `Result<_, Error>` with the call's name in the error (`results`). A result of
//! `ncclInProgress` (a non-blocking communicator's) is finished there by polling
//! (`progress`), so that callers see every call finished. The table of entry points is seen
//! by this folder alone; the rest of `collective/` calls the methods.

mod calls;
mod collectives;
mod library;
mod progress;
mod results;
#[cfg(all(test, target_os = "linux"))]
mod tests;

pub(crate) use calls::Optional;
pub(crate) use library::{Nccl, nccl};
pub(crate) use results::Settled;
