//! [`Program`]: CUDA source compiled while the program runs, cached on disk.

use std::path::PathBuf;

use super::cache::{CacheChoice, DiskCache, Entry};
use super::compile::{Input, compile};
use super::key::{KeyInput, key};
use super::library::Nvrtc;
use super::target::Target;
use crate::code::object_code::ObjectCode;
use crate::device::gpu::Gpu;
use crate::error::Error;

/// CUDA source to compile with NVRTC at run time, into an [`ObjectCode`] (a cubin for one
/// GPU, PTX, or LTO-IR). Compilations are cached on disk: the same program, options, target
/// and NVRTC compile once per machine.
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, Launch, Program};
/// let gpu = Gpu::new(0)?;
/// let code = Program::new(r#"
///     template <typename T>
///     __global__ void scale(T* x, T a, int n) {
///         int i = blockIdx.x * blockDim.x + threadIdx.x;
///         if (i < n) x[i] *= a * SCALE;
///     }"#)
///     .name("scale.cu")
///     .define("SCALE", "2")
///     .name_expression("scale<float>")
///     .compile_for(&gpu)?; // sm_XY of this GPU: no JIT at load
/// let scale = code.load(&gpu)?.kernel("scale<float>")?;
/// let mut x = gpu.upload(&[1.0f32, 2.0, 3.0])?;
/// // SAFETY: scale<float>(float*, float, int).
/// unsafe { scale.launch(&Launch::for_num_elems(3), (&mut x, 10.0f32, 3i32))? };
/// assert_eq!(gpu.download(&x)?, [20.0, 40.0, 60.0]);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Program {
    name: String,
    source: String,
    includes: Vec<PathBuf>,
    headers: Vec<(String, String)>,
    defines: Vec<(String, String)>,
    options: Vec<String>,
    name_expressions: Vec<String>,
    cache: CacheChoice,
    toolkit_headers: bool,
}

impl Program {
    /// A program of `source`, named `program.cu`.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("__global__ void k() {}");
    /// assert_eq!(p.program_name(), "program.cu");
    /// ```
    pub fn new(source: impl Into<String>) -> Program {
        Program {
            name: "program.cu".to_owned(),
            source: source.into(),
            includes: Vec::new(),
            headers: Vec::new(),
            defines: Vec::new(),
            options: Vec::new(),
            name_expressions: Vec::new(),
            cache: CacheChoice::Default,
            toolkit_headers: true,
        }
    }

    /// The program's file name, as NVRTC's messages print it (`k.cu(3): error ...`).
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("").name("tile.cu");
    /// assert_eq!(p.program_name(), "tile.cu");
    /// ```
    pub fn name(mut self, name: impl Into<String>) -> Program {
        self.name = name.into();
        self
    }

    /// The program's file name.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::Program::new("").program_name(), "program.cu");
    /// ```
    pub fn program_name(&self) -> &str {
        &self.name
    }

    /// A folder to find `#include`d files in (`-I`). The files the program includes from it
    /// are part of the cache key.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("#include \"tile.h\"").include("kernels/include");
    /// ```
    pub fn include(mut self, dir: impl Into<PathBuf>) -> Program {
        self.includes.push(dir.into());
        self
    }

    /// A header given as text: `#include "name"` finds it without any file.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("#include \"tile.h\"\n__global__ void k(float* x) { x[0] = TILE; }")
    ///     .header("tile.h", "#define TILE 32");
    /// ```
    pub fn header(mut self, name: impl Into<String>, text: impl Into<String>) -> Program {
        self.headers.push((name.into(), text.into()));
        self
    }

    /// `#define name value` before the source (`-Dname=value`); an empty `value` defines
    /// `name` as `1` (`-Dname`).
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("").define("TILE", "32").define("FAST", "");
    /// ```
    pub fn define(mut self, name: impl Into<String>, value: impl ToString) -> Program {
        self.defines.push((name.into(), value.to_string()));
        self
    }

    /// Any other NVRTC option (`--use_fast_math`, `-lineinfo`, `--std=c++20`).
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("").option("--use_fast_math");
    /// ```
    pub fn option(mut self, option: impl Into<String>) -> Program {
        self.options.push(option.into());
        self
    }

    /// A C++ name to resolve after compiling (`"axpy<float>"`): NVRTC instantiates the
    /// template, and the compiled code maps the name to its mangled symbol
    /// ([`ObjectCode::symbol`]), so [`crate::RawModule::kernel`] accepts it.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("template <class T> __global__ void k(T) {}")
    ///     .name_expression("k<int>");
    /// ```
    pub fn name_expression(mut self, expr: impl Into<String>) -> Program {
        self.name_expressions.push(expr.into());
        self
    }

    /// Caches compilations in `dir` instead of the default folder.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("").cache_dir("/tmp/my-kernels");
    /// ```
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Program {
        self.cache = CacheChoice::Dir(dir.into());
        self
    }

    /// Compiles every time, without the disk cache.
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("").no_cache();
    /// ```
    pub fn no_cache(mut self) -> Program {
        self.cache = CacheChoice::Off;
        self
    }

    /// Leaves out the toolkit's header folder, which programs otherwise include from when
    /// NVRTC has one beside it ([`Nvrtc::include_dir`]).
    ///
    /// ```
    /// let p = cuda_kernel_runtime::Program::new("").no_toolkit_headers();
    /// ```
    pub fn no_toolkit_headers(mut self) -> Program {
        self.toolkit_headers = false;
        self
    }

    /// Compiles for `gpu`'s exact architecture (`sm_XY`): a cubin the driver loads without
    /// JIT.
    ///
    /// ```no_run
    /// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let code = cuda_kernel_runtime::Program::new("extern \"C\" __global__ void k() {}").compile_for(&gpu)?;
    /// assert_eq!(code.kind(), cuda_kernel_runtime::CodeKind::Cubin);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`compile`](Self::compile).
    pub fn compile_for(&self, gpu: &Gpu) -> Result<ObjectCode, Error> {
        self.compile(&gpu.arch())
    }

    /// Compiles for `target`, no GPU needed: `sm_90` gives a cubin, `compute_90` PTX,
    /// `lto_90` LTO-IR (for [`crate::Linker`]).
    ///
    /// ```no_run
    /// let ptx = cuda_kernel_runtime::Program::new("extern \"C\" __global__ void k() {}").compile("compute_90")?;
    /// assert_eq!(ptx.kind(), cuda_kernel_runtime::CodeKind::Ptx);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NoNvrtc`] without NVRTC; [`Error::UnsupportedTarget`] for a target it does
    /// not compile for; [`Error::Compile`] with NVRTC's log (`file(line): error ...`) and the
    /// options when the source does not compile.
    pub fn compile(&self, target: &str) -> Result<ObjectCode, Error> {
        let target = Target::parse(target)?;
        let nvrtc = Nvrtc::load()?;
        if !nvrtc.archs().contains(&target.number) {
            return Err(Error::UnsupportedTarget {
                target: target.to_string(),
                supported: format!(
                    "NVRTC {}.{} compiles for {}",
                    nvrtc.version().0,
                    nvrtc.version().1,
                    nvrtc
                        .archs()
                        .iter()
                        .map(|a| format!("sm_{a}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        let options = self.options_for(&target, nvrtc);
        let cache = DiskCache::open(&self.cache);
        let key = cache.as_ref().map(|_| {
            key(&KeyInput {
                name: &self.name,
                source: &self.source,
                headers: &self.headers,
                options: &options,
                name_expressions: &self.name_expressions,
                includes: &self.includes,
                nvrtc: nvrtc.version(),
            })
        });
        if let (Some(cache), Some(key)) = (&cache, &key)
            && let Some(hit) = cache.get(key).filter(|e| e.kind == target.kind)
        {
            return Ok(self.object(hit));
        }
        let out = compile(&Input {
            name: &self.name,
            source: &self.source,
            headers: &self.headers,
            options: &options,
            name_expressions: &self.name_expressions,
            kind: target.kind,
        })?;
        let entry = Entry {
            kind: target.kind,
            code: out.code,
            symbols: out.symbols,
        };
        if let (Some(cache), Some(key)) = (&cache, &key) {
            // A cache that cannot be written costs the next run a compilation, nothing more.
            let _ = cache.put(key, &entry);
        }
        Ok(self.object(entry))
    }

    /// NVRTC's options: the target's, the include folders, the defines, the user's.
    fn options_for(&self, target: &Target, nvrtc: &Nvrtc) -> Vec<String> {
        let mut o = target.options();
        for dir in &self.includes {
            o.push(format!("--include-path={}", dir.display()));
        }
        if self.toolkit_headers
            && let Some(dir) = nvrtc.include_dir()
        {
            o.push(format!("--include-path={}", dir.display()));
        }
        for (name, value) in &self.defines {
            if value.is_empty() {
                o.push(format!("-D{name}"));
            } else {
                o.push(format!("-D{name}={value}"));
            }
        }
        o.extend(self.options.iter().cloned());
        o
    }

    fn object(&self, entry: Entry) -> ObjectCode {
        let mut code = ObjectCode::of_kind(entry.kind, entry.code).with_name(self.name.clone());
        for (expr, symbol) in entry.symbols {
            code = code.with_symbol(expr, symbol);
        }
        code
    }
}
