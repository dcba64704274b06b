//! [`UseRecord`]: what a [`TrackedBuffer`](crate::TrackedBuffer) remembers of its uses, and how
//! a new use is ordered after them. A use is (stream, how many times that stream's one event
//! had been recorded then), kept on the stream's clock (`streams::clock`); the record holds
//! the last write and the reads after it, at most one per stream, and, while every use is on
//! one stream, that stream alone, read without a lock. A use is prepared before its work is
//! queued (the stream waits for what it must follow) and recorded once the work is queued
//! ([`TrackedUse::finish`], called by `prepared` for copies and launches alike).
//!
//! It knows nothing of the memory: the buffer holds one record for all its views.

use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cudarc::driver::CudaStream;

use crate::error::Error;
use crate::streams::clock::{Slot, Use, slot_of, slot_ptr};

/// The uses of one buffer on every stream.
pub(crate) struct UseRecord {
    uses: Mutex<Uses>,
    /// While not null: the clock of a stream whose later work runs after every use so far
    /// (they were queued on it, or ordered before it). A use on that stream then needs no
    /// lock and records nothing; the first use elsewhere ends it under the lock, standing
    /// for them all by one stale use of that stream (every wait for it records the stream's
    /// event afresh). A use held in `uses` keeps the clock, and so the address, alive.
    solo: AtomicPtr<Slot>,
}

/// The last write and the reads after it, at most one per stream.
struct Uses {
    write: Use,
    reads: Vec<Use>,
}

impl UseRecord {
    /// A record whose every use so far was queued on `slot`'s stream.
    pub(crate) fn new(slot: &Arc<Slot>) -> Self {
        UseRecord {
            uses: Mutex::new(Uses {
                write: slot.mark(),
                reads: Vec::new(),
            }),
            solo: AtomicPtr::new(Arc::as_ptr(slot).cast_mut()),
        }
    }

    fn uses(&self) -> MutexGuard<'_, Uses> {
        self.uses.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `stream` wait for the uses a use there (a write when `write`) must follow; the
    /// returned use is recorded once the work is queued.
    #[inline]
    pub(crate) fn prepare_use(
        &self,
        stream: &Arc<CudaStream>,
        write: bool,
    ) -> Result<TrackedUse<'_>, Error> {
        if std::ptr::eq(self.solo.load(Ordering::Acquire), slot_ptr(stream)) {
            // Every use so far was on this stream: nothing to wait for or record. (A write
            // borrows the buffer exclusively; reads elsewhere meanwhile need no order with
            // this read, and a later write elsewhere records this stream's event afresh.)
            return Ok(TrackedUse::Solo);
        }
        self.prepare_shared_use(stream, write)
    }

    /// [`prepare_use`](Self::prepare_use) when the buffer was used on another stream (or not
    /// yet): the wait, and the use to record.
    #[inline(never)]
    fn prepare_shared_use(
        &self,
        stream: &Arc<CudaStream>,
        write: bool,
    ) -> Result<TrackedUse<'_>, Error> {
        let slot = slot_of(stream);
        let mut uses = self.uses();
        let solo = self.solo.load(Ordering::Acquire);
        if !solo.is_null() {
            uses.leave_solo(solo);
            self.solo.store(std::ptr::null_mut(), Ordering::Release);
        }
        uses.before(&slot, write)?;
        drop(uses);
        Ok(TrackedUse::Recorded {
            record: self,
            slot,
            write,
        })
    }

    /// Orders every use before the last writer's stream (the replay stream for a write
    /// captured into a graph), where the memory is to be freed, and returns that stream's
    /// clock. For the buffer's drop, which cannot report errors: the waits that fail are
    /// left out.
    pub(crate) fn order_for_free(&mut self) -> Arc<Slot> {
        let solo = *self.solo.get_mut();
        let uses = self.uses.get_mut().unwrap_or_else(PoisonError::into_inner);
        if !solo.is_null() {
            uses.leave_solo(solo);
        }
        let slot = Arc::clone(uses.write.slot().home());
        let _ = uses.write.order_before(&slot, true);
        for read in &mut uses.reads {
            let _ = read.order_before(&slot, true);
        }
        slot
    }
}

impl Uses {
    /// Orders a use on `on` after the last write and, for a write, after every read.
    fn before(&mut self, on: &Arc<Slot>, write: bool) -> Result<(), Error> {
        self.write.order_before(on, write)?;
        if write {
            self.reads
                .iter_mut()
                .try_for_each(|r| r.order_before(on, true))?;
        }
        Ok(())
    }

    /// Whether everything the buffer's uses hold is ordered before what `slot`'s stream queues
    /// next: the last write ran before that stream's later work, and every read was on it.
    fn only_on(&self, slot: &Arc<Slot>) -> bool {
        self.write.covered_on(slot) && self.reads.iter().all(|r| r.on(slot))
    }

    /// Leaves the state where every use was on the stream of the clock at `solo`: the uses
    /// made there without a record are stood for by one stale use of that stream (every
    /// wait for it records the stream's event afresh), which covers the last write too.
    fn leave_solo(&mut self, solo: *const Slot) {
        let slot = if std::ptr::eq(Arc::as_ptr(self.write.slot()), solo) {
            Some(Arc::clone(self.write.slot()))
        } else {
            self.reads
                .iter()
                .find(|r| std::ptr::eq(Arc::as_ptr(r.slot()), solo))
                .map(|r| Arc::clone(r.slot()))
        };
        debug_assert!(slot.is_some(), "a solo stream always holds a use");
        if let Some(slot) = slot {
            self.write = slot.mark();
            self.write.go_stale();
            self.reads.clear();
        }
    }

    /// Records a use on `slot`'s stream dated `records`. Every earlier use was ordered before a
    /// write, so the write alone stands for them; a read replaces the earlier read of its
    /// stream. A use on the stream of the one it replaces moves that one forward (no new
    /// handle on the clock: the common case of a buffer kept on one stream).
    fn after(&mut self, slot: &Arc<Slot>, records: u64, write: bool) {
        if write {
            self.reads.clear();
            if self.write.on(slot) {
                self.write.advance(records);
            } else {
                self.write = slot.mark_at(records);
            }
        } else if let Some(read) = self.reads.iter_mut().find(|r| r.on(slot)) {
            read.advance(records);
        } else {
            self.reads.push(slot.mark_at(records));
        }
    }
}

/// A use of a tracked buffer queued on a stream, recorded once the work is queued.
pub(crate) enum TrackedUse<'a> {
    /// On the stream every earlier use was on: nothing to record.
    Solo,
    /// Recorded in the buffer's uses.
    Recorded {
        record: &'a UseRecord,
        slot: Arc<Slot>,
        write: bool,
    },
}

impl TrackedUse<'_> {
    /// Records the use (call after queueing the work). A write waited for every earlier use,
    /// so after it the buffer is on the writer's stream alone.
    #[inline]
    pub(crate) fn finish(self) {
        if let TrackedUse::Recorded {
            record,
            slot,
            write,
        } = self
        {
            record.record(slot, write);
        }
    }
}

impl UseRecord {
    /// [`TrackedUse::finish`] for a use on a stream other than the buffer's last.
    #[inline(never)]
    fn record(&self, slot: Arc<Slot>, write: bool) {
        let records = slot.records();
        let mut uses = self.uses();
        // A use recorded late (a collective's, at the end of its group) may find the buffer
        // marked as used on one other stream since it was prepared: that mark no longer holds.
        let current = self.solo.load(Ordering::Acquire);
        if !current.is_null() && !std::ptr::eq(current, Arc::as_ptr(&slot)) {
            uses.leave_solo(current);
            self.solo.store(std::ptr::null_mut(), Ordering::Release);
        }
        uses.after(&slot, records, write);
        if write || uses.only_on(&slot) {
            self.solo
                .store(Arc::as_ptr(&slot).cast_mut(), Ordering::Release);
        }
    }
}
