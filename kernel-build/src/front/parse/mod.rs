//! Declarations of a CUDA source as written: kernels, template kernels and their
//! explicit instantiations, structs, typedefs and module globals, with locations.
//!
//! The parser reads only declarations: function bodies, initializers and anything
//! that is not a kernel, struct, typedef or `__constant__`/`__device__` variable are
//! skipped by bracket matching. It accepts both spellings of CUDA's keywords:
//! `__global__` (raw text) and `__attribute__((global))` (what `nvcc -E` writes).
//! Types stay unresolved here ([`TypeSyn`]); `front::types` gives them meaning.

mod attrs;
mod cursor;
mod decl;
mod declarator;
mod head;
mod items;
mod kernel;
mod keywords;
mod params;
mod record;
mod templates;

use crate::diagnostics::Diagnostics;
use crate::model::{KernelAttrs, Linkage, Qualifiers, Scalar, SourceLoc};

use super::lexer::Token;
use super::linemap::LineMap;

/// The base of a type as written.
#[derive(Clone, Debug, PartialEq)]
pub enum BaseSyn {
    /// `void`.
    Void,
    /// A builtin arithmetic type spelled with keywords (`unsigned long long`).
    Scalar(Scalar),
    /// A name (`size_t`, `float4`, `geo::Pt`, `T`), possibly `struct`-elaborated.
    Named(String),
    /// A struct defined in place (`typedef struct { ... } S;`).
    Inline(Box<StructSyn>),
    /// A pointer to a function (`float (*op)(float, float)`); its signature is not kept.
    FnPtr,
    /// Arrays of a type, written inside a parenthesised declarator (`float (*rows)[4]`
    /// points to `float[4]`).
    Array {
        /// The element type.
        elem: Box<TypeSyn>,
        /// Extents, outermost first.
        extents: Vec<String>,
    },
}

/// A type as written: base, its qualifiers, then one entry per `*`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeSyn {
    /// The base type.
    pub base: BaseSyn,
    /// Qualifiers of the base (`const float*` has const here).
    pub base_quals: Qualifiers,
    /// Qualifiers after each `*`, outermost last (`float* const` has one const entry).
    pub ptrs: Vec<Qualifiers>,
    /// Normalised spelling (`const float* __restrict__`).
    pub written: String,
    /// Where the type starts.
    pub loc: Option<SourceLoc>,
}

/// A parameter as written.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSyn {
    /// Its type (arrays already decayed to pointers).
    pub ty: TypeSyn,
    /// Its name, if any.
    pub name: Option<String>,
    /// `__grid_constant__` was given.
    pub grid_constant: bool,
    /// A parameter pack of a variadic template (`Ts... args`).
    pub pack: bool,
    /// Where it starts.
    pub loc: Option<SourceLoc>,
}

/// A template parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct TParam {
    /// Its name.
    pub name: String,
    /// True for `typename T` / `class T`; false for non-type parameters.
    pub is_type: bool,
    /// A non-type parameter's type as written (`Op` in `template <Op F>`).
    pub value_type: Option<String>,
    /// Its default argument, if any.
    pub default: Option<TArgSyn>,
}

/// A template argument as written: its text and, when it reads as one, its type.
#[derive(Clone, Debug, PartialEq)]
pub struct TArgSyn {
    /// The argument's text.
    pub text: String,
    /// The argument read as a type (`None` when it is not a type).
    pub ty: Option<TypeSyn>,
}

/// A `__global__` function declaration, definition or explicit instantiation.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSyn {
    /// Unqualified name.
    pub name: String,
    /// Enclosing namespaces (plus any qualification on the name itself).
    pub namespace: Vec<String>,
    /// `template<...>` parameters of a template kernel.
    pub template: Option<Vec<TParam>>,
    /// `<...>` after the name (explicit instantiations).
    pub args: Option<Vec<TArgSyn>>,
    /// An explicit instantiation (`template __global__ void k<float>(float*);`).
    pub is_instantiation: bool,
    /// Linkage.
    pub linkage: Linkage,
    /// Declared `static`.
    pub is_static: bool,
    /// The return type.
    pub ret: TypeSyn,
    /// Parameters.
    pub params: Vec<ParamSyn>,
    /// Launch attributes.
    pub attrs: KernelAttrs,
    /// Where the declaration starts.
    pub loc: Option<SourceLoc>,
    /// The compiled symbol, when known before matching images: set for the template
    /// instantiations host code launches (read from nvcc's host stub file).
    pub symbol: Option<String>,
}

/// A struct field as written.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldSyn {
    /// Its type.
    pub ty: TypeSyn,
    /// Its name.
    pub name: String,
    /// Array extents as written, outermost first.
    pub extents: Vec<String>,
    /// Alignment asked for the field (`alignas`, `__align__`, `aligned`).
    pub align: Option<u64>,
    /// `__attribute__((packed))` on the field.
    pub packed: bool,
    /// A bit-field's width.
    pub bits: Option<u64>,
    /// Where it is declared.
    pub loc: Option<SourceLoc>,
}

/// A struct, class or union definition.
#[derive(Clone, Debug, PartialEq)]
pub struct StructSyn {
    /// Its tag (None for an anonymous struct).
    pub name: Option<String>,
    /// Enclosing namespaces.
    pub namespace: Vec<String>,
    /// A union (all fields at offset 0).
    pub is_union: bool,
    /// Alignment requested with `__align__`, `alignas` or `aligned`.
    pub align: Option<u64>,
    /// The `#pragma pack` value in force where the body opens (`None`: the default).
    pub pack: Option<u64>,
    /// `__attribute__((packed))`: every field aligned to 1 unless it asks for more.
    pub packed: bool,
    /// Fields in order.
    pub fields: Vec<FieldSyn>,
    /// Base classes in order (`struct D : B, C`), laid out before the fields.
    pub bases: Vec<String>,
    /// Why it has no C layout the front end can give (a virtual base, a virtual
    /// function: a hidden table pointer), when it has none.
    pub no_layout: Option<String>,
    /// A class template's member types (`using DTypeQ = DTypeQ_;`), which its fields may
    /// name: bound with the template's arguments when an instance is laid out.
    pub member_types: Vec<(String, TypeSyn)>,
    /// Where it is defined.
    pub loc: Option<SourceLoc>,
}

/// A typedef or alias declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct TypedefSyn {
    /// The new name.
    pub name: String,
    /// Enclosing namespaces.
    pub namespace: Vec<String>,
    /// What it names.
    pub ty: TypeSyn,
    /// Array extents, outermost first.
    pub extents: Vec<String>,
    /// Where it is declared.
    pub loc: Option<SourceLoc>,
}

/// A named enumeration: what it is laid out as.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumSyn {
    /// Its name.
    pub name: String,
    /// Enclosing namespaces.
    pub namespace: Vec<String>,
    /// The underlying type (`int` unless fixed with `: type`).
    pub underlying: BaseSyn,
    /// Its enumerators' names, in order (their values are constants `Name::enumerator`).
    pub enumerators: Vec<String>,
    /// Where it is declared.
    pub loc: Option<SourceLoc>,
}

/// A named integer constant, its value as written (evaluated when the module is analysed,
/// since it may name earlier constants).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstSyn {
    /// Its name (an enumerator of a scoped enum is named `Mode::A`).
    pub name: String,
    /// Enclosing namespaces.
    pub namespace: Vec<String>,
    /// The expression it is initialised with.
    pub value: String,
}

/// A `__constant__` or `__device__` variable.
#[derive(Clone, Debug, PartialEq)]
pub struct VarSyn {
    /// Its name.
    pub name: String,
    /// Enclosing namespaces.
    pub namespace: Vec<String>,
    /// True for `__constant__`.
    pub constant: bool,
    /// Linkage.
    pub linkage: Linkage,
    /// Its type.
    pub ty: TypeSyn,
    /// Array extents, outermost first.
    pub extents: Vec<String>,
    /// Where it is declared.
    pub loc: Option<SourceLoc>,
}

/// One declaration the front end keeps.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A kernel (template or not) or an explicit instantiation.
    Kernel(KernelSyn),
    /// A host function with C linkage defined here (read like a kernel's declaration).
    HostFn(KernelSyn),
    /// A struct definition.
    Struct(StructSyn),
    /// A typedef.
    Typedef(TypedefSyn),
    /// A named enumeration.
    Enum(EnumSyn),
    /// A declaration outside every kernel's signature that could not be read, with
    /// why; it was skipped.
    Skipped {
        /// The name it declares, when that could be told.
        name: Option<String>,
        /// Why it could not be read.
        why: crate::diagnostics::Diagnostic,
    },
    /// A module global.
    Var(VarSyn),
    /// A named integer constant: an enumerator, or a `const`/`constexpr` integer variable
    /// at namespace scope (`static constexpr unsigned N = 4;`).
    Constant(ConstSyn),
    /// A class template (`template <typename T> struct pair { T a, b; };`), laid out
    /// for each argument list a kernel names.
    StructTemplate {
        /// Its template parameters.
        params: Vec<TParam>,
        /// Its body as written (fields may name the parameters).
        def: StructSyn,
    },
    /// An alias template (`template <bool B> using flag = constant<bool, B>;`).
    AliasTemplate {
        /// Its name.
        name: String,
        /// Enclosing namespaces.
        namespace: Vec<String>,
        /// Its template parameters.
        params: Vec<TParam>,
        /// The type it stands for, as written (it names the parameters).
        target: String,
    },
}

/// Parses the declarations of `tokens` (directives already removed) from `src`;
/// `map` turns positions into source locations. Returns every item it could read
/// and every problem it found (parsing resumes after a bad declaration).
pub fn parse(src: &str, tokens: &[Token], map: &LineMap) -> (Vec<Item>, Diagnostics) {
    let mut p = cursor::Parser::new(src, tokens, map);
    p.items_until_close(&items::Scope::default(), 0);
    (p.items, p.diags)
}

/// Reads `text` as one type (`const float*`, `pair<int, 4>`), or `None` when it is not one.
pub fn type_from_text(text: &str) -> Option<TypeSyn> {
    let lexed = super::lexer::lex(text);
    let map = LineMap::identity("", text);
    let mut p = cursor::Parser::new(text, &lexed.tokens, &map);
    let n = lexed.tokens.len();
    let ty = p.type_name(&[], 0, n).ok()?;
    (p.pos == n).then_some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extern_c_kernel_parses_with_its_params() {
        use crate::front::lexer::lex;
        let src = "extern \"C\" __global__ void k(const float* x, int n) { }";
        let (items, diags) = parse(src, &lex(src).tokens, &LineMap::identity("k.cu", src));
        assert!(diags.is_empty());
        let Item::Kernel(k) = &items[0] else { panic!() };
        assert_eq!(k.name, "k");
        assert_eq!(k.params[0].ty.written, "const float*");
    }

    #[test]
    fn type_from_text_reads_types_not_expressions() {
        let ty = type_from_text("const unsigned int*").unwrap();
        assert_eq!(ty.ptrs.len(), 1);
        assert!(type_from_text("3 + 4").is_none());
    }
}
