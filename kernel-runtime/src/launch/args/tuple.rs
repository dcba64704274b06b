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
