//! `#[repr(C)]` Rust structs and unions for the C structs and unions of a module, with
//! compile-time assertions that their size, alignment and field offsets match the C layout;
//! a struct defined in Rust and shared with CUDA is the user's own type, re-exported, with
//! the same assertions.

use proc_macro2::TokenStream;
use quote::quote;

use super::types::value_tokens;
use crate::model::rust::rust_ident;
use crate::model::spelling::c_spelling;
use crate::model::{CType, ModuleInfo, StructDef};

/// Every struct of the module.
pub(crate) fn items(info: &ModuleInfo, rt: &TokenStream, derives: &[syn::Path]) -> TokenStream {
    let items = info.structs.iter().map(|s| {
        let traits = Traits {
            partial_eq: !has_union(s, &info.structs, 0),
            pod: is_pod(s, &info.structs, 0),
        };
        item(s, traits, rt, derives)
    });
    quote!(#(#items)*)
}

/// The traits a generated struct gets besides `Clone`, `Copy`, `Debug`, `Default`,
/// `DeviceRepr`, `ValidAsZeroBits` and bytemuck's `Zeroable` (all-zero bytes are a value of
/// every C type the model holds).
#[derive(Clone, Copy)]
struct Traits {
    /// `PartialEq`: no union inside.
    partial_eq: bool,
    /// bytemuck's `Pod`: no padding, no `bool`, every field plain bytes.
    pod: bool,
}

/// Whether every bit pattern of the struct is a value and it has no padding: bytemuck's
/// `Pod`.
fn is_pod(def: &StructDef, all: &[StructDef], depth: usize) -> bool {
    fn plain(ty: &CType, all: &[StructDef], depth: usize) -> bool {
        use crate::model::Scalar as S;
        let scalar = |s: &S| {
            matches!(
                s,
                S::I8
                    | S::I16
                    | S::I32
                    | S::I64
                    | S::U8
                    | S::U16
                    | S::U32
                    | S::U64
                    | S::Usize
                    | S::Isize
                    | S::F32
                    | S::F64
                    | S::F16
                    | S::BF16
            )
        };
        match ty {
            CType::Scalar(s) => scalar(s),
            CType::Vector { elem, .. } => scalar(elem),
            CType::Pointer { .. } => true,
            CType::Array { elem, .. } => plain(elem, all, depth),
            CType::Struct(name) => all
                .iter()
                .find(|s| &s.name == name)
                .is_some_and(|s| depth < 64 && is_pod(s, all, depth + 1)),
            CType::Void => false,
        }
    }
    if def.is_union || def.opaque || def.name_only || def.fields.is_empty() {
        return false;
    }
    let mut end = 0;
    for f in &def.fields {
        if f.layout.offset != end || !plain(&f.ty, all, depth) {
            return false;
        }
        end = f.layout.offset + f.layout.size;
    }
    end == def.size
}

/// A struct defined in Rust: the user's type under its C name, its layout asserted against
/// the C one (the derive implements the traits).
fn shared(def: &StructDef, path: &str) -> TokenStream {
    let name = rust_ident(&def.name);
    let asserts = layout_asserts(def, &name, "the Rust type's");
    let reexport = reexport("struct", &def.name, path);
    quote! {
        #reexport
        const _: () = { #asserts };
    }
}

/// `pub use` of a type defined in Rust and shared with CUDA (`what` is `struct` or `enum`),
/// in place of a type generated for the CUDA one named `cname`.
pub(super) fn reexport(what: &str, cname: &str, path: &str) -> TokenStream {
    let segments = path
        .split("::")
        .map(|s| proc_macro2::Ident::new(s, proc_macro2::Span::call_site()));
    let doc = format!(" The CUDA {what} `{cname}`, defined in Rust: `{path}`.");
    quote! {
        #[doc = #doc]
        pub use #(#segments)::* ;
    }
}

/// The compile-time assertions of a struct's size, alignment and field offsets.
fn layout_asserts(def: &StructDef, name: &proc_macro2::Ident, what: &str) -> TokenStream {
    let (size, align) = (def.size as usize, def.align as usize);
    let cname = &def.name;
    let size_msg = format!("`{cname}`: {what} size differs from the CUDA struct ({size} bytes)");
    let align_msg = format!("`{cname}`: {what} alignment differs from the CUDA struct ({align})");
    let offsets = def.fields.iter().map(|f| {
        let id = rust_ident(&f.name);
        let offset = f.layout.offset as usize;
        let msg = format!(
            "`{cname}::{}`: {what} offset differs from the CUDA field (offset {offset})",
            f.name
        );
        quote!(::core::assert!(::core::mem::offset_of!(#name, #id) == #offset, #msg);)
    });
    quote! {
        ::core::assert!(::core::mem::size_of::<#name>() == #size, #size_msg);
        ::core::assert!(::core::mem::align_of::<#name>() == #align, #align_msg);
        #(#offsets)*
    }
}

/// A union (the struct itself, or in a field, an array element, a nested struct): Rust
/// cannot compare it as a whole, so such a struct does not derive `PartialEq`.
fn has_union(def: &StructDef, all: &[StructDef], depth: usize) -> bool {
    fn in_type(ty: &CType, all: &[StructDef], depth: usize) -> bool {
        match ty {
            CType::Struct(name) => all
                .iter()
                .find(|s| &s.name == name)
                .is_some_and(|s| has_union(s, all, depth + 1)),
            CType::Array { elem, .. } => in_type(elem, all, depth),
            _ => false,
        }
    }
    // Nesting is finite in C; the bound only guards against a malformed model.
    (def.is_union && !def.fields.is_empty())
        || (depth < 64 && def.fields.iter().any(|f| in_type(&f.ty, all, depth)))
}

fn item(def: &StructDef, traits: Traits, rt: &TokenStream, derives: &[syn::Path]) -> TokenStream {
    if def.name_only {
        return named_only(def);
    }
    if let Some(path) = &def.rust_path {
        return shared(def, path);
    }
    if def.opaque {
        return opaque(def, rt);
    }
    let Some(rust) = rust_layout(def) else {
        // Packing and alignment together that one Rust struct cannot express: its bytes.
        return opaque(def, rt);
    };
    let name = rust_ident(&def.name);
    let repr = match rust.repr {
        Repr::C => quote!(#[repr(C)]),
        Repr::Align(a) => {
            let align = proc_macro2::Literal::u64_unsuffixed(a);
            quote!(#[repr(C, align(#align))])
        }
        Repr::Packed(a) => {
            let pack = proc_macro2::Literal::u64_unsuffixed(a);
            quote!(#[repr(C, packed(#pack))])
        }
    };
    let fields = def.fields.iter().zip(&rust.pads).map(|(f, pad)| {
        let id = rust_ident(&f.name);
        let ty = value_tokens(&f.ty, rt);
        let doc = if f.is_bit_storage() {
            format!(
                " Bit-fields, as {} bytes at offset {}.",
                f.layout.size, f.layout.offset
            )
        } else {
            format!(" `{}` at offset {}.", c_spelling(&f.ty), f.layout.offset)
        };
        let pad = pad.map(|(i, len)| {
            let pad_id = quote::format_ident!("__pad{}", i);
            let len = len as usize;
            quote!(#[doc(hidden)] pub #pad_id: [u8; #len],)
        });
        quote!(#pad #[doc = #doc] pub #id: #ty)
    });
    // C++ gives an empty struct size 1; Rust gives it 0.
    let filler = (def.fields.is_empty() && def.size > 0).then(|| {
        let size = def.size as usize;
        quote!(#[doc(hidden)] pub __reserved: [u8; #size],)
    });
    let (size, align) = (def.size as usize, def.align as usize);
    let cname = &def.name;
    let asserts = layout_asserts(def, &name, "Rust");
    let what = if def.is_union && !def.fields.is_empty() {
        "union"
    } else {
        "struct"
    };
    let mut doc = format!(" The CUDA {what} `{cname}` ({size} bytes, aligned to {align})");
    if let Some(loc) = &def.loc {
        doc.push_str(&format!(", declared at `{loc}`"));
    }
    doc.push('.');
    // A union has no field to compare or print as a whole: Debug names it only.
    let decl = if def.is_union && !def.fields.is_empty() {
        let debug = format!("{cname} {{ .. }}");
        quote! {
            #[derive(Clone, Copy)]
            pub union #name {
                #(#fields,)*
            }
            impl ::core::fmt::Debug for #name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(#debug)
                }
            }
        }
    } else {
        let derives = if traits.partial_eq {
            quote!(#[derive(Clone, Copy, Debug, PartialEq #(, #derives)*)])
        } else {
            quote!(#[derive(Clone, Copy, Debug #(, #derives)*)])
        };
        quote! {
            #derives
            pub struct #name {
                #(#fields,)*
                #filler
            }
        }
    };
    let pod = traits.pod.then(|| {
        quote! {
            // SAFETY: no padding (every field starts where the one before ends, the last
            // at the end) and every field's bit patterns are all values.
            unsafe impl #rt::__private::bytemuck::Pod for #name {}
        }
    });
    quote! {
        #[doc = #doc]
        #repr
        #decl

        const _: () = { #asserts };

        // SAFETY: `#[repr(C)]` with the layout of the CUDA type (asserted above),
        // made only of types that are themselves valid on the device.
        unsafe impl #rt::__private::cudarc::driver::DeviceRepr for #name {}
        // SAFETY: all-zero bytes are a value of every C type a field can have (numbers,
        // `bool`'s `false`, null addresses and handles, and structs and arrays of these).
        unsafe impl #rt::__private::cudarc::driver::ValidAsZeroBits for #name {}
        // SAFETY: as above.
        unsafe impl #rt::__private::bytemuck::Zeroable for #name {}
        #pod

        /// Every byte zero.
        impl ::core::default::Default for #name {
            fn default() -> Self {
                #rt::__private::bytemuck::Zeroable::zeroed()
            }
        }
    }
}

/// How a struct is written in Rust: its `repr`, and before each field the bytes of padding
/// (`__pad<i>`) that put it at the C offset where Rust's own placement would not.
struct RustLayout {
    repr: Repr,
    /// Per field: `Some((index, length))` of a padding field before it.
    pads: Vec<Option<(usize, u64)>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repr {
    C,
    Align(u64),
    Packed(u64),
}

/// The Rust form of `def`'s C layout (fields keep the alignment of their type in
/// `layout.align`): packed where the struct's alignment is below its fields' (`#pragma pack`,
/// `packed`), over-aligned where it is above, with padding fields where a field asked for
/// more alignment than its type has. `None` when one Rust struct cannot hold it (a field
/// below its packed alignment in a struct aligned above it).
fn rust_layout(def: &StructDef) -> Option<RustLayout> {
    let natural = def.fields.iter().map(|f| f.layout.align).max().unwrap_or(1);
    let repr = if def.align < natural {
        Repr::Packed(def.align)
    } else if def.align > natural {
        Repr::Align(def.align)
    } else {
        Repr::C
    };
    let cap = match repr {
        Repr::Packed(a) => a,
        _ => u64::MAX,
    };
    let mut pads = Vec::with_capacity(def.fields.len());
    if def.is_union {
        pads.resize(def.fields.len(), None);
        return Some(RustLayout { repr, pads });
    }
    let (mut end, mut count) = (0u64, 0usize);
    for f in &def.fields {
        let a = f.layout.align.min(cap).max(1);
        let at = end.div_ceil(a) * a;
        if f.layout.offset < at || f.layout.offset % a != 0 {
            return None;
        }
        if f.layout.offset > at {
            pads.push(Some((count, f.layout.offset - end)));
            count += 1;
        } else {
            pads.push(None);
        }
        end = f.layout.offset + f.layout.size;
    }
    Some(RustLayout { repr, pads })
}

/// A type kernels are instantiated with but no parameter holds: a name that selects an
/// instantiation (`k::<T>`), with no value, since no image says anything of its bytes.
fn named_only(def: &StructDef) -> TokenStream {
    let name = rust_ident(&def.name);
    let cname = &def.name;
    let doc = format!(
        " The CUDA type `{cname}`, named only: kernels of this module are instantiated with it \
         but none of their parameters holds it, so it has no bytes on the Rust side and no \
         value; it names the instantiation it selects."
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum #name {}

        impl #name {
            /// The C++ type, as the compiled symbols name it.
            pub const CUDA_TYPE: &'static str = #cname;
        }
    }
}

/// A type the front end can name but not lay out: its bytes, with the size and alignment
/// the compiler gave it, made from bytes (as host C++ or the user lays them out).
fn opaque(def: &StructDef, rt: &TokenStream) -> TokenStream {
    let name = rust_ident(&def.name);
    let cname = &def.name;
    let (size, align) = (def.size as usize, def.align as usize);
    let align_lit = proc_macro2::Literal::u64_unsuffixed(def.align.max(1));
    let doc = format!(
        " The CUDA type `{cname}`, opaque: the front end cannot lay out its fields, so it is \
         its {size} bytes, aligned to {align} (both as nvcc lays the type out). Build it with \
         [`from_bytes`](Self::from_bytes) from the bytes host C++ gives \
         (`memcpy(out, &value, sizeof value)`) or that you lay out by hand."
    );
    let debug = format!("{cname} {{ {size} bytes }}");
    let size_msg = format!("`{cname}`: Rust size differs from the CUDA type ({size} bytes)");
    let align_msg = format!("`{cname}`: Rust alignment differs from the CUDA type ({align})");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, PartialEq, Eq)]
        #[repr(C, align(#align_lit))]
        pub struct #name([u8; #size]);

        impl #name {
            /// The C++ type, as the compiled symbols name it.
            pub const CUDA_TYPE: &'static str = #cname;

            /// The value whose bytes are `bytes`.
            pub const fn from_bytes(bytes: [u8; #size]) -> Self {
                Self(bytes)
            }

            /// Its bytes.
            pub const fn as_bytes(&self) -> &[u8; #size] {
                &self.0
            }

            /// Every byte zero.
            pub const fn zeroed() -> Self {
                Self([0; #size])
            }
        }

        impl ::core::fmt::Debug for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#debug)
            }
        }

        const _: () = {
            ::core::assert!(::core::mem::size_of::<#name>() == #size, #size_msg);
            ::core::assert!(::core::mem::align_of::<#name>() == #align, #align_msg);
        };

        // SAFETY: plain bytes with the size and alignment of the CUDA type (asserted above).
        unsafe impl #rt::__private::cudarc::driver::DeviceRepr for #name {}
    }
}
