//! Compile-fail tests of the macros under a renamed runtime (`gpu`); see `ui.rs`.
