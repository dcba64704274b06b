//! The device: [`Gpu`](crate::Gpu) (a context and the stream work goes to), initialising the
//! driver without a panic (`init`), what the device allows (`limits`), and the context's
//! configuration (`config`: stack, printf and heap limits, cache preferences, carveout,
//! profiler).

pub(crate) mod config;
pub(crate) mod gpu;
pub(crate) mod init;
pub(crate) mod limits;
