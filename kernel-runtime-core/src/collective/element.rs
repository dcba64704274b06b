//! [`NcclElement`]: the Rust types NCCL reduces and moves, each mapped to its
//! `ncclDataType_t`, so that a collective on a buffer of any other type does not compile.

use cudarc::driver::DeviceRepr;
use cudarc::nccl::sys::ncclDataType_t;

/// Keeps [`NcclElement`] to the types NCCL knows.
pub trait Sealed {}

/// A value type NCCL's collectives take, with its `ncclDataType_t`: `i8`, `u8`, `i32`, `u32`,
/// `i64`, `u64`, [`f16`](crate::f16), [`bf16`](crate::bf16), `f32` and `f64`. Sealed: a
/// buffer of any other type is a compile error at the collective, not an NCCL error.
///
/// ```
/// use cuda_kernel_runtime::{NcclElement, bf16};
/// fn bytes<T: NcclElement>(n: usize) -> usize {
///     n * std::mem::size_of::<T>()
/// }
/// assert_eq!(bytes::<bf16>(4), 8);
/// ```
///
/// A collective over `f32` values compiles:
///
/// ```no_run
/// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp};
/// let gpu = Gpu::new(0)?;
/// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
/// let mut x = gpu.zeros::<f32>(4)?;
/// comms[0].all_reduce_in_place(&mut x, &ReduceOp::Sum)?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
///
/// and the same over `u16`, a type NCCL has no `ncclDataType_t` for, does not:
///
/// ```compile_fail
/// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp};
/// let gpu = Gpu::new(0)?;
/// let comms = Communicator::for_gpus(std::slice::from_ref(&gpu))?;
/// let mut x = gpu.zeros::<u16>(4)?;
/// comms[0].all_reduce_in_place(&mut x, &ReduceOp::Sum)?; // u16: not an NcclElement
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub trait NcclElement: DeviceRepr + Sealed {
    /// NCCL's name for the type.
    ///
    /// ```
    /// use cuda_kernel_runtime::NcclElement;
    /// use cuda_kernel_runtime::cudarc::nccl::sys::ncclDataType_t;
    /// assert_eq!(f32::DATA_TYPE, ncclDataType_t::ncclFloat32);
    /// ```
    const DATA_TYPE: ncclDataType_t;
}

/// One impl per type.
macro_rules! nccl_element {
    ($($ty:ty => $name:ident),* $(,)?) => {$(
        impl Sealed for $ty {}
        impl NcclElement for $ty {
            const DATA_TYPE: ncclDataType_t = ncclDataType_t::$name;
        }
    )*};
}

nccl_element!(
    i8 => ncclInt8,
    u8 => ncclUint8,
    i32 => ncclInt32,
    u32 => ncclUint32,
    i64 => ncclInt64,
    u64 => ncclUint64,
    half::f16 => ncclFloat16,
    half::bf16 => ncclBfloat16,
    f32 => ncclFloat32,
    f64 => ncclFloat64,
);
