//! Static metadata that generated code emits for each module: what it contains and how it was
//! built. Everything is `'static` and `const`-constructible.

/// 8-byte aligned wrapper for an embedded fatbin, so its bytes can go to the driver as they lie
/// in the binary, without a copy.
///
/// ```
/// use cuda_kernel_runtime::__private::Aligned;
/// static IMAGE: Aligned<[u8; 4]> = Aligned(*b"\x50\xed\x55\xba");
/// assert_eq!(std::ptr::from_ref(&IMAGE.0).addr() % 8, 0);
/// ```
#[repr(C, align(8))]
pub struct Aligned<T: ?Sized>(pub T);

/// An embedded fatbin behind the label that names its module
/// (`cuda_kernel_objects::label`), so that a tool reading the built binary can tell which
/// module an embedded fatbin is. The label's length is a multiple of 8: the image stays
/// 8-byte aligned.
///
/// ```
/// use cuda_kernel_runtime::__private::{Labelled, label_header};
/// static IMAGE: &Labelled<[u8; 32], [u8]> = &Labelled {
///     label: label_header::<32>("ops", 4),
///     image: *b"\x50\xed\x55\xba",
/// };
/// assert_eq!(std::ptr::from_ref(&IMAGE.image).cast::<u8>().addr() % 8, 0);
/// assert_eq!(&IMAGE.label[24..27], b"ops");
/// ```
#[repr(C, align(8))]
pub struct Labelled<L, T: ?Sized> {
    /// The label.
    pub label: L,
    /// The image.
    pub image: T,
}

/// One module: its image, the archs it embeds, its kernels and globals.
///
/// ```
/// use cuda_kernel_runtime::spec::ModuleSpec;
/// static SPEC: ModuleSpec = ModuleSpec {
///     name: "empty", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[],
///     units: &[], source: None, tuned: &[],
/// };
/// assert!(SPEC.image.is_none());
/// ```
#[derive(Debug)]
pub struct ModuleSpec {
    /// The module's name (as the user wrote it).
    pub name: &'static str,
    /// The fatbin; `None` when the module was built without device code.
    pub image: Option<&'static [u8]>,
    /// Targets in the image, e.g. `["sm_80", "sm_90", "compute_90"]`.
    pub archs: &'static [&'static str],
    /// Version of the CUDA toolkit that built the image, e.g. `"13.0"`.
    pub toolkit: &'static str,
    /// Kernels, in the order generated stubs index them.
    pub kernels: &'static [KernelSpec],
    /// `__constant__` and `__device__` variables, in the order generated accessors index them.
    pub globals: &'static [GlobalSpec],
    /// For a module of several files that are not device-linked: each file's own fatbin
    /// inside `image`, loaded as a driver module of its own. Empty when `image` is one
    /// module.
    pub units: &'static [UnitSpec],
    /// The source to compile at run time (instead of `image`, or when `image` has nothing
    /// for the GPU), when the module carries it.
    pub source: Option<&'static SourceSpec>,
    /// The kernels tuned over declared variants (`tune` in `cuda_module!`, `Build::tune`),
    /// each with its variants: what a generated `<kernel>_tuned` method chooses from.
    pub tuned: &'static [TunedSpec],
}

/// A kernel tuned over declared variants: the name its choices, pins and table rows go by,
/// the declaration's axes, and each variant with the kernel it launches. A variant left
/// out of some targets' images (it did not compile for them) has a kernel whose
/// [`available`](KernelSpec::available) lists the targets that hold it.
///
/// ```
/// use cuda_kernel_runtime::spec::{TunedSpec, VariantSpec};
/// static SUM: TunedSpec = TunedSpec {
///     name: "sums::block_sum",
///     axes: &["BLOCK", "ITEMS"],
///     variants: &[VariantSpec { name: "block128_items4", kernel: 0, values: &["128", "4"] }],
/// };
/// assert_eq!(SUM.variants[0].values[1], "4");
/// ```
#[derive(Debug)]
pub struct TunedSpec {
    /// `module::kernel`: what `KERNEL_TUNE_PIN`, the cache and the embedded table call it.
    pub name: &'static str,
    /// The axes the variants vary over (template parameters and launch choices), in the
    /// declaration's order.
    pub axes: &'static [&'static str],
    /// The variants, in the declaration's order.
    pub variants: &'static [VariantSpec],
}

/// One declared variant of a tuned kernel.
///
/// ```
/// let v = cuda_kernel_runtime::spec::VariantSpec { name: "threads256", kernel: 2, values: &["256"] };
/// assert_eq!(v.kernel, 2);
/// ```
#[derive(Debug)]
pub struct VariantSpec {
    /// Its name (`block128_items4`: each axis and its value), stable from build to build.
    pub name: &'static str,
    /// The kernel it launches: an index into [`ModuleSpec::kernels`].
    pub kernel: usize,
    /// Its value of each axis, as the declaration writes it.
    pub values: &'static [&'static str],
}

impl ModuleSpec {
    /// A short hash of what the module runs: its image, or the source it compiles at run time
    /// (text, headers, defines, options) when it embeds none; 16 hex digits. Tuned choices
    /// are recorded under it, so that a rebuilt module with other machine code is timed
    /// again instead of inheriting choices made for the old one. Computed when called (a
    /// hash of the whole image: about a millisecond for a few megabytes); keep the result.
    ///
    /// ```
    /// use cuda_kernel_runtime::spec::ModuleSpec;
    /// const A: ModuleSpec = ModuleSpec {
    ///     name: "a", image: Some(b"\x50\xed\x55\xba"), archs: &[], toolkit: "13.0",
    ///     kernels: &[], globals: &[], units: &[], source: None, tuned: &[],
    /// };
    /// const B: ModuleSpec = ModuleSpec { image: Some(b"\x50\xed\x55\xbb"), ..A };
    /// assert_eq!(A.content_hash().len(), 16);
    /// assert_ne!(A.content_hash(), B.content_hash());
    /// ```
    pub fn content_hash(&self) -> String {
        let mut h = blake3::Hasher::new();
        h.update(self.name.as_bytes()).update(b"\0");
        if let Some(image) = self.image {
            h.update(b"image\0").update(image);
        }
        if let Some(src) = self.source {
            h.update(b"source\0").update(src.text.as_bytes());
            for (name, text) in src.headers {
                h.update(name.as_bytes())
                    .update(b"\0")
                    .update(text.as_bytes());
            }
            for (name, value) in src.defines {
                h.update(name.as_bytes())
                    .update(b"=")
                    .update(value.as_bytes());
            }
            for o in src.options {
                h.update(o.as_bytes()).update(b"\0");
            }
        }
        h.finalize().to_hex()[..16].to_owned()
    }

    /// How the image's entries are stored: `(compressed, entries)`, read from the fatbin's
    /// entry headers (nothing is decompressed). The build compresses every entry by default
    /// (`compress = false` in `cuda_module!`, `Build::compress(false)` or
    /// `KERNEL_BUILD_COMPRESS=0` turn it off); the driver decompresses at load. `None`
    /// without device code or when the image is not a fatbin.
    ///
    /// ```
    /// use cuda_kernel_runtime::spec::ModuleSpec;
    /// static SPEC: ModuleSpec = ModuleSpec {
    ///     name: "empty", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[],
    ///     units: &[], source: None, tuned: &[],
    /// };
    /// assert_eq!(SPEC.compressed_entries(), None);
    /// ```
    pub fn compressed_entries(&self) -> Option<(usize, usize)> {
        let stored = cuda_kernel_objects::entry_compression(self.image?).ok()?;
        let compressed = stored
            .iter()
            .filter(|c| **c != cuda_kernel_objects::Compression::None)
            .count();
        Some((compressed, stored.len()))
    }

    /// Whether the image's cubins keep the PTX text ptxas embeds with line tables:
    /// `(cubins keeping it, cubins with line tables)`, read from each cubin (entries are
    /// decompressed: a few milliseconds for a large module). The build leaves the text out
    /// by default (`ptx_text = true` in `cuda_module!`, `Build::ptx_text(true)` or
    /// `KERNEL_BUILD_PTX_TEXT=1` keep it); the line tables stay either way. `None` without
    /// device code or when the image is not a fatbin.
    ///
    /// ```
    /// use cuda_kernel_runtime::spec::ModuleSpec;
    /// static SPEC: ModuleSpec = ModuleSpec {
    ///     name: "empty", image: None, archs: &[], toolkit: "13.0", kernels: &[], globals: &[],
    ///     units: &[], source: None, tuned: &[],
    /// };
    /// assert_eq!(SPEC.ptx_text(), None);
    /// ```
    pub fn ptx_text(&self) -> Option<(usize, usize)> {
        let fatbin = cuda_kernel_objects::parse(self.image?).ok()?;
        let cubins: Vec<cuda_kernel_objects::Cubin> = fatbin
            .entries
            .iter()
            .filter(|e| e.kind == cuda_kernel_objects::EntryKind::Elf)
            .filter_map(|e| cuda_kernel_objects::parse_cubin(&e.payload).ok())
            .filter(|c| c.line_tables)
            .collect();
        let kept = cubins.iter().filter(|c| c.ptx_text > 0).count();
        Some((kept, cubins.len()))
    }
}

/// The CUDA source a module compiled at run time carries.
///
/// ```
/// use cuda_kernel_runtime::spec::SourceSpec;
/// static SRC: SourceSpec = SourceSpec {
///     name: "tile.cu", text: "#include \"tile.h\"\n", headers: &[("tile.h", "#define T 4\n")],
///     defines: &[("TILE", "32")], options: &[], fallback: false,
/// };
/// assert_eq!(SRC.headers.len(), 1);
/// ```
#[derive(Debug)]
pub struct SourceSpec {
    /// The program's name in NVRTC's messages.
    pub name: &'static str,
    /// The source text.
    pub text: &'static str,
    /// The user's headers it includes, by their `#include` names.
    pub headers: &'static [(&'static str, &'static str)],
    /// `(name, value)` definitions; an empty value defines the name as `1`.
    pub defines: &'static [(&'static str, &'static str)],
    /// NVRTC options.
    pub options: &'static [&'static str],
    /// Compiled only when the embedded image has nothing for the GPU.
    pub fallback: bool,
}

/// One file's image inside a module of several whole-program files.
///
/// ```
/// use cuda_kernel_runtime::spec::UnitSpec;
/// const U: UnitSpec = UnitSpec { file: "a.cu", offset: 0, len: 4096, kernels: &[0, 2], globals: &[] };
/// assert_eq!(U.kernels.len(), 2);
/// ```
#[derive(Debug)]
pub struct UnitSpec {
    /// The `.cu` file.
    pub file: &'static str,
    /// Where its fatbin starts in the module's image (a multiple of 8).
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// Indices into [`ModuleSpec::kernels`] of the kernels it holds.
    pub kernels: &'static [u16],
    /// Indices into [`ModuleSpec::globals`] of the globals it holds.
    pub globals: &'static [u16],
}

/// One `__global__` function.
///
/// ```
/// use cuda_kernel_runtime::spec::{KernelSpec, ParamSpec};
/// const K: KernelSpec = KernelSpec {
///     name: "scale", symbol: "scale",
///     params: &[ParamSpec::new("x", "float*", 0, 8)],
///     max_threads: 0, cluster_dims: None, available: None,
/// };
/// assert_eq!(K.params.len(), 1);
/// ```
#[derive(Debug)]
pub struct KernelSpec {
    /// The kernel's name in CUDA.
    pub name: &'static str,
    /// The symbol to look up in the image (the mangled name for C++ linkage).
    pub symbol: &'static str,
    /// Parameters in order.
    pub params: &'static [ParamSpec],
    /// Maximum threads per block from `__launch_bounds__`; 0 when unknown.
    pub max_threads: u32,
    /// Shape from `__cluster_dims__`.
    pub cluster_dims: Option<[u32; 3]>,
    /// The targets whose image holds the kernel, when some of the module's targets lack it
    /// (declared inside `#if __CUDA_ARCH__ ...`); `None` when every image holds it.
    pub available: Option<&'static [&'static str]>,
}

impl KernelSpec {
    /// Kernel `name`, found in the image as `symbol`, taking `params`; no launch bounds, no
    /// cluster shape, in every image (the `with_` methods set those).
    ///
    /// ```
    /// use cuda_kernel_runtime::spec::{KernelSpec, ParamSpec};
    /// const K: KernelSpec = KernelSpec::new("scale", "scale", &[ParamSpec::new("n", "int", 0, 4)])
    ///     .with_max_threads(256)
    ///     .with_cluster_dims([2, 1, 1])
    ///     .with_available(&["sm_90"]);
    /// assert_eq!((K.max_threads, K.cluster_dims, K.available), (256, Some([2, 1, 1]), Some(&["sm_90"][..])));
    /// ```
    pub const fn new(
        name: &'static str,
        symbol: &'static str,
        params: &'static [ParamSpec],
    ) -> Self {
        KernelSpec {
            name,
            symbol,
            params,
            max_threads: 0,
            cluster_dims: None,
            available: None,
        }
    }

    /// A kernel with C linkage (`extern "C"`), whose symbol is its name.
    ///
    /// ```
    /// let k = cuda_kernel_runtime::spec::KernelSpec::extern_c("scale", &[]);
    /// assert_eq!(k.symbol, "scale");
    /// ```
    pub const fn extern_c(name: &'static str, params: &'static [ParamSpec]) -> Self {
        KernelSpec::new(name, name, params)
    }

    /// The same kernel with `__launch_bounds__` of `max_threads`.
    ///
    /// ```
    /// let k = cuda_kernel_runtime::spec::KernelSpec::new("k", "k", &[]).with_max_threads(128);
    /// assert_eq!(k.max_threads, 128);
    /// ```
    pub const fn with_max_threads(mut self, max_threads: u32) -> Self {
        self.max_threads = max_threads;
        self
    }

    /// The same kernel with `__cluster_dims__(x, y, z)`.
    ///
    /// ```
    /// let k = cuda_kernel_runtime::spec::KernelSpec::new("k", "k", &[]).with_cluster_dims([2, 1, 1]);
    /// assert_eq!(k.cluster_dims, Some([2, 1, 1]));
    /// ```
    pub const fn with_cluster_dims(mut self, dims: [u32; 3]) -> Self {
        self.cluster_dims = Some(dims);
        self
    }

    /// The same kernel, held by the images of `targets` only.
    ///
    /// ```
    /// let k = cuda_kernel_runtime::spec::KernelSpec::new("k", "k", &[]).with_available(&["sm_90"]);
    /// assert_eq!(k.available, Some(&["sm_90"][..]));
    /// ```
    pub const fn with_available(mut self, targets: &'static [&'static str]) -> Self {
        self.available = Some(targets);
        self
    }
}

/// One kernel parameter.
///
/// ```
/// let p = cuda_kernel_runtime::spec::ParamSpec { name: "n", c_type: "int", offset: 16, size: 4, align: 0 };
/// assert_eq!(p.offset + p.size, 20);
/// ```
#[derive(Debug)]
pub struct ParamSpec {
    /// Name in the CUDA declaration.
    pub name: &'static str,
    /// C type as declared.
    pub c_type: &'static str,
    /// Offset in the parameter buffer.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes when it is more than the parameter buffer's 16 (a `CUtensorMap`,
    /// a struct holding one): such a parameter's offset depends on the target, so a check
    /// of a compiled image allows for it; 0 otherwise.
    pub align: u32,
}

impl ParamSpec {
    /// A parameter named `name`, of C type `c_type`, at `offset` in the parameter buffer,
    /// `size` bytes long (what generated specs are written with, one line per parameter).
    ///
    /// ```
    /// use cuda_kernel_runtime::spec::ParamSpec;
    /// const P: ParamSpec = ParamSpec::new("n", "int", 16, 4);
    /// assert_eq!((P.name, P.offset + P.size), ("n", 20));
    /// ```
    pub const fn new(name: &'static str, c_type: &'static str, offset: u32, size: u32) -> Self {
        ParamSpec {
            name,
            c_type,
            offset,
            size,
            align: 0,
        }
    }

    /// The same parameter, aligned to `align` bytes (written for alignments above 16).
    ///
    /// ```
    /// use cuda_kernel_runtime::spec::ParamSpec;
    /// const M: ParamSpec = ParamSpec::new("m", "CUtensorMap", 112, 128).with_align(128);
    /// assert_eq!(M.align, 128);
    /// ```
    pub const fn with_align(mut self, align: u32) -> Self {
        self.align = align;
        self
    }
}

/// One module global (`__constant__` or `__device__` variable).
///
/// ```
/// let g = cuda_kernel_runtime::spec::GlobalSpec { name: "coeffs", symbol: "coeffs", size: 64 };
/// assert_eq!(g.size, 64);
/// ```
#[derive(Debug)]
pub struct GlobalSpec {
    /// Name in CUDA.
    pub name: &'static str,
    /// Symbol to look up.
    pub symbol: &'static str,
    /// Size in bytes.
    pub size: usize,
}
