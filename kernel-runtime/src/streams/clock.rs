//! Stream clocks for buffers the runtime orders itself ([`TrackedBuffer`](crate::TrackedBuffer)):
//! one event per stream, recorded only when another stream has to wait for it.
//!
//! A buffer remembers its last write and its reads as [`Use`]s: a stream, and how many times
//! that stream's event had been recorded when the use was queued. A later use on the same
//! stream needs nothing (a stream runs in order). A use on another stream must wait for it:
//! if the stream's event was recorded after the use, waiting on it is enough (it covers the
//! use, and perhaps more); otherwise the event is recorded now, which covers everything the
//! stream has queued. `cuStreamWaitEvent` takes the event's state at the call, so one event per
//! stream, re-recorded, serves every waiter. Launches on streams that share no buffer make no
//! event call at all.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cudarc::driver::sys::{CUevent_flags, CUevent_wait_flags};
use cudarc::driver::{CudaEvent, CudaStream, result};

use crate::error::{DriverResultExt, Error};

/// One stream's clock: its event and how many times it was recorded.
pub(crate) struct Slot {
    stream: Arc<CudaStream>,
    /// Held while the event is created, recorded or waited on.
    event: Mutex<Option<CudaEvent>>,
    /// Records of the event, counted before each record is made (under the lock), so that a
    /// use that reads a count lower than a record's was queued before that record.
    records: AtomicU64,
}

/// Work queued on a stream: everything before the `records + 1`-th record of its event.
pub(crate) struct Use {
    slot: Arc<Slot>,
    records: u64,
    /// Streams already made to wait for it (their later work needs no other wait).
    waited: Vec<Arc<Slot>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Slot {
    /// The stream this clock belongs to.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A use for the work queued on this stream so far (call after queueing it).
    pub(crate) fn mark(self: &Arc<Self>) -> Use {
        self.mark_at(self.records())
    }

    /// A use dated `records` (a count read after the use was queued).
    pub(crate) fn mark_at(self: &Arc<Self>, records: u64) -> Use {
        Use {
            slot: Arc::clone(self),
            records,
            waited: Vec::new(),
        }
    }

    /// How many times the event has been recorded (read after queueing a use, it dates it).
    pub(crate) fn records(&self) -> u64 {
        self.records.load(Ordering::Acquire)
    }
}

impl Use {
    /// Whether the use was on `slot`'s stream (each stream has one clock; a graph's capture
    /// stream shares its replay stream's).
    pub(crate) fn on(&self, slot: &Arc<Slot>) -> bool {
        Arc::ptr_eq(&self.slot, slot)
    }

    /// Moves the use to a later point of its own stream, dated `records`: the streams that
    /// waited for the earlier point have not waited for this one.
    pub(crate) fn advance(&mut self, records: u64) {
        self.records = records;
        self.waited.clear();
    }

    /// The stream the use was queued on.
    pub(crate) fn slot(&self) -> &Arc<Slot> {
        &self.slot
    }

    /// Makes `waiter` wait, on the device, for this use: nothing when the use is on
    /// `waiter`'s stream or that stream already waited for it.
    pub(crate) fn order_before(&mut self, waiter: &Arc<Slot>) -> Result<(), Error> {
        if self.on(waiter) || self.waited.iter().any(|w| Arc::ptr_eq(w, waiter)) {
            return Ok(());
        }
        self.slot
            .stream
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        let mut event = lock(&self.slot.event);
        if event.is_none() {
            *event = Some(
                self.slot
                    .stream
                    .context()
                    .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                    .call("cuEventCreate")?,
            );
        }
        let Some(event) = event.as_ref() else {
            unreachable!("created above")
        };
        // Covered when the event was recorded after the use; otherwise record it now (counted
        // first: a use marked meanwhile then reads the new count and is not taken as covered).
        if self.slot.records.load(Ordering::Acquire) <= self.records {
            self.slot.records.fetch_add(1, Ordering::AcqRel);
            // SAFETY: a live event and stream of the same context.
            unsafe { result::event::record(event.cu_event(), self.slot.stream.cu_stream()) }
                .call("cuEventRecord")?;
        }
        // SAFETY: as above; the wait takes the event's state now.
        unsafe {
            result::stream::wait_event(
                waiter.stream.cu_stream(),
                event.cu_event(),
                CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .call("cuStreamWaitEvent")?;
        self.waited.push(Arc::clone(waiter));
        Ok(())
    }
}

/// The same stream: the same handle in the same context (every context's legacy default
/// stream is the null handle).
fn same(a: &CudaStream, b: &CudaStream) -> bool {
    a.cu_stream() == b.cu_stream() && a.context().cu_ctx() == b.context().cu_ctx()
}

/// A stream's clock: the stream it is looked up by, and the clock (the stream's own, or, for
/// a graph's capture stream, the clock of the stream the graph is replayed on).
struct Entry {
    key: Arc<CudaStream>,
    slot: Arc<Slot>,
    /// A capture stream's entry, removed by [`Alias`] before its stream is destroyed.
    alias: bool,
}

/// Every stream with a clock. An entry keeps its stream alive, so no other stream can take
/// its handle; entries nobody else holds (no buffer's use, no thread's cache, no stream
/// handle outside) are dropped when a new stream is added.
static SLOTS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Bumped whenever an alias is removed: every thread's cache is then stale.
static EPOCH: AtomicU64 = AtomicU64::new(0);

/// Clocks a thread looked up lately, so that a launch finds its stream's without a lock.
const RECENT: usize = 8;

/// A thread's recent lookups, valid while [`EPOCH`] is `epoch`.
struct Recent {
    epoch: u64,
    entries: Vec<(Arc<CudaStream>, Arc<Slot>)>,
}

thread_local! {
    /// The clocks this thread used last, the newest last.
    static LAST: RefCell<Recent> = const {
        RefCell::new(Recent { epoch: 0, entries: Vec::new() })
    };
}

/// The clock that orders work queued on `stream`: its own, or the replay stream's for a
/// graph's capture stream.
pub(crate) fn slot_of(stream: &Arc<CudaStream>) -> Arc<Slot> {
    let epoch = EPOCH.load(Ordering::Acquire);
    if let Some(hit) = LAST.with_borrow_mut(|last| {
        if last.epoch != epoch {
            last.entries.clear();
            last.epoch = epoch;
        }
        last.entries
            .iter()
            .rev()
            .find(|(key, _)| same(key, stream))
            .map(|(_, slot)| Arc::clone(slot))
    }) {
        return hit;
    }
    let slot = {
        let mut slots = lock(&SLOTS);
        if let Some(e) = slots.iter().find(|e| same(&e.key, stream)) {
            Arc::clone(&e.slot)
        } else {
            // A stream's own entry holds its handle twice (key and clock).
            slots.retain(|e| {
                e.alias || Arc::strong_count(&e.slot) > 1 || Arc::strong_count(&e.key) > 2
            });
            let slot = new_slot(stream);
            slots.push(Entry {
                key: Arc::clone(stream),
                slot: Arc::clone(&slot),
                alias: false,
            });
            slot
        }
    };
    LAST.with_borrow_mut(|last| {
        if last.epoch == epoch {
            if last.entries.len() == RECENT {
                last.entries.remove(0);
            }
            last.entries.push((Arc::clone(stream), Arc::clone(&slot)));
        }
    });
    slot
}

fn new_slot(stream: &Arc<CudaStream>) -> Arc<Slot> {
    Arc::new(Slot {
        stream: Arc::clone(stream),
        event: Mutex::new(None),
        records: AtomicU64::new(0),
    })
}

/// While alive, work queued on a graph's capture stream is ordered as work of the stream the
/// graph is replayed on: waits for other streams are made on the replay stream (outside the
/// capture, which the driver allows) and uses are recorded as the replay stream's. The
/// capture stream waited for the replay stream before its capture began.
pub(crate) struct Alias {
    capture: Arc<CudaStream>,
}

/// Orders work on `capture` as work on `replay` until the returned guard drops.
pub(crate) fn alias(capture: &Arc<CudaStream>, replay: &Arc<CudaStream>) -> Alias {
    let target = slot_of(replay);
    lock(&SLOTS).push(Entry {
        key: Arc::clone(capture),
        slot: target,
        alias: true,
    });
    Alias {
        capture: Arc::clone(capture),
    }
}

impl Drop for Alias {
    fn drop(&mut self) {
        lock(&SLOTS).retain(|e| !(e.alias && same(&e.key, &self.capture)));
        EPOCH.fetch_add(1, Ordering::AcqRel);
    }
}
