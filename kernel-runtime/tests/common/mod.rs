//! Shared by the GPU tests: the test kernels' module written the way the code generator emits
//! one. Finding a GPU (or skipping), random data and comparisons come from
//! `kernel-test-support`.
#![allow(dead_code)]

use std::ffi::c_void;

use cuda_kernel_runtime::__private::{
    Aligned, ConstPtr, LoadedModule, MutPtr, PreparedArg, launch, load_module,
};
use cuda_kernel_runtime::spec::{GlobalSpec, KernelSpec, ModuleSpec, ParamSpec};
use cuda_kernel_runtime::{Error, Gpu, Launch};

pub static FATBIN: &Aligned<[u8]> = &Aligned(*include_bytes!("../kernels/runtime_test.fatbin"));
pub static OLD_ARCH: &Aligned<[u8]> = &Aligned(*include_bytes!("../kernels/old_arch.fatbin"));

const fn p(name: &'static str, c_type: &'static str, offset: u32, size: u32) -> ParamSpec {
    ParamSpec::new(name, c_type, offset, size)
}

const fn k(name: &'static str, params: &'static [ParamSpec], max_threads: u32) -> KernelSpec {
    KernelSpec {
        name,
        symbol: name,
        params,
        max_threads,
        cluster_dims: None,
        available: None,
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
    units: &[],
    source: None,
    tuned: &[],
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
        cfg: &Launch,
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
        cfg: &Launch,
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
        cfg: &Launch,
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
