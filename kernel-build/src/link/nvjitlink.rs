//! nvJitLink for device linking at build time: found beside nvcc (or where
//! `KERNEL_BUILD_NVJITLINK` says), its release checked against nvcc's; the links themselves
//! are `cuda_kernel_objects::nvjitlink`'s, shared with the runtime's `Linker`.

use super::library::{self, NVJITLINK as SPEC};
use crate::env::Reporting;
use crate::error::LinkLibraryError;
use std::path::Path;

pub(crate) use cuda_kernel_objects::nvjitlink::{InputKind, LinkInput};
use cuda_kernel_objects::nvjitlink::{LinkFailure, LinkOutput, Linked};

/// nvJitLink, loaded from beside nvcc.
pub(crate) struct NvJitLink {
    jit: cuda_kernel_objects::nvjitlink::NvJitLink,
}

impl NvJitLink {
    /// Loads nvJitLink from beside `nvcc` and checks it can link what that nvcc emits
    /// (its release must not be older than nvcc's).
    pub(crate) fn load(
        nvcc: &Path,
        nvcc_version: (u32, u32),
        needed_for: &str,
        reporting: Reporting,
    ) -> Result<NvJitLink, LinkLibraryError> {
        let path = library::locate(&SPEC, nvcc, needed_for, reporting)?;
        let jit = cuda_kernel_objects::nvjitlink::NvJitLink::open(&path).map_err(|e| {
            LinkLibraryError::Unusable {
                library: SPEC.name,
                path: path.clone(),
                detail: e.to_string(),
            }
        })?;
        let v = jit.version();
        if v < nvcc_version {
            return Err(LinkLibraryError::Unusable {
                library: SPEC.name,
                path,
                detail: format!(
                    "its release is {}.{}, older than nvcc {}.{}, whose output it must link; \
                     install `nvidia-nvjitlink=={}.{}.*`",
                    v.0, v.1, nvcc_version.0, nvcc_version.1, nvcc_version.0, nvcc_version.1
                ),
            });
        }
        Ok(NvJitLink { jit })
    }

    /// The library's release, `(13, 0)`.
    pub(crate) fn version(&self) -> (u32, u32) {
        self.jit.version()
    }

    /// Links `inputs` with `options` (`-arch=sm_90`, `-lto`, `-ptx` ...) into a cubin, or
    /// PTX text when `ptx` is set (which needs `-lto`).
    pub(crate) fn link(
        &self,
        options: &[String],
        inputs: &[LinkInput<'_>],
        ptx: bool,
    ) -> Result<Linked, LinkFailure> {
        let output = if ptx {
            LinkOutput::Ptx
        } else {
            LinkOutput::Cubin
        };
        self.jit.link(options, inputs, output)
    }
}
