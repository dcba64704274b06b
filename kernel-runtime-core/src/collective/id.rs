//! [`UniqueId`]: what the ranks of a communicator spread over processes or hosts agree on,
//! made by one rank and passed to the others (by [`Job`](crate::Job) over TCP, or by the
//! program: bytes, or text both ways as 256 hexadecimal digits).

use cudarc::nccl::sys::ncclUniqueId;

use crate::collective::nccl::nccl;
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
        Ok(UniqueId {
            id: nccl()?.unique_id()?,
        })
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

/// The id as 256 lowercase hexadecimal digits, which [`str::parse`] reads back.
///
/// ```
/// use cuda_kernel_runtime::UniqueId;
/// let id = UniqueId::from_bytes(&[0xab; 128]).unwrap();
/// let text = id.to_string();
/// assert_eq!(text.len(), 256);
/// assert!(text.starts_with("abab"));
/// let back: UniqueId = text.parse()?;
/// assert_eq!(back.to_bytes(), id.to_bytes());
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
impl std::fmt::Display for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in self.to_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Reads [`Display`](std::fmt::Display)'s text: 256 hexadecimal digits (either case; spaces
/// around them are ignored).
///
/// ```
/// use cuda_kernel_runtime::{Error, UniqueId};
/// let id: UniqueId = "0f".repeat(128).parse()?;
/// assert_eq!(id.to_bytes(), [0x0f; 128]);
/// assert!(matches!("0f".parse::<UniqueId>(), Err(Error::Collective { .. })));
/// # Ok::<(), Error>(())
/// ```
impl std::str::FromStr for UniqueId {
    type Err = Error;

    fn from_str(text: &str) -> Result<UniqueId, Error> {
        let refuse = |problem: String| Error::Collective {
            call: "UniqueId::from_str",
            problem,
        };
        let text = text.trim();
        if text.len() != 2 * Self::BYTES || !text.is_ascii() {
            return Err(refuse(format!(
                "an id is {} hexadecimal digits, not {} characters",
                2 * Self::BYTES,
                text.chars().count()
            )));
        }
        let mut bytes = [0u8; Self::BYTES];
        for (i, b) in bytes.iter_mut().enumerate() {
            let pair = &text[2 * i..2 * i + 2];
            *b = u8::from_str_radix(pair, 16).map_err(|_| {
                refuse(format!(
                    "`{pair}` at {} is not two hexadecimal digits",
                    2 * i
                ))
            })?;
        }
        Ok(UniqueId {
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
