//! Module, function and library calls: loading and unloading a module, its functions and
//! globals by name, and a function's attributes and cache preference (through cudarc's
//! `result` layer); over the raw symbols that layer lacks, loading with JIT options, the
//! loading mode, listing and loading a module's functions, and libraries (code loaded once
//! for every context).

use std::ffi::{CString, c_uint, c_void};

use cudarc::driver::{DriverError, result, sys};

/// `cuModuleLoadDataEx`: loads the image at `image` with JIT `options` and their `values`.
///
/// # Safety
/// A context must be current; `image` must address a complete image and `options` and
/// `values` must have the same length, each value of the kind its option takes (buffers must
/// outlive the call). The module must be unloaded once.
pub(crate) unsafe fn load_data_ex(
    image: *const c_void,
    options: &mut [sys::CUjit_option],
    values: &mut [*mut c_void],
) -> Result<sys::CUmodule, DriverError> {
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the count is the arrays' length; the rest is the caller's.
    unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image,
            options.len() as c_uint,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    }
    .result()?;
    Ok(module)
}

/// `cuModuleGetLoadingMode`: whether modules load lazily (`CUDA_MODULE_LOADING=LAZY`).
///
/// # Safety
/// The driver must be initialised.
pub(crate) unsafe fn get_loading_mode() -> Result<sys::CUmoduleLoadingMode, DriverError> {
    let mut mode = sys::CUmoduleLoadingMode::CU_MODULE_EAGER_LOADING;
    // SAFETY: a valid out-pointer; the caller guarantees the driver is initialised.
    unsafe { sys::cuModuleGetLoadingMode(&mut mode) }.result()?;
    Ok(mode)
}

/// `cuModuleGetFunctionCount`: how many functions `module` holds.
///
/// # Safety
/// `module` must be a live module.
pub(crate) unsafe fn get_function_count(module: sys::CUmodule) -> Result<c_uint, DriverError> {
    let mut count: c_uint = 0;
    // SAFETY: a valid out-pointer; the caller guarantees the module.
    unsafe { sys::cuModuleGetFunctionCount(&mut count, module) }.result()?;
    Ok(count)
}

/// `cuModuleEnumerateFunctions`: fills `functions` with `module`'s function handles.
///
/// # Safety
/// `module` must be a live module.
pub(crate) unsafe fn enumerate_functions(
    functions: &mut [sys::CUfunction],
    module: sys::CUmodule,
) -> Result<(), DriverError> {
    // SAFETY: `functions` has room for the count passed; the caller guarantees the module.
    unsafe {
        sys::cuModuleEnumerateFunctions(functions.as_mut_ptr(), functions.len() as c_uint, module)
    }
    .result()
}

/// `cuFuncLoad`: loads a lazily loaded function now.
///
/// # Safety
/// `function` must be a function of a live module.
pub(crate) unsafe fn func_load(function: sys::CUfunction) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuFuncLoad(function) }.result()
}

/// `cuLibraryLoadData`: loads the image at `image` as a library, without options.
///
/// # Safety
/// `image` must address a complete image that outlives the call. The library must be
/// unloaded once, after every module taken from it is gone.
pub(crate) unsafe fn library_load_data(
    image: *const c_void,
) -> Result<sys::CUlibrary, DriverError> {
    let mut library: sys::CUlibrary = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and no options; the caller guarantees the image.
    unsafe {
        sys::cuLibraryLoadData(
            &mut library,
            image,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        )
    }
    .result()?;
    Ok(library)
}

/// `cuLibraryGetModule`: the library's module in the current context (owned by the library).
///
/// # Safety
/// `library` must be live and a context current.
pub(crate) unsafe fn library_get_module(
    library: sys::CUlibrary,
) -> Result<sys::CUmodule, DriverError> {
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the caller guarantees the library and the context.
    unsafe { sys::cuLibraryGetModule(&mut module, library) }.result()?;
    Ok(module)
}

/// `cuLibraryUnload`.
///
/// # Safety
/// `library` must come from [`library_load_data`], be unloaded once, and no module taken
/// from it may be in use.
pub(crate) unsafe fn library_unload(library: sys::CUlibrary) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuLibraryUnload(library) }.result()
}

/// `cuModuleLoadData`, through cudarc's `result::module::load_data`.
///
/// # Safety
/// As the driver asks of `cuModuleLoadData`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn load_data(image: *const c_void) -> Result<sys::CUmodule, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::module::load_data(image) }
}

/// `cuModuleGetFunction`, through cudarc's `result::module::get_function`.
///
/// # Safety
/// As the driver asks of `cuModuleGetFunction`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn get_function(
    module: sys::CUmodule,
    name: CString,
) -> Result<sys::CUfunction, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::module::get_function(module, name) }
}

/// `cuModuleGetGlobal`, through cudarc's `result::module::get_global`.
///
/// # Safety
/// As the driver asks of `cuModuleGetGlobal`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn get_global(
    module: sys::CUmodule,
    name: CString,
) -> Result<(sys::CUdeviceptr, usize), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::module::get_global(module, name) }
}

/// `cuModuleUnload`, through cudarc's `result::module::unload`.
///
/// # Safety
/// As the driver asks of `cuModuleUnload`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn unload(module: sys::CUmodule) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::module::unload(module) }
}

/// `cuFuncGetAttribute`, through cudarc's `result::function::get_function_attribute`.
///
/// # Safety
/// As the driver asks of `cuFuncGetAttribute`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn get_function_attribute(
    f: sys::CUfunction,
    attribute: sys::CUfunction_attribute,
) -> Result<i32, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::function::get_function_attribute(f, attribute) }
}

/// `cuFuncSetAttribute`, through cudarc's `result::function::set_function_attribute`.
///
/// # Safety
/// As the driver asks of `cuFuncSetAttribute`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn set_function_attribute(
    f: sys::CUfunction,
    attribute: sys::CUfunction_attribute,
    value: i32,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::function::set_function_attribute(f, attribute, value) }
}

/// `cuFuncSetCacheConfig`, through cudarc's `result::function::set_function_cache_config`.
///
/// # Safety
/// As the driver asks of `cuFuncSetCacheConfig`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn set_function_cache_config(
    f: sys::CUfunction,
    attribute: sys::CUfunc_cache,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::function::set_function_cache_config(f, attribute) }
}
