//! A stand-in for nvcc used by kernel-build's tests.
fn main() {}
