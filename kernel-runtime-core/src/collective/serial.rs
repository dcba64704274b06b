//! One order of NCCL's kernels on every device, whatever the threads of the process do.
//!
//! A collective's kernel waits on the device until the kernels of its other ranks run, and NCCL
//! gives no forward-progress guarantee between the kernels of different communicators on one
//! device: it asks programs to issue the collectives of different communicators in one order on
//! every device. Two threads that each drive every rank of their own communicators (each made
//! by [`Communicator::for_gpus`](crate::Communicator::for_gpus)) on the same devices would
//! queue their groups device by device in any interleaving: thread A on device 0 and B behind
//! it, B on device 1 and A behind it, each kernel then waiting for one queued behind the other.
//! This module keeps the order for the communicators the runtime can see whole.
//!
//! Ranks made together in this process
//! ([`Communicator::for_gpus`](crate::Communicator::for_gpus), and the splits of all of them)
//! share a [`Together`]. A [`Group`](crate::Group) that holds every rank of each
//! communicator it uses is *whole*: its end (`ncclGroupEnd`, which queues its kernels on every
//! device) runs under [`lock`], one process-wide lock, as do `ncclCommInitAll` and the split of
//! whole communicators. So the groups of all threads queue on every device in the order they
//! took the lock. A group that holds only some ranks of a communicator (one rank per thread or
//! per process) is not locked: its end may wait for the other ranks' threads at NCCL's first
//! connection, and a lock would then keep them out. Those ranks keep NCCL's rule themselves: the
//! same collectives in the same order on every rank.

use std::sync::{Arc, Mutex, MutexGuard};

/// The ranks of one communicator made together in this process: how many there are.
#[derive(Debug)]
pub(crate) struct Together {
    pub(crate) ranks: usize,
}

impl Together {
    /// A new set of `ranks` ranks, made together.
    pub(crate) fn new(ranks: usize) -> Arc<Together> {
        Arc::new(Together { ranks })
    }
}

/// The process-wide lock whole groups end under.
static LAUNCH: Mutex<()> = Mutex::new(());

/// Takes the lock (a thread that panicked holding it left nothing half done that matters).
pub(crate) fn lock() -> MutexGuard<'static, ()> {
    LAUNCH.lock().unwrap_or_else(|p| p.into_inner())
}

/// The ranks a group uses, to tell whether it is whole.
#[derive(Debug, Default)]
pub(crate) struct Members {
    /// Each set of ranks made together, with the ranks of it seen.
    seen: Vec<(Arc<Together>, Vec<usize>)>,
    /// A rank of a communicator whose other ranks are not in this process, or not known.
    partial: bool,
}

impl Members {
    /// Notes that the group uses rank `rank` of a communicator of `ranks` ranks, made
    /// `together` with its other ranks in this process (`None`: not, or not known).
    pub(crate) fn note(&mut self, together: Option<&Arc<Together>>, ranks: usize, rank: usize) {
        match together {
            _ if ranks == 1 => {}
            None => self.partial = true,
            Some(together) => match self.seen.iter_mut().find(|(t, _)| Arc::ptr_eq(t, together)) {
                Some((_, seen)) if seen.contains(&rank) => {}
                Some((_, seen)) => seen.push(rank),
                None => self.seen.push((together.clone(), vec![rank])),
            },
        }
    }

    /// Whether every rank of each communicator used is used: then the group's end takes the
    /// lock.
    pub(crate) fn whole(&self) -> bool {
        !self.partial
            && self
                .seen
                .iter()
                .all(|(together, ranks)| ranks.len() == together.ranks)
    }
}

/// Whether `sets`, the set each of some communicators was made in, are every rank of one set
/// made together in this process.
pub(crate) fn whole_set(sets: &[Option<&Arc<Together>>]) -> bool {
    let Some(Some(first)) = sets.first() else {
        return false;
    };
    sets.len() == first.ranks
        && sets
            .iter()
            .all(|t| t.is_some_and(|t| Arc::ptr_eq(t, first)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arithmetic of `whole` without communicators: ranks noted by hand.
    fn members(seen: &[(&Arc<Together>, &[usize])], partial: bool) -> bool {
        Members {
            seen: seen
                .iter()
                .map(|(t, r)| (Arc::clone(t), r.to_vec()))
                .collect(),
            partial,
        }
        .whole()
    }

    #[test]
    fn a_group_is_whole_only_with_every_rank_of_every_set() {
        let (a, b) = (Together::new(2), Together::new(3));
        assert!(members(&[(&a, &[0, 1])], false));
        assert!(members(&[(&a, &[1, 0]), (&b, &[0, 1, 2])], false));
        assert!(!members(&[(&a, &[0])], false));
        assert!(!members(&[(&a, &[0, 1]), (&b, &[0, 2])], false));
        assert!(!members(&[(&a, &[0, 1])], true));
        assert!(members(&[], false));
    }

    /// What a group notes of its communicators' ranks decides whether it is whole: a rank
    /// noted twice counts once, a one-rank communicator is no constraint, and a rank of a
    /// set not made in this process makes the group partial.
    #[test]
    fn noted_ranks_make_a_group_whole_or_partial() {
        let (a, b) = (Together::new(2), Together::new(3));
        let mut m = Members::default();
        m.note(Some(&a), 2, 0);
        m.note(Some(&a), 2, 0);
        assert!(!m.whole());
        m.note(Some(&a), 2, 1);
        m.note(None, 1, 0);
        assert!(m.whole());
        m.note(Some(&b), 3, 2);
        assert!(!m.whole());
        m.note(Some(&b), 3, 0);
        m.note(Some(&b), 3, 1);
        assert!(m.whole());
        m.note(None, 4, 3);
        assert!(!m.whole());
    }

    /// A split is made whole only from every rank of one set made together.
    #[test]
    fn a_whole_set_is_every_rank_of_one_set() {
        let (a, b) = (Together::new(2), Together::new(2));
        assert!(whole_set(&[Some(&a), Some(&a)]));
        assert!(!whole_set(&[Some(&a)]));
        assert!(!whole_set(&[Some(&a), Some(&b)]));
        assert!(!whole_set(&[Some(&a), None]));
        assert!(!whole_set(&[None, None]));
        assert!(!whole_set(&[]));
    }

    #[test]
    fn the_lock_outlives_a_panic_while_held() {
        let held = std::thread::spawn(|| {
            let _guard = lock();
            panic!("a panic while the launch lock is held");
        })
        .join();
        assert!(held.is_err());
        drop(lock());
    }
}
