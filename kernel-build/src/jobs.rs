//! How many compiles run at once: Cargo's jobserver when the build runs under Cargo (as
//! cc-rs does: `NUM_JOBS` and the jobserver protocol), the number of cores otherwise.
//!
//! The process owns one implicit token: the first worker runs on it. Every other worker
//! takes a token from the jobserver before each job and gives it back after, so `cargo
//! build -j N` bounds the compiles of all crates together. A job may take more tokens
//! without waiting (when some are free) to run nvcc's per-target passes in parallel or to
//! split its optimizer and assembler over several threads.
//!
//! Only build scripts have a jobserver to share: without the `build` feature (the macro
//! crate's build of this one) no jobserver client is compiled, and the limit alone bounds.

use crate::env::{self, Reporting};
#[cfg(feature = "build")]
use jobserver::{Acquired, Client};
use std::sync::Mutex;
#[cfg(feature = "build")]
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The concurrency of one build.
pub(crate) struct Jobs {
    limit: usize,
    client: Option<&'static Client>,
}

/// The jobserver Cargo passed to this process, opened once.
#[cfg(feature = "build")]
fn cargo_jobserver() -> Option<&'static Client> {
    static CLIENT: OnceLock<Option<Client>> = OnceLock::new();
    CLIENT
        // SAFETY: the descriptors named by CARGO_MAKEFLAGS/MAKEFLAGS are inherited from Cargo
        // for this purpose and nothing else in the process uses them.
        .get_or_init(|| unsafe { Client::from_env() })
        .as_ref()
}

/// Without the `build` feature there is never a jobserver.
#[cfg(not(feature = "build"))]
fn cargo_jobserver() -> Option<&'static Client> {
    None
}

/// No jobserver client exists without the `build` feature: this type has no values.
#[cfg(not(feature = "build"))]
enum Client {}

/// A token of a jobserver that cannot exist.
#[cfg(not(feature = "build"))]
enum Acquired {}

#[cfg(not(feature = "build"))]
impl Client {
    fn try_acquire(&self) -> std::io::Result<Option<Acquired>> {
        match *self {}
    }

    fn acquire(&self) -> std::io::Result<Acquired> {
        match *self {}
    }
}

impl Jobs {
    /// `explicit` jobs, else `NUM_JOBS` (build scripts), else the number of cores. The
    /// jobserver is used in build scripts only (a macro runs inside rustc, which holds
    /// the tokens of its own crate).
    pub(crate) fn new(explicit: Option<usize>, reporting: Reporting) -> Jobs {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let from_env = || {
            env::var(crate::env::Var::NUM_JOBS, reporting)
                .and_then(|v| v.to_str().and_then(|s| s.trim().parse::<usize>().ok()))
        };
        let limit = explicit.or_else(from_env).unwrap_or(cores).max(1);
        let client = (explicit.is_none() && reporting == Reporting::Cargo)
            .then(cargo_jobserver)
            .flatten();
        Jobs { limit, client }
    }

    /// The most compiles at once.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Runs `work(item, threads)` for every item, at most `limit` at once, and returns the
    /// results in the items' order. `threads` is how many threads the item may use:
    /// `wanted(item)` (at least one), and under a jobserver as many of those as tokens were
    /// free for (the first is the worker's own).
    pub(crate) fn run<T: Sync, R: Send>(
        &self,
        items: &[T],
        wanted: impl Fn(&T) -> usize + Sync,
        work: impl Fn(&T, usize) -> R + Sync,
    ) -> Vec<R> {
        let workers = self.limit.min(items.len()).max(1);
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<R>>> =
            Mutex::new(std::iter::repeat_with(|| None).take(items.len()).collect());
        std::thread::scope(|s| {
            for w in 0..workers {
                let (next, results, work, wanted) = (&next, &results, &work, &wanted);
                s.spawn(move || {
                    // Take a token before an item, so that an item never waits for a token
                    // while another worker is free to run it.
                    while let Some(main) =
                        self.main_token(w == 0, || next.load(Ordering::SeqCst) < items.len())
                    {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(item) = items.get(i) else { break };
                        let want = wanted(item).max(1);
                        let extra = self.extra_tokens(want);
                        let threads = match self.client {
                            Some(_) => 1 + extra.len(),
                            None => want,
                        };
                        let r = work(item, threads);
                        drop((main, extra));
                        if let Ok(mut all) = results.lock() {
                            all[i] = Some(r);
                        }
                    }
                });
            }
        });
        results
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .into_iter()
            .map(|r| r.expect("every job ran"))
            .collect()
    }

    /// The token a worker runs its next item on: none needed for the implicit one (or
    /// without a jobserver); otherwise one taken from the jobserver, polled for as long as
    /// `wanted()` says items remain. `None`: nothing left to do.
    fn main_token(&self, implicit: bool, wanted: impl Fn() -> bool) -> Option<Option<Acquired>> {
        let client = match self.client {
            Some(c) if !implicit => c,
            _ => return wanted().then_some(None),
        };
        while wanted() {
            match client.try_acquire() {
                Ok(Some(t)) => return Some(Some(t)),
                Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
                // No non-blocking read on this jobserver: wait for a token.
                Err(_) => return client.acquire().ok().map(Some),
            }
        }
        None
    }

    /// Up to `share - 1` more tokens, taken only if free, so that one nvcc may compile
    /// several targets at once or split its work.
    fn extra_tokens(&self, share: usize) -> Vec<Acquired> {
        let mut extra = Vec::new();
        if let Some(client) = self.client {
            while extra.len() + 1 < share {
                match client.try_acquire() {
                    Ok(Some(t)) => extra.push(t),
                    _ => break,
                }
            }
        }
        extra
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn results_keep_the_items_order_and_concurrency_is_bounded() {
        let jobs = Jobs::new(Some(3), Reporting::Silent);
        let running = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let items: Vec<u32> = (0..20).collect();
        let out = jobs.run(
            &items,
            |_| 1,
            |&i, threads| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(5));
                running.fetch_sub(1, Ordering::SeqCst);
                (i * 2, threads)
            },
        );
        assert_eq!(
            out.iter().map(|r| r.0).collect::<Vec<_>>(),
            (0..20).map(|i| i * 2).collect::<Vec<_>>()
        );
        assert!(out.iter().all(|r| r.1 == 1), "each asked for one");
        assert!(peak.load(Ordering::SeqCst) <= 3);
    }

    #[test]
    fn each_item_gets_the_threads_it_asks_for() {
        let jobs = Jobs::new(Some(8), Reporting::Silent);
        let out = jobs.run(&[1, 5, 3], |&n| n, |_, threads| threads);
        assert_eq!(out, [1, 5, 3]);
        assert_eq!(
            jobs.run(&[0], |&n| n, |_, threads| threads),
            [1],
            "at least one"
        );
    }

    #[cfg(feature = "build")]
    #[test]
    fn a_jobserver_bounds_the_workers() {
        // A jobserver with 1 token besides the implicit one: at most 2 jobs at once.
        let client = Box::leak(Box::new(jobserver::Client::new(1).unwrap()));
        let jobs = Jobs {
            limit: 4,
            client: Some(client),
        };
        let running = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let items: Vec<u32> = (0..12).collect();
        jobs.run(
            &items,
            |_| 1,
            |_, _| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(5));
                running.fetch_sub(1, Ordering::SeqCst);
            },
        );
        assert_eq!(peak.load(Ordering::SeqCst), 2);
    }
}
