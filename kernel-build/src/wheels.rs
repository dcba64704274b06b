//! NVIDIA's pip wheels of CUDA 13.0 that the project installs and names: nvcc and what the
//! build and the runtime use beside it, the release, and the libraries that can join them.
//! Toolkit discovery, the messages that say how to install nvcc, and
//! `cuda-kernel-inspect toolkit install` read this one list.

/// The wheels installed, all at [`WHEEL_VERSION`]: nvcc and its parts, the runtime headers,
/// nvJitLink and nvFatbin (device linking), NVRTC (run-time compilation).
pub const WHEELS: [&str; 8] = [
    "nvidia-cuda-nvcc",
    "nvidia-cuda-crt",
    "nvidia-cuda-runtime",
    "nvidia-cuda-cccl",
    "nvidia-nvvm",
    "nvidia-nvjitlink",
    "nvidia-nvfatbin",
    "nvidia-cuda-nvrtc",
];

/// The release installed: 13.0, which the r580 driver loads (a newer nvvm emits PTX it cannot).
pub const WHEEL_VERSION: &str = "13.0.*";

/// The libraries `cuda-kernel-inspect toolkit install --with` adds on request: name, pip wheel and version, what it
/// brings. Their headers land in the toolkit's own include folder (cuRAND, cuBLAS), which
/// nvcc searches, or in a folder discovery adds to every compile (CUTLASS and CuTe).
pub const LIBRARIES: [(&str, &str, &str); 3] = [
    (
        "curand",
        "nvidia-curand==10.4.0.*",
        "cuRAND 10.4 (CUDA 13.0): curand_kernel.h, libcurand",
    ),
    (
        "cublas",
        "nvidia-cublas==13.0.*",
        "cuBLAS 13.0: cublas_v2.h, libcublas",
    ),
    (
        "cutlass",
        "nvidia-cutlass==4.2.*",
        "CUTLASS 4.2 and CuTe C++ headers",
    ),
];

/// The library of [`LIBRARIES`] that provides the header `name` (as written in an
/// `#include`), for a note when a compile cannot find it.
pub fn library_for_header(name: &str) -> Option<&'static str> {
    let first = name.split('/').next().unwrap_or(name);
    if name.starts_with("curand") {
        Some("curand")
    } else if name.starts_with("cublas") {
        Some("cublas")
    } else if first == "cutlass" || first == "cute" {
        Some("cutlass")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_headers_map_to_their_wheels() {
        assert_eq!(library_for_header("curand_kernel.h"), Some("curand"));
        assert_eq!(library_for_header("cute/tensor.hpp"), Some("cutlass"));
        assert_eq!(library_for_header("my_header.cuh"), None);
    }
}
