//! [`Pitched`](crate::Pitched) buffers as kernel arguments (`&Pitched<T>` for a `const T*`,
//! `&mut Pitched<T>` for a `T*`): the launch waits on the buffer's event, which records the
//! launch after it in every mode.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::{ConstPtr, DeviceArg, MutPtr};
use crate::error::Error;
use crate::memory::pitched::Pitched;
use crate::memory::prepared::PreparedBuffer;

impl<T> DeviceArg for &Pitched<T> {
    type Prepared<'a>
        = PreparedBuffer<'a>
    where
        Self: 'a;

    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'a>, Error> {
        (*self).prepare_use(stream)
    }
}
impl<T> ConstPtr<T> for &Pitched<T> {}

impl<T> DeviceArg for &mut Pitched<T> {
    type Prepared<'a>
        = PreparedBuffer<'a>
    where
        Self: 'a;

    fn prepare<'a>(&'a mut self, stream: &Arc<CudaStream>) -> Result<PreparedBuffer<'a>, Error> {
        (**self).prepare_use(stream)
    }
}
impl<T> ConstPtr<T> for &mut Pitched<T> {}
impl<T> MutPtr<T> for &mut Pitched<T> {}
