//! Shared by the GPU tests: finding a GPU (or saying why not), random data, and the test
//! kernels' module written the way the code generator emits one.
#![allow(dead_code, clippy::disallowed_methods)]

use std::ffi::c_void;

use kernel_runtime::__private::{
    Aligned, ConstPtr, GlobalSpec, KernelSpec, LoadedModule, ModuleSpec, MutPtr, ParamSpec,
    PreparedArg, launch, load_module,
};
use kernel_runtime::{Error, Gpu, LaunchConfig};

/// Device 0, or `None` after printing why there is none. With `KERNEL_REQUIRE_GPU=1` a missing
/// GPU is a failure.
pub fn gpu() -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(gpu) => Some(gpu),
        Err(e @ (Error::NoDriver { .. } | Error::NoDevice { .. })) => {
            if std::env::var("KERNEL_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("KERNEL_REQUIRE_GPU=1 but no GPU is usable: {e}");
            }
            // Written to the process's stderr, not the test harness's captured output,
            // so the reason shows in every log.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "skipped: {e}");
            None
        }
        Err(e) => panic!("opening device 0 failed: {e}"),
    }
}

/// A small deterministic generator (xorshift64*), seeded per test.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0.5, 1.5) or its negation: never zero.
    pub fn nonzero_f32(&mut self) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        if self.next_u64() & 1 == 0 {
            0.5 + u
        } else {
            -0.5 - u
        }
    }

    pub fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.nonzero_f32()).collect()
    }

    /// In [1, 1000].
    pub fn u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n)
            .map(|_| (self.next_u64() % 1000) as u32 + 1)
            .collect()
    }
}

pub fn assert_close(got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "element {i}: got {g}, want {w}"
        );
    }
}

pub static FATBIN: &Aligned<[u8]> = &Aligned(*include_bytes!("../kernels/runtime_test.fatbin"));
pub static OLD_ARCH: &Aligned<[u8]> = &Aligned(*include_bytes!("../kernels/old_arch.fatbin"));

const fn p(name: &'static str, c_type: &'static str, offset: u32, size: u32) -> ParamSpec {
    ParamSpec {
        name,
        c_type,
        offset,
        size,
    }
}

const fn k(name: &'static str, params: &'static [ParamSpec], max_threads: u32) -> KernelSpec {
    KernelSpec {
        name,
        symbol: name,
        params,
        max_threads,
        cluster_dims: None,
    }
}

/// Kernel indices, as generated stubs use them.
pub mod idx {
    pub const EMPTY4: usize = 0;
    pub const SAXPY: usize = 1;
    pub const POLY: usize = 2;
    pub const ACCUMULATE: usize = 3;
    pub const BOUNDED: usize = 4;
    pub const REVERSE: usize = 5;
    pub const GRID_SUM: usize = 6;
    pub const CLUSTER_RANK: usize = 7;
    pub const ADD4: usize = 8;
    pub const POKE: usize = 9;
}

pub static SPEC: ModuleSpec = ModuleSpec {
    name: "runtime_test",
    image: Some(&FATBIN.0),
    archs: &["sm_75", "sm_80", "sm_90", "sm_100", "sm_120", "compute_120"],
    toolkit: "13.0",
    kernels: &[
        k(
            "empty4",
            &[
                p("a", "const float*", 0, 8),
                p("b", "float*", 8, 8),
                p("n", "int", 16, 4),
                p("s", "float", 20, 4),
            ],
            0,
        ),
        k(
            "saxpy",
            &[
                p("a", "float", 0, 4),
                p("x", "const float*", 8, 8),
                p("y", "float*", 16, 8),
                p("n", "int", 24, 4),
            ],
            0,
        ),
        k(
            "poly",
            &[
                p("x", "const float*", 0, 8),
                p("y", "float*", 8, 8),
                p("n", "int", 16, 4),
            ],
            0,
        ),
        k(
            "accumulate",
            &[p("x", "const unsigned*", 0, 8), p("n", "int", 8, 4)],
            0,
        ),
        k(
            "bounded",
            &[p("y", "float*", 0, 8), p("n", "int", 8, 4)],
            128,
        ),
        k(
            "reverse_blocks",
            &[
                p("x", "const float*", 0, 8),
                p("y", "float*", 8, 8),
                p("n", "int", 16, 4),
                p("offset", "int", 20, 4),
            ],
            0,
        ),
        k(
            "grid_sum",
            &[
                p("x", "const float*", 0, 8),
                p("partial", "float*", 8, 8),
                p("n", "int", 16, 4),
            ],
            0,
        ),
        k("cluster_rank", &[p("out", "int*", 0, 8)], 0),
        k(
            "add4",
            &[
                p("a", "const float4*", 0, 8),
                p("b", "const float4*", 8, 8),
                p("c", "float4*", 16, 8),
                p("n", "int", 24, 4),
            ],
            0,
        ),
        k("poke", &[p("p", "int*", 0, 8)], 0),
    ],
    globals: &[
        GlobalSpec {
            name: "coeffs",
            symbol: "coeffs",
            size: 16,
        },
        GlobalSpec {
            name: "total",
            symbol: "total",
            size: 8,
        },
    ],
};

/// What the code generator emits for a module: a wrapper over `LoadedModule` with one typed
/// stub per kernel (only the ones the tests use are written out here).
#[derive(Clone)]
pub struct TestKernels(pub LoadedModule);

fn val<T>(v: &T) -> *mut c_void {
    std::ptr::from_ref(v).cast_mut().cast()
}

impl TestKernels {
    pub fn load(gpu: &Gpu) -> Result<Self, Error> {
        load_module(gpu, &SPEC).map(TestKernels)
    }

    /// # Safety
    /// As for every generated stub: the kernel must stay within the buffers it is given.
    pub unsafe fn empty4(
        &self,
        cfg: &LaunchConfig,
        mut a: impl ConstPtr<f32>,
        mut b: impl MutPtr<f32>,
        n: i32,
        s: f32,
    ) -> Result<(), Error> {
        let stream = self.0.stream();
        let pa = a.prepare(stream)?;
        let pb = b.prepare(stream)?;
        let mut params = [pa.param_ptr(), pb.param_ptr(), val(&n), val(&s)];
        // SAFETY: the parameter list matches the declaration.
        unsafe { launch(&self.0, idx::EMPTY4, cfg, &mut params)? };
        pa.finish(stream)?;
        pb.finish(stream)
    }

    /// # Safety
    /// `x` and `y` hold at least `n` elements.
    pub unsafe fn saxpy(
        &self,
        cfg: &LaunchConfig,
        a: f32,
        mut x: impl ConstPtr<f32>,
        mut y: impl MutPtr<f32>,
        n: i32,
    ) -> Result<(), Error> {
        let stream = self.0.stream();
        let px = x.prepare(stream)?;
        let py = y.prepare(stream)?;
        let mut params = [val(&a), px.param_ptr(), py.param_ptr(), val(&n)];
        // SAFETY: the parameter list matches the declaration.
        unsafe { launch(&self.0, idx::SAXPY, cfg, &mut params)? };
        px.finish(stream)?;
        py.finish(stream)
    }

    /// # Safety
    /// `y` holds at least `n` elements.
    pub unsafe fn bounded(
        &self,
        cfg: &LaunchConfig,
        mut y: impl MutPtr<f32>,
        n: i32,
    ) -> Result<(), Error> {
        let stream = self.0.stream();
        let py = y.prepare(stream)?;
        let mut params = [py.param_ptr(), val(&n)];
        // SAFETY: the parameter list matches the declaration.
        unsafe { launch(&self.0, idx::BOUNDED, cfg, &mut params)? };
        py.finish(stream)
    }
}
