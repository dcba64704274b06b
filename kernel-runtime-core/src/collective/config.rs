//! The configuration passed to `ncclCommInitRankConfig` to make a non-blocking communicator:
//! NCCL's `ncclConfig_t` as NCCL 2.17's header lays it out, filled as that header's
//! `NCCL_CONFIG_INITIALIZER` fills it (its size, NCCL's magic number, the header's version,
//! every attribute "undefined"), with `blocking = 0`.
//!
//! NCCL keeps the structure compatible across versions by three rules (`parseCommConfig` in
//! NCCL's `init.cc`, the same from 2.14 to 2.30): it copies `min(size, its own size)` bytes of
//! what the caller passes over its own defaults, so attributes beyond the caller's `size`
//! keep their defaults; it refuses a structure whose `magic` is not `0xcafebeef`; and it
//! resets to their defaults the attributes added after the caller's `version`. Attributes are
//! only ever appended. So the 2.17 layout, declared here field for field with every attribute
//! but `blocking` undefined, means the same to every NCCL from 2.14 (the first with the
//! structure) on: a newer one gives the attributes 2.17 did not have their defaults, and a
//! 2.14 one copies its own 24 bytes and reads the four fields it has. The runtime sets nothing
//! else: NCCL's environment variables (`NCCL_MIN_CTAS`, ...) still apply as they do to a
//! blocking communicator.

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `NCCL_API_MAGIC`: what NCCL checks a configuration was initialised with.
const MAGIC: c_uint = 0xcafe_beef;

/// `NCCL_CONFIG_UNDEF_INT`: an attribute NCCL gives its default (`INT_MIN`).
const UNDEFINED: c_int = c_int::MIN;

/// `NCCL_VERSION(2, 17, 0)`: the header whose layout [`Config`] declares.
const VERSION: c_uint = 21700;

/// `ncclConfig_t` of NCCL 2.17's header (`struct ncclConfig_v21700`).
#[repr(C)]
#[derive(Debug)]
pub(crate) struct Config {
    /// `sizeof` the structure, for NCCL to copy that much of it.
    size: usize,
    magic: c_uint,
    version: c_uint,
    /// 0: calls return `ncclInProgress` and finish in NCCL's threads; 1: calls block.
    blocking: c_int,
    cga_cluster_size: c_int,
    min_ctas: c_int,
    max_ctas: c_int,
    net_name: *const c_char,
}

impl Config {
    /// A configuration asking for a non-blocking communicator, every other attribute left to
    /// NCCL.
    pub(crate) fn non_blocking() -> Config {
        Config {
            size: std::mem::size_of::<Config>(),
            magic: MAGIC,
            version: VERSION,
            blocking: 0,
            cga_cluster_size: UNDEFINED,
            min_ctas: UNDEFINED,
            max_ctas: UNDEFINED,
            net_name: std::ptr::null(),
        }
    }

    /// The pointer NCCL takes (it copies the structure during the call and keeps nothing).
    pub(crate) fn as_ptr(&mut self) -> *mut c_void {
        (self as *mut Config).cast()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    /// The offsets of NCCL 2.17's `ncclConfig_t` on a 64-bit target: a `size_t`, two
    /// `unsigned int`s, four `int`s and a pointer, with no padding anywhere.
    #[test]
    fn the_layout_is_nccl_2_17s() {
        assert_eq!(offset_of!(Config, size), 0);
        assert_eq!(offset_of!(Config, magic), 8);
        assert_eq!(offset_of!(Config, version), 12);
        assert_eq!(offset_of!(Config, blocking), 16);
        assert_eq!(offset_of!(Config, cga_cluster_size), 20);
        assert_eq!(offset_of!(Config, min_ctas), 24);
        assert_eq!(offset_of!(Config, max_ctas), 28);
        assert_eq!(offset_of!(Config, net_name), 32);
        assert_eq!(std::mem::size_of::<Config>(), 40);
    }

    /// What `NCCL_CONFIG_INITIALIZER` writes, with `blocking` set to 0: the bytes NCCL
    /// copies, read back as NCCL reads them.
    #[test]
    fn the_fields_are_the_initializers_with_blocking_off() {
        let mut config = Config::non_blocking();
        let ptr = config.as_ptr().cast::<u8>();
        // SAFETY: reads within the structure, at the offsets checked above.
        let (size, magic, version, blocking, cga, min, max, net) = unsafe {
            (
                ptr.cast::<usize>().read(),
                ptr.add(8).cast::<u32>().read(),
                ptr.add(12).cast::<u32>().read(),
                ptr.add(16).cast::<i32>().read(),
                ptr.add(20).cast::<i32>().read(),
                ptr.add(24).cast::<i32>().read(),
                ptr.add(28).cast::<i32>().read(),
                ptr.add(32).cast::<usize>().read(),
            )
        };
        assert_eq!(size, 40);
        assert_eq!(magic, 0xcafe_beef);
        // NCCL_VERSION(2, 17, 0): major * 10000 + minor * 100 + patch from 2.9 on.
        assert_eq!(version, 2 * 10000 + 17 * 100);
        assert_eq!(blocking, 0);
        assert_eq!([cga, min, max], [i32::MIN; 3]);
        assert_eq!(net, 0);
    }
}
