//! The runtime's one way into the CUDA driver. Every driver call of the runtime goes through
//! the wrappers here (or cudarc's safe types): each an `unsafe fn` that makes one driver call
//! and returns `Result<_, DriverError>`, out-values returned, nothing else. Where cudarc's
//! checked layer (`cudarc::driver::result`) has the entry point, the wrapper calls it; where
//! it lacks one, the wrapper calls the raw symbol (`cudarc::driver::sys`) and turns its
//! `CUresult` into the same result. No file outside this folder calls either layer
//! (`tests/layers.rs` checks it). Callers name the call (`.call("cuGraphCreate")`), which
//! maps a failure to the runtime's error (`crate::error`); nothing here knows that error.
//!
//! Whether the driver library can be reached without a panic, and whether it has been
//! initialised, lives here too (`load`): the device's `ensure_driver` asks it before the first
//! call, and an error's description asks it before calling into the driver.
//!
//! What was launched last from each thread (`last_launch`) lives here too, so that a fault's
//! error can name it without the error knowing the launch layer.
//!
//! Files follow cudarc's grouping: `context` (keeping the thread's current context across
//! drops that change it), `device` (driver version, peers, the device's memory
//! pools), `memory` (allocations, copies, fills, managed memory, pools), `event`, `stream`,
//! `ipc`, `module` (modules, functions, libraries), `link`, `launch` (launches and occupancy),
//! `graph`, `texture` (arrays, texture and surface objects) and `tensor_map`.

pub(crate) mod context;
pub(crate) mod device;
pub(crate) mod event;
pub(crate) mod graph;
pub(crate) mod ipc;
pub(crate) mod last_launch;
pub(crate) mod launch;
pub(crate) mod link;
pub(crate) mod load;
pub(crate) mod memory;
pub(crate) mod module;
pub(crate) mod stream;
pub(crate) mod tensor_map;
pub(crate) mod texture;
