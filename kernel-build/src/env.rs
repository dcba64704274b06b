//! Environment variables, all read through [`get`].
