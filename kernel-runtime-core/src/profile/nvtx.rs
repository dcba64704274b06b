//! The NVTX calls behind [`profile`](super) (feature `nvtx`): the domain, made once; each
//! kernel's range, registered once when its module loads ([`LaunchRange`]); and the push and
//! pop of the program's own ranges. Only `nvtx::sys`, the crate's thin layer over the C API, is
//! used: a launch pushes prepared attributes, with no conversion and no allocation.

use std::ffi::{CStr, CString};
use std::sync::OnceLock;

use nvtx::sys::{
    self, ColorType, DomainHandle, EventAttributes, MessageType, MessageValue, PayloadType,
    PayloadValue,
};

/// [`DOMAIN`](super::DOMAIN) as NVTX takes it.
const DOMAIN_NAME: &CStr = c"cuda-kernel";

/// The runtime's NVTX domain, made on first use (at the first module load or range).
fn domain() -> DomainHandle {
    static DOMAIN: OnceLock<DomainHandle> = OnceLock::new();
    *DOMAIN.get_or_init(|| sys::domain_create_ascii(DOMAIN_NAME))
}

/// Event attributes carrying only a message.
fn attributes(kind: MessageType, message: MessageValue) -> EventAttributes {
    EventAttributes {
        version: sys::NVTX_VERSION as u16,
        size: sys::NVTX_EVENT_ATTRIBUTES_SIZE as u16,
        category: 0,
        colorType: i32::from(ColorType::NVTX_COLOR_UNKNOWN),
        color: 0,
        payloadType: i32::from(PayloadType::NVTX_PAYLOAD_UNKNOWN),
        reserved0: 0,
        payload: PayloadValue { ullValue: 0 },
        messageType: i32::from(kind),
        message,
    }
}

/// `text` as a C string, cut at an interior NUL.
fn c_string(text: &str) -> CString {
    let text = text.split('\0').next().unwrap_or_default();
    CString::new(text).unwrap_or_default()
}

/// One kernel's launch range: `module::kernel`, registered with the domain once.
pub(crate) struct LaunchRange {
    domain: DomainHandle,
    attributes: EventAttributes,
    /// The registered text, kept for as long as the handle may be used.
    _name: CString,
}

// SAFETY: the attributes hold a registered-string handle, an immutable token NVTX lets every
// thread use, and no other pointer; nothing here is mutated after registration.
unsafe impl Send for LaunchRange {}
// SAFETY: as above.
unsafe impl Sync for LaunchRange {}

impl LaunchRange {
    /// Registers `module::kernel` with the domain.
    pub(crate) fn register(module: &str, kernel: &str) -> LaunchRange {
        let domain = domain();
        let name = c_string(&format!("{module}::{kernel}"));
        let handle = sys::domain_register_string_ascii(domain, &name);
        let attributes = attributes(
            MessageType::NVTX_MESSAGE_TYPE_REGISTERED,
            MessageValue {
                registered: handle.into(),
            },
        );
        LaunchRange {
            domain,
            attributes,
            _name: name,
        }
    }

    /// Pushes the range on this thread; it is popped when the returned value drops.
    #[inline(always)]
    pub(crate) fn enter(&self) -> Entered {
        sys::domain_range_push_ex(self.domain, &self.attributes);
        Entered(self.domain)
    }
}

/// A launch range pushed on this thread, popped on drop.
pub(crate) struct Entered(DomainHandle);

impl Drop for Entered {
    #[inline(always)]
    fn drop(&mut self) {
        sys::domain_range_pop(self.0);
    }
}

/// Pushes a range named `name` on this thread (the program's own: [`Range`](super::Range)).
pub(super) fn push(name: &str) {
    let name = c_string(name);
    let attributes = attributes(
        MessageType::NVTX_MESSAGE_TYPE_ASCII,
        MessageValue {
            ascii: name.as_ptr(),
        },
    );
    // NVTX copies the text during the call.
    sys::domain_range_push_ex(domain(), &attributes);
}

/// Pops this thread's innermost range of the domain.
pub(super) fn pop() {
    sys::domain_range_pop(domain());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_domain_is_the_documented_one() {
        assert_eq!(DOMAIN_NAME.to_str().unwrap(), super::super::DOMAIN);
    }

    #[test]
    fn names_with_a_nul_are_cut_there() {
        assert_eq!(c_string("m::k\0junk").to_str().unwrap(), "m::k");
        assert_eq!(c_string("m::k").to_str().unwrap(), "m::k");
    }

    #[test]
    fn launch_ranges_push_and_pop_without_a_tool() {
        let range = LaunchRange::register("profile_test", "poke");
        for _ in 0..1000 {
            let _entered = range.enter();
        }
    }
}
