//! [`IpcBuffer`](crate::IpcBuffer)s as kernel arguments (`&IpcBuffer<T>` for a `const T*`,
//! `&mut IpcBuffer<T>` for a `T*`): the launch waits on the buffer's event, which records the
//! launch after it in every mode.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::{ConstPtr, DeviceArg, MutPtr};
use crate::error::Error;
use crate::memory::ipc::IpcBuffer;
use crate::memory::prepared::PreparedBuffer;

impl<T> DeviceArg for &IpcBuffer<T> {
    type Prepared<'a>
        = PreparedBuffer<'a>
    where
        Self: 'a;

    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'a>, Error> {
        (*self).prepare_use(stream)
    }
}
impl<T> ConstPtr<T> for &IpcBuffer<T> {}

impl<T> DeviceArg for &mut IpcBuffer<T> {
    type Prepared<'a>
        = PreparedBuffer<'a>
    where
        Self: 'a;

    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'a>, Error> {
        (**self).prepare_use(stream)
    }
}
impl<T> ConstPtr<T> for &mut IpcBuffer<T> {}
impl<T> MutPtr<T> for &mut IpcBuffer<T> {}
