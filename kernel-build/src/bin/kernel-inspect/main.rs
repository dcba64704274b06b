//! `kernel-inspect`: what a fatbin, a CUDA source or a built binary holds.
fn main() {}
