//! [`UniqueId`]: what the ranks of a communicator spread over processes or hosts agree on,
//! made by one rank and passed to the others by the program (a file, a socket, MPI...).

use cudarc::nccl::sys::ncclUniqueId;

use crate::collective::library::nccl;
use crate::error::Error;

/// The identity of a communicator being made (`ncclUniqueId`, 128 bytes): rank 0 makes it
/// with [`UniqueId::new`], sends [`to_bytes`](UniqueId::to_bytes) to every other rank however
/// the program likes, and each rank passes it to
/// [`Communicator::for_rank`](crate::Communicator::for_rank).
///
/// ```no_run
/// use cuda_kernel_runtime::UniqueId;
/// let id = UniqueId::new()?;
/// std::fs::write("/tmp/nccl-id", id.to_bytes())?;
/// // in the other process:
/// let bytes = std::fs::read("/tmp/nccl-id")?;
/// let same = UniqueId::from_bytes(&bytes).expect("128 bytes");
/// assert_eq!(same.to_bytes(), id.to_bytes());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy)]
pub struct UniqueId {
    pub(crate) id: ncclUniqueId,
}

impl UniqueId {
    /// The number of bytes of an id.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::UniqueId::BYTES, 128);
    /// ```
    pub const BYTES: usize = 128;

    /// A new id (`ncclGetUniqueId`): NCCL picks the network interface and port rank 0 listens
    /// on while the ranks join.
    ///
    /// ```no_run
    /// let id = cuda_kernel_runtime::UniqueId::new()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::NoNccl`] without the library; [`Error::Nccl`] when NCCL cannot make one.
    pub fn new() -> Result<UniqueId, Error> {
        let nccl = nccl()?;
        let mut id = ncclUniqueId { internal: [0; 128] };
        // SAFETY: one out-pointer.
        let code = unsafe { (nccl.get_unique_id)(&mut id) };
        nccl.check("ncclGetUniqueId", code, std::ptr::null_mut())?;
        Ok(UniqueId { id })
    }

    /// The id's bytes, to send to the other ranks.
    ///
    /// ```no_run
    /// let bytes = cuda_kernel_runtime::UniqueId::new()?.to_bytes();
    /// assert_eq!(bytes.len(), 128);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn to_bytes(&self) -> [u8; Self::BYTES] {
        self.id.internal.map(|c| c as u8)
    }

    /// The id whose [`to_bytes`](UniqueId::to_bytes) gave `bytes`, or `None` when they are not
    /// [`BYTES`](UniqueId::BYTES) long. (Any 128 bytes make an id; one no rank made fails when
    /// the communicator is made.)
    ///
    /// ```
    /// use cuda_kernel_runtime::UniqueId;
    /// let id = UniqueId::from_bytes(&[7; 128]).unwrap();
    /// assert_eq!(id.to_bytes(), [7; 128]);
    /// assert!(UniqueId::from_bytes(&[7; 12]).is_none());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Option<UniqueId> {
        let bytes: &[u8; Self::BYTES] = bytes.try_into().ok()?;
        Some(UniqueId {
            id: ncclUniqueId {
                internal: bytes.map(|b| b as std::ffi::c_char),
            },
        })
    }
}

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UniqueId").finish_non_exhaustive()
    }
}
