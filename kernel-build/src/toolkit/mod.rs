//! Finding nvcc and what it supports.
