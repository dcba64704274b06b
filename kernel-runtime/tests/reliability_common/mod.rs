//! The reliability tests' module (`kernels/reliability.cu`) written the way the code generator
//! emits one, its sm_80-only build, and the measurements the load tests take.
#![allow(dead_code, clippy::disallowed_methods)]

pub mod fault;

use cuda_kernel_runtime::__private::Aligned;
use cuda_kernel_runtime::spec::{KernelSpec, ModuleSpec, ParamSpec};

pub static RELIABILITY: &Aligned<[u8]> = &Aligned(*include_bytes!("../kernels/reliability.fatbin"));
pub static SM80_ONLY: &Aligned<[u8]> = &Aligned(*include_bytes!("../kernels/sm80_only.fatbin"));

/// Kernel indices in [`SPEC`] and [`SM80_SPEC`].
pub mod idx {
    pub const ARCH_PROBE: usize = 0;
    pub const ADD_U32: usize = 1;
    pub const SAXPY: usize = 2;
    pub const STATIC_SMEM: usize = 3;
}

/// Static shared memory of `static_smem` (`STATIC_FLOATS` floats).
pub const STATIC_SMEM_BYTES: u32 = 4096 * 4;

const fn p(name: &'static str, c_type: &'static str, offset: u32, size: u32) -> ParamSpec {
    ParamSpec::new(name, c_type, offset, size)
}

const fn k(name: &'static str, params: &'static [ParamSpec]) -> KernelSpec {
    KernelSpec {
        name,
        symbol: name,
        params,
        max_threads: 0,
        cluster_dims: None,
        available: None,
    }
}

const KERNELS: &[KernelSpec] = &[
    k("arch_probe", &[p("out", "int*", 0, 8)]),
    k(
        "add_u32",
        &[
            p("x", "unsigned*", 0, 8),
            p("n", "int", 8, 4),
            p("v", "unsigned", 12, 4),
        ],
    ),
    k(
        "saxpy",
        &[
            p("a", "float", 0, 4),
            p("x", "const float*", 8, 8),
            p("y", "float*", 16, 8),
            p("n", "int", 24, 4),
        ],
    ),
    k(
        "static_smem",
        &[
            p("x", "const float*", 0, 8),
            p("y", "float*", 8, 8),
            p("n", "int", 16, 4),
            p("dynamic_floats", "int", 20, 4),
        ],
    ),
];

pub static SPEC: ModuleSpec = ModuleSpec {
    name: "reliability",
    image: Some(&RELIABILITY.0),
    archs: &["sm_75", "sm_80", "sm_90", "sm_100", "sm_120", "compute_75"],
    toolkit: "13.0",
    kernels: KERNELS,
    globals: &[],
    units: &[],
    source: None,
    tuned: &[],
};

pub static SM80_SPEC: ModuleSpec = ModuleSpec {
    name: "sm80_only",
    image: Some(&SM80_ONLY.0),
    archs: &["sm_80"],
    toolkit: "13.0",
    kernels: KERNELS,
    globals: &[],
    units: &[],
    source: None,
    tuned: &[],
};

/// The `__CUDA_ARCH__` that `arch_probe` reports on a device of compute capability `cc` when
/// the driver picks a cubin from `reliability.fatbin`: the newest SASS target of the same
/// major version at or below the device, else the compute_75 PTX (750).
pub fn expected_sass_arch((major, minor): (u32, u32)) -> i32 {
    let device = major * 10 + minor;
    [75u32, 80, 90, 100, 120]
        .into_iter()
        .filter(|&t| t / 10 == major && t <= device)
        .max()
        .map_or(750, |t| t as i32 * 10)
}

/// This process's resident set size in bytes (`VmRSS` of `/proc/self/status`).
pub fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line in /proc/self/status");
    kib * 1024
}

/// Iterations for the load tests: `n`, or `RELIABILITY_ITERATIONS` when set (for slow runs
/// such as compute-sanitizer's).
pub fn iterations(n: usize) -> usize {
    std::env::var("RELIABILITY_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

#[cfg(test)]
mod tests {
    #[test]
    fn expected_arch_follows_sass_compatibility() {
        use super::expected_sass_arch as e;
        assert_eq!(
            [e((7, 5)), e((8, 0)), e((8, 6)), e((8, 9)), e((9, 0))],
            [750, 800, 800, 800, 900]
        );
        assert_eq!(
            [e((10, 0)), e((10, 3)), e((12, 0)), e((11, 0))],
            [1000, 1000, 1200, 750]
        );
    }

    #[test]
    fn rss_is_read() {
        assert!(super::rss_bytes() > 0);
    }
}
