//! Rust code generation from a verified module (cannot fail).
