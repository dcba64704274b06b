//! Collectives across GPUs through NCCL (the `nccl` feature): [`Communicator`]s for every GPU
//! of the process or for one rank of several processes, the collectives (all-reduce,
//! broadcast, reduce, all-gather, reduce-scatter, send and receive) on any of the runtime's
//! device memory (a [`TrackedBuffer`](crate::TrackedBuffer) or a view of one, or cudarc's
//! buffers), typed by [`NcclElement`], and [`Group`]s of them.
//!
//! A collective is ordered as a launch is: on the communicator's stream it waits for the last
//! writes of what it reads (and every use of what it writes) on other streams, and later uses
//! of its outputs on other streams wait for it.
//!
//! NCCL is opened at run time (`nccl`): building needs no NCCL, and a machine without it
//! gets [`Error::NoNccl`](crate::Error::NoNccl) from the first call. Files: `nccl/` (NCCL's
//! one checked layer: opening it, one checked method per entry point, finishing what a
//! non-blocking communicator's calls leave in progress; nothing else calls NCCL),
//! `config` (the configuration that asks NCCL for a non-blocking communicator), `element` (the
//! element types), `id` (the unique id, as bytes or text), `job` (a launcher's job read from
//! its variables, and the id served by rank 0 over TCP), `communicator` (making, waiting for,
//! aborting and dropping communicators), `split` (new communicators from some ranks of one),
//! `group` (the calls, ordered), `ops` (the calls one at a time, on the communicator),
//! `timing` (work of several ranks timed together), `serial` (one order of NCCL's kernels on
//! every device when several threads drive communicators made together).

pub(crate) mod communicator;
mod config;
pub(crate) mod element;
pub(crate) mod group;
pub(crate) mod id;
pub(crate) mod job;
mod nccl;
mod ops;
mod serial;
mod split;
mod timing;
