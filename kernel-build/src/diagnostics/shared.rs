//! Messages about Rust types shared with CUDA (`#[derive(CudaType)]` and the headers written
//! from them), the same for the derive, a build script and `cuda_module!`'s `types` key.

/// A compile could not find `header`: when it is the header of a Rust file's shared types
/// (`src/x.rs.cuh`), which only a module that names the file writes, the message naming the
/// fix for both doors; `None` for any other header.
pub fn types_header_missing(header: &str) -> Option<String> {
    let file = header.strip_suffix(".cuh").filter(|f| f.ends_with(".rs"))?;
    Some(format!(
        "`{header}` is the CUDA header of the types `{file}` shares with CUDA \
         (`#[derive(CudaType)]`), and it is written only for a module that names that file: add \
         `types = \"{file}\"` to the `cuda_module!`, or `.rust_types(\"{file}\")` to the build \
         script's `Build` (the path from the crate root, as the `#include` writes it)"
    ))
}

/// The type is not `#[repr(C)]`.
pub fn not_repr_c(name: &str) -> String {
    format!(
        "`{name}` is shared with CUDA but is not `#[repr(C)]`: Rust may reorder its fields; add \
         `#[repr(C)]`"
    )
}

/// The type is `#[repr(packed)]`.
pub fn packed(name: &str) -> String {
    format!(
        "`{name}` is `#[repr(packed)]`: nvcc lays a struct out with its fields aligned, so the \
         two sides would disagree; remove `packed` (and add padding fields where you want them)"
    )
}

/// The type has generic parameters.
pub fn generic(name: &str) -> String {
    format!(
        "`{name}` has generic parameters: a CUDA declaration is one layout; share a concrete type"
    )
}

/// A struct without named fields, or a union.
pub fn not_named_struct(name: &str, what: &str) -> String {
    format!(
        "`{name}` is {what}: a type shared with CUDA is a struct with named fields or a fieldless \
         enum"
    )
}

/// An enum variant that carries data.
pub fn variant_with_data(name: &str, variant: &str) -> String {
    format!(
        "variant `{name}::{variant}` carries data: only fieldless enums can be shared with CUDA"
    )
}

/// An enum without an integer `repr`.
pub fn enum_without_repr(name: &str) -> String {
    format!(
        "`{name}` has no integer `repr`: C++ gives an enum the size of its underlying type and \
         Rust the smallest that fits; add `#[repr(i32)]` (C `int`) or another integer type"
    )
}

/// A discriminant that is not an integer literal.
pub fn variant_value(name: &str, variant: &str) -> String {
    format!("the value of `{name}::{variant}` must be an integer literal to be written in CUDA")
}

/// A field whose Rust type cannot cross to CUDA, with why.
pub fn field_type(ty_name: &str, field: &str, rust: &str, why: &str) -> String {
    format!("field `{ty_name}.{field}` has type `{rust}`, which cannot be shared with CUDA: {why}")
}

/// Why `bool` cannot cross.
pub const WHY_BOOL: &str = "Rust's `bool` must be 0 or 1, and the bytes a kernel stores are not \
                            checked; use `u8` (C `unsigned char`)";
/// Why `usize`/`isize` cannot cross.
pub const WHY_USIZE: &str = "its size is the host's; use `u64` or `i64` (64 bits on the device, as \
                             `size_t` is there) or `u32`/`i32`";
/// Why `char` cannot cross.
pub const WHY_CHAR: &str = "Rust's `char` is a 4-byte Unicode scalar value; use `u32` or `u8`";
/// Why a reference cannot cross.
pub const WHY_REFERENCE: &str = "a reference is a host address the device cannot use; hold a \
                                 `RawDevicePtr` to device memory";
/// Why a raw pointer cannot cross.
pub const WHY_POINTER: &str = "a raw pointer is a host address; hold a `RawDevicePtr` to device \
                               memory (`#[cuda(c_type = \"float*\")]` spells its C type)";
/// Why a type without a CUDA layout cannot cross.
pub const WHY_NO_LAYOUT: &str = "it has no CUDA layout; a field is a number, `f16`/`bf16`, a \
                                 narrow float of `fp`, a type of `vector`, a `RawDevicePtr`, an \
                                 array of these, or another `#[derive(CudaType)]` type";
/// Why an array whose length is not a literal cannot be declared.
pub const WHY_ARRAY_LEN: &str =
    "an array's length must be an integer literal to be written in CUDA";
/// Why a 32-byte aligned vector cannot be declared.
pub const WHY_ALIGN32: &str = "its 32-byte alignment has no declaration here; use the 16-byte \
                               aligned one";

/// `#[cuda(c_type = ...)]` on a field that is not a `RawDevicePtr`, or naming no pointer.
pub fn c_type_not_pointer(ty_name: &str, field: &str) -> String {
    format!(
        "`#[cuda(c_type = ...)]` on `{ty_name}.{field}` spells a device pointer's C type \
         (`\"const float*\"`): it goes on a `RawDevicePtr` field and names a pointer"
    )
}

/// An unknown key in `#[cuda(...)]`.
pub fn unknown_attribute(key: &str, known: &str) -> String {
    format!("unknown `#[cuda]` key `{key}`; known here: {known}")
}

/// A field whose type is no shared type of the files listed.
pub fn not_shared_here(ty_name: &str, field: &str, held: &str, files: &str) -> String {
    format!(
        "field `{ty_name}.{field}` holds `{held}`, which is no `#[derive(CudaType)]` type of \
         {files}; list the Rust file that defines it (`rust_types` in build.rs, `types` in \
         `cuda_module!`)"
    )
}

/// A Rust file of shared types that cannot be read or parsed.
pub fn unreadable_file(file: &str, why: &str) -> String {
    format!("cannot read the Rust types shared with CUDA from `{file}`: {why}")
}

/// The same type name twice among the files listed.
pub fn defined_twice(name: &str, first: &str, second: &str) -> String {
    format!(
        "`{name}` is shared with CUDA from both `{first}` and `{second}`: CUDA has one namespace \
         for them; rename one"
    )
}

/// A type shared from Rust that the compile laid out otherwise than Rust does: `measured`
/// and `rust` are `(size, align, field offsets)`.
pub fn shared_layout_differs(
    name: &str,
    path: &str,
    measured: &(u64, u64, Vec<u64>),
    rust: &(u64, u64, Vec<u64>),
) -> String {
    format!(
        "nvcc lays out `{name}` with size {}, align {}, field offsets {:?}, but the Rust type \
         `{path}` it is shared from (`#[repr(C)]`) has size {}, align {}, field offsets {:?}: \
         its header is included under another packing or alignment (`#pragma pack`?); include \
         it outside one",
        measured.0, measured.1, measured.2, rust.0, rust.1, rust.2
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_types_header_names_both_fixes() {
        let m = super::types_header_missing("src/particles.rs.cuh").unwrap();
        assert!(m.contains("`types = \"src/particles.rs\"`"), "{m}");
        assert!(m.contains("`.rust_types(\"src/particles.rs\")`"), "{m}");
        assert_eq!(super::types_header_missing("curand_kernel.h"), None);
        assert_eq!(super::types_header_missing("kernels.cuh"), None);
    }

    use super::*;

    #[test]
    fn messages_name_the_type_the_field_and_the_fix() {
        let m = field_type("Particle", "alive", "bool", WHY_BOOL);
        assert!(
            m.starts_with("field `Particle.alive` has type `bool`"),
            "{m}"
        );
        assert!(m.contains("use `u8`"), "{m}");
        assert!(not_repr_c("P").contains("add `#[repr(C)]`"));
        assert!(enum_without_repr("Kind").contains("#[repr(i32)]"));
        let m = not_shared_here("P", "k", "Kind", "`src/p.rs`");
        assert!(m.contains("`Kind`") && m.contains("`src/p.rs`"), "{m}");
    }
}
