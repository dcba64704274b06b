//! Finishing what NCCL left in progress. A non-blocking communicator's calls (its
//! initialisation, the end of a group of its collectives, a split of it) return
//! `ncclInProgress` and finish in threads of NCCL's own; the communicator's state
//! (`ncclCommGetAsyncError`) stays `ncclInProgress` until then, and NCCL refuses the next call
//! on it before. [`poll`] asks for the state until it changes, or until a deadline: at once,
//! then yielding the thread for a short while (a group's end finishes in tens of
//! microseconds), then sleeping for longer and longer pauses, up to a millisecond (an
//! initialisation waits for every rank).

use std::time::{Duration, Instant};

use crate::error::Error;

/// An `ncclResult_t`, read as its integer value.
pub(super) type Code = u32;

/// `ncclSuccess`.
pub(super) const SUCCESS: Code = 0;

/// `ncclInProgress`.
pub(super) const IN_PROGRESS: Code = 7;

/// How long [`poll`] yields the thread between asks before it starts sleeping.
const YIELDING: Duration = Duration::from_micros(200);

/// The longest pause between two asks.
const LONGEST_PAUSE: Duration = Duration::from_millis(1);

/// How polling a state ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Polled {
    /// The state stopped being `ncclInProgress`: this is it.
    Done(Code),
    /// The deadline passed while it was still `ncclInProgress`.
    TimedOut,
}

/// Asks `state` until it is not `ncclInProgress` or `deadline` (if any) has passed; an error
/// of `state` itself ends the polling.
pub(super) fn poll(
    state: impl FnMut() -> Result<Code, Error>,
    deadline: Option<Instant>,
) -> Result<Polled, Error> {
    poll_with(state, deadline, std::thread::sleep)
}

/// Polls the state of each of `comms` (`state` asks for one) until none is in progress or
/// `deadline` has passed: the first state other than `ncclSuccess` among them, or success;
/// with no communicator, `ncclInProgress` (nothing can finish the call). Every one is waited
/// for even after one failed: NCCL joins the thread of a call once its state is asked.
pub(super) fn settle_all<C>(
    comms: &[C],
    deadline: Option<Instant>,
    mut state: impl FnMut(&C) -> Result<Code, Error>,
) -> Result<Polled, Error> {
    let mut outcome = if comms.is_empty() {
        IN_PROGRESS
    } else {
        SUCCESS
    };
    for comm in comms {
        match poll(|| state(comm), deadline)? {
            Polled::TimedOut => return Ok(Polled::TimedOut),
            Polled::Done(code) if outcome == SUCCESS => outcome = code,
            Polled::Done(_) => {}
        }
    }
    Ok(Polled::Done(outcome))
}

/// [`poll`], pausing with `sleep`.
fn poll_with(
    mut state: impl FnMut() -> Result<Code, Error>,
    deadline: Option<Instant>,
    mut sleep: impl FnMut(Duration),
) -> Result<Polled, Error> {
    let started = Instant::now();
    let mut pause = Duration::from_micros(10);
    loop {
        let code = state()?;
        if code != IN_PROGRESS {
            return Ok(Polled::Done(code));
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return Ok(Polled::TimedOut);
        }
        if now - started < YIELDING {
            std::thread::yield_now();
            continue;
        }
        let left = deadline.map_or(pause, |d| d - now);
        sleep(pause.min(left));
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake communicator's state: `ncclInProgress` for the first `busy` asks, then `then`.
    fn fake(
        busy: usize,
        then: Code,
    ) -> (
        impl FnMut() -> Result<Code, Error>,
        std::rc::Rc<std::cell::Cell<usize>>,
    ) {
        let asked = std::rc::Rc::new(std::cell::Cell::new(0));
        let count = asked.clone();
        let state = move || {
            count.set(count.get() + 1);
            Ok(if count.get() <= busy {
                IN_PROGRESS
            } else {
                then
            })
        };
        (state, asked)
    }

    #[test]
    fn a_state_that_finishes_is_polled_until_it_does() {
        let (state, asked) = fake(0, SUCCESS);
        assert_eq!(poll(state, None).unwrap(), Polled::Done(SUCCESS));
        assert_eq!(asked.get(), 1, "a finished state is asked once");

        // Past the yielding phase into the sleeping one: 300 busy asks.
        let (state, asked) = fake(300, SUCCESS);
        let deadline = Instant::now() + Duration::from_secs(30);
        assert_eq!(poll(state, Some(deadline)).unwrap(), Polled::Done(SUCCESS));
        assert_eq!(asked.get(), 301);
    }

    #[test]
    fn an_error_after_progress_is_the_result() {
        // ncclRemoteError: a peer failed while the call was in progress.
        let (state, asked) = fake(5, 6);
        assert_eq!(poll(state, None).unwrap(), Polled::Done(6));
        assert_eq!(asked.get(), 6);
    }

    #[test]
    fn a_state_that_never_finishes_times_out_at_the_deadline() {
        let (state, asked) = fake(usize::MAX, SUCCESS);
        let timeout = Duration::from_millis(30);
        let started = Instant::now();
        assert_eq!(
            poll(state, Some(started + timeout)).unwrap(),
            Polled::TimedOut
        );
        let waited = started.elapsed();
        assert!(waited >= timeout, "{waited:?}");
        assert!(waited < Duration::from_secs(2), "{waited:?}");
        assert!(asked.get() > 2, "asked {} times", asked.get());

        // A deadline already passed: asked once, then the timeout.
        let (state, asked) = fake(usize::MAX, SUCCESS);
        assert_eq!(poll(state, Some(Instant::now())).unwrap(), Polled::TimedOut);
        assert_eq!(asked.get(), 1);
    }

    #[test]
    fn the_pauses_double_from_10_us_to_a_millisecond_and_stop_at_the_deadline() {
        // In progress through the yielding phase and then for 12 pauses more.
        let started = Instant::now();
        let pauses = std::cell::RefCell::new(Vec::new());
        let polled = poll_with(
            || {
                let busy = started.elapsed() < YIELDING || pauses.borrow().len() < 12;
                Ok(if busy { IN_PROGRESS } else { SUCCESS })
            },
            None,
            |d| pauses.borrow_mut().push(d),
        );
        assert_eq!(polled.unwrap(), Polled::Done(SUCCESS));
        let us: Vec<u128> = pauses.borrow().iter().map(Duration::as_micros).collect();
        assert_eq!(
            us,
            [10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000, 1000, 1000]
        );

        // No pause runs past the deadline.
        let longest = std::cell::Cell::new(Duration::ZERO);
        let deadline = Instant::now() + YIELDING + Duration::from_micros(25);
        let polled = poll_with(
            || Ok(IN_PROGRESS),
            Some(deadline),
            |d| {
                longest.set(longest.get().max(d));
                std::thread::sleep(d);
            },
        );
        assert_eq!(polled.unwrap(), Polled::TimedOut);
        assert!(
            longest.get() <= Duration::from_micros(25),
            "{:?}",
            longest.get()
        );
    }

    #[test]
    fn several_communicators_settle_to_the_first_failure_after_all_finish() {
        // Fake communicators: (asks while in progress, final state); ncclRemoteError is 6.
        let comms = [(3, SUCCESS), (5, 6), (2, 2), (0, SUCCESS)];
        let mut asked = [0usize; 4];
        let polled = settle_all(&[0, 1, 2, 3], None, |&i| {
            asked[i] += 1;
            let (busy, then) = comms[i];
            Ok(if asked[i] <= busy { IN_PROGRESS } else { then })
        });
        assert_eq!(polled.unwrap(), Polled::Done(6));
        // Each was asked until it finished, the ones after the failure too.
        assert_eq!(asked, [4, 6, 3, 1]);

        let all_fine = settle_all(&[1, 2], None, |_| Ok(SUCCESS));
        assert_eq!(all_fine.unwrap(), Polled::Done(SUCCESS));
        let none = settle_all::<u8>(&[], None, |_| Ok(SUCCESS));
        assert_eq!(none.unwrap(), Polled::Done(IN_PROGRESS));

        // One that never finishes times the whole out.
        let started = Instant::now();
        let stuck = settle_all(&[0, 1], Some(started + Duration::from_millis(20)), |&i| {
            Ok(if i == 1 { IN_PROGRESS } else { SUCCESS })
        });
        assert_eq!(stuck.unwrap(), Polled::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(20));
    }

    #[test]
    fn an_error_asking_ends_the_polling() {
        let mut asked = 0;
        let e = poll(
            || {
                asked += 1;
                Err(Error::Collective {
                    call: "ncclCommGetAsyncError",
                    problem: "a fake failure".to_owned(),
                })
            },
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("a fake failure"), "{e}");
        assert_eq!(asked, 1);
    }
}
