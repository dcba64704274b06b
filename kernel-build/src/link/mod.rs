//! NVIDIA's object-code libraries at build time: **nvJitLink** links relocatable device
//! code and LTO-IR per target, **nvFatbin** assembles the linked images into the module's
//! fatbin. Both are loaded at run time of the build (through `cuda_kernel_objects::native`)
//! from the toolkit nvcc belongs to, and only when a build asks for device linking (`rdc` or
//! `lto`).
//!
//! | library | pip wheel | found in | override |
//! |---|---|---|---|
//! | `libnvJitLink.so.13` | `nvidia-nvjitlink==13.0.*` | `<toolkit>/lib`, `<toolkit>/lib64` | `KERNEL_BUILD_NVJITLINK` |
//! | `libnvfatbin.so.13` | `nvidia-nvfatbin==13.0.*` | `<toolkit>/lib`, `<toolkit>/lib64` | `KERNEL_BUILD_NVFATBIN` |
//! | `libcudadevrt.a` (only for kernels launching kernels) | `nvidia-cuda-runtime==13.0.*` | `<toolkit>/lib`, `<toolkit>/lib64` | — |
//!
//! `<toolkit>` is the folder above nvcc's `bin/` (the `.cuda-toolkit` wheels, or a
//! system toolkit such as `/usr/local/cuda`). `cuda-kernel-inspect toolkit install` (and the repository's `scripts/install-cuda-toolkit.sh`) install
//! both wheels beside nvcc.

mod device;
mod devrt;
mod library;
mod nvfatbin;
mod nvjitlink;
mod symbols;

pub(crate) use device::{DeviceLink, UnitCode};
pub use library::companion_libraries;
#[cfg(feature = "build")]
pub(crate) use library::library_dirs;
