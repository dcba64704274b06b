//! The generators at run time: a kernel described when the program runs (types chosen from
//! data, an expression typed at a prompt), written by `cuda-kernel-generate`, compiled by
//! NVRTC through [`Program`]'s disk cache, and launched with arguments checked against its
//! parameters before the launch.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

use cuda_kernel_generate::{self as generate, Access, Dtype, Param};
use cudarc::driver::{CudaStream, DeviceRepr};

use super::launch::{
    elementwise_launch, read_one, reduction_launches, scan_launch, scan_scratch, scratch,
};
use crate::code::module::Kernel;
use crate::code::nvrtc::Program;
use crate::device::gpu::Gpu;
use crate::error::Error;
use crate::launch::args::PreparedArg;
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};
use crate::memory::prepared::PreparedBuffer;

/// A Rust element type of generated kernels, and its [`Dtype`].
///
/// ```
/// use cuda_kernel_runtime::{Element, Dtype};
/// assert_eq!(<f32 as Element>::DTYPE, Dtype::F32);
/// assert_eq!(<half::bf16 as Element>::DTYPE, Dtype::Bf16);
/// ```
pub trait Element: DeviceRepr + Copy + Default + Send + Sync + 'static {
    /// The element type's description.
    const DTYPE: Dtype;
}

macro_rules! elements {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t {
            const DTYPE: Dtype = Dtype::$d;
        }
    )*};
}
elements!(half::f16 => F16, half::bf16 => Bf16, f32 => F32, f64 => F64, i8 => I8, i16 => I16,
    i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32, u64 => U64);

/// Describes a kernel to generate at run time; [`Generated::build`] writes and compiles it.
///
/// ```no_run
/// use cuda_kernel_runtime::{Arg, Dtype, Generated, Gpu};
/// let gpu = Gpu::new(0)?;
/// let axpy = Generated::elementwise("axpy", "y[i] = a * x[i] + y[i]")
///     .scalar("a", Dtype::F32)
///     .input("x", Dtype::F32)
///     .output("y", Dtype::F32)
///     .build(&gpu)?;
/// let x = gpu.upload(&[1.0f32; 1000])?;
/// let mut y = gpu.upload(&[2.0f32; 1000])?;
/// axpy.launch(&mut [Arg::scalar(3.0f32), Arg::input(&x), Arg::output(&mut y)])?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Generated {
    name: String,
    preamble: Option<String>,
    params: Vec<Param>,
    shape: Shape,
}

#[derive(Clone, Debug)]
enum Shape {
    Elementwise {
        body: String,
    },
    Reduction {
        output: Dtype,
        map: String,
        reduce: String,
        identity: String,
        post: Option<String>,
    },
    Scan {
        dtype: Dtype,
        op: String,
        identity: String,
        exclusive: bool,
    },
}

impl Generated {
    /// An elementwise kernel running `body` for every index `i < n` (`n`: the slices'
    /// common length).
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::elementwise("relu", "x[i] = fmaxf(x[i], 0.0f)");
    /// # let _ = g;
    /// ```
    pub fn elementwise(name: &str, body: &str) -> Generated {
        Generated {
            name: name.to_owned(),
            preamble: None,
            params: Vec::new(),
            shape: Shape::Elementwise { body: body.into() },
        }
    }

    /// A reduction to one value of type `output`: `map` per index, combined by `reduce` (on
    /// `a` and `b`, associative and commutative) from `identity`; set them with
    /// [`Generated::map`], [`Generated::reduce`], [`Generated::identity`], [`Generated::post`].
    ///
    /// ```
    /// use cuda_kernel_runtime::{Dtype, Generated};
    /// let g = Generated::reduction("norm", Dtype::F64).input("x", Dtype::F64)
    ///     .map("x[i] * x[i]").reduce("a + b").identity("0").post("sqrt(r)");
    /// # let _ = g;
    /// ```
    pub fn reduction(name: &str, output: Dtype) -> Generated {
        Generated {
            name: name.to_owned(),
            preamble: None,
            params: Vec::new(),
            shape: Shape::Reduction {
                output,
                map: String::new(),
                reduce: "a + b".into(),
                identity: "0".into(),
                post: None,
            },
        }
    }

    /// An inclusive scan of `dtype` with operator `op` on `a` (earlier) and `b` (later),
    /// `a + b` and identity `0` until set; [`Generated::exclusive`] makes it exclusive.
    ///
    /// ```
    /// use cuda_kernel_runtime::{Dtype, Generated};
    /// let g = Generated::scan("running_max", Dtype::F32).op("fmaxf(a, b)").identity("-INFINITY");
    /// # let _ = g;
    /// ```
    pub fn scan(name: &str, dtype: Dtype) -> Generated {
        Generated {
            name: name.to_owned(),
            preamble: None,
            params: Vec::new(),
            shape: Shape::Scan {
                dtype,
                op: "a + b".into(),
                identity: "0".into(),
                exclusive: false,
            },
        }
    }

    /// Device code the expressions may use (functions, constants), before the kernel.
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::elementwise("k", "y[i] = sq(y[i])")
    ///     .preamble("__device__ float sq(float v) { return v * v; }");
    /// # let _ = g;
    /// ```
    pub fn preamble(mut self, code: &str) -> Generated {
        self.preamble = Some(code.to_owned());
        self
    }

    /// A scalar parameter (the same value for every element).
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::elementwise("k", "y[i] = a")
    ///     .scalar("a", cuda_kernel_runtime::Dtype::F32);
    /// # let _ = g;
    /// ```
    pub fn scalar(mut self, name: &str, dtype: Dtype) -> Generated {
        self.params.push(Param::new(name, dtype, Access::Scalar));
        self
    }

    /// A slice the kernel reads (`const T*`).
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::elementwise("k", "y[i] = x[i]")
    ///     .input("x", cuda_kernel_runtime::Dtype::F32);
    /// # let _ = g;
    /// ```
    pub fn input(mut self, name: &str, dtype: Dtype) -> Generated {
        self.params.push(Param::new(name, dtype, Access::In));
        self
    }

    /// A slice the kernel writes and may read (`T*`).
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::elementwise("k", "y[i] = 1")
    ///     .output("y", cuda_kernel_runtime::Dtype::U8);
    /// # let _ = g;
    /// ```
    pub fn output(mut self, name: &str, dtype: Dtype) -> Generated {
        self.params.push(Param::new(name, dtype, Access::Out));
        self
    }

    /// The map expression of a reduction (ignored by other kinds).
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::reduction("s", cuda_kernel_runtime::Dtype::F32).map("x[i]");
    /// # let _ = g;
    /// ```
    pub fn map(mut self, expr: &str) -> Generated {
        if let Shape::Reduction { map, .. } = &mut self.shape {
            *map = expr.to_owned();
        }
        self
    }

    /// The operator of a reduction, on `a` and `b` (ignored by other kinds).
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::reduction("m", cuda_kernel_runtime::Dtype::F32).reduce("fmaxf(a, b)");
    /// # let _ = g;
    /// ```
    pub fn reduce(mut self, expr: &str) -> Generated {
        if let Shape::Reduction { reduce, .. } = &mut self.shape {
            *reduce = expr.to_owned();
        }
        self
    }

    /// The operator of a scan, on `a` (earlier) and `b` (later) (ignored by other kinds).
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::scan("s", cuda_kernel_runtime::Dtype::I32).op("a * b").identity("1");
    /// # let _ = g;
    /// ```
    pub fn op(mut self, expr: &str) -> Generated {
        if let Shape::Scan { op, .. } = &mut self.shape {
            *op = expr.to_owned();
        }
        self
    }

    /// The identity of the operator of a reduction or scan.
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::reduction("m", cuda_kernel_runtime::Dtype::F32).identity("-INFINITY");
    /// # let _ = g;
    /// ```
    pub fn identity(mut self, expr: &str) -> Generated {
        match &mut self.shape {
            Shape::Reduction { identity, .. } | Shape::Scan { identity, .. } => {
                *identity = expr.to_owned();
            }
            Shape::Elementwise { .. } => {}
        }
        self
    }

    /// The post-map of a reduction, of the reduced value `r` and `n`.
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::reduction("mean", cuda_kernel_runtime::Dtype::F64).post("r / n");
    /// # let _ = g;
    /// ```
    pub fn post(mut self, expr: &str) -> Generated {
        if let Shape::Reduction { post, .. } = &mut self.shape {
            *post = Some(expr.to_owned());
        }
        self
    }

    /// Makes a scan exclusive (`y[k]` combines the elements before `k`).
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::scan("s", cuda_kernel_runtime::Dtype::U32).exclusive();
    /// # let _ = g;
    /// ```
    pub fn exclusive(mut self) -> Generated {
        if let Shape::Scan { exclusive, .. } = &mut self.shape {
            *exclusive = true;
        }
        self
    }

    /// The CUDA source the generator writes, or the first mistake in an expression.
    ///
    /// ```
    /// let g = cuda_kernel_runtime::Generated::elementwise("k", "y[i] = 2 * y[i]")
    ///     .output("y", cuda_kernel_runtime::Dtype::F32);
    /// assert!(g.source().unwrap().contains("extern \"C\" __global__"));
    /// ```
    pub fn source(&self) -> Result<String, Error> {
        self.generate().map(|(g, _)| g.source)
    }

    fn generate(&self) -> Result<(generate::Generated, generate::Kernel), Error> {
        let kernel = match &self.shape {
            Shape::Elementwise { body } => generate::Kernel::Elementwise(generate::Elementwise {
                name: self.name.clone(),
                label: self.name.clone(),
                params: self.params.clone(),
                body: body.clone(),
            }),
            Shape::Reduction {
                output,
                map,
                reduce,
                identity,
                post,
            } => generate::Kernel::Reduction(generate::Reduction {
                name: self.name.clone(),
                label: self.name.clone(),
                params: self.params.clone(),
                output: *output,
                map: map.clone(),
                reduce: reduce.clone(),
                identity: identity.clone(),
                post: post.clone(),
            }),
            Shape::Scan {
                dtype,
                op,
                identity,
                exclusive,
            } => generate::Kernel::Scan(generate::Scan {
                name: self.name.clone(),
                label: self.name.clone(),
                dtype: *dtype,
                input: "x".into(),
                output: "y".into(),
                op: op.clone(),
                identity: identity.clone(),
                exclusive: *exclusive,
            }),
        };
        let module = generate::Module {
            preamble: self.preamble.clone(),
            kernels: vec![kernel.clone()],
        };
        let generated = module.source().map_err(|errors| Error::Generated {
            kernel: self.name.clone(),
            message: errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        })?;
        Ok((generated, kernel))
    }

    /// Writes the kernel and compiles it with NVRTC for `gpu` (through [`Program`]'s disk
    /// cache: the same kernel compiles once per machine), then loads it.
    ///
    /// # Errors
    ///
    /// A mistake in an expression ([`Error::Generated`], naming the part), NVRTC's errors
    /// (which name the kernel and the part: `axpy: body(1): error: ...`), a driver failure.
    pub fn build(&self, gpu: &Gpu) -> Result<GeneratedKernel, Error> {
        let (generated, kernel) = self.generate()?;
        let code = self
            .program(&generated)
            .compile_for(gpu)
            .map_err(|e| explained(&generated, e))?;
        let module = code.load(gpu)?;
        let info = generated
            .kernels
            .into_iter()
            .next()
            .ok_or_else(|| Error::Generated {
                kernel: self.name.clone(),
                message: "the generator wrote no kernel".into(),
            })?;
        let entries = info
            .entry_points
            .iter()
            .map(|e| module.kernel(e))
            .collect::<Result<Vec<Kernel>, Error>>()?;
        Ok(GeneratedKernel {
            entries,
            info,
            kernel,
            name: self.name.clone(),
            params: self.params.clone(),
            stream: gpu.stream().clone(),
        })
    }
}

impl Generated {
    /// Writes the kernel and compiles it for `target` (`sm_90`, `compute_90`) without a GPU:
    /// to check an expression, or to keep the compiled code.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Dtype, Generated};
    /// let e = Generated::elementwise("bad", "y[i] = y[i] % 2.5f")
    ///     .output("y", Dtype::F32)
    ///     .compile("sm_90")
    ///     .unwrap_err();
    /// assert!(e.to_string().contains("in the body of `bad`"));
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Generated::build`], less the driver's.
    pub fn compile(&self, target: &str) -> Result<crate::code::object_code::ObjectCode, Error> {
        let (generated, _) = self.generate()?;
        self.program(&generated)
            .compile(target)
            .map_err(|e| explained(&generated, e))
    }

    fn program(&self, generated: &generate::Generated) -> Program {
        Program::new(generated.source.clone()).name(format!("{}.cu", self.name))
    }
}

/// NVRTC's log lines told as the kernel's parts (`in the body of `axpy`: ...`).
fn explained(generated: &generate::Generated, e: Error) -> Error {
    match e {
        Error::Compile {
            program,
            log,
            options,
        } => Error::Compile {
            program,
            log: generated.explain(&log),
            options,
        },
        other => other,
    }
}

/// A kernel [`Generated`] at run time, loaded and ready to launch.
#[derive(Clone)]
pub struct GeneratedKernel {
    entries: Vec<Kernel>,
    info: generate::KernelInfo,
    kernel: generate::Kernel,
    name: String,
    params: Vec<Param>,
    stream: Arc<CudaStream>,
}

impl std::fmt::Debug for GeneratedKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeneratedKernel")
            .field("name", &self.name)
            .field("params", &self.params)
            .field("entry_points", &self.info.entry_points)
            .field("unsafe_reason", &self.info.unsafe_reason)
            .finish_non_exhaustive()
    }
}

/// An argument of a [`GeneratedKernel`]: a scalar, or a device slice to read or write,
/// checked against the kernel's parameter (kind, element type, length) at launch.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// use cuda_kernel_runtime::Arg;
/// let x = gpu.upload(&[1.0f32; 4])?;
/// let mut y = gpu.zeros::<f32>(4)?;
/// let args = [Arg::scalar(2.0f32), Arg::input(&x), Arg::output(&mut y)];
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct Arg<'a> {
    dtype: Dtype,
    inner: ArgInner<'a>,
}

enum ArgInner<'a> {
    Scalar(u64),
    Read(usize, Box<dyn ErasedSlice + 'a>),
    Write(usize, Box<dyn ErasedSlice + 'a>),
}

impl<'a> Arg<'a> {
    /// A scalar.
    ///
    /// ```
    /// let a = cuda_kernel_runtime::Arg::scalar(2.5f64);
    /// # let _ = a;
    /// ```
    pub fn scalar<T: Element>(value: T) -> Arg<'static> {
        let mut bits = 0u64;
        // SAFETY: `T` is at most 8 bytes (every `Element` is), copied into the low bytes of
        // `bits`; the kernel reads exactly `size_of::<T>()` bytes of it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                std::ptr::from_ref(&value).cast::<u8>(),
                std::ptr::from_mut(&mut bits).cast::<u8>(),
                std::mem::size_of::<T>().min(8),
            );
        }
        Arg {
            dtype: T::DTYPE,
            inner: ArgInner::Scalar(bits),
        }
    }

    /// A slice the kernel reads (a buffer or a view, the runtime's or cudarc's).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let x = gpu.upload(&[1u32, 2, 3])?;
    /// let a = cuda_kernel_runtime::Arg::input(&x);
    /// # let _ = a;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn input<T: Element, S: DeviceMemory<T> + ?Sized>(slice: &'a S) -> Arg<'a> {
        Arg {
            dtype: T::DTYPE,
            inner: ArgInner::Read(slice.len(), Box::new(Reader(slice, PhantomData))),
        }
    }

    /// A slice the kernel writes (a buffer or a writable view, the runtime's or cudarc's).
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let mut y = gpu.zeros::<f32>(3)?;
    /// let a = cuda_kernel_runtime::Arg::output(&mut y);
    /// # let _ = a;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn output<T: Element, S: DeviceMemoryMut<T> + ?Sized>(slice: &'a mut S) -> Arg<'a> {
        let len = slice.len();
        Arg {
            dtype: T::DTYPE,
            inner: ArgInner::Write(len, Box::new(Writer(slice, PhantomData))),
        }
    }

    fn kind(&self) -> Access {
        match self.inner {
            ArgInner::Scalar(_) => Access::Scalar,
            ArgInner::Read(..) => Access::In,
            ArgInner::Write(..) => Access::Out,
        }
    }
}

/// A slice with its element type erased, prepared for a launch on a stream.
trait ErasedSlice {
    fn prepare(&mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'_>, Error>;
}

struct Reader<'a, T, S: ?Sized>(&'a S, PhantomData<T>);
struct Writer<'a, T, S: ?Sized>(&'a mut S, PhantomData<T>);

impl<T, S: DeviceMemory<T> + ?Sized> ErasedSlice for Reader<'_, T, S> {
    fn prepare(&mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'_>, Error> {
        self.0.prepare_read(stream)
    }
}

impl<T, S: DeviceMemoryMut<T> + ?Sized> ErasedSlice for Writer<'_, T, S> {
    fn prepare(&mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'_>, Error> {
        self.0.prepare_write(stream)
    }
}

impl GeneratedKernel {
    /// The kernel's name.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let k = cuda_kernel_runtime::Generated::elementwise("twice", "y[i] *= 2")
    ///     .output("y", cuda_kernel_runtime::Dtype::F32).build(&gpu)?;
    /// assert_eq!(k.name(), "twice");
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Why the kernel may touch memory outside its slices, if it may (its expression
    /// indexes other than `[i]`, takes an address, or calls code the generator cannot
    /// see); such a kernel is launched with [`GeneratedKernel::launch_unchecked`] only.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let k = cuda_kernel_runtime::Generated::elementwise("shift", "y[i] = y[i + 1]")
    ///     .output("y", cuda_kernel_runtime::Dtype::F32).build(&gpu)?;
    /// assert!(k.unsafe_reason().is_some());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn unsafe_reason(&self) -> Option<&str> {
        self.info.unsafe_reason.as_deref()
    }

    /// A handle launching on `stream`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let k = cuda_kernel_runtime::Generated::elementwise("t", "y[i] *= 2")
    /// #     .output("y", cuda_kernel_runtime::Dtype::F32).build(&gpu)?;
    /// let s = gpu.new_stream()?;
    /// let on_s = k.with_stream(&s);
    /// # let _ = on_s;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn with_stream(&self, stream: &Arc<CudaStream>) -> GeneratedKernel {
        GeneratedKernel {
            stream: stream.clone(),
            entries: self.entries.iter().map(|k| k.with_stream(stream)).collect(),
            ..self.clone()
        }
    }

    /// Launches an elementwise kernel over the slices' common length.
    ///
    /// # Errors
    ///
    /// Arguments that do not match the parameters (count, kind, element type), slices of
    /// different lengths, a kernel that may leave its slices ([`GeneratedKernel::unsafe_reason`]),
    /// a kernel that is not elementwise, a driver failure.
    pub fn launch(&self, args: &mut [Arg<'_>]) -> Result<(), Error> {
        if let Some(reason) = self.unsafe_reason() {
            return Err(self.error(format!(
                "it may touch memory outside its slices ({reason}); launch it with `launch_unchecked`"
            )));
        }
        // SAFETY: the expression stays within its slices, which `run` checks hold `n`
        // elements each.
        unsafe { self.launch_unchecked(args) }
    }

    /// [`GeneratedKernel::launch`] for a kernel that may leave its slices.
    ///
    /// # Safety
    /// The caller vouches that the expression stays within the memory its arguments give
    /// it (see [`GeneratedKernel::unsafe_reason`]).
    ///
    /// # Errors
    ///
    /// As [`GeneratedKernel::launch`], but for safety.
    pub unsafe fn launch_unchecked(&self, args: &mut [Arg<'_>]) -> Result<(), Error> {
        if !matches!(self.kernel, generate::Kernel::Elementwise(_)) {
            return Err(
                self.error("it is not an elementwise kernel; call `reduce` or `scan`".into())
            );
        }
        let n = self.check(args)?;
        if n == 0 {
            return Ok(());
        }
        let cfg = elementwise_launch(n, self.info.width);
        // SAFETY: the arguments match the parameters (checked), `n` is their common length.
        unsafe { self.run(&self.entries[0], &cfg, args, &mut [], n) }
    }

    /// Runs a reduction and returns its value, of the reduction's output type `T`.
    ///
    /// # Errors
    ///
    /// As [`GeneratedKernel::launch`]; `T` not the output type; a kernel that is not a
    /// reduction.
    pub fn reduce<T: Element>(&self, args: &mut [Arg<'_>]) -> Result<T, Error> {
        let generate::Kernel::Reduction(r) = &self.kernel else {
            return Err(self.error("it is not a reduction".into()));
        };
        if r.output != T::DTYPE {
            return Err(self.error(format!("its result is `{}`, not `{}`", r.output, T::DTYPE)));
        }
        if let Some(reason) = self.unsafe_reason() {
            return Err(self.error(format!("it may touch memory outside its slices ({reason})")));
        }
        let n = self.check(args)?;
        let (first, last, count) = reduction_launches(n, self.info.width);
        let mut partials = scratch::<T>(&self.stream, count)?;
        let mut out = scratch::<T>(&self.stream, 1)?;
        {
            let mut extra = [Arg::output(&mut partials)];
            // SAFETY: arguments checked; the partials hold `count` values.
            unsafe { self.run(&self.entries[0], &first, args, &mut extra, n)? };
        }
        {
            // The scalars again (the final kernel's post-map and operator take them).
            let mut tail: Vec<Arg<'_>> = args
                .iter()
                .filter_map(|a| match a.inner {
                    ArgInner::Scalar(bits) => Some(Arg {
                        dtype: a.dtype,
                        inner: ArgInner::Scalar(bits),
                    }),
                    _ => None,
                })
                .collect();
            tail.push(Arg::input(&partials));
            tail.push(Arg::scalar(count as i32));
            tail.push(Arg::output(&mut out));
            // SAFETY: the final kernel takes the scalars, the partials, their count, the output.
            unsafe { self.run(&self.entries[1], &last, &mut tail, &mut [], n)? };
        }
        read_one(&self.stream, &out)
    }

    /// Runs a scan of `x` into `y` (same length and element type as the scan's).
    ///
    /// # Errors
    ///
    /// Different lengths, another element type, a kernel that is not a scan, a driver
    /// failure.
    pub fn scan<T: Element, X: DeviceMemory<T> + ?Sized, Y: DeviceMemoryMut<T> + ?Sized>(
        &self,
        x: &X,
        y: &mut Y,
    ) -> Result<(), Error> {
        let generate::Kernel::Scan(s) = &self.kernel else {
            return Err(self.error("it is not a scan".into()));
        };
        if s.dtype != T::DTYPE {
            return Err(self.error(format!("it scans `{}`, not `{}`", s.dtype, T::DTYPE)));
        }
        if let Some(reason) = self.unsafe_reason() {
            return Err(self.error(format!("it may touch memory outside its slices ({reason})")));
        }
        if x.len() != y.len() {
            return Err(self.error(format!(
                "the input has {} element(s), the output {}",
                x.len(),
                y.len()
            )));
        }
        let n = x.len();
        if n == 0 {
            return Ok(());
        }
        let cfg = scan_launch(n, s.dtype)?;
        let mut scratch = scan_scratch(&self.stream, n, s.dtype)?;
        let mut args = [Arg::input(x), Arg::output(y), Arg::output(&mut scratch)];
        // SAFETY: input, output of `n` elements, scratch sized by the geometry.
        unsafe { self.run(&self.entries[0], &cfg, &mut args, &mut [], n) }
    }

    fn error(&self, message: String) -> Error {
        Error::Generated {
            kernel: self.name.clone(),
            message,
        }
    }

    /// Checks `args` against the parameters; returns the slices' common length.
    fn check(&self, args: &[Arg<'_>]) -> Result<usize, Error> {
        if args.len() != self.params.len() {
            return Err(self.error(format!(
                "it takes {} argument(s) ({}), {} given",
                self.params.len(),
                self.params
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                args.len()
            )));
        }
        let mut n: Option<(usize, &str)> = None;
        for (p, a) in self.params.iter().zip(args) {
            let what = |access: Access| match access {
                Access::Scalar => "a scalar",
                Access::In => "an input slice",
                Access::Out => "an output slice",
            };
            if a.kind() != p.access {
                return Err(self.error(format!(
                    "`{}` is {}, given {}",
                    p.name,
                    what(p.access),
                    what(a.kind())
                )));
            }
            if a.dtype != p.dtype {
                return Err(self.error(format!(
                    "`{}` holds `{}`, given `{}`",
                    p.name, p.dtype, a.dtype
                )));
            }
            let len = match a.inner {
                ArgInner::Read(len, _) | ArgInner::Write(len, _) => len,
                ArgInner::Scalar(_) => continue,
            };
            match n {
                None => n = Some((len, &p.name)),
                Some((expected, first)) if expected != len => {
                    return Err(self.error(format!(
                        "slice `{}` has {len} element(s), but `{first}` has {expected}; every slice holds the same count",
                        p.name
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(n.map_or(0, |(len, _)| len))
    }

    /// Prepares `args` then `extra`, appends `n`, launches `kernel`, finishes every argument.
    ///
    /// # Safety
    /// The arguments must be the kernel's parameters in order (checked by the callers).
    unsafe fn run(
        &self,
        kernel: &Kernel,
        cfg: &crate::launch::config::Launch,
        args: &mut [Arg<'_>],
        extra: &mut [Arg<'_>],
        n: usize,
    ) -> Result<(), Error> {
        let stream = &self.stream;
        let mut scalars: Vec<u64> = Vec::new();
        let mut buffers: Vec<PreparedBuffer<'_>> = Vec::new();
        let mut order: Vec<(bool, usize)> = Vec::new();
        prepare(args, stream, &mut order, &mut scalars, &mut buffers)?;
        prepare(extra, stream, &mut order, &mut scalars, &mut buffers)?;
        scalars.push(n as u64);
        let count = scalars.len();
        let mut params: Vec<*mut c_void> = order
            .iter()
            .map(|&(buffer, k)| {
                if buffer {
                    buffers[k].param_ptr()
                } else {
                    std::ptr::from_mut(&mut scalars[k]).cast::<c_void>()
                }
            })
            .collect();
        params.push(std::ptr::from_mut(&mut scalars[count - 1]).cast::<c_void>());
        // SAFETY: one pointer per parameter, each to a value of its type (scalars in the low
        // bytes of a u64, `n` as a long long), alive until the call returns.
        unsafe { kernel.with_stream(stream).launch_raw(cfg, &mut params)? };
        for b in buffers {
            b.finish(stream)?;
        }
        Ok(())
    }
}

/// Prepares `args` for a launch on `stream`: scalars into `scalars`, slices into `buffers`,
/// and in `order` where each parameter's value is (`true`: a buffer).
fn prepare<'s>(
    args: &'s mut [Arg<'_>],
    stream: &Arc<CudaStream>,
    order: &mut Vec<(bool, usize)>,
    scalars: &mut Vec<u64>,
    buffers: &mut Vec<PreparedBuffer<'s>>,
) -> Result<(), Error> {
    for a in args.iter_mut() {
        match &mut a.inner {
            ArgInner::Scalar(bits) => {
                order.push((false, scalars.len()));
                scalars.push(*bits);
            }
            ArgInner::Read(_, s) | ArgInner::Write(_, s) => {
                order.push((true, buffers.len()));
                buffers.push(s.prepare(stream)?);
            }
        }
    }
    Ok(())
}
