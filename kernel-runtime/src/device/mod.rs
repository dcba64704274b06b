//! The device: [`Gpu`](crate::Gpu) (a context and the stream work goes to), finding the
//! driver without a panic (`driver`), what the device allows (`limits`), and the context's
//! configuration (`config`: stack, printf and heap limits, cache preferences, carveout,
//! profiler).

pub(crate) mod config;
pub(crate) mod driver;
pub(crate) mod gpu;
pub(crate) mod limits;
