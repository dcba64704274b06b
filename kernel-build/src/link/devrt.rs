//! The CUDA device runtime (`libcudadevrt.a`): what a kernel launching kernels from device
//! code (dynamic parallelism: `<<<...>>>` in a kernel, `cudaGetParameterBuffer`) calls into.
//! It is a static library of the toolkit, beside nvcc's libraries (the `nvidia-cuda-runtime`
//! wheel ships it); device linking adds it for the targets whose code uses it.

use std::path::Path;

use super::library::{self, LibrarySpec};
use crate::env::Reporting;
use crate::error::Error;

const SPEC: LibrarySpec = LibrarySpec {
    name: "the CUDA device runtime (libcudadevrt.a)",
    files: &["libcudadevrt.a"],
    env: None,
    wheel: "nvidia-cuda-runtime==13.0.*",
};

/// The device runtime's symbols a relocatable image refers to when it launches kernels.
const MARKERS: [&[u8]; 3] = [
    b"__cudaCDP2",
    b"cudaGetParameterBuffer",
    b"cudaLaunchDevice",
];

/// Whether any image of `fatbin` calls into the device runtime.
pub(super) fn used_by(fatbin: &[u8]) -> bool {
    let Ok(parsed) = cuda_kernel_objects::parse(fatbin) else {
        return false;
    };
    parsed.entries.iter().any(|e| {
        MARKERS
            .iter()
            .any(|m| e.payload.windows(m.len()).any(|w| w == *m))
    })
}

/// The library's bytes, found beside `nvcc`.
pub(super) fn read(nvcc: &Path, reporting: Reporting) -> Result<Vec<u8>, Error> {
    let path = library::locate(
        &SPEC,
        nvcc,
        "kernels launched from device code (dynamic parallelism)",
        reporting,
    )?;
    std::fs::read(&path).map_err(|e| Error::io("failed to read", &path, e))
}
