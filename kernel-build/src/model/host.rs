//! A host function's binding as the check of its Rust declaration settles it: what each
//! parameter is (a value, device memory, host memory, the stream) and what the binding
//! returns. Codegen writes the binding from it.

/// What a parameter of a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostArg {
    /// Passed by value as declared (scalars, vectors, structs).
    Value,
    /// A device buffer or view; its address is passed, ordered on the call's stream.
    Device {
        /// The function may write through it.
        mutable: bool,
    },
    /// Host memory: the slice's address.
    Host {
        /// The function may write through it.
        mutable: bool,
    },
    /// A raw pointer, passed as it is.
    Raw,
    /// The stream the function runs on (`cudaStream_t`).
    Stream,
}

/// What a binding returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostRet {
    /// Nothing.
    Unit,
    /// A value, as declared.
    Value,
    /// `cudaError_t`, as `Result<(), Error>`.
    CudaError,
    /// Nothing, as `Result<(), Error>` (ordering its buffers may fail).
    ResultUnit,
    /// A value, as `Result<T, Error>` (ordering its buffers may fail).
    ResultValue,
}

impl HostRet {
    /// True when the binding returns a `Result`.
    pub fn is_result(self) -> bool {
        matches!(
            self,
            HostRet::CudaError | HostRet::ResultUnit | HostRet::ResultValue
        )
    }
}

/// One checked declaration: the user's item and what each of its parameters is.
// `Debug` in tests only: syn's types have it only with its `extra-traits` feature, which
// the tests turn on and the library does not need.
#[derive(Clone)]
#[cfg_attr(test, derive(Debug))]
pub struct HostBinding {
    /// The declaration as written.
    pub item: syn::ForeignItemFn,
    /// Each parameter's name, type as written, and role.
    pub args: Vec<(syn::Ident, syn::Type, HostArg)>,
    /// The return.
    pub ret: HostRet,
}

/// `T` of `Result<T, E>` or of `Result<T>` (an alias with the error fixed).
pub fn result_ok(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    if last.ident != "Result" {
        return None;
    }
    match args.args.first() {
        Some(syn::GenericArgument::Type(t)) => Some(t),
        _ => None,
    }
}
