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

use std::cell::{Cell, RefCell};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cudarc::driver::sys::{self, CUevent_flags, CUevent_wait_flags, CUstreamCaptureStatus};
use cudarc::driver::{CudaEvent, CudaStream};

use crate::driver;
use crate::error::{DriverResultExt, Error};

/// One stream's clock: its event and how many times it was recorded.
pub(crate) struct Slot {
    /// Dropped by [`Slot`]'s `Drop`, which keeps the thread's current context.
    stream: ManuallyDrop<Arc<CudaStream>>,
    /// Held while the event is created, recorded or waited on.
    event: Mutex<Option<CudaEvent>>,
    /// Records of the event, counted before each record is made (under the lock), so that a
    /// use that reads a count lower than a record's was queued before that record.
    records: AtomicU64,
    /// For a graph's capture stream: the clock of the stream the graph replays on, which
    /// stands for the captured work once the capture has ended.
    replay: Option<Arc<Slot>>,
    /// Set when a capture stream is destroyed: its handle is never used again.
    retired: AtomicBool,
}

/// The date of a stale use: later than any record.
const STALE: u64 = u64::MAX;

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

/// A clock can be dropped on any thread (its last use may be another thread's buffer, a
/// thread's cache, or the registry making room): destroying its event and its stream makes
/// their context current, and the thread's own is put back.
impl Drop for Slot {
    fn drop(&mut self) {
        let _keep = driver::context::KeepCurrent::new();
        drop(
            self.event
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
        // SAFETY: dropped once, here; the field is not used after.
        unsafe { ManuallyDrop::drop(&mut self.stream) };
    }
}

impl Slot {
    /// The stream this clock belongs to.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The clock of the stream where work lives beyond a capture: the replay stream's for a
    /// capture stream, this one otherwise (where buffers are allocated and freed).
    pub(crate) fn home(self: &Arc<Self>) -> &Arc<Slot> {
        self.replay.as_ref().unwrap_or(self)
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
    /// Whether the use was on `slot`'s stream (each stream has one clock).
    pub(crate) fn on(&self, slot: &Arc<Slot>) -> bool {
        Arc::ptr_eq(&self.slot, slot)
    }

    /// Makes the use stand for everything its stream queues until the next write: every wait
    /// for it records the stream's event afresh (for uses made without a record of their own,
    /// while the buffer stayed on one stream).
    pub(crate) fn go_stale(&mut self) {
        self.records = STALE;
        self.waited.clear();
    }

    /// Moves the use to a later point of its own stream, dated `records`: the streams that
    /// waited for the earlier point have not waited for this one.
    pub(crate) fn advance(&mut self, records: u64) {
        self.records = records;
        self.waited.clear();
    }

    /// Whether `slot`'s stream runs after this use, for any later use there: it is the use's
    /// stream or waited for it (a stale use's unrecorded reads are waited for by writers
    /// only, so it covers only its own stream).
    pub(crate) fn covered_on(&self, slot: &Arc<Slot>) -> bool {
        self.on(slot) || (self.records != STALE && self.waited.iter().any(|w| Arc::ptr_eq(w, slot)))
    }

    /// The stream the use was queued on.
    pub(crate) fn slot(&self) -> &Arc<Slot> {
        &self.slot
    }

    /// Makes `waiter` wait, on the device, for this use: nothing when the use is on
    /// `waiter`'s stream or that stream already waited for it.
    ///
    /// `write` says whether the waiter writes: a stale use ([`Use::go_stale`]) is waited for
    /// through a fresh record by every writer.
    ///
    /// Around stream capture: a use captured into a graph whose capture has ended stands for
    /// the graph's replays, so the replay stream is waited for (what it has queued so far). A
    /// capturing waiter waits for work outside its capture through an event-wait node of the
    /// graph (each replay waits for the event's latest record, which covers the work). Work
    /// outside a capture cannot wait for a use being captured (it has not run, and runs only
    /// with the graph): nothing is ordered, as for the graph's replays, which the program
    /// orders with other streams itself.
    pub(crate) fn order_before(&mut self, waiter: &Arc<Slot>, write: bool) -> Result<(), Error> {
        // A stale use stands for reads made without a record: a read waiter that waited once
        // is ordered after its write, a writer records the stream's event afresh.
        let stale_for_writer = write && self.records == STALE;
        if self.on(waiter)
            || (!stale_for_writer && self.waited.iter().any(|w| Arc::ptr_eq(w, waiter)))
        {
            return Ok(());
        }
        self.slot
            .stream
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        // A capture stream waited for its replay stream before the capture began, and the
        // graph replays there after anything queued on it now.
        if waiter
            .replay
            .as_ref()
            .is_some_and(|r| Arc::ptr_eq(r, &self.slot))
        {
            return Ok(());
        }
        // A retired capture stream's handle is never used again (it captures nothing).
        let use_capturing =
            !self.slot.retired.load(Ordering::Acquire) && capturing(&self.slot.stream)?;
        if let (false, Some(replay)) = (use_capturing, &self.slot.replay) {
            replay.mark().order_before(waiter, write)?;
            self.waited.push(Arc::clone(waiter));
            return Ok(());
        }
        let waiter_capturing = capturing(&waiter.stream)?;
        if use_capturing && !waiter_capturing {
            return Ok(());
        }
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
            unsafe { driver::event::record(event.cu_event(), self.slot.stream.cu_stream()) }
                .call("cuEventRecord")?;
        }
        // A capturing stream waits for uncaptured work through an event-wait node: each
        // replay waits for the event's latest record, which covers the use.
        let flags = if waiter_capturing && !use_capturing {
            CUevent_wait_flags::CU_EVENT_WAIT_EXTERNAL
        } else {
            CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT
        };
        // SAFETY: as above; the wait takes the event's state now.
        unsafe { driver::stream::wait_event(waiter.stream.cu_stream(), event.cu_event(), flags) }
            .call("cuStreamWaitEvent")?;
        self.waited.push(Arc::clone(waiter));
        Ok(())
    }
}

/// Whether `stream` is capturing work into a graph.
fn capturing(stream: &CudaStream) -> Result<bool, Error> {
    // SAFETY: a live stream.
    let status =
        unsafe { driver::stream::is_capturing(stream.cu_stream()) }.call("cuStreamIsCapturing")?;
    Ok(status != CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
}

/// What identifies a stream: its handle and its context (every context's legacy default
/// stream is the null handle).
type StreamKey = (sys::CUstream, sys::CUcontext);

#[inline]
fn key(stream: &CudaStream) -> StreamKey {
    (stream.cu_stream(), stream.context().cu_ctx())
}

/// The same stream: the same handle in the same context.
fn same(a: &CudaStream, b: &CudaStream) -> bool {
    key(a) == key(b)
}

/// A stream's clock, and whether it is a capture stream's (removed by [`CaptureClock`] before
/// its stream is destroyed, never as unused).
struct Entry {
    slot: Arc<Slot>,
    capture: bool,
}

/// Every stream with a clock. An entry keeps its stream alive, so no other stream can take
/// its handle; entries nobody else holds (no buffer's use, no thread's cache, no stream
/// handle outside) are dropped when a new stream is added.
static SLOTS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Bumped whenever a capture stream's clock is removed: every thread's cache is then stale.
static EPOCH: AtomicU64 = AtomicU64::new(0);

/// Clocks a thread looked up lately, so that a launch finds its stream's without a lock.
const RECENT: usize = 8;

/// A thread's recent lookups, valid while [`EPOCH`] is `epoch`.
struct Recent {
    epoch: u64,
    slots: Vec<Arc<Slot>>,
}

impl Recent {
    /// Adds `slot` as the newest, dropping the oldest when full.
    fn push(&mut self, slot: &Arc<Slot>) {
        if self.slots.len() == RECENT {
            HOT.set(Hot::EMPTY);
            self.slots.remove(0);
        }
        self.slots.push(Arc::clone(slot));
        HOT.set(Hot::of(slot, self.epoch));
    }
}

impl Drop for Recent {
    fn drop(&mut self) {
        // The clocks go with the cache: the thread's last lookup must not outlive them.
        HOT.set(Hot::EMPTY);
    }
}

/// The thread's last hit in [`LAST`], as plain values that are compared without borrowing the
/// cache: the stream's key, its clock's address and the epoch. It is empty or names a clock
/// [`LAST`] holds, so its stream is alive and no other stream can have taken its handle.
#[derive(Clone, Copy)]
struct Hot {
    stream: StreamKey,
    slot: *const Slot,
    epoch: u64,
}

impl Hot {
    /// Matches no stream (no stream has a null context).
    const EMPTY: Hot = Hot {
        stream: (std::ptr::null_mut(), std::ptr::null_mut()),
        slot: std::ptr::null(),
        epoch: 0,
    };

    fn of(slot: &Arc<Slot>, epoch: u64) -> Hot {
        Hot {
            stream: key(&slot.stream),
            slot: Arc::as_ptr(slot),
            epoch,
        }
    }
}

thread_local! {
    /// The clocks this thread used last, the newest last.
    static LAST: RefCell<Recent> = const {
        RefCell::new(Recent { epoch: 0, slots: Vec::new() })
    };
    /// The last of them found (no destructor, so reading it costs one load).
    static HOT: Cell<Hot> = const { Cell::new(Hot::EMPTY) };
}

/// The clock of `stream`.
pub(crate) fn slot_of(stream: &Arc<CudaStream>) -> Arc<Slot> {
    let epoch = EPOCH.load(Ordering::Acquire);
    if let Some(hit) = recent(epoch, stream, Arc::clone) {
        return hit;
    }
    let slot = {
        let mut slots = lock(&SLOTS);
        if let Some(e) = slots.iter().find(|e| same(&e.slot.stream, stream)) {
            Arc::clone(&e.slot)
        } else {
            slots.retain(|e| {
                e.capture || Arc::strong_count(&e.slot) > 1 || Arc::strong_count(&e.slot.stream) > 1
            });
            let slot = new_slot(stream, None);
            slots.push(Entry {
                slot: Arc::clone(&slot),
                capture: false,
            });
            slot
        }
    };
    LAST.with_borrow_mut(|last| {
        if last.epoch == epoch {
            last.push(&slot);
        }
    });
    slot
}

/// `f` of `stream`'s clock if this thread used the stream lately (the thread's cache is
/// emptied first when a capture clock was removed since it was filled).
#[inline]
fn recent<R>(epoch: u64, stream: &CudaStream, f: impl FnOnce(&Arc<Slot>) -> R) -> Option<R> {
    LAST.with_borrow_mut(|last| {
        if last.epoch != epoch {
            HOT.set(Hot::EMPTY);
            last.slots.clear();
            last.epoch = epoch;
        }
        let hit = last.slots.iter().rev().find(|s| same(&s.stream, stream))?;
        HOT.set(Hot::of(hit, epoch));
        Some(f(hit))
    })
}

/// The address of `stream`'s clock, for comparing: the thread's last hit when it is this
/// stream's (a few loads), else found in the thread's cache or the registry.
#[inline]
pub(crate) fn slot_ptr(stream: &Arc<CudaStream>) -> *const Slot {
    let (hot, epoch) = (HOT.get(), EPOCH.load(Ordering::Acquire));
    if hot.stream == key(stream) && hot.epoch == epoch {
        return hot.slot;
    }
    slot_ptr_looked_up(stream, epoch)
}

/// [`slot_ptr`] past the thread's last hit (`epoch` read there).
#[inline(never)]
fn slot_ptr_looked_up(stream: &Arc<CudaStream>, epoch: u64) -> *const Slot {
    recent(epoch, stream, Arc::as_ptr).unwrap_or_else(|| Arc::as_ptr(&slot_of(stream)))
}

fn new_slot(stream: &Arc<CudaStream>, replay: Option<Arc<Slot>>) -> Arc<Slot> {
    Arc::new(Slot {
        stream: ManuallyDrop::new(Arc::clone(stream)),
        event: Mutex::new(None),
        records: AtomicU64::new(0),
        replay,
        retired: AtomicBool::new(false),
    })
}

/// The clock of a graph's capture stream while the stream lives: uses captured on it are
/// ordered with other captured work through its own event, and once the capture has ended
/// stand for the graph's replays on the replay stream. Dropped before the stream is destroyed:
/// the clock is retired (its handle never used again) and forgotten.
pub(crate) struct CaptureClock {
    slot: Arc<Slot>,
}

/// Gives the capture stream `capture`, whose graphs replay on `replay`, its clock.
pub(crate) fn capture_clock(capture: &Arc<CudaStream>, replay: &Arc<CudaStream>) -> CaptureClock {
    let slot = new_slot(capture, Some(slot_of(replay)));
    lock(&SLOTS).push(Entry {
        slot: Arc::clone(&slot),
        capture: true,
    });
    CaptureClock { slot }
}

impl Drop for CaptureClock {
    fn drop(&mut self) {
        self.slot.retired.store(true, Ordering::Release);
        lock(&SLOTS).retain(|e| !Arc::ptr_eq(&e.slot, &self.slot));
        EPOCH.fetch_add(1, Ordering::AcqRel);
    }
}
