//! The runtime's one way into the CUDA driver. Every driver call of the runtime goes through
//! cudarc's checked layer (`cudarc::driver::result`, or cudarc's safe types) or, for the entry
//! points cudarc's layer lacks, through the wrappers here: each an `unsafe fn` that makes one
//! driver call and turns its `CUresult` into `Result<_, DriverError>` as cudarc's layer does,
//! out-values returned, nothing else. Callers name the call (`.call("cuGraphCreate")`), which
//! maps a failure to the runtime's error (`crate::error`); nothing here knows that error.
//!
//! Whether the driver library can be reached without a panic, and whether it has been
//! initialised, lives here too (`load`): the device's `ensure_driver` asks it before the first
//! call, and an error's description asks it before calling into the driver.
//!
//! What was launched last from each thread (`last_launch`) lives here too, so that a fault's
//! error can name it without the error knowing the launch layer.
//!
//! Files follow cudarc's grouping: `device` (driver version, peers), `memory`, `ipc`, `module`
//! (modules, functions, libraries), `link`, `launch`, `graph`, `texture` (arrays, texture and
//! surface objects) and `tensor_map`.

pub(crate) mod device;
pub(crate) mod graph;
pub(crate) mod ipc;
pub(crate) mod last_launch;
pub(crate) mod launch;
pub(crate) mod link;
pub(crate) mod load;
pub(crate) mod memory;
pub(crate) mod module;
pub(crate) mod tensor_map;
pub(crate) mod texture;
