//! The attributes of a `cuLaunchKernelEx` launch ([`Attributes`]), in the driver's form: one
//! function per kind the runtime sets, all named in one list (`kinds!`), whose length
//! ([`KINDS`]) sizes the array the attributes are written into. A new kind is one more
//! function in the list, and the room for it comes with it: the array cannot overflow. It
//! lives on the caller's stack and each attribute is written in place, as the launch core
//! wrote them before (no allocation or copy per launch).

use cudarc::driver::sys::{self, CUlaunchAttributeID as Id};

use crate::launch::config::{Launch, MemSyncDomain};

/// The raw handles of the events a launch fires, looked up from the configuration's keys; the
/// caller keeps the events alive until the launch is queued.
#[derive(Clone, Copy, Default)]
pub(crate) struct Fired {
    /// The programmatic event (`Launch::programmatic_event`).
    pub(crate) programmatic: Option<sys::CUevent>,
    /// The launch completion event (`Launch::completion_event`).
    pub(crate) completion: Option<sys::CUevent>,
}

/// Declares the kinds of attribute the runtime sets, in the order the driver is given them:
/// how many there are ([`KINDS`], counted from the list) and [`write_set`], which calls each
/// kind's function in turn. A kind's function writes its attribute into the slot it is given
/// and returns `true` when the configuration sets it; otherwise it writes nothing.
macro_rules! kinds {
    ($($kind:ident),* $(,)?) => {
        /// How many kinds of attribute the runtime sets: the room an [`Attributes`] has.
        const KINDS: usize = [$(stringify!($kind)),*].len();

        /// Writes the attributes `cfg` sets into `items` (all zero), in order, and says how
        /// many.
        #[inline(always)]
        fn write_set(
            cfg: &Launch,
            fired: Fired,
            items: &mut [sys::CUlaunchAttribute; KINDS],
        ) -> usize {
            let mut len = 0;
            $(
                // At most one per kind: `len` stays below `KINDS`.
                if $kind(cfg, fired, &mut items[len]) {
                    len += 1;
                }
            )*
            len
        }
    };
}

kinds!(
    cluster,
    cooperative,
    programmatic,
    priority,
    preferred_cluster,
    mem_sync_domain,
    programmatic_event,
    completion_event,
);

/// Room for the attributes of one launch: one of each kind, on the caller's stack.
pub(crate) struct Attributes([sys::CUlaunchAttribute; KINDS]);

impl Attributes {
    /// Room with no attribute set.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        // SAFETY: an all-zero attribute is a valid (ignored) value of this plain C struct.
        Attributes(unsafe { std::mem::zeroed() })
    }

    /// Writes the attributes `cfg` sets, with the events it fires, and returns them (for the
    /// driver, which reads them during the launch call). Written in place: a launch copies no
    /// attribute.
    #[inline(always)]
    pub(crate) fn set(&mut self, cfg: &Launch, fired: Fired) -> &mut [sys::CUlaunchAttribute] {
        let len = write_set(cfg, fired, &mut self.0);
        &mut self.0[..len]
    }
}

#[inline(always)]
fn cluster(cfg: &Launch, _: Fired, slot: &mut sys::CUlaunchAttribute) -> bool {
    let Some((x, y, z)) = cfg.cluster else {
        return false;
    };
    slot.id = Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    slot.value.clusterDim.x = x;
    slot.value.clusterDim.y = y;
    slot.value.clusterDim.z = z;
    true
}

#[inline(always)]
fn cooperative(cfg: &Launch, _: Fired, slot: &mut sys::CUlaunchAttribute) -> bool {
    if !cfg.cooperative {
        return false;
    }
    slot.id = Id::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    slot.value.cooperative = 1;
    true
}

#[inline(always)]
fn programmatic(cfg: &Launch, _: Fired, slot: &mut sys::CUlaunchAttribute) -> bool {
    if !cfg.programmatic {
        return false;
    }
    slot.id = Id::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    slot.value.programmaticStreamSerializationAllowed = 1;
    true
}

#[inline(always)]
fn priority(cfg: &Launch, _: Fired, slot: &mut sys::CUlaunchAttribute) -> bool {
    let Some(priority) = cfg.priority else {
        return false;
    };
    slot.id = Id::CU_LAUNCH_ATTRIBUTE_PRIORITY;
    slot.value.priority = priority;
    true
}

#[inline(always)]
fn preferred_cluster(cfg: &Launch, _: Fired, slot: &mut sys::CUlaunchAttribute) -> bool {
    let Some((x, y, z)) = cfg.preferred_cluster else {
        return false;
    };
    slot.id = Id::CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
    slot.value.preferredClusterDim.x = x;
    slot.value.preferredClusterDim.y = y;
    slot.value.preferredClusterDim.z = z;
    true
}

#[inline(always)]
fn mem_sync_domain(cfg: &Launch, _: Fired, slot: &mut sys::CUlaunchAttribute) -> bool {
    let Some(domain) = cfg.mem_sync_domain else {
        return false;
    };
    slot.id = Id::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
    slot.value.memSyncDomain = match domain {
        MemSyncDomain::Default => sys::CUlaunchMemSyncDomain::CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT,
        MemSyncDomain::Remote => sys::CUlaunchMemSyncDomain::CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE,
    };
    true
}

#[inline(always)]
fn programmatic_event(cfg: &Launch, fired: Fired, slot: &mut sys::CUlaunchAttribute) -> bool {
    let Some(event) = fired.programmatic else {
        return false;
    };
    slot.id = Id::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
    slot.value.programmaticEvent.event = event;
    slot.value.programmaticEvent.triggerAtBlockStart = i32::from(cfg.trigger_at_block_start);
    true
}

#[inline(always)]
fn completion_event(_: &Launch, fired: Fired, slot: &mut sys::CUlaunchAttribute) -> bool {
    let Some(event) = fired.completion else {
        return false;
    };
    slot.id = Id::CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
    slot.value.launchCompletionEvent.event = event;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two distinct handles that are never dereferenced (nothing is launched).
    fn fired() -> Fired {
        Fired {
            programmatic: Some(std::ptr::without_provenance_mut(0x1000)),
            completion: Some(std::ptr::without_provenance_mut(0x2000)),
        }
    }

    /// A configuration that sets every attribute the runtime knows.
    fn everything() -> Launch {
        Launch::new(16, 128)
            .with_cluster((2, 1, 1))
            .with_cooperative(true)
            .with_programmatic(true)
            .with_priority(-3)
            .with_preferred_cluster((4, 2, 1))
            .with_mem_sync_domain(MemSyncDomain::Remote)
            .with_trigger_at_block_start(true)
    }

    #[test]
    fn every_attribute_at_once() {
        let mut attrs = Attributes::new();
        let set = attrs.set(&everything(), fired());
        // Every kind is set, and none is left out: a kind added to the list must be set here.
        assert_eq!(set.len(), KINDS);
        let ids: Vec<Id> = set.iter().map(|a| a.id).collect();
        assert_eq!(
            ids,
            [
                Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                Id::CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
                Id::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                Id::CU_LAUNCH_ATTRIBUTE_PRIORITY,
                Id::CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION,
                Id::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN,
                Id::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT,
                Id::CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT,
            ]
        );
        let events = fired();
        // SAFETY: each union is read as the member its attribute's id selects.
        unsafe {
            let v = |i: usize| set[i].value;
            assert_eq!(
                (v(0).clusterDim.x, v(0).clusterDim.y, v(0).clusterDim.z),
                (2, 1, 1)
            );
            assert_eq!(v(1).cooperative, 1);
            assert_eq!(v(2).programmaticStreamSerializationAllowed, 1);
            assert_eq!(v(3).priority, -3);
            let preferred = v(4).preferredClusterDim;
            assert_eq!((preferred.x, preferred.y, preferred.z), (4, 2, 1));
            assert_eq!(
                v(5).memSyncDomain,
                sys::CUlaunchMemSyncDomain::CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE
            );
            assert_eq!(Some(v(6).programmaticEvent.event), events.programmatic);
            assert_eq!(v(6).programmaticEvent.triggerAtBlockStart, 1);
            assert_eq!(Some(v(7).launchCompletionEvent.event), events.completion);
        }
    }

    #[test]
    fn unset_kinds_are_left_out() {
        let mut room = Attributes::new();
        assert!(room.set(&Launch::new(1, 32), Fired::default()).is_empty());
        let cfg = Launch::new(1, 32)
            .with_priority(0)
            .with_mem_sync_domain(MemSyncDomain::Default);
        let mut room = Attributes::new();
        let two = room.set(&cfg, Fired::default());
        let ids: Vec<Id> = two.iter().map(|a| a.id).collect();
        assert_eq!(
            ids,
            [
                Id::CU_LAUNCH_ATTRIBUTE_PRIORITY,
                Id::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN
            ]
        );
        // SAFETY: the second attribute's id selects `memSyncDomain`.
        let domain = unsafe { two[1].value.memSyncDomain };
        assert_eq!(
            domain,
            sys::CUlaunchMemSyncDomain::CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT
        );
    }

    #[test]
    fn an_event_without_a_key_sets_nothing_and_a_trigger_alone_is_no_attribute() {
        let cfg = Launch::new(1, 32).with_trigger_at_block_start(true);
        let mut room = Attributes::new();
        assert!(room.set(&cfg, Fired::default()).is_empty());
        let only_completion = Fired {
            programmatic: None,
            ..fired()
        };
        let ids: Vec<Id> = room
            .set(&Launch::new(1, 32), only_completion)
            .iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(ids, [Id::CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT]);
    }
}
