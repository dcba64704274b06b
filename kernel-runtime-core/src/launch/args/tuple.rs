//! [`KernelArgs`]: a tuple of arguments for a by-name launch, prepared into a stack array of
//! parameter pointers (no heap allocation beyond what `In`/`Out` arguments need).

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::CudaStream;

use crate::error::Error;
use crate::launch::args::{DeviceArg, PreparedArg};

/// A tuple of up to 32 kernel arguments, each a [`DeviceArg`]: device buffers (`&CudaSlice<T>`,
/// `&mut CudaSlice<T>`, views), host slices (`In`, `Out`, `InOut`), scalars, vector types,
/// [`RawDevicePtr`](crate::RawDevicePtr) and [`ByValue`](crate::ByValue) structs.
///
/// ```
/// fn check<A: cuda_kernel_runtime::KernelArgs>(_: A) {}
/// check((1.0f32, 2i32, cuda_kernel_runtime::RawDevicePtr::NULL));
/// ```
pub trait KernelArgs {
    /// Prepares every argument, calls `launch` with the parameter pointers, then finishes every
    /// argument (in order).
    fn with_params(
        self,
        stream: &Arc<CudaStream>,
        launch: impl FnOnce(&mut [*mut c_void]) -> Result<(), Error>,
    ) -> Result<(), Error>;
}

/// A tuple of kernel arguments launched several times in place (a tuned entry point times
/// every variant on the call's own arguments): each launch prepares and finishes the
/// arguments without moving them. Not public API.
///
/// ```
/// use cuda_kernel_runtime::__private::ArgTuple;
/// let mut args = (1.0f32, 2i32);
/// assert_eq!(args.arg(1).and_then(|a| a.byte_len()), None);
/// assert!(args.arg(2).is_none());
/// ```
pub trait ArgTuple {
    /// Prepares every argument in place, calls `launch` with the parameter pointers, then
    /// finishes every argument (in order).
    fn with_params_mut(
        &mut self,
        stream: &Arc<CudaStream>,
        launch: impl FnOnce(&mut [*mut c_void]) -> Result<(), Error>,
    ) -> Result<(), Error>;

    /// Argument number `index`, whatever its type.
    fn arg(&mut self, index: usize) -> Option<&mut dyn AnyArg>;
}

/// One kernel argument of any type, for what is done to it between launches.
pub trait AnyArg {
    /// The bytes of device memory it addresses ([`DeviceArg::byte_len`]).
    fn byte_len(&self) -> Option<usize>;

    /// Prepares it on `stream` (which waits for the buffer's pending work), calls `f` with
    /// the device address it passes, and finishes it (the use is recorded on `stream`).
    /// Only for an argument whose [`byte_len`](AnyArg::byte_len) is known: its parameter is
    /// a device address.
    fn with_address(
        &mut self,
        stream: &Arc<CudaStream>,
        f: &mut dyn FnMut(u64) -> Result<(), Error>,
    ) -> Result<(), Error>;
}

impl<A: DeviceArg> AnyArg for A {
    fn byte_len(&self) -> Option<usize> {
        DeviceArg::byte_len(self)
    }

    fn with_address(
        &mut self,
        stream: &Arc<CudaStream>,
        f: &mut dyn FnMut(u64) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if DeviceArg::byte_len(self).is_none() {
            return Err(Error::OutOfRange {
                what: "a kernel argument's address",
                problem: "the argument is no device buffer or view".into(),
            });
        }
        let prepared = self.prepare(stream)?;
        // SAFETY: an argument with a byte length is a pointer parameter: its parameter
        // pointer points at the `u64` device address the kernel would get.
        let address = unsafe { prepared.param_ptr().cast::<u64>().read_unaligned() };
        let done = f(address);
        prepared.finish(stream)?;
        done
    }
}

impl ArgTuple for () {
    fn with_params_mut(
        &mut self,
        _: &Arc<CudaStream>,
        launch: impl FnOnce(&mut [*mut c_void]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        launch(&mut [])
    }

    fn arg(&mut self, _: usize) -> Option<&mut dyn AnyArg> {
        None
    }
}

impl KernelArgs for () {
    fn with_params(
        self,
        _: &Arc<CudaStream>,
        launch: impl FnOnce(&mut [*mut c_void]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        launch(&mut [])
    }
}

macro_rules! tuple_args {
    ($($A:ident $a:ident $p:ident),+) => {
        impl<$($A: DeviceArg),+> KernelArgs for ($($A,)+) {
            #[inline]
            fn with_params(
                self,
                stream: &Arc<CudaStream>,
                launch: impl FnOnce(&mut [*mut c_void]) -> Result<(), Error>,
            ) -> Result<(), Error> {
                let ($(mut $a,)+) = self;
                $(let $p = $a.prepare(stream)?;)+
                let mut params = [$($p.param_ptr()),+];
                launch(&mut params)?;
                $($p.finish(stream)?;)+
                Ok(())
            }
        }

        impl<$($A: DeviceArg),+> ArgTuple for ($($A,)+) {
            #[inline]
            fn with_params_mut(
                &mut self,
                stream: &Arc<CudaStream>,
                launch: impl FnOnce(&mut [*mut c_void]) -> Result<(), Error>,
            ) -> Result<(), Error> {
                let ($($a,)+) = self;
                $(let $p = $a.prepare(stream)?;)+
                let mut params = [$($p.param_ptr()),+];
                launch(&mut params)?;
                $($p.finish(stream)?;)+
                Ok(())
            }

            #[allow(unused_assignments)]
            fn arg(&mut self, index: usize) -> Option<&mut dyn AnyArg> {
                let ($($a,)+) = self;
                let mut at = 0usize;
                $(
                    if at == index {
                        return Some($a);
                    }
                    at += 1;
                )+
                None
            }
        }
    };
}

tuple_args!(A0 a0 p0);
tuple_args!(A0 a0 p0, A1 a1 p1);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23, A24 a24 p24);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23, A24 a24 p24, A25 a25 p25);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23, A24 a24 p24, A25 a25 p25, A26 a26 p26);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23, A24 a24 p24, A25 a25 p25, A26 a26 p26, A27 a27 p27);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23, A24 a24 p24, A25 a25 p25, A26 a26 p26, A27 a27 p27, A28 a28 p28);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23, A24 a24 p24, A25 a25 p25, A26 a26 p26, A27 a27 p27, A28 a28 p28, A29 a29 p29);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23, A24 a24 p24, A25 a25 p25, A26 a26 p26, A27 a27 p27, A28 a28 p28, A29 a29 p29, A30 a30 p30);
tuple_args!(A0 a0 p0, A1 a1 p1, A2 a2 p2, A3 a3 p3, A4 a4 p4, A5 a5 p5, A6 a6 p6, A7 a7 p7, A8 a8 p8, A9 a9 p9, A10 a10 p10, A11 a11 p11, A12 a12 p12, A13 a13 p13, A14 a14 p14, A15 a15 p15, A16 a16 p16, A17 a17 p17, A18 a18 p18, A19 a19 p19, A20 a20 p20, A21 a21 p21, A22 a22 p22, A23 a23 p23, A24 a24 p24, A25 a25 p25, A26 a26 p26, A27 a27 p27, A28 a28 p28, A29 a29 p29, A30 a30 p30, A31 a31 p31);
