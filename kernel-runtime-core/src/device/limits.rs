//! What a device allows, read once when a [`Gpu`](crate::Gpu) is opened, so that launch
//! configurations are checked without a driver call.

use cudarc::driver::CudaContext;
use cudarc::driver::sys::CUdevice_attribute as A;

use crate::driver;
use crate::error::{DriverResultExt, Error};

/// Device limits that launch validation needs.
///
/// ```
/// let l = cuda_kernel_runtime::DeviceLimits::default();
/// assert_eq!(l.max_threads_per_block, 1024);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Compute capability `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Block dimensions `(x, y, z)`.
    pub max_block_dim: (u32, u32, u32),
    /// Grid dimensions `(x, y, z)`.
    pub max_grid_dim: (u32, u32, u32),
    /// Shared memory per block without opting in (bytes).
    pub max_shared_per_block: u32,
    /// Shared memory per block with opt-in (bytes).
    pub max_shared_per_block_optin: u32,
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Warp size.
    pub warp_size: u32,
    /// Whether cooperative launches are supported.
    pub cooperative_launch: bool,
    /// Whether thread-block clusters are supported.
    pub cluster_launch: bool,
    /// Stream and launch priorities `(least, greatest)` (`cuCtxGetStreamPriorityRange`): the
    /// greatest priority is the lowest number (`(0, -5)` on current GPUs).
    pub stream_priorities: (i32, i32),
}

impl Default for DeviceLimits {
    /// The limits every device of compute capability 7.5 and later shares (used in tests).
    fn default() -> Self {
        DeviceLimits {
            compute_capability: (7, 5),
            max_threads_per_block: 1024,
            max_block_dim: (1024, 1024, 64),
            max_grid_dim: (i32::MAX as u32, 65535, 65535),
            max_shared_per_block: 48 * 1024,
            max_shared_per_block_optin: 48 * 1024,
            multiprocessors: 1,
            warp_size: 32,
            cooperative_launch: true,
            cluster_launch: false,
            stream_priorities: (0, -5),
        }
    }
}

impl DeviceLimits {
    /// Reads the limits of the context's device.
    pub(crate) fn query(ctx: &CudaContext) -> Result<Self, Error> {
        let get = |a: A| -> Result<u32, Error> {
            ctx.attribute(a)
                .call("cuDeviceGetAttribute")
                .map(|v| u32::try_from(v).unwrap_or(0))
        };
        Ok(DeviceLimits {
            compute_capability: (
                get(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                get(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            max_threads_per_block: get(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: (
                get(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                get(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                get(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ),
            max_grid_dim: (
                get(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                get(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                get(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ),
            max_shared_per_block: get(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            max_shared_per_block_optin: get(
                A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            multiprocessors: get(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            warp_size: get(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            cooperative_launch: get(A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
            cluster_launch: get(A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)? != 0,
            stream_priorities: priority_range(ctx)?,
        })
    }

    /// The device's SASS architecture name, e.g. `sm_90`.
    ///
    /// ```
    /// let l = cuda_kernel_runtime::DeviceLimits { compute_capability: (12, 0), ..Default::default() };
    /// assert_eq!(l.arch(), "sm_120");
    /// ```
    pub fn arch(&self) -> String {
        let (major, minor) = self.compute_capability;
        format!("sm_{major}{minor}")
    }
}

/// `cuCtxGetStreamPriorityRange` of the context: `(least, greatest)`.
fn priority_range(ctx: &CudaContext) -> Result<(i32, i32), Error> {
    ctx.bind_to_thread().call("cuCtxSetCurrent")?;
    driver::stream::get_priority_range().call("cuCtxGetStreamPriorityRange")
}
