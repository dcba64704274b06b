//! The words of the declaration grammar: the attribute words that take a group, builtin
//! type keywords, specifiers the parser ignores, and how builtin type words combine into a
//! base type.

use super::BaseSyn;
use crate::diagnostics::{Diagnostic, front as msg};
use crate::model::Scalar;

/// Attribute words followed by a parenthesised argument group: what `Parser::attribute` (`attrs`)
/// reads, and what other passes skip as a whole.
pub(super) const ATTRIBUTE_CALLS: &[&str] = &[
    "__attribute__",
    "__declspec",
    "__launch_bounds__",
    "__cluster_dims__",
    "__maxnreg__",
    "__align__",
    "alignas",
];

/// Keywords that spell builtin types.
pub(super) const TYPE_WORDS: &[&str] = &[
    "void", "bool", "_Bool", "char", "short", "int", "long", "signed", "unsigned", "float",
    "double", "__int128",
];
/// Specifiers that do not change a declaration's type or layout.
pub(super) const IGNORED: &[&str] = &[
    "inline",
    "__inline__",
    "__inline",
    "__forceinline__",
    "__noinline__",
    "constexpr",
    "register",
    "virtual",
    "explicit",
    "mutable",
    "thread_local",
    "typename",
    "friend",
    "__device_builtin__",
    "__cudart_builtin__",
    "__restrict__",
    "__restrict",
    "restrict",
    "auto",
    "__extension__",
];

/// A reserved word: never a name.
pub(super) fn is_keyword(s: &str) -> bool {
    TYPE_WORDS.contains(&s)
        || IGNORED.contains(&s)
        || matches!(
            s,
            "const"
                | "volatile"
                | "static"
                | "extern"
                | "struct"
                | "class"
                | "union"
                | "enum"
                | "typedef"
        )
}

/// Combines builtin type keywords (`unsigned long long int`) into a base type.
pub(super) fn builtin(words: &[&str]) -> Result<BaseSyn, Diagnostic> {
    let has = |w: &str| words.contains(&w);
    let longs = words.iter().filter(|w| **w == "long").count();
    let unsigned = has("unsigned");
    let spelled = words.join(" ");
    let scalar = if has("void") {
        return Ok(BaseSyn::Void);
    } else if has("bool") || has("_Bool") {
        Scalar::Bool
    } else if has("float") {
        Scalar::F32
    } else if has("double") && longs == 0 {
        Scalar::F64
    } else if has("double") || has("__int128") {
        return Err(msg::unsupported_type(
            &spelled,
            "no Rust type has its layout on the GPU",
        ));
    } else if has("char") {
        // Plain `char` is a type of its own, the host's byte: signed on x86-64, unsigned
        // on Arm.
        if unsigned {
            Scalar::U8
        } else if has("signed") {
            Scalar::I8
        } else {
            Scalar::Char
        }
    } else if has("short") {
        if unsigned { Scalar::U16 } else { Scalar::I16 }
    } else if longs == 1 && !cuda_kernel_objects::ctypes::long_is_64_bits() {
        return Err(msg::unsupported_type(&spelled, msg::WHY_LONG_32));
    } else if longs > 0 {
        if unsigned { Scalar::U64 } else { Scalar::I64 }
    } else if unsigned {
        Scalar::U32
    } else {
        Scalar::I32
    };
    Ok(BaseSyn::Scalar(scalar))
}
