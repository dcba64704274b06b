//! Helpers of the generated launchers: slice lengths checked against each other, the
//! geometry the generated source was written for, scratch memory on the launch's stream.

use std::sync::Arc;

use cuda_kernel_generate::{Dtype, geometry};
use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr};

use crate::error::{DriverResultExt, Error};
use crate::launch::args::host::{In, InOut, Out};
use crate::launch::config::Launch;
use crate::memory::tracked::{TrackedBuffer, TrackedView, TrackedViewMut};

/// The element count of a slice argument of a generated kernel (device buffers, views, and
/// the host wrappers `In`/`Out`/`InOut`).
///
/// ```
/// use cuda_kernel_runtime::{In, __private::SliceLen};
/// assert_eq!(In(&[1.0f32, 2.0][..]).slice_len(), 2);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no length a generated kernel can check",
    label = "expected a slice of device memory",
    note = "pass `&TrackedBuffer<T>`, `&mut TrackedBuffer<T>`, a `TrackedView<T>` or `TrackedViewMut<T>`, `&CudaSlice<T>`, `&CudaView<T>`, `&mut CudaSlice<T>`, `&mut CudaViewMut<T>`, `In(&[T])`, `Out(&mut [T])` or `InOut(&mut [T])`"
)]
pub trait SliceLen {
    /// Elements.
    fn slice_len(&self) -> usize;
}

/// `SliceLen` for each slice type: `$ty` with `$len` its element count.
macro_rules! slice_len {
    ($($ty:ty => |$s:ident| $len:expr;)*) => {$(
        impl<T> SliceLen for $ty {
            fn slice_len(&self) -> usize {
                let $s = self;
                $len
            }
        }
    )*};
}

slice_len! {
    &CudaSlice<T> => |s| s.len();
    &mut CudaSlice<T> => |s| s.len();
    &CudaView<'_, T> => |s| s.len();
    &CudaViewMut<'_, T> => |s| s.len();
    &mut CudaViewMut<'_, T> => |s| s.len();
    &TrackedBuffer<T> => |s| s.len();
    &mut TrackedBuffer<T> => |s| s.len();
    TrackedView<'_, T> => |s| s.len();
    &TrackedView<'_, T> => |s| s.len();
    TrackedViewMut<'_, T> => |s| s.len();
    &TrackedViewMut<'_, T> => |s| s.len();
    &mut TrackedViewMut<'_, T> => |s| s.len();
    In<'_, T> => |s| s.0.len();
    Out<'_, T> => |s| s.0.len();
    InOut<'_, T> => |s| s.0.len();
}

/// The element count `n` of a generated kernel: the length of its first slice, which every
/// other slice must share.
///
/// ```
/// use cuda_kernel_runtime::__private::common_len;
/// assert_eq!(common_len("axpy", &[("x", 8), ("y", 8)]).unwrap(), 8);
/// let e = common_len("axpy", &[("x", 8), ("y", 7)]).unwrap_err();
/// assert!(e.to_string().contains("`y` has 7"));
/// ```
pub fn common_len(kernel: &'static str, slices: &[(&'static str, usize)]) -> Result<usize, Error> {
    let Some(&(first, n)) = slices.first() else {
        return Ok(0);
    };
    match slices.iter().find(|(_, len)| *len != n) {
        Some(&(slice, len)) => Err(Error::SliceLength {
            kernel,
            slice,
            len,
            first,
            expected: n,
        }),
        None => Ok(n),
    }
}

/// The launch of an elementwise kernel over `n` elements, `width` per thread.
///
/// ```
/// let cfg = cuda_kernel_runtime::__private::elementwise_launch(1000, 4);
/// assert_eq!(cfg.threads_per_block(), 256);
/// ```
pub fn elementwise_launch(n: usize, width: u32) -> Launch {
    Launch::new(
        geometry::elementwise_blocks(n as u64, width),
        geometry::BLOCK,
    )
}

/// The two launches of a reduction over `n` elements: partials, then the final block.
///
/// ```
/// let (first, last, partials) = cuda_kernel_runtime::__private::reduction_launches(1 << 26, 4);
/// assert_eq!((first.num_blocks(), last.num_blocks(), partials), (1024, 1, 1024));
/// ```
pub fn reduction_launches(n: usize, width: u32) -> (Launch, Launch, usize) {
    let blocks = geometry::reduction_blocks(n as u64, width);
    (
        Launch::new(blocks, geometry::BLOCK),
        Launch::new(1u32, geometry::FINAL_BLOCK),
        blocks as usize,
    )
}

/// The launch of a scan over `n` elements of `dtype` (one block per tile).
///
/// ```
/// use cuda_kernel_runtime::__private::{scan_launch, Dtype};
/// assert_eq!(scan_launch(8193, Dtype::F32).unwrap().num_blocks(), 2);
/// ```
pub fn scan_launch(n: usize, dtype: Dtype) -> Result<Launch, Error> {
    let tiles = geometry::scan_tiles(n as u64, dtype);
    let blocks =
        u32::try_from(tiles)
            .ok()
            .filter(|b| *b < (1 << 31))
            .ok_or(Error::SizeOverflow {
                what: "scan tiles",
                len: n,
                elem_size: dtype.size(),
            })?;
    Ok(Launch::new(blocks, geometry::BLOCK))
}

/// Device memory for `len` values of `T` on `stream`, written by the kernel before it is read
/// (partials, a result).
pub fn scratch<T: DeviceRepr>(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<T>, Error> {
    // SAFETY: the generated kernels write every element they later read; nothing reads it
    // on the host before a kernel has written it.
    unsafe { stream.alloc::<T>(len.max(1)) }.call("cuMemAllocAsync")
}

/// The scratch of a scan of `n` elements of `dtype`, its counter and flags zeroed.
pub fn scan_scratch(
    stream: &Arc<CudaStream>,
    n: usize,
    dtype: Dtype,
) -> Result<CudaSlice<u64>, Error> {
    let tiles = geometry::scan_tiles(n as u64, dtype);
    let words = geometry::scan_scratch_words(tiles, dtype) as usize;
    let zeroed = geometry::scan_zeroed_words(tiles, dtype) as usize;
    let mut buf = scratch::<u64>(stream, words)?;
    let mut head = buf.slice_mut(..zeroed.min(words));
    stream.memset_zeros(&mut head).call("cuMemsetD8Async")?;
    Ok(buf)
}

/// The one value of `buf`, copied to the host (waits for the stream).
pub fn read_one<T: DeviceRepr + Default + Copy>(
    stream: &Arc<CudaStream>,
    buf: &CudaSlice<T>,
) -> Result<T, Error> {
    let mut out = [T::default()];
    stream
        .memcpy_dtoh(&buf.slice(..1), &mut out)
        .call("cuMemcpyDtoHAsync")?;
    stream.synchronize().call("cuStreamSynchronize")?;
    Ok(out[0])
}

/// A one-element output has room: `len >= 1`.
///
/// ```
/// assert!(cuda_kernel_runtime::__private::check_output("sum", "out", 0).is_err());
/// ```
pub fn check_output(kernel: &'static str, slice: &'static str, len: usize) -> Result<(), Error> {
    if len == 0 {
        return Err(Error::SliceLength {
            kernel,
            slice,
            len,
            first: "the result",
            expected: 1,
        });
    }
    Ok(())
}
