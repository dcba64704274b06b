//! Code on the device: modules loaded into a context (`module`: the embedded modules of
//! generated code, untyped modules by name, libraries loaded once per process, modules
//! compiled at run time), object code given at run time (`object_code`), linking it
//! (`linker` with nvJitLink, `culink` with the driver's linker, both taking `link_options`),
//! compiling CUDA C at run time (`nvrtc`), a light reading of images to explain load failures
//! (`image`), module globals (`global`).

pub(crate) mod culink;
pub(crate) mod global;
pub(crate) mod image;
pub(crate) mod link_options;
pub(crate) mod linker;
pub(crate) mod module;
pub(crate) mod nvrtc;
pub(crate) mod object_code;
