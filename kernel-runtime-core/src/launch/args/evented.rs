//! Device memory that keeps an event of its own as kernel arguments: IPC buffers
//! ([`IpcBuffer`](crate::IpcBuffer)) and pitched buffers ([`Pitched`](crate::Pitched)),
//! `&B<T>` for a `const T*` and `&mut B<T>` for a `T*`. The launch waits on the buffer's
//! event, which records the launch after it in every mode.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::{ConstPtr, DeviceArg, MutPtr};
use crate::error::Error;
use crate::memory::ipc::IpcBuffer;
use crate::memory::pitched::Pitched;
use crate::memory::prepared::PreparedBuffer;

/// The impls of one buffer type: shared for `const T*`, exclusive for `T*`.
macro_rules! evented_arg {
    ($($buffer:ident),*) => {$(
        impl<T> DeviceArg for &$buffer<T> {
            type Prepared<'a>
                = PreparedBuffer<'a>
            where
                Self: 'a;

            fn prepare<'a>(
                &'a mut self,
                stream: &Arc<CudaStream>,
            ) -> Result<PreparedBuffer<'a>, Error> {
                (*self).prepare_use(stream)
            }
        }
        impl<T> ConstPtr<T> for &$buffer<T> {}

        impl<T> DeviceArg for &mut $buffer<T> {
            type Prepared<'a>
                = PreparedBuffer<'a>
            where
                Self: 'a;

            fn prepare<'a>(
                &'a mut self,
                stream: &Arc<CudaStream>,
            ) -> Result<PreparedBuffer<'a>, Error> {
                (**self).prepare_use(stream)
            }
        }
        impl<T> ConstPtr<T> for &mut $buffer<T> {}
        impl<T> MutPtr<T> for &mut $buffer<T> {}
    )*};
}

evented_arg!(IpcBuffer, Pitched);
