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
        let records = self.records.load(Ordering::Acquire);
        Use {
            slot: Arc::clone(self),
            records,
            waited: Vec::new(),
        }
    }
}

impl Use {
    /// Whether the use was on `slot`'s stream.
    pub(crate) fn on(&self, slot: &Slot) -> bool {
        same(&self.slot.stream, &slot.stream)
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

/// Every stream with a clock. An entry keeps its stream alive, so no other stream can take
/// its handle; entries nobody else holds (no buffer's use, no thread's cache, no stream
/// handle outside) are dropped when a new stream is added.
static SLOTS: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());

/// Clocks a thread looked up lately, so that a launch finds its stream's without a lock.
const RECENT: usize = 8;

thread_local! {
    /// The clocks this thread used last, the newest last.
    static LAST: RefCell<Vec<Arc<Slot>>> = const { RefCell::new(Vec::new()) };
}

/// The clock of `stream`.
pub(crate) fn slot_of(stream: &Arc<CudaStream>) -> Arc<Slot> {
    if let Some(hit) =
        LAST.with_borrow(|last| last.iter().rev().find(|s| same(&s.stream, stream)).cloned())
    {
        return hit;
    }
    let slot = {
        let mut slots = lock(&SLOTS);
        if let Some(s) = slots.iter().find(|s| same(&s.stream, stream)) {
            Arc::clone(s)
        } else {
            slots.retain(|s| Arc::strong_count(s) > 1 || Arc::strong_count(&s.stream) > 1);
            let s = Arc::new(Slot {
                stream: Arc::clone(stream),
                event: Mutex::new(None),
                records: AtomicU64::new(0),
            });
            slots.push(Arc::clone(&s));
            s
        }
    };
    LAST.with_borrow_mut(|last| {
        if last.len() == RECENT {
            last.remove(0);
        }
        last.push(Arc::clone(&slot));
    });
    slot
}
