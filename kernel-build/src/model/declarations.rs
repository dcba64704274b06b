//! The declarations of a module: kernels, their parameters and C types, structs, globals
//! and host functions, as the front end reads them and verification completes them.

use serde::{Deserialize, Serialize};

/// A position in a CUDA source file (1-based line and column).
///
/// ```
/// let loc = cuda_kernel_build::model::SourceLoc { file: "k.cu".into(), line: 3, column: 1 };
/// assert_eq!(loc.to_string(), "k.cu:3:1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceLoc {
    /// The file as the user named it (relative paths stay relative).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl std::fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A scalar C type (64-bit Linux sizes): the workspace's one table of CUDA types
/// (`cuda_kernel_objects::ctypes`), which spells, sizes and names each.
///
/// ```
/// use cuda_kernel_build::model::Scalar;
/// assert_eq!(Scalar::F16.size(), 2);
/// ```
pub use cuda_kernel_objects::ctypes::Scalar;

/// Const/volatile qualifiers of a pointee.
///
/// ```
/// let q = cuda_kernel_build::model::Qualifiers { is_const: true, is_volatile: false };
/// assert!(q.is_const);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Qualifiers {
    /// `const`
    pub is_const: bool,
    /// `volatile`
    pub is_volatile: bool,
}

/// A C type after typedef resolution.
///
/// ```
/// use cuda_kernel_build::model::{CType, Qualifiers, Scalar};
/// // const float*
/// let t = CType::Pointer {
///     pointee: Box::new(CType::Scalar(Scalar::F32)),
///     pointee_quals: Qualifiers { is_const: true, is_volatile: false },
/// };
/// assert!(matches!(t, CType::Pointer { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CType {
    /// `void` (only behind a pointer).
    Void,
    /// A scalar.
    Scalar(Scalar),
    /// A CUDA vector type such as `float2`, `int4`, `double2`.
    Vector {
        /// Lane type.
        elem: Scalar,
        /// Number of lanes (1 to 4).
        lanes: u8,
    },
    /// A struct defined in the module (key into [`ModuleInfo::structs`]).
    Struct(String),
    /// A pointer.
    Pointer {
        /// What it points to.
        pointee: Box<CType>,
        /// Qualifiers of the pointee (`const float*` has `is_const`).
        pointee_quals: Qualifiers,
    },
    /// A fixed-size array (struct fields and globals only).
    Array {
        /// Element type.
        elem: Box<CType>,
        /// Number of elements.
        len: u64,
    },
}

impl CType {
    /// A pointer to `elem` (`const` or not), for tests.
    #[cfg(test)]
    pub(crate) fn pointer(elem: CType, is_const: bool) -> CType {
        CType::Pointer {
            pointee: Box::new(elem),
            pointee_quals: Qualifiers {
                is_const,
                is_volatile: false,
            },
        }
    }

    /// The struct this type names, directly or behind pointers and arrays (`const P*`,
    /// `P[4]` name `P`); `None` for scalars, vectors and `void`.
    ///
    /// ```
    /// use cuda_kernel_build::model::{CType, Qualifiers};
    /// let p = CType::Pointer {
    ///     pointee: Box::new(CType::Struct("Flags".into())),
    ///     pointee_quals: Qualifiers::default(),
    /// };
    /// assert_eq!(p.struct_name(), Some("Flags"));
    /// assert_eq!(CType::Void.struct_name(), None);
    /// ```
    pub fn struct_name(&self) -> Option<&str> {
        match self {
            CType::Struct(name) => Some(name),
            CType::Pointer { pointee, .. } => pointee.struct_name(),
            CType::Array { elem, .. } => elem.struct_name(),
            _ => None,
        }
    }
}

/// Size, alignment and offset of a parameter or field.
///
/// ```
/// let l = cuda_kernel_build::model::Layout { offset: 8, size: 8, align: 8 };
/// assert_eq!(l.end(), 16);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Layout {
    /// Byte offset from the start of the parameter buffer or struct.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
}

impl Layout {
    /// One past the last byte.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_build::model::Layout { offset: 4, size: 4, align: 4 }.end(), 8);
    /// ```
    pub fn end(&self) -> u64 {
        self.offset + self.size
    }
}

/// One kernel parameter.
///
/// ```
/// use cuda_kernel_build::model::{CType, Layout, Param, Scalar};
/// let p = Param {
///     name: Some("n".into()),
///     ty: CType::Scalar(Scalar::I32),
///     written: "int".into(),
///     grid_constant: false,
///     layout: Layout { offset: 24, size: 4, align: 4 },
///     loc: None,
/// };
/// assert_eq!(p.layout.end(), 28);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// The name, if the declaration has one.
    pub name: Option<String>,
    /// The type after typedef resolution (top-level cv and `__restrict__` dropped).
    pub ty: CType,
    /// The type as written in the source, normalised whitespace (`const float* __restrict__`).
    pub written: String,
    /// `__grid_constant__` was given.
    pub grid_constant: bool,
    /// Offset, size and alignment in the parameter buffer (natural C layout).
    pub layout: Layout,
    /// Where the parameter is declared.
    pub loc: Option<SourceLoc>,
}

/// How the kernel's symbol is formed.
///
/// ```
/// assert_ne!(cuda_kernel_build::model::Linkage::C, cuda_kernel_build::model::Linkage::Cxx);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Linkage {
    /// `extern "C"`: the symbol is the name as written.
    C,
    /// C++ linkage: the symbol is Itanium-mangled.
    Cxx,
}

/// A template argument of an explicit instantiation.
///
/// ```
/// use cuda_kernel_build::model::{CType, Scalar, TemplateArg};
/// let a = TemplateArg::Type(CType::Scalar(Scalar::F32));
/// assert!(matches!(a, TemplateArg::Type(_)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TemplateArg {
    /// A type argument (`float`).
    Type(CType),
    /// A non-type argument, as written after evaluation (`4`, `-1`, `true`).
    Value(String),
}

/// Launch-related attributes kept from the declaration.
///
/// ```
/// let a = cuda_kernel_build::model::KernelAttrs::default();
/// assert!(a.launch_bounds.is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelAttrs {
    /// `__launch_bounds__(max_threads, min_blocks, max_blocks_per_cluster)`.
    pub launch_bounds: Option<Vec<u32>>,
    /// `__cluster_dims__(x, y, z)`.
    pub cluster_dims: Option<[u32; 3]>,
    /// `__maxnreg__(n)`.
    pub maxnreg: Option<u32>,
}

/// Per-image facts read from the compiled fatbin for one kernel.
///
/// ```
/// let i = cuda_kernel_build::model::ImageFacts { target: "sm_90".into(), registers: Some(10), max_threads: None };
/// assert_eq!(i.target, "sm_90");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageFacts {
    /// Target name of the image (`sm_90`, `compute_120`).
    pub target: String,
    /// Registers per thread (SASS images only).
    pub registers: Option<u32>,
    /// Maximum threads per block recorded in the image (`__launch_bounds__`).
    pub max_threads: Option<u32>,
}

/// One `__global__` function (one per template instantiation).
///
/// ```
/// use cuda_kernel_build::model::{Kernel, KernelAttrs, Linkage};
/// let k = Kernel {
///     name: "noparams".into(), base_name: "noparams".into(), namespace: vec![],
///     template_args: vec![], symbol: "noparams".into(), linkage: Linkage::C,
///     is_static: false, params: vec![], attrs: KernelAttrs::default(), doc: None,
///     loc: None, images: vec![],
/// };
/// assert!(k.params.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    /// Display name: `saxpy`, `ns::k`, `axpy<float>`.
    pub name: String,
    /// The function's own identifier without namespace or template arguments (`axpy`).
    pub base_name: String,
    /// Enclosing namespaces, outermost first.
    pub namespace: Vec<String>,
    /// Template arguments of this instantiation (empty for non-templates).
    pub template_args: Vec<TemplateArg>,
    /// The symbol in the compiled images and for `cuModuleGetFunction`.
    pub symbol: String,
    /// Linkage of the declaration.
    pub linkage: Linkage,
    /// Declared `static` (internal linkage; reported, not callable from the host).
    pub is_static: bool,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Launch attributes.
    pub attrs: KernelAttrs,
    /// The comment just above the kernel, cleaned of comment markers.
    pub doc: Option<String>,
    /// Where the kernel is declared.
    pub loc: Option<SourceLoc>,
    /// Facts per compiled image (filled in after verification).
    pub images: Vec<ImageFacts>,
}

/// A struct field.
///
/// ```
/// use cuda_kernel_build::model::{CType, Field, Layout, Scalar};
/// let f = Field { name: "x".into(), ty: CType::Scalar(Scalar::F32), layout: Layout { offset: 0, size: 4, align: 4 } };
/// assert_eq!(f.layout.size, 4);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Field type.
    pub ty: CType,
    /// Offset and size inside the struct, and the alignment of the field's type (where
    /// packing places it lower, `offset` says so).
    pub layout: Layout,
}

/// The start of the names of the fields that hold a run of bit-fields as bytes
/// (`__bits0`, `__bits1`, …): the bit-fields themselves have no Rust field.
pub(crate) const BIT_STORAGE: &str = "__bits";

impl Field {
    /// Whether this field holds a run of bit-fields as bytes (`__bits0`, `__bits1`, …: the
    /// bit-fields themselves have no field of their own).
    ///
    /// ```
    /// use cuda_kernel_build::model::{CType, Field, Layout, Scalar};
    /// let f = Field {
    ///     name: "__bits0".into(),
    ///     ty: CType::Array { elem: Box::new(CType::Scalar(Scalar::U8)), len: 2 },
    ///     layout: Layout { offset: 0, size: 2, align: 1 },
    /// };
    /// assert!(f.is_bit_storage());
    /// ```
    pub fn is_bit_storage(&self) -> bool {
        self.name
            .strip_prefix(BIT_STORAGE)
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    }
}

/// A struct or union definition (also a typedef'd anonymous one, under the typedef name).
///
/// ```
/// let s = cuda_kernel_build::model::StructDef {
///     name: "P".into(), fields: vec![], size: 0, align: 1, is_union: false, opaque: false,
///     name_only: false, rust_path: None, loc: None,
/// };
/// assert_eq!(s.name, "P");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructDef {
    /// Name (qualified with `::` when inside a namespace).
    pub name: String,
    /// Fields in order.
    pub fields: Vec<Field>,
    /// `sizeof`.
    pub size: u64,
    /// `alignof`.
    pub align: u64,
    /// A `union`: every field at offset 0.
    #[serde(default)]
    pub is_union: bool,
    /// Opaque: a type the front end can name but not lay out (bit-fields, a member type it
    /// cannot read, a class of a library it does not follow). It has no fields; `size` and
    /// `align` were measured by the compiler, and the Rust type is that many bytes.
    #[serde(default)]
    pub opaque: bool,
    /// Named only (opaque too): a type kernels are instantiated with that none of their
    /// parameters holds, so no image says anything of its bytes. `size` is 0; the Rust type
    /// names it (it selects an instantiation, `k::<T>`) and holds no value.
    #[serde(default)]
    pub name_only: bool,
    /// Defined in Rust and shared with CUDA (`#[derive(CudaType)]`): the path of the Rust
    /// type (`crate::particles::Particle`), which the generated code names instead of
    /// declaring a type of its own.
    #[serde(default)]
    pub rust_path: Option<String>,
    /// Where it is defined.
    pub loc: Option<SourceLoc>,
}

/// Memory space of a module global.
///
/// ```
/// assert_ne!(cuda_kernel_build::model::GlobalSpace::Constant, cuda_kernel_build::model::GlobalSpace::Device);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GlobalSpace {
    /// `__constant__`
    Constant,
    /// `__device__`
    Device,
}

/// A `__constant__` or `__device__` variable.
///
/// ```
/// use cuda_kernel_build::model::{CType, Global, GlobalSpace, Scalar};
/// let g = Global { name: "coeffs".into(), symbol: "coeffs".into(), space: GlobalSpace::Constant,
///     ty: CType::Array { elem: Box::new(CType::Scalar(Scalar::F32)), len: 16 }, size: 64, loc: None };
/// assert_eq!(g.size, 64);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Global {
    /// Name as written.
    pub name: String,
    /// Symbol for `cuModuleGetGlobal` (mangled unless `extern "C"`).
    pub symbol: String,
    /// Memory space.
    pub space: GlobalSpace,
    /// Type, with array extents as [`CType::Array`].
    pub ty: CType,
    /// Total size in bytes.
    pub size: u64,
    /// Where it is declared.
    pub loc: Option<SourceLoc>,
}

/// Everything the front end found in one translation unit.
///
/// ```
/// let m = cuda_kernel_build::model::ModuleInfo::default();
/// assert!(m.kernels.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleInfo {
    /// Kernels in source order (each template instantiation separately).
    pub kernels: Vec<Kernel>,
    /// Struct definitions from the user's files.
    pub structs: Vec<StructDef>,
    /// `__constant__` and `__device__` globals.
    pub globals: Vec<Global>,
    /// True when the declarations were read from nvcc's preprocessed output.
    pub preprocessed: bool,
    /// Notes for the user (for example: parsed without preprocessing).
    pub notes: Vec<String>,
    /// Declarations outside every kernel's signature that the front end could not read
    /// and skipped, each as `file:line:col: error: why` (shown with `KERNEL_BUILD_DEBUG=1`
    /// and by `cuda-kernel-inspect build`; an error only when a kernel uses what they declare).
    #[serde(default)]
    pub skipped: Vec<String>,
    /// Where reading stopped, when nvcc compiled the source but the front end could not
    /// follow its text to the end (`file:line:col: why`): the kernels it did not reach are
    /// in [`ModuleInfo::untyped`], from the images, launchable by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Kernels this file declares whose code none of its images holds, when it is one
    /// file of a module of several (another file defines them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<Kernel>,
    /// Kernels of the images without a typed declaration (a type the front end cannot
    /// read, a closure, a layout that differs): in the module, launchable by name only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untyped: Vec<UntypedKernel>,
    /// Host functions with C linkage that the module's files define (`extern "C"` functions
    /// with a body, neither `__global__` nor `__device__`): what `host_functions!`
    /// declarations are checked against when the module is built with host code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_functions: Vec<HostFunction>,
    /// Named enumerations of the user's files, with their values: each becomes a Rust enum
    /// whose values convert from the underlying integer with a check.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enums: Vec<EnumDef>,
    /// Types whose layout the compile that built the images contradicts, or did not
    /// measure: no kernel that passes or points to one of them is typed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layout_problems: Vec<LayoutProblem>,
    /// The structs and enums whose layout the compile that built the images measured equal
    /// to the one the front end read: a typed kernel passes or points to no other (opaque
    /// and named-only types aside, which the compiler measured or which hold no bytes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layouts_measured: Vec<String>,
    /// Instantiations of tuned kernels' variants the compiler refused for some virtual
    /// architectures, left out of those targets' images (or out of the module, where it
    /// refused them for every one): `(instantiation, virtual architecture, its words)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<(String, String, String)>,
}

/// A struct, union or enum whose layout the compiler did not confirm: the sizes, offsets or
/// values the front end read differ from what the compile that built the images measured,
/// or it measured nothing for it.
///
/// ```
/// use cuda_kernel_build::model::LayoutProblem;
/// let p = LayoutProblem {
///     ty: "P".into(),
///     why: "the sm_90 compile lays it out as size 9, align 1".into(),
///     differs: true,
/// };
/// assert!(p.differs);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutProblem {
    /// The type, as [`StructDef::name`] or [`EnumDef::name`] names it.
    pub ty: String,
    /// What the compiler said (both layouts), or why it could not measure the type.
    pub why: String,
    /// True when the compiler measured another layout; false when it measured none.
    pub differs: bool,
}

/// A named C enumeration and its enumerators' values.
///
/// ```
/// use cuda_kernel_build::model::{EnumDef, Scalar};
/// let e = EnumDef {
///     name: "Mode".into(),
///     underlying: Scalar::I32,
///     variants: vec![("Fast".into(), 0), ("Exact".into(), 1)],
///     rust_path: None,
///     loc: None,
/// };
/// assert_eq!(e.variants[1].1, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumDef {
    /// Its name (qualified with `::` inside a namespace).
    pub name: String,
    /// The integer it is stored as (`int` unless given).
    pub underlying: Scalar,
    /// Its enumerators and their values, in order (values may repeat).
    pub variants: Vec<(String, i64)>,
    /// Defined in Rust and shared with CUDA (`#[derive(CudaType)]`): the Rust enum's path.
    #[serde(default)]
    pub rust_path: Option<String>,
    /// Where it is declared.
    pub loc: Option<SourceLoc>,
}

/// A host function of the module's files, callable from Rust through a checked binding.
///
/// ```
/// use cuda_kernel_build::model::{CType, HostFunction, Scalar};
/// let f = HostFunction {
///     name: "sort_pairs".into(),
///     params: vec![],
///     ret: CType::Scalar(Scalar::I32),
///     ret_written: "cudaError_t".into(),
///     loc: None,
///     unreadable: None,
/// };
/// assert!(f.returns_cuda_error());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFunction {
    /// Its name (the symbol: C linkage).
    pub name: String,
    /// Its parameters (the layout is C's; `cudaStream_t` is a pointer to `CUstream_st`).
    pub params: Vec<Param>,
    /// The return type (`void`, a scalar; `cudaError_t` is an `int`).
    pub ret: CType,
    /// The return type as written (`cudaError_t`).
    pub ret_written: String,
    /// Where it is defined.
    pub loc: Option<SourceLoc>,
    /// Why its declaration could not be read, when it could not (its parameters are then
    /// empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

impl HostFunction {
    /// True when it returns a `cudaError_t` (its binding returns `Result`).
    ///
    /// ```
    /// use cuda_kernel_build::model::{CType, HostFunction};
    /// let f = HostFunction { name: "f".into(), params: vec![], ret: CType::Void,
    ///     ret_written: "void".into(), loc: None, unreadable: None };
    /// assert!(!f.returns_cuda_error());
    /// ```
    pub fn returns_cuda_error(&self) -> bool {
        matches!(
            self.ret_written.trim(),
            "cudaError_t" | "cudaError" | "enum cudaError"
        )
    }
}

/// A kernel of the compiled images that has no typed declaration: the module lists it with
/// its parameter layout from the image, and the generated code gives its by-name handle
/// instead of a typed stub.
///
/// ```
/// use cuda_kernel_build::model::{Layout, UntypedKernel};
/// let k = UntypedKernel {
///     name: "each<go(float*)::{lambda(unsigned int)#1}>".into(),
///     symbol: "_Z4eachIZ2goPfEUljE_EvT_".into(),
///     params: vec![Layout { offset: 0, size: 8, align: 1 }],
///     param_types: vec!["go(float*)::{lambda(unsigned int)#1}".into()],
///     param_names: vec![Some("f".into())],
///     why: "its parameter is a closure".into(),
///     loc: None,
///     images: vec![],
/// };
/// assert_eq!(k.params[0].size, 8);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntypedKernel {
    /// The kernel's C++ name, demangled from its symbol (or the symbol itself).
    pub name: String,
    /// Its symbol in the images; empty while only a declaration the front end could not
    /// read is known (verification fills it from the images).
    pub symbol: String,
    /// Offset and size of each parameter, from the image.
    pub params: Vec<Layout>,
    /// Each parameter's C++ type as the symbol spells it, when it is mangled.
    pub param_types: Vec<String>,
    /// Each parameter's name, from the declaration when one was read (else empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub param_names: Vec<Option<String>>,
    /// Why it has no typed declaration.
    pub why: String,
    /// The declaration it comes from, when one was found.
    pub loc: Option<SourceLoc>,
    /// Facts per compiled image.
    pub images: Vec<ImageFacts>,
}

impl Kernel {
    /// The targets whose image holds this kernel (filled in by verification).
    ///
    /// ```
    /// use cuda_kernel_build::model::{ImageFacts, Kernel, KernelAttrs, Linkage};
    /// let k = Kernel {
    ///     name: "k".into(), base_name: "k".into(), namespace: vec![], template_args: vec![],
    ///     symbol: "k".into(), linkage: Linkage::C, is_static: false, params: vec![],
    ///     attrs: KernelAttrs::default(), doc: None, loc: None,
    ///     images: vec![ImageFacts { target: "sm_90".into(), registers: Some(8), max_threads: None }],
    /// };
    /// assert_eq!(k.targets(), ["sm_90"]);
    /// ```
    pub fn targets(&self) -> Vec<String> {
        self.images.iter().map(|i| i.target.clone()).collect()
    }

    /// The targets holding this kernel when some of `module_targets` lack it; `None`
    /// when every image holds it (or nothing was compiled).
    ///
    /// ```
    /// use cuda_kernel_build::model::{ImageFacts, Kernel, KernelAttrs, Linkage};
    /// let k = Kernel {
    ///     name: "k".into(), base_name: "k".into(), namespace: vec![], template_args: vec![],
    ///     symbol: "k".into(), linkage: Linkage::C, is_static: false, params: vec![],
    ///     attrs: KernelAttrs::default(), doc: None, loc: None,
    ///     images: vec![ImageFacts { target: "sm_90".into(), registers: Some(8), max_threads: None }],
    /// };
    /// let all = ["sm_80".to_string(), "sm_90".to_string()];
    /// assert_eq!(k.on_some_targets(&all), Some(vec!["sm_90".to_string()]));
    /// assert_eq!(k.on_some_targets(&all[1..]), None);
    /// ```
    pub fn on_some_targets(&self, module_targets: &[String]) -> Option<Vec<String>> {
        let mine = self.targets();
        (!mine.is_empty() && module_targets.iter().any(|t| !mine.contains(t))).then_some(mine)
    }
}

impl ModuleInfo {
    /// Calls `f` on every source location the model holds: kernels (and those of other
    /// files), their parameters, structs, globals, untyped kernels, host functions.
    ///
    /// ```
    /// let mut m = cuda_kernel_build::model::ModuleInfo::default();
    /// let mut n = 0;
    /// m.for_each_location(|_| n += 1);
    /// assert_eq!(n, 0);
    /// ```
    pub fn for_each_location(&mut self, mut f: impl FnMut(&mut SourceLoc)) {
        for k in self.kernels.iter_mut().chain(self.elsewhere.iter_mut()) {
            let params = k.params.iter_mut().map(|p| &mut p.loc);
            for loc in std::iter::once(&mut k.loc).chain(params).flatten() {
                f(loc);
            }
        }
        let locs = (self.structs.iter_mut().map(|s| &mut s.loc))
            .chain(self.globals.iter_mut().map(|g| &mut g.loc))
            .chain(self.untyped.iter_mut().map(|u| &mut u.loc))
            .chain(self.host_functions.iter_mut().map(|h| &mut h.loc));
        for loc in locs.flatten() {
            f(loc);
        }
    }

    /// Looks up a struct definition by name.
    ///
    /// ```
    /// let m = cuda_kernel_build::model::ModuleInfo::default();
    /// assert!(m.struct_def("P").is_none());
    /// ```
    pub fn struct_def(&self, name: &str) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.name == name)
    }
}
