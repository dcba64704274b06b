//! New communicators from some ranks of one (`ncclCommSplit`): the ranks of a tensor- or
//! pipeline-parallel group, say. Every rank of the parent takes part, each choosing a color;
//! the ranks of one color form one new communicator.

use std::ffi::c_int;
use std::sync::Arc;

use cudarc::nccl::sys::ncclComm_t;

use crate::collective::communicator::Communicator;
use crate::collective::group::open_on_this_thread;
use crate::collective::nccl::Optional;
use crate::collective::serial::{self, Together};
use crate::error::{DriverResultExt, Error};

/// NCCL's color for a rank that joins no new communicator (`NCCL_SPLIT_NOCOLOR`).
const NO_COLOR: c_int = -1;

impl Communicator {
    /// Splits this communicator (`ncclCommSplit`): the ranks that pass the same `color` form
    /// a new communicator, ranked in the order of their ranks here; a rank that passes `None`
    /// joins none and gets `None`. Every rank of this communicator must call it (a rank per
    /// process or thread), like a collective: a rank refused before it reaches NCCL (a color
    /// out of range, an open group) leaves the others waiting in theirs, as a missing rank of
    /// a collective does. After a failed split, make no further split of the same
    /// communicators (NCCL has counted the ranks that took part). The new communicator runs on the same [`Gpu`](crate::Gpu)
    /// handle's device and stream. A thread that drives several ranks splits them together
    /// with [`split_all`](Communicator::split_all).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, UniqueId};
    /// # let (id, rank, ranks) = (UniqueId::new()?, 0, 4);
    /// let world = Communicator::for_rank(&Gpu::new(rank)?, &id, rank, ranks)?;
    /// // Two groups of two: ranks 0 and 2, ranks 1 and 3.
    /// let pair = world.split(Some(rank as u32 % 2))?.expect("every rank has a color");
    /// assert_eq!(pair.ranks(), 2);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`split_all`](Communicator::split_all).
    pub fn split(&self, color: Option<u32>) -> Result<Option<Communicator>, Error> {
        let mut split = Self::split_all(std::slice::from_ref(self), &[color])?;
        Ok(split.pop().flatten())
    }

    /// [`split`](Communicator::split) for several ranks driven by this thread, together (in
    /// one NCCL group): rank `comms[i]` passes `colors[i]`. `comms` holds every rank of the
    /// communicator that this thread drives (all of them for [`for_gpus`](Communicator::for_gpus)'s).
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu};
    /// let gpus = (0..4).map(Gpu::new).collect::<Result<Vec<_>, _>>()?;
    /// let world = Communicator::for_gpus(&gpus)?;
    /// // Ranks 0 and 1 form one communicator; 2 and 3 join none.
    /// let split = Communicator::split_all(&world, &[Some(0), Some(0), None, None])?;
    /// assert_eq!(split[1].as_ref().map(|c| (c.rank(), c.ranks())), Some((1, 2)));
    /// assert!(split[3].is_none());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Collective`] for a color count other than `comms`', a color above `i32::MAX`,
    /// ranks of communicators of different sizes or a rank given twice, a [`Group`](crate::Group) open
    /// on this thread, or an NCCL older than 2.18; [`Error::Nccl`] when NCCL fails (it then
    /// makes none of the new communicators).
    pub fn split_all(
        comms: &[Communicator],
        colors: &[Option<u32>],
    ) -> Result<Vec<Option<Communicator>>, Error> {
        let refuse = |problem: String| {
            Err(Error::Collective {
                call: "ncclCommSplit",
                problem,
            })
        };
        if comms.len() != colors.len() {
            return refuse(format!(
                "{} communicator(s) but {} color(s): give one color (or `None`) per rank",
                comms.len(),
                colors.len()
            ));
        }
        if let Some(big) = colors.iter().flatten().find(|&&c| c > i32::MAX as u32) {
            return refuse(format!("color {big} is above NCCL's largest, {}", i32::MAX));
        }
        let ranks: Vec<usize> = comms.iter().map(Communicator::rank).collect();
        if let Some(c) = comms.iter().find(|c| c.ranks() != comms[0].ranks()) {
            return refuse(format!(
                "rank {} is of a communicator of {} ranks, rank {} of one of {}: split the \
                 ranks of one communicator",
                c.rank(),
                c.ranks(),
                comms[0].rank(),
                comms[0].ranks()
            ));
        }
        if let Some(twice) = (1..ranks.len()).find(|&i| ranks[..i].contains(&ranks[i])) {
            return refuse(format!("rank {} is given twice", ranks[twice]));
        }
        if open_on_this_thread() {
            return refuse(
                "a group is open on this thread: NCCL would finish the split only at its end"
                    .to_owned(),
            );
        }
        let Some(first) = comms.first() else {
            return Ok(Vec::new());
        };
        let nccl = first.nccl;
        nccl.require(Optional::CommSplit)?;
        // NCCL finds each rank's device itself; a context is current for its CUDA calls.
        first
            .gpu
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        let mut made: Vec<ncclComm_t> = vec![std::ptr::null_mut(); comms.len()];
        // Every rank of ranks made together: the new ones are made together too, while no
        // other thread queues a whole group (`serial`).
        let sets: Vec<_> = comms.iter().map(|c| c.together.as_ref()).collect();
        let whole = serial::whole_set(&sets);
        let guard = whole.then(serial::lock);
        // The group is ended below on every path.
        nccl.group_start()?;
        let mut split = Ok(());
        for ((comm, color), out) in comms.iter().zip(colors).zip(&mut made) {
            let color = color.map_or(NO_COLOR, |c| c as c_int);
            // SAFETY: a live communicator, and an out-slot of `made`, which is not touched
            // before the group ends; the key (the rank here) keeps the parent's order.
            split = unsafe { nccl.comm_split(comm.raw(), color, comm.rank() as c_int, out) };
            // A call NCCL refuses fails the whole group: no rank's split is made.
            if split.is_err() {
                break;
            }
        }
        // A non-blocking parent's split finishes in NCCL's thread, which writes the new
        // communicators when done; NCCL reports its progress on the parents.
        let parents: Vec<ncclComm_t> = comms.iter().map(Communicator::raw).collect();
        // SAFETY: the parents, live communicators; the group started above, on this thread.
        let ended = unsafe { nccl.group_end(&parents) };
        drop(guard);
        let result = split.and(ended).and_then(|()| {
            made.iter()
                .zip(comms)
                .zip(colors)
                .map(|((&new, parent), color)| {
                    match (new.is_null(), color) {
                        (true, None) => return Ok(None),
                        (true, Some(color)) => {
                            return Err(Error::Collective {
                                call: "ncclCommSplit",
                                problem: format!(
                                    "rank {} chose color {color} but NCCL made no \
                                     communicator for it",
                                    parent.rank()
                                ),
                            });
                        }
                        (false, _) => {}
                    }
                    // SAFETY: a communicator NCCL just made.
                    let rank = unsafe { nccl.comm_user_rank(new) }?;
                    // SAFETY: as above.
                    let ranks = unsafe { nccl.comm_count(new) }?;
                    Ok(Some((new, rank as usize, ranks as usize, parent)))
                })
                .collect::<Result<Vec<_>, Error>>()
        });
        match result {
            Ok(parts) => {
                // One set per color, when the parent's ranks were all here.
                let mut sets: Vec<(u32, Arc<Together>)> = Vec::new();
                let mut set_of = |color: u32, ranks: usize| {
                    if let Some((_, set)) = sets.iter().find(|(c, _)| *c == color) {
                        return set.clone();
                    }
                    let set = Together::new(ranks);
                    sets.push((color, set.clone()));
                    set
                };
                Ok(parts
                    .into_iter()
                    .zip(colors)
                    .map(|(p, color)| {
                        p.map(|(new, rank, ranks, parent)| {
                            let together = color.filter(|_| whole).map(|c| set_of(c, ranks));
                            // A null configuration: the new one is as blocking as its parent.
                            Communicator::from_parts(
                                new,
                                &parent.gpu,
                                rank,
                                ranks,
                                nccl,
                                together,
                                parent.non_blocking,
                            )
                        })
                    })
                    .collect())
            }
            Err(e) => {
                // What NCCL made before the failure is of no use: let it go.
                for new in made.into_iter().filter(|c| !c.is_null()) {
                    // SAFETY: a communicator NCCL made here and nothing else holds.
                    let _ = unsafe { nccl.comm_abort(new) };
                }
                Err(e)
            }
        }
    }
}
