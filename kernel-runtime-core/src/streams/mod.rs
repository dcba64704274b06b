//! Order of work: streams ordered by cudarc's per-buffer events or by the program itself
//! (`ordering`), by one event per stream for the runtime's own buffers (`clock`), CUDA graphs captured from a stream (`graph`) or built step by step with
//! conditional nodes (`graph_build`), and timing with events on one stream or on several
//! streams and GPUs together (`timing`).

pub(crate) mod clock;
pub(crate) mod graph;
pub(crate) mod graph_build;
pub(crate) mod ordering;
pub(crate) mod timing;
